"""Load and validate a knowledge base folder: symptoms.toml, classes.toml, chemicals/*.toml.

Every problem is collected (not just the first) as a :class:`KBIssue` pointing at a file and
line, and all of them are raised together as one :class:`KBError`. tomllib gives no line
numbers for values, so lines are found by scanning the text: the ``[[table]]`` headers in
order, then the ``key =`` line or the quoted value inside that table.

The bundled knowledge base is stricter than user-imported ones: it must give a CAS number for
every chemical and name one of the public source series in every source.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.resources
import os
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from responder.input_limits import InputRejected, decode_text, loads_toml, read_bytes
from responder.kb.fields import FieldError, check_name, check_number, check_text, number_text
from responder.kb.model import (
    ANSWERED_PER,
    CATEGORY_KINDS,
    EVIDENCE_GRADE_KEYS,
    GRADES,
    OBSERVATION_KINDS,
    Category,
    Chemical,
    ChemicalClass,
    Evidence,
    ExclusiveGroup,
    Implication,
    KBError,
    KBIssue,
    KnowledgeBase,
    Symptom,
)

#: The public source series a bundled chemical's sources and evidence titles must start with
#: ("<SERIES>: <title>"): the agency documents the brief allows (ICSC for facts only).
SOURCE_SERIES = (
    "ATSDR MMG",
    "ATSDR ToxFAQs",
    "NIOSH NPG",
    "CDC ERSH-DB",
    "CDC",
    "CHEMM",
    "NRT",
    "ICSC",
)
BUNDLED_NAME = "bundled"
SYMPTOMS_FILE = "symptoms.toml"
#: Scene observations (odour, appearance, setting...): optional, beside the symptoms.
SCENE_FILE = "scene.toml"
#: Exclusive groups and implications between observations: optional.
CONSISTENCY_FILE = "consistency.toml"
#: The answer model fitted for this knowledge base (grade probabilities, leaks): optional.
GRADES_FILE = "grades.toml"
CLASSES_FILE = "classes.toml"
CHEMICALS_DIR = "chemicals"

#: Allowed relative prior weights of a chemical: a ratio of up to 1e12 between two.
PRIOR_RANGE = (1e-6, 1e6)
#: A class's short_label fits a class bar or a candidate row at 80 columns.
MAX_SHORT_LABEL = 18
_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_]*$")
_CAS_RE = re.compile(r"^(\d{2,7})-(\d{2})-(\d)$")
_UN_RE = re.compile(r"^\d{4}$")
_URL_RE = re.compile(r"^https?://[^\s/]+\.[^\s]+$")
_SERIES_RE = re.compile(r"^(" + "|".join(re.escape(s) for s in SOURCE_SERIES) + r"): \S")

_ID_FIX = 'use lower-case letters, digits and "_" only, e.g. "shortness_of_breath"'


# --- small validators, shared with the CSV importer ---------------------------------------


def cas_check_digit(body: str) -> int:
    """Check digit of a CAS number from its digits without the check digit.

    Each digit is multiplied by its position counted from the right (1, 2, ...); the sum
    mod 10 is the check digit. ``body`` is e.g. ``"778250"`` for 7782-50-5.
    """
    return sum(int(d) * k for k, d in enumerate(reversed(body), start=1)) % 10


def cas_problem(cas: str) -> tuple[str, str] | None:
    """(problem, fix) if ``cas`` is not a well-formed CAS number with a correct check digit."""
    m = _CAS_RE.match(cas)
    if not m:
        return (
            f'CAS number "{cas}" is malformed',
            'write it as 2-7 digits, 2 digits and 1 check digit joined by "-", e.g. "7782-50-5"',
        )
    expected = cas_check_digit(m.group(1) + m.group(2))
    if expected != int(m.group(3)):
        return (
            f'CAS number "{cas}" has check digit {m.group(3)} but its digits give {expected}',
            f"check the number in the source; if the other digits are right it is "
            f'"{m.group(1)}-{m.group(2)}-{expected}"',
        )
    return None


def un_problem(un: str) -> tuple[str, str] | None:
    """(problem, fix) if ``un`` is not a 4-digit UN/NA number."""
    if _UN_RE.match(un):
        return None
    digits = re.sub(r"\D", "", un)
    example = f'"{digits}"' if len(digits) == 4 else '"1017"'
    return (
        f'UN number "{un}" is malformed',
        f"write the 4 digits only, as a quoted string, e.g. {example}; leave the key out if "
        "there is none",
    )


def source_problem(source: str, strict: bool) -> tuple[str, str] | None:
    """(problem, fix) if a source text is empty, or (strict) names none of the public series."""
    if not source.strip():
        return ("a source is empty", "write the document the symptoms come from")
    if strict and not _SERIES_RE.match(source):
        series = ", ".join(f'"{s}: "' for s in SOURCE_SERIES)
        return (
            f'source "{source}" does not name one of the public source series',
            f"start it with one of {series} followed by the document title",
        )
    return None


def chemical_slug(name: str) -> str:
    """The default chemical id: the name in lower-case ASCII, other runs of characters "_".

    ``"Sarin (GB)"`` gives ``"sarin_gb"``; accents are dropped (``"Ä"`` -> ``"a"``).
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_name.casefold()).strip("_")


