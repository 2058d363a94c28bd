"""Counts as the screens and messages print them: "1 answer", "7 answers", never
"7 answer(s)"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, the noun in the plural (``plural``, else noun + "s") unless n is 1."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
