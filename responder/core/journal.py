"""Append-only interview journals: one JSON-lines file per interview under
:func:`responder.paths.journal_dir`.

Every event is one line, written, flushed and fsync'd before the app shows its effect, so a
crash, a kill or a pulled battery loses no answer already given. Events::

    {"event": "start", "id": ..., "at": ..., "kb": {...}, "config": {...}, "version": 1}
    {"event": "answer", "symptom": "cough", "answer": "yes", "at": ..., "volunteered": false}
    {"event": "undo", "symptom": "cough", "at": ...}          # the last answer taken back
    {"event": "remove", "symptom": "cough", "at": ...}        # removed in the history
    {"event": "config", "config": {...}, "at": ...}           # target / suggestion / noise
    {"event": "noted", "lines": [5, 9], "at": ...}            # damaged lines already reported
    {"event": "end", "reason": "new" | "completed" | "set-aside", "at": ...}

Replay follows the engine: an answer to a symptom already answered replaces the old one and
moves to the end; ``undo`` takes back the last answer and, if it had replaced an earlier
answer, puts that one back where it was.

An interview without an ``end`` event is unfinished and is offered for resume at start-up.
Answers are stored by symptom id, not column number, so a journal still reads after the
knowledge base gains symptoms.

Damage never stops the app (issue 13): a line that is torn, not JSON, of a foreign shape or
with out-of-range values is skipped and reported once, with the file and line (a ``noted``
event records that it was), and the readable answers are offered. A journal written by a
newer format version is left alone. A file that cannot be read at all (not a regular file,
too big, binary, no readable event) is moved aside to ``journal/damaged/``, never deleted.

Durability: an event that cannot be written (disk full) stays pending in memory and is
written before the next event, so nothing entered is lost while the app runs; the screens
say "saved" only when nothing is pending. A write that fails half-way is cut back, so the
file never keeps a torn line of ours. Each live journal holds an exclusive lock, so a second
app instance never offers or appends to it.
"""

from __future__ import annotations

import json
import os
import stat
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from responder import paths
from responder.core.answers import AnswerHistory
from responder.durable import fsync_dir
from responder.input_limits import InputRejected, decode_text, loads_json, read_bytes

try:  # POSIX advisory locks; elsewhere journals are simply not locked
    import fcntl
except ImportError:  # pragma: no cover (Windows)
    fcntl = None

FORMAT_VERSION = 1
SUFFIX = ".jsonl"
DAMAGED_DIR = "damaged"
ANSWERS = ("yes", "no", "unknown")
#: Timestamps accepted in a journal: 1970 .. 3000 (beyond, datetime cannot show them).
MAX_TIMESTAMP = 32503680000.0


class JournalError(OSError):
    """The journal cannot be written (disk full, folder not writable, in use elsewhere)."""


@dataclass
class JournalAnswer:
    symptom: str
    answer: str
    at: float
    volunteered: bool = False
    victim: int = 0  # -1: the incident's (a query answered once per incident)


@dataclass(frozen=True)
class JournalProblem:
    """A line of a journal that could not be used."""

    path: Path
    line: int
    problem: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.problem}"


@dataclass
class JournalData:
    """What a journal file holds, replayed."""

    path: Path
    id: str
    started: float
    kb: dict
    config: dict
    answers: list[JournalAnswer] = field(default_factory=list)
    #: victims' names by index (the first victim may have none)
    victims: dict[int, str] = field(default_factory=dict)
    # (new answer, position, answer it replaced), so undo can put the old one back
    replaced: list[tuple[JournalAnswer, int, JournalAnswer]] = field(default_factory=list)
    finished: bool = False
    end_reason: str | None = None
    last_at: float = 0.0
    torn_lines: int = 0
    #: damaged lines not yet reported (reported ones are in a ``noted`` event)
    problems: list[JournalProblem] = field(default_factory=list)
    version: int = FORMAT_VERSION

    @property
    def started_text(self) -> str:
        return time_text(self.started, "%Y-%m-%d %H:%M")


