"""Import a knowledge base from a wide CSV file (``responder kb import FILE.csv``).

The CSV has one row per chemical::

    name,class,cas,Cough,Headache,Pinpoint pupils
    category,,,Breathing,Nervous system,Eyes        <- optional second row
    Chlorine,Irritant gases,7782-50-5,1,1,0

Cells are separated by commas, or by the semicolons or tabs spreadsheets export in locales whose
decimal mark is a comma (the header row's separator is used for the whole file, unless a
first line ``sep=;``, as Excel writes it, names it).
``name`` and ``class`` are required columns; ``cas``, ``un`` and ``source`` are optional and
recognised by their header (any case, any position); every other column is a symptom with
0/1 cells. Symptom ids are slugs of the headers and labels the header text. The optional
second row, whose first cell is ``category``, gives each symptom column's category; without
it every symptom goes into one category, "uncategorised".

The result is rendered as a knowledge-base folder in the TOML format and validated by the
same loader as every other knowledge base; nothing is written unless it is valid.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import shutil
import tempfile
import unicodedata
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import tomlkit

from responder import paths
from responder.input_limits import InputRejected, read_text
from responder.kb.chemical_file import CHEMICALS_DIR
from responder.kb.fields import FieldError, check_name, check_text, shown
from responder.kb.identifiers import cas_problem, un_problem
from responder.kb.loader import BUNDLED_NAME, check_files, load_kb
from responder.kb.model import KBError, KBIssue, KnowledgeBase
from responder.kb.vocabulary import CLASSES_FILE, SYMPTOMS_FILE

RESERVED = ("name", "class", "cas", "un", "source")
#: Cell separators and their names: the comma first, so it wins a tie.
SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab"}
DEFAULT_CATEGORY = "uncategorised"
#: The first line Excel writes (and reads) to name the cell separator: ``sep=;``
EXCEL_SEPARATOR_LINE = re.compile(r"^sep=(.?)$", re.IGNORECASE)
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def slugify(text: str) -> str:
    """``"Pinpoint pupils (miosis)"`` -> ``"pinpoint_pupils_miosis"``; "" if nothing is left."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")


def stable_id(text: str, prefix: str) -> str:
    """An id for a header or class name: its slug, or, for text with letters but none in
    a-z (Cyrillic, Chinese...), ``<prefix>_`` and a hash of the text, the same at every
    import. "" when the text has no letters or digits at all."""
    slug = slugify(text)
    if slug or not any(ch.isalnum() for ch in text):
        return slug
    digest = hashlib.blake2b(
        unicodedata.normalize("NFC", text).casefold().encode(), digest_size=4
    ).hexdigest()
    return f"{prefix}_{digest}"


def _separator(text: str) -> str:
    """The cell separator of the file: the one of :data:`SEPARATORS` its first non-blank
    line (the header) holds most often outside quotes; the comma on a tie."""
    header = next((line for line in text.splitlines() if line.strip()), "")
    unquoted = re.sub(r'"[^"]*"', "", header)
    return max(SEPARATORS, key=unquoted.count)


def _stray_quote(line: str, separator: str = ",") -> str | None:
    """The first unquoted cell of a CSV line that holds a quote; None if none.

    (Python's csv keeps such a quote as text, so ``Chl"orine`` would silently become a name.)
    """
    k, n = 0, len(line)
    while k <= n:
        if k < n and line[k] == '"':  # a quoted cell: skip to its closing quote
            k += 1
            while k < n:
                if line[k] == '"':
                    if k + 1 < n and line[k + 1] == '"':
                        k += 2
                        continue
                    break
                k += 1
            k = line.find(separator, k)
        else:
            end = line.find(separator, k)
            cell = line[k:] if end < 0 else line[k:end]
            if '"' in cell:
                return cell.strip()
            k = end
        if k < 0:
            return None
        k += 1
    return None


@dataclass
class _Row:
    line: int
    name: str
    class_label: str
    class_id: str
    cas: str
    un: str
    sources: list[str]
    symptoms: list[str] = field(default_factory=list)


