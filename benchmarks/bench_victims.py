"""Many victims in one incident: a mass-casualty scene with dozens of victims.

    python benchmarks/bench_victims.py [--victims 1,10,50,100] [--answers 5]

For each count of victims, in this process, on the bundled knowledge base (evidence mode,
the app's defaults, stored in a private RESPONDER_HOME): every victim is added and then
answers ``--answers`` signs (a different run of the list for each) as a victim of chlorine would (each answer is
stored, as in the app). Timed per answer: the answer itself (``Interview.answer``: the pooled
posterior and the store) and what the screen then shows (``views.main_screen``: the
question, who to ask, the candidates, the victims strip). Then the incident's resume
(reading it back and replaying it) and its export. Each figure is also given as a ratio to
one victim's, measured in this process (1.0: it does not grow with the victims).

Prints how the victims strip reads at 80 columns with the last victim being asked.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "uptime not available"


def run(n_victims: int, per_victim: int, kb) -> tuple[dict[str, float], object]:
    from responder.config import InterviewConfig
    from responder.core import views
    from responder.core.export import export_interview
    from responder.core.session import Interview
    from responder.core.store import find_incident
    from responder.engine.state import Answer

    chlorine = next(i for i, c in enumerate(kb.chemicals) if c.name.lower() == "chlorine")
    row = kb.problem.matrix[chlorine]
    it = Interview.start(kb, InterviewConfig())
    for _ in range(n_victims - 1):
        it.add_victim()
    signs = [j for j, s in enumerate(kb.symptoms) if s.kind != "scene"]
    answer_s, screen_s = [], []
    for v in range(n_victims):
        it.select_victim(v)
        given = 0
        for j in signs[v % len(signs) :] + signs[: v % len(signs)]:
            if given == per_victim:
                break
            if it.answer_of(j) is not None or it.state.is_implied(j):
                continue
            t0 = time.perf_counter()
            it.answer(j, Answer.YES if row[j] else Answer.NO)
            t1 = time.perf_counter()
            views.main_screen(it)
            screen_s.append(time.perf_counter() - t1)
            answer_s.append(t1 - t0)
            given += 1
    t0 = time.perf_counter()
    data, _ = find_incident(it.id)
    resumed, _ = Interview.resume(kb, data, write=False)
    views.main_screen(resumed)
    resume_s = time.perf_counter() - t0
    out = Path(tempfile.mkdtemp(prefix="scale-export-"))
    t0 = time.perf_counter()
    export_interview(resumed, out)
    export_s = time.perf_counter() - t0
    shutil.rmtree(out)
    figures = {
        "answer (pooled posterior, stored), median": statistics.median(answer_s),
        "the screen after it (main_screen), median": statistics.median(screen_s),
        "resume (read back, replay, first screen)": resume_s,
        "export (Markdown and JSON)": export_s,
    }
    it.end("completed")
    return figures, resumed


def strip_at(resumed, width: int) -> str:
    from responder.app.widgets.panels import VictimsStrip
    from responder.core import views

    rows = views.victims(resumed)
    room = width - 2
    for style in ("names", "numbers", "bare"):
        line = VictimsStrip._line(rows, width, style)
        if line.cell_len <= room:
            break
    line.truncate(room, overflow="ellipsis")
    return line.plain


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--victims", default="1,10,50,100")
    parser.add_argument("--answers", type=int, default=5, help="answers per victim")
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.victims.split(",")]
    home = tempfile.mkdtemp(prefix="scale-victims-")
    os.environ["RESPONDER_HOME"] = home
    try:
        from responder.kb.resolve import load_knowledge

        kb = load_knowledge(None)
        results = {}
        for n in counts:
            print(f"{n} victims: {uptime()}")
            results[n], resumed = run(n, args.answers, kb)
            if n > 1:
                print(f"  strip at 80 columns, victim {n} asked: {strip_at(resumed, 80)!r}")
        ref = results[counts[0]]
        print(f"\n{'':44}" + "".join(f"{n:>16}" for n in counts) + f"   (ms; x {counts[0]})")
        for name in ref:
            cells = "".join(
                f"{results[n][name] * 1000:8.1f} x{results[n][name] / ref[name]:5.1f} "
                for n in counts
            )
            print(f"{name:44}{cells}")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
