"""Section 7.2: object identification when the responder picks the symptom in a category.

Random datasets (7.2.1): for each gamma_max, ``--datasets`` datasets of the gamma_max model
(:mod:`responder.experiments.datasets`); on each, GBS exactly and GQSA, min-min, min-max and
random search by Monte Carlo (their trees branch on every pick, far too many states to walk
at 298 objects). Uniform prior on objects and uniform picks inside a category.

Knowledge base (7.2.2): the paper's WISER table on ``--kb``.
"""

from __future__ import annotations

import numpy as np

from responder.engine.belief import Model
from responder.engine.diagnostics import distinguishable_count
from responder.engine.evaluate import bounds, evaluate
from responder.engine.policies import Policy
from responder.experiments.common import Context, kb_section
from responder.experiments.datasets import query_group_dataset
from responder.experiments.group_id import kb_markdown
from responder.experiments.report import (
    fmt,
    fmt_pm,
    md_table,
    save_figure,
    settings_caption,
    write_results,
)
from responder.experiments.runner import EXPERIMENT_CODES, int_seed, mean_ci, run_sweep, task_seed

NAME = "query-groups"
POLICIES = ("gbs", "gqsa", "minmin", "minmax", "random")
LABELS = {
    "gbs": "GBS",
    "gqsa": "GQSA",
    "minmin": "min-min",
    "minmax": "min-max",
    "random": "random",
}
PAPER_KB = {
    "gbs": (8.283, 0.000),
    "gqsa": (11.360, 0.096),
    "minmin": (13.401, 0.116),
    "minmax": (18.697, 0.357),
    "random": (20.251, 0.318),
    "entropy": 8.219,
}


def dataset_task(seed: int, key: tuple, sizes, gamma_max: float, trials: int) -> dict:
    """One random dataset: GBS exact, the others Monte Carlo with common random numbers."""
    ss = task_seed(seed, *key)
    rng = np.random.default_rng(ss)
    problem, _ = query_group_dataset(sizes, gamma_max, rng)
    model = Model(problem, "object")
    b = bounds(model)
    mc_seed = int_seed(ss, 1)
    out = {"gbs": evaluate(model, Policy("gbs"), method="exact").expected_queries}
    for name in POLICIES[1:]:
        out[name] = evaluate(
            model, Policy(name), method="monte-carlo", trials=trials, seed=mc_seed
        ).expected_queries
    out["entropy"] = b["entropy"]
    out["huffman_bound"] = b["huffman_bound"]
    out["distinct_rows"] = distinguishable_count(problem.matrix)
    return out


def run(ctx: Context) -> dict:
    s = ctx.settings
    code = EXPERIMENT_CODES[NAME]
    chunks = run_sweep(
        dataset_task,
        list(s.gamma_max_values),
        s.datasets,
        s.seed,
        code,
        s.jobs,
        f"{NAME}: random datasets",
        s.progress,
        lambda g: {"gamma_max": g},
        sizes=ctx.sizes,
        trials=s.qg_trials,
    )
    sweep = []
    for g, chunk in zip(s.gamma_max_values, chunks):
        row = {"gamma_max": g, "datasets": len(chunk)}
        for key in (*POLICIES, "entropy", "huffman_bound", "distinct_rows"):
            row[key] = mean_ci([r[key] for r in chunk])
        order = [min(POLICIES, key=lambda p: r[p]) for r in chunk]
        row["best_counts"] = {p: order.count(p) for p in POLICIES}
        row["gqsa_best_of_category_policies"] = int(
            sum(r["gqsa"] <= min(r["minmin"], r["minmax"], r["random"]) for r in chunk)
        )
        sweep.append(row)
    data = {
        "experiment": NAME,
        "model": "per category gamma_b ~ U[0.5, gamma_max]; per query x ~ Bernoulli(1/2), "
        "each object answers x with probability gamma_b",
        "sizes": ctx.sizes.to_dict(),
        "trials_per_dataset": s.qg_trials,
        "sweep": sweep,
        "per_dataset": [
            {"gamma_max": g, "results": chunk} for g, chunk in zip(s.gamma_max_values, chunks)
        ],
    }
    data["kb"] = kb_section(ctx, NAME, "object", list(POLICIES), "query_groups")
    return write_results(ctx, NAME, data, markdown, plot)