class _CsvReader:
    """Reads the CSV into columns and rows, collecting every problem with its line number."""

    def __init__(self, path: Path, source: str | None):
        self.path = path
        self.source = source
        self.issues: list[KBIssue] = []
        self.separator = ","

    def error(self, line: int | None, problem: str, fix: str) -> None:
        self.issues.append(KBIssue(str(self.path), line, problem, fix))

    def field_ok(self, line: int, check, value: str, what: str, empty_ok: bool = True) -> bool:
        """Whether a cell passes its field check (:mod:`responder.kb.fields`: length and
        printable characters); the problem is reported on its line otherwise."""
        try:
            check(value, what, empty_ok=empty_ok)
        except FieldError as exc:
            self.error(line, exc.problem, exc.fix)
            return False
        return True

    def _excel_separator_line(self, text: str) -> tuple[str, str | None]:
        """Excel's ``sep=;`` first line names the separator: the separator it names, and the
        text with that line left blank (so line numbers stay the file's); else (text, None).

        Raises
        ------
        KBError
            It names a separator other than a comma, semicolon or tab.
        """
        first, newline, rest = text.partition("\n")
        match = EXCEL_SEPARATOR_LINE.match(first.strip())
        if match is None:
            return text, None
        named = match.group(1) or ("\t" if "\t" in first else "")
        if named not in SEPARATORS:
            self.error(
                1,
                f"the first line, {first.strip()!r}, names a separator responder does not read",
                "save the file with commas, semicolons or tabs between cells (e.g. sep=;)",
            )
            raise KBError(self.issues)
        return newline + rest, named

    def read(self):
        try:
            text = read_text(self.path, "CSV file")
        except InputRejected as exc:
            fix = "save or export it as CSV UTF-8" if exc.kind == "encoding" else exc.fix
            self.error(exc.line, exc.problem, fix)
            raise KBError(self.issues) from None
        # strict: a quote that ends a quoted cell must be followed by a separator, and a
        # quote left open at the end of the file is an error instead of a swallowed row
        text, named = self._excel_separator_line(text)
        self.separator = sep = named or _separator(text)
        physical = io.StringIO(text, newline="").readlines()
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
        records = []
        start = 1
        try:
            for cells in reader:
                end = reader.line_num
                if end > start and any(c.strip() for c in cells):
                    self.error(
                        start,
                        f"a quoted cell runs on from line {start} to line {end}",
                        'a cell cannot hold a line break: look for a stray quote (") on '
                        f"line {start} and remove it, or close the quote",
                    )
                elif any(c.strip() for c in cells):  # blank lines and ",,," rows carry nothing
                    stray = _stray_quote(physical[start - 1], sep)
                    if stray is not None:
                        self.error(
                            start,
                            f"the cell {stray} holds a stray quote",
                            "remove it, or quote the whole cell and double the quote "
                            'inside, e.g. "Chl""orine"',
                        )
                    records.append((start, [c.strip() for c in cells]))
                start = end + 1
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):
                self.error(
                    start,
                    'a quote (") opens a cell on this line and is never closed',
                    "remove the stray quote, or add the closing one",
                )
            else:
                self.error(
                    reader.line_num,
                    f"the CSV cannot be parsed: {exc}",
                    'check the quotes on that line: a quoted cell must end with " '
                    f"followed by a {SEPARATORS[sep]} or the end of the line",
                )
            raise KBError(self.issues) from None
        if self.issues:
            raise KBError(self.issues)
        if not records:
            self.error(
                None,
                "the file is empty",
                "give a header row name,class,<symptom>,... and one row per chemical",
            )
            raise KBError(self.issues)
        return records

    def columns(self, line: int, header: list[str]):
        """Positions of the reserved columns and the symptom columns (index, id, label)."""
        reserved: dict[str, int] = {}
        symptoms: list[tuple[int, str, str]] = []
        seen_ids: dict[str, str] = {}
        bad_headers = False
        for k, head in enumerate(header):
            key = head.casefold()
            if not head:
                self.error(
                    line,
                    f"column {k + 1} has no header",
                    "give every column a header: name, class, cas, un, source or a symptom",
                )
            elif key in RESERVED:
                if key in reserved:
                    self.error(
                        line,
                        f'two columns are headed "{key}" ({reserved[key] + 1} and {k + 1})',
                        "keep one of them",
                    )
                reserved.setdefault(key, k)
            elif not self.field_ok(line, check_name, head, f"the header of column {k + 1}"):
                bad_headers = True
            else:
                sid = stable_id(head, "symptom")
                if not sid:
                    self.error(
                        line,
                        f'symptom column {k + 1} "{head}" has no letters or digits',
                        "name the symptom in words",
                    )
                elif sid in seen_ids:
                    self.error(
                        line,
                        f'symptom columns "{seen_ids[sid]}" and "{head}" both '
                        f'become the id "{sid}"',
                        "rename or merge one of them",
                    )
                else:
                    seen_ids[sid] = head
                    symptoms.append((k, sid, head))
        for key in ("name", "class"):
            if key not in reserved:
                self.error(
                    line,
                    f'there is no "{key}" column',
                    f'add a column headed "{key}" (the header row must be '
                    "name,class,<symptom 1>,<symptom 2>,...)",
                )
        if not symptoms and header and not bad_headers:
            self.error(
                line,
                "there are no symptom columns",
                "add one column per symptom, headed with the symptom's name",
            )
        return reserved, symptoms

    def row(
        self,
        line: int,
        cells: list[str],
        width: int,
        reserved: dict[str, int],
        symptoms: list[tuple[int, str, str]],
    ) -> _Row | None:
        if len(cells) != width:
            self.error(
                line,
                f"this row has {len(cells)} cells but the header has {width}",
                "give every row one cell per column (check for stray or missing "
                f"{SEPARATORS[self.separator]}s)",
            )
            return None

        def cell(key: str) -> str:
            return cells[reserved[key]] if key in reserved else ""

        ok = True
        name = cell("name")
        checks = [("name", check_name, "chemical name"), ("class", check_name, "class")]
        checks += [("cas", check_name, "CAS number"), ("un", check_name, "UN number")]
        checks += [("source", check_text, "source")]
        for key, check, what in checks:
            if not self.field_ok(line, check, cell(key), what):
                if key in ("name", "class"):  # not quoted again in later messages
                    return None
                ok = False
        if not ok:
            return None
        if not name:
            self.error(line, "the chemical name is empty", "fill in the name, or delete the row")
            ok = False
        label = name or "this row"
        class_id = stable_id(cell("class"), "class")
        if not cell("class"):
            self.error(line, f'"{label}" has no class', "fill in the class column")
            ok = False
        elif not class_id:
            self.error(
                line,
                f'the class "{cell("class")}" has no letters or digits',
                "name the class in words",
            )
            ok = False
        for key, check in (("cas", cas_problem), ("un", partial(un_problem, csv_cell=True))):
            if cell(key) and (bad := check(cell(key))):
                self.error(line, f'"{label}": {bad[0]}', bad[1])
                ok = False
        sources = [s.strip() for s in cell("source").split(";") if s.strip()]
        if not sources:
            sources = [self.source or f"Imported from {file_name_text(self.path)}"]
        found = []
        for k, sid, head in symptoms:
            value = cells[k]
            if value == "1":
                found.append(sid)
            elif value != "0":
                self.error(
                    line,
                    f'"{label}", column "{head}": the cell is "{shown(value)}", not 0 or 1',
                    "write 1 if the source lists the symptom, else 0",
                )
                ok = False
        if ok and not found:
            self.error(
                line,
                f'"{label}" has no symptoms (every cell is 0)',
                "mark the symptoms its source lists with 1, or delete the row",
            )
            ok = False
        if not ok:
            return None
        return _Row(line, name, cell("class"), class_id, cell("cas"), cell("un"), sources, found)


