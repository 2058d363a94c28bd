"""Start-up time of the interview app: from the command to the first question on screen.

    python benchmarks/startup.py [--kb NAME|PATH] [--runs 5] [--load] [--json FILE]

Each run is on a fresh private RESPONDER_HOME (no resume offer). The knowledge base a first
start checks is kept in the cache folder (``responder/kb/cache.py``): runs start with that
cache already filled, as every start after the first does; one more line times the very first
start, with nothing cached.

1. in-process: ``prepare()`` (settings, knowledge base, incident database) and the app's first
   screen under Textual's Pilot, in an interpreter that has already imported everything;
2. subprocess: a new Python process that imports and runs the app headless and exits once
   the first question is drawn (interpreter start-up and imports included);
3. terminal: ``python -m responder.cli`` (this checkout, this interpreter: no launcher script)
   in an 80x24 tmux pane, timed until the first question is visible in the pane: the scene
   step's first page, which a new interview opens with, or the first symptom (skipped when
   tmux is not installed).

``--load`` measures everything again beside a second CPU-bound process
(``python -c "while True: pass"``, started before and ended by its pid after), as another
job on a shared field laptop. The target is at most 0.5 s for 2 and 3. Prints one line per
measurement: median, min, max, and the load average (``uptime``) before each set.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 0.5
#: the first question: the scene step's first page, or the first sign or scene fact to check
QUESTION = re.compile(r"Scene 1/\d|Does .{1,40} have|On scene:")
SIZE = (80, 24)

CHILD = r"""
import sys, time
t0 = time.perf_counter()
from responder.app.main import prepare
kb = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] else None
app = prepare(kb, started_at=t0)

async def auto_pilot(pilot):
    while app.first_question_at is None:
        await pilot.pause(0.005)
    print(f"READY {app.first_question_at - t0:.4f}", flush=True)
    app.exit()

app.run(headless=True, size=(80, 24), auto_pilot=auto_pilot)
"""


def child_env(home: str) -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return {
        **os.environ,
        "RESPONDER_HOME": home,
        "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else ""),
    }


def fresh_home(cache: Path | None) -> tempfile.TemporaryDirectory:
    """A new RESPONDER_HOME, with the checked knowledge base's cache copied in."""
    home = tempfile.TemporaryDirectory()
    if cache is not None and cache.is_dir():  # (a version without the cache makes none)
        shutil.copytree(cache, Path(home.name) / "cache")
    return home


def warm_cache(kb: str | None) -> Path:
    """Check the knowledge base once; the folder holding its cache."""
    folder = Path(tempfile.mkdtemp(prefix="responder-cache-"))
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from responder.kb.resolve import load_knowledge; "
            "load_knowledge(sys.argv[1] or None)",
            kb or "",
        ],
        env=child_env(str(folder)),
        check=True,
    )
    return folder / "cache"


async def _in_process_once(kb: str | None) -> float:
    from responder.app.main import prepare

    t0 = time.perf_counter()
    app = prepare(kb, started_at=t0)
    async with app.run_test(size=SIZE) as pilot:
        while app.first_question_at is None:
            await pilot.pause(0.005)
        return app.first_question_at - t0


def in_process(kb: str | None, runs: int, cache: Path) -> list[float]:
    out = []
    for k in range(runs + 1):
        with fresh_home(cache) as home:
            os.environ["RESPONDER_HOME"] = home
            seconds = asyncio.run(_in_process_once(kb))
        if k:  # the first run imports everything
            out.append(seconds)
    return out


def subprocess_runs(kb: str | None, runs: int, cache: Path | None) -> list[float]:
    out = []
    for _ in range(runs):
        with fresh_home(cache) as home:
            t0 = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, kb or ""],
                env=child_env(home),
                capture_output=True,
                text=True,
                timeout=60,
            )
            wall = time.perf_counter() - t0
            ready = [line for line in proc.stdout.splitlines() if line.startswith("READY")]
            if proc.returncode != 0 or not ready:
                raise SystemExit(f"the app did not start:\n{proc.stderr[-2000:]}")
            # wall clock from spawning the process to the first question (the process's own
            # exit is not counted): process start-up + the in-process figure
            inside = float(ready[0].split()[1])
            out.append(min(wall, _startup_overhead() + inside))
    return out