def _suggest(value: str, known, what: str, where: str) -> str:
    close = difflib.get_close_matches(value, list(known), n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(f'"{c}"' for c in close) + "?"
    return f"use one of the {what} ids defined in {where}"


# --- locating lines in TOML text --------------------------------------------------------


class _Lines:
    """Line numbers of tables, keys and values in a TOML text (1-based)."""

    _HEADER = re.compile(r"^\s*\[\[?\s*([^\[\]#]+?)\s*\]\]?\s*(?:#.*)?$")

    def __init__(self, text: str):
        self.lines = text.split("\n")  # as tomllib counts: only "\n" ends a line
        self.headers: list[tuple[int, str, bool]] = []  # (line, name, is_array_table)
        # header positions of each [[name]], so finding the k-th table is O(1), not O(tables)
        self._array_tables: dict[str, list[int]] = {}
        for n, raw in enumerate(self.lines, start=1):
            m = self._HEADER.match(raw)
            if m:
                name = m.group(1).strip().strip('"').strip("'")
                is_array = raw.strip().startswith("[[")
                if is_array:
                    self._array_tables.setdefault(name, []).append(len(self.headers))
                self.headers.append((n, name, is_array))

    def table(self, name: str, k: int) -> tuple[int, int] | None:
        """(first, end) lines of the k-th ``[[name]]`` table; end is exclusive."""
        starts = self._array_tables.get(name, [])
        if k >= len(starts):
            return None
        i = starts[k]
        first = self.headers[i][0]
        end = self.headers[i + 1][0] if i + 1 < len(self.headers) else len(self.lines) + 1
        return first, end

    def top(self) -> tuple[int, int]:
        """Lines before the first table header."""
        end = self.headers[0][0] if self.headers else len(self.lines) + 1
        return 1, end

    def key(self, span: tuple[int, int] | None, key: str) -> int | None:
        if span is None:
            return None
        pat = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for n in range(span[0], span[1]):
            if pat.match(self.lines[n - 1]):
                return n
        return None

    def value(self, span: tuple[int, int] | None, key: str, value: str) -> int | None:
        """Line of the quoted ``value`` within ``key``'s value (which may span lines)."""
        start = self.key(span, key)
        if start is None:
            return None
        quoted = (f'"{value}"', f"'{value}'")
        for n in range(start, span[1]):
            if any(q in self.lines[n - 1] for q in quoted):
                return n
        return start


# --- the checker --------------------------------------------------------------------------

#: Keys holding free text (line breaks allowed, up to fields.MAX_TEXT_CHARS); every other
#: string is a name, label or id: one printable line of up to fields.MAX_NAME_CHARS.
TEXT_KEYS = frozenset(("notes", "description", "check", "sources", "title", "url", "quote"))

_TYPES = {
    "str": (str, "a quoted string"),
    "list": (list, 'a list of quoted strings, e.g. ["a", "b"]'),
    "bool": (bool, "true or false"),
    "number": ((int, float), "a number"),
}


@dataclass
class _Doc:
    rel: str
    data: dict
    lines: _Lines


class _Checker:
    def __init__(self, display: Callable[[str], str], strict: bool):
        self.display = display
        self.strict = strict
        self.errors: list[KBIssue] = []
        self.warnings: list[KBIssue] = []

    def error(self, rel: str, line: int | None, problem: str, fix: str) -> None:
        self.errors.append(KBIssue(self.display(rel), line, problem, fix))

    def warn(self, rel: str, line: int | None, problem: str, fix: str) -> None:
        self.warnings.append(KBIssue(self.display(rel), line, problem, fix, "warning"))

    def where(self, rel: str, line: int | None) -> str:
        return f"{self.display(rel)}:{line}" if line else self.display(rel)

    def new_id(
        self, rel: str, line: int | None, kind: str, ident: str, seen: dict[str, int | None]
    ) -> bool:
        """Whether ``ident`` is a valid id not yet in ``seen`` (then recorded with its
        line); otherwise the error is reported and False returned."""
        if not _ID_RE.match(ident):
            self.error(rel, line, f'{kind} id "{ident}" is not a valid id', _ID_FIX)
            return False
        if ident in seen:
            self.error(
                rel,
                line,
                f'duplicate {kind} id "{ident}"',
                f"it is already defined at {self.where(rel, seen[ident])}; rename or remove one",
            )
            return False
        seen[ident] = line
        return True

    def parse(self, rel: str, text: str) -> _Doc | None:
        try:
            # number ranges are checked per field, where the message can name it
            data = loads_toml(text, self.display(rel), numbers=False)
        except InputRejected as exc:
            line = (
                exc.line
                or _value_line(_Lines(text), exc.path)
                or (len(text.split("\n")) if exc.kind == "syntax" else None)
            )
            self.error(rel, line, exc.problem, exc.fix)
            return None
        return _Doc(rel, data, _Lines(text))

    def top_keys(self, doc: _Doc, allowed: tuple[str, ...]) -> None:
        for key in doc.data:
            if key not in allowed:
                line = doc.lines.key(doc.lines.top(), key) or self._header_line(doc, key)
                close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
                fix = (
                    f"did you mean `{close[0]}`?"
                    if close
                    else "this file may only hold " + ", ".join(f"`{a}`" for a in allowed)
                )
                self.error(doc.rel, line, f"unknown top-level key or table `{key}`", fix)

    @staticmethod
    def _header_line(doc: _Doc, name: str) -> int | None:
        return next((n for n, nm, _ in doc.lines.headers if nm == name), None)

    def tables(self, doc: _Doc, name: str, required: bool) -> list:
        """The ``[[name]]`` tables of a document; an error if they are missing or malformed."""
        value = doc.data.get(name)
        if value is None:
            if required:
                self.error(
                    doc.rel,
                    1,
                    f"the file has no [[{name}]] tables",
                    f"add at least one [[{name}]] table",
                )
            return []
        if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
            line = doc.lines.key(doc.lines.top(), name) or self._header_line(doc, name)
            self.error(
                doc.rel,
                line,
                f"`{name}` is not a list of [[{name}]] tables",
                f"write each entry as a [[{name}]] table with key = value lines",
            )
            return []
        return value

    def fields(
        self,
        doc: _Doc,
        tname: str,
        k: int,
        table: dict,
        required: dict[str, str],
        optional: dict[str, str],
    ) -> tuple[dict, tuple, int]:
        """Check a table's keys and value types.

        Returns the values of the right type, the table's line span and its anchor line (the
        line of its ``name``/``id`` key, else its header).
        """
        span = doc.lines.table(tname, k)
        anchor = (
            doc.lines.key(span, "name") or doc.lines.key(span, "id") or (span[0] if span else None)
        )
        allowed = {**required, **optional}
        out = {}
        for key, value in table.items():
            line = doc.lines.key(span, key) or anchor
            if key not in allowed:
                if tname == "chemical" and key == "class":
                    fix = (
                        "`class = ...` must come before the first [[chemical]] table; "
                        "move it to the top of the file"
                    )
                else:
                    close = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.6)
                    fix = (
                        f'did you mean "{close[0]}"?'
                        if close
                        else "allowed keys are " + ", ".join(allowed)
                    )
                self.error(doc.rel, line, f"unknown key `{key}` in this [[{tname}]] table", fix)
                continue
            pytype, words = _TYPES[allowed[key]]
            # bool is an int in Python, but `prior = true` is not a number
            wrong_bool = isinstance(value, bool) and allowed[key] != "bool"
            if wrong_bool or not isinstance(value, pytype):
                self.error(
                    doc.rel,
                    line,
                    f"`{key}` must be {words}, not {value!r}",
                    f"write {key} = {self._example(key, allowed[key])}",
                )
                continue
            if allowed[key] == "list" and not all(isinstance(v, str) for v in value):
                self.error(
                    doc.rel,
                    line,
                    f"`{key}` must list quoted strings only",
                    "put each entry in double quotes",
                )
                continue
            # (an empty CAS gets the CAS format message instead)
            if allowed[key] == "str" and key in required and key != "cas" and not value.strip():
                self.error(doc.rel, line, f"`{key}` is empty", f"give the {key} text")
                continue
            try:
                _check_strings(key, value)
            except FieldError as exc:
                self.error(doc.rel, line, exc.problem, exc.fix)
                continue
            out[key] = value
        for key in required:
            if key not in table:
                self.error(
                    doc.rel,
                    anchor,
                    f"this [[{tname}]] table has no `{key}`",
                    f"add {key} = {self._example(key, required[key])}",
                )
        return out, span, anchor

    @staticmethod
    def _example(key: str, kind: str) -> str:
        examples = {
            "cas": '"7782-50-5"',
            "un": '"1017"',
            "symptoms": '["cough", "headache"]',
            "sources": '["NIOSH NPG: Chlorine"]',
            "prior": "1.0",
            "source_checked": "true",
            "id": '"some_id"',
            "observation": '"observed"',
            "leak": "0.05",
            "urgent": "true",
            "synonyms": '["miosis", "small pupils"]',
            "aliases": '["old_id"]',
            "url": '"https://www.cdc.gov/..."',
            "title": '"CDC: Facts About Sarin"',
        }
        if key in examples:
            return examples[key]
        return {"str": '"..."', "list": '["..."]', "bool": "true", "number": "1.0"}[kind]


