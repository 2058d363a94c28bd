"""Nothing lost, nothing bricked: damaged journals and databases at start-up, a full disk,
quitting with unsaved answers, two app instances, keymaps and export paths. Each test sets up
one way the app could lose answers or fail to start and checks that it does neither."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from app_helpers import settle, until
from conftest import SIZE, make_app

from responder import paths
from responder.app.screens.interview import InterviewScreen
from responder.app.screens.unsaved import UnsavedScreen
from responder.config import InterviewConfig
from responder.core.export import export_interview, resolve_export_dir
from responder.core.session import Interview
from responder.core.store import (
    IncidentLog,
    StoreError,
    find_incident,
    is_live_elsewhere,
    scan_incidents,
)
from responder.engine.state import Answer

STRICT = InterviewConfig("chemical", "symptom", "strict")


def on_disk(interview) -> list[tuple[str, str]]:
    """The interview's answers as a fresh reader finds them in the database file."""
    data, _ = find_incident(interview.id)
    return [(a.symptom, a.answer) for a in data.answers]


# -- damage at start-up: reported once, the app starts ----------------------------------------


def test_the_app_starts_on_a_damaged_journal_and_says_so_once(home, knowledge):
    folder = home / "data" / "journal"
    folder.mkdir(parents=True)
    start = {"event": "start", "id": "x", "at": 1000.0, "kb": {}, "config": {}, "version": 1}
    answer = {"event": "answer", "symptom": knowledge.symptoms[0].id, "answer": "yes"}
    lines = [json.dumps(start), json.dumps(answer), '{"at": NaN}', '{"event": "explode"}']
    (folder / "x.jsonl").write_text("\n".join(lines) + "\n")
    app = make_app()
    assert len(app.unfinished) == 1
    messages = [m for m, _ in app.notices if "is damaged" in m]
    assert len(messages) == 1 and "line 3" in messages[0] and "line 4" in messages[0]
    app2 = make_app()
    assert not [m for m, _ in app2.notices if "is damaged" in m]
    assert len(app2.unfinished) == 1


async def test_the_app_starts_on_a_damaged_database_and_says_so_once(home):
    db = paths.incident_db()
    db.parent.mkdir(parents=True)
    db.write_bytes(b"\x00garbage" * 1000)
    app = make_app()
    assert [m for m, _ in app.notices if "moved aside" in m]
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("y")
        await settle(pilot)
        assert app.interview.unsaved == 0
    assert not [m for m, _ in make_app().notices if "moved aside" in m]


# -- a full disk: answers stay pending and are written later -------------------------------


@pytest.fixture(params=["tmpfs", "simulated"])
def full_disk(request, home, tmp_path, monkeypatch):
    """A data folder on a tiny disk, and a function ``fill(interview, full)`` that fills the
    disk (True) or frees it. "simulated" makes SQLite itself report the disk full, by
    capping the database's size at what it holds now."""
    if request.param == "tmpfs":
        mount = tmp_path / "disk"
        mount.mkdir()
        ok = (
            subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
                capture_output=True,
            ).returncode
            == 0
        )
        if not ok:
            pytest.skip("tmpfs cannot be mounted here (the simulated case runs)")
        request.addfinalizer(lambda: subprocess.run(["umount", "-l", str(mount)]))
        monkeypatch.setenv("RESPONDER_HOME", str(mount / "home"))
        filler = mount / "filler"

        def fill(interview, full: bool) -> None:
            if full:
                with open(filler, "wb", buffering=0) as fh:
                    try:
                        while True:
                            fh.write(b"x" * 4096)
                    except OSError:
                        pass
            else:
                filler.unlink()

        return fill

    def cap(interview, full: bool) -> None:
        conn = interview.incident.db.conn
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages if full else 1_000_000}")

    return cap


