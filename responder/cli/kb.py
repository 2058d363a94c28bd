"""``responder kb check | info | gaps | import | validate | steps``: the knowledge-base commands.

:func:`register` adds them to the program's argparse sub-parsers. Each sub-command sets
``handler=<function(args) -> int>``; the program calls ``args.handler(args)`` and exits with
what it returns: 0 when all is well, 2 on any validation error (the message goes to stderr,
never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

import numpy as np

from responder.cli.inputs import InputError, check_route_views_apply, config_from_args
from responder.config import add_evidence_arguments
from responder.core.counted import counted
from responder.engine import diagnostics as dg
from responder.engine.belief import Model
from responder.engine.evaluate import bounds
from responder.kb.csv_import import import_csv
from responder.kb.gaps import CategoryGap, Gaps, find_gaps
from responder.kb.grades import bundled_grades
from responder.kb.loader import BUNDLED_NAME
from responder.kb.model import DEFAULT_PRIOR_MODE, KBError, KnowledgeBase, UnknownChemicalError
from responder.kb.next_steps import format_steps_text, load_next_steps, steps_for
from responder.kb.resolve import resolve_kb
from responder.paths import user_kb_dir

EXIT_OK = 0
EXIT_INVALID = 2
#: chemicals the `kb gaps` most-gaps list shows unless --limit says otherwise
GAPS_LIMIT = 20

#: How ``kb info`` names each prior mode.
PRIOR_TEXT = {
    "chemical": "per chemical",
    "class": "per class",
    "split": "per class for the class, per chemical for the chemical",
}


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``kb`` command and its sub-commands to ``subparsers``; returns the ``kb`` parser.

    ``--kb NAME|PATH`` is accepted on ``kb`` and on each sub-command, and a positional PATH
    wins over it. Its default is SUPPRESS so that a program-wide ``--kb`` (dest ``kb``) given
    before ``kb`` is not overwritten.
    """
    kb = subparsers.add_parser(
        "kb",
        help="check, describe or import knowledge bases",
        description="Check, describe or import knowledge bases (symptoms, classes, chemicals).",
    )
    _kb_option(kb)
    sub = kb.add_subparsers(title="commands", metavar="COMMAND")
    kb.set_defaults(handler=lambda args: _no_command(sub))

    check = sub.add_parser(
        "check",
        help="validate a knowledge base and report every problem with its file and line",
        description="Validate a knowledge base. Prints a one-line summary when it is valid; "
        "otherwise lists every problem as file:line: what is wrong — how to fix it, and exits 2.",
    )
    _path_argument(check)
    _kb_option(check)
    check.add_argument(
        "--strict",
        action="store_true",
        help="apply the bundled knowledge base's rules (CAS required, sources "
        "from ATSDR MMG, NIOSH NPG, CDC ERSH-DB or CHEMM) to any knowledge base",
    )
    check.set_defaults(handler=cmd_check)

    info = sub.add_parser(
        "info",
        help="counts, indistinguishable chemicals, entropies and noise tolerance",
        description="Describe a knowledge base: sizes, chemicals that share one symptom "
        "profile, entropy bounds, the minimum Hamming distance and the wrong answers it "
        "tolerates, and the paper's Section 7.1.2 gamma diagnostic per symptom.",
    )
    _path_argument(info)
    _kb_option(info)
    info.add_argument("--json", action="store_true", help="print one JSON object")
    info.set_defaults(handler=cmd_info)

    gaps = sub.add_parser(
        "gaps",
        help="what the sources leave unsaid: scene categories with no cell, unverified cells",
        description="List what a knowledge base leaves unsaid, for the next source pass: "
        "per scene category, the chemicals with no cell in it (their answers there barely "
        "move them); per chemical, the cells no agency document supports (counted as "
        "occasional), split into those no document names and those only a supplementary "
        "one does. Most gaps first.",
    )
    _path_argument(gaps)
    _kb_option(gaps)
    gaps.add_argument(
        "--category",
        metavar="ID",
        help="list every chemical with no cell in this scene category (e.g. onset, setting)",
    )
    gaps.add_argument(
        "--chemical",
        metavar="NAME",
        help="every gap of one chemical (its id, name or CAS number)",
    )
    gaps.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help=(
            f"chemicals shown in the most-gaps list (default {GAPS_LIMIT}) or, with "
            "--category, in that category's list (default all)"
        ),
    )
    gaps.add_argument("--json", action="store_true", help="print one JSON object with every gap")
    gaps.set_defaults(handler=cmd_gaps)

    imp = sub.add_parser(
        "import",
        help="import a wide CSV (name,class,<symptom>,...) as a named knowledge base",
        description="Import a wide CSV: header name,class,<symptom 1>,<symptom 2>,... (optional "
        "cas, un, source columns), one row per chemical with 0/1 cells, and an optional second "
        "row starting with 'category'. Cells may be separated by commas, semicolons or tabs (the "
        "header row's separator is used, or the one an Excel first line sep=; names). It is "
        "validated and stored as NAME; use it with --kb NAME.",
    )
    imp.add_argument("csv_file", metavar="FILE.csv", help="the CSV file")
    imp.add_argument("--name", help="name to store it under (default: the file name's slug)")
    imp.add_argument(
        "--source",
        metavar="TEXT",
        help="source for rows without a source cell (default: 'Imported from FILE')",
    )
    imp.add_argument(
        "--replace",
        action="store_true",
        help="overwrite an imported knowledge base of the same name",
    )
    imp.set_defaults(handler=cmd_import)

    val = sub.add_parser(
        "validate",
        help="answer published case vignettes through an interview in each mode "
        "and report top-1, top-5 and class accuracy",
        description="Run each case vignette (a published incident or case report: agent, "
        "citation, signs present or absent) through an interview in each mode, as the app "
        "runs it: the scene step first (the scene facts the case states present are ticked), "
        "then the simulated responder answers each suggested question from the case: present "
        "-> yes, absent -> no, not mentioned -> can't tell (an exclusive group in one answer). "
        "Prints top-1, top-5 and class accuracy per mode, with and without the scene facts, and "
        "each case's ranks.",
    )
    val.add_argument(
        "cases",
        nargs="?",
        metavar="CASES",
        help="a folder of case .toml files, or one file (default: the bundled cases, which "
        "use the bundled knowledge base's ids; give cases of your own for another)",
    )
    _kb_option(val)
    val.add_argument(
        "--mode",
        action="append",
        metavar="NAME",
        dest="modes",
        help="run only this mode (repeatable; default: every mode)",
    )
    val.add_argument(
        "--eps",
        default=None,
        metavar="N",
        help="wrong answers the persistent-noise mode tolerates (default: 2)",
    )
    val.add_argument(
        "--prior",
        default=None,
        metavar="chemical|class|split",
        help="prior over chemicals: uniform per chemical, equal per class, or split (equal "
        "per class for the class, per chemical for the chemical; the default)",
    )
    add_evidence_arguments(val, bundled_grades())
    val.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object with the summaries and every case's answers",
    )
    val.set_defaults(handler=cmd_validate)

    steps = sub.add_parser(
        "steps",
        help="the next steps the result screen shows for one chemical",
        description="Print what to do next for one chemical, as the result screen shows it: "
        "first aid, decontamination, antidote or specific treatment and protective equipment, "
        "each with its source document (title and address), and the poison-centre line.",
    )
    steps.add_argument(
        "name",
        metavar="NAME",
        help="the chemical's id, name, CAS number, or its name without or within brackets "
        '("sarin", "GB", "sarin_gb")',
    )
    _kb_option(steps)
    steps.add_argument("--json", action="store_true", help="print one JSON object")
    steps.set_defaults(handler=cmd_steps)
    return kb


