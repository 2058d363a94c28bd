"""Compare two runs of ``responder experiments all`` (their JSON results) number by number.

Used to check that a change to the simulator leaves the experiments statistically the same::

    python benchmarks/compare_experiment_runs.py BEFORE_DIR AFTER_DIR

1. Every number of every ``<experiment>.json`` present in both: identical, equal within
   1e-9 (relative), or different; the different ones are listed by where they sit.
2. For the Monte Carlo columns (random search in group-id; GQSA, min-min, min-max and random
   in query-groups; the same in wiser-standin), a paired comparison per sweep point: the same
   datasets in both runs, so the per-dataset differences are Monte Carlo noise only, and
   z = mean(difference) / (sd(difference) / sqrt(n)) should look standard normal.

Both runs must use the same knowledge base (``--kb``; the bundled one follows the installed
package) and the same seed.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

EXPERIMENTS = ("diagnostic", "wiser-standin", "sensitivity", "noise", "group-id", "query-groups")


def leaves(x, path=()):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from leaves(v, path + (i,))
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield path, float(x)


def numbers(before: Path, after: Path, name: str) -> list[str]:
    a = dict(leaves(json.loads((before / f"{name}.json").read_text())))
    b = dict(leaves(json.loads((after / f"{name}.json").read_text())))
    same = close = 0
    where: dict[str, list[float]] = {}
    for key, va in a.items():
        vb = b.get(key)
        if vb is None:
            continue
        if va == vb or (math.isnan(va) and math.isnan(vb)):
            same += 1
        elif abs(va - vb) <= 1e-9 * max(1.0, abs(va)):
            close += 1
        else:
            tag = "/".join(str(p) for p in key if not isinstance(p, int))
            where.setdefault(tag, []).append(abs(va - vb))
    out = [
        f"{name}: {len(a)} numbers, identical {same}, within 1e-9 {close}, "
        f"different {sum(len(v) for v in where.values())}"
    ]
    for tag, ds in sorted(where.items(), key=lambda t: -len(t[1])):
        out.append(f"    {tag}: {len(ds)} differ, largest |difference| {max(ds):.4g}")
    return out


def paired(before: Path, after: Path) -> tuple[list[str], np.ndarray]:
    rows, zs = [], []

    def add(label, x, y):
        d = np.asarray(y) - np.asarray(x)
        sd = d.std(ddof=1)
        z = 0.0 if sd == 0 else d.mean() / (sd / np.sqrt(d.size))
        zs.append(z)
        rows.append(f"{label}: before {np.mean(x):.3f} after {np.mean(y):.3f} paired z {z:+.2f}")

    for name, pols in (
        ("group-id", ["random"]),
        ("query-groups", ["gqsa", "minmin", "minmax", "random"]),
    ):
        a = json.loads((before / f"{name}.json").read_text())
        b = json.loads((after / f"{name}.json").read_text())
        for pa, pb in zip(a["per_dataset"], b["per_dataset"]):
            point = {k: v for k, v in pa.items() if k != "results"}
            for p in pols:
                add(
                    f"{name} {p} {point}",
                    [r[p] for r in pa["results"]],
                    [r[p] for r in pb["results"]],
                )
    a = json.loads((before / "wiser-standin.json").read_text())
    b = json.loads((after / "wiser-standin.json").read_text())
    for pa, pb in zip(a["per_dataset"], b["per_dataset"]):
        point = {k: v for k, v in pa.items() if k != "results"}
        for target, pols in (
            ("group", ["random"]),
            ("object", ["gqsa", "minmin", "minmax", "random"]),
        ):
            for p in pols:
                add(
                    f"wiser-standin {target}/{p} {point}",
                    [r[target][p] for r in pa["results"]],
                    [r[target][p] for r in pb["results"]],
                )
    return rows, np.asarray(zs)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    before, after = Path(argv[0]), Path(argv[1])
    for name in EXPERIMENTS:
        if (before / f"{name}.json").exists() and (after / f"{name}.json").exists():
            print("\n".join(numbers(before, after, name)))
    rows, zs = paired(before, after)
    print("\n".join(rows))
    print(
        f"{zs.size} Monte Carlo points: paired z mean {zs.mean():+.2f}, sd {zs.std():.2f}, "
        f"largest |z| {np.abs(zs).max():.2f}, |z| > 2: {(np.abs(zs) > 2).sum()}, "
        f"|z| > 3: {(np.abs(zs) > 3).sum()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
