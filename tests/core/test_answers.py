"""The answers of an interview (responder.core.answers): replace-on-reanswer and exact undo,
shared by the interview, the incident replay and the JSON-lines protocol, kept in step with the
engine's state."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from responder.core.answers import AnswerHistory, AnswerLog
from responder.engine import Problem
from responder.engine.state import Answer, InterviewState


def test_changed_answer_moves_to_the_end_and_undo_puts_it_back():
    h = AnswerHistory(key=lambda r: r[0])
    a, b, a2 = ("q1", "yes"), ("q2", "no"), ("q1", "no")
    for r in (a, b, a2):
        h.add(r)
    assert h.records == [b, a2]
    assert h.undo() is a2
    assert h.records == [a, b]
    assert h.undo() is b and h.undo() is a and h.undo() is None


@given(st.lists(st.tuples(st.sampled_from("abc"), st.booleans()), min_size=1, max_size=12))
def test_undo_after_each_add_restores_the_previous_records(events):
    h = AnswerHistory(key=lambda r: r[0])
    for event in events:
        before = list(h.records)
        record = (event[0], event[1], object())  # distinct identity per add
        h.add(record)
        assert [r[0] for r in h.records].count(event[0]) == 1
        h.undo()
        assert h.records == before
        h.add(record)


# -- AnswerLog over an engine state --------------------------------------------------------


def _state() -> InterviewState:
    problem = Problem.build([[0, 1, 1], [1, 1, 0], [0, 1, 0], [1, 0, 0]])
    return InterviewState(problem)


@st.composite
def grouped_problems(draw):
    """A random problem with object groups (for the class target)."""
    n = draw(st.integers(1, 6))
    m = draw(st.integers(1, 7))
    matrix = draw(
        st.lists(st.lists(st.integers(0, 1), min_size=n, max_size=n), min_size=m, max_size=m)
    )
    groups = draw(st.lists(st.integers(0, 2), min_size=m, max_size=m))
    prior = draw(st.lists(st.integers(1, 20), min_size=m, max_size=m))
    return Problem.build(matrix, prior=prior, object_groups=groups)


def _snapshot(state: InterviewState):
    node = state.node
    return (
        list(state.answers),
        node.idx.tolist(),
        node.mass.tolist(),
        node.asked.tolist(),
        state.status,
        [c.objects for c in state.candidates()],
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    grouped_problems(),
    st.lists(st.tuples(st.integers(0, 5), st.sampled_from(list(Answer))), min_size=1, max_size=12),
)
def test_undo_restores_the_previous_state_exactly(problem, ops):
    """Each answer, including one that changes an earlier answer, is undone exactly: the
    engine's candidates, masses and status come back as they were."""
    state = InterviewState(problem, target="group", policy="gisa")
    log = AnswerLog(state)
    history = []
    for q, a in ops:
        q = q % problem.n_queries
        history.append(_snapshot(state))
        log.answer(q, a)
    while history:
        expected = history.pop()
        log.undo()
        assert _snapshot(state) == expected
    assert log.undo() is None


def test_undo_after_changing_an_answer_puts_the_old_answer_back():
    """Regression: undo used to drop the query altogether after an answer was changed."""
    state = _state()
    log = AnswerLog(state)
    log.answer(2, Answer.NO)
    log.answer(0, Answer.YES)
    first = list(state.answers)
    assert state.node.idx.tolist() == [1, 3]
    log.answer(0, Answer.NO)  # the responder changes their mind
    assert state.node.idx.tolist() == [2]
    undone = log.undo()
    assert undone.query == 0 and undone.answer is Answer.NO
    assert state.answers == first
    assert state.node.idx.tolist() == [1, 3]
    log.undo()
    log.undo()
    assert state.answers == [] and state.node.idx.tolist() == [0, 1, 2, 3]


def test_undo_after_restore_puts_the_changed_answer_back():
    original = AnswerLog(_state())
    original.answer(0, Answer.YES)
    original.answer(2, Answer.NO)
    original.answer(0, Answer.NO)  # changes the first answer

    resumed = AnswerLog(_state())
    resumed.restore(original.records, replaced=original.replacements())
    assert resumed.state.known_answers() == original.state.known_answers()

    resumed.undo()
    original.undo()
    assert [(r.query, r.answer) for r in resumed.records] == [(0, Answer.YES), (2, Answer.NO)]
    assert (
        resumed.state.known_answers() == original.state.known_answers() == ({0: True, 2: False}, [])
    )


def test_restore_without_memory_undo_just_drops_the_last_answer():
    original = AnswerLog(_state())
    original.answer(0, Answer.YES)
    original.answer(0, Answer.NO)
    resumed = AnswerLog(_state())
    resumed.restore(original.records)
    assert resumed.state.known_answers() == ({0: False}, [])
    resumed.undo()
    assert resumed.records == [] and resumed.state.answers == []


def test_records_keep_time_and_volunteered_flag_the_engine_does_not():
    log = AnswerLog(_state())
    record = log.answer(1, Answer.YES, volunteered=True, at=1000.0)
    assert (record.query, record.answer, record.at, record.volunteered) == (
        1,
        Answer.YES,
        1000.0,
        True,
    )
    assert log.record_of(1) is record and log.record_of(0) is None
    assert [(a.query, a.answer) for a in log.state.answers] == [(1, Answer.YES)]
    assert not hasattr(log.state.answers[0], "at") and not hasattr(
        log.state.answers[0], "volunteered"
    )


def test_a_bad_query_is_refused_and_nothing_is_kept():
    log = AnswerLog(_state())
    try:
        log.answer(7, Answer.YES)
    except IndexError:
        pass
    else:
        raise AssertionError("an out-of-range query was accepted")
    assert log.records == [] and log.state.answers == []


def test_remove_forgets_one_answer_wherever_it_is():
    log = AnswerLog(_state())
    log.answer(0, Answer.YES)
    log.answer(1, Answer.NO)
    log.answer(2, Answer.UNKNOWN)
    assert log.remove(1).answer is Answer.NO
    assert log.remove(1) is None
    assert [r.query for r in log.records] == [0, 2]
    assert log.state.known_answers() == ({0: True}, [2])
