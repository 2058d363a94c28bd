"""Import of the interview journals earlier versions kept: one JSON-lines file per interview
in :func:`responder.paths.journal_dir`, one event per line::

    {"event": "start", "id": ..., "at": ..., "kb": {...}, "config": {...}, "version": 1}
    {"event": "answer", "symptom": "cough", "answer": "yes", "at": ..., "volunteered": false,
     "victim": 1}
    {"event": "undo" | "remove", "symptom": "cough", "at": ...}
    {"event": "victim", "index": 1, "name": "driver", "at": ...}
    {"event": "config", "config": {...}, "at": ...}     # merged into the settings so far
    {"event": "noted", "lines": [5, 9], "at": ...}      # damaged lines already reported
    {"event": "end", "reason": "new" | "completed" | "set-aside", "at": ...}

On first use of the incident database every journal becomes an incident with its victims,
answers, undo history, settings and end state, event for event (so replay gives the same
answers, and undo after a resume puts a changed answer back), and the file moves to
``journal/imported/``, never deleted. A damaged line is skipped and reported (the readable
events are imported); a file that is not a journal at all is moved to ``journal/damaged/``;
a journal of a newer format, or one still open in an older responder window, is left where
it is.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from dataclasses import dataclass, field
from pathlib import Path

from responder.core.counted import counted
from responder.core.store import (
    ANSWERS,
    Database,
    Event,
    _dumps,
    _insert_event,
    _rollback,
    _timestamp,
    new_incident_id,
)
from responder.durable import fsync_dir
from responder.input_limits import InputRejected, decode_text, loads_json, read_bytes

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows)
    fcntl = None

FORMAT_VERSION = 1
SUFFIX = ".jsonl"
IMPORTED_DIR = "imported"
DAMAGED_DIR = "damaged"
#: Ids that can name an export file as they are (no separator, no control character).
SAFE_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,79}")
#: Victims a journal could hold; a larger index in one is damage.
MAX_VICTIMS = 1000


class JournalUnreadable(ValueError):
    """The file cannot be read as a journal at all; the message says why."""


@dataclass
class Journal:
    """What a journal file holds: its start and its readable events, in order."""

    path: Path
    id: str
    started: float
    kb: dict
    config: dict
    events: list[Event] = field(default_factory=list)
    #: "line N: problem" for each line that could not be used
    problems: list[str] = field(default_factory=list)
    version: int = FORMAT_VERSION

    @property
    def answers(self) -> int:
        return sum(e.kind == "answer" for e in self.events)


def _victim_index(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value < MAX_VICTIMS:
        return None
    return value


def _text(value, limit: int = 200) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= limit else None


def _config_problem(config: dict) -> str | None:
    noise = config.get("noise")
    if noise is not None and not isinstance(noise, dict):
        return "`noise` is not an object"
    return None


def _start(event: dict, path: Path, at: float, bad) -> Journal:
    kb, config = event.get("kb", {}), event.get("config", {})
    wrong = [k for k, v in (("kb", kb), ("config", config)) if not isinstance(v, dict)]
    if wrong:
        bad(f"`{'` and `'.join(wrong)}` not an object; used without it")
    kb = kb if isinstance(kb, dict) else {}
    config = config if isinstance(config, dict) else {}
    if _config_problem(config):
        bad(_config_problem(config) + "; noise settings not used")
        config = {k: v for k, v in config.items() if k != "noise"}
    return Journal(path, _text(event.get("id")) or path.stem, at, kb, config)


def read_journal(path: Path) -> Journal | None:
    """The readable events of a journal file, damaged lines listed in ``problems``.

    Returns None if it holds no event at all (an empty file).

    Raises
    ------
    JournalUnreadable
        Not a regular file, too big, not text, or no line of it is a journal event.
    """
    try:
        raw = read_bytes(path, "journal")
    except InputRejected as exc:
        raise JournalUnreadable(str(exc)) from None
    if b"\0" in raw:
        raise JournalUnreadable(f"{path}: holds NUL bytes, so it is not a journal")
    journal: Journal | None = None
    problems: list[str] = []
    last_at = 0.0
    config: dict = {}
    line_count = raw.count(b"\n") + 1
    n = 0

    def bad(problem: str) -> None:
        problems.append(f"line {n}: {problem}")

    for n, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            event = loads_json(decode_text(line, str(path), "journal"), f"{path}:{n}")
        except InputRejected as exc:
            torn = exc.kind == "syntax" and n == line_count
            bad(
                "the last line is cut off (the app stopped mid-write)"
                if torn
                else f"unreadable: {exc.problem}"
            )
            continue
        if not isinstance(event, dict) or not isinstance(event.get("event"), str):
            bad('not a journal event (no "event" name)')
            continue
        kind = event["event"]
        at = _timestamp(event.get("at", last_at))
        if at is None:
            bad(
                f"the time {str(event.get('at'))[:30]} is out of range; the event is used "
                "with the previous time"
            )
            at = last_at
        last_at = max(last_at, at)
        if kind == "start":
            version = event.get("version", FORMAT_VERSION)
            if not isinstance(version, int) or isinstance(version, bool) or version < 1:
                bad(f"the format version {str(version)[:20]} is not a version number")
            elif version > FORMAT_VERSION:
                return Journal(path, path.stem, 0.0, {}, {}, version=version)
            if journal is not None:
                bad("a second start event; ignored")
                continue
            journal = _start(event, path, at, bad)
            config = dict(journal.config)
            continue
        if journal is None:  # answers before (or without) a readable start: still imported
            journal = Journal(path, path.stem, at, {}, {})
            bad("no readable start line before this one; the interview's settings are the defaults")
        if kind == "config" and isinstance(event.get("config"), dict):
            if _config_problem(event["config"]):
                bad(_config_problem(event["config"]) + "; ignored")
                continue
            config = {**config, **event["config"]}
            journal.events.append(Event("config", at, detail=_dumps(config)))
            continue
        added = _event(kind, event, at, bad)
        if added is not None:
            journal.events.append(added)
    if journal is None:
        if problems:
            raise JournalUnreadable(f"{path}: no line of it is a journal event")
        return None
    journal.problems = problems
    return journal


def _event(kind: str, event: dict, at: float, bad) -> Event | None:
    """The store's event for one journal line (None for a line that adds nothing)."""
    if kind == "answer":
        symptom, answer = _text(event.get("symptom")), event.get("answer")
        if symptom is None or answer not in ANSWERS:
            bad(
                "an answer without a symptom id or with an answer other than yes/no/unknown; skipped"
            )
            return None
        victim = _victim_index(event.get("victim", 0))
        if victim is None:
            bad("an answer for a victim number that is not a small whole number; skipped")
            return None
        return Event("answer", at, victim, symptom, answer, event.get("volunteered") is True)
    if kind == "undo":
        return Event("undo", at, symptom=_text(event.get("symptom")))
    if kind == "remove":
        symptom, victim = _text(event.get("symptom")), _victim_index(event.get("victim", 0))
        return None if symptom is None or victim is None else Event("remove", at, victim, symptom)
    if kind == "victim":
        index = _victim_index(event.get("index"))
        if index is None or index < 1:
            bad("a victim without a number from 2 on; skipped")
            return None
        return Event("victim", at, index, detail=_text(event.get("name"), 60) or "")
    if kind == "noted":
        return None  # a report made by the app that wrote it; reported again here
    if kind == "end":
        return Event("end", at, detail=str(event.get("reason") or "")[:40])
    bad(f"an unknown or malformed {kind[:20]!r} event; skipped")
    return None


