"""One fuzzy ranking of symptoms for `/` and the command palette, with Textual's matcher.

A symptom is found by its label or by any of its synonyms (lay and clinical words such as
"miosis" or "fits") or retired ids; the best-scoring name counts, so both screens list the
same symptoms in the same order for the same text, and say which synonym matched.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.fuzzy import Matcher

# A synonym or old id is almost as good as the label; the category only breaks ties.
LABEL_WEIGHT, SYNONYM_WEIGHT, ID_WEIGHT = 1.0, 0.95, 0.8


@dataclass(frozen=True)
class SymptomMatch:
    """A symptom that matched, its score, and the synonym that matched (None: the label)."""

    symptom: object
    score: float
    via: str | None = None


def _names(symptom) -> Iterable[tuple[str, float, bool]]:
    yield symptom.label, LABEL_WEIGHT, False
    for word in getattr(symptom, "synonyms", ()):
        yield word, SYNONYM_WEIGHT, True
    for old in (symptom.id, *getattr(symptom, "aliases", ())):
        yield old.replace("_", " "), ID_WEIGHT, True


def rank_symptoms(
    symptoms, query: str, limit: int | None = None, matcher: Matcher | None = None
) -> list[SymptomMatch]:
    """Symptoms matching ``query``, best first; every symptom in its order for empty text.

    Ties keep the knowledge base's order, so the ranking is stable between keystrokes.
    """
    symptoms = list(symptoms)
    if not query.strip():
        found = [SymptomMatch(s, 0.0) for s in symptoms]
        return found[:limit] if limit else found
    matcher = matcher or Matcher(query.strip())
    found = []
    for order, s in enumerate(symptoms):
        best, via = 0.0, None
        for name, weight, is_synonym in _names(s):
            score = matcher.match(name) * weight
            if score > best:
                best, via = score, (name if is_synonym else None)
        if best > 0:
            found.append((-best, order, SymptomMatch(s, best, via)))
    found.sort(key=lambda t: (t[0], t[1]))
    out = [m for _, _, m in found]
    return out[:limit] if limit else out
