"""A WISER-shaped stand-in: both WISER tables of Section 7 on random data of WISER's shape.

The paper's WISER tables (group identification: GISA, GBS, random search; query categories:
GBS, GQSA, min-min, min-max, random search) were measured on NLM's WISER matrix, which we
do not have. Our knowledge base differs in shape (267 x 86, 17 classes, sparse rows), so the
tables on it answer a different question. This experiment draws random problems **of
WISER's shape** from the paper's own random model and regenerates both tables on them, next
to the paper's numbers.

What is WISER's, and what is chosen (every choice is recorded in the output):

- **Shape** (from the paper): 298 objects x 79 queries, all 298 rows distinct ("298
  distinguishable chemicals"); 16 classes; 10 query categories; uniform prior.
- **Class sizes.** WISER's are not published; the paper gives one statistic, H(P_y) = 3.068.
  We use 16 sizes of a Zipf profile, rounded and then adjusted one member at a time
  until H(P_y) = 3.068 to three decimals (:func:`standin_class_sizes`).
- **Category sizes.** Not published: 10 near-equal categories (8 x 8 + ... = 79).
- **Query parameters.** The paper's WISER scatter (its Figure "WISER gamma parameters",
  estimated with the procedure of Section 7.1.2) has one query in the fourth quadrant and
  none near (gamma_w, gamma_b) = (1, 0.5). We draw 78 queries with gamma_w ~ U[0.75, 1],
  gamma_b ~ U[0.95, 1] and one from the fourth quadrant next to its border, gamma_w ~
  U[0.75, 0.9], gamma_b ~ U[0.6, 0.75]. The range of gamma_b is calibrated on the
  *estimated* scatter, as the paper's is: with 16 classes, several of 4-9 members, the
  estimates are noisy, and gamma_b ~ U[0.95, 1] gives 0.8 estimated fourth-quadrant queries
  per dataset (10 datasets at density 0.3), where U[0.9, 1] gives 2.8 and U[0.75, 1] 15.4.
- **Row density.** The paper's model draws x ~ Bernoulli(p_x) per query without giving p_x;
  with symmetric p_x = 1/2 every row is half ones, while symptom tables are sparse. WISER's
  density is not published in our sources, so it is a setting (``standin_densities``): p_x
  is set per dataset so the expected share of ones equals the target density (feasible from
  about 0.15 to 0.85 with these gammas). The tables are given for every density of the
  sweep.
- **Distinct rows.** A row equal to an earlier one is redrawn from the same model until all
  298 differ; the number of redraws is recorded.
"""

from __future__ import annotations

import math

import numpy as np

from responder.engine.belief import Model
from responder.engine.bounds import entropy
from responder.engine.diagnostics import distinguishable_count, estimate_gammas, in_gain_region
from responder.engine.evaluate import bounds, evaluate
from responder.engine.policies import Policy
from responder.engine.problem import Problem
from responder.experiments.common import Context
from responder.experiments.datasets import equal_sizes, group_labels, scale_sizes
from responder.experiments.report import (
    fmt,
    fmt_pm,
    md_table,
    save_figure,
    settings_caption,
    write_results,
)
from responder.experiments.runner import EXPERIMENT_CODES, int_seed, mean_ci, run_sweep, task_seed

NAME = "wiser-standin"
WISER_OBJECTS = 298
WISER_QUERIES = 79
WISER_CLASSES = 16
WISER_CATEGORIES = 10
WISER_CLASS_ENTROPY = 3.068
GROUP_POLICIES = ("gisa", "gbs", "random")
CATEGORY_POLICIES = ("gbs", "gqsa", "minmin", "minmax", "random")
LABELS = {
    "gisa": "GISA",
    "gbs": "GBS",
    "random": "random search",
    "gqsa": "GQSA",
    "minmin": "min-min category",
    "minmax": "min-max category",
}
# The paper's WISER tables (shared/reference/facts.md): mean and its +- half-width.
PAPER_GROUP = {"gisa": (7.792, 0.001), "gbs": (7.948, 0.003), "random": (16.328, 0.177)}
PAPER_OBJECT = {
    "gbs": (8.283, 0.000),
    "gqsa": (11.360, 0.096),
    "minmin": (13.401, 0.116),
    "minmax": (18.697, 0.357),
    "random": (20.251, 0.318),
}
PAPER_H_GROUP = 3.068
PAPER_H_OBJECT = 8.219


