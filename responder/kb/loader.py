"""Load and validate a knowledge base folder: symptoms.toml, classes.toml, chemicals/*.toml,
and the optional scene.toml, consistency.toml and grades.toml.

Every problem is collected (not just the first) as a :class:`KBIssue` pointing at a file and
line, and all of them are raised together as one :class:`KBError`. The files are checked by
their own modules (:mod:`~responder.kb.vocabulary`, :mod:`~responder.kb.consistency`,
:mod:`~responder.kb.grades`, :mod:`~responder.kb.chemical_file`) through one
:class:`~responder.kb.checker.Checker`; this module reads the folder, runs them in order and
builds the :class:`KnowledgeBase`.

The bundled knowledge base is stricter than user-imported ones: it must give a CAS number for
every chemical that is not a mixture and name one of the public source series in every source.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from responder.input_limits import InputRejected, decode_text, read_bytes
from responder.kb.checker import Checker
from responder.kb.chemical_file import CHEMICALS_DIR, PRIOR_RANGE, Seen, check_chemical_file
from responder.kb.consistency import (
    CONSISTENCY_FILE,
    check_consistency,
    warn_unlisted_contact_signs,
)
from responder.kb.grades import GRADES_FILE, check_grades
from responder.kb.identifiers import (
    SOURCE_SERIES,
    cas_check_digit,
    cas_problem,
    chemical_slug,
    source_problem,
    un_problem,
)
from responder.kb.model import (
    Chemical,
    ChemicalClass,
    ContactSigns,
    ExclusiveGroup,
    Implication,
    KBError,
    KBIssue,
    KnowledgeBase,
)
from responder.kb.vocabulary import (
    CLASSES_FILE,
    SCENE_FILE,
    SYMPTOMS_FILE,
    Vocabulary,
    check_classes,
    check_vocabulary,
    report_missing_scene_file,
)

BUNDLED_NAME = "bundled"

__all__ = [
    "BUNDLED_NAME",
    "CHEMICALS_DIR",
    "CLASSES_FILE",
    "CONSISTENCY_FILE",
    "GRADES_FILE",
    "KBError",
    "PRIOR_RANGE",
    "SCENE_FILE",
    "SOURCE_SERIES",
    "SYMPTOMS_FILE",
    "bundled_root",
    "cas_check_digit",
    "cas_problem",
    "check_files",
    "chemical_slug",
    "load_bundled",
    "load_kb",
    "source_problem",
    "un_problem",
]


def check_files(
    files: Mapping[str, str | bytes | None],
    *,
    name: str,
    origin: str,
    display: Callable[[str], str],
    strict: bool,
) -> KnowledgeBase:
    """Validate a knowledge base given as file texts and build it.

    Parameters
    ----------
    files : mapping of relative path -> text (or bytes)
        ``"symptoms.toml"``, ``"classes.toml"`` and ``"chemicals/<any>.toml"``; a missing
        required file is reported, as is a value of None (the file could not be read).
    name, origin : str
        Stored on the :class:`KnowledgeBase`.
    display : callable
        Turns a relative path into the file name shown in messages.
    strict : bool
        Bundled rules: CAS required and sources must name one of :data:`SOURCE_SERIES`.

    Raises
    ------
    KBError
        With every error found.
    """
    ck = Checker(display, strict)
    texts, digest = _decode(ck, files)
    for rel in (SYMPTOMS_FILE, CLASSES_FILE):
        if rel not in files:
            ck.error(
                rel,
                None,
                "the file is missing",
                f"a knowledge base folder needs {SYMPTOMS_FILE}, {CLASSES_FILE} and "
                f"{CHEMICALS_DIR}/*.toml",
            )

    vocab = Vocabulary()
    symptom_ids = class_ids = None  # None: unknown because the file is broken
    if SYMPTOMS_FILE in texts and (doc := ck.parse(SYMPTOMS_FILE, texts[SYMPTOMS_FILE])):
        check_vocabulary(ck, doc, vocab, "symptom")
        if SCENE_FILE in texts and (doc := ck.parse(SCENE_FILE, texts[SCENE_FILE])):
            check_vocabulary(ck, doc, vocab, "observation")
        # ids of symptoms dropped for a bad category still count as known: no cascade of
        # "unknown symptom" errors in the chemical files
        symptom_ids = set(vocab.symptom_line) or None
    exclusive: list[ExclusiveGroup] = []
    implications: list[Implication] = []
    contact: list[ContactSigns] = []
    contact_lines: dict[tuple[str, str], int | None] = {}
    contact_declared = None  # None: unknown (symptoms.toml or consistency.toml broken)
    if symptom_ids is not None and CONSISTENCY_FILE not in texts:
        contact_declared = False
    if (
        symptom_ids is not None
        and CONSISTENCY_FILE in texts
        and (doc := ck.parse(CONSISTENCY_FILE, texts[CONSISTENCY_FILE]))
    ):
        contact_declared = "contact_signs" in doc.data
        per_incident = {c.id for c in vocab.categories if c.per == "incident"}
        incident_ids = {s.id for s in vocab.symptoms if s.category in per_incident}
        # a route of exposure is answered per victim, one of its category
        per_victim_alternatives = {
            c.id for c in vocab.categories if c.per == "victim" and c.alternatives
        }
        route_ids = {
            s.id: s.category for s in vocab.symptoms if s.category in per_victim_alternatives
        }
        exclusive, implications, contact = check_consistency(
            ck, doc, symptom_ids, vocab.aliases, incident_ids, route_ids, contact_lines
        )
    answer_model: dict = {}
    if GRADES_FILE in texts and (doc := ck.parse(GRADES_FILE, texts[GRADES_FILE])):
        answer_model = check_grades(ck, doc)
        share = answer_model.get("several_routes_share", 1.0)
        if share < 1.0 and contact_declared is False:
            ck.warn(
                doc.rel,
                doc.lines.key(doc.lines.top(), "several_routes_share"),
                f"several_routes_share is {share:g}, but consistency.toml lists no route's "
                "contact signs ([[contact_signs]]): no route view is weighed, and the share "
                "changes nothing",
                "add a [[contact_signs]] table per route to consistency.toml, or leave "
                "several_routes_share out",
            )
    classes = []
    if CLASSES_FILE in texts and (doc := ck.parse(CLASSES_FILE, texts[CLASSES_FILE])):
        classes = check_classes(ck, doc)
        class_ids = {c.id for c in classes} or None

    scene_ids = {o.id for o in vocab.symptoms if o.kind == "scene"} if symptom_ids else None
    chemicals = _check_chemical_files(
        ck, files, texts, symptom_ids, vocab.aliases, class_ids, scene_ids
    )
    if SCENE_FILE not in files:
        report_missing_scene_file(ck)
    if not ck.errors:
        _warn_unused(ck, vocab, implications, classes, chemicals)
        warn_unlisted_contact_signs(
            ck, CONSISTENCY_FILE, contact, _listed(chemicals, implications), contact_lines
        )
    if ck.errors:
        # file by file in the order they were checked, then by line
        rank: dict[str, int] = {}
        for issue in ck.errors:
            rank.setdefault(issue.file, len(rank))
        raise KBError(sorted(ck.errors, key=lambda i: (rank[i.file], i.line or 0)))

    order = {c.id: k for k, c in enumerate(classes)}
    chemicals.sort(key=lambda c: order[c.class_id])  # stable: file and position order kept
    return KnowledgeBase(
        name=name,
        origin=origin,
        categories=tuple(vocab.categories),
        symptoms=tuple(vocab.symptoms),
        classes=tuple(classes),
        chemicals=tuple(chemicals),
        warnings=tuple(ck.warnings),
        digest=digest,
        exclusive_groups=tuple(exclusive),
        implications=tuple(implications),
        contact_signs=tuple(contact),
        answer_model=answer_model,
    )


def _decode(ck: Checker, files: Mapping[str, str | bytes | None]) -> tuple[dict[str, str], str]:
    """The files' texts (an unreadable or undecodable one is reported and left out) and the
    digest of their bytes."""
    digest = hashlib.sha256()
    texts: dict[str, str] = {}
    for rel in sorted(files):
        raw = files[rel]
        if raw is None:
            ck.error(
                rel, None, "the file could not be read", "check that it exists and is readable"
            )
            continue
        if isinstance(raw, InputRejected):  # a FIFO, a device, a dangling link, too big...
            ck.error(rel, raw.line, raw.problem, raw.fix)
            continue
        data = raw.encode("utf-8") if isinstance(raw, str) else raw
        digest.update(rel.encode() + b"\0" + data + b"\0")
        try:
            texts[rel] = decode_text(data, ck.display(rel), "knowledge-base file")
        except InputRejected as exc:
            ck.error(rel, exc.line, exc.problem, exc.fix)
    return texts, digest.hexdigest()


def _check_chemical_files(
    ck: Checker,
    files: Mapping,
    texts: dict[str, str],
    symptom_ids: set[str] | None,
    aliases: dict[str, str],
    class_ids: set[str] | None,
    scene_ids: set[str] | None = None,
) -> list[Chemical]:
    """The good chemicals of every chemical file, in file order."""
    chem_files = [r for r in sorted(texts) if r.startswith(CHEMICALS_DIR + "/")]
    if not any(r.startswith(CHEMICALS_DIR + "/") for r in files):
        ck.error(
            CHEMICALS_DIR,
            None,
            "there are no chemical files",
            f"add {CHEMICALS_DIR}/<class id>.toml files with [[chemical]] tables",
        )
    chemicals: list[Chemical] = []
    n_tables = 0
    seen = Seen(names={}, cas={}, ids={})
    for rel in chem_files:
        doc = ck.parse(rel, texts[rel])
        if doc is None:
            n_tables += 1  # a broken file may hold chemicals: don't also say there are none
            continue
        found, n = check_chemical_file(
            ck, doc, symptom_ids, aliases, class_ids, seen, scene_ids=scene_ids
        )
        chemicals += found
        n_tables += n
    if chem_files and n_tables == 0:
        ck.error(
            CHEMICALS_DIR,
            None,
            "no file in it has a [[chemical]] table",
            "add at least one chemical",
        )
    return chemicals


def _listed(chemicals: list[Chemical], implications: list[Implication]) -> set[str]:
    """The observations some chemical's row lists, with those a "yes implies yes" rule
    completes the rows with (:meth:`KnowledgeBase.implied_cells`)."""
    listed = set().union(*(c.symptoms for c in chemicals))
    rules = [
        (rule.when, then)
        for rule in implications
        if rule.answer == "yes"
        for then, answer in rule.then
        if answer == "yes"
    ]
    grew = True
    while grew:
        new = {then for when, then in rules if when in listed} - listed
        listed |= new
        grew = bool(new)
    return listed


def _warn_unused(
    ck: Checker,
    vocab: Vocabulary,
    implications: list[Implication],
    classes: list[ChemicalClass],
    chemicals: list[Chemical],
) -> None:
    """Warn of observations no chemical has and classes without chemicals."""
    # an observation that only implies others ("walking or talking") needs no chemical
    used = set().union(*(c.symptoms for c in chemicals)) | {i.when for i in implications}
    for s in vocab.symptoms:
        if s.id not in used:
            ck.warn(
                vocab.symptom_file[s.id],
                vocab.symptom_line[s.id],
                f'no chemical has {"symptom" if s.kind == "symptom" else "observation"} "{s.id}"',
                "it can never narrow the list: add it to chemicals whose sources name "
                "it, or remove it",
            )
    have = {c.class_id for c in chemicals}
    for c in classes:
        if c.id not in have:
            ck.warn(
                CLASSES_FILE,
                None,
                f'class "{c.id}" has no chemicals',
                f"add {CHEMICALS_DIR}/{c.id}.toml or remove the class",
            )


# --- reading folders ----------------------------------------------------------------------


def _read_tree(root) -> dict[str, bytes | InputRejected | None]:
    """The knowledge-base files under ``root`` (a Path or importlib Traversable).

    Every ``.toml`` entry is read, so that a FIFO, a device or a dangling symbolic link among
    them is reported rather than skipped or waited on.
    """
    files: dict[str, bytes | InputRejected | None] = {}
    for rel in (SYMPTOMS_FILE, SCENE_FILE, CONSISTENCY_FILE, GRADES_FILE, CLASSES_FILE):
        entry = root.joinpath(rel)
        if _present(entry):
            files[rel] = _read(entry)
    chem = root.joinpath(CHEMICALS_DIR)
    if chem.is_dir():
        for entry in sorted(chem.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".toml") and _present(entry):
                files[f"{CHEMICALS_DIR}/{entry.name}"] = _read(entry)
    return files


def _present(entry) -> bool:
    """Whether a directory entry exists at all (a dangling symbolic link does)."""
    if isinstance(entry, Path):
        return os.path.lexists(entry)
    return entry.is_file()


def _read(entry) -> bytes | InputRejected | None:
    if isinstance(entry, Path):
        try:
            return read_bytes(entry, "knowledge-base file")
        except InputRejected as exc:
            return exc
    try:
        return entry.read_bytes()
    except OSError:
        return None


def bundled_root():
    """Location of the bundled knowledge base: ``kb/`` beside the package when it runs from
    a source checkout (so a clone's code reads that clone's data, whatever an editable
    install elsewhere maps), otherwise the installed ``responder.bundled_kb`` resources."""
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "kb" / SYMPTOMS_FILE).is_file():
        return checkout / "kb"
    try:
        root = importlib.resources.files("responder.bundled_kb")
        if root.joinpath(SYMPTOMS_FILE).is_file():
            return root
    except ModuleNotFoundError:
        pass
    raise KBError(
        [
            KBIssue(
                "responder.bundled_kb",
                None,
                "the bundled knowledge base is not installed",
                "reinstall responder (pip install -e . in a checkout), or pass --kb PATH to a "
                "knowledge base",
            )
        ]
    )


def _same_place(a, b) -> bool:
    try:
        return Path(str(a)).resolve() == Path(str(b)).resolve()
    except (OSError, ValueError):
        return False


def load_bundled() -> KnowledgeBase:
    """Load and validate the knowledge base shipped with responder (strict source rules)."""
    root = bundled_root()
    return _checked(
        _read_tree(root),
        name=BUNDLED_NAME,
        origin=str(root),
        display=lambda rel: str(root.joinpath(rel)),
        strict=True,
    )


def _checked(files, *, name: str, origin: str, display, strict: bool) -> KnowledgeBase:
    """:func:`check_files`, with its engine problem built, or the same knowledge base from
    the cache when these files were checked before by this code (:mod:`responder.kb.cache`)."""
    from responder.kb.cache import cache_key, cached  # noqa: PLC0415

    def build() -> KnowledgeBase:
        kb = check_files(files, name=name, origin=origin, display=display, strict=strict)
        kb.problem  # noqa: B018 (built now, so it is kept with the knowledge base)
        return kb

    return cached(cache_key(files, name=name, origin=origin, strict=strict), build)


def load_kb(
    path: str | Path, *, name: str | None = None, strict: bool | None = None
) -> KnowledgeBase:
    """Load and validate a knowledge base folder.

    Parameters
    ----------
    path : str or Path
        A folder holding symptoms.toml, classes.toml and chemicals/*.toml.
    name : str, optional
        Name to record; defaults to the folder name.
    strict : bool, optional
        Apply the bundled rules (CAS required, sources from the public series). By default
        only when ``path`` is the bundled knowledge base's own folder.

    Raises
    ------
    KBError
    """
    root = Path(path).expanduser()
    if not root.is_dir():
        problem = "does not exist" if not root.exists() else "is not a folder"
        raise KBError(
            [
                KBIssue(
                    str(root),
                    None,
                    f"the knowledge base folder {problem}",
                    f"give a folder holding {SYMPTOMS_FILE}, {CLASSES_FILE} and "
                    f"{CHEMICALS_DIR}/*.toml",
                )
            ]
        )
    if strict is None:
        try:
            strict = _same_place(root, bundled_root())
        except KBError:
            strict = False
    return _checked(
        _read_tree(root),
        name=name or root.resolve().name,
        origin=str(root),
        display=lambda rel: str(root / rel),
        strict=strict,
    )