def _kb_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kb",
        metavar="NAME|PATH",
        default=argparse.SUPPRESS,
        help="knowledge base: 'bundled' (default), an imported NAME, a folder or a .csv file",
    )


def _path_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "kb_path",
        nargs="?",
        metavar="PATH",
        help="knowledge-base folder, .csv file or imported NAME (wins over --kb)",
    )


def _no_command(sub) -> int:
    """``responder kb`` alone: one line naming the commands (the program's error style)."""
    print(
        f"responder: error: kb needs a command: {', '.join(sub.choices)} "
        "(see `responder kb --help`)",
        file=sys.stderr,
    )
    return EXIT_INVALID


def _spec(args) -> str | None:
    path = getattr(args, "kb_path", None)
    return path if path is not None else getattr(args, "kb", None)


def _fail(exc: Exception) -> int:
    if isinstance(exc, KBError):
        print(str(exc), file=sys.stderr)
        n = len(exc.issues)
        if n > 1:
            print(f"{n} problems found.", file=sys.stderr)
    else:  # OSError: a file vanished or is unreadable mid-way
        print(f"responder: error: {exc}", file=sys.stderr)
    return EXIT_INVALID


def _print_warnings(kb: KnowledgeBase) -> None:
    for w in kb.warnings:
        print(str(w), file=sys.stderr)


