"""The knowledge base: symptoms, chemical classes and chemicals, loaded and validated.

Use :func:`resolve_kb` to load what ``--kb`` names (``None`` for the bundled one), then
``kb.to_problem()`` for the engine. ``responder kb ...`` commands live in
:mod:`responder.cli.kb`.
"""

from responder.kb.csv_import import import_csv, load_csv
from responder.kb.loader import SOURCE_SERIES, load_bundled, load_kb
from responder.kb.model import (
    Category,
    Chemical,
    ChemicalClass,
    KBError,
    KBIssue,
    KnowledgeBase,
    Symptom,
)
from responder.kb.resolve import available_kbs, resolve_kb

__all__ = [
    "Category",
    "Chemical",
    "ChemicalClass",
    "KBError",
    "KBIssue",
    "KnowledgeBase",
    "SOURCE_SERIES",
    "Symptom",
    "available_kbs",
    "import_csv",
    "load_bundled",
    "load_csv",
    "load_kb",
    "resolve_kb",
]
