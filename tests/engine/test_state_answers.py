"""The engine keeps only the current answer to each query (times, the volunteered flag and
undo live in responder.core.answers)."""

from __future__ import annotations

import pytest

from responder.engine import Problem
from responder.engine.state import Answer, InterviewState


def _state() -> InterviewState:
    problem = Problem.build([[0, 1, 1], [1, 1, 0], [0, 1, 0], [1, 0, 0]])
    return InterviewState(problem)


def test_known_answers_splits_yes_no_from_cant_tell():
    state = _state()
    state.answer(1, Answer.YES)
    state.answer(2, Answer.UNKNOWN)
    state.answer(0, Answer.NO)
    assert state.known_answers() == ({1: True, 0: False}, [2])


def test_a_changed_answer_replaces_the_old_one_and_moves_to_the_end():
    state = _state()
    state.answer(0, Answer.YES)
    state.answer(2, Answer.NO)
    state.answer(0, Answer.NO)
    assert [(a.query, a.answer) for a in state.answers] == [(2, Answer.NO), (0, Answer.NO)]
    assert state.node.idx.tolist() == [2]


def test_set_answers_gives_the_same_state_as_answering_in_order():
    answered, restored = _state(), _state()
    pairs = [(0, Answer.YES), (2, Answer.NO), (0, Answer.NO), (1, Answer.UNKNOWN)]
    for q, a in pairs:
        answered.answer(q, a)
    restored.set_answers(pairs)
    assert restored.answers == answered.answers
    assert restored.node.idx.tolist() == answered.node.idx.tolist() == [2]
    assert restored.node.mass.tolist() == answered.node.mass.tolist()


def test_remove_forgets_the_answer_and_recomputes():
    state = _state()
    state.answer(0, Answer.YES)
    assert state.node.idx.tolist() == [1, 3]
    assert state.remove(0) is Answer.YES and state.remove(0) is None
    assert state.answers == [] and state.node.idx.tolist() == [0, 1, 2, 3]


def test_an_out_of_range_query_is_refused():
    state = _state()
    with pytest.raises(IndexError):
        state.answer(4, Answer.YES)
    with pytest.raises(IndexError):
        state.set_answers([(0, Answer.YES), (9, Answer.NO)])
    assert state.answers == []
