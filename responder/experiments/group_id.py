"""Section 7.1: group identification with GBS, GISA and random search.

Random datasets (7.1.1): for each (d1, d2) of the grid, ``--datasets`` datasets from the
rectangle model of :mod:`responder.experiments.datasets`; on each, the exact E[K] of the
GBS and GISA trees (first-index ties) and a Monte Carlo estimate of random search's E[K].
Per point we report the mean over datasets and its 95% interval, with H(P_y).

Knowledge base (7.1.2): the paper's WISER table (GISA, GBS, random, H(P_y)) on ``--kb``.
"""

from __future__ import annotations

import numpy as np

from responder.engine.belief import Model
from responder.engine.diagnostics import distinguishable_count, estimate_gammas, in_gain_region
from responder.engine.evaluate import bounds, evaluate
from responder.engine.policies import Policy
from responder.experiments.common import Context, kb_section
from responder.experiments.datasets import group_id_dataset
from responder.experiments.report import (
    fmt,
    fmt_pm,
    md_table,
    save_figure,
    settings_caption,
    write_results,
)
from responder.experiments.runner import EXPERIMENT_CODES, int_seed, mean_ci, run_sweep, task_seed

NAME = "group-id"
POLICIES = ("gbs", "gisa", "random")
PAPER_KB = {
    "gisa": (7.792, 0.001),
    "gbs": (7.948, 0.003),
    "random": (16.328, 0.177),
    "entropy": 3.068,
}


def dataset_task(seed: int, key: tuple, sizes, d1: float, d2: float, random_trials: int) -> dict:
    """One random dataset: E[K] of GBS, GISA (exact) and random (Monte Carlo)."""
    ss = task_seed(seed, *key)
    rng = np.random.default_rng(ss)
    problem, params = group_id_dataset(sizes, d1, d2, rng)
    model = Model(problem, "group")
    b = bounds(model)
    out = {
        "gbs": evaluate(model, Policy("gbs"), method="exact").expected_queries,
        "gisa": evaluate(model, Policy("gisa"), method="exact").expected_queries,
        "random": evaluate(
            model,
            Policy("random"),
            method="monte-carlo",
            trials=random_trials,
            seed=int_seed(ss, 1),
        ).expected_queries,
        "entropy": b["entropy"],
        "entropy_bound": b["entropy_bound"],
        "distinct_rows": distinguishable_count(problem.matrix),
        "fourth_quadrant_drawn": int(in_gain_region(params["gamma_w"], params["gamma_b"]).sum()),
    }
    gw, gb = estimate_gammas(problem.matrix, problem.object_groups)
    out["fourth_quadrant_estimated"] = int(in_gain_region(gw, gb).sum())
    return out


def run(ctx: Context) -> dict:
    s = ctx.settings
    code = EXPERIMENT_CODES[NAME]
    points = [(d1, d2) for d1 in s.d1_values for d2 in s.d2_values]
    chunks = run_sweep(
        dataset_task,
        points,
        s.datasets,
        s.seed,
        code,
        s.jobs,
        f"{NAME}: random datasets",
        s.progress,
        lambda p: {"d1": p[0], "d2": p[1]},
        sizes=ctx.sizes,
        random_trials=s.random_trials,
    )
    sweep = []
    for (d1, d2), chunk in zip(points, chunks):
        row = {"d1": d1, "d2": d2, "datasets": len(chunk)}
        for key in (
            "gbs",
            "gisa",
            "random",
            "entropy",
            "entropy_bound",
            "distinct_rows",
            "fourth_quadrant_drawn",
            "fourth_quadrant_estimated",
        ):
            row[key] = mean_ci([r[key] for r in chunk])
        row["gisa_beats_gbs"] = int(sum(r["gisa"] < r["gbs"] - 1e-9 for r in chunk))
        row["gisa_ties_gbs"] = int(sum(abs(r["gisa"] - r["gbs"]) <= 1e-9 for r in chunk))
        sweep.append(row)
    data = {
        "experiment": NAME,
        "model": "gamma_w ~ U[1-d1, 1], gamma_b ~ U[1-d2, 1] per query (see docs/results.md)",
        "sizes": ctx.sizes.to_dict(),
        "random_trials_per_dataset": s.random_trials,
        "sweep": sweep,
        "per_dataset": [
            {"d1": d1, "d2": d2, "results": chunk} for (d1, d2), chunk in zip(points, chunks)
        ],
    }
    data["kb"] = kb_section(ctx, NAME, "group", ["gisa", "gbs", "random"], "object_groups")
    return write_results(ctx, NAME, data, markdown, plot)


