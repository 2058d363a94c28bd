"""The engine's one entropy (and its elementwise pieces) and the lower bounds on E[K].

:func:`xlog2x` is the single place 0 log 0 = 0 is decided; :func:`entropy` (of a mass
vector), :func:`binary_entropy` (of reduction factors) and the group term of the split
statistics are all built on it.
"""

from __future__ import annotations

import heapq

import numpy as np


def binary_entropy(x: np.ndarray) -> np.ndarray:
    """H(x) = -x log2 x - (1-x) log2 (1-x), with 0 log 0 = 0, elementwise.

    The entropy of a reduction factor rho_a, as in Theorem 1 (thm:object identification).

    Parameters
    ----------
    x : array-like of any shape, values in [0, 1]

    Returns
    -------
    ndarray of the same shape
    """
    # Hot path (called at every node on every query): no masks, no errstate. Flooring the
    # log's argument at the smallest normal float makes 0 log 0 = 0 exactly (0 * finite).
    x = np.minimum(np.maximum(np.asarray(x, dtype=float), 0.0), 1.0)
    y = 1.0 - x
    return 0.0 - (xlog2x(x) + xlog2x(y))  # 0.0 - h, not -h: +0.0 (not -0.0) at x in {0, 1}


_TINY = np.finfo(float).tiny


def xlog2x(x: np.ndarray) -> np.ndarray:
    """x log2 x elementwise, with 0 log 0 = 0 (x >= 0), as a new array.

    Flooring the log's argument at the smallest normal float makes 0 log 0 exactly 0. The
    log is taken in place in the one temporary: this runs on every node x query (and, in
    :mod:`responder.engine.tree`, on every (node, group) x query of a level).
    """
    out = np.maximum(x, _TINY, out=np.empty(np.shape(x)))
    np.log2(out, out=out)
    out *= x
    return out


def entropy(p) -> float:
    """Shannon entropy in bits of a probability vector (normalised first), 0 log 0 = 0.

    H(Pi) bounds E[K] for object identification (Theorem 1 (thm:object identification)) and H(Pi_y) for
    group identification (Theorem 2 (thm:group identification)).

    Parameters
    ----------
    p : array-like of shape (K,), non-negative, not all zero
    """
    p = np.asarray(p, dtype=float)
    total = p.sum()
    if total <= 0:
        return 0.0
    q = p[p > 0] / total
    return max(0.0, float(-xlog2x(q).sum()))


def huffman_expected_length(p) -> float:
    """Expected codeword length of a binary Huffman code for ``p``.

    No identification tree with binary queries can beat it: a tree that identifies every
    object is a prefix code (Section 1.1). Equals 0 for a single object.

    Parameters
    ----------
    p : array-like of shape (K,), positive
    """
    p = np.asarray(p, dtype=float)
    p = p[p > 0]
    if p.size <= 1:
        return 0.0
    p = p / p.sum()
    # The expected length is the sum of the merged weights (each merge adds one bit to
    # every leaf below it).
    heap = list(map(float, p))
    heapq.heapify(heap)
    total = 0.0
    while len(heap) > 1:
        a = heapq.heappop(heap)
        b = heapq.heappop(heap)
        total += a + b
        heapq.heappush(heap, a + b)
    return total
