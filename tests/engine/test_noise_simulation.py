"""Error simulation under persistent noise (Section 7.3): within eps errors the interview
always ends on the truth; past eps it never silently settles on an inconsistent candidate."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from noise_helpers import random_noise, random_problem

from responder.engine.belief import Model
from responder.engine.diagnostics import default_eps, min_hamming_distance
from responder.engine.evaluate import monte_carlo
from responder.engine.noise import NoiseModel
from responder.engine.policies import Policy
from responder.engine.problem import Problem
from responder.engine.simulate import (
    PolicyInterviewer,
    draw_answers,
    error_count_distribution,
    run_simulation,
)
from responder.engine.state import Answer, InterviewState, Status

POLICIES = ["gbs", "gisa", "gqsa", "gigqsa"]


def _problem(seed: int, eps: int, m: int = 5, n: int = 8):
    rng = np.random.default_rng(seed)
    problem = random_problem(rng, m, n, n_groups=2, n_categories=2, min_delta=2 * eps + 1)
    assert default_eps(min_hamming_distance(problem.matrix)) >= eps
    return rng, problem


def _patterns(prone: np.ndarray, flips: int):
    return itertools.combinations(np.flatnonzero(prone).tolist(), flips)


def _consistent(problem, noise, answers: dict[int, bool], i: int) -> bool:
    """Object i fits the answers within eps: no mismatch on a reliable query and at most
    eps' on the error-prone ones."""
    hard = sum(problem.matrix[i, q] != a for q, a in answers.items() if not noise.prone[q])
    soft = sum(problem.matrix[i, q] != a for q, a in answers.items() if noise.prone[q])
    return hard == 0 and soft <= noise.eps_eff


@pytest.mark.parametrize("target", ["object", "group"])
@pytest.mark.parametrize("model", [1, 2])
@pytest.mark.parametrize("prone", ["all", "subset"])
def test_within_eps_always_ends_on_the_truth(target, model, prone):
    """Every true object, every error pattern with at most eps flips, every policy."""
    eps = 1
    rng, problem = _problem(10 + model, eps)
    noise = random_noise(rng, problem.n_queries, eps, prone=prone, model=model)
    m = Model(problem, target, noise)
    groups = problem.object_groups
    for name in POLICIES:
        policy = Policy(name)
        for true in range(problem.n_objects):
            for e in range(noise.eps_eff + 1):
                for flipped in _patterns(noise.prone, e):
                    answers = problem.matrix[true].copy()
                    answers[list(flipped)] ^= True
                    _, node = PolicyInterviewer(m, policy).run(answers, rng)
                    assert true in node.idx.tolist()
                    if target == "object":
                        assert node.idx.tolist() == [true], (name, true, flipped)
                    else:
                        assert set(groups[node.idx].tolist()) == {groups[true]}


def test_within_eps_two_errors():
    eps = 2
    rng, problem = _problem(21, eps, m=4, n=10)
    noise = NoiseModel(eps, np.ones(problem.n_queries, bool), model=2, p=0.2)
    for target in ("object", "group"):
        result = run_simulation(
            Model(problem, target, noise), Policy("gisa"), interviews=300, seed=1
        )
        assert result.accuracy_within_eps == 1.0
        assert result.within_count == 300
        assert result.details["several_candidates_within_eps"] == 0.0


@pytest.mark.parametrize("target", ["object", "group"])
def test_run_simulation_accuracy(target):
    rng, problem = _problem(31, 1, m=6, n=9)
    noise = random_noise(rng, problem.n_queries, 1, prone="subset", model=2)
    for name in POLICIES:
        res = run_simulation(
            Model(problem, target, noise), Policy(name), interviews=200, extra_errors=2, seed=4
        )
        assert res.accuracy_within_eps == 1.0
        assert res.beyond_count == 200
        assert 0.0 <= res.accuracy_beyond_eps <= 1.0
        assert res.ci95[0] <= res.expected_queries <= res.ci95[1]
        # Correct, inconsistent or wrong-but-consistent: nothing else.
        total = (
            res.accuracy_beyond_eps
            + res.inconsistent_beyond_eps
            + res.details["wrong_consistent_beyond_eps"]
        )
        assert abs(total - 1.0) < 1e-12


