"""Fuzzing every reader of user input: knowledge-base folders (TOML text and field values),
CSV files, settings, interchange JSON and npz files, interview protocol lines, journals and
the incident database.

Every case must end in a correct result or the input's own clear error, never another
exception (a traceback), a hang (each case has a deadline) or a silent acceptance: where
a result comes back, it must say exactly what the input said, and every name in it must be
printable text within the limits.

Examples are derandomised. The test suite runs ``RESPONDER_FUZZ_EXAMPLES`` cases per reader
(default 25, a few seconds for the whole file); for the thorough run of 1,000 per reader:

    RESPONDER_FUZZ_EXAMPLES=1000 python -m pytest tests/test_fuzz_inputs.py -p no:xdist
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import zipfile
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_input_limits import CLASSES, SYMPTOMS

from responder.cli.inputs import InputError, load_interchange
from responder.cli.interview import Protocol
from responder.config import InterviewConfig
from responder.core.session import Interview
from responder.kb import KBError, load_kb
from responder.kb.csv_import import load_csv
from responder.kb.fields import MAX_NAME_CHARS, first_unprintable
from responder.kb.loader import PRIOR_RANGE

EXAMPLES = int(os.environ.get("RESPONDER_FUZZ_EXAMPLES", "25"))

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=5),  # a hang fails the case; every read takes milliseconds
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def printable_name(text: str) -> bool:
    return 0 < len(text) <= MAX_NAME_CHARS and first_unprintable(text) is None


def kb_names(kb) -> list[str]:
    """Every name and label a loaded knowledge base shows."""
    names = [c.name for c in kb.chemicals] + [c.label for c in kb.classes]
    names += [c.label for c in kb.categories]
    for s in kb.symptoms:
        names += [s.label, *s.synonyms]
    return names


def assert_clean_kb_error(exc: KBError) -> None:
    assert exc.issues and all(i.problem and i.fix for i in exc.issues)
    text = str(exc)
    assert "Traceback" not in text and len(text) < 50_000
    assert first_unprintable(text, newlines=True) is None  # nothing acts on the terminal


#: Fragments that broke readers before: nesting, huge or non-finite numbers, quotes, NUL,
#: bad UTF-8, headers, line breaks.
NASTY = [
    "[",
    "]",
    "{",
    "}",
    '"',
    "'",
    "=",
    ",",
    "\n",
    "\r\n",
    "\\",
    "#",
    "\x00",
    "\x7f",
    "é",
    "Кашель",
    "头痛",
    "1e400",
    "-1e400",
    "nan",
    "inf",
    "NaN",
    "Infinity",
    "9" * 5000,
    "1" * 45,
    "0",
    "1",
    "-1",
    "true",
    "[[chemical]]",
    "[[symptom]]",
    "[" * 300,
    "]" * 300,
    "[" * 2000,
    '"""',
    "'''",
    "prior = 1e308",
    'symptoms = ["cough"]',
    "class = 1",
    "\ufeff",
    "\u2028",
]


@st.composite
def mutated(draw, base: str) -> bytes:
    """``base`` with a few NASTY fragments (or random text) inserted, deleted or replaced."""
    text = base
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        piece = draw(st.one_of(st.sampled_from(NASTY), st.text(max_size=8)))
        action = draw(st.sampled_from(("insert", "replace", "delete")))
        if action == "insert":
            text = text[:at] + piece + text[at:]
        elif action == "replace":
            text = text[:at] + piece + text[at + len(piece) :]
        else:
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()) and data:  # sometimes a raw byte that is not UTF-8
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.integers(0x80, 0xFF))]) + data[at + 1 :]
    return data


# -- knowledge base ---------------------------------------------------------------------------

CHEMICALS = """\
class = "irritants"

[[chemical]]
name = "Chlorine"
symptoms = ["cough", "wheezing"]
sources = ["Test source"]
prior = 2.0

[[chemical]]
name = "Ammonia"
symptoms = ["cough"]
sources = ["Test source"]
"""


