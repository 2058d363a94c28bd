"""Case vignettes: published incidents and case reports, one TOML file each, in ``kb/cases/``.

A case names the agent (a chemical of the knowledge base, or several that the report does
not tell apart), its class, the citation and URL of the report, and each sign the report
states as present or absent, mapped to a symptom id with a short quote. The validation
harness (:mod:`responder.core.validation`) answers an interview from them. The format is
documented in docs/knowledge-base.md ("Case vignettes").
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from responder.input_limits import InputRejected, read_text
from responder.kb.checker import Checker, Doc
from responder.kb.loader import bundled_root
from responder.kb.model import KBError, KBIssue, KnowledgeBase

CASES_DIR = "cases"
MAX_CASE_BYTES = 256 * 1024  # a case file is a page of text; anything larger is a mistake
MAX_QUOTE_WORDS = 20

_SLUG_RE = re.compile(r"[^a-z0-9]+")
_PAREN_RE = re.compile(r"\s*\([^)]*\)")
_SCHEME_RE = re.compile(r"^[a-z][a-z0-9+.-]*://")
# A mirror may mangle what follows the page's own name (``.htm?s_cid=`` -> ``.htm_s_cid=``).
_PAGE_RE = re.compile(r"^(.*?\.(?:html?|pdf|aspx?|php))")


@dataclass(frozen=True)
class CaseSign:
    """One sign the report states: ``symptom`` (a symptom id) present or absent."""

    symptom: str
    present: bool
    quote: str
    line: int | None = None


@dataclass(frozen=True)
class Case:
    """One case vignette, resolved against a knowledge base.

    Attributes
    ----------
    id : str
        The file's stem, e.g. ``"tokyo_sarin_1995"``.
    file : str
        The file as the user should open it.
    agents : tuple of str
        The agent(s) as the file names them. Several mean "any of these" (e.g. a cyanide salt
        the report does not name).
    chemicals : tuple of int
        Knowledge-base rows of those agents that the knowledge base holds; empty when none
        is in it (then the case can only score on class).
    class_id : str
        The agent's class, as the case file says.
    citation, url, notes : str
    signs : tuple of CaseSign
        In file order; at most one per symptom.
    class_only : bool
        The report names only the class (``agent`` is the class id, e.g. an unnamed
        "superwarfarin"): the case scores on class and is left out of chemical accuracy.
    """

    id: str
    file: str
    agents: tuple[str, ...]
    chemicals: tuple[int, ...]
    class_id: str
    citation: str
    url: str
    signs: tuple[CaseSign, ...]
    notes: str = ""
    class_only: bool = False

    def answers(self) -> dict[str, bool]:
        """{symptom id: present} for every sign the report states."""
        return {s.symptom: s.present for s in self.signs}


def slug(text: str) -> str:
    """The id a name gets by default: lower case, runs of other characters as ``_``."""
    return _SLUG_RE.sub("_", text.casefold()).strip("_")


def chemical_keys(kb: KnowledgeBase) -> dict[str, int]:
    """Every spelling a case may use for a chemical -> its row.

    A chemical's ``id`` (when the model has one), the slug of its name, its name, and its
    name without parenthesised parts ("Sarin (GB)" -> "sarin"), all case-insensitive. A key
    two chemicals share is dropped, so no spelling is ambiguous.
    """
    keys: dict[str, int] = {}
    clashes: set[str] = set()
    for i, chem in enumerate(kb.chemicals):
        short = _PAREN_RE.sub("", chem.name).strip()
        spellings = {chem.name.casefold(), slug(chem.name), short.casefold(), slug(short)}
        own_id = getattr(chem, "id", None)
        if own_id:
            spellings.add(str(own_id).casefold())
        for key in spellings:
            if key in keys and keys[key] != i:
                clashes.add(key)
            keys.setdefault(key, i)
    for key in clashes:
        del keys[key]
    return keys


def resolve_symptom(kb: KnowledgeBase, text: str) -> str | None:
    """The symptom id ``text`` names (id, alias, label or synonym), or None."""
    resolver = getattr(kb, "resolve_symptom", None)
    if resolver is not None:
        try:
            return kb.symptoms[resolver(text)].id
        except (KeyError, ValueError, LookupError):
            return None
    key = text.strip().casefold()
    for s in kb.symptoms:
        if key in (s.id.casefold(), s.label.casefold()):
            return s.id
    return None


def _close(value: str, known) -> str:
    close = difflib.get_close_matches(value, list(known), n=3, cutoff=0.6)
    return ("did you mean " + " or ".join(f'"{c}"' for c in close) + "?") if close else ""


def _check_case(
    ck: Checker, doc: Doc, kb: KnowledgeBase, keys: dict[str, int], display: str
) -> Case | None:
    errors_before = len(ck.errors)
    ck.top_keys(doc, ("agent", "class", "citation", "url", "notes", "sign"))
    top = doc.lines.top()
    data = doc.data

    def line_of(key: str) -> int | None:
        return doc.lines.key(top, key)

    agent = data.get("agent")
    if isinstance(agent, str):
        agents = (agent,)
    elif isinstance(agent, list) and agent and all(isinstance(a, str) for a in agent):
        agents = tuple(agent)
    else:
        agents = ()
        what = (
            "is missing"
            if agent is None
            else f"must be a quoted name or a list of them, not {agent!r}"
        )
        ck.error(
            doc.rel,
            line_of("agent") or 1,
            f"`agent` {what}",
            'write agent = "sarin" (a chemical id or name), a list of names the report '
            'does not tell apart, e.g. agent = ["sodium_cyanide", "potassium_cyanide"], '
            "or the class id when the report names no chemical",
        )
    for key in ("class", "citation", "url"):
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            what = "is missing" if value is None else "must be a non-empty quoted string"
            ck.error(
                doc.rel,
                line_of(key) or 1,
                f"`{key}` {what}",
                {
                    "class": 'write class = "nerve_agents" (a class id of classes.toml)',
                    "citation": "give authors, title, journal or agency, year",
                    "url": "give the address where the report was read",
                }[key],
            )
    notes = data.get("notes", "")
    if not isinstance(notes, str):
        ck.error(
            doc.rel, line_of("notes"), "`notes` must be a quoted string", 'write notes = "..."'
        )
        notes = ""

    class_id = data.get("class")
    if isinstance(class_id, str) and class_id.strip() and class_id not in kb.class_by_id:
        ck.error(
            doc.rel,
            line_of("class"),
            f'unknown class "{class_id}"',
            _close(class_id, kb.class_by_id) or "use a class id of classes.toml",
        )

    class_only = bool(agents) and all(a == class_id for a in agents)
    rows: list[int] = []
    for name in [] if class_only else agents:
        row = keys.get(name.strip().casefold())
        if row is None:
            row = keys.get(slug(name))
        if row is not None and row not in rows:
            rows.append(row)

    signs: list[CaseSign] = []
    seen: dict[str, int | None] = {}
    for k, table in enumerate(ck.tables(doc, "sign", required=True)):
        v, span, anchor = ck.fields(
            doc, "sign", k, table, {"symptom": "str", "present": "bool", "quote": "str"}, {}
        )
        if not {"symptom", "present", "quote"} <= v.keys():
            continue
        where = doc.lines.key(span, "symptom") or anchor
        sid = resolve_symptom(kb, v["symptom"])
        if sid is None:
            hint = _close(v["symptom"], [s.id for s in kb.symptoms])
            ck.error(
                doc.rel,
                where,
                f'unknown symptom "{v["symptom"]}"',
                hint
                or "use a symptom id of symptoms.toml; a sign the vocabulary cannot "
                "express goes in a # comment, not onto a near id",
            )
            continue
        if sid in seen:
            ck.error(
                doc.rel,
                where,
                f'the sign "{sid}" is listed twice',
                f"keep one [[sign]] for it (the other is at {ck.where(doc.rel, seen[sid])})",
            )
            continue
        if len(v["quote"].split()) > MAX_QUOTE_WORDS:
            ck.error(
                doc.rel,
                doc.lines.key(span, "quote") or anchor,
                f"the quote has more than {MAX_QUOTE_WORDS} words",
                "quote a few words (facts, not sentences)",
            )
            continue
        seen[sid] = where
        signs.append(CaseSign(sid, v["present"], v["quote"], where))

    if len(ck.errors) > errors_before:
        return None
    return Case(
        id=Path(doc.rel).stem,
        file=display,
        agents=agents,
        chemicals=tuple(rows),
        class_id=class_id,
        citation=data["citation"].strip(),
        url=data["url"].strip(),
        signs=tuple(signs),
        notes=notes.strip(),
        class_only=class_only,
    )


def document_key(url: str) -> str:
    """``url`` reduced to host and path, so that a copy of a page and the page compare equal:
    no scheme, query, fragment, trailing slash or ``www.``, in lower case."""
    key = _SCHEME_RE.sub("", url.strip().lower())
    key = re.split(r"[?#]", key, maxsplit=1)[0]
    page = _PAGE_RE.match(key)
    if page:
        key = page.group(1)
    return re.sub(r"(^|/)www\.", r"\1", key.rstrip("/"))


def same_document(a: str, b: str) -> bool:
    """True when URLs ``a`` and ``b`` name one document, directly or through a mirror that
    keeps the original's host and path at the end of its own (``mirror.org/x/cdc.gov/p``)."""
    short, long = sorted((document_key(a), document_key(b)), key=len)
    if "/" not in short:  # a bare host names a site, not a document
        return False
    return long == short or long.endswith("/" + short)


