"""Robustness of the answer modes on the bundled knowledge base (issue 10). A script.

    python benchmarks/bench_robustness.py                  # full run (several minutes)
    python benchmarks/bench_robustness.py --interviews 200 # quicker
    python benchmarks/bench_robustness.py --json out.json
    python benchmarks/bench_robustness.py --frontier --interviews 800  # the s, l, threshold sweep
    python benchmarks/bench_robustness.py --refinements --interviews 400  # other selections
    python benchmarks/bench_robustness.py --settings 0.8,0.1,0.95 0.7,0.08,0.95 --interviews 3000 --seed 2

All modes side by side in one run, on the same simulated victims (one victim stream; the truth
drawn from the knowledge base's prior):

1. 10% flips (``flip:0.1``): each answer wrong with probability 0.1.
   Targets: evidence top-1 >= 80%, top-5 >= 90%, silently wrong <= 2%.
2. Victims (``victim:0.7,0.05``): each listed sign shown with probability 0.7, each unlisted
   one with 0.05. Target: evidence top-1 >= 85%. Also the Bayes ceiling: the share of victims
   whose true chemical is the most probable one *after all questions are answered* under the
   matching answer model (no mode that stops earlier can beat it on average).
3. No errors (``flip:0``): mean questions; target within 15% of strict GBS's exact E[K].
4. Agents not in the knowledge base: how often the default evidence mode ends "no fit",
   "identified" or "no question can help" for victims of a listed chemical, of a chemical
   left out of the knowledge base, and of an invented agent (a quarter of --interviews each).

Modes: strict GBS, persistent noise GBS with eps = 1, 2, 3, and the evidence mode on a grid
of (sensitivity, leak), the default marked. Each evidence interview also records how it
stopped; "no fit" counts the interviews that ended saying no listed chemical fits.

``--frontier`` instead sweeps sensitivity, leak and the confidence threshold and prints the
trade-off between questions with no wrong answers and being silently wrong with 10% flips
(with top-1 for flips and for victims), marking the settings no other beats on both.
``--refinements`` compares the expected-information-gain selection with two others near the
stop (docs/robustness.md, section 7). When ``kb/cases/`` holds case vignettes, each
mode's top-1/top-5 on them is reported too (a sign the vignette does not mention is answered
"can't tell").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import tomllib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from responder.engine.belief import Model  # noqa: E402
from responder.engine.bounds import binary_entropy  # noqa: E402
from responder.engine.compare import EvidenceMode, StrictMode, compare_modes, parse_victims  # noqa: E402
from responder.engine.evaluate import evaluate  # noqa: E402
from responder.engine.evidence import (  # noqa: E402
    DEFAULT_LEAK,
    DEFAULT_LONG_ROW_EXPONENT,
    DEFAULT_SENSITIVITY,
    AnswerModel,
    EvidenceModel,
    EvidenceSettings,
    next_query,
)
from responder.engine.noise import NoiseModel  # noqa: E402
from responder.engine.policies import Policy  # noqa: E402
from responder.engine.problem import Problem  # noqa: E402
from responder.engine.state import Answer, InterviewState, Status  # noqa: E402
from responder.kb.resolve import resolve_kb  # noqa: E402

FRONTIER_S = (0.7, 0.8, 0.9, 0.95)
FRONTIER_L = (0.02, 0.05, 0.1, 0.15)
FRONTIER_T = (0.9, 0.95, 0.99)
GRID = [(0.95, 0.02), (0.9, 0.05), (0.85, 0.05), (0.8, 0.05), (0.8, 0.1), (0.75, 0.05), (0.7, 0.05)]
SCENARIOS = ["flip:0.1", "victim:0.7,0.05", "flip:0"]
# The long-row discount of every evidence mode in this run (--long-row-exponent).
LONG_ROWS = DEFAULT_LONG_ROW_EXPONENT


def answer_model(s=DEFAULT_SENSITIVITY, l_=DEFAULT_LEAK):
    return AnswerModel(s, l_, None, LONG_ROWS)


def modes_for(problem):
    N = problem.n_queries
    modes = [StrictMode(problem, "gbs", name="strict gbs")]
    for eps in (1, 2, 3):
        modes.append(
            StrictMode(
                problem,
                "gbs",
                noise=NoiseModel(eps, np.ones(N, dtype=bool)),
                name=f"noise gbs eps={eps}",
            )
        )
    for s, l_ in GRID:
        mark = " (default)" if (s, l_) == (DEFAULT_SENSITIVITY, DEFAULT_LEAK) else ""
        modes.append(
            EvidenceMode(
                EvidenceModel(problem, answer_model(s, l_)), name=f"evidence s={s:g} l={l_:g}{mark}"
            )
        )
    return modes


def bayes_ceiling(problem, s, l_, n, seed=0):
    """Share of victim:s,l victims whose chemical (identical rows merged) is the most probable,
    and in the top 5, with every question answered, under the matching answer model."""
    B = problem.matrix
    rng = np.random.default_rng(seed)
    true = rng.choice(B.shape[0], size=n, p=problem.prior)
    answers = rng.random((n, B.shape[1])) < np.where(B[true], s, l_)
    ly, ln = np.where(B, np.log(s), np.log(l_)), np.where(B, np.log1p(-s), np.log1p(-l_))
    ll = answers @ ly.T + (~answers) @ ln.T + np.log(problem.prior)[None, :]
    post = np.exp(ll - ll.max(axis=1, keepdims=True))
    _, rows = np.unique(B, axis=0, return_inverse=True)
    rows = rows.reshape(-1)
    G = np.zeros((B.shape[0], rows.max() + 1))
    G[np.arange(B.shape[0]), rows] = 1.0
    pg = post @ G
    order = np.argsort(-pg, axis=1)
    return float(np.mean(order[:, 0] == rows[true])), float(
        np.mean((order[:, :5] == rows[true][:, None]).any(axis=1))
    )


def settings_comparison(problem, settings, interviews, seed):
    """The evidence mode at each (s, l, threshold) of ``settings`` on the three scenarios."""
    modes = [
        EvidenceMode(
            EvidenceModel(problem, answer_model(s, l_), threshold=t),
            name=f"s={s:g} l={l_:g} t={t:g}",
        )
        for s, l_, t in settings
    ]
    return {
        spec: compare_modes(problem, parse_victims(spec), modes, interviews, seed=seed)
        for spec in SCENARIOS
    }


def frontier(problem, interviews, seed):
    """Every (s, l, threshold) of the FRONTIER grid on flip:0, flip:0.1 and victim:0.7,0.05."""
    settings = [(s, l_, t) for s in FRONTIER_S for l_ in FRONTIER_L for t in FRONTIER_T if l_ < s]
    by = settings_comparison(problem, settings, interviews, seed)
    rows = []
    for k, (s, l_, t) in enumerate(settings):
        exact, flips, victims = by["flip:0"][k], by["flip:0.1"][k], by["victim:0.7,0.05"][k]
        rows.append(
            {
                "sensitivity": s,
                "leak": l_,
                "threshold": t,
                "questions_no_errors": exact.mean_questions,
                "flip_top1": flips.top1,
                "flip_top5": flips.top5,
                "flip_silently_wrong": flips.silently_wrong,
                "flip_questions": flips.mean_questions,
                "victim_top1": victims.top1,
                "victim_silently_wrong": victims.silently_wrong,
            }
        )
    for r in rows:  # Pareto: no other setting asks fewer questions and is silently wrong less
        r["pareto"] = not any(
            o["questions_no_errors"] <= r["questions_no_errors"]
            and o["flip_silently_wrong"] <= r["flip_silently_wrong"]
            and (o["questions_no_errors"], o["flip_silently_wrong"])
            != (r["questions_no_errors"], r["flip_silently_wrong"])
            for o in rows
        )
    rows.sort(key=lambda r: r["questions_no_errors"])
    return rows


def unlisted_agents(problem, interviews, seed):
    """How the default evidence mode ends for victims of agents the knowledge base lacks.

    Three kinds of victim, 10% of answers wrong or showing each listed sign with 0.7 and
    each unlisted one with 0.05: a true victim (its chemical is listed), a victim of a
    listed chemical removed from the knowledge base first (leave one out; only chemicals
    whose profile no other shares), and a victim of an invented agent (as many signs as a
    chemical drawn from the prior, on random symptoms). Returns, per kind and answer
    pattern, the share of interviews that end "no fit", "identified" (confident) and "no
    question can help" (no gain), and the mean questions.
    """
    B = problem.matrix.astype(bool)
    M, N = B.shape
    rng = np.random.default_rng(seed)
    _, rows = np.unique(B, axis=0, return_inverse=True)
    rows = rows.reshape(-1)
    alone = np.flatnonzero(np.bincount(rows)[rows] == 1)
    full = EvidenceModel(problem, answer_model())
    out = {}
    for kind in ("listed", "left out", "invented"):
        for pattern in ("flip:0.1", "victim:0.7,0.05"):
            ends, asked = [], []
            for _ in range(interviews):
                model = full
                i = int(rng.choice(M, p=problem.prior))
                row = B[i]
                if kind == "left out":
                    i = int(rng.choice(alone))
                    keep = np.arange(M) != i
                    row = B[i]
                    model = EvidenceModel(
                        Problem.build(
                            B[keep],
                            prior=problem.prior[keep],
                            object_groups=problem.object_groups[keep],
                        ),
                        answer_model(),
                    )
                elif kind == "invented":
                    row = np.zeros(N, dtype=bool)
                    row[rng.choice(N, int(B[i].sum()), replace=False)] = True
                if pattern == "flip:0.1":
                    answers = row ^ (rng.random(N) < 0.1)
                else:
                    answers = rng.random(N) < np.where(row, 0.7, 0.05)
                k, end = EvidenceMode(model).run(answers, rng)
                ends.append(end.stop().reason)
                asked.append(k)
            out[f"{kind}, {pattern}"] = {
                "interviews": interviews,
                **{r: ends.count(r) / interviews for r in ("no_fit", "confident", "no_gain")},
                "mean_questions": float(np.mean(asked)),
            }
    return out


class ConfidenceLookahead(EvidenceMode):
    """Information gain until the top candidate reaches ``switch``, then the question whose
    answer most raises the expected top probability, sum_a max_i P(i, a)."""

    def __init__(self, model, switch, name):
        super().__init__(model, name=name)
        self.switch = switch
        self.p_yes = np.where(
            model.problem.matrix, model.sensitivities[:, None], model.leak_vector[None, :]
        )

    def choose(self, belief, rng):
        w = belief.posterior[:, None]
        score = (w * self.p_yes).max(axis=0) + (w * (1 - self.p_yes)).max(axis=0)
        return int(np.argmax(np.where(belief.useful(), score, -np.inf)))

    def run(self, answers, rng):
        known: dict[int, bool] = {}
        belief = self.model.root()
        while not belief.stop().stopped:
            q = (
                self.choose(belief, rng)
                if belief.confidence() >= self.switch
                else next_query(belief, rng)
            )
            known[q] = bool(answers[q])
            belief = self.model.belief(known)
        return len(known), belief


class TopVersusRest(ConfidenceLookahead):
    """Information gain until the top candidate reaches ``switch``, then the gain about the
    binary question "is the top candidate (identical rows merged) the truth"."""

    def choose(self, belief, rng):
        codes = self.model.row_groups
        top = codes == int(np.argmax(np.bincount(codes, weights=belief.posterior)))
        w = belief.posterior
        p_top = w[top].sum()
        yes_top = w[top] @ self.p_yes[top] / p_top
        yes_rest = w[~top] @ self.p_yes[~top] / max(1.0 - p_top, 1e-300)
        yes = p_top * yes_top + (1 - p_top) * yes_rest
        gain = (
            binary_entropy(yes)
            - p_top * binary_entropy(yes_top)
            - (1 - p_top) * binary_entropy(yes_rest)
        )
        return int(np.argmax(np.where(belief.useful(), gain, -np.inf)))


def refinements(problem, interviews, seed):
    """The default selection and the two refinements, on the same victims per scenario."""

    def model():
        return EvidenceModel(problem, answer_model())

    modes = [EvidenceMode(model(), name="expected information gain (default)")]
    for switch in (0.3, 0.5, 0.8):
        modes.append(
            ConfidenceLookahead(model(), switch, f"expected top probability from top >= {switch:g}")
        )
    for switch in (0.3, 0.6):
        modes.append(
            TopVersusRest(model(), switch, f"gain about 'top is the truth' from top >= {switch:g}")
        )
    return {
        spec: compare_modes(problem, parse_victims(spec), modes, interviews, seed=seed)
        for spec in ("flip:0", "flip:0.1", "victim:0.7,0.05")
    }


def case_vignettes(kb):
    folder = ROOT / "kb" / "cases"
    if not folder.is_dir():
        return []
    cases = []
    for path in sorted(folder.glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            signs = {}
            for sign in data.get("sign", []):
                signs[kb.resolve_symptom(sign["symptom"])] = bool(sign.get("present", True))
            agent = str(data.get("agent", ""))
            try:
                truth = [kb.chemicals.index(kb.chemical(agent))]
            except KeyError:
                truth = [i for i, c in enumerate(kb.chemicals) if c.class_id == data.get("class")]
            cases.append((path.name, truth, data.get("class"), signs))
        except Exception as exc:  # noqa: BLE001 - one bad vignette must not stop the benchmark
            print(f"case {path.name} skipped: {exc}", file=sys.stderr)
    return cases


def run_case(problem, truth, signs, mode):
    """Follow the suggestions; answer from the vignette, "can't tell" for what it omits."""
    state = mode()
    while state.status is Status.ASKING and state.asked_count < problem.n_queries:
        choice = state.suggestion()
        if choice is None:
            break
        q = int(choice.index)
        state.answer(
            q, Answer.UNKNOWN if q not in signs else (Answer.YES if signs[q] else Answer.NO)
        )
    ranked = [c.objects for c in state.candidates()]
    if not ranked:
        ranked = [(i,) for i, _ in state.ranked_by_mismatch(5)]
    hit = [any(i in truth for i in objs) for objs in ranked]
    return (bool(hit[0]) if hit else False), any(hit[:5])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--interviews", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument(
        "--frontier",
        action="store_true",
        help="sweep sensitivity, leak and threshold instead (evidence mode only)",
    )
    ap.add_argument(
        "--refinements",
        action="store_true",
        help="compare other question selections near the stop instead",
    )
    ap.add_argument(
        "--settings",
        nargs="+",
        metavar="S,L,T",
        default=None,
        help="evidence settings (sensitivity,leak,threshold) to compare on the "
        "three scenarios instead",
    )
    ap.add_argument(
        "--kb",
        metavar="NAME|PATH",
        default=None,
        help="knowledge base (default: the bundled one); a folder pins it",
    )
    ap.add_argument(
        "--long-row-exponent",
        type=float,
        default=DEFAULT_LONG_ROW_EXPONENT,
        metavar="A",
        help="long-row discount of every evidence mode (0: none; "
        f"default {DEFAULT_LONG_ROW_EXPONENT})",
    )
    args = ap.parse_args(argv)
    global LONG_ROWS
    LONG_ROWS = args.long_row_exponent
    kb = resolve_kb(args.kb)
    problem = kb.to_problem()
    print(
        f"KB {args.kb or 'bundled'}: {problem.n_objects} chemicals x {problem.n_queries} symptoms, prior "
        f"= class (default); {args.interviews} interviews per scenario, seed {args.seed}; "
        f"load {os.getloadavg()[0]:.1f}; long-row exponent {LONG_ROWS:g}",
        flush=True,
    )
    ek = evaluate(Model(problem), Policy("gbs"), method="exact").expected_queries
    print(f"strict GBS exact E[K] = {ek:.3f}; 15% above it = {1.15 * ek:.3f}")
    if args.refinements:
        by = refinements(problem, args.interviews, args.seed)
        print(
            "\n| selection | questions, no errors | flips: top-1 / silently wrong | "
            "victims: top-1 / silently wrong |"
        )
        print("|---|---:|---:|---:|")
        for k, mode in enumerate(by["flip:0"]):
            f, v = by["flip:0.1"][k], by["victim:0.7,0.05"][k]
            print(
                f"| {mode.name} | {mode.mean_questions:.2f} | {f.top1:.1%} / "
                f"{f.silently_wrong:.1%} | {v.top1:.1%} / {v.silently_wrong:.1%} |"
            )
        if args.json:
            Path(args.json).write_text(
                json.dumps({spec: [m.as_dict() for m in ms] for spec, ms in by.items()}, indent=2)
            )
        return 0
    if args.settings:
        chosen = [tuple(float(x) for x in spec.split(",")) for spec in args.settings]
        by = settings_comparison(problem, chosen, args.interviews, args.seed)
        print(
            "\n| s | l | threshold | flips: top-1 / top-5 / silently wrong | "
            "victims: top-1 / silently wrong | questions, no errors |"
        )
        print("|---|---|---|---|---|---:|")
        for k, (s, l_, t) in enumerate(chosen):
            f, v, e = (by[spec][k] for spec in SCENARIOS)
            print(
                f"| {s:g} | {l_:g} | {t:g} | {f.top1:.1%} / {f.top5:.1%} / "
                f"{f.silently_wrong:.1%} | {v.top1:.1%} / {v.silently_wrong:.1%} | "
                f"{e.mean_questions:.2f} |"
            )
        if args.json:
            Path(args.json).write_text(
                json.dumps({spec: [m.as_dict() for m in ms] for spec, ms in by.items()}, indent=2)
            )
        return 0
    if args.frontier:
        rows = frontier(problem, args.interviews, args.seed)
        print(
            "\n| s | l | threshold | questions, no errors | flips: top-1 | flips: top-5 | "
            "flips: silently wrong | flips: questions | victims: top-1 | victims: silently wrong |"
        )
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            star = "**" if r["pareto"] else ""
            print(
                f"| {star}{r['sensitivity']:g}{star} | {r['leak']:g} | {r['threshold']:g} | "
                f"{r['questions_no_errors']:.2f} | {r['flip_top1']:.1%} | {r['flip_top5']:.1%} | "
                f"{r['flip_silently_wrong']:.1%} | {r['flip_questions']:.2f} | "
                f"{r['victim_top1']:.1%} | {r['victim_silently_wrong']:.1%} |"
            )
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    {
                        "gbs_exact_EK": ek,
                        "interviews": args.interviews,
                        "seed": args.seed,
                        "frontier": rows,
                    },
                    indent=2,
                )
            )
        return 0
    out = {"gbs_exact_EK": ek, "interviews": args.interviews, "seed": args.seed, "scenarios": {}}
    for spec in SCENARIOS:
        t = time.time()
        summaries = compare_modes(
            problem, parse_victims(spec), modes_for(problem), args.interviews, seed=args.seed
        )
        print(f"\n### {spec}  ({time.time() - t:.0f} s)\n")
        print("| mode | top-1 | top-5 | silently wrong | no fit | mean questions |")
        print("|---|---:|---:|---:|---:|---:|")
        for s in summaries:
            print(
                f"| {s.name} | {_p(s.top1, s.top1_ci)} | {_p(s.top5, s.top5_ci)} | "
                f"{_p(s.silently_wrong, s.silently_wrong_ci)} | {100 * s.no_fit:.1f}% | "
                f"{s.mean_questions:.2f} "
                f"({s.mean_questions_ci[0]:.2f}-{s.mean_questions_ci[1]:.2f}) |",
                flush=True,
            )
        out["scenarios"][spec] = [s.as_dict() for s in summaries]
    for s, l_ in [(0.7, 0.05), (0.9, 0.1)]:
        top1, top5 = bayes_ceiling(problem, s, l_, 20000, seed=args.seed)
        print(
            f"\nBayes ceiling, victim:{s:g},{l_:g}, all {problem.n_queries} questions answered, "
            f"matching model: top-1 {top1:.1%}, top-5 {top5:.1%}"
        )
        out[f"bayes_ceiling_victim:{s:g},{l_:g}"] = {"top1": top1, "top5": top5}
    t = time.time()
    unlisted = unlisted_agents(problem, max(args.interviews // 4, 50), args.seed)
    print(
        f"\n### Agents not in the knowledge base, default evidence mode ({time.time() - t:.0f} s)\n"
    )
    print("| victim | answers | no fit | identified | no question can help | mean questions |")
    print("|---|---|---:|---:|---:|---:|")
    for key, r in unlisted.items():
        kind, pattern = key.split(", ")
        print(
            f"| {kind} | {pattern} | {r['no_fit']:.1%} | {r['confident']:.1%} | "
            f"{r['no_gain']:.1%} | {r['mean_questions']:.1f} |",
            flush=True,
        )
    out["unlisted_agents"] = unlisted
    cases = case_vignettes(kb)
    if cases:
        factories = {
            "strict gbs": lambda: InterviewState(problem),
            "noise gbs eps=2": lambda: InterviewState(
                problem, noise=NoiseModel(2, np.ones(problem.n_queries, dtype=bool))
            ),
            "evidence (default)": lambda: InterviewState(
                problem, evidence=EvidenceSettings(long_row_exponent=LONG_ROWS)
            ),
        }
        print(f"\n### {len(cases)} case vignettes (kb/cases/)\n")
        print("| mode | top-1 | top-5 |")
        print("|---|---:|---:|")
        out["cases"] = {}
        for name, make in factories.items():
            res = [run_case(problem, truth, signs, make) for _, truth, _, signs in cases]
            t1 = np.mean([r[0] for r in res])
            t5 = np.mean([r[1] for r in res])
            print(f"| {name} | {t1:.1%} | {t5:.1%} |")
            out["cases"][name] = {"top1": float(t1), "top5": float(t5), "cases": len(cases)}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


def _p(x, ci) -> str:
    return f"{100 * x:.1f}% ({100 * ci[0]:.0f}-{100 * ci[1]:.0f})"


if __name__ == "__main__":
    sys.exit(main())
