"""Interchange files, JSON and npz: values are checked by type (nothing is converted behind
the user's back), names are unique printable text, a key given twice is refused, and the
matrix is checked as one array."""

from __future__ import annotations

import io
import json
import warnings
import zipfile

import numpy as np
import pytest

from responder.cli import interchange, main
from responder.cli.inputs import InputError, load_interchange

GOOD = [[0, 1], [1, 0], [1, 1]]


def write_json(tmp_path, data, name="p.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def refusal(path) -> str:
    with pytest.raises(InputError) as info:
        load_interchange(path)
    message = str(info.value)
    assert message.startswith(f"{path}:") and "\n" not in message
    return message


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"prior": ["1", 1, 1]}, """'prior' entry 0 must be a number, not the text "1\""""),
        ({"prior": [True, 1, 1]}, "'prior' entry 0 must be a number, not true"),
        ({"prior": [1, 1, False]}, "'prior' entry 2 must be a number, not false"),
        ({"prior": [1, None, 1]}, "'prior' entry 1 must be a number, not null"),
        ({"prior": [1, 10**400, 1]}, "'prior' entry 1 is a 401-digit integer"),
        ({"pick_weights": [1, "2"]}, "'pick_weights' entry 1 must be a number"),
        ({"groups": [None, "a", "a"]}, "'groups' entry 0 is null; group labels must be text"),
        ({"groups": ["a", 2, "a"]}, "'groups' entry 1 is 2; group labels must be text"),
        ({"groups": ["a", "", "a"]}, "'groups' entry 1 is empty"),
        ({"query_groups": [1, 2]}, "'query_groups' entry 0 is 1; group labels must be text"),
        ({"objects": ["a", "b", "a"]}, """name in 'objects' "a" appears twice (entries 1 and 3)"""),
        ({"queries": ["x", "x"]}, """name in 'queries' "x" appears twice"""),
        ({"objects": ["a", "", "c"]}, "'objects' entry 1 is empty"),
        ({"queries": ["x", "  "]}, "'queries' entry 1 is empty"),
        ({"objects": ["a", None, "c"]}, "'objects' entry 1 must be text, not null"),
        ({"objects": ["a", 2, "c"]}, "'objects' entry 1 must be text, not 2"),
        ({"group_names": ["g", "g"]}, "name in 'group_names' \"g\" appears twice"),
        ({"objects": ["a", "b\u001b[2Jc", "d"]}, "holds the control character \\x1b"),
        ({"queries": ["x", "y\nz"]}, "holds the control character \\n"),
        ({"objects": ["a", "b" * 5000, "c"]}, "'objects' entry 1 is 5,000 characters long"),
    ],
)
def test_type_errors_are_refused_with_the_entry(tmp_path, data, needle):
    message = refusal(write_json(tmp_path, {"matrix": GOOD, **data}))
    assert needle in message
    assert "\x1b" not in message


def test_a_key_given_twice_is_refused_with_its_line(tmp_path):
    text = '{"matrix": [[0, 1], [1, 0]],\n "prior": [1, 2],\n "matrix": [[1, 1], [0, 0]]}'
    message = refusal(write_json(tmp_path, text))
    assert message.startswith(f"{tmp_path / 'p.json'}:3: ")
    assert 'the key "matrix" appears twice' in message


@pytest.mark.parametrize(
    ("matrix", "cell"),
    [
        ([[0, 1], [1, 2]], "matrix cell [1][1] is 2;"),
        ([[0, 1], [True, 0]], "matrix cell [1][0] is true;"),
        ([[False, True], [True, False]], "matrix cell [0][0] is false;"),
        ([[0, 1], [1, 1.0]], "matrix cell [1][1] is 1.0;"),
        ([[0, 1], [1, "1"]], 'matrix cell [1][1] is the text "1";'),
        ([[0, 1], [None, 1]], "matrix cell [1][0] is null;"),
        ([[0, 1], [1, [1]]], "matrix cell [1][1] is a list;"),
        ([[0, 10**30], [1, 0]], "matrix cell [0][1] is 1000000000000000000000000000000;"),
        ([[0, -1], [1, 0]], "matrix cell [0][1] is -1;"),
    ],
)
def test_the_first_bad_matrix_cell_is_named(tmp_path, matrix, cell):
    assert cell in refusal(write_json(tmp_path, {"matrix": matrix}))


def test_a_good_matrix_is_checked_as_an_array_not_cell_by_cell(tmp_path, monkeypatch):
    def walk(*_):
        raise AssertionError("a good matrix was walked cell by cell")

    monkeypatch.setattr(interchange, "_first_bad_cell", walk)
    rng = np.random.default_rng(0)
    matrix = (rng.random((200, 30)) < 0.5).astype(int)
    problem = load_interchange(write_json(tmp_path, {"matrix": matrix.tolist()}))
    assert np.array_equal(problem.matrix, matrix.astype(bool))


# -- npz --------------------------------------------------------------------------------------