@pytest.mark.parametrize("target", ["object", "group"])
@pytest.mark.parametrize("policy_name", ["gbs", "gisa", "gigqsa"])
def test_beyond_eps_never_silently_picks(target, policy_name):
    """eps + 1 and eps + 2 flips, every pattern: either the engine reports INCONSISTENT and
    ranks by mismatches, or every remaining candidate fits the answers within eps."""
    eps = 1
    rng, problem = _problem(41, eps, m=6, n=8)
    noise = NoiseModel(eps, np.ones(problem.n_queries, bool), model=1)
    m = Model(problem, target, noise)
    policy = Policy(policy_name)
    seen = {"inconsistent": 0, "wrong": 0, "right": 0}
    for true in range(problem.n_objects):
        for e in (eps + 1, eps + 2):
            for flipped in _patterns(noise.prone, e):
                answers = problem.matrix[true].copy()
                answers[list(flipped)] ^= True
                _, node = PolicyInterviewer(m, policy).run(answers, rng)
                given = {int(q): bool(answers[q]) for q in np.flatnonzero(node.asked)}
                state = InterviewState(problem, target=target, policy=policy_name, noise=noise)
                for q, a in given.items():
                    state.answer(q, Answer.YES if a else Answer.NO)
                if node.idx.size == 0:
                    seen["inconsistent"] += 1
                    assert state.status is Status.INCONSISTENT
                    assert state.suggestion() is None and state.candidates() == []
                    ranked = state.ranked_by_mismatch(limit=problem.n_objects)
                    truth = (problem.matrix != answers[None, :])[:, list(given)].sum(axis=1)
                    assert [k for _, k in ranked] == sorted(truth.tolist())
                    assert all(truth[i] == k for i, k in ranked)
                    assert not any(
                        _consistent(problem, noise, given, i) for i in range(problem.n_objects)
                    )
                    continue
                assert state.status in (Status.IDENTIFIED, Status.INDISTINGUISHABLE)
                assert np.array_equal(state.node.idx, node.idx)
                for i in node.idx.tolist():
                    assert _consistent(problem, noise, given, i), (true, flipped, i)
                if true in node.idx.tolist() and (target == "group" or node.idx.tolist() == [true]):
                    seen["right"] += 1
                else:
                    seen["wrong"] += 1
    assert seen["wrong"] > 0
    if policy_name in ("gbs", "gisa"):
        # A query policy asks only queries that send mass to both answers, so its interview
        # never runs out of candidates: past eps it can only end on candidates that fit
        # every answer given within eps (checked above). Category policies let the
        # responder pick a query that splits nothing, which can leave no candidate.
        assert seen["inconsistent"] == 0