def rows_citing(case: Case, kb: KnowledgeBase) -> list[str]:
    """Names of the chemicals whose evidence includes the case's own report."""
    if not case.url:
        return []
    return [
        chem.name
        for chem in kb.chemicals
        if any(same_document(case.url, doc.url) for doc in chem.evidence if doc.url)
    ]


def case_files(path: str | Path) -> list[Path]:
    """The ``*.toml`` files of a cases folder (sorted), or ``[path]`` for one file."""
    root = Path(path).expanduser()
    if root.is_file() or (root.exists() and not root.is_dir()):
        return [root]
    if root.is_dir():
        # Anything named *.toml but a folder is read, so a FIFO or a dangling link is
        # reported rather than silently skipped.
        return sorted(p for p in root.iterdir() if p.suffix == ".toml" and not p.is_dir())
    problem = "does not exist" if not root.exists() else "is neither a file nor a folder"
    raise KBError(
        [
            KBIssue(
                str(root),
                None,
                f"the cases path {problem}",
                "give a folder of case .toml files or one case file",
            )
        ]
    )


def bundled_cases_dir() -> Path:
    """The case vignettes shipped with responder."""
    return Path(str(bundled_root().joinpath(CASES_DIR)))


def default_cases(kb: KnowledgeBase) -> tuple[Path, str | None]:
    """The cases ``kb validate`` scores when none are given: the knowledge base's own
    ``cases/`` folder when its folder has one, else the bundled cases with a note saying
    so (None for the bundled knowledge base, whose own they are)."""
    bundled = bundled_cases_dir()
    origin = Path(str(kb.origin)) if kb.origin else None
    if origin is not None and origin.is_dir():
        own = origin / CASES_DIR
        if own.is_dir():
            return own, None
    if origin is not None and origin.resolve() == bundled.parent.resolve():
        return bundled, None
    where = f" ({origin})" if origin is not None else ""
    return bundled, (
        f"note: knowledge base {kb.name!r}{where} has no {CASES_DIR}/ folder of its own: "
        f"scoring the bundled cases, {bundled}"
    )


