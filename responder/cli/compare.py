"""``responder simulate --answers ...``: the answer modes side by side on the same victims."""

from __future__ import annotations

import sys

import numpy as np

from responder.cli.inputs import (
    MEASURE_SECONDS,
    InputError,
    check_delta,
    check_memory,
    check_noise_options_apply,
    config_from_args,
    enough_time,
    evidence_from_args,
    kb_spec,
    load_problem,
    noise_from_args,
    typed_noise,
)
from responder.config import ENGINE_TARGET
from responder.core.modes import exclusive_groups, state_for
from responder.engine.belief import Model, TargetError
from responder.engine.compare import (
    EvidenceMode,
    InterviewMode,
    StrictMode,
    Victims,
    VictimsError,
    compare_modes,
    parse_victims,
)
from responder.engine.noise import NoiseSettingsError
from responder.engine.policies import CATEGORY_POLICIES, PolicyError
from responder.engine.simulate import PolicyInterviewer
from responder.engine.workload import (
    duration_text,
    measure_interviewer,
    measure_policy_interviews,
    run_bytes,
)

MODE_NAMES = ("evidence", "strict", "noise")
COMPARE_POLICIES = ("gbs", "gisa", "gqsa", "gigqsa")
DEFAULT_COMPARE_EPS = 2


def run_compare(args) -> int:
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODE_NAMES]
    if bad or not modes:
        raise InputError(
            f"--modes {args.modes!r}: choose from {', '.join(MODE_NAMES)}, comma-separated"
        )
    twice = sorted({m for m in modes if modes.count(m) > 1}, key=modes.index)
    if twice:
        raise InputError(
            f"--modes {args.modes!r} names {' and '.join(twice)} twice; name each mode once"
        )
    persistent = str(args.answers).strip().lower() == "persistent"
    check_noise_options_apply(
        args,
        noise_on="noise" in modes or persistent,
        why="persistent noise, which only the noise mode and --answers persistent use",
        fix="add noise to --modes",
    )
    if args.policy not in COMPARE_POLICIES:
        raise InputError(
            f"--answers compares {', '.join(COMPARE_POLICIES)}; got --policy {args.policy!r}"
        )
    if getattr(args, "pick", None) is not None and args.policy not in CATEGORY_POLICIES:
        raise InputError(
            f"--pick applies only to category suggestions, and --policy {args.policy} suggests "
            "one symptom at a time; use --policy gqsa or gigqsa, or leave --pick out"
        )
    if args.interviews < 1:
        raise InputError("--interviews must be at least 1")
    problem, kb = load_problem(kb_spec(args))
    if args.noise_eps is None:
        args.noise_eps = str(DEFAULT_COMPARE_EPS)
    m, n = problem.n_objects, problem.n_queries
    check_memory(
        args,
        run_bytes(
            m,
            n,
            # the common root, each strict or noise mode, and persistent victims' own
            models=1 + sum(mode != "evidence" for mode in modes) + persistent,
            evidence="evidence" in modes,
            noise="noise" in modes or persistent,
        ),
        f"comparing {', '.join(modes)} on {m} x {n}",
        "use fewer --modes (noise needs the most)",
    )
    if "noise" in modes:
        check_noise_mode_time(args, problem, modes)
    check_delta(args, problem)  # the noise options need delta
    noise, warnings = noise_from_args(args, problem)
    try:
        victims = parse_victims(args.answers, noise)
    except VictimsError as exc:
        raise InputError(str(exc)) from None
    scene_step = bool(args.scene_step)
    if scene_step:
        _check_scene_step(victims, modes, kb)
    settings = evidence_from_args(args, kb)
    suggest = "category" if args.policy in CATEGORY_POLICIES else "symptom"
    runners = []
    try:
        for mode in modes:
            if mode == "strict":
                runners.append(
                    StrictMode(
                        problem,
                        args.policy,
                        ENGINE_TARGET[args.target],
                        name=f"strict {args.policy}",
                    )
                )
            elif mode == "noise":
                runners.append(
                    StrictMode(
                        problem,
                        args.policy,
                        ENGINE_TARGET[args.target],
                        noise=noise,
                        name=f"noise {args.policy} eps={noise.eps}",
                    )
                )
            else:
                name = f"evidence s={settings.sensitivity:g} l={settings.leak:g}"
                if suggest == "category":
                    name += f" pick={settings.pick}"
                if kb is None:  # an interchange file: the bare answer model
                    runners.append(
                        EvidenceMode(
                            settings.model(problem, ENGINE_TARGET[args.target]),
                            suggest,
                            settings.pick,
                            name=name,
                        )
                    )
                else:
                    runners.append(_app_interview(args, kb, problem, suggest, scene_step, name))
    except (TargetError, PolicyError, NoiseSettingsError) as exc:
        raise InputError(str(exc)) from None
    if "noise" in modes or persistent:  # eps matters only where persistent noise is used
        for w in warnings:
            print(w, file=sys.stderr)
    check_compare_time(args, problem, victims, runners)
    summaries = compare_modes(
        problem,
        victims,
        runners,
        args.interviews,
        seed=args.seed,
        population=problem.ranking_prior(ENGINE_TARGET[args.target]),
    )
    out = {
        "answers": victims.describe(),
        "scene_step": scene_step,
        "target": args.target,
        "policy": args.policy,
        "interviews": args.interviews,
        "seed": args.seed,
        "objects": problem.n_objects,
        "queries": problem.n_queries,
        "evidence": settings.describe(),
        "noise_eps": noise.eps,
        "modes": [s.as_dict() for s in summaries],
    }
    if args.json:
        from responder.cli import print_json  # noqa: PLC0415

        print_json(out)
        return 0
    what = "class" if args.target == "class" else "chemical"
    print(
        f"answers {out['answers']}, target {what}, {problem.n_objects} x {problem.n_queries}, "
        f"{args.interviews} interviews (same victims for every mode)"
        + ("" if args.seed is None else f", seed {args.seed}")
        + (", scene step first (not counted as questions)" if scene_step else "")
    )
    print(
        "95% intervals in brackets; silently wrong = stopped as identified on a wrong answer; "
        "no fit = ended saying no chemical fits; questions: mean, median and 90th percentile"
    )
    header = (
        f"{'mode':<34} {'top-1':>20} {'top-5':>20} {'silently wrong':>20} "
        f"{'no fit':>20} {'questions':>20} {'median':>7} {'p90':>5}"
    )
    print(header)
    for s in summaries:
        d = s.as_dict()
        print(
            f"{s.name:<34} {_pct(d['top1']):>20} {_pct(d['top5']):>20} "
            f"{_pct(d['silently_wrong']):>20} {_pct(d['no_fit']):>20} "
            f"{_mean(d['mean_questions']):>20} {d['median_questions']:>7g} {d['p90_questions']:>5g}"
        )
    return 0


