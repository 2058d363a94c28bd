"""The interview state in evidence mode: modes, status, suggestions, candidates, notices."""

from __future__ import annotations

import numpy as np
import pytest

from responder.engine.evidence import EvidenceError, EvidenceSettings
from responder.engine.noise import NoiseModel
from responder.engine.problem import Problem
from responder.engine.state import InterviewState, Status


def problem():
    B = [
        [1, 1, 0, 0, 1],
        [1, 0, 1, 0, 0],
        [0, 1, 1, 1, 0],
        [0, 0, 0, 1, 1],
        [0, 0, 0, 1, 1],  # same row as object 3
    ]
    return Problem.build(
        B, object_groups=["a", "a", "b", "c", "c"], query_groups=["x", "x", "y", "y", "y"]
    )


def test_modes_switch_and_keep_answers():
    st = InterviewState(problem(), evidence=EvidenceSettings())
    assert st.mode == "evidence"
    st.answer(0, "yes")
    st.configure(noise=NoiseModel(1, np.ones(5, dtype=bool)))
    assert st.mode == "noise" and st.evidence is None and len(st.answers) == 1
    st.configure(noise=None)
    assert st.mode == "strict"
    st.configure(evidence=EvidenceSettings(0.9, 0.1))
    assert st.mode == "evidence" and st.noise is None
    with pytest.raises(ValueError, match="not both"):
        st.configure(noise=NoiseModel(1, np.ones(5, dtype=bool)), evidence=EvidenceSettings())


def test_evidence_keeps_a_contradicted_chemical_and_explains():
    st = InterviewState(problem(), evidence=EvidenceSettings())
    strict = InterviewState(problem())
    for s in (st, strict):
        s.answer(0, "yes")
        s.answer(1, "no")  # object 0 lists symptom 1: strict eliminates it
    assert 0 not in [o for c in strict.candidates() for o in c.objects]
    cands = st.candidates()
    assert sum(c.probability for c in cands) == pytest.approx(1.0)
    zero = next(c for c in cands if 0 in c.objects)
    assert zero.probability > 0 and zero.mismatches == 1
    assert st.answers_against(0) == [1]
    # Identical rows stay one candidate.
    assert any(c.objects == (3, 4) for c in cands)
    assert st.group_probabilities().sum() == pytest.approx(1.0)


def test_status_and_stop_reason():
    st = InterviewState(problem(), evidence=EvidenceSettings(0.95, 0.02, threshold=0.9))
    assert st.status is Status.ASKING and st.stop_reason is None
    while st.status is Status.ASKING:
        q = st.suggestion().index
        st.answer(q, "yes" if problem().matrix[2, q] else "no")
    assert st.status is Status.IDENTIFIED and st.stop_reason == "confident"
    assert st.candidates()[0].objects == (2,) and st.confidence() >= 0.9


def test_identical_rows_end_indistinguishable():
    st = InterviewState(problem(), evidence=EvidenceSettings(0.95, 0.02, threshold=0.9))
    while st.status is Status.ASKING:
        q = st.suggestion().index
        st.answer(q, "yes" if problem().matrix[3, q] else "no")
    assert st.status is Status.INDISTINGUISHABLE
    assert st.candidates()[0].objects == (3, 4)


def test_category_choice_lists_useful_symptoms_first():
    st = InterviewState(problem(), policy="gqsa", evidence=EvidenceSettings(pick="informed"))
    choice = st.suggestion()
    assert choice.kind == "category"
    useful = st.useful_queries()
    flags = [bool(useful[q]) for q in choice.queries]
    assert flags == sorted(flags, reverse=True)
    assert np.all(choice.probs[~np.array(flags)] == 0)
    assert choice.probs.sum() == pytest.approx(1.0)


def test_reported_symptoms_not_suggested_once_unconscious():
    reported = np.array([True, False, False, False, False])
    st = InterviewState(problem(), evidence=EvidenceSettings(), reported=reported, unconscious=2)
    first = st.suggestion().index
    st.answer(2, "yes")
    assert not st.available()[0]
    assert 0 not in st.suggestion().queries and not st.useful_queries()[0]
    st.remove(2)
    assert st.available()[0] and st.suggestion().index == first


def test_class_drop_notice():
    st = InterviewState(problem(), evidence=EvidenceSettings(0.95, 0.02))
    st.answer(3, "yes")
    before = st.group_probabilities()
    st.answer(1, "no")  # class b's only member lists it: b falls from 33% to 2%
    drops = st.group_drops()
    assert [g for g, _, _ in drops] == [1]
    g, b, after = drops[0]
    assert b == pytest.approx(before[1]) and after * 5 <= b
    st.answer(4, "unknown")
    assert st.group_drops() == []  # "can't tell" moves nothing


