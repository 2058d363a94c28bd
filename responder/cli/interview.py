"""``responder interview --jsonl``: the headless interview protocol, for scripts and programs.

One JSON object per line in, one per line out: one at start, then exactly one after each
input line, flushed. Input: ``{"symptom": "<id, alias, label or synonym>", "answer":
"yes"|"no"|"unknown", "victim": "<name>"}`` (victim optional: the first victim by default; a
new name adds a victim) or ``{"undo": true}``. Scene observations are answered exactly like
symptoms. A bad line gets ``{"error": "<one line>"}`` and the interview goes on; end of
input ends it. Each state lists the answers in the order given (``answers``, the first
victim's; ``victims``, each victim's), with the answers they imply marked ``"implied": true``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from dataclasses import dataclass
from typing import IO

import numpy as np

from responder.cli.inputs import InputError, check_route_views_apply
from responder.config import ConfigError, InterviewConfig, add_config_arguments
from responder.core import views
from responder.core.counted import counted
from responder.core.session import Interview
from responder.engine.evidence import EvidenceSettings
from responder.engine.state import Answer, InterviewState, Status
from responder.kb.fields import first_unprintable, shown
from responder.kb.grades import bundled_grades

STATUS = {
    Status.ASKING: "asking",
    Status.IDENTIFIED: "identified",
    Status.INDISTINGUISHABLE: "indistinguishable",
    Status.INCONSISTENT: "no_fit",
}
ANSWERS = {"yes": Answer.YES, "no": Answer.NO, "unknown": Answer.UNKNOWN}
MAX_LINE = 64 * 1024  # characters; a longer line is refused (one symptom answer is ~60)
#: how a client takes its last answer back, as the notices tell it
UNDO_LINE = '{"undo": true}'

#: the byte-order mark some editors and Windows tools put at the start of UTF-8 text
BOM = "\ufeff"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "interview",
        help="run an interview headless, one JSON object per line (for scripts)",
        description=(
            "Headless interview protocol. Reads one JSON object per line on stdin "
            '({"symptom": ID, "answer": "yes"|"no"|"unknown", "victim": NAME} with victim '
            'optional, or {"undo": true}) and writes one JSON object per line on stdout: one '
            'at start and exactly one after each input line. A bad line gets {"error": ...} '
            "and the interview goes on. Scene observations (smell, cloud, place...) are "
            "answered exactly like symptoms."
        ),
    )
    p.add_argument(
        "--jsonl",
        action="store_true",
        required=True,
        help="speak the JSON-lines protocol on stdin/stdout (required)",
    )
    p.add_argument(
        "--kb",
        metavar="NAME|PATH",
        default=argparse.SUPPRESS,
        help="knowledge base (default: bundled); may also come before 'interview'",
    )
    p.add_argument(
        "--save",
        action="store_true",
        help=(
            "store the interview as an incident (listed by `responder incidents list`): "
            "completed once it reached a result, else left open to resume"
        ),
    )
    p.add_argument(
        "--top",
        type=int,
        default=None,
        metavar="N",
        help="list only the N most likely candidates in each reply (default: all)",
    )
    add_config_arguments(p, fitted=bundled_grades())
    p.set_defaults(handler=run)


def slug(name: str) -> str:
    """A chemical's id when the knowledge base gives none: lower-case a-z0-9_."""
    return re.sub(r"[^a-z0-9]+", "_", name.casefold()).strip("_")


FIRST_VICTIM = "victim 1"


def _name_key(name: str) -> str:
    """A victim's name as names are told apart: blanks collapsed, case ignored, one Unicode
    form (an accent typed as its own character is the same letter)."""
    return unicodedata.normalize("NFC", " ".join(name.split())).casefold()


