"""The incident database: every interview, with its victims and every answer, in one SQLite
file (:func:`responder.paths.incident_db`, ``incidents.sqlite`` in the data folder).

Schema (version 1, kept in ``PRAGMA user_version``; :data:`MIGRATIONS` lists the steps)::

    incidents  number INTEGER PRIMARY KEY, id TEXT UNIQUE ("20260101-120000-a1b2c3"),
               started REAL, kb_name, kb_digest, kb_chemicals, kb_symptoms,
               config TEXT (the current InterviewConfig.to_dict() as JSON),
               ended REAL, end_reason TEXT (NULL while unfinished),
               imported_from TEXT (the journal file it came from), problems_noted INTEGER
    victims    incident -> incidents.number, idx (0 = the first victim), name
    events     incident -> incidents.number, seq, at, kind, victim, symptom, answer,
               volunteered, detail   -- append-only, one row per change

``kind`` is ``answer``, ``undo``, ``remove`` (``detail`` = ``contradicted`` when the next answer
took it out; ``detail`` = ``victim`` and no symptom: the victim added last, with no answers,
taken back, a kind an earlier version reads as a removal of nothing), ``config`` (``detail`` = the whole config as
JSON), ``victim`` (``detail`` = the name: a victim added, named or turned to; the last one
is the victim being asked, where a resume returns) or ``end`` (``detail`` = the reason).
``victim`` -1 is the incident's own answers (scene queries answered once per incident). Replay follows the
engine through :class:`~responder.core.answers.AnswerHistory` keyed by (victim, symptom): an
answer to a question already answered replaces the old one and moves to the end; ``undo``
takes back the last answer and puts back the one it had replaced. Answers are stored by
symptom id, not column number, so an incident still reads after the knowledge base gains
symptoms.

Guarantees (docs/reliability.md lists the test of each):

- Every event is one transaction, committed with ``synchronous=FULL`` in WAL mode before the
  screen shows its effect: a kill or a power cut loses no answer already shown.
- An event that cannot be written (disk full) stays pending in memory and is written, in
  order, before the next one; the screens say "saved" only when nothing is pending.
  After a write the file-size limit (``ulimit -f``) stopped, no automatic write is tried
  while the database's files still stand at the limit (:func:`held_at_file_limit`).
- One writer per incident: a live incident holds a POSIX record lock (one byte of the lock
  file next to the database, at the incident's number), which dies with its process. A second
  window never offers, reopens or sets aside a live incident. A lock file that cannot be
  used (a folder in its place) stops the incident's writes with a message saying to move it
  away; only a read-only folder, where nothing can be written anyway, goes without one.
- The whole file is checked at the first opening in a process, and again once another
  program has written or replaced it.
- A database file that is not one (garbage, truncated, a folder, a FIFO) is moved to
  ``damaged/`` in the data folder, never deleted, and reported once; a fresh database starts,
  holding every incident that can still be read in the damaged one.
  A database of a newer schema is left alone and reported.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import stat
import time
import uuid
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from responder import paths
from responder.core.answers import AnswerHistory
from responder.core.counted import counted
from responder.durable import fsync_dir
from responder.input_limits import InputRejected, loads_json

try:  # POSIX locks; elsewhere incidents are simply not locked
    import fcntl
except ImportError:  # pragma: no cover (Windows)
    fcntl = None
try:  # POSIX resource limits: the file-size limit is named when it stops a write
    import resource
except ImportError:  # pragma: no cover (Windows)
    resource = None

ANSWERS = ("yes", "no", "unknown")
KINDS = ("answer", "undo", "remove", "config", "victim", "end")
#: the detail of a "remove" event whose answer the next answer contradicted (and took out)
CONTRADICTED = "contradicted"
#: the detail of a "remove" event that takes back a victim added by mistake (no symptom)
VICTIM_REMOVED = "victim"
#: Victims one incident may hold when read back (a larger index is damage). Writes take
#: any index: a change the database refused would block every later one.
MAX_VICTIMS = 10_000
#: Times accepted in the database: 1970 .. 3000 (beyond, datetime cannot show them).
MAX_TIMESTAMP = 32503680000.0
#: Seconds a write waits for another window's write to the same file to finish.
BUSY_TIMEOUT = 5.0
#: Seconds an automatic retry waits once a write found the file busy (:func:`short_waits`):
#: an answer given while another program holds the file is kept in memory at once
#: instead of freezing the screen or the protocol for BUSY_TIMEOUT on every answer.
RETRY_TIMEOUT = 0.05
#: The busy timeout of the writes in this context; None is BUSY_TIMEOUT.
_WAIT: ContextVar[float | None] = ContextVar("store_wait", default=None)
DAMAGED_DIR = "damaged"
#: The folder beside the database where earlier versions kept their journals.
JOURNAL_DIR = paths.journal_dir().name

_SCHEMA_V1 = (
    """CREATE TABLE incidents (
        number INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE CHECK (length(id) BETWEEN 1 AND 80),
        started REAL NOT NULL,
        kb_name TEXT NOT NULL DEFAULT '',
        kb_digest TEXT NOT NULL DEFAULT '',
        kb_chemicals INTEGER,
        kb_symptoms INTEGER,
        config TEXT NOT NULL DEFAULT '{}',
        ended REAL,
        end_reason TEXT,
        imported_from TEXT,
        problems_noted INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE victims (
        incident INTEGER NOT NULL REFERENCES incidents(number) ON DELETE CASCADE,
        idx INTEGER NOT NULL CHECK (idx >= 0),
        name TEXT NOT NULL DEFAULT '' CHECK (length(name) <= 200),
        PRIMARY KEY (incident, idx)
    )""",
    f"""CREATE TABLE events (
        incident INTEGER NOT NULL REFERENCES incidents(number) ON DELETE CASCADE,
        seq INTEGER NOT NULL CHECK (seq >= 1),
        at REAL NOT NULL CHECK (at BETWEEN 0 AND {MAX_TIMESTAMP}),
        kind TEXT NOT NULL CHECK (kind IN ({", ".join(f"'{k}'" for k in KINDS)})),
        victim INTEGER CHECK (victim >= -1),
        symptom TEXT CHECK (length(symptom) >= 1),
        answer TEXT CHECK (answer IN ('yes', 'no', 'unknown')),
        volunteered INTEGER NOT NULL DEFAULT 0 CHECK (volunteered IN (0, 1)),
        detail TEXT,
        PRIMARY KEY (incident, seq)
    ) WITHOUT ROWID""",
    "CREATE INDEX unfinished_incidents ON incidents(number) WHERE ended IS NULL",
)
#: Each schema version's statements, in order; version N is MIGRATIONS[: N] applied.
MIGRATIONS: list[tuple[str, ...]] = [_SCHEMA_V1]
SCHEMA_VERSION = len(MIGRATIONS)
#: a larger user_version is a damaged header, not a newer responder
NEWEST_PLAUSIBLE_SCHEMA = 1000


class StoreError(OSError):
    """The incident database cannot be written or opened (disk full, folder not writable,
    a newer schema, the incident open in another window). The message says which;
    ``busy`` is True when another program held the file (trying again may succeed);
    ``file_limit`` when the process's file-size limit stopped the write (trying again in this
    process cannot succeed)."""

    busy: bool = False
    file_limit: bool = False


class HeldElsewhere(StoreError):
    """Another responder window holds the incident's lock: it is live there."""


