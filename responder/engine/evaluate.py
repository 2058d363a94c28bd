"""Expected number of questions E[K] of the tree a policy induces.

Exact evaluation walks the whole tree and computes E[K] two independent ways:

1. **Mass x depth.** Each object's expected depth d_i (averaged over the responder's picks
   in category trees, and over the dilated strings under noise), then
   E[K] = sum_i pi_i d_i (the definitions before Theorem 1, ``thm:object identification``).
2. **Decomposition.** E[K] = H(Pi_y) + sum_a p~_a pi_a C_a - sum_leaves p~_l pi_l I(l),
   with C_a = 1 - sum_q p(q) [H(rho_a(q)) - sum_i (pi_a^i/pi_a) H(rho_a^i(q))]
   (Theorems 1, 2, 5 and 6 (thm:object identification, thm:group identification, thm:group queries, thm:group identification group queries);
   the leaf impurity term is Theorem 3 (thm:impurity based)'s, nonzero only when objects that no
   query separates end in one leaf).

Trees that branch on the responder's pick (category and random policies) are memoised on the
node state; when the number of distinct states exceeds a budget, E[K] is estimated by Monte
Carlo over simulated interviews instead, with a 95% interval.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from responder.engine.belief import Model, Node
from responder.engine.bounds import binary_entropy, entropy, huffman_expected_length
from responder.engine.diagnostics import profile_sets
from responder.engine.policies import CATEGORY_POLICIES, RANDOM_POLICIES, Policy
from responder.engine.simulate import (
    PersistentNoiseAnswers,
    PolicyInterviewer,
    draw_victims,
    random_streams,
    simulate_batch,
)
from responder.engine.tree import applies as level_tree_applies
from responder.engine.tree import build_level_tree, build_noisy_level_tree
from responder.engine.tree import noisy_applies as noisy_level_applies

DEFAULT_MAX_STATES = 50_000
MIN_MONTE_CARLO_TRIALS = 10_000


class StateBudgetExceeded(RuntimeError):
    """The exact tree has more distinct states than the budget allows."""


class TimeBudgetExceeded(RuntimeError):
    """The exact walk ran out of time; ``states`` were visited by then."""

    def __init__(self, states: int):
        super().__init__(f"the exact walk ran out of time after {states} distinct states")
        self.states = states


@dataclass
class Evaluation:
    """E[K] of a policy's tree and how it was obtained.

    Attributes
    ----------
    expected_queries : float
        E[K] (exact, or the Monte Carlo mean).
    method : {"exact", "monte-carlo"}
    ci95 : tuple of float or None
        95% interval of the Monte Carlo mean; None when exact.
    decomposition : float or None
        E[K] from the decomposition of Theorems 1, 2, 5 and 6 (``thm:object identification``,
        ``thm:group identification``, ``thm:group queries``, ``thm:group identification group
        queries``; exact only; equals ``expected_queries`` up to round-off).
    per_object_depth : ndarray of shape (M,) or None
        Expected number of questions for each true object (exact only).
    states : int
        Distinct nodes visited (exact) or simulated interviews (Monte Carlo).
    accuracy : float or None
        Share of simulated interviews that ended on the true object (Monte Carlo only; see
        :func:`responder.engine.simulate.ended_on_truth`); None when exact.
    """

    expected_queries: float
    method: str
    ci95: tuple[float, float] | None = None
    decomposition: float | None = None
    per_object_depth: np.ndarray | None = None
    states: int = 0
    max_depth: int = 0
    notes: list[str] = field(default_factory=list)
    accuracy: float | None = None


def branches(policy: Policy) -> bool:
    """Whether the policy's tree branches on the responder's pick (needs memoisation)."""
    return policy.name in CATEGORY_POLICIES or policy.name in RANDOM_POLICIES


def evaluate(
    model: Model,
    policy: Policy,
    method: str = "auto",
    max_states: int = DEFAULT_MAX_STATES,
    trials: int = MIN_MONTE_CARLO_TRIALS,
    seed: int | None = None,
    start: Node | None = None,
    exact_max_states: int | None = None,
    out_of_time: Callable[[], bool] | None = None,
) -> Evaluation:
    """E[K] of ``policy`` on ``model``, from ``start`` (default: the root).

    Parameters
    ----------
    method : {"auto", "exact", "monte-carlo"}
        "auto" is exact for single-query policies, and for branching policies while the
        distinct states fit in ``max_states``; otherwise Monte Carlo.
    trials : int
        Simulated interviews for Monte Carlo.
    seed : int or None
        Seed for the simulated interviews.
    exact_max_states : int or None
        "exact" only: stop with :class:`StateBudgetExceeded` past that many distinct
        states (default: no limit).
    out_of_time : callable or None
        "exact" only: asked now and then during the walk (the caller owns the clock); True
        stops it with :class:`TimeBudgetExceeded`.
    """
    if method not in ("auto", "exact", "monte-carlo"):
        raise ValueError(f"unknown method {method!r}; choose auto, exact or monte-carlo")
    policy.check(model.problem)
    node = start if start is not None else model.root()
    if method == "monte-carlo":
        return monte_carlo(model, policy, trials=trials, seed=seed, start=node)
    if method == "exact":
        return exact(
            model, policy, start=node, max_states=exact_max_states, out_of_time=out_of_time
        )
    budget = max_states if branches(policy) else None
    try:
        return exact(model, policy, start=node, max_states=budget)
    except StateBudgetExceeded:
        result = monte_carlo(model, policy, trials=trials, seed=seed, start=node)
        result.notes.append(
            f"the exact tree has more than {max_states} distinct states; estimated by Monte "
            f"Carlo over {trials} simulated interviews"
        )
        return result


def exact(
    model: Model,
    policy: Policy,
    start: Node | None = None,
    max_states: int | None = None,
    level_wise: bool = True,
    out_of_time: Callable[[], bool] | None = None,
) -> Evaluation:
    """Walk the whole tree; see the module docstring for the two formulas.

    With ``level_wise`` (the default), noise-free GBS and GISA trees with first-index ties
    are built a whole level at a time (:mod:`responder.engine.tree`): the same tree and the
    same E[K], several times faster; ``level_wise=False`` always walks node by node.
    """
    root = start if start is not None else model.root()
    if level_wise and level_tree_applies(model, policy):
        built = build_level_tree(model, policy.name, policy.tol, root)
        return _evaluation(model, root, built.depth, built.decomposition_sum, built.height, -1)
    if level_wise and noisy_level_applies(model, policy):
        built = build_noisy_level_tree(model, policy, root)
        return _evaluation(model, root, built.depth, built.decomposition_sum, built.height, -1)
    memo: dict[bytes, tuple[np.ndarray, float, int]] = {}
    memoise = branches(policy)

    finished = 0

    def finish(key, out):
        nonlocal finished
        if key is not None:
            memo[key] = out
            if max_states is not None and len(memo) > max_states:
                raise StateBudgetExceeded
        finished += 1
        if out_of_time is not None and finished % 256 == 0 and out_of_time():
            raise TimeBudgetExceeded(len(memo))
        return out

    def enter(node: Node):
        """(result, None) for a memoised node or a leaf; (None, frame) when its children
        are still to visit. A result is the per-candidate expected depth (K,), the absolute
        decomposition term and the subtree height."""
        key = node.key() if memoise else None
        if key is not None and key in memo:
            return memo[key], None
        choice = policy.choose(node)
        if choice is None:
            return finish(
                key, (np.zeros(node.idx.size), -node.total * _target_entropy(node), 0)
            ), None
        stats = node.split()
        qs = choice.queries
        term = binary_entropy(stats.reduction_factor[qs]) - stats.group_term[qs]
        cost = 1.0 - float(choice.probs @ term)
        branches_ = [
            (q, pq, answer)
            for q, pq in zip(qs.tolist(), choice.probs.tolist())
            for answer in (False, True)
        ]
        return None, _Frame(node, key, branches_, node.total * cost)

    # Depth-first over the tree with an explicit stack (trees can be as deep as there are
    # queries, so no recursion and no process-wide recursion limit).
    result, frame = enter(root)
    stack = [] if frame is None else [frame]
    while stack:
        f = stack[-1]
        while f.next < len(f.branches):
            q, pq, answer = f.branches[f.next]
            f.next += 1
            child = f.node.child(q, answer)
            if child.idx.size == 0:
                continue
            out, sub = enter(child)
            if sub is None:
                f.absorb(child, pq, out)
                continue
            f.waiting = (child, pq)
            stack.append(sub)
            break
        else:
            stack.pop()
            out = finish(f.key, (f.depth, f.u, f.height))
            if stack:
                stack[-1].absorb(*stack[-1].waiting, out)
            else:
                result = out
    depth, u, height = result
    return _evaluation(model, root, depth, u, height, len(memo) if memoise else -1)


def _evaluation(
    model: Model, root: Node, depth: np.ndarray, u: float, height: int, states: int
) -> Evaluation:
    """The exact :class:`Evaluation` from per-candidate depths and the decomposition sum."""
    total = root.total
    per_object = np.zeros(model.problem.n_objects)
    per_object[root.idx] = depth
    # Conditional on the true object being among the start node's candidates.
    expected = float(root.mass @ depth) / total
    decomposition = (_target_entropy(root) * total + u) / total
    return Evaluation(
        expected_queries=expected,
        method="exact",
        decomposition=float(decomposition),
        per_object_depth=per_object,
        states=states,
        max_depth=height,
    )


class _Frame:
    """A node of :func:`exact`'s walk whose children are being visited."""

    __slots__ = ("node", "key", "branches", "next", "u", "depth", "height", "waiting")

    def __init__(self, node: Node, key, branches: list, u: float):
        self.node, self.key, self.branches, self.next = node, key, branches, 0
        self.u = u
        self.depth = np.ones(node.idx.size)
        self.height = 0
        self.waiting = None  # (child, pick probability) whose result is awaited

    def absorb(self, child: Node, pq: float, out) -> None:
        """Add a finished child's result, in the order the children are visited."""
        d_child, u_child, h_child = out
        pos = np.searchsorted(self.node.idx, child.idx)
        self.depth[pos] += pq * (child.mass / self.node.mass[pos]) * d_child
        self.u += pq * u_child
        self.height = max(self.height, h_child + 1)