def test_answers_given_while_the_disk_is_full_are_written_later(full_disk, knowledge):
    it = Interview.start(knowledge, STRICT)
    n = len(knowledge.symptoms)

    def engine_answers():
        return [(knowledge.symptoms[r.query].id, r.answer.value) for r in it.state.answers]

    def change(q: int) -> None:
        """A new answer to ``q`` (the same answer again is not recorded, so not written)."""
        now = it.record_of(q)
        it.answer(q, Answer.NO if now is not None and now.answer is Answer.YES else Answer.YES)

    it.answer(0, Answer.YES)
    assert it.unsaved == 0 and it.incident is not None
    full_disk(it, True)
    k = 1
    # (a page of the file may still have room: answer until a write fails)
    while it.unsaved == 0 and k < 400:
        change(k % n)
        k += 1
    assert it.unsaved == 1 and "full" in it.journal_error
    saved = on_disk(it)
    it.answer(k % n, Answer.UNKNOWN)
    it.set_modes(suggest="category")
    assert it.unsaved == 3
    assert on_disk(it) == saved  # nothing of the failed writes reached the file...
    conn = sqlite3.connect(paths.incident_db())
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]  # ...and it is whole
    conn.close()
    full_disk(it, False)
    change((k + 1) % n)  # the next write carries the pending ones first
    assert it.unsaved == 0 and it.journal_error is None
    assert on_disk(it) == engine_answers()
    assert find_incident(it.id)[0].config["suggest"] == "category"
    it.incident.close()


# -- quitting or starting anew with unsaved answers asks first ---------------------------------


class _DiskFullConnection:
    """A database connection whose commits fail while ``full["now"]`` is set, as they do
    when the disk is full (SQLite then rolls the transaction back)."""

    def __init__(self, conn, full: dict):
        self._conn, self._full = conn, full

    def execute(self, sql, *args):
        if self._full["now"] and sql.strip().upper() == "COMMIT":
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._conn, name)


@pytest.fixture
def disk(monkeypatch) -> dict:
    """``disk["now"] = True`` makes every later write fail as on a full disk."""
    from responder.core import store  # noqa: PLC0415

    full = {"now": False}
    real = store._connect
    monkeypatch.setattr(store, "_connect", lambda path: _DiskFullConnection(real(path), full))
    return full


async def retried(pilot, app) -> None:
    """Wait for the retry 'r' started on the unsaved-changes dialog (it runs off the
    screen's thread) to end: the dialog says the outcome, or went."""
    await until(
        pilot,
        lambda: not isinstance(app.screen, UnsavedScreen) or not app.screen.trying,
    )
    await settle(pilot)


async def _answer_twice_unsaved(pilot, app, disk) -> None:
    assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
    disk["now"] = True
    await pilot.press("y")
    await settle(pilot)
    await pilot.press("n")
    await settle(pilot)
    assert app.interview.unsaved == 2 and "full" in app.interview.journal_error


async def test_quit_with_unsaved_answers_asks_and_a_retry_saves_them_before_quitting(disk):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _answer_twice_unsaved(pilot, app, disk)
        given = [(r.query, r.answer) for r in app.interview.records]
        await pilot.press("ctrl+q")
        assert await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))
        assert app.is_running
        await pilot.press("r")  # the disk is still full: it says so and stays
        await retried(pilot, app)
        assert isinstance(app.screen, UnsavedScreen) and app.is_running
        detail = str(app.screen.query_one("#unsaved-detail").render())
        assert "tried again 1 time" in detail and "Free some disk space" in detail
        await pilot.press("escape")  # back to the interview, answers still on screen
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("ctrl+q")
        assert await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))
        disk["now"] = False  # space again
        await pilot.press("r")
        await retried(pilot, app)
    assert app.return_code == 0
    [data] = scan_incidents().unfinished
    assert [(knowledge_index(app, a.symptom), a.answer) for a in data.answers] == [
        (q, a.value) for q, a in given
    ]


def knowledge_index(app, symptom_id: str) -> int:
    return app.knowledge.symptom_index(symptom_id)


async def test_quit_without_the_unsaved_answers_is_a_choice(disk):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _answer_twice_unsaved(pilot, app, disk)
        await pilot.press("ctrl+q")
        assert await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))
        title = str(app.screen.query_one("#unsaved-title").render())
        assert "2 changes NOT saved: quit anyway?" in title
        await pilot.press("d")
        await settle(pilot)
    assert app.return_code == 0


async def test_new_interview_with_unsaved_answers_asks_and_offers_to_retry(disk):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _answer_twice_unsaved(pilot, app, disk)
        old = app.interview
        await pilot.press("ctrl+n")
        assert await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))
        assert "start a new interview anyway?" in str(
            app.screen.query_one("#unsaved-title").render()
        )
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert app.interview is old
        disk["now"] = False
        await pilot.press("ctrl+n")
        await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))
        await pilot.press("r")  # saved: the new interview starts at once
        assert await until(pilot, lambda: app.interview is not old)
        assert app.interview.asked == 0
    data, _ = find_incident(old.id)
    assert len(data.answers) == 2 and data.end_reason == "new"


