"""Sensitivity of the Section 7 results to the paper's unknowns.

The paper leaves four things open that our reproduction had to fix by one reading each.
Each gets a table here, with the other readings side by side:

1. **Random-data class sizes** (7.1.1 uses WISER's 16 class sizes, unpublished): our
   knowledge base's classes scaled to 298 (H(P_y) = 3.645), the WISER stand-in's Zipf sizes
   with WISER's H(P_y) = 3.068, and 16 equal classes (H = 4).
2. **Placement of the (d1, d2) rectangle** (the paper's figure is missing): ours, anchored
   at (gamma_w, gamma_b) = (1, 1); the same with the axes swapped; and anchored at (1, 0.5),
   gamma_b ~ U[0.5, 0.5 + d2].
3. **Random search's draws**: any unasked symptom (ours, as the paper's "randomly chooses
   the queries"), or only symptoms that split the remaining candidates.
4. **nu for probability model 2** (7.3 gives none): nu in {0.25, 0.5, 0.75}.
"""

from __future__ import annotations

import numpy as np

from responder.engine.belief import Model
from responder.engine.evaluate import evaluate
from responder.engine.policies import Policy
from responder.engine.problem import Problem
from responder.experiments.common import Context
from responder.experiments.datasets import (
    equal_sizes,
    group_labels,
    group_model_matrix,
    sizes_from_problem,
)
from responder.experiments.noise import exact_task, select_subset
from responder.experiments.report import fmt, fmt_pm, md_table, write_results
from responder.experiments.runner import (
    EXPERIMENT_CODES,
    Task,
    int_seed,
    mean_ci,
    run_tasks,
    task_seed,
)
from responder.experiments.wiser_standin import (
    WISER_CATEGORIES,
    WISER_QUERIES,
    standin_class_sizes,
    standin_dataset,
)

NAME = "sensitivity"
PLACEMENTS = {
    "corner (1, 1) (ours)": "ours",
    "corner (1, 1), axes swapped": "swapped",
    "corner (1, 0.5)": "low",
}


class SplittingRandomPolicy(Policy):
    """Random search that draws only among unasked queries that split the candidates."""

    among = "splits"

    def __init__(self, seed: int | None = None):
        super().__init__("random", seed=seed)  # the name makes evaluate() treat it as random


def placement_gammas(placement: str, n: int, d1: float, d2: float, rng):
    """(gamma_w, gamma_b) per query for one reading of the missing rectangle figure."""
    if placement == "ours":
        return rng.uniform(1 - d1, 1, n), rng.uniform(1 - d2, 1, n)
    if placement == "swapped":
        return rng.uniform(1 - d2, 1, n), rng.uniform(1 - d1, 1, n)
    if placement == "low":
        return rng.uniform(1 - d1, 1, n), rng.uniform(0.5, 0.5 + d2, n)
    raise ValueError(f"unknown placement {placement!r}; choose one of ours, swapped, low")


def group_task(
    seed: int, key: tuple, object_sizes, placement: str, d1: float, d2: float, trials: int
) -> dict:
    """GBS, GISA (exact) and random search (Monte Carlo) on one random group-id dataset."""
    ss = task_seed(seed, *key)
    rng = np.random.default_rng(ss)
    groups = group_labels(object_sizes)
    gw, gb = placement_gammas(placement, WISER_QUERIES, d1, d2, rng)
    problem = Problem.build(group_model_matrix(groups, gw, gb, rng), object_groups=groups)
    model = Model(problem, "group")
    out = {p: evaluate(model, Policy(p), method="exact").expected_queries for p in ("gbs", "gisa")}
    if trials:
        out["random"] = evaluate(
            model, Policy("random"), method="monte-carlo", trials=trials, seed=int_seed(ss, 1)
        ).expected_queries
    return out


def random_search_task(problem, target: str, splitting: bool, trials: int, seed: int) -> dict:
    policy = SplittingRandomPolicy() if splitting else Policy("random")
    ev = evaluate(Model(problem, target), policy, method="monte-carlo", trials=trials, seed=seed)
    lo, hi = ev.ci95
    return {"mean": ev.expected_queries, "half": (hi - lo) / 2}


def standin_problem(seed: int) -> Problem:
    rng = np.random.default_rng(task_seed(seed, EXPERIMENT_CODES[NAME], 30))
    problem, _ = standin_dataset(
        standin_class_sizes(), equal_sizes(WISER_CATEGORIES, WISER_QUERIES), 0.3, rng
    )
    return problem


