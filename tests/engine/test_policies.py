"""Policies: eligibility, tie rules, stopping, input validation and the Monte Carlo fallback."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from responder.engine import scoring
from responder.engine.belief import Model, TargetError
from responder.engine.evaluate import MIN_MONTE_CARLO_TRIALS, evaluate
from responder.engine.policies import POLICIES, Policy, PolicyError
from responder.engine.problem import Problem, ProblemError
from responder.engine.state import InterviewState, Status

TARGETS = ("object", "group")
ACTIVE_QUERY = ("gbs", "gisa")
ACTIVE_CATEGORY = ("gqsa", "gigqsa", "minmin", "minmax")


@st.composite
def nodes(draw):
    """A random problem and a random reachable-or-not node (random answers, some skipped)."""
    m = draw(st.integers(2, 8))
    n = draw(st.integers(1, 7))
    matrix = draw(
        st.lists(st.lists(st.integers(0, 1), min_size=n, max_size=n), min_size=m, max_size=m)
    )
    prior = draw(st.lists(st.floats(0.01, 1.0), min_size=m, max_size=m))
    groups = draw(st.lists(st.integers(0, 2), min_size=m, max_size=m))
    qgroups = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    picks = draw(st.lists(st.floats(0.1, 1.0), min_size=n, max_size=n))
    problem = Problem.build(matrix, prior, groups, qgroups, picks)
    target = draw(st.sampled_from(TARGETS))
    model = Model(problem, target)
    row = draw(st.integers(0, m - 1))
    asked = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    n_skip = draw(st.integers(0, len(asked)))
    answers = {q: bool(problem.matrix[row, q]) for q in asked[n_skip:]}
    return model, model.node_from_answers(answers, asked[:n_skip])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes())
def test_active_policies_suggest_only_what_splits(case):
    model, node = case
    stats = node.split()
    problem = model.problem
    for name in ACTIVE_QUERY:
        choice = Policy(name).choose(node)
        if choice is None:
            assert node.is_resolved()
            continue
        assert choice.kind == "query"
        assert stats.splits[choice.index], name
        assert choice.queries.tolist() == [choice.index]
        assert np.isinf(choice.costs[~stats.splits]).all()
    for name in ACTIVE_CATEGORY:
        choice = Policy(name).choose(node)
        if choice is None:
            assert node.is_resolved()
            continue
        assert choice.kind == "category"
        in_cat = problem.query_groups == choice.index
        # Eligible: the category holds an unasked query that splits the candidates ...
        assert (stats.splits & in_cat).any(), name
        # ... and the responder may then pick any of its unasked queries, as in the paper.
        assert choice.queries.tolist() == np.flatnonzero(in_cat & ~node.asked).tolist()
        assert choice.probs.sum() == pytest.approx(1.0)
        eligible = (
            np.bincount(
                problem.query_groups,
                weights=stats.splits.astype(float),
                minlength=problem.n_query_groups,
            )
            > 0
        )
        assert np.isinf(choice.costs[~eligible]).all()


def test_random_policies_may_pick_queries_that_split_nothing():
    # Query 1 is constant; category 1 holds only it.
    problem = Problem.build([[0, 1], [1, 1]], query_groups=[0, 1])
    model = Model(problem)
    node = model.root()
    assert not node.split().splits[1]
    for name in ("random", "random-category"):
        choice = Policy(name).choose(node)
        assert choice.kind == "any"
        assert 1 in choice.queries.tolist()
        assert choice.probs.sum() == pytest.approx(1.0)
    # Each such pick costs a question: E[K] = 1 (q0 first) or 2 (q1 then q0), each half.
    assert evaluate(model, Policy("random")).expected_queries == pytest.approx(1.5)
    assert evaluate(model, Policy("gbs")).expected_queries == pytest.approx(1.0)


# Uniform prior: q0 has rho 3/4; q1 and q2 both split 2:2 (rho 1/2) but differently.
TIED = [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 1]]


def test_ties_first_is_lowest_index():
    problem = Problem.build(TIED, object_groups=[0, 1, 2, 3], query_groups=[0, 1, 2])
    for target in TARGETS:
        node = Model(problem, target).root()
        for name in ("gbs", "gisa", "gqsa", "gigqsa", "minmin", "minmax"):
            choice = Policy(name).choose(node)
            assert choice.index == 1, name


def test_random_ties_reproducible_with_a_seed():
    problem = Problem.build(TIED)
    model = Model(problem)

    def sequence(seed):
        policy = Policy("gbs", ties="random", seed=seed)
        return [policy.choose(model.root()).index for _ in range(40)]

    for seed in range(5):
        assert sequence(seed) == sequence(seed)
    picked = {q for seed in range(5) for q in sequence(seed)}
    assert picked == {1, 2}  # both tied queries occur, the worse one never
    assert sequence(0) != sequence(1) or sequence(0) != sequence(2)


def test_unknown_policy_and_tie_rule():
    with pytest.raises(PolicyError, match="gbs"):
        Policy("bogus")
    with pytest.raises(PolicyError, match="first"):
        Policy("gbs", ties="sometimes")
    problem = Problem.build(TIED)
    with pytest.raises(PolicyError, match="categor"):
        Policy("gqsa").check(problem)
    with pytest.raises(TargetError, match="group"):
        Model(problem, "group")
    assert set(POLICIES) >= {"gbs", "gisa", "gqsa", "gigqsa", "random", "minmin", "minmax"}


# -- Stopping rules ------------------------------------------------------------------------


def test_object_target_stops_at_one_object():
    problem = Problem.build([[0, 0], [0, 1], [1, 0]])
    model = Model(problem)
    node = model.root().child(0, False)
    assert node.idx.tolist() == [0, 1]
    assert Policy("gbs").choose(node).index == 1
    leaf = node.child(1, True)
    assert leaf.idx.tolist() == [1] and Policy("gbs").choose(leaf) is None


def test_object_target_indistinguishable_objects_reported_together():
    # Objects 0 and 2 have identical rows: no query tells them apart.
    problem = Problem.build([[0, 1], [1, 1], [0, 1]], prior=[1, 2, 1])
    model = Model(problem)
    node = model.root().child(0, False)
    assert node.idx.tolist() == [0, 2]
    assert node.is_resolved() and Policy("gbs").choose(node) is None
    state = InterviewState(problem)
    state.answer(0, "no")
    assert state.status is Status.INDISTINGUISHABLE
    cands = state.candidates()
    assert len(cands) == 1
    assert cands[0].objects == (0, 2) and cands[0].probability == pytest.approx(1.0)
    assert state.suggestion() is None
    ev = evaluate(model, Policy("gbs"))
    assert ev.expected_queries == pytest.approx(1.0)
    assert ev.decomposition == pytest.approx(1.0)


def test_group_target_stops_when_one_group_is_left():
    # Objects 0 and 1 differ (q1) but share group "a": no need to tell them apart.
    problem = Problem.build([[0, 0], [0, 1], [1, 0]], object_groups=["a", "a", "b"])
    model = Model(problem, "group")
    node = model.root().child(0, False)
    assert node.split().splits[1]
    assert Policy("gisa").choose(node) is None and Policy("gbs").choose(node) is None
    state = InterviewState(problem, target="group", policy="gisa")
    state.answer(0, "no")
    assert state.status is Status.IDENTIFIED
    assert state.group_probabilities().tolist() == [1.0, 0.0]
    assert evaluate(model, Policy("gisa")).expected_queries == pytest.approx(1.0)


def test_group_target_stops_when_nothing_splits():
    # Objects 0 and 2: identical rows, different groups.
    problem = Problem.build([[0, 1], [1, 1], [0, 1]], object_groups=[0, 1, 2])
    model = Model(problem, "group")
    node = model.root().child(0, False)
    assert node.n_target_groups() == 2 and Policy("gisa").choose(node) is None
    state = InterviewState(problem, target="group", policy="gisa")
    state.answer(0, "no")
    assert state.status is Status.INDISTINGUISHABLE
    assert [c.objects for c in state.candidates()] == [(0, 2)]


# -- Named costs and problem validation ------------------------------------------------------


def test_named_cost_lookup_names_the_valid_choices():
    assert scoring.query_cost("gbs") is scoring.gbs_cost
    assert scoring.category_cost("gqsa") is scoring.gqsa_cost
    with pytest.raises(ValueError) as exc:
        scoring.query_cost("entropy")
    assert "'entropy'" in str(exc.value)
    for name in scoring.QUERY_COSTS:
        assert name in str(exc.value)
    with pytest.raises(ValueError) as exc:
        scoring.category_cost("gbs")
    for name in ("gqsa", "gigqsa", "minmin", "minmax"):
        assert name in str(exc.value)


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        (dict(matrix=[[0, 1], [1]]), r"ragged.*row 1"),
        (dict(matrix=[[0, 2], [1, 0]]), r"\[0\]\[1\].*0 or 1"),
        (dict(matrix=[[0, 0.5], [1, 0]]), r"0 or 1"),
        (dict(matrix=[[0, "1"], [1, 0]]), r"0 or 1"),
        (dict(matrix=[[0, None], [1, 0]]), r"0 or 1"),
        (dict(matrix=[]), r"empty"),
        (dict(matrix=[[]]), r"at least one"),
        (dict(matrix=[[0, 1], [1, 0]], prior=[1, 2, 3]), r"3 entries.*2 objects"),
        (dict(matrix=[[0, 1], [1, 0]], prior=[1, -1]), r"negative"),
        (dict(matrix=[[0, 1], [1, 0]], prior=[0, 0]), r"zero"),
        (dict(matrix=[[0, 1], [1, 0]], prior=[1, 0]), r"zero"),
        (dict(matrix=[[0, 1], [1, 0]], prior=[1, float("nan")]), r"non-finite"),
        (dict(matrix=[[0, 1], [1, 0]], prior=["a", 1]), r"numbers"),
        (dict(matrix=[[0, 1], [1, 0]], object_groups=[1]), r"1 object group labels.*2 objects"),
        (dict(matrix=[[0, 1], [1, 0]], query_groups=[1, 2, 3]), r"3 query group labels.*2"),
        (dict(matrix=[[0, 1], [1, 0]], pick_weights=[1]), r"1 pick weights.*2 queries"),
        (dict(matrix=[[0, 1], [1, 0]], pick_weights=[1, 0]), r"positive"),
        (dict(matrix=[[0, 1], [1, 0]], object_names=["a"]), r"1 object names.*2 objects"),
    ],
)
def test_bad_problem_inputs_raise_problem_error(kwargs, pattern):
    with pytest.raises(ProblemError, match=pattern):
        Problem.build(**kwargs)


def test_numpy_matrix_validated_too():
    with pytest.raises(ProblemError, match="0 or 1"):
        Problem.build(np.array([[0, 3], [1, 0]]))
    p = Problem.build(np.array([[0, 1], [1, 0]]), prior=[2, 6])
    assert p.prior.tolist() == [0.25, 0.75]


# -- Monte Carlo fallback --------------------------------------------------------------------


def moderate_problem(seed=3, m=12, n=9):
    rng = np.random.default_rng(seed)
    while True:
        B = rng.random((m, n)) < 0.4
        if len({r.tobytes() for r in B}) == m:
            break
    return Problem.build(
        B.astype(int).tolist(),
        prior=rng.random(m) + 0.1,
        object_groups=rng.integers(0, 3, m).tolist(),
        query_groups=rng.integers(0, 3, n).tolist(),
    )


@pytest.mark.parametrize("name, target", [("gqsa", "object"), ("gigqsa", "group")])
def test_monte_carlo_fallback_interval_contains_exact(name, target):
    model = Model(moderate_problem(), target)
    exact = evaluate(model, Policy(name), method="exact")
    assert exact.method == "exact" and exact.states > 50
    mc = evaluate(model, Policy(name), max_states=50, seed=7)
    assert mc.method == "monte-carlo"
    assert mc.states == MIN_MONTE_CARLO_TRIALS >= 10_000
    assert mc.decomposition is None and mc.per_object_depth is None
    lo, hi = mc.ci95
    assert lo < mc.expected_queries < hi
    assert lo <= exact.expected_queries <= hi
    assert hi - lo < 0.2
    assert any("Monte Carlo" in note for note in mc.notes)
    # Within budget, "auto" stays exact.
    auto = evaluate(model, Policy(name), max_states=10**6)
    assert auto.method == "exact"
    assert auto.expected_queries == pytest.approx(exact.expected_queries, abs=1e-12)


def test_single_query_policies_are_always_exact():
    model = Model(moderate_problem(), "object")
    ev = evaluate(model, Policy("gbs"), max_states=1)
    assert ev.method == "exact" and ev.ci95 is None


def test_unknown_method_rejected():
    model = Model(moderate_problem())
    with pytest.raises(ValueError, match="auto"):
        evaluate(model, Policy("gbs"), method="guess")
