"""Probabilities as the screens and reports print them: whole percentages that never claim
certainty the evidence does not give."""

from __future__ import annotations


def percent(p: float) -> str:
    """``p`` as a whole percentage; ">99%" for what rounds to 100% and "<1%" for what rounds
    to 0% but is not 0. Never "100%": a posterior rounds to 1 in floating point long before
    the agent is certain, and even the last candidate left by elimination is only certain
    if the knowledge base is complete."""
    return _bounded(p, 0)


def percent_tenths(p: float) -> str:
    """``p`` to a tenth of a percent, for the lists that rank close candidates; by the rule
    of :func:`percent`, never "100.0%" (">99.9%") and "<0.1%" for what rounds to 0.0% but
    is not 0."""
    return _bounded(p, 1)


def _bounded(p: float, digits: int) -> str:
    text = f"{float(p):.{digits}%}"
    shown = float(text[:-1])
    if shown == 0.0 and p > 0.0:
        return f"<{10.0**-digits:.{digits}f}%"
    if shown >= 100.0:
        return f">{100.0 - 10.0**-digits:.{digits}f}%"
    return text
