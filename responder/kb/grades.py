"""grades.toml: the answer model fitted for a knowledge base (grade probabilities, leaks)."""

from __future__ import annotations

import tomllib
from functools import cache

from responder.kb.checker import Checker, Doc

#: The answer model fitted for this knowledge base (grade probabilities, leaks): optional.
GRADES_FILE = "grades.toml"

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
    "textbook_share",
    "textbook_sensitivity",
    "textbook_leak",
    "several_routes_share",
)

#: How to fix each key of grades.toml, said after what is wrong with it
GRADE_FIXES = {
    "sensitivity": "write a number between 0 and 1 above leak, e.g. sensitivity = 0.85",
    "leak": "write a number between 0 and 1 below sensitivity, e.g. leak = 0.05",
    "hallmark": "change hallmark or occasional so each grade stays above the next",
    "occasional": "change hallmark or occasional so each grade stays above the next",
    "long_row_exponent": "write a number from 0 (no discount) to 1, e.g. long_row_exponent = 0.5",
    "frequency_leak": "write a number from 0 up to (not including) 2, e.g. frequency_leak = 0.5",
    "class_borrow": "write a number from 0 (no borrowing) up to (not including) 1",
    "textbook_share": "write a number from 0 (no textbook presentation) up to (not including) 1",
    "textbook_sensitivity": "write a number between 0 and 1 above textbook_leak",
    "textbook_leak": "write a number between 0 and 1 below textbook_sensitivity",
    "several_routes_share": "write a number from 0 (every victim by one route) to 1 (no route "
    "views)",
}


def check_grades(ck: Checker, doc: Doc) -> dict:
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
        fix = GRADE_FIXES.get(exc.field or "", "change the value named above")
        ck.error(doc.rel, line, str(exc), fix)
        return {}
    return values


@cache
def bundled_grades() -> dict:
    """The bundled knowledge base's fitted answer model (its grades.toml) as key -> number,
    for the command line's help: what it sets, not the engine's default, applies there.
    Empty when it cannot be read (the help then gives the engine's defaults only). Read
    once: every command's parser asks for it."""
    from responder.kb.loader import bundled_root  # noqa: PLC0415

    try:
        text = bundled_root().joinpath(GRADES_FILE).read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, AttributeError, tomllib.TOMLDecodeError):
        return {}
    return {
        k: v
        for k, v in data.items()
        if k in GRADE_KEYS and isinstance(v, (int, float)) and not isinstance(v, bool)
    }