@dataclass
class Protocol:
    """One headless interview (one incident, one or more victims): feed it lines, get JSON
    objects back."""

    kb: object
    interview: Interview
    top: int | None = None  # candidates listed per reply; None: all

    def __post_init__(self) -> None:
        self._ids = [s.id for s in self.kb.symptoms]

    @property
    def state(self) -> InterviewState:
        return self.interview.state

    # -- input --------------------------------------------------------------------------

    def handle(self, line: str) -> dict:
        """The reply to one input line (the state after it, or an error)."""
        try:
            self._apply(line)
        except _LineError as exc:
            return {"error": str(exc)}
        return self.snapshot()

    def _apply(self, line: str) -> None:
        length = len(line.rstrip("\r\n"))  # the line ending is no part of the limit
        if length > MAX_LINE:
            raise _LineError(f"line too long ({length} characters; at most {MAX_LINE})")
        text = line.strip()
        if not text:
            raise _LineError('empty line; send {"symptom": ID, "answer": "yes"} or {"undo": true}')
        if text.startswith(BOM):
            raise _LineError("a byte-order mark (U+FEFF) belongs only before the first line")
        _check_encoding(text)
        try:
            msg = json.loads(text, object_pairs_hook=_unique_keys)
        except (ValueError, RecursionError) as exc:
            what = "nested too deeply"
            if isinstance(exc, json.JSONDecodeError):
                # json's message leaves its place out ("Unterminated string starting at")
                joint = " column" if exc.msg.endswith(" at") else ", column"
                what = f"{exc.msg}{joint} {exc.colno}"
            raise _LineError(f"not valid JSON ({what}); send one JSON object per line") from None
        if not isinstance(msg, dict):
            raise _LineError(
                'each line must be a JSON object such as {"symptom": "cough", "answer": "yes"}'
            )
        for text in (*msg, *(v for v in msg.values() if isinstance(v, str))):
            _check_printable(text)
        if "undo" in msg:
            if msg.get("undo") is not True or len(msg) != 1:
                raise _LineError('to undo, send exactly {"undo": true}')
            if self.interview.undo() is None:
                raise _LineError("nothing to undo: no answer has been given")
            return
        unknown_keys = set(msg) - {"symptom", "answer", "victim"}
        if unknown_keys or "symptom" not in msg or "answer" not in msg:
            raise _LineError(
                'expected {"symptom": ID, "answer": "yes"|"no"|"unknown"} (and optionally '
                '"victim": NAME) or {"undo": true}'
                + (f"; unknown key {_shown(sorted(unknown_keys)[0])}" if unknown_keys else "")
            )
        answer = msg["answer"]
        # blanks around it forgiven, as around a symptom or a victim's name, and its case
        if not isinstance(answer, str) or answer.strip().casefold() not in ANSWERS:
            raise _LineError(f'answer must be "yes", "no" or "unknown", got {_shown(answer)}')
        answer = answer.strip()
        query = self.resolve(msg["symptom"])
        # no "victim": the first victim, whatever name the first name given gave them
        victim = self.victim(msg["victim"]) if "victim" in msg else 0
        self.interview.answer(query, ANSWERS[answer.casefold()], victim=victim)

    def victim(self, name) -> int:
        """The index of the victim called ``name``; a new name adds a victim."""
        if not isinstance(name, str):
            raise _LineError(f"victim must be a name (a string), got {_shown(name)}")
        key = _name_key(name)
        if not key:
            raise _LineError(
                'victim must be a name, not empty; leave "victim" out for the first victim'
            )
        names = [_name_key(n) for n in self.victim_names()]
        if key in names:
            return names.index(key)
        it = self.interview
        try:
            if (
                len(it.victims) == 1
                and not it.victims[0]
                and all(r.victim != 0 for r in it.records)
            ):
                it.name_victim(0, name)  # the first name given is the first victim's
                return 0
            index = it.add_victim(name)
        except ValueError as exc:
            raise _LineError(f"victim {_shown(name)}: {exc}") from None
        self.interview.select_victim(0)
        return index

    def victim_names(self) -> list[str]:
        it = self.interview
        return [FIRST_VICTIM if v == 0 and not n else n for v, n in enumerate(it.victims)]

    def resolve(self, text) -> int:
        """The index of the symptom or scene observation an id, alias, label or synonym
        names (case-insensitive); a retired id still works as an alias (ids are a contract)."""
        if not isinstance(text, str):
            raise _LineError(f"symptom must be a string (an id or a synonym), got {_shown(text)}")
        try:
            return int(self.kb.resolve_symptom(text))
        except KeyError as exc:
            raise _LineError(_one_line(exc)) from None

    # -- output -------------------------------------------------------------------------

    def snapshot(self) -> dict:
        """The interview as the protocol reports it."""
        st = self.state
        kb = self.kb
        status = st.status
        return {
            "status": STATUS[status],
            "asked": self.interview.answered,
            "confidence": _round(st.confidence()),
            "suggestion": self._suggestion(),
            "candidates": self._candidates(status),
            "classes": [
                {"class": kb.classes[g].id, "probability": _round(p)}
                for g, p in sorted(
                    enumerate(st.group_probabilities().tolist()), key=lambda gp: (-gp[1], gp[0])
                )
            ],
            "mode": st.mode,
            "stop_reason": st.stop_reason,
            "unlisted": None if (fit := st.fit()) is None else _round(fit.unlisted),
            "notices": [
                *([said] if (said := views.displaced_notice(self.interview, UNDO_LINE)) else []),
                *self.interview.class_notices(),
                *self._one_victim_notice(),
                *self._unsaved_notice(),
            ],
            "answers": self._answers(0),
            "victims": [
                {"name": name, "answers": self._answers(v)}
                for v, name in enumerate(self.victim_names())
            ],
            "incident": self.interview.id if self.interview.journal_enabled else None,
        }

    def _unsaved_notice(self) -> list[str]:
        """With --save, on every reply while changes wait to be written: the client must
        not take an acknowledged answer for a stored one."""
        it = self.interview
        if not it.unsaved:
            return []
        return [
            f"NOT SAVED: {counted(it.unsaved, 'change')} waiting to be written "
            f"({it.journal_error or 'not written yet'}); retried with the next line and at "
            "the end of input"
        ]

    def _one_victim_notice(self) -> list[str]:
        """The strict and noise modes read the first victim only (the protocol always asks
        them); said on every reply while several victims are named."""
        it = self.interview
        if not it.reads_one_victim:
            return []
        name = self.victim_names()[it.victim]
        return [it.one_victim_notice(repr(name), pooled_by="--mode evidence")]

    def _answers(self, victim: int) -> list[dict]:
        """A victim's answers in the order given (the incident's included), then those the
        answers imply, marked ``"implied": true``."""
        st = self.state
        given = [r for r in self.interview.records if r.victim in (victim, -1)]
        out = [{"symptom": self._ids[r.query], "answer": r.answer.value} for r in given]
        implied = st.implied_answers(victim)
        out += [
            {"symptom": self._ids[q], "answer": a.value, "implied": True}
            for q, a in implied.items()
        ]
        return out

    def _suggestion(self) -> dict | None:
        st = self.state
        choice = st.suggestion()
        if choice is None:
            return None
        useful = st.useful_queries()
        score = st.view().suggestion_scores()
        if choice.kind == "category":
            qs = [int(q) for q in choice.queries]
            cat = self.kb.categories[choice.index].id
        else:
            qs = np.flatnonzero(useful).tolist()
            cat = None
        qs.sort(key=lambda q: (not useful[q], -score[q], q))
        if choice.kind != "category":
            qs.remove(choice.index)
            qs.insert(0, int(choice.index))
        return {
            "kind": "category" if choice.kind == "category" else "symptom",
            "category": cat,
            "symptoms": [self._ids[q] for q in qs],
            "victim": self.victim_names()[st.current_victim],
            "group": None if choice.kind == "category" else self._group(int(choice.index)),
        }

    def _group(self, query: int) -> dict | None:
        """The suggested sign's exclusive group: its members still open (the suggested one
        first), any of which answered "yes" settles it, and its "none of these" label."""
        group = views.exclusive_group(self.interview, query)
        if group is None:
            return None
        members = [query, *views.open_members(self.interview, group, query)]
        return {
            "id": group.id,
            "label": group.label,
            "members": [self._ids[m] for m in members],
            "none": group.none_label or None,
        }

    def _candidates(self, status: Status) -> list[dict]:
        st = self.state
        if status is Status.INCONSISTENT and st.fit() is None:
            # Nothing fits (strict or noise): the closest chemicals, probability 0. (Evidence
            # mode eliminates nothing: its candidates keep their probabilities.)
            seen, rows = set(), []
            for i, _ in st.ranked_by_mismatch(st.problem.n_objects):
                if i not in seen:
                    seen.add(i)
                    rows.append(((i,), 0.0))
        else:
            rows = [(c.objects, c.probability) for c in st.candidates()]
        if self.top is not None:
            rows = rows[: self.top]
        return [
            {
                "chemicals": [self._chemical(i) for i in objs],
                "class": self.kb.chemicals[objs[0]].class_id,
                "probability": _round(p),
                "answers_against": [self._ids[q] for q in st.answers_against(objs[0])],
            }
            for objs, p in rows
        ]

    def _chemical(self, i: int) -> dict:
        c = self.kb.chemicals[i]
        return {"id": getattr(c, "id", None) or slug(c.name), "name": c.name, "cas": c.cas}


