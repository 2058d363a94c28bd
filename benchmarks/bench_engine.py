"""Engine benchmark (issue 2, item 5). A script, not a timed test.

    python benchmarks/bench_engine.py            # full run (about a minute)
    python benchmarks/bench_engine.py --quick    # smaller large instance, fewer repeats
    python benchmarks/bench_engine.py --json out.json

Reports, in one run:

(a) the median time of one selection (``Policy.choose`` on the interview's current node) over
    full simulated interviews, for gbs, gisa, gqsa and gigqsa, at about 300 x 80 (random
    matrix, density 0.2, 16 groups, 10 categories; and the bundled knowledge base when it
    loads) and at 10,000 x 1,000. Each step builds a fresh node from the answers so far
    (``Model.node_from_answers``), so no cache from an earlier step helps; only ``choose``
    is timed.
(b) the time to build the whole GISA tree (``evaluate.exact``, group target, ties first) at
    10,000 x 1,000, and its ratio to scikit-learn's ``DecisionTreeClassifier(criterion=
    "entropy")`` fit on the same matrix, labels and weights (target: ratio <= 1.0).

Machines are noisy, so every time is also given as a ratio to a reference measured in the
same process: a float64 numpy matmul (1000 x 1000 by 1000 x 1000).
"""

from __future__ import annotations

import argparse
import datetime as _dt
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
from responder.engine.evaluate import exact  # noqa: E402
from responder.engine.policies import Policy  # noqa: E402
from responder.engine.problem import Problem  # noqa: E402

POLICY_TARGETS = {"gbs": "object", "gisa": "group", "gqsa": "object", "gigqsa": "group"}


def random_problem(
    m: int, n: int, seed: int = 0, density: float = 0.2, groups: int = 16, categories: int = 10
) -> Problem:
    rng = np.random.default_rng(seed)
    B = rng.random((m, n)) < density
    return Problem.build(
        B,
        prior=rng.random(m) + 0.05,
        object_groups=rng.integers(0, groups, m),
        query_groups=rng.integers(0, categories, n),
    )


def reference_seconds(repeats: int = 5) -> float:
    rng = np.random.default_rng(0)
    a, b = rng.random((1000, 1000)), rng.random((1000, 1000))
    a @ b  # warm up BLAS
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def selection_times(problem: Problem, name: str, interviews: int, seed: int = 0) -> dict:
    """Median seconds of one Policy.choose over full interviews answered from true rows."""
    model = Model(problem, POLICY_TARGETS[name])
    policy = Policy(name)
    rng = np.random.default_rng(seed)
    B = problem.matrix
    times: list[float] = []
    first: list[float] = []
    lengths = []
    for _ in range(interviews):
        true = int(rng.choice(problem.n_objects, p=problem.prior))
        answers: dict[int, bool] = {}
        while True:
            node = model.node_from_answers(answers)  # fresh node: nothing cached
            t = time.perf_counter()
            choice = policy.choose(node)
            times.append(time.perf_counter() - t)
            if not answers:
                first.append(times[-1])
            if choice is None:
                break
            q = int(rng.choice(choice.queries, p=choice.probs))
            answers[q] = bool(B[true, q])
        lengths.append(len(answers))
    return {
        "median_s": statistics.median(times),
        "first_s": statistics.median(first),  # at the root: all candidates, the slowest
        "p90_s": float(np.percentile(times, 90)),
        "max_s": max(times),
        "selections": len(times),
        "mean_questions": float(np.mean(lengths)),
    }


def gisa_tree_vs_sklearn(problem: Problem, repeats: int) -> dict:
    from sklearn.tree import DecisionTreeClassifier  # noqa: PLC0415

    model = Model(problem, "group")
    X = problem.matrix.astype(np.float32)  # sklearn's own dtype: no conversion in its fit
    y = problem.object_groups
    w = problem.prior
    ours, theirs, ours_cpu, theirs_cpu = [], [], [], []
    ev = clf = None
    for _ in range(repeats):  # interleaved, so both see the same machine load
        t, c = time.perf_counter(), time.process_time()
        ev = exact(model, Policy("gisa"))
        ours.append(time.perf_counter() - t)
        ours_cpu.append(time.process_time() - c)
        t, c = time.perf_counter(), time.process_time()
        clf = DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y, sample_weight=w)
        theirs.append(time.perf_counter() - t)
        theirs_cpu.append(time.process_time() - c)
    return {
        "gisa_tree_s": statistics.median(ours),
        "gisa_tree_all_s": ours,
        "sklearn_fit_s": statistics.median(theirs),
        "sklearn_fit_all_s": theirs,
        "ratio": statistics.median(ours) / statistics.median(theirs),
        # CPU time of the process: less sensitive to other programs on a busy machine.
        "gisa_tree_cpu_s": statistics.median(ours_cpu),
        "sklearn_fit_cpu_s": statistics.median(theirs_cpu),
        "ratio_cpu": statistics.median(ours_cpu) / statistics.median(theirs_cpu),
        "gisa_expected_queries": ev.expected_queries,
        "gisa_max_depth": ev.max_depth,
        "sklearn_nodes": int(clf.tree_.node_count),
        "sklearn_depth": int(clf.get_depth()),
    }