def markdown(ctx: Context, data: dict) -> str:
    s = ctx.settings
    lines = [
        "# Group identification (Section 7.1)\n",
        f"Random datasets: {ctx.sizes.n_objects} objects x {ctx.sizes.n_queries} queries, "
        f"{len(ctx.sizes.object_group_sizes)} object groups of sizes "
        f"{list(ctx.sizes.object_group_sizes)} ({ctx.sizes.source}). Per query "
        "gamma_w ~ U[1-d1, 1], gamma_b ~ U[1-d2, 1]. "
        f"{s.datasets} datasets per point; GBS and GISA exact (first-index ties); random search "
        f"by Monte Carlo, {s.random_trials} interviews per dataset. Mean E[K] ± 95% interval "
        "of the mean over datasets.\n",
    ]
    rows = []
    for r in data["sweep"]:
        rows.append(
            [
                fmt(r["d1"], 2),
                fmt(r["d2"], 2),
                fmt_pm(r["gbs"]["mean"], r["gbs"]["half"]),
                fmt_pm(r["gisa"]["mean"], r["gisa"]["half"]),
                fmt_pm(r["random"]["mean"], r["random"]["half"]),
                fmt(r["entropy"]["mean"]),
                f"{r['gisa_beats_gbs']}/{r['datasets']}",
                fmt(r["fourth_quadrant_drawn"]["mean"], 1),
                fmt(r["distinct_rows"]["mean"], 1),
            ]
        )
    lines.append(
        md_table(
            [
                "d1",
                "d2",
                "GBS",
                "GISA",
                "random",
                "H(P_y)",
                "GISA < GBS",
                "4th-quadrant queries",
                "distinct rows",
            ],
            rows,
        )
    )
    kb = data.get("kb")
    summ = kb["summary"] if kb else {}
    lines += kb_markdown(
        ctx,
        kb,
        lambda: (
            f"{ctx.kb_label}: {summ['objects']} chemicals ({summ['distinct_rows']} distinct "
            f"symptom rows) x {summ['queries']} symptoms, {summ.get('non_empty_classes')} "
            f"non-empty classes, prior {summ['prior']}. GBS and GISA: mean ± 95% interval over "
            f"{s.kb_repeats} trees with random tie-breaking (first-index ties in brackets); "
            "random: see the method column.\n"
        ),
        ["gisa", "gbs", "random"],
        PAPER_KB,
        "H(P_y)",
    )
    return "\n".join(lines)


def kb_markdown(
    ctx: Context, kb: dict | None, intro, order: list[str], paper: dict, hname: str
) -> list[str]:
    """The "Knowledge base" part of an experiment's report: why it was skipped, or
    ``intro()`` and the table of :func:`kb_rows_table`."""
    lines = ["\n## Knowledge base\n"]
    if kb is None:
        lines.append(f"Skipped: {ctx.kb_note}\n")
    else:
        lines += [intro(), kb_rows_table(kb, order, paper, hname)]
    return lines


def kb_rows_table(kb: dict, order: list[str], paper: dict, hname: str) -> str:
    labels = {
        "gisa": "GISA",
        "gbs": "GBS",
        "random": "random search",
        "gqsa": "GQSA",
        "minmin": "min-min category",
        "minmax": "min-max category",
    }
    rows = []
    for name in order:
        r = kb["policies"][name]
        ours = fmt_pm(r["mean"], r["half"])
        if r["first_ties"] is not None:
            ours += f" [{fmt(r['first_ties'])}]"
        method = "/".join(r["methods"]) + f", {r['repeats']} repeats"
        if r.get("trials_per_repeat"):
            method += f" x {r['trials_per_repeat']} interviews"
        p = paper.get(name)
        rows.append([labels[name], ours, method, fmt_pm(*p) if p else "–"])
    rows.append(
        [
            f"entropy bound {hname}",
            fmt(kb["bounds"]["entropy"]),
            f"(rows merged when identical: {fmt(kb['bounds']['entropy_bound'])})",
            fmt(paper["entropy"]),
        ]
    )
    return md_table(["algorithm", "E[K] ours", "how", "paper (WISER)"], rows)


