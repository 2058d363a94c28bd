"""``responder eval`` on an interchange file against scikit-learn's tree fit on the same file,
each as a whole process (start, imports, reading the file, the computation). A script, not
a timed test.

    python benchmarks/bench_interchange.py [--rows 5000] [--cols 500] [--repeats 3]
        [--formats json,npz] [--json FILE]

The problem: a random 0/1 matrix (density 0.2) with 16 groups, prior weights and 10 query
categories, written once as ``.json`` and once as ``.npz``. Per format, two commands run in
turn (``--repeats`` times each, alternating, so both meet the same machine load):

- ``responder eval --kb FILE --policy gisa --target group`` (the whole GISA tree, its E[K]
  two ways, and the bounds);
- a Python process that reads the same file the plain way (``json.load`` or ``np.load``)
  and fits ``DecisionTreeClassifier(criterion="entropy", random_state=0)`` on the matrix
  (float32, sklearn's own dtype), the group labels and the prior as sample weights.

Reports the median wall time and child CPU time of each, their ratio (responder /
scikit-learn; at most 1.0 is the target) and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

SKLEARN_FIT = """
import sys
import numpy as np
from sklearn.tree import DecisionTreeClassifier
path = sys.argv[1]
if path.endswith(".npz"):
    with np.load(path) as data:
        matrix, groups, prior = data["matrix"], data["groups"], data["prior"]
else:
    import json
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    matrix, groups, prior = data["matrix"], data["groups"], data["prior"]
X = np.asarray(matrix, dtype=np.float32)
DecisionTreeClassifier(criterion="entropy", random_state=0).fit(
    X, np.asarray(groups), sample_weight=np.asarray(prior, dtype=np.float64)
)
"""


def write_problem(folder: Path, rows: int, cols: int, seed: int = 0) -> dict[str, Path]:
    rng = np.random.default_rng(seed)
    matrix = rng.random((rows, cols)) < 0.2
    prior = rng.random(rows) + 0.05
    groups = np.array([f"group {k}" for k in rng.integers(0, 16, rows)])
    query_groups = np.array([f"category {k}" for k in rng.integers(0, 10, cols)])
    js = folder / "problem.json"
    js.write_text(
        json.dumps(
            {
                "matrix": matrix.astype(int).tolist(),
                "prior": prior.tolist(),
                "groups": groups.tolist(),
                "query_groups": query_groups.tolist(),
            }
        ),
        encoding="utf-8",
    )
    npz = folder / "problem.npz"
    np.savez(npz, matrix=matrix, prior=prior, groups=groups, query_groups=query_groups)
    return {"json": js, "npz": npz}


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process (which must succeed)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def compare(path: Path, repeats: int) -> dict:
    ours = [
        sys.executable,
        "-m",
        "responder.cli",
        "eval",
        "--kb",
        str(path),
        "--policy",
        "gisa",
        "--target",
        "group",
    ]
    theirs = [sys.executable, "-c", SKLEARN_FIT, str(path)]
    runs: dict[str, list[tuple[float, float]]] = {"responder": [], "sklearn": []}
    for _ in range(repeats):  # alternating: both see the same load
        runs["responder"].append(timed(ours))
        runs["sklearn"].append(timed(theirs))
    out = {}
    for name, pairs in runs.items():
        out[name] = {
            "wall_s": statistics.median(w for w, _ in pairs),
            "cpu_s": statistics.median(c for _, c in pairs),
            "all_wall_s": [round(w, 3) for w, _ in pairs],
        }
    out["ratio_wall"] = out["responder"]["wall_s"] / out["sklearn"]["wall_s"]
    out["ratio_cpu"] = out["responder"]["cpu_s"] / out["sklearn"]["cpu_s"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--cols", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--formats", default="json,npz", help="comma-separated: json, npz (default both)"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    load_before = os.getloadavg()
    results: dict = {"rows": args.rows, "cols": args.cols, "repeats": args.repeats}
    with tempfile.TemporaryDirectory() as tmp:
        wanted = [f.strip() for f in args.formats.split(",")]
        files = {
            f: p for f, p in write_problem(Path(tmp), args.rows, args.cols).items() if f in wanted
        }
        for fmt, path in files.items():
            results[fmt] = compare(path, args.repeats)
            results[fmt]["file_mb"] = path.stat().st_size / 1e6
    results["load_average_before"] = load_before
    results["load_average_after"] = os.getloadavg()
    results["nproc"] = os.cpu_count()
    print(
        f"{args.rows} x {args.cols}, medians of {args.repeats} alternating runs; load average "
        f"{load_before[0]:.2f} before, {results['load_average_after'][0]:.2f} after "
        f"({results['nproc']} CPUs)"
    )
    for fmt in files:
        r = results[fmt]
        print(
            f"  .{fmt} ({r['file_mb']:.1f} MB): responder eval {r['responder']['wall_s']:.2f} s "
            f"wall / {r['responder']['cpu_s']:.2f} s CPU, sklearn {r['sklearn']['wall_s']:.2f} s "
            f"/ {r['sklearn']['cpu_s']:.2f} s; ratio {r['ratio_wall']:.2f} wall, "
            f"{r['ratio_cpu']:.2f} CPU"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
