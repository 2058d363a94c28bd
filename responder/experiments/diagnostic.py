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
from responder.experiments.report import fmt, md_table, save_figure, write_json, write_text
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
            "gamma_w": gw, "gamma_b": gb, "queries": list(ctx.kb.query_names),
            "fourth_quadrant": int(region.sum()),
            "fourth_quadrant_queries": [ctx.kb.query_names[j] for j in np.flatnonzero(region)],
            "quadrants": quadrants(gw, gb),
            "mean_gamma_w": float(gw.mean()), "mean_gamma_b": float(gb.mean()),
        }
    rng = np.random.default_rng(task_seed(s.seed, EXPERIMENT_CODES[NAME], 0))
    problem, params = group_id_dataset(ctx.sizes, 0.5, 0.5, rng)
    gw, gb = estimate_gammas(problem.matrix, problem.object_groups)
    data["random_example"] = {
        "d1": 0.5, "d2": 0.5, "gamma_w": gw, "gamma_b": gb,
        "drawn_gamma_w": params["gamma_w"], "drawn_gamma_b": params["gamma_b"],
        "fourth_quadrant": int(in_gain_region(gw, gb).sum()),
        "quadrants": quadrants(gw, gb),
    }
    write_json(ctx.out / f"{NAME}.json", data)
    write_text(ctx.out / f"{NAME}.md", markdown(ctx, data))
    data["figures"] = plot(ctx, data)
    return data


def markdown(ctx: Context, data: dict) -> str:
    lines = ["# Diagnostic: symptom correlation parameters (Section 7.1.2)\n",
             f"Fourth quadrant: {data['region']}. Paper (WISER): one symptom in the fourth "
             "quadrant, none with gamma_w near 1 and gamma_b near 0.5.\n"]
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
            f"{', '.join(kb['fourth_quadrant_queries']) or 'none'}.\n")
    return "\n".join(lines)


def plot(ctx: Context, data: dict) -> list[str]:
    plt = ctx.plt
    if plt is None:
        return []
    panels = []
    if data["kb"] is not None:
        panels.append((data["kb"]["label"], data["kb"]))
    panels.append(("random dataset, d1 = d2 = 0.5", data["random_example"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4), squeeze=False)
    for ax, (title, d) in zip(axes[0], panels):
        ax.scatter(d["gamma_w"], d["gamma_b"], s=14, alpha=0.7)
        ax.axvline(0.75, color="grey", lw=0.8)
        ax.axhline(0.75, color="grey", lw=0.8)
        ax.set_xlim(0.48, 1.02)
        ax.set_ylim(0.48, 1.02)
        ax.set_xlabel("gamma_w (within classes)")
        ax.set_ylabel("gamma_b (between classes)")
        ax.set_title(f"{title}\n{d['fourth_quadrant']} in the fourth quadrant", fontsize=9)
    return save_figure(fig, ctx.out / NAME)
