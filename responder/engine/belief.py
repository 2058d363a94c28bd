"""Candidate masses at a node of the decision tree, and the child masses of every query.

A :class:`Model` fixes what is being identified (the *target partition*: each object, or
each object group) and whether answers may be wrong (persistent noise, Section 6). A
:class:`Node` is the state after some answers: the candidates with positive mass, which
queries were asked, and, under noise, each candidate's Hamming distance delta_i to the
answers on the error-prone queries (Appendix II).

:meth:`Node.split` scores every unasked query at once. It returns the masses that each
answer would send to the "no" and "yes" children, in total and per target group, from
which every reduction factor of Definitions 1 and 2 follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from responder.engine.bounds import entropy, xlog2x
from responder.engine.noise import BinomialTable, NoiseModel
from responder.engine.problem import Problem

TARGETS = ("object", "group")

# Relative mass below which a child counts as empty (guards float round-off).
_EMPTY = 1e-12


class TargetError(ValueError):
    """The target cannot be used with this problem (e.g. group target without labels)."""


@dataclass(frozen=True)
class SplitStats:
    """Masses produced by splitting a node on each query, for all N queries at once.

    Attributes
    ----------
    total : float
        pi_{Theta_a}, the mass at the node.
    no, yes : ndarray of shape (N,)
        pi_{Theta_l(a)} and pi_{Theta_r(a)} for each query (asked queries: no = total).
    group_total : ndarray of shape (G,)
        pi_{Theta_a^i} for the target groups: without noise, one entry per group present at
        the node (ascending group code; absent groups contribute nothing to any formula).
    group_no, group_yes : ndarray of shape (G, N) or None
        Per-group child masses, rows aligned with ``group_total``. None when every target
        group is a single noise-free object: then each group goes wholly to one side,
        rho_a^i = 1 and H(rho_a^i) = 0.
    unasked : ndarray of shape (N,), bool
    """

    total: float
    no: np.ndarray
    yes: np.ndarray
    group_total: np.ndarray
    group_no: np.ndarray | None
    group_yes: np.ndarray | None
    unasked: np.ndarray

    @cached_property
    def reduction_factor(self) -> np.ndarray:
        """rho_a(q) = max(pi_l, pi_r) / pi_a (Definition 1), shape (N,)."""
        return np.maximum(self.no, self.yes) / self.total

    @cached_property
    def splits(self) -> np.ndarray:
        """Unasked queries that send positive mass to both children, shape (N,) bool."""
        tol = _EMPTY * self.total
        return self.unasked & (self.no > tol) & (self.yes > tol)

    @cached_property
    def group_term(self) -> np.ndarray:
        """sum_i (pi_{Theta_a^i} / pi_{Theta_a}) H(rho_a^i(q)) for each query, shape (N,).

        The group part of GISA's cost C_a (Algorithm 2, from Theorem 2 (thm:group identification)), with rho_a^i from
        Definition 2. Groups with zero mass contribute nothing. Cached: the policy and the
        tree evaluation both need it.

        Computed only for unasked queries that send some mass to both sides: on any other
        column every group goes wholly to one side, so the term is exactly 0 there (for a
        skipped query it is 0 by definition: it splits nothing).
        """
        out = np.zeros_like(self.no)
        if self.group_no is None:
            return out
        cols = np.flatnonzero(self.unasked & (self.no > 0) & (self.yes > 0))
        # pi_a^i H(rho_a^i) = g log g - l log l - r log r with g = l + r the group's mass
        # and l, r its masses in the two children (0 log 0 = 0): no division, no max.
        gt = self.group_total
        term = xlog2x(gt).sum() - (
            xlog2x(self.group_no[:, cols]).sum(axis=0) + xlog2x(self.group_yes[:, cols]).sum(axis=0)
        )
        out[cols] = np.maximum(term, 0.0) / self.total
        return out

    @property
    def target_entropy(self) -> float:
        """H of the target groups' masses at this node, in bits (I(Theta_a), eq. 5)."""
        return entropy(self.group_total)


