"""Mutual information from an explicit joint table: the reference the engine's vectorised
gains are checked against."""

from __future__ import annotations

import numpy as np


def add_answers(table: dict, label: int, weight: float, p_yes: float) -> None:
    """Add ``weight`` of mass with label ``label`` that answers yes with chance ``p_yes``."""
    for answer, p in ((1, p_yes), (0, 1 - p_yes)):
        table[(int(label), answer)] = table.get((int(label), answer), 0.0) + weight * p


def information(table: dict) -> float:
    """I(label; answer) in bits from the joint table {(label, answer): mass} (mass sums to 1)."""
    by_label, by_answer = {}, {}
    for (t, a), v in table.items():
        by_label[t] = by_label.get(t, 0.0) + v
        by_answer[a] = by_answer.get(a, 0.0) + v
    return sum(
        v * np.log2(v / (by_label[t] * by_answer[a])) for (t, a), v in table.items() if v > 0
    )
