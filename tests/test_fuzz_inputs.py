"""Fuzzing every file responder reads: knowledge-base TOML, interchange JSON, CSV,
settings and journals. Every case must end in a correct result or the input's own clear
error, never another exception; where a result comes back, it must say what the input said.

The whole file runs in well under a minute (example counts are fixed, no deadline flakes).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_input_limits import CLASSES, SYMPTOMS

from responder.cli.inputs import InputError, load_interchange
from responder.kb import KBError, load_kb
from responder.kb.csv_import import load_csv

FUZZ = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

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
        assert exc.issues and all(i.problem and i.fix for i in exc.issues)
        text = str(exc)
        assert "Traceback" not in text and len(text) < 20_000
        return
    # Loaded: what it holds must be consistent with the vocabulary and finite.
    problem = kb.to_problem()
    assert problem.matrix.shape == (len(kb.chemicals), len(kb.symptoms))
    assert np.all(np.isfinite(problem.prior)) and abs(problem.prior.sum() - 1) < 1e-9
    ids = {s.id for s in kb.symptoms}
    assert all(c.symptoms <= ids for c in kb.chemicals)


# -- interchange JSON -------------------------------------------------------------------------

json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.floats(allow_nan=False),
        st.text(max_size=5),
    ),
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
    path = tmp_path_factory.mktemp("json") / "p.json"
    path.write_text(json.dumps(doc))
    try:
        problem = load_interchange(path)
    except InputError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc)
        return
    assert problem.matrix.astype(int).tolist() == doc["matrix"]


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
        assert str(exc).startswith(str(path)) and "\n" not in str(exc)
        return
    assert np.all(np.isfinite(problem.prior)) and problem.matrix.ndim == 2


# -- CSV ----------------------------------------------------------------------------------------

cell_text = st.text(alphabet=st.sampled_from(list('ab Cé",\n;К头-1')), max_size=8)


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
        assert exc.issues and all(i.problem and i.fix for i in exc.issues)
        return
    # Imported: at least one chemical, each a row whose name, class and 0/1 cells say so.
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
        assert exc.issues and all(i.problem and i.fix for i in exc.issues)
        return
    assert len(kb.chemicals) >= 1 and kb.to_problem().matrix.any(axis=1).all()


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
def test_fuzzed_journals(tmp_path_factory, data):
    from responder.core.journal import scan_journals

    folder = tmp_path_factory.mktemp("journal")
    path = folder / "20260101-000000-abcdef.jsonl"
    path.write_bytes(data.draw(mutated(JOURNAL)))
    scan = scan_journals(folder)  # never raises
    for found in scan.unfinished:
        assert found.answers and all(a.answer in ("yes", "no", "unknown") for a in found.answers)
        assert all(0 <= a.at <= 32503680000 for a in found.answers)
        assert found.started_text and isinstance(found.config, dict)
        assert len({a.symptom for a in found.answers}) == len(found.answers)
    # damaged files are reported or moved aside, never deleted
    assert path.exists() or (folder / "damaged" / path.name).exists()
    if (folder / "damaged" / path.name).exists():
        assert any("moved aside" in n for n in scan.notices)
