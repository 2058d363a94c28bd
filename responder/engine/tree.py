"""Whole GBS and GISA trees built level by level, every node of a level at once.

:func:`responder.engine.evaluate.exact` walks a tree node by node, which is general (any
policy, noise, memoised category trees) but pays numpy's fixed per-call cost at every node.
For the two single-query policies without noise (GBS, Algorithm 1; GISA, Algorithm 2)
with first-index ties, the tree is a deterministic function of the node, so all nodes at
one depth can be scored together: the candidates are kept sorted by (node, target group),
and ``np.add.reduceat`` gives every node's and every (node, group)'s "yes" mass for all
queries in one call per level. The same costs, stopping rule and tie rule as
:class:`~responder.engine.policies.Policy` pick the same query at every node, so the
per-object depths, and hence E[K], are the same numbers as the node-by-node walk (the
test ``tests/engine/test_level_tree.py`` checks bit-for-bit equality).

Only the decomposition term (Theorem 1 (thm:object identification) and Theorem 2
(thm:group identification), a check on E[K]) is summed in another order
and can differ from the node-by-node value by round-off.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from responder.engine.bounds import entropy, xlog2x

#: Policies the level-wise builder handles (single query per node, deterministic).
LEVEL_POLICIES = frozenset({"gbs", "gisa"})

#: Largest matrix (objects x queries) built level-wise. Every level scores all its nodes on
#: every query, where the node-by-node walk scores a small node's group term only on the
#: few queries that split it; with many queries that wins. Measured (CPU time, GISA, group
#: target): 5.8x faster at 3,000 x 100, 2.5x at 3,000 x 300, 1.3x at 1,000 x 1,000, but
#: 2.2x slower at 10,000 x 1,000.
LEVEL_MAX_CELLS = 2_000_000

# Relative mass below which a child counts as empty; the same guard as belief._EMPTY.
_EMPTY = 1e-12


@dataclass
class LevelTree:
    """A whole tree's per-candidate depths, decomposition term and height.

    Attributes
    ----------
    depth : ndarray of shape (K,)
        Number of questions until the interview stops, for each candidate of the start node
        (ascending object index, as ``start.idx``).
    decomposition_sum : float
        sum_a pi_a C_a - sum_leaves pi_l I(l) over the tree (absolute masses).
    height : int
        The deepest leaf's depth.
    """

    depth: np.ndarray
    decomposition_sum: float
    height: int


def applies(model, policy) -> bool:
    """Whether :func:`build_level_tree` builds ``policy``'s tree on ``model`` (and is faster)."""
    return (
        model.noise is None
        and policy.name in LEVEL_POLICIES
        and policy.ties == "first"
        and model.matrix.size <= LEVEL_MAX_CELLS
    )


def _runs(key: np.ndarray) -> np.ndarray:
    """Whether each position starts a run of equal consecutive ``key`` values, (K,) bool."""
    change = np.empty(key.size, dtype=bool)
    change[0] = True
    np.not_equal(key[1:], key[:-1], out=change[1:])
    return change


def _sizes(starts: np.ndarray, total: int) -> np.ndarray:
    """Lengths of the runs beginning at ``starts`` in a sequence of length ``total``."""
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1] = total
    return ends - starts