# --- check ------------------------------------------------------------------------------


def observation_counts(kb: KnowledgeBase) -> str:
    """'N observations (S signs, C scene)' or 'N symptoms' for a knowledge base without scene."""
    scene = sum(s.kind == "scene" for s in kb.symptoms)
    if not scene:
        return counted(len(kb.symptoms), "symptom")
    signs = counted(len(kb.symptoms) - scene, "sign")
    return f"{counted(len(kb.symptoms), 'observation')} ({signs}, {scene} scene)"


def summary_line(kb: KnowledgeBase) -> str:
    """One line: what was loaded and how big it is."""
    used = len({c.class_id for c in kb.chemicals})
    return (
        f"OK: knowledge base {kb.name!r} ({kb.origin}): {counted(len(kb.chemicals), 'chemical')}"
        f" in {used} of {counted(len(kb.classes), 'class', 'classes')}, "
        f"{observation_counts(kb)} in {counted(len(kb.categories), 'category', 'categories')}, "
        f"{counted(len(kb.warnings), 'warning')}"
    )


def _check_next_steps(kb: KnowledgeBase) -> None:
    """Read the knowledge base's next_steps.toml as the result screen does; KBError lists
    every problem in it (the screen shows none of its steps then)."""
    origin = Path(str(kb.origin))
    if kb.name == BUNDLED_NAME:
        load_next_steps(kb)
    elif origin.is_dir():
        load_next_steps(kb, origin)


def cmd_check(args) -> int:
    """``responder kb check [PATH] [--strict]``."""
    try:
        kb = resolve_kb(_spec(args), strict=True if args.strict else None)
        _check_next_steps(kb)
    except (KBError, OSError) as exc:
        return _fail(exc)
    print(summary_line(kb))
    _print_warnings(kb)
    return EXIT_OK


# --- info -------------------------------------------------------------------------------


