"""Nothing lost, nothing bricked: damaged journals, a full disk, two app instances, keymaps
and export paths. Each test sets up one way the app could lose answers or fail to start
and checks that it does neither."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from responder.config import InterviewConfig
from responder.core import journal as journal_module
from responder.core.export import export_interview, resolve_export_dir
from responder.core.journal import (
    FORMAT_VERSION,
    Journal,
    JournalError,
    read_journal,
    scan_journals,
)
from responder.core.session import Interview
from responder.engine.state import Answer

START = {
    "event": "start",
    "id": "x",
    "at": 1000.0,
    "kb": {"name": "kb"},
    "config": {"target": "chemical"},
    "version": FORMAT_VERSION,
}


def journal_dir(home: Path) -> Path:
    d = home / "data" / "journal"
    d.mkdir(parents=True, exist_ok=True)
    return d


def write_journal(home: Path, lines: list, name: str = "20260101-000000-abcdef") -> Path:
    path = journal_dir(home) / f"{name}.jsonl"
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    path.write_text(text, encoding="utf-8")
    return path


def answer(symptom: str, value: str = "yes", at: float = 1001.0) -> dict:
    return {"event": "answer", "symptom": symptom, "answer": value, "at": at}


# -- damaged journals (49 of 308 fuzzed journals stopped the app at every start) ----------


DAMAGE = {
    "time far in the future": '{"event": "answer", "symptom": "s2", "answer": "no", "at": 1e12}',
    "time NaN": '{"event": "answer", "symptom": "s2", "answer": "no", "at": NaN}',
    "time Infinity": '{"event": "answer", "symptom": "s2", "answer": "no", "at": Infinity}',
    "config not an object": '{"event": "config", "config": [1, 2]}',
    "noise not an object": '{"event": "config", "config": {"noise": "loud"}}',
    "eps Infinity": '{"event": "config", "config": {"noise": {"enabled": true, "eps": Infinity}}}',
    "400-digit number": '{"event": "config", "config": {"noise": {"eps": ' + "9" * 400 + "}}}",
    "foreign shape": '["answer", "s2", "no"]',
    "unknown event": '{"event": "explode"}',
    "not JSON": "this is not json",
    "bad UTF-8": b'{"event": "answer", "symptom": "\xff"}'.decode("latin-1"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_line_is_reported_once_and_the_readable_answers_are_offered(
    home, knowledge, damage
):
    s0, s1, s2 = (knowledge.symptoms[k].id for k in range(3))
    line = DAMAGE[damage].replace('"s2"', f'"{s2}"')
    path = write_journal(home, [START, answer(s0), line, answer(s1, "no", 1002.0)])
    # a bad time alone does not make the answer unreadable: it keeps the previous time
    readable = [s0, s2, s1] if damage == "time far in the future" else [s0, s1]
    if damage == "bad UTF-8":
        path.write_bytes(path.read_bytes().replace('"\u00ff"'.encode(), b'"\xff"'))
    scan = scan_journals()
    assert [d.path for d in scan.unfinished] == [path]
    data = scan.unfinished[0]
    assert [a.symptom for a in data.answers] == readable
    assert len(scan.notices) == 1 and f"{path} is damaged (line 3:" in scan.notices[0]
    assert f"{len(readable)} readable answer(s)" in scan.notices[0]
    assert all(a.at == 1001.0 for a in data.answers if a.symptom == s2)
    # Resuming works, and the screens' texts can be built
    interview, _ = Interview.resume(knowledge, data)
    assert interview.asked == len(readable) and data.started_text != "?"
    interview.journal.close()
    # Reported once: the app records a noted event, and the next start is quiet about it.
    Journal(path, data.id).noted([p.line for p in data.problems])
    again = scan_journals()
    assert again.notices == [] and [a.symptom for a in again.unfinished[0].answers] == readable


def test_the_app_starts_on_damaged_journals_and_says_so_once(home, knowledge):
    from conftest import make_app  # noqa: PLC0415

    s0 = knowledge.symptoms[0].id
    write_journal(home, [START, answer(s0), DAMAGE["time NaN"], DAMAGE["eps Infinity"]])
    app = make_app()
    assert len(app.unfinished) == 1
    messages = [m for m, _ in app.notices if "is damaged" in m]
    assert len(messages) == 1 and "line 3" in messages[0] and "line 4" in messages[0]
    app2 = make_app()
    assert not [m for m, _ in app2.notices if "is damaged" in m]


def test_answers_without_a_start_line_are_still_offered(home, knowledge):
    s0 = knowledge.symptoms[0].id
    path = write_journal(home, ["{torn start", answer(s0)])
    data = scan_journals().unfinished[0]
    assert data.path == path and [a.symptom for a in data.answers] == [s0]


def test_a_newer_format_is_left_alone(home):
    path = write_journal(home, [{**START, "version": FORMAT_VERSION + 1}, answer("s0")])
    before = path.read_bytes()
    scan = scan_journals()
    assert scan.unfinished == [] and "newer responder" in scan.notices[0]
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", ["binary", "fifo", "oversized"])
def test_an_unreadable_journal_is_moved_aside_never_deleted(home, kind):
    d = journal_dir(home)
    path = d / "20260101-000000-badbad.jsonl"
    if kind == "binary":
        path.write_bytes(b"\x00\x01\x02" * 100)
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        with open(path, "wb") as fh:
            fh.truncate(64 * 1024 * 1024)
    scan = scan_journals()
    moved = d / "damaged" / path.name
    assert not os.path.lexists(path) and os.path.lexists(moved)
    assert scan.unfinished == [] and f"moved aside to {moved}" in scan.notices[0]
    if kind == "binary":
        assert moved.read_bytes() == b"\x00\x01\x02" * 100


# -- a full disk: answers stay pending and are written later -------------------------------


@pytest.fixture(params=["tmpfs", "simulated"])
def full_disk(request, home, tmp_path, monkeypatch):
    """A data folder on a tiny disk, and a function that fills it (True) or frees it."""
    if request.param == "tmpfs":
        mount = tmp_path / "disk"
        mount.mkdir()
        ok = (
            subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True
            ).returncode
            == 0
        )
        if not ok:
            pytest.skip("tmpfs cannot be mounted here (the simulated ENOSPC case runs)")
        request.addfinalizer(lambda: subprocess.run(["umount", "-l", str(mount)]))
        monkeypatch.setenv("RESPONDER_HOME", str(mount / "home"))
        filler = mount / "filler"

        def fill(full: bool) -> None:
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

    state = {"full": False}
    real_write = os.write

    def write(fd, data):
        if state["full"]:
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(journal_module.os, "write", write)
    return lambda full: state.__setitem__("full", full)


def test_answers_given_while_the_disk_is_full_are_written_later(full_disk, knowledge):
    it = Interview.start(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    n = len(knowledge.symptoms)

    def engine_answers():
        return [(knowledge.symptoms[r.query].id, r.answer.value) for r in it.state.answers]

    def on_disk():
        return [(a.symptom, a.answer) for a in read_journal(it.journal.path).answers]

    it.answer(0, Answer.YES)
    assert it.unsaved == 0 and it.journal is not None
    full_disk(True)
    k = 1
    # (on a real disk the file's last block may still have room: answer until a write fails)
    while it.unsaved == 0 and k < 400:
        it.answer(k % n, Answer.YES if k % 2 else Answer.NO)
        k += 1
    assert it.unsaved == 1 and "No space left" in it.journal_error
    saved = on_disk()
    it.answer(k % n, Answer.UNKNOWN)
    assert it.unsaved == 2
    assert on_disk() == saved  # nothing of the failed writes reached the file...
    assert read_journal(it.journal.path).problems == []  # ...not even a torn line
    full_disk(False)
    it.answer((k + 1) % n, Answer.YES)  # the next write carries the pending ones first
    assert it.unsaved == 0 and it.journal_error is None
    assert on_disk() == engine_answers()
    it.journal.close()


# -- two instances on one data folder --------------------------------------------------------


HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from responder.core.journal import Journal, claim_data_folder
    assert claim_data_folder() is None
    j = Journal.create({"name": "kb"}, {"target": "chemical"})
    j.answer(sys.argv[1], "yes", time.time(), False)
    print(j.path, flush=True)
    sys.stdin.read()  # hold the locks until the test closes stdin
""")


