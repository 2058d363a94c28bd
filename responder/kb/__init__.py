"""The knowledge base: symptoms, chemical classes and chemicals, loaded and validated.

Use :func:`resolve_kb` to load what ``--kb`` names (``None`` for the bundled one), then
``kb.to_problem()`` for the engine. ``responder kb ...`` commands live in
:mod:`responder.cli.kb`.
"""

import importlib

# Each name is imported from its module on first use: the app's start-up needs the loader and
# the model, not the CSV importer.
_WHERE = {
    "import_csv": "csv_import",
    "load_csv": "csv_import",
    "SOURCE_SERIES": "loader",
    "load_bundled": "loader",
    "load_kb": "loader",
    "Category": "model",
    "Chemical": "model",
    "ChemicalClass": "model",
    "KBError": "model",
    "KBIssue": "model",
    "KnowledgeBase": "model",
    "Symptom": "model",
    "available_kbs": "resolve",
    "resolve_kb": "resolve",
}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


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
