"""``responder incidents list | show | export`` and ``interview --jsonl --save``: what the
protocol stores is what the commands list, in a database that is whole and in WAL mode;
and a protocol killed at any moment loses no answer it had acknowledged."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from responder import paths
from responder.cli import main
from responder.config import InterviewConfig
from responder.core.session import Interview
from responder.core.store import IncidentLog
from responder.kb.resolve import load_knowledge

FIXTURE_KB = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kb"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RESPONDER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def protocol(lines: list[dict | str], *options: str, home: Path) -> subprocess.CompletedProcess:
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    return subprocess.run(
        [sys.executable, "-m", "responder.cli", "interview", "--jsonl", *options],
        input=text,
        capture_output=True,
        text=True,
        env={**os.environ, "RESPONDER_HOME": str(home)},
        timeout=120,
    )


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


TWO_VICTIMS = [
    {"symptom": "cough", "answer": "yes"},
    {"symptom": "odour_bleach", "answer": "yes", "victim": "driver"},  # the scene: once
    {"symptom": "tearing", "answer": "no", "victim": "driver"},
    {"symptom": "headache", "answer": "unknown"},
    {"symptom": "headache", "answer": "yes"},  # changed
    {"symptom": "wheezing", "answer": "yes", "victim": "driver"},
    {"undo": True},
    {"symptom": "dizziness", "answer": "yes", "victim": "driver"},
]


def test_a_saved_protocol_run_with_two_victims_is_listed_with_every_answer(home, capsys):
    done = protocol(TWO_VICTIMS, "--save", home=home)
    assert done.returncode == 0, done.stderr
    replies = [json.loads(x) for x in done.stdout.splitlines()]
    assert not [r for r in replies if "error" in r]
    incident = replies[-1]["incident"]
    code, out, _ = run(capsys, "incidents", "list", "--json")
    assert code == 0
    [listed] = json.loads(out)
    assert replies[-1]["status"] == "asking"
    assert listed["id"] == incident and listed["status"] == "open"  # still asking: resumable
    assert [v["name"] for v in listed["victims"]] == ["", "driver"]
    own = {
        v["name"]: [(a["symptom"], a["answer"]) for a in v["answers"]] for v in listed["victims"]
    }
    assert own == {
        "": [("cough", "yes"), ("headache", "yes")],
        "driver": [("tearing", "no"), ("dizziness", "yes")],
    }
    # the second victim answered "several victims" for the incident
    shared = [("pattern_several_victims", "yes"), ("odour_bleach", "yes")]
    assert [(a["symptom"], a["answer"]) for a in listed["incident_answers"]] == shared
    assert listed["answers"] == 6 and len(listed["order"]) == 6
    # ... exactly what the protocol's last state said each victim had answered
    last = replies[-1]["victims"]
    for victim, stated in zip(listed["victims"], last, strict=True):
        given = [(a["symptom"], a["answer"]) for a in stated["answers"] if not a.get("implied")]
        mine = [(a["symptom"], a["answer"]) for a in victim["answers"]]
        assert sorted(given) == sorted(mine + shared)
    assert listed["changed_answers"][0]["was"] == "unknown"
    assert listed["top"]["text"]  # the bundled knowledge base is available unchanged
    conn = sqlite3.connect(paths.incident_db())
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_the_first_name_given_names_the_first_victim_when_nothing_was_asked_of_them(home, capsys):
    lines = [
        {"symptom": "yellow-green cloud", "answer": "yes"},  # the incident's, no victim yet
        {"symptom": "cough", "answer": "yes", "victim": "Anna"},
        {"symptom": "tearing", "answer": "no", "victim": "Ben"},
    ]
    done = protocol(lines, "--save", home=home)
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.splitlines()[-1])
    assert [v["name"] for v in last["victims"]] == ["Anna", "Ben"]
    code, out, _ = run(capsys, "incidents", "list", "--json")
    [listed] = json.loads(out)
    assert [v["label"] for v in listed["victims"]] == ["Victim 1 (Anna)", "Victim 2 (Ben)"]
    assert [[a["symptom"] for a in v["answers"]] for v in listed["victims"]] == [
        ["cough"],
        ["tearing"],
    ]


def test_a_saved_run_still_asking_is_stored_unfinished_to_resume(home, capsys):
    done = protocol([{"symptom": "cough", "answer": "yes"}], "--save", home=home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["status"] == "asking"
    code, out, _ = run(capsys, "incidents", "list", "--json")
    [listed] = json.loads(out)
    assert listed["status"] == "open" and listed["answers"] == 1


def test_a_saved_run_that_reached_a_result_is_stored_completed(home, capsys):
    lines = [{"symptom": "pinpoint_pupils", "answer": "yes"}]
    options = ("--save", "--kb", str(FIXTURE_KB), "--mode", "strict", "--target", "class")
    done = protocol(lines, *options, home=home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["status"] == "identified"
    [listed] = json.loads(run(capsys, "incidents", "list", "--json")[1])
    assert listed["status"] == "completed"


def test_a_protocol_run_without_save_stores_nothing(home, capsys):
    done = protocol(TWO_VICTIMS[:2], home=home)
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[-1])["incident"] is None
    assert run(capsys, "incidents", "list", "--json")[1].strip() == "[]"


def test_save_that_cannot_write_stops_at_once_with_one_line(home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "data").write_text("a file where the data folder should be")
    done = protocol(TWO_VICTIMS[:1], "--save", home=home)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("responder: error: --save: ") and done.stderr.count("\n") == 1


def _stored_interview(knowledge, victims: int = 2) -> Interview:
    it = Interview.start(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    it.answer(0, "yes")
    for v in range(1, victims):
        it.add_victim(f"victim {v}")
        it.answer(1, "no", victim=v)
    return it


def test_show_lists_every_victims_answers_in_order(home, capsys):
    knowledge = load_knowledge(str(FIXTURE_KB))
    it = _stored_interview(knowledge)
    code, out, _ = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "show", it.id)
    assert code == 0 and f"Incident {it.id} (open)" in out
    s0, s1 = (knowledge.symptoms[k] for k in range(2))
    assert f"Victim 1:\n  {time.strftime('%H:%M:%S', time.localtime(it.records[0].at))}" in out
    assert f"{s0.label} ({s0.id}): yes" in out and f"{s1.label} ({s1.id}): no" in out
    assert "Victim 2 (victim 1):" in out and "target chemical" in out and "strict mode" in out
    code, out, _ = run(capsys, "incidents", "show", it.id, "--json", "--kb", str(FIXTURE_KB))
    data = json.loads(out)
    assert [v["label"] for v in data["victims"]] == ["Victim 1", "Victim 2 (victim 1)"]
    assert data["config"]["mode"] == "strict" and data["top"]["text"]


def test_show_without_the_knowledge_base_still_lists_the_answers(home, capsys):
    knowledge = load_knowledge(str(FIXTURE_KB))
    it = _stored_interview(knowledge, victims=1)
    code, out, _ = run(capsys, "incidents", "show", it.id)  # recorded on a test folder
    assert code == 0 and f"{knowledge.symptoms[0].id}: yes" in out and "give one with --kb" in out


def test_list_shows_a_table_and_the_status_of_each(home, capsys):
    knowledge = load_knowledge(str(FIXTURE_KB))
    first = _stored_interview(knowledge)
    first.end("new")
    second = _stored_interview(knowledge, victims=1)
    code, out, _ = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "list")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:3] == ["ID", "Started", "Knowledge"]
    assert second.id in lines[1] and "open" in lines[1]  # newest first
    assert first.id in lines[2] and "ended (new interview)" in lines[2] and " 2 " in lines[2]


def test_export_writes_the_reports_into_the_exports_folder(home, capsys):
    knowledge = load_knowledge(str(FIXTURE_KB))
    it = _stored_interview(knowledge)
    code, out, _ = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "export", it.id)
    md, js = (Path(x) for x in out.split())
    exports = home / "data" / "exports"
    assert code == 0 and md.parent == exports.resolve() and md.name == f"interview-{it.id}.md"
    assert "responder interview report" in md.read_text()
    assert json.loads(js.read_text())["interview_id"] == it.id
    code, out, _ = run(
        capsys, "--kb", str(FIXTURE_KB), "incidents", "export", it.id[:10], "--format", "json"
    )
    assert code == 0 and out.split() == [str(js)]


def test_an_export_that_cannot_be_written_names_the_place_and_the_fix(home, capsys, monkeypatch):
    """'the report could not be written: Operation not permitted' (or 'Is a directory')
    named no file; a file in place of the folder was told to 'give a folder', which the
    command line has no option for."""
    knowledge = load_knowledge(str(FIXTURE_KB))
    it = _stored_interview(knowledge)
    exports = home / "data" / "exports"
    (exports / f"interview-{it.id}.json").mkdir(parents=True)
    code, out, err = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "export", it.id)
    assert code == 2 and out == ""
    assert err.strip() == (
        f"responder: error: the report could not be written: "
        f"{exports.resolve() / f'interview-{it.id}.json'} is a folder; move it away, or export "
        "only the other format (--format)"
    )
    (exports / f"interview-{it.id}.json").rmdir()

    def refused(path, *_, **__):  # as a folder this process may not write (root may)
        raise PermissionError(13, "Permission denied", str(path.parent / ".x.tmp"))

    with monkeypatch.context() as patched:
        patched.setattr("responder.core.export.atomic_write_text", refused)
        code, _, err = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "export", it.id)
    assert code == 2 and err.strip() == (
        f"responder: error: the report could not be written to {exports.resolve()}: Permission "
        "denied; make the exports folder writable, or set RESPONDER_HOME to a folder that is"
    )
    shutil.rmtree(exports)
    exports.write_text("a file in the folder's place")
    code, _, err = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "export", it.id)
    assert code == 2 and err.strip() == (
        f"responder: error: the report could not be written: {exports.resolve()} is a file "
        "where the exports folder should be; move it away (the folder is created when needed)"
    )


def test_an_export_name_from_a_stored_id_never_leaves_the_exports_folder(home, capsys):
    IncidentLog.create({}, {}, "x", 1000.0, answers=[("cough", "yes", 1001.0, False, 0)]).close()
    conn = sqlite3.connect(paths.incident_db())
    conn.execute("UPDATE incidents SET id = 'x/../../../escaped'")  # edited by hand
    conn.commit()
    conn.close()
    code, out, err = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "export", "1")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "folder separator" in err and "edited by hand" in err
    assert not list(home.parent.glob("**/escaped*"))


@pytest.mark.parametrize(
    "argv, words",
    [
        (["incidents", "show", "nope"], "no incident 'nope'"),
        (["incidents", "export", "12345"], "no incident '12345'"),
        (["incidents", "export", "1", "--format", "pdf"], "invalid choice: 'pdf'"),
        (["incidents"], "incidents needs a command"),
        (["incidents", "list", "--kb", "/nonexistent/kb"], "/nonexistent/kb"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(home, capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("responder: error: ") and words in err and err.count("\n") == 1


@pytest.mark.parametrize("command", ["show", "export"])
def test_an_empty_id_names_no_incident(home, capsys, command):
    """'' is the start of every id: with one incident stored, show '' showed it."""
    _stored_interview(load_knowledge(str(FIXTURE_KB)))
    code, out, err = run(capsys, "--kb", str(FIXTURE_KB), "incidents", command, "")
    assert (code, out) == (2, "")
    assert err == (
        "responder: error: the incident ID is empty; give its id, its number or the start "
        "of its id (see `responder incidents list`)\n"
    )


@pytest.mark.parametrize("key", ["\u00b2", "\u0661", "1\u00b2"])
def test_an_id_of_other_scripts_digits_is_no_incident_not_a_traceback(home, capsys, key):
    """str.isdigit() holds for "²", which int() refuses: show ² ended in a ValueError."""
    _stored_interview(load_knowledge(str(FIXTURE_KB)))
    code, out, err = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "show", key)
    assert (code, out) == (2, "")
    assert err == f"responder: error: no incident {key!r} (see `responder incidents list`)\n"


def store_incidents(n: int) -> list[str]:
    """n finished incidents, one second apart; their ids, newest first."""
    ids = [f"2026010{1 + k // 60:d}-12{k % 60:02d}00-abc{k:03d}" for k in range(n)]
    for k, incident_id in enumerate(ids):
        log = IncidentLog.create(
            {"name": "bundled"},
            {},
            incident_id,
            1_767_000_000 + k,
            answers=[("cough", "yes", 1_767_000_000 + k, False, 0)],
        )
        log.end("completed")
        log.close()
    return ids[::-1]


def test_the_table_lists_the_newest_page_and_says_how_to_list_the_rest(home, capsys, monkeypatch):
    import responder.cli.incidents as incidents

    monkeypatch.setattr(incidents, "LIST_PAGE", 2)
    newest = store_incidents(5)

    def listed(*options: str) -> tuple[list[str], str]:
        code, out, _ = run(capsys, "incidents", "list", *options)
        assert code == 0
        lines = out.splitlines()
        return [line.split()[0] for line in lines[1:] if line.startswith("2026")], lines[-1]

    ids, last = listed()
    assert ids == newest[:2]
    assert last == "Listed 2 of 5 incidents; --skip 2 for older ones, --all for every one."
    ids, last = listed("--skip", "2", "--limit", "3")
    assert ids == newest[2:5]
    assert last == "Listed 3 of 5 incidents after the newest 2; --all for every one."
    assert listed("--all")[0] == newest
    assert listed("--skip", "9")[1] == "No incident past the newest 9 of 5 incidents."
    # --limit 0 said "No incident past the newest 0 of 5 incidents", as if there were none
    assert listed("--limit", "0") == (
        [],
        "Listed 0 of 5 incidents (--limit 0); --limit N for the N newest, --all for every one.",
    )
    assert listed("--skip", "2", "--limit", "0")[1] == (
        "Listed 0 of 5 incidents after the newest 2 (--limit 0); --limit N for the N newest, "
        "--all for every one."
    )
    every = json.loads(run(capsys, "incidents", "list", "--json")[1])
    assert [d["id"] for d in every] == newest  # JSON lists every incident unless told
    one = json.loads(run(capsys, "incidents", "list", "--json", "--limit", "1", "--skip", "1")[1])
    assert [d["id"] for d in one] == newest[1:2]


@pytest.mark.parametrize(
    "options", [("--limit", "x"), ("--limit", "-1"), ("--skip", "1e3"), ("--all", "--limit", "2")]
)
def test_a_bad_page_of_the_list_is_one_line_and_exit_2(home, capsys, options):
    try:
        code = main(["incidents", "list", *options])
    except SystemExit as exc:  # refused by the option parser
        code = exc.code
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("responder: error: ") and err.count("\n") == 1


def test_a_newer_database_is_one_line_and_exit_2(home, capsys):
    paths.incident_db().parent.mkdir(parents=True)
    conn = sqlite3.connect(paths.incident_db())
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    code, _, err = run(capsys, "incidents", "list")
    assert code == 2 and "newer responder" in err and err.count("\n") == 1
    # what to do about it, in words that fit the command line too (it said 'this window')
    assert "window" not in err
    assert err.rstrip().endswith(
        "open it with that newer responder, or move it out of the data folder to start a new one"
    )


# -- kill -9 at any moment ---------------------------------------------------------------------


def test_a_protocol_killed_at_any_moment_loses_no_acknowledged_answer(home):
    """Answers stream in; the process is killed with SIGKILL after a different number of
    acknowledged answers each time. Every answer it had replied to is in the database, and
    the database is whole."""
    symptoms = [s.id for s in load_knowledge(None).symptoms][:60]
    env = {**os.environ, "RESPONDER_HOME": str(home)}
    acknowledged: dict[str, list[str]] = {}
    # (after how many acknowledged answers, how long the next one may run before the kill)
    for trial, (kill_after, delay) in enumerate(
        ((1, 0.0), (4, 0.002), (9, 0.005), (17, 0.01), (30, 0.03))
    ):
        proc = subprocess.Popen(
            [sys.executable, "-m", "responder.cli", "interview", "--jsonl", "--save"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        try:
            proc.stdout.readline()  # the start state
            given: list[str] = []
            incident = None
            for k, symptom in enumerate(symptoms):
                line = {"symptom": symptom, "answer": "yes" if (k + trial) % 2 else "no"}
                proc.stdin.write((json.dumps(line) + "\n").encode())
                proc.stdin.flush()
                if k == kill_after:
                    time.sleep(delay)
                    os.kill(proc.pid, signal.SIGKILL)  # mid-answer: this one may or may not land
                    break
                reply = json.loads(proc.stdout.readline())
                incident = reply["incident"]
                given.append(symptom)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=30)
        acknowledged[incident] = given
    conn = sqlite3.connect(paths.incident_db())
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    from responder.core.store import list_incidents  # noqa: PLC0415

    found = {d.id: [a.symptom for a in d.answers] for d in list_incidents()[0]}
    for incident, given in acknowledged.items():
        assert found[incident][: len(given)] == given
        assert len(found[incident]) <= len(given) + 1  # at most the one in flight


def test_list_shows_the_number_that_show_takes(home, capsys):
    """`show ID` takes an incident's number, but the list showed no numbers: a responder who
    counted rows (newest first) and typed `show 1` got the oldest incident instead."""
    knowledge = load_knowledge(str(FIXTURE_KB))
    first = _stored_interview(knowledge)
    first.end("new")
    second = _stored_interview(knowledge, victims=1)
    code, out, _ = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "list")
    header, *rows = out.splitlines()
    assert code == 0 and " No. " in header, header
    at = header.index(" No. ") + 1
    for it, row in zip((second, first), rows, strict=True):
        number = row[at:].split()[0]
        assert number.isdigit(), row
        shown = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "show", number)[1]
        assert f"Incident {it.id} " in shown, (number, row)


def test_a_long_json_listing_is_written_in_one_piece(monkeypatch):
    """json.dump wrote every token with its own call: 11 million writes for 10,000
    incidents, most of the 18 s `incidents list --json` took."""
    import io

    from responder.cli import print_json

    class CountingOut(io.StringIO):
        writes = 0

        def write(self, text):
            CountingOut.writes += 1
            return super().write(text)

    out = CountingOut()
    monkeypatch.setattr("sys.stdout", out)
    rows = [{"id": k, "answers": [{"symptom": "cough", "answer": "yes"}] * 3} for k in range(500)]
    print_json(rows)
    assert json.loads(out.getvalue()) == rows and CountingOut.writes == 1


def test_show_says_no_answers_recorded_for_a_victim_with_none_in_text_and_json(home, capsys):
    knowledge = load_knowledge(str(FIXTURE_KB))
    it = _stored_interview(knowledge)
    it.add_victim()  # stored, never asked anything
    code, out, _ = run(capsys, "--kb", str(FIXTURE_KB), "incidents", "show", it.id)
    assert code == 0 and "Victim 3:\n  (no answers recorded)" in out
    assert out.count("no answers recorded") == 1
    code, out, _ = run(capsys, "incidents", "show", it.id, "--json", "--kb", str(FIXTURE_KB))
    victims = json.loads(out)["victims"]
    assert [(len(v["answers"]), v.get("note")) for v in victims] == [
        (1, None),
        (1, None),
        (0, "no answers recorded"),
    ]


def test_a_protocol_reply_says_when_its_answers_are_not_saved(home):
    """With --save and a database that cannot be written (locked by another program, a
    full disk), every answer was acknowledged with a reply like any other: the client
    learnt only at the end of input, from exit 2, that none was stored."""
    from responder.cli.interview import Protocol, serve  # noqa: PLC0415
    from responder.kb.resolve import resolve_kb  # noqa: PLC0415

    kb = resolve_kb(None)
    interview = Interview.start(kb, InterviewConfig(), journal=True)
    home.mkdir(parents=True, exist_ok=True)
    (home / "data").write_text("a file where the data folder should be")
    lines = [{"symptom": "cough", "answer": "yes"}, {"symptom": "tearing", "answer": "no"}]
    out = io.StringIO()
    text = "".join(json.dumps(x) + "\n" for x in lines)
    serve(Protocol(kb, interview), io.StringIO(text), out)
    start, first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert not any("NOT SAVED" in n for n in start["notices"])
    assert [n for n in first["notices"] if n.startswith("NOT SAVED: 1 change waiting")]
    (said,) = [n for n in second["notices"] if n.startswith("NOT SAVED: 2 changes waiting")]
    assert "incident database" in said
    (home / "data").unlink()  # writable again: the next line writes both and says nothing
    out = io.StringIO()
    serve(
        Protocol(kb, interview),
        io.StringIO(json.dumps({"symptom": "wheezing", "answer": "yes"}) + "\n"),
        out,
    )
    *_, last = (json.loads(x) for x in out.getvalue().splitlines())
    assert last["asked"] == 3 and not [n for n in last["notices"] if "NOT SAVED" in n]


def test_a_count_past_the_largest_is_not_called_negative(home, capsys):
    """'--limit 99999999999999999999' was refused as 'not a whole number of 0 or more'."""
    code = main(["incidents", "list", "--limit", "99999999999999999999"])
    err = capsys.readouterr().err
    assert code == 2 and "is not a whole number from 0 to 1,000,000,000" in err


def test_a_database_another_program_holds_says_what_to_do(home, capsys, monkeypatch):
    """'cannot open the incident database ...: database is locked', and nothing more."""
    from responder.core import store  # noqa: PLC0415

    store_incidents(1)
    monkeypatch.setattr(store, "BUSY_TIMEOUT", 0.2)
    holder = sqlite3.connect(paths.incident_db(), isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("SELECT count(*) FROM incidents").fetchall()
    try:
        code, out, err = run(capsys, "incidents", "list")
    finally:
        holder.close()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "database is locked (another program has held it for over 0.2 s" in err
    assert err.rstrip().endswith("close it and try again)")


def test_an_id_pasted_with_spaces_is_found_and_a_huge_one_is_quoted_short(home, capsys):
    """'incidents show " 1 "' (a number or an id pasted with the blanks around it) answered
    "no incident ' 1 '"; and a 5,000-digit ID was quoted whole in a 5,000-character line."""
    [newest] = store_incidents(1)
    for key in (" 1 ", f"{newest}\t", f"  {newest[:15]}"):
        code, out, err = run(capsys, "incidents", "show", key)
        assert code == 0 and f"Incident {newest}" in out, (key, err)
    code, _, err = run(capsys, "incidents", "show", "9" * 5000)
    assert code == 2 and len(err) < 200 and "5,000 characters" in err


@pytest.mark.parametrize("command", ["show", "export"])
def test_an_id_of_bytes_that_are_not_utf8_is_no_incident_not_a_traceback(home, command):
    """'incidents show' with an ID pasted from a terminal in another encoding (the byte
    0xff: a lone surrogate in Python's argv) stopped with a UnicodeEncodeError traceback from
    SQLite; no id holds such a character, so it is 'no incident', exit 2."""
    store_incidents(1)
    env = {**os.environ, "RESPONDER_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "responder.cli", "incidents", command, b"1\xff"],
        capture_output=True,
        env=env,
    )
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2 and "Traceback" not in err, err
    assert err.startswith("responder: error: no incident '1") and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv, code, words",
    [
        (["incidents", "list"], 0, "No incidents stored yet."),
        (["incidents", "list", "--json"], 0, "[]"),
        (["incidents", "show", "1"], 2, "no incident '1'"),
        (["incidents", "export", "1"], 2, "no incident '1'"),
        (["incidents", "show", "20261128"], 2, "no incident '20261128'"),
    ],
)
def test_reading_incidents_in_a_home_that_does_not_exist_creates_nothing(
    home, capsys, argv, code, words
):
    """`incidents list` (show, export) with a RESPONDER_HOME that does not exist (a typo, a
    fresh machine) created the folders and an empty incident database: a command that only
    reads says there is nothing stored and leaves the disk as it was."""
    assert not home.exists()
    assert main(argv) == code
    out = capsys.readouterr()
    assert words in out.out + out.err
    assert not home.exists()
    home.mkdir()  # the home folder alone, without its data folder: the same
    assert main(argv) == code
    out = capsys.readouterr()
    assert words in out.out + out.err
    assert [p.name for p in home.iterdir()] == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX resource limits")
def test_a_file_size_limit_that_stops_the_saving_is_named_with_what_to_do(home):
    """Under `ulimit -f` (a shell's or a launcher's file-size limit) every answer retried the
    changes waiting and said only 'cannot write to the incident database ...: disk I/O
    error', which reads as a failing disk. SQLite cannot tell the two apart; the store can:
    the limit is small and a file of the database has reached it. The message names the
    limit and says to run responder under a larger one."""
    import resource

    limit = 48 * 1024  # room for the empty database, not for a long incident

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    lines = []
    for k in range(300):
        lines += [{"symptom": "cough", "answer": "yes", "victim": f"v{k % 60}"}, {"undo": True}]
    text = "".join(json.dumps(x) + "\n" for x in lines)
    done = subprocess.run(
        [sys.executable, "-m", "responder.cli", "interview", "--jsonl", "--save", "--top", "1"],
        input=text,
        capture_output=True,
        text=True,
        env={**os.environ, "RESPONDER_HOME": str(home)},
        timeout=300,
        preexec_fn=small_files,
    )
    notices = [n for line in done.stdout.splitlines() for n in json.loads(line).get("notices", [])]
    assert notices, done.stderr
    said = notices[-1]
    assert "the file-size limit (ulimit -f) is 48 KB" in said, said
    assert "ulimit -f unlimited" in said
    assert done.returncode == 2 and "file-size limit" in done.stderr