# -- into the database ---------------------------------------------------------------------


def _journal_files(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.iterdir() if p.name.endswith(SUFFIX))
    except OSError:
        return []


def _regular(path: Path) -> bool:
    """A regular file (opening a FIFO to peek at it would block)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _live_in_older_window(path: Path) -> bool:
    """Whether an older responder still writes this journal (it holds its lock)."""
    if fcntl is None or not _regular(path):
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def _move(path: Path, folder_name: str) -> Path:
    """Move a journal into a sub-folder next to it (never deleted)."""
    folder = path.parent / folder_name
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    k = 1
    while os.path.lexists(target):
        target = folder / f"{path.stem}.{k}{path.suffix}"
        k += 1
    os.replace(path, target)
    fsync_dir(path.parent)
    fsync_dir(folder)
    return target


def import_journals(db: Database, directory: Path) -> list[str]:
    """Import every journal of ``directory`` into ``db``; returns the notices to show (one
    per damaged, unreadable or newer journal, and one summing up the imported ones)."""
    notices: list[str] = []
    imported = 0
    for path in _journal_files(directory):
        if _live_in_older_window(path):
            notices.append(
                f"{path} is open in an older responder window; it is imported once that "
                "window is closed."
            )
            continue
        try:
            journal = read_journal(path)
        except JournalUnreadable as exc:
            try:
                target = _move(path, DAMAGED_DIR)
                notices.append(f"An unreadable journal was moved aside to {target} ({exc}).")
            except OSError as err:
                notices.append(
                    f"An unreadable journal could not be moved aside ({exc}; "
                    f"{err.strerror or err})."
                )
            continue
        if journal is not None and journal.version > FORMAT_VERSION:
            notices.append(
                f"{path} was written by a newer responder (journal format {journal.version}; "
                f"this one reads {FORMAT_VERSION}); it is left as it is."
            )
            continue
        try:
            incident_id = _store(db, journal, path) if journal is not None else None
            _move(path, IMPORTED_DIR)
        except (sqlite3.Error, OSError) as exc:
            notices.append(f"The journal {path} could not be imported yet: {exc}.")
            continue
        if journal is None:
            continue
        imported += 1
        if journal.problems:
            shown = "; ".join(journal.problems[:3])
            more = f"; and {len(journal.problems) - 3} more" if len(journal.problems) > 3 else ""
            notices.append(
                f"{path} is damaged ({shown}{more}). Its "
                f"{counted(journal.answers, 'readable answer')} "
                f"{'was' if journal.answers == 1 else 'were'} imported as incident {incident_id}."
            )
    if imported:
        notices.append(
            f"{counted(imported, 'interview journal')} of an earlier version "
            f"{'was' if imported == 1 else 'were'} imported into the "
            f"incident database {db.path}; the files were moved to "
            f"{directory / IMPORTED_DIR}."
        )
    return notices


def _store(db: Database, journal: Journal, path: Path) -> str:
    """Insert the journal as an incident (once: a journal imported before, by this or
    another window, is not stored again); returns the incident's id."""
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        done = conn.execute(
            "SELECT id FROM incidents WHERE imported_from = ?", (path.name,)
        ).fetchone()
        if done is not None:
            conn.execute("COMMIT")
            return done[0]
        incident_id = next(
            (i for i in (journal.id, path.stem) if SAFE_ID.fullmatch(i) and not _taken(conn, i)),
            None,
        ) or new_incident_id(journal.started)
        kb = journal.kb
        number = conn.execute(
            "INSERT INTO incidents (id, started, kb_name, kb_digest, kb_chemicals, kb_symptoms, "
            "config, imported_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                incident_id,
                journal.started,
                str(kb.get("name") or "")[:200],
                str(kb.get("digest") or "")[:200],
                _small_int(kb.get("chemicals")),
                _small_int(kb.get("symptoms")),
                _dumps(journal.config),
                path.name,
            ),
        ).lastrowid
        conn.execute("INSERT INTO victims (incident, idx, name) VALUES (?, 0, '')", (number,))
        for seq, event in enumerate(journal.events, start=1):
            _insert_event(conn, number, seq, event)
        conn.execute("COMMIT")
    except BaseException:
        _rollback(conn)
        raise
    return incident_id


def _taken(conn: sqlite3.Connection, incident_id: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM incidents WHERE id = ?", (incident_id,)).fetchone() is not None
    )


def _small_int(value) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**62:
        return value
    return None
