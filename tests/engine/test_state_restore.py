"""Resuming an interview: restore() with the replacement memory keeps undo exact."""

from __future__ import annotations

from responder.engine import Problem
from responder.engine.state import Answer, InterviewState


def _state() -> InterviewState:
    problem = Problem.build([[0, 1, 1], [1, 1, 0], [0, 1, 0], [1, 0, 0]])
    return InterviewState(problem)


def test_undo_after_restore_puts_the_changed_answer_back():
    original = _state()
    original.answer(0, Answer.YES)
    original.answer(2, Answer.NO)
    original.answer(0, Answer.NO)  # changes the first answer

    resumed = _state()
    resumed.restore(original.answers, replaced=original.replacements())
    assert resumed.known_answers() == original.known_answers()

    resumed.undo()
    original.undo()
    assert [(r.query, r.answer) for r in resumed.answers] == [(0, Answer.YES), (2, Answer.NO)]
    assert resumed.known_answers() == original.known_answers()


def test_restore_without_memory_undo_just_drops_the_last_answer():
    original = _state()
    original.answer(0, Answer.YES)
    original.answer(0, Answer.NO)
    resumed = _state()
    resumed.restore(original.answers)
    resumed.undo()
    assert resumed.answers == []


def test_known_answers_splits_yes_no_from_cant_tell():
    state = _state()
    state.answer(1, Answer.YES)
    state.answer(2, Answer.UNKNOWN)
    state.answer(0, Answer.NO)
    assert state.known_answers() == ({1: True, 0: False}, [2])
