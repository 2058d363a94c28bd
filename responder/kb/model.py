"""The knowledge base in memory: symptoms, classes and chemicals, and its engine problem.

Everything here is plain data, already validated by :mod:`responder.kb.loader`; nothing in this
module reads files.
"""

from __future__ import annotations

import difflib
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


#: Values of a symptom's ``observation``: a responder can see or measure it, or only a
#: conscious victim can report it ("" when an imported knowledge base does not say).
OBSERVATION_KINDS = ("observed", "reported")

#: Prior modes accepted by :meth:`KnowledgeBase.prior_vector`.
PRIOR_MODES = ("chemical", "class")
#: Each class gets equal mass: how many entries a class happens to list is a cataloguing
#: choice, not evidence that an incident involves it (docs/knowledge-base.md, "Priors").
DEFAULT_PRIOR_MODE = "class"


@dataclass(frozen=True)
class Symptom:
    """One yes/no question a responder can check on scene (a query, Section 1.2).

    ``synonyms`` are lay and clinical words for it (search, interview protocol); ``aliases``
    are retired or merged ids that still resolve to it; ``observation`` is "observed",
    "reported" or "" (unspecified); ``leak`` is P(shown | the chemical does not list it) for
    the evidence mode, None for the mode's default; ``urgent`` marks a life-threatening
    finding.
    """

    id: str
    label: str
    category: str
    check: str = ""
    synonyms: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    observation: str = ""
    leak: float | None = None
    urgent: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """Every text that names this symptom: id, aliases, label and synonyms."""
        return (self.id, *self.aliases, self.label, *self.synonyms)


class UnknownSymptomError(KeyError):
    """No symptom has this id, alias, label or synonym; ``matches`` holds close ids."""

    def __init__(self, text: str, matches: tuple[str, ...]):
        self.text = text
        self.matches = matches
        super().__init__(text)

    def __str__(self) -> str:
        msg = f'no symptom is called "{self.text}"'
        if self.matches:
            return msg + "; did you mean " + " or ".join(f'"{m}"' for m in self.matches) + "?"
        return msg + "; give a symptom id, label or synonym from symptoms.toml"


@dataclass(frozen=True)
class ChemicalClass:
    """A class of chemicals with a common toxic syndrome (an object group y, Section 3)."""

    id: str
    label: str
    syndrome: str = ""
    description: str = ""


@dataclass(frozen=True)
class Evidence:
    """One document read for a chemical, and the symptom cells it supports."""

    title: str
    url: str
    symptoms: frozenset[str]
    line: int | None = None


@dataclass(frozen=True)
class Chemical:
    """One chemical (an object, Section 1.2) with the acute symptoms its sources list.

    ``id`` is a stable slug (from the file, else derived from the name). ``evidence`` lists
    the documents read; ``source_checked`` is true only when their symptoms cover every
    symptom of the chemical. ``file`` and ``line`` say where it is defined (the line of its
    ``name = ...``), so later messages can point there.
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
    id: str = ""
    evidence: tuple[Evidence, ...] = ()

    @property
    def unsupported(self) -> frozenset[str]:
        """Symptoms no evidence document supports (all of them when there is no evidence)."""
        supported = frozenset().union(*(e.symptoms for e in self.evidence))
        return self.symptoms - supported

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
        by_key = {c.id: c for c in self.chemicals if c.id}
        by_key.update({c.name.casefold(): c for c in self.chemicals})
        return by_key

    @cached_property
    def _symptom_by_name(self) -> dict[str, int]:
        # the loader rejects a name shared by two symptoms, so this map is unambiguous
        return {name.casefold(): j for j, s in enumerate(self.symptoms) for name in s.names}

    @cached_property
    def symptom_aliases(self) -> dict[str, str]:
        """Retired or merged id -> current id."""
        return {a: s.id for s in self.symptoms for a in s.aliases}

    def resolve_symptom(self, text: str) -> int:
        """Column index of the symptom named by ``text``.

        Accepts an id, an alias, a label or a synonym, case-insensitively and exactly
        (surrounding spaces ignored). Raises :class:`UnknownSymptomError` (a KeyError) naming
        up to five close symptom ids otherwise.
        """
        key = " ".join(str(text).split()).casefold()
        j = self._symptom_by_name.get(key)
        if j is not None:
            return j
        names = self._symptom_by_name
        close = difflib.get_close_matches(key, list(names), n=8, cutoff=0.6)
        close += [n for n in names if key and len(key) >= 3 and key in n]
        ids: list[str] = []
        for n in close:
            sid = self.symptoms[names[n]].id
            if sid not in ids:
                ids.append(sid)
        raise UnknownSymptomError(str(text), tuple(ids[:5]))

    def symptom(self, text: str) -> Symptom:
        """The symptom named by an id, alias, label or synonym (see :meth:`resolve_symptom`)."""
        return self.symptoms[self.resolve_symptom(text)]

    def symptom_label(self, symptom_id: str) -> str:
        """Plain-language label of a symptom id (raises KeyError if unknown)."""
        return self.symptom_by_id[symptom_id].label

    def category_label(self, category_id: str) -> str:
        return self.category_by_id[category_id].label

    def class_label(self, class_id: str) -> str:
        return self.class_by_id[class_id].label

    def chemical(self, name: str) -> Chemical:
        """The chemical with this id or name (name case-insensitively); KeyError if unknown."""
        if name in self._chemical_by_key:
            return self._chemical_by_key[name]
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

    def prior_vector(self, mode: str = DEFAULT_PRIOR_MODE) -> np.ndarray:
        """The prior over chemicals, shape (M,), summing to 1.

        Parameters
        ----------
        mode : {"chemical", "class"}
            ``"chemical"``: proportional to the per-chemical weights (uniform when no chemical
            gives a ``prior``). ``"class"``: every class that has chemicals gets equal total
            mass, split over its members in proportion to their weights, so a class does not
            win by its number of entries alone.

        Raises
        ------
        ValueError
            If ``mode`` is not one of :data:`PRIOR_MODES` (the message names them).
        """
        if mode not in PRIOR_MODES:
            valid = ", ".join(f'"{m}"' for m in PRIOR_MODES)
            raise ValueError(f"unknown prior mode {mode!r}; valid choices are {valid}")
        w = self.weights
        if mode == "class" and len(w):
            _, group = np.unique([c.class_id for c in self.chemicals], return_inverse=True)
            class_mass = np.bincount(group, weights=w)
            w = w / class_mass[group]
        return w / w.sum()

    def to_problem(self, prior: str = DEFAULT_PRIOR_MODE) -> Problem:
        """The query learning problem (B, Pi, y, z) of this knowledge base.

        ``prior`` is a mode of :meth:`prior_vector`.

        Rows are chemicals in :attr:`chemicals` order, columns symptoms in symptoms.toml
        order; y are class ids (all classes of classes.toml, in order, even empty ones) and z
        category ids (in category order). Raises :class:`responder.engine.ProblemError` only
        for a knowledge base with no chemicals, which the loader already rejects.
        """
        return Problem.build(
            self.matrix,
            prior=self.prior_vector(prior),
            object_groups=[c.class_id for c in self.chemicals],
            query_groups=[s.category for s in self.symptoms],
            object_names=[c.name for c in self.chemicals],
            query_names=list(self.symptom_ids),
            group_names=[c.id for c in self.classes],
            query_group_names=[c.id for c in self.categories],
        )