def standin_class_sizes(
    n_objects: int = WISER_OBJECTS,
    n_classes: int = WISER_CLASSES,
    target: float = WISER_CLASS_ENTROPY,
    tol: float = 5e-4,
) -> tuple[int, ...]:
    """``n_classes`` sizes summing to ``n_objects`` whose entropy (uniform prior) is ``target``.

    Zipf sizes proportional to k^-s (k = 1..n), s found by bisection on the entropy of the
    proportions, rounded (each class at least one member); then, while the entropy misses
    ``target`` by more than ``tol``, the single move of one member between two classes that
    brings it closest is made. Deterministic; sizes in decreasing order.
    """
    if not 0 < target < math.log2(n_classes):
        raise ValueError(f"target entropy must lie in (0, log2({n_classes})), got {target}")

    def h_of(sizes) -> float:
        return entropy(np.asarray(sizes, dtype=float))

    rank = np.arange(1, n_classes + 1, dtype=float)
    lo, hi = 0.0, 20.0  # entropy falls as s grows (s = 0: equal sizes)
    for _ in range(100):
        s = 0.5 * (lo + hi)
        if h_of(rank**-s) > target:
            lo = s
        else:
            hi = s
    sizes = np.array(scale_sizes(rank**-s * 1e6, n_objects))
    for _ in range(10 * n_objects):
        h = h_of(sizes)
        if abs(h - target) <= tol:
            break
        best, move = abs(h - target), None
        for i in range(n_classes):
            if sizes[i] <= 1:
                continue
            for j in range(n_classes):
                if i == j:
                    continue
                sizes[i] -= 1
                sizes[j] += 1
                gap = abs(h_of(sizes) - target)
                sizes[i] += 1
                sizes[j] -= 1
                if gap < best - 1e-15:
                    best, move = gap, (i, j)
        if move is None:
            break
        sizes[move[0]] -= 1
        sizes[move[1]] += 1
    return tuple(int(s) for s in sorted(sizes, reverse=True))