class HeldAtFileLimit(StoreError):
    """Not tried: a file of the database still stands at this process's file-size limit,
    which stopped the write before (:func:`held_at_file_limit`). Nothing was written."""


def _busy_timeout() -> float:
    wait = _WAIT.get()
    return BUSY_TIMEOUT if wait is None else wait


@contextmanager
def short_waits() -> Iterator[None]:
    """Writes inside wait at most :data:`RETRY_TIMEOUT` for a busy file (an automatic
    retry); elsewhere they wait :data:`BUSY_TIMEOUT` (a first try, or the user's retry)."""
    token = _WAIT.set(RETRY_TIMEOUT)
    try:
        yield
    finally:
        _WAIT.reset(token)


class NewerDatabase(StoreError):
    """The database was written by a newer responder; it is left as it is."""


class DamagedDatabase(StoreError):
    """The file is not a usable database (moved aside by :func:`open_database`)."""


# -- what an incident holds ------------------------------------------------------------------


@dataclass
class StoredAnswer:
    symptom: str
    answer: str
    at: float
    volunteered: bool = False
    victim: int = 0  # -1: the incident's (a query answered once per incident)


@dataclass
class IncidentData:
    """An incident as stored, replayed."""

    number: int
    id: str
    started: float
    kb: dict
    config: dict
    answers: list[StoredAnswer] = field(default_factory=list)
    #: victims' names by index (0 is the first victim, who may have none)
    victims: dict[int, str] = field(default_factory=dict)
    #: the victim being asked when the incident was left (the last ``victim`` event's)
    current_victim: int = 0
    # (new answer, position, answer it replaced), so undo can put the old one back
    replaced: list[tuple[StoredAnswer, int, StoredAnswer]] = field(default_factory=list)
    # (answer, the contradicted answers it took out), so undo can put them back
    took_out: list[tuple[StoredAnswer, list[StoredAnswer]]] = field(default_factory=list)
    finished: bool = False
    ended: float | None = None
    end_reason: str | None = None
    last_at: float = 0.0
    events: int = 0
    imported_from: str | None = None
    #: stored values that could not be used (hand-edited or damaged rows), one line each
    problems: list[str] = field(default_factory=list)
    problems_noted: int = 0

    @property
    def started_text(self) -> str:
        return time_text(self.started, "%Y-%m-%d %H:%M")

    @property
    def status(self) -> str:
        """``"open"`` while unfinished, else how it ended (``completed``, ``new``,
        ``set-aside``)."""
        return "open" if not self.finished else (self.end_reason or "ended")

    def victim_names(self) -> list[str]:
        """Names by index, from the first victim to the last one named or answered."""
        n = max([0, *self.victims, *(a.victim for a in self.answers)]) + 1
        return [self.victims.get(v, "") for v in range(n)]


def time_text(at: float | None, fmt: str) -> str:
    if at is None:
        return "?"
    try:
        return datetime.fromtimestamp(at).strftime(fmt)
    except (OverflowError, OSError, ValueError):
        return "?"


def new_incident_id(at: float) -> str:
    """``YYYYmmdd-HHMMSS-xxxxxx``: sortable, readable, unique."""
    return datetime.fromtimestamp(at).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


# -- opening the database --------------------------------------------------------------------