def plot(ctx: Context, data: dict) -> list[str]:
    plt = ctx.plt
    if plt is None:
        return []
    d1s = sorted({r["d1"] for r in data["sweep"]})
    fig, axes = plt.subplots(1, len(d1s), figsize=(4.2 * len(d1s), 3.6), squeeze=False, sharey=True)
    for ax, d1 in zip(axes[0], d1s):
        rows = [r for r in data["sweep"] if r["d1"] == d1]
        x = [r["d2"] for r in rows]
        for key, label, style in (
            ("gbs", "GBS", "o-"),
            ("gisa", "GISA", "s-"),
            ("random", "random", "^--"),
        ):
            ax.errorbar(
                x,
                [r[key]["mean"] for r in rows],
                yerr=[r[key]["half"] for r in rows],
                fmt=style,
                capsize=3,
                label=label,
            )
        ax.plot(x, [r["entropy"]["mean"] for r in rows], "k:", label="H(P_y)")
        ax.set_title(f"d1 = {d1:g}")
        ax.set_xlabel("d2")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("E[K] (mean over datasets)")
    axes[0][-1].legend(fontsize=8)
    fig.suptitle("Group identification on random datasets")
    s = ctx.settings
    fig.text(
        0.5,
        -0.06,
        settings_caption(
            f"Error bars: 95% t interval of the mean over {s.datasets} datasets per point",
            s.seed,
            f"{ctx.sizes.n_objects} x {ctx.sizes.n_queries}, {len(ctx.sizes.object_group_sizes)} "
            f"classes; GBS/GISA exact trees, random search {s.random_trials} simulated interviews "
            "per dataset; gamma_w ~ U[1-d1, 1], gamma_b ~ U[1-d2, 1]",
        ),
        ha="center",
        fontsize=7.5,
        wrap=True,
    )
    names = save_figure(fig, ctx.out / "group-id")
    names += plot_gamma_space(ctx, d1s, sorted({r["d2"] for r in data["sweep"]}))
    return names


def plot_gamma_space(ctx: Context, d1s: list, d2s: list) -> list[str]:
    """The parameter space as we read it (the paper's missing figure): one panel per d1,
    each d2's rectangle shaded, labelled, with the fourth quadrant marked."""
    plt = ctx.plt
    fig, axes = plt.subplots(1, len(d1s), figsize=(3.6 * len(d1s), 3.8), squeeze=False, sharey=True)
    shades = plt.get_cmap("Blues")
    for ax, d1 in zip(axes[0], d1s):
        ax.add_patch(
            plt.Rectangle(
                (0.75, 0.5),
                0.25,
                0.25,
                fill=False,
                hatch="///",
                edgecolor="#d98200",
                lw=1.2,
                zorder=12,
            )
        )
        ax.text(
            0.74,
            0.515,
            "4th quadrant ->",
            ha="right",
            fontsize=7,
            color="#9a5b00",
            zorder=13,
            bbox=dict(facecolor="white", alpha=0.8, lw=0),
        )
        for k, d2 in enumerate(sorted(d2s, reverse=True)):  # largest first, underneath
            shade = shades(0.25 + 0.6 * k / max(1, len(d2s) - 1))
            ax.add_patch(
                plt.Rectangle(
                    (1 - d1, 1 - d2),
                    d1,
                    d2,
                    facecolor=shade,
                    edgecolor="k",
                    lw=0.6,
                    alpha=0.85,
                    zorder=1 + k,
                )
            )
            ax.text(
                1 - d1 + 0.008, 1 - d2 + 0.006, f"d2 = {d2:g}", fontsize=6.5, va="bottom", zorder=10
            )
        ax.axvline(0.75, color="grey", lw=0.8, ls="--", zorder=11)
        ax.axhline(0.75, color="grey", lw=0.8, ls="--", zorder=11)
        ax.set_xlim(0.5, 1)
        ax.set_ylim(0.5, 1)
        ax.set_aspect("equal")
        ax.set_xlabel("gamma_w (agreement within a class)")
        ax.set_title(f"d1 = {d1:g}: gamma_w in [{1 - d1:g}, 1]", fontsize=9)
    axes[0][0].set_ylabel("gamma_b (agreement between classes)")
    fig.suptitle(
        "Where the random datasets' query parameters are drawn (our reading of the "
        "paper's missing figure)",
        fontsize=10,
    )
    fig.text(
        0.5,
        -0.04,
        settings_caption(
            "No error bars: each rectangle is the region gamma_w ~ U[1-d1, 1], gamma_b ~ U[1-d2, 1] "
            "from which every query's parameters are drawn uniformly",
            ctx.settings.seed,
            "Hatched orange: the fourth quadrant (gamma_w >= 0.75, gamma_b <= "
            "0.75), the queries GISA gains from",
        ),
        ha="center",
        fontsize=7.5,
        wrap=True,
    )
    return save_figure(fig, ctx.out / "gamma-space")
