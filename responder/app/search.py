"""One ranking of symptoms and scene observations for `/` and the command palette.

An observation is found by its label or by any of its synonyms (lay and clinical words such
as "miosis", "fits" or "rotten eggs") or retired ids. A name equal to the typed text comes
first; then names whose words the typed words start, or abbreviate ("shrt brth" finds "Short
of breath"), ranked by Textual's fuzzy matcher. Letters merely scattered through a name are
no match ("green" does not find "Bleeding or bruising"): a scene word is never taken for an
unrelated symptom. When nothing matches the text as typed, a word a letter or two from a
name's word (two for seven letters or more) is taken for a slip of the keys ("vommiting",
"siezure", "nausia"). Both screens list the same observations in the same order for the same
text, and say which synonym matched.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from textual.fuzzy import Matcher

from responder.kb.identifiers import fold_name

# A synonym or old id is almost as good as the label; the category only breaks ties.
LABEL_WEIGHT, SYNONYM_WEIGHT, ID_WEIGHT = 1.0, 0.95, 0.8
#: The score of a name equal to the typed text: above any fuzzy score.
EXACT_SCORE = 1000.0


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
    typed = fold_name(query)
    found = []
    for order, s in enumerate(symptoms):
        best, via = 0.0, None
        for name, weight, is_synonym in _names(s):
            folded = fold_name(name)
            if folded == typed:
                score = EXACT_SCORE * weight
            elif abbreviates(typed, folded):
                score = matcher.match(name) * weight
            else:
                continue
            if score > best:
                best, via = score, (name if is_synonym else None)
        if best > 0:
            found.append((-best, order, SymptomMatch(s, best, via)))
    if not found:
        found = _misspelt(symptoms, typed)
    found.sort(key=lambda t: (t[0], t[1]))
    out = [m for _, _, m in found]
    return out[:limit] if limit else out


def _misspelt(symptoms, typed: str) -> list[tuple[float, int, SymptomMatch]]:
    """Symptoms a typed text misspells ("vommiting", "siezure", "nausia"): every typed word
    abbreviates a word of the name or is a letter or two from it (:func:`typo_distance`);
    fewest slips first, each scored below any match of the text as typed."""
    words = typed.split()
    if not words or not any(len(w) >= MIN_TYPO_WORD for w in words):
        return []
    found = []
    for order, s in enumerate(symptoms):
        best, via = None, None
        for name, _weight, is_synonym in _names(s):
            slips = _slips(words, _words(name))
            if slips and (best is None or slips < best):
                best, via = slips, (name if is_synonym else None)
        if best is not None:
            score = 1.0 / (1 + best)
            found.append((-score, order, SymptomMatch(s, score, via)))
    return found


#: A typed word shorter than this is never taken for a misspelling (too many near words).
MIN_TYPO_WORD = 4


@lru_cache(maxsize=4096)
def _words(name: str) -> tuple[str, ...]:
    return tuple(fold_name(name).split())


def _slips(typed_words: list[str], name_words: list[str]) -> int | None:
    """Letters to change for every typed word to be a word of the name (an abbreviation
    costs none); None when a word is too far from all of them, or nothing was misspelt."""
    total = 0
    for w in typed_words:
        if any(_abbreviation(w, word) for word in name_words):
            continue
        if len(w) < MIN_TYPO_WORD:
            return None
        allowed = 1 if len(w) < 7 else 2
        near = [word for word in name_words if abs(len(word) - len(w)) <= allowed]
        cost = min((typo_distance(w, word) for word in near), default=allowed + 1)
        if cost > allowed:
            return None
        total += cost
    return total or None


def typo_distance(a: str, b: str) -> int:
    """Letters added, dropped, changed or two swapped to turn ``a`` into ``b`` (the
    optimal-string-alignment distance)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(
                prev[j] + 1,
                row[j - 1] + 1,
                prev[j - 1] + (a[i - 1] != b[j - 1]),
            )
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]


def abbreviates(typed: str, name: str) -> bool:
    """Whether every typed word abbreviates a word of ``name`` (both folded): it starts
    with the same letter and its letters come in order ("brth" in "breath"), or it is a part
    of the name's text ("yellow green" in "yellow green cloud")."""
    if not typed:
        return True
    if typed in name:
        return True
    words = name.split()
    return all(any(_abbreviation(w, word) for word in words) for w in typed.split())


def _abbreviation(typed: str, word: str) -> bool:
    if not word or typed[0] != word[0]:
        return False
    pos = 0
    for ch in typed:
        pos = word.find(ch, pos) + 1
        if pos == 0:
            return False
    return True
