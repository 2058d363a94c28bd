"""Evidence-mode selection of two checkouts side by side, whole processes alternating. A script.

    python benchmarks/compare_selection.py BEFORE_CHECKOUT [AFTER_CHECKOUT] [--rounds 7]

One *selection* is the posterior from every answer so far, the stopping test and the best
symptom (``EvidenceModel.belief``, ``Belief.stop``, ``Belief.suggest_symptom``), timed over
whole simulated interviews of 8 answers on random problems (300 x 80 and 10,000 x 1,000),
for the chemical and the class target. Each checkout's engine runs in its own process (the
two cannot share one); the processes alternate, before and after, ``--rounds`` times, so both
meet the same load. Each process prints its medians; this script prints the median of each
and of the ratios after / before, pair by pair. AFTER_CHECKOUT defaults to this one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

# Run inside each checkout's own interpreter path: only its engine is imported.
WORKER = r"""
import json, sys, time
root = sys.argv[1]
sys.path[:0] = [root, root + "/benchmarks"]
import numpy as np
from bench_evidence import random_problem
from responder.engine.evidence import AnswerModel, EvidenceModel
out = {}
for m, n, interviews in ((300, 80, 20), (10_000, 1_000, 3)):
    problem = random_problem(m, n, seed=0)
    for target in ("object", "group"):
        model = EvidenceModel(problem, AnswerModel(0.85, 0.05), target=target, gain_floor=0.0)
        times = []
        for _ in range(interviews):
            known = {}
            for _ in range(8):
                t = time.perf_counter()
                belief = model.belief(known)
                belief.stop()
                q = int(belief.suggest_symptom().queries[0])
                times.append(time.perf_counter() - t)
                known[q] = True
        out[f"{m} x {n}, {'chemical' if target == 'object' else 'class'}"] = float(
            np.median(times)
        )
print(json.dumps(out))
"""


def run(checkout: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(checkout)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(done.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before", type=Path, help="checkout of the earlier version")
    ap.add_argument("after", type=Path, nargs="?", default=HERE, help="default: this checkout")
    ap.add_argument("--rounds", type=int, default=7, help="alternations (default 7)")
    args = ap.parse_args(argv)
    before, after = [], []
    for _ in range(args.rounds):
        before.append(run(args.before))
        after.append(run(args.after))
    print(
        "| instance, target | before (median) | after (median) | after / before, median of pairs |"
    )
    print("|---|---:|---:|---:|")
    for key in before[0]:
        b = [r[key] * 1e3 for r in before]
        a = [r[key] * 1e3 for r in after]
        ratio = statistics.median(x / y for x, y in zip(a, b))
        print(
            f"| {key} | {statistics.median(b):.3f} ms | {statistics.median(a):.3f} ms | "
            f"{ratio:.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