def _field_problem(check, value, what: str) -> FieldError | None:
    """The FieldError ``check(value, what)`` raises, or None."""
    try:
        check(value, what)
    except FieldError as exc:
        return exc
    return None


def _check_strings(key: str, value) -> None:
    """Every string of a field (the value, or each entry of a list) against its length and
    printable-character rule (:mod:`responder.kb.fields`); raises FieldError."""
    check = check_text if key in TEXT_KEYS else check_name
    if isinstance(value, str):
        check(value, f"`{key}`", empty_ok=True)
    elif isinstance(value, list):
        for entry in value:
            if isinstance(entry, str):
                check(entry, f"an entry of `{key}`", empty_ok=True)


# --- the three parts of a knowledge base -------------------------------------------------


@dataclass
class _Vocabulary:
    """What the vocabulary files define, gathered across symptoms.toml and scene.toml."""

    categories: list[Category] = field(default_factory=list)
    symptoms: list[Symptom] = field(default_factory=list)
    category_line: dict[str, int | None] = field(default_factory=dict)
    symptom_line: dict[str, int | None] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    symptom_file: dict[str, str] = field(default_factory=dict)
    #: normalised name -> (id, what the name is, where it is defined, symptom or observation)
    names: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)


def _noun(symptom: Symptom) -> str:
    return "symptom" if symptom.kind == "symptom" else "observation"


def _check_vocabulary(ck: _Checker, doc: _Doc, vocab: _Vocabulary, table: str = "symptom"):
    """Add one vocabulary file's categories and observations to ``vocab``.

    symptoms.toml holds ``[[symptom]]`` tables, scene.toml ``[[observation]]`` tables; a
    category's ``kind`` defaults to the file's ("symptom" or "scene").
    """
    ck.top_keys(doc, ("category", table))
    default_kind = "symptom" if table == "symptom" else "scene"
    cat_line = vocab.category_line
    own_categories: set[str] = set()
    for k, t in enumerate(ck.tables(doc, "category", required=True)):
        v, span, anchor = ck.fields(
            doc, "category", k, t, {"id": "str", "label": "str"}, {"kind": "str", "per": "str"}
        )
        if "id" not in v or "label" not in v:
            continue
        kind, per = v.get("kind", default_kind), v.get("per", "victim")
        if kind not in CATEGORY_KINDS:
            ck.error(
                doc.rel,
                _key_line(doc, span, "kind", anchor),
                f'category "{v["id"]}" has kind "{kind}"',
                "write kind = " + " or ".join(f'"{k}"' for k in CATEGORY_KINDS),
            )
            continue
        if per not in ANSWERED_PER:
            ck.error(
                doc.rel,
                _key_line(doc, span, "per", anchor),
                f'category "{v["id"]}" has per "{per}"',
                'write per = "incident" (answered once for the whole incident) or '
                '"victim" (each victim answers it)',
            )
            continue
        if ck.new_id(doc.rel, anchor, "category", v["id"], cat_line):
            vocab.categories.append(Category(v["id"], v["label"], kind=kind, per=per))
            own_categories.add(v["id"])

    symptoms = vocab.symptoms
    sym_line = vocab.symptom_line
    optional = {
        "check": "str",
        "synonyms": "list",
        "aliases": "list",
        "observation": "str",
        "leak": "number",
        "urgent": "bool",
    }
    required = {"id": "str", "label": "str", "category": "str"}
    spans: dict[str, tuple] = {}
    every: list[Symptom] = []  # also those dropped for a bad category: their names still count
    for k, t in enumerate(ck.tables(doc, table, required=True)):
        v, span, anchor = ck.fields(doc, table, k, t, required, optional)
        if not {"id", "label", "category"} <= v.keys():
            continue
        sid = v["id"]
        if not ck.new_id(doc.rel, anchor, "symptom", sid, sym_line):
            continue
        vocab.symptom_file[sid] = doc.rel
        spans[sid] = span
        ok = True
        if v["category"] not in own_categories:
            ck.error(
                doc.rel,
                doc.lines.key(span, "category") or anchor,
                f'{table} "{sid}" has unknown category "{v["category"]}"',
                _suggest(
                    v["category"], own_categories, "category", "this file's [[category]] tables"
                ),
            )
            ok = False
        # a bad value is reported and left out; the symptom stays, so no cascade of messages
        # what is seen or told on scene needs no answer from the victim
        observation = v.get("observation", "observed" if default_kind == "scene" else "")
        if "observation" in v and observation not in OBSERVATION_KINDS:
            ck.error(
                doc.rel,
                _key_line(doc, span, "observation", anchor),
                f'symptom "{sid}" has observation "{observation}"',
                "write observation = "
                + " or ".join(f'"{o}"' for o in OBSERVATION_KINDS)
                + ' ("reported" when only a conscious victim can tell you)',
            )
            observation = ""
        leak = v.get("leak")
        if leak is not None:
            fix = (
                "give P(victim shows it | the chemical does not list it) below 1, e.g. 0.05, "
                "or remove the key"
            )
            line = _key_line(doc, span, "leak", anchor)
            try:
                leak = check_number(leak, f'symptom "{sid}": leak', 0.0, 1.0, fix)
                if leak == 1.0:
                    raise FieldError("", fix, "range")
            except FieldError as exc:
                problem = exc.problem
                if exc.kind == "range":
                    problem = (
                        f'symptom "{sid}" has leak {number_text(leak)}, which is not a '
                        "probability below 1"
                    )
                ck.error(doc.rel, line, problem, exc.fix)
                leak = None
        aliases = []
        for alias in v.get("aliases", []):
            if _ID_RE.match(alias):
                aliases.append(alias)
            else:
                ck.error(
                    doc.rel,
                    doc.lines.value(span, "aliases", alias) or anchor,
                    f'symptom "{sid}": alias "{alias}" is not a valid id',
                    _ID_FIX,
                )
        synonyms = []
        for word in v.get("synonyms", []):
            if word.strip():
                synonyms.append(word.strip())
            else:
                ck.error(
                    doc.rel,
                    _key_line(doc, span, "synonyms", anchor),
                    f'symptom "{sid}" has an empty synonym',
                    "remove it",
                )
        symptom = Symptom(
            sid,
            v["label"],
            v["category"],
            v.get("check", ""),
            synonyms=tuple(synonyms),
            aliases=tuple(aliases),
            observation=observation,
            leak=None if leak is None else float(leak),
            urgent=v.get("urgent", False),
            kind=next((c.kind for c in vocab.categories if c.id == v["category"]), default_kind),
        )
        every.append(symptom)
        if ok:
            symptoms.append(symptom)
    _check_symptom_names(ck, doc, every, spans, vocab)


