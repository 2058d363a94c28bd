"""``responder experiments``: regenerate the tables and figures of the paper's Section 7."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from responder.cli.inputs import InputError, add_kb_argument, kb_spec, seed_value
from responder.core.counted import counted

EXPERIMENTS = ("group-id", "query-groups", "noise", "diagnostic", "wiser-standin", "sensitivity")
CHOICES = (*EXPERIMENTS, "all")
DEFAULT_OUT = "experiments-out"
#: --jobs past this is refused: each job is a process, started together
MAX_JOBS = 256
#: past these a run would not end (the defaults are 100 and 1000)
MAX_DATASETS = 100_000
MAX_TRIALS = 1_000_000


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "experiments",
        help="regenerate the paper's experiments (Section 7)",
        description=(
            "Regenerate the tables and figures of Section 7: group identification (group-id), "
            "query categories (query-groups), persistent noise (noise) and the symptom "
            "correlation diagnostic (diagnostic); both WISER tables on random problems of "
            "WISER's shape (wiser-standin); the sensitivity to the paper's unknowns "
            "(sensitivity); or all of them. Writes Markdown tables, raw JSON and, when "
            "matplotlib is installed, PNG and SVG plots to --out."
        ),
    )
    p.add_argument(
        "experiment", metavar="{" + ",".join(CHOICES) + "}", help="which experiment to run"
    )
    add_kb_argument(
        p,
        help="knowledge base for the real-data tables and the default group "
        "sizes: interchange .json file, name or folder (default: bundled)",
    )
    p.add_argument(
        "--datasets",
        type=int,
        default=None,
        metavar="N",
        help="random datasets per point of the synthetic sweeps (default 100, "
        "WISER stand-in 20 per density, sensitivity 30 per cell; 3, 2, 2 "
        "with --quick)",
    )
    p.add_argument(
        "--seed",
        type=seed_value,
        default=0,
        metavar="S",
        help="seed of the whole run; results do not depend on --jobs (default 0)",
    )
    p.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"output folder, created if needed (default {DEFAULT_OUT})",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="small grids and few datasets/interviews: under a minute (for CI)",
    )
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument(
        "--trials",
        type=int,
        default=None,
        metavar="N",
        help="simulated interviews per random dataset for Monte Carlo policies "
        "(default 1000, WISER stand-in 300, sensitivity 200; 100, 50, 30 "
        "with --quick)",
    )
    p.add_argument(
        "--prior",
        choices=("uniform", "kb"),
        default="uniform",
        help="prior over the knowledge base's chemicals in its tables: uniform, as "
        "the paper's WISER tables assume (default), or the knowledge base's "
        "own default",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(handler=run)


def _check_out(path: Path) -> Path:
    if path.exists() and not path.is_dir():
        raise InputError(
            f"--out {path}: this is a file, not a folder; give a folder for the tables and "
            "plots (it is created if needed)"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {path}: cannot create the folder ({exc.strerror})") from None
    if not path.is_dir():
        raise InputError(f"--out {path}: not a folder")
    probe = path / f".write-test-{os.getpid()}"
    try:
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise InputError(f"--out {path}: the folder is not writable ({exc.strerror})") from None
    return path


def run(args) -> int:
    if args.experiment not in CHOICES:
        raise InputError(
            f"unknown experiment {args.experiment!r}; choose one of {', '.join(CHOICES)}"
        )
    if args.datasets is not None and not 1 <= args.datasets <= MAX_DATASETS:
        raise InputError(f"--datasets must be from 1 to {MAX_DATASETS:,}, got {args.datasets}")
    if not 1 <= args.jobs <= MAX_JOBS:
        raise InputError(
            f"--jobs must be from 1 to {MAX_JOBS} (this machine has {os.cpu_count() or 1} "
            f"CPUs), got {args.jobs}"
        )
    if args.trials is not None and not 1 <= args.trials <= MAX_TRIALS:
        raise InputError(f"--trials must be from 1 to {MAX_TRIALS:,}, got {args.trials}")
    if not args.out.strip():
        raise InputError(
            "--out is empty; give the folder for the tables and plots (default experiments-out)"
        )
    out = _check_out(Path(args.out))

    # Heavy imports only once the arguments are known to be good.
    from responder.cli.inputs import load_problem  # noqa: PLC0415
    from responder.experiments import (  # noqa: PLC0415
        diagnostic,
        group_id,
        noise,
        query_groups,
        sensitivity,
        wiser_standin,
    )
    from responder.experiments.common import Context  # noqa: PLC0415
    from responder.experiments.datasets import sizes_from_problem  # noqa: PLC0415
    from responder.experiments.report import md_table, pyplot, write_json, write_text  # noqa: PLC0415
    from responder.experiments.settings import Settings  # noqa: PLC0415

    kw = {"seed": args.seed, "jobs": args.jobs, "progress": not args.no_progress}
    if args.datasets is not None:
        kw["datasets"] = kw["standin_datasets"] = kw["sens_datasets"] = args.datasets
    if args.trials is not None:
        kw["random_trials"] = kw["qg_trials"] = kw["standin_trials"] = args.trials
        kw["sens_trials"] = args.trials
    settings = Settings.quick_preset(**kw) if args.quick else Settings.full(**kw)

    kb_problem, kb_note = None, ""
    if kb_spec(args) is not None:
        kb_problem, _ = load_problem(kb_spec(args))  # an explicit --kb must load
        kb_label = f"knowledge base {kb_spec(args)}"
    else:
        kb_label = "bundled knowledge base"
        try:
            kb_problem, _ = load_problem(None)
        except Exception as exc:  # noqa: BLE001 (the bundled KB may be mid-edit; go on without)
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            kb_note = f"the bundled knowledge base did not load ({first})"
            print(
                f"responder: warning: {kb_note}; knowledge-base tables are skipped and the "
                "random datasets use fixed group sizes",
                file=sys.stderr,
            )
    if kb_problem is not None and kb_problem.n_objects < 2:
        kb_note = f"the knowledge base has only {counted(kb_problem.n_objects, 'chemical')}"
        print(f"responder: warning: {kb_note}; knowledge-base tables are skipped", file=sys.stderr)
        kb_problem = None
    if kb_problem is not None and args.prior == "uniform":
        kb_problem = kb_problem.with_prior(None)  # the paper's tables: every chemical alike
    sizes = sizes_from_problem(kb_problem, kb_note)
    plt = pyplot()
    if plt is None:
        print(
            "responder: matplotlib is not installed: writing tables and JSON only "
            "(install the 'plots' extra for figures)",
            file=sys.stderr,
        )
    ctx = Context(
        settings=settings,
        out=out,
        kb=kb_problem,
        kb_label=kb_label,
        kb_note=kb_note,
        sizes=sizes,
        plt=plt,
    )

    modules = {
        "group-id": group_id,
        "query-groups": query_groups,
        "noise": noise,
        "diagnostic": diagnostic,
        "wiser-standin": wiser_standin,
        "sensitivity": sensitivity,
    }
    chosen = [
        e
        for e in ("diagnostic", "wiser-standin", "sensitivity", "noise", "group-id", "query-groups")
        if args.experiment in (e, "all")
    ]
    timings, figures = {}, {}
    for name in chosen:
        start = time.perf_counter()
        data = modules[name].run(ctx)
        timings[name] = round(time.perf_counter() - start, 2)
        figures[name] = data.get("figures", [])
    meta = {
        "command": "responder experiments "
        + " ".join(sys.argv[2:] if len(sys.argv) > 2 else [args.experiment]),
        "experiments": chosen,
        "settings": settings.to_dict(),
        "jobs": args.jobs,
        "sizes": sizes.to_dict(),
        "kb": kb_label if kb_problem is not None else None,
        "kb_note": kb_note or None,
        "plots": plt is not None,
        "seconds": timings,
    }
    write_json(out / "run.json", meta)
    lines = [
        "# Experiments of Section 7\n",
        f"Seed {settings.seed}, {'quick' if settings.quick else 'full'} settings, "
        f"{settings.datasets} datasets per point. Random-dataset sizes: "
        f"{sizes.n_objects} x {sizes.n_queries} ({sizes.source}).\n",
    ]
    if kb_note:
        lines.append(f"Knowledge base: {kb_note}.\n")
    lines.append(
        md_table(
            ["experiment", "tables", "figures", "seconds"],
            [
                [
                    n,
                    f"[{n}.md]({n}.md)",
                    ", ".join(f for f in figures[n] if f.endswith(".png")) or "–",
                    timings[n],
                ]
                for n in chosen
            ],
        )
    )
    if plt is None:
        lines.append("\nmatplotlib is not installed: no figures were drawn.\n")
    for name in chosen:
        lines.append("\n---\n")
        lines.append((out / f"{name}.md").read_text(encoding="utf-8"))
    write_text(out / "index.md", "\n".join(lines))
    total = sum(timings.values())
    print(
        f"wrote {counted(len(chosen), 'experiment')} to {out} in {total:.1f}s: "
        + ", ".join(f"{n} {t:.1f}s" for n, t in timings.items())
    )
    return 0
