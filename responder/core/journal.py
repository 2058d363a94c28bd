"""Append-only interview journals: one JSON-lines file per interview under
:func:`responder.paths.journal_dir`.

Every event is one line, written, flushed and fsync'd before the app shows its effect, so a
crash, a kill or a pulled battery loses no answer already given. Events::

    {"event": "start", "id": ..., "at": ..., "kb": {...}, "config": {...}, "version": 1}
    {"event": "answer", "symptom": "cough", "answer": "yes", "at": ..., "volunteered": false}
    {"event": "undo", "symptom": "cough", "at": ...}          # the last answer taken back
    {"event": "remove", "symptom": "cough", "at": ...}        # removed in the history
    {"event": "config", "config": {...}, "at": ...}           # target / suggestion / noise
    {"event": "end", "reason": "new" | "completed" | "set-aside", "at": ...}

Replay follows the engine: an answer to a symptom already answered replaces the old one and
moves to the end; ``undo`` takes back the last answer and, if it had replaced an earlier
answer, puts that one back where it was.

An interview without an ``end`` event is unfinished and is offered for resume at start-up.
Answers are stored by symptom id, not column number, so a journal still reads after the
knowledge base gains symptoms. A torn last line (the process died mid-write) is ignored.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from responder import paths
from responder.engine.history import AnswerHistory

FORMAT_VERSION = 1
SUFFIX = ".jsonl"


class JournalError(OSError):
    """The journal cannot be written (disk full, folder not writable)."""


@dataclass
class JournalAnswer:
    symptom: str
    answer: str
    at: float
    volunteered: bool = False


@dataclass
class JournalData:
    """What a journal file holds, replayed."""

    path: Path
    id: str
    started: float
    kb: dict
    config: dict
    answers: list[JournalAnswer] = field(default_factory=list)
    # (new answer, position, answer it replaced), so undo can put the old one back
    replaced: list[tuple[JournalAnswer, int, JournalAnswer]] = field(default_factory=list)
    finished: bool = False
    end_reason: str | None = None
    last_at: float = 0.0
    torn_lines: int = 0

    @property
    def started_text(self) -> str:
        return datetime.fromtimestamp(self.started).strftime("%Y-%m-%d %H:%M")


def new_interview_id(at: float) -> str:
    """``YYYYmmdd-HHMMSS-xxxxxx``: sortable, readable, unique."""
    return datetime.fromtimestamp(at).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


class Journal:
    """An open journal, appended to event by event."""

    def __init__(self, path: Path, interview_id: str):
        self.path = path
        self.id = interview_id

    @classmethod
    def create(cls, kb: dict, config: dict, directory: Path | None = None,
               interview_id: str | None = None, started: float | None = None) -> "Journal":
        """Start a new journal file with its ``start`` event."""
        directory = directory or paths.journal_dir()
        now = time.time() if started is None else started
        interview_id = interview_id or new_interview_id(now)
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"cannot create the journal folder {directory}: {exc.strerror}") from None
        journal = cls(directory / f"{interview_id}{SUFFIX}", interview_id)
        journal.append({"event": "start", "id": interview_id, "at": now, "kb": kb,
                        "config": config, "version": FORMAT_VERSION})
        _fsync_dir(directory)
        return journal

    @classmethod
    def reopen(cls, data: JournalData) -> "Journal":
        return cls(data.path, data.id)

    def append(self, event: dict) -> None:
        """Write one event as a line, flush and fsync it.

        Raises
        ------
        JournalError
        """
        event.setdefault("at", time.time())
        line = json.dumps(event, ensure_ascii=False, allow_nan=False) + "\n"
        try:
            with open(self.path, "a", encoding="utf-8") as fh:
                # A torn earlier line would glue onto this one: start on a fresh line.
                if fh.tell() > 0 and not _ends_with_newline(self.path):
                    fh.write("\n")
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise JournalError(f"cannot write the journal {self.path}: {exc.strerror or exc}") from None

    def answer(self, symptom: str, answer: str, at: float, volunteered: bool) -> None:
        self.append({"event": "answer", "symptom": symptom, "answer": answer, "at": at,
                     "volunteered": volunteered})

    def remove(self, symptom: str) -> None:
        self.append({"event": "remove", "symptom": symptom})

    def undo(self, symptom: str) -> None:
        self.append({"event": "undo", "symptom": symptom})

    def config(self, config: dict) -> None:
        self.append({"event": "config", "config": config})

    def end(self, reason: str) -> None:
        self.append({"event": "end", "reason": reason})


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_journal(path: Path) -> JournalData | None:
    """Replay a journal file; None if it has no readable ``start`` event."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    data: JournalData | None = None
    # The same replace-and-undo rules as the live interview (responder.engine.history).
    history: AnswerHistory[JournalAnswer] = AnswerHistory(key=lambda a: a.symptom)
    torn = 0
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            event = json.loads(raw)
        except json.JSONDecodeError:
            torn += 1
            continue
        if not isinstance(event, dict):
            torn += 1
            continue
        kind = event.get("event")
        at = event.get("at") if isinstance(event.get("at"), (int, float)) else 0.0
        if kind == "start":
            if data is None:
                data = JournalData(path, str(event.get("id") or path.stem), float(at or 0.0),
                                   dict(event.get("kb") or {}), dict(event.get("config") or {}))
                data.last_at = data.started
            continue
        if data is None:
            continue
        data.last_at = max(data.last_at, float(at or 0.0))
        if kind == "answer" and isinstance(event.get("symptom"), str) and \
                event.get("answer") in ("yes", "no", "unknown"):
            history.add(JournalAnswer(event["symptom"], event["answer"], float(at),
                                      bool(event.get("volunteered", False))))
        elif kind == "undo":
            history.undo()
        elif kind == "remove" and isinstance(event.get("symptom"), str):
            history.remove(event["symptom"])
        elif kind == "config" and isinstance(event.get("config"), dict):
            data.config = {**data.config, **event["config"]}
        elif kind == "end":
            data.finished = True
            data.end_reason = str(event.get("reason") or "")
        else:
            torn += 1
    if data is not None:
        data.torn_lines = torn
        data.answers, data.replaced = history.records, history.replaced
    return data


def list_journals(directory: Path | None = None) -> list[JournalData]:
    """Every readable journal, newest first."""
    directory = directory or paths.journal_dir()
    if not directory.is_dir():
        return []
    out = []
    for path in directory.glob(f"*{SUFFIX}"):
        data = read_journal(path)
        if data is not None:
            out.append(data)
    out.sort(key=lambda d: (d.last_at, d.started), reverse=True)
    return out


def _ended(path: Path) -> bool:
    """Whether the file's last line is an ``end`` event (read from the tail only, so that
    start-up stays fast however many finished interviews have piled up)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 512))
            tail = fh.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        return json.loads(tail).get("event") == "end"
    except (OSError, ValueError, AttributeError):
        return False


def unfinished(directory: Path | None = None) -> list[JournalData]:
    """Interviews with no ``end`` event, newest first (those with no answer are skipped:
    nothing would be lost by starting afresh)."""
    directory = directory or paths.journal_dir()
    if not directory.is_dir():
        return []
    out = []
    for path in directory.glob(f"*{SUFFIX}"):
        if _ended(path):
            continue
        data = read_journal(path)
        if data is not None and not data.finished and data.answers:
            out.append(data)
    out.sort(key=lambda d: (d.last_at, d.started), reverse=True)
    return out