def time_text(at: float, fmt: str) -> str:
    try:
        return datetime.fromtimestamp(at).strftime(fmt)
    except (OverflowError, OSError, ValueError):
        return "?"


def new_interview_id(at: float) -> str:
    """``YYYYmmdd-HHMMSS-xxxxxx``: sortable, readable, unique."""
    return datetime.fromtimestamp(at).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


class Journal:
    """An open journal, appended to event by event.

    ``pending`` holds lines that could not be written yet; every later write tries them
    first, in order.
    """

    def __init__(self, path: Path, interview_id: str):
        self.path = path
        self.id = interview_id
        self.pending: list[str] = []

    @classmethod
    def create(
        cls,
        kb: dict,
        config: dict,
        directory: Path | None = None,
        interview_id: str | None = None,
        started: float | None = None,
    ) -> Journal:
        """Start a new journal file with its ``start`` event (file and folder fsync'd)."""
        directory = directory or paths.journal_dir()
        now = time.time() if started is None else started
        interview_id = interview_id or new_interview_id(now)
        try:
            if not directory.is_dir():
                directory.mkdir(parents=True, exist_ok=True)
                fsync_dir(directory.parent)
        except OSError as exc:
            raise JournalError(
                f"cannot create the journal folder {directory}: {exc.strerror or exc}"
            ) from None
        journal = cls(directory / f"{interview_id}{SUFFIX}", interview_id)
        journal.append(
            {
                "event": "start",
                "id": interview_id,
                "at": now,
                "kb": kb,
                "config": config,
                "version": FORMAT_VERSION,
            }
        )
        fsync_dir(directory)
        journal.lock()
        return journal

    @classmethod
    def reopen(cls, data: JournalData) -> Journal:
        """Continue an existing journal (taking its lock).

        Raises
        ------
        JournalError
            Another responder holds it.
        """
        journal = cls(data.path, data.id)
        journal.lock()
        return journal

    # -- locking ------------------------------------------------------------------------

    def lock(self) -> None:
        """Hold an exclusive lock on the file while this interview is live (one lock per
        file and process: this process may reopen its own journal).

        Raises
        ------
        JournalError
            Another process holds it.
        """
        key = self.path.resolve()
        if fcntl is None or key in _HELD_HERE:
            return
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return  # not created yet (its first write failed): locked once it exists
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise JournalError(
                f"the interview {self.path.name} is open in another responder window"
            ) from None
        _HELD_HERE[key] = fd

    def close(self) -> None:
        """Release the lock (the process exiting does the same)."""
        fd = _HELD_HERE.pop(self.path.resolve(), None)
        if fd is not None:
            os.close(fd)

    # -- writing ------------------------------------------------------------------------

    def append(self, event: dict) -> None:
        """Write one event as a line (after any pending ones), flushed and fsync'd.

        Raises
        ------
        JournalError
            Nothing of this call reached the disk; the event stays pending.
        """
        event.setdefault("at", time.time())
        self.pending.append(json.dumps(event, ensure_ascii=False, allow_nan=False) + "\n")
        self.flush()

    def flush(self) -> None:
        """Write the pending lines; on failure cut the file back to where it was.

        Raises
        ------
        JournalError
        """
        if not self.pending:
            return
        data = "".join(self.pending).encode("utf-8")
        try:
            fd = os.open(
                self.path,
                os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0),
                0o600,
            )
        except OSError as exc:
            raise JournalError(
                f"cannot write the journal {self.path}: {exc.strerror or exc}"
            ) from None
        try:
            size = os.fstat(fd).st_size
            if size and not _ends_with_newline(self.path):
                data = b"\n" + data  # a torn line of another writer: start afresh
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except OSError as exc:
                try:
                    os.ftruncate(fd, size)  # no half line of ours stays behind
                except OSError:
                    pass
                raise JournalError(
                    f"cannot write the journal {self.path}: {exc.strerror or exc}"
                ) from None
        finally:
            os.close(fd)
        self.pending.clear()
        if self.path.resolve() not in _HELD_HERE:
            try:
                self.lock()
            except JournalError:
                pass

    def answer(
        self, symptom: str, answer: str, at: float, volunteered: bool, victim: int = 0
    ) -> None:
        event = {
            "event": "answer",
            "symptom": symptom,
            "answer": answer,
            "at": at,
            "volunteered": volunteered,
        }
        self.append(event | ({"victim": victim} if victim else {}))

    def remove(self, symptom: str, victim: int = 0) -> None:
        self.append(
            {"event": "remove", "symptom": symptom} | ({"victim": victim} if victim else {})
        )

    def undo(self, symptom: str) -> None:
        self.append({"event": "undo", "symptom": symptom})

    def victim(self, index: int, name: str) -> None:
        """A victim added to the incident (index 1 is the second victim)."""
        self.append({"event": "victim", "index": index, "name": name})

    def config(self, config: dict) -> None:
        self.append({"event": "config", "config": config})

    def noted(self, lines: list[int]) -> None:
        """Record that these damaged lines were reported, so they are not reported again."""
        self.append({"event": "noted", "lines": sorted(set(lines))})

    def end(self, reason: str) -> None:
        self.append({"event": "end", "reason": reason})


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


