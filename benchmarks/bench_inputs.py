"""Input-boundary figures for docs/reliability.md (issue 13).

    python benchmarks/bench_inputs.py [--max 32000]

1. Knowledge-base loading against size: a generated knowledge base of n chemicals (30
   symptoms, 6 per chemical) loaded for n = 1000 (the reference) .. --max. Reported as the
   time per chemical relative to the reference run in the same process: about 1.0 at every
   n means linear (quadratic loading gives a ratio growing with n).
2. Noise at scale: ``simulate``'s measured cost per interview on a random 1000 x 200 matrix
   for eps = 1 .. 33 (auto), and the estimates it would print.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path


def write_kb(root: Path, n: int) -> Path:
    rnd = random.Random(n)
    symptoms = [f"s{j}" for j in range(30)]
    (root / "chemicals").mkdir(parents=True)
    (root / "symptoms.toml").write_text(
        '[[category]]\nid = "c"\nlabel = "C"\n'
        + "".join(
            f'\n[[symptom]]\nid = "{s}"\nlabel = "Symptom {s}"\ncategory = "c"\n' for s in symptoms
        )
    )
    (root / "classes.toml").write_text('[[class]]\nid = "k"\nlabel = "K"\n')
    body = ['class = "k"\n']
    for i in range(n):
        chosen = ", ".join(f'"{s}"' for s in rnd.sample(symptoms, 6))
        body.append(
            f'\n[[chemical]]\nname = "Chem {i}"\nsymptoms = [{chosen}]\nsources = ["Test source"]\n'
        )
    (root / "chemicals" / "k.toml").write_text("".join(body))
    return root


def kb_loading(max_n: int) -> None:
    from responder.kb import load_kb

    sizes = [n for n in (1000, 4000, 8000, 16000, 32000, 64000) if n <= max_n]
    with tempfile.TemporaryDirectory() as tmp:
        per: dict[int, float] = {}
        for n in sizes:
            root = write_kb(Path(tmp) / str(n), n)
            start = time.process_time()
            kb = load_kb(root, strict=False)
            per[n] = (time.process_time() - start) / n
            assert len(kb.chemicals) == n
        ref = per[sizes[0]]
        print("knowledge-base loading (CPU time; ratio = time per chemical / n=1000's)")
        for n in sizes:
            print(f"  {n:6d} chemicals: {per[n] * n:6.2f} s, ratio {per[n] / ref:4.2f}")


def noise_scale() -> None:
    import numpy as np

    from responder.engine.belief import Model
    from responder.engine.noise import NoiseModel
    from responder.engine.policies import Policy
    from responder.engine.problem import Problem
    from responder.engine.workload import duration_text, measure_interviews

    rng = np.random.default_rng(0)
    problem = Problem.build((rng.random((1000, 200)) < 0.5).astype(int).tolist())
    print("noise at scale: random 1000 x 200 (auto eps 33), gbs, 2000 interviews")
    for eps in (1, 2, 4, 8, 16, 33):
        model = Model(problem, "object", NoiseModel(eps, np.ones(200, bool)))
        work = measure_interviews(model, Policy("gbs"), seed=0, budget_seconds=2.0)
        print(
            f"  eps {eps:2d}: {work.mean_questions:5.1f} questions, "
            f"{work.seconds_per_interview:.3f} s per interview; simulate "
            f"{duration_text(work.interviews_seconds(2000))}, exact tree ~"
            f"{work.exact_tree_nodes():.1e} nodes ({duration_text(work.exact_seconds())})"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max", type=int, default=32000)
    args = parser.parse_args()
    kb_loading(args.max)
    noise_scale()
    return 0


if __name__ == "__main__":
    sys.exit(main())