def build_level_tree(model, name: str, tol: float, start) -> LevelTree:
    """Build the GBS (``name="gbs"``) or GISA (``"gisa"``) tree from node ``start``.

    Parameters
    ----------
    model : Model
        Noise-free (``model.noise is None``).
    name : {"gbs", "gisa"}
    tol : float
        Costs within ``tol`` of the node's best are tied; the lowest query index wins.
    start : Node
        Queries in ``start.asked`` are never asked (as in the node-by-node walk).
    """
    if name not in LEVEL_POLICIES:
        raise ValueError(
            f"unknown policy {name!r}; choose one of {', '.join(sorted(LEVEL_POLICIES))}"
        )
    K0 = start.idx.size
    B = model.matrix[start.idx]  # (K0, N) bool
    mass = start.mass
    n_queries = B.shape[1]
    # Each candidate's "yes" mass per query, with its own mass as one more column, so one
    # reduceat per level sums both (every column is summed separately, in the same order).
    X0 = np.empty((K0, n_queries + 1))
    np.multiply(B, mass[:, None], out=X0[:, :n_queries])
    X0[:, n_queries] = mass
    codes = model.target_codes[start.idx]
    n_codes = int(codes.max()) + 1 if K0 else 1
    blocked = np.flatnonzero(start.asked)  # never asked (skipped at the start node)
    grouped = not model.singleton_target
    depth = np.zeros(K0)
    u = 0.0
    height = 0
    # Live candidates (positions 0..K0-1) sorted by (node, target group); ``node`` numbers
    # the level's nodes 0..L-1 in that order.
    order = np.argsort(codes, kind="stable")
    node = np.zeros(K0, dtype=np.int64)
    level = 0
    while order.size:
        c = codes[order]
        seg_starts = np.flatnonzero(_runs(node * n_codes + c))  # runs of one (node, group)
        seg_node = node[seg_starts]
        node_seg_starts = np.flatnonzero(_runs(seg_node))
        # Stopping rule, first part: a node with one target group left is a leaf. Its
        # candidates leave before the level is scored (they need no query).
        pure = _sizes(node_seg_starts, seg_starts.size) == 1
        if pure.any():
            height = level
            leaf = pure[node]
            depth[order[leaf]] = level
            keep = ~leaf
            if not keep.any():
                break
            order, c = order[keep], c[keep]
            node = (np.cumsum(~pure) - 1)[node[keep]]
            seg_starts = np.flatnonzero(_runs(node * n_codes + c))
            seg_node = node[seg_starts]
            node_seg_starts = np.flatnonzero(_runs(seg_node))
        node_starts = seg_starts[node_seg_starts]
        X = np.take(X0, order, axis=0)
        if grouped:
            gsum = np.add.reduceat(X, seg_starts, axis=0)  # (S, N + 1) per (node, group)
            gyes, gtot = gsum[:, :n_queries], gsum[:, n_queries]
            nsum = np.add.reduceat(gsum, node_seg_starts, axis=0)  # (L, N + 1)
        else:
            nsum = np.add.reduceat(X, node_starts, axis=0)
        yes, total = nsum[:, :n_queries], nsum[:, n_queries]
        tot = total[:, None]
        no = tot - yes
        lo = np.minimum(no, yes)
        # Splits: both children keep mass (the guard of SplitStats.splits) and not blocked.
        splits = lo > _EMPTY * tot
        if blocked.size:
            splits[:, blocked] = False
        # Stopping rule, second part: no allowed query splits the node (rows no query
        # separates, e.g. identical rows of different groups).
        stuck = ~splits.any(axis=1)
        if stuck.any():
            height = level
            leaf = stuck[node]
            depth[order[leaf]] = level
            m = X[:, n_queries]
            for n in np.flatnonzero(stuck).tolist():  # rare: identical rows
                lo_, hi_ = node_starts[n], node_starts[n] + int((node == n).sum())
                _, inv = np.unique(c[lo_:hi_], return_inverse=True)
                u -= total[n] * entropy(np.bincount(inv.reshape(-1), weights=m[lo_:hi_]))
            inner = np.flatnonzero(~stuck)
            if not inner.size:
                break
            # Score only the nodes that go on (rows of the per-node arrays).
            keep = ~leaf
            order, c, X = order[keep], c[keep], X[keep]
            node = (np.cumsum(~stuck) - 1)[node[keep]]
            yes, no, lo, tot, splits = yes[inner], no[inner], lo[inner], tot[inner], splits[inner]
            total = total[inner]
            if grouped:
                keep_seg = ~stuck[seg_node]
                gyes, gtot = gyes[keep_seg], gtot[keep_seg]
            seg_starts = np.flatnonzero(_runs(node * n_codes + c))
            seg_node = node[seg_starts]
        rho = np.maximum(no, yes)
        rho /= tot
        lo /= tot
        # H(rho) = -(rho log rho + (1 - rho) log(1 - rho)) (bounds.binary_entropy).
        h = xlog2x(rho)
        h += xlog2x(lo)
        np.negative(h, out=h)
        if grouped:
            # sum_i pi_a^i H(rho_a^i) = sum_i (g log g - l log l - r log r) over the node's
            # groups i (see SplitStats.group_term), only where it can be nonzero: queries
            # that split the node, groups of two or more candidates (a lone candidate goes
            # wholly to one side).
            multi = np.flatnonzero(_sizes(seg_starts, order.size) > 1)
            sub, cols = np.nonzero(splits[seg_node[multi]])
            rows = multi[sub]
            gy, gt = gyes[rows, cols], gtot[rows]
            term = xlog2x(gtot)[rows]  # one log per group, not per (group, query)
            term -= xlog2x(gt - gy)
            term -= xlog2x(gy)
            group_term = np.bincount(
                seg_node[rows] * n_queries + cols, weights=term, minlength=splits.size
            )
            group_term = group_term.astype(float, copy=False).reshape(splits.shape)
            np.maximum(group_term, 0.0, out=group_term)
            group_term /= tot
        else:
            group_term = None
        if name == "gbs":
            cost = rho
        else:
            cost = 1.0 - h
            if group_term is not None:
                cost += group_term
        cost[~splits] = np.inf
        best = cost.min(axis=1)
        q = np.argmax(cost <= (best + tol)[:, None], axis=1)  # first tied query
        # Decomposition: pi_a C_a, C_a = 1 - H(rho_a(q)) + group term (Theorem 2
        # (thm:group identification)).
        rows_ = np.arange(q.size)
        chosen = h[rows_, q]
        if group_term is not None:
            chosen = chosen - group_term[rows_, q]
        u += float(total @ (1.0 - chosen))
        # Children: candidates of node r go to child 2r + answer; a stable sort keeps each
        # child's candidates sorted by target group.
        child = 2 * node + B[order, q[node]]
        resort = np.argsort(child, kind="stable")
        order = order[resort]
        node = np.cumsum(_runs(child[resort])) - 1
        level += 1
    return LevelTree(depth=depth, decomposition_sum=u, height=height)