def _check_symptom_names(
    ck: _Checker, doc: _Doc, symptoms: list[Symptom], spans: dict, vocab: _Vocabulary
) -> None:
    """Every id, alias, label and synonym must name one observation only (case-insensitively),
    across symptoms.toml and scene.toml.

    A name shared by two would let one finding be answered twice, and makes the search and
    the interview protocol ambiguous. Records alias -> current id in ``vocab.aliases``, each
    alias going to the first observation that claims it (one message, not a cascade).
    """
    alias_of = vocab.aliases
    owner = vocab.names
    sym_line = vocab.symptom_line
    for s in symptoms:
        owner.setdefault(s.id, (s.id, "id", ck.where(doc.rel, sym_line[s.id]), _noun(s)))
    for s in symptoms:
        span = spans[s.id]
        named = [(a, "alias", "aliases") for a in s.aliases]
        named += [(s.label, "label", "label")] + [(w, "synonym", "synonyms") for w in s.synonyms]
        for text, kind, key in named:
            line = doc.lines.value(span, key, text) or _key_line(doc, span, key, sym_line[s.id])
            norm = " ".join(text.split()).casefold()
            if norm not in owner:
                owner[norm] = (s.id, kind, ck.where(doc.rel, line), _noun(s))
                if kind == "alias":
                    alias_of[text] = s.id
                continue
            other, other_kind, other_where, other_noun = owner[norm]
            if other == s.id:  # a synonym equal to its own label is harmless
                if kind == "alias":
                    ck.error(
                        doc.rel,
                        line,
                        f'{_noun(s)} "{s.id}": alias "{text}" repeats its own {other_kind}',
                        "remove it",
                    )
                continue
            ck.error(
                doc.rel,
                line,
                f'{kind} "{text}" of {_noun(s)} "{s.id}" already names {other_noun} "{other}" '
                f"(its {other_kind}, at {other_where})",
                "a name must point at one observation: remove it from one of them, or merge "
                "the two (the retired id becomes an alias)",
            )


def _check_consistency(
    ck: _Checker, doc: _Doc, symptom_ids: set[str], aliases: dict[str, str]
) -> tuple[list[ExclusiveGroup], list[Implication]]:
    """consistency.toml: exclusive groups (at least two members, a member in one group
    only) and implications (known ids, answers yes or no, nothing implying itself)."""
    ck.top_keys(doc, ("exclusive", "implies"))
    groups: list[ExclusiveGroup] = []
    seen: dict[str, int | None] = {}
    member_of: dict[str, str] = {}

    def known(sid: str, line: int | None, where: str) -> str | None:
        return _current_id(ck, doc, line, where, sid, symptom_ids, aliases)

    for k, t in enumerate(ck.tables(doc, "exclusive", required=False)):
        v, span, anchor = ck.fields(
            doc,
            "exclusive",
            k,
            t,
            {"id": "str", "label": "str", "members": "list"},
            {"none_label": "str"},
        )
        if not {"id", "label", "members"} <= v.keys() or not ck.new_id(
            doc.rel, anchor, "exclusive group", v["id"], seen
        ):
            continue
        members = []
        for sid in v["members"]:
            line = doc.lines.value(span, "members", sid) or anchor
            cid = known(sid, line, f'exclusive group "{v["id"]}"')
            if cid is None:
                continue
            if cid in member_of:
                ck.error(
                    doc.rel,
                    line,
                    f'"{cid}" is in exclusive groups "{member_of[cid]}" and "{v["id"]}"',
                    "a sign belongs to one exclusive group at most: remove it from one",
                )
                continue
            member_of[cid] = v["id"]
            members.append(cid)
        if len(v["members"]) < 2:
            ck.error(
                doc.rel,
                _key_line(doc, span, "members", anchor),
                f'exclusive group "{v["id"]}" has {len(v["members"])} member(s)',
                "an exclusive group needs at least two signs that cannot hold together; "
                "remove the group, or add the other values",
            )
            continue
        if len(members) == len(v["members"]):
            groups.append(
                ExclusiveGroup(v["id"], v["label"], tuple(members), v.get("none_label", ""))
            )

    rules: list[Implication] = []
    for k, t in enumerate(ck.tables(doc, "implies", required=False)):
        then_raw = t.get("then")
        table = {key: value for key, value in t.items() if key != "then"}
        v, span, anchor = ck.fields(
            doc, "implies", k, table, {"when": "str", "answer": "str"}, {"why": "str"}
        )
        if not {"when", "answer"} <= v.keys():
            continue
        ok = True
        when = known(v["when"], _key_line(doc, span, "when", anchor), "implication")
        if v["answer"] not in ("yes", "no"):
            ck.error(
                doc.rel,
                _key_line(doc, span, "answer", anchor),
                f'implication on "{v["when"]}" has answer "{v["answer"]}"',
                'write answer = "yes" or "no"',
            )
            ok = False
        if not isinstance(then_raw, dict) or not then_raw:
            ck.error(
                doc.rel,
                _key_line(doc, span, "then", anchor),
                f'implication on "{v["when"]}" implies nothing',
                'write then = { <id> = "yes" or "no", ... }',
            )
            continue
        then = []
        for sid, answer in then_raw.items():
            line = doc.lines.value(span, "then", answer) or _key_line(doc, span, "then", anchor)
            cid = known(sid, line, "implication")
            if cid is None:
                ok = False
            elif answer not in ("yes", "no"):
                ck.error(
                    doc.rel,
                    line,
                    f'implication on "{v["when"]}" gives "{sid}" the answer {answer!r}',
                    'each implied answer is "yes" or "no"',
                )
                ok = False
            elif cid == when:
                ck.error(doc.rel, line, f'"{sid}" implies itself', "remove it from its own `then`")
                ok = False
            else:
                then.append((cid, answer))
        if ok and when is not None:
            rules.append(Implication(when, v["answer"], tuple(then), v.get("why", "")))
    return groups, rules


#: What grades.toml may set: the answer model's numbers (not the threshold or the pick model,
#: which are the responder's choices, not facts about the knowledge).
GRADE_KEYS = (
    "sensitivity",
    "leak",
    "hallmark",
    "occasional",
    "long_row_exponent",
    "frequency_leak",
    "class_borrow",
)


