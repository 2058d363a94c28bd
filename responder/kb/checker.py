"""Checking one TOML file of a knowledge base: its issues, its tables and their typed fields.

A :class:`Checker` collects every problem (not just the first) as a :class:`KBIssue` pointing at
a file and line; a :class:`Doc` is one parsed file with its :class:`TomlLines`. The per-file
checks (vocabulary, consistency, grades, chemical files, cases) all report through it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from responder.input_limits import InputRejected, loads_toml
from responder.kb.fields import FieldError, check_name, check_text
from responder.kb.identifiers import ID_FIX, ID_RE
from responder.kb.model import KBIssue
from responder.kb.toml_lines import TomlLines, value_line

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
class Doc:
    """One parsed file: its path relative to the knowledge base, its data and its lines."""

    rel: str
    data: dict
    lines: TomlLines


class Checker:
    """Collects the errors and warnings of the files it checks; ``strict`` applies the bundled
    rules. ``display`` turns a relative path into the name messages show."""

    def __init__(self, display: Callable[[str], str], strict: bool):
        self.display = display
        self.strict = strict
        self.errors: list[KBIssue] = []
        self.warnings: list[KBIssue] = []
        #: (id, its error) for each reference to a symptom id no vocabulary file defines
        self.unknown_symptoms: list[tuple[str, KBIssue]] = []

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
        if not ID_RE.match(ident):
            self.error(rel, line, f'{kind} id "{ident}" is not a valid id', ID_FIX)
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

    def parse(self, rel: str, text: str) -> Doc | None:
        try:
            # number ranges are checked per field, where the message can name it
            data = loads_toml(text, self.display(rel), numbers=False)
        except InputRejected as exc:
            line = (
                exc.line
                or value_line(TomlLines(text), exc.path)
                or (len(text.split("\n")) if exc.kind == "syntax" else None)
            )
            self.error(rel, line, exc.problem, exc.fix)
            return None
        return Doc(rel, data, TomlLines(text))

    def top_keys(self, doc: Doc, allowed: tuple[str, ...]) -> None:
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
    def _header_line(doc: Doc, name: str) -> int | None:
        return next((n for n, nm, _ in doc.lines.headers if nm == name), None)

    def tables(self, doc: Doc, name: str, required: bool) -> list:
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
        doc: Doc,
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
        misspelt: set[str] = set()  # required keys an unknown key's message already names
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
                    if close and close[0] in required and close[0] not in table:
                        misspelt.add(close[0])
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
            # a misspelt key ('tittle') is one message, at its line: not also "has no `title`"
            if key not in table and key not in misspelt:
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
            # a form to fill in: a bare real number would read as this chemical's own
            "cas": '"<its CAS number, as its source gives it>" (chlorine\'s is "7782-50-5")',
            "un": '"<its UN number>" (chlorine\'s is "1017")',
            "symptoms": '["cough", "headache"]',
            "sources": '["NIOSH NPG: <the title of the document read>"]',
            "prior": "1.0",
            "source_checked": "true",
            "id": '"some_id"',
            "observation": '"observed"',
            "leak": "0.05",
            "urgent": "true",
            "synonyms": '["miosis", "small pupils"]',
            "aliases": '["old_id"]',
            "url": '"https://www.cdc.gov/..."',
            "title": '"<source series>: <the document\'s title>" (e.g. "CDC: Facts About Sarin")',
        }
        if key in examples:
            return examples[key]
        return {"str": '"..."', "list": '["..."]', "bool": "true", "number": "1.0"}[kind]


def field_problem(check, value, what: str) -> FieldError | None:
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


def suggest(value: str, known, what: str, where: str) -> str:
    """The fix for an unknown ``value``: the closest ``known`` ids, else where ids are defined."""
    close = difflib.get_close_matches(value, list(known), n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(f'"{c}"' for c in close) + "?"
    return f"use one of the {what} ids defined in {where}"