def kb_root(tmp_path_factory, files: dict[str, bytes]) -> Path:
    root = tmp_path_factory.mktemp("kb")
    (root / "chemicals").mkdir()
    defaults = {
        "symptoms.toml": SYMPTOMS.encode(),
        "classes.toml": CLASSES.encode(),
        "chemicals/irritants.toml": CHEMICALS.encode(),
    }
    for rel, data in {**defaults, **files}.items():
        (root / rel).write_bytes(data)
    return root


@FUZZ
@given(st.sampled_from(["symptoms.toml", "classes.toml", "chemicals/irritants.toml"]), st.data())
def test_fuzzed_knowledge_base_files(tmp_path_factory, rel, data):
    base = {
        "symptoms.toml": SYMPTOMS,
        "classes.toml": CLASSES,
        "chemicals/irritants.toml": CHEMICALS,
    }[rel]
    raw = data.draw(mutated(base))
    root = kb_root(tmp_path_factory, {rel: raw})
    try:
        kb = load_kb(root, strict=False)
    except KBError as exc:
        assert_clean_kb_error(exc)
        return
    # Loaded: what it holds must be consistent with the vocabulary, finite and printable.
    problem = kb.to_problem()
    assert problem.matrix.shape == (len(kb.chemicals), len(kb.symptoms))
    assert np.all(np.isfinite(problem.prior)) and abs(problem.prior.sum() - 1) < 1e-9
    ids = {s.id for s in kb.symptoms}
    assert all(c.symptoms <= ids for c in kb.chemicals)
    assert all(printable_name(n) for n in kb_names(kb))


# Field values of every type a TOML file can hold, and texts with what a terminal acts on.
toml_values = st.one_of(
    st.text(max_size=6),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300),
    st.sampled_from(["\x1b[2J", "a\nb", "\u202eevil", "\x9b", "x" * 5000, "", "  "]),
    st.integers(),
    st.integers(min_value=10**15, max_value=10**400),
    st.floats(),
    st.booleans(),
    st.lists(st.text(max_size=4), max_size=3),
)


@FUZZ
@given(
    st.sampled_from(
        [
            ("chemicals/irritants.toml", "chemical", "name"),
            ("chemicals/irritants.toml", "chemical", "prior"),
            ("chemicals/irritants.toml", "chemical", "notes"),
            ("chemicals/irritants.toml", "chemical", "symptoms"),
            ("symptoms.toml", "symptom", "label"),
            ("symptoms.toml", "symptom", "synonyms"),
            ("symptoms.toml", "symptom", "leak"),
            ("symptoms.toml", "category", "label"),
            ("classes.toml", "class", "label"),
        ]
    ),
    toml_values,
)
def test_fuzzed_knowledge_base_field_values(tmp_path_factory, where, value):
    rel, table, key = where
    base = {
        "symptoms.toml": SYMPTOMS,
        "classes.toml": CLASSES,
        "chemicals/irritants.toml": CHEMICALS,
    }[rel]
    doc = tomlkit.parse(base)
    doc[table][0][key] = value  # tomlkit writes any value as valid TOML (escaped)
    root = kb_root(tmp_path_factory, {rel: tomlkit.dumps(doc).encode("utf-8")})
    try:
        kb = load_kb(root, strict=False)
    except KBError as exc:
        assert_clean_kb_error(exc)
        return
    assert all(printable_name(n) for n in kb_names(kb))
    if key == "prior":  # a loaded prior is a number in range, never a bool or text
        assert type(value) in (int, float) and PRIOR_RANGE[0] <= value <= PRIOR_RANGE[1]
    if key == "leak":
        assert type(value) in (int, float) and 0 <= value < 1


# -- interchange JSON -------------------------------------------------------------------------