def _is_busy(exc: BaseException) -> bool:
    return getattr(exc, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED")


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if _is_busy(exc):
        return (
            f"{exc} (another program has held it for over {_busy_timeout():g} s, such as an "
            "sqlite3 shell or a backup; close it and try again)"
        )
    return str(exc) or type(exc).__name__


def _is_write_failure(exc: BaseException) -> bool:
    """Whether SQLite reports an I/O error or a full database: what a full disk or the
    file-size limit looks like to it."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith("SQLITE_IOERR") or name == "SQLITE_FULL"


#: Free bytes on the database's disk below which an I/O error opening it is put down to a
#: full disk (SQLite then says only "disk I/O error": its shared-memory file could not grow).
LOW_SPACE = 1 << 20


def _full_disk(path: Path, exc: BaseException) -> str:
    """What to add to an error opening ``path`` when its disk is full: SQLite reports that
    as "disk I/O error" (SQLITE_IOERR_SHMSIZE), which says neither what is wrong nor what
    to do. "" when the error is of another kind or there is room."""
    if not _is_write_failure(exc):
        return ""
    try:
        free = shutil.disk_usage(path.parent).free
    except OSError:
        return ""
    if free >= LOW_SPACE:
        return ""
    return (
        f" (the disk holding it is full: {free // 1024} KB free; free some space on it, "
        "then try again: nothing stored is lost)"
    )


#: How near the file-size limit a file of the database must be for an I/O error writing it
#: to be put down to the limit (SQLite writes a page at a time, and says "disk I/O error").
NEAR_FILE_LIMIT = 1 << 20


def _file_size_limit(path: Path, exc: BaseException) -> str:
    """What to add to an I/O error writing ``path`` when the process's file-size limit
    (``ulimit -f``, RLIMIT_FSIZE) stopped it: SQLite says only "disk I/O error" (the write
    fails with EFBIG), naming neither the limit nor what to do. "" when the error is of
    another kind, there is no limit, or no file of the database has come near it."""
    if not _is_write_failure(exc):
        return ""
    return _at_file_size_limit(path)


def _at_file_size_limit(path: Path) -> str:
    """The words of :func:`_file_size_limit` when the process has a file-size limit and a
    file of the database at ``path`` stands within :data:`NEAR_FILE_LIMIT` of it; else ""."""
    if resource is None:
        return ""
    try:
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    except (OSError, ValueError):
        return ""
    if limit == resource.RLIM_INFINITY or limit < 0:
        return ""
    sizes = {}
    for suffix in ("", "-wal", "-journal"):
        file = path.with_name(path.name + suffix)
        try:
            sizes[file] = os.stat(file).st_size
        except OSError:
            continue
    if not sizes or max(sizes.values()) + NEAR_FILE_LIMIT < limit:
        return ""
    largest = max(sizes, key=sizes.get)
    return (
        f" (the file-size limit (ulimit -f) is {limit // 1024} KB and {largest.name} has "
        "reached it: this process cannot write past it; run responder from a shell with a "
        "larger limit, such as after `ulimit -f unlimited`)"
    )


#: Whether writes in this context are held back while the file-size limit still stands.
_HOLD_AT_LIMIT: ContextVar[bool] = ContextVar("store_hold_at_limit", default=False)
#: The database's files as they stood when the file-size limit last stopped a write to them,
#: by the database's path (:func:`_files_now`).
_STOPPED_AT: dict[str, tuple] = {}


def _files_now(path: Path) -> tuple:
    """Size, time and inode of each file of the database at ``path`` (SQLite's log and
    journal beside it): what changes when any program writes or checkpoints it."""
    now = []
    for suffix in ("", "-wal", "-journal"):
        try:
            st = os.stat(path.with_name(path.name + suffix))
        except OSError:
            continue
        now.append((suffix, st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(now)


@contextmanager
def held_at_file_limit() -> Iterator[None]:
    """Writes inside are not tried while the database's files stand at this process's
    file-size limit exactly as they stood when it stopped the last write (an automatic
    retry, which would fail the same way): the change waits in memory with the others, and
    :class:`HeldAtFileLimit` says so. Every change waiting goes in the first write tried
    once the limit no longer stops it (a larger limit), once another program has written or
    checkpointed the files (its log may then have room again), or by the user's retry."""
    token = _HOLD_AT_LIMIT.set(True)
    try:
        yield
    finally:
        _HOLD_AT_LIMIT.reset(token)


def _hold_at_limit(path: Path) -> None:
    """Raise :class:`HeldAtFileLimit` inside :func:`held_at_file_limit` while ``path``'s
    files stand at the file-size limit, unchanged since it stopped a write."""
    if not _HOLD_AT_LIMIT.get() or _STOPPED_AT.get(str(path.absolute())) != _files_now(path):
        return
    if limit := _at_file_size_limit(path):
        error = HeldAtFileLimit(
            f"cannot write to the incident database {path}: not tried again{limit}"
        )
        error.file_limit = True
        raise error


#: The files SQLite keeps beside the database, and what each holds.
_COMPANIONS = (
    ("-wal", "write-ahead log"),
    ("-shm", "shared-memory index"),
    ("-journal", "journal"),
)


def _companion_in_the_way(path: Path) -> str:
    """What to add to an error opening ``path`` when a folder (or another kind of file)
    stands where SQLite keeps one of its files beside it: SQLite says only "disk I/O
    error". "" when there is none."""
    for suffix, what in _COMPANIONS:
        companion = path.with_name(path.name + suffix)
        try:
            mode = os.lstat(companion).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            return (
                f" ({companion} is {kind}, where SQLite keeps the database's {what}: move it away)"
            )
    return ""


def _store_error(message: str, exc: BaseException) -> StoreError:
    error = StoreError(message)
    error.busy = _is_busy(exc)
    return error


def _is_damage(exc: sqlite3.Error) -> bool:
    if getattr(exc, "sqlite_errorname", "") in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
        return True
    # a header whose format bytes no SQLite version wrote
    return str(exc).startswith("unsupported file format")


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(
        str(path), timeout=_busy_timeout(), isolation_level=None, check_same_thread=False
    )
    # damaged text reads as text (with U+FFFD), never as an exception while reading
    conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
    try:
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=FULL")
    except (sqlite3.Error, UnicodeDecodeError):
        conn.close()
        raise
    return conn


@dataclass
class Database:
    """An open incident database, with what opening it found to tell the user."""

    path: Path
    conn: sqlite3.Connection
    notices: list[str] = field(default_factory=list)
    #: the file passed the whole-file check in this process (:func:`_prepare`)
    checked: bool = False

    def close(self) -> None:
        self.conn.close()
        # closing checkpoints this process's own changes into the file: still checked
        if self.checked and (identity := _file_identity(self.path)) is not None:
            _CHECKED.add(identity)

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_database(path: Path | None = None, import_journals: bool = True) -> Database:
    """Open (creating or migrating) the incident database.

    A file that is not a database (garbage, truncated, a folder or FIFO in its place, a
    database of another program) is moved to ``damaged/`` and a fresh one started, with a
    notice; the incidents that can still be read in a damaged responder database (its table
    pages, past a damaged index) are copied into the fresh one, and the notice says how many
    (:func:`_salvage`). The JSON-lines journals of earlier versions (``journal/`` beside the
    database) are imported once (:mod:`responder.core.journal_import`), also with notices.

    Raises
    ------
    NewerDatabase
        Written by a newer responder (left as it is).
    StoreError
        The folder or file cannot be created, read or written.
    """
    path = Path(path or paths.incident_db())
    notices: list[str] = []
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        file = paths.file_in_the_way(path.parent)
        problem = (
            f"{file} is a file where a folder should be; move it away (the folder is "
            "created when needed)"
            if file is not None
            else _error_text(exc)
        )
        raise StoreError(
            f"cannot create the folder of the incident database {path.parent}: {problem}"
        ) from None
    conn = None
    set_aside: list[tuple[int, Path]] = []  # (its notice, where the file went)
    for attempt in range(2):
        try:
            problem = _file_problem(path)
            if problem is None:
                conn = _connect(path)
                problem = _prepare(conn, path)
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
                conn = None
            if not _is_damage(exc):
                raise _store_error(
                    f"cannot open the incident database {path}: {_error_text(exc)}"
                    + (
                        _companion_in_the_way(path)
                        or _file_size_limit(path, exc)
                        or _full_disk(path, exc)
                    ),
                    exc,
                ) from None
            problem = _error_text(exc)
        except UnicodeDecodeError:
            # SQLite's message quotes the damaged schema, which is not UTF-8
            if conn is not None:
                conn.close()
                conn = None
            problem = "its schema is damaged (not readable text)"
        if problem is None:
            break
        if conn is not None:
            conn.close()
            conn = None
        if attempt == 1:
            raise DamagedDatabase(f"the incident database {path} cannot be used: {problem}")
        notice, target = _set_aside_damaged(path, problem)
        set_aside.append((len(notices), target))
        notices.append(notice)
    for k, target in set_aside:
        notices[k] += _salvage(target, conn)
    db = Database(path, conn, notices, checked=True)
    if import_journals:
        from responder.core.journal_import import import_journals as run_import  # noqa: PLC0415

        db.notices += run_import(db, path.parent / JOURNAL_DIR)
    return db


def _file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be the database file without opening it (opening a FIFO would
    block), or None."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot read the incident database {path}: {_error_text(exc)}") from None
    if stat.S_ISREG(mode):
        return None
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"))
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    return f"it is {kind}, not a database file"