@dataclass(frozen=True)
class SplitStatsBatch:
    """:class:`SplitStats` of D nodes at once, one row per node (the batched simulator's and
    the level-wise noisy tree's, see :class:`NodeBatch`).

    Attributes
    ----------
    total : ndarray of shape (D,)
    no, yes : ndarrays of shape (D, N)
        As in :class:`SplitStats` (asked queries: no = total, yes = 0).
    unasked : ndarray of shape (D, N), bool
    group_x : ndarray of shape (D,) or None
        sum over the target groups i of pi_a^i log2 pi_a^i; None when the group term is 0
        (noise-free object target: each group is one object) or was not asked for.
    children_x : ndarray of shape (D, N) or None
        sum over the groups of l log2 l + r log2 r, with l and r the group's masses in the
        two children of each query.
    """

    total: np.ndarray
    no: np.ndarray
    yes: np.ndarray
    unasked: np.ndarray
    group_x: np.ndarray | None = None
    children_x: np.ndarray | None = None

    @cached_property
    def reduction_factor(self) -> np.ndarray:
        """rho_a(q) = max(pi_l, pi_r) / pi_a (Definition 1, ``defn:rhor``), shape (D, N)."""
        return np.maximum(self.no, self.yes) / self.total[:, None]

    @cached_property
    def splits(self) -> np.ndarray:
        """Unasked queries that send positive mass to both children, shape (D, N) bool (the
        same relative tolerance as :attr:`SplitStats.splits`)."""
        tol = _EMPTY * self.total[:, None]
        return self.unasked & (self.no > tol) & (self.yes > tol)

    @cached_property
    def group_term(self) -> np.ndarray:
        """sum_i (pi_a^i / pi_a) H(rho_a^i(q)), shape (D, N): the group part of GISA's cost
        (Algorithm 2, Definition 2 (``defn:grhor``), Theorem 2 (``thm:group
        identification``)), as :attr:`SplitStats.group_term`: pi_a^i H(rho_a^i) = g log g -
        l log l - r log r per group, 0 on columns that send no mass to one side."""
        out = np.zeros_like(self.no)
        if self.group_x is None:
            return out
        term = self.group_x[:, None] - self.children_x
        cols = self.unasked & (self.no > 0) & (self.yes > 0)
        np.divide(np.maximum(term, 0.0), self.total[:, None], out=out, where=cols)
        return out


#: Rows per block in :func:`rows_times`: small enough that OpenBLAS runs each product on the
#: calling thread (its worker threads thrash on a busy 2-core machine), large enough that the
#: Python loop costs little.
_ROW_BLOCK_CELLS = 200_000


