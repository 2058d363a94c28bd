"""The vocabulary of a knowledge base: its observations (symptoms.toml, and scene.toml beside
it) with the categories they are asked in, and its chemical classes (classes.toml).

Every id, alias, label and synonym names one observation only, across both files; chemical
files and consistency.toml refer to observations by id or alias (:func:`current_id`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from responder.kb.checker import Checker, Doc, suggest
from responder.kb.fields import FieldError, check_number, number_text
from responder.kb.identifiers import ID_FIX, ID_RE, fold_name
from responder.kb.model import (
    ANSWERED_PER,
    CATEGORY_KINDS,
    OBSERVATION_KINDS,
    Category,
    ChemicalClass,
    Symptom,
)

SYMPTOMS_FILE = "symptoms.toml"
#: Scene observations (odour, appearance, setting...): optional, beside the symptoms.
SCENE_FILE = "scene.toml"
CLASSES_FILE = "classes.toml"


@dataclass
class Vocabulary:
    """What the vocabulary files define, gathered across symptoms.toml and scene.toml."""

    categories: list[Category] = field(default_factory=list)
    symptoms: list[Symptom] = field(default_factory=list)
    category_line: dict[str, int | None] = field(default_factory=dict)
    symptom_line: dict[str, int | None] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    symptom_file: dict[str, str] = field(default_factory=dict)
    #: folded name (fold_name) -> (id, what the name is, where defined, symptom or observation)
    names: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)


def _noun(symptom: Symptom) -> str:
    return "symptom" if symptom.kind == "symptom" else "observation"


_OBSERVATION_REQUIRED = {"id": "str", "label": "str", "category": "str"}
_OBSERVATION_OPTIONAL = {
    "check": "str",
    "synonyms": "list",
    "aliases": "list",
    "observation": "str",
    "leak": "number",
    "urgent": "bool",
}


def check_vocabulary(ck: Checker, doc: Doc, vocab: Vocabulary, table: str = "symptom") -> None:
    """Add one vocabulary file's categories and observations to ``vocab``.

    symptoms.toml holds ``[[symptom]]`` tables, scene.toml ``[[observation]]`` tables; a
    category's ``kind`` defaults to the file's ("symptom" or "scene").
    """
    ck.top_keys(doc, ("category", table))
    default_kind = "symptom" if table == "symptom" else "scene"
    own_categories = _check_categories(ck, doc, vocab, default_kind)
    spans: dict[str, tuple] = {}
    every: list[Symptom] = []  # also those dropped for a bad category: their names still count
    for k, t in enumerate(ck.tables(doc, table, required=True)):
        v, span, anchor = ck.fields(doc, table, k, t, _OBSERVATION_REQUIRED, _OBSERVATION_OPTIONAL)
        if not _OBSERVATION_REQUIRED.keys() <= v.keys():
            # its id still counts as known (as one with a bad category does): the chemical
            # cells naming it are not each "unknown symptom id"
            if "id" in v:
                ck.new_id(doc.rel, anchor, "symptom", v["id"], vocab.symptom_line)
            continue
        sid = v["id"]
        if not ck.new_id(doc.rel, anchor, "symptom", sid, vocab.symptom_line):
            continue
        vocab.symptom_file[sid] = doc.rel
        spans[sid] = span
        ok = True
        if v["category"] not in own_categories:
            ck.error(
                doc.rel,
                doc.lines.key(span, "category") or anchor,
                f'{table} "{sid}" has unknown category "{v["category"]}"',
                suggest(
                    v["category"], own_categories, "category", "this file's [[category]] tables"
                ),
            )
            ok = False
        # a bad value is reported and left out; the symptom stays, so no cascade of messages
        observation = _observation(ck, doc, v, span, anchor, default_kind)
        leak = _leak(ck, doc, v, span, anchor)
        aliases = _aliases(ck, doc, v, span, anchor)
        synonyms = _synonyms(ck, doc, v, span, anchor)
        symptom = Symptom(
            sid,
            v["label"],
            v["category"],
            v.get("check", ""),
            synonyms=synonyms,
            aliases=aliases,
            observation=observation,
            leak=leak,
            urgent=v.get("urgent", False),
            kind=next((c.kind for c in vocab.categories if c.id == v["category"]), default_kind),
        )
        every.append(symptom)
        if ok:
            vocab.symptoms.append(symptom)
    _check_symptom_names(ck, doc, every, spans, vocab)


def _check_categories(ck: Checker, doc: Doc, vocab: Vocabulary, default_kind: str) -> set[str]:
    """Add the file's ``[[category]]`` tables to ``vocab``; returns their ids."""
    own_categories: set[str] = set()
    for k, t in enumerate(ck.tables(doc, "category", required=True)):
        v, span, anchor = ck.fields(
            doc,
            "category",
            k,
            t,
            {"id": "str", "label": "str"},
            {"kind": "str", "per": "str", "alternatives": "bool"},
        )
        if "id" not in v or "label" not in v:
            continue
        kind, per = v.get("kind", default_kind), v.get("per", "victim")
        if kind not in CATEGORY_KINDS:
            ck.error(
                doc.rel,
                doc.lines.key(span, "kind") or anchor,
                f'category "{v["id"]}" has kind "{kind}"',
                "write kind = " + " or ".join(f'"{k}"' for k in CATEGORY_KINDS),
            )
            continue
        if per not in ANSWERED_PER:
            ck.error(
                doc.rel,
                doc.lines.key(span, "per") or anchor,
                f'category "{v["id"]}" has per "{per}"',
                'write per = "incident" (answered once for the whole incident) or '
                '"victim" (each victim answers it)',
            )
            continue
        if ck.new_id(doc.rel, anchor, "category", v["id"], vocab.category_line):
            alternatives = bool(v.get("alternatives", False))
            vocab.categories.append(
                Category(v["id"], v["label"], kind=kind, per=per, alternatives=alternatives)
            )
            own_categories.add(v["id"])
    return own_categories


