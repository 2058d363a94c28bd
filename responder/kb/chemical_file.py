"""One chemical file (``chemicals/<class>.toml``): the class it belongs to, its ``[[chemical]]``
tables and the ``[[chemical.evidence]]`` tables recording the documents read for each.

An entry may be a mixture (``mixture = true``, e.g. fire smoke): it then has no CAS number,
even in the bundled knowledge base, and giving one is an error.

A chemical's fields are checked one at a time, in a fixed order, so that its messages come
out in the same order every time. Every error marks the chemical as not good; later checks that
would only repeat the problem (the evidence of unknown symptoms, the scene cells of a broken
row) are then skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from responder.kb.checker import Checker, Doc, field_problem, suggest
from responder.kb.fields import FieldError, check_name, check_number
from responder.kb.identifiers import ID_RE, cas_problem, chemical_slug, source_problem, un_problem
from responder.kb.model import EVIDENCE_GRADE_KEYS, GRADES, Chemical, Evidence
from responder.kb.vocabulary import CLASSES_FILE, current_id

CHEMICALS_DIR = "chemicals"
#: Allowed relative prior weights of a chemical: a ratio of up to 1e12 between two.
PRIOR_RANGE = (1e-6, 1e6)
_URL_RE = re.compile(r"^https?://[^\s/]+\.[^\s]+$")

_REQUIRED = {"name": "str", "symptoms": "list", "sources": "list"}
_OPTIONAL = {
    "scene": "list",
    "id": "str",
    "un": "str",
    "source_checked": "bool",
    "prior": "number",
    "notes": "str",
    "mixture": "bool",
}


@dataclass
class Seen:
    """What earlier chemical files defined: names, CAS numbers and ids -> where."""

    names: dict
    cas: dict
    ids: dict


@dataclass
class _Entry:
    """One ``[[chemical]]`` table being checked: its values of the right type, where it is,
    what messages call it, and whether it is still good (every error through it clears
    ``ok``)."""

    ck: Checker
    doc: Doc
    values: dict
    span: tuple[int, int] | None
    anchor: int | None
    name: str
    label: str
    ok: bool

    def line(self, key: str) -> int | None:
        """Line of ``key`` in this table, else the table's anchor."""
        return self.doc.lines.key(self.span, key) or self.anchor

    def value_line(self, key: str, value: str) -> int | None:
        """Line of the quoted ``value`` within ``key``, else the table's anchor."""
        return self.doc.lines.value(self.span, key, value) or self.anchor

    def error(self, line: int | None, problem: str, fix: str) -> None:
        self.ck.error(self.doc.rel, line, problem, fix)
        self.ok = False

    def warn(self, line: int | None, problem: str, fix: str) -> None:
        self.ck.warn(self.doc.rel, line, problem, fix)


def check_chemical_file(
    ck: Checker,
    doc: Doc,
    symptom_ids: set[str] | None,
    aliases: dict[str, str],
    class_ids: set[str] | None,
    seen: Seen,
    scene_ids: set[str] | None = None,
) -> tuple[list[Chemical], int]:
    """The good chemicals of one chemical file, and how many ``[[chemical]]`` tables it has.

    ``symptom_ids`` and ``class_ids`` are None when their own file is broken (any id is then
    taken, to avoid a cascade of messages); ``aliases`` maps retired symptom ids to current
    ones; ``seen`` collects names, CAS numbers and ids across files; ``scene_ids`` (None:
    not checked) are the scene observations, which belong in a row's ``scene`` list.
    """
    ck.top_keys(doc, ("class", "chemical"))
    class_id = _file_class(ck, doc, class_ids)
    tables = ck.tables(doc, "chemical", required=False)
    if "chemical" not in doc.data and class_id is not None:
        ck.warn(
            doc.rel, 1, "the file has no [[chemical]] tables", "add chemicals or delete the file"
        )
    chemicals: list[Chemical] = []
    n_evidence = 0  # [[chemical.evidence]] tables seen so far in this file
    for k, table in enumerate(tables):
        table = dict(table)
        raw_evidence = table.pop("evidence", None)
        if raw_evidence == []:  # `evidence = []` records nothing: sources are still needed
            raw_evidence = None
        entry = _read_entry(ck, doc, k, table, has_evidence=raw_evidence is not None)
        cas = _cas(entry)
        un = _registry_number(entry, "un", un_problem)
        cells = _cells(entry, symptom_ids, aliases, scene_ids)
        evidence, n_evidence, evidence_ok = check_evidence(
            entry, raw_evidence, n_evidence, cells if entry.ok else None, symptom_ids, aliases
        )
        entry.ok = entry.ok and evidence_ok
        sources = _sources(entry, evidence)
        _unsourced_scene_cells(entry, evidence, aliases)
        checked = _source_checked(entry, raw_evidence is not None, cells, evidence)
        prior = _prior(entry)
        chem_id = _chemical_id(entry, seen)
        _unique_name(entry, seen)
        _unique_cas(entry, cas, seen)
        if entry.ok and class_id is not None:
            chemicals.append(
                Chemical(
                    name=entry.name,
                    cas=cas or "",
                    un=un,
                    class_id=class_id,
                    symptoms=frozenset(cells),
                    sources=tuple(sources),
                    source_checked=checked,
                    prior=prior,
                    notes=entry.values.get("notes", ""),
                    file=ck.display(doc.rel),
                    line=entry.anchor,
                    id=chem_id,
                    evidence=tuple(evidence),
                    mixture=entry.values.get("mixture", False),
                )
            )
    return chemicals, len(tables)


