"""The incident database: one row per change, committed durably, replayed as the engine
plays it, and a file that is not a database set aside instead of stopping the app."""

from __future__ import annotations

import os
import sqlite3
import time

import pytest
from core_fixtures import home, knowledge  # noqa: F401 (pytest fixtures)

from responder import paths
from responder.config import InterviewConfig
from responder.core import store
from responder.core.session import Interview
from responder.core.store import (
    SCHEMA_VERSION,
    IncidentLog,
    NewerDatabase,
    StoreError,
    find_incident,
    list_incidents,
    open_database,
    scan_incidents,
)
from responder.engine.state import Answer

STRICT = InterviewConfig("chemical", "symptom", "strict")


def stored(interview: Interview):
    data, _ = find_incident(interview.id)
    return data


def rows(sql: str, *args):
    conn = sqlite3.connect(paths.incident_db())
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def test_each_change_is_one_event_row_and_the_incident_row_follows(home, knowledge):
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.answer(1, Answer.NO, volunteered=True)
    it.undo()
    it.set_modes(suggest="category")
    it.add_victim("driver")
    it.answer(2, Answer.YES, victim=1)
    it.end("new")
    assert paths.incident_db() == home / "data" / "incidents.sqlite"
    kinds = rows("SELECT seq, kind, victim, symptom, answer FROM events ORDER BY seq")
    s = [knowledge.symptoms[k].id for k in range(3)]
    assert kinds == [
        (1, "answer", 0, s[0], "yes"),  # written with the incident, at the first answer
        (2, "answer", 0, s[1], "no"),
        (3, "undo", 0, s[1], None),
        (4, "config", None, None, None),
        (5, "victim", 1, None, None),
        (6, "answer", 1, s[2], "yes"),
        (7, "end", None, None, None),
    ]
    assert rows("SELECT idx, name FROM victims ORDER BY idx") == [(0, ""), (1, "driver")]
    data = stored(it)
    assert [(a.symptom, a.answer, a.victim) for a in data.answers] == [
        (s[0], "yes", 0),
        (s[2], "yes", 1),
    ]
    assert data.config["suggest"] == "category" and data.config == it.stored_config()
    assert data.finished and data.end_reason == "new" and data.ended is not None
    assert data.kb["digest"] == knowledge.digest and data.kb["chemicals"] == 10


def test_every_change_is_committed_before_the_call_returns(home, knowledge):
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    conn = it.incident.db.conn
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: fsync per commit
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    for k in range(1, 4):
        it.answer(k, Answer.NO)
        assert not conn.in_transaction
        # another connection (as another process would) sees it at once
        assert rows("SELECT COUNT(*) FROM events WHERE kind = 'answer'") == [(k + 1,)]
    assert rows("PRAGMA user_version") == [(SCHEMA_VERSION,)]


def test_replay_follows_the_engine(knowledge):
    """Changing an answer moves it to the end; undo puts the replaced answer back."""
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.answer(3, Answer.NO)
    it.answer(0, Answer.NO)  # changed
    it.answer(5, Answer.UNKNOWN, volunteered=True)
    it.undo()
    it.undo()  # undoes the change: 0 is yes again, before 3
    it.remove(3)
    it.answer(7, Answer.YES)
    data = stored(it)
    records = [(knowledge.symptoms[r.query].id, r.answer.value, r.at) for r in it.records]
    assert [(a.symptom, a.answer, a.at) for a in data.answers] == records
    assert [(r.query, r.answer) for r in it.records] == [
        (a.query, a.answer) for a in it.state.answers
    ]
    assert [a.symptom for a in data.answers] == [knowledge.symptoms[q].id for q in (0, 7)]


def test_undo_after_a_resume_puts_a_changed_answer_back(knowledge):
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.answer(1, Answer.NO)
    it.answer(0, Answer.UNKNOWN)  # changed: moves to the end
    it.incident.close()
    again, warnings = Interview.resume(knowledge, stored(it))
    assert not warnings and [r.query for r in again.records] == [1, 0]
    again.undo()
    assert [(r.query, r.answer) for r in again.records] == [(0, Answer.YES), (1, Answer.NO)]
    assert [(a.symptom, a.answer) for a in stored(it).answers] == [
        (knowledge.symptoms[0].id, "yes"),
        (knowledge.symptoms[1].id, "no"),
    ]


