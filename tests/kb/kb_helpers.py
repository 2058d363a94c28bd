"""Helpers shared by the knowledge-base loader tests: write a folder, find a line, collect errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from responder.kb import KBError, KBIssue, load_kb


def write_files(root: Path, files: dict[str, str | None]) -> Path:
    """Write ``{relative path: text}`` under ``root`` (None leaves the file out)."""
    for rel, text in files.items():
        if text is not None:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
    return root


def line_of(text: str, snippet: str, occurrence: int = 1) -> int:
    """1-based line of the n-th occurrence of ``snippet`` in ``text``."""
    pos = -1
    for _ in range(occurrence):
        pos = text.index(snippet, pos + 1)
    return text.count("\n", 0, pos) + 1


def errors_of(root: Path, strict: bool = True) -> list[KBIssue]:
    with pytest.raises(KBError) as info:
        load_kb(root, strict=strict)
    err = info.value
    # str() is one block, one "file:line: problem — fix" line per issue
    assert str(err).splitlines() == [str(i) for i in err.issues]
    return list(err.issues)


def only_error(root: Path, strict: bool = True) -> KBIssue:
    issues = errors_of(root, strict)
    assert len(issues) == 1, "\n".join(map(str, issues))
    return issues[0]