async def _second_answer_while_held(pilot, app) -> sqlite3.Connection:
    """A first answer stored, then a second given while another program (an sqlite3 shell)
    holds the incident database; returns that program's connection, still holding it."""
    assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
    await pilot.press("y")  # the incident exists
    await settle(pilot)
    holder = sqlite3.connect(paths.incident_db(), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        await pilot.press("n")
        await settle(pilot)
    except BaseException:
        holder.rollback()
        holder.close()
        raise
    return holder


async def test_quit_while_another_program_holds_the_database_says_to_close_it(monkeypatch):
    """The dialog said 'Free some disk space (or fix the folder), then retry' whatever kept
    the answers from the disk; while an sqlite3 shell or a backup holds the file, freeing
    space does nothing: it says to close that program, and the disk advice comes back for a
    full disk."""
    from responder.core import store  # noqa: PLC0415

    monkeypatch.setattr(store, "BUSY_TIMEOUT", 0.2)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        holder = await _second_answer_while_held(pilot, app)
        try:
            assert app.interview.unsaved == 1
            await pilot.press("ctrl+q")
            assert await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))
            detail = " ".join(str(app.screen.query_one("#unsaved-detail").render()).split())
            assert "disk space" not in detail
            assert "close the program that holds the incident database" in detail.lower()
            await pilot.press("escape")
            assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        finally:
            holder.rollback()
            holder.close()
        await pilot.press("ctrl+q")  # let go: a retry saves the answer and quits
        assert await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))
        await pilot.press("r")
        await retried(pilot, app)
    assert app.return_code == 0
    [data] = scan_incidents().unfinished
    assert [a.answer for a in data.answers] == ["yes", "no"]


class _FileLimitConnection(_DiskFullConnection):
    """A connection whose commits fail as SQLite's do past the file-size limit: an I/O
    error (the write gets EFBIG), which SQLite words "disk I/O error"."""

    def execute(self, sql, *args):
        if self._full["now"] and sql.strip().upper() == "COMMIT":
            error = sqlite3.OperationalError("disk I/O error")
            error.sqlite_errorname = "SQLITE_IOERR_WRITE"
            raise error
        return self._conn.execute(sql, *args)


async def test_quit_under_a_file_size_limit_says_so_not_to_free_disk_space(monkeypatch):
    """Under `ulimit -f` every answer said "disk I/O error" and the dialog at quit said
    "Free some disk space (or fix the folder), then retry", though no retry in this process
    can pass the limit. The message names the limit; the dialog says to keep the answers
    with an export and start responder again under a larger limit."""
    from types import SimpleNamespace  # noqa: PLC0415

    from responder.core import store  # noqa: PLC0415

    limited = {"now": False}
    real = store._connect
    monkeypatch.setattr(store, "_connect", lambda path: _FileLimitConnection(real(path), limited))
    small = 64 * 1024  # every database file is within a page or so of it
    fake = SimpleNamespace(RLIMIT_FSIZE=1, RLIM_INFINITY=-1, getrlimit=lambda _: (small, small))
    monkeypatch.setattr(store, "resource", fake)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("y")
        await settle(pilot)
        limited["now"] = True
        await pilot.press("n")
        await settle(pilot)
        it = app.interview
        assert it.unsaved == 1
        assert "the file-size limit (ulimit -f) is 64 KB" in it.journal_error
        await pilot.press("ctrl+q")
        assert await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))
        detail = " ".join(str(app.screen.query_one("#unsaved-detail").render()).split())
        assert "disk space" not in detail
        assert "file-size limit" in detail and "export" in detail, detail
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))