def test_an_unwritable_folder_is_reported_not_raised(knowledge, home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "data").write_text("a file where the folder should be")
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    assert it.incident is None and "incident database" in it.journal_error
    assert it.asked == 1 and it.unsaved == 1  # the answer itself is kept on screen
    it.answer(1, Answer.NO)
    assert it.unsaved == 2
    (home / "data").unlink()  # the disk is writable again: every answer so far is written
    it.answer(2, Answer.UNKNOWN)
    assert it.journal_error is None and it.unsaved == 0
    assert [a.symptom for a in stored(it).answers] == [knowledge.symptoms[q].id for q in (0, 1, 2)]


def test_save_retries_the_pending_writes(knowledge, home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "data").write_text("in the way")
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    assert not it.save() and it.unsaved == 1
    (home / "data").unlink()
    assert it.save() and it.unsaved == 0 and it.journal_error is None
    assert [a.answer for a in stored(it).answers] == ["yes"]


def _held_by_another_program():
    """A connection holding the incident database as an sqlite3 shell or a backup does."""
    holder = sqlite3.connect(paths.incident_db(), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    return holder


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def test_answers_while_another_program_holds_the_database_wait_once(knowledge, home, monkeypatch):
    """Every answer waited the full busy timeout (5 s: the screen or the protocol froze on
    each) while another program held the file; now only the first does, the rest are kept
    in memory at once, and the user's retry waits in full again."""
    monkeypatch.setattr(store, "BUSY_TIMEOUT", 0.6)
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)  # the incident exists
    holder = _held_by_another_program()
    try:
        first = _timed(lambda: it.answer(1, Answer.NO))
        assert first >= 0.6 and it.unsaved == 1
        said = it.journal_error
        assert "held it for over 0.6 s" in said
        later = [_timed(lambda q=q: it.answer(q, Answer.YES)) for q in (2, 3)]
        assert max(later) < 0.3 and it.unsaved == 3
        assert it.journal_error == said  # still the first try's message and wait
        assert _timed(lambda: it.save()) >= 0.6 and it.unsaved == 3  # the user's retry
    finally:
        holder.rollback()
        holder.close()
    it.answer(4, Answer.UNKNOWN)  # free again: everything written, in order
    assert it.unsaved == 0 and it.journal_error is None
    assert [a.symptom for a in stored(it).answers] == [knowledge.symptoms[q].id for q in range(5)]
    holder = _held_by_another_program()  # busy again later: the first try waits in full
    try:
        assert _timed(lambda: it.answer(5, Answer.NO)) >= 0.6 and it.unsaved == 1
    finally:
        holder.rollback()
        holder.close()


def test_an_incident_not_yet_created_while_the_database_is_held_waits_once(
    knowledge, home, monkeypatch
):
    monkeypatch.setattr(store, "BUSY_TIMEOUT", 0.6)
    open_database().close()
    holder = _held_by_another_program()
    try:
        it = Interview.start(knowledge, STRICT)
        assert _timed(lambda: it.answer(0, Answer.YES)) >= 0.6 and it.incident is None
        assert _timed(lambda: it.answer(1, Answer.NO)) < 0.3 and it.unsaved == 2
    finally:
        holder.rollback()
        holder.close()
    assert it.save() and [a.answer for a in stored(it).answers] == ["yes", "no"]