def _target_entropy(node: Node) -> float:
    """Entropy of the target groups' masses at ``node`` (H(Pi_y) at the root, I at leaves)."""
    codes = node.model.target_codes[node.idx]
    if codes.size <= 1 or (codes == codes[0]).all():
        return 0.0  # a pure node (most leaves): no need to count the groups
    _, inverse = np.unique(codes, return_inverse=True)
    return entropy(np.bincount(inverse.reshape(-1), weights=node.mass))


def monte_carlo(
    model: Model,
    policy: Policy,
    trials: int = MIN_MONTE_CARLO_TRIALS,
    seed: int | None = None,
    start: Node | None = None,
    truth: Model | None = None,
    batch: bool = True,
) -> Evaluation:
    """Estimate E[K] by simulating ``trials`` interviews with answers from the true row.

    The true object is drawn from the start node's masses (the same victims, with the same
    errors, for every policy run with one seed); under noise the answers follow
    the error model (see :func:`responder.engine.simulate.draw_answers`) of ``truth`` when
    given, else of ``model``: with ``truth`` the errors can follow other settings than the
    ones the policy assumes (Section 7.3's p_true != p_alg). The responder's picks follow
    the policy's pick distribution. Suggestions are cached per node state, so each state is
    scored once. ``accuracy`` is the share of interviews that ended on the true object (see
    :func:`responder.engine.simulate.ended_on_truth`).

    The interviews run together (:meth:`responder.engine.simulate.PolicyInterviewer.run_batch`)
    where the simulator can batch them; ``batch=False`` runs them one by one, the reference
    (the same distribution; policies with picks draw them from another stream).
    """
    if trials < 1:
        raise ValueError("trials must be at least 1")
    if truth is None:
        truth = model
    elif truth.matrix.shape != model.matrix.shape:
        raise ValueError(
            f"truth has a {truth.matrix.shape[0]} x {truth.matrix.shape[1]} matrix, the model "
            f"{model.matrix.shape[0]} x {model.matrix.shape[1]}; give the same problem"
        )
    streams = random_streams(seed)
    root = start if start is not None else model.root()
    victims = draw_victims(root, trials, streams.victims)
    done = simulate_batch(
        victims,
        PersistentNoiseAnswers(truth),
        PolicyInterviewer(model, policy, start=root, batch=batch),
        streams,
    )
    counts = done.questions.astype(float)
    correct = int(done.correct.sum())
    mean = float(counts.mean())
    half = 1.96 * float(counts.std(ddof=1)) / np.sqrt(trials) if trials > 1 else float("nan")
    return Evaluation(
        expected_queries=mean,
        method="monte-carlo",
        ci95=(mean - half, mean + half),
        states=trials,
        max_depth=int(counts.max()),
        accuracy=correct / trials,
    )