def _file_class(ck: Checker, doc: Doc, class_ids: set[str] | None) -> str | None:
    """The file's ``class = ...``, or None when it is missing or wrong (reported)."""
    class_id = doc.data.get("class")
    class_line = doc.lines.key(doc.lines.top(), "class")
    if class_id is None:
        known = ", ".join(sorted(class_ids)) if class_ids else "see classes.toml"
        ck.error(
            doc.rel,
            1,
            "the file does not say its class",
            f'add class = "<class id>" at the top, above the first [[chemical]] '
            f"(known classes: {known})",
        )
        return None
    if not isinstance(class_id, str):
        ck.error(
            doc.rel,
            class_line,
            f"`class` must be a quoted class id, not {class_id!r}",
            'write class = "<class id>"',
        )
        return None
    if (bad := field_problem(check_name, class_id, "`class`")) is not None:
        ck.error(doc.rel, class_line, bad.problem, bad.fix)
        return None
    if class_ids is not None and class_id not in class_ids:
        ck.error(
            doc.rel,
            class_line,
            f'unknown class "{class_id}"',
            suggest(class_id, class_ids, "class", CLASSES_FILE),
        )
        return None
    return class_id


def _read_entry(ck: Checker, doc: Doc, k: int, table: dict, has_evidence: bool) -> _Entry:
    """The k-th ``[[chemical]]`` table's keys and value types checked (its evidence taken out).

    The bundled knowledge base requires a CAS number; ``sources`` may be left out when the
    evidence documents name them.
    """
    required = dict(_REQUIRED)
    optional = dict(_OPTIONAL)
    # a mixture has no CAS number; a malformed `mixture` gets its own message, not this one too
    cas_required = ck.strict and table.get("mixture", False) is False
    (required if cas_required else optional)["cas"] = "str"
    if has_evidence:
        del required["sources"]
    values, span, anchor = ck.fields(
        doc, "chemical", k, table, required, {**optional, "sources": "list"}
    )
    name = values.get("name", "").strip()
    label = f'"{name}"' if name else f"chemical #{k + 1}"
    ok = required.keys() <= values.keys()
    return _Entry(ck, doc, values, span, anchor, name, label, ok)


def _registry_number(
    entry: _Entry, key: str, problem: Callable[[str], tuple[str, str] | None]
) -> str | None:
    """The chemical's CAS or UN number (``key``), None when it has none or a wrong one
    (reported; a wrong number says nothing about duplicates)."""
    number = entry.values.get(key)
    if number is None:
        return None
    bad = problem(number.strip())
    if bad:
        entry.error(entry.line(key), f"{entry.label}: {bad[0]}", bad[1])
        return None
    return number.strip()