def _observation(ck: Checker, doc: Doc, v: dict, span, anchor, default_kind: str) -> str:
    """How the observation is made ("" when unset or wrong, which is reported)."""
    # what is seen or told on scene needs no answer from the victim
    observation = v.get("observation", "observed" if default_kind == "scene" else "")
    if "observation" in v and observation not in OBSERVATION_KINDS:
        ck.error(
            doc.rel,
            doc.lines.key(span, "observation") or anchor,
            f'symptom "{v["id"]}" has observation "{observation}"',
            "write observation = "
            + " or ".join(f'"{o}"' for o in OBSERVATION_KINDS)
            + ' ("reported" when only a conscious victim can tell you)',
        )
        return ""
    return observation


def _leak(ck: Checker, doc: Doc, v: dict, span, anchor) -> float | None:
    """The observation's own leak, a probability below 1 (None when unset or wrong)."""
    leak = v.get("leak")
    if leak is None:
        return None
    sid = v["id"]
    fix = (
        "give P(victim shows it | the chemical does not list it) below 1, e.g. 0.05, "
        "or remove the key"
    )
    try:
        leak = check_number(leak, f'symptom "{sid}": leak', 0.0, 1.0, fix)
        if leak == 1.0:
            raise FieldError("", fix, "range")
    except FieldError as exc:
        problem = exc.problem
        if exc.kind == "range":
            problem = (
                f'symptom "{sid}" has leak {number_text(leak)}, which is not a probability below 1'
            )
        ck.error(doc.rel, doc.lines.key(span, "leak") or anchor, problem, exc.fix)
        return None
    return float(leak)


def _aliases(ck: Checker, doc: Doc, v: dict, span, anchor) -> tuple[str, ...]:
    """The observation's retired ids (an invalid one is reported and left out)."""
    aliases = []
    for alias in v.get("aliases", []):
        if ID_RE.match(alias):
            aliases.append(alias)
        else:
            ck.error(
                doc.rel,
                doc.lines.value(span, "aliases", alias) or anchor,
                f'symptom "{v["id"]}": alias "{alias}" is not a valid id',
                ID_FIX,
            )
    return tuple(aliases)


def _synonyms(ck: Checker, doc: Doc, v: dict, span, anchor) -> tuple[str, ...]:
    """The observation's synonyms (an empty one is reported and left out)."""
    synonyms = []
    for word in v.get("synonyms", []):
        if word.strip():
            synonyms.append(word.strip())
        else:
            ck.error(
                doc.rel,
                doc.lines.key(span, "synonyms") or anchor,
                f'symptom "{v["id"]}" has an empty synonym',
                "remove it",
            )
    return tuple(synonyms)