def load_cases(path: str | Path | None, kb: KnowledgeBase) -> tuple[list[Case], list[KBIssue]]:
    """Read and check every case file under ``path`` (None: the bundled cases).

    Returns the cases (sorted by file name) and warnings (agents the knowledge base lacks,
    a class that differs from the knowledge base's). Raises :class:`KBError` listing every
    problem, each with its file and line, when any file is bad; no case is used then.
    """
    files = case_files(bundled_cases_dir() if path is None else path)
    if not files:
        raise KBError(
            [
                KBIssue(
                    str(path or bundled_cases_dir()),
                    None,
                    "the folder holds no case files",
                    "add case vignettes as .toml files (see docs/knowledge-base.md)",
                )
            ]
        )
    ck = Checker(display=str, strict=False)
    keys = chemical_keys(kb)
    cases: list[Case] = []
    for file in files:
        rel = str(file)
        try:
            text = read_text(file, "case file", MAX_CASE_BYTES)
        except InputRejected as exc:  # a FIFO, a device, too big, not UTF-8, unreadable...
            ck.error(rel, exc.line, exc.problem, exc.fix)
            continue
        doc = ck.parse(rel, text)
        if doc is not None:
            case = _check_case(ck, doc, kb, keys, rel)
            if case is not None:
                cases.append(case)
    if ck.errors:
        raise KBError(ck.errors)
    warnings = []
    for case in cases:
        if not case.chemicals and not case.class_only:
            warnings.append(
                KBIssue(
                    case.file,
                    None,
                    f"agent {', '.join(case.agents)} is not in the knowledge base",
                    "the case counts as a miss for the chemical and scores on "
                    "class only; add the chemical or fix the name",
                    "warning",
                )
            )
        for row in case.chemicals:
            kb_class = kb.chemicals[row].class_id
            if kb_class != case.class_id:
                warnings.append(
                    KBIssue(
                        case.file,
                        None,
                        f"the knowledge base puts {kb.chemicals[row].name} in {kb_class}, the case "
                        f"says {case.class_id}",
                        "class accuracy is scored against the case",
                        "warning",
                    )
                )
        citing = rows_citing(case, kb)
        if citing:
            warnings.append(
                KBIssue(
                    case.file,
                    None,
                    f"the case's own report is a source of {', '.join(citing)}: the validation "
                    "would grade those rows on the report they were read from",
                    "cite another document for those cells, or leave the case out",
                    "warning",
                )
            )
    return cases, warnings