def bounds(model: Model) -> dict:
    """Lower bounds on E[K] for ``model``.

    ``entropy_bound`` is H of the target groups, after merging groups that share an
    identical row (no tree can separate those; every leaf is then pure, so Theorems 2 and 3 (thm:group identification,
    thm:impurity based)
    give E[K] >= H). ``entropy`` is the plain H(Pi) or H(Pi_y) as the paper reports it.
    ``huffman_bound`` is the optimal prefix-code length over the distinguishable rows (object
    target without noise only).
    """
    problem = model.problem
    sets = profile_sets(problem.matrix)
    codes = model.target_codes
    merged = _merge_labels(codes, sets)
    masses_plain = np.bincount(codes, weights=problem.prior)
    masses_merged = np.bincount(merged, weights=problem.prior)
    out = {
        "entropy": entropy(masses_plain),
        "entropy_bound": entropy(masses_merged),
        "huffman_bound": None,
    }
    if model.target == "object" and model.noise is None:
        out["huffman_bound"] = huffman_expected_length(masses_merged)
    return out


def _merge_labels(codes: np.ndarray, sets: list[np.ndarray]) -> np.ndarray:
    """Union labels that co-occur in one identical-row set (union-find), shape like codes."""
    parent = list(range(int(codes.max()) + 1))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for members in sets:
        labels = np.unique(codes[members])
        for other in labels[1:]:
            parent[find(int(other))] = find(int(labels[0]))
    roots = np.array([find(int(c)) for c in codes])
    _, merged = np.unique(roots, return_inverse=True)
    return merged