def rows_times(weights: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """weights @ matrix, shape (D, N), in row blocks that each run on the calling thread."""
    D, K = weights.shape
    out = np.empty((D, matrix.shape[1]))
    step = max(1, _ROW_BLOCK_CELLS // max(1, K * matrix.shape[1]))
    for s in range(0, D, step):
        np.matmul(weights[s : s + step], matrix, out=out[s : s + step])
    return out


class NodeBatch:
    """D nodes of one model at once, as dense arrays (one row per node).

    Attributes
    ----------
    cand : ndarray of shape (D, M), bool
        Each node's candidates.
    asked : ndarray of shape (D, N), bool
    delta : ndarray of shape (D, M), int, or None
        Under noise, each candidate's mismatches on the error-prone queries (Appendix II).
    n_unanswered : ndarray of shape (D,), int, or None
        Under noise, n_a: error-prone queries not yet answered.
    mass : ndarray of shape (D, M)
        Candidate masses (0 elsewhere): pi_i without noise; under noise pi_i times the
        dilated group mass of Appendix II (:meth:`BinomialTable.mass_rows`), as :class:`Node`.

    Under noise only the object target is batched (each dilated group is one object's).
    """

    def __init__(self, model: Model, cand, asked, delta=None, n_unanswered=None, mass=None):
        self.model = model
        self.cand = cand
        self.asked = asked
        self.delta = delta
        self.n_unanswered = n_unanswered
        if mass is None and model.noise is not None:
            mass = cand * model.problem.prior * model.table.mass_rows(n_unanswered, delta)
        self._mass = mass  # without noise, computed when first needed

    @property
    def mass(self) -> np.ndarray:
        if self._mass is None:
            self._mass = self.cand * self.model.problem.prior
        return self._mass

    @classmethod
    def of(cls, model: Model, nodes: list[Node]) -> NodeBatch:
        """The batch of the given :class:`Node` objects."""
        M = model.problem.n_objects
        D = len(nodes)
        cand = np.zeros((D, M), dtype=bool)
        mass = np.zeros((D, M))
        delta = None if model.noise is None else np.zeros((D, M), dtype=np.int64)
        for d, node in enumerate(nodes):
            cand[d, node.idx] = True
            mass[d, node.idx] = node.mass
            if delta is not None:
                delta[d, node.idx] = node.delta
        asked = np.array([node.asked for node in nodes]).reshape(D, -1)
        n = None if delta is None else np.array([node.n_unanswered for node in nodes])
        return cls(model, cand, asked, delta, n, mass if delta is not None else None)

    @classmethod
    def concat(cls, batches: list[NodeBatch]) -> NodeBatch:
        """One batch of the nodes of ``batches``, in order."""
        first = batches[0]
        noisy = first.delta is not None
        return cls(
            first.model,
            np.concatenate([b.cand for b in batches]),
            np.concatenate([b.asked for b in batches]),
            np.concatenate([b.delta for b in batches]) if noisy else None,
            np.concatenate([b.n_unanswered for b in batches]) if noisy else None,
            np.concatenate([b.mass for b in batches]),
        )

    def chunks(self, size: int) -> list[NodeBatch]:
        """The nodes in batches of at most ``size``."""
        D = self.cand.shape[0]
        if D <= size:
            return [self]
        return [self.take(np.arange(s, min(s + size, D))) for s in range(0, D, size)]

    def take(self, rows: np.ndarray) -> NodeBatch:
        """The nodes at ``rows``."""
        noisy = self.delta is not None
        return NodeBatch(
            self.model,
            self.cand[rows],
            self.asked[rows],
            self.delta[rows] if noisy else None,
            self.n_unanswered[rows] if noisy else None,
            None if self._mass is None else self._mass[rows],
        )

    def split(self, groups: bool = True) -> SplitStatsBatch:
        """:meth:`Node.split` of every node at once.

        Without noise the "yes" mass of every query at every node is one product mass @ B
        (the sum over the candidates answering yes); per target group one product per group
        on its columns (skipped with ``groups=False``: then the group term is 0).

        Under noise (object target) a candidate splits on an unasked error-prone query q as
        in :meth:`Node.child_masses` (Appendix II, ``sec:reduction factor calculation``):
        no = pi_i f(delta_i + b_iq) and yes = pi_i f(delta_i + 1 - b_iq), with
        f(d) = r^d S[n_a - 1, min(n_a - 1, eps' - d)] / Z. Both are linear in b_iq, so
        no_q = sum_i pi_i f(delta_i) - sum_i pi_i [f(delta_i) - f(delta_i + 1)] b_iq, and
        yes_q likewise: two sums and one product for all queries.
        """
        model = self.model
        B = model.matrix_f
        unasked = ~self.asked
        mass = self.mass
        total = mass.sum(axis=1)
        yes = rows_times(mass, B)
        no = total[:, None] - yes
        gx = cx = None
        if model.noise is None:
            if groups and not model.singleton_target:
                order, starts = model.group_blocks
                W, Bs = mass[:, order], B[order]
                gx = np.zeros(mass.shape[0])
                cx = np.zeros_like(yes)
                for g in range(starts.size - 1):
                    a, b = starts[g], starts[g + 1]
                    if a == b:
                        continue
                    gyes = rows_times(W[:, a:b], Bs[a:b])
                    gtot = W[:, a:b].sum(axis=1)
                    gx += xlog2x(gtot)
                    cx += xlog2x(gyes) + xlog2x(gtot[:, None] - gyes)
        else:
            if not model.singleton_target:
                raise ValueError("noisy nodes are batched for the object target only")
            n = self.n_unanswered
            prior = self.cand * model.problem.prior
            live = n > 0
            f0 = prior * model.table.mass_rows(np.maximum(n - 1, 0), self.delta)
            f1 = prior * model.table.mass_rows(np.maximum(n - 1, 0), self.delta + 1)
            diff = rows_times(f0 - f1, B)
            use = (model.noise.prone[None, :] & unasked) & live[:, None]
            no = np.where(use, f0.sum(axis=1)[:, None] - diff, no)
            yes = np.where(use, f1.sum(axis=1)[:, None] + diff, yes)
            if groups:
                # Each dilated group is one object: on a noise-free column it goes wholly to
                # one side (term 0); on an error-prone one it sends pi f(delta) and
                # pi f(delta + 1), one to each side, whatever b_iq is.
                gx = xlog2x(mass).sum(axis=1)
                prone_x = (xlog2x(f0) + xlog2x(f1)).sum(axis=1)
                cx = np.where(use, prone_x[:, None], gx[:, None])
        no = np.where(unasked, no, total[:, None])
        yes = np.where(unasked, yes, 0.0)
        return SplitStatsBatch(total, no, yes, unasked, gx, cx)

    def resolved(self, stats: SplitStatsBatch | None = None) -> np.ndarray:
        """:meth:`Node.is_resolved` of every node, shape (D,) bool.

        At most one candidate, one target group left, or no unasked query splits the
        candidates. Without noise every candidate agrees with the answers given, so no
        unasked query splits them exactly when all candidates of positive mass share one row:
        that is tested against each node's first candidate (O(M) per node, no product). Exact
        zero is the only mass treated as empty there; the split statistics' relative
        tolerance (1e-12) differs from it only for priors spanning twelve orders of
        magnitude. Under noise the split statistics decide (``stats`` if already computed).
        """
        model = self.model
        cand = self.cand
        count = cand.sum(axis=1)
        first = cand.argmax(axis=1)
        codes = model.target_codes
        one_group = ~(cand & (codes[None, :] != codes[first][:, None])).any(axis=1)
        if model.noise is not None:
            if stats is None:
                stats = self.split(groups=False)
            return (count <= 1) | one_group | ~stats.splits.any(axis=1)
        positive = cand & (model.problem.prior > 0)  # mass > 0 without noise
        first_pos = positive.argmax(axis=1)
        twins = model.twins[first_pos]
        rows = np.arange(cand.shape[0])
        no_split = ~(positive & ~twins).any(axis=1) | ~positive[rows, first_pos]
        return (count <= 1) | one_group | no_split

    def children(self, q: np.ndarray, answers: np.ndarray) -> NodeBatch:
        """Node d after answering query q[d] with answers[d] (:meth:`Node.child`)."""
        model = self.model
        rows = np.arange(q.size)
        col = model.matrix.T[q]  # (D, M): every object's answer to each node's query
        asked = self.asked.copy()
        asked[rows, q] = True
        mism = col != answers[:, None]
        if model.noise is None:
            return NodeBatch(model, self.cand & ~mism, asked)
        prone = model.noise.prone[q]
        delta = self.delta + (mism & prone[:, None])
        n = self.n_unanswered - prone
        cand = self.cand & np.where(prone[:, None], delta <= model.noise.eps_eff, ~mism)
        out = NodeBatch(model, cand, asked, delta, n)
        out.cand &= out.mass > 0  # as Model._noisy_node: masses of 0 leave
        return out


class Model:
    """A problem, a target and, optionally, persistent noise: what the tree is built on.

    Parameters
    ----------
    problem : Problem
    target : {"object", "group"}
        Identify the object itself, or only its group (class).
    noise : NoiseModel or None
        Persistent-noise settings; None for error-free answers.
    """

    def __init__(self, problem: Problem, target: str = "object", noise: NoiseModel | None = None):
        if target not in TARGETS:
            raise TargetError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
        if target == "group" and problem.object_groups is None:
            raise TargetError(
                "the group target needs object group labels; add 'groups' to the input"
            )
        if noise is not None and noise.prone.shape != (problem.n_queries,):
            raise TargetError(
                f"the noise settings cover {noise.prone.size} queries but the problem has "
                f"{problem.n_queries}"
            )
        self.problem = problem
        self.target = target
        self.noise = noise
        self.matrix = problem.matrix
        self.matrix_f = problem.matrix.astype(float)
        if target == "group":
            self.target_codes = problem.object_groups
            self.n_target = problem.n_groups
        else:
            self.target_codes = np.arange(problem.n_objects)
            self.n_target = problem.n_objects
        self.singleton_target = target == "object"
        self.table = BinomialTable(noise) if noise is not None else None

    @cached_property
    def twins(self) -> np.ndarray:
        """twins[i, k]: objects i and k have identical rows, shape (M, M) bool."""
        B = self.matrix
        _, inverse = np.unique(B, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        return inverse[:, None] == inverse[None, :]

    @cached_property
    def group_blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """Objects sorted by target group (stable) and where each group's block starts,
        shape (M,) and (n_target + 1,)."""
        order = np.argsort(self.target_codes, kind="stable")
        counts = np.bincount(self.target_codes, minlength=self.n_target)
        return order, np.concatenate([[0], np.cumsum(counts)])

    # -- nodes ---------------------------------------------------------------------------

    def root(self) -> Node:
        """The node before any answer."""
        M, N = self.problem.n_objects, self.problem.n_queries
        idx = np.arange(M)
        asked = np.zeros(N, dtype=bool)
        if self.noise is None:
            return Node(self, idx, self.problem.prior.copy(), asked)
        delta = np.zeros(M, dtype=np.int64)
        return self._noisy_node(idx, delta, asked, self.noise.n_prone)

    def node_from_answers(self, answers: dict[int, bool], skipped=()) -> Node:
        """The node reached by the given answers (query -> yes/no) and skipped queries.

        Computed from scratch, in any order; equal to following the same answers from the
        root with :meth:`Node.child`.
        """
        N = self.problem.n_queries
        asked = np.zeros(N, dtype=bool)
        qs = np.fromiter(answers.keys(), dtype=np.int64, count=len(answers))
        vals = np.fromiter(answers.values(), dtype=bool, count=len(answers))
        asked[qs] = True
        asked[list(skipped)] = True
        mismatch = self.matrix[:, qs] != vals[None, :]  # (M, |answers|)
        if self.noise is None:
            ok = ~mismatch.any(axis=1)
            idx = np.flatnonzero(ok)
            return Node(self, idx, self.problem.prior[idx], asked)
        prone = self.noise.prone[qs]
        hard = mismatch[:, ~prone].any(axis=1)
        delta = mismatch[:, prone].sum(axis=1)
        ok = ~hard & (delta <= self.noise.eps_eff)
        idx = np.flatnonzero(ok)
        n_unanswered = self.noise.n_prone - int(prone.sum())
        return self._noisy_node(idx, delta[idx], asked, n_unanswered)

    def _noisy_node(self, idx, delta, asked, n_unanswered) -> Node:
        mass = self.problem.prior[idx] * self.table.mass(n_unanswered, delta)
        keep = mass > 0
        return Node(self, idx[keep], mass[keep], asked, delta[keep], n_unanswered)

    def mismatch_counts(self, answers: dict[int, bool]) -> np.ndarray:
        """How many answers each object contradicts, shape (M,): for ranking when none fit."""
        qs = np.fromiter(answers.keys(), dtype=np.int64, count=len(answers))
        vals = np.fromiter(answers.values(), dtype=bool, count=len(answers))
        return (self.matrix[:, qs] != vals[None, :]).sum(axis=1)


class Node:
    """Candidates and their masses after some answers.

    Attributes
    ----------
    idx : ndarray of shape (K,), int
        Candidate objects (positive mass), ascending.
    mass : ndarray of shape (K,)
        Their masses: pi_i without noise; pi_i times the dilated group mass under noise.
    asked : ndarray of shape (N,), bool
        Queries already asked (answered or skipped).
    delta : ndarray of shape (K,) or None
        Under noise, delta_i^a: mismatches on error-prone queries (Appendix II).
    n_unanswered : int
        Under noise, n_a: error-prone queries not yet answered.
    """

    __slots__ = ("model", "idx", "mass", "asked", "delta", "n_unanswered", "_stats")

    def __init__(self, model, idx, mass, asked, delta=None, n_unanswered=0):
        self.model = model
        self.idx = idx
        self.mass = mass
        self.asked = asked
        self.delta = delta
        self.n_unanswered = n_unanswered
        self._stats: SplitStats | None = None

    @property
    def total(self) -> float:
        return float(self.mass.sum())

    def target_masses(self) -> np.ndarray:
        """Mass of each target group at this node, shape (T,)."""
        return np.bincount(
            self.model.target_codes[self.idx], weights=self.mass, minlength=self.model.n_target
        )

    def n_target_groups(self) -> int:
        """How many target groups still have candidates."""
        return int(np.unique(self.model.target_codes[self.idx]).size)

    # -- splitting ---------------------------------------------------------------------------

    def child_masses(self) -> tuple[np.ndarray, np.ndarray]:
        """Mass each candidate sends to the "no" and "yes" child of every query.

        Returns
        -------
        no, yes : ndarrays of shape (K, N)
            Without noise, candidate i goes wholly to the side of its answer b_i(q). Under
            noise, for an error-prone unasked q, its group splits (Appendix II):
            no: r^{delta_i + b_i(q)} S[n_a - 1, tau] and yes: r^{delta_i + 1 - b_i(q)}
            S[n_a - 1, tau], each zero past eps'.
        """
        B = self.model.matrix_f[self.idx]
        yes = self.mass[:, None] * B
        no = self.mass[:, None] - yes
        if self.delta is None or self.model.noise is None:
            return no, yes
        noise = self.model.noise
        prone = noise.prone & ~self.asked
        if self.n_unanswered == 0 or not prone.any():
            return no, yes
        table = self.model.table
        Bp = self.model.matrix[np.ix_(self.idx, np.flatnonzero(prone))]
        pi = self.model.problem.prior[self.idx][:, None]
        d = self.delta[:, None]
        n = self.n_unanswered - 1
        no[:, prone] = pi * table.mass(n, d + Bp)
        yes[:, prone] = pi * table.mass(n, d + ~Bp)
        return no, yes

    def split(self) -> SplitStats:
        """Child masses of all queries at once, total and per target group (cached)."""
        if self._stats is not None:
            return self._stats
        model = self.model
        unasked = ~self.asked
        codes = model.target_codes[self.idx]
        group_total = np.bincount(codes, weights=self.mass, minlength=model.n_target)
        noisy = self.delta is not None
        if not noisy:
            # Noise-free fast path: one vector-matrix product gives every "yes" mass, per
            # group present at the node (candidates sorted by group, one contiguous block
            # each). einsum on the boolean rows: a 1-byte gather, and no BLAS call, whose
            # threads thrash when the machine is busy; its sums are exact float64 sums.
            total = float(self.mass.sum())
            if model.singleton_target:
                yes = np.einsum("k,kn->n", self.mass, model.matrix[self.idx])
                gno = gyes = None
            else:
                order = np.argsort(codes, kind="stable")
                B = model.matrix[self.idx[order]]
                mass = self.mass[order]
                present = np.flatnonzero(group_total > 0)
                ends = np.cumsum(np.bincount(codes, minlength=model.n_target)[present])
                gyes = np.empty((present.size, B.shape[1]))
                start = 0
                for r, end in enumerate(ends.tolist()):  # groups, not queries
                    np.einsum("k,kn->n", mass[start:end], B[start:end], out=gyes[r])
                    start = end
                group_total = group_total[present]
                gno = group_total[:, None] - gyes
                yes = gyes.sum(axis=0)
            no = total - yes
        else:
            cno, cyes = self.child_masses()
            total = float(self.mass.sum())
            no, yes = cno.sum(axis=0), cyes.sum(axis=0)
            if model.singleton_target:
                # Each dilated group is one object: rows are already per-group.
                gno, gyes = cno, cyes
                group_total = self.mass
            else:
                onehot = _onehot(codes, model.n_target)
                gno, gyes = onehot @ cno, onehot @ cyes
        # Asked queries split nothing.
        no = np.where(unasked, no, total)
        yes = np.where(unasked, yes, 0.0)
        self._stats = SplitStats(total, no, yes, group_total, gno, gyes, unasked)
        return self._stats

    def is_resolved(self) -> bool:
        """Stopping rule: one target group left, or no unasked query splits the candidates."""
        if self.idx.size <= 1:
            return True
        codes = self.model.target_codes[self.idx]
        if (codes == codes[0]).all():  # one target group left
            return True
        return not self.split().splits.any()

    # -- children ----------------------------------------------------------------------------

    def child(self, q: int, answer: bool) -> Node:
        """The node after answering query ``q`` (True = yes)."""
        asked = self.asked.copy()
        asked[q] = True
        col = self.model.matrix[self.idx, q]
        noise = self.model.noise
        if self.delta is None or noise is None:
            keep = col == answer
            return Node(self.model, self.idx[keep], self.mass[keep], asked)
        if noise.prone[q]:
            delta = self.delta + (col != answer)
            n_unanswered = self.n_unanswered - 1
            keep = delta <= noise.eps_eff
            return self.model._noisy_node(self.idx[keep], delta[keep], asked, n_unanswered)
        keep = col == answer
        return Node(
            self.model,
            self.idx[keep],
            self.mass[keep],
            asked,
            self.delta[keep],
            self.n_unanswered,
        )

    def skip(self, q: int) -> Node:
        """The node after "can't tell" on ``q``: asked, but nobody is eliminated.

        Under noise the skipped answer stays unobserved, so n_a is unchanged (its possible
        errors are summed over, exactly as for a query not yet asked).
        """
        asked = self.asked.copy()
        asked[q] = True
        return Node(self.model, self.idx, self.mass, asked, self.delta, self.n_unanswered)

    def key(self) -> bytes:
        """Hashable identity of the node's state, for memoisation (Section 4 trees)."""
        parts = [np.packbits(self.asked).tobytes(), self.idx.astype(np.int32).tobytes()]
        if self.delta is not None:
            parts.append(self.delta.astype(np.int16).tobytes())
        return b"|".join(parts)


def _onehot(codes: np.ndarray, n: int) -> np.ndarray:
    """One-hot matrix of shape (n, K) with a 1 at (codes[k], k)."""
    out = np.zeros((n, codes.size))
    out[codes, np.arange(codes.size)] = 1.0
    return out
