"""``responder simulate``: simulated interviews under persistent noise (Section 7.3).

Each interview follows the paper's four steps: the error-prone queries are fixed (step 1,
``--noise-prone``), a number of errors e <= eps' is drawn from the probability model
(step 2), e error-prone queries are chosen uniformly (step 3) and the true chemical's
answers to them are flipped (step 4); asking again repeats the flip. The command reports
E[K] with a 95% interval, the identification accuracy when at most eps answers were wrong
(100% whenever eps <= floor((delta-1)/2) and no two chemicals share a row), and, with
``--extra-errors K``, the accuracy when eps+1 .. eps+K answers were wrong, with how often no
candidate was consistent. Proportions get Wilson score intervals.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from responder.cli.inputs import (
    MEASURE_SECONDS,
    InputError,
    add_noise_arguments,
    add_problem_arguments,
    add_time_limit_argument,
    check_limit_options,
    check_memory,
    check_noise_options_apply,
    check_noise_scale,
    config_from_args,
    enough_time,
    evidence_from_args,
    fit_time_limit,
    kb_spec,
    load_problem,
    noise_from_args,
    seed_value,
)
from responder.config import ENGINE_TARGET, add_evidence_arguments
from responder.core.counted import counted
from responder.engine.belief import Model, TargetError
from responder.engine.compare import wilson
from responder.engine.diagnostics import default_eps, min_hamming_distance
from responder.engine.evidence import EvidenceSettings
from responder.engine.policies import Policy, PolicyError
from responder.engine.simulate import BATCH_MAX_CELLS, run_simulation
from responder.engine.workload import duration_text, run_bytes
from responder.kb.grades import bundled_grades

DEFAULT_INTERVIEWS = 1000
DEFAULT_EXTRA_ERRORS = 2
DEFAULT_MODES = "evidence,strict,noise"

#: (option, its dest, its default) that only some runs read
PERSISTENT_OPTIONS = (
    ("--policy", "policy", "gbs"),
    ("--ties", "ties", "first"),
    ("--extra-errors", "extra_errors", DEFAULT_EXTRA_ERRORS),
    ("--noise-eps", "noise_eps", None),
    ("--noise-prone", "noise_prone", "all"),
    ("--noise-model", "noise_model", 1),
    ("--noise-p", "noise_p", None),
)
COMPARE_OPTIONS = (("--answers", "answers", None), ("--modes", "modes", DEFAULT_MODES))
# The evidence options add_evidence_arguments gives (every settable key but the gain floor).
EVIDENCE_OPTIONS = tuple(
    (f"--{dest.replace('_', '-')}", dest, None)
    for dest in EvidenceSettings.KEYS
    if dest != "gain_floor"
)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="simulate interviews with wrong answers (persistent noise)",
        description=(
            "Simulate interviews in which up to eps error-prone answers are wrong and stay "
            "wrong when asked again (Section 6), following the paper's four steps "
            "(Section 7.3). Reports E[K] and identification accuracy with 95% intervals. "
            "Noise mode is always on: --noise-eps defaults to auto."
        ),
    )
    add_problem_arguments(p)
    p.add_argument(
        "--interviews",
        type=int,
        default=DEFAULT_INTERVIEWS,
        metavar="N",
        help=f"interviews with at most eps errors (default {DEFAULT_INTERVIEWS})",
    )
    p.add_argument(
        "--extra-errors",
        type=int,
        default=DEFAULT_EXTRA_ERRORS,
        metavar="K",
        help="also run N interviews with eps+1 .. eps+K wrong answers, drawn "
        f"uniformly, to measure accuracy past the budget; 0 to skip "
        f"(default {DEFAULT_EXTRA_ERRORS})",
    )
    p.add_argument(
        "--ties",
        choices=("first", "random"),
        default="first",
        help="tie rule: lowest index (default) or random with --seed",
    )
    p.add_argument(
        "--seed",
        type=seed_value,
        default=None,
        help="seed for the simulation, random ties and a fractional --noise-prone",
    )
    add_noise_arguments(p)
    add_time_limit_argument(p)
    p.add_argument(
        "--answers",
        metavar="flip:F|victim:S,L|persistent",
        default=None,
        help="compare the answer modes (evidence, strict, noise) on the same "
        "simulated victims: each answer wrong with chance F; victims showing "
        "each listed sign with chance S and each unlisted one with chance L; "
        "or the paper's persistent errors (--noise-* settings). The true agents are "
        "drawn from the prior the target ranks under (with the knowledge base's split "
        "prior: every chemical alike for the chemical, every class alike for the class). "
        "Reports top-1, top-5, silently wrong and mean questions with 95%% intervals",
    )
    p.add_argument(
        "--modes",
        default=DEFAULT_MODES,
        metavar="LIST",
        help="with --answers: the modes to compare (default evidence,strict,noise)",
    )
    g = p.add_argument_group("several victims of one incident (evidence mode)")
    g.add_argument(
        "--victims",
        type=int,
        default=None,
        metavar="K",
        help="simulate incidents of K victims of one agent, each showing each sign with its "
        "graded chance and one place, smell, route... per category of alternatives, "
        "interviewed together as the app does (the evidence mode pools them); --interviews "
        "incidents. Reports top-1, top-5, class and questions per victim",
    )
    g.add_argument(
        "--per-victim",
        type=int,
        default=None,
        metavar="Q",
        help=f"with --victims: at most Q questions per victim (default {DEFAULT_PER_VICTIM}; "
        "0 = until the evidence mode stops)",
    )
    p.add_argument(
        "--scene-step",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the app's scene step first: the scene facts that hold are ticked before any "
        "question, as on the app's scene pages, and not counted as questions. On by default "
        "with --victims; off by default with --answers flip:F, where it runs the evidence "
        "mode only (each scene answer wrong with chance F)",
    )
    add_evidence_arguments(p, bundled_grades())
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=run)


def _proportion(share: float | None, n: int) -> dict | None:
    if share is None or n == 0:
        return None
    k = int(round(share * n))
    lo, hi = wilson(k, n)
    return {"count": k, "of": n, "share": k / n, "ci95": [lo, hi]}


#: Questions a responder can put to each victim of a busy scene.
DEFAULT_PER_VICTIM = 5


def run_incidents(args) -> int:
    """``simulate --victims K``: incidents of K victims interviewed together."""
    from responder.core.modes import exclusive_groups, state_for  # noqa: PLC0415
    from responder.engine.incidents import simulate_incidents  # noqa: PLC0415

    if args.victims < 1 or args.victims > 100:
        raise InputError("--victims must be a whole number from 1 to 100")
    if args.per_victim is None:
        args.per_victim = DEFAULT_PER_VICTIM
    if args.per_victim < 0:
        raise InputError("--per-victim must be 0 or more (0 = until the interview stops)")
    if args.interviews < 1:
        raise InputError("--interviews must be at least 1")
    problem, kb = load_problem(kb_spec(args))
    if kb is None:
        raise InputError(
            "--victims needs a knowledge base (name or folder): an interchange file has no "
            "graded cells, scene or victims"
        )
    settings = evidence_from_args(args, kb)
    config = config_from_args(args, mode="evidence")
    scene = np.array([s.kind == "scene" for s in kb.symptoms], dtype=bool)

    def incidents(n: int, seed: int | None):
        return simulate_incidents(
            lambda: state_for(kb, config),
            args.victims,
            n,
            groups=exclusive_groups(kb),
            scene=None if args.scene_step is False else scene,
            per_victim=args.per_victim or None,
            seed=seed,
        )

    _check_incidents_time(args, incidents)
    summary = incidents(args.interviews, args.seed)
    out = {
        "victims": args.victims,
        "target": args.target,
        "incidents": args.interviews,
        "per_victim": args.per_victim or None,
        "scene_step": args.scene_step is not False and bool(scene.any()),
        "seed": args.seed,
        "evidence": settings.describe(),
        **{k: v for k, v in summary.as_dict().items() if k not in ("victims", "incidents")},
    }
    if args.json:
        from responder.cli import print_json  # noqa: PLC0415

        print_json(out)
        return 0

    def pct(x) -> str:
        return f"{100 * x[0]:.1f}% [{100 * x[1][0]:.0f}-{100 * x[1][1]:.0f}]"

    q = summary.questions_per_victim
    print(
        f"{counted(args.interviews, 'incident')} of {counted(args.victims, 'victim')} on {kb.name} "
        f"(target {args.target}, {'scene step first, ' if out['scene_step'] else ''}"
        f"{'at most ' + str(args.per_victim) if args.per_victim else 'no limit on'} questions "
        "per victim); 95% intervals in brackets"
    )
    print(
        f"top-1 {pct(summary.top1)}   top-5 {pct(summary.top5)}   class {pct(summary.class_top1)}"
        f"   questions per victim {q[0]:.2f} [{q[1][0]:.2f}-{q[1][1]:.2f}]"
    )
    return 0


def _check_incidents_time(args, incidents, max_measured: int = 10) -> None:
    """Run a few incidents (at most :data:`MEASURE_SECONDS` of CPU time) and refuse a run
    estimated past ``--time-limit``, as every other simulation is refused."""
    import time  # noqa: PLC0415

    limit, _ = check_limit_options(args)
    if not limit:
        return
    begin = time.process_time()
    measured = 0
    while measured < min(max_measured, args.interviews):
        incidents(1, None if args.seed is None else args.seed + 1 + measured)
        measured += 1
        if time.process_time() - begin >= MEASURE_SECONDS:
            break
    seconds = (time.process_time() - begin) / measured * args.interviews
    if seconds > limit:
        raise InputError(
            f"estimated {duration_text(seconds)} for {counted(args.interviews, 'incident')} of "
            f"{counted(args.victims, 'victim')} (measured: {counted(measured, 'incident')}), "
            f"more than the {limit:g} s limit; use a smaller --interviews or --per-victim, or "
            f"pass --time-limit {enough_time(seconds)} (0 = no limit) to run it anyway"
        )


def check_options_apply(args) -> None:
    """An option the run does not read is an error: dropped without a word, it would have the
    figures read as what it asked for (wrong answers that were never drawn)."""
    if args.victims is not None:
        unread = (*COMPARE_OPTIONS, *PERSISTENT_OPTIONS)
        why = (
            "--victims simulates the app's evidence-mode interview of each incident, each "
            "victim showing each sign with its graded chance"
        )
        fix = "or drop --victims to run it"
    elif args.answers is None:
        unread = (*COMPARE_OPTIONS[1:], ("--scene-step", "scene_step", None), *EVIDENCE_OPTIONS)
        why = "without --answers or --victims, simulate runs the paper's persistent noise"
        fix = "or add --answers (or --victims) for the run that reads it"
    else:
        return
    given = [flag for flag, dest, default in unread if getattr(args, dest) != default]
    if given:
        raise InputError(
            f"{' and '.join(given)} {'does' if len(given) == 1 else 'do'} not apply here: "
            f"{why}; leave {'it' if len(given) == 1 else 'them'} out, {fix}"
        )


def run(args) -> int:
    check_limit_options(args)
    check_options_apply(args)
    check_noise_options_apply(args, noise_on=True)
    if args.victims is not None:
        return run_incidents(args)
    if args.per_victim is not None:
        raise InputError(
            "--per-victim limits the questions per victim of simulated incidents: add "
            "--victims K (for example --victims 3 --per-victim "
            f"{args.per_victim}), or leave --per-victim out"
        )
    if args.answers is not None:
        from responder.cli.compare import run_compare  # noqa: PLC0415

        return run_compare(args)
    if args.interviews < 1:
        raise InputError("--interviews must be at least 1")
    if args.extra_errors < 0:
        raise InputError("--extra-errors must be 0 or more")
    problem, _ = load_problem(kb_spec(args))
    if args.extra_errors > max(problem.n_queries, DEFAULT_EXTRA_ERRORS):
        raise InputError(
            f"--extra-errors {args.extra_errors}: an interview has only {problem.n_queries} "
            f"answers to get wrong; give at most {problem.n_queries} (0 to skip)"
        )
    if args.noise_eps is None:
        args.noise_eps = "auto"  # simulate is always in noise mode
    runs = args.interviews * (2 if args.extra_errors > 0 else 1)
    m, n = problem.n_objects, problem.n_queries
    together = m * n <= BATCH_MAX_CELLS and args.target == "chemical"  # run_batch's rule
    check_memory(
        args,
        run_bytes(m, n, noise=True, batch=args.interviews if together else 0),
        f"simulating {args.interviews} interviews on {m} x {n}",
        "use a smaller --interviews" if together else "use a smaller matrix",
    )

    def cost(work) -> float:
        return work.interviews_seconds(runs)

    measured = check_noise_scale(
        args,
        problem,
        ENGINE_TARGET[args.target],
        Policy(args.policy, ties=args.ties, seed=args.seed),
        cost,
        f"{runs} interviews",
        "a smaller --interviews",
    )
    noise, warnings = noise_from_args(args, problem)
    for w in warnings:
        print(w, file=sys.stderr)
    try:
        model = Model(problem, ENGINE_TARGET[args.target], noise)
        policy = Policy(args.policy, ties=args.ties, seed=args.seed)
        policy.check(problem)
    except (TargetError, PolicyError) as exc:
        raise InputError(str(exc)) from None
    model, _, time_notes = fit_time_limit(
        args, model, policy, cost, f"{runs} interviews", "a smaller --interviews", measured
    )
    noise = model.noise
    delta = min_hamming_distance(problem.matrix)
    result = run_simulation(
        model, policy, interviews=args.interviews, extra_errors=args.extra_errors, seed=args.seed
    )
    details = result.details
    within = _proportion(result.accuracy_within_eps, result.within_count)
    several = _proportion(details.get("several_candidates_within_eps"), result.within_count)
    beyond = None
    notes: list[str] = list(time_notes)
    if result.beyond_count:
        n = result.beyond_count
        beyond = {
            "interviews": n,
            "errors": [noise.eps_eff + 1, min(noise.eps_eff + args.extra_errors, noise.n_prone)],
            "accuracy": _proportion(result.accuracy_beyond_eps, n),
            "no_candidate_consistent": _proportion(result.inconsistent_beyond_eps, n),
            "wrong_but_consistent": _proportion(details.get("wrong_consistent_beyond_eps"), n),
            "no_object_fits_all_answers": _proportion(
                details.get("inconsistent_if_all_asked_beyond_eps"), n
            ),
        }
    elif args.extra_errors > 0:
        notes.append(
            f"no interviews past the budget: all {noise.n_prone} error-prone answers may "
            f"already be wrong within eps' = {noise.eps_eff}"
        )
    if within is not None and within["share"] < 1.0:
        if noise.eps > default_eps(delta):
            notes.append(
                f"accuracy within eps is below 100% because eps = {noise.eps} exceeds "
                f"floor((delta-1)/2) = {default_eps(delta)}: noisy answers of different "
                "chemicals can coincide"
            )
        if several is not None and several["count"] > 0:
            notes.append(
                f"{counted(several['count'], 'interview')} ended on several "
                f"{'groups' if args.target == 'class' else 'chemicals'} that no question "
                "separates (identical symptom rows)"
            )
    settings = noise.describe()
    settings["prone_queries"] = [
        problem.query_names[j] for j in range(problem.n_queries) if noise.prone[j]
    ]
    settings["delta"] = delta
    settings["eps_bound"] = default_eps(delta)
    out = {
        "policy": args.policy,
        "target": args.target,
        "ties": args.ties,
        "seed": args.seed,
        "objects": problem.n_objects,
        "queries": problem.n_queries,
        "interviews": result.interviews,
        "expected_queries": result.expected_queries,
        "ci95": list(result.ci95),
        "within_eps": {
            "interviews": result.within_count,
            "accuracy": within,
            "several_candidates": several,
        },
        "beyond_eps": beyond,
        "noise": settings,
        "warnings": warnings,
        "notes": notes,
    }
    if args.json:
        from responder.cli import print_json  # noqa: PLC0415

        print_json(out)
        return 0
    _print_text(out, problem, noise)
    return 0


def _pct(p: dict | None) -> str:
    if p is None:
        return "n/a"
    lo, hi = p["ci95"]
    return (
        f"{100 * p['share']:.1f}% ({p['count']}/{p['of']}; 95% interval "
        f"{100 * lo:.1f}% .. {100 * hi:.1f}%)"
    )


def _print_text(out: dict, problem, noise) -> None:
    what = "group (class)" if out["target"] == "group" else "object (chemical)"
    print(
        f"policy {out['policy']}, target {what}, {problem.n_objects} objects x "
        f"{problem.n_queries} queries, {out['interviews']} interviews"
        + ("" if out["seed"] is None else f", seed {out['seed']}")
    )
    d = out["noise"]
    model = f"model {d['model']}" + (f", p {d['p']}" if d["model"] == 2 else "")
    print(
        f"persistent noise: eps {d['eps']} (effective {d['eps_effective']}; delta {d['delta']} "
        f"allows {d['eps_bound']}), {d['prone_count']} of {problem.n_queries} queries "
        f"error-prone, {model}"
    )
    lo, hi = out["ci95"]
    print(f"E[K] = {out['expected_queries']:.4f}  (95% interval {lo:.4f} .. {hi:.4f})")
    print(f"accuracy with <= eps wrong answers: {_pct(out['within_eps']['accuracy'])}")
    several = out["within_eps"]["several_candidates"]
    if several is not None and several["count"] > 0:
        what = "groups" if out["target"] == "group" else "chemicals"
        print(f"  ended on several {what} with identical rows, reported together: {_pct(several)}")
    b = out["beyond_eps"]
    if b is not None:
        lo_e, hi_e = b["errors"]
        span = f"{lo_e}" if lo_e == hi_e else f"{lo_e}..{hi_e}"
        print(f"accuracy with {span} wrong answers (> eps): {_pct(b['accuracy'])}")
        print(f"  no candidate consistent within eps: {_pct(b['no_candidate_consistent'])}")
        print(
            f"  ended on a wrong candidate that fits the answers given: "
            f"{_pct(b['wrong_but_consistent'])}"
        )
        print(
            f"  no chemical fits all {problem.n_queries} answers (asking every remaining "
            f"question would show it): {_pct(b['no_object_fits_all_answers'])}"
        )
    for note in out["notes"]:
        print(f"note: {note}")