_CONTENT_PROBLEMS = ("CHECK constraint failed", "NULL value in")


def _prepare(conn: sqlite3.Connection, path: Path) -> str | None:
    """WAL mode, the schema (created or migrated) and a quick integrity check. Returns why
    the file is not a responder database, or None.

    Raises
    ------
    NewerDatabase
    sqlite3.Error
    """
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version < 0 or version > NEWEST_PLAUSIBLE_SCHEMA:
        return f"its schema version {version} is not one responder writes"
    if version > SCHEMA_VERSION:
        conn.close()
        raise NewerDatabase(
            f"the incident database {path} was written by a newer responder (schema "
            f"{version}; this one knows {SCHEMA_VERSION}); it is left as it is and nothing "
            "is saved to it: open it with that newer responder, or move it out of the data "
            "folder to start a new one"
        )
    checked_as = _file_identity(path)
    check = [
        str(row[0])
        for row in (() if checked_as in _CHECKED else _structure_check(conn))
        if row[0] != "ok" and not str(row[0]).startswith(_CONTENT_PROBLEMS)
    ]
    if check:
        # one line: SQLite's report may span lines under a "*** in database main ***" banner
        lines = [
            " ".join(line.split())
            for text in check
            for line in text.splitlines()
            if line.strip() and not line.strip().startswith("***")
        ]
        return "damaged (" + ("; ".join(lines[:3]) or "its integrity check failed") + ")"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    if version == 0 and tables:
        return "it is a database of another program (no responder schema version)"
    mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":  # a file system without shared memory: still durable
        conn.execute("PRAGMA journal_mode=DELETE")
    if version < SCHEMA_VERSION:
        _migrate(conn)
    if checked_as is not None:
        _CHECKED.add(checked_as)
    return None


#: Database files this process has checked whole, by :func:`_file_identity`: an incident
#: created or reopened after start-up's check does not read the whole file again.
_CHECKED: set[tuple[int, int, int, int]] = set()


def _file_identity(path: Path) -> tuple[int, int, int, int] | None:
    """The file's device, inode, size and modification time: commits go to the write-ahead
    log, so these change only when the file itself is written (a checkpoint, a damage, a
    replacement), and then it is checked again."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _structure_check(conn: sqlite3.Connection) -> list[tuple]:
    """``PRAGMA quick_check`` of the pages and b-trees, without evaluating every row's CHECK
    constraints: a value breaking one (a hand edit) is skipped when read and must not set
    aside every other incident with it, and evaluating them was nine tenths of the check's
    time on a large file. Writes check them again as soon as this returns."""
    conn.execute("PRAGMA ignore_check_constraints = ON")
    try:
        return conn.execute("PRAGMA quick_check").fetchall()
    finally:
        conn.execute("PRAGMA ignore_check_constraints = OFF")


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # another window may
        for step in MIGRATIONS[version:]:  # have migrated meanwhile
            for statement in step:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        _rollback(conn)
        raise


def _rollback(conn: sqlite3.Connection) -> None:
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def _set_aside_damaged(path: Path, problem: str) -> tuple[str, Path]:
    """Move the database file (and its WAL and shared-memory files) to ``damaged/``; the
    notice to show, and where the file went."""
    folder = path.parent / DAMAGED_DIR
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        folder.mkdir(exist_ok=True)
        target = folder / f"{path.stem}-{stamp}{path.suffix}"
        k = 1
        while os.path.lexists(target):
            target = folder / f"{path.stem}-{stamp}.{k}{path.suffix}"
            k += 1
        for suffix in ("-wal", "-shm"):
            side = Path(f"{path}{suffix}")
            if os.path.lexists(side):
                os.replace(side, f"{target}{suffix}")
        os.replace(path, target)
        fsync_dir(path.parent)
        fsync_dir(folder)
    except OSError as exc:
        raise StoreError(
            f"the incident database {path} is unusable ({problem}) and could not be moved "
            f"aside: {_error_text(exc)}"
        ) from None
    return (
        f"The incident database was unusable ({problem}); it was moved aside to {target} "
        "and a new one started.",
        target,
    )


#: The tables copied from a damaged database, in an order that keeps their references.
_SALVAGED = {
    "incidents": (
        "number, id, started, kb_name, kb_digest, kb_chemicals, kb_symptoms, config, ended, "
        "end_reason, imported_from, problems_noted"
    ),
    "victims": "incident, idx, name",
    "events": "incident, seq, at, kind, victim, symptom, answer, volunteered, detail",
}


def _salvage(damaged: Path, conn: sqlite3.Connection) -> str:
    """Copy what can still be read of a damaged responder database's incidents into the
    fresh one (``conn``): each table read in its own order past any damaged index, up to the
    first unreadable page; a row a constraint refuses is left out. Returns the words to add
    to the notice (nothing for a file that was never a responder database)."""
    try:
        if not stat.S_ISREG(os.stat(damaged).st_mode):
            return ""  # a folder or a FIFO in the database's place (opening a FIFO blocks)
        old = sqlite3.connect(f"file:{damaged}?mode=ro", uri=True)
    except (OSError, sqlite3.Error, UnicodeDecodeError):
        return ""
    old.text_factory = lambda raw: raw.decode("utf-8", "replace")
    rows: dict[str, list[tuple]] = {table: [] for table in _SALVAGED}
    try:
        version = old.execute("PRAGMA user_version").fetchone()[0]
        if not 1 <= version <= SCHEMA_VERSION:
            return ""  # never a responder database, or its header is gone
        for table, columns in _SALVAGED.items():
            try:
                for row in old.execute(f"SELECT {columns} FROM {table} NOT INDEXED"):
                    rows[table].append(row)
            except (sqlite3.Error, UnicodeDecodeError):
                pass  # the rest of this table is past a damaged page
    except (sqlite3.Error, UnicodeDecodeError):
        # not readable as a database at all (SQLite's message may quote a damaged schema,
        # which is not UTF-8)
        return ""
    finally:
        old.close()
    copied = {table: 0 for table in _SALVAGED}
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table, columns in _SALVAGED.items():
            marks = ", ".join("?" * len(columns.split(",")))
            for row in rows[table]:
                try:
                    cur = conn.execute(
                        f"INSERT OR IGNORE INTO {table} ({columns}) VALUES ({marks})", row
                    )
                    copied[table] += cur.rowcount
                except sqlite3.IntegrityError:
                    pass  # a damaged value or a row whose incident was lost
        conn.execute("COMMIT")
    except sqlite3.Error as exc:  # the new file cannot take them (a full disk): still set aside
        _rollback(conn)
        return f" Its incidents could not be copied into the new one: {_error_text(exc)}."
    except BaseException:
        _rollback(conn)
        raise
    if not copied["incidents"]:
        return " No incident could be read back from it."
    return (
        f" {counted(copied['incidents'], 'incident')} with "
        f"{counted(copied['events'], 'stored change')} "
        f"{'was' if copied['incidents'] == 1 else 'were'} read back from it into the new one."
    )


# -- locks: one writer per incident -------------------------------------------------------


#: The lock file's descriptor per database, opened once per process: POSIX record locks are
#: released when any descriptor of the file is closed, so it stays open.
_LOCK_FDS: dict[Path, int] = {}
#: (lock file, incident number) locked by this process.
_HELD: set[tuple[Path, int]] = set()


def _lock_fd(db_path: Path) -> int | None:
    """The lock file's descriptor, or None when its folder is read-only (nothing can be
    written there either, and the writes say so).

    Raises
    ------
    StoreError
        The lock file cannot be opened for another reason (a folder in its place, a file
        this user may not write): no incident is written unlocked.
    """
    key = _lock_key(db_path)
    if key not in _LOCK_FDS:
        try:
            _LOCK_FDS[key] = os.open(
                key, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600
            )
        except OSError as exc:
            if _read_only_folder(key, exc):
                return None
            raise StoreError(_lock_file_problem(key, exc)) from None
    return _LOCK_FDS[key]


def _read_only_folder(lock_file: Path, exc: OSError) -> bool:
    """Whether ``exc`` opening ``lock_file`` comes of its folder being read-only (the lock
    file not being there to open)."""
    if exc.errno == errno.EROFS:
        return True
    if exc.errno not in (errno.EACCES, errno.EPERM):
        return False
    return not os.path.lexists(lock_file) and not os.access(lock_file.parent, os.W_OK)


def _lock_file_problem(lock_file: Path, exc: OSError) -> str:
    """One sentence: why the incidents' lock file cannot be used, and what to do."""
    why = "the lock that keeps a second responder window from writing the same incident"
    try:
        mode = os.lstat(lock_file).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        what = f"{lock_file} is a folder, where responder keeps the incidents' locks"
    elif mode is not None and not stat.S_ISREG(mode):
        what = f"{lock_file} is not a regular file, where responder keeps the incidents' locks"
    else:
        what = f"{lock_file}: {exc.strerror or exc}"
        return (
            f"cannot take {why} ({what}): make it a file this user can write, or move it "
            "away, then try again"
        )
    return f"cannot take {why} ({what}): move it away, then try again"


