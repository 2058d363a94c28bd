"""``responder eval``: the exact (or Monte Carlo) E[K] of a policy's tree, with bounds."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

import numpy as np

from responder.cli.inputs import (
    InputError,
    add_noise_arguments,
    add_problem_arguments,
    add_time_limit_argument,
    check_limit_options,
    check_memory,
    check_noise_options_apply,
    check_noise_scale,
    enough_time,
    fit_time_limit,
    kb_spec,
    load_problem,
    noise_from_args,
    seed_value,
)
from responder.config import ENGINE_TARGET
from responder.core.counted import counted
from responder.engine.belief import Model, TargetError
from responder.engine.evaluate import (
    MIN_MONTE_CARLO_TRIALS,
    StateBudgetExceeded,
    TimeBudgetExceeded,
    bounds,
    branches,
    evaluate,
)
from responder.engine.policies import CATEGORY_POLICIES, RANDOM_POLICIES, Policy, PolicyError
from responder.engine.simulate import BATCH_MAX_CELLS
from responder.engine.workload import duration_text, monte_carlo_bytes, run_bytes

#: --trials past this is refused whatever the memory limit (numpy's sizes are 64-bit)
MAX_TRIALS = 10**9


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "eval",
        help="expected number of questions of a policy",
        description=(
            "Compute E[K], the expected number of questions a policy asks before the target "
            "is identified, over its whole decision tree (Theorems 1, 2, 5 and 6). For category "
            "policies it also reports the informed pick model (the responder picks only among "
            "symptoms that can change the outcome, as the app offers them)."
        ),
    )
    add_problem_arguments(p)
    p.add_argument(
        "--ties",
        choices=("first", "random"),
        default="first",
        help="tie rule: lowest index (default) or random with --seed",
    )
    p.add_argument(
        "--seed", type=seed_value, default=None, help="seed for random ties and sampling"
    )
    p.add_argument(
        "--trials",
        type=int,
        default=MIN_MONTE_CARLO_TRIALS,
        metavar="N",
        help=f"simulated interviews if Monte Carlo is needed (default {MIN_MONTE_CARLO_TRIALS})",
    )
    p.add_argument(
        "--repeats",
        type=int,
        default=None,
        metavar="R",
        help="with --ties random (needed past 1): build R trees and report their mean and 95%% "
        "interval (default 20)",
    )
    p.add_argument(
        "--method",
        choices=("auto", "exact", "monte-carlo"),
        default="auto",
        help="auto: exact when the tree's states fit, else Monte Carlo",
    )
    p.add_argument(
        "--max-states",
        type=int,
        default=50_000,
        metavar="S",
        help="state budget for exact evaluation of branching trees: past it, auto turns "
        "to Monte Carlo and --method exact stops with an error (default 50000)",
    )
    add_noise_arguments(p)
    add_time_limit_argument(
        p,
        also="; --method exact stops with an error past it, and --repeats trees estimated "
        "past it from the first are refused",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=run)


def check_noise_memory(args, problem, method: str) -> None:
    """Refuse an evaluation under noise estimated to exceed ``--memory-limit``: one tree
    step, or, by Monte Carlo where the interviews run together, ``--trials`` of them."""
    m, n = problem.n_objects, problem.n_queries
    together = method == "monte-carlo" and m * n <= BATCH_MAX_CELLS and args.target == "chemical"
    check_memory(
        args,
        run_bytes(m, n, batch=args.trials) if together else run_bytes(m, n, noise=True),
        f"evaluating {m} x {n} under noise"
        + (f" by Monte Carlo over {args.trials} interviews" if together else ""),
        "use a smaller --trials" if together else "use a smaller matrix",
    )


def _check_repeats_time(args, repeats: int, trees: int, first_seconds: float) -> None:
    """Refuse, once the first tree is built, ``--repeats`` trees estimated past
    ``--time-limit`` (without noise nothing is estimated before the start)."""
    seconds = first_seconds * trees
    if args.time_limit > 0 and seconds > args.time_limit:
        raise InputError(
            f"estimated {duration_text(seconds)} for {counted(trees, 'tree')} (measured: the "
            f"first in {first_seconds:.2f} s), more than the {args.time_limit:g} s limit; use "
            f"a smaller --repeats, or pass --time-limit {enough_time(seconds)} (0 = no limit) "
            "to run it anyway"
        )


def check_monte_carlo_memory(args, problem, method: str) -> None:
    """Refuse a noise-free evaluation whose Monte Carlo (asked for, or the auto method's
    fallback for a tree that branches) is estimated to exceed ``--memory-limit``."""
    may_sample = method == "monte-carlo" or (
        method == "auto" and branches(Policy(args.policy, ties=args.ties))
    )
    if not may_sample:
        return
    m, n = problem.n_objects, problem.n_queries
    check_memory(
        args,
        monte_carlo_bytes(m, n, args.trials),
        f"evaluating {m} x {n} by Monte Carlo over {args.trials} interviews"
        + (" (if the tree passes --max-states)" if method == "auto" else ""),
        "use a smaller --trials",
    )


@contextmanager
def exact_limits(args):
    """One message, not a traceback, when an exact walk passes --max-states or --time-limit."""
    try:
        yield
    except StateBudgetExceeded:
        raise InputError(
            f"--method exact: the tree has more than {args.max_states} distinct states "
            "(--max-states); give a larger --max-states, or --method auto to estimate it "
            "by Monte Carlo past that"
        ) from None
    except TimeBudgetExceeded as exc:
        raise InputError(
            f"--method exact: not finished within --time-limit {args.time_limit:g} s "
            f"({exc.states} distinct states so far); give a longer --time-limit (0: none), "
            "or --method auto or monte-carlo"
        ) from None


def run(args) -> int:
    check_limit_options(args)
    check_noise_options_apply(args, noise_on=args.noise_eps is not None)
    if not 1 <= args.trials <= MAX_TRIALS:
        raise InputError(f"--trials must be a whole number from 1 to {MAX_TRIALS:,}")
    if args.max_states < 1:
        raise InputError(
            "--max-states must be at least 1 (the exact tree's distinct states before auto "
            "turns to Monte Carlo; default 50000)"
        )
    repeats = args.repeats if args.repeats is not None else (20 if args.ties == "random" else 1)
    if repeats < 1:
        raise InputError("--repeats must be at least 1")
    if repeats > 1 and args.ties != "random":
        raise InputError(
            f"--repeats {repeats} needs --ties random: with --ties {args.ties} every tree is the "
            "same, and their interval would be zero wide"
        )
    problem, _ = load_problem(kb_spec(args))
    method = args.method
    # Category policies are also evaluated under the informed pick model: one more tree,
    # within the same time limit and by the same method.
    informed_run = args.policy in CATEGORY_POLICIES and args.policy not in RANDOM_POLICIES
    trees = repeats + informed_run

    def cost(work) -> float:
        exact_s, mc_s = work.exact_seconds(), work.interviews_seconds(args.trials)
        per_tree = {"exact": exact_s, "monte-carlo": mc_s}.get(method, min(exact_s, mc_s))
        return trees * per_tree

    what = counted(trees, "tree") + (" (one with the informed pick model)" if informed_run else "")
    shorter = "--method monte-carlo" if method == "exact" else "a smaller --trials"
    measured = None
    if args.noise_eps is not None:
        check_noise_memory(args, problem, "exact" if method == "auto" else method)
        measured = check_noise_scale(
            args, problem, ENGINE_TARGET[args.target], Policy(args.policy), cost, what, shorter
        )
    noise, warnings = noise_from_args(args, problem)
    for w in warnings:
        print(w, file=sys.stderr)
    try:
        model = Model(problem, ENGINE_TARGET[args.target], noise)
        Policy(args.policy).check(problem)
    except (TargetError, PolicyError) as exc:
        raise InputError(str(exc)) from None
    model, work, time_notes = fit_time_limit(
        args, model, Policy(args.policy), cost, what, shorter, measured
    )
    noise = model.noise
    if work is not None and method == "auto" and trees * work.exact_seconds() > args.time_limit:
        method = "monte-carlo"
        time_notes.append(
            f"the exact tree under noise has about {work.exact_tree_nodes():.2g} nodes "
            f"(estimated {duration_text(trees * work.exact_seconds())} for {what}): estimated "
            f"by Monte Carlo over "
            f"{args.trials} interviews instead"
        )
    if noise is not None and method == "monte-carlo":
        check_noise_memory(args, problem, method)
    if noise is None:
        check_monte_carlo_memory(args, problem, method)
    limits = {}
    if method == "exact":  # both limits bound an exact walk too, not only the auto method
        limits["exact_max_states"] = args.max_states
        if args.time_limit > 0:
            deadline = time.monotonic() + args.time_limit
            limits["out_of_time"] = lambda: time.monotonic() > deadline
    results = []
    begun = time.monotonic()
    with exact_limits(args):
        for r in range(repeats):
            if r == 1 and noise is None:  # under noise the estimate came before the start
                _check_repeats_time(args, repeats, trees, time.monotonic() - begun)
            seed = None if args.seed is None else args.seed + r
            ties_seed = seed if args.ties == "random" else None
            policy = Policy(args.policy, ties=args.ties, seed=ties_seed)
            results.append(
                evaluate(
                    model,
                    policy,
                    method=method,
                    max_states=args.max_states,
                    trials=args.trials,
                    seed=seed,
                    **limits,
                )
            )
    values = np.array([e.expected_queries for e in results])
    first = results[0]
    if first.method == "monte-carlo" and args.trials < MIN_MONTE_CARLO_TRIALS:
        first.notes.append(
            f"Monte Carlo over {args.trials} interviews, fewer than the {MIN_MONTE_CARLO_TRIALS} "
            "of the default run: the interval is correspondingly wider"
        )
    first.notes[:0] = time_notes
    ci95 = list(first.ci95) if first.ci95 else None
    if repeats > 1:
        half = 1.96 * values.std(ddof=1) / np.sqrt(repeats)
        ci95 = [float(values.mean() - half), float(values.mean() + half)]
    informed = None
    if informed_run:
        with exact_limits(args):
            ev = evaluate(
                model,
                Policy(args.policy, pick="informed"),
                method=method,
                max_states=args.max_states,
                trials=args.trials,
                seed=args.seed,
                **limits,
            )
        informed = {
            "expected_queries": ev.expected_queries,
            "method": ev.method,
            "ci95": list(ev.ci95) if ev.ci95 else None,
        }
    b = bounds(model)
    out = {
        "expected_queries": float(values.mean()),
        "method": first.method,
        "ci95": ci95,
        "entropy_bound": b["entropy_bound"],
        "entropy": b["entropy"],
        "huffman_bound": b["huffman_bound"],
        "decomposition": first.decomposition if first.method == "exact" else None,
        "policy": args.policy,
        "target": args.target,
        "ties": args.ties,
        "repeats": repeats,
        "objects": problem.n_objects,
        "queries": problem.n_queries,
        "max_depth": first.max_depth,
        "noise": None if noise is None else noise.describe(),
        "notes": first.notes,
    }
    if informed is not None:
        out["pick_models"] = {
            "any": {
                "expected_queries": out["expected_queries"],
                "method": first.method,
                "ci95": ci95,
            },
            "informed": informed,
        }
    if first.method == "monte-carlo":
        out["trials"] = args.trials
    if args.json:
        from responder.cli import print_json  # noqa: PLC0415

        print_json(out)
        return 0
    what = "group (class)" if args.target == "class" else "object (chemical)"
    print(
        f"policy {args.policy}, target {what}, {problem.n_objects} objects x "
        f"{problem.n_queries} queries"
    )
    if noise is not None:
        d = noise.describe()
        print(
            f"persistent noise: eps {d['eps']} (effective {d['eps_effective']}), "
            f"{d['prone_count']} error-prone queries, model {d['model']}, p {d['p']}"
        )
    line = f"E[K] = {out['expected_queries']:.4f}"
    if ci95:
        line += f"  (95% interval {ci95[0]:.4f} .. {ci95[1]:.4f})"
    print(
        line
        + f"  [{first.method}]"
        + ("  (pick: any unasked symptom, the paper's model)" if informed else "")
    )
    if informed is not None:
        line = f"E[K] = {informed['expected_queries']:.4f}"
        if informed["ci95"]:
            line += f"  (95% interval {informed['ci95'][0]:.4f} .. {informed['ci95'][1]:.4f})"
        print(line + f"  [{informed['method']}]  (pick: informed, only useful symptoms)")
    if out["decomposition"] is not None and repeats == 1:
        print(f"decomposition (Theorems 1, 2, 5, 6) = {out['decomposition']:.4f}")
    print(f"entropy bound = {b['entropy_bound']:.4f}")
    if b["huffman_bound"] is not None:
        print(f"Huffman bound = {b['huffman_bound']:.4f}")
    for note in first.notes:
        print(f"note: {note}")
    return 0