def _is_category_row(
    cells: list[str], reserved: dict[str, int], symptoms: list[tuple[int, str, str]]
) -> bool:
    """Whether the row after the header is the optional category row: first cell
    "category", no class, and not only 0/1 cells (a chemical named "Category" has a class,
    and one missing its class still has 0/1 cells: both are chemical rows)."""
    if not cells or cells[0].casefold() != "category":
        return False
    k = reserved.get("class")
    if k is not None and k != 0 and k < len(cells) and cells[k]:
        return False
    marks = [cells[j] for j, _, _ in symptoms if j < len(cells)]
    return not all(m in ("0", "1") for m in marks)


def csv_to_files(path: str | Path, source: str | None = None) -> dict[str, str]:
    """Read a wide CSV and render it as knowledge-base files.

    Parameters
    ----------
    path : str or Path
        The CSV file.
    source : str, optional
        Source text for rows without a ``source`` cell; by default "Imported from FILE.csv".

    Returns
    -------
    dict of relative path -> TOML text
        ``symptoms.toml``, ``classes.toml`` and ``chemicals/<class id>.toml``.

    Raises
    ------
    KBError
        Every problem found, each with its CSV line number.
    """
    path = Path(path)
    rd = _CsvReader(path, source)
    # an empty --source would stand for no source at all: every row must name one
    if source is not None and not rd.field_ok(
        None, check_text, source, "--source text", empty_ok=False
    ):
        raise KBError(rd.issues)
    records = rd.read()
    head_line, header = records[0]
    reserved, symptoms = rd.columns(head_line, header)
    if rd.issues:  # with a broken header every row would only repeat the problem
        raise KBError(rd.issues)
    data = records[1:]

    category_of = {sid: DEFAULT_CATEGORY for _, sid, _ in symptoms}
    category_label = {DEFAULT_CATEGORY: "Uncategorised"}
    if data and _is_category_row(data[0][1], reserved, symptoms):
        line, cells = data.pop(0)
        if len(cells) != len(header):
            rd.error(
                line,
                f"the category row has {len(cells)} cells but the header has {len(header)}",
                "give one category per symptom column",
            )
        else:
            category_label = {}
            for k, sid, head in symptoms:
                if not rd.field_ok(line, check_name, cells[k], f'the category of "{head}"'):
                    continue
                cid = stable_id(cells[k], "category")
                if not cid:
                    rd.error(
                        line,
                        f'symptom column "{head}" has no category',
                        "fill in its category, or delete the category row",
                    )
                    continue
                category_of[sid] = cid
                category_label.setdefault(cid, cells[k])

    rows: list[_Row] = []
    names: dict[str, int] = {}
    cas_seen: dict[str, int] = {}
    for line, cells in data:
        row = rd.row(line, cells, len(header), reserved, symptoms)
        if row is None:
            continue
        key = row.name.casefold()
        if key in names:
            rd.error(
                line,
                f'duplicate chemical "{row.name}": also on line {names[key]}',
                "remove one row, or rename it if they are different chemicals",
            )
            continue
        if row.cas and row.cas in cas_seen:
            rd.error(
                line,
                f'"{row.name}" has CAS {row.cas}, the same as line {cas_seen[row.cas]}',
                "one of the two CAS numbers is wrong, or they are the same chemical",
            )
            continue
        names[key] = line
        if row.cas:
            cas_seen[row.cas] = line
        rows.append(row)
    if not data and not rd.issues:
        rd.error(head_line, "there are no chemical rows", "add one row per chemical")
    class_label: dict[str, str] = {}  # class id -> label of its first row
    for row in rows:
        class_label.setdefault(row.class_id, row.class_label)
    if rd.issues:
        raise KBError(rd.issues)
    return _render(path, symptoms, category_of, category_label, class_label, rows)