def _shown(value) -> str:
    """A JSON value as the error message shows it, at most 60 characters."""
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."


class _LineError(Exception):
    """One bad input line; the message is sent back as {"error": ...}."""


def _unique_keys(pairs: list) -> dict:
    """A JSON object of one line, refusing a key given twice (``json`` keeps the last)."""
    obj: dict = {}
    for key, value in pairs:
        if key in obj:
            raise _LineError(f"the key {_shown(key)} appears twice in one line; give it once")
        obj[key] = value
    return obj


def _check_encoding(text: str) -> None:
    """Refuse a line that is not UTF-8 wherever the bad bytes stand, not only inside a
    string (outside one, JSON's own message would blame the syntax): UTF-16, as Windows
    tools may write, shows as NUL bytes or its byte-order mark."""
    # UTF-16 of JSON text is half NUL bytes; a stray NUL in UTF-8 text is no sign of it
    if text.count("\x00") * 3 >= len(text) or text.startswith(("\udcff\udcfe", "\udcfe\udcff")):
        raise _LineError(
            "the line is UTF-16 text, not UTF-8; send one JSON object per line in UTF-8"
        )
    if "\x00" in text:
        raise _LineError(
            f"the line holds a NUL byte (U+0000) at character {text.index(chr(0)) + 1}, which "
            "is not text; send printable UTF-8 text"
        )
    if any("\udc80" <= char <= "\udcff" for char in text):
        raise _LineError("the line is not UTF-8 text; send one JSON object per line in UTF-8")