def run(ctx: Context) -> dict:
    s = ctx.settings
    code = EXPERIMENT_CODES[NAME]
    n = s.sens_datasets
    sizes_sets = {}
    kb_sizes = sizes_from_problem(ctx.kb, ctx.kb_note)
    sizes_sets[f"knowledge base scaled ({len(kb_sizes.object_group_sizes)} classes)"] = (
        kb_sizes.object_group_sizes
    )
    sizes_sets["WISER stand-in (16, Zipf)"] = standin_class_sizes()
    sizes_sets["16 equal"] = equal_sizes(16, 298)
    tasks, index = [], []
    # 1. class sizes, our placement
    for a, (label, sizes) in enumerate(sizes_sets.items()):
        for b, d2 in enumerate(s.sens_d2_values):
            for k in range(n):
                tasks.append(
                    Task(
                        group_task,
                        dict(
                            seed=s.seed,
                            key=(code, 1, a, b, k),
                            object_sizes=sizes,
                            placement="ours",
                            d1=s.sens_d1,
                            d2=d2,
                            trials=s.sens_trials,
                        ),
                    )
                )
                index.append(("sizes", label, d2))
    # 2. placements, knowledge-base sizes
    for a, (label, placement) in enumerate(PLACEMENTS.items()):
        for b, d2 in enumerate(s.sens_d2_values):
            for k in range(n):
                tasks.append(
                    Task(
                        group_task,
                        dict(
                            seed=s.seed,
                            key=(code, 2, a, b, k),
                            object_sizes=ctx.sizes.object_group_sizes,
                            placement=placement,
                            d1=s.sens_d1,
                            d2=d2,
                            trials=0,
                        ),
                    )
                )
                index.append(("placement", label, d2))
    # 3. random search: any unasked query, or only splitting ones
    problems = [("WISER stand-in, density 0.3", standin_problem(s.seed))]
    if ctx.kb is not None and ctx.kb.object_groups is not None:
        problems.insert(0, (ctx.kb_label, ctx.kb))
    for a, (label, problem) in enumerate(problems):
        for target in ("group", "object"):
            for splitting in (False, True):
                tasks.append(
                    Task(
                        random_search_task,
                        dict(
                            problem=problem,
                            target=target,
                            splitting=splitting,
                            trials=s.sens_random_trials,
                            seed=int_seed(task_seed(s.seed, code, 3, a, target == "group")),
                        ),
                    )
                )
                index.append(("random", label, (target, splitting)))
    # 4. nu for model 2, on the noise experiment's knowledge-base subset
    noise_problem = None
    if ctx.kb is not None:
        idx, _ = select_subset(ctx.kb.matrix, s.noise_size, s.noise_min_distance)
        noise_problem = ctx.kb.subset(objects=idx).with_prior(None)
    if noise_problem is not None and noise_problem.n_objects >= 2:
        for a, nu in enumerate(s.sens_nu_values):
            for p in s.sens_p_values:
                for m in range(s.sens_noise_masks):
                    ms = int_seed(task_seed(s.seed, code, 4, a, m))
                    for pol in ("gbs", "gisa"):
                        tasks.append(
                            Task(
                                exact_task,
                                dict(
                                    problem=noise_problem,
                                    nu=nu,
                                    mask_seed=ms,
                                    eps=s.noise_eps,
                                    model=2,
                                    p=p,
                                    policy=pol,
                                ),
                            )
                        )
                        index.append(("nu", (nu, p), (m, pol)))
    results = run_tasks(tasks, s.jobs, f"{NAME}: all unknowns", s.progress)

    def pick(kind, label, x):
        return [
            r for (k, lab, xx), r in zip(index, results) if k == kind and lab == label and xx == x
        ]

    data = {
        "experiment": NAME,
        "datasets": n,
        "d1": s.sens_d1,
        "seed": s.seed,
        "trials": s.sens_trials,
        "random_trials": s.sens_random_trials,
        "sizes": {},
        "placement": {},
        "random": {},
        "nu": [],
    }
    for label, sizes in sizes_sets.items():
        arr = np.asarray(sizes, dtype=float) / sum(sizes)
        h = float(-(arr * np.log2(arr)).sum())
        rows = []
        for d2 in s.sens_d2_values:
            rs = pick("sizes", label, d2)
            rows.append(
                {
                    "d2": d2,
                    **{p: mean_ci([r[p] for r in rs]) for p in ("gbs", "gisa", "random")},
                    "gisa_beats_gbs": int(sum(r["gisa"] < r["gbs"] - 1e-9 for r in rs)),
                }
            )
        data["sizes"][label] = {"sizes": list(sizes), "entropy": h, "rows": rows}
    for label in PLACEMENTS:
        rows = []
        for d2 in s.sens_d2_values:
            rs = pick("placement", label, d2)
            rows.append(
                {
                    "d2": d2,
                    **{p: mean_ci([r[p] for r in rs]) for p in ("gbs", "gisa")},
                    "gisa_beats_gbs": int(sum(r["gisa"] < r["gbs"] - 1e-9 for r in rs)),
                }
            )
        falls = all(b["gisa"]["mean"] < a["gisa"]["mean"] for a, b in zip(rows, rows[1:]))
        data["placement"][label] = {"rows": rows, "gisa_falls_with_d2": falls}
    for label, _ in problems:
        data["random"][label] = {
            f"{target} {'splitting' if splitting else 'any'}": pick(
                "random", label, (target, splitting)
            )[0]
            for target in ("group", "object")
            for splitting in (False, True)
        }
    if noise_problem is not None and noise_problem.n_objects >= 2:
        for nu in s.sens_nu_values:
            for p in s.sens_p_values:
                rows = {
                    pol: [
                        r["value"]
                        for (k, lab, x), r in zip(index, results)
                        if k == "nu" and lab == (nu, p) and x[1] == pol
                    ]
                    for pol in ("gbs", "gisa")
                }
                data["nu"].append(
                    {
                        "nu": nu,
                        "p": p,
                        "gbs": mean_ci(rows["gbs"]),
                        "gisa": mean_ci(rows["gisa"]),
                        "gisa_beats_gbs": int(
                            sum(b < a - 1e-9 for a, b in zip(rows["gbs"], rows["gisa"]))
                        ),
                        "masks": len(rows["gbs"]),
                    }
                )
        data["nu_subset"] = {"objects": noise_problem.n_objects, "queries": noise_problem.n_queries}
    return write_results(ctx, NAME, data, markdown, lambda ctx, data: [])