def _cas(entry: _Entry) -> str | None:
    """The chemical's CAS number; None for a mixture, which has none, and when it is missing
    or wrong (reported)."""
    cas = entry.values.get("cas")
    if entry.values.get("mixture") is True:
        if cas is not None:
            entry.error(
                entry.line("cas"),
                f'{entry.label} is a mixture (mixture = true) but gives the CAS number "{cas}"',
                "a CAS number names one substance: remove `cas`, or remove mixture = true if "
                "this is one chemical",
            )
        return None
    if cas is not None and cas.strip().casefold() == "mixture":
        entry.error(
            entry.line("cas"),
            f'{entry.label}: "{cas}" is not a CAS number',
            "a mixture has no CAS number: leave `cas` out and write mixture = true",
        )
        return None
    return _registry_number(entry, "cas", cas_problem)


def _cells(
    entry: _Entry,
    symptom_ids: set[str] | None,
    aliases: dict[str, str],
    scene_ids: set[str] | None = None,
) -> set[str]:
    """The current ids of the chemical's row: ``symptoms`` lists the victim's signs, ``scene``
    what is seen or told on scene; an id in the other list is warned of (a scene cell among
    the symptoms escapes the check that every scene cell has a source)."""
    symptoms = entry.values.get("symptoms")
    if symptoms is not None and not symptoms:
        entry.error(
            entry.line("symptoms"),
            f"{entry.label} has an empty symptom list",
            "list the acute symptoms its source names; a chemical with none "
            "cannot be identified, so leave it out instead",
        )
    cells: set[str] = set()
    written: set[str] = set()
    for key in ("symptoms", "scene"):
        for sid in entry.values.get(key, []):
            line = entry.value_line(key, sid)
            cid = current_id(entry.ck, entry.doc, line, entry.label, sid, symptom_ids, aliases)
            if cid is None:
                entry.ok = False
                continue
            if sid in written:
                entry.warn(
                    line,
                    f"{entry.label} lists {'symptom' if key == 'symptoms' else 'observation'} "
                    f'"{sid}" twice',
                    "remove the repeat",
                )
            elif scene_ids is not None and (cid in scene_ids) != (key == "scene"):
                _wrong_list(entry, line, sid, key)
            # a merged id listed beside the id that took it over is one cell, silently:
            # files written before the merge stay valid (ids are a contract)
            cells.add(cid)
            written.add(sid)
    return cells


def _wrong_list(entry: _Entry, line: int | None, sid: str, key: str) -> None:
    if key == "symptoms":
        entry.warn(
            line,
            f'{entry.label} lists the scene observation "{sid}" among its symptoms',
            "move it to the chemical's `scene` list (what is seen or told on scene), "
            "with the [[chemical.evidence]] table of the document that states it",
        )
    else:
        entry.warn(
            line,
            f'{entry.label} lists the victim\'s sign "{sid}" in its `scene` list',
            "move it to the chemical's `symptoms` list",
        )


def _sources(entry: _Entry, evidence: list[Evidence]) -> list[str]:
    """The chemical's sources: those it lists, then the titles of its evidence documents."""
    sources = list(entry.values.get("sources", []))
    if "sources" in entry.values:
        if not sources:
            entry.error(
                entry.line("sources"),
                f"{entry.label} has an empty sources list",
                'name at least one document the symptoms come from, e.g. ["NIOSH NPG: Chlorine"]',
            )
        for src in sources:
            bad = source_problem(src, entry.ck.strict)
            if bad:
                entry.error(entry.value_line("sources", src), f"{entry.label}: {bad[0]}", bad[1])
    return sources + [e.title for e in evidence if e.title not in sources]


def _unsourced_scene_cells(
    entry: _Entry, evidence: list[Evidence], aliases: dict[str, str]
) -> None:
    """Warn of each scene cell no evidence document supports."""
    supported = frozenset().union(*(e.symptoms for e in evidence))
    for sid in entry.values.get("scene", []):
        if entry.ok and aliases.get(sid, sid) not in supported:
            entry.warn(
                entry.value_line("scene", sid),
                f'{entry.label}: scene cell "{sid}" has no source; it counts as unverified '
                "(occasional at most)",
                "add the [[chemical.evidence]] table of the document that states it, or "
                "remove the cell",
            )