def test_ending_an_incident_waits_in_full_while_another_program_holds_it(
    knowledge, home, monkeypatch
):
    """The end of an interview (the end of protocol input with a result, ctrl+n) is the
    last write, as the user's retry is: it only glanced at a busy file (0.05 s) once an
    answer had found it held, so 'interview --jsonl --save' ended with exit 2 and the
    incident open when the other program let go a moment later."""
    import threading  # noqa: PLC0415

    monkeypatch.setattr(store, "BUSY_TIMEOUT", 3.0)
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    # another program holding the file, letting go from another thread a moment later
    holder = sqlite3.connect(paths.incident_db(), isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    released = threading.Event()

    def let_go() -> None:
        holder.rollback()
        holder.close()
        released.set()

    try:
        monkeypatch.setattr(store, "BUSY_TIMEOUT", 0.3)
        it.answer(1, Answer.NO)  # the first try waits and fails: later ones glance
        assert it.unsaved == 1
        monkeypatch.setattr(store, "BUSY_TIMEOUT", 3.0)
        timer = threading.Timer(0.5, let_go)
        timer.start()
        it.end("completed")
    finally:
        timer.join()
        if not released.is_set():
            let_go()
    assert it.unsaved == 0 and it.journal_error is None
    data = stored(it)
    assert data.end_reason == "completed" and len(data.answers) == 2


@pytest.mark.parametrize("in_the_way", ["data", "."])
def test_a_file_where_the_data_folder_should_be_is_named_with_what_to_do(home, in_the_way):
    """'cannot create the folder of the incident database .../data: File exists' (or 'Not a
    directory' for a file further up) said neither that the path is a file nor what to
    do; the app showed it at start and the protocol's --save stopped on it."""
    home.parent.mkdir(parents=True, exist_ok=True)
    if in_the_way == ".":
        home.write_text("a file where the home folder should be")
        file = home
    else:
        home.mkdir()
        file = home / "data"
        file.write_text("a file where the data folder should be")
    with pytest.raises(StoreError) as caught:
        open_database()
    said = str(caught.value)
    assert f"{file} is a file where a folder should be" in said
    assert "move it away" in said
    assert "File exists" not in said and "Not a directory" not in said


def test_unfinished_lists_newest_first_and_skips_finished_and_empty(home):
    made = []
    for started in (100.0, 200.0, 300.0):
        log = IncidentLog.create(
            {},
            {},
            f"incident-{int(started)}",
            started,
            answers=[("cough", "yes", started + 1, False, 0)],
        )
        made.append(log)
    made[2].end("completed")
    IncidentLog.create({}, {}, "no-answers", 400.0)
    assert [d.id for d in scan_incidents().unfinished] == ["incident-200", "incident-100"]
    everything, _ = list_incidents()
    assert [d.id for d in everything] == [
        "no-answers",
        "incident-300",
        "incident-200",
        "incident-100",
    ]


def test_an_incident_is_found_by_id_number_or_the_start_of_its_id(home):
    IncidentLog.create({}, {}, "20260101-100000-aaaaaa", 1.0)
    IncidentLog.create({}, {}, "20260101-110000-bbbbbb", 2.0)
    assert find_incident("20260101-10")[0].id == "20260101-100000-aaaaaa"
    assert find_incident("2")[0].id == "20260101-110000-bbbbbb"  # a number is a number
    assert find_incident("3")[0] is None
    assert find_incident("nothing")[0] is None
    with pytest.raises(StoreError, match="starts several incident ids"):
        find_incident("20260101-1")
    assert find_incident("%")[0] is None  # no pattern characters of SQL's LIKE


def test_digits_longer_than_any_number_are_the_start_of_an_id(home):
    """An id starts with its date: "20260101" can be no incident's number when there are two."""
    IncidentLog.create({}, {}, "20260101-100000-aaaaaa", 1.0)
    IncidentLog.create({}, {}, "20260102-110000-bbbbbb", 2.0)
    assert find_incident("20260102")[0].id == "20260102-110000-bbbbbb"
    with pytest.raises(StoreError, match="starts several incident ids"):
        find_incident("2026010")
    assert find_incident("3")[0] is None  # as long as a number: read only as one


# -- a database file that is not one -----------------------------------------------------------


def _valid_database_bytes(knowledge) -> bytes:
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.incident.close()
    conn = sqlite3.connect(paths.incident_db())
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return paths.incident_db().read_bytes()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "header only", "folder", "fifo"])
def test_a_damaged_database_is_moved_aside_reported_once_and_replaced(home, knowledge, damage):
    db = paths.incident_db()
    db.parent.mkdir(parents=True)
    if damage == "garbage":
        db.write_bytes(b"not a database at all " * 500)
    elif damage in ("truncated", "header only"):
        good = _valid_database_bytes(knowledge)
        for side in ("-wal", "-shm"):
            if os.path.exists(f"{db}{side}"):
                os.unlink(f"{db}{side}")
        db.write_bytes(good[: len(good) // 2 if damage == "truncated" else 100])
    elif damage == "folder":
        db.mkdir()
        (db / "something").write_text("kept")
    else:
        os.mkfifo(db)
    scan = scan_incidents()  # never raises, never blocks on the FIFO
    moved = list((home / "data" / "damaged").iterdir())
    assert [p.name.startswith("incidents-") for p in moved if p.suffix == ".sqlite"] == [True]
    assert len(scan.notices) == 1 and "moved aside to" in scan.notices[0]
    assert str(next(p for p in moved if p.suffix == ".sqlite")) in scan.notices[0]
    if damage == "folder":
        assert (next(p for p in moved if p.is_dir()) / "something").read_text() == "kept"
    # a fresh database works, and the next start says nothing more
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    assert it.unsaved == 0 and stored(it).answers
    assert scan_incidents().notices == []


def _damage_page_of(name: str) -> None:
    """Scramble the page of the database file that holds the root of table or index
    ``name`` (the file checkpointed, its write-ahead log gone)."""
    db = paths.incident_db()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    (page,) = conn.execute("SELECT rootpage FROM sqlite_schema WHERE name = ?", (name,)).fetchone()
    conn.close()
    data = bytearray(db.read_bytes())
    start = (page - 1) * size
    data[start : start + size] = bytes(b ^ 0x5A for b in data[start : start + size])
    db.write_bytes(bytes(data))


def test_a_damaged_page_is_reported_in_one_line(home, knowledge):
    """SQLite's check of a damaged page reads "*** in database main ***" and, on the next
    line, "Page 5: btreeInitPage() returns error code 11": the notice, which should be one
    line, spanned two and began with SQLite's banner."""
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.add_victim("driver")
    it.incident.close()
    _damage_page_of("sqlite_autoindex_victims_1")
    (notice,) = scan_incidents().notices
    assert "\n" not in notice and "***" not in notice, notice
    assert "moved aside to" in notice and "Page " in notice


def test_a_database_of_another_program_is_set_aside_not_used(home):
    db = paths.incident_db()
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE incidents (x)")
    conn.execute("INSERT INTO incidents VALUES ('theirs')")
    conn.commit()
    conn.close()
    with open_database() as opened:
        assert "another program" in opened.notices[0]
    moved = next((home / "data" / "damaged").glob("*.sqlite"))
    assert sqlite3.connect(moved).execute("SELECT x FROM incidents").fetchall() == [("theirs",)]


def test_a_newer_schema_is_left_alone_and_reported(home, knowledge):
    db = paths.incident_db()
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.execute("CREATE TABLE future (x)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    scan = scan_incidents()
    assert scan.unfinished == [] and len(scan.notices) == 1
    assert "newer responder" in scan.notices[0] and "left as it is" in scan.notices[0]
    with pytest.raises(NewerDatabase):
        open_database()
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)  # kept on screen, and the screen says why it is not saved
    assert it.unsaved == 1 and "newer responder" in it.journal_error
    assert db.read_bytes() == before and not (home / "data" / "damaged").exists()


def test_stored_values_that_cannot_be_used_are_reported_once(home, knowledge):
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.answer(1, Answer.NO)
    it.incident.close()
    conn = sqlite3.connect(paths.incident_db())
    conn.execute("UPDATE incidents SET config = '{\"noise\": [1'")  # edited by hand
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute("UPDATE events SET answer = 'maybe' WHERE seq = 2")
    conn.commit()
    conn.close()
    scan = scan_incidents()
    assert len(scan.notices) == 1 and "1 readable answer is" in scan.notices[0]
    assert [a.answer for a in scan.unfinished[0].answers] == ["yes"]
    resumed, _ = Interview.resume(knowledge, scan.unfinished[0], write=False)
    assert resumed.asked == 1
    again = scan_incidents()
    assert again.notices == [] and len(again.unfinished) == 1


def test_an_incident_with_scene_answers_resumes_and_undoes():
    """A query answered once for the incident is stored as the incident's (victim -1) and
    comes back as such, for every victim."""
    from responder.kb.resolve import load_knowledge  # noqa: PLC0415

    bundled = load_knowledge(None)
    odour, cough = bundled.symptom_index("odour_bleach"), bundled.symptom_index("cough")
    several = bundled.symptom_index("pattern_several_victims")
    it = Interview.start(bundled, STRICT)
    it.answer(odour, Answer.YES)
    it.add_victim("driver")  # a second victim answers "several victims" for the incident
    it.answer(cough, Answer.YES, victim=1)
    it.undo()
    it.answer(cough, Answer.NO, victim=1)
    data = stored(it)
    assert [(a.symptom, a.victim) for a in data.answers] == [
        ("odour_bleach", -1),
        ("pattern_several_victims", -1),
        ("cough", 1),
    ]
    again, warnings = Interview.resume(bundled, data)
    assert not warnings and again.victims == ["", "driver"]
    # replayed once, not answered again by the replayed victim
    assert [(r.query, r.victim) for r in again.records] == [(odour, -1), (several, -1), (cough, 1)]
    assert [r.query for r in again.victim_records(0)] == [odour, several]
    again.undo()
    again.undo()
    again.undo()
    assert again.records == [] and stored(it).answers == []


def test_no_change_the_database_refuses_can_block_later_ones(home):
    """Writes take any symptom id and victim number (a refused change would stay pending
    and hold back every later one); reading back bounds the victim number."""
    log = IncidentLog.create({}, {}, "long", 1.0)
    log.answer("s" * 5000, "yes", 2.0, False, victim=5)
    log.answer("cough", "no", 3.0, False, victim=20_000)
    log.answer("fever", "yes", 4.0, False)
    assert log.pending == []
    data, _ = find_incident("long")
    assert [(a.symptom, a.victim) for a in data.answers] == [("s" * 5000, 5), ("fever", 0)]
    assert data.problems == ["change 2: an unreadable answer; skipped"]


def test_naming_a_victim_is_stored_and_kept_on_resume(home, knowledge):
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.name_victim(0, "  the   driver ")
    it.add_victim("cyclist")
    it.name_victim(1, "rider")
    assert it.victims == ["the driver", "rider"]
    assert rows("SELECT idx, name FROM victims ORDER BY idx") == [(0, "the driver"), (1, "rider")]
    again, warnings = Interview.resume(knowledge, stored(it), write=False)
    assert again.victims == ["the driver", "rider"] and warnings == []
    assert again.victim_label(0) == "Victim 1 (the driver)"
    with pytest.raises(ValueError, match="short label"):
        it.name_victim(0, "x" * 41)
    with pytest.raises(IndexError):
        it.name_victim(5, "nobody")
    assert it.victims == ["the driver", "rider"]


def test_the_incidents_a_damaged_index_leaves_readable_are_read_back(home, knowledge):
    """Only an index page is damaged: the file is set aside, and every incident, victim and
    answer its tables still hold is copied into the new database and offered for resume."""
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.add_victim("driver")
    it.answer(1, Answer.NO)
    before = [(a.symptom, a.answer, a.victim) for a in stored(it).answers]
    it.incident.close()
    _damage_page_of("sqlite_autoindex_victims_1")
    scan = scan_incidents()
    (notice,) = scan.notices
    assert "moved aside to" in notice and "1 incident with" in notice and "read back" in notice
    (data,) = scan.unfinished
    assert data.id == it.id and data.victims[1] == "driver"
    assert [(a.symptom, a.answer, a.victim) for a in data.answers] == before
    assert len(list((home / "data" / "damaged").glob("*.sqlite"))) == 1  # still kept


def test_garbage_in_place_of_the_database_reads_back_nothing_and_says_nothing_of_it(home):
    db = paths.incident_db()
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not a database" * 100)
    with open_database() as opened:
        (notice,) = opened.notices
    assert "moved aside to" in notice and "read back" not in notice


def test_damage_found_only_while_reading_sets_the_file_aside_and_reads_back_what_it_can(
    home, knowledge, monkeypatch
):
    """Damage the quick check at opening missed, met while reading: the file is set aside,
    what it still reads is copied into a fresh one, and the incidents are read from that."""
    import responder.core.store as store

    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.incident.close()
    real = store.read_incidents
    calls = []

    def first_read_fails(conn, where="", args=(), *page):
        calls.append(where)
        if len(calls) == 1:
            exc = sqlite3.DatabaseError("database disk image is malformed")
            exc.sqlite_errorname = "SQLITE_CORRUPT"
            raise exc
        return real(conn, where, args, *page)

    monkeypatch.setattr(store, "read_incidents", first_read_fails)
    scan = scan_incidents()
    assert [d.id for d in scan.unfinished] == [it.id]
    assert any("moved aside to" in n and "1 incident with" in n for n in scan.notices), scan.notices
    assert len(list((home / "data" / "damaged").glob("*.sqlite"))) == 1


def test_a_resume_returns_to_the_victim_being_asked(home, knowledge):
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.add_victim("driver")
    it.answer(1, Answer.NO)
    it.add_victim("cyclist")
    it.select_victim(1)
    again, warnings = Interview.resume(knowledge, stored(it), write=False)
    assert warnings == [] and again.victim == 1
    assert [r.query for r in again.victim_records()] == [1]
    it.select_victim(0)
    assert Interview.resume(knowledge, stored(it), write=False)[0].victim == 0


def test_a_victim_turned_to_before_the_first_answer_is_stored_with_it(home, knowledge):
    it = Interview.start(knowledge, STRICT)
    it.add_victim()
    it.add_victim()
    it.select_victim(1)  # nothing stored yet: the incident starts with the first answer
    it.answer(0, Answer.YES)
    assert Interview.resume(knowledge, stored(it), write=False)[0].victim == 1


def test_naming_another_victim_keeps_the_one_being_asked(home, knowledge):
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.add_victim()
    it.name_victim(0, "driver")
    assert Interview.resume(knowledge, stored(it), write=False)[0].victim == 1


def test_an_incident_stored_before_the_victim_was_kept_resumes_on_its_last_added_victim(
    home, knowledge
):
    """Earlier versions stored only added victims: such an incident still opens, on the
    victim added last (the one being asked when it was added)."""
    s = [knowledge.symptoms[k].id for k in range(3)]
    log = IncidentLog.create(
        {}, STRICT.to_dict(), "older", 1.0, answers=[(s[0], "yes", 2.0, False, 0)]
    )
    log.victim(1, "")
    log.answer(s[1], "no", 3.0, False, victim=1)
    log.victim(2, "")
    log.answer(s[2], "yes", 4.0, False, victim=0)  # the old app did not store turning back
    log.close()
    data, problems = find_incident("older")
    again, warnings = Interview.resume(knowledge, data, write=False)
    assert problems == [] and warnings == []
    assert again.victims == ["", "", ""] and again.victim == 2
    assert [(r.query, r.victim) for r in again.records] == [(0, 0), (1, 1), (2, 0)]


# -- a victim added by mistake ----------------------------------------------------------------


def test_a_victim_added_by_mistake_is_removed_and_a_resume_shows_the_same_victims(home, knowledge):
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    it.add_victim("driver")
    it.answer(1, Answer.NO)
    it.add_victim()  # + pressed once too often
    assert it.remove_victim() == 2
    assert it.victims == ["", "driver"] and it.victim == 1
    assert it.state.n_victims == 2  # no empty victim left behind for the engine to ask
    assert [(r.query, r.victim) for r in it.records] == [(0, 0), (1, 1)]
    kinds = rows("SELECT kind, victim, symptom, detail FROM events ORDER BY seq")
    assert kinds[-2:] == [("remove", 2, None, "victim"), ("victim", 1, None, "driver")]
    assert rows("SELECT idx, name FROM victims ORDER BY idx") == [(0, ""), (1, "driver")]
    again, warnings = Interview.resume(knowledge, stored(it), write=False)
    assert warnings == [] and again.victims == ["", "driver"] and again.victim == 1
    assert [(r.query, r.victim) for r in again.records] == [(0, 0), (1, 1)]
    # the next + gives the number the removed victim had, and a resume shows it again
    assert it.add_victim("cyclist") == 2
    it.answer(2, Answer.YES)
    again, _ = Interview.resume(knowledge, stored(it), write=False)
    assert again.victims == ["", "driver", "cyclist"] and again.victim == 2
    assert [(r.query, r.victim) for r in again.records] == [(0, 0), (1, 1), (2, 2)]


def test_a_victim_removed_before_the_first_answer_is_not_stored_at_all(home, knowledge):
    it = Interview.start(knowledge, STRICT)
    it.add_victim()
    it.add_victim()
    it.remove_victim()
    it.answer(0, Answer.YES)  # the incident is created here, with the two victims left
    assert rows("SELECT idx FROM victims ORDER BY idx") == [(0,), (1,)]
    again, _ = Interview.resume(knowledge, stored(it), write=False)
    assert again.victims == ["", ""] and again.victim == 1
    assert [(r.query, r.victim) for r in again.records] == [(0, 1)]


def test_a_victim_with_answers_or_not_added_last_is_not_removed_and_says_why(home, knowledge):
    it = Interview.start(knowledge, STRICT)
    with pytest.raises(ValueError, match="Victim 1 is the only victim"):
        it.remove_victim()
    it.answer(0, Answer.YES)
    it.add_victim()
    it.answer(1, Answer.NO)
    it.answer(2, Answer.YES)
    with pytest.raises(ValueError) as refused:
        it.remove_victim()
    assert str(refused.value) == (
        "Victim 2 has 2 answers and is not removed: only a victim with no answers can be. "
        "To take answers back, press z (the last answer) or h (any answer; d removes it)."
    )
    it.add_victim()
    it.select_victim(1)
    it.undo()
    it.undo()  # Victim 2 has no answers now, but Victim 3 came after them
    with pytest.raises(ValueError, match="only the victim added last, Victim 3, can be"):
        it.remove_victim()
    assert it.victims == ["", "", ""] and it.victim == 1
    assert not rows("SELECT 1 FROM events WHERE kind = 'remove'")  # nothing stored


def test_a_removal_stored_against_a_victim_with_answers_loses_none_of_them(home, knowledge):
    """A hand-edited or damaged log that removes a victim who still has answers: the
    answers win, and the victim is shown with them."""
    s = [knowledge.symptoms[k].id for k in range(2)]
    log = IncidentLog.create(
        {},
        STRICT.to_dict(),
        "edited",
        1.0,
        victims=["", "driver"],
        answers=[(s[0], "yes", 2.0, False, 0), (s[1], "no", 3.0, False, 1)],
    )
    log.remove_victim(1)
    log.close()
    data, problems = find_incident("edited")
    again, warnings = Interview.resume(knowledge, data, write=False)
    assert problems == [] and warnings == []
    assert len(again.victims) == 2 and [(r.query, r.victim) for r in again.records] == [
        (0, 0),
        (1, 1),
    ]


def test_a_database_that_cannot_open_on_a_full_disk_says_the_disk_is_full(tmp_path, monkeypatch):
    """On a full disk opening the database failed with 'disk I/O error' (its shared-memory
    file could not grow): `incidents list` and `interview --jsonl --save` said only that,
    though freeing space is all it takes. The message now says the disk is full and what to
    do; an I/O error with room on the disk is left as SQLite words it."""
    from collections import namedtuple

    from responder.core import store

    path = tmp_path / "incidents.sqlite"
    store.open_database(path).close()

    def shm_cannot_grow(_path):
        exc = sqlite3.OperationalError("disk I/O error")
        exc.sqlite_errorname = "SQLITE_IOERR_SHMSIZE"
        raise exc

    monkeypatch.setattr(store, "_connect", shm_cannot_grow)
    room = store.shutil.disk_usage
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(store.shutil, "disk_usage", lambda _p: usage(204800, 204800, 0))
    with pytest.raises(store.StoreError) as full:
        store.open_database(path)
    assert "disk I/O error (the disk holding it is full: 0 KB free" in str(full.value)
    assert "free some space" in str(full.value)
    monkeypatch.setattr(store.shutil, "disk_usage", room)
    with pytest.raises(store.StoreError) as other:
        store.open_database(path)
    assert str(other.value).endswith("disk I/O error")
    assert path.exists()  # not set aside as damaged


@pytest.mark.parametrize("suffix", ["-wal", "-journal"])
def test_a_folder_where_sqlite_keeps_its_log_is_named(tmp_path, suffix):
    """A folder named incidents.sqlite-wal (a sync tool's conflict copy, a mistaken mkdir)
    stopped every command with 'cannot open the incident database ...: disk I/O error',
    naming neither the folder nor what to do; the message names it and says to move it."""
    from responder.core import store

    path = tmp_path / "incidents.sqlite"
    store.open_database(path).close()
    for leftover in (tmp_path / "incidents.sqlite-wal", tmp_path / "incidents.sqlite-shm"):
        leftover.unlink(missing_ok=True)
    (tmp_path / f"incidents.sqlite{suffix}").mkdir()
    with pytest.raises(store.StoreError) as exc:
        store.open_database(path).close()
    assert f"incidents.sqlite{suffix} is a folder, where SQLite keeps" in str(exc.value)
    assert "move it away" in str(exc.value)
    assert path.is_file()  # never set aside as damaged


def test_a_folder_where_the_incident_locks_are_kept_is_named_never_run_unlocked(home, knowledge):
    """A folder named incidents.sqlite.lock (a sync tool's copy, a mistaken mkdir) made the
    per-incident lock quietly give up: the incident was written unlocked, so a second window
    could write it too. No incident is written without its lock now, and the message names
    the folder and says to move it away; once it is gone every answer so far is written."""
    db = paths.incident_db()
    db.parent.mkdir(parents=True, exist_ok=True)
    lock = db.with_name(db.name + ".lock")
    lock.mkdir()
    it = Interview.start(knowledge, STRICT)
    it.answer(0, Answer.YES)
    assert it.incident is None and it.unsaved == 1
    said = it.journal_error
    assert f"{lock} is a folder, where responder keeps the incidents' locks" in said
    assert "move it away" in said
    assert said.count("\n") == 0
    lock.rmdir()
    it.answer(1, Answer.NO)
    assert it.journal_error is None and it.unsaved == 0
    data = stored(it)
    assert len(data.answers) == 2
    # A stored incident is not resumed unlocked either, nor called open in another window
    # (a later start: this process's lock file let go, the folder back in its place).
    it.incident.close()
    os.close(store._LOCK_FDS.pop(lock.resolve()))
    lock.unlink()
    lock.mkdir()
    with pytest.raises(StoreError) as exc:
        IncidentLog.reopen(data)
    assert f"{lock} is a folder" in str(exc.value)
    assert "another responder window" not in str(exc.value)


_UNDER_A_FILE_SIZE_LIMIT = """
import json, os, resource, sys
from responder.config import InterviewConfig
from responder.core import store
from responder.core.session import Interview
from responder.engine.state import Answer
from responder.kb.resolve import load_knowledge

tried = [0]
insert = store._insert_event


def counted(*args):
    tried[0] += 1
    return insert(*args)


store._insert_event = counted
it = Interview.start(load_knowledge(sys.argv[1]), InterviewConfig("chemical", "symptom", "strict"))
it.answer(0, Answer.YES)  # the incident exists
hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
resource.setrlimit(resource.RLIMIT_FSIZE, (40 * 1024, hard))
tried[0] = 0
for k in range(60):
    it.answer(1 + k % 4, Answer.YES if k % 8 < 4 else Answer.NO)
out = {"tried": tried[0], "unsaved": it.unsaved, "limit": it.store_file_limit,
       "error": it.journal_error}
tried[0] = 0
wal = store.paths.incident_db().with_name("incidents.sqlite-wal")
os.utime(wal if wal.exists() else store.paths.incident_db())  # another program wrote it
it.answer(1, Answer.NO)  # its log may have room again: tried, every change
it.answer(2, Answer.NO)  # and held again after that try failed the same way
out["tried_after_another_program"] = tried[0]
tried[0] = 0
out["saved_under_the_limit"] = it.save()
out["tried_by_save"] = tried[0]
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))  # the limit no longer stops it
it.answer(5, Answer.YES)
out["after"] = {"unsaved": it.unsaved, "error": it.journal_error}
out["answers"] = [(a.symptom, a.answer) for a in store.find_incident(it.id)[0].answers]
out["shown"] = [(it.knowledge.symptoms[r.query].id, r.answer.value) for r in it.records]
out["events"] = store.open_database().conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
print(json.dumps(out))
"""


def test_under_a_file_size_limit_an_answer_does_not_retry_every_change_waiting(home):
    """Under `ulimit -f`, once a write had failed at the limit, every later answer tried
    again every change waiting, in one transaction that failed in turn: 60 answers tried
    1,830 rows, each answer slower than the one before (1,500 answers on the bundled
    knowledge base: 1.2 million rows tried, 8 s). Nothing in this process can pass the
    limit while the database's files stand at it as they stood when it stopped the write,
    so no answer tries; every change waits in memory, the user's retry (save, the quit
    dialog) still tries them all, another program writing the files (their log may have
    room again) lets the next answer try, and the first answer after the limit stops
    mattering writes them all, in order."""
    import json  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from core_fixtures import FIXTURE_KB  # noqa: PLC0415

    done = subprocess.run(
        [sys.executable, "-c", _UNDER_A_FILE_SIZE_LIMIT, str(FIXTURE_KB)],
        capture_output=True,
        text=True,
        env={**os.environ, "RESPONDER_HOME": str(home)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["limit"] and "the file-size limit (ulimit -f) is 40 KB" in out["error"]
    assert out["unsaved"] == 60
    assert out["tried"] <= 2, out  # the first answer's try, no more
    assert out["tried_after_another_program"] == 61, out  # one try of all, then held again
    assert not out["saved_under_the_limit"] and out["tried_by_save"] == 62  # the user's retry
    assert out["after"] == {"unsaved": 0, "error": None}
    assert out["events"] == 64 and out["answers"] == out["shown"]  # every change, in order
