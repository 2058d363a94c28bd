"""Small pure cost functions, chosen by name. Lower is better.

Query costs take :class:`~responder.engine.belief.SplitStats` and return one cost per query,
shape (N,). Category costs also take the pick matrix P of shape (n, N), P[k, q] = p_k(q)
(the responder's chance of picking q in category k, over unasked queries), and return one
cost per category, shape (n,).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from responder.engine.belief import SplitStats, SplitStatsBatch, rows_times
from responder.engine.bounds import binary_entropy


def gbs_cost(stats: SplitStats) -> np.ndarray:
    """Reduction factor rho_a(q) (Definition 1); GBS picks the smallest (Algorithm 1)."""
    return stats.reduction_factor


def gisa_cost(stats: SplitStats) -> np.ndarray:
    """C_a(q) = 1 - H(rho_a) + sum_i (pi_a^i / pi_a) H(rho_a^i)
    (Algorithm 2, Theorem 2 (thm:group identification))."""
    return 1.0 - binary_entropy(stats.reduction_factor) + stats.group_term


def gqsa_cost(stats: SplitStats, picks: np.ndarray) -> np.ndarray:
    """C_a(j) = 1 - sum_{q in Q^j} p_j(q) H(rho_a(q))
    (Algorithm 3, Theorem 5 (thm:group queries))."""
    return 1.0 - picks @ binary_entropy(stats.reduction_factor)


def gigqsa_cost(stats: SplitStats, picks: np.ndarray) -> np.ndarray:
    """C_a(j) = 1 - sum_q p_j(q) [H(rho_a(q)) - sum_i (pi_a^i/pi_a) H(rho_a^i(q))].

    Algorithm 4, from Theorem 6 (thm:group identification group queries).
    """
    return 1.0 - picks @ (binary_entropy(stats.reduction_factor) - stats.group_term)


def _weighted_rho(stats: SplitStats, picks: np.ndarray) -> np.ndarray:
    return np.where(picks > 0, picks * stats.reduction_factor[None, :], np.nan)


def minmin_cost(stats: SplitStats, picks: np.ndarray) -> np.ndarray:
    """min_{q in Q^j} p_j(q) rho_a(q): the paper's first heuristic (Section 7.2)."""
    return np.nanmin(_weighted_rho(stats, picks), axis=1, initial=np.inf)


def minmax_cost(stats: SplitStats, picks: np.ndarray) -> np.ndarray:
    """max_{q in Q^j} p_j(q) rho_a(q): the paper's second heuristic (Section 7.2)."""
    return np.nanmax(_weighted_rho(stats, picks), axis=1, initial=-np.inf)


# -- the same costs at D nodes at once (the batched simulator) ----------------------------------
#
# gbs_cost and gisa_cost above are elementwise in the statistics, so they serve a
# :class:`~responder.engine.belief.SplitStatsBatch` (shape (D, N)) unchanged. The category
# costs below are the ones above with the pick matrices of D nodes held compactly: every query
# lies in one category, so P[d, j, q] = p[d, q] when j is q's category and 0 otherwise.