def _toml(banner: str, top: dict, **arrays: list[dict]) -> str:
    """A TOML file: the banner comment, plain keys, then each array of ``[[name]]`` tables
    (tomlkit does the quoting and escaping)."""
    doc = tomlkit.document()
    doc.add(tomlkit.comment(banner))
    for key, value in top.items():
        doc.add(key, value)
    for name, tables in arrays.items():
        aot = tomlkit.aot()
        for fields in tables:
            table = tomlkit.table()
            for key, value in fields.items():
                table.add(key, value)
            aot.append(table)
        doc.add(name, aot)
    return tomlkit.dumps(doc)


def _render(path, symptoms, category_of, category_label, class_label, rows) -> dict[str, str]:
    banner = (
        f"Imported from {file_name_text(path)} by `responder kb import`. Edit the CSV and "
        "re-import."
    )
    used = set(category_of.values())
    categories = [{"id": c, "label": category_label[c]} for c in category_label if c in used]
    symptom_tables = [
        {"id": sid, "label": head, "category": category_of[sid]} for _, sid, head in symptoms
    ]
    files = {
        SYMPTOMS_FILE: _toml(banner, {}, category=categories, symptom=symptom_tables),
        CLASSES_FILE: _toml(
            banner, {}, **{"class": [{"id": c, "label": label} for c, label in class_label.items()]}
        ),
    }
    for cid in class_label:
        chemicals = []
        for row in rows:
            if row.class_id != cid:
                continue
            fields = {"name": row.name}
            if not slugify(row.name):  # e.g. a Cyrillic name: the loader cannot derive an id
                fields["id"] = stable_id(row.name, "chemical")
            if row.cas:
                fields["cas"] = row.cas
            if row.un:
                fields["un"] = row.un
            fields["symptoms"] = list(row.symptoms)
            fields["sources"] = list(row.sources)
            chemicals.append(fields)
        files[f"{CHEMICALS_DIR}/{cid}.toml"] = _toml(banner, {"class": cid}, chemical=chemicals)
    return files


