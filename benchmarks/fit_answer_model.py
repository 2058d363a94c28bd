"""Fit the evidence mode's answer model on the fitting half of the case vignettes. A script.

    python benchmarks/fit_answer_model.py             # the grid, best settings first
    python benchmarks/fit_answer_model.py --top 20 --markdown

Each case vignette (kb/cases/) states signs and scene facts present or absent. For a setting
of the answer model (sensitivity s for a common cell, the leak l, the long-row exponent a,
the frequency leak and the class borrow, the hallmark and occasional grades), the posterior
given *every* stated fact is computed for each case of the fitting half (``case_half``), and
the truth's rank and its class's rank are read off it: the figure an interview reaches once
it has asked everything the case can answer. The score is top-1 + top-5 + class-on-top over
the fitting half; ties go to the larger mean log-probability of the true class. The
held-out half is scored with the same settings and printed beside it, never used to choose.

The chosen setting is the bundled knowledge base's answer model (kb/grades.toml), checked
also against wrong answers (``responder simulate --answers flip:0.1``); the figures of full
interviews (``responder kb validate``) are in docs/robustness.md.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from responder.config import symptom_leaks  # noqa: E402
from responder.core.validation import case_half  # noqa: E402
from responder.engine.evidence import AnswerModel, EvidenceError  # noqa: E402
from responder.kb.cases import load_cases  # noqa: E402
from responder.kb.loader import load_bundled  # noqa: E402

GRID = {
    "sensitivity": (0.6, 0.7, 0.8, 0.9),
    "leak": (0.01, 0.02, 0.05, 0.1),
    "long_row_exponent": (0.0, 0.25, 0.5),
    "frequency_leak": (0.0, 0.3, 0.6, 1.0),
    "class_borrow": (0.0, 0.4, 0.7),
    "hallmark": (None,),
    "occasional": (None,),
}


def case_facts(kb, case) -> tuple[np.ndarray, np.ndarray]:
    """The case's stated facts as (queries, present)."""
    pairs = [(kb.symptom_index(s.symptom), s.present) for s in case.signs]
    return np.array([q for q, _ in pairs], dtype=np.int64), np.array([p for _, p in pairs])


def score(kb, problem, likelihood: np.ndarray, cases) -> dict:
    """Top-1, top-5 and class-on-top over ``cases`` from the posterior given all facts
    (ranks pessimistic about ties; identical likelihood rows are one candidate)."""
    codes = np.unique(likelihood, axis=0, return_inverse=True)[1].reshape(-1)
    class_ids = [c.id for c in kb.classes]
    out = {"top1": 0, "top5": 0, "class": 0, "chemical_cases": 0, "cases": 0, "log_class": 0.0}
    for case in cases:
        qs, present = case_facts(kb, case)
        L = likelihood[:, qs]
        with np.errstate(divide="ignore"):
            log_w = np.log(problem.prior) + np.where(present, np.log(L), np.log1p(-L)).sum(1)
        w = np.exp(log_w - log_w.max())
        w /= w.sum()
        classes = np.bincount(problem.object_groups, weights=w, minlength=problem.n_groups)
        truth_class = class_ids.index(case.class_id)
        out["cases"] += 1
        out["class"] += int((classes >= classes[truth_class]).sum() == 1)
        out["log_class"] += float(np.log(max(classes[truth_class], 1e-300)))
        if case.chemicals:
            out["chemical_cases"] += 1
            candidates = np.bincount(codes, weights=w)
            best = max(case.chemicals, key=lambda i: w[i])
            rank = int((candidates >= candidates[codes[best]]).sum())
            out["top1"] += rank == 1
            out["top5"] += rank <= 5
    out["log_class"] /= max(out["cases"], 1)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=10, help="settings to print")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args(argv)
    kb = load_bundled()
    problem = kb.problem
    leaks = symptom_leaks(kb)  # the knowledge base's own per-sign leaks stay as they are
    cases, _ = load_cases(None, kb)
    halves = {h: [c for c in cases if case_half(c) == h] for h in ("fit", "held-out")}
    results = []
    keys = list(GRID)
    for values in itertools.product(*GRID.values()):
        setting = dict(zip(keys, values))
        try:
            model = AnswerModel(
                setting["sensitivity"],
                setting["leak"],
                leaks,
                setting["long_row_exponent"],
                setting["hallmark"],
                setting["occasional"],
                setting["frequency_leak"],
                setting["class_borrow"],
            )
        except EvidenceError:
            continue  # grades out of order for this sensitivity and leak
        likelihood = model.likelihood(problem)
        fit = score(kb, problem, likelihood, halves["fit"])
        held = score(kb, problem, likelihood, halves["held-out"])
        total = fit["top1"] + fit["top5"] + fit["class"]
        results.append((total, fit["log_class"], setting, fit, held))
    results.sort(key=lambda r: (-r[0], -r[1]))

    def cells(s: dict) -> str:
        return f"{s['top1']}/{s['chemical_cases']}, {s['top5']}/{s['chemical_cases']}, {s['class']}/{s['cases']}"

    if args.markdown:
        print("| s | l | a | frequency leak | class borrow | fit: top-1, top-5, class | held-out |")
        print("|---|---|---|---|---|---|---|")
    for total, _, s, fit, held in results[: args.top]:
        row = (
            s["sensitivity"],
            s["leak"],
            s["long_row_exponent"],
            s["frequency_leak"],
            s["class_borrow"],
        )
        if args.markdown:
            print("| " + " | ".join(f"{v:g}" for v in row) + f" | {cells(fit)} | {cells(held)} |")
        else:
            print(
                f"{total:3}  s={row[0]:g} l={row[1]:g} a={row[2]:g} freq={row[3]:g} "
                f"borrow={row[4]:g}   fit {cells(fit)}   held-out {cells(held)}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