@pytest.mark.parametrize("target", ["object", "group"])
def test_beyond_eps_volunteered_answers_report_inconsistent(target):
    """All answers volunteered at once (eps + 1 and eps + 2 flips): when no object fits
    within eps the state says INCONSISTENT and ranks objects by fewest mismatches."""
    eps = 1
    rng, problem = _problem(43, eps, m=6, n=8)
    prone = np.ones(problem.n_queries, bool)
    prone[0] = False  # one reliable query: a mismatch there eliminates outright
    noise = NoiseModel(eps, prone, model=2, p=0.2)
    inconsistent = 0
    for true in range(problem.n_objects):
        for e in (eps + 1, eps + 2):
            for flipped in _patterns(noise.prone, e):
                answers = problem.matrix[true].copy()
                answers[list(flipped)] ^= True
                state = InterviewState(problem, target=target, policy="gisa", noise=noise)
                for q in rng.permutation(problem.n_queries).tolist():
                    state.answer(q, Answer.YES if answers[q] else Answer.NO)
                given = {q: bool(answers[q]) for q in range(problem.n_queries)}
                fits = [
                    i for i in range(problem.n_objects) if _consistent(problem, noise, given, i)
                ]
                if not fits:
                    inconsistent += 1
                    assert state.status is Status.INCONSISTENT
                    assert state.suggestion() is None and state.candidates() == []
                    ranked = state.ranked_by_mismatch(limit=problem.n_objects)
                    mism = (problem.matrix != answers[None, :]).sum(axis=1)
                    assert [k for _, k in ranked] == sorted(mism.tolist())
                    assert all(mism[i] == k for i, k in ranked)
                    assert ranked[0][1] == mism.min()
                else:
                    assert sorted(state.node.idx.tolist()) == fits
                    assert state.status is not Status.INCONSISTENT
    assert inconsistent > 0


def test_interview_state_with_skips_within_eps():
    """ "Can't tell" answers: the interview never ends on a wrong object within eps."""
    eps = 1
    rng, problem = _problem(51, eps, m=5, n=9)
    noise = NoiseModel(eps, np.ones(problem.n_queries, bool), model=2, p=0.3)
    for _ in range(60):
        true = int(rng.integers(problem.n_objects))
        answers = draw_answers(Model(problem, "object", noise), true, rng)
        state = InterviewState(problem, target="object", policy="gisa", noise=noise)
        while state.status is Status.ASKING:
            q = int(state.suggestion().index)
            if rng.random() < 0.25:
                state.answer(q, Answer.UNKNOWN)
            else:
                state.answer(q, Answer.YES if answers[q] else Answer.NO)
        assert state.status in (Status.IDENTIFIED, Status.INDISTINGUISHABLE)
        assert true in state.node.idx.tolist()
        if state.status is Status.IDENTIFIED:
            assert state.node.idx.tolist() == [true]


def test_identical_rows_are_reported_together_and_count_as_correct():
    B = [[1, 1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0], [0, 0, 0, 1, 1, 1, 1]]
    problem = Problem.build(B)
    noise = NoiseModel(1, np.ones(7, bool))
    res = run_simulation(Model(problem, "object", noise), Policy("gbs"), interviews=100, seed=0)
    assert res.accuracy_within_eps == 1.0
    assert 0.0 < res.details["several_candidates_within_eps"] < 1.0


def test_no_over_budget_interviews_when_every_prone_answer_may_be_wrong():
    """eps' = N nu: more than eps errors is impossible, so none are drawn (they used to be
    capped to eps' flips and counted as over budget)."""
    rng, problem = _problem(61, 1, m=4, n=8)
    prone = np.zeros(problem.n_queries, bool)
    prone[2] = True
    noise = NoiseModel(1, prone)
    res = run_simulation(
        Model(problem, "object", noise), Policy("gbs"), interviews=50, extra_errors=3, seed=0
    )
    assert res.beyond_count == 0 and res.accuracy_beyond_eps is None
    assert res.accuracy_within_eps == 1.0


def test_draw_answers_follows_the_four_steps():
    rng, problem = _problem(71, 1, m=4, n=8)
    noise = random_noise(rng, problem.n_queries, 2, prone="subset", model=2, p=0.3)
    m = Model(problem, "object", noise)
    dist = error_count_distribution(noise.n_prone, noise.eps_eff, 2, 0.3)
    counts = np.zeros(dist.size)
    for _ in range(4000):
        ans = draw_answers(m, 0, rng)
        diff = ans != problem.matrix[0]
        assert not diff[~noise.prone].any()  # only error-prone answers flip
        counts[int(diff.sum())] += 1
    assert np.allclose(counts / counts.sum(), dist, atol=0.03)
    forced = draw_answers(m, 1, rng, n_errors=noise.eps_eff + 1)
    assert int((forced != problem.matrix[1]).sum()) == min(noise.eps_eff + 1, noise.n_prone)