NASTY_TEXT = ["", " ", "a", "A", "\x1b[2J", "a\nb", "\ud800", "\u202e", "\x9b", "x" * 200]
json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.sampled_from(NASTY_TEXT),
)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "matrix",
                "prior",
                "groups",
                "queries",
                "objects",
                "query_groups",
                "pick_weights",
                "extra",
            ]
        ),
        json_values,
        max_size=5,
    )
)
def test_fuzzed_interchange_documents(tmp_path_factory, doc):
    load_and_check(tmp_path_factory, doc)


def load_and_check(tmp_path_factory, doc) -> None:
    """A document is read as it says, or refused with one clean message."""
    path = tmp_path_factory.mktemp("json") / "p.json"
    path.write_text(json.dumps(doc))
    try:
        problem = load_interchange(path)
    except InputError as exc:
        assert_clean_input_error(exc, path)
        return
    assert_says_what_the_document_says(problem, doc)


def assert_clean_input_error(exc: InputError, path: Path) -> None:
    message = str(exc)
    assert message.startswith(str(path)) and "\n" not in message
    assert first_unprintable(message) is None


def assert_says_what_the_document_says(problem, doc: dict) -> None:
    """A loaded document was taken as written: no value converted or dropped."""
    assert problem.matrix.astype(int).tolist() == doc["matrix"]
    assert all(type(v) is int for row in doc["matrix"] for v in row)
    for key in ("prior", "pick_weights"):
        if key in doc:
            assert all(type(v) in (int, float) and v > 0 for v in doc[key])
    for key in ("groups", "query_groups"):
        if key in doc:
            assert all(type(v) is str and printable_name(v.strip()) for v in doc[key])
    for key, names in (("objects", problem.object_names), ("queries", problem.query_names)):
        if key in doc:
            assert list(names) == [v.strip() for v in doc[key]]
            assert len(set(names)) == len(names) and all(map(printable_name, names))
    if "groups" in doc:
        assert [problem.group_names[g] for g in problem.object_groups] == doc["groups"]


@st.composite
def plausible_documents(draw) -> dict:
    """A valid 0/1 matrix (mostly) with optional keys of the right length whose entries
    are of any JSON type: the checks after the matrix get exercised."""
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    cell = st.sampled_from([0, 1]) if draw(st.integers(0, 9)) else json_leaves
    doc = {"matrix": [[draw(cell) for _ in range(n)] for _ in range(m)]}
    entries = {
        "prior": st.one_of(st.floats(0.01, 10), st.integers(1, 5), json_leaves),
        "pick_weights": st.one_of(st.floats(0.01, 10), json_leaves),
        "groups": st.one_of(st.sampled_from(["a", "b"]), json_leaves),
        "query_groups": st.one_of(st.sampled_from(["x", "y"]), json_leaves),
        "objects": st.one_of(st.text(min_size=1, max_size=4), json_leaves),
        "queries": st.one_of(st.text(min_size=1, max_size=4), json_leaves),
    }
    for key in draw(st.sets(st.sampled_from(sorted(entries)))):
        size = m if key in ("prior", "groups", "objects") else n
        doc[key] = [draw(entries[key]) for _ in range(size)]
    return doc


@FUZZ
@given(plausible_documents())
def test_fuzzed_interchange_fields(tmp_path_factory, doc):
    load_and_check(tmp_path_factory, doc)


def test_a_repeated_key_anywhere_is_refused(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"matrix": [[0, 1], [1, 0]], "prior": [1, 2], "prior": [2, 1]}')
    try:
        load_interchange(path)
    except InputError as exc:
        assert 'the key "prior" appears twice' in str(exc)
    else:
        raise AssertionError("a repeated key was accepted")


# -- interchange npz ----------------------------------------------------------------------------

npz_dtypes = st.sampled_from(["bool", "int8", "uint8", "int64", "float64", "U3", "S2", "complex64"])