def _source_checked(
    entry: _Entry, has_evidence: bool, cells: set[str], evidence: list[Evidence]
) -> bool:
    """Whether the chemical's sources count as checked: ``source_checked = true`` with
    evidence documents that support every cell."""
    checked = entry.values.get("source_checked", False)
    if not (checked and entry.ok):
        return checked
    if not has_evidence:
        entry.warn(
            entry.line("source_checked"),
            f"{entry.label} says source_checked = true but records no [[chemical.evidence]]; "
            "it counts as not checked",
            "add one [[chemical.evidence]] table per document read (title, url, the "
            "symptoms it supports), or set source_checked = false",
        )
        return False
    missing = cells - frozenset().union(*(e.symptoms for e in evidence))
    if missing:
        entry.error(
            entry.line("source_checked"),
            f"{entry.label} says source_checked = true but no evidence document supports "
            + ", ".join(f'"{m}"' for m in sorted(missing)),
            "add those symptoms to the [[chemical.evidence]] that lists them, or "
            "set source_checked = false until a document is read",
        )
    return checked


def _prior(entry: _Entry) -> float | None:
    """The chemical's relative prior weight, if given (a bad one is reported)."""
    prior = entry.values.get("prior")
    if prior is None:
        return None
    # 1e308 passes as a number, but two of them overflow the normalising sum
    try:
        return check_number(
            prior,
            f"{entry.label}: prior",
            *PRIOR_RANGE,
            "priors are positive relative weights: give e.g. 0.5 or 3 (1.0 is the "
            "default), or remove the key",
        )
    except FieldError as exc:
        entry.error(entry.line("prior"), exc.problem, exc.fix)
        return None


def _chemical_id(entry: _Entry, seen: Seen) -> str | None:
    """The chemical's id (given, else made from its name), unique across the files."""
    chem_id = entry.values.get("id")
    id_line = entry.line("id")
    if chem_id is not None and not ID_RE.match(chem_id):
        entry.error(
            id_line,
            f'{entry.label}: id "{chem_id}" is not a valid id',
            'use lower-case letters, digits and "_" only, e.g. "sarin"',
        )
        return None
    if chem_id is None and entry.name:
        chem_id = chemical_slug(entry.name)
        if not chem_id:
            entry.error(
                entry.anchor,
                f"{entry.label}: no id can be made from its name",
                'add id = "<lower-case letters, digits and _>"',
            )
            return None
    if not chem_id:
        return chem_id
    if chem_id not in seen.ids:
        seen.ids[chem_id] = (entry.name, entry.ck.where(entry.doc.rel, id_line))
    elif seen.ids[chem_id][0].casefold() != entry.name.casefold():
        # (the same name is reported once, as a duplicate name)
        other_name, other_where = seen.ids[chem_id]
        entry.error(
            id_line,
            f'{entry.label} has id "{chem_id}", the same as "{other_name}" at {other_where}',
            'ids must be unique: give one of them its own id = "..."',
        )
    return chem_id


def _unique_name(entry: _Entry, seen: Seen) -> None:
    """Report a name an earlier chemical has (case-insensitively)."""
    if not entry.name:
        return
    key = entry.name.casefold()
    if key in seen.names:
        entry.error(
            entry.anchor,
            f'duplicate chemical "{entry.name}": also defined at {seen.names[key]}',
            "remove one entry, or rename it if they are different chemicals",
        )
    else:
        seen.names[key] = entry.ck.where(entry.doc.rel, entry.anchor)


def _unique_cas(entry: _Entry, cas: str | None, seen: Seen) -> None:
    """Report a CAS number an earlier chemical has."""
    if not cas:
        return
    line = entry.line("cas")
    if cas in seen.cas:
        other_name, other_where = seen.cas[cas]
        entry.error(
            line,
            f'{entry.label} has CAS {cas}, the same as "{other_name}" at {other_where}',
            "one of the two CAS numbers is wrong, or they are the same chemical: keep one entry",
        )
    else:
        seen.cas[cas] = (entry.name, entry.ck.where(entry.doc.rel, line))


