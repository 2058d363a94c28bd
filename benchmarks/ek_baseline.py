"""E[K] of the paper's policies on 1,000 random instances, stored bit for bit.

Refactors must leave the engine's numbers unchanged. ``record`` computes, for 1,000 seeded
random problems, the exact E[K] of GBS, GISA, GQSA and GIGQSA (Theorems 1, 2, 5, 6) and its
decomposition, the same under persistent noise (Section 6), and a seeded Monte Carlo
estimate (Section 7.3), and writes every float as ``float.hex()`` so a later ``check``
compares them exactly::

    python benchmarks/ek_baseline.py record   # writes benchmarks/ek_baseline.json
    python benchmarks/ek_baseline.py check    # exit 1 listing every value that differs

``tests/engine/test_ek_baseline.py`` checks the first instances on every test run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from responder.engine.belief import Model
from responder.engine.evaluate import exact, monte_carlo
from responder.engine.noise import NoiseModel
from responder.engine.policies import Policy
from responder.engine.problem import Problem

BASELINE = Path(__file__).with_name("ek_baseline.json")
INSTANCES = 1000
POLICIES = ("gbs", "gisa", "gqsa", "gigqsa")


def instance(seed: int) -> Problem:
    """A small random problem: 3-12 objects in 2-4 groups, 4-9 queries in 2-3 categories."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(3, 13))
    n = int(rng.integers(4, 10))
    matrix = rng.random((m, n)) < rng.uniform(0.2, 0.8)
    prior = rng.uniform(0.1, 1.0, size=m)
    groups = rng.integers(0, int(rng.integers(2, 5)), size=m)
    categories = rng.integers(0, int(rng.integers(2, 4)), size=n)
    return Problem.build(
        matrix.astype(int),
        prior=prior,
        object_groups=groups.tolist(),
        query_groups=categories.tolist(),
    )


def values(seed: int) -> dict[str, str]:
    """Every recorded float of instance ``seed``, as hex, keyed by what it is."""
    problem = instance(seed)
    out: dict[str, str] = {}
    for target in ("object", "group"):
        model = Model(problem, target)
        for name in POLICIES:
            out[f"{target}/{name}"] = exact(model, Policy(name)).expected_queries.hex()
            # The decomposition from the node-by-node walk: the level-wise builder of
            # engine/tree.py gives the same E[K] bit for bit, but sums the decomposition in
            # another order, so its last bit can differ.
            walked = exact(model, Policy(name), level_wise=False)
            out[f"{target}/{name}/decomposition"] = float(walked.decomposition).hex()
    rng = np.random.default_rng(seed + 10_000)
    prone = rng.random(problem.n_queries) < 0.7
    prone[0] = True
    noise = NoiseModel(
        int(rng.integers(1, 3)),
        prone,
        model=int(rng.integers(1, 3)),
        p=float(rng.uniform(0.05, 0.45)),
    )
    noisy = Model(problem, "object", noise)
    for name in ("gbs", "gqsa"):
        # The node-by-node walk: engine/tree.py's noisy level-wise GBS tree is the same tree,
        # but sums each object's expected depth in another order (last bit;
        # tests/engine/test_level_tree.py compares the two).
        out[f"noise/{name}"] = exact(
            noisy, Policy(name), max_states=None, level_wise=False
        ).expected_queries.hex()
    # The per-trial simulator, the reference: the batched one (the default) draws the
    # responder's picks from another stream (tests/engine/test_batch_simulation.py compares
    # the two in distribution and with the exact E[K]).
    mc = monte_carlo(noisy, Policy("gqsa"), trials=20, seed=seed, batch=False)
    out["monte-carlo/gqsa"] = mc.expected_queries.hex()
    out["monte-carlo/gqsa/accuracy"] = float(mc.accuracy).hex()
    return out


def compute(n: int = INSTANCES) -> list[dict[str, str]]:
    return [values(seed) for seed in range(n)]


def differences(expected: list[dict[str, str]], n: int | None = None) -> list[str]:
    """Lines naming every value of the first ``n`` instances that is not bit-for-bit equal."""
    out = []
    for seed, want in enumerate(expected[:n]):
        got = values(seed)
        for key in sorted(set(want) | set(got)):
            if want.get(key) != got.get(key):
                out.append(f"instance {seed} {key}: baseline {want.get(key)} now {got.get(key)}")
    return out


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "record":
        BASELINE.write_text(json.dumps(compute(), indent=0) + "\n", encoding="utf-8")
        print(f"wrote {BASELINE}")
        return 0
    if command == "check":
        expected = json.loads(BASELINE.read_text(encoding="utf-8"))
        diffs = differences(expected)
        total = sum(len(v) for v in expected)
        for line in diffs:
            print(line)
        print(f"{len(expected)} instances, {total} values: {len(diffs)} differ")
        return 1 if diffs else 0
    print("usage: ek_baseline.py record|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