def _validate(
    files: dict[str, str], csv_path: Path, name: str, strict: bool = False
) -> KnowledgeBase:
    return check_files(
        files,
        name=name,
        origin=str(csv_path),
        display=lambda rel: f"{csv_path} (as {rel})",
        strict=strict,
    )


def file_name_text(path: Path) -> str:
    """The file's name as text the knowledge base can hold: bytes of a name that are not
    UTF-8 (lone surrogates in a path from the command line) become U+FFFD, as a file
    manager shows them; the files written are UTF-8 and could not hold them."""
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in path.name)


def default_name(csv_path: str | Path) -> str:
    """The NAME an import gets without ``--name``: the slug of the file's stem."""
    return slugify(Path(csv_path).stem) or "imported"


def load_csv(path: str | Path, source: str | None = None, strict: bool = False) -> KnowledgeBase:
    """Read and validate a CSV knowledge base in memory, storing nothing (``--kb FILE.csv``).

    ``strict`` applies the bundled rules (CAS required, sources from the public series).
    """
    path = Path(path)
    return _validate(csv_to_files(path, source), path, default_name(path), strict)


def import_csv(
    path: str | Path, name: str | None = None, source: str | None = None, replace: bool = False
) -> tuple[KnowledgeBase, Path]:
    """Import a CSV as the knowledge base NAME under ``responder.paths.user_kb_dir()``.

    Parameters
    ----------
    path : str or Path
        The CSV file.
    name : str, optional
        Name to store it under (letters, digits, ".", "-", "_"); default the file stem's slug.
    source : str, optional
        Source text for rows without a ``source`` cell.
    replace : bool
        Overwrite an existing knowledge base of that name.

    Returns
    -------
    (KnowledgeBase, Path)
        The knowledge base as loaded back from its new folder, and that folder.

    Raises
    ------
    KBError
        If the CSV or the name is invalid; nothing is written then.
    """
    path = Path(path)
    name = default_name(path) if name is None else name
    if not _NAME_RE.match(name) or name.casefold() == BUNDLED_NAME:
        usable = slugify(name) or "my_kb"
        if usable.casefold() == BUNDLED_NAME:
            usable = f"{usable}_import"
        problem = (
            f'"{BUNDLED_NAME}" is the knowledge base that comes with responder'
            if name.casefold() == BUNDLED_NAME
            else "this is not a usable knowledge-base name"
        )
        raise KBError(
            [
                KBIssue(
                    name,
                    None,
                    problem,
                    f'use letters, digits, ".", "-" and "_", not "{BUNDLED_NAME}", '
                    f"e.g. --name {usable}",
                )
            ]
        )
    root = paths.user_kb_dir()
    target = root / name
    if target.exists() and not replace:
        raise KBError(
            [
                KBIssue(
                    str(target),
                    None,
                    f'a knowledge base named "{name}" already exists',
                    "pass --replace to overwrite it, or choose another --name",
                )
            ]
        )
    files = csv_to_files(path, source)
    _validate(files, path, name)  # raises before anything is written

    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".import-{name}-", dir=root))
    try:
        for rel, text in files.items():
            dest = staging / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text, encoding="utf-8")
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".old-{name}-", dir=root))
            target.rename(old / name)
            staging.rename(target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return load_kb(target, name=name, strict=False), target
