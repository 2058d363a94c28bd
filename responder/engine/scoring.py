"""Small pure cost functions, chosen by name. Lower is better.

Query costs take :class:`~responder.engine.belief.SplitStats` and return one cost per query,
shape (N,). Category costs also take the pick matrix P of shape (n, N), P[k, q] = p_k(q)
(the responder's chance of picking q in category k, over unasked queries), and return one
cost per category, shape (n,).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from responder.engine.belief import SplitStats
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
