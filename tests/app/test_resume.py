"""Session safety: every answer is stored at once, and an unfinished incident is offered
for resume with every answer kept, after a simulated crash and after a real kill."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from app_helpers import notified, settle, suggested, until
from conftest import FIXTURE_KB, SIZE, make_app

from responder.app.screens.interview import InterviewScreen
from responder.app.screens.resume import ResumeScreen
from responder.config import InterviewConfig, NoiseSettings
from responder.core.store import find_incident, list_incidents, scan_incidents
from responder.engine.state import Answer


def snapshot(interview):
    return [(r.query, r.answer, r.volunteered, r.at) for r in interview.records]


def stored(incident_id: str):
    return find_incident(incident_id)[0]


def unfinished():
    return scan_incidents().unfinished


async def _give_answers(pilot, app):
    await settle(pilot)
    await pilot.press("y")
    await settle(pilot)
    await pilot.press("u")
    await settle(pilot)
    await pilot.press("slash")
    await settle(pilot)
    await pilot.press(*"cough", "enter")
    await settle(pilot)
    await pilot.press("n")
    await settle(pilot)
    await pilot.press("m")  # a mode change is stored too
    await settle(pilot)


async def test_resume_after_a_simulated_crash():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _give_answers(pilot, app)
        before = snapshot(app.interview)
        assert len(before) == 3
        incident = app.interview.id
    # The app went away without quitting: no "end" event.
    data = stored(incident)
    assert not data.finished and len(data.answers) == 3
    assert [u.id for u in unfinished()] == [data.id]

    app2 = make_app()
    async with app2.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app2.screen, ResumeScreen))
        await pilot.press("enter")
        assert await until(pilot, lambda: isinstance(app2.screen, InterviewScreen))
        assert snapshot(app2.interview) == before  # answers, order, flags and times
        assert app2.interview.suggest == "category"  # the mode came back too
        assert app2.interview.id == incident  # and it goes on in the same incident
        await pilot.press("e")  # keys work at once after the resume
        await settle(pilot)
        assert app2.interview.state.noise is not None
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    assert len(stored(incident).answers) == 4


async def test_declining_resume_sets_the_interview_aside():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _give_answers(pilot, app)
        incident = app.interview.id
    app2 = make_app()
    async with app2.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app2.screen, ResumeScreen))
        await pilot.press("n")
        assert await until(pilot, lambda: isinstance(app2.screen, InterviewScreen))
        assert app2.interview.asked == 0
    assert stored(incident).end_reason == "set-aside"
    assert unfinished() == []
    assert stored(incident).answers  # the answers stay on disk


async def test_declining_resume_while_the_database_is_held_says_it_is_offered_again(
    monkeypatch,
):
    """n on the resume list while another program held the database: the set-aside failed
    without a word, so the crew believed the old incident put away, and it came back at
    the next start. The notice says it was not set aside and will be offered again."""
    import sqlite3  # noqa: PLC0415

    from responder import paths  # noqa: PLC0415
    from responder.core import store  # noqa: PLC0415

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _give_answers(pilot, app)
    monkeypatch.setattr(store, "BUSY_TIMEOUT", 0.2)
    app2 = make_app()
    holder = sqlite3.connect(paths.incident_db(), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        async with app2.run_test(size=SIZE, notifications=True) as pilot:
            assert await until(pilot, lambda: isinstance(app2.screen, ResumeScreen))
            await pilot.press("n")
            assert await until(pilot, lambda: isinstance(app2.screen, InterviewScreen))
            assert await notified(pilot, app2, "not set aside")
    finally:
        holder.rollback()
        holder.close()
    assert len(unfinished()) == 1  # offered again, as the notice said


async def test_a_torn_write_at_the_end_of_the_log_is_ignored():
    """A write cut off by a kill leaves a partial frame at the end of the write-ahead log;
    it is not part of any committed change, so it is ignored and the next answer goes on."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _give_answers(pilot, app)
        before = snapshot(app.interview)
    # The first window's connection is still open (as after a kill: nothing checkpointed).
    wal = Path(f"{app.interview.incident.path}-wal")
    size = wal.stat().st_size
    with open(wal, "ab") as fh:
        fh.write(b"\x37\x7f\x06\x82" + b"torn frame" * 50)  # killed mid-write
    assert wal.stat().st_size > size
    app2 = make_app()
    async with app2.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        assert await until(pilot, lambda: isinstance(app2.screen, InterviewScreen))
        assert snapshot(app2.interview) == before
        await pilot.press("y")
        await settle(pilot)
        assert app2.interview.unsaved == 0
    assert len(stored(app2.interview.id).answers) == 4


