"""The incident database at scale: years of incidents on one crew laptop.

    python benchmarks/bench_incidents.py [--sizes 100,1000,10000] [--keep DIR] [--whole]

Generates databases of n stored incidents through the store's own API
(``IncidentLog.create`` and its one-call-per-change methods, so the file is in the real
format): each incident has 1-20 victims and 5-40 answers (scene answers among them, some
changed and undone), most end "completed", one in twenty is left unfinished. The generator
writes with ``synchronous=OFF`` on one shared connection (the format is the same; only the
fsyncs are skipped, which would take hours).

Then, per size, in this process: start-up's read (``scan_incidents``), ``list_incidents``,
``find_incident`` of one incident, opening the database, and storing one answer in a big
file (an incident created by its first answer, then answers to it). Each figure is also given
as a ratio to the same figure on the smallest database, measured in this process: about 1.0
means it does not grow with the file, ~n/100 means it reads every incident.

``--whole`` also times whole processes: ``responder incidents list`` (text and ``--json``),
``incidents show``, ``incidents export`` and the app to its first screen (the resume offer)
headless at 80x24. ``uptime`` is printed before each set.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

UNFINISHED_SHARE = 0.05
DAY = 86400.0


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "uptime not available"


@contextlib.contextmanager
def fast_generation(db_path: Path):
    """One shared connection without fsyncs for the generator; the store's API unchanged."""
    from responder.core import store

    db = store.open_database(db_path, import_journals=False)
    db.conn.execute("PRAGMA synchronous=OFF")
    real_open, real_close = store.open_database, store.Database.close
    store.open_database = lambda path=None, import_journals=True: db
    store.Database.close = lambda self: None
    try:
        yield
    finally:
        store.open_database, store.Database.close = real_open, real_close
        db.close()


def generate(db_path: Path, n: int, seed: int = 1, victims=(1, 20), answers=(5, 40)) -> int:
    """Store ``n`` incidents; returns the number left unfinished."""
    from responder.config import InterviewConfig
    from responder.core.store import IncidentLog, new_incident_id
    from responder.kb.resolve import load_knowledge

    kb = load_knowledge(None)
    describe = kb.describe()
    config = InterviewConfig().to_dict()
    signs = [s.id for s in kb.symptoms if s.kind != "scene"]
    scene = [s.id for s in kb.symptoms if s.kind == "scene"]
    rnd = random.Random(seed)
    start = time.time() - 5 * 365 * DAY
    unfinished = 0
    with fast_generation(db_path):
        for k in range(n):
            at = start + k * (5 * 365 * DAY / n)
            n_victims = rnd.randint(*victims)
            n_answers = rnd.randint(*answers)
            first = rnd.choice(scene)
            log = IncidentLog.create(
                describe,
                config,
                new_incident_id(at) + f"{k:x}",
                at,
                answers=[(first, "yes", at + 1, True, -1)],
            )
            for v in range(1, n_victims):
                log.victim(v, f"V{v + 1}" if rnd.random() < 0.3 else "")
            for j in range(n_answers - 1):
                t = at + 2 + j * 20
                if rnd.random() < 0.15:
                    symptom, victim, answer = rnd.choice(scene), -1, "no"
                else:
                    symptom, victim = rnd.choice(signs), rnd.randrange(n_victims)
                    answer = rnd.choice(("yes", "no", "no", "unknown"))
                log.answer(symptom, answer, t, rnd.random() < 0.2, victim)
                if rnd.random() < 0.05:
                    log.undo(symptom, victim)
            if rnd.random() < UNFINISHED_SHARE:
                unfinished += 1
            else:
                log.end(rnd.choice(("completed", "completed", "completed", "new")))
            log.close()
    return unfinished