async def test_a_not_saved_toast_goes_once_the_changes_are_saved(disk):
    """'Answer kept on screen but NOT saved (2 changes waiting ...)' stayed over the answers
    panel for its 30 s after the next answer had written them all, telling the responder
    the opposite of what was so; it goes as they are written, and a toast says they are."""
    from app_helpers import notified, toasts  # noqa: PLC0415

    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await _answer_twice_unsaved(pilot, app, disk)
        assert await notified(pilot, app, "NOT saved (2 changes waiting")
        disk["now"] = False
        await pilot.press("u")
        await settle(pilot)
        assert app.interview.unsaved == 0
        assert await notified(pilot, app, "Saved: the 2 changes that were waiting are written now")
        assert not [t for t in toasts(app) if "NOT saved" in t]
        assert not [n for n in app._notifications if "NOT saved" in n.message]


async def test_a_new_interview_without_the_unsaved_changes_does_not_wait_for_the_database(
    monkeypatch,
):
    """ctrl+n, then d (go on without them) while another program holds the database: the
    end of the old incident is not waited for as a retry is, the responder chose to leave
    those changes; the new interview starts at once."""
    import time  # noqa: PLC0415

    from responder.core import store  # noqa: PLC0415

    monkeypatch.setattr(store, "BUSY_TIMEOUT", 0.3)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        holder = await _second_answer_while_held(pilot, app)
        try:
            old = app.interview
            assert old.unsaved == 1
            monkeypatch.setattr(store, "BUSY_TIMEOUT", 3.0)
            await pilot.press("ctrl+n")
            assert await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))
            start = time.perf_counter()
            await pilot.press("d")
            assert await until(pilot, lambda: app.interview is not old)
            assert time.perf_counter() - start < 1.5
        finally:
            holder.rollback()
            holder.close()


async def test_a_mode_switch_that_cannot_be_saved_says_so(disk):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _answer_twice_unsaved(pilot, app, disk)
        await pilot.press("m")
        await settle(pilot)
        said = [n for n in app._notifications if "answers kept" in n.message]
        assert said and "NOT saved" in said[-1].message and said[-1].severity == "error"


async def test_quit_with_everything_saved_quits_at_once(home):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert not isinstance(app.screen, UnsavedScreen)
    assert app.return_code == 0


# -- two instances on one data folder --------------------------------------------------------


HOLDER = textwrap.dedent("""
    import sys, time
    from responder.core.store import IncidentLog, claim_data_folder
    assert claim_data_folder() is None
    log = IncidentLog.create(
        {"name": "kb"}, {"target": "chemical"}, "held-incident", time.time(),
        answers=[(sys.argv[1], "yes", time.time(), False, 0)],
    )
    print(log.number, flush=True)
    sys.stdin.read()  # hold the locks until the test closes stdin
""")


def _holder(home: Path, knowledge) -> subprocess.Popen:
    env = {**os.environ, "RESPONDER_HOME": str(home)}
    return subprocess.Popen(
        [sys.executable, "-c", HOLDER, knowledge.symptoms[0].id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_a_second_instance_never_offers_or_writes_a_live_incident(home, knowledge):
    first = _holder(home, knowledge)
    try:
        number = int(first.stdout.readline())
        live, _ = find_incident("held-incident")
        assert live.number == number and is_live_elsewhere(paths.incident_db(), number)
        # This process is the second window.
        scan = scan_incidents()
        assert scan.unfinished == [] and scan.live_elsewhere == 1
        with pytest.raises(StoreError, match="open in another responder window"):
            IncidentLog.reopen(live)
        check = subprocess.run(
            [
                sys.executable,
                "-c",
                "from responder.core.store import claim_data_folder;print(claim_data_folder())",
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "RESPONDER_HOME": str(home)},
        )
        assert "Another responder window is open on this data folder (pid" in check.stdout
        it = Interview.start(knowledge, STRICT)
        it.answer(1, Answer.NO)  # a separate incident, in the same database
        assert it.incident.number != number
        assert find_incident("held-incident")[0].events == live.events
        it.incident.close()
    finally:
        first.stdin.close()
        first.wait(timeout=30)
    # The first window is gone (its lock with it): its incident is offered now.
    assert not is_live_elsewhere(paths.incident_db(), number)
    assert "held-incident" in [d.id for d in scan_incidents().unfinished]


def test_the_app_of_a_second_instance_says_so(home, knowledge):
    first = _holder(home, knowledge)
    try:
        first.stdout.readline()
        app = make_app()
        assert app.unfinished == []
        assert any("Another responder window" in m for m, _ in app.notices)
    finally:
        first.stdin.close()
        first.wait(timeout=30)


WRITER = textwrap.dedent("""
    import sys, time
    from responder.core.store import IncidentLog
    log = IncidentLog.create({}, {}, sys.argv[1], time.time())
    for k in range(int(sys.argv[2])):
        log.answer(f"symptom_{k}", "yes", time.time(), False)
        assert not log.pending
""")


def test_two_windows_writing_at_once_lose_nothing(home):
    """Both write their own incident into the one database at the same moment."""
    env = {**os.environ, "RESPONDER_HOME": str(home)}
    with open_db_first(home):
        pass
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, name, "150"], env=env)
        for name in ("window-a", "window-b")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    for name in ("window-a", "window-b"):
        assert len(find_incident(name)[0].answers) == 150
    conn = sqlite3.connect(paths.incident_db())
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()


