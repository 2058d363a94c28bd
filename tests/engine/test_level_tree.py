"""The level-wise GBS/GISA tree builder gives the node-by-node walk's tree, bit for bit.

``evaluate.exact`` builds noise-free GBS and GISA trees (first-index ties) a level at a time
(:mod:`responder.engine.tree`). It must pick the same query at every node as
:class:`~responder.engine.policies.Policy`, so every object's depth, the height and E[K]
must be *identical* floats to the node-by-node walk (``level_wise=False``), on uniform,
random and very skewed priors, with identical rows, from the root and from later nodes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from responder.engine.belief import Model
from responder.engine.evaluate import exact
from responder.engine.noise import NoiseModel
from responder.engine.policies import Policy
from responder.engine.problem import Problem
from responder.engine.tree import applies, build_level_tree, noisy_applies


def random_problem(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 90))
    n = int(rng.integers(1, 30))
    B = rng.random((m, n)) < rng.choice([0.05, 0.2, 0.5, 0.85])
    if seed % 5 == 0 and m > 3:
        B[1] = B[0]  # identical rows, possibly in two groups
    groups = rng.integers(0, int(rng.integers(1, 8)), size=m)
    prior = [None, rng.random(m) + 1e-3, rng.dirichlet(np.full(m, 0.2)) + 1e-12][seed % 3]
    return Problem.build(B, object_groups=groups, prior=prior)


def assert_same_tree(model: Model, policy: str, start=None) -> None:
    fast = exact(model, Policy(policy), start=start)
    slow = exact(model, Policy(policy), start=start, level_wise=False)
    assert fast.expected_queries == slow.expected_queries  # exactly, not approximately
    assert np.array_equal(fast.per_object_depth, slow.per_object_depth)
    assert fast.max_depth == slow.max_depth
    assert fast.decomposition == pytest.approx(slow.decomposition, abs=1e-12)
    # The decomposition of Theorems 1-4 holds for the level-wise tree too.
    assert fast.decomposition == pytest.approx(fast.expected_queries, abs=1e-9)


@pytest.mark.parametrize("seed", range(150))
def test_same_tree_as_node_by_node(seed):
    problem = random_problem(seed)
    for target in ("object", "group"):
        model = Model(problem, target)
        for policy in ("gbs", "gisa"):
            assert_same_tree(model, policy)


@pytest.mark.parametrize("seed", range(30))
def test_same_tree_from_a_later_node_with_skipped_queries(seed):
    problem = random_problem(1000 + seed)
    if problem.n_queries < 3:
        problem = random_problem(2000 + seed)
    model = Model(problem, "group")
    rng = np.random.default_rng(seed)
    truth = int(rng.integers(problem.n_objects))
    answers = {0: bool(problem.matrix[truth, 0])}
    start = model.node_from_answers(answers, skipped=[problem.n_queries - 1])
    for policy in ("gbs", "gisa"):
        assert_same_tree(model, policy, start=start)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    matrix=st.integers(1, 25).flatmap(
        lambda n: st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=1, max_size=30)
    ),
    data=st.data(),
)
def test_same_tree_property(matrix, data):
    B = np.array(matrix, dtype=bool)
    m = B.shape[0]
    groups = data.draw(st.lists(st.integers(0, 4), min_size=m, max_size=m))
    weights = data.draw(st.lists(st.floats(1e-6, 1.0), min_size=m, max_size=m))
    problem = Problem.build(B, object_groups=groups, prior=weights)
    for target in ("object", "group"):
        for policy in ("gbs", "gisa"):
            assert_same_tree(Model(problem, target), policy)


def test_only_noise_free_single_query_first_ties():
    problem = random_problem(3)
    model = Model(problem, "group")
    assert applies(model, Policy("gisa"))
    assert applies(model, Policy("gbs"))
    assert not applies(model, Policy("gisa", ties="random", seed=1))
    assert not applies(model, Policy("random"))
    noisy = Model(problem, "group", NoiseModel(1, np.ones(problem.n_queries, dtype=bool)))
    assert not applies(noisy, Policy("gisa"))
    big = Problem.build(np.eye(2100, 1000, dtype=bool), object_groups=np.arange(2100) % 3)
    assert not applies(Model(big, "group"), Policy("gisa"))  # the walk is faster there
    with pytest.raises(ValueError, match="choose one of gbs, gisa"):
        build_level_tree(model, "gqsa", 1e-9, model.root())


# -- under persistent noise: engine/tree.py's build_noisy_level_tree -------------------------------


def noisy_model(seed: int) -> Model:
    rng = np.random.default_rng(seed)
    problem = random_problem(seed)
    prone = rng.random(problem.n_queries) < rng.choice([0.3, 0.7, 1.0])
    noise = NoiseModel(
        int(rng.integers(0, 3)),
        prone,
        model=int(rng.integers(1, 3)),
        p=float(rng.uniform(0.0, 0.5)),
    )
    return Model(problem, "object", noise)


def assert_same_noisy_tree(model: Model, policy: str, start=None) -> None:
    """The same tree as the walk: the same height, each object's expected depth and E[K] equal
    up to round-off (summed in another order), and the decomposition of Theorems 1 and 2 on
    the dilated groups still equal to E[K]."""
    fast = exact(model, Policy(policy), start=start)
    slow = exact(model, Policy(policy), start=start, level_wise=False)
    assert fast.max_depth == slow.max_depth
    np.testing.assert_allclose(fast.per_object_depth, slow.per_object_depth, rtol=1e-12, atol=1e-12)
    assert fast.expected_queries == pytest.approx(slow.expected_queries, rel=1e-12)
    assert fast.decomposition == pytest.approx(slow.decomposition, abs=1e-9)
    assert fast.decomposition == pytest.approx(fast.expected_queries, abs=1e-9)


@pytest.mark.parametrize("seed", range(60))
def test_same_noisy_tree_as_node_by_node(seed):
    model = noisy_model(seed)
    assert noisy_applies(model, Policy("gbs"))
    for policy in ("gbs", "gisa"):
        assert_same_noisy_tree(model, policy)


@pytest.mark.parametrize("seed", range(15))
def test_same_noisy_tree_from_a_later_node_with_skipped_queries(seed):
    model = noisy_model(3000 + seed)
    problem = model.problem
    if problem.n_queries < 3:
        return
    truth = int(np.random.default_rng(seed).integers(problem.n_objects))
    start = model.node_from_answers(
        {0: bool(problem.matrix[truth, 0])}, skipped=[problem.n_queries - 1]
    )
    if start.idx.size == 0:
        return
    for policy in ("gbs", "gisa"):
        assert_same_noisy_tree(model, policy, start=start)


def test_noisy_level_tree_only_for_the_object_target_and_first_ties():
    problem = random_problem(4)
    noise = NoiseModel(1, np.ones(problem.n_queries, dtype=bool))
    assert noisy_applies(Model(problem, "object", noise), Policy("gisa"))
    assert not noisy_applies(Model(problem, "group", noise), Policy("gisa"))
    assert not noisy_applies(Model(problem, "object", noise), Policy("gqsa"))
    assert not noisy_applies(Model(problem, "object", noise), Policy("gbs", ties="random"))
    assert not noisy_applies(Model(problem, "object"), Policy("gbs"))
    big = Problem.build(np.eye(600, 60, dtype=bool))  # the walk is faster there
    assert not noisy_applies(
        Model(big, "object", NoiseModel(1, np.ones(60, dtype=bool))), Policy("gbs")
    )
