"""Comparing answer modes on simulated victims."""

from __future__ import annotations

import numpy as np
import pytest

from responder.engine.compare import (
    EvidenceMode,
    FlipAnswers,
    StrictMode,
    VictimAnswers,
    Victims,
    VictimsError,
    compare_modes,
    parse_victims,
    wilson,
)
from responder.engine.evidence import AnswerModel, EvidenceModel
from responder.engine.noise import NoiseModel
from responder.engine.problem import Problem


def problem(seed=0, M=12, N=10):
    rng = np.random.default_rng(seed)
    B = rng.integers(0, 2, size=(M, N))
    B[:, 0] = np.arange(M) % 2  # at least one informative column
    return Problem.build(
        B, object_groups=[str(i % 3) for i in range(M)], query_groups=[str(j % 2) for j in range(N)]
    )


@pytest.mark.parametrize(
    "spec, kind", [("flip:0.1", "flip"), ("victim:0.7,0.05", "victim"), ("FLIP:0", "flip")]
)
def test_parse_victims(spec, kind):
    assert parse_victims(spec).kind == kind


@pytest.mark.parametrize(
    "spec", ["flip", "flip:0.7", "victim:0.1,0.5", "victim:0.7", "flip:x", "coin:0.1"]
)
def test_parse_victims_rejects(spec):
    with pytest.raises(VictimsError, match="flip:F"):
        parse_victims(spec)
    with pytest.raises(VictimsError, match="needs noise settings"):
        parse_victims("persistent")


def test_victim_draws_follow_their_rates():
    rng = np.random.default_rng(0)
    matrix = np.zeros((1, 20000), dtype=bool)
    matrix[0, :10000] = True
    flips = FlipAnswers(matrix, 0.1).draw(0, rng)
    assert abs(np.mean(~flips[:10000]) - 0.1) < 0.01 and abs(np.mean(flips[10000:]) - 0.1) < 0.01
    shown = VictimAnswers(matrix, 0.7, 0.05).draw(0, rng)
    assert abs(shown[:10000].mean() - 0.7) < 0.015 and abs(shown[10000:].mean() - 0.05) < 0.01


def test_exact_answers_every_mode_finds_the_truth():
    p = problem()
    modes = [
        StrictMode(p, "gbs"),
        EvidenceMode(EvidenceModel(p)),
        EvidenceMode(EvidenceModel(p), suggest="category", pick="any", name="cat-any"),
        EvidenceMode(EvidenceModel(p), suggest="category", pick="informed", name="cat-inf"),
    ]
    out = compare_modes(p, parse_victims("flip:0"), modes, interviews=60, seed=1)
    for summary in out:
        assert summary.top1 == 1.0 and summary.silently_wrong == 0.0
        assert summary.no_fit == 0.0  # a true victim answering exactly always fits
    strict, evidence = out[0], out[1]
    # The evidence mode needs more questions to be confident than elimination does.
    assert evidence.mean_questions >= strict.mean_questions
    # Offering only useful symptoms in a category never costs wasted questions.
    assert out[3].mean_questions <= out[2].mean_questions


def test_wrong_answers_hurt_strict_more_than_evidence():
    p = problem(3, M=20, N=16)
    modes = [StrictMode(p, "gbs"), EvidenceMode(EvidenceModel(p, AnswerModel(0.85, 0.1)))]
    strict, evidence = compare_modes(p, parse_victims("flip:0.15"), modes, interviews=300, seed=2)
    assert evidence.top5 > strict.top5
    assert evidence.silently_wrong < strict.silently_wrong


def test_same_seed_same_figures_and_intervals_cover_the_share():
    p = problem(4)
    noise = NoiseModel(1, np.ones(p.n_queries, dtype=bool))
    make = lambda: [StrictMode(p, "gbs"), StrictMode(p, "gbs", noise=noise)]  # noqa: E731
    a = compare_modes(p, Victims("persistent", noise=noise), make(), interviews=40, seed=5)
    b = compare_modes(p, Victims("persistent", noise=noise), make(), interviews=40, seed=5)
    assert [s.as_dict() for s in a] == [s.as_dict() for s in b]
    for s in a:
        assert s.top1_ci[0] <= s.top1 <= s.top1_ci[1]
        assert s.mean_questions_ci[0] <= s.mean_questions <= s.mean_questions_ci[1]


def test_median_and_90th_percentile_of_the_questions_asked():
    from responder.engine.compare import Result, summarise

    asked = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
    s = summarise("m", [Result(q, 0, True, 1.0) for q in asked])
    assert s.median_questions == 3.5
    assert s.p90_questions == pytest.approx(6.3)
    assert s.as_dict()["median_questions"] == 3.5