def _lock_key(db_path: Path) -> Path:
    return Path(f"{db_path}.lock").resolve()


def _lock(db_path: Path, number: int) -> None:
    """Lock incident ``number`` for this process (which may take its own lock again).

    Raises
    ------
    HeldElsewhere
        Another process holds it.
    StoreError
        The lock file cannot be used (a folder in its place): the message says what to do.
    """
    if fcntl is None or (_lock_key(db_path), number) in _HELD:
        return
    fd = _lock_fd(db_path)
    if fd is None:
        return
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, number)
    except OSError:
        raise HeldElsewhere("this incident is open in another responder window") from None
    _HELD.add((_lock_key(db_path), number))


def _unlock(db_path: Path, number: int) -> None:
    key = (_lock_key(db_path), number)
    if key in _HELD:
        _HELD.discard(key)
        try:
            fcntl.lockf(_LOCK_FDS[key[0]], fcntl.LOCK_UN, 1, number)
        except (OSError, KeyError):
            pass


def is_live_elsewhere(db_path: Path, number: int) -> bool:
    """Whether another process holds incident ``number``'s lock (it is live there)."""
    if fcntl is None or (_lock_key(db_path), number) in _HELD:
        return False
    try:
        fd = _lock_fd(db_path)
    except StoreError:
        return False  # no window can take it either: opening it says why
    if fd is None:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, number)
    except OSError:
        return True
    fcntl.lockf(fd, fcntl.LOCK_UN, 1, number)
    return False


_INSTANCE_LOCK = ".instance.lock"
_instance_fd: int | None = None


def claim_data_folder(directory: Path | None = None) -> str | None:
    """Take the data folder's instance lock for this process's lifetime.

    Returns None when this is the only responder on the folder, else a sentence saying
    another window holds it (its pid and start time). Incidents carry their own locks, so
    two windows never write to one incident either way.
    """
    global _instance_fd
    if fcntl is None or _instance_fd is not None:
        return None
    directory = directory or paths.data_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(
            directory / _INSTANCE_LOCK, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600
        )
    except OSError:
        return None  # a read-only folder: the writes will say so
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


# -- writing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One change, as the events table keeps it."""

    kind: str
    at: float
    victim: int | None = None
    symptom: str | None = None
    answer: str | None = None
    volunteered: bool = False
    detail: str | None = None


def _insert_event(conn: sqlite3.Connection, number: int, seq: int, event: Event) -> None:
    conn.execute(
        "INSERT INTO events (incident, seq, at, kind, victim, symptom, answer, volunteered, "
        "detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            number,
            seq,
            event.at,
            event.kind,
            event.victim,
            event.symptom,
            event.answer,
            int(event.volunteered),
            event.detail,
        ),
    )
    if event.kind == "victim":
        conn.execute(
            "INSERT OR REPLACE INTO victims (incident, idx, name) VALUES (?, ?, ?)",
            (number, event.victim, event.detail or ""),
        )
    elif event.kind == "remove" and event.detail == VICTIM_REMOVED:
        conn.execute("DELETE FROM victims WHERE incident = ? AND idx = ?", (number, event.victim))
    elif event.kind == "config":
        conn.execute("UPDATE incidents SET config = ? WHERE number = ?", (event.detail, number))
    elif event.kind == "end":
        conn.execute(
            "UPDATE incidents SET ended = ?, end_reason = ? WHERE number = ?",
            (event.at, event.detail, number),
        )


def _dumps(data) -> str:
    return json.dumps(data, ensure_ascii=False, allow_nan=False, sort_keys=True)


def _write_error(path: Path, exc: BaseException) -> StoreError:
    if isinstance(exc, StoreError):
        return exc
    limit = _file_size_limit(path, exc)
    error = _store_error(
        f"cannot write to the incident database {path}: {_error_text(exc)}{limit}", exc
    )
    error.file_limit = bool(limit)
    if limit:
        _STOPPED_AT[str(path.absolute())] = _files_now(path)
    return error


