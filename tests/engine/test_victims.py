"""Several victims of one incident: answers kept per victim, the scene shared, evidence
pooled, implied answers never asked, and the pooled simulation."""

from __future__ import annotations

import numpy as np
import pytest

from responder.engine.evidence import EvidenceSettings
from responder.engine.incidents import draw_incident_answers, simulate_incidents
from responder.engine.interview import IncidentStepper, run_interview
from responder.engine.problem import Problem
from responder.engine.state import Answer, Implications, InterviewState

# Queries 0-3 are signs; 4 is a scene fact answered once per incident.
B = np.array(
    [
        [1, 1, 0, 0, 1],
        [1, 0, 1, 0, 0],
        [0, 1, 1, 1, 1],
        [0, 0, 0, 1, 0],
    ],
    dtype=bool,
)
SHARED = np.array([False, False, False, False, True])


def problem():
    return Problem.build(B, object_groups=[0, 0, 1, 1])


def state(**kw):
    return InterviewState(problem(), evidence=EvidenceSettings(), shared=SHARED, **kw)


def test_each_victim_keeps_their_answers_and_the_scene_is_shared():
    st = state()
    st.answer(0, Answer.YES)
    st.answer(4, Answer.YES)  # the scene: the incident's
    v = st.add_victim()
    assert v == 1 and st.current_victim == 1
    assert st.given() == {4: Answer.YES}  # the new victim sees the shared scene fact
    st.answer(0, Answer.NO)
    assert st.given(0) == {0: Answer.YES, 4: Answer.YES}
    assert st.given(1) == {4: Answer.YES, 0: Answer.NO}
    queries, values = st.pooled_answers()
    # the scene fact counts once; each victim's own answers count each
    assert sorted(zip(queries.tolist(), values.tolist())) == [(0, False), (0, True), (4, True)]


def test_the_pooled_posterior_multiplies_every_victims_likelihood():
    st = state()
    st.answer(1, Answer.YES)
    st.add_victim()
    st.answer(2, Answer.YES)
    model = st.model
    expected = np.log(model.problem.prior) + np.log(model.likelihood[:, 1])
    expected += np.log(model.likelihood[:, 2])
    w = np.exp(expected - expected.max())
    np.testing.assert_allclose(st.belief.posterior, w / w.sum(), rtol=1e-12)


def test_the_elimination_modes_read_the_victim_being_asked():
    st = InterviewState(problem(), shared=SHARED)  # strict
    st.answer(0, Answer.YES)  # victim 1: objects 0, 1 remain
    st.add_victim()
    st.answer(0, Answer.NO)  # victim 2: objects 2, 3 remain
    assert {i for c in st.candidates() for i in c.objects} == {2, 3}
    st.select_victim(0)
    assert {i for c in st.candidates() for i in c.objects} == {0, 1}


def test_set_all_answers_files_an_incident_answer_under_the_incident():
    st = state()
    st.set_all_answers([(0, 0, Answer.YES), (-1, 4, Answer.NO), (2, 1, Answer.YES)])
    assert st.n_victims == 3
    assert st.given(1) == {4: Answer.NO}
    with pytest.raises(IndexError):
        st.set_all_answers([(-1, 0, Answer.YES)])  # a sign needs a victim


def test_implied_answers_are_listed_never_asked_and_carry_no_evidence():
    rules = Implications({(0, True): ((1, Answer.NO),)})
    st = state(implications=rules)
    before = st.belief.posterior.copy()
    st.answer(0, Answer.YES)
    assert [(a.query, a.answer, a.implied) for a in st.answers] == [
        (0, Answer.YES, False),
        (1, Answer.NO, True),
    ]
    assert st.answer_of(1) is Answer.NO and st.is_implied(1)
    assert not st.useful_queries()[1]  # never suggested
    plain = state()
    plain.answer(0, Answer.YES)
    np.testing.assert_allclose(st.belief.posterior, plain.belief.posterior)  # no evidence
    assert not np.allclose(before, st.belief.posterior)
    st.answer(1, Answer.YES)  # answering it for real replaces the implication
    assert st.answer_of(1) is Answer.YES and not st.is_implied(1)


