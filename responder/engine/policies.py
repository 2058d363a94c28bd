"""Query-selection policies: what to ask next at a node.

- ``gbs``, ``gisa``: suggest one query (Algorithms 1 and 2).
- ``gqsa``, ``gigqsa``, ``minmin``, ``minmax``: suggest a query category; the responder
  then picks any unasked query in it with chance p_j(q) (Algorithms 3 and 4, and the two
  heuristics of Section 7.2).
- ``random``, ``random-category``: the paper's passive baseline. The responder picks
  uniformly among all unasked queries (or among categories with an unasked query), even
  ones that split nothing; each pick costs a question.

Active policies suggest only a query that splits the candidates, or a category holding an
unasked query that does. Ties within ``tol`` go to the lowest index, or to a seeded random
choice with ``ties="random"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from responder.engine.belief import Node, NodeBatch, SplitStatsBatch
from responder.engine.scoring import CATEGORY_COSTS, CATEGORY_COSTS_BATCH, QUERY_COSTS, PickRows

POLICIES = ("gbs", "gisa", "gqsa", "gigqsa", "minmin", "minmax", "random", "random-category")
CATEGORY_POLICIES = frozenset({"gqsa", "gigqsa", "minmin", "minmax", "random-category"})
RANDOM_POLICIES = frozenset({"random", "random-category"})
TIE_RULES = ("first", "random")
PICK_MODELS = ("any", "informed")


class PolicyError(ValueError):
    """An unknown policy or tie rule, or a category policy without categories."""


@dataclass(frozen=True)
class Choice:
    """What a policy suggests at a node, and what the responder may then ask.

    Attributes
    ----------
    kind : {"query", "category", "any"}
        A single query, a category, or (random policy) any unasked query.
    index : int
        The query or category suggested; -1 for ``kind == "any"``.
    queries : ndarray of shape (k,), int
        Queries the responder may ask next.
    probs : ndarray of shape (k,)
        The chance of each (sums to 1): 1 for a single query, p_j(q) in a category.
    costs : ndarray or None
        The policy's cost per query (shape (N,)) or per category (shape (n,)); ``inf``
        marks the ineligible. None for random policies.
    """

    kind: str
    index: int
    queries: np.ndarray
    probs: np.ndarray
    costs: np.ndarray | None = None


def pick_matrix(node: Node) -> np.ndarray:
    """P[j, q] = p_j(q): chance of picking unasked query q inside category j, shape (n, N).

    The problem's pick weights renormalised over each category's unasked queries
    (Section 4); rows of exhausted categories are zero.
    """
    problem = node.model.problem
    n = problem.n_query_groups
    w = problem.pick_weights * ~node.asked
    P = np.zeros((n, problem.n_queries))
    P[problem.query_groups, np.arange(problem.n_queries)] = w
    sums = P.sum(axis=1, keepdims=True)
    return np.divide(P, sums, out=np.zeros_like(P), where=sums > 0)


class Policy:
    """A named policy with its tie rule.

    Parameters
    ----------
    name : str
        One of :data:`POLICIES`.
    ties : {"first", "random"}
        Among costs within ``tol`` of the best: the lowest index, or a random one.
    seed : int or None
        Seed for random ties and for nothing else.
    tol : float
        Costs within ``tol`` of the minimum count as tied.
    pick : {"any", "informed"}
        Category policies: the responder picks any unasked query of the category with
        p_j(q) (the paper's model, Section 4), or only among those that split the candidates
        (as the app offers them, greying out the rest), with p_j(q) renormalised over them.
        Theorems 5 and 6 (``thm:group queries``, ``thm:group identification group queries``)
        hold for either: they allow any p_j(q) at each node.
    """

    #: The random policy draws among every unasked query ("unasked", the paper's passive
    #: baseline) or only among those that split the candidates ("splits").
    among = "unasked"

    def __init__(
        self,
        name: str,
        ties: str = "first",
        seed: int | None = None,
        tol: float = 1e-9,
        pick: str = "any",
    ):
        if name not in POLICIES:
            raise PolicyError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")
        if ties not in TIE_RULES:
            raise PolicyError(f"unknown tie rule {ties!r}; choose one of {', '.join(TIE_RULES)}")
        if pick not in PICK_MODELS:
            raise PolicyError(
                f"unknown pick model {pick!r}; choose one of {', '.join(PICK_MODELS)}"
            )
        self.pick = pick
        self.name = name
        self.ties = ties
        self.tol = tol
        self._seed = seed
        self._rng: np.random.Generator | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The tie-breaking generator, made on first use: importing numpy.random costs the
        app's start-up about 10 ms, and most policies never break a tie at random."""
        if self._rng is None:
            self._rng = np.random.default_rng(self._seed)
        return self._rng

    @property
    def uses_categories(self) -> bool:
        return self.name in CATEGORY_POLICIES

    def check(self, problem) -> None:
        """Raise :class:`PolicyError` if the policy cannot run on ``problem``."""
        if self.uses_categories and problem.query_groups is None:
            raise PolicyError(
                f"policy {self.name!r} suggests query categories, but the input has none; "
                "add 'query_groups' or use gbs, gisa or random"
            )

    def _pick_best(self, costs: np.ndarray) -> int:
        best = costs.min()
        tied = np.flatnonzero(costs <= best + self.tol)
        if self.ties == "first" or tied.size == 1:
            return int(tied[0])
        return int(self.rng.choice(tied))

    def choose(self, node: Node) -> Choice | None:
        """The suggestion at ``node``, or None when the node is resolved (stopping rule)."""
        if node.is_resolved():
            return None
        stats = node.split()
        unasked = np.flatnonzero(stats.unasked)
        if self.name == "random":
            if self.among == "splits":
                unasked = np.flatnonzero(stats.splits)
            return Choice("any", -1, unasked, np.full(unasked.size, 1.0 / unasked.size))
        if not self.uses_categories:
            costs = np.where(stats.splits, QUERY_COSTS[self.name](stats), np.inf)
            q = self._pick_best(costs)
            return Choice("query", q, np.array([q]), np.ones(1), costs)
        P = pick_matrix(node)
        if self.pick == "informed" and self.name != "random-category":
            P = P * stats.splits[None, :]
            sums = P.sum(axis=1, keepdims=True)
            P = np.divide(P, sums, out=np.zeros_like(P), where=sums > 0)
        if self.name == "random-category":
            open_cats = np.flatnonzero(P.sum(axis=1) > 0)
            mix = P[open_cats].mean(axis=0)
            qs = np.flatnonzero(mix > 0)
            return Choice("any", -1, qs, mix[qs])
        problem = node.model.problem
        split_count = np.bincount(
            problem.query_groups,
            weights=stats.splits.astype(float),
            minlength=problem.n_query_groups,
        )
        costs = np.where(split_count > 0, CATEGORY_COSTS[self.name](stats, P), np.inf)
        j = self._pick_best(costs)
        qs = np.flatnonzero(P[j] > 0)
        return Choice("category", j, qs, P[j, qs], costs)


def choose_batch(
    policy: Policy, nodes: NodeBatch, stats: SplitStatsBatch | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`Policy.choose` at D nodes at once (:class:`~responder.engine.belief.NodeBatch`),
    with their split statistics ``stats`` when already computed (with the group term).

    Returns
    -------
    resolved : ndarray of shape (D,), bool
        The stopping rule (:meth:`responder.engine.belief.Node.is_resolved`).
    probs : ndarray of shape (D, N)
        Where the node is not resolved, the chance that the responder asks each query next:
        the :class:`Choice`'s ``probs`` on its ``queries``, 0 elsewhere (one 1 for a single
        query). Ties follow the policy's rule; with ``ties="random"`` they draw from the
        policy's generator, one draw per node.
    """
    model = nodes.model
    D, N = nodes.asked.shape
    groups = policy.name in ("gisa", "gigqsa")
    if stats is None and model.noise is not None:
        stats = nodes.split(groups)
    resolved = nodes.resolved(stats)
    probs = np.zeros((D, N))
    live = np.flatnonzero(~resolved)
    if live.size == 0:
        return resolved, probs
    unasked = ~nodes.asked[live]
    problem = model.problem
    if policy.name == "random" and policy.among != "splits":
        probs[live] = unasked / unasked.sum(axis=1, keepdims=True)
        return resolved, probs
    if policy.name == "random-category":
        pw = problem.pick_weights * unasked
        cat = problem.query_groups
        sums = rows_of_categories(pw, cat, problem.n_query_groups)
        p = np.divide(pw, sums[:, cat], out=np.zeros_like(pw), where=sums[:, cat] > 0)
        n_open = (sums > 0).sum(axis=1, keepdims=True)
        probs[live] = p / n_open  # the mean of the open categories' rows of P
        return resolved, probs
    if stats is None:
        stats = nodes.take(live).split(groups)
    else:
        stats = SplitStatsBatch(
            stats.total[live],
            stats.no[live],
            stats.yes[live],
            stats.unasked[live],
            None if stats.group_x is None else stats.group_x[live],
            None if stats.children_x is None else stats.children_x[live],
        )
    splits = stats.splits
    stuck = ~splits.any(axis=1)  # only at a relative mass below the split tolerance
    if policy.name == "random":  # among the splitting queries only
        probs[live] = splits / np.maximum(splits.sum(axis=1, keepdims=True), 1)
    elif not policy.uses_categories:
        costs = np.where(splits, QUERY_COSTS[policy.name](stats), np.inf)
        costs[stuck] = 0.0
        q = _pick_best_batch(policy, costs)
        probs[live, q] = 1.0
    else:
        cat = problem.query_groups
        n = problem.n_query_groups
        pw = problem.pick_weights * stats.unasked
        if policy.pick == "informed":
            pw = pw * splits
        sums = rows_of_categories(pw, cat, n)
        p = np.divide(pw, sums[:, cat], out=np.zeros_like(pw), where=sums[:, cat] > 0)
        split_count = rows_of_categories(splits.astype(float), cat, n)
        costs = np.where(
            split_count > 0, CATEGORY_COSTS_BATCH[policy.name](stats, PickRows(p, cat, n)), np.inf
        )
        costs[stuck] = 0.0
        j = _pick_best_batch(policy, costs)
        probs[live] = np.where(cat[None, :] == j[:, None], p, 0.0)
    resolved[live[stuck]] = True
    probs[live[stuck]] = 0.0
    return resolved, probs


def rows_of_categories(x: np.ndarray, categories: np.ndarray, n: int) -> np.ndarray:
    """sum of x[d, q] over the queries q of each category, shape (D, n)."""
    out = np.zeros((x.shape[0], n))
    for j in range(n):  # categories, not queries
        out[:, j] = x[:, categories == j].sum(axis=1)
    return out


def _pick_best_batch(policy: Policy, costs: np.ndarray) -> np.ndarray:
    """:meth:`Policy._pick_best` on each row of ``costs`` (D, K), shape (D,)."""
    best = costs.min(axis=1, keepdims=True)
    tied = costs <= best + policy.tol
    if policy.ties == "first":
        return tied.argmax(axis=1)
    count = tied.sum(axis=1)
    r = np.minimum((policy.rng.random(costs.shape[0]) * count).astype(np.int64), count - 1)
    return (np.cumsum(tied, axis=1) > r[:, None]).argmax(axis=1)


def pick_query(choice: Choice, rng: np.random.Generator) -> int:
    """The query a simulated responder asks, drawn from ``choice.probs``.

    A single offered query is taken without a draw, so policies that suggest one query use
    no randomness and two policies' simulations see the same victims from the same seed.
    """
    if choice.queries.size == 1:
        return int(choice.queries[0])
    return int(choice.queries[rng.choice(choice.queries.size, p=choice.probs)])
