"""Diagnostics of a knowledge-base matrix: what the data allow before any question is asked.

Pure numpy, no user-interface imports. Used by ``responder kb info`` and by the app to tell the
responder up front which chemicals can only be named together, how many wrong answers the
matrix tolerates (Section 6), and how much group identification can gain (Section 7.1.2).

Notation follows the paper: ``B`` is the (M, N) objects-by-queries 0/1 matrix (Section 1.2),
``y`` the group label of each object (Section 3).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator

import numpy as np

from responder.engine.bounds import entropy

#: The "fourth quadrant" of the (gamma_w, gamma_b) parameter space [0.5, 1]^2 where group
#: identification gains most over GBS (Section 7.1.1): a query is in it when
#: gamma_w >= GAIN_GAMMA_W_MIN and gamma_b <= GAIN_GAMMA_B_MAX. The split at 0.75 is the
#: centre of the square, so the region is the quadrant nearest (gamma_w, gamma_b) = (1, 0.5).
GAIN_GAMMA_W_MIN = 0.75
GAIN_GAMMA_B_MAX = 0.75


def _as_binary(matrix) -> np.ndarray:
    B = np.asarray(matrix)
    if B.ndim != 2:
        raise ValueError(f"the matrix must be 2-D (objects x queries), got shape {B.shape}")
    if B.dtype != bool and not np.isin(B, (0, 1)).all():
        raise ValueError("every matrix cell must be 0 or 1")
    return B.astype(bool)


def profile_sets(matrix) -> list[np.ndarray]:
    """Group the objects whose rows of ``B`` are identical.

    Objects with one symptom profile answer every query alike, so no sequence of queries can
    tell them apart: they can only be identified together (the paper assumes distinct rows,
    Section 1.2; WISER's 298 objects are its distinguishable chemicals).

    Parameters
    ----------
    matrix : array-like of shape (M, N), 0/1

    Returns
    -------
    list of ndarray of int64
        One array of row indices per distinct profile, singletons included. Each array is
        ascending; the list is ordered by each profile's first row.
    """
    B = _as_binary(matrix)
    if B.shape[0] == 0:
        return []
    _, first, inverse = np.unique(B, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(first, kind="stable")
    return [np.flatnonzero(inverse == k) for k in order]


def distinguishable_count(matrix) -> int:
    """Number of distinct rows of ``B`` (distinguishable objects).

    Parameters
    ----------
    matrix : array-like of shape (M, N), 0/1
    """
    B = _as_binary(matrix)
    if B.shape[0] == 0:
        return 0
    return int(np.unique(B, axis=0).shape[0])


# delta of recently seen matrices: (weak reference to the array, delta), by id. The
# commands ask for the same matrix's delta several times (the budget check, the noise
# options, the report); each computation is O(K^2 N).
_DELTA_CACHE: dict[int, tuple[weakref.ref, int]] = {}


def known_delta(matrix) -> int | None:
    """delta of this very array if it was computed before, else None."""
    cached = _DELTA_CACHE.get(id(matrix))
    if cached is not None and cached[0]() is matrix:
        return cached[1]
    return None


def remember_delta(matrix, delta: int) -> None:
    if isinstance(matrix, np.ndarray):
        if len(_DELTA_CACHE) > 16:
            _DELTA_CACHE.clear()
        _DELTA_CACHE[id(matrix)] = (weakref.ref(matrix), delta)


def min_hamming_distance(matrix, block: int = 1024) -> int:
    """delta: the minimum Hamming distance between two *distinct* rows of ``B`` (Section 6).

    Identical rows are left out (they are reported by :func:`profile_sets`); otherwise delta
    would be 0 whenever two chemicals share a profile. Distances come from one matrix
    product per block of rows (:func:`hamming_scan`). The result is remembered for the
    same array object, so a later call costs nothing.

    Parameters
    ----------
    matrix : array-like of shape (M, N), 0/1
    block : int
        Rows per block of the pairwise computation.

    Returns
    -------
    int
        delta >= 1, or 0 when ``B`` has fewer than two distinct rows (no pair to compare).
    """
    delta = known_delta(matrix)
    if delta is None:
        delta = list(hamming_scan(matrix, block))[-1][0]
        remember_delta(matrix, delta)
    return delta


def hamming_scan(matrix, block: int = 1024) -> Iterator[tuple[int, float]]:
    """The computation of delta, one block of rows at a time: yields (the least distance so
    far, the share of the work done), the last pair being (delta, 1.0); a caller can time
    the first block and stop (:func:`responder.engine.workload.min_hamming_within`).

    d(r_i, r_j) = |r_i| + |r_j| - 2 r_i . r_j over the pairs j >= i only, so the memory
    stays O(block x K) for K distinct rows.
    """
    B = _as_binary(matrix)
    U = np.unique(B, axis=0) if B.shape[0] else B
    K, N = U.shape
    if K < 2:
        yield 0, 1.0
        return
    # float32 products are exact while every sum stays below 2**24, and use BLAS
    F = U.astype(np.float32 if N < 2**24 else np.float64)
    weight = F.sum(axis=1)
    starts = range(0, K, block)
    cells = [(min(s + block, K) - s) * (K - s) for s in starts]
    total, done = float(sum(cells)), 0.0
    best = np.inf
    for start, size in zip(starts, cells, strict=True):
        stop = min(start + block, K)
        D = F[start:stop] @ F[start:].T  # pairs (i, j >= start)
        D *= -2
        D += weight[start:stop, None]
        D += weight[None, start:]
        rows = np.arange(stop - start)
        D[rows, rows] = np.inf  # a row versus itself
        best = min(best, float(D.min()))
        done += size
        if best <= 1:  # no two distinct rows can be closer
            break
        if done < total:
            yield int(round(best)), done / total
    yield int(round(best)), 1.0


def default_eps(delta: int) -> int:
    """eps = floor((delta - 1) / 2): the wrong answers the matrix can always absorb (Section 6).

    With at most eps persistent errors the observed answers stay closer to the true row than
    to any other, so no two noisy versions of distinct rows coincide.

    Parameters
    ----------
    delta : int
        Minimum Hamming distance between distinct rows (:func:`min_hamming_distance`).

    Returns
    -------
    int
        ``max(0, (delta - 1) // 2)``; 0 when delta <= 2.
    """
    return max(0, (int(delta) - 1) // 2)


def auto_eps(delta: int) -> int:
    """The eps that "auto" stands for everywhere (app, journal, ``eval``, ``simulate``).

    :func:`default_eps`, floor((delta - 1) / 2), but at least 1: turning noise tolerance on
    always tolerates a wrong answer, even when delta <= 2 means one wrong answer can make two
    chemicals look alike (the interview then says so and may end on several).
    """
    return max(1, default_eps(delta))


def group_entropy_bits(prior, groups) -> float:
    """H(Pi_y): entropy in bits of the group masses pi_{Theta^i} induced by ``groups``
    (Theorem 2 (thm:group identification)).

    Parameters
    ----------
    prior : array-like of shape (M,)
        Object masses (normalised first).
    groups : array-like of shape (M,)
        Group label of each object; any hashable labels. Empty groups carry no mass.
    """
    _, codes = np.unique(np.asarray(groups), return_inverse=True)
    masses = np.bincount(codes.reshape(-1), weights=np.asarray(prior, dtype=float))
    return entropy(masses)


def estimate_gammas(matrix, groups) -> tuple[np.ndarray, np.ndarray]:
    """Estimate each query's correlation parameters (gamma_w, gamma_b), Section 7.1.2.

    Following the paper's procedure exactly, per query q:

    1. for every group i, b_i is the majority vote of the answers of the objects in the group,
       and gamma_w^i is the fraction of the group's objects that answer b_i;
    2. x is the majority vote of the group answers b = (b_1, ..., b_m);
    3. gamma_b is the fraction of groups with b_i = x, and gamma_w = (1/m) sum_i gamma_w^i.

    Tie rule: a vote needs a strict majority of 1s to be 1; a tie gives 0 (the symptom is not
    counted as typical of a group when only half its chemicals show it). The rule only matters
    for b_i, which feeds gamma_b: gamma_w^i = max(c, n - c) / n and gamma_b = max(k, m - k) / m
    are the same whichever way a tie goes. Both estimates lie in [0.5, 1]. Groups are the
    labels present in ``groups``, so m counts only non-empty groups.

    Parameters
    ----------
    matrix : array-like of shape (M, N), 0/1
    groups : array-like of shape (M,)
        Group label y_i of each object (any hashable labels).

    Returns
    -------
    gamma_w : ndarray of shape (N,), float64
        Within-group agreement: near 1 when a group's objects answer alike.
    gamma_b : ndarray of shape (N,), float64
        Between-group agreement: near 0.5 when the groups split evenly on the query.
    """
    B = _as_binary(matrix)
    y = np.asarray(groups)
    if y.shape != (B.shape[0],):
        raise ValueError(
            f"there are {y.size} group labels but {B.shape[0]} objects; give one label per object"
        )
    if B.shape[0] == 0:
        raise ValueError("the matrix has no objects; gammas need at least one group")
    _, codes = np.unique(y, return_inverse=True)
    codes = codes.reshape(-1)
    m = int(codes.max()) + 1
    onehot = np.zeros((m, B.shape[0]))
    onehot[codes, np.arange(B.shape[0])] = 1.0
    ones = onehot @ B  # shape (m, N): objects answering 1, per group and query
    sizes = onehot.sum(axis=1)[:, None]  # shape (m, 1)
    b = 2.0 * ones > sizes  # strict majority; a tie votes 0
    gamma_w_i = np.maximum(ones, sizes - ones) / sizes
    k = b.sum(axis=0)  # groups voting 1, shape (N,)
    gamma_b = np.maximum(k, m - k) / m
    return gamma_w_i.mean(axis=0), gamma_b.astype(float)


def in_gain_region(
    gamma_w, gamma_b, w_min: float = GAIN_GAMMA_W_MIN, b_max: float = GAIN_GAMMA_B_MAX
) -> np.ndarray:
    """Mask of queries in the region where group identification gains most (Section 7.1.1).

    Queries with gamma_w near 1 and gamma_b near 0.5 split the groups about in half while
    keeping each group whole (group reduction factors near 1), which is what GISA looks for.

    Parameters
    ----------
    gamma_w, gamma_b : array-like of shape (N,)
    w_min, b_max : float
        Region bounds: gamma_w >= w_min and gamma_b <= b_max.

    Returns
    -------
    ndarray of shape (N,), bool
    """
    return (np.asarray(gamma_w) >= w_min) & (np.asarray(gamma_b) <= b_max)


def gain_region_definition(w_min: float = GAIN_GAMMA_W_MIN, b_max: float = GAIN_GAMMA_B_MAX) -> str:
    """The region of :func:`in_gain_region` in words, for reports."""
    return f"gamma_w >= {w_min:g} and gamma_b <= {b_max:g}"
