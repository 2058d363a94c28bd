"""Whole-tree build time: GISA (``evaluate.exact``) against scikit-learn's entropy tree.

Issue 14, item 4: the whole GISA tree at 300 x 80 must be built no slower than
``DecisionTreeClassifier(criterion="entropy").fit`` on the same data. Both are timed in the
same process, interleaved (so both see the same machine load), and reported as a ratio of
medians; CPU time (``process_time``) is reported too, as it is less sensitive to other
programs on a shared machine. The node-by-node walk (``exact(..., level_wise=False)``, the
implementation before the level-wise builder) is timed alongside, and every run checks that
both builders give the identical E[K].

Usage::

    python benchmarks/bench_tree.py [--repeats 60] [--large] [--json FILE]

``--large`` adds the 10,000 x 1,000 instance of ``bench_engine.py`` (part b there).
This is a benchmark, not a timed test: copy its output to docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import bundled_problem, machine, random_problem  # noqa: E402

from responder.engine.belief import Model  # noqa: E402
from responder.engine.evaluate import exact  # noqa: E402
from responder.engine.policies import Policy  # noqa: E402


def compare(problem, repeats: int, walk_repeats: int) -> dict:
    """Median wall and CPU times of the three builds on ``problem`` (group target)."""
    from sklearn.tree import DecisionTreeClassifier  # noqa: PLC0415

    model = Model(problem, "group")
    X = problem.matrix.astype(np.float32)  # sklearn's own dtype: no conversion in its fit
    y, w = problem.object_groups, problem.prior
    times = {"level": [], "sklearn": [], "walk": []}
    cpu = {"level": [], "sklearn": [], "walk": []}

    def timed(key, fn):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        times[key].append(time.perf_counter() - t)
        cpu[key].append(time.process_time() - c)
        return out

    def fit():
        return DecisionTreeClassifier(criterion="entropy", random_state=0).fit(
            X, y, sample_weight=w
        )

    fast = slow = None
    for k in range(repeats):  # interleaved
        fast = timed("level", lambda: exact(model, Policy("gisa")))
        timed("sklearn", fit)
        if k < walk_repeats:
            slow = timed("walk", lambda: exact(model, Policy("gisa"), level_wise=False))
    if fast.expected_queries != slow.expected_queries:
        raise AssertionError("the level-wise and node-by-node trees differ")
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    return {
        "shape": list(problem.matrix.shape),
        "repeats": repeats,
        "walk_repeats": walk_repeats,
        "median_s": med,
        "median_cpu_s": med_cpu,
        "ratio_level_to_sklearn": med["level"] / med["sklearn"],
        "ratio_level_to_sklearn_cpu": med_cpu["level"] / med_cpu["sklearn"],
        "speedup_over_walk": med["walk"] / med["level"],
        "expected_queries": fast.expected_queries,
        "identical_to_walk": True,
        "depth": fast.max_depth,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=60, help="timed builds per instance")
    ap.add_argument("--large", action="store_true", help="add the 10,000 x 1,000 instance")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    out = {"machine": machine(), "instances": {}}
    instances = [
        (
            "random 300 x 80 (bench_engine, seed 1)",
            random_problem(300, 80, seed=1),
            args.repeats,
            args.repeats,
        )
    ]
    kb, _why = bundled_problem()
    if kb is not None:
        instances.append(
            (f"bundled KB {kb.n_objects} x {kb.n_queries}", kb, args.repeats, args.repeats)
        )
    if args.large:
        instances.append(
            ("random 10,000 x 1,000 (seed 2)", random_problem(10_000, 1_000, seed=2), 3, 1)
        )
    print(
        f"{'instance':<40}{'GISA level':>12}{'sklearn':>10}{'ratio':>7}{'ratio CPU':>10}"
        f"{'walk':>10}{'speed-up':>9}"
    )
    for label, problem, repeats, walk_repeats in instances:
        r = compare(problem, repeats, walk_repeats)
        out["instances"][label] = r
        m = r["median_s"]
        print(
            f"{label:<40}{m['level'] * 1e3:>10.2f}ms{m['sklearn'] * 1e3:>8.2f}ms"
            f"{r['ratio_level_to_sklearn']:>7.2f}{r['ratio_level_to_sklearn_cpu']:>10.2f}"
            f"{m['walk'] * 1e3:>8.1f}ms{r['speedup_over_walk']:>8.1f}x"
        )
    if hasattr(os, "getloadavg"):
        out["machine"]["loadavg_at_end"] = os.getloadavg()
        print(
            f"load average (1 min): start {out['machine']['loadavg_at_start'][0]:.2f}, end "
            f"{out['machine']['loadavg_at_end'][0]:.2f} on {out['machine']['nproc']} CPUs"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2, default=float) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
