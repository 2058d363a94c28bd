"""Vignette figures from the posterior given every stated fact at once. A script.

    python benchmarks/vignette_posterior.py

For each case vignette (kb/cases/) the bundled answer model's posterior is computed from all
the facts the case states (with the scene, and signs only), and the truth's rank and its
class's rank are read off it: the figure an interview reaches once it has asked everything the
case can answer, in a fraction of the time of ``responder kb validate``. Only the totals per
half are printed (fitting and held-out, ``case_half``), never a case, so a knowledge-base
maintainer can measure a change without seeing the held-out cases. Ranks are pessimistic
about ties; chemicals with identical rows are one candidate.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from responder.config import symptom_leaks  # noqa: E402
from responder.core.validation import case_half  # noqa: E402
from responder.engine.evidence import EvidenceSettings  # noqa: E402
from responder.kb.cases import load_cases  # noqa: E402
from responder.kb.loader import load_bundled  # noqa: E402


def totals(kb, model, cases, scene: bool) -> str:
    """ "top-1 a/n, top-5 b/n, class c/m" over ``cases``."""
    classes = [c.id for c in kb.classes]
    codes = np.unique(kb.problem.matrix, axis=0, return_inverse=True)[1].reshape(-1)
    top1 = top5 = on_top = chemical_cases = 0
    for case in cases:
        known = {
            kb.symptom_index(s.symptom): s.present
            for s in case.signs
            if scene or kb.symptoms[kb.symptom_index(s.symptom)].kind != "scene"
        }
        belief = model.belief(known)
        groups = belief.group_probabilities()
        truth_class = classes.index(case.class_id)
        on_top += int((groups >= groups[truth_class]).sum() == 1)
        if case.chemicals:
            chemical_cases += 1
            w = belief.posterior
            candidates = np.bincount(codes, weights=w)
            best = max(case.chemicals, key=lambda i: w[i])
            rank = int((candidates >= candidates[codes[best]]).sum())
            top1 += rank == 1
            top5 += rank <= 5
    n = chemical_cases
    return f"top-1 {top1}/{n}, top-5 {top5}/{n}, class {on_top}/{len(cases)}"


def main() -> int:
    kb = load_bundled()
    cases, _ = load_cases(None, kb)
    # the knowledge base's own per-sign leaks, as the app and `kb validate` use them
    model = EvidenceSettings(**kb.answer_model, symptom_leaks=symptom_leaks(kb)).model(kb.problem)
    for half in ("fit", "held-out"):
        chosen = [c for c in cases if case_half(c) == half]
        print(
            f"{half:9s} with scene: {totals(kb, model, chosen, True):36s} "
            f"signs only: {totals(kb, model, chosen, False)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
