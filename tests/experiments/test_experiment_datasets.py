"""The random data models of Section 7 produce the stated gamma statistics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from responder.engine.belief import Model
from responder.engine.diagnostics import (
    distinguishable_count,
    estimate_gammas,
    min_hamming_distance,
)
from responder.engine.evaluate import evaluate
from responder.engine.policies import Policy
from responder.experiments.datasets import (
    PAPER_OBJECTS,
    PAPER_QUERIES,
    Sizes,
    draw_rectangle_gammas,
    equal_sizes,
    group_id_dataset,
    group_labels,
    group_model_matrix,
    query_group_dataset,
    query_group_matrix,
    scale_sizes,
    sizes_from_problem,
)
from responder.experiments.noise import select_subset


def test_group_model_recovers_fixed_gammas():
    rng = np.random.default_rng(0)
    groups = group_labels([150] * 16)
    N = 300
    B = group_model_matrix(groups, np.full(N, 0.9), np.full(N, 0.8), rng)
    gw, gb = estimate_gammas(B, groups)
    assert gw.mean() == pytest.approx(0.9, abs=0.01)
    # max(k, m - k) / m with k ~ Bin(16, 0.8) is slightly above 0.8 on average
    assert gb.mean() == pytest.approx(0.8, abs=0.03)


def test_rectangle_model_parameters_and_estimates():
    rng = np.random.default_rng(1)
    gw, gb = draw_rectangle_gammas(2000, 0.3, 0.4, rng)
    assert gw.min() >= 0.7 and gw.max() <= 1.0
    assert gb.min() >= 0.6 and gb.max() <= 1.0
    assert gw.mean() == pytest.approx(0.85, abs=0.01)
    assert gb.mean() == pytest.approx(0.8, abs=0.01)
    sizes = Sizes(tuple([200] * 16), (100,), "test")
    problem, params = group_id_dataset(sizes, 0.5, 0.5, np.random.default_rng(2))
    est_w, est_b = estimate_gammas(problem.matrix, problem.object_groups)
    assert np.corrcoef(est_w, params["gamma_w"])[0, 1] > 0.95
    assert np.corrcoef(est_b, params["gamma_b"])[0, 1] > 0.6
    assert np.abs(est_w - params["gamma_w"]).mean() < 0.03


def test_more_fourth_quadrant_queries_as_d2_grows():
    rng = np.random.default_rng(3)
    counts = []
    for d2 in (0.1, 0.3, 0.5):
        gw, gb = draw_rectangle_gammas(5000, 0.5, d2, rng)
        counts.append(((gw >= 0.75) & (gb <= 0.75)).mean())
    assert counts[0] == 0.0
    assert counts[0] < counts[1] < counts[2]
    assert counts[2] == pytest.approx(0.25, abs=0.02)  # (0.25/0.5) * (0.25/0.5)


def test_query_group_model_recovers_gamma_b_per_category():
    rng = np.random.default_rng(4)
    z = group_labels([20] * 5)
    B, gb_cat = query_group_matrix(4000, z, 0.9, rng)
    assert np.all((gb_cat >= 0.5) & (gb_cat <= 0.9))
    # one group holding every object: gamma_w is each query's agreement with the majority
    agree, _ = estimate_gammas(B, np.zeros(B.shape[0], dtype=int))
    per_cat = np.array([agree[z == j].mean() for j in range(5)])
    assert np.abs(per_cat - gb_cat).max() < 0.03


def test_gamma_max_half_gives_fair_coins():
    rng = np.random.default_rng(5)
    sizes = Sizes((10,), tuple([8] * 10), "test")
    problem, params = query_group_dataset(Sizes((3000,), tuple([8] * 10), "t"), 0.5, rng)
    assert np.allclose(params["gamma_b_per_category"], 0.5)
    assert problem.matrix.mean() == pytest.approx(0.5, abs=0.01)
    assert sizes.n_queries == 80


def test_identical_rows_are_kept_and_handled():
    # gamma_w = 1: every object of a group shares its group's row
    rng = np.random.default_rng(6)
    groups = group_labels([5, 5, 5])
    B = group_model_matrix(groups, np.ones(12), np.full(12, 0.5), rng)
    assert distinguishable_count(B) <= 3
    from responder.engine.problem import Problem

    problem = Problem.build(B, object_groups=groups)
    ev = evaluate(Model(problem, "object"), Policy("gbs"))
    assert np.isfinite(ev.expected_queries)


def test_sizes_scale_and_fallback():
    assert sum(scale_sizes([10, 11, 9, 8, 8, 9, 8, 6, 13, 7], PAPER_QUERIES)) == PAPER_QUERIES
    s = scale_sizes([1, 200, 0, 3], 298)
    assert sum(s) == 298 and len(s) == 3 and min(s) >= 1
    assert equal_sizes(16, 298) == tuple([19] * 10 + [18] * 6)
    fixed = sizes_from_problem(None, "no kb")
    assert fixed.n_objects == PAPER_OBJECTS and fixed.n_queries == PAPER_QUERIES
    assert len(fixed.object_group_sizes) == 16 and "fixed" in fixed.source


def test_noise_subset_has_required_distance():
    rng = np.random.default_rng(7)
    B = rng.random((120, 30)) < 0.2
    B[5] = B[4]  # an identical pair
    idx, info = select_subset(B, 50, 5)
    assert idx.size <= 50
    assert min_hamming_distance(B[idx]) >= 5
    assert info["distinct_rows"] <= 119


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(0, 5000), min_size=1, max_size=30), data=st.data())
def test_scale_sizes_never_gives_an_empty_group(counts, data):
    positive = [c for c in counts if c > 0]
    if not positive:
        with pytest.raises(ValueError):
            scale_sizes(counts, 10)
        return
    total = data.draw(st.integers(len(positive), 400))
    sizes = scale_sizes(counts, total)
    assert len(sizes) == len(positive)
    assert sum(sizes) == total
    assert min(sizes) >= 1


def test_scale_sizes_one_dominant_class():
    # Before the fix this gave (4, 0, 0, 0, 1): the minimum of one was taken back.
    assert scale_sizes([1000, 1, 1, 1, 1], 5) == (1, 1, 1, 1, 1)
    assert scale_sizes([1000, 1, 1, 1, 1], 8) == (4, 1, 1, 1, 1)