def open_db_first(home: Path):
    """Create the database before the writers start (as the app does at start-up)."""
    from responder.core.store import open_database  # noqa: PLC0415

    return open_database()


# -- keymaps and export paths ------------------------------------------------------------------


@pytest.mark.parametrize(
    "keys, words, kept",
    [
        ({"answer.yes": "notakey"}, "'notakey' is not a key name", ("answer.yes", "y")),
        ({"answer.no": "y"}, "'y' already triggers \"answer.yes\"", ("answer.no", "n")),
        ({"answr.yes": "k"}, 'did you mean "answer.yes"', ("answer.yes", "y")),
        # a key written as its character: "/" is the search's slash, "+" adds a victim
        ({"help": "/"}, "'/' already triggers \"volunteer\"", ("volunteer", "slash")),
        ({"history": "+"}, "'+' already triggers \"victim.add\"", ("history", "h")),
    ],
)
async def test_bad_keymaps_are_reported_and_not_applied(home, keys, words, kept):
    from conftest import make_app  # noqa: PLC0415

    from responder.settings import Settings, save_settings  # noqa: PLC0415

    save_settings(Settings(keys=keys))
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert any(words in m for m, _ in app.notices), app.notices
        # Not applied: the binding keeps its own key, and the bad key does not trigger it.
        bound = {key: active.binding.id for key, active in app.screen.active_bindings.items()}
        binding_id, key = kept
        assert bound.get(key) == binding_id, bound
        assert [k for k, b in bound.items() if b == binding_id] == [key], bound


def test_export_paths_are_resolved_from_the_exports_folder(home, knowledge):
    exports = (home / "data" / "exports").resolve()
    assert resolve_export_dir("") == exports
    assert resolve_export_dir("../x") == (home / "data" / "x").resolve()
    assert resolve_export_dir("~/out") == Path("~/out").expanduser().resolve()
    it = Interview.start(knowledge, InterviewConfig("chemical", "symptom", "strict"), journal=False)
    it.answer(0, Answer.YES)
    md, js = export_interview(it, "../x")
    assert md.parent == (home / "data" / "x").resolve() and md.exists() and js.exists()
    assert md.is_absolute()
    # atomic writes leave no temporary files behind
    assert sorted(p.name for p in md.parent.iterdir()) == sorted([md.name, js.name])


async def type_export_folder(app, pilot, folder: str) -> None:
    """Open the export dialog and type ``folder`` into it."""
    from textual.widgets import Input  # noqa: PLC0415

    await pilot.pause()
    app.action_export() if hasattr(app, "action_export") else app.screen.action_export()
    await pilot.pause()
    app.screen.query_one("#export-dir", Input).value = folder
    await pilot.pause()


async def test_the_export_dialog_refuses_a_folder_with_a_pasted_escape(home):
    from conftest import make_app  # noqa: PLC0415
    from textual.widgets import Static  # noqa: PLC0415

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await type_export_folder(app, pilot, "reports\x1b[2J")
        error = str(app.screen.query_one("#export-error", Static).render())
        assert "holds the control character U+001B" in error and "\x1b" not in error
        assert str(app.screen.query_one("#export-target", Static).render()) == ""
        await pilot.press("enter")
        await pilot.pause()
        assert "holds the control character" in str(
            app.screen.query_one("#export-error", Static).render()
        )
        assert not any((home / "data").rglob("interview-*"))