def sample(seed: int = 0, m: int = 12, n: int = 9) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "matrix": rng.random((m, n)) < 0.4,
        "prior": rng.random(m) + 0.1,
        "groups": np.array([f"class {k}" for k in rng.integers(0, 3, m)]),
        "query_groups": np.array([f"system {k}" for k in rng.integers(0, 3, n)]),
        "objects": np.array([f"chemical {i}" for i in range(m)]),
        "queries": np.array([f"symptom {j}" for j in range(n)]),
    }


def as_json(arrays: dict) -> dict:
    return {
        key: (value.astype(int) if value.dtype == bool else value).tolist()
        for key, value in arrays.items()
    }


@pytest.mark.parametrize(
    "args",
    [["--policy", "gbs"], ["--policy", "gisa", "--target", "group"], ["--policy", "gqsa"]],
    ids=["gbs", "gisa", "gqsa"],
)
def test_npz_gives_the_same_result_as_json(tmp_path, capsys, args):
    arrays = sample()
    npz = tmp_path / "p.npz"
    np.savez(npz, **arrays)
    js = write_json(tmp_path, as_json(arrays))
    results = []
    for path in (npz, js):
        assert main(["eval", "--kb", str(path), "--json", *args]) == 0
        results.append(json.loads(capsys.readouterr().out))
    assert results[0] == results[1]


def test_npz_is_read_by_simulate_and_compressed_files_too(tmp_path, capsys):
    npz = tmp_path / "p.npz"
    np.savez_compressed(npz, matrix=sample()["matrix"].astype(np.uint8))
    code = main(["simulate", "--kb", str(npz), "--interviews", "5", "--seed", "0", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and (out["objects"], out["queries"]) == (12, 9)


def test_interview_refuses_an_npz_like_a_json_file(tmp_path, capsys):
    npz = tmp_path / "p.npz"
    np.savez(npz, matrix=sample()["matrix"])
    assert main(["interview", "--jsonl", "--kb", str(npz)]) == 2
    assert "not an interchange file" in capsys.readouterr().err


def npz_bytes(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def write_npz(tmp_path, data: bytes, name="p.npz"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


M = sample()["matrix"]


@pytest.mark.parametrize(
    ("arrays", "needle"),
    [
        ({"prior": np.ones(12)}, "the 'matrix' array is missing"),
        ({"matrix": M.astype(float)}, "'matrix' is a 2-D array of float64"),
        ({"matrix": M[0]}, "'matrix' is a 1-D array"),
        ({"matrix": np.where(M, 2, 0)}, "matrix cell [0][1] is 2"),
        ({"matrix": M, "prior": np.ones(12, bool)}, "'prior' has dtype bool"),
        ({"matrix": M, "prior": np.array(["1"] * 12)}, "'prior' has dtype <U1"),
        ({"matrix": M, "prior": -np.ones(12)}, "'prior' entry 0 is -1, which is not a positive"),
        ({"matrix": M, "groups": np.arange(12)}, "'groups' has dtype int64; store text"),
        ({"matrix": M, "objects": np.array(["a"] * 12)}, """name in 'objects' "a" appears twice"""),
        ({"matrix": M, "queries": np.array(["q\x1b"] * 9)}, "control character \\x1b"),
        ({"matrix": M, "colour": np.ones(3)}, "unknown array colour"),
        ({"matrix": M, "prior": np.ones((12, 1))}, "'prior' is a 2-D array"),
        ({"matrix": np.zeros((0, 3), bool)}, "the matrix has shape (0, 3)"),
    ],
)
def test_bad_npz_arrays_are_refused(tmp_path, arrays, needle):
    assert needle in refusal(write_npz(tmp_path, npz_bytes(**arrays)))


def test_npz_object_arrays_are_never_unpickled(tmp_path):
    buffer = io.BytesIO()
    np.savez(buffer, matrix=M, groups=np.array([{"a": 1}] * 12, dtype=object))
    assert "holds Python objects" in refusal(write_npz(tmp_path, buffer.getvalue()))


def test_npz_that_would_unpack_past_the_cap_is_refused_before_unpacking(tmp_path):
    header = io.BytesIO()
    np.lib.format.write_array_header_2_0(
        header, {"descr": "|b1", "fortran_order": False, "shape": (200_000, 200_000)}
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("matrix.npy", header.getvalue())  # the header alone: no data
    message = refusal(write_npz(tmp_path, buffer.getvalue()))
    assert "'matrix' unpacks to 37.3 GB, more than the 1 GB" in message


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"not a zip at all", "not an .npz file"),
        (npz_bytes(matrix=M)[:-30], "not an .npz file"),
        (b"", "not an .npz file"),
    ],
    ids=["text", "truncated", "empty"],
)
def test_damaged_npz_files_are_one_message(tmp_path, data, needle):
    assert needle in refusal(write_npz(tmp_path, data))


def test_duplicate_npz_members_are_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for value in (M, ~M):
            member = io.BytesIO()
            np.save(member, value)
            with warnings.catch_warnings():  # zipfile warns of the duplicate name it writes
                warnings.simplefilter("ignore")
                archive.writestr("matrix.npy", member.getvalue())
    assert "the array matrix is stored twice" in refusal(write_npz(tmp_path, buffer.getvalue()))
