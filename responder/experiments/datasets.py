"""The random data models of Section 7, and the default sizes they use.

Group identification (Section 7.1.1)
------------------------------------
Each query q has two correlation parameters in [0.5, 1]: gamma_w(q), how alike the objects
*within* a group answer, and gamma_b(q), how alike the groups answer. For one query:

1. draw x ~ Bernoulli(1/2);
2. for each object group i, b_i = x with probability gamma_b, else 1 - x;
3. each object of group i answers b_i with probability gamma_w, else 1 - b_i.

**How we read the missing (d1, d2) figure.** The paper draws (gamma_w, gamma_b) uniformly
from a rectangle "governed by d1, d2" and says that as d2 grows, more queries fall in the
*fourth quadrant* of the parameter square (gamma_w near 1, gamma_b near 0.5; axes gamma_w
horizontal, gamma_b vertical, quadrants split at 0.75), so GISA approaches H(P_y). We read
the rectangle as anchored at the corner (gamma_w, gamma_b) = (1, 1) and extending d1 to the
left and d2 downwards::

    gamma_w ~ U[1 - d1, 1],   gamma_b ~ U[1 - d2, 1],   0 < d1, d2 <= 0.5,

drawn independently per query. At small d2 every group answers alike (gamma_b near 1):
queries only split objects inside groups and group identification is hard for every
policy. As d2 grows to 0.5, gamma_b reaches 0.5 and a share
min(1, 0.25/d1) * max(0, 1 - 0.25/d2) of the queries lands in the fourth quadrant
(gamma_w >= 0.75, gamma_b <= 0.75), the group-preserving balanced splits that GISA looks
for. d1 sets how noisy
queries may be inside groups: with d1 = 0.5 some queries have gamma_w near 0.5, which are
balanced (so GBS likes them) but split every group (useless for the class).

Query groups (Section 7.2.1)
----------------------------
A dataset has one parameter gamma_max in [0.5, 1]. For each query category draw
gamma_b ~ U[0.5, gamma_max]; for each query of the category draw x ~ Bernoulli(1/2) and give
each object x with probability gamma_b (independently per object).

Identical rows
--------------
Random matrices can hold identical rows (certain when gamma_w = 1: a whole group then
shares one row). We **keep** them, as the engine supports them: objects that no query
separates end in one leaf and the interview stops when no unasked query splits the
candidates. Each result records the number of distinct rows so the effect is visible.

Default sizes
-------------
The paper's WISER size, 298 objects x 79 queries. The object-group sizes (16 in the paper)
and query-category sizes (10) are the bundled knowledge base's class and category sizes
scaled proportionally to 298 and 79 (largest remainders, at least one member each). When
the knowledge base cannot be loaded, fixed near-equal sizes are used and the caller says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from responder.engine.problem import Problem

PAPER_OBJECTS = 298
PAPER_QUERIES = 79
PAPER_OBJECT_GROUPS = 16
PAPER_QUERY_GROUPS = 10


@dataclass(frozen=True)
class Sizes:
    """Group sizes of the random datasets and where they come from."""

    object_group_sizes: tuple[int, ...]
    query_group_sizes: tuple[int, ...]
    source: str  # "knowledge base" or "fixed (...)"

    @property
    def n_objects(self) -> int:
        return sum(self.object_group_sizes)

    @property
    def n_queries(self) -> int:
        return sum(self.query_group_sizes)

    def to_dict(self) -> dict:
        return {
            "objects": self.n_objects,
            "queries": self.n_queries,
            "object_group_sizes": list(self.object_group_sizes),
            "query_group_sizes": list(self.query_group_sizes),
            "source": self.source,
        }


def scale_sizes(counts, total: int) -> tuple[int, ...]:
    """Scale positive ``counts`` to sum to ``total`` (largest remainders, each >= 1).

    Zero counts are dropped (an empty class has no size to match).
    """
    c = np.asarray([x for x in counts if x > 0], dtype=float)
    if c.size == 0:
        raise ValueError("no positive counts to scale")
    if total < c.size:
        raise ValueError(f"cannot give {c.size} groups at least one of {total} members")
    raw = c / c.sum() * total
    out = np.maximum(np.floor(raw).astype(int), 1)
    while out.sum() > total:
        # The minimum of one pushed us over: take one from the group most above its share
        # among those that can spare one (never below one member).
        excess = np.where(out > 1, out - raw, -np.inf)
        out[int(np.argmax(excess))] -= 1
    remainders = raw - out
    for k in np.argsort(-remainders, kind="stable")[: total - int(out.sum())]:
        out[k] += 1
    return tuple(int(v) for v in out)


def equal_sizes(n_groups: int, total: int) -> tuple[int, ...]:
    """``total`` split into ``n_groups`` near-equal sizes, larger first."""
    base, extra = divmod(total, n_groups)
    return tuple(base + 1 if k < extra else base for k in range(n_groups))


def fixed_sizes(reason: str) -> Sizes:
    return Sizes(
        equal_sizes(PAPER_OBJECT_GROUPS, PAPER_OBJECTS),
        equal_sizes(PAPER_QUERY_GROUPS, PAPER_QUERIES),
        f"fixed near-equal sizes ({reason})",
    )


def sizes_from_problem(problem: Problem | None, reason: str = "") -> Sizes:
    """Paper-size groups whose proportions follow ``problem``'s classes and categories."""
    if problem is None:
        return fixed_sizes(reason or "no knowledge base")
    try:
        if problem.object_groups is None or problem.query_groups is None:
            raise ValueError("the knowledge base has no classes or no categories")
        obj = np.bincount(problem.object_groups, minlength=problem.n_groups)
        qry = np.bincount(problem.query_groups, minlength=problem.n_query_groups)
        if (obj > 0).sum() < 2 or (qry > 0).sum() < 2:
            raise ValueError(
                "the knowledge base has fewer than two non-empty classes or categories"
            )
        return Sizes(
            scale_sizes(obj, PAPER_OBJECTS),
            scale_sizes(qry, PAPER_QUERIES),
            f"knowledge base: {int((obj > 0).sum())} non-empty classes of its "
            f"{problem.n_objects} chemicals, {int((qry > 0).sum())} categories of its "
            f"{problem.n_queries} symptoms, scaled to {PAPER_OBJECTS} x {PAPER_QUERIES}",
        )
    except ValueError as exc:
        return fixed_sizes(str(exc))


