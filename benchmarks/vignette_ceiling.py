"""How far completing the true agents' rows could take the vignette figures. A script.

    python benchmarks/vignette_ceiling.py

For each half of the cases (``case_half``), every fact a case states present is added to its
true agent's row as a *common* cell where the row lacks it (signs only, scene only, or both),
and the posterior given all stated facts is scored as in ``benchmarks/vignette_posterior.py``.
The figures are an upper bound on what source passes that only add the true agents' missing
cells could reach: what stays wrong is another row explaining the facts better, or the
prior. Each half's rows are completed from that half's cases alone, and only totals are
printed, never a case, so the held-out half stays unseen.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from vignette_posterior import totals  # noqa: E402

from responder.config import symptom_leaks  # noqa: E402
from responder.core.validation import case_half  # noqa: E402
from responder.engine.evidence import EvidenceSettings  # noqa: E402
from responder.engine.problem import COMMON, NOT_LISTED, UNRECORDED, Problem  # noqa: E402
from responder.kb.cases import load_cases  # noqa: E402
from responder.kb.loader import load_bundled  # noqa: E402


def completed_grades(kb, cases, kinds: set[str]) -> np.ndarray:
    """The knowledge base's grades with each case's present facts of ``kinds`` ("symptom",
    "scene") added to its true agents' rows as common cells."""
    G = kb.grades.copy()
    for case in cases:
        for sign in case.signs:
            q = kb.symptom_index(sign.symptom)
            if sign.present and kb.symptoms[q].kind in kinds:
                rows = np.asarray(case.chemicals, dtype=int)
                G[rows, q] = np.where(G[rows, q] > NOT_LISTED, G[rows, q], COMMON)
    # a scene category a row now records is no longer unrecorded: its other cells are unlisted
    for category in kb.categories:
        if category.kind == "scene":
            cols = list(category.symptoms)
            block = G[:, cols]
            recorded = (block > NOT_LISTED).any(axis=1)
            block[recorded] = np.where(block[recorded] == UNRECORDED, NOT_LISTED, block[recorded])
            G[:, cols] = block
    return G


def problem_with(kb, grades: np.ndarray) -> Problem:
    """The bundled problem with ``grades`` (and their binary view) in place of its own."""
    grades = grades.astype(np.int8)
    grades.setflags(write=False)
    return replace(kb.problem, matrix=grades > NOT_LISTED, grades=grades)


def main() -> int:
    kb = load_bundled()
    cases, _ = load_cases(None, kb)
    settings = EvidenceSettings(**kb.answer_model, symptom_leaks=symptom_leaks(kb))
    for half in ("fit", "held-out"):
        chosen = [c for c in cases if case_half(c) == half]
        print(f"{half} half")
        print(f"  {'as is:':27s} {totals(kb, settings.model(kb.problem), chosen, True)}")
        for label, kinds in (
            ("signs completed", {"symptom"}),
            ("scene completed", {"scene"}),
            ("signs and scene completed", {"symptom", "scene"}),
        ):
            model = settings.model(problem_with(kb, completed_grades(kb, chosen, kinds)))
            print(f"  {label + ':':27s} {totals(kb, model, chosen, True)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