@st.composite
def npz_arrays(draw) -> dict:
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    values = st.sampled_from([0, 1, 1, 0, 2, -1])
    shape = draw(st.sampled_from([(m, n), (m, n), (m,), (m, n, 1), (0, n)]))
    matrix = np.array(
        draw(st.lists(values, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    )
    arrays = {"matrix": matrix.reshape(shape).astype(draw(npz_dtypes))}
    texts = st.sampled_from(["a", "b", "", " c", "\x1b", "é", "a\nb", "x" * 130])
    for key in draw(st.sets(st.sampled_from(["prior", "groups", "objects", "queries", "other"]))):
        size = n if key == "queries" else m
        size += draw(st.sampled_from([0, 0, 0, 1]))
        if key in ("prior", "other"):
            arrays[key] = np.array(draw(st.lists(st.floats(-1, 5), min_size=size, max_size=size)))
            arrays[key] = arrays[key].astype(draw(npz_dtypes))
        else:
            arrays[key] = np.array(draw(st.lists(texts, min_size=size, max_size=size)), dtype=str)
    return arrays


def npz_file(folder: Path, arrays: dict) -> Path:
    path = folder / "p.npz"
    np.savez(path, **arrays)
    return path


@FUZZ
@given(npz_arrays())
def test_fuzzed_npz_arrays(tmp_path_factory, arrays):
    path = npz_file(tmp_path_factory.mktemp("npz"), arrays)
    try:
        problem = load_interchange(path)
    except InputError as exc:
        assert_clean_input_error(exc, path)
        return
    matrix = arrays["matrix"]
    assert matrix.dtype.kind in "biu" and np.array_equal(problem.matrix, matrix.astype(bool))
    assert set(np.unique(matrix).tolist()) <= {0, 1}
    assert "other" not in arrays
    if "prior" in arrays:
        prior = arrays["prior"]
        assert prior.dtype.kind in "iuf" and np.all(prior > 0)
        assert np.allclose(problem.prior, prior / prior.sum())
    for key, names in (("objects", problem.object_names), ("queries", problem.query_names)):
        if key in arrays:
            assert list(names) == [v.strip() for v in arrays[key].tolist()]
            assert len(set(names)) == len(names) and all(map(printable_name, names))
    if "groups" in arrays:
        assert all(printable_name(g) for g in problem.group_names)


@FUZZ
@given(st.data())
def test_fuzzed_npz_bytes(tmp_path_factory, data):
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        matrix=np.array([[0, 1, 1], [1, 0, 1]], dtype=bool),
        prior=np.array([1.0, 3.0]),
        objects=np.array(["a", "b"]),
    )
    raw = bytearray(buffer.getvalue())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255))
    path = tmp_path_factory.mktemp("npz") / "p.npz"
    path.write_bytes(bytes(raw))
    try:
        problem = load_interchange(path)
    except InputError as exc:
        assert_clean_input_error(exc, path)
        return
    assert problem.matrix.shape == (2, 3) and np.all(np.isfinite(problem.prior))
    assert all(printable_name(n) for n in problem.object_names)


def test_a_zip_that_is_not_numpy_is_refused(tmp_path):
    path = tmp_path / "p.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("matrix.npy", b"not an array")
    try:
        load_interchange(path)
    except InputError as exc:
        assert "the array 'matrix' is damaged" in str(exc)
    else:
        raise AssertionError("a damaged member was accepted")


@FUZZ
@given(st.data())
def test_fuzzed_interchange_text(tmp_path_factory, data):
    base = json.dumps(
        {
            "matrix": [[0, 1, 1], [1, 0, 1]],
            "prior": [1, 3],
            "objects": ["a", "b"],
            "queries": ["x", "y", "z"],
        }
    )
    path = tmp_path_factory.mktemp("json") / "p.json"
    path.write_bytes(data.draw(mutated(base)))
    try:
        problem = load_interchange(path)
    except InputError as exc:
        assert_clean_input_error(exc, path)
        return
    assert_says_what_the_document_says(problem, json.loads(path.read_bytes().decode("utf-8-sig")))