def test_expected_questions_left_with_exact_answers_is_gbs_expected_depth():
    """The Monte Carlo estimate of the questions left, run through the app's own interview,
    agrees with the exact E[K] of GBS's tree (Theorem 1) when answers are (nearly) exact and
    the prior uniform: an independent computation."""
    from responder.engine.belief import Model
    from responder.engine.evaluate import evaluate
    from responder.engine.incidents import expected_questions_left
    from responder.engine.policies import Policy

    rng = np.random.default_rng(3)
    B = np.unique(rng.integers(0, 2, size=(40, 9)), axis=0)[:14]
    p = Problem.build(B)
    exact = evaluate(Model(p), Policy("gbs"), method="exact").expected_queries
    nearly_exact = EvidenceSettings(
        sensitivity=0.9999,
        leak=0.0001,
        long_row_exponent=0.0,
        frequency_leak=0.0,
        class_borrow=0.0,
        textbook_share=0.0,
        gain_floor=0.0,
        threshold=0.99,
    )
    state = InterviewState(p, evidence=nearly_exact)
    mean, (lo, hi) = expected_questions_left(state, trials=600, seed=1)
    assert lo - 0.05 <= exact <= hi + 0.05 and abs(mean - exact) < 0.3
    assert state.answers == []  # the trials ran on forks


def test_bad_settings():
    with pytest.raises(EvidenceError, match="strictly between 0.5 and 1"):
        EvidenceSettings(threshold=0.4)
    with pytest.raises(EvidenceError, match="choose one of any, informed"):
        EvidenceSettings(pick="lazy")


def test_an_observable_sign_comes_first_when_its_gain_is_close():
    """Evidence mode prefers quickly observed signs when gains are close. The gains below
    are those of one sensitivity for every row (no long-row discount)."""
    base = InterviewState(problem(), evidence=EvidenceSettings(long_row_exponent=0.0))
    sug = base.belief.suggest_symptom()
    gains = dict(zip(sug.queries.tolist(), sug.gains.tolist()))
    # Queries 0, 1, 2 tie for the largest gain; 3 is about 2.5% below them.
    assert gains[0] == gains[1] == gains[2] > gains[3] > 0.97 * gains[0]
    assert base.suggestion().index == 0
    reported = np.array([True, True, True, False, False])  # 0-2 need a conscious victim
    close = InterviewState(
        problem(),
        evidence=EvidenceSettings(long_row_exponent=0.0),
        reported=reported,
        observed_margin=0.03,
    )
    assert close.suggestion().index == 3
    far = InterviewState(
        problem(),
        evidence=EvidenceSettings(long_row_exponent=0.0),
        reported=reported,
        observed_margin=0.02,
    )
    assert far.suggestion().index == 0
    off = InterviewState(
        problem(), evidence=EvidenceSettings(long_row_exponent=0.0), reported=reported
    )
    assert off.suggestion().index == 0  # margin 0: the gain alone decides
    # An observable best stays first whatever the margin.
    only_first_observed = np.array([False, True, True, True, True])
    same = InterviewState(
        problem(),
        evidence=EvidenceSettings(long_row_exponent=0.0),
        reported=only_first_observed,
        observed_margin=0.5,
    )
    assert same.suggestion().index == 0
    with pytest.raises(ValueError, match="observed_margin"):
        InterviewState(problem(), evidence=EvidenceSettings(), observed_margin=1.0)


def test_strict_mode_ignores_the_observed_preference():
    """The paper's strict policies stay exact: the preference is the evidence mode's."""
    reported = np.ones(5, dtype=bool)
    reported[4] = False
    plain = InterviewState(problem())
    marked = InterviewState(problem(), reported=reported, observed_margin=0.5)
    assert marked.suggestion().index == plain.suggestion().index


def test_interviews_of_one_problem_under_equal_settings_share_one_model():
    """Building the model is most of a new interview's cost: states of one problem under
    equal settings share it; another problem, target or setting gets its own, and only the
    latest few are kept."""
    from responder.engine.evidence import _RECENT_MODELS, RECENT_MODELS_KEPT

    p = problem()
    first = InterviewState(p, evidence=EvidenceSettings())
    second = InterviewState(p, evidence=EvidenceSettings())
    assert second.model is first.model
    first.answer(0, "yes")  # answers live in the state, never in the shared model
    assert second.belief.posterior.tolist() == second.model.root().posterior.tolist()
    assert InterviewState(problem(), evidence=EvidenceSettings()).model is not first.model
    assert InterviewState(p, "group", evidence=EvidenceSettings()).model is not first.model
    other = InterviewState(p, evidence=EvidenceSettings(threshold=0.99))
    assert other.model is not first.model and other.model.threshold == 0.99
    for _ in range(RECENT_MODELS_KEPT + 2):
        InterviewState(problem(), evidence=EvidenceSettings())
    assert len(_RECENT_MODELS) == RECENT_MODELS_KEPT


def test_a_fork_answers_alone_and_a_pickled_state_keeps_its_answers_not_its_view():
    import pickle

    st = InterviewState(problem(), evidence=EvidenceSettings())
    st.answer(0, "yes")
    before = st.object_probabilities().copy()
    twin = st.fork()
    assert twin.model is st.model and twin.view() is st.view()  # shared until it answers
    twin.answer(1, "no")
    twin.add_victim()
    assert [(a.query, a.answer.value) for a in st.answers] == [(0, "yes")]
    assert st.n_victims == 1 and np.array_equal(st.object_probabilities(), before)
    st.answer(2, "yes")
    assert twin.answer_of(2, 0) is None
    copy = pickle.loads(pickle.dumps(st))
    assert copy._view_cache is None
    assert [(a.query, a.answer) for a in copy.answers] == [(a.query, a.answer) for a in st.answers]
    np.testing.assert_allclose(copy.object_probabilities(), st.object_probabilities())
