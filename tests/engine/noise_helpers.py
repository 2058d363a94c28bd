"""Shared helpers for the persistent-noise tests: random small problems and node comparisons
between the implicit computation (Appendix II) and the explicit dilated matrix (Section 6)."""

from __future__ import annotations

import numpy as np

from responder.engine.belief import Model, Node
from responder.engine.diagnostics import min_hamming_distance
from responder.engine.noise import NoiseModel
from responder.engine.policies import pick_matrix
from responder.engine.problem import Problem
from responder.engine.scoring import CATEGORY_COSTS, QUERY_COSTS

TOL = 1e-12


def random_problem(
    rng: np.random.Generator,
    m: int,
    n: int,
    n_groups: int = 2,
    n_categories: int = 2,
    min_delta: int = 1,
    density: float = 0.5,
) -> Problem:
    """A random problem with distinct rows at pairwise Hamming distance >= ``min_delta``,
    random prior, random object groups (classes) and query categories with pick weights."""
    rows: list[np.ndarray] = []
    for _ in range(100_000):  # greedy: keep a random row if it is far enough from the others
        r = rng.random(n) < density
        if all(int((r != s).sum()) >= max(min_delta, 1) for s in rows):
            rows.append(r)
            if len(rows) == m:
                break
    else:  # pragma: no cover - only with impossible sizes
        raise RuntimeError("could not draw a matrix with the requested distance")
    B = np.array(rows)
    assert min_hamming_distance(B) >= min_delta
    prior = rng.random(m) + 0.2
    groups = rng.integers(0, n_groups, size=m)
    groups[:n_groups] = np.arange(n_groups)  # every class present
    cats = rng.integers(0, n_categories, size=n)
    cats[:n_categories] = np.arange(n_categories)
    picks = rng.random(n) + 0.5
    return Problem.build(
        B,
        prior=prior,
        object_groups=[f"class{g}" for g in groups],
        query_groups=[f"cat{c}" for c in cats],
        pick_weights=picks,
        query_names=[f"q{j}" for j in range(n)],
        object_names=[f"obj{i}" for i in range(m)],
    )


def random_noise(
    rng: np.random.Generator,
    n: int,
    eps: int,
    prone: str = "all",
    model: int = 1,
    p: float | None = None,
) -> NoiseModel:
    if prone == "all":
        mask = np.ones(n, dtype=bool)
    else:
        k = int(rng.integers(1, n))
        mask = np.zeros(n, dtype=bool)
        mask[rng.choice(n, size=k, replace=False)] = True
    if p is None:
        p = float(rng.uniform(0.05, 0.5)) if model == 2 else 0.5
    return NoiseModel(eps, mask, model=model, p=p)


# -- per-original-object views of a node -------------------------------------------------


def implicit_masses(node: Node, M: int) -> np.ndarray:
    out = np.zeros(M)
    out[node.idx] = node.mass
    return out


def explicit_masses(node: Node, source: np.ndarray, M: int) -> np.ndarray:
    return np.bincount(source[node.idx], weights=node.mass, minlength=M)


def implicit_child_masses(node: Node, M: int) -> tuple[np.ndarray, np.ndarray]:
    no, yes = node.child_masses()
    N = node.asked.size
    out_no, out_yes = np.zeros((M, N)), np.zeros((M, N))
    out_no[node.idx], out_yes[node.idx] = no, yes
    return out_no, out_yes


def explicit_child_masses(node: Node, source: np.ndarray, M: int) -> tuple[np.ndarray, np.ndarray]:
    no, yes = node.child_masses()
    N = node.asked.size
    out_no, out_yes = np.zeros((M, N)), np.zeros((M, N))
    np.add.at(out_no, source[node.idx], no)
    np.add.at(out_yes, source[node.idx], yes)
    return out_no, out_yes


