"""The textbook presentation: a mixture over how the victim presents (evidence mode).

Each chemical's likelihood is (1 - w) P_field(answers | i) + w P_textbook(answers | i); the
checks below write that mixture, its presentation weights and its information gains out by
enumeration, independently of the engine's vectorised form.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joint_tables import add_answers, information

from responder.engine.evidence import AnswerModel, EvidenceError, EvidenceModel, EvidenceSettings
from responder.engine.problem import Problem

FIELD = AnswerModel(0.8, 0.1, None, 0.25, class_borrow=0.4)
TEXTBOOK = AnswerModel(0.97, 0.01, None, 0.0)


def graded_problem(seed: int, M: int = 8, N: int = 7) -> Problem:
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 4, size=(M, N))
    return Problem.build(
        grades > 0,
        prior=rng.integers(1, 5, size=M),
        object_groups=[str(g) for g in rng.integers(0, 3, M)],
        query_groups=[str(c) for c in rng.integers(0, 2, N)],
        grades=grades,
    )


def written_out(problem, share, known):
    """P(i, presentation | answers) by explicit products, shape (2, M)."""
    joint = []
    for weight, model in ((1 - share, FIELD), (share, TEXTBOOK)):
        L = model.likelihood(problem)
        p = weight * problem.prior.astype(float)
        for q, yes in known.items():
            p = p * (L[:, q] if yes else 1 - L[:, q])
        joint.append(p)
    joint = np.array(joint)
    return joint / joint.sum()


def enumerated_gain(problem, joint, labels, q):
    """I(label; Y_q) from the joint table over (object, presentation, answer)."""
    table = {}
    for k, model in enumerate((FIELD, TEXTBOOK)):
        L = model.likelihood(problem)
        for i in range(problem.n_objects):
            add_answers(table, labels[i], joint[k, i], L[i, q])
    return information(table)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    share=st.sampled_from([0.1, 0.5, 0.9]),
    target=st.sampled_from(["object", "group"]),
    n_answers=st.integers(0, 4),
)
def test_posterior_presentations_and_gains_are_the_written_out_mixture(
    seed, share, target, n_answers
):
    problem = graded_problem(seed)
    model = EvidenceModel(problem, FIELD, target=target, textbook=(share, TEXTBOOK))
    rng = np.random.default_rng(seed)
    known = {int(q): bool(rng.integers(0, 2)) for q in rng.permutation(7)[:n_answers]}
    belief = model.belief(known)
    joint = written_out(problem, share, known)
    np.testing.assert_allclose(belief.posterior, joint.sum(axis=0), rtol=1e-9)
    np.testing.assert_allclose(belief.presentation, joint / joint.sum(axis=0), rtol=1e-9)
    labels = problem.object_groups if target == "group" else np.arange(problem.n_objects)
    for q in range(problem.n_queries):
        expected = 0.0 if q in known else enumerated_gain(problem, joint, labels, q)
        assert belief.gains()[q] == pytest.approx(expected, abs=1e-9)
    predicted = [
        sum(
            joint[k, i] * m.likelihood(problem)[i, q]
            for k, m in enumerate((FIELD, TEXTBOOK))
            for i in range(8)
        )
        for q in range(problem.n_queries)
    ]
    np.testing.assert_allclose(belief.yes_probability(), predicted, rtol=1e-9)


def test_a_share_of_zero_is_the_field_model_alone():
    problem = graded_problem(1)
    alone = EvidenceModel(problem, FIELD)
    off = EvidenceModel(problem, FIELD, textbook=(0.0, TEXTBOOK))
    assert off.components is None and off.textbook_share == 0.0
    known = {0: True, 3: False}
    a, b = alone.belief(known), off.belief(known)
    np.testing.assert_array_equal(a.posterior, b.posterior)
    np.testing.assert_array_equal(a.gains(), b.gains())
    assert EvidenceSettings().textbook_model() is None  # the engine's default: off


def test_exact_answers_ignore_the_textbook_presentation():
    problem = graded_problem(2)
    model = EvidenceModel(problem, AnswerModel.exact(), textbook=(0.5, TEXTBOOK))
    assert model.components is None
    assert model.belief({0: True}).presentation is None


def test_answers_that_fit_a_row_favour_the_textbook_presentation_and_a_contradiction_undoes_it():
    problem = graded_problem(3)
    model = EvidenceModel(problem, FIELD, textbook=(0.5, TEXTBOOK))
    B = problem.matrix
    i = next(i for i in range(problem.n_objects) if 3 <= B[i].sum() < problem.n_queries)
    unlisted = int(np.flatnonzero(~B[i])[0])
    fitting = {q: bool(B[i, q]) for q in range(problem.n_queries) if q != unlisted}
    before = model.belief(fitting).presentation[:, i]
    assert before[1] > 0.5
    after = model.belief({**fitting, unlisted: True}).presentation[:, i]
    # Bayes on the presentation: its odds move by the answer's likelihood ratio, here
    # the textbook leak against the field model's chance of the unlisted sign.
    ratio = TEXTBOOK.likelihood(problem)[i, unlisted] / FIELD.likelihood(problem)[i, unlisted]
    assert ratio < 0.2
    assert after[1] / after[0] == pytest.approx(before[1] / before[0] * ratio, rel=1e-9)
    assert after[1] < before[1] / 4


def test_a_victim_who_shows_the_row_is_identified_in_fewer_questions():
    """Simulated victims who answer from their chemical's row, no errors: the mixture
    reaches the threshold sooner, and never on a wrong chemical here."""
    from responder.engine.interview import BeliefStepper, run_interview

    rng = np.random.default_rng(0)
    M, N = 40, 30
    B = rng.random((M, N)) < 0.3
    problem = Problem.build(B, prior=np.ones(M))
    counts = {}
    for share in (0.0, 0.5):
        model = EvidenceModel(problem, FIELD, threshold=0.98, textbook=(share, TEXTBOOK))
        asked_total = 0
        for true in range(M):
            start = BeliefStepper.root(model)
            asked, end = run_interview(start, lambda q, t=true: bool(B[t, q]), rng)
            asked_total += len(asked)
            order, _ = end.belief.candidate_probabilities()
            assert true in end.belief.members(order[0])
        counts[share] = asked_total / M
    assert counts[0.5] < counts[0.0] - 1.0


@pytest.mark.parametrize(
    "kwargs, field, words",
    [
        ({"textbook_share": 1.0}, "textbook_share", "textbook share is 1.0"),
        ({"textbook_share": -0.1}, "textbook_share", "textbook share is -0.1"),
        ({"textbook_share": "half"}, "textbook_share", "textbook share must be a number"),
        ({"textbook_leak": 0.99}, "textbook_leak", "textbook leak (0.99) must be below"),
        ({"textbook_sensitivity": 1.0}, "textbook_sensitivity", "textbook sensitivity is 1.0"),
    ],
)
def test_textbook_settings_are_validated_with_the_rest(kwargs, field, words):
    with pytest.raises(EvidenceError) as err:
        EvidenceSettings(**kwargs)
    assert err.value.field == field and words in str(err.value)


def _log_mixture(problem, share, known, i):
    """log of (1 - w) P_field(answers | i) + w P_textbook(answers | i), written out."""
    total = 0.0
    for weight, model in ((1 - share, FIELD), (share, TEXTBOOK)):
        L = model.likelihood(problem)
        p = weight
        for q, yes in known.items():
            p *= L[i, q] if yes else 1 - L[i, q]
        total += p
    return np.log(total)


@pytest.mark.parametrize("share", [0.0, 0.5])
def test_each_answer_is_weighed_as_the_posterior_weighs_it(share):
    """An answer's weight for a chemical is what leaving it out would take from its log
    likelihood; with independent answers (no textbook presentation), log P(answer | i)."""
    problem = graded_problem(4)
    model = EvidenceModel(problem, FIELD, textbook=(share, TEXTBOOK))
    known = {0: True, 2: False, 3: True, 5: True}
    belief = model.belief(known)
    objects = [1, 4, 6]
    weights = belief.answer_weights(objects)
    assert weights.shape == (3, len(known))
    order = belief.queries.tolist()
    for row, i in enumerate(objects):
        for q, yes in known.items():
            rest = {k: v for k, v in known.items() if k != q}
            expected = _log_mixture(problem, share, known, i) - _log_mixture(
                problem, share, rest, i
            )
            assert weights[row, order.index(q)] == pytest.approx(expected, abs=1e-12)
            if share == 0.0:
                p = FIELD.likelihood(problem)[i, q]
                assert expected == pytest.approx(np.log(p if yes else 1 - p), abs=1e-12)