def info_report(kb: KnowledgeBase) -> dict:
    """Everything ``kb info`` shows, as plain JSON-ready data.

    Keys: name, origin, digest, chemicals, symptoms (every observation, signs and scene),
    scene_observations, observation_list [{id, label, category, kind, synonyms}], categories,
    classes, source_checked,
    prior ("uniform" or "weighted": whether any chemical gives a prior weight), prior_mode
    (the default of :meth:`KnowledgeBase.prior_vector`; the entropies use its class prior
    under "split", as the paper's modes do),
    chemical_list [{id, name, cas, mixture, un, class, source_checked, sources, evidence [{title, url,
    symptoms}], symptoms}], checked_per_class {id: [checked, all]}, per_category {id: n symptoms}, per_class
    {id: n chemicals}, distinguishable_profiles, identical_sets (lists of names sharing one
    profile), entropy H(P) and group_entropy H(P_y) in bits, entropy_bound and
    group_entropy_bound (the lower bounds on the expected questions, as ``eval`` reports them:
    chemicals sharing one profile merged, since no question separates them), min_hamming (delta between
    distinct profiles, 0 if fewer than two), eps, gamma [{id, gamma_w, gamma_b,
    in_gain_region}], gain_region {definition, gamma_w_min, gamma_b_max},
    gain_region_count, warnings [str].
    """
    B = kb.matrix
    weights = kb.weights
    prior = kb.prior_vector(DEFAULT_PRIOR_MODE)
    names = [c.name for c in kb.chemicals]
    class_of = [c.class_id for c in kb.chemicals]
    sets = dg.profile_sets(B)
    delta = dg.min_hamming_distance(B)
    gamma_w, gamma_b = dg.estimate_gammas(B, class_of)
    region = dg.in_gain_region(gamma_w, gamma_b)
    return {
        "name": kb.name,
        "origin": kb.origin,
        "digest": kb.digest,
        "chemicals": len(kb.chemicals),
        "symptoms": len(kb.symptoms),
        "scene_observations": sum(s.kind == "scene" for s in kb.symptoms),
        "observation_list": [
            {
                "id": s.id,
                "label": s.label,
                "category": s.category,
                "kind": s.kind,
                "synonyms": list(s.synonyms),
            }
            for s in kb.symptoms
        ],
        "categories": len(kb.categories),
        "classes": len(kb.classes),
        "source_checked": sum(c.source_checked for c in kb.chemicals),
        "prior": "uniform" if np.all(weights == weights[0]) else "weighted",
        "prior_mode": DEFAULT_PRIOR_MODE,
        "chemical_list": [chemical_entry(c) for c in kb.chemicals],
        "checked_per_class": {
            c.id: [
                sum(m.source_checked for m in kb.chemicals_in_class(c.id)),
                len(kb.chemicals_in_class(c.id)),
            ]
            for c in kb.classes
        },
        "per_category": {c.id: len(kb.symptoms_in_category(c.id)) for c in kb.categories},
        "per_class": {c.id: len(kb.chemicals_in_class(c.id)) for c in kb.classes},
        "distinguishable_profiles": len(sets),
        "identical_sets": [[names[i] for i in s] for s in sets if len(s) > 1],
        "entropy": dg.entropy(prior),
        "group_entropy": dg.group_entropy_bits(prior, class_of),
        "entropy_bound": bounds(Model(kb.problem, "object"))["entropy_bound"],
        "group_entropy_bound": bounds(Model(kb.problem, "group"))["entropy_bound"],
        "min_hamming": delta,
        "eps": dg.default_eps(delta),
        "gamma": [
            {"id": s.id, "gamma_w": float(w), "gamma_b": float(b), "in_gain_region": bool(r)}
            for s, w, b, r in zip(kb.symptoms, gamma_w, gamma_b, region)
        ],
        "gain_region": {
            "definition": dg.gain_region_definition(),
            "gamma_w_min": dg.GAIN_GAMMA_W_MIN,
            "gamma_b_max": dg.GAIN_GAMMA_B_MAX,
        },
        "gain_region_count": int(region.sum()),
        "warnings": [str(w) for w in kb.warnings],
    }


def chemical_entry(chem) -> dict:
    """One chemical of ``kb info --json``'s chemical_list (symptom ids sorted)."""
    return {
        "id": chem.id,
        "name": chem.name,
        "cas": chem.cas,
        "mixture": chem.mixture,
        "un": chem.un,
        "class": chem.class_id,
        "source_checked": chem.source_checked,
        "sources": list(chem.sources),
        "evidence": [
            {"title": e.title, "url": e.url, "symptoms": sorted(e.symptoms)} for e in chem.evidence
        ],
        "symptoms": sorted(chem.symptoms),
    }