def timed(fn, repeat: int = 3) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def in_process(db_path: Path) -> dict[str, float]:
    from responder.core import store

    numbers = [r[0] for r in sqlite_rows(db_path, "SELECT number FROM incidents")]
    middle = str(numbers[len(numbers) // 2])

    def first_open():
        getattr(store, "_CHECKED", set()).clear()  # as in a new process
        store.open_database(db_path).close()

    figures = {
        "open the database, first time in a process": timed(first_open),
        "open it again in the same process": timed(lambda: store.open_database(db_path).close()),
        "start-up read (scan_incidents)": timed(lambda: store.scan_incidents(db_path)),
        "list_incidents": timed(lambda: store.list_incidents(db_path), 1),
        "find_incident (one)": timed(lambda: store.find_incident(middle, db_path)),
    }
    at = time.time()
    t0 = time.perf_counter()
    log = store.IncidentLog.create(
        {"name": "bundled"},
        {},
        store.new_incident_id(at),
        at,
        answers=[("odour_none", "yes", at, False, -1)],
        path=db_path,
    )
    figures["first answer (creates the incident)"] = time.perf_counter() - t0
    per = []
    for j in range(9):
        t0 = time.perf_counter()
        log.answer("cough", "yes", at + j, False, 0)
        per.append(time.perf_counter() - t0)
    figures["one more answer (median of 9)"] = statistics.median(per)
    log.end("completed")
    log.close()
    return figures


def sqlite_rows(db_path: Path, query: str) -> list[tuple]:
    import sqlite3

    with contextlib.closing(sqlite3.connect(db_path)) as conn:
        return conn.execute(query).fetchall()


APP_CHILD = r"""
import sys, time
t0 = time.perf_counter()
from responder.app.main import prepare
app = prepare(None, started_at=t0)

async def auto_pilot(pilot):
    from textual.widgets import DataTable
    while True:
        await pilot.pause(0.005)
        if app.first_question_at is not None:
            break
        tables = app.screen.query(DataTable)
        if type(app.screen).__name__ == "ResumeScreen" and tables and tables.first().row_count:
            break
    print(f"READY {time.perf_counter() - t0:.4f} {type(app.screen).__name__}", flush=True)
    app.exit()

app.run(headless=True, size=(80, 24), auto_pilot=auto_pilot)
"""


def whole_process(home: Path, runs: int) -> dict[str, float]:
    env = {**os.environ, "RESPONDER_HOME": str(home)}
    exe = [sys.executable, "-m", "responder.cli"]
    db_path = home / "data" / "incidents.sqlite"
    number = str(sqlite_rows(db_path, "SELECT max(number) FROM incidents")[0][0])
    commands = {
        "incidents list": [*exe, "incidents", "list"],
        "incidents list --json": [*exe, "incidents", "list", "--json"],
        "incidents show": [*exe, "incidents", "show", number],
        "incidents export": [*exe, "incidents", "export", number],
        "bare interpreter (reference)": [sys.executable, "-c", "pass"],
    }
    out = {}
    for name, cmd in commands.items():
        walls = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=ROOT)
            walls.append(time.perf_counter() - t0)
        out[name] = statistics.median(walls)
    walls, screen = [], "?"
    for _ in range(runs):
        probe = home.parent / f"{home.name}-app"
        shutil.copytree(home, probe)  # the app may set incidents aside: work on a copy
        try:
            proc = subprocess.run(
                [sys.executable, "-c", APP_CHILD],
                env={**env, "RESPONDER_HOME": str(probe)},
                capture_output=True,
                text=True,
                timeout=300,
                cwd=ROOT,
            )
        finally:
            shutil.rmtree(probe, ignore_errors=True)
        ready = [line for line in proc.stdout.splitlines() if line.startswith("READY")]
        if not ready:
            raise SystemExit(f"the app did not start:\n{proc.stderr[-2000:]}")
        walls.append(float(ready[0].split()[1]))
        screen = ready[0].split()[2]
    out[f"app to its first screen ({screen}), in the process"] = statistics.median(walls)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--keep", default=None, help="generate into (and keep) this folder")
    parser.add_argument("--whole", action="store_true", help="also time whole processes")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    base = Path(args.keep or tempfile.mkdtemp(prefix="scale-incidents-"))
    base.mkdir(parents=True, exist_ok=True)
    cache = base / "cache-home"
    os.environ["RESPONDER_HOME"] = str(cache)
    results: dict[int, dict[str, float]] = {}
    try:
        for n in sizes:
            home = base / f"n{n}"
            db_path = home / "data" / "incidents.sqlite"
            if not db_path.exists():
                db_path.parent.mkdir(parents=True, exist_ok=True)
                t0 = time.perf_counter()
                left = generate(db_path, n, seed=n)
                mb = db_path.stat().st_size / 1e6
                print(
                    f"generated {n} incidents ({left} unfinished, {mb:.1f} MB) in "
                    f"{time.perf_counter() - t0:.0f} s"
                )
            if (cache / "cache").is_dir() and not (home / "cache").exists():
                shutil.copytree(cache / "cache", home / "cache")
            print(f"n = {n}: {uptime()}")
            results[n] = in_process(db_path)
            if args.whole:
                results[n] |= whole_process(home, args.runs)
        ref = results[sizes[0]]
        names = list(results[sizes[0]])
        head = "".join(f"{n:>18}" for n in sizes)
        print(f"\n{'':44}{head}   (ms; ratio to n = {sizes[0]})")
        for name in names:
            cells = "".join(
                f"{results[n][name] * 1000:9.1f} x{results[n][name] / ref[name]:6.1f} "
                for n in sizes
            )
            print(f"{name:44}{cells}")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