# -- under persistent noise ----------------------------------------------------------------------

#: Nodes scored together in :func:`build_noisy_level_tree` (bounds its memory: a node costs
#: about 10 bytes per object).
NOISY_CHUNK = 4096

#: Largest matrix (objects x queries) whose noisy trees are built level-wise. Each node is
#: scored on every object (dense rows), where the walk scores only its candidates; with many
#: objects the walk wins. Measured (GBS / GISA, CPU): 131 x 84 6-12x faster level-wise,
#: 200 x 100 and 300 x 60 2-3x, but 600 x 60 1.2x slower (GBS) and 1,500 x 100 3x slower.
NOISY_LEVEL_MAX_CELLS = 25_000


def noisy_applies(model, policy) -> bool:
    """Whether :func:`build_noisy_level_tree` builds ``policy``'s tree on ``model``: GBS or
    GISA with first-index ties, persistent noise, the object target, a matrix of at most
    :data:`NOISY_LEVEL_MAX_CELLS` cells."""
    from responder.engine.policies import Policy  # noqa: PLC0415

    return (
        model.noise is not None
        and model.singleton_target
        and model.matrix.size <= NOISY_LEVEL_MAX_CELLS
        and policy.name in LEVEL_POLICIES
        and policy.ties == "first"
        and type(policy).choose is Policy.choose
    )


def build_noisy_level_tree(model, policy, start) -> LevelTree:
    """The whole GBS or GISA tree under persistent noise (Section 6), many nodes at a time.

    Nodes are held as :class:`~responder.engine.belief.NodeBatch` chunks (candidates,
    mismatch counts delta_i and n_a as arrays) and scored together: Appendix II's child
    masses for every query of every node come from one product per chunk
    (:meth:`NodeBatch.split`), and :func:`~responder.engine.policies.choose_batch` applies
    the policy's cost, stopping rule and first-index tie rule to every node at once. The
    tree is the node-by-node walk's; its sums are taken in another order:

    - each candidate's expected depth is sum over the internal nodes n holding it of
      m_i(n) / m_i(start) (the walk's recursion d_i(n) = 1 + sum over children c of
      (m_i(c) / m_i(n)) d_i(c), unrolled), so E[K] = sum_i m_i(start) d_i / pi(start);
    - the decomposition of Theorems 1 and 2 (``thm:object identification``, ``thm:group
      identification``) on the dilated groups: sum over internal nodes of pi_a C_a, with
      C_a = 1 - H(rho_a(q)) + sum_i (pi_a^i / pi_a) H(rho_a^i(q)) at the asked q, minus
      sum over leaves of pi_l I(l) (Theorem 3, ``thm:impurity based``).

    Both agree with the walk up to round-off (``tests/engine/test_level_tree.py``).
    """
    from responder.engine.belief import NodeBatch  # noqa: PLC0415

    reach = np.zeros(model.problem.n_objects)  # sum over internal nodes of m_i(n)
    u = 0.0
    height = 0
    level, frontier = 0, [NodeBatch.of(model, [start])]
    while frontier:
        kids = []
        for nodes in frontier:
            u_, inner_kids = _noisy_level_step(nodes, policy, reach)
            u += u_
            kids += inner_kids
        if kids:
            height = level + 1
        level += 1
        frontier = NodeBatch.concat(kids).chunks(NOISY_CHUNK) if kids else []
    depth = reach[start.idx] / start.mass
    return LevelTree(depth, u, height)


def _noisy_level_step(nodes, policy, reach):
    """Score one chunk of a level: its decomposition terms, its internal nodes' masses added
    to ``reach``, and its children (non-empty)."""
    from responder.engine.bounds import binary_entropy  # noqa: PLC0415
    from responder.engine.policies import choose_batch  # noqa: PLC0415

    stats = nodes.split(groups=True)
    resolved, probs = choose_batch(policy, nodes, stats)
    total = stats.total
    u = 0.0
    leaf = np.flatnonzero(resolved)
    if leaf.size:
        m = nodes.mass[leaf]
        impurity = xlog2x(total[leaf]) - xlog2x(m).sum(axis=1)  # pi_l I(l)
        u -= float(np.maximum(impurity, 0.0).sum())
    inner = np.flatnonzero(~resolved)
    if not inner.size:
        return u, []
    q = probs[inner].argmax(axis=1)
    rho = stats.reduction_factor[inner, q]
    cost = 1.0 - binary_entropy(rho) + stats.group_term[inner, q]
    u += float(total[inner] @ cost)
    reach += nodes.mass[inner].sum(axis=0)
    parents = nodes.take(np.concatenate([inner, inner]))
    both = parents.children(np.concatenate([q, q]), np.repeat([False, True], inner.size))
    alive = np.flatnonzero(both.cand.any(axis=1))
    return u, [both.take(alive)]
