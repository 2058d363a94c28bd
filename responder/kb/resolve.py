"""Turn what the user typed after ``--kb`` into a loaded knowledge base."""

from __future__ import annotations

import os
from pathlib import Path

from responder import paths
from responder.kb.loader import BUNDLED_NAME, SYMPTOMS_FILE, load_bundled, load_kb
from responder.kb.model import KBError, KBIssue, KnowledgeBase


class KnowledgeError(Exception):
    """The knowledge base could not be loaded; ``str()`` is the message to show."""


def load_knowledge(spec: str | Path | None) -> KnowledgeBase:
    """:func:`resolve_kb` with its problem built, every failure one :class:`KnowledgeError`
    a person can act on (every problem the loader found, one per line)."""
    try:
        kb = resolve_kb(spec)
        kb.problem  # noqa: B018 (built now, so a bad matrix fails here)
    except KBError as exc:
        raise KnowledgeError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise KnowledgeError(
            f"the knowledge base {spec or 'bundled'} cannot be used: {exc}"
        ) from None
    return kb


def available_kbs() -> list[str]:
    """Names ``--kb`` accepts: ``"bundled"`` first, then the imported ones, sorted.

    An imported knowledge base is a folder under ``responder.paths.user_kb_dir()`` holding
    a symptoms.toml (folders being written by an import start with "." and are skipped).
    """
    root = paths.user_kb_dir()
    names = []
    if root.is_dir():
        names = sorted(
            p.name
            for p in root.iterdir()
            if p.is_dir() and not p.name.startswith(".") and (p / SYMPTOMS_FILE).is_file()
        )
    return [BUNDLED_NAME, *names]


def resolve_kb(spec: str | Path | None, *, strict: bool | None = None) -> KnowledgeBase:
    """Load the knowledge base named by ``spec``.

    Parameters
    ----------
    spec : str, Path or None
        None or ``"bundled"``: the bundled knowledge base. An existing path: a knowledge-base
        folder, or a ``.csv`` file read directly by the CSV importer (nothing is stored).
        Otherwise the NAME of a knowledge base made by ``responder kb import``.
    strict : bool, optional
        Apply the bundled knowledge base's rules (CAS required, sources from the public
        series). By default only the bundled knowledge base gets them.

    Raises
    ------
    KBError
        If it fails validation, or no knowledge base has that name (the message lists the
        names available).
    """
    if spec is None or str(spec) == BUNDLED_NAME:
        return load_bundled()
    text = str(spec)
    if not text.strip():  # `--kb "$KB"` with KB unset: not the current folder
        raise KBError(
            [
                KBIssue(
                    '""',
                    None,
                    "the knowledge base is given as an empty name",
                    f"give one of: {', '.join(available_kbs())}; or a folder or .csv path; "
                    "or leave it out for the bundled one",
                )
            ]
        )
    path = Path(text).expanduser()
    if path.is_symlink() and not path.exists():
        raise KBError(
            [
                KBIssue(
                    text,
                    None,
                    f"this is a symbolic link to {os.readlink(path)}, which does not exist",
                    "fix or remove the link",
                )
            ]
        )
    if path.exists():
        if path.is_dir():
            return load_kb(path, strict=strict)
        if path.suffix.lower() == ".csv":
            from responder.kb.csv_import import load_csv  # noqa: PLC0415 (not needed at start)

            return load_csv(path, strict=bool(strict))
        raise KBError(
            [
                KBIssue(
                    text,
                    None,
                    "this file is not a knowledge base",
                    "give a knowledge-base folder, a .csv file, or the name of an imported knowledge base",
                )
            ]
        )
    try:
        named = paths.path_inside(paths.user_kb_dir(), text, "knowledge-base name", resolve=False)
    except paths.UnsafePathError:  # "..", a separator...: no imported knowledge base
        named = None
    if named is not None and (named / SYMPTOMS_FILE).is_file():
        return load_kb(named, name=text, strict=bool(strict))
    names = ", ".join(available_kbs())
    raise KBError(
        [
            KBIssue(
                text,
                None,
                "no knowledge base has this name, and no file or folder has this path",
                f"use one of: {names}; or import a CSV with `responder kb import FILE.csv`",
            )
        ]
    )
