"""Section 7.3: identifying the object under persistent noise, GBS against GISA.

The paper uses a 131-chemical subset of WISER with eps = 2, which needs a minimum Hamming
distance delta >= 5 between rows (eps = floor((delta - 1) / 2), Section 6). We take the
subset from the knowledge base greedily (:func:`select_subset`) and, next to it, a synthetic
matrix of the paper's size (131 objects) drawn from the group-identification model, so both
the real data and the paper's size are covered.

Three sweeps, all for the object target with the noise model of Section 6 (the engine never
builds the dilated matrix B~):

1. probability model 1, E[K] against the error-prone fraction nu (exact trees);
2. probability model 2 at nu = ``model2_nu``, E[K] against p (exact trees);
3. model 2 with the errors drawn with p_true while the algorithm assumes p_alg (simulated
   interviews, :func:`responder.engine.evaluate.monte_carlo` with ``truth``; the same seed
   for both policies).

For 0 < nu < 1 the error-prone queries are a random subset; each point averages
``noise_masks`` subsets (the same subsets for both policies).
"""

from __future__ import annotations

import numpy as np

from responder.engine.belief import Model
from responder.engine.diagnostics import min_hamming_distance, profile_sets
from responder.engine.evaluate import evaluate, monte_carlo
from responder.engine.noise import NoiseModel, prone_mask
from responder.engine.policies import Policy
from responder.experiments.common import Context
from responder.experiments.datasets import group_id_dataset
from responder.experiments.report import (
    fmt,
    fmt_pm,
    md_table,
    save_figure,
    settings_caption,
    write_results,
)
from responder.experiments.runner import (
    EXPERIMENT_CODES,
    Task,
    int_seed,
    mean_ci,
    run_tasks,
    task_seed,
)

NAME = "noise"
POLICIES = ("gbs", "gisa")


def select_subset(matrix, size: int, min_distance: int) -> tuple[np.ndarray, dict]:
    """Rows of ``matrix`` forming a subset with pairwise Hamming distance >= ``min_distance``.

    1. Keep the first object of every distinct row (identical rows are at distance 0).
    2. Conflict graph: two kept objects conflict when their distance is < ``min_distance``.
    3. Greedy maximal independent set: repeatedly take the object with the fewest conflicts
       among those left (ties: lowest index) and drop its conflicting neighbours.
    4. If more than ``size`` remain, keep the ``size`` of lowest index.

    Returns the chosen row indices (ascending) and a description.
    """
    B = np.asarray(matrix, dtype=bool)
    firsts = np.array([s[0] for s in profile_sets(B)], dtype=int)
    U = B[firsts].astype(float)
    D = U @ (1 - U).T + (1 - U) @ U.T
    conflict = D < min_distance
    np.fill_diagonal(conflict, False)
    alive = np.ones(firsts.size, dtype=bool)
    chosen = []
    degree = conflict.sum(axis=1)
    while alive.any():
        cand = np.flatnonzero(alive)
        k = int(cand[np.argmin(degree[cand])])
        chosen.append(k)
        alive[k] = False
        gone = conflict[k] & alive
        alive[gone] = False
        degree = (conflict & alive[None, :]).sum(axis=1)
    chosen = np.sort(firsts[np.array(chosen, dtype=int)])
    greedy = int(chosen.size)
    chosen = chosen[:size]
    info = {
        "rows": int(B.shape[0]),
        "distinct_rows": int(firsts.size),
        "greedy_subset": greedy,
        "used": int(chosen.size),
        "requested": size,
        "min_distance_required": min_distance,
        "min_distance": min_hamming_distance(B[chosen]) if chosen.size > 1 else None,
    }
    return chosen, info


def _noise(problem, nu, mask_seed, eps, model, p):
    mask = prone_mask(problem.n_queries, nu, seed=mask_seed)
    return NoiseModel(eps, mask, model=model, p=p)


def exact_task(
    problem, nu: float, mask_seed: int, eps: int, model: int, p: float, policy: str
) -> dict:
    """Exact E[K] of one policy's tree under the noise model (runs in a worker)."""
    noise = _noise(problem, nu, mask_seed, eps, model, p)
    ev = evaluate(Model(problem, "object", noise), Policy(policy), method="exact")
    return {
        "value": ev.expected_queries,
        "decomposition": ev.decomposition,
        "max_depth": ev.max_depth,
        "prone": noise.n_prone,
    }