async def test_undo_and_changed_answers_replay_exactly():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = suggested(app)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        app.interview.answer(first, Answer.UNKNOWN)  # changed in the history
        app.interview.undo()  # undo puts the earlier "yes" back
        before = snapshot(app.interview)
        assert app.interview.answer_of(first) is Answer.YES
    app2 = make_app()
    async with app2.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        assert await until(pilot, lambda: isinstance(app2.screen, InterviewScreen))
        assert snapshot(app2.interview) == before


async def test_quitting_on_the_result_screen_leaves_the_incident_open_to_add_a_victim(capsys):
    """ctrl+q on the result screen stored the incident as completed: it was never offered
    again, so a crew told of another victim later could not add them to it."""
    from app_helpers import answer_from_row

    from responder.app.screens.result import ResultScreen
    from responder.cli import main as cli_main

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await answer_from_row(pilot, app, "VX")
        assert isinstance(app.screen, ResultScreen)
        incident = app.interview.id
        answers = len(app.interview.records)
        await pilot.press("ctrl+q")
        await settle(pilot)
    assert stored(incident).end_reason is None
    assert [data.id for data in unfinished()] == [incident]
    cli_main(["incidents", "list", "--json"])
    import json

    listed = json.loads(capsys.readouterr().out)
    assert [(i["id"], i["status"]) for i in listed] == [(incident, "open")]

    again = make_app()
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, ResumeScreen)
        await pilot.press("enter")
        assert await until(pilot, lambda: again.interview is not None)
        assert again.interview.id == incident
        # the result opens again by itself; left, once it takes keys, for the interview
        assert await until(pilot, lambda: isinstance(again.screen, ResultScreen))
        assert await until(pilot, lambda: again.screen.taking_keys)
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(again.screen, InterviewScreen))
        await pilot.press("plus")
        await settle(pilot)
        await pilot.press("slash", *"cough", "enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    kept = stored(incident)
    assert len(kept.victim_names()) == 2
    assert len(kept.answers) == answers + 1
    assert (kept.answers[-1].symptom, kept.answers[-1].victim) == ("cough", 1)


async def test_a_new_interview_chosen_on_the_resume_list_completes_those_with_a_result():
    """Quitting leaves an incident open even on its result; when the next start's resume
    list is declined with n, one that had reached a result is stored as completed, as
    ctrl+n would, and one still asking as set aside."""
    from app_helpers import answer_from_row

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await answer_from_row(pilot, app, "VX")
        with_result = app.interview.id
        await pilot.press("ctrl+q")
        await settle(pilot)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")  # not this one: a new interview
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("y")
        await settle(pilot)
        asking = app.interview.id
        await pilot.press("ctrl+q")
        await settle(pilot)
    assert stored(with_result).end_reason == "completed"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ResumeScreen)
        await pilot.press("n")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
    assert stored(asking).end_reason == "set-aside"
    assert unfinished() == []


async def test_a_new_interview_after_a_result_finishes_the_incident_as_completed():
    """Starting a new interview is how a responder finishes one: after a result it is
    stored as completed, and no longer offered for resume."""
    from app_helpers import answer_from_row

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await answer_from_row(pilot, app, "VX")
        incident = app.interview.id
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.interview.id != incident
    assert stored(incident).end_reason == "completed"
    assert unfinished() == []


async def test_quitting_mid_interview_keeps_it_for_resume():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("ctrl+q")
        await settle(pilot)
    assert len(unfinished()) == 1


async def test_an_interview_with_no_answer_writes_nothing_and_is_not_offered():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("m")  # a mode change alone is nothing to keep
        await settle(pilot)
    assert list_incidents()[0] == []
    app2 = make_app()
    async with app2.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app2.screen, InterviewScreen))


