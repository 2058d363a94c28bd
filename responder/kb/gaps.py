"""What a knowledge base leaves unsaid: the gaps a maintainer's next source pass should fill.

Three kinds, each weighed differently by the evidence mode (docs/knowledge-base.md, "Finding
the gaps"):

- a scene category in which a chemical has no cell at all is *unrecorded*: its answers there
  barely move that chemical, so the category cannot tell it apart from the others;
- a cell no agency document supports is *unverified* and counts as occasional whatever it is,
  whether no document at all names it or only a supplementary one (a journal article or a
  clinical reference) does;
- a row not checked against its sources (``source_checked``) may list signs no source states.

:func:`find_gaps` reads them off a loaded :class:`~responder.kb.model.KnowledgeBase`; it never
changes it. ``responder kb gaps`` prints the result.
"""

from __future__ import annotations

from dataclasses import dataclass

from responder.kb.identifiers import fold_name
from responder.kb.model import UNVERIFIED, KnowledgeBase


@dataclass(frozen=True)
class CategoryGap:
    """One scene category and the chemicals (ids, knowledge-base order) with no cell in it."""

    id: str
    label: str
    missing: tuple[str, ...]
    chemicals: int

    def to_dict(self) -> dict:
        return {
            "category": self.id,
            "label": self.label,
            "missing": list(self.missing),
            "chemicals": self.chemicals,
        }


@dataclass(frozen=True)
class ChemicalGaps:
    """One chemical's gaps.

    ``unrecorded``: scene category ids with no cell; ``no_document``: listed cells no
    document read supports; ``supplementary_only``: listed cells only a supplementary
    document supports. Both cell lists are unverified, in observation-file order.
    """

    id: str
    name: str
    class_id: str
    source_checked: bool
    unrecorded: tuple[str, ...]
    no_document: tuple[str, ...]
    supplementary_only: tuple[str, ...]

    @property
    def unverified(self) -> tuple[str, ...]:
        return self.no_document + self.supplementary_only

    @property
    def size(self) -> int:
        """How much is missing: unrecorded categories plus unverified cells."""
        return len(self.unrecorded) + len(self.unverified)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "class": self.class_id,
            "source_checked": self.source_checked,
            "unrecorded": list(self.unrecorded),
            "no_document": list(self.no_document),
            "supplementary_only": list(self.supplementary_only),
        }


@dataclass(frozen=True)
class Gaps:
    """Every gap of one knowledge base.

    ``graded`` is False for a knowledge base that records no documents (a CSV import): its
    cells are all alike, so none is called unverified.
    """

    name: str
    graded: bool
    categories: tuple[CategoryGap, ...]
    chemicals: tuple[ChemicalGaps, ...]

    @property
    def unverified_cells(self) -> int:
        return sum(len(c.unverified) for c in self.chemicals)

    @property
    def supplementary_only_cells(self) -> int:
        return sum(len(c.supplementary_only) for c in self.chemicals)

    @property
    def unchecked(self) -> int:
        return sum(not c.source_checked for c in self.chemicals)

    def category(self, category_id: str) -> CategoryGap | None:
        """The category with this id, compared as names are (case, blanks and accents
        ignored: ``fold_name``)."""
        key = fold_name(category_id)
        return next((c for c in self.categories if fold_name(c.id) == key), None)

    def most_missing(self, limit: int | None = None) -> list[ChemicalGaps]:
        """Chemicals with any gap, most missing first (ties in knowledge-base order)."""
        with_gaps = [c for c in self.chemicals if c.size]
        ranked = sorted(with_gaps, key=lambda c: -c.size)
        return ranked if limit is None else ranked[:limit]

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "graded": self.graded,
            "chemicals": len(self.chemicals),
            "unchecked": self.unchecked,
            "unverified_cells": self.unverified_cells,
            "supplementary_only_cells": self.supplementary_only_cells,
            "categories": [c.to_dict() for c in self.categories],
            "chemical_gaps": [c.to_dict() for c in self.chemicals if c.size],
        }


def find_gaps(kb: KnowledgeBase) -> Gaps:
    """The gaps of ``kb``: unrecorded scene categories per chemical (implied cells count as
    recorded, as the engine reads them) and, in a graded knowledge base, unverified cells."""
    B = kb.matrix
    scene = [c for c in kb.categories if c.kind == "scene"]
    recorded = {c.id: B[:, list(c.symptoms)].any(axis=1) for c in scene}
    chemicals = []
    for i, chem in enumerate(kb.chemicals):
        no_document: list[str] = []
        supplementary_only: list[str] = []
        if kb.graded:
            for cell in sorted(chem.symptoms, key=kb.symptom_index):
                if chem.grade(cell) != UNVERIFIED:
                    continue
                named = any(cell in e.symptoms for e in chem.evidence)
                (supplementary_only if named else no_document).append(cell)
        chemicals.append(
            ChemicalGaps(
                chem.id,
                chem.name,
                chem.class_id,
                bool(chem.source_checked),
                tuple(c.id for c in scene if not recorded[c.id][i]),
                tuple(no_document),
                tuple(supplementary_only),
            )
        )
    categories = tuple(
        CategoryGap(
            c.id,
            c.label,
            tuple(chem.id for i, chem in enumerate(kb.chemicals) if not recorded[c.id][i]),
            len(kb.chemicals),
        )
        for c in scene
    )
    return Gaps(kb.name, kb.graded, categories, tuple(chemicals))