# -- CSV ----------------------------------------------------------------------------------------

cell_text = st.one_of(
    st.text(alphabet=st.sampled_from(list('ab Cé",\n;К头-1')), max_size=8),
    st.sampled_from(["\x1b[2J", "a\x07b", "\u202eX", "\x9bY", "N" * 150, "\u2028"]),
)


@FUZZ
@given(st.lists(st.lists(cell_text, min_size=1, max_size=6), min_size=1, max_size=6))
def test_fuzzed_csv_cells(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("csv") / "kb.csv"
    out = io.StringIO()
    csv.writer(out).writerows([["name", "class", "Cough", "Headache"], *rows])
    path.write_text(out.getvalue(), encoding="utf-8")
    try:
        kb = load_csv(path)
    except KBError as exc:
        assert_clean_kb_error(exc)
        return
    assert all(printable_name(n) for n in kb_names(kb))
    # Imported: every chemical is a row whose name, class and 0/1 cells say so.
    by_name = {r[0].strip(): r for r in rows if len(r) == 4}
    assert kb.chemicals
    for chem in kb.chemicals:
        row = by_name[chem.name]
        cells = [row[2].strip(), row[3].strip()]
        assert {s.label for s in kb.symptoms if s.id in chem.symptoms} == {
            label for label, v in zip(["Cough", "Headache"], cells) if v == "1"
        }


@FUZZ
@given(st.data())
def test_fuzzed_csv_text(tmp_path_factory, data):
    base = (
        "name,class,cas,Cough,Pinpoint pupils,Headache\n"
        "category,,,Breathing,Eyes,Nervous\n"
        "Chlorine,Irritant gases,7782-50-5,1,0,1\n"
        '"Sarin (GB)",Nerve agents,107-44-8,1,1,1\n'
    )
    path = tmp_path_factory.mktemp("csv") / "kb.csv"
    path.write_bytes(data.draw(mutated(base)))
    try:
        kb = load_csv(path)
    except KBError as exc:
        assert_clean_kb_error(exc)
        return
    assert len(kb.chemicals) >= 1 and kb.to_problem().matrix.any(axis=1).all()
    assert all(printable_name(n) for n in kb_names(kb))


# -- interview protocol lines ------------------------------------------------------------------

FIXTURE_KB = Path(__file__).resolve().parent / "app" / "fixtures" / "kb"
_PROTOCOL_KB = None


def protocol(mode: str) -> Protocol:
    global _PROTOCOL_KB  # noqa: PLW0603 (loaded once for every example)
    if _PROTOCOL_KB is None:
        _PROTOCOL_KB = load_kb(FIXTURE_KB, strict=False)
    kb = _PROTOCOL_KB
    return Protocol(kb, Interview(kb, InterviewConfig(mode=mode)), top=3)


lone_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
line_text = st.text(
    st.one_of(st.characters(), lone_surrogates, st.sampled_from(list('{}[]":,\\'))), max_size=40
)
line_objects = st.dictionaries(
    st.sampled_from(["symptom", "answer", "undo", "x", "\ud800"]),
    st.one_of(
        json_leaves,
        st.sampled_from(["cough", "Cough", "yes", "no", "unknown", "YES", "tearing"]),
        line_text,
    ),
    max_size=3,
)
protocol_lines = st.one_of(
    line_text,
    line_objects.map(json.dumps),
    line_objects.map(lambda d: json.dumps(d, ensure_ascii=False)),
)


@FUZZ
@given(st.sampled_from(["evidence", "strict", "noise"]), st.lists(protocol_lines, max_size=5))
def test_fuzzed_protocol_lines(mode, lines):
    interview = protocol(mode)
    for line in lines:
        reply = interview.handle(line)
        # every reply can be written as one UTF-8 JSON line
        text = json.dumps(reply, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
        assert "\n" not in text
        if "error" in reply:
            assert set(reply) == {"error"} and first_unprintable(reply["error"]) is None
        else:
            assert reply["asked"] == interview.state.asked_count
            assert len(reply["candidates"]) <= 3


# -- settings -----------------------------------------------------------------------------------

SETTINGS = """\
# my settings
target = "chemical"
suggest = "symptom"
theme = "textual-dark"
kb = "bundled"

[noise]
enabled = true
eps = 2
prone = ["cough", "wheezing"]
model = 2
p = 0.25

[keys]
"answer.unknown" = "u,space"
"""


@FUZZ
@given(st.data())
def test_fuzzed_settings(tmp_path_factory, data):
    from responder.settings import Settings, SettingsError, load_settings, save_settings

    path = tmp_path_factory.mktemp("settings") / "settings.toml"
    path.write_bytes(data.draw(mutated(SETTINGS)))
    try:
        loaded = load_settings(path)
    except SettingsError as exc:
        assert str(exc).startswith(str(path)) and "Traceback" not in str(exc)
        save_settings(Settings(), path)  # the app then saves over it: the hand edit is kept
        assert path.with_name("settings.toml.bad").exists()
        assert load_settings(path) == Settings()
        return
    assert loaded.target in ("chemical", "class") and loaded.suggest in ("symptom", "category")
    assert loaded.noise.eps is None or 0 <= loaded.noise.eps
    assert 0 <= loaded.noise.p <= 0.5
    save_settings(loaded, path)  # what loads also saves and loads back the same
    assert load_settings(path) == loaded


# -- journals -----------------------------------------------------------------------------------

JOURNAL = (
    "\n".join(
        json.dumps(e)
        for e in [
            {
                "event": "start",
                "id": "x",
                "at": 1000.0,
                "kb": {"name": "kb"},
                "config": {"target": "chemical", "noise": {"enabled": True, "eps": 1}},
                "version": 1,
            },
            {"event": "answer", "symptom": "cough", "answer": "yes", "at": 1001.0},
            {"event": "answer", "symptom": "wheezing", "answer": "no", "at": 1002.0},
            {"event": "config", "config": {"suggest": "category"}, "at": 1003.0},
            {"event": "undo", "symptom": "wheezing", "at": 1004.0},
            {"event": "answer", "symptom": "fever", "answer": "unknown", "at": 1005.0},
        ]
    )
    + "\n"
)


@FUZZ
@given(st.data())
def test_fuzzed_journals_import_as_far_as_they_read(tmp_path_factory, data):
    from responder.core.store import scan_incidents

    folder = tmp_path_factory.mktemp("data")
    (folder / "journal").mkdir()
    path = folder / "journal" / "20260101-000000-abcdef.jsonl"
    path.write_bytes(data.draw(mutated(JOURNAL)))
    scan = scan_incidents(folder / "incidents.sqlite")  # never raises
    for found in scan.unfinished:
        assert found.answers and all(a.answer in ("yes", "no", "unknown") for a in found.answers)
        assert all(0 <= a.at <= 32503680000 for a in found.answers)
        assert found.started_text and isinstance(found.config, dict)
        assert len({a.symptom for a in found.answers}) == len(found.answers)
    # every journal is imported, moved aside or (a newer format) left, never deleted
    kept = [folder / "journal" / sub / path.name for sub in ("imported", "damaged")]
    assert path.exists() or any(p.exists() for p in kept)
    if kept[1].exists():
        assert any("moved aside" in n for n in scan.notices)
    if path.exists():
        assert any("newer responder" in n or "could not be imported" in n for n in scan.notices)


@st.composite
def damaged_database(draw, good: bytes) -> bytes:
    """A valid incident database with bytes overwritten, cut off or appended."""
    data = bytearray(good)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(("overwrite", "truncate", "append")))
        if action == "overwrite":
            piece = draw(st.binary(min_size=1, max_size=64))
            data[at : at + len(piece)] = piece
        elif action == "truncate":
            del data[max(at, 1) :]
        else:
            data += draw(st.binary(max_size=200))
    return bytes(data)


@functools.cache
def _good_database(folder: Path) -> bytes:
    from responder.core.store import IncidentLog

    log = IncidentLog.create(
        {"name": "kb"},
        {"target": "chemical"},
        "fuzz",
        1000.0,
        victims=["", "driver"],
        answers=[("cough", "yes", 1001.0, False, 0), ("wheezing", "no", 1002.0, True, 1)],
        path=folder / "incidents.sqlite",
    )
    log.end("completed")
    log.close()
    return (folder / "incidents.sqlite").read_bytes()  # all in the file: the log was closed


@FUZZ
@given(st.data())
def test_fuzzed_database_files_are_read_or_set_aside(tmp_path_factory, data):
    from responder.core.store import (
        NEWEST_PLAUSIBLE_SCHEMA,
        IncidentLog,
        NewerDatabase,
        list_incidents,
    )

    good = _good_database(tmp_path_factory.getbasetemp())
    folder = tmp_path_factory.mktemp("data")
    db = folder / "incidents.sqlite"
    damaged = data.draw(damaged_database(good))
    db.write_bytes(damaged)
    version = int.from_bytes(damaged[60:64], "big", signed=True) if len(damaged) >= 64 else 0
    if 1 < version <= NEWEST_PLAUSIBLE_SCHEMA and damaged.startswith(b"SQLite format 3\0"):
        # what a newer responder would write: refused and left in place, never moved or read
        with pytest.raises(NewerDatabase):
            list_incidents(db)
        assert db.read_bytes() == damaged
        return
    found, notices = list_incidents(db)  # never raises: damage is moved aside
    for incident in found:
        assert all(a.answer in ("yes", "no", "unknown") for a in incident.answers)
        assert isinstance(incident.config, dict) and incident.started_text
    moved = list((folder / "damaged").glob("*.sqlite")) if (folder / "damaged").exists() else []
    assert bool(moved) == any("moved aside" in n for n in notices)
    if moved:
        assert found == [] and moved[0].stat().st_size > 0
    # and the file in place takes new incidents
    IncidentLog.create({}, {}, "after", 2000.0, path=db).close()


def test_a_database_whose_schema_is_not_utf8_is_set_aside(tmp_path):
    """Found by the 1,000-case run: SQLite's error quotes the damaged schema, whose bytes are
    not UTF-8, and reading that message raised instead of setting the file aside."""
    from responder.core.store import IncidentLog, list_incidents

    good = _good_database(tmp_path / "good")
    at = good.index(b"seq INTEGER NOT NULL")
    db = tmp_path / "data" / "incidents.sqlite"
    db.parent.mkdir()
    db.write_bytes(good[: at + 16] + b"\x80" + good[at + 17 :])  # "NOT \x80ULL"
    found, notices = list_incidents(db)
    assert found == [] and any("moved aside" in n for n in notices), notices
    assert list((tmp_path / "data" / "damaged").glob("*.sqlite"))
    IncidentLog.create({}, {}, "after", 2000.0, path=db).close()


@pytest.mark.parametrize(
    ("offset", "value", "problem"),
    [
        (44, (5).to_bytes(4, "big"), "unsupported file format"),  # schema format 5 of 1-4
        (60, (16777217).to_bytes(4, "big"), "schema version 16777217"),  # user_version
    ],
)
def test_a_database_with_a_damaged_header_is_set_aside(tmp_path, offset, value, problem):
    """Found by the 1,000-case run: these were refused as unreadable or as written by a newer
    responder, instead of being set aside as damaged."""
    from responder.core.store import list_incidents

    good = _good_database(tmp_path / "good")
    db = tmp_path / "data" / "incidents.sqlite"
    db.parent.mkdir()
    db.write_bytes(good[:offset] + value + good[offset + len(value) :])
    found, notices = list_incidents(db)
    assert found == [] and any("moved aside" in n and problem in n for n in notices), notices
