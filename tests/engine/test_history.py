"""AnswerHistory: replace-on-reanswer and exact undo, shared by the interview and the journal."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from responder.engine.history import AnswerHistory


def test_changed_answer_moves_to_the_end_and_undo_puts_it_back():
    h = AnswerHistory(key=lambda r: r[0])
    a, b, a2 = ("q1", "yes"), ("q2", "no"), ("q1", "no")
    for r in (a, b, a2):
        h.add(r)
    assert h.records == [b, a2]
    assert h.undo() is a2
    assert h.records == [a, b]
    assert h.undo() is b and h.undo() is a and h.undo() is None


@given(st.lists(st.tuples(st.sampled_from("abc"), st.booleans()), max_size=12))
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
