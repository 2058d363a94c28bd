"""The knowledge base in memory: symptoms, classes and chemicals, and its engine problem.

Everything here is plain data, already validated by :mod:`responder.kb.loader`; nothing in this
module reads files.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from responder.engine import Problem


@dataclass(frozen=True)
class KBIssue:
    """One problem found in a knowledge base, pointing at the file and line to edit.

    Attributes
    ----------
    file : str
        The file as the user should open it (a path, or a CSV file for imports).
    line : int or None
        1-based line, or None when the problem is about the whole file.
    problem : str
        What is wrong.
    fix : str
        How to fix it.
    severity : str
        ``"error"`` (the knowledge base cannot be used) or ``"warning"``.
    """

    file: str
    line: int | None
    problem: str
    fix: str
    severity: str = "error"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        kind = "warning: " if self.severity == "warning" else ""
        return f"{where}: {kind}{self.problem} — {self.fix}"


class KBError(ValueError):
    """A knowledge base failed validation; ``issues`` holds every error found, not just the first.

    ``str()`` is one block with one ``file:line: problem — fix`` line per issue.
    """

    def __init__(self, issues: list[KBIssue] | tuple[KBIssue, ...]):
        self.issues = tuple(issues)
        super().__init__("\n".join(str(i) for i in self.issues))


@dataclass(frozen=True)
class Category:
    """A group of symptoms shown together (a query group z, Section 4)."""

    id: str
    label: str


@dataclass(frozen=True)
class Symptom:
    """One yes/no question a responder can check on scene (a query, Section 1.2)."""

    id: str
    label: str
    category: str
    check: str = ""


@dataclass(frozen=True)
class ChemicalClass:
    """A class of chemicals with a common toxic syndrome (an object group y, Section 3)."""

    id: str
    label: str
    syndrome: str = ""
    description: str = ""


@dataclass(frozen=True)
class Chemical:
    """One chemical (an object, Section 1.2) with the acute symptoms its sources list.

    ``file`` and ``line`` say where it is defined (the line of its ``name = ...``), so later
    messages can point there.
    """

    name: str
    cas: str
    un: str | None
    class_id: str
    symptoms: frozenset[str]
    sources: tuple[str, ...]
    source_checked: bool = False
    prior: float | None = None
    notes: str = ""
    file: str = ""
    line: int | None = None

    @property
    def weight(self) -> float:
        """Relative prior weight; 1.0 when the file gives none (uniform prior)."""
        return 1.0 if self.prior is None else float(self.prior)


@dataclass(frozen=True, eq=False)
class KnowledgeBase:
    """A validated knowledge base.

    Attributes
    ----------
    name : str
        ``"bundled"``, the name of an imported knowledge base, or a folder/file stem.
    origin : str
        Where it was loaded from (a folder, a CSV file, or the bundled resources' location).
    categories, symptoms, classes : tuple
        In file order; the symptom order fixes the matrix columns.
    chemicals : tuple of Chemical
        Ordered by class (classes.toml order), then file name, then position in the file.
    warnings : tuple of KBIssue
        Problems that do not stop the knowledge base being used.
    digest : str
        SHA-256 of the files it was read from, to record which version answered.
    """

    name: str
    origin: str
    categories: tuple[Category, ...]
    symptoms: tuple[Symptom, ...]
    classes: tuple[ChemicalClass, ...]
    chemicals: tuple[Chemical, ...]
    warnings: tuple[KBIssue, ...] = ()
    digest: str = ""

    # --- lookups ------------------------------------------------------------------------

    @cached_property
    def symptom_by_id(self) -> dict[str, Symptom]:
        return {s.id: s for s in self.symptoms}

    @cached_property
    def category_by_id(self) -> dict[str, Category]:
        return {c.id: c for c in self.categories}

    @cached_property
    def class_by_id(self) -> dict[str, ChemicalClass]:
        return {c.id: c for c in self.classes}

    @cached_property
    def _chemical_by_key(self) -> dict[str, Chemical]:
        return {c.name.casefold(): c for c in self.chemicals}

    def symptom_label(self, symptom_id: str) -> str:
        """Plain-language label of a symptom id (raises KeyError if unknown)."""
        return self.symptom_by_id[symptom_id].label

    def category_label(self, category_id: str) -> str:
        return self.category_by_id[category_id].label

    def class_label(self, class_id: str) -> str:
        return self.class_by_id[class_id].label

    def chemical(self, name: str) -> Chemical:
        """The chemical with this name, case-insensitively (raises KeyError if unknown)."""
        return self._chemical_by_key[name.casefold()]

    def chemicals_in_class(self, class_id: str) -> tuple[Chemical, ...]:
        return tuple(c for c in self.chemicals if c.class_id == class_id)

    def symptoms_in_category(self, category_id: str) -> tuple[Symptom, ...]:
        return tuple(s for s in self.symptoms if s.category == category_id)

    # --- the engine's view --------------------------------------------------------------

    @property
    def symptom_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.symptoms)

    @cached_property
    def matrix(self) -> np.ndarray:
        """B: ndarray of shape (M chemicals, N symptoms), bool, read-only."""
        col = {s.id: j for j, s in enumerate(self.symptoms)}
        B = np.zeros((len(self.chemicals), len(self.symptoms)), dtype=bool)
        for i, chem in enumerate(self.chemicals):
            B[i, [col[s] for s in chem.symptoms]] = True
        B.setflags(write=False)
        return B

    @property
    def weights(self) -> np.ndarray:
        """Prior weights, shape (M,), not normalised (1.0 where a chemical gives none)."""
        return np.array([c.weight for c in self.chemicals], dtype=float)

    def to_problem(self) -> Problem:
        """The query learning problem (B, Pi, y, z) of this knowledge base.

        Rows are chemicals in :attr:`chemicals` order, columns symptoms in symptoms.toml
        order; y are class ids (all classes of classes.toml, in order, even empty ones) and z
        category ids (in category order). Raises :class:`responder.engine.ProblemError` only
        for a knowledge base with no chemicals, which the loader already rejects.
        """
        return Problem.build(
            self.matrix,
            prior=self.weights,
            object_groups=[c.class_id for c in self.chemicals],
            query_groups=[s.category for s in self.symptoms],
            object_names=[c.name for c in self.chemicals],
            query_names=list(self.symptom_ids),
            group_names=[c.id for c in self.classes],
            query_group_names=[c.id for c in self.categories],
        )
