"""Section 7.1.2: the (gamma_w, gamma_b) scatter of the knowledge base's symptoms.

Each symptom's parameters are estimated with the paper's procedure
(:func:`responder.engine.diagnostics.estimate_gammas`, majority votes within and between
classes). The paper found one WISER symptom in the fourth quadrant (gamma_w near 1,
gamma_b near 0.5), which explains why GISA gains less on WISER than on random data. For
comparison the same estimate is shown for one random dataset of the rectangle model.
"""

from __future__ import annotations

import numpy as np

from responder.engine.diagnostics import estimate_gammas, gain_region_definition, in_gain_region
from responder.experiments.common import Context
from responder.experiments.datasets import group_id_dataset
from responder.experiments.report import (
    fmt,
    md_table,
    save_figure,
    settings_caption,
    write_json,
    write_text,
)
from responder.experiments.runner import EXPERIMENT_CODES, task_seed

NAME = "diagnostic"


def quadrants(gw, gb) -> dict:
    gw, gb = np.asarray(gw), np.asarray(gb)
    hi_w, hi_b = gw >= 0.75, gb > 0.75
    return {
        "first (gamma_w >= 0.75, gamma_b > 0.75)": int((hi_w & hi_b).sum()),
        "second (gamma_w < 0.75, gamma_b > 0.75)": int((~hi_w & hi_b).sum()),
        "third (gamma_w < 0.75, gamma_b <= 0.75)": int((~hi_w & ~hi_b).sum()),
        "fourth (gamma_w >= 0.75, gamma_b <= 0.75)": int((hi_w & ~hi_b).sum()),
    }


def run(ctx: Context) -> dict:
    s = ctx.settings
    data = {"experiment": NAME, "region": gain_region_definition(), "kb": None}
    if ctx.kb is not None and ctx.kb.object_groups is not None:
        gw, gb = estimate_gammas(ctx.kb.matrix, ctx.kb.object_groups)
        region = in_gain_region(gw, gb)
        data["kb"] = {
            "label": ctx.kb_label,
            "gamma_w": gw,
            "gamma_b": gb,
            "queries": list(ctx.kb.query_names),
            "fourth_quadrant": int(region.sum()),
            "fourth_quadrant_queries": [ctx.kb.query_names[j] for j in np.flatnonzero(region)],
            "quadrants": quadrants(gw, gb),
            "mean_gamma_w": float(gw.mean()),
            "mean_gamma_b": float(gb.mean()),
        }
    rng = np.random.default_rng(task_seed(s.seed, EXPERIMENT_CODES[NAME], 0))
    problem, params = group_id_dataset(ctx.sizes, 0.5, 0.5, rng)
    gw, gb = estimate_gammas(problem.matrix, problem.object_groups)
    data["random_example"] = {
        "d1": 0.5,
        "d2": 0.5,
        "gamma_w": gw,
        "gamma_b": gb,
        "drawn_gamma_w": params["gamma_w"],
        "drawn_gamma_b": params["gamma_b"],
        "fourth_quadrant": int(in_gain_region(gw, gb).sum()),
        "quadrants": quadrants(gw, gb),
    }
    write_json(ctx.out / f"{NAME}.json", data)
    write_text(ctx.out / f"{NAME}.md", markdown(ctx, data))
    data["figures"] = plot(ctx, data)
    return data


def markdown(ctx: Context, data: dict) -> str:
    lines = [
        "# Diagnostic: symptom correlation parameters (Section 7.1.2)\n",
        f"Fourth quadrant: {data['region']}. Paper (WISER): one symptom in the fourth "
        "quadrant, none with gamma_w near 1 and gamma_b near 0.5.\n",
    ]
    kb = data["kb"]
    rnd = data["random_example"]
    headers = ["quadrant", "knowledge base", "random dataset (d1 = d2 = 0.5)"]
    rows = []
    for q in rnd["quadrants"]:
        rows.append([q, kb["quadrants"][q] if kb else "–", rnd["quadrants"][q]])
    lines.append(md_table(headers, rows))
    if kb is None:
        lines.append(f"\nKnowledge base skipped: {ctx.kb_note}\n")
    else:
        lines.append(
            f"\n{kb['label']}: mean gamma_w {fmt(kb['mean_gamma_w'])}, mean gamma_b "
            f"{fmt(kb['mean_gamma_b'])}; fourth-quadrant symptoms: "
            f"{', '.join(kb['fourth_quadrant_queries']) or 'none'}.\n"
        )
    return "\n".join(lines)