def format_info(kb: KnowledgeBase, report: dict) -> str:
    """The text ``kb info`` prints for ``report`` (from :func:`info_report`)."""
    r = report
    out = [
        f"Knowledge base {r['name']!r} ({r['origin']})",
        f"  {counted(r['chemicals'], 'chemical')} ({r['source_checked']} with sources checked), "
        f"{counted(r['classes'], 'class', 'classes')}, {observation_counts(kb)} in "
        f"{counted(r['categories'], 'category', 'categories')}; "
        f"{r['prior']} weights, prior {PRIOR_TEXT.get(r['prior_mode'], r['prior_mode'])}",
        "",
        "Observations per category:",
    ]
    out += [f"  {cid:<28} {n:>4}  {kb.category_label(cid)}" for cid, n in r["per_category"].items()]
    out += ["", "Chemicals per class:"]
    out += [f"  {cid:<28} {n:>4}  {kb.class_label(cid)}" for cid, n in r["per_class"].items()]
    out += [
        "",
        f"Distinguishable symptom profiles: {r['distinguishable_profiles']} of {r['chemicals']} "
        "chemicals",
    ]
    if r["identical_sets"]:
        out.append(
            "Chemicals sharing one identical profile (they can only be identified together):"
        )
        out += [f"  - {', '.join(s)}" for s in r["identical_sets"]]
    else:
        out.append("No two chemicals share a symptom profile.")
    delta = r["min_hamming"]
    out += [
        "",
        f"Entropy: H(P) = {r['entropy']:.3f} bits, H(P_y) = {r['group_entropy']:.3f} bits "
        "(of the class)",
        f"Lower bound on the expected questions: {r['entropy_bound']:.3f} to name the chemical, "
        f"{r['group_entropy_bound']:.3f} its class"
        + (" (chemicals sharing a profile count as one)" if r["identical_sets"] else ""),
        f"Minimum Hamming distance between distinguishable profiles: delta = {delta}"
        + ("" if r["distinguishable_profiles"] > 1 else " (fewer than two profiles)"),
        f"  eps = floor((delta - 1) / 2) = {r['eps']} wrong answer"
        f"{'' if r['eps'] == 1 else 's'} always tolerated (paper Section 6)",
        "",
        "Group-identification diagnostic (paper Section 7.1.2), per symptom:",
        "  gamma_w: how alike chemicals of one class answer (1 = all alike, 0.5 = split);",
        "  gamma_b: how alike the classes' majority answers are (1 = all alike, 0.5 = half/half).",
        "  Symptoms near gamma_w = 1, gamma_b = 0.5 keep each class whole and split the classes",
        "  about in half: there, identifying the class (GISA) gains most over GBS.",
        f"  Gain region: {r['gain_region']['definition']}.",
        f"  {r['gain_region_count']} of {r['symptoms']} symptoms fall in it.",
        "",
        f"  {'symptom':<28} {'gamma_w':>7} {'gamma_b':>7}  region",
    ]
    out += [
        f"  {g['id']:<28} {g['gamma_w']:>7.3f} {g['gamma_b']:>7.3f}  "
        + ("*" if g["in_gain_region"] else "")
        for g in r["gamma"]
    ]
    if r["warnings"]:
        out += ["", f"{len(r['warnings'])} warnings (see `responder kb check`)."]
    return "\n".join(out)


def cmd_info(args) -> int:
    """``responder kb info [PATH] [--json]``."""
    try:
        kb = resolve_kb(_spec(args))
    except (KBError, OSError) as exc:
        return _fail(exc)
    report = info_report(kb)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(format_info(kb, report))
    return EXIT_OK


# --- gaps -------------------------------------------------------------------------------


