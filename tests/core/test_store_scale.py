"""The incident database stays proportionate as it grows: start-up and a listing read only
the incidents they show, and the whole-file check runs once per process per file.

Time is never asserted: SQLite's progress handler counts the virtual-machine steps a read
takes (a deterministic measure of the rows it visits), and the trace callback records the
statements a connection runs.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
import uuid
from contextlib import closing

import pytest
from core_fixtures import home  # noqa: F401 (pytest fixture)

from responder import paths
from responder.core import store
from responder.core.store import (
    IncidentLog,
    list_incidents,
    list_page,
    open_database,
    read_incidents,
    scan_incidents,
    set_aside,
)


def store_incidents(n: int, finished: bool = True, victims: int = 3, answers: int = 6) -> None:
    at = time.time() - 10_000
    for k in range(n):
        log = IncidentLog.create(
            {"name": "bundled"},
            {},
            f"inc-{uuid.uuid4().hex}",
            at + k,
            victims=[f"v{v}" for v in range(victims)],
            answers=[(f"s{j}", "yes", at + k, False, j % victims) for j in range(answers)],
        )
        if finished:
            log.end("completed")
        log.close()


def steps(read) -> int:
    """Virtual-machine steps (in hundreds) that ``read(conn)`` takes."""
    count = 0

    def tick() -> int:
        nonlocal count
        count += 1
        return 0

    with closing(sqlite3.connect(paths.incident_db())) as conn:
        conn.set_progress_handler(tick, 100)
        read(conn)
    return count


def test_start_up_reads_no_finished_incident(home):
    store_incidents(2, finished=False)
    store_incidents(10)
    few = steps(lambda conn: read_incidents(conn, "ended IS NULL"))
    store_incidents(150)
    many = steps(lambda conn: read_incidents(conn, "ended IS NULL"))
    # reading the 150 finished incidents' victims (or changes) took many times as long
    assert many <= few * 1.3 + 2
    with closing(sqlite3.connect(paths.incident_db())) as conn:
        assert len(read_incidents(conn, "ended IS NULL")) == 2


def test_listing_a_page_reads_only_that_page(home):
    store_incidents(10, answers=30)
    small = steps(lambda conn: read_incidents(conn, limit=5))
    store_incidents(150, answers=30)
    large = steps(lambda conn: read_incidents(conn, limit=5))
    everything = steps(read_incidents)
    # the page is chosen among the incidents' rows; no other incident's changes are read
    assert large - small < everything / 10
    page = list_page(limit=5, skip=5)
    everything, _ = list_incidents()
    assert page.total == 160 and len(everything) == 160
    assert [d.id for d in page.incidents] == [d.id for d in everything[5:10]]
    assert [len(d.answers) for d in page.incidents] == [30] * 5
    assert [len(d.victims) for d in page.incidents] == [3] * 5


def test_the_whole_file_is_checked_once_per_process_until_it_changes(home, monkeypatch):
    statements: list[str] = []
    connect = store._connect

    def traced(path):
        conn = connect(path)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(store, "_connect", traced)
    monkeypatch.setattr(store, "_CHECKED", set())
    store_incidents(3)  # opens the database for each incident
    checks = [s for s in statements if "quick_check" in s]
    assert len(checks) == 1
    statements.clear()
    open_database().close()
    assert not [s for s in statements if "quick_check" in s]
    path = paths.incident_db()
    with closing(sqlite3.connect(path)) as conn:  # another program writes the file
        conn.execute("UPDATE incidents SET problems_noted = 1")
        conn.commit()
    open_database().close()
    assert [s for s in statements if "quick_check" in s]


def test_the_whole_file_check_leaves_every_constraint_enforced_for_writes(home):
    store_incidents(1)
    with open_database() as db:
        assert db.conn.execute("PRAGMA ignore_check_constraints").fetchone()[0] == 0
        with pytest.raises(sqlite3.IntegrityError):
            db.conn.execute(
                "INSERT INTO events (incident, seq, at, kind, answer) "
                "VALUES (1, 99, 0, 'answer', 'maybe')"
            )


HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX, 1, int(sys.argv[2]))
print("held", flush=True)
time.sleep(60)
"""


def test_a_new_interview_sets_aside_every_unfinished_one_in_one_transaction(home, monkeypatch):
    """Each was reopened and ended with its own commit: 483 unfinished incidents held the
    key that starts a new interview for 10 s."""
    store_incidents(30, finished=False)
    unfinished = scan_incidents().unfinished
    assert len(unfinished) == 30
    live = unfinished[7].number
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, f"{paths.incident_db()}.lock", str(live)],
        stdout=subprocess.PIPE,
        text=True,
    )
    statements: list[str] = []
    connect = store._connect

    def traced(path):
        conn = connect(path)
        conn.set_trace_callback(statements.append)
        return conn

    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(store, "_connect", traced)
        assert set_aside(unfinished) == 29
    finally:
        holder.kill()
        holder.wait()
    assert statements.count("COMMIT") == 1
    assert [d.number for d in scan_incidents().unfinished] == [live]
    everything, _ = list_incidents()
    assert sorted(d.status for d in everything if d.number != live) == ["set-aside"] * 29