def check_evidence(
    entry: _Entry,
    raw,
    n_before: int,
    cells: set[str] | None,
    symptom_ids: set[str] | None,
    aliases: dict[str, str],
) -> tuple[list[Evidence], int, bool]:
    """Check a chemical's ``[[chemical.evidence]]`` tables.

    ``cells`` are the chemical's current cell ids (None when they could not be read, to
    avoid a cascade of messages). Returns the evidence, the running count of evidence tables
    in the file, and whether all was well.
    """
    if raw is None:
        return [], n_before, True
    ck, doc = entry.ck, entry.doc
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        ck.error(
            doc.rel,
            entry.line("evidence"),
            f"{entry.label}: `evidence` is not a list of [[chemical.evidence]] tables",
            "write one [[chemical.evidence]] table per document, after the chemical's "
            "other keys, with title, url and symptoms",
        )
        return [], n_before, False
    required = {"title": "str"}
    optional = {"url": "str", "notes": "str", **{key: "list" for key in EVIDENCE_GRADE_KEYS}}
    if ck.strict:
        required["url"] = optional.pop("url")
    ok = True
    out: list[Evidence] = []
    for k, table in enumerate(raw):
        v, span, anchor = ck.fields(
            doc, "chemical.evidence", n_before + k, table, required, optional
        )
        good = required.keys() <= v.keys()
        title = v.get("title", "").strip()
        good = _evidence_title_and_url(entry, v, span, anchor, title) and good
        if not any(key in table for key in EVIDENCE_GRADE_KEYS):
            ck.error(
                doc.rel,
                anchor,
                f'{entry.label}: evidence "{title}" supports no cell',
                "list what the document supports: symptoms = [...] or scene = [...] (graded "
                "common), hallmark = [...] (most victims show it) or occasional = [...]",
            )
            good = False
        graded, graded_ok = _graded_cells(
            entry, v, span, anchor, title, cells, symptom_ids, aliases
        )
        good = good and graded_ok
        ok = ok and good
        if good:
            out.append(
                Evidence(
                    title,
                    v.get("url", "").strip(),
                    frozenset().union(*graded.values()),
                    anchor,
                    hallmark=frozenset(graded["hallmark"]),
                    occasional=frozenset(graded["occasional"] - graded["common"]),
                )
            )
    return out, n_before + len(raw), ok


def _evidence_title_and_url(entry: _Entry, v: dict, span, anchor: int | None, title: str) -> bool:
    """Whether an evidence document's title names a source series (when strict) and its url
    is a web address; each problem is reported."""
    ck, doc = entry.ck, entry.doc
    good = True
    if title:
        bad = source_problem(title, ck.strict)
        if bad:
            ck.error(
                doc.rel, doc.lines.key(span, "title") or anchor, f"{entry.label}: {bad[0]}", bad[1]
            )
            good = False
    url = v.get("url", "").strip()
    if "url" in v and not _URL_RE.match(url):
        ck.error(
            doc.rel,
            doc.lines.key(span, "url") or anchor,
            f'{entry.label}: evidence url "{url}" is not a web address',
            'give the address the document was read at, e.g. "https://www.cdc.gov/..."',
        )
        good = False
    return good


def _graded_cells(
    entry: _Entry,
    v: dict,
    span,
    anchor: int | None,
    title: str,
    cells: set[str] | None,
    symptom_ids: set[str] | None,
    aliases: dict[str, str],
) -> tuple[dict[str, set[str]], bool]:
    """The cells an evidence document supports, by grade, and whether each is a known cell
    of the chemical's row."""
    ck, doc = entry.ck, entry.doc
    good = True
    graded: dict[str, set[str]] = {grade: set() for grade in GRADES}
    for key in EVIDENCE_GRADE_KEYS:
        for sid in v.get(key, []):
            line = doc.lines.value(span, key, sid) or anchor
            cid = current_id(ck, doc, line, entry.label, sid, symptom_ids, aliases)
            if cid is None:
                good = False
            # without a vocabulary (symptoms.toml missing or broken) an alias cannot be
            # told from its symptom, so the row cannot be compared: no follow-on error
            elif cells is not None and symptom_ids is not None and cid not in cells:
                ck.error(
                    doc.rel,
                    line,
                    f'{entry.label}: evidence "{title}" supports "{sid}", which is not in the '
                    "chemical's symptoms or scene",
                    "add it to the chemical's symptoms or scene if the document lists "
                    "it, or remove it from this evidence",
                )
                good = False
            else:
                graded[EVIDENCE_GRADE_KEYS[key]].add(cid)
    return graded, good