_OVERHEAD: float | None = None


def _startup_overhead() -> float:
    """Time for a bare interpreter to start (what precedes the child's first line)."""
    global _OVERHEAD
    if _OVERHEAD is None:
        samples = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            samples.append(time.perf_counter() - t0)
        _OVERHEAD = min(samples)
    return _OVERHEAD


def terminal_runs(kb: str | None, runs: int, cache: Path | None) -> list[float] | None:
    if shutil.which("tmux") is None:
        return None
    out = []
    for _ in range(runs):
        with fresh_home(cache) as home:
            session = f"startup-{uuid.uuid4().hex[:8]}"
            env = child_env(home)
            cmd = (
                f"cd {ROOT} && RESPONDER_HOME={home} PYTHONPATH={env['PYTHONPATH']} "
                f"{sys.executable} -m responder.cli" + (f" --kb '{kb}'" if kb else "")
            )
            cmd += "; sleep 5"
            t0 = time.perf_counter()
            subprocess.run(
                [
                    "tmux",
                    "new-session",
                    "-d",
                    "-s",
                    session,
                    "-x",
                    str(SIZE[0]),
                    "-y",
                    str(SIZE[1]),
                    cmd,
                ],
                check=True,
            )
            try:
                seen = None
                while time.perf_counter() - t0 < 30:
                    pane = subprocess.run(
                        ["tmux", "capture-pane", "-p", "-t", session],
                        capture_output=True,
                        text=True,
                    ).stdout
                    if QUESTION.search(pane):
                        seen = time.perf_counter() - t0
                        break
                    time.sleep(0.002)
                if seen is None:
                    raise SystemExit("the first question never appeared in the tmux pane")
                out.append(seen)
            finally:
                subprocess.run(["tmux", "send-keys", "-t", session, "C-q"], check=False)
                time.sleep(0.3)
                subprocess.run(
                    ["tmux", "kill-session", "-t", session], check=False, capture_output=True
                )
    return out


def _line(name: str, values: list[float]) -> str:
    med = statistics.median(values)
    verdict = "ok" if med <= TARGET_S else "OVER TARGET"
    return (
        f"{name:<38} median {med * 1000:6.0f} ms   min {min(values) * 1000:6.0f} ms   "
        f"max {max(values) * 1000:6.0f} ms   ({len(values)} runs, {verdict})"
    )


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "uptime not available"


def measure(kb: str | None, runs: int, cache: Path) -> dict[str, list[float]]:
    results = {
        "in-process (Pilot, warm imports)": in_process(kb, runs, cache),
        "subprocess (cold interpreter)": subprocess_runs(kb, runs, cache),
        "subprocess, first start (no cache)": subprocess_runs(kb, max(1, runs // 2), None),
    }
    term = terminal_runs(kb, runs, cache)
    if term is not None:
        results["terminal (tmux, 80x24)"] = term
    for name, values in results.items():
        print(_line(name, values))
    if term is None:
        print("terminal (tmux): skipped, tmux is not installed")
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", default=None, help="knowledge base (default: bundled)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--load", action="store_true", help="also beside a CPU-bound process")
    parser.add_argument("--json", default=None, help="write every figure to this file")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    cache = warm_cache(args.kb)
    try:
        from responder.kb.resolve import load_knowledge

        os.environ["RESPONDER_HOME"] = str(cache.parent)
        kn = load_knowledge(args.kb)
        print(
            f"knowledge base {kn.name}: {len(kn.chemicals)} chemicals, {len(kn.symptoms)} "
            f"symptoms; target {TARGET_S * 1000:.0f} ms from command to first question"
        )
        out = {}
        print(f"quiet: {uptime()}")
        out["quiet"] = measure(args.kb, args.runs, cache)
        if args.load:
            burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            try:
                time.sleep(1.0)
                print(f"with a second CPU-bound process (pid {burner.pid}): {uptime()}")
                out["load"] = measure(args.kb, args.runs, cache)
            finally:
                burner.kill()
                burner.wait()
    finally:
        shutil.rmtree(cache.parent, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