def bundled_problem():
    try:
        from responder.kb.resolve import resolve_kb  # noqa: PLC0415

        kb = resolve_kb(None)
        return kb.to_problem(), None
    except Exception as exc:  # noqa: BLE001 (report whatever stops it)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, f"{type(exc).__name__}: {first}"


def machine() -> dict:
    import sklearn  # noqa: PLC0415

    info = {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sklearn": sklearn.__version__,
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "blas_threads_env": {
            k: os.environ[k]
            for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
            if k in os.environ
        },
        "loadavg_at_start": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }
    try:
        from threadpoolctl import threadpool_info  # noqa: PLC0415

        info["blas"] = [
            {k: p.get(k) for k in ("internal_api", "version", "num_threads")}
            for p in threadpool_info()
            if p.get("user_api") == "blas"
        ]
    except ImportError:
        pass
    return info


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="large instance 3,000 x 300 and fewer repeats (a smoke run)",
    )
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)

    big = (3000, 300) if args.quick else (10_000, 1_000)
    repeats = 1 if args.quick else 3
    out: dict = {"machine": machine()}
    ref = reference_seconds()
    out["reference_matmul_1000_s"] = ref
    print(
        f"machine: {out['machine']['nproc']} cpu, python {out['machine']['python']}, "
        f"numpy {out['machine']['numpy']}, sklearn {out['machine']['sklearn']}"
    )
    print(f"reference: 1000x1000 float64 matmul = {ref * 1e3:.1f} ms\n")

    instances = [("random 300 x 80", random_problem(300, 80, seed=1), 30)]
    kb, why = bundled_problem()
    if kb is not None:
        instances.append((f"bundled KB {kb.n_objects} x {kb.n_queries}", kb, 30))
    else:
        out["bundled_kb_unavailable"] = why
    instances.append(
        (f"random {big[0]:,} x {big[1]:,}", random_problem(*big, seed=2), 2 if args.quick else 3)
    )

    out["selection"] = {}
    print("(a) one selection, median over full interviews (fresh node each step)")
    print(
        f"{'instance':<28}{'policy':<8}{'target':<8}{'median':>10}{'p90':>10}"
        f"{'root':>10}{'x ref':>8}{'steps':>7}"
    )
    for label, problem, n_int in instances:
        rows = {}
        for name, target in POLICY_TARGETS.items():
            if target == "group" and problem.object_groups is None:
                continue
            if name in ("gqsa", "gigqsa") and problem.query_groups is None:
                continue
            r = selection_times(problem, name, n_int)
            r["ratio_to_reference"] = r["median_s"] / ref
            rows[name] = r
            print(
                f"{label:<28}{name:<8}{target:<8}{r['median_s'] * 1e3:>8.3f}ms"
                f"{r['p90_s'] * 1e3:>8.3f}ms{r['first_s'] * 1e3:>8.3f}ms"
                f"{r['ratio_to_reference']:>8.3f}"
                f"{r['selections']:>7}"
            )
        out["selection"][label] = rows
    if why:
        print(f"(bundled KB skipped: {why})")

    print(f"\n(b) whole GISA tree (group target) vs sklearn entropy tree, {big[0]:,} x {big[1]:,}")
    problem = instances[-1][1]
    t = gisa_tree_vs_sklearn(problem, repeats)
    t["gisa_tree_x_ref"] = t["gisa_tree_s"] / ref
    t["sklearn_fit_x_ref"] = t["sklearn_fit_s"] / ref
    out["gisa_tree"] = t
    print(
        f"GISA tree (evaluate.exact): {t['gisa_tree_s']:.3f} s  "
        f"({t['gisa_tree_x_ref']:.1f} x ref; runs {', '.join(f'{v:.2f}' for v in t['gisa_tree_all_s'])})"
    )
    print(
        f"sklearn fit:                {t['sklearn_fit_s']:.3f} s  "
        f"({t['sklearn_fit_x_ref']:.1f} x ref; runs {', '.join(f'{v:.2f}' for v in t['sklearn_fit_all_s'])})"
    )
    print(
        f"ratio GISA / sklearn = {t['ratio']:.2f} wall, {t['ratio_cpu']:.2f} CPU time "
        f"({t['gisa_tree_cpu_s']:.3f} s / {t['sklearn_fit_cpu_s']:.3f} s)  (target <= 1.0)"
    )
    print(
        f"GISA E[K] = {t['gisa_expected_queries']:.4f}, depth {t['gisa_max_depth']}; "
        f"sklearn {t['sklearn_nodes']} nodes, depth {t['sklearn_depth']}"
    )
    print("\nfor context, the same comparison on the smaller instances (no target there):")
    out["gisa_tree_small"] = {}
    for label, small, _ in instances[:-1]:
        if small.object_groups is None:
            continue
        r = gisa_tree_vs_sklearn(small, 5)
        out["gisa_tree_small"][label] = r
        print(
            f"  {label:<28} GISA tree {r['gisa_tree_s'] * 1e3:8.1f} ms, sklearn "
            f"{r['sklearn_fit_s'] * 1e3:7.1f} ms, ratio {r['ratio']:.2f}"
        )
    if hasattr(os, "getloadavg"):
        out["machine"]["loadavg_at_end"] = os.getloadavg()
        print(
            f"load average: start {out['machine']['loadavg_at_start'][0]:.2f}, "
            f"end {out['machine']['loadavg_at_end'][0]:.2f} (1 min) on "
            f"{out['machine']['nproc']} CPUs"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2, default=float) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