def format_gaps(report: Gaps, limit: int) -> str:
    """``kb gaps`` as text: a line per scene category, then the chemicals most gaps first."""
    n = len(report.chemicals)
    lines = [f"Knowledge base {report.name!r}: what its sources leave unsaid"]
    if report.graded:
        lines.append(
            f"  {counted(n, 'chemical')}, {n - report.unchecked} checked against their sources"
        )
        lines.append(
            f"  {report.unverified_cells} cells no agency document supports "
            f"({report.supplementary_only_cells} of them only a supplementary one does)"
        )
    else:
        lines.append(
            f"  {counted(n, 'chemical')}; no documents recorded, so every cell counts alike"
        )
        lines.append("  (none is called unverified)")
    lines += ["", "Scene categories with no cell (answers there barely move the chemical):"]
    if not report.categories:
        lines.append("  none: this knowledge base has no scene observations")
    for cat in report.categories:
        lines.append(
            f"  {cat.id:12s} {len(cat.missing):4d} of {cat.chemicals} chemicals  {cat.label}"
        )
    ranked = report.most_missing()
    shown = ranked[:limit]
    lines += ["", f"Most gaps first ({len(shown)} of {len(ranked)} chemicals with a gap):"]
    if not shown:
        lines.append("  none")
    else:
        lines.append(f"  {'chemical':32s} {'unverified':>10s}  no cell in")
    for chem in shown:
        name = chem.name if len(chem.name) <= 32 else chem.name[:31] + "~"
        lines.append(
            f"  {name:32s} {len(chem.unverified):10d}  {', '.join(chem.unrecorded) or '-'}"
        )
    lines += [
        "",
        "One category in full: --category ID; one chemical: --chemical NAME; all: --json.",
    ]
    return "\n".join(lines)


def format_category_gap(report: Gaps, cat: CategoryGap, limit: int | None = None) -> str:
    names = {c.id: c for c in report.chemicals}
    lines = [
        f"{len(cat.missing)} of {cat.chemicals} chemicals have no {cat.id} cell ({cat.label}):"
    ]
    shown = cat.missing if limit is None else cat.missing[:limit]
    lines += [f"  {cid:32s} {names[cid].name} [{names[cid].class_id}]" for cid in shown]
    if len(shown) < len(cat.missing):
        lines.append(f"  ... and {len(cat.missing) - len(shown)} more (--limit N shows N)")
    return "\n".join(lines)


def format_chemical_gaps(chem) -> str:
    def line(label: str, values) -> str:
        text = f"  {label}: {', '.join(values) if values else 'none'}"
        return textwrap.fill(text, width=80, subsequent_indent="    ", break_on_hyphens=False)

    checked = "checked" if chem.source_checked else "not checked"
    return "\n".join(
        [
            f"{chem.name} ({chem.id}), {chem.class_id}: {checked} against its sources",
            line("no cell in", chem.unrecorded),
            line("no document supports", chem.no_document),
            line("only a supplementary document supports", chem.supplementary_only),
        ]
    )


def cmd_gaps(args) -> int:
    """``responder kb gaps [PATH] [--category ID | --chemical NAME] [--limit N] [--json]``."""
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit is {args.limit}; give a whole number of at least 1")
    for flag, value, what in (
        ("--category", args.category, "a scene category id (e.g. onset)"),
        ("--chemical", args.chemical, "a chemical's id, name or CAS number"),
    ):
        if value is not None and not value.strip():
            raise InputError(f"{flag} is empty; give {what}, or leave it out for every gap")
    if args.category and args.chemical:
        raise InputError("give --category or --chemical, not both")
    if args.limit is not None and (args.chemical or args.json):
        given = "--chemical" if args.chemical else "--json"
        raise InputError(f"--limit shortens a list; {given} shows every gap, without it")
    try:
        kb = resolve_kb(_spec(args))
    except (KBError, OSError) as exc:
        return _fail(exc)
    report = find_gaps(kb)
    category = report.category(args.category) if args.category else None
    if args.category and category is None:
        valid = ", ".join(c.id for c in report.categories) or "none (no scene categories)"
        raise InputError(f"no scene category {args.category!r}; valid choices are: {valid}")
    chem = None
    if args.chemical:
        try:
            chem = report.chemicals[kb.resolve_chemical(args.chemical).index]
        except UnknownChemicalError as exc:
            raise InputError(str(exc)) from None
    if args.json:
        print(json.dumps((category or chem or report).to_dict(), indent=2, ensure_ascii=False))
    elif category is not None:
        print(format_category_gap(report, category, args.limit))
    elif chem is not None:
        print(format_chemical_gaps(chem))
    else:
        print(format_gaps(report, GAPS_LIMIT if args.limit is None else args.limit))
    return EXIT_OK


