"""How the evidence mode ends for victims of agents the bundled knowledge base lacks, under
the knowledge base's own answer model. A script.

    python benchmarks/unlisted_agents.py [--interviews 200] [--seed 11] [--flip 0.1]
        [--textbook-share W] [--threshold T]

Two kinds of victim, each answer wrong with chance --flip: one of a chemical left out of the
knowledge base first (only chemicals whose profile no other shares; the rest keep their
grades), and one of an invented agent (as many signs as a chemical drawn from the prior, on
random observations). Prints, per kind, the share of interviews that end "no fit",
"identified" (confident, so naming a wrong chemical) and "no question can help".
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from responder.config import InterviewConfig, symptom_leaks
from responder.engine.compare import EvidenceMode
from responder.engine.problem import Problem
from responder.kb.loader import load_bundled

ENDS = ("no_fit", "confident", "no_gain")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interviews", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--flip", type=float, default=0.1)
    ap.add_argument("--textbook-share", type=float, default=None)
    ap.add_argument("--threshold", type=float, default=None)
    args = ap.parse_args()
    kb = load_bundled()
    problem = kb.problem
    settings = InterviewConfig().resolved_evidence(kb.answer_model, symptom_leaks(kb))
    changes = {
        k: v
        for k, v in (("textbook_share", args.textbook_share), ("threshold", args.threshold))
        if v is not None
    }
    settings = dataclasses.replace(settings, **changes)
    B = problem.matrix.astype(bool)
    M, N = B.shape
    _, rows = np.unique(B, axis=0, return_inverse=True)
    rows = rows.reshape(-1)
    alone = np.flatnonzero(np.bincount(rows)[rows] == 1)
    rng = np.random.default_rng(args.seed)
    full = settings.model(problem)
    print(
        f"textbook share {settings.textbook_share:g}, threshold {settings.threshold:g}, "
        f"flip {args.flip:g}, {args.interviews} interviews per kind, seed {args.seed}"
    )
    for kind in ("left out", "invented"):
        ends = []
        for _ in range(args.interviews):
            if kind == "left out":
                i = int(rng.choice(alone))
                keep = np.arange(M) != i
                model = settings.model(
                    Problem.build(
                        B[keep],
                        prior=problem.prior[keep],
                        object_groups=problem.object_groups[keep],
                        grades=problem.grades[keep],
                    )
                )
                row = B[i]
            else:
                i = int(rng.choice(M, p=problem.prior))
                model = full
                row = np.zeros(N, dtype=bool)
                row[rng.choice(N, int(B[i].sum()), replace=False)] = True
            answers = row ^ (rng.random(N) < args.flip)
            _, end = EvidenceMode(model).run(answers, rng)
            ends.append(end.stop().reason)
        shares = ", ".join(f"{e} {ends.count(e) / args.interviews:.1%}" for e in ENDS)
        print(f"{kind}: {shares}")


if __name__ == "__main__":
    main()