# -- a real kill ------------------------------------------------------------------------------


def _drain(fd: int, seconds: float) -> bytes:
    out = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return out


class _Terminal:
    """Reads everything the child writes, so it never blocks on a full pty."""

    def __init__(self, fd: int):
        self.fd = fd
        self.screen = b""

    def wait_for(self, predicate, timeout: float = 20.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.screen += _drain(self.fd, 0.1)
            if predicate():
                return True
        return False


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
async def test_kill_9_mid_interview_loses_no_answer(home: Path):
    proc, master = _app_in_a_terminal(home, rows=40, cols=120)

    def answers() -> int:
        found, _ = list_incidents()
        return len(found[0].answers) if found else -1

    term = _Terminal(master)
    try:
        assert term.wait_for(lambda: b"Does the victim have" in term.screen), (
            "the app did not show its first question"
        )
        for k, key in enumerate((b"y", b"n", b"u"), start=1):
            os.write(master, key)
            assert term.wait_for(lambda k=k: answers() == k, 10), f"answer {k} not stored"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        os.close(master)

    pending = unfinished()
    assert len(pending) == 1 and [a.answer for a in pending[0].answers] == ["yes", "no", "unknown"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, ResumeScreen))
        await pilot.press("enter")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert [r.answer for r in app.interview.state.answers] == [
            Answer.YES,
            Answer.NO,
            Answer.UNKNOWN,
        ]


def _app_in_a_terminal(home: Path, rows: int = 24, cols: int = 80):
    """The real app in a pseudo-terminal (80x24 unless told) on its first question:
    (process, master)."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    env = {**os.environ, "RESPONDER_HOME": str(home), "TERM": "xterm-256color"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "responder.cli", "--kb", str(FIXTURE_KB)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    return proc, master


def _answers_stored() -> int:
    found, _ = list_incidents()
    return len(found[0].answers) if found else -1


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_or_sighup_ends_the_app_cleanly_with_every_answer_kept(home: Path, signum):
    """SIGTERM (a shutdown, kill) and SIGHUP killed the app where it stood: the answers were
    kept, but the terminal it was killed in stayed in its full-screen mode, without echo or
    cursor. The app now exits as ctrl+q does, the terminal put back, with 128 + the signal's
    number; the incident stays open for a resume."""
    proc, master = _app_in_a_terminal(home)
    term = _Terminal(master)
    try:
        assert term.wait_for(lambda: b"Does the victim have" in term.screen)
        for k, key in enumerate((b"y", b"n"), start=1):
            os.write(master, key)
            assert term.wait_for(lambda k=k: _answers_stored() == k, 10), f"answer {k} not stored"
        term.screen = b""
        os.kill(proc.pid, signum)
        assert term.wait_for(lambda: proc.poll() is not None, 20), "the app did not end"
        term.wait_for(lambda: False, 0.3)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        os.close(master)
    assert proc.returncode == 128 + signum
    assert b"\x1b[?1049l" in term.screen  # the terminal's own screen is back
    pending = unfinished()
    assert len(pending) == 1 and [a.answer for a in pending[0].answers] == ["yes", "no"]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_terminal_that_goes_away_ends_the_app_instead_of_a_busy_loop(home: Path):
    """Closing the terminal's other end without a SIGHUP left every read returning nothing:
    Textual's input thread took it for piped input and looped, the app running on unseen at
    two-thirds of a CPU. The end of the terminal's input is now a hang-up."""
    proc, master = _app_in_a_terminal(home)
    term = _Terminal(master)
    try:
        assert term.wait_for(lambda: b"Does the victim have" in term.screen)
        os.write(master, b"y")
        assert term.wait_for(lambda: _answers_stored() == 1, 10), "the answer was not stored"
    finally:
        os.close(master)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
        pytest.fail("the app ran on after its terminal went away")
    assert proc.returncode == 128 + signal.SIGHUP
    assert [a.answer for a in unfinished()[0].answers] == ["yes"]