def group_labels(sizes) -> np.ndarray:
    """Labels 0..m-1 repeated by ``sizes``, shape (sum(sizes),)."""
    return np.repeat(np.arange(len(sizes)), sizes)


# -- group identification model (Section 7.1.1) ------------------------------------------


def draw_rectangle_gammas(
    n_queries: int, d1: float, d2: float, rng
) -> tuple[np.ndarray, np.ndarray]:
    """(gamma_w, gamma_b) per query, uniform on [1 - d1, 1] x [1 - d2, 1] (see module doc)."""
    if not (0.0 <= d1 <= 0.5 and 0.0 <= d2 <= 0.5):
        raise ValueError(f"d1 and d2 must lie in [0, 0.5], got d1={d1}, d2={d2}")
    gw = rng.uniform(1.0 - d1, 1.0, size=n_queries)
    gb = rng.uniform(1.0 - d2, 1.0, size=n_queries)
    return gw, gb


def group_model_matrix(groups: np.ndarray, gamma_w, gamma_b, rng) -> np.ndarray:
    """Steps 1-3 of Section 7.1.1 for every query at once, shape (M, N) bool.

    ``groups`` are labels 0..m-1 per object; ``gamma_w``, ``gamma_b`` have shape (N,).
    """
    gamma_w = np.asarray(gamma_w, dtype=float)
    gamma_b = np.asarray(gamma_b, dtype=float)
    m = int(groups.max()) + 1
    N = gamma_w.size
    x = rng.random(N) < 0.5  # step 1
    b = np.where(rng.random((m, N)) < gamma_b[None, :], x[None, :], ~x[None, :])  # step 2
    keep = rng.random((groups.size, N)) < gamma_w[None, :]  # step 3
    return np.where(keep, b[groups], ~b[groups])


def group_id_dataset(sizes: Sizes, d1: float, d2: float, rng) -> tuple[Problem, dict]:
    """A random group-identification dataset and its drawn parameters."""
    groups = group_labels(sizes.object_group_sizes)
    gw, gb = draw_rectangle_gammas(sizes.n_queries, d1, d2, rng)
    B = group_model_matrix(groups, gw, gb, rng)
    problem = Problem.build(B, object_groups=groups)
    return problem, {"gamma_w": gw, "gamma_b": gb}


# -- query-group model (Section 7.2.1) ------------------------------------------------------


def query_group_matrix(n_objects: int, query_groups: np.ndarray, gamma_max: float, rng):
    """Steps 1-2 of Section 7.2.1, returning (matrix (M, N) bool, gamma_b per category)."""
    if not 0.5 <= gamma_max <= 1.0:
        raise ValueError(f"gamma_max must lie in [0.5, 1], got {gamma_max}")
    n = int(query_groups.max()) + 1
    gb_cat = rng.uniform(0.5, gamma_max, size=n)  # step 1
    gb = gb_cat[query_groups]
    x = rng.random(query_groups.size) < 0.5  # step 2
    agree = rng.random((n_objects, query_groups.size)) < gb[None, :]
    return np.where(agree, x[None, :], ~x[None, :]), gb_cat


def query_group_dataset(sizes: Sizes, gamma_max: float, rng) -> tuple[Problem, dict]:
    """A random object-identification dataset with query categories."""
    z = group_labels(sizes.query_group_sizes)
    B, gb_cat = query_group_matrix(sizes.n_objects, z, gamma_max, rng)
    problem = Problem.build(B, query_groups=z)
    return problem, {"gamma_b_per_category": gb_cat}
