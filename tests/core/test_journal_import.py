"""Journals of earlier versions become incidents on first use: answers, undo history,
settings and end state kept; damaged lines skipped and reported; files moved, never
deleted."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from core_fixtures import home, knowledge  # noqa: F401 (pytest fixtures)

from responder import paths
from responder.core.journal_import import FORMAT_VERSION
from responder.core.session import Interview
from responder.core.store import find_incident, list_incidents, open_database, scan_incidents

START = {
    "event": "start",
    "id": "20260101-000000-abcdef",
    "at": 1000.0,
    "kb": {"name": "kb", "digest": "", "chemicals": 10},
    "config": {"target": "chemical", "suggest": "symptom", "mode": "strict"},
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


def answer(symptom: str, value: str = "yes", at: float = 1001.0, **more) -> dict:
    return {"event": "answer", "symptom": symptom, "answer": value, "at": at, **more}


def test_a_journal_becomes_an_incident_with_its_history_and_the_file_is_moved(home, knowledge):
    s0, s1, s2 = (knowledge.symptoms[k].id for k in range(3))
    path = write_journal(
        home,
        [
            START,
            answer(s0, "yes", 1001.0),
            answer(s1, "no", 1002.0, volunteered=True),
            answer(s0, "unknown", 1003.0),  # changed: moves to the end
            {"event": "victim", "index": 1, "name": "driver", "at": 1004.0},
            answer(s2, "yes", 1005.0, victim=1),
            {"event": "config", "config": {"suggest": "category"}, "at": 1006.0},
            {"event": "noted", "lines": [9], "at": 1007.0},
        ],
    )
    scan = scan_incidents()
    assert not path.exists() and (path.parent / "imported" / path.name).exists()
    assert any("1 interview journal of" in n for n in scan.notices)
    [data] = scan.unfinished
    assert data.id == START["id"] and data.imported_from == path.name
    assert data.started == 1000.0 and data.kb["name"] == "kb"
    assert data.config == {**START["config"], "suggest": "category"}
    assert [(a.symptom, a.answer, a.at, a.volunteered, a.victim) for a in data.answers] == [
        (s1, "no", 1002.0, True, 0),
        (s0, "unknown", 1003.0, False, 0),
        (s2, "yes", 1005.0, False, 1),
    ]
    assert data.victims == {0: "", 1: "driver"}
    # undo after resuming puts the earlier answer back, as it would have in the journal
    interview, warnings = Interview.resume(knowledge, data)
    assert interview.suggest == "category" and interview.victims == ["", "driver"]
    interview.undo()
    interview.undo()
    assert [(knowledge.symptoms[r.query].id, r.answer.value) for r in interview.records] == [
        (s0, "yes"),
        (s1, "no"),
    ]
    # imported once: the next start finds nothing more to import
    assert scan_incidents().notices == [] and len(list_incidents()[0]) == 1


def test_end_states_are_kept(home):
    write_journal(home, [START, answer("cough"), {"event": "end", "reason": "set-aside"}], "a")
    write_journal(
        home, [{**START, "id": "b"}, answer("cough"), {"event": "end", "reason": "new"}], "b"
    )
    write_journal(home, [{**START, "id": "c"}], "c")  # no answer: imported, not offered
    assert scan_incidents().unfinished == []
    found = {d.id: d for d in list_incidents()[0]}
    assert found["20260101-000000-abcdef"].end_reason == "set-aside"
    assert found["b"].end_reason == "new" and found["b"].finished
    assert not found["c"].finished and found["c"].answers == []


# -- damaged journals: imported as far as they read, reported once --------------------------


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
    "victim not a number": '{"event": "answer", "symptom": "s2", "answer": "no", "victim": "x"}',
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_journal_is_imported_as_far_as_it_reads_and_reported_once(
    home, knowledge, damage
):
    s0, s1, s2 = (knowledge.symptoms[k].id for k in range(3))
    line = DAMAGE[damage].replace('"s2"', f'"{s2}"')
    path = write_journal(home, [START, answer(s0), line, answer(s1, "no", 1002.0)])
    # a bad time alone does not make the answer unreadable: it keeps the previous time
    readable = [s0, s2, s1] if damage == "time far in the future" else [s0, s1]
    if damage == "bad UTF-8":
        path.write_bytes(path.read_bytes().replace('"\u00ff"'.encode(), b'"\xff"'))
    scan = scan_incidents()
    [data] = scan.unfinished
    assert [a.symptom for a in data.answers] == readable
    assert all(a.at == 1001.0 for a in data.answers if a.symptom == s2)
    damaged = [n for n in scan.notices if "is damaged" in n]
    assert len(damaged) == 1 and f"{path} is damaged (line 3:" in damaged[0]
    n = len(readable)
    said = f"{n} readable answer{'' if n == 1 else 's'} {'was' if n == 1 else 'were'} imported"
    assert f"{said} as incident {data.id}" in damaged[0]
    interview, _ = Interview.resume(knowledge, data)
    assert interview.asked == len(readable) and data.started_text != "?"
    assert (path.parent / "imported" / path.name).exists()  # the file itself is kept
    again = scan_incidents()
    assert again.notices == [] and [a.symptom for a in again.unfinished[0].answers] == readable


def test_answers_without_a_start_line_are_still_imported(home, knowledge):
    s0 = knowledge.symptoms[0].id
    path = write_journal(home, ["{torn start", answer(s0)], "20260202-000000-aaaaaa")
    [data] = scan_incidents().unfinished
    assert data.id == path.stem and [a.symptom for a in data.answers] == [s0]


def test_a_newer_format_is_left_alone(home):
    path = write_journal(home, [{**START, "version": FORMAT_VERSION + 1}, answer("s0")])
    before = path.read_bytes()
    scan = scan_incidents()
    assert scan.unfinished == [] and any("newer responder" in n for n in scan.notices)
    assert path.read_bytes() == before and list_incidents()[0] == []


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
    scan = scan_incidents()
    moved = d / "damaged" / path.name
    assert not os.path.lexists(path) and os.path.lexists(moved)
    assert scan.unfinished == [] and f"moved aside to {moved}" in scan.notices[0]
    if kind == "binary":
        assert moved.read_bytes() == b"\x00\x01\x02" * 100


def test_an_id_that_would_leave_the_exports_folder_is_replaced(home):
    write_journal(home, [{**START, "id": "x/../../../escaped"}, answer("cough")], "bad id")
    [data] = list_incidents()[0]
    assert "/" not in data.id and data.id != "bad id"


def test_an_import_interrupted_before_the_move_is_not_stored_twice(home):
    path = write_journal(home, [START, answer("cough")])
    copy = path.read_bytes()
    scan_incidents()
    path.write_bytes(copy)  # as if the app had stopped after storing it, before moving it
    scan_incidents()
    assert len(list_incidents()[0]) == 1
    assert {p.name for p in (path.parent / "imported").iterdir()} == {
        path.name,
        f"{path.stem}.1.jsonl",
    }


def test_two_journals_with_one_id_become_two_incidents(home):
    write_journal(home, [START, answer("cough")], "first")
    write_journal(home, [START, answer("fever")], "second")
    found = list_incidents()[0]
    assert len(found) == 2 and len({d.id for d in found}) == 2
    assert find_incident(START["id"])[0] is not None


def test_the_imported_database_passes_its_integrity_check(home, knowledge):
    write_journal(home, [START, answer(knowledge.symptoms[0].id)])
    with open_database():
        pass
    conn = sqlite3.connect(paths.incident_db())
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()


def test_an_evidence_journal_without_its_evidence_settings_replays_as_it_ran(home):
    """QA round 12: a journal of the evidence mode that stored no "evidence" table (every
    setting the knowledge base's) resumed with the long-row discount, the textbook
    presentation and the route views, which its version did not have; a journal storing
    an empty table resumed without them."""
    from responder.kb.loader import load_bundled

    kb = load_bundled()
    start = {**START, "config": {"target": "chemical", "suggest": "symptom", "mode": "evidence"}}
    write_journal(home, [start, answer("skin_burns"), answer("cough", "no")])
    scan_incidents()
    data, _ = find_incident(START["id"])
    it, warnings = Interview.resume(kb, data, write=False)
    assert it.mode == "evidence" and not warnings
    assert it.evidence.several_routes_share == 1.0
    assert it.evidence.long_row_exponent == 0.0 and it.evidence.textbook_share == 0.0