def _check_scene_step(victims: Victims, modes: list[str], kb) -> None:
    """InputError when the comparison cannot have a scene step."""
    if victims.kind != "flip":
        raise InputError(
            f"--scene-step with --answers needs flip:F victims (got {victims.describe()}): "
            "the scene step's answers are one observation per scene category, wrong with "
            "chance F"
        )
    if modes != ["evidence"]:
        raise InputError(
            "--scene-step runs the evidence mode only (the paper's strict and noise modes "
            "have no scene step); add --modes evidence"
        )
    if kb is None or not any(c.kind == "scene" for c in kb.categories):
        where = "an interchange file has no scene" if kb is None else f"{kb.name} has none"
        raise InputError(f"--scene-step needs a knowledge base with scene observations: {where}")


def _app_interview(args, kb, problem, suggest: str, scene_step: bool, name: str) -> InterviewMode:
    """The evidence mode as the app runs it (:class:`InterviewMode`): the knowledge base's
    interview state under the command line's settings, its exclusive groups asked as one
    question each, and optionally the scene step."""
    config = config_from_args(args, mode="evidence", suggest=suggest)
    scene = np.flatnonzero([s.kind == "scene" for s in kb.symptoms]) if scene_step else None
    return InterviewMode(
        lambda: state_for(kb, config, problem), exclusive_groups(kb), scene, name=name
    )


def check_noise_mode_time(args, problem, modes: list[str]) -> None:
    """The noise mode alone, measured before anything else is built (delta, the evidence
    model): refused at once when it cannot fit ``--time-limit``."""
    noise = typed_noise(args, problem)
    if noise is None or not float(getattr(args, "time_limit", 0) or 0) > 0:
        return
    try:
        name = f"noise {args.policy} eps={noise.eps}"
        runner = StrictMode(problem, args.policy, ENGINE_TARGET[args.target], noise, name=name)
        victims = parse_victims(args.answers, noise)
    except (TargetError, PolicyError, NoiseSettingsError, VictimsError):
        return  # reported where the modes are built
    check_compare_time(args, problem, victims, [runner], share=1 / 3, partial=len(modes) > 1)


def check_compare_time(
    args, problem, victims, runners, share: float = 1.0, partial: bool = False
) -> None:
    """Measure each mode briefly on the simulated victims (``share`` of
    :data:`MEASURE_SECONDS` in all) and refuse a comparison estimated to exceed
    ``--time-limit``, with each mode's share. ``partial``: the runners are some of the
    comparison's modes, so the time a run needs is more than theirs (no limit is named that
    the other modes would then exceed).

    Raises
    ------
    InputError
    """
    limit = float(getattr(args, "time_limit", 0) or 0)
    if limit <= 0:
        return
    answers = victims.answers_for(problem)
    root = Model(problem).root()
    budget = share * MEASURE_SECONDS / len(runners)
    parts, total, complete = [], 0.0, True
    for runner in runners:
        if isinstance(runner, PolicyInterviewer):
            work = measure_policy_interviews(runner, answers, root, args.seed, budget)
        else:
            work = measure_interviewer(
                runner,
                answers,
                root,
                seed=args.seed,
                budget_seconds=budget,
                n_objects=problem.n_objects,
            )
        seconds = work.interviews_seconds(args.interviews)
        complete = complete and work.complete
        total += seconds
        parts.append(f"{runner.name} {duration_text(seconds)}")
    if total > limit and partial:
        raise InputError(
            f"estimated at least {duration_text(total)} for {args.interviews} interviews per "
            f"mode ({'; '.join(parts)}, before the other modes are measured), more than the "
            f"{limit:g} s limit; use a smaller --interviews, fewer --modes or a smaller "
            f"--noise-eps, or pass a --time-limit above {enough_time(total)} (the other modes "
            "add to it; 0 = no limit) to run it anyway"
        )
    if total > limit:
        least = "" if complete else "at least "
        raise InputError(
            f"estimated {least}{duration_text(total)} for {args.interviews} interviews per "
            f"mode ({'; '.join(parts)}), more than the {limit:g} s limit; use a smaller "
            "--interviews, fewer --modes or a smaller --noise-eps, or pass --time-limit "
            f"{enough_time(total)} (0 = no limit) to run it anyway"
        )


def _pct(p: dict) -> str:
    lo, hi = p["ci95"]
    return f"{100 * p['share']:.1f}% [{100 * lo:.0f}-{100 * hi:.0f}]"


def _mean(m: dict) -> str:
    lo, hi = m["ci95"]
    return f"{m['mean']:.2f} [{lo:.2f}-{hi:.2f}]"