@dataclass(frozen=True)
class PickRows:
    """The pick matrices P of D nodes (see :func:`responder.engine.policies.pick_matrix`).

    Attributes
    ----------
    p : ndarray of shape (D, N)
        p[d, q] = p_j(q) for q's category j at node d (0 for queries that cannot be picked).
    categories : ndarray of shape (N,), int
        The category of each query.
    n : int
        The number of categories.
    """

    p: np.ndarray
    categories: np.ndarray
    n: int

    @cached_property
    def _layout(self):
        order = np.argsort(self.categories, kind="stable")
        counts = np.bincount(self.categories, minlength=self.n)
        present = np.flatnonzero(counts > 0)
        starts = np.concatenate([[0], np.cumsum(counts)])[present]
        onehot = np.zeros((self.categories.size, self.n))
        onehot[np.arange(self.categories.size), self.categories] = 1.0
        return order, present, starts, onehot

    def category_sum(self, x: np.ndarray) -> np.ndarray:
        """sum_q P[d, j, q] x[d, q], shape (D, n)."""
        return rows_times(self.p * x, self._layout[3])

    def _reduce(self, ufunc, x: np.ndarray, empty: float) -> np.ndarray:
        order, present, starts, _ = self._layout
        vals = np.where(self.p > 0, self.p * x, empty)[:, order]
        out = np.full((self.p.shape[0], self.n), empty)
        out[:, present] = ufunc.reduceat(vals, starts, axis=1)
        return out

    def category_min(self, x: np.ndarray) -> np.ndarray:
        """min over q in Q^j with p_j(q) > 0 of p_j(q) x[d, q] (inf if none), shape (D, n)."""
        return self._reduce(np.minimum, x, np.inf)

    def category_max(self, x: np.ndarray) -> np.ndarray:
        """max over q in Q^j with p_j(q) > 0 of p_j(q) x[d, q] (-inf if none), shape (D, n)."""
        return self._reduce(np.maximum, x, -np.inf)


def gqsa_cost_batch(stats: SplitStatsBatch, picks: PickRows) -> np.ndarray:
    """:func:`gqsa_cost` at D nodes: C_a(j) = 1 - sum_{q in Q^j} p_j(q) H(rho_a(q))
    (Algorithm 3, Theorem 5 (thm:group queries)), shape (D, n)."""
    return 1.0 - picks.category_sum(binary_entropy(stats.reduction_factor))


def gigqsa_cost_batch(stats: SplitStatsBatch, picks: PickRows) -> np.ndarray:
    """:func:`gigqsa_cost` at D nodes: C_a(j) = 1 - sum_q p_j(q) [H(rho_a(q)) - sum_i
    (pi_a^i/pi_a) H(rho_a^i(q))] (Algorithm 4, Theorem 6 (thm:group identification group
    queries)), shape (D, n)."""
    return 1.0 - picks.category_sum(binary_entropy(stats.reduction_factor) - stats.group_term)


def minmin_cost_batch(stats: SplitStatsBatch, picks: PickRows) -> np.ndarray:
    """:func:`minmin_cost` at D nodes (Section 7.2's first heuristic), shape (D, n)."""
    return picks.category_min(stats.reduction_factor)


def minmax_cost_batch(stats: SplitStatsBatch, picks: PickRows) -> np.ndarray:
    """:func:`minmax_cost` at D nodes (Section 7.2's second heuristic), shape (D, n)."""
    return picks.category_max(stats.reduction_factor)


CATEGORY_COSTS_BATCH: dict[str, Callable[[SplitStatsBatch, PickRows], np.ndarray]] = {
    "gqsa": gqsa_cost_batch,
    "gigqsa": gigqsa_cost_batch,
    "minmin": minmin_cost_batch,
    "minmax": minmax_cost_batch,
}


QUERY_COSTS: dict[str, Callable[[SplitStats], np.ndarray]] = {
    "gbs": gbs_cost,
    "gisa": gisa_cost,
}

CATEGORY_COSTS: dict[str, Callable[[SplitStats, np.ndarray], np.ndarray]] = {
    "gqsa": gqsa_cost,
    "gigqsa": gigqsa_cost,
    "minmin": minmin_cost,
    "minmax": minmax_cost,
}


def query_cost(name: str) -> Callable[[SplitStats], np.ndarray]:
    """The query cost function called ``name``; ValueError names the valid choices."""
    try:
        return QUERY_COSTS[name]
    except KeyError:
        raise ValueError(
            f"unknown query cost {name!r}; choose one of {', '.join(QUERY_COSTS)}"
        ) from None


def category_cost(name: str) -> Callable[[SplitStats, np.ndarray], np.ndarray]:
    """The category cost function called ``name``; ValueError names the valid choices."""
    try:
        return CATEGORY_COSTS[name]
    except KeyError:
        raise ValueError(
            f"unknown category cost {name!r}; choose one of {', '.join(CATEGORY_COSTS)}"
        ) from None