class IncidentLog:
    """One incident open for writing, event by event.

    ``pending`` holds events that could not be written yet; every later write tries them
    first, in order, in one transaction with the new one.
    """

    def __init__(self, db: Database, number: int, incident_id: str):
        self.db = db
        self.number = number
        self.id = incident_id
        self.pending: list[Event] = []

    @property
    def path(self) -> Path:
        return self.db.path

    @classmethod
    def create(
        cls,
        kb: dict,
        config: dict,
        incident_id: str,
        started: float,
        victims: list[str] = (),
        answers: list[tuple[str, str, float, bool, int]] = (),
        path: Path | None = None,
        current_victim: int | None = None,
    ) -> IncidentLog:
        """Store a new incident with its victims (by index, the first may be unnamed), the
        victim being asked (default: the last one) and the answers given so far (symptom id,
        answer, time, volunteered, victim), all in one transaction, and lock it for this
        process.

        Raises
        ------
        StoreError
            Nothing was stored.
        """
        if _HOLD_AT_LIMIT.get():
            _hold_at_limit(path or paths.incident_db())
        db = open_database(path)
        conn = db.conn
        number = None
        try:
            conn.execute("BEGIN IMMEDIATE")
            cursor = conn.execute(
                "INSERT INTO incidents (id, started, kb_name, kb_digest, kb_chemicals, "
                "kb_symptoms, config) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    incident_id,
                    started,
                    str(kb.get("name") or ""),
                    str(kb.get("digest") or ""),
                    _count(kb.get("chemicals")),
                    _count(kb.get("symptoms")),
                    _dumps(config),
                ),
            )
            number = cursor.lastrowid
            try:  # locked before it is visible, so no other window ever offers it
                _lock(db.path, number)
            except HeldElsewhere:
                pass  # held for a database since moved aside: this incident is new anyway
            conn.execute(
                "INSERT INTO victims (incident, idx, name) VALUES (?, 0, ?)",
                (number, (list(victims) or [""])[0]),
            )
            events = [Event("victim", started, v, detail=name) for v, name in enumerate(victims)]
            events = events[1:]
            if current_victim is not None and current_victim != len(events):
                name = list(victims)[current_victim] if current_victim < len(victims) else ""
                events.append(Event("victim", started, current_victim, detail=name))
            events += [
                Event("answer", at, victim, symptom, answer, bool(volunteered))
                for symptom, answer, at, volunteered, victim in answers
            ]
            for seq, event in enumerate(events, start=1):
                _insert_event(conn, number, seq, event)
            conn.execute("COMMIT")
        except (sqlite3.Error, StoreError) as exc:
            _rollback(conn)
            if number is not None:
                _unlock(db.path, number)
            db.close()
            raise _write_error(db.path, exc) from None
        return cls(db, number, incident_id)

    @classmethod
    def reopen(cls, data: IncidentData, path: Path | None = None) -> IncidentLog:
        """Continue a stored incident, taking its lock.

        Raises
        ------
        StoreError
            Another responder holds it, its lock cannot be taken (a folder where the lock
            file should be), or the database cannot be opened.
        """
        db = open_database(path, import_journals=False)
        try:
            _lock(db.path, data.number)
        except HeldElsewhere:
            db.close()
            raise StoreError(
                f"the incident {data.id} is open in another responder window"
            ) from None
        except StoreError:
            db.close()  # its lock file cannot be used: never continued unlocked
            raise
        return cls(db, data.number, data.id)

    def close(self) -> None:
        """Release the lock and the connection (the process exiting does the same)."""
        _unlock(self.db.path, self.number)
        self.db.close()

    def append(self, event: Event) -> None:
        """Write one event (after any pending ones) and commit it durably.

        Raises
        ------
        StoreError
            Nothing of this call reached the disk; the event stays pending.
        """
        self.pending.append(event)
        _hold_at_limit(self.db.path)
        self.flush()

    def flush(self) -> None:
        """Write the pending events in one transaction.

        Raises
        ------
        StoreError
        """
        if not self.pending:
            return
        conn = self.db.conn
        try:
            conn.execute(f"PRAGMA busy_timeout = {round(_busy_timeout() * 1000)}")
            conn.execute("BEGIN IMMEDIATE")
            last = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM events WHERE incident = ?", (self.number,)
            ).fetchone()[0]
            for seq, event in enumerate(self.pending, start=last + 1):
                _insert_event(conn, self.number, seq, event)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(conn)
            raise _write_error(self.db.path, exc) from None
        self.pending.clear()

    # one method per kind of change --------------------------------------------------------

    def answer(
        self, symptom: str, answer: str, at: float, volunteered: bool, victim: int = 0
    ) -> None:
        self.append(Event("answer", at, victim, symptom, answer, volunteered))

    def undo(self, symptom: str, victim: int = 0) -> None:
        """The last answer (to ``symptom`` for ``victim``) taken back."""
        self.append(Event("undo", time.time(), victim, symptom))

    def remove(self, symptom: str, victim: int = 0, contradicted: bool = False) -> None:
        """An answer taken out: by the responder, or (``contradicted``) by the next answer,
        which contradicts it and puts it back when undone."""
        detail = CONTRADICTED if contradicted else None
        self.append(Event("remove", time.time(), victim, symptom, detail=detail))

    def remove_victim(self, index: int) -> None:
        """The victim ``index``, added last and with no answers, taken back (added by
        mistake)."""
        self.append(Event("remove", time.time(), index, detail=VICTIM_REMOVED))

    def victim(self, index: int, name: str) -> None:
        """A victim added, named or turned to (index 1 is the second victim); the last one
        is the victim a resume returns to."""
        self.append(Event("victim", time.time(), index, detail=name))

    def config(self, config: dict) -> None:
        self.append(Event("config", time.time(), detail=_dumps(config)))

    def end(self, reason: str) -> None:
        self.append(Event("end", time.time(), detail=reason))


def set_aside(
    incidents: list[IncidentData], path: Path | None = None, completed: Collection[int] = ()
) -> int:
    """End the unfinished ``incidents`` as ``set-aside`` (a new interview was chosen over
    them), those numbered in ``completed`` (they had reached a result) as ``completed``, in
    one transaction, leaving any that another window holds live; returns how many were
    ended.

    Raises
    ------
    StoreError
        Nothing was written (they are offered again next time).
    """
    with open_database(path, import_journals=False) as db:
        taken = []
        for data in incidents:
            try:
                _lock(db.path, data.number)
            except HeldElsewhere:
                continue  # live in another window by now: left to it
            taken.append(data.number)
        conn, now = db.conn, time.time()
        try:
            conn.execute("BEGIN IMMEDIATE")
            for number in taken:
                last = conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE incident = ?", (number,)
                ).fetchone()[0]
                reason = "completed" if number in completed else "set-aside"
                _insert_event(conn, number, last + 1, Event("end", now, detail=reason))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(conn)
            raise _write_error(db.path, exc) from None
        finally:
            for number in taken:
                _unlock(db.path, number)
        return len(taken)


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# -- reading -----------------------------------------------------------------------------