def _check_printable(text: str) -> None:
    """Refuse text no reply could quote: bytes that were not UTF-8 (read as lone
    surrogates), JSON escapes of lone surrogates (``"\\ud800"``) and control characters."""
    at = first_unprintable(text)
    if at is None:
        return
    char = text[at]
    if "\udc80" <= char <= "\udcff":
        raise _LineError("the line is not UTF-8 text; send one JSON object per line in UTF-8")
    what = "a lone surrogate" if "\ud800" <= char <= "\udfff" else "a control character"
    raise _LineError(
        f'"{shown(text, 40)}" holds {what} (U+{ord(char):04X}), which is not text; '
        "send printable UTF-8 text"
    )


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def _round(x: float) -> float:
    return round(float(x), 6)


def serve(protocol: Protocol, stdin: IO[str], stdout: IO[str]) -> None:
    """Write the start state, then one reply per input line, flushed, until end of input."""

    def emit(obj: dict) -> None:
        stdout.write(json.dumps(obj, ensure_ascii=False, allow_nan=False) + "\n")
        stdout.flush()

    emit(protocol.snapshot())
    first = True
    while True:
        line = stdin.readline(MAX_LINE + 2)  # a longest line and its "\r\n"
        if not line:
            return
        if first and line.startswith(BOM):  # Windows tools start UTF-8 text with one
            line = line[1:]
        first = False
        if len(line) > MAX_LINE + 1 and not line.endswith("\n"):
            stdin.readline()  # drop the rest of the over-long line
            emit({"error": f"line too long (more than {MAX_LINE} characters)"})
            continue
        emit(protocol.handle(line))