def mismatch_task(
    problem,
    nu: float,
    mask_seed: int,
    eps: int,
    p_true: float,
    p_alg: float,
    policy: str,
    interviews: int,
    seed: int,
) -> dict:
    """Simulated interviews: errors drawn with p_true, the tree built assuming p_alg."""
    m_true = Model(problem, "object", _noise(problem, nu, mask_seed, eps, 2, p_true))
    m_alg = Model(problem, "object", _noise(problem, nu, mask_seed, eps, 2, p_alg))
    ev = monte_carlo(m_alg, Policy(policy), trials=interviews, seed=seed, truth=m_true)
    lo, hi = ev.ci95
    half = (hi - lo) / 2 if interviews > 1 else 0.0
    return {"value": ev.expected_queries, "half": half, "accuracy": ev.accuracy}


def _matrices(ctx: Context) -> list[dict]:
    s = ctx.settings
    out = []
    if ctx.kb is not None and ctx.kb.n_objects >= 2:
        idx, info = select_subset(ctx.kb.matrix, s.noise_size, s.noise_min_distance)
        if idx.size >= 2:
            out.append(
                {
                    "label": f"{ctx.kb_label} subset",
                    "kind": "kb",
                    "problem": ctx.kb.subset(objects=idx).with_prior(None),
                    "info": info,
                    "objects": [ctx.kb.object_names[i] for i in idx],
                }
            )
    if s.noise_synthetic or not out:
        rng = np.random.default_rng(task_seed(s.seed, EXPERIMENT_CODES[NAME], 0))
        problem, _ = group_id_dataset(ctx.sizes, 0.5, 0.5, rng)
        idx, info = select_subset(problem.matrix, s.noise_size, s.noise_min_distance)
        info["model"] = "group-identification model, d1 = d2 = 0.5, then the greedy subset"
        out.append(
            {
                "label": f"synthetic {idx.size} x {problem.n_queries}",
                "kind": "synthetic",
                "problem": problem.subset(objects=idx).with_prior(None),
                "info": info,
            }
        )
    return out


def run(ctx: Context) -> dict:
    s = ctx.settings
    code = EXPERIMENT_CODES[NAME]
    mats = _matrices(ctx)
    tasks, index = [], []

    def mask_seeds(mi, nu):
        n = 1 if nu in (0.0, 1.0) else s.noise_masks
        return [int_seed(task_seed(s.seed, code, mi, 100, m)) for m in range(n)]

    for mi, mat in enumerate(mats):
        pr = mat["problem"]
        for nu in s.nu_values:
            for m, ms in enumerate(mask_seeds(mi, nu)):
                for pol in POLICIES:
                    tasks.append(
                        Task(
                            exact_task,
                            dict(
                                problem=pr,
                                nu=nu,
                                mask_seed=ms,
                                eps=s.noise_eps,
                                model=1,
                                p=0.5,
                                policy=pol,
                            ),
                        )
                    )
                    index.append(("model1", mi, nu, m, pol))
        for p in s.p_values:
            for m, ms in enumerate(mask_seeds(mi, s.model2_nu)):
                for pol in POLICIES:
                    tasks.append(
                        Task(
                            exact_task,
                            dict(
                                problem=pr,
                                nu=s.model2_nu,
                                mask_seed=ms,
                                eps=s.noise_eps,
                                model=2,
                                p=p,
                                policy=pol,
                            ),
                        )
                    )
                    index.append(("model2", mi, p, m, pol))
        ms0 = mask_seeds(mi, s.model2_nu)[0]
        for a, pt in enumerate(s.p_true_values):
            for b, pa in enumerate(s.p_alg_values):
                sim_seed = int_seed(task_seed(s.seed, code, mi, 200, a, b))
                for pol in POLICIES:
                    tasks.append(
                        Task(
                            mismatch_task,
                            dict(
                                problem=pr,
                                nu=s.model2_nu,
                                mask_seed=ms0,
                                eps=s.noise_eps,
                                p_true=pt,
                                p_alg=pa,
                                policy=pol,
                                interviews=s.mismatch_interviews,
                                seed=sim_seed,
                            ),
                        )
                    )
                    index.append(("mismatch", mi, (pt, pa), 0, pol))
    results = run_tasks(tasks, s.jobs, f"{NAME}: exact trees + simulations", s.progress)

    def collect(kind, mi, x, pol):
        return [
            r
            for (k, i, xx, _m, p), r in zip(index, results)
            if k == kind and i == mi and xx == x and p == pol
        ]

    data = {
        "experiment": NAME,
        "eps": s.noise_eps,
        "model2_nu": s.model2_nu,
        "masks_per_nu": s.noise_masks,
        "mismatch_interviews": s.mismatch_interviews,
        "matrices": [],
    }
    for mi, mat in enumerate(mats):
        pr = mat["problem"]
        entry = {
            "label": mat["label"],
            "kind": mat["kind"],
            "selection": mat["info"],
            "objects": pr.n_objects,
            "queries": pr.n_queries,
            "min_hamming_distance": min_hamming_distance(pr.matrix),
            "model1": [],
            "model2": [],
            "mismatch": [],
        }
        if "objects" in mat:
            entry["object_names"] = mat["objects"]
        for nu in s.nu_values:
            row = {"nu": nu}
            for pol in POLICIES:
                rs = collect("model1", mi, nu, pol)
                row[pol] = mean_ci([r["value"] for r in rs])
                row["prone"] = rs[0]["prone"]
            g = [r["value"] for r in collect("model1", mi, nu, "gbs")]
            i_ = [r["value"] for r in collect("model1", mi, nu, "gisa")]
            row["gisa_minus_gbs"] = mean_ci([b - a for a, b in zip(g, i_)])
            entry["model1"].append(row)
        for p in s.p_values:
            row = {"p": p}
            for pol in POLICIES:
                row[pol] = mean_ci([r["value"] for r in collect("model2", mi, p, pol)])
            entry["model2"].append(row)
        for pt in s.p_true_values:
            for pa in s.p_alg_values:
                row = {"p_true": pt, "p_alg": pa}
                for pol in POLICIES:
                    r = collect("mismatch", mi, (pt, pa), pol)[0]
                    row[pol] = {"mean": r["value"], "half": r["half"], "accuracy": r["accuracy"]}
                entry["mismatch"].append(row)
        data["matrices"].append(entry)
    return write_results(ctx, NAME, data, markdown, plot)


