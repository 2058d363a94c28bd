"""Shared pieces of the experiments: the run context and the knowledge-base tables."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from responder.engine.belief import Model
from responder.engine.evaluate import bounds, evaluate
from responder.engine.policies import CATEGORY_POLICIES, RANDOM_POLICIES, Policy
from responder.engine.problem import Problem
from responder.experiments.datasets import Sizes
from responder.experiments.runner import (
    EXPERIMENT_CODES,
    Task,
    int_seed,
    mean_ci,
    run_tasks,
    task_seed,
)
from responder.experiments.settings import Settings


@dataclass
class Context:
    """What every experiment needs: settings, the knowledge base (or None), sizes, output."""

    settings: Settings
    out: Path
    kb: Problem | None
    kb_label: str
    kb_note: str
    sizes: Sizes
    plt: object | None
    messages: list = field(default_factory=list)

    def say(self, text: str) -> None:
        self.messages.append(text)


def evaluate_task(
    problem: Problem,
    target: str,
    policy: str,
    ties: str,
    seed: int,
    method: str,
    trials: int,
    max_states: int,
) -> dict:
    """E[K] of one policy tree on ``problem`` (runs in a worker)."""
    model = Model(problem, target)
    pol = Policy(policy, ties=ties, seed=seed)
    ev = evaluate(model, pol, method=method, max_states=max_states, trials=trials, seed=seed)
    return {
        "value": ev.expected_queries,
        "method": ev.method,
        "ci95": list(ev.ci95) if ev.ci95 else None,
        "states": ev.states,
    }


def kb_table(ctx: Context, experiment: str, target: str, policies: list[str]) -> dict:
    """E[K] of ``policies`` on the knowledge base, as the paper's WISER tables.

    Single-query policies (gbs, gisa): exact trees; ``kb_repeats`` trees with random
    tie-breaking give the mean and a 95% interval (the paper's "random trials"), and one tree
    with first-index ties is reported too. Branching policies (category and random): up to
    five repeats, each exact when the tree's states fit ``kb_max_states`` and otherwise Monte
    Carlo over ``kb_trials / repeats`` simulated interviews; the interval is over repeats.
    """
    s = ctx.settings
    problem = ctx.kb
    code = EXPERIMENT_CODES[experiment]
    tasks, index = [], []
    for k, name in enumerate(policies):
        branching = name in CATEGORY_POLICIES or name in RANDOM_POLICIES
        repeats = max(2, min(s.kb_repeats, 5)) if branching else s.kb_repeats
        trials = max(100, s.kb_trials // repeats)
        for r in range(repeats):
            seed = int_seed(task_seed(s.seed, code, 900, k, r))
            tasks.append(
                Task(
                    evaluate_task,
                    dict(
                        problem=problem,
                        target=target,
                        policy=name,
                        ties="random",
                        seed=seed,
                        method="auto",
                        trials=trials,
                        max_states=s.kb_max_states,
                    ),
                )
            )
            index.append((name, "random"))
        if not branching:
            tasks.append(
                Task(
                    evaluate_task,
                    dict(
                        problem=problem,
                        target=target,
                        policy=name,
                        ties="first",
                        seed=0,
                        method="exact",
                        trials=1,
                        max_states=s.kb_max_states,
                    ),
                )
            )
            index.append((name, "first"))
    results = run_tasks(tasks, s.jobs, f"{experiment}: knowledge base", s.progress)
    rows = {}
    for name in policies:
        vals = [r for (n, t), r in zip(index, results) if n == name and t == "random"]
        first = [r for (n, t), r in zip(index, results) if n == name and t == "first"]
        stats = mean_ci([v["value"] for v in vals])
        if len(vals) == 1 and vals[0]["ci95"]:
            lo, hi = vals[0]["ci95"]
            stats["half"] = (hi - lo) / 2
        methods = sorted({v["method"] for v in vals})
        rows[name] = {
            "mean": stats["mean"],
            "half": stats["half"],
            "repeats": len(vals),
            "methods": methods,
            "trials_per_repeat": (
                max(100, s.kb_trials // len(vals)) if "monte-carlo" in methods else None
            ),
            "values": [v["value"] for v in vals],
            "first_ties": first[0]["value"] if first else None,
        }
    model = Model(problem, target)
    b = bounds(model)
    return {"policies": rows, "bounds": b}


def kb_section(
    ctx: Context, experiment: str, target: str, policies: list[str], needs: str
) -> dict | None:
    """The knowledge-base part of an experiment's results: :func:`kb_table` with the
    knowledge base's :func:`kb_summary` and label; None without a knowledge base or when it
    lacks the labels the experiment ``needs`` (``"object_groups"`` or ``"query_groups"``)."""
    if ctx.kb is None or getattr(ctx.kb, needs) is None:
        return None
    out = kb_table(ctx, experiment, target, policies)
    out["summary"] = kb_summary(ctx.kb)
    out["label"] = ctx.kb_label
    return out


def kb_summary(problem: Problem) -> dict:
    from responder.engine.diagnostics import distinguishable_count, min_hamming_distance  # noqa: PLC0415

    out = {
        "objects": problem.n_objects,
        "queries": problem.n_queries,
        "distinct_rows": distinguishable_count(problem.matrix),
        "min_hamming_distance": min_hamming_distance(problem.matrix),
        "ones_per_row": float(problem.matrix.sum(axis=1).mean()),
        # The paper's tables assume a uniform prior; a knowledge base may set another.
        "prior": (
            "uniform"
            if np.allclose(problem.prior, problem.prior[0])
            else "the knowledge base's (not uniform: "
            f"{problem.prior.min():.2g} to {problem.prior.max():.2g})"
        ),
    }
    if problem.object_groups is not None:
        counts = np.bincount(problem.object_groups, minlength=problem.n_groups)
        out["classes"] = {problem.group_names[i]: int(c) for i, c in enumerate(counts)}
        out["non_empty_classes"] = int((counts > 0).sum())
    if problem.query_groups is not None:
        counts = np.bincount(problem.query_groups, minlength=problem.n_query_groups)
        out["categories"] = {problem.query_group_names[i]: int(c) for i, c in enumerate(counts)}
    return out