def standin_gammas(n_queries: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """(gamma_w, gamma_b) per query: first quadrant, except one query in the fourth."""
    gw = rng.uniform(0.75, 1.0, size=n_queries)
    gb = rng.uniform(0.95, 1.0, size=n_queries)
    k = int(rng.integers(n_queries))
    gw[k] = rng.uniform(0.75, 0.9)
    gb[k] = rng.uniform(0.6, 0.75)
    return gw, gb


def majority_one_probability(gamma_w, gamma_b, density: float) -> float:
    """p_x such that the expected share of ones over the queries equals ``density``.

    An object answers 1 with chance p_x a + (1 - p_x) b, with a = gb gw + (1-gb)(1-gw) (its
    group's label and its own both follow x) and b = (1-gb) gw + gb (1-gw).
    """
    gw, gb = np.asarray(gamma_w), np.asarray(gamma_b)
    a = float(np.mean(gb * gw + (1 - gb) * (1 - gw)))
    b = float(np.mean((1 - gb) * gw + gb * (1 - gw)))
    if not b - 1e-9 <= density <= a + 1e-9:
        raise ValueError(
            f"density {density} is outside what these gammas allow ({b:.3f} to {a:.3f})"
        )
    return float(np.clip((density - b) / (a - b), 0.0, 1.0))


def _draw_rows(groups, gamma_w, gamma_b, labels, rng) -> np.ndarray:
    """Step 3 of the paper's model for the objects ``groups`` (labels b per group x query)."""
    keep = rng.random((groups.size, gamma_w.size)) < gamma_w[None, :]
    return np.where(keep, labels[groups], ~labels[groups])


def standin_dataset(class_sizes, category_sizes, density: float, rng) -> tuple[Problem, dict]:
    """One WISER-shaped problem from the paper's model; all rows distinct."""
    groups = group_labels(class_sizes)
    z = group_labels(category_sizes)
    gw, gb = standin_gammas(z.size, rng)
    p_x = majority_one_probability(gw, gb, density)
    m = len(class_sizes)
    x = rng.random(z.size) < p_x  # step 1
    labels = np.where(rng.random((m, z.size)) < gb[None, :], x[None, :], ~x[None, :])  # step 2
    B = _draw_rows(groups, gw, gb, labels, rng)  # step 3
    redraws = 0
    while True:
        _, first = np.unique(B, axis=0, return_index=True)
        dup = np.setdiff1d(np.arange(B.shape[0]), first)
        if dup.size == 0:
            break
        redraws += int(dup.size)
        if redraws > 100 * B.shape[0]:
            raise RuntimeError("could not draw distinct rows; the density is too extreme")
        B[dup] = _draw_rows(groups[dup], gw, gb, labels, rng)
    problem = Problem.build(B, object_groups=groups, query_groups=z)
    return problem, {"gamma_w": gw, "gamma_b": gb, "p_x": p_x, "redraws": redraws}


def dataset_task(
    seed: int, key: tuple, class_sizes, category_sizes, density: float, trials: int
) -> dict:
    """Both WISER tables on one stand-in dataset (runs in a worker)."""
    ss = task_seed(seed, *key)
    rng = np.random.default_rng(ss)
    problem, params = standin_dataset(class_sizes, category_sizes, density, rng)
    mc_seed = int_seed(ss, 1)
    group = Model(problem, "group")
    obj = Model(problem, "object")
    out = {"group": {}, "object": {}}
    for name in ("gisa", "gbs"):
        out["group"][name] = evaluate(group, Policy(name), method="exact").expected_queries
    out["group"]["random"] = evaluate(
        group, Policy("random"), method="monte-carlo", trials=trials, seed=mc_seed
    ).expected_queries
    out["object"]["gbs"] = evaluate(obj, Policy("gbs"), method="exact").expected_queries
    for name in CATEGORY_POLICIES[1:]:
        out["object"][name] = evaluate(
            obj, Policy(name), method="monte-carlo", trials=trials, seed=mc_seed
        ).expected_queries
    gw_hat, gb_hat = estimate_gammas(problem.matrix, problem.object_groups)
    out["h_group"] = bounds(group)["entropy"]
    out["h_object"] = bounds(obj)["entropy"]
    out["measured_density"] = float(problem.matrix.mean())
    out["distinct_rows"] = distinguishable_count(problem.matrix)
    out["fourth_quadrant_estimated"] = int(in_gain_region(gw_hat, gb_hat).sum())
    out["p_x"] = params["p_x"]
    out["redraws"] = params["redraws"]
    return out


def run(ctx: Context) -> dict:
    s = ctx.settings
    code = EXPERIMENT_CODES[NAME]
    class_sizes = standin_class_sizes()
    category_sizes = equal_sizes(WISER_CATEGORIES, WISER_QUERIES)
    chunks = run_sweep(
        dataset_task,
        list(s.standin_densities),
        s.standin_datasets,
        s.seed,
        code,
        s.jobs,
        f"{NAME}: random datasets",
        s.progress,
        lambda d: {"density": d},
        class_sizes=class_sizes,
        category_sizes=category_sizes,
        trials=s.standin_trials,
    )
    points = []
    for d, chunk in zip(s.standin_densities, chunks):
        row = {"density": d, "datasets": len(chunk), "group": {}, "object": {}}
        for target, names in (("group", GROUP_POLICIES), ("object", CATEGORY_POLICIES)):
            for name in names:
                row[target][name] = mean_ci([r[target][name] for r in chunk])
        for key in (
            "h_group",
            "h_object",
            "measured_density",
            "distinct_rows",
            "fourth_quadrant_estimated",
            "p_x",
            "redraws",
        ):
            row[key] = mean_ci([r[key] for r in chunk])
        row["gisa_beats_gbs"] = int(
            sum(r["group"]["gisa"] < r["group"]["gbs"] - 1e-9 for r in chunk)
        )
        row["gqsa_over_gbs"] = mean_ci([r["object"]["gqsa"] / r["object"]["gbs"] for r in chunk])
        row["paper_object_order_holds"] = int(
            sum(
                r["object"]["gbs"]
                < r["object"]["gqsa"]
                < r["object"]["minmin"]
                < r["object"]["minmax"]
                < r["object"]["random"]
                for r in chunk
            )
        )
        points.append(row)
    data = {
        "experiment": NAME,
        "shape": {
            "objects": WISER_OBJECTS,
            "queries": WISER_QUERIES,
            "class_sizes": list(class_sizes),
            "class_entropy": entropy(np.asarray(class_sizes, dtype=float)),
            "category_sizes": list(category_sizes),
        },
        "model": (
            "paper's random model (Section 7.1.1); 78 queries with gamma_w ~ "
            "U[0.75, 1], gamma_b ~ U[0.95, 1], one with gamma_w ~ U[0.75, 0.9], gamma_b ~ U[0.6, 0.75]; "
            "x ~ Bernoulli(p_x) with p_x set for the target density; duplicate rows "
            "redrawn"
        ),
        "datasets_per_density": s.standin_datasets,
        "trials_per_dataset": s.standin_trials,
        "seed": s.seed,
        "paper": {
            "group": PAPER_GROUP,
            "object": PAPER_OBJECT,
            "h_group": PAPER_H_GROUP,
            "h_object": PAPER_H_OBJECT,
        },
        "points": points,
        "per_dataset": [
            {"density": d, "results": chunk} for d, chunk in zip(s.standin_densities, chunks)
        ],
    }
    return write_results(ctx, NAME, data, markdown, plot)


def _paper(p) -> str:
    return fmt_pm(*p)


def _ours(stats: dict) -> str:
    return (
        f"{fmt_pm(stats['mean'], stats['half'])} [{fmt(stats['p2_5'], 2)}-{fmt(stats['p97_5'], 2)}]"
    )


def markdown(ctx: Context, data: dict) -> str:
    sh = data["shape"]
    n = data["datasets_per_density"]
    lines = [
        "# WISER-shaped stand-in (both WISER tables of Section 7)\n",
        f"{n} random problems per density, each {sh['objects']} objects (all rows distinct) x "
        f"{sh['queries']} queries; {len(sh['class_sizes'])} classes of sizes "
        f"{sh['class_sizes']} (H(P_y) = {sh['class_entropy']:.3f}; WISER 3.068); "
        f"{len(sh['category_sizes'])} query categories of sizes {sh['category_sizes']}; "
        f"uniform prior. Model: {data['model']}. GBS and GISA exact (first-index ties); the "
        f"other policies by Monte Carlo, {data['trials_per_dataset']} simulated interviews per "
        "dataset and policy (the same victims for every policy). Ours: mean over datasets ± "
        f"95% t interval of the mean (n = {n}) [2.5-97.5% range over datasets]. Paper: one "
        f"matrix, ± over random tie-breaking. Seed {data['seed']}.\n",
    ]
    paper = data["paper"]
    for row in data["points"]:
        lines.append(f"\n## Target row density {row['density']:.2f}\n")
        lines.append(
            f"Measured density {fmt(row['measured_density']['mean'])}, p_x "
            f"{fmt(row['p_x']['mean'])}, distinct rows {fmt(row['distinct_rows']['mean'], 1)}, "
            f"rows redrawn per dataset {fmt(row['redraws']['mean'], 1)}, estimated "
            f"fourth-quadrant queries {fmt(row['fourth_quadrant_estimated']['mean'], 1)} "
            "(WISER: 1).\n"
        )
        lines.append('\n**Group identification** (paper table "WISER group identification")\n')
        rows = [
            [LABELS[p], _ours(row["group"][p]), _paper(paper["group"][p])] for p in GROUP_POLICIES
        ]
        rows.append(["entropy bound H(P_y)", fmt(row["h_group"]["mean"]), fmt(paper["h_group"])])
        lines.append(md_table(["algorithm", "E[K] stand-in", "paper (WISER)"], rows))
        lines.append(f"\nGISA < GBS in {row['gisa_beats_gbs']}/{row['datasets']} datasets.\n")
        lines.append(
            "\n**Object identification under query categories** (paper table "
            '"WISER group queries")\n'
        )
        rows = [
            [LABELS[p], _ours(row["object"][p]), _paper(paper["object"][p])]
            for p in CATEGORY_POLICIES
        ]
        rows.append(["entropy bound H(P)", fmt(row["h_object"]["mean"]), fmt(paper["h_object"])])
        lines.append(md_table(["algorithm", "E[K] stand-in", "paper (WISER)"], rows))
        ratio = row["gqsa_over_gbs"]
        lines.append(
            f"\nGQSA / GBS = {fmt_pm(ratio['mean'], ratio['half'], 2)} (paper 11.360 / 8.283 = "
            f"{11.360 / 8.283:.2f}). The paper's order GBS < GQSA < min-min < min-max < random "
            f"holds in {row['paper_object_order_holds']}/{row['datasets']} datasets.\n"
        )
    return "\n".join(lines)


def plot(ctx: Context, data: dict) -> list[str]:
    plt = ctx.plt
    if plt is None:
        return []
    pts = data["points"]
    x = [r["density"] for r in pts]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    panels = (
        (axes[0], "group", GROUP_POLICIES, "Group identification", "h_group"),
        (
            axes[1],
            "object",
            CATEGORY_POLICIES,
            "Object identification, query categories",
            "h_object",
        ),
    )
    for ax, target, names, title, hkey in panels:
        for name in names:
            line = ax.errorbar(
                x,
                [r[target][name]["mean"] for r in pts],
                yerr=[r[target][name]["half"] for r in pts],
                fmt="o-",
                capsize=3,
                label=f"{LABELS[name]} (stand-in)",
            )
            ax.axhline(
                data["paper"][target][name][0],
                color=line[0].get_color(),
                ls="--",
                lw=0.9,
                label=f"{LABELS[name]} (paper, WISER)",
            )
        ax.plot(x, [r[hkey]["mean"] for r in pts], "k:", label="entropy bound")
        ax.set_xlabel("target row density (share of 1s)")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6.5, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    axes[0].set_ylabel("E[K] (questions)")
    fig.suptitle(
        "WISER-shaped stand-in (298 x 79, 16 classes, H(P_y) = 3.068) against the "
        "paper's WISER tables",
        fontsize=11,
    )
    fig.text(
        0.5,
        -0.3,
        settings_caption(
            f"Error bars: 95% t interval of the mean over {data['datasets_per_density']} datasets "
            "per density; dashed lines: the paper's WISER values",
            ctx.settings.seed,
            f"{data['trials_per_dataset']} simulated interviews per dataset for Monte Carlo "
            "policies",
        ),
        ha="center",
        fontsize=7.5,
        wrap=True,
    )
    return save_figure(fig, ctx.out / NAME)