async def test_the_export_dialog_shows_the_full_paths_before_writing(home):
    from conftest import make_app  # noqa: PLC0415
    from textual.widgets import Static  # noqa: PLC0415

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await type_export_folder(app, pilot, "../elsewhere")
        widget = app.screen.query_one("#export-target", Static)
        shown = str(widget.render())
        target = (home / "data" / "elsewhere").resolve()
        # at 80 columns the folder is broken only after a '/', each file name whole on a line
        lines = shown.split("\n")
        stem = f"interview-{app.interview.id}"
        assert lines[0] == "Writes into" and lines[-2:] == [f"{stem}.md", f"{stem}.json"]
        assert "".join(lines[1:-2]) == f"{target}/" and all(x.endswith("/") for x in lines[1:-2])
        assert max(map(len, lines)) <= widget.size.width
        assert "outside" not in shown
        assert not target.exists()  # nothing written yet


async def test_the_unsaved_dialog_quotes_an_error_with_brackets_as_it_is():
    """The dialog's error quotes the database's path: '[/]' in it stopped the app with a
    MarkupError, '[old]' vanished."""
    error = "cannot write to the incident database /media/usb [old]/a[/]b/incidents.sqlite"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        app.push_screen(UnsavedScreen("quit", lambda: error, lambda: 1, error))
        assert await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))
        await settle(pilot)
        detail = "".join(str(app.screen.query_one("#unsaved-detail").render()).split())
        assert "".join(error.split()) in detail


async def test_the_status_line_wraps_a_long_not_saved_note_with_single_spaces(disk):
    """At 80x24 the note's last row read '... database is  loc…': the rows past the second
    were joined to it with a space after the space each wrapped row ends with."""
    from responder.app.widgets.panels import StatusLine  # noqa: PLC0415

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await _answer_twice_unsaved(pilot, app, disk)
        rows = str(app.interview_screen.query_one(StatusLine).render()).splitlines()
        assert len(rows) == 3 and rows[1].lstrip().startswith("NOT SAVED")
        assert all("  " not in row.strip() for row in rows[1:]), rows


async def test_a_not_saved_toast_breaks_the_database_path_only_after_a_separator(disk, home):
    """At 80x24 the toast read '.../data/incidents.sqli' and 'te: database is locked': a
    path is broken only after a '/', each name whole, as the export's notice is."""
    from app_helpers import notified  # noqa: PLC0415
    from test_snapshots import screen_text  # noqa: PLC0415

    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await _answer_twice_unsaved(pilot, app, disk)
        assert await notified(pilot, app, "Answer kept")
        await settle(pilot)
        (toast,) = [t for t in app.screen.query("Toast") if t.parent.display]
        region = toast.content_region
        screen = screen_text(app).splitlines()
        rows = [
            screen[y][region.x : region.right].strip().replace("$RESPONDER_HOME", str(home))
            for y in range(region.y, region.bottom)
        ]
    text = " ".join(rows)
    assert "NOT saved (2 changes waiting" in text
    path = str(paths.incident_db())
    assert path in "".join(rows) or path in text
    for name in path.strip("/").split("/"):
        assert any(name in row for row in rows), (name, rows)


async def test_a_retry_says_it_is_trying_while_it_waits_and_is_not_queued_twice():
    """'r' on the unsaved-changes dialog waits up to the busy timeout (5 s) while another
    program holds the database, and the screen froze meanwhile, saying nothing: it looked
    hung, and an 'r' pressed again queued a second 5 s wait. The dialog now says it is
    trying while it waits, keys still work, and a second 'r' starts no second try."""
    import threading  # noqa: PLC0415

    calls, release = [], threading.Event()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))

        def retry():
            calls.append(1)
            release.wait(5)
            return "database is locked"

        app.push_screen(UnsavedScreen("quit", retry, lambda: 1, "database is locked"))
        assert await until(pilot, lambda: isinstance(app.screen, UnsavedScreen))

        def title() -> str:
            return str(app.screen.query_one("#unsaved-title").render())

        await pilot.press("r")
        assert await until(pilot, lambda: "Trying again" in title(), 3.0)
        await pilot.press("r", "escape", "d")  # taken while it waits: no second try
        await settle(pilot)
        assert isinstance(app.screen, UnsavedScreen) and len(calls) == 1
        release.set()
        assert await until(pilot, lambda: "NOT saved" in title(), 5.0)
        detail = str(app.screen.query_one("#unsaved-detail").render())
        assert "tried again 1 time" in detail and len(calls) == 1
