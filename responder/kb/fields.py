"""One validator per kind of field value, shared by every reader of names, labels, texts and
numbers: the knowledge-base loader, the CSV importer and the interchange reader.

A value that fails raises :class:`FieldError`, the one typed error for a bad value, whose
``kind`` says what is wrong: "type", "empty", "length", "control" (a character a terminal
would act on), "range" or "duplicate". Each reader adds where the value is (file and line,
CSV line, interchange key) and reports it its own way.

Names and labels reach the screen, so they are one line of printable text and short enough
to show; longer free texts (notes, descriptions, sources) may span lines but hold no other
control character. :func:`shown` makes any value safe to quote in a message.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable

#: Longest name or label (chemical, symptom, class, category, synonym, id): the bundled
#: knowledge base's longest is under 70 characters.
MAX_NAME_CHARS = 120
#: Longest free text (notes, descriptions, sources, evidence titles and addresses).
MAX_TEXT_CHARS = 4000

# Bidirectional overrides and isolates reorder what a terminal shows (a name could display
# as another); other format characters (zero-width joiners in scripts and emoji) are fine.
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Character categories never printable as part of a name: C0/C1 controls (escape, newline,
# tab, delete), lone surrogates (from JSON "\ud800"), line and paragraph separators.
_UNPRINTABLE_CATEGORIES = frozenset(("Cc", "Cs", "Zl", "Zp"))

KINDS = ("type", "empty", "length", "control", "range", "duplicate")


class FieldError(ValueError):
    """A field value responder will not take.

    ``problem`` says what is wrong (naming the field), ``fix`` how to fix it, ``kind`` is one
    of :data:`KINDS`. ``str()`` is ``"problem; fix"``.
    """

    def __init__(self, problem: str, fix: str, kind: str):
        self.problem, self.fix, self.kind = problem, fix, kind
        super().__init__(f"{problem}; {fix}")


def _unprintable(ch: str, newlines: bool) -> bool:
    if ch == "\n" and newlines:
        return False
    return unicodedata.category(ch) in _UNPRINTABLE_CATEGORIES or ch in _BIDI_CONTROLS


def first_unprintable(text: str, newlines: bool = False) -> int | None:
    """Index of the first character a terminal would act on (or that is not text), else
    None; with ``newlines`` a line break is allowed."""
    if text.isprintable():  # every category above is unprintable to Python too: none here
        return None
    for k, ch in enumerate(text):
        if _unprintable(ch, newlines):
            return k
    return None


def _code(ch: str) -> str:
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b (escape)"}.get(
        ch, f"U+{ord(ch):04X}"
    )


def printable(text: str) -> str:
    """``text`` with every unprintable character escaped (``\\x1b``, ``\\n``), nothing cut."""
    if first_unprintable(text) is None:
        return text
    return "".join(
        ch.encode("unicode_escape").decode("ascii") if _unprintable(ch, False) else ch
        for ch in text
    )


def shown(value: object, limit: int = 60) -> str:
    """``value`` as safe text to quote in a message: unprintable characters escaped, long
    text shortened with its length said."""
    text = value if isinstance(value, str) else repr(value)
    out = printable(text[:limit] if len(text) > limit else text)
    if len(text) > limit:
        out += f"… ({len(text):,} characters)"
    return out


def described(value: object) -> str:
    """A value as the user wrote it, for "must be ..., not X": text in quotes, true/false
    and null in JSON and TOML spelling."""
    if isinstance(value, str):
        return f'the text "{shown(value)}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return shown(value)


def _string(value: object, what: str, max_chars: int, newlines: bool, empty_ok: bool) -> str:
    if not isinstance(value, str):
        raise FieldError(
            f"{what} must be text, not {described(value)}", "write it in double quotes", "type"
        )
    text = value.strip()
    if not text and not empty_ok:
        raise FieldError(f"{what} is empty", f"give the {what}", "empty")
    if len(text) > max_chars:
        raise FieldError(
            f"{what} is {len(text):,} characters long (at most {max_chars:,}): {shown(text)}",
            "shorten it" if newlines else "shorten it: it is shown on one line",
            "length",
        )
    bad = first_unprintable(value, newlines)  # also at the ends: readers may keep them
    if bad is not None:
        raise FieldError(
            f'{what} "{shown(value)}" holds the control character {_code(value[bad])} at '
            f"position {bad + 1}",
            "remove it: names and texts may only hold printable characters"
            + ("" if newlines else " on one line"),
            "control",
        )
    return text


def check_name(
    value: object, what: str, *, max_chars: int = MAX_NAME_CHARS, empty_ok: bool = False
) -> str:
    """A name, label, synonym or id: one line of printable text of at most ``max_chars``
    (stripped of surrounding blanks, which it returns). ``what`` names the field in the
    message, e.g. ``'chemical name'``.

    Raises
    ------
    FieldError
    """
    return _string(value, what, max_chars, newlines=False, empty_ok=empty_ok)


def check_text(
    value: object, what: str, *, max_chars: int = MAX_TEXT_CHARS, empty_ok: bool = True
) -> str:
    """A free text (notes, a description, a source): printable, line breaks allowed, at
    most ``max_chars``; returned stripped.

    Raises
    ------
    FieldError
    """
    return _string(value, what, max_chars, newlines=True, empty_ok=empty_ok)


def check_number(value: object, what: str, low: float, high: float, fix: str) -> float:
    """A number (not true/false, not text) in ``low .. high``, as a float.

    Integers of any size are compared exactly, never converted first: a 400-digit integer
    is out of range, not an ``OverflowError``.

    Raises
    ------
    FieldError
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FieldError(f"{what} must be a number, not {described(value)}", fix, "type")
    if low > 0 and not value > 0:  # also NaN
        raise FieldError(
            f"{what} is {number_text(value)}, which is not a positive number", fix, "range"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise FieldError(f"{what} is {value}, not a finite number", fix, "range")
    if not low <= value <= high:
        text = number_text(value)
        raise FieldError(f"{what} is {text}, outside {low:g} .. {high:g}", fix, "range")
    return float(value)


def number_text(value: float) -> str:
    """A number for a message; a huge integer by its length (Python will not print more
    than 4300 digits)."""
    if not isinstance(value, int) or abs(value) < 10**15:
        return f"{value:g}"
    if value.bit_length() > 14_000:
        return "an integer of more than 4,000 digits"
    return f"a {len(str(abs(value)))}-digit integer"


def check_unique(values: Iterable[str], what: str, fold: bool = True) -> None:
    """Refuse a repeated value (compared case-insensitively and blank-normalised when
    ``fold``), naming both positions (counted from 1).

    Raises
    ------
    FieldError
    """
    seen: dict[str, int] = {}
    for k, value in enumerate(values):
        key = " ".join(value.split()).casefold() if fold else value
        if key in seen:
            raise FieldError(
                f'{what} "{shown(value)}" appears twice (entries {seen[key] + 1} and {k + 1})',
                f"give every {what} once; rename or remove one",
                "duplicate",
            )
        seen[key] = k


__all__ = [
    "FieldError",
    "KINDS",
    "MAX_NAME_CHARS",
    "MAX_TEXT_CHARS",
    "check_name",
    "check_number",
    "check_text",
    "check_unique",
    "described",
    "number_text",
    "printable",
    "first_unprintable",
    "shown",
]