def markdown(ctx: Context, data: dict) -> str:
    s = ctx.settings
    lines = [
        "# Persistent noise (Section 7.3)\n",
        f"Object identification with at most eps = {data['eps']} persistent errors among "
        "the error-prone queries; uniform prior. Exact E[K] of the GBS and GISA trees "
        f"(first-index ties). For 0 < nu < 1, mean ± 95% interval over {s.noise_masks} "
        "random error-prone sets (the same sets for both policies).\n",
    ]
    for mat in data["matrices"]:
        sel = mat["selection"]
        lines.append(f"\n## {mat['label']}\n")
        lines.append(
            f"{mat['objects']} objects x {mat['queries']} queries, minimum Hamming distance "
            f"{mat['min_hamming_distance']}. Chosen from {sel['rows']} rows "
            f"({sel['distinct_rows']} distinct) by greedy min-conflict selection with pairwise "
            f"distance >= {sel['min_distance_required']}: the greedy set had "
            f"{sel['greedy_subset']} objects, {sel['used']} used (requested {sel['requested']})."
            "\n"
        )
        lines.append("\n### Model 1: E[K] against nu\n")
        rows = [
            [
                fmt(r["nu"], 1),
                r["prone"],
                fmt_pm(r["gbs"]["mean"], r["gbs"]["half"]),
                fmt_pm(r["gisa"]["mean"], r["gisa"]["half"]),
                fmt_pm(r["gisa_minus_gbs"]["mean"], r["gisa_minus_gbs"]["half"]),
            ]
            for r in mat["model1"]
        ]
        lines.append(md_table(["nu", "prone queries", "GBS", "GISA", "GISA - GBS"], rows))
        lines.append(f"\n### Model 2 (nu = {data['model2_nu']}): E[K] against p\n")
        rows = [
            [
                fmt(r["p"], 2),
                fmt_pm(r["gbs"]["mean"], r["gbs"]["half"]),
                fmt_pm(r["gisa"]["mean"], r["gisa"]["half"]),
            ]
            for r in mat["model2"]
        ]
        lines.append(md_table(["p", "GBS", "GISA"], rows))
        lines.append(
            f"\n### Model 2, p_true != p_alg (nu = {data['model2_nu']}, "
            f"{data['mismatch_interviews']} simulated interviews per cell, mean ± 95% "
            "interval; accuracy in brackets)\n"
        )
        pas = sorted({r["p_alg"] for r in mat["mismatch"]})
        rows = []
        for pt in sorted({r["p_true"] for r in mat["mismatch"]}):
            cells = [fmt(pt, 2)]
            for pol in POLICIES:
                for pa in pas:
                    r = next(x for x in mat["mismatch"] if x["p_true"] == pt and x["p_alg"] == pa)
                    cells.append(
                        f"{fmt_pm(r[pol]['mean'], r[pol]['half'], 2)} [{r[pol]['accuracy']:.0%}]"
                    )
            rows.append(cells)
        headers = ["p_true"] + [f"{pol.upper()} p_alg={pa:g}" for pol in POLICIES for pa in pas]
        lines.append(md_table(headers, rows))
    return "\n".join(lines)


