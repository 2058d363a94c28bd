"""Loading problems for the command line: an interchange file or a knowledge base, plus the
shared noise options. Every failure becomes :class:`InputError` with one clear message.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from collections.abc import Callable
from pathlib import Path

from responder.cli.interchange import (
    InterchangeError,
    is_interchange,
    read_interchange,
)
from responder.config import TARGET_ALIASES, ConfigError, InterviewConfig, symptom_leaks
from responder.config import TARGETS as CONFIG_TARGETS
from responder.engine.diagnostics import auto_eps, default_eps, min_hamming_distance
from responder.engine.evidence import (
    EvidenceSettings,
)
from responder.engine.noise import NoiseModel, NoiseSettingsError, prone_mask
from responder.engine.policies import POLICIES
from responder.engine.problem import Problem
from responder.engine.workload import (
    DEFAULT_MEMORY_LIMIT_MB,
    DeltaTooSlow,
    MiB,
    Workload,
    duration_text,
    measure_interviews,
    min_hamming_within,
    size_text,
)


class InputError(ValueError):
    """Bad input: the message says what is wrong and how to fix it."""


def load_interchange(path: Path) -> Problem:
    """Read an interchange ``.json`` or ``.npz`` file (:mod:`responder.cli.interchange`)."""
    try:
        return read_interchange(path)
    except InterchangeError as exc:
        raise InputError(str(exc)) from None


def load_problem(spec: str | None):
    """A problem from ``--kb``: an interchange ``.json`` or ``.npz`` file, or a knowledge base
    (bundled when ``spec`` is None, a name or a path). Returns ``(problem, kb_or_None)``."""
    if is_interchange(spec):
        return load_interchange(Path(spec)), None
    from responder.kb.loader import KBError  # noqa: PLC0415 (keeps start-up light)
    from responder.kb.resolve import resolve_kb  # noqa: PLC0415

    try:
        kb = resolve_kb(spec)
    except KBError as exc:
        raise InputError(str(exc)) from None
    return kb.to_problem(), kb


KB_HELP = "interchange .json or .npz file, knowledge-base name or folder (default: bundled)"


def add_kb_argument(parser: argparse.ArgumentParser, help: str = KB_HELP) -> None:  # noqa: A002
    """``--kb FILE|NAME``, read with :func:`kb_spec` by :func:`load_problem`.

    The option may also come before the command (``responder --kb DIR eval``): the
    command's own default must not overwrite that one, so it sets none.
    """
    parser.add_argument("--kb", metavar="FILE|NAME", default=argparse.SUPPRESS, help=help)


def kb_spec(args) -> str | None:
    """The ``--kb`` given before or after the command (after wins); None: the bundled one."""
    return getattr(args, "kb", None)


def add_problem_arguments(parser: argparse.ArgumentParser) -> None:
    """``--kb``, ``--target`` and ``--policy``, shared by ``eval`` and ``simulate``."""
    add_kb_argument(parser)
    parser.add_argument(
        "--target",
        type=lambda v: TARGET_ALIASES.get(v, v),
        choices=CONFIG_TARGETS,
        default="chemical",
        metavar="{chemical,class}",
        help="identify the chemical (the paper's object) or only its class (group); "
        "object and group are accepted too",
    )
    parser.add_argument(
        "--policy", default="gbs", choices=POLICIES, help="query-selection policy (default gbs)"
    )


def add_noise_arguments(parser: argparse.ArgumentParser) -> None:
    """The persistent-noise options shared by ``eval`` and ``simulate``."""
    group = parser.add_argument_group("persistent noise (Section 6)")
    group.add_argument(
        "--noise-eps",
        metavar="E|auto",
        default=None,
        help="turn noise mode on, tolerating up to E wrong answers; auto = "
        "max(1, floor((delta-1)/2)) from the matrix's minimum Hamming "
        "distance delta, as in the app",
    )
    group.add_argument(
        "--noise-prone",
        default="all",
        metavar="all|FRACTION|NAMES",
        help="error-prone queries: all, a fraction nu in [0,1] (chosen with "
        "--seed), or comma-separated query names (default: all)",
    )
    group.add_argument(
        "--noise-model",
        type=int,
        choices=(1, 2),
        default=1,
        help="1: uniform over error counts' strings; 2: truncated binomial",
    )
    group.add_argument(
        "--noise-p",
        type=float,
        default=None,
        metavar="P",
        help=f"model 2: chance an error-prone answer is wrong, in [0, 0.5] (default "
        f"{DEFAULT_NOISE_P})",
    )


#: --noise-p when --noise-model 2 is given without it
DEFAULT_NOISE_P = 0.25


def _noise_p(args) -> float:
    return DEFAULT_NOISE_P if args.noise_p is None else args.noise_p


def check_noise_options_apply(
    args,
    noise_on: bool,
    why: str = "persistent noise, which is off without --noise-eps",
    fix: str = "add --noise-eps E (or auto)",
) -> None:
    """A noise option the run would not read is an error, not dropped without a word: the
    figures would be read as what it asked for. ``noise_on``: whether the run is under
    persistent noise at all; ``why`` and ``fix`` say, when it is not, why and what to do."""
    if args.noise_p is not None and args.noise_model != 2:
        raise InputError(
            f"--noise-p {args.noise_p:g} is model 2's chance of a wrong answer, and model "
            f"{args.noise_model} takes every string of errors alike (p = 0.5); add "
            "--noise-model 2, or leave --noise-p out"
        )
    if noise_on:
        return
    given = [
        flag
        for flag, value, default in (
            ("--noise-eps", args.noise_eps, None),
            ("--noise-prone", args.noise_prone, "all"),
            ("--noise-model", args.noise_model, 1),
            ("--noise-p", args.noise_p, None),
        )
        if value != default
    ]
    if given:
        raise InputError(
            f"{' and '.join(given)} {'applies' if len(given) == 1 else 'apply'} only under "
            f"{why}; {fix}, or leave {'it' if len(given) == 1 else 'them'} out"
        )


def noise_from_args(args, problem: Problem) -> tuple[NoiseModel | None, list[str]]:
    """Build the noise model from parsed options; returns (model or None, warnings)."""
    if args.noise_eps is None:
        return None, []
    warnings: list[str] = []
    delta = min_hamming_distance(problem.matrix)
    allowed = default_eps(delta)
    automatic = str(args.noise_eps).strip().lower() == "auto"
    if automatic:
        eps = auto_eps(delta)
    else:
        try:
            eps = int(args.noise_eps)
        except ValueError:
            raise InputError(
                f"--noise-eps {args.noise_eps!r} is not a whole number; give e.g. 2, or auto"
            ) from None
    try:
        mask = prone_mask(
            problem.n_queries,
            args.noise_prone,
            problem.query_names,
            seed=getattr(args, "seed", None),
        )
        noise = NoiseModel(eps, mask, model=args.noise_model, p=_noise_p(args))
    except NoiseSettingsError as exc:
        raise InputError(str(exc)) from None
    # Automatic eps is at least 1 by definition (documented, and the default of simulate):
    # only an eps the user typed is warned about; the runs' own notes say what it implies.
    if eps > allowed and not automatic:
        warnings.append(
            f"warning: eps = {eps} exceeds floor((delta-1)/2) = {allowed} (delta = {delta}); "
            "identification is no longer unique: several chemicals may stay possible"
        )
    return noise, warnings


DEFAULT_TIME_LIMIT = 300.0


def enough_time(seconds: float) -> int:
    """The --time-limit a refusal names for a run estimated at ``seconds``: with a fifth
    more, as the next run measures again and its estimate moves (a limit named exactly can
    be refused by that measurement)."""
    return math.ceil(seconds * 1.2)


def seed_value(text: str) -> int:
    """``--seed``: a whole number, 0 or more (numpy's generators take no negative seed)."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a whole number, 0 or more, got {text!r}"
        ) from None
    if seed < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number, 0 or more, got {seed}")
    return seed