def markdown(ctx: Context, data: dict) -> str:
    s = ctx.settings
    lines = [
        "# Object identification under query categories (Section 7.2)\n",
        f"Random datasets: {ctx.sizes.n_objects} objects x {ctx.sizes.n_queries} queries in "
        f"{len(ctx.sizes.query_group_sizes)} categories of sizes "
        f"{list(ctx.sizes.query_group_sizes)} ({ctx.sizes.source}). {s.datasets} datasets per "
        f"gamma_max; GBS exact; GQSA, min-min, min-max and random by Monte Carlo, "
        f"{s.qg_trials} interviews per dataset and policy (the same simulated objects for "
        "every policy). Mean E[K] ± 95% interval of the mean over datasets.\n",
    ]
    rows = []
    for r in data["sweep"]:
        rows.append(
            [fmt(r["gamma_max"], 2)]
            + [fmt_pm(r[p]["mean"], r[p]["half"]) for p in POLICIES]
            + [fmt(r["entropy"]["mean"]), f"{r['gqsa_best_of_category_policies']}/{r['datasets']}"]
        )
    lines.append(
        md_table(
            ["gamma_max"] + [LABELS[p] for p in POLICIES] + ["H(P)", "GQSA best non-GBS"], rows
        )
    )
    kb = data.get("kb")
    summ = kb["summary"] if kb else {}
    lines += kb_markdown(
        ctx,
        kb,
        lambda: (
            f"{ctx.kb_label}: {summ['objects']} chemicals ({summ['distinct_rows']} distinct rows) "
            f"x {summ['queries']} symptoms in {len(summ.get('categories', {}))} categories; "
            f"prior {summ['prior']}; uniform picks. GBS: exact trees with random tie-breaking "
            "(first-index ties in brackets); the others as in the method column, the interval "
            "over repeats with random tie-breaking.\n"
        ),
        list(POLICIES),
        PAPER_KB,
        "H(P)",
    )
    hb = kb["bounds"].get("huffman_bound") if kb else None
    if hb is not None:
        lines.append(f"\nHuffman bound over the distinct rows: {fmt(hb)}.\n")
    return "\n".join(lines)


def plot(ctx: Context, data: dict) -> list[str]:
    plt = ctx.plt
    if plt is None:
        return []
    fig, ax = plt.subplots(figsize=(5.5, 4))
    x = [r["gamma_max"] for r in data["sweep"]]
    styles = {"gbs": "o-", "gqsa": "s-", "minmin": "v--", "minmax": "^--", "random": "x:"}
    for p in POLICIES:
        ax.errorbar(
            x,
            [r[p]["mean"] for r in data["sweep"]],
            yerr=[r[p]["half"] for r in data["sweep"]],
            fmt=styles[p],
            capsize=3,
            label=LABELS[p],
        )
    ax.plot(x, [r["entropy"]["mean"] for r in data["sweep"]], "k:", label="H(P)")
    ax.set_xlabel("gamma_max")
    ax.set_ylabel("E[K] (mean over datasets)")
    ax.set_title("Object identification under query categories")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    s = ctx.settings
    fig.text(
        0.5,
        -0.08,
        settings_caption(
            f"Error bars: 95% t interval of the mean over {s.datasets} datasets per point",
            s.seed,
            f"{ctx.sizes.n_objects} x {ctx.sizes.n_queries}, {len(ctx.sizes.query_group_sizes)} "
            f"categories; GBS exact, the others {s.qg_trials} simulated interviews per dataset",
        ),
        ha="center",
        fontsize=7,
        wrap=True,
    )
    return save_figure(fig, ctx.out / NAME)