def test_a_second_instance_never_offers_or_appends_to_a_live_interview(home, knowledge):
    env = {**os.environ, "RESPONDER_HOME": str(home)}
    first = subprocess.Popen(
        [sys.executable, "-c", HOLDER, knowledge.symptoms[0].id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        live = Path(first.stdout.readline().strip())
        before = live.read_bytes()
        # This process is the second window.
        scan = scan_journals()
        assert scan.unfinished == [] and scan.live_elsewhere == 1
        with pytest.raises(JournalError, match="open in another responder window"):
            Journal.reopen(read_journal(live))
        check = subprocess.run(
            [
                sys.executable,
                "-c",
                "from responder.core.journal import claim_data_folder;print(claim_data_folder())",
            ],
            capture_output=True,
            text=True,
            env=env,
        )
        assert "Another responder window is open on this data folder (pid" in check.stdout
        it = Interview.start(knowledge, InterviewConfig("chemical", "symptom", "strict"))
        it.answer(1, Answer.NO)  # a separate interview, in its own file
        assert it.journal.path != live and live.read_bytes() == before
        it.journal.close()
    finally:
        first.stdin.close()
        first.wait(timeout=30)
    # The first window is gone: its interview is offered now (next to this window's own).
    assert live in [d.path for d in scan_journals().unfinished]


def test_the_app_of_a_second_instance_says_so(home, knowledge):
    from conftest import make_app  # noqa: PLC0415

    env = {**os.environ, "RESPONDER_HOME": str(home)}
    first = subprocess.Popen(
        [sys.executable, "-c", HOLDER, knowledge.symptoms[0].id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        first.stdout.readline()
        app = make_app()
        assert app.unfinished == []
        assert any("Another responder window" in m for m, _ in app.notices)
    finally:
        first.stdin.close()
        first.wait(timeout=30)


# -- keymaps and export paths ------------------------------------------------------------------


@pytest.mark.parametrize(
    "keys, words, kept",
    [
        ({"answer.yes": "notakey"}, "'notakey' is not a key name", ("answer.yes", "y")),
        ({"answer.no": "y"}, "'y' already triggers \"answer.yes\"", ("answer.no", "n")),
        ({"answr.yes": "k"}, 'did you mean "answer.yes"', ("answer.yes", "y")),
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


async def test_the_export_dialog_shows_the_full_paths_before_writing(home):
    from conftest import make_app  # noqa: PLC0415
    from textual.widgets import Input, Static  # noqa: PLC0415

    app = make_app()
    async with app.run_test() as pilot:
        await pilot.pause()
        app.action_export() if hasattr(app, "action_export") else app.screen.action_export()
        await pilot.pause()
        app.screen.query_one("#export-dir", Input).value = "../elsewhere"
        await pilot.pause()
        shown = str(app.screen.query_one("#export-target", Static).render())
        target = (home / "data" / "elsewhere").resolve()
        assert f"{target}/interview-" in shown and "outside" not in shown
        assert not target.exists()  # nothing written yet