#: CPU seconds that measuring may take in all (the first measurement, then lower eps for
#: --noise-eps auto), so that a refusal comes within about 2 s of the start.
MEASURE_SECONDS = 0.9
FIRST_MEASURE_SECONDS = 0.3


def add_time_limit_argument(parser: argparse.ArgumentParser, also: str = "") -> None:
    """``--time-limit SECONDS`` and ``--memory-limit MB``, read by :func:`fit_time_limit`,
    :func:`check_noise_scale` and :func:`check_memory`; ``also`` adds to the help what else
    the time limit bounds in that command."""
    parser.add_argument(
        "--time-limit",
        type=float,
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help="under noise, measure a few interviews first and refuse a run estimated to take "
        f"longer (with --noise-eps auto, lower eps until it fits){also}; 0 = no limit "
        f"(default {DEFAULT_TIME_LIMIT:.0f})",
    )
    parser.add_argument(
        "--memory-limit",
        type=float,
        default=DEFAULT_MEMORY_LIMIT_MB,
        metavar="MB",
        help="refuse a noise or simulation run estimated to need more memory; 0 = no limit "
        f"(default {DEFAULT_MEMORY_LIMIT_MB})",
    )


def _limit(args, name: str) -> float:
    value = float(getattr(args, name.replace("-", "_"), 0) or 0)
    if not math.isfinite(value) or value < 0:
        raise InputError(f"--{name} must be a finite number, 0 or more (0 = no limit)")
    return value