def _check_grades(ck: _Checker, doc: _Doc) -> dict:
    """grades.toml: the answer model's numbers, each checked as the evidence mode checks it
    (the grades in order, hallmark > common > occasional > leak)."""
    from responder.engine.evidence import EvidenceError, EvidenceSettings  # noqa: PLC0415

    ck.top_keys(doc, GRADE_KEYS)
    top = doc.lines.top()
    values = {}
    for key in GRADE_KEYS:
        if key not in doc.data:
            continue
        value = doc.data[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            ck.error(
                doc.rel,
                doc.lines.key(top, key),
                f"`{key}` must be a number, not {value!r}",
                f"write {key} = 0.5",
            )
            continue
        values[key] = float(value)
    try:
        EvidenceSettings(**values)
    except EvidenceError as exc:
        line = doc.lines.key(top, exc.field) if exc.field else None
        ck.error(doc.rel, line, str(exc), "change the value so each grade stays above the next")
        return {}
    return values


def _check_classes(ck: _Checker, doc: _Doc):
    ck.top_keys(doc, ("class",))
    classes: list[ChemicalClass] = []
    seen: dict[str, int | None] = {}
    for k, t in enumerate(ck.tables(doc, "class", required=True)):
        v, _, anchor = ck.fields(
            doc,
            "class",
            k,
            t,
            {"id": "str", "label": "str"},
            {"syndrome": "str", "description": "str", "short_label": "str"},
        )
        if "id" not in v or "label" not in v:
            continue
        short = v.get("short_label", "")
        if len(short) > MAX_SHORT_LABEL:
            ck.error(
                doc.rel,
                doc.lines.key(doc.lines.table("class", k), "short_label") or anchor,
                f"short_label is {len(short)} characters",
                f"keep a short_label to {MAX_SHORT_LABEL} characters (it is shown where "
                "space is short); the label can be longer",
            )
            short = ""
        if ck.new_id(doc.rel, anchor, "class", v["id"], seen):
            classes.append(
                ChemicalClass(
                    v["id"],
                    v["label"],
                    v.get("syndrome", ""),
                    v.get("description", ""),
                    short_label=short,
                )
            )
    return classes


def _value_line(lines: _Lines, path: list) -> int | None:
    """Line of a value given by its key path, e.g. ["chemical", 3, "prior"]."""
    if len(path) >= 3 and isinstance(path[1], int) and isinstance(path[2], str):
        span = lines.table(str(path[0]), path[1])
        return lines.key(span, path[2]) or (span[0] if span else None)
    if path and isinstance(path[0], str):
        return lines.key(lines.top(), path[0])
    return None


def _key_line(doc: _Doc, span, key: str, anchor: int | None) -> int | None:
    """Line of ``key`` in a table, else the table's anchor line."""
    return doc.lines.key(span, key) or anchor


@dataclass
class _Seen:
    """What earlier chemical files defined: names, CAS numbers and ids -> where."""

    names: dict
    cas: dict
    ids: dict


def _check_chemical_file(
    ck: _Checker,
    doc: _Doc,
    symptom_ids: set[str] | None,
    aliases: dict[str, str],
    class_ids: set[str] | None,
    seen: _Seen,
):
    ck.top_keys(doc, ("class", "chemical"))
    class_id = doc.data.get("class")
    class_line = doc.lines.key(doc.lines.top(), "class")
    if class_id is None:
        known = ", ".join(sorted(class_ids)) if class_ids else "see classes.toml"
        ck.error(
            doc.rel,
            1,
            "the file does not say its class",
            f'add class = "<class id>" at the top, above the first [[chemical]] '
            f"(known classes: {known})",
        )
    elif not isinstance(class_id, str):
        ck.error(
            doc.rel,
            class_line,
            f"`class` must be a quoted class id, not {class_id!r}",
            'write class = "<class id>"',
        )
        class_id = None
    elif (bad := _field_problem(check_name, class_id, "`class`")) is not None:
        ck.error(doc.rel, class_line, bad.problem, bad.fix)
        class_id = None
    elif class_ids is not None and class_id not in class_ids:
        ck.error(
            doc.rel,
            class_line,
            f'unknown class "{class_id}"',
            _suggest(class_id, class_ids, "class", CLASSES_FILE),
        )
        class_id = None

    required = {"name": "str", "symptoms": "list", "sources": "list"}
    optional = {
        "scene": "list",
        "id": "str",
        "un": "str",
        "source_checked": "bool",
        "prior": "number",
        "notes": "str",
    }
    (required if ck.strict else optional)["cas"] = "str"
    tables = ck.tables(doc, "chemical", required=False)
    if "chemical" not in doc.data and class_id is not None:
        ck.warn(
            doc.rel, 1, "the file has no [[chemical]] tables", "add chemicals or delete the file"
        )
    chemicals: list[Chemical] = []
    n_evidence = 0  # [[chemical.evidence]] tables seen so far in this file
    for k, t in enumerate(tables):
        t = dict(t)
        raw_evidence = t.pop("evidence", None)
        if raw_evidence == []:  # `evidence = []` records nothing: sources are still needed
            raw_evidence = None
        # `sources` may be left out when the evidence documents name them
        need = {
            key: kind
            for key, kind in required.items()
            if not (key == "sources" and raw_evidence is not None)
        }
        v, span, anchor = ck.fields(doc, "chemical", k, t, need, {**optional, "sources": "list"})
        ok = need.keys() <= v.keys()
        name = v.get("name", "").strip()
        label = f'"{name}"' if name else f"chemical #{k + 1}"

        cas = v.get("cas")
        if cas is not None:
            bad = cas_problem(cas.strip())
            if bad:
                ck.error(doc.rel, _key_line(doc, span, "cas", anchor), f"{label}: {bad[0]}", bad[1])
                ok = False
                cas = None  # a wrong number says nothing about duplicates
            else:
                cas = cas.strip()
        un = v.get("un")
        if un is not None:
            bad = un_problem(un.strip())
            if bad:
                ck.error(doc.rel, _key_line(doc, span, "un", anchor), f"{label}: {bad[0]}", bad[1])
                ok = False
            else:
                un = un.strip()

        symptoms = v.get("symptoms")
        current: set[str] = set()
        if symptoms is not None:
            if not symptoms:
                ck.error(
                    doc.rel,
                    _key_line(doc, span, "symptoms", anchor),
                    f"{label} has an empty symptom list",
                    "list the acute symptoms its source names; a chemical with none "
                    "cannot be identified, so leave it out instead",
                )
                ok = False
        written: set[str] = set()
        # `symptoms` lists the victim's signs, `scene` what is seen or told on scene; both
        # are cells of the chemical's row
        for key in ("symptoms", "scene"):
            for sid in v.get(key, []) if (key == "scene" or symptoms is not None) else []:
                line = doc.lines.value(span, key, sid) or anchor
                cid = _current_id(ck, doc, line, label, sid, symptom_ids, aliases)
                if cid is None:
                    ok = False
                elif sid in written:
                    ck.warn(
                        doc.rel,
                        line,
                        f"{label} lists {'symptom' if key == 'symptoms' else 'observation'} "
                        f'"{sid}" twice',
                        "remove the repeat",
                    )
                # a merged id listed beside the id that took it over is one cell, silently:
                # files written before the merge stay valid (ids are a contract)
                current.add(cid)
                written.add(sid)

        evidence, n_evidence, ev_ok = _check_evidence(
            ck,
            doc,
            raw_evidence,
            n_evidence,
            span,
            anchor,
            label,
            current if ok else None,
            symptom_ids,
            aliases,
        )
        ok = ok and ev_ok

        sources = list(v.get("sources", []))
        if "sources" in v:
            if not sources:
                ck.error(
                    doc.rel,
                    _key_line(doc, span, "sources", anchor),
                    f"{label} has an empty sources list",
                    "name at least one document the symptoms come from, e.g. "
                    '["NIOSH NPG: Chlorine"]',
                )
                ok = False
            for src in sources:
                bad = source_problem(src, ck.strict)
                if bad:
                    ck.error(
                        doc.rel,
                        doc.lines.value(span, "sources", src) or anchor,
                        f"{label}: {bad[0]}",
                        bad[1],
                    )
                    ok = False
        sources += [e.title for e in evidence if e.title not in sources]

        supported = frozenset().union(*(e.symptoms for e in evidence))
        for sid in v.get("scene", []):
            cid = aliases.get(sid, sid)
            if ok and cid not in supported:
                ck.warn(
                    doc.rel,
                    doc.lines.value(span, "scene", sid) or anchor,
                    f'{label}: scene cell "{sid}" has no source; it counts as unverified '
                    "(occasional at most)",
                    "add the [[chemical.evidence]] table of the document that states it, or "
                    "remove the cell",
                )

        checked = v.get("source_checked", False)
        if checked and ok and raw_evidence is None:
            ck.warn(
                doc.rel,
                _key_line(doc, span, "source_checked", anchor),
                f"{label} says source_checked = true but records no [[chemical.evidence]]; "
                "it counts as not checked",
                "add one [[chemical.evidence]] table per document read (title, url, the "
                "symptoms it supports), or set source_checked = false",
            )
            checked = False
        elif checked and ok:
            missing = current - frozenset().union(*(e.symptoms for e in evidence))
            if missing:
                ck.error(
                    doc.rel,
                    _key_line(doc, span, "source_checked", anchor),
                    f"{label} says source_checked = true but no evidence document supports "
                    + ", ".join(f'"{m}"' for m in sorted(missing)),
                    "add those symptoms to the [[chemical.evidence]] that lists them, or "
                    "set source_checked = false until a document is read",
                )
                ok = False

        prior = v.get("prior")
        if prior is not None:
            # 1e308 passes as a number, but two of them overflow the normalising sum
            try:
                prior = check_number(
                    prior,
                    f"{label}: prior",
                    *PRIOR_RANGE,
                    "priors are positive relative weights: give e.g. 0.5 or 3 (1.0 is the "
                    "default), or remove the key",
                )
            except FieldError as exc:
                ck.error(doc.rel, _key_line(doc, span, "prior", anchor), exc.problem, exc.fix)
                ok = False

        chem_id = v.get("id")
        id_line = _key_line(doc, span, "id", anchor)
        if chem_id is not None and not _ID_RE.match(chem_id):
            ck.error(
                doc.rel,
                id_line,
                f'{label}: id "{chem_id}" is not a valid id',
                'use lower-case letters, digits and "_" only, e.g. "sarin"',
            )
            ok = False
            chem_id = None
        elif chem_id is None and name:
            chem_id = chemical_slug(name)
            if not chem_id:
                ck.error(
                    doc.rel,
                    anchor,
                    f"{label}: no id can be made from its name",
                    'add id = "<lower-case letters, digits and _>"',
                )
                ok = False
                chem_id = None
        if chem_id:
            same_name = chem_id in seen.ids and seen.ids[chem_id][0].casefold() == name.casefold()
            if same_name:
                pass  # reported once, as a duplicate name below
            elif chem_id in seen.ids:
                other_name, other_where = seen.ids[chem_id]
                ck.error(
                    doc.rel,
                    id_line,
                    f'{label} has id "{chem_id}", the same as "{other_name}" at {other_where}',
                    'ids must be unique: give one of them its own id = "..."',
                )
                ok = False
            else:
                seen.ids[chem_id] = (name, ck.where(doc.rel, id_line))

        if name:
            key = name.casefold()
            if key in seen.names:
                ck.error(
                    doc.rel,
                    anchor,
                    f'duplicate chemical "{name}": also defined at {seen.names[key]}',
                    "remove one entry, or rename it if they are different chemicals",
                )
                ok = False
            else:
                seen.names[key] = ck.where(doc.rel, anchor)
        if cas:
            if cas in seen.cas:
                other_name, other_where = seen.cas[cas]
                ck.error(
                    doc.rel,
                    _key_line(doc, span, "cas", anchor),
                    f'{label} has CAS {cas}, the same as "{other_name}" at {other_where}',
                    "one of the two CAS numbers is wrong, or they are the same chemical: "
                    "keep one entry",
                )
                ok = False
            else:
                seen.cas[cas] = (name, ck.where(doc.rel, _key_line(doc, span, "cas", anchor)))

        if ok and class_id is not None:
            chemicals.append(
                Chemical(
                    name=name,
                    cas=cas or "",
                    un=un,
                    class_id=class_id,
                    symptoms=frozenset(current),
                    sources=tuple(sources),
                    source_checked=checked,
                    prior=None if prior is None else float(prior),
                    notes=v.get("notes", ""),
                    file=ck.display(doc.rel),
                    line=anchor,
                    id=chem_id,
                    evidence=tuple(evidence),
                )
            )
    return chemicals, len(tables)


def _current_id(
    ck: _Checker,
    doc: _Doc,
    line: int | None,
    label: str,
    sid: str,
    symptom_ids: set[str] | None,
    aliases: dict[str, str],
) -> str | None:
    """The current id of a symptom id or alias used in a chemical file (None: unknown)."""
    if symptom_ids is None or sid in symptom_ids:
        return sid
    if sid in aliases:
        return aliases[sid]
    ck.error(
        doc.rel,
        line,
        f'{label}: unknown symptom id "{sid}"',
        _suggest(sid, symptom_ids | aliases.keys(), "symptom", SYMPTOMS_FILE),
    )
    return None


def _check_evidence(
    ck: _Checker,
    doc: _Doc,
    raw,
    n_before: int,
    span,
    anchor: int | None,
    label: str,
    symptoms: set[str] | None,
    symptom_ids: set[str] | None,
    aliases: dict[str, str],
) -> tuple[list[Evidence], int, bool]:
    """Check a chemical's [[chemical.evidence]] tables.

    ``symptoms`` are the chemical's current symptom ids (None when they could not be read,
    to avoid a cascade of messages). Returns the evidence, the running count of evidence
    tables in the file, and whether all was well.
    """
    if raw is None:
        return [], n_before, True
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        ck.error(
            doc.rel,
            _key_line(doc, span, "evidence", anchor),
            f"{label}: `evidence` is not a list of [[chemical.evidence]] tables",
            "write one [[chemical.evidence]] table per document, after the chemical's "
            "other keys, with title, url and symptoms",
        )
        return [], n_before, False
    required = {"title": "str"}
    optional = {"url": "str", "notes": "str", **{key: "list" for key in EVIDENCE_GRADE_KEYS}}
    if ck.strict:
        required["url"] = optional.pop("url")
    ok = True
    out: list[Evidence] = []
    for k, e in enumerate(raw):
        tname = "chemical.evidence"
        v, espan, eanchor = ck.fields(doc, tname, n_before + k, e, required, optional)
        good = required.keys() <= v.keys()
        title = v.get("title", "").strip()
        if title:
            bad = source_problem(title, ck.strict)
            if bad:
                ck.error(
                    doc.rel, _key_line(doc, espan, "title", eanchor), f"{label}: {bad[0]}", bad[1]
                )
                good = False
        url = v.get("url", "").strip()
        if "url" in v and not _URL_RE.match(url):
            ck.error(
                doc.rel,
                _key_line(doc, espan, "url", eanchor),
                f'{label}: evidence url "{url}" is not a web address',
                'give the address the document was read at, e.g. "https://www.cdc.gov/..."',
            )
            good = False
        if not any(key in e for key in EVIDENCE_GRADE_KEYS):
            ck.error(
                doc.rel,
                eanchor,
                f'{label}: evidence "{title}" supports no cell',
                "list what the document supports: symptoms = [...] or scene = [...] (graded "
                "common), hallmark = [...] (most victims show it) or occasional = [...]",
            )
            good = False
        graded: dict[str, set[str]] = {grade: set() for grade in GRADES}
        for key in EVIDENCE_GRADE_KEYS:
            for sid in v.get(key, []):
                line = doc.lines.value(espan, key, sid) or eanchor
                cid = _current_id(ck, doc, line, label, sid, symptom_ids, aliases)
                if cid is None:
                    good = False
                elif symptoms is not None and cid not in symptoms:
                    ck.error(
                        doc.rel,
                        line,
                        f'{label}: evidence "{title}" supports "{sid}", which is not in the '
                        "chemical's symptoms or scene",
                        "add it to the chemical's symptoms or scene if the document lists "
                        "it, or remove it from this evidence",
                    )
                    good = False
                else:
                    graded[EVIDENCE_GRADE_KEYS[key]].add(cid)
        ok = ok and good
        if good:
            out.append(
                Evidence(
                    title,
                    url,
                    frozenset().union(*graded.values()),
                    eanchor,
                    hallmark=frozenset(graded["hallmark"]),
                    occasional=frozenset(graded["occasional"] - graded["common"]),
                )
            )
    return out, n_before + len(raw), ok


def check_files(
    files: Mapping[str, str | bytes | None],
    *,
    name: str,
    origin: str,
    display: Callable[[str], str],
    strict: bool,
) -> KnowledgeBase:
    """Validate a knowledge base given as file texts and build it.

    Parameters
    ----------
    files : mapping of relative path -> text (or bytes)
        ``"symptoms.toml"``, ``"classes.toml"`` and ``"chemicals/<any>.toml"``; a missing
        required file is reported, as is a value of None (the file could not be read).
    name, origin : str
        Stored on the :class:`KnowledgeBase`.
    display : callable
        Turns a relative path into the file name shown in messages.
    strict : bool
        Bundled rules: CAS required and sources must name one of :data:`SOURCE_SERIES`.

    Raises
    ------
    KBError
        With every error found.
    """
    ck = _Checker(display, strict)
    digest = hashlib.sha256()
    texts: dict[str, str] = {}
    for rel in sorted(files):
        raw = files[rel]
        if raw is None:
            ck.error(
                rel, None, "the file could not be read", "check that it exists and is readable"
            )
            continue
        if isinstance(raw, InputRejected):  # a FIFO, a device, a dangling link, too big...
            ck.error(rel, raw.line, raw.problem, raw.fix)
            continue
        data = raw.encode("utf-8") if isinstance(raw, str) else raw
        digest.update(rel.encode() + b"\0" + data + b"\0")
        try:
            texts[rel] = decode_text(data, display(rel), "knowledge-base file")
        except InputRejected as exc:
            ck.error(rel, exc.line, exc.problem, exc.fix)

    for rel in (SYMPTOMS_FILE, CLASSES_FILE):
        if rel not in files:
            ck.error(
                rel,
                None,
                "the file is missing",
                f"a knowledge base folder needs {SYMPTOMS_FILE}, {CLASSES_FILE} and "
                f"{CHEMICALS_DIR}/*.toml",
            )

    vocab = _Vocabulary()
    symptom_ids = class_ids = None  # None: unknown because the file is broken
    if SYMPTOMS_FILE in texts and (doc := ck.parse(SYMPTOMS_FILE, texts[SYMPTOMS_FILE])):
        _check_vocabulary(ck, doc, vocab, "symptom")
        if SCENE_FILE in texts and (doc := ck.parse(SCENE_FILE, texts[SCENE_FILE])):
            _check_vocabulary(ck, doc, vocab, "observation")
        # ids of symptoms dropped for a bad category still count as known: no cascade of
        # "unknown symptom" errors in the chemical files
        symptom_ids = set(vocab.symptom_line) or None
    categories, symptoms, sym_line, aliases = (
        vocab.categories,
        vocab.symptoms,
        vocab.symptom_line,
        vocab.aliases,
    )
    exclusive: list[ExclusiveGroup] = []
    implications: list[Implication] = []
    if (
        symptom_ids is not None
        and CONSISTENCY_FILE in texts
        and (doc := ck.parse(CONSISTENCY_FILE, texts[CONSISTENCY_FILE]))
    ):
        exclusive, implications = _check_consistency(ck, doc, symptom_ids, aliases)
    answer_model: dict = {}
    if GRADES_FILE in texts and (doc := ck.parse(GRADES_FILE, texts[GRADES_FILE])):
        answer_model = _check_grades(ck, doc)
    classes = []
    if CLASSES_FILE in texts and (doc := ck.parse(CLASSES_FILE, texts[CLASSES_FILE])):
        classes = _check_classes(ck, doc)
        class_ids = {c.id for c in classes} or None

    chem_files = [r for r in sorted(texts) if r.startswith(CHEMICALS_DIR + "/")]
    if not any(r.startswith(CHEMICALS_DIR + "/") for r in files):
        ck.error(
            CHEMICALS_DIR,
            None,
            "there are no chemical files",
            f"add {CHEMICALS_DIR}/<class id>.toml files with [[chemical]] tables",
        )
    chemicals: list[Chemical] = []
    n_tables = 0
    seen = _Seen(names={}, cas={}, ids={})
    for rel in chem_files:
        doc = ck.parse(rel, texts[rel])
        if doc is None:
            n_tables += 1  # a broken file may hold chemicals: don't also say there are none
            continue
        found, n = _check_chemical_file(ck, doc, symptom_ids, aliases, class_ids, seen)
        chemicals += found
        n_tables += n
    if chem_files and n_tables == 0:
        ck.error(
            CHEMICALS_DIR,
            None,
            "no file in it has a [[chemical]] table",
            "add at least one chemical",
        )

    if not ck.errors:
        # an observation that only implies others ("walking or talking") needs no chemical
        used = set().union(*(c.symptoms for c in chemicals)) | {i.when for i in implications}
        for s in symptoms:
            if s.id not in used:
                ck.warn(
                    vocab.symptom_file[s.id],
                    sym_line[s.id],
                    f"no chemical has {'symptom' if s.kind == 'symptom' else 'observation'} "
                    f'"{s.id}"',
                    "it can never narrow the list: add it to chemicals whose sources name "
                    "it, or remove it",
                )
        have = {c.class_id for c in chemicals}
        for c in classes:
            if c.id not in have:
                ck.warn(
                    CLASSES_FILE,
                    None,
                    f'class "{c.id}" has no chemicals',
                    f"add {CHEMICALS_DIR}/{c.id}.toml or remove the class",
                )
    if ck.errors:
        # file by file in the order they were checked, then by line
        rank: dict[str, int] = {}
        for issue in ck.errors:
            rank.setdefault(issue.file, len(rank))
        raise KBError(sorted(ck.errors, key=lambda i: (rank[i.file], i.line or 0)))

    order = {c.id: k for k, c in enumerate(classes)}
    chemicals.sort(key=lambda c: order[c.class_id])  # stable: file and position order kept
    return KnowledgeBase(
        name=name,
        origin=origin,
        categories=tuple(categories),
        symptoms=tuple(symptoms),
        classes=tuple(classes),
        chemicals=tuple(chemicals),
        warnings=tuple(ck.warnings),
        digest=digest.hexdigest(),
        exclusive_groups=tuple(exclusive),
        implications=tuple(implications),
        answer_model=answer_model,
    )


# --- reading folders ----------------------------------------------------------------------


def _read_tree(root) -> dict[str, bytes | InputRejected | None]:
    """The knowledge-base files under ``root`` (a Path or importlib Traversable).

    Every ``.toml`` entry is read, so that a FIFO, a device or a dangling symbolic link among
    them is reported rather than skipped or waited on.
    """
    files: dict[str, bytes | InputRejected | None] = {}
    for rel in (SYMPTOMS_FILE, SCENE_FILE, CONSISTENCY_FILE, GRADES_FILE, CLASSES_FILE):
        entry = root.joinpath(rel)
        if _present(entry):
            files[rel] = _read(entry)
    chem = root.joinpath(CHEMICALS_DIR)
    if chem.is_dir():
        for entry in sorted(chem.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".toml") and _present(entry):
                files[f"{CHEMICALS_DIR}/{entry.name}"] = _read(entry)
    return files


def _present(entry) -> bool:
    """Whether a directory entry exists at all (a dangling symbolic link does)."""
    if isinstance(entry, Path):
        return os.path.lexists(entry)
    return entry.is_file()


def _read(entry) -> bytes | InputRejected | None:
    if isinstance(entry, Path):
        try:
            return read_bytes(entry, "knowledge-base file")
        except InputRejected as exc:
            return exc
    try:
        return entry.read_bytes()
    except OSError:
        return None


def bundled_root():
    """Location of the bundled knowledge base: the ``responder.bundled_kb`` resources."""
    try:
        root = importlib.resources.files("responder.bundled_kb")
        if root.joinpath(SYMPTOMS_FILE).is_file():
            return root
    except ModuleNotFoundError:
        pass
    raise KBError(
        [
            KBIssue(
                "responder.bundled_kb",
                None,
                "the bundled knowledge base is not installed",
                "reinstall responder (pip install -e . in a checkout), or pass --kb PATH to a "
                "knowledge base",
            )
        ]
    )


def _same_place(a, b) -> bool:
    try:
        return Path(str(a)).resolve() == Path(str(b)).resolve()
    except (OSError, ValueError):
        return False


def load_bundled() -> KnowledgeBase:
    """Load and validate the knowledge base shipped with responder (strict source rules)."""
    root = bundled_root()
    return _checked(
        _read_tree(root),
        name=BUNDLED_NAME,
        origin=str(root),
        display=lambda rel: str(root.joinpath(rel)),
        strict=True,
    )


def _checked(files, *, name: str, origin: str, display, strict: bool) -> KnowledgeBase:
    """:func:`check_files`, with its engine problem built, or the same knowledge base from
    the cache when these files were checked before by this code (:mod:`responder.kb.cache`)."""
    from responder.kb.cache import cache_key, cached  # noqa: PLC0415

    def build() -> KnowledgeBase:
        kb = check_files(files, name=name, origin=origin, display=display, strict=strict)
        kb.problem  # noqa: B018 (built now, so it is kept with the knowledge base)
        return kb

    return cached(cache_key(files, name=name, origin=origin, strict=strict), build)


def load_kb(
    path: str | Path, *, name: str | None = None, strict: bool | None = None
) -> KnowledgeBase:
    """Load and validate a knowledge base folder.

    Parameters
    ----------
    path : str or Path
        A folder holding symptoms.toml, classes.toml and chemicals/*.toml.
    name : str, optional
        Name to record; defaults to the folder name.
    strict : bool, optional
        Apply the bundled rules (CAS required, sources from the public series). By default
        only when ``path`` is the bundled knowledge base's own folder.

    Raises
    ------
    KBError
    """
    root = Path(path).expanduser()
    if not root.is_dir():
        problem = "does not exist" if not root.exists() else "is not a folder"
        raise KBError(
            [
                KBIssue(
                    str(root),
                    None,
                    f"the knowledge base folder {problem}",
                    f"give a folder holding {SYMPTOMS_FILE}, {CLASSES_FILE} and "
                    f"{CHEMICALS_DIR}/*.toml",
                )
            ]
        )
    if strict is None:
        try:
            strict = _same_place(root, bundled_root())
        except KBError:
            strict = False
    return _checked(
        _read_tree(root),
        name=name or root.resolve().name,
        origin=str(root),
        display=lambda rel: str(root / rel),
        strict=strict,
    )