def test_wilson_interval():
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_an_interview_that_fits_nothing_counts_as_no_fit_not_identified():
    import dataclasses

    from responder.engine.compare import summarise
    from responder.engine.simulate import Outcome

    # Three sparse chemicals; a victim with every sign fits none of them.
    p = Problem.build(np.eye(3, 12, dtype=int) + np.eye(3, 12, k=3, dtype=int))
    mode = EvidenceMode(EvidenceModel(p))
    answers = np.ones(p.n_queries, dtype=bool)
    end = mode.model.belief(dict.fromkeys(range(p.n_queries), True))
    result = mode.result(Outcome(0, answers, p.n_queries, end, False))
    assert result.no_fit and not result.identified
    summary = summarise("x", [result, dataclasses.replace(result, no_fit=False)])
    assert summary.no_fit == 0.5 and summary.as_dict()["no_fit"]["share"] == 0.5


# --- the app's interview as the simulator's interviewer ------------------------------------


def test_victims_show_one_observation_per_category_of_alternatives():
    rng = np.random.default_rng(0)
    matrix = np.zeros((2, 8), dtype=bool)
    matrix[0, [0, 1, 4, 6, 7]] = True  # lists two of the first category, two of the last
    cats = (np.array([0, 1, 2, 3]), np.array([5, 6, 7]))
    exact = FlipAnswers(matrix, 0.0, cats)
    for _ in range(50):
        a = exact.draw(0, rng)
        assert a[:4].sum() == 1 and a[[0, 1]].any()  # one place, one the row lists
        assert a[5:].sum() == 1 and a[[6, 7]].any()
        assert a[4]  # outside the categories: the row's cell
    assert not exact.draw(1, rng).any()  # a row listing none of them shows none
    wrong = FlipAnswers(matrix, 0.5, cats)
    picks = np.array([wrong.draw(0, rng)[:4] for _ in range(2000)])
    assert (picks.sum(axis=1) == 1).all()
    assert abs(picks[:, 2:].any(axis=1).mean() - 0.5) < 0.04  # wrong half the time


def _interview_mode(p, scene=None, groups=None):
    from responder.engine.compare import InterviewMode
    from responder.engine.evidence import EvidenceSettings
    from responder.engine.state import InterviewState

    return InterviewMode(
        lambda: InterviewState(p, evidence=EvidenceSettings()), groups, scene, name="app"
    )


def test_the_app_interview_finds_exact_victims_and_matches_the_bare_model():
    p = problem()
    app = _interview_mode(p)
    bare = EvidenceMode(EvidenceModel(p, AnswerModel(0.8, 0.1)))
    a, b = compare_modes(p, parse_victims("flip:0"), [app, bare], interviews=60, seed=1)
    assert a.top1 == 1.0 and a.silently_wrong == 0.0
    # With no groups, implications or scene, the state asks what the bare model asks.
    assert a.mean_questions == b.mean_questions


def test_the_scene_step_is_answered_before_the_questions_and_not_counted():
    p = problem(5, M=16, N=12)
    scene = np.array([0, 1, 2])
    without = _interview_mode(p)
    with_scene = _interview_mode(p, scene=scene)
    made = []
    new_state = with_scene.new_state
    with_scene.new_state = lambda: made.append(new_state()) or made[-1]
    rows = p.matrix
    for true in range(p.n_objects):
        with_scene.run(rows[true], np.random.default_rng(0))
        yes = {q for q, a in made[-1].given().items() if a.value == "yes"}
        assert yes & set(scene.tolist()) == set(scene[rows[true, scene]].tolist())
    with_scene.new_state = new_state
    out = compare_modes(p, parse_victims("flip:0"), [without, with_scene], interviews=80, seed=2)
    assert out[1].mean_questions < out[0].mean_questions


def test_a_group_question_counts_once_in_the_app_interview():
    from responder.engine.state import ExclusiveGroups

    p = problem(6, M=16, N=12)
    groups = ExclusiveGroups(((0, 1, 2),), (True,))
    plain, grouped = _interview_mode(p), _interview_mode(p, groups=groups)
    a, b = compare_modes(p, parse_victims("flip:0"), [plain, grouped], interviews=80, seed=3)
    assert b.top1 == 1.0
    assert b.mean_questions < a.mean_questions  # "none of these" answers three at once


def test_the_app_interview_ranks_classes_for_the_class_target_and_keeps_no_state():
    from responder.engine.compare import InterviewEnd, InterviewMode
    from responder.engine.evidence import EvidenceSettings
    from responder.engine.state import InterviewState

    p = problem(7, M=18, N=12)
    mode = InterviewMode(lambda: InterviewState(p, target="group", evidence=EvidenceSettings()))
    (summary,) = compare_modes(p, parse_victims("flip:0"), [mode], interviews=60, seed=4)
    assert summary.top1 == 1.0  # the class is found whenever the answers are exact
    k, end = mode.run(p.matrix[3], np.random.default_rng(0))
    assert isinstance(end, InterviewEnd) and end.rank(3) == 0
    assert end.labels[3] == p.object_groups[3]