def _check_store() -> None:
    """Open the incident database before the first line (importing old journals, setting a
    damaged file aside), so that a store that cannot be written stops the run at once."""
    from responder.core.store import StoreError, open_database  # noqa: PLC0415

    try:
        with open_database() as db:
            for notice in db.notices:
                print(f"responder: note: {notice}", file=sys.stderr)
    except StoreError as exc:
        raise InputError(f"--save: {exc}") from None


def _check_evidence_options_apply(args, config: InterviewConfig) -> None:
    """Options this interview would not read, refused rather than dropped without a word:
    --pick without category suggestions, and the evidence mode's settings in a strict or
    noise interview (the protocol cannot switch modes)."""
    if getattr(args, "pick", None) is not None and config.suggest != "category":
        raise InputError(
            "--pick applies only to category suggestions, and this interview suggests one "
            "symptom at a time; add --suggest category, or leave --pick out"
        )
    if config.mode == "evidence":
        return
    given = [
        "--" + key.replace("_", "-")
        for key in EvidenceSettings.KEYS
        if key != "pick" and getattr(args, key, None) is not None
    ]
    if given:
        raise InputError(
            f"{' and '.join(given)} {'applies' if len(given) == 1 else 'apply'} only to the "
            f"evidence mode, and this interview is in the {config.mode} mode; leave "
            f"{'it' if len(given) == 1 else 'them'} out, or use --mode evidence"
        )


def run(args) -> int:
    from responder.cli.inputs import load_problem  # noqa: PLC0415
    from responder.cli.interchange import is_interchange  # noqa: PLC0415

    spec = getattr(args, "kb", None)
    if is_interchange(spec):
        raise InputError(
            "interview needs a knowledge base (name or folder), not an interchange file"
        )
    if sys.stdin is None:  # started with `<&-`: not the same as an empty input
        raise InputError(
            "standard input is closed; pipe the JSON lines in, or give </dev/null for an "
            "interview with no answers"
        )
    if args.top is not None and args.top < 1:
        raise InputError("--top must be at least 1 (leave it out to list every candidate)")
    _, kb = load_problem(spec)
    try:
        config = InterviewConfig.from_args(args)
        _check_evidence_options_apply(args, config)
        check_route_views_apply(args, kb)
        interview = Interview.start(kb, config, journal=args.save)
    except ConfigError as exc:
        raise InputError(exc.cli_message()) from None
    # bytes that are not UTF-8 become lone surrogates, refused per line, not an exception
    for stream, errors in ((sys.stdin, "surrogateescape"), (sys.stdout, "backslashreplace")):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=errors)
    if args.save:
        _check_store()
    protocol = Protocol(kb, interview, top=args.top)
    try:
        serve(protocol, sys.stdin, sys.stdout)
    finally:
        if args.save:
            if interview.reached_result:
                interview.end("completed")
            else:
                interview.save()  # left unfinished: `incidents` lists it as open, to resume
            if interview.unsaved:
                raise InputError(
                    f"the incident could not be saved completely: {interview.journal_error}"
                )
    return 0