def _scatter(ax, d: dict, lims, names=None, label_region=False) -> None:
    """Symptoms as points sized by how many share the same (gamma_w, gamma_b)."""
    pts = np.round(np.column_stack([d["gamma_w"], d["gamma_b"]]), 4)
    uniq, counts = np.unique(pts, axis=0, return_counts=True)
    ax.add_patch(_quadrant_patch(ax))
    ax.scatter(
        uniq[:, 0], uniq[:, 1], s=12 + 10 * counts, alpha=0.65, edgecolor="k", lw=0.4, zorder=3
    )
    for (x, y), c in zip(uniq, counts):
        if c > 1 and lims[0][0] <= x <= lims[0][1] and lims[1][0] <= y <= lims[1][1]:
            ax.annotate(str(c), (x, y), fontsize=6, ha="center", va="center", zorder=4)
    if label_region and names is not None:
        region = np.flatnonzero(in_gain_region(d["gamma_w"], d["gamma_b"]))
        if region.size:
            listed = "\n".join(names[j].replace("_", " ") for j in region[:8])
            more = f"\n(+{region.size - 8} more)" if region.size > 8 else ""
            ax.text(
                0.5,
                0.56,
                "fourth quadrant:\n" + listed + more,
                fontsize=6.5,
                va="bottom",
                ha="left",
                zorder=6,
                bbox=dict(facecolor="white", alpha=0.85, lw=0.3),
            )
    ax.axvline(0.75, color="grey", lw=0.8, ls="--")
    ax.axhline(0.75, color="grey", lw=0.8, ls="--")
    ax.set_xlim(*lims[0])
    ax.set_ylim(*lims[1])
    ax.set_xlabel("gamma_w (agreement within classes)")
    ax.set_ylabel("gamma_b (agreement between classes)")


def _quadrant_patch(ax):
    import matplotlib.patches as mpatches  # noqa: PLC0415

    return mpatches.Rectangle((0.75, 0.0), 0.5, 0.75, color="#f4c27a", alpha=0.35, lw=0, zorder=0)


def _counts_text(ax, quad: dict) -> None:
    first, second, third, fourth = quad.values()
    for (x, y), n in (
        ((0.77, 0.99), first),
        ((0.52, 0.99), second),
        ((0.52, 0.5), third),
        ((0.99, 0.5), fourth),
    ):
        ax.text(
            x,
            y,
            f"{n}",
            ha="center",
            va="center",
            fontsize=9,
            weight="bold",
            color="#444",
            zorder=6,
            bbox=dict(facecolor="white", alpha=0.8, lw=0, boxstyle="round,pad=0.15"),
        )


def plot(ctx: Context, data: dict) -> list[str]:
    plt = ctx.plt
    if plt is None:
        return []
    full = ((0.48, 1.02), (0.48, 1.02))
    panels = []
    if data["kb"] is not None:
        kb = data["kb"]
        panels.append(("knowledge base: all symptoms", kb, full, True))
        zoom_w = (max(0.48, float(np.min(kb["gamma_w"])) - 0.01), 1.005)
        zoom_b = (max(0.48, float(np.min(kb["gamma_b"])) - 0.01), 1.005)
        panels.append(("knowledge base: zoom on the crowded corner", kb, (zoom_w, zoom_b), False))
    panels.append(("random dataset, d1 = d2 = 0.5", data["random_example"], full, True))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.3 * len(panels), 4.3), squeeze=False)
    names = data["kb"]["queries"] if data["kb"] is not None else None
    for ax, (title, d, lims, overview) in zip(axes[0], panels):
        _scatter(
            ax,
            d,
            lims,
            names if d is data["kb"] else None,
            label_region=overview and d is data["kb"],
        )
        if overview:
            _counts_text(ax, d["quadrants"])
        ax.set_title(f"{title}\n{d['fourth_quadrant']} in the fourth quadrant (shaded)", fontsize=9)
    fig.suptitle(
        "Estimated symptom parameters (Section 7.1.2): bold numbers count the "
        "symptoms per quadrant",
        fontsize=10,
        y=1.05,
    )
    fig.text(
        0.5,
        -0.04,
        settings_caption(
            "No error bars: one estimate per symptom (majority votes within and between classes); "
            "point area and small numbers: symptoms sharing the same estimate",
            ctx.settings.seed,
            f"{ctx.kb_label}; random dataset from the rectangle model, "
            f"{ctx.sizes.n_objects} x {ctx.sizes.n_queries}",
        ),
        ha="center",
        fontsize=7.5,
        wrap=True,
    )
    return save_figure(fig, ctx.out / NAME)