#: Journals locked by this process (flock locks conflict between open files of one process
#: too, and this process may read its own live journals).
_HELD_HERE: dict[Path, int] = {}


def is_live_elsewhere(path: Path) -> bool:
    """Whether another process holds this journal's lock (its interview is live)."""
    if fcntl is None or path.resolve() in _HELD_HERE:
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
        os.close(fd)  # also drops the shared lock just taken


# -- reading ------------------------------------------------------------------------------


class JournalUnreadable(ValueError):
    """The file cannot be read as a journal at all; the message says why."""


#: Victims one incident may hold; a larger index in a journal is damage.
MAX_VICTIMS = 1000


def _victim_index(value) -> int | None:
    """A victim index from a journal (-1 the incident, 0.. a victim), or None if damaged."""
    if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value < MAX_VICTIMS:
        return None
    return value


def _timestamp(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0.0 <= value <= MAX_TIMESTAMP else None


def _text(value, limit: int = 200) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= limit else None


def _start_fields(event: dict) -> tuple[dict, dict, str | None]:
    """kb, config and a problem (or None) of a start event."""
    kb, config = event.get("kb", {}), event.get("config", {})
    bad = [k for k, v in (("kb", kb), ("config", config)) if not isinstance(v, dict)]
    problem = f"`{'` and `'.join(bad)}` not an object; used without it" if bad else None
    return (
        (kb if isinstance(kb, dict) else {}),
        (config if isinstance(config, dict) else {}),
        problem,
    )


def _config_problem(config: dict) -> str | None:
    noise = config.get("noise")
    if noise is not None and not isinstance(noise, dict):
        return "`noise` is not an object"
    return None


def read_journal(path: Path) -> JournalData | None:
    """Replay a journal file, skipping and recording damaged lines.

    Returns None if it holds no readable event, or was written by a newer format (left
    alone, see :func:`scan_journals`).

    Raises
    ------
    JournalUnreadable
        Not a regular file, too big, or not text at all.
    """
    try:
        raw = read_bytes(path, "journal")
    except InputRejected as exc:
        raise JournalUnreadable(str(exc)) from None
    if b"\0" in raw:
        raise JournalUnreadable(f"{path}: holds NUL bytes, so it is not a journal")
    data: JournalData | None = None
    history: AnswerHistory[JournalAnswer] = AnswerHistory(key=lambda a: (a.victim, a.symptom))
    problems: list[JournalProblem] = []
    noted: set[int] = set()
    events = 0
    newer: int | None = None
    last_at = 0.0

    def bad(n: int, problem: str) -> None:
        problems.append(JournalProblem(path, n, problem))

    for n, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            event = loads_json(decode_text(line, str(path), "journal"), f"{path}:{n}")
        except InputRejected as exc:
            torn = exc.kind == "syntax" and n == raw.count(b"\n") + 1
            bad(
                n,
                "the last line is cut off (the app stopped mid-write)"
                if torn
                else f"unreadable: {exc.problem}",
            )
            continue
        if not isinstance(event, dict) or not isinstance(event.get("event"), str):
            bad(n, 'not a journal event (no "event" name)')
            continue
        kind = event["event"]
        at = _timestamp(event.get("at", last_at))
        if at is None:
            bad(
                n,
                f"the time {str(event.get('at'))[:30]} is out of range; the event is used "
                "with the previous time",
            )
            at = last_at
        last_at = max(last_at, at)
        events += 1
        if kind == "start":
            version = event.get("version", FORMAT_VERSION)
            if not isinstance(version, int) or isinstance(version, bool) or version < 1:
                bad(n, f"the format version {str(version)[:20]} is not a version number")
            elif version > FORMAT_VERSION:
                newer = version
                break
            if data is not None:
                bad(n, "a second start event; ignored")
                continue
            kb, config, problem = _start_fields(event)
            if problem:
                bad(n, problem)
            if _config_problem(config):
                bad(n, _config_problem(config) + "; noise settings not used")
                config = {k: v for k, v in config.items() if k != "noise"}
            data = JournalData(path, _text(event.get("id")) or path.stem, at, kb, config)
            data.last_at = at
            continue
        if data is None:  # answers before (or without) a readable start: still offered
            data = JournalData(path, path.stem, at, {}, {})
            bad(
                n,
                "no readable start line before this one; the interview's settings are the defaults",
            )
        data.last_at = max(data.last_at, at)
        if kind == "answer":
            symptom, answer = _text(event.get("symptom")), event.get("answer")
            if symptom is None or answer not in ANSWERS:
                bad(
                    n,
                    "an answer without a symptom id or with an answer other than "
                    "yes/no/unknown; skipped",
                )
                continue
            victim = _victim_index(event.get("victim", 0))
            if victim is None:
                bad(n, "an answer for a victim number that is not a small whole number; skipped")
                continue
            history.add(
                JournalAnswer(symptom, answer, at, event.get("volunteered") is True, victim)
            )
        elif kind == "undo":
            history.undo()
        elif kind == "remove" and _text(event.get("symptom")):
            victim = _victim_index(event.get("victim", 0))
            if victim is not None:
                history.remove((victim, event["symptom"]))
        elif kind == "victim" and (_victim_index(event.get("index")) or 0) >= 1:
            data.victims[event["index"]] = _text(event.get("name"), 60) or ""
        elif kind == "config" and isinstance(event.get("config"), dict):
            if _config_problem(event["config"]):
                bad(n, _config_problem(event["config"]) + "; ignored")
                continue
            data.config = {**data.config, **event["config"]}
        elif kind == "noted" and isinstance(event.get("lines"), list):
            noted.update(x for x in event["lines"] if isinstance(x, int))
        elif kind == "end":
            data.finished = True
            data.end_reason = str(event.get("reason") or "")
        else:
            bad(n, f"an unknown or malformed {kind[:20]!r} event; skipped")
    if newer is not None:
        return JournalData(path, path.stem, 0.0, {}, {}, finished=True, version=newer)
    if data is None:
        if events == 0 and problems:
            raise JournalUnreadable(f"{path}: no line of it is a journal event")
        return None
    data.problems = [p for p in problems if p.line not in noted]
    data.torn_lines = len(problems)
    data.answers, data.replaced = history.records, history.replaced
    return data


def move_aside(path: Path) -> Path:
    """Move an unreadable journal into ``damaged/`` next to it (never deleted)."""
    folder = path.parent / DAMAGED_DIR
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    k = 1
    while target.exists():
        target = folder / f"{path.stem}.{k}{path.suffix}"
        k += 1
    os.replace(path, target)
    fsync_dir(path.parent)
    fsync_dir(folder)
    return target


@dataclass
class JournalScan:
    """The journal folder at start-up: interviews to offer, and what to tell the user."""

    unfinished: list[JournalData] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    live_elsewhere: int = 0


def _regular(path: Path) -> bool:
    """A regular file (opening a FIFO to peek at it would block)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _journal_files(directory: Path) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if p.name.endswith(SUFFIX)]
    except OSError:
        return []


def scan_journals(directory: Path | None = None) -> JournalScan:
    """Unfinished interviews (newest first; those with no answer are skipped, nothing would
    be lost by starting afresh), with one notice per damaged journal, per journal moved
    aside and per newer-format journal, and the count of interviews live in another
    responder window (never offered here)."""
    directory = directory or paths.journal_dir()
    scan = JournalScan()
    for path in _journal_files(directory):
        if _regular(path) and _ended(path):
            continue
        if _regular(path) and is_live_elsewhere(path):
            scan.live_elsewhere += 1
            continue
        try:
            data = read_journal(path)
        except JournalUnreadable as exc:
            try:
                target = move_aside(path)
                scan.notices.append(f"An unreadable journal was moved aside to {target} ({exc}).")
            except OSError as err:
                scan.notices.append(
                    f"An unreadable journal could not be moved aside "
                    f"({exc}; {err.strerror or err})."
                )
            continue
        if data is None:
            continue
        if data.version > FORMAT_VERSION:
            scan.notices.append(
                f"{path} was written by a newer responder (journal format "
                f"{data.version}; this one reads {FORMAT_VERSION}); it is "
                "left as it is."
            )
            continue
        if data.finished or not data.answers:
            continue
        if data.problems:
            shown = "; ".join(f"line {p.line}: {p.problem}" for p in data.problems[:3])
            more = f"; and {len(data.problems) - 3} more" if len(data.problems) > 3 else ""
            scan.notices.append(
                f"{path} is damaged ({shown}{more}). Its {len(data.answers)} "
                "readable answer(s) are offered for resume."
            )
        scan.unfinished.append(data)
    scan.unfinished.sort(key=lambda d: (d.last_at, d.started), reverse=True)
    return scan


def list_journals(directory: Path | None = None) -> list[JournalData]:
    """Every readable journal, newest first."""
    directory = directory or paths.journal_dir()
    out = []
    for path in _journal_files(directory):
        try:
            data = read_journal(path)
        except JournalUnreadable:
            continue
        if data is not None and data.version <= FORMAT_VERSION:
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
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


def unfinished(directory: Path | None = None) -> list[JournalData]:
    """Interviews with no ``end`` event, newest first; see :func:`scan_journals`."""
    return scan_journals(directory).unfinished


_INSTANCE_LOCK = ".instance.lock"
_instance_fd: int | None = None


def claim_data_folder(directory: Path | None = None) -> str | None:
    """Take the data folder's instance lock for this process's lifetime.

    Returns None when this is the only responder on the folder, else a sentence saying
    another window holds it (its pid and start time). Journals carry their own locks, so
    two windows never write to one interview either way.
    """
    global _instance_fd
    if fcntl is None or _instance_fd is not None:
        return None
    directory = directory or paths.journal_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(
            directory / _INSTANCE_LOCK, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600
        )
    except OSError:
        return None  # a read-only folder: the journal writes will say so
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            holder = os.read(fd, 200).decode("utf-8", "replace").strip()
        except OSError:
            holder = ""
        os.close(fd)
        return (
            f"Another responder window is open on this data folder ({holder})."
            if holder
            else "Another responder window is open on this data folder."
        )
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()}, since {time.strftime('%H:%M')}".encode())
    except OSError:
        pass
    _instance_fd = fd
    return None


def release_data_folder() -> None:
    global _instance_fd
    if _instance_fd is not None:
        os.close(_instance_fd)
        _instance_fd = None