def test_the_victim_who_can_answer_the_best_question_is_named():
    st = state()
    for q in range(4):
        st.answer(q, Answer.UNKNOWN)  # the first victim can answer nothing more
    st.add_victim()
    st.select_victim(0)
    assert st.victim_to_ask() == 1
    strict = InterviewState(problem(), shared=SHARED)
    strict.add_victim()
    strict.select_victim(0)
    assert strict.victim_to_ask() == 0  # strict reads one victim


def test_the_incident_stepper_asks_the_scene_once_and_keeps_each_victim_under_the_cap():
    st = InterviewState(problem(), evidence=EvidenceSettings(threshold=0.99), shared=SHARED)
    st.add_victim()
    answers = np.array([[1, 1, 0, 0, 1], [1, 1, 0, 0, 1]], dtype=bool)
    asked, end = run_interview(
        IncidentStepper(st, per_victim=2), lambda code: bool(answers[divmod(code, 5)])
    )
    pairs = [divmod(code, 5) for code, _ in asked]
    assert len([v for v, q in pairs if q == 4]) <= 1  # the shared fact is asked once at most
    counts = np.bincount([v for v, _ in pairs], minlength=2)
    assert counts.max() <= 2 and len(pairs) == counts.sum()
    assert len(set(pairs)) == len(pairs)  # nothing asked twice of one victim
    # every answer is the asked victim's, and the posterior pools them all
    assert end.state is st
    for v, q in pairs:
        assert st.answer_of(q, v) is not None
    queries, _ = st.pooled_answers()
    assert len(queries) == sum(a is not Answer.UNKNOWN for _, a in asked)


def test_incident_answers_share_the_scene_and_follow_the_likelihood():
    model = EvidenceSettings().model(problem())
    rng = np.random.default_rng(3)
    answers = np.stack([draw_incident_answers(model, 2, 50, SHARED, rng) for _ in range(40)])
    assert (answers[:, :, 4] == answers[:, :1, 4]).all()  # one scene answer per incident
    shown = answers[:, :, :4].reshape(-1, 4).mean(axis=0)
    np.testing.assert_allclose(shown, model.likelihood[2, :4], atol=0.03)


def test_incident_victims_show_one_observation_per_category_of_alternatives():
    cats = [0, 0, 0, 1, 2]
    B2 = np.array([[1, 1, 0, 1, 1], [0, 0, 1, 0, 0], [0, 0, 0, 1, 1]], dtype=bool)
    p = Problem.build(B2, query_groups=cats, alternatives=[True, True, True, False, True])
    model = EvidenceSettings(leak=0.05).model(p)
    rng = np.random.default_rng(4)
    shared = np.array([True, True, True, False, False])
    draws = np.concatenate([draw_incident_answers(model, 0, 5, shared, rng) for _ in range(400)])
    assert (draws[:, :3].sum(axis=1) == 1).all()  # one place
    assert abs(draws[:, 2].mean() - 0.05) < 0.02  # the unlisted one with the leak's chance
    assert draws[:, 4].all()  # the only value the row lists in category 2
    none = np.concatenate([draw_incident_answers(model, 2, 5, shared, rng) for _ in range(50)])
    assert not none[:, :3].any()  # a row listing no place shows none


def _incident_states(problem_):
    settings = EvidenceSettings()
    return lambda: InterviewState(problem_, evidence=settings)


def test_more_victims_of_one_agent_find_it_more_often():
    problem_ = Problem.build(
        np.random.default_rng(0).random((30, 12)) < 0.3, object_groups=np.arange(30) % 5
    )
    one = simulate_incidents(_incident_states(problem_), 1, 300, per_victim=3, seed=1)
    three = simulate_incidents(_incident_states(problem_), 3, 300, per_victim=3, seed=1)
    assert three.top1[0] > one.top1[0] + 0.1
    assert one.questions_per_victim[0] <= 3 and three.questions_per_victim[0] <= 3
    assert three.as_dict()["victims"] == 3
