"""An ordered answer history in which a new answer to a question replaces the old one, and
undo puts a replaced answer back where it was.

Used by the interview state (records keyed by query index) and by the journal replay
(records keyed by symptom id), so both agree on what a sequence of events means.
"""

from __future__ import annotations

from typing import Callable, Generic, Hashable, TypeVar

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