def group_rows(node: Node) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(group_total (T,), group_no (T, N), group_yes (T, N)) indexed by target code."""
    stats = node.split()
    model = node.model
    T, N = model.n_target, node.asked.size
    if stats.group_no is None:  # singleton noise-free groups: each wholly on its side
        B = model.matrix_f[node.idx]
        gno, gyes = np.zeros((T, N)), np.zeros((T, N))
        gyes[model.target_codes[node.idx]] = node.mass[:, None] * B
        gno[model.target_codes[node.idx]] = node.mass[:, None] * (1 - B)
        return node.target_masses(), gno, gyes
    # Rows are per target group: all T of them, one per candidate (object target under
    # noise), or one per group present at the node (ascending code).
    codes = model.target_codes[node.idx]
    rows = stats.group_no.shape[0]
    if model.singleton_target and rows == node.idx.size:
        row_codes = codes
    elif rows == T:
        row_codes = np.arange(T)
    else:
        row_codes = np.unique(codes)
    assert row_codes.size == rows
    gt, gno, gyes = np.zeros(T), np.zeros((T, N)), np.zeros((T, N))
    gt[row_codes], gno[row_codes], gyes[row_codes] = (
        stats.group_total,
        stats.group_no,
        stats.group_yes,
    )
    return gt, gno, gyes


def group_reduction_factors(gt: np.ndarray, gno: np.ndarray, gyes: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(gt[:, None] > 0, np.maximum(gno, gyes) / gt[:, None], 1.0)


def assert_close(a, b, what: str, tol: float = TOL) -> None:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, f"{what}: shapes {a.shape} != {b.shape}"
    if a.size:
        both_inf = np.isinf(a) & np.isinf(b) & (np.sign(a) == np.sign(b))
        with np.errstate(invalid="ignore"):
            diff = np.where(both_inf, 0.0, np.abs(a - b))
        assert np.all(diff <= tol), f"{what}: max difference {np.nanmax(diff)}\n{a}\n{b}"


def compare_nodes(imp: Node, exp: Node, source: np.ndarray) -> None:
    """Every quantity a policy uses, implicit against explicit, within 1e-12."""
    M = imp.model.problem.n_objects
    assert np.array_equal(imp.asked, exp.asked)
    mi, me = implicit_masses(imp, M), explicit_masses(exp, source, M)
    assert_close(mi, me, "node masses")
    assert set(imp.idx.tolist()) == set(np.unique(source[exp.idx]).tolist()), "candidates"
    assert abs(imp.total - exp.total) <= TOL
    assert_close(imp.target_masses(), exp.target_masses(), "target masses")
    assert imp.n_target_groups() == exp.n_target_groups()
    unasked = ~imp.asked
    ci_no, ci_yes = implicit_child_masses(imp, M)
    ce_no, ce_yes = explicit_child_masses(exp, source, M)
    assert_close(ci_no[:, unasked], ce_no[:, unasked], "per-query 'no' child masses")
    assert_close(ci_yes[:, unasked], ce_yes[:, unasked], "per-query 'yes' child masses")
    si, se = imp.split(), exp.split()
    assert_close(si.no, se.no, "no masses")
    assert_close(si.yes, se.yes, "yes masses")
    assert np.array_equal(si.splits, se.splits), "splitting queries"
    assert_close(si.reduction_factor[unasked], se.reduction_factor[unasked], "rho_a")
    gti, gnoi, gyesi = group_rows(imp)
    gte, gnoe, gyese = group_rows(exp)
    assert_close(gti, gte, "group masses")
    assert_close(gnoi[:, unasked], gnoe[:, unasked], "group 'no' masses")
    assert_close(gyesi[:, unasked], gyese[:, unasked], "group 'yes' masses")
    assert_close(
        group_reduction_factors(gti, gnoi, gyesi)[:, unasked],
        group_reduction_factors(gte, gnoe, gyese)[:, unasked],
        "group reduction factors rho_a^i",
    )
    assert_close(si.group_term[unasked], se.group_term[unasked], "group term")
    assert abs(si.target_entropy - se.target_entropy) <= TOL
    for name, cost in QUERY_COSTS.items():
        assert_close(cost(si)[unasked], cost(se)[unasked], f"{name} cost")
    if imp.model.problem.query_groups is not None:
        Pi, Pe = pick_matrix(imp), pick_matrix(exp)
        assert_close(Pi, Pe, "pick matrix")
        for name, cost in CATEGORY_COSTS.items():
            assert_close(cost(si, Pi), cost(se, Pe), f"{name} cost")
    assert imp.is_resolved() == exp.is_resolved()


def models(problem: Problem, noise: NoiseModel, target: str, dilated) -> tuple[Model, Model]:
    return Model(problem, target, noise), Model(dilated.problem, "group")
