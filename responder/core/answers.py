"""The answers of one interview as the responder gave them: in order, each with its time and
whether it was volunteered, with exact undo of a changed answer.

These are session concerns, so they live here and not in the engine: the engine's
:class:`~responder.engine.state.InterviewState` only needs the current answer to each symptom
(:meth:`~responder.engine.state.InterviewState.set_answers`). One :class:`AnswerHistory` rule
(a new answer to a question replaces the old one; undo puts a replaced answer back where it
was) serves the live interview (:class:`AnswerLog`), the incident replay and the JSON-lines
protocol, so all three agree on what a sequence of events means.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from responder.engine.state import Answer, InterviewState

R = TypeVar("R")


class AnswerHistory(Generic[R]):
    """Records in answer order, at most one per key.

    Parameters
    ----------
    key : callable
        The question a record answers (e.g. ``lambda r: r.query``).
    """

    def __init__(self, key: Callable[[R], Hashable]):
        self.key = key
        self.records: list[R] = []
        self.replaced: list[tuple[R, int, R]] = []

    def add(self, record: R) -> None:
        """Append ``record``; an earlier record for the same key is removed and remembered."""
        k = self.key(record)
        for pos, old in enumerate(self.records):
            if self.key(old) == k:
                del self.records[pos]
                self.replaced.append((record, pos, old))
                break
        self.records.append(record)

    def undo(self) -> R | None:
        """Remove the last record (None if empty); a record it replaced comes back."""
        if not self.records:
            return None
        last = self.records.pop()
        for i in range(len(self.replaced) - 1, -1, -1):
            new, pos, old = self.replaced[i]
            if new is last:
                del self.replaced[i]
                self.records.insert(pos, old)
                break
        return last

    def remove(self, key: Hashable) -> R | None:
        """Remove the record for ``key`` wherever it is; returns it (None if absent)."""
        for pos, r in enumerate(self.records):
            if self.key(r) == key:
                del self.records[pos]
                return r
        return None

    def restore(self, records: list[R], replaced: list[tuple[R, int, R]] | None = None) -> None:
        """Replace everything; replacement entries whose new record is absent are dropped."""
        self.records = list(records)
        present = {id(r) for r in self.records}
        self.replaced = [e for e in (replaced or []) if id(e[0]) in present]


@dataclass(frozen=True)
class AnswerRecord:
    """One answer as given: symptom (query index), answer, when, whether the responder
    volunteered it (entered it unasked) rather than answering the suggestion, and for which
    victim (0 for the first; a query answered once per incident is the incident's, whoever
    it was entered for)."""

    query: int
    answer: Answer
    at: float = field(default_factory=time.time)
    volunteered: bool = False
    victim: int = 0


class AnswerLog:
    """The answers of one interview, kept in step with its engine state.

    Parameters
    ----------
    state : InterviewState
        Receives the current answer to each symptom after every change.
    """

    def __init__(self, state: InterviewState):
        self.state = state
        self._history: AnswerHistory[AnswerRecord] = AnswerHistory(key=self.key)

    def key(self, record: AnswerRecord) -> tuple[int, int]:
        """The question a record answers: (victim, query), or (-1, query) for a query
        answered once per incident."""
        return (-1 if self.state.is_shared(record.query) else record.victim, record.query)

    @property
    def records(self) -> list[AnswerRecord]:
        """The answers in the order given (a changed answer moves to the end)."""
        return self._history.records

    @property
    def changed(self) -> list[tuple[AnswerRecord, AnswerRecord]]:
        """(current answer, the earlier answer it replaced), for answers that were changed."""
        return [(new, old) for new, _, old in self._history.replaced]

    def replacements(self) -> list[tuple[AnswerRecord, int, AnswerRecord]]:
        """(new record, position, record it replaced) for each changed answer, oldest first."""
        return list(self._history.replaced)

    def record_of(self, query: int, victim: int | None = None) -> AnswerRecord | None:
        """The answer given to ``query`` for ``victim`` (default: the current one), with its
        time and volunteered flag, or None."""
        v = self.state.current_victim if victim is None else victim
        key = self.key(AnswerRecord(query, Answer.UNKNOWN, 0.0, False, v))
        return next((r for r in self._history.records if self.key(r) == key), None)

    def answer(
        self,
        query: int,
        answer: Answer | str,
        volunteered: bool = False,
        at: float | None = None,
        victim: int | None = None,
    ) -> AnswerRecord:
        """Record ``answer`` to ``query`` for ``victim`` (default: the current one); an
        earlier answer to the same question is replaced.

        Raises
        ------
        IndexError
            ``query`` is not a symptom of the problem, or ``victim`` does not exist
            (nothing is recorded).
        """
        answer = Answer(answer)
        v = self.state.current_victim if victim is None else victim
        self.state.answer(query, answer, victim=v)  # checks both before anything is kept
        record = AnswerRecord(query, answer, time.time() if at is None else at, volunteered, v)
        self._history.add(record)
        return record

    def undo(self) -> AnswerRecord | None:
        """Remove the last answer; returns it (None if there was none).

        If that answer changed an earlier answer to the same query, the earlier answer is
        put back where it was, so undo restores the previous state exactly.
        """
        record = self._history.undo()
        if record is not None:
            self._sync()
        return record

    def remove(self, query: int, victim: int | None = None) -> AnswerRecord | None:
        """Remove the answer to ``query`` (for ``victim``, default the current one) wherever
        it is in the history."""
        v = self.state.current_victim if victim is None else victim
        record = self._history.remove(self.key(AnswerRecord(query, Answer.UNKNOWN, 0.0, False, v)))
        if record is not None:
            self._sync()
        return record

    def restore(
        self,
        records: list[AnswerRecord],
        replaced: list[tuple[AnswerRecord, int, AnswerRecord]] | None = None,
    ) -> None:
        """Replace the whole history (resume a stored incident).

        ``replaced`` lists (new record, position, record it replaced) for answers that changed
        an earlier one, as :meth:`replacements` gives them, so that undo after a resume puts
        the earlier answer back. Entries whose new record is not in ``records`` are dropped.
        """
        self.state.set_all_answers([(r.victim, r.query, r.answer) for r in records])
        self._history.restore(records, replaced)

    def _sync(self) -> None:
        self.state.set_all_answers([(r.victim, r.query, r.answer) for r in self._history.records])