def _check_symptom_names(
    ck: Checker, doc: Doc, symptoms: list[Symptom], spans: dict, vocab: Vocabulary
) -> None:
    """Every id, alias, label and synonym must name one observation only, compared as the
    search and the protocol compare names (:func:`fold_name`: case, accents, punctuation and
    spacing ignored), across symptoms.toml and scene.toml.

    A name shared by two would let one finding be answered twice, and makes the search and
    the interview protocol ambiguous. Records alias -> current id in ``vocab.aliases``, each
    alias going to the first observation that claims it (one message, not a cascade).
    """
    alias_of = vocab.aliases
    owner = vocab.names
    sym_line = vocab.symptom_line
    for s in symptoms:
        owner.setdefault(fold_name(s.id), (s.id, "id", ck.where(doc.rel, sym_line[s.id]), _noun(s)))
    for s in symptoms:
        span = spans[s.id]
        named = [(a, "alias", "aliases") for a in s.aliases]
        named += [(s.label, "label", "label")] + [(w, "synonym", "synonyms") for w in s.synonyms]
        for text, kind, key in named:
            line = doc.lines.value(span, key, text) or doc.lines.key(span, key) or sym_line[s.id]
            norm = fold_name(text)
            if norm not in owner:
                owner[norm] = (s.id, kind, ck.where(doc.rel, line), _noun(s))
                if kind == "alias":
                    alias_of[text] = s.id
                continue
            other, other_kind, other_where, other_noun = owner[norm]
            if other == s.id:  # a synonym equal to its own label is harmless
                if kind == "alias":
                    ck.error(
                        doc.rel,
                        line,
                        f'{_noun(s)} "{s.id}": alias "{text}" repeats its own {other_kind}',
                        "remove it",
                    )
                continue
            ck.error(
                doc.rel,
                line,
                f'{kind} "{text}" of {_noun(s)} "{s.id}" already names {other_noun} "{other}" '
                f"(its {other_kind}, at {other_where})",
                "a name must point at one observation: remove it from one of them, or merge "
                "the two (the retired id becomes an alias)",
            )


def current_id(
    ck: Checker,
    doc: Doc,
    line: int | None,
    label: str,
    sid: str,
    symptom_ids: set[str] | None,
    aliases: dict[str, str],
) -> str | None:
    """The current id of a symptom id or alias used in a chemical file or consistency.toml
    (None: unknown, reported)."""
    if symptom_ids is None or sid in symptom_ids:
        return sid
    if sid in aliases:
        return aliases[sid]
    ck.error(
        doc.rel,
        line,
        f'{label}: unknown symptom id "{sid}"',
        suggest(sid, symptom_ids | aliases.keys(), "symptom", SYMPTOMS_FILE),
    )
    ck.unknown_symptoms.append((sid, ck.errors[-1]))
    return None


#: More unknown ids than this with no scene.toml: one message about the missing file
MISSING_SCENE_IDS = 3


def report_missing_scene_file(ck: Checker) -> None:
    """With scene.toml missing, the references to its observations are each an "unknown
    symptom id" (thousands in a full knowledge base): they become one error on the missing
    file, as a missing symptoms.toml is one error. A few unknown ids stay reported each at
    its line, as typos."""
    ids = list(dict.fromkeys(sid for sid, _ in ck.unknown_symptoms))
    if len(ids) <= MISSING_SCENE_IDS:
        return
    gone = {id(issue) for _, issue in ck.unknown_symptoms}
    ck.errors = [issue for issue in ck.errors if id(issue) not in gone]
    shown = ", ".join(f'"{sid}"' for sid in ids[:5]) + (", ..." if len(ids) > 5 else "")
    ck.error(
        SCENE_FILE,
        None,
        f"the file is missing, and {len(ck.unknown_symptoms)} references name {len(ids)} "
        f"observations no file defines ({shown})",
        f"restore {SCENE_FILE} (the scene observations: smells, places, onset...) or define "
        f"these ids in {SYMPTOMS_FILE}",
    )
    ck.errors.insert(0, ck.errors.pop())  # the cause first


#: A class's short_label fits a class bar or a candidate row at 80 columns.
MAX_SHORT_LABEL = 18


def check_classes(ck: Checker, doc: Doc) -> list[ChemicalClass]:
    """classes.toml: the chemical classes, each with a unique id."""
    ck.top_keys(doc, ("class",))
    classes: list[ChemicalClass] = []
    seen: dict[str, int | None] = {}
    for k, t in enumerate(ck.tables(doc, "class", required=True)):
        v, _, anchor = ck.fields(
            doc,
            "class",
            k,
            t,
            {"id": "str", "label": "str"},
            {"syndrome": "str", "description": "str", "short_label": "str"},
        )
        if "id" not in v or "label" not in v:
            continue
        short = v.get("short_label", "")
        if len(short) > MAX_SHORT_LABEL:
            ck.error(
                doc.rel,
                doc.lines.key(doc.lines.table("class", k), "short_label") or anchor,
                f"short_label is {len(short)} characters",
                f"keep a short_label to {MAX_SHORT_LABEL} characters (it is shown where "
                "space is short); the label can be longer",
            )
            short = ""
        if ck.new_id(doc.rel, anchor, "class", v["id"], seen):
            classes.append(
                ChemicalClass(
                    v["id"],
                    v["label"],
                    v.get("syndrome", ""),
                    v.get("description", ""),
                    short_label=short,
                )
            )
    return classes