def check_limit_options(args) -> tuple[float, float]:
    """``--time-limit`` and ``--memory-limit`` (0 = none), checked before any work, whether
    or not this run reads them: a bad value is an error, not ignored."""
    return _limit(args, "time-limit"), _limit(args, "memory-limit")


def check_memory(args, estimate: int, what: str, shorter: str) -> None:
    """Refuse a run whose estimated peak memory (bytes, from
    :func:`responder.engine.workload.run_bytes`) exceeds ``--memory-limit``; ``shorter``
    says what else makes it smaller.

    Raises
    ------
    InputError
    """
    limit = _limit(args, "memory-limit")
    if limit and estimate > limit * MiB:
        raise InputError(
            f"{what} needs an estimated {size_text(estimate)} of memory, more than the "
            f"--memory-limit of {limit:g} MB; {shorter}, or pass --memory-limit "
            f"{math.ceil(estimate / MiB)} (0 = no limit) to run it anyway"
        )


def typed_noise(args, problem: Problem):
    """The noise settings of a typed ``--noise-eps`` (not ``auto``); None for auto or when
    the options are wrong (:func:`noise_from_args` says how)."""
    text = str(args.noise_eps).strip().lower()
    if text == "auto":
        return None
    try:
        mask = prone_mask(
            problem.n_queries,
            args.noise_prone,
            problem.query_names,
            seed=getattr(args, "seed", None),
        )
        return NoiseModel(int(text), mask, model=args.noise_model, p=_noise_p(args))
    except (ValueError, NoiseSettingsError):
        return None


def _refuse_typed_eps(
    work: Workload, seconds: float, limit: float, what: str, shorter: str, eps: int
) -> None:
    if seconds > limit:
        raise InputError(
            f"{_estimate_text(work, seconds, what, eps)}, more than the {limit:g} s "
            f"limit; use a smaller --noise-eps or {shorter}, or pass --time-limit "
            f"{enough_time(seconds)} (0 = no limit) to run it anyway"
        )


def check_noise_scale(args, problem: Problem, target: str, policy, cost, what: str, shorter: str):
    """Before the noise options are read: a typed ``--noise-eps`` is measured now and
    refused if the run cannot fit ``--time-limit``; then delta (the least Hamming
    distance, which auto eps and the eps check need) is found, unless its computation,
    estimated from its first block, alone exceeds the limit. Arguments as for
    :func:`fit_time_limit`; returns the workload measured (None for auto), for
    :func:`fit_time_limit` to reuse.

    Raises
    ------
    InputError
    """
    from responder.engine.belief import Model, TargetError  # noqa: PLC0415
    from responder.engine.policies import PolicyError  # noqa: PLC0415

    limit = _limit(args, "time-limit")
    if getattr(args, "noise_eps", None) is None or not limit:
        return None
    noise = typed_noise(args, problem)
    work = None
    if noise is not None:
        try:
            policy.check(problem)
            model = Model(problem, target, noise)
        except (TargetError, PolicyError):
            model = None  # reported later, where the target and policy are checked
        if model is not None:
            work = measure_interviews(
                model,
                policy,
                seed=getattr(args, "seed", None),
                budget_seconds=FIRST_MEASURE_SECONDS,
            )
            _refuse_typed_eps(work, cost(work), limit, what, shorter, noise.eps)
    check_delta(args, problem)
    return work


def check_delta(args, problem: Problem) -> None:
    """Find delta (the least Hamming distance between two rows, which the noise options
    need) now, unless its computation, estimated from its first block, alone exceeds
    ``--time-limit``; it is remembered for the noise options.

    Raises
    ------
    InputError
    """
    limit = _limit(args, "time-limit")
    try:
        if limit:
            min_hamming_within(problem.matrix, limit)
    except DeltaTooSlow as exc:
        raise InputError(
            f"finding delta, the least Hamming distance between two rows of this "
            f"{problem.n_objects} x {problem.n_queries} matrix (for the noise budget), is "
            f"estimated at {duration_text(exc.seconds)}, more than the {limit:g} s limit; "
            f"pass --time-limit {enough_time(exc.seconds)} (0 = no limit) to compute it"
        ) from None


def _estimate_text(work: Workload, seconds: float, what: str, eps: int) -> str:
    least = "" if work.complete else "at least "
    per = (
        f"{work.mean_questions:.0f} questions and {work.seconds_per_interview:.2f} s per interview"
        if work.complete
        else f"at least {work.mean_questions:.0f} questions of "
        f"{work.seconds_per_node:.2f} s each per interview"
    )
    return f"estimated {least}{duration_text(seconds)} for {what} at eps {eps} (measured: {per})"


