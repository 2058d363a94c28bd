"""The knowledge base in memory: symptoms, classes and chemicals, and its engine problem.

Everything here is plain data, already validated by :mod:`responder.kb.loader`; nothing in this
module reads files. It is the one view of a knowledge base for every layer (the command
line, the headless interview core and the app): each symptom, chemical, class and category
carries its position in the engine's problem (``index``) and the labels it is shown with.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from responder.engine import Problem
from responder.engine.problem import COMMON, HALLMARK, NOT_LISTED, OCCASIONAL, UNRECORDED
from responder.kb.fields import printable
from responder.kb.identifiers import chemical_key, fold_name, is_supplementary


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
        # a value quoted from the file must not act on the terminal it is printed on
        return " ".join(
            printable(part) for part in (f"{where}:", f"{kind}{self.problem}", "—", self.fix)
        )


class KBError(ValueError):
    """A knowledge base failed validation; ``issues`` holds every error found, not just the first.

    ``str()`` is one block with one ``file:line: problem — fix`` line per issue.
    """

    def __init__(self, issues: list[KBIssue] | tuple[KBIssue, ...]):
        self.issues = tuple(issues)
        super().__init__("\n".join(str(i) for i in self.issues))


#: What a category holds: a victim's signs, or what is seen or told on scene.
CATEGORY_KINDS = ("symptom", "scene")
#: Who answers a category's questions: each victim, or the incident once.
ANSWERED_PER = ("victim", "incident")


@dataclass(frozen=True)
class Category:
    """A group of observations shown together (a query group z, Section 4).

    ``kind`` is "symptom" (a victim's signs) or "scene" (smell, cloud, setting...); ``per``
    is "incident" when the category is answered once for the whole incident, "victim" when
    each victim answers it. ``alternatives``: a scene usually shows one of the category's
    observations (one place, one smell), so once one is answered yes the others are not
    suggested.
    """

    id: str
    label: str
    kind: str = "symptom"
    per: str = "victim"
    alternatives: bool = False
    index: int = -1  # the engine's query group; set by KnowledgeBase
    symptoms: tuple[int, ...] = ()  # indexes of its symptoms; set by KnowledgeBase


#: Values of a symptom's ``observation``: a responder can see or measure it, or only a
#: conscious victim can report it ("" when an imported knowledge base does not say).
OBSERVATION_KINDS = ("observed", "reported")

#: Prior modes accepted by :meth:`KnowledgeBase.prior_vector`.
PRIOR_MODES = ("chemical", "class", "split")
#: Each class gets equal mass for the class, and each chemical for the chemical: how many
#: entries a class happens to list is a cataloguing choice, not evidence that an incident
#: involves it, and a chemical alone in its class is no likelier than any other
#: (docs/knowledge-base.md, "Priors").
DEFAULT_PRIOR_MODE = "split"


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
    index: int = -1  # the engine's query (matrix column); set by KnowledgeBase
    category_label: str = ""  # set by KnowledgeBase
    kind: str = "symptom"  # its category's kind; set by KnowledgeBase
    per: str = "victim"  # its category's; set by KnowledgeBase

    @property
    def names(self) -> tuple[str, ...]:
        """Every text that names this symptom: id, aliases, label and synonyms."""
        return (self.id, *self.aliases, self.label, *self.synonyms)

    @property
    def category_id(self) -> str:
        return self.category


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


class UnknownChemicalError(KeyError):
    """No chemical, or more than one, is named ``text``; ``matches`` holds the candidates."""

    def __init__(self, text: str, matches: tuple[str, ...], ambiguous: bool = False):
        self.text = text
        self.matches = matches
        self.ambiguous = ambiguous
        super().__init__(text)

    def __str__(self) -> str:
        names = " or ".join(f'"{m}"' for m in self.matches)
        if self.ambiguous:
            return f'"{self.text}" names several chemicals: {names}; give one id or full name'
        msg = f'no chemical is called "{self.text}"'
        if self.matches:
            return msg + f"; did you mean {names}?"
        return (
            msg + "; give a chemical id, name or CAS number (`responder kb info --json` lists them)"
        )


@dataclass(frozen=True)
class ChemicalClass:
    """A class of chemicals with a common toxic syndrome (an object group y, Section 3)."""

    id: str
    label: str
    syndrome: str = ""
    description: str = ""
    index: int = -1  # the engine's object group; set by KnowledgeBase
    #: a label for narrow places (class bars, candidate rows at 80 columns); optional
    short_label: str = ""

    @property
    def short(self) -> str:
        """The short label, else the label."""
        return self.short_label or self.label


#: How often victims of a chemical show an observation, strongest first. A cell in a
#: chemical's row that no document read supports is "unverified" (graded occasional at most);
#: an observation not in the row is "not expected" (the leak). The probabilities are in
#: grades.toml.
GRADES = ("hallmark", "common", "occasional")
UNVERIFIED = "unverified"
#: Keys of a [[chemical.evidence]] table and the grade each gives the cells it lists.
EVIDENCE_GRADE_KEYS = {
    "symptoms": "common",
    "scene": "common",
    "hallmark": "hallmark",
    "occasional": "occasional",
}


@dataclass(frozen=True)
class Evidence:
    """One document read for a chemical, and the cells it supports.

    ``symptoms`` holds every cell the document supports (symptoms and scene observations);
    ``hallmark`` those it gives as shown by most victims (a case definition's defining sign),
    ``occasional`` those it gives only at high dose, by one route or late.
    """

    title: str
    url: str
    symptoms: frozenset[str]
    line: int | None = None
    hallmark: frozenset[str] = frozenset()
    occasional: frozenset[str] = frozenset()

    @cached_property
    def supplementary(self) -> bool:
        """A peer-reviewed article or clinical reference rather than an agency document: the
        cells it alone supports stay unverified."""
        return is_supplementary(self.title)

    def grade(self, cell: str) -> str | None:
        """The grade this document gives ``cell``; None if it does not support it."""
        if cell in self.hallmark:
            return "hallmark"
        if cell in self.occasional:
            return "occasional"
        return "common" if cell in self.symptoms else None


@dataclass(frozen=True)
class Chemical:
    """One chemical (an object, Section 1.2) with the acute symptoms its sources list.

    ``id`` is a stable slug (from the file, else derived from the name). ``evidence`` lists
    the documents read; ``source_checked`` is true only when their symptoms cover every
    symptom of the chemical. ``file`` and ``line`` say where it is defined (the line of its
    ``name = ...``), so later messages can point there. A ``mixture`` (fire smoke) has no CAS
    number: its ``cas`` is "".
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
    mixture: bool = False

    index: int = -1  # the engine's object (matrix row); set by KnowledgeBase
    class_label: str = ""  # set by KnowledgeBase
    class_short: str = ""  # its class's short label (else label); set by KnowledgeBase

    @property
    def cas_label(self) -> str:
        """How screens name its CAS number: "CAS 7782-50-5", "mixture, no CAS number", or ""
        when a user knowledge base gives none."""
        if self.mixture:
            return "mixture, no CAS number"
        return f"CAS {self.cas}" if self.cas else ""

    @property
    def unsupported(self) -> frozenset[str]:
        """Symptoms no evidence document supports (all of them when there is no evidence)."""
        supported = frozenset().union(*(e.symptoms for e in self.evidence))
        return self.symptoms - supported

    def grade(self, cell: str) -> str | None:
        """The cell's grade: the strongest any agency document gives it; "unverified" for
        a cell of the row no agency document supports (a supplementary one may); None when
        the row does not list it."""
        if cell not in self.symptoms:
            return None
        given = {e.grade(cell) for e in self.evidence if not e.supplementary}
        return next((g for g in GRADES if g in given), UNVERIFIED)

    @property
    def weight(self) -> float:
        """Relative prior weight; 1.0 when the file gives none (uniform prior)."""
        return 1.0 if self.prior is None else float(self.prior)


@dataclass(frozen=True)
class ExclusiveGroup:
    """Observations that cannot hold together in one victim (pupils small or large): one
    question settles them all. ``none_label`` names the answer "none of these" (empty when
    one member always holds, as for the onset bins)."""

    id: str
    label: str
    members: tuple[str, ...]
    none_label: str = ""


@dataclass(frozen=True)
class Implication:
    """``when`` answered ``answer`` ("yes"/"no") implies each (id, answer) of ``then``."""

    when: str
    answer: str
    then: tuple[tuple[str, str], ...]
    why: str = ""


@dataclass(frozen=True)
class ContactSigns:
    """Signs that appear where a chemical touches the body by ``route`` (a cough where a gas
    is breathed, a burn where a liquid touched the skin): a victim exposed by another route
    shows them only occasionally, though the chemical's row lists them."""

    route: str
    signs: tuple[str, ...]
    why: str = ""


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
    exclusive_groups, implications, contact_signs : tuple
        consistency.toml: what one answer says about others.
    answer_model : dict
        grades.toml: the evidence mode's answer model fitted for this knowledge base.
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
    exclusive_groups: tuple[ExclusiveGroup, ...] = ()
    implications: tuple[Implication, ...] = ()
    contact_signs: tuple[ContactSigns, ...] = ()
    #: grades.toml: the answer model fitted for this knowledge base (evidence settings by
    #: key, e.g. leak, class_borrow); the user's settings override it
    answer_model: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Give every item its engine position and display labels, so nothing downstream
        # needs a second copy of these dataclasses.
        cats = {c.id: c for c in self.categories}
        class_label = {c.id: c.label for c in self.classes}
        class_short = {c.id: c.short for c in self.classes}
        symptoms = tuple(
            replace(
                s,
                index=j,
                category_label=cats[s.category].label if s.category in cats else s.category,
                kind=cats[s.category].kind if s.category in cats else s.kind,
                per=cats[s.category].per if s.category in cats else s.per,
            )
            for j, s in enumerate(self.symptoms)
        )
        categories = tuple(
            replace(c, index=k, symptoms=tuple(s.index for s in symptoms if s.category == c.id))
            for k, c in enumerate(self.categories)
        )
        classes = tuple(replace(c, index=g) for g, c in enumerate(self.classes))
        chemicals = tuple(
            replace(
                c,
                index=i,
                class_label=class_label.get(c.class_id, c.class_id),
                class_short=class_short.get(c.class_id, c.class_id),
            )
            for i, c in enumerate(self.chemicals)
        )
        for name, value in (
            ("symptoms", symptoms),
            ("categories", categories),
            ("classes", classes),
            ("chemicals", chemicals),
        ):
            object.__setattr__(self, name, value)

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
        # the loader rejects two symptoms whose names fold alike, so this map is unambiguous
        return {fold_name(name): j for j, s in enumerate(self.symptoms) for name in s.names}

    @cached_property
    def symptom_aliases(self) -> dict[str, str]:
        """Retired or merged id -> current id."""
        return {a: s.id for s in self.symptoms for a in s.aliases}

    def resolve_symptom(self, text: str) -> int:
        """Column index of the symptom named by ``text``.

        Accepts an id, an alias, a label or a synonym, exactly but compared as the app's
        search compares names (:func:`~responder.kb.identifiers.fold_name`: case, accents,
        punctuation and spacing ignored, so an id written as words, "shortness of breath",
        names it too). Raises :class:`UnknownSymptomError` (a KeyError) naming up to five
        close symptom ids otherwise.
        """
        key = fold_name(str(text))
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

    @cached_property
    def _symptom_index(self) -> dict[str, int]:
        return {s.id: s.index for s in self.symptoms}

    def symptom_index(self, symptom_id: str) -> int | None:
        """The matrix column of a symptom id or alias (ids are a contract: a journal that
        names a merged or renamed symptom still resolves), or None if there is none."""
        j = self._symptom_index.get(symptom_id)
        if j is None and symptom_id in self.symptom_aliases:
            j = self._symptom_index[self.symptom_aliases[symptom_id]]
        return j

    def chemical_index(self, name: str) -> int | None:
        """The matrix row of a chemical, by name case-insensitively; None if unknown."""
        chem = self._chemical_by_key.get(name.casefold())
        return None if chem is None else chem.index

    def describe(self) -> dict:
        """Name, origin, digest and size, for journals and exports."""
        return {
            "name": self.name,
            "origin": str(self.origin),
            "digest": self.digest,
            "chemicals": len(self.chemicals),
            "symptoms": len(self.symptoms),
            "classes": len(self.classes),
        }

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

    @cached_property
    def _chemicals_by_name(self) -> dict[str, tuple[Chemical, ...]]:
        """Slug of every text that names a chemical -> the chemicals it names."""
        named: dict[str, dict[int, Chemical]] = {}
        for chem in self.chemicals:
            for name in _chemical_names(chem):
                key = chemical_key(name)
                # by row, not by equality: every chemical of an imported CSV without a CAS
                # column has the empty key, and comparing each with all before it (their
                # whole rows) took 2.8 s for 2,000 chemicals, at the browse screen's first
                # keystroke
                if key:
                    named.setdefault(key, {})[id(chem)] = chem
        return {key: tuple(chems.values()) for key, chems in named.items()}

    def resolve_chemical(self, text: str) -> Chemical:
        """The chemical named by ``text``: its id, name, CAS number, the name without its
        bracketed part, or a bracketed alternative ("Sarin", "GB" and "sarin gb" all name
        Sarin (GB)). Case, spacing, punctuation and British spelling ("hydrogen sulphide",
        :func:`~responder.kb.identifiers.chemical_key`) are ignored. A chemical's own id, name or
        CAS number wins over another's bracketed part ("carbon monoxide" is Carbon monoxide,
        not "Fire smoke (carbon monoxide, ...)"). Raises :class:`UnknownChemicalError` (a
        KeyError) naming close chemicals, or every chemical the text names when it names more
        than one.
        """
        key = chemical_key(str(text))
        found = self._chemicals_by_name.get(key, ())
        if len(found) > 1:
            own = [c for c in found if key in {chemical_key(n) for n in (c.id, c.name, c.cas)}]
            found = tuple(own) if len(own) == 1 else found
        if len(found) == 1:
            return found[0]
        if found:
            raise UnknownChemicalError(str(text), tuple(c.name for c in found), ambiguous=True)
        close = difflib.get_close_matches(key, list(self._chemicals_by_name), n=5, cutoff=0.7)
        names: list[str] = []
        for k in close:
            names += [c.name for c in self._chemicals_by_name[k] if c.name not in names]
        raise UnknownChemicalError(str(text), tuple(names[:5]))

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
        """B: ndarray of shape (M chemicals, N symptoms), bool, read-only: the cells each
        chemical lists, and the cells they imply (:attr:`implied_cells`)."""
        col = {s.id: j for j, s in enumerate(self.symptoms)}
        B = np.zeros((len(self.chemicals), len(self.symptoms)), dtype=bool)
        for i, chem in enumerate(self.chemicals):
            B[i, [col[s] for s in chem.symptoms]] = True
        for i, j in self.implied_cells:
            B[i, j] = True
        B.setflags(write=False)
        return B

    @cached_property
    def implied_cells(self) -> dict[tuple[int, int], str]:
        """Cells a row does not list but one of its cells implies, (row, column) -> the
        grade, from the "yes implies yes" rules of consistency.toml: a victim who shows
        ``when`` shows ``then`` too, so a chemical shows ``then`` at least as often
        (rescuers affected means several victims; no pulse means unconscious). Each takes
        the strongest grade of the cells implying it (unverified counts as occasional),
        followed through chains of rules."""
        rank = {g: k for k, g in enumerate(("occasional", "common", "hallmark"))}
        rules = [
            (rule.when, then)
            for rule in self.implications
            if rule.answer == "yes"
            for then, answer in rule.then
            if answer == "yes"
        ]
        col = {s.id: j for j, s in enumerate(self.symptoms)}
        implying = {when for when, _ in rules}
        involved = implying | {then for _, then in rules}
        implied: dict[tuple[int, int], str] = {}
        for i, chem in enumerate(self.chemicals):
            if not implying & chem.symptoms:
                continue
            grade = {
                sid: ("occasional" if chem.grade(sid) == UNVERIFIED else chem.grade(sid))
                for sid in chem.symptoms & involved
            }
            changed = True
            while changed:
                changed = False
                for when, then in rules:
                    if when in grade and rank[grade[when]] > rank.get(grade.get(then), -1):
                        grade[then] = grade[when]
                        implied[(i, col[then])] = grade[when]
                        changed = True
        return implied

    @property
    def graded(self) -> bool:
        """Whether the cells carry grades: some chemical records the documents read
        (``[[chemical.evidence]]``). A knowledge base without any (a CSV import) lists every
        cell alike, as common."""
        return any(c.evidence for c in self.chemicals)

    @cached_property
    def grades(self) -> np.ndarray | None:
        """G: ndarray of shape (M chemicals, N observations), int8, read-only, or None when
        the knowledge base is not :attr:`graded`: each cell's grade code
        (:data:`responder.engine.problem.GRADE_CODES`). A cell no evidence document supports
        is graded occasional (unverified); a scene category in which a chemical has no cell
        at all is unrecorded for it (the sources say nothing either way); a symptom it does
        not list is not listed. ``grades > 0`` is :attr:`matrix`."""
        if not self.graded:
            return None
        col = {s.id: j for j, s in enumerate(self.symptoms)}
        code = {
            "hallmark": HALLMARK,
            "common": COMMON,
            "occasional": OCCASIONAL,
            UNVERIFIED: OCCASIONAL,
        }
        scene_cols = [
            np.array([s.index for s in self.symptoms if s.category == c.id])
            for c in self.categories
            if c.kind == "scene"
        ]
        G = np.full((len(self.chemicals), len(self.symptoms)), NOT_LISTED, dtype=np.int8)
        for i, chem in enumerate(self.chemicals):
            for sid in chem.symptoms:
                G[i, col[sid]] = code[chem.grade(sid)]
        for (i, j), grade in self.implied_cells.items():
            G[i, j] = code[grade]
        for i in range(len(self.chemicals)):
            for cols in scene_cols:
                if cols.size and not (G[i, cols] > NOT_LISTED).any():
                    G[i, cols] = UNRECORDED
        G.setflags(write=False)
        return G

    @property
    def weights(self) -> np.ndarray:
        """Prior weights, shape (M,), not normalised (1.0 where a chemical gives none)."""
        return np.array([c.weight for c in self.chemicals], dtype=float)

    @cached_property
    def problem(self) -> Problem:
        """:meth:`to_problem` with the default prior, built once: query ``j`` is
        ``symptoms[j]``, object ``i`` is ``chemicals[i]``, object group ``g`` is
        ``classes[g]``, query group ``c`` is ``categories[c]``."""
        return self.to_problem()

    def prior_vector(self, mode: str = DEFAULT_PRIOR_MODE) -> np.ndarray:
        """The prior over chemicals, shape (M,), summing to 1.

        Parameters
        ----------
        mode : {"chemical", "class", "split"}
            ``"chemical"``: proportional to the per-chemical weights (uniform when no chemical
            gives a ``prior``). ``"class"``: every class that has chemicals gets equal total
            mass, split over its members in proportion to their weights, so a class does not
            win by its number of entries alone. ``"split"``: the class prior here (what the
            classes, the answer model and the paper's modes use); :meth:`to_problem` adds
            the chemical prior for the evidence mode's chemical ranking.

        Raises
        ------
        ValueError
            If ``mode`` is not one of :data:`PRIOR_MODES` (the message names them).
        """
        if mode not in PRIOR_MODES:
            valid = ", ".join(f'"{m}"' for m in PRIOR_MODES)
            raise ValueError(f"unknown prior mode {mode!r}; valid choices are {valid}")
        w = self.weights
        if mode in ("class", "split") and len(w):
            _, group = np.unique([c.class_id for c in self.chemicals], return_inverse=True)
            class_mass = np.bincount(group, weights=w)
            w = w / class_mass[group]
        return w / w.sum()

    def to_problem(self, prior: str = DEFAULT_PRIOR_MODE) -> Problem:
        """The query learning problem (B, Pi, y, z) of this knowledge base.

        ``prior`` is a mode of :meth:`prior_vector`; with ``"split"`` the problem also
        carries the per-chemical prior as its ``object_prior``
        (:meth:`responder.engine.problem.Problem.ranking_prior`).

        Rows are chemicals in :attr:`chemicals` order, columns symptoms in symptoms.toml
        order; y are class ids (all classes of classes.toml, in order, even empty ones) and z
        category ids (in category order); the queries of categories of alternatives are
        marked (:attr:`Category.alternatives`), and those answered per victim split their
        chance. Raises
        :class:`responder.engine.ProblemError` only for a knowledge base with no chemicals,
        which the loader already rejects.
        """
        alternatives = np.array(
            [self.category_by_id[s.category].alternatives for s in self.symptoms], dtype=bool
        )
        return Problem.build(
            self.matrix,
            prior=self.prior_vector(prior),
            object_groups=[c.class_id for c in self.chemicals],
            query_groups=[s.category for s in self.symptoms],
            object_names=[c.name for c in self.chemicals],
            query_names=list(self.symptom_ids),
            group_names=[c.id for c in self.classes],
            query_group_names=[c.id for c in self.categories],
            grades=self.grades,
            alternatives=alternatives,
            split_chance=alternatives & np.array([s.per == "victim" for s in self.symptoms]),
            object_prior=self.prior_vector("chemical") if prior == "split" else None,
            **self._route_views(),
        )

    @cached_property
    def route_observations(self) -> tuple[Symptom, ...]:
        """The routes of exposure: every observation of the category the contact signs
        (consistency.toml) name routes of, in file order; () when it lists none."""
        if not self.contact_signs:
            return ()
        category = self.symptom_by_id[self.contact_signs[0].route].category
        return tuple(s for s in self.symptoms if s.category == category)

    def _route_views(self) -> dict:
        """The problem's route queries and off-route signs from the contact signs
        (consistency.toml); none when it has none. A sign one route's table lists is
        off-route for every route whose table does not list it; a route with no table
        restricts nothing."""
        if not self.contact_signs:
            return {}
        routes = [s.index for s in self.route_observations]
        local = {c.route: c.signs for c in self.contact_signs}
        contact = np.zeros(len(self.symptoms), dtype=bool)
        for signs in local.values():
            contact[[self.symptom_by_id[s].index for s in signs]] = True
        off = np.zeros((len(routes), len(self.symptoms)), dtype=bool)
        for r, q in enumerate(routes):
            route = self.symptoms[q].id
            if route in local:
                off[r] = contact
                off[r, [self.symptom_by_id[s].index for s in local[route]]] = False
        return {"route_queries": list(routes), "off_route": off}

    # --- search -------------------------------------------------------------------------

    def search_symptoms(self, text: str, limit: int | None = None) -> list[Symptom]:
        """Symptoms matching ``text``, best first (all, in file order, for empty text)."""
        # a synonym ("convulsions", "SOB") or a retired id counts almost as much as the label
        return _rank(
            text,
            self.symptoms,
            lambda s: (
                (s.label, 1.0),
                *((w, 0.95) for w in s.synonyms),
                *((a.replace("_", " "), 0.95) for a in s.aliases),
                (s.id.replace("_", " "), 0.9),
                (s.category_label, 0.5),
            ),
            limit,
        )

    def search_chemicals(self, text: str, limit: int | None = None) -> list[Chemical]:
        """Chemicals matching ``text`` by name, CAS, UN or class, best first."""
        return _rank(
            text,
            self.chemicals,
            lambda c: ((c.name, 1.0), (c.cas, 0.9), (c.un or "", 0.5), (c.class_label, 0.5)),
            limit,
        )


def _chemical_names(chem: Chemical) -> list[str]:
    """Texts that name ``chem``: id, name, CAS, and for "Sarin (GB)" also "Sarin" and "GB"
    (each comma-separated part of the bracket: "OC, pepper spray")."""
    names = [chem.id, chem.name, chem.cas]
    bracket = re.fullmatch(r"(.+?)\s*\((.+)\)", chem.name)
    if bracket:
        names.append(bracket.group(1))
        names += [part.strip() for part in bracket.group(2).split(",")]
    return names


def match_score(query: str, text: str) -> float:
    """How well ``query`` matches ``text``: 0 for no match, higher is better.

    Whole-text prefix beats word prefix beats substring beats every query word found beats
    a subsequence of letters (so "shrt brth" finds "Shortness of breath").
    """
    q, t = fold_name(query), fold_name(text)
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
    if not fold_name(text):
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
