"""The app's one view of a knowledge base.

Everything the interview app needs from :mod:`responder.kb` goes through this module, so the
screens never depend on the loader's details: labels and "how to check" lines per symptom
(indexed like the engine's queries), chemicals with their class, CAS, UN and sources
(indexed like the engine's objects), classes (indexed like the engine's object groups), and
a forgiving search over names.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from responder.engine.problem import Problem


class KnowledgeError(Exception):
    """The knowledge base could not be loaded; ``str()`` is the message to show."""


@dataclass(frozen=True)
class SymptomInfo:
    index: int
    id: str
    label: str
    category_id: str
    category_label: str
    check: str = ""
    synonyms: tuple[str, ...] = ()  # lay and clinical words, and retired ids, for search


@dataclass(frozen=True)
class ChemicalInfo:
    index: int
    name: str
    cas: str
    un: str
    class_id: str
    class_label: str
    symptoms: frozenset[str]
    sources: tuple[str, ...]
    source_checked: bool = False


@dataclass(frozen=True)
class ClassInfo:
    index: int
    id: str
    label: str
    syndrome: str = ""
    description: str = ""


@dataclass(frozen=True)
class CategoryInfo:
    index: int
    id: str
    label: str
    symptoms: tuple[int, ...]


@dataclass(eq=False)
class Knowledge:
    """A loaded knowledge base, shaped for the app.

    Attributes
    ----------
    name, origin, digest : str
        Which knowledge base this is, where it came from and a hash of its files (recorded in
        journals and exports so a report says exactly which data answered).
    problem : Problem
        The engine's problem; query ``j`` is ``symptoms[j]``, object ``i`` is
        ``chemicals[i]``, object group ``g`` is ``classes[g]``, query group ``c`` is
        ``categories[c]``.
    warnings : list of str
        Problems that do not stop the knowledge base being used.
    """

    name: str
    origin: str
    digest: str
    problem: Problem
    symptoms: tuple[SymptomInfo, ...]
    chemicals: tuple[ChemicalInfo, ...]
    classes: tuple[ClassInfo, ...]
    categories: tuple[CategoryInfo, ...]
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._symptom_index = {s.id: s.index for s in self.symptoms}
        self._chemical_index = {c.name.casefold(): c.index for c in self.chemicals}

    @property
    def symptom_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.symptoms)

    def symptom_index(self, symptom_id: str) -> int | None:
        return self._symptom_index.get(symptom_id)

    def chemical_index(self, name: str) -> int | None:
        return self._chemical_index.get(name.casefold())

    def describe(self) -> dict:
        """Name, origin, digest and size, for journals and exports."""
        return {
            "name": self.name,
            "origin": self.origin,
            "digest": self.digest,
            "chemicals": len(self.chemicals),
            "symptoms": len(self.symptoms),
            "classes": len(self.classes),
        }

    # -- search ------------------------------------------------------------------------------

    def search_symptoms(self, text: str, limit: int | None = None) -> list[SymptomInfo]:
        """Symptoms matching ``text``, best first (all, in file order, for empty text)."""
        # a synonym ("convulsions", "SOB") counts almost as much as the label
        return _rank(
            text, self.symptoms,
            lambda s: ((s.label, 1.0), *((w, 0.95) for w in s.synonyms),
                       (s.id.replace("_", " "), 0.9), (s.category_label, 0.5)), limit,
        )

    def search_chemicals(self, text: str, limit: int | None = None) -> list[ChemicalInfo]:
        """Chemicals matching ``text`` by name, CAS, UN or class, best first."""
        return _rank(text, self.chemicals,
                     lambda c: ((c.name, 1.0), (c.cas, 0.9), (c.un, 0.5), (c.class_label, 0.5)),
                     limit)


# -- loading ---------------------------------------------------------------------------------


def load_knowledge(spec: str | Path | None) -> Knowledge:
    """Load the knowledge base that ``spec`` names (None: the bundled one).

    Raises
    ------
    KnowledgeError
        With one message a person can act on (every problem the loader found, one per line).
    """
    from responder.kb.loader import KBError  # noqa: PLC0415 (keeps import light)
    from responder.kb.resolve import resolve_kb  # noqa: PLC0415

    try:
        kb = resolve_kb(spec)
        problem = kb.to_problem()
    except KBError as exc:
        raise KnowledgeError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise KnowledgeError(f"the knowledge base {spec or 'bundled'} cannot be used: {exc}") from None
    return from_kb(kb, problem)


def from_kb(kb, problem: Problem | None = None) -> Knowledge:
    """Wrap a :class:`responder.kb.KnowledgeBase`."""
    problem = problem if problem is not None else kb.to_problem()
    cat_label = {c.id: c.label for c in kb.categories}
    class_label = {c.id: c.label for c in kb.classes}
    symptoms = tuple(
        SymptomInfo(j, s.id, s.label, s.category, cat_label.get(s.category, s.category),
                    getattr(s, "check", "") or "",
                    (*getattr(s, "synonyms", ()),
                     *(a.replace("_", " ") for a in getattr(s, "aliases", ()))))
        for j, s in enumerate(kb.symptoms)
    )
    chemicals = tuple(
        ChemicalInfo(
            i, c.name, c.cas or "", c.un or "", c.class_id, class_label.get(c.class_id, c.class_id),
            frozenset(c.symptoms), tuple(c.sources), bool(getattr(c, "source_checked", False)),
        )
        for i, c in enumerate(kb.chemicals)
    )
    classes = tuple(
        ClassInfo(g, c.id, c.label, getattr(c, "syndrome", ""), getattr(c, "description", ""))
        for g, c in enumerate(kb.classes)
    )
    categories = tuple(
        CategoryInfo(k, c.id, c.label, tuple(s.index for s in symptoms if s.category_id == c.id))
        for k, c in enumerate(kb.categories)
    )
    # Sanity: the engine's order must be ours.
    assert problem.query_names == tuple(s.id for s in symptoms)
    assert problem.object_names == tuple(c.name for c in chemicals)
    return Knowledge(
        name=kb.name, origin=str(kb.origin), digest=getattr(kb, "digest", "") or "",
        problem=problem, symptoms=symptoms, chemicals=chemicals, classes=classes,
        categories=categories, warnings=[str(w) for w in getattr(kb, "warnings", ())],
    )


# -- fuzzy matching --------------------------------------------------------------------------


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9]+", " ", text.lower())).strip()


def match_score(query: str, text: str) -> float:
    """How well ``query`` matches ``text``: 0 for no match, higher is better.

    Whole-text prefix beats word prefix beats substring beats every query word found beats
    a subsequence of letters (so "shrt brth" finds "Shortness of breath").
    """
    q, t = _fold(query), _fold(text)
    if not q:
        return 1.0
    if not t:
        return 0.0
    if t.startswith(q):
        return 100.0 - len(t) / 100
    if (" " + t).find(" " + q) >= 0:
        return 80.0 - len(t) / 100
    if q in t:
        return 60.0 - len(t) / 100
    words = q.split()
    if len(words) > 1 and all(w in t for w in words):
        return 50.0 - len(t) / 100
    # letters in order, rewarding runs
    pos, score, run = 0, 0.0, 0
    for ch in q.replace(" ", ""):
        k = t.find(ch, pos)
        if k < 0:
            return 0.0
        run = run + 1 if k == pos else 1
        score += run
        pos = k + 1
    return min(40.0, 10.0 + score) - len(t) / 100


def _rank(text, items, fields, limit):
    if not _fold(text):
        out = list(items)
        return out[:limit] if limit else out
    scored = []
    for k, item in enumerate(items):
        # fields are (text, weight): the name counts most; an id, a category or a class
        # mostly break ties
        best = max((match_score(text, f) * w for f, w in fields(item) if f), default=0.0)
        if best > 0:
            scored.append((-best, k, item))
    scored.sort(key=lambda x: (x[0], x[1]))
    out = [item for _, _, item in scored]
    return out[:limit] if limit else out
