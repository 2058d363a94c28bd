"""The journal: append-only, fsync'd, replayable, tolerant of a torn last line."""

from __future__ import annotations

import json
import os

from core_fixtures import home, knowledge  # noqa: F401 (pytest fixtures)

from responder.config import InterviewConfig
from responder.core.journal import Journal, list_journals, read_journal, unfinished
from responder.core.session import Interview
from responder.engine.state import Answer


def test_events_are_one_json_line_each(home):
    j = Journal.create({"name": "kb"}, {"target": "chemical"})
    j.answer("cough", "yes", 1.0, False)
    j.answer("headache", "no", 2.0, True)
    j.undo("headache")
    j.config({"suggest": "category"})
    j.end("new")
    lines = j.path.read_text().splitlines()
    assert [json.loads(x)["event"] for x in lines] == [
        "start",
        "answer",
        "answer",
        "undo",
        "config",
        "end",
    ]
    assert j.path.parent == home / "data" / "journal"
    data = read_journal(j.path)
    assert [(a.symptom, a.answer) for a in data.answers] == [("cough", "yes")]
    assert data.config == {"target": "chemical", "suggest": "category"}
    assert data.finished and data.end_reason == "new"


def test_every_append_is_fsynced(home, monkeypatch):
    calls = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd)))
    j = Journal.create({}, {})
    n = len(calls)
    j.answer("cough", "yes", 1.0, False)
    assert len(calls) == n + 1


def test_replay_follows_the_engine(knowledge):
    """Changing an answer moves it to the end; undo puts the replaced answer back."""
    it = Interview.start(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    it.answer(0, Answer.YES)
    it.answer(3, Answer.NO)
    it.answer(0, Answer.NO)  # changed
    it.answer(5, Answer.UNKNOWN, volunteered=True)
    it.undo()
    it.undo()  # undoes the change: 0 is yes again, before 3
    it.remove(3)
    it.answer(7, Answer.YES)
    data = read_journal(it.journal.path)
    records = [(knowledge.symptoms[r.query].id, r.answer.value, r.at) for r in it.records]
    assert [(a.symptom, a.answer, a.at) for a in data.answers] == records
    # ... and the engine holds the same answers in the same order
    assert [(r.query, r.answer) for r in it.records] == [
        (a.query, a.answer) for a in it.state.answers
    ]
    assert [a.symptom for a in data.answers] == [knowledge.symptoms[q].id for q in (0, 7)]


def test_torn_lines_and_garbage_are_skipped(home):
    j = Journal.create({}, {})
    j.answer("cough", "yes", 1.0, False)
    with open(j.path, "a") as fh:
        fh.write('{"event": "answer", "symp')
    j.answer("headache", "no", 2.0, False)  # starts on a fresh line
    data = read_journal(j.path)
    assert [a.symptom for a in data.answers] == ["cough", "headache"]
    assert data.torn_lines == 1


def test_unreadable_or_empty_files_are_not_interviews(home):
    d = home / "data" / "journal"
    d.mkdir(parents=True)
    (d / "empty.jsonl").write_text("")
    (d / "junk.jsonl").write_text("not json\n[1,2]\n")
    assert list_journals() == []
    assert unfinished() == []


def test_unfinished_lists_newest_first_and_skips_finished(home):
    a = Journal.create({}, {}, started=100.0)
    a.answer("cough", "yes", 101.0, False)
    b = Journal.create({}, {}, started=200.0)
    b.answer("cough", "yes", 201.0, False)
    c = Journal.create({}, {}, started=300.0)
    c.answer("cough", "yes", 301.0, False)
    c.end("completed")
    assert [d.id for d in unfinished()] == [b.id, a.id]


def test_an_unwritable_folder_is_reported_not_raised(knowledge, home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "data").write_text("a file where the folder should be")
    it = Interview.start(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    it.answer(0, Answer.YES)
    assert it.journal is None and "journal" in it.journal_error
    assert it.asked == 1  # the answer itself is kept on screen
    it.answer(1, Answer.NO)
    (home / "data").unlink()  # the disk is writable again: every answer so far is written
    it.answer(2, Answer.UNKNOWN)
    assert it.journal_error is None
    assert [a.symptom for a in read_journal(it.journal.path).answers] == [
        knowledge.symptoms[q].id for q in (0, 1, 2)
    ]


def test_start_up_reads_only_the_tail_of_finished_journals(home, monkeypatch):
    import responder.core.journal as journal

    done = Journal.create({}, {})
    done.answer("cough", "yes", 1.0, False)
    done.end("completed")
    open_one = Journal.create({}, {})
    open_one.answer("cough", "no", 2.0, False)
    read = []
    real = journal.read_journal
    monkeypatch.setattr(journal, "read_journal", lambda p: (read.append(p), real(p))[1])
    assert [d.id for d in unfinished()] == [open_one.id]
    assert read == [open_one.path]