# --- import -----------------------------------------------------------------------------


def cmd_import(args) -> int:
    """``responder kb import FILE.csv [--name NAME] [--source TEXT] [--replace]``."""
    if getattr(args, "kb", None) is not None:
        raise InputError(
            f"--kb {args.kb} does not apply to kb import, which stores the CSV as a new "
            "knowledge base (--name NAME); leave --kb out, and use --kb NAME with the "
            "commands that read it"
        )
    if not args.csv_file.strip():
        raise InputError(
            "the CSV file is given as an empty path — give the path of the CSV file to import"
        )
    try:
        kb, folder = import_csv(
            args.csv_file, name=args.name, source=args.source, replace=args.replace
        )
    except KBError as exc:
        return _fail(exc)
    except OSError as exc:  # the CSV was read and checked: storing it failed
        raise InputError(
            f"the knowledge base could not be stored in {user_kb_dir()}: "
            f"{exc.strerror or exc}{f' ({exc.filename})' if exc.filename else ''}; make that "
            "folder writable (a file in its place must move), or set RESPONDER_HOME to a "
            "folder that is"
        ) from None
    print(
        f"Imported {counted(len(kb.chemicals), 'chemical')} in "
        f"{counted(len(kb.classes), 'class', 'classes')} with "
        f"{counted(len(kb.symptoms), 'symptom')} as {kb.name!r} into {folder}"
    )
    print(f"Use it with --kb {kb.name}")
    _print_warnings(kb)
    return EXIT_OK


# --- validate ---------------------------------------------------------------------------


def _validation_settings(val, args):
    """The run's settings; an InputError naming the option when one is out of range."""
    config = config_from_args(args)
    try:
        return val.make_settings(config, prior=args.prior)
    except ValueError as exc:
        raise InputError(f"--prior: {exc}") from None


def _bundled_cases_do_not_fit(kb: KnowledgeBase, exc: KBError) -> str:
    """One message for the bundled cases run on another knowledge base whose ids they do
    not use, in place of one line per case line."""
    files = {issue.file for issue in exc.issues}
    origin = Path(str(kb.origin))
    return (
        f"the bundled cases are written for the bundled knowledge base: {counted(len(files), 'case file')} "
        f"name classes or symptoms that knowledge base '{kb.name}' lacks (first: "
        f"{exc.issues[0].problem}); give a folder of cases written for it: "
        f"responder kb validate CASES --kb {kb.name}"
        + (f", or put them in {origin / 'cases'}" if origin.is_dir() else "")
    )