def _json_object(text, where: str, problems: list[str]) -> dict:
    if text is None:
        return {}
    try:
        value = loads_json(str(text), where)
    except InputRejected as exc:
        problems.append(f"{where}: {exc.problem}; not used")
        return {}
    if not isinstance(value, dict):
        problems.append(f"{where}: not a JSON object; not used")
        return {}
    return value


def _timestamp(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0.0 <= value <= MAX_TIMESTAMP else None


def _symptom(value) -> bool:
    return isinstance(value, str) and bool(value)


def _victim_index(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value < MAX_VICTIMS:
        return None
    return value


_INCIDENT_COLUMNS = (
    "number, id, started, kb_name, kb_digest, kb_chemicals, kb_symptoms, config, ended, "
    "end_reason, imported_from, problems_noted"
)


def _incident(row: tuple) -> IncidentData:
    (number, iid, started, name, digest, chems, symptoms, config, ended, reason, src, noted) = row
    problems: list[str] = []
    started_at = _timestamp(started)
    if started_at is None:
        problems.append(f"the start time {str(started)[:30]} is out of range")
    kb = {"name": str(name or ""), "digest": str(digest or "")}
    kb |= {k: v for k, v in (("chemicals", chems), ("symptoms", symptoms)) if _count(v)}
    data = IncidentData(
        number=number,
        id=str(iid),
        started=started_at or 0.0,
        kb=kb,
        config=_json_object(config, "its settings", problems),
        finished=ended is not None,
        ended=_timestamp(ended),
        end_reason=None if reason is None else str(reason),
        imported_from=src,
        problems=problems,
        problems_noted=noted if isinstance(noted, int) else 0,
    )
    data.last_at = data.started
    return data


def _replay(data: IncidentData, events: list[tuple], victims: list[tuple]) -> IncidentData:
    """Apply an incident's events (seq, at, kind, victim, symptom, answer, volunteered,
    detail) in order, with the rule the live interview follows."""
    history: AnswerHistory[StoredAnswer] = AnswerHistory(key=lambda a: (a.victim, a.symptom))
    for idx, name in victims:
        if _victim_index(idx) is not None and idx >= 0:
            data.victims[idx] = str(name or "")[:200]
    took_out: list[tuple[StoredAnswer, list[StoredAnswer]]] = []
    taken: list[StoredAnswer] = []  # contradicted answers the next answer took out
    removed: set[int] = set()  # victims taken back, unless added again later
    for seq, at, kind, victim, symptom, answer, volunteered, detail in events:
        at = _timestamp(at)
        if at is None:
            data.problems.append(
                f"change {seq}: its time is out of range; the previous one is used"
            )
            at = data.last_at
        data.last_at = max(data.last_at, at)
        data.events += 1
        if kind == "answer":
            if not _symptom(symptom) or answer not in ANSWERS or _victim_index(victim) is None:
                data.problems.append(f"change {seq}: an unreadable answer; skipped")
                continue
            new = StoredAnswer(symptom, answer, at, volunteered == 1, victim)
            history.add(new)
            if taken:
                took_out.append((new, taken))
            taken = []
            continue
        if kind == "remove" and detail == CONTRADICTED and _victim_index(victim) is not None:
            gone = history.remove((victim, symptom)) if _symptom(symptom) else None
            taken += [gone] if gone is not None else []
            continue
        taken = []
        if kind == "undo":
            history.undo()
        elif kind == "remove" and detail == VICTIM_REMOVED and symptom is None:
            if _victim_index(victim) is not None and victim >= 0:
                removed.add(victim)
        elif kind == "remove":
            if _symptom(symptom) and _victim_index(victim) is not None:
                history.remove((victim, symptom))
        elif kind == "victim":
            if _victim_index(victim) is not None and victim >= 0:
                data.current_victim = victim
                removed.discard(victim)
        elif kind not in KINDS:
            data.problems.append(f"change {seq}: an unknown kind of change; skipped")
    data.answers, data.replaced = history.records, history.replaced
    # a victim taken back keeps no name; one that answers still name (a hand edit) is kept
    for victim in removed - {a.victim for a in data.answers}:
        data.victims.pop(victim, None)
    present = {id(a) for a in data.answers}
    data.took_out = [(new, olds) for new, olds in took_out if id(new) in present]
    return data


def _rows_by_incident(
    conn: sqlite3.Connection, columns: str, table: str, order: str, chosen: str, args: tuple
) -> dict[int, list[tuple]]:
    """The rows of ``table`` (its first column being the incident) of the incidents that
    ``chosen`` (a query of their numbers) selects, grouped by incident: the primary key's
    index finds each incident's rows, so no other incident's are read."""
    out: dict[int, list[tuple]] = {}
    query = f"SELECT {columns} FROM {table} WHERE incident IN ({chosen}) ORDER BY {order}"
    for row in conn.execute(query, args):
        out.setdefault(row[0], []).append(row[1:])
    return out


def read_incidents(
    conn: sqlite3.Connection,
    where: str = "",
    args: tuple = (),
    limit: int | None = None,
    offset: int = 0,
) -> list[IncidentData]:
    """The incidents matching ``where`` (an SQL condition on the incidents table), replayed,
    newest first; only the ``limit`` newest after skipping ``offset`` when a limit is given.
    Only the chosen incidents' victims and changes are read."""
    chosen = f"SELECT number FROM incidents {('WHERE ' + where) if where else ''}"
    if limit is not None or offset:
        chosen += " ORDER BY started DESC, number DESC LIMIT ? OFFSET ?"
        args = (*args, -1 if limit is None else limit, offset)
    rows = conn.execute(
        f"SELECT {_INCIDENT_COLUMNS} FROM incidents WHERE number IN ({chosen})", args
    ).fetchall()
    incidents = [_incident(row) for row in rows]
    events = _rows_by_incident(
        conn,
        "incident, seq, at, kind, victim, symptom, answer, volunteered, detail",
        "events",
        "incident, seq",
        chosen,
        args,
    )
    victims = _rows_by_incident(
        conn, "incident, idx, name", "victims", "incident, idx", chosen, args
    )
    out = [_replay(d, events.get(d.number, []), victims.get(d.number, [])) for d in incidents]
    out.sort(key=lambda d: (d.started, d.number), reverse=True)
    return out


def count_incidents(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT count(*) FROM incidents").fetchone()[0]


@dataclass
class IncidentScan:
    """The database at start-up: incidents to offer, and what to tell the user."""

    unfinished: list[IncidentData] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    live_elsewhere: int = 0


def scan_incidents(path: Path | None = None) -> IncidentScan:
    """Unfinished incidents with at least one answer (newest first), the notices of opening
    the database (moved aside, journals imported, damaged rows, reported once), and the
    count of incidents live in another responder window (never offered here)."""
    scan = IncidentScan()
    try:
        db = open_database(path)
    except StoreError as exc:
        scan.notices.append(f"Incidents cannot be read or saved: {exc}.")
        return scan
    with db:
        try:
            found = _read(db, "ended IS NULL")
        except StoreError as exc:
            scan.notices += [*db.notices, f"Incidents cannot be read: {exc}."]
            return scan
        scan.notices += db.notices  # reading may have set the file aside: after it
        for data in found:
            if is_live_elsewhere(db.path, data.number):
                scan.live_elsewhere += 1
                continue
            if not data.answers:
                continue
            if len(data.problems) > data.problems_noted:
                shown = "; ".join(data.problems[:3])
                more = f"; and {len(data.problems) - 3} more" if len(data.problems) > 3 else ""
                scan.notices.append(
                    f"The incident of {data.started_text} ({data.id}) has stored values that "
                    f"cannot be used ({shown}{more}). Its "
                    f"{counted(len(data.answers), 'readable answer')} "
                    f"{'is' if len(data.answers) == 1 else 'are'} offered for resume."
                )
                _note_problems(db.conn, data)
            scan.unfinished.append(data)
    scan.unfinished.sort(key=lambda d: (d.last_at, d.started, d.number), reverse=True)
    return scan


def _note_problems(conn: sqlite3.Connection, data: IncidentData) -> None:
    """Record that these problems were reported, so the next start does not repeat them."""
    try:
        conn.execute(
            "UPDATE incidents SET problems_noted = ? WHERE number = ?",
            (len(data.problems), data.number),
        )
    except sqlite3.Error:
        pass  # reported again next time: better than not at all


def _nothing_stored(path: Path | None) -> bool:
    """Whether no incident can be stored at ``path`` yet: neither the database file nor a
    journal of an earlier version is there (the data folder, or the home folder above it,
    does not exist). A command that only reads then has nothing to open, and creates no
    folder or database to find that out. A file in the way of a folder is not this case:
    opening says what to do about it."""
    path = Path(path or paths.incident_db())
    if os.path.lexists(path) or os.path.lexists(path.parent / JOURNAL_DIR):
        return False
    return paths.file_in_the_way(path.parent) is None


def list_incidents(path: Path | None = None) -> tuple[list[IncidentData], list[str]]:
    """Every incident, newest first, and the notices of opening the database; none (and
    nothing created) when no database is there yet.

    Raises
    ------
    StoreError
    """
    if _nothing_stored(path):
        return [], []
    with open_database(path) as db:
        return _read(db), db.notices


@dataclass
class IncidentPage:
    """One page of the incidents, newest first, out of ``total``."""

    incidents: list[IncidentData]
    total: int
    notices: list[str]
    skip: int = 0


def list_page(limit: int | None, skip: int = 0, path: Path | None = None) -> IncidentPage:
    """The ``limit`` newest incidents (all when None) after the ``skip`` newest, reading
    only theirs; none (and nothing created) when no database is there yet.

    Raises
    ------
    StoreError
    """
    if _nothing_stored(path):
        return IncidentPage([], 0, [], skip)
    with open_database(path) as db:
        found = _read(db, limit=limit, offset=skip)
        try:
            total = count_incidents(db.conn)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read the incident database {db.path}: {exc}") from None
        return IncidentPage(found, total, db.notices, skip)


def _largest_number(db: Database) -> int:
    """The largest incident number stored (0 when none can be read)."""
    try:
        return db.conn.execute("SELECT MAX(number) FROM incidents").fetchone()[0] or 0
    except sqlite3.Error:
        return 0


def _read(
    db: Database, where: str = "", args: tuple = (), limit: int | None = None, offset: int = 0
) -> list[IncidentData]:
    """:func:`read_incidents`; damage the quick check missed sets the file aside (with a
    notice in ``db.notices``) and reads as no incident.

    Raises
    ------
    StoreError
        The file cannot be read for another reason (locked, an I/O error).
    """
    try:
        return read_incidents(db.conn, where, args, limit, offset)
    except sqlite3.Error as exc:
        if not _is_damage(exc):
            raise StoreError(f"cannot read the incident database {db.path}: {exc}") from None
        db.checked = False  # damaged after all: never taken for checked
        db.close()
        notice, target = _set_aside_damaged(db.path, _error_text(exc))
        fresh = open_database(db.path, import_journals=False)
        db.conn, db.checked = fresh.conn, fresh.checked
        db.notices += [notice + _salvage(target, fresh.conn), *fresh.notices]
        try:
            return read_incidents(db.conn, where, args, limit, offset)
        except sqlite3.Error as again:
            raise StoreError(f"cannot read the incident database {db.path}: {again}") from None


def find_incident(key: str, path: Path | None = None) -> tuple[IncidentData | None, list[str]]:
    """The incident whose id or number is ``key``; a key that is not all digits, or has more
    digits than any incident's number (an id's date, "20260101"), may also be the unique start
    of an id ("20260101-12").

    Raises
    ------
    StoreError
        Cannot read the database, or ``key`` starts several ids.
    """
    if _nothing_stored(path):
        return None, []  # nothing created to find that out
    escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    by_start = ("id = ? OR id LIKE ? ESCAPE '\\'", (key, escaped + "%"))
    with open_database(path) as db:
        if not key.isprintable():
            # bytes that are not UTF-8 (a command-line argument decodes them to lone
            # surrogates, which SQLite cannot be given) or control characters: no id has them
            return None, db.notices
        if key.isascii() and key.isdigit():  # "²" is a digit to isdigit(), not to int()
            found = _read(db, "number = ? OR id = ?", (int(key) if len(key) <= 18 else -1, key))
            if not found and len(key) > len(str(_largest_number(db))):
                found = _read(db, *by_start)
        else:
            found = _read(db, *by_start)
        exact = [d for d in found if d.id == key or str(d.number) == key]
        if len(exact) == 1 or len(found) == 1:
            return (exact or found)[0], db.notices
        if found:
            ids = ", ".join(d.id for d in found[:5])
            raise StoreError(f"{key!r} starts several incident ids ({ids}); give more of it")
        return None, db.notices
