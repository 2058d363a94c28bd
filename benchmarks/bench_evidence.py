"""Evidence-mode selection benchmark (issue 10). A script, not a timed test.

    python benchmarks/bench_evidence.py             # full run (about ten seconds)
    python benchmarks/bench_evidence.py --quick     # fewer interviews
    python benchmarks/bench_evidence.py --json out.json

One *selection* is what the app does after each answer: the posterior from all answers so
far (``EvidenceModel.belief``, from scratch) and the suggestion (``suggest_symptom`` or
``suggest_category``). It is timed over full simulated interviews (true chemical from the
prior, victims showing each listed sign with probability 0.85 and each unlisted one with
0.05; gain floor 0 so that every target runs whole interviews), at about 300 x 80 (random,
density 0.2, 16 classes, 10 categories), on the bundled knowledge base, and at
10,000 x 1,000. Targets: <= 2 ms at 300 x 80 and <= 50 ms at 10,000 x 1,000.

Machines are noisy, so every time is also a ratio to references measured in the same
process: a 1000 x 1000 float64 matmul, and the strict policy's ``Policy.choose`` on the
root node of the same instance (the strict policy's slowest step).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from responder.engine.belief import Model  # noqa: E402
from responder.engine.evidence import AnswerModel, EvidenceModel  # noqa: E402
from responder.engine.policies import Policy  # noqa: E402
from responder.engine.problem import Problem  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import reference_seconds as matmul_reference  # noqa: E402

# (label, target, suggest, pick, strict policy)
VARIANTS = [
    ("chemical / symptom", "object", "symptom", None, "gbs"),
    ("class / symptom", "group", "symptom", None, "gisa"),
    ("chemical / category, informed", "object", "category", "informed", "gqsa"),
    ("chemical / category, any", "object", "category", "any", "gqsa"),
    ("class / category, informed", "group", "category", "informed", "gigqsa"),
]


def random_problem(m, n, seed=0, density=0.2, groups=16, categories=10) -> Problem:
    rng = np.random.default_rng(seed)
    return Problem.build(
        rng.random((m, n)) < density,
        prior=rng.random(m) + 0.05,
        object_groups=rng.integers(0, groups, m),
        query_groups=rng.integers(0, categories, n),
    )


def strict_root_seconds(problem, target, policy, repeats=7) -> float:
    model = Model(problem, target)
    pol = Policy(policy)
    times = []
    for _ in range(repeats):
        node = model.root()  # fresh node: no cached split
        t = time.perf_counter()
        pol.choose(node)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def evidence_times(problem, target, suggest, pick, interviews, max_steps, seed=0) -> dict:
    # Gain floor 0: on random data the class target has no question above the app's 0.01-bit
    # floor at the root and would stop there; the timed computation is the same either way.
    model = EvidenceModel(problem, AnswerModel(0.85, 0.05), target=target, gain_floor=0.0)
    rng = np.random.default_rng(seed)
    B = problem.matrix
    times, roots, lengths = [], [], []
    for _ in range(interviews):
        true = int(rng.choice(problem.n_objects, p=problem.prior))
        answers = rng.random(problem.n_queries) < np.where(B[true], 0.85, 0.05)
        known: dict[int, bool] = {}
        for step in range(max_steps):
            t = time.perf_counter()
            belief = model.belief(known)
            stopped = belief.stop().stopped
            if not stopped:
                if suggest == "symptom":
                    q = int(belief.suggest_symptom().queries[0])
                else:
                    sug = belief.suggest_category(pick)
                    P = belief.pick_matrix(pick)[sug.category]
                    qs = np.flatnonzero(P > 0)
                    q = int(qs[rng.choice(qs.size, p=P[qs])])
            elapsed = time.perf_counter() - t
            times.append(elapsed)
            if step == 0:
                roots.append(elapsed)
            if stopped:
                break
            known[q] = bool(answers[q])
        lengths.append(len(known))
    return {
        "median_s": statistics.median(times),
        "p90_s": float(np.percentile(times, 90)),
        "root_s": statistics.median(roots),
        "selections": len(times),
        "mean_questions": float(np.mean(lengths)),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    instances = [("random 300 x 80", random_problem(300, 80), 30 if not args.quick else 8, 80)]
    try:
        from responder.kb.resolve import resolve_kb

        kb = resolve_kb(None)
        instances.append(
            (
                f"bundled KB {len(kb.chemicals)} x {len(kb.symptoms)}",
                kb.to_problem(),
                30 if not args.quick else 8,
                90,
            )
        )
    except Exception as exc:  # noqa: BLE001 - the benchmark still runs without the KB
        print(f"(bundled KB not loaded: {exc})", file=sys.stderr)
    instances.append(
        (
            "random 10,000 x 1,000",
            random_problem(10_000, 1_000),
            8 if not args.quick else 1,
            12 if not args.quick else 5,
        )
    )
    ref = matmul_reference()
    rows = []
    print(f"reference: 1000x1000 matmul {ref * 1e3:.1f} ms; load {os.getloadavg()[0]:.2f}")
    print(
        "| instance | suggestion | median | p90 | root | strict root | x strict root | x matmul |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for label, problem, interviews, max_steps in instances:
        for name, target, suggest, pick, strict in VARIANTS:
            r = evidence_times(problem, target, suggest, pick, interviews, max_steps)
            s_root = strict_root_seconds(problem, target, strict)
            r.update(
                instance=label,
                suggestion=name,
                strict_policy=strict,
                strict_root_s=s_root,
                ratio_strict_root=r["root_s"] / s_root,
                ratio_matmul=r["median_s"] / ref,
            )
            rows.append(r)
            print(
                f"| {label} | {name} | {r['median_s'] * 1e3:.3f} ms | {r['p90_s'] * 1e3:.3f} ms"
                f" | {r['root_s'] * 1e3:.3f} ms | {s_root * 1e3:.3f} ms ({strict})"
                f" | {r['ratio_strict_root']:.2f} | {r['ratio_matmul']:.3f} |",
                flush=True,
            )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "reference_matmul_s": ref,
                    "python": platform.python_version(),
                    "numpy": np.__version__,
                    "cpus": os.cpu_count(),
                    "load": os.getloadavg(),
                    "rows": rows,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