def markdown(ctx: Context, data: dict) -> str:
    n = data["datasets"]
    lines = [
        "# Sensitivity to the paper's unknowns\n",
        f"Random datasets: 298 x 79, {n} per cell; mean ± 95% t interval of the mean over "
        f"datasets (n = {n}). GBS and GISA exact (first-index ties); random search by Monte "
        f"Carlo, {data['trials']} interviews per dataset. d1 = {data['d1']}. "
        f"Seed {data['seed']}.\n",
        "\n## 1. Class sizes of the random datasets (our rectangle reading)\n",
    ]
    rows = []
    for label, entry in data["sizes"].items():
        for r in entry["rows"]:
            rows.append(
                [
                    label,
                    fmt(entry["entropy"]),
                    fmt(r["d2"], 2),
                    fmt_pm(r["gbs"]["mean"], r["gbs"]["half"]),
                    fmt_pm(r["gisa"]["mean"], r["gisa"]["half"]),
                    fmt_pm(r["random"]["mean"], r["random"]["half"]),
                    f"{r['gisa_beats_gbs']}/{n}",
                ]
            )
    lines.append(
        md_table(["class sizes", "H(P_y)", "d2", "GBS", "GISA", "random", "GISA < GBS"], rows)
    )
    lines.append("\n## 2. Placement of the (d1, d2) rectangle (knowledge-base class sizes)\n")
    rows = []
    for label, entry in data["placement"].items():
        for r in entry["rows"]:
            rows.append(
                [
                    label,
                    fmt(r["d2"], 2),
                    fmt_pm(r["gbs"]["mean"], r["gbs"]["half"]),
                    fmt_pm(r["gisa"]["mean"], r["gisa"]["half"]),
                    f"{r['gisa_beats_gbs']}/{n}",
                    "yes" if entry["gisa_falls_with_d2"] else "no",
                ]
            )
    lines.append(
        md_table(["reading", "d2", "GBS", "GISA", "GISA < GBS", "GISA falls as d2 grows"], rows)
    )
    lines.append(
        f"\n## 3. Random search: any unasked symptom, or only splitting ones "
        f"({data['random_trials']} simulated interviews each; ± 95% interval)\n"
    )
    rows = []
    for label, entry in data["random"].items():
        for target in ("group", "object"):
            a, b = entry[f"{target} any"], entry[f"{target} splitting"]
            rows.append([label, target, fmt_pm(a["mean"], a["half"]), fmt_pm(b["mean"], b["half"])])
    lines.append(md_table(["problem", "target", "any unasked (ours)", "splitting only"], rows))
    if data["nu"]:
        sub = data["nu_subset"]
        lines.append(
            f"\n## 4. nu for probability model 2 (knowledge-base subset "
            f"{sub['objects']} x {sub['queries']}, eps = 2; exact E[K], mean ± 95% t "
            f"interval over {data['nu'][0]['masks']} random error-prone sets)\n"
        )
        rows = [
            [
                fmt(r["nu"], 2),
                fmt(r["p"], 2),
                fmt_pm(r["gbs"]["mean"], r["gbs"]["half"]),
                fmt_pm(r["gisa"]["mean"], r["gisa"]["half"]),
                f"{r['gisa_beats_gbs']}/{r['masks']}",
            ]
            for r in data["nu"]
        ]
        lines.append(md_table(["nu", "p", "GBS", "GISA", "GISA < GBS"], rows))
    return "\n".join(lines)