def plot(ctx: Context, data: dict) -> list[str]:
    plt = ctx.plt
    if plt is None:
        return []
    names = []
    mats = data["matrices"]
    for key, xkey, xlabel, fname, title in (
        (
            "model1",
            "nu",
            "nu (fraction of error-prone queries)",
            "noise-model1",
            "Persistent noise, probability model 1",
        ),
        (
            "model2",
            "p",
            "p",
            "noise-model2",
            f"Persistent noise, model 2 (nu = {data['model2_nu']})",
        ),
    ):
        fig, axes = plt.subplots(1, len(mats), figsize=(4.5 * len(mats), 3.6), squeeze=False)
        for ax, mat in zip(axes[0], mats):
            x = [r[xkey] for r in mat[key]]
            for pol, style in (("gbs", "o-"), ("gisa", "s-")):
                ax.errorbar(
                    x,
                    [r[pol]["mean"] for r in mat[key]],
                    yerr=[r[pol]["half"] for r in mat[key]],
                    fmt=style,
                    capsize=3,
                    label=pol.upper(),
                )
            ax.set_title(mat["label"], fontsize=9)
            ax.set_xlabel(xlabel)
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("E[K]")
        axes[0][0].legend(fontsize=8)
        fig.suptitle(title)
        fig.text(
            0.5,
            -0.06,
            settings_caption(
                f"Error bars: 95% t interval over {data['masks_per_nu']} random error-prone sets "
                "(none at nu = 0 and 1, where the set is fixed)",
                ctx.settings.seed,
                f"eps = {data['eps']}, exact E[K] of each tree, uniform prior",
            ),
            ha="center",
            fontsize=7.5,
            wrap=True,
        )
        names += save_figure(fig, ctx.out / fname)
    names += plot_mismatch(ctx, data)
    return names


def plot_mismatch(ctx: Context, data: dict) -> list[str]:
    """p_true against p_alg: one panel per matrix and policy, one line per p_alg (slightly
    offset so the error bars do not overlap), the matched cells (p_true = p_alg) ringed."""
    plt = ctx.plt
    mats = data["matrices"]
    fig, axes = plt.subplots(
        len(mats),
        len(POLICIES),
        figsize=(4.6 * len(POLICIES), 3.3 * len(mats)),
        squeeze=False,
        sharex=True,
    )
    for i, mat in enumerate(mats):
        pas = sorted({r["p_alg"] for r in mat["mismatch"]})
        values = [r[pol]["mean"] for r in mat["mismatch"] for pol in POLICIES]
        spread = (max(values) - min(values)) if values else 0.0
        for j, pol in enumerate(POLICIES):
            ax = axes[i][j]
            for k, pa in enumerate(pas):
                rows = sorted(
                    (r for r in mat["mismatch"] if r["p_alg"] == pa), key=lambda r: r["p_true"]
                )
                dx = (k - (len(pas) - 1) / 2) * 0.008
                x = [r["p_true"] + dx for r in rows]
                line = ax.errorbar(
                    x,
                    [r[pol]["mean"] for r in rows],
                    yerr=[r[pol]["half"] for r in rows],
                    fmt="o-",
                    ms=3,
                    capsize=2,
                    lw=1,
                    label=f"p_alg = {pa:g}",
                )
                matched = [
                    (xx, r[pol]["mean"]) for xx, r in zip(x, rows) if abs(r["p_true"] - pa) < 1e-9
                ]
                if matched:
                    ax.plot(*zip(*matched), "o", ms=9, mfc="none", mec=line[0].get_color(), mew=1.2)
            ax.set_title(f"{mat['label']}: {pol.upper()}", fontsize=9)
            ax.grid(alpha=0.3)
            if i == len(mats) - 1:
                ax.set_xlabel("p_true (error model used to draw the answers)")
            if spread < 0.5:  # keep small differences readable
                lo = min(r[pol]["mean"] - r[pol]["half"] for r in mat["mismatch"])
                hi = max(r[pol]["mean"] + r[pol]["half"] for r in mat["mismatch"])
                pad = max(0.05, 0.1 * (hi - lo))
                ax.set_ylim(lo - pad, hi + pad)
        axes[i][0].set_ylabel("mean questions (simulated)")
        axes[i][0].legend(fontsize=7, title="tree built with", title_fontsize=7)
    fig.suptitle(
        f"Persistent noise, model 2 (nu = {data['model2_nu']}): answers drawn with "
        "p_true, trees built assuming p_alg (ringed: p_true = p_alg)",
        fontsize=10,
        y=1.0 + 0.06 / len(mats),
    )
    fig.text(
        0.5,
        -0.12 / len(mats),
        settings_caption(
            f"Error bars: 95% interval of the mean over {data['mismatch_interviews']} simulated "
            "interviews per cell (the same victims and errors for both policies); lines offset "
            "slightly along x",
            ctx.settings.seed,
            f"eps = {data['eps']}, first random error-prone set; each panel has its own y scale",
        ),
        ha="center",
        fontsize=7.5,
        wrap=True,
    )
    return save_figure(fig, ctx.out / "noise-p-mismatch")