def _incident_with_noise_and_a_late_mode_change(knowledge) -> str:
    """Two answers at fixed past times, then (now) a mode change: noise tolerance on."""
    from responder.core.session import Interview
    from responder.core.store import IncidentLog

    it = Interview(
        knowledge,
        InterviewConfig("chemical", "symptom", "noise", NoiseSettings(enabled=True, eps=1)),
    )
    first, second = (knowledge.symptoms[0].id, knowledge.symptoms[1].id)
    log = IncidentLog.create(
        knowledge.describe(),
        it.stored_config(),
        "noise-incident",
        1_000_000.0,
        answers=[(first, "yes", 1_000_010.0, False, 0), (second, "no", 1_000_020.0, False, 0)],
    )
    log.config(it.stored_config())  # written now, long after the last answer
    log.close()
    return log.id


async def test_resume_list_shows_the_last_answer_time_not_the_last_mode_change(knowledge):
    """The resume list's "last answer" is the time of the last answer, not of a later mode
    change."""
    from responder.app.screens.resume import last_answer_at
    from responder.core.store import time_text

    data = stored(_incident_with_noise_and_a_late_mode_change(knowledge))
    assert data.last_at > 1_000_020.0 + 3600  # the mode change came much later
    assert last_answer_at(data) == 1_000_020.0
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, ResumeScreen))
        row = app.screen.query_one("#resume-table").get_row_at(0)
        assert row[1] == time_text(1_000_020.0, "%H:%M:%S")
        assert row[1] != time_text(data.last_at, "%H:%M:%S")


async def test_noise_errors_column_is_shown_after_a_resume(knowledge):
    """The noise mode's Errors column is still shown after a resume."""
    from responder.app.widgets.panels import CandidatesTable

    _incident_with_noise_and_a_late_mode_change(knowledge)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, ResumeScreen))
        await pilot.press("enter")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await settle(pilot, 3)
        assert app.interview.noise_tolerated and len(app.interview.records) == 2
        table = app.screen.query_one(CandidatesTable)
        labels = [str(c.label) for c in table.ordered_columns]
        assert "Errors" in labels, labels


async def test_a_resume_returns_to_the_victim_being_asked_and_says_so():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert app.interview.victim == 1
    app2 = make_app()
    async with app2.run_test(size=SIZE, notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app2.screen, ResumeScreen))
        await pilot.press("enter")
        assert await until(pilot, lambda: isinstance(app2.screen, InterviewScreen))
        await pilot.pause()
        assert app2.interview.victim == 1 and len(app2.interview.victims) == 3
        assert await notified(pilot, app2, "asking Victim 2")


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_resume_list_says_how_many_victims_each_incident_has(knowledge, size):
    """Two unfinished incidents of the same hour, one of three victims (a fourth taken
    back) and one of one victim: the list showed their answers, not how many victims."""
    from responder.core.session import Interview

    crash = Interview.start(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    crash.answer(0, Answer.YES)
    for _ in range(3):
        crash.add_victim()
    crash.remove_victim()
    crash.answer(1, Answer.NO)
    crash.incident.close()
    alone = Interview.start(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    alone.answer(0, Answer.YES)
    alone.incident.close()
    app = make_app()
    async with app.run_test(size=size) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, ResumeScreen))
        await settle(pilot)
        table = app.screen.query_one("#resume-table")
        headings = [str(c.label) for c in table.ordered_columns]
        victims, answers = headings.index("Victims"), headings.index("Answers")
        rows = [table.get_row_at(r) for r in range(table.row_count)]
        assert sorted((row[answers], row[victims]) for row in rows) == [("1", "1"), ("2", "3")]
        assert "Most likely now" in headings
        assert sum(c.get_render_width(table) for c in table.ordered_columns) <= size[0]


async def test_the_resume_lists_title_lines_up_at_80x24():
    """The title's first line began two columns in and its wrapped second line one:
    'An unfinished ...' was written with a blank of its own before the padding."""
    from test_snapshots import screen_text

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    again = make_app()
    async with again.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(again.screen, ResumeScreen))
        await settle(pilot)
        first, second = screen_text(again).split("\n")[:2]
    assert first.startswith(" An unfinished interview was found.") and second.startswith(" i")