def fit_time_limit(
    args,
    model,
    policy,
    cost: Callable[[Workload], float],
    what: str,
    shorter: str,
    measured: Workload | None = None,
):
    """Keep a noisy run within ``args.time_limit`` seconds.

    A few interviews are measured (:func:`measure_interviews`, under half a second) and
    ``cost`` turns the figures into the run's estimated seconds; ``shorter`` says what else
    shortens the run (``"a smaller --trials"``). Within the limit nothing changes. Past it,
    ``--noise-eps auto`` is lowered (halving) to the largest measured eps that fits, with a
    note; an eps the user typed is refused with the estimate and what to change. All the
    measuring together stays within :data:`MEASURE_SECONDS` of CPU time; ``measured`` is
    a workload already measured on the same settings (:func:`check_noise_scale`).

    Returns
    -------
    (model, workload or None, notes)

    Raises
    ------
    InputError
    """
    from responder.engine.belief import Model  # noqa: PLC0415

    noise = model.noise
    limit = _limit(args, "time-limit")
    if noise is None or limit <= 0:
        return model, None, []
    seed = getattr(args, "seed", None)
    begin = time.process_time()
    work = measured or measure_interviews(
        model, policy, seed=seed, budget_seconds=FIRST_MEASURE_SECONDS
    )
    seconds = cost(work)
    if seconds <= limit:
        return model, work, []
    if str(args.noise_eps).strip().lower() != "auto":
        _refuse_typed_eps(work, seconds, limit, what, shorter, noise.eps)
    estimate = _estimate_text(work, seconds, what, noise.eps)
    insist = f"--time-limit {enough_time(seconds)}"
    eps = noise.eps
    halvings = max(1, math.ceil(math.log2(max(eps, 1))))
    while eps > 1:
        eps //= 2
        left = MEASURE_SECONDS - (time.process_time() - begin)
        budget = max(0.05, left / halvings)
        smaller = Model(model.problem, model.target, dataclasses.replace(noise, eps=eps))
        trial = measure_interviews(smaller, policy, seed=seed, budget_seconds=budget)
        if cost(trial) <= limit:
            note = (
                f"--noise-eps auto is {noise.eps} for this matrix, {estimate}; capped at "
                f"eps {eps} (estimated {duration_text(cost(trial))}) to stay within "
                f"--time-limit {limit:g}. Pass --noise-eps {noise.eps} {insist} to run "
                "the full budget"
            )
            return smaller, trial, [note]
    raise InputError(
        f"{estimate}; even eps 1 does not fit the {limit:g} s limit: use {shorter} "
        f"or pass {insist} (0 = no limit)"
    )


def config_from_args(args, **changes) -> InterviewConfig:
    """The interview configuration the command line gives, with ``changes`` (a mode, a
    suggestion rule); InputError naming the option when a value is out of range."""
    try:
        config = InterviewConfig.from_args(args)
        return config.with_changes(**changes) if changes else config
    except ConfigError as exc:
        raise InputError(exc.cli_message()) from None


def check_route_views_apply(args, kb=None) -> None:
    """``--several-routes-share`` below 1 on a knowledge base that lists no route's contact
    signs (``[[contact_signs]]`` in consistency.toml), or on an interchange file, is refused:
    no route view is weighed there, and dropped without a word the figures would be read as
    what it asked for. Call after the value is checked (a number in [0, 1])."""
    value = getattr(args, "several_routes_share", None)
    if value is None or float(value) >= 1.0:
        return
    if kb is not None and getattr(kb, "contact_signs", ()):
        return
    what = "an interchange file" if kb is None else f"knowledge base '{kb.name}'"
    raise InputError(
        f"--several-routes-share does not apply here: {what} lists no route's contact "
        "signs ([[contact_signs]] in consistency.toml), so every victim is weighed on the "
        "whole row; leave it out, or use a knowledge base that lists them (the bundled one "
        "does)"
    )


def evidence_from_args(args, kb=None) -> EvidenceSettings:
    """The evidence settings from the command line (:func:`responder.config.
    add_evidence_arguments`) over the knowledge base's fitted answer model and with its
    per-query leaks (none for an interchange file); InputError naming the option and its
    valid range otherwise."""
    defaults = getattr(kb, "answer_model", None)
    leaks = None if kb is None else symptom_leaks(kb)
    config = config_from_args(args)
    try:
        settings = config.resolved_evidence(defaults, leaks)
    except ConfigError as exc:
        raise InputError(exc.cli_message()) from None
    check_route_views_apply(args, kb)
    return settings