def _check_validate_options_apply(val, args, modes: list[str]) -> None:
    """An option none of the modes run reads is an error, not dropped without a word: the
    report would be read as what it asked for."""
    from responder.engine.evidence import EvidenceSettings  # noqa: PLC0415

    answer_models = {val.MODES[m].mode for m in modes}
    chosen = ", ".join(modes)
    if args.eps is not None and "noise" not in answer_models:
        noise_modes = [name for name, mode in val.MODES.items() if mode.mode == "noise"]
        raise InputError(
            f"--eps applies only to the persistent-noise mode ({', '.join(noise_modes)}), and "
            f"--mode runs {chosen}; add --mode {noise_modes[0]}, or leave --eps out"
        )
    if getattr(args, "pick", None) is not None:
        raise InputError(
            "--pick applies only to category suggestions, and kb validate asks one symptom at a "
            "time in every mode; leave it out"
        )
    given = [
        "--" + key.replace("_", "-")
        for key in EvidenceSettings.KEYS
        if key != "pick" and getattr(args, key, None) is not None
    ]
    if given and "evidence" not in answer_models:
        evidence_modes = [name for name, mode in val.MODES.items() if mode.mode == "evidence"]
        raise InputError(
            f"{' and '.join(given)} {'applies' if len(given) == 1 else 'apply'} only to the "
            f"evidence modes ({', '.join(evidence_modes)}), and --mode runs {chosen}; add "
            f"--mode {evidence_modes[0]}, or leave {'it' if len(given) == 1 else 'them'} out"
        )


def cmd_validate(args) -> int:
    """``responder kb validate [CASES] [--kb ...] [--mode NAME]... [--eps N] [--json]``."""
    from responder.core import validation as val  # noqa: PLC0415 (numpy work only when asked)
    from responder.kb.cases import default_cases, load_cases  # noqa: PLC0415

    if args.cases is not None and not args.cases.strip():
        raise InputError(
            "CASES is empty; give a folder of case .toml files or one file, or leave it out "
            "for the bundled cases"
        )
    settings = _validation_settings(val, args)
    try:
        modes = val.check_modes(args.modes)
    except ValueError as exc:
        raise InputError(f"--mode: {exc}") from None
    _check_validate_options_apply(val, args, modes)
    try:
        kb = resolve_kb(getattr(args, "kb", None))
    except (KBError, OSError) as exc:
        return _fail(exc)
    check_route_views_apply(args, kb)
    # no CASES: the knowledge base's own cases/ folder, else the bundled cases (said so)
    cases_path, note = (args.cases, None) if args.cases is not None else default_cases(kb)
    try:
        cases, warnings = load_cases(cases_path, kb)
    except KBError as exc:
        if note is not None:
            raise InputError(_bundled_cases_do_not_fit(kb, exc)) from None
        return _fail(exc)
    except OSError as exc:
        return _fail(exc)
    if note is not None:
        print(note, file=sys.stderr)
    for w in warnings:
        print(str(w), file=sys.stderr)
    report = val.validate(kb, cases, modes, settings, cases_from=Path(cases_path).expanduser())
    if args.json:
        print(json.dumps(val.report_json(report), indent=2, ensure_ascii=False))
    else:
        print(val.format_report(report))
    return EXIT_OK


# --- steps ------------------------------------------------------------------------------


def cmd_steps(args) -> int:
    """``responder kb steps NAME [--kb ...] [--json]``."""
    if not args.name.strip():
        raise InputError(
            "NAME is empty; give a chemical id, name or CAS number "
            "(`responder kb info --json` lists them)"
        )
    try:
        kb = resolve_kb(getattr(args, "kb", None))
    except (KBError, OSError) as exc:
        return _fail(exc)
    try:
        chem = kb.resolve_chemical(args.name)
    except UnknownChemicalError as exc:
        raise InputError(str(exc)) from None
    next_steps = steps_for(kb)
    if next_steps.problem:
        raise InputError(next_steps.problem)
    steps = next_steps.for_chemicals([chem])
    if args.json:
        chemical = {
            "id": chem.id,
            "name": chem.name,
            "cas": chem.cas,
            "class": chem.class_id,
            "class_label": kb.class_label(chem.class_id),
        }
        print(json.dumps({"chemical": chemical, **steps.to_dict()}, indent=2, ensure_ascii=False))
    else:
        print(f"{chem.name} ({chem.id}), {kb.class_label(chem.class_id)}")
        print(format_steps_text(steps, chem.name))
    return EXIT_OK