# -- monte_carlo with answers from another model (Section 7.3's p_true != p_alg) -----------


@pytest.mark.parametrize("target", ["object", "group"])
@pytest.mark.parametrize("noisy", [False, True])
def test_monte_carlo_truth_equal_to_model_changes_nothing(target, noisy):
    rng, problem = _problem(81, 1, m=6, n=9)
    noise = NoiseModel(1, np.ones(problem.n_queries, bool), model=2, p=0.3) if noisy else None
    m = Model(problem, target, noise)
    for name in ("gbs", "gqsa"):
        plain = monte_carlo(m, Policy(name), trials=300, seed=5)
        same = monte_carlo(m, Policy(name), trials=300, seed=5, truth=m)
        assert same.expected_queries == plain.expected_queries
        assert same.ci95 == plain.ci95
        assert same.max_depth == plain.max_depth
        assert same.accuracy == plain.accuracy
        assert plain.accuracy is not None and 0.0 <= plain.accuracy <= 1.0


@pytest.mark.parametrize("target", ["object", "group"])
@pytest.mark.parametrize("p_true, p_alg", [(0.05, 0.4), (0.5, 0.1)])
def test_monte_carlo_truth_with_another_p(target, p_true, p_alg, monkeypatch):
    """Errors drawn with p_true, the tree built with p_alg: never more than eps of them, so
    every interview still ends on the truth (distance >= 2 eps + 1)."""
    eps = 1
    rng, problem = _problem(83, eps, m=6, n=9)
    prone = np.ones(problem.n_queries, bool)
    prone[0] = False
    m_alg = Model(problem, target, NoiseModel(eps, prone, model=2, p=p_alg))
    m_true = Model(problem, target, NoiseModel(eps, prone, model=2, p=p_true))
    import responder.engine.simulate as simulate  # noqa: PLC0415

    drawn_from = set()
    real_draw = simulate.draw_answers

    def spy(model, true, rng, n_errors=None):
        drawn_from.add(id(model))
        return real_draw(model, true, rng, n_errors)

    monkeypatch.setattr(simulate, "draw_answers", spy)
    for name in ("gbs", "gisa"):
        ev = monte_carlo(m_alg, Policy(name), trials=400, seed=9, truth=m_true)
        assert ev.accuracy == 1.0
        assert ev.ci95[0] <= ev.expected_queries <= ev.ci95[1]
    assert drawn_from == {id(m_true)}


def test_monte_carlo_truth_must_share_the_problem():
    _, problem = _problem(85, 1, m=5, n=8)
    _, other = _problem(86, 1, m=4, n=8)
    with pytest.raises(ValueError, match="same problem"):
        monte_carlo(
            Model(problem, "object"), Policy("gbs"), trials=10, truth=Model(other, "object")
        )


# -- one simulator under both ------------------------------------------------------------


@pytest.mark.parametrize("name", ["gbs", "gqsa"])
def test_simulate_and_monte_carlo_meet_the_same_victims(name):
    """`simulate` and `eval`'s Monte Carlo are one simulator: with one seed, the interviews
    within the budget are exactly the ones monte_carlo runs (same victims, errors, picks)."""
    _, problem = _problem(87, 1, m=6, n=9)
    noise = NoiseModel(1, np.ones(problem.n_queries, bool), model=2, p=0.3)
    model = Model(problem, "object", noise)
    sim = run_simulation(model, Policy(name), interviews=250, extra_errors=2, seed=13)
    mc = monte_carlo(model, Policy(name), trials=250, seed=13)
    assert sim.beyond_count == 250
    assert sim.expected_queries == mc.expected_queries
    assert sim.ci95 == mc.ci95
    assert sim.accuracy_within_eps == mc.accuracy
