"""The explicit dilated matrix B~ of Section 6, for small problems only.

Under persistent noise, identifying the object of (B, Pi) is group identification on
(B~, Pi~): group i of B~ holds every bit string that differs from row i of B in at most
eps' = min(eps, N nu) of the error-prone positions. The engine never builds B~ (it computes
the same masses in closed form, see :mod:`responder.engine.noise`); this module builds it
literally, so tests can check the implicit computation against it, and so benchmarks can
measure what the implicit computation saves.

The priors follow Section 6 word for word. A string of group i that differs from row i in e
positions gets

- model 1: pi_i / sum_{e'=0}^{eps'} C(N nu, e'),
- model 2: pi_i p^e (1-p)^{N nu - e} / sum_{e'=0}^{eps'} C(N nu, e') p^{e'} (1-p)^{N nu - e'}.

Strings with prior zero (model 2 with p = 0 and e > 0) are left out: they carry no mass.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from responder.engine.noise import NoiseModel
from responder.engine.problem import Problem

#: Refuse to build B~ with more rows than this (the builder is for tests and benchmarks).
DEFAULT_MAX_ROWS = 200_000

TARGETS = ("object", "group")


class DilatedTooLarge(ValueError):
    """The dilated matrix would be too large to build; the message gives its size."""


@dataclass(frozen=True, eq=False)
class Dilated:
    """The dilated problem (B~, Pi~) and the way back to the original objects.

    Attributes
    ----------
    problem : Problem
        B~ with its prior. ``object_groups`` holds the original object index of each row
        (object target) or the original object's group code (group target), so
        ``Model(problem, target="group")`` identifies the original target. Query names,
        categories and pick weights are the original ones.
    source : ndarray of shape (M~,), int
        The original object of each dilated row.
    errors : ndarray of shape (M~,), int
        How many error-prone answers each row flips (its e).
    target : {"object", "group"}
        What the dilated groups stand for.
    """

    problem: Problem
    source: np.ndarray
    errors: np.ndarray
    target: str

    @property
    def n_rows(self) -> int:
        return int(self.source.size)


def group_size(noise: NoiseModel) -> int:
    """Strings per dilated group: sum_{e=0}^{eps'} C(N nu, e)."""
    return sum(comb(noise.n_prone, e) for e in range(noise.eps_eff + 1))


def dilated_rows(problem: Problem, noise: NoiseModel) -> int:
    """Rows of B~: M times the group size (before dropping zero-prior strings)."""
    return problem.n_objects * group_size(noise)


def flip_patterns(noise: NoiseModel) -> tuple[np.ndarray, np.ndarray]:
    """Every set of at most eps' error-prone queries, as a mask of shape (C, N), with the
    number of flips of each, shape (C,). Ordered by flips, then lexicographically."""
    prone = np.flatnonzero(noise.prone)
    N = noise.prone.size
    masks, counts = [], []
    for e in range(noise.eps_eff + 1):
        for chosen in combinations(prone.tolist(), e):
            m = np.zeros(N, dtype=bool)
            m[list(chosen)] = True
            masks.append(m)
            counts.append(e)
    return np.array(masks, dtype=bool).reshape(len(masks), N), np.array(counts, dtype=np.int64)


def string_weights(noise: NoiseModel) -> np.ndarray:
    """Pi~ / pi_i for a string with e = 0..eps' flips, shape (eps'+1,), as Section 6 states."""
    n, eps = noise.n_prone, noise.eps_eff
    if noise.model == 1:
        z = sum(comb(n, e) for e in range(eps + 1))
        return np.full(eps + 1, 1.0 / z)
    p = float(noise.p)
    terms = [p**e * (1.0 - p) ** (n - e) for e in range(eps + 1)]
    z = sum(comb(n, e) * terms[e] for e in range(eps + 1))
    return np.array([t / z for t in terms])


def build_dilated(
    problem: Problem,
    noise: NoiseModel,
    target: str = "object",
    max_rows: int | None = DEFAULT_MAX_ROWS,
    names: bool = True,
) -> Dilated:
    """Build (B~, Pi~) for ``problem`` under ``noise``.

    Parameters
    ----------
    problem : Problem
    noise : NoiseModel
    target : {"object", "group"}
        Dilated groups are the original objects, or the original objects' groups (classes).
    max_rows : int or None
        Refuse (:class:`DilatedTooLarge`) when B~ would have more rows; None for no limit.
    names : bool
        Name each row after its object and flipped queries ("chlorine ~cough"); False
        gives plain numbered names (faster for large B~).

    Returns
    -------
    Dilated
        Rows are ordered by original object, then by number of flips, then
        lexicographically by the flipped queries (the order of the paper's Figure 3b).
    """
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
    if target == "group" and problem.object_groups is None:
        raise ValueError("the group target needs object group labels")
    if noise.prone.shape != (problem.n_queries,):
        raise ValueError(
            f"the noise settings cover {noise.prone.size} queries but the problem has "
            f"{problem.n_queries}"
        )
    rows = dilated_rows(problem, noise)
    if max_rows is not None and rows > max_rows:
        raise DilatedTooLarge(
            f"the dilated matrix would have {rows:,} rows x {problem.n_queries} queries "
            f"({problem.n_objects} objects x {group_size(noise):,} strings each), more than "
            f"the limit of {max_rows:,}; the explicit builder is for small problems only"
        )
    flips, counts = flip_patterns(noise)
    weights = string_weights(noise)[counts]  # (C,)
    keep = weights > 0
    flips, counts, weights = flips[keep], counts[keep], weights[keep]
    M, C = problem.n_objects, flips.shape[0]
    matrix = np.repeat(problem.matrix, C, axis=0) ^ np.tile(flips, (M, 1))
    source = np.repeat(np.arange(M), C)
    errors = np.tile(counts, M)
    prior = np.repeat(problem.prior, C) * np.tile(weights, M)
    if target == "object":
        groups = source
        group_names = tuple(str(i) for i in range(M))
    else:
        groups = problem.object_groups[source]
        group_names = problem.group_names
    if names:
        row_names = []
        for i, f in zip(source.tolist(), np.tile(np.arange(C), M).tolist()):
            flipped = np.flatnonzero(flips[f])
            suffix = (
                ""
                if flipped.size == 0
                else " ~" + ",".join(problem.query_names[j] for j in flipped)
            )
            row_names.append(problem.object_names[i] + suffix)
    else:
        row_names = [f"string {k}" for k in range(M * C)]
    # The pieces are valid by construction (the original problem was validated), so the
    # Problem is made directly: codes stay the original codes and the prior is Section 6's.
    dilated = Problem(
        matrix,
        prior,
        np.asarray(groups, dtype=np.int64),
        problem.query_groups,
        problem.pick_weights,
        tuple(row_names),
        problem.query_names,
        group_names,
        problem.query_group_names,
    )
    return Dilated(dilated, source, errors, target)


def to_interchange(dilated: Dilated) -> dict:
    """The dilated problem as an interchange JSON object (groups = original object ids as
    text, or original group names for the group target; prior = Pi~)."""
    p = dilated.problem
    if dilated.target == "object":
        groups = [str(int(i)) for i in dilated.source]
    else:
        groups = [p.group_names[c] for c in p.object_groups]
    out = {
        "matrix": p.matrix.astype(int).tolist(),
        "prior": [float(x) for x in p.prior],
        "groups": groups,
        "queries": list(p.query_names),
        "objects": list(p.object_names),
        "pick_weights": [float(w) for w in p.pick_weights],
    }
    if p.query_groups is not None:
        out["query_groups"] = [p.query_group_names[c] for c in p.query_groups]
    return out
