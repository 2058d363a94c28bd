"""``responder incidents list | show | export``: the incidents kept in the incident database.

Every interview of the app (and of ``responder interview --jsonl --save``) is stored as an
incident: its victims, every answer in order with its time, its settings and how it ended.
These commands read them; they never change an incident.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime

from responder.cli.inputs import InputError
from responder.core.counted import counted
from responder.paths import UnsafePathError

#: ``list`` names the most likely chemical for this many of the incidents it lists.
TOP_FOR_NEWEST = 100
#: ``list`` (text) shows this many of the newest incidents unless told otherwise.
LIST_PAGE = 100
STATUS_WORDS = {
    "open": "open",
    "live": "open in another window",
    "completed": "completed",
    "new": "ended (new interview)",
    "set-aside": "set aside",
}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "incidents",
        help="list, show or export the stored incidents (interviews)",
        description=(
            "The incidents kept in the incident database: every interview of the app and "
            "of `interview --jsonl --save`, with its victims and every answer."
        ),
    )
    sub = p.add_subparsers(title="commands", metavar="COMMAND")
    p.set_defaults(handler=lambda args: _no_command(p))

    listing = sub.add_parser(
        "list",
        help="every incident, newest first",
        description="The incidents, newest first: id, start, knowledge base, number (No., "
        "which show and export take as ID too), victims, "
        f"answers, status and, for the first {TOP_FOR_NEWEST} listed, the most likely "
        f"chemical (`show` gives it for any one). The table shows the newest {LIST_PAGE} "
        "unless --limit or --all says otherwise; --json lists every incident unless "
        "--limit does. Only the incidents listed are read.",
    )
    listing.add_argument("--json", action="store_true", help="print one JSON array")
    listing.add_argument(
        "--limit",
        type=_count_arg,
        default=None,
        metavar="N",
        help=f"list the N newest (after --skip); default {LIST_PAGE} for the table, all for --json",
    )
    listing.add_argument(
        "--skip", type=_count_arg, default=0, metavar="N", help="leave out the N newest"
    )
    listing.add_argument("--all", action="store_true", help="list every incident")
    _kb_option(listing)
    listing.set_defaults(handler=cmd_list)

    show = sub.add_parser(
        "show",
        help="one incident: its settings, victims and every answer in order",
        description="One incident: its settings, its victims and every answer in the order "
        "given, with times. ID is an incident id (or its number, or the start of an id).",
    )
    show.add_argument("id", metavar="ID", help="incident id, number or start of an id")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    _kb_option(show)
    show.set_defaults(handler=cmd_show)

    export = sub.add_parser(
        "export",
        help="write an incident's report (Markdown and/or JSON) to the exports folder",
        description="Write the report of one incident, as the app's export does, to the "
        "exports folder of the data folder; prints the path of each file written.",
    )
    export.add_argument("id", metavar="ID", help="incident id, number or start of an id")
    export.add_argument(
        "--format",
        choices=("md", "json"),
        default=None,
        help="only this format (default: both)",
    )
    _kb_option(export)
    export.set_defaults(handler=cmd_export)


def _kb_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kb",
        metavar="NAME|PATH",
        default=argparse.SUPPRESS,
        help="knowledge base to read the incidents with (default: the one each was "
        "recorded on, when it is available unchanged)",
    )


def _count_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 10**9 or not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 0 to {10**9:,}")
    return value


def _no_command(parser: argparse.ArgumentParser) -> int:
    raise InputError(
        f"incidents needs a command: list, show or export (see `{parser.prog} --help`)"
    )


# -- reading ---------------------------------------------------------------------------------


def _notes(notices: list[str]) -> None:
    for notice in notices:
        print(f"responder: note: {notice}", file=sys.stderr)


class _Knowledge:
    """Knowledge bases loaded once each, to read incidents with."""

    def __init__(self, spec: str | None):
        self.spec = spec
        self.loaded: dict[str, object] = {}
        if spec is not None and not hasattr(self._load(spec), "problem"):
            raise InputError(str(self._load(spec)))  # a bad --kb is said even with no incident

    def _load(self, spec: str | None):
        key = spec or "bundled"
        if key not in self.loaded:
            from responder.kb.resolve import KnowledgeError, load_knowledge  # noqa: PLC0415

            try:
                self.loaded[key] = load_knowledge(spec)
            except KnowledgeError as exc:
                self.loaded[key] = exc
        return self.loaded[key]

    def recorded(self, data):
        """The knowledge base the incident was recorded on (``--kb`` when given), or None
        when it is not available unchanged."""
        if self.spec is not None:
            return self._load(self.spec)
        from responder.kb.resolve import available_kbs  # noqa: PLC0415

        name = data.kb.get("name")
        if not name or name not in available_kbs():
            return None
        kb = self._load(name)
        if not hasattr(kb, "problem") or kb.digest != data.kb.get("digest"):
            return None
        return kb

    def for_export(self, data):
        """:meth:`recorded`, else the settings' knowledge base (the report then says the
        knowledge base changed)."""
        kb = self.recorded(data)
        if kb is not None:
            return kb
        from responder.settings import SettingsError, load_settings  # noqa: PLC0415

        try:
            spec = load_settings().kb
        except SettingsError:
            spec = None
        kb = self._load(spec)
        if not hasattr(kb, "problem"):
            kb = self._load(None)
        if not hasattr(kb, "problem"):
            raise InputError(str(kb))
        return kb


def _find(key: str):
    from responder.core.store import StoreError, find_incident  # noqa: PLC0415
    from responder.kb.fields import shown  # noqa: PLC0415

    key = key.strip()  # an id or number pasted with the blanks around it
    if not key:
        # the start of every id: it named whichever incident was alone
        raise InputError(
            "the incident ID is empty; give its id, its number or the start of its id "
            "(see `responder incidents list`)"
        )
    try:
        data, notices = find_incident(key)
    except StoreError as exc:
        raise InputError(str(exc)) from None
    _notes(notices)
    if data is None:
        raise InputError(f"no incident '{shown(key)}' (see `responder incidents list`)")
    return data


def _interview(data, kb):
    """A read-only interview rebuilt from the incident, and its warnings."""
    from responder.core.session import Interview  # noqa: PLC0415

    return Interview.resume(kb, data, write=False)


def _top(data, kb) -> dict | None:
    if kb is None or not data.answers:
        return None
    from responder.core import views  # noqa: PLC0415

    try:
        interview, _ = _interview(data, kb)
        return {"text": views.top_candidate(interview), "status": interview.status.value}
    except Exception:  # noqa: BLE001 (one unreadable incident must not stop the listing)
        return None


def _iso(at: float | None) -> str | None:
    if at is None:
        return None
    try:
        return datetime.fromtimestamp(at, tz=UTC).astimezone().isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return None


def _status(data) -> str:
    from responder.core.store import is_live_elsewhere  # noqa: PLC0415
    from responder.paths import incident_db  # noqa: PLC0415

    if not data.finished and is_live_elsewhere(incident_db(), data.number):
        return "live"
    return data.status


def _label(index: int, name: str) -> str:
    return f"Victim {index + 1}" + (f" ({name})" if name else "")


def _answer_json(a, kb) -> dict:
    out = {"symptom": a.symptom, "answer": a.answer, "at": _iso(a.at), "volunteered": a.volunteered}
    if kb is not None:
        j = kb.symptom_index(a.symptom)
        out["label"] = kb.symptoms[j].label if j is not None else None
    return out


def _incident_json(data, kb) -> dict:
    from responder.core.export import NO_ANSWERS  # noqa: PLC0415

    names = data.victim_names()
    given: dict[int, list[dict]] = {v: [] for v in range(-1, len(names))}
    for a in data.answers:
        given[a.victim].append(_answer_json(a, kb))
    return {
        "id": data.id,
        "number": data.number,
        "started": _iso(data.started),
        "ended": _iso(data.ended),
        "status": _status(data),
        "knowledge_base": data.kb,
        "config": data.config,
        "answers": len(data.answers),
        "victims": [
            {
                "index": v,
                "name": name,
                "label": _label(v, name),
                "answers": given[v],
            }
            | ({} if given[v] else {"note": NO_ANSWERS})
            for v, name in enumerate(names)
        ],
        # answered once for the whole incident (the scene), in the order given
        "incident_answers": given[-1],
        "order": [
            {"victim": a.victim, "symptom": a.symptom, "answer": a.answer} for a in data.answers
        ],
        "changed_answers": [
            {
                "victim": new.victim,
                "symptom": new.symptom,
                "was": old.answer,
                "was_at": _iso(old.at),
                "now": new.answer,
                "changed_at": _iso(new.at),
            }
            for new, _, old in data.replaced
        ],
        "top": _top(data, kb),
        "imported_from": data.imported_from,
        "problems": data.problems,
    }


# -- commands --------------------------------------------------------------------------------


def cmd_list(args) -> int:
    from responder.cli import print_json  # noqa: PLC0415
    from responder.core.store import StoreError, list_page  # noqa: PLC0415

    if args.all and args.limit is not None:
        raise InputError("--all and --limit contradict each other; give one")
    limit = args.limit
    if limit is None and not args.all and not args.json:
        limit = LIST_PAGE
    try:
        page = list_page(limit, args.skip)
    except StoreError as exc:
        raise InputError(str(exc)) from None
    found = page.incidents
    _notes(page.notices)
    knowledge = _Knowledge(getattr(args, "kb", None))
    # the most likely chemical replays the interview (milliseconds each): newest ones only
    rows = [
        _incident_json(d, knowledge.recorded(d) if k < TOP_FOR_NEWEST else None)
        for k, d in enumerate(found)
    ]
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        print("No incidents stored yet." if not page.total else _unlisted(page, 0))
        return 0
    # "No.": the incident's number, which `show` and `export` take as its ID
    table = [
        ("ID", "Started", "Knowledge base", "No.", "Victims", "Answers", "Status", "Most likely")
    ]
    for d, row in zip(found, rows, strict=True):
        table.append(
            (
                d.id,
                d.started_text,
                str(d.kb.get("name") or "?"),
                str(d.number),
                str(len(row["victims"])),
                str(row["answers"]),
                STATUS_WORDS.get(row["status"], row["status"]),
                row["top"]["text"] if row["top"] else "—",
            )
        )
    widths = [max(len(r[k]) for r in table) for k in range(len(table[0]))]
    for r in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    if len(found) < page.total:
        print(_unlisted(page, len(found)))
    return 0


def _unlisted(page, shown: int) -> str:
    """What the table left out, and how to list it."""
    total = counted(page.total, "incident")
    skipped = f" after the newest {page.skip}" if page.skip else ""
    if not shown and page.skip < page.total:  # --limit 0: there were some to list
        return f"Listed 0 of {total}{skipped} (--limit 0); --limit N for the N newest, --all for every one."
    if not shown:
        return f"No incident past the newest {page.skip} of {total}."
    older = page.total - page.skip - shown
    more = f"--skip {page.skip + shown} for older ones, " if older > 0 else ""
    return f"Listed {shown} of {total}{skipped}; {more}--all for every one."


def cmd_show(args) -> int:
    from responder.cli import print_json  # noqa: PLC0415
    from responder.core.store import time_text  # noqa: PLC0415

    data = _find(args.id)
    kb = _Knowledge(getattr(args, "kb", None)).recorded(data)
    info = _incident_json(data, kb)
    if args.json:
        print_json(info)
        return 0
    cfg = data.config
    out = [
        f"Incident {data.id} ({STATUS_WORDS.get(info['status'], info['status'])})",
        f"Started {data.started_text}"
        + (f", ended {time_text(data.ended, '%Y-%m-%d %H:%M')}" if data.ended else ""),
        f"Knowledge base: {data.kb.get('name') or '?'}"
        + (f" ({counted(data.kb['chemicals'], 'chemical')})" if data.kb.get("chemicals") else "")
        + (f", digest {data.kb['digest'][:12]}" if data.kb.get("digest") else ""),
        f"Settings: target {cfg.get('target', '?')}, suggest one {cfg.get('suggest', '?')}, "
        f"{cfg.get('mode', 'strict')} mode",
    ]
    if info["top"]:
        out.append(f"Most likely now: {info['top']['text']}")
    elif kb is None:
        out.append(
            "Most likely now: not computed (the knowledge base it was recorded on is not "
            "available unchanged; give one with --kb)"
        )
    if data.imported_from:
        out.append(f"Imported from the journal {data.imported_from}")

    def lines(victim: int) -> list[str]:
        given = [a for a in data.answers if a.victim == victim]
        if not given:
            from responder.core.export import NO_ANSWERS  # noqa: PLC0415

            return [f"  ({NO_ANSWERS})"]
        return [
            f"  {time_text(a.at, '%H:%M:%S')}  {_symptom_text(a.symptom, kb)}: {a.answer}"
            + ("  (volunteered)" if a.volunteered else "")
            for a in given
        ]

    if info["incident_answers"]:
        out += ["", "Answered once for the incident (the scene):", *lines(-1)]
    for v in info["victims"]:
        out += ["", f"{v['label']}:", *lines(v["index"])]
    if info["changed_answers"]:
        out += ["", "Changed answers:"]
        out += [
            f"  {c['symptom']}: {c['was']} changed to {c['now']} at {c['changed_at']}"
            for c in info["changed_answers"]
        ]
    for problem in data.problems:
        out.append(f"Note: {problem}")
    print("\n".join(out))
    return 0


def _symptom_text(symptom: str, kb) -> str:
    j = None if kb is None else kb.symptom_index(symptom)
    return symptom if j is None else f"{kb.symptoms[j].label} ({symptom})"


def cmd_export(args) -> int:
    from responder.core.export import export_interview  # noqa: PLC0415

    data = _find(args.id)
    kb = _Knowledge(getattr(args, "kb", None)).for_export(data)
    interview, warnings = _interview(data, kb)
    _notes(warnings)
    formats = (args.format,) if args.format else ("md", "json")
    try:
        written = export_interview(interview, formats=formats)
    except NotADirectoryError as exc:
        raise InputError(
            f"the report could not be written: {exc.filename} is a file where the exports "
            "folder should be; move it away (the folder is created when needed)"
        ) from None
    except IsADirectoryError as exc:
        raise InputError(
            f"the report could not be written: {exc.filename2 or exc.filename} is a folder; "
            "move it away, or export only the other format (--format)"
        ) from None
    except OSError as exc:
        from responder.core.export import resolve_export_dir  # noqa: PLC0415

        # a rename onto the report names its target; else the folder (not a temporary name)
        where = exc.filename2 or resolve_export_dir(None)
        raise InputError(
            f"the report could not be written to {where}: {exc.strerror or exc}; make the "
            "exports folder writable, or set RESPONDER_HOME to a folder that is"
        ) from None
    except UnsafePathError as exc:
        raise InputError(str(exc)) from None
    for path in written:
        print(path)
    return 0
