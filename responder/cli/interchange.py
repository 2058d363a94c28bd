"""Interchange files: a problem as JSON (``.json``) or as numpy arrays (``.npz``).

Both hold the same keys; only ``matrix`` is required::

    {"matrix": [[0,1,...],...], "prior": [...], "groups": [...], "queries": [...],
     "query_groups": [...], "objects": [...], "pick_weights": [...], "group_names": [...],
     "query_group_names": [...]}

``.npz`` is what ``numpy.savez(path, matrix=B, prior=p, groups=labels, ...)`` writes: a
bool or integer 0/1 matrix, numbers for the weights and str arrays for labels and names. It
loads large problems without parsing text.

Values are checked by type, not converted: a prior is numbers (not ``"1"``, not ``true``),
group labels and names are text (not ``null`` or ``3``), names are unique, not empty, one
printable line each (:mod:`responder.kb.fields`), and a key given twice is refused. The
matrix is checked as numpy arrays, a row at a time (dtype and values at once); only a
matrix that fails is walked cell by cell, to name the first bad cell.

Every problem raises :class:`InterchangeError`, whose message starts with the file's path.
"""

from __future__ import annotations

import io
import math
import sys
import zipfile
import zlib
from pathlib import Path

import numpy as np

from responder.engine.problem import Problem, ProblemError
from responder.input_limits import MAX_BYTES, InputRejected, loads_json, read_bytes, read_text
from responder.kb.fields import (
    FieldError,
    check_name,
    check_number,
    check_unique,
    described,
    shown,
)

SUFFIXES = (".json", ".npz")
INTERCHANGE_KEYS = (
    "matrix",
    "prior",
    "groups",
    "queries",
    "query_groups",
    "objects",
    "pick_weights",
    "group_names",
    "query_group_names",
)
#: Keys holding one number per object or query.
NUMBER_KEYS = ("prior", "pick_weights")
#: Keys holding text labels (repeats expected: many objects share a group).
LABEL_KEYS = ("groups", "query_groups")
#: Keys holding names, each given once.
NAME_KEYS = ("objects", "queries", "group_names", "query_group_names")
#: Largest array an ``.npz`` member may unpack to (a compressed member can be far larger
#: than its file).
MAX_NPZ_ARRAY_BYTES = 1024 * 1024 * 1024
_WEIGHT_RANGE = (sys.float_info.min, sys.float_info.max)


class InterchangeError(ValueError):
    """An interchange file responder will not read; the message starts with its path."""


def is_interchange(spec: str | Path | None) -> bool:
    """Whether ``--kb`` names an interchange file (by its suffix) rather than a knowledge base."""
    return spec is not None and str(spec).lower().endswith(SUFFIXES)


def read_interchange(path: str | Path) -> Problem:
    """The problem in an interchange ``.json`` or ``.npz`` file.

    Raises
    ------
    InterchangeError
    """
    path = Path(path)
    if path.suffix.lower() == ".npz":
        document = _read_npz(path)
    else:
        document = _read_json(path)
    return _problem(document, path)


# -- JSON ----------------------------------------------------------------------------------


def _read_json(path: Path) -> dict:
    where = str(path)
    try:
        text = read_text(path, "interchange JSON file")
        # integers and nesting are checked per field below, as arrays for the matrix
        data = loads_json(text, where, check=False, unique_keys=True)
    except InputRejected as exc:
        raise InterchangeError(str(exc)) from None
    if not isinstance(data, dict):
        raise InterchangeError(f"{path}: the top level must be a JSON object with a 'matrix' key")
    _known_keys(data, path)
    # json gives True/False for true/false, which numpy takes as 1/0: only when the text
    # spells either is the matrix walked value by value to tell them apart.
    spelled = "true" in text or "false" in text
    data["matrix"] = _json_matrix(data["matrix"], path, maybe_booleans=spelled)
    return data


def _known_keys(data: dict, path: Path) -> None:
    if "matrix" not in data:
        raise InterchangeError(f"{path}: the 'matrix' key is missing; give a list of 0/1 rows")
    unknown = sorted(set(data) - set(INTERCHANGE_KEYS))
    if unknown:
        raise InterchangeError(
            f"{path}: unknown key(s) {', '.join(shown(k, 30) for k in unknown)}; valid keys "
            f"are {', '.join(INTERCHANGE_KEYS)}"
        )


def _json_matrix(rows, path: Path, maybe_booleans: bool) -> np.ndarray:
    """The matrix as a bool array, each row checked as one numpy array (dtype and 0/1
    values); the first bad cell named otherwise."""
    if not isinstance(rows, list) or not all(type(r) is list for r in rows):
        raise InterchangeError(f"{path}: 'matrix' must be a list of rows, each a list of 0/1")
    if not rows:
        raise InterchangeError(f"{path}: the matrix is empty; give at least one object (row)")
    width = len(rows[0])
    ragged = next((i for i, r in enumerate(rows) if len(r) != width), None)
    if ragged is not None:
        raise InterchangeError(
            f"{path}: the matrix rows are ragged: row 0 has {width} cells but row {ragged} has "
            f"{len(rows[ragged])}; every row needs one 0/1 cell per query"
        )
    if width == 0:
        raise InterchangeError(f"{path}: the matrix rows are empty; give one 0/1 cell per query")
    if maybe_booleans:
        _first_bad_cell(rows, path)  # raises at a true/false cell
    # row by row into one byte per cell: numpy infers each row's dtype in C, and no int64
    # copy of the whole matrix is made beside the parsed lists
    matrix = np.empty((len(rows), width), dtype=np.uint8)
    for i, row in enumerate(rows):
        try:
            values = np.array(row)
        except (ValueError, TypeError, OverflowError):  # e.g. ragged lists inside a row
            values = None
        if (
            values is None
            or values.ndim != 1
            or values.dtype.kind not in "iu"
            or values.min() < 0
            or values.max() > 1
        ):
            _first_bad_cell(rows[i:], path, first_row=i)
            raise InterchangeError(f"{path}: matrix row {i} is not a list of 0/1 cells")
        matrix[i] = values
    return matrix.astype(bool)


def _first_bad_cell(rows: list, path: Path, first_row: int = 0) -> None:
    """Raise naming the first cell that is not the integer 0 or 1 (rows counted from
    ``first_row``); return if there is none."""
    for i, row in enumerate(rows, start=first_row):
        for j, value in enumerate(row):
            if type(value) is not int or value not in (0, 1):
                raise InterchangeError(
                    f"{path}: matrix cell [{i}][{j}] is {described(value)}; every cell must "
                    "be 0 or 1"
                )


def _binary(array: np.ndarray, path: Path) -> np.ndarray:
    """A bool copy of an integer or bool matrix whose every cell is 0 or 1."""
    if array.dtype.kind == "b":
        return array.astype(bool)
    bad = (array != 0) & (array != 1)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        raise InterchangeError(
            f"{path}: matrix cell [{i}][{j}] is {array[i, j]}; every cell must be 0 or 1"
        )
    return array.astype(bool)


# -- npz -----------------------------------------------------------------------------------


def _read_npz(path: Path) -> dict:
    try:
        data = read_bytes(path, "interchange npz file", MAX_BYTES["interchange JSON file"])
    except InputRejected as exc:
        raise InterchangeError(str(exc)) from None
    how = "write it with numpy.savez(path, matrix=..., prior=..., groups=...)"
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise InterchangeError(
            f"{path}: not an .npz file (numpy's zip of .npy arrays); {how}"
        ) from None
    document: dict = {}
    for name in names:
        key = name[:-4] if name.endswith(".npy") else name
        if key in document:
            raise InterchangeError(f"{path}: the array {shown(key, 30)} is stored twice; {how}")
        if key not in INTERCHANGE_KEYS:
            raise InterchangeError(
                f"{path}: unknown array {shown(key, 30)}; valid names are "
                f"{', '.join(INTERCHANGE_KEYS)}"
            )
        document[key] = _npz_array(archive, name, key, path)
    if "matrix" not in document:
        raise InterchangeError(f"{path}: the 'matrix' array is missing; {how}")
    matrix = document["matrix"]
    if matrix.ndim != 2 or matrix.dtype.kind not in "biu":
        raise InterchangeError(
            f"{path}: 'matrix' is a {matrix.ndim}-D array of {matrix.dtype}; store a 2-D bool "
            "or integer array of 0/1"
        )
    if 0 in matrix.shape:
        raise InterchangeError(
            f"{path}: the matrix has shape {matrix.shape}; give at least one row and one column"
        )
    document["matrix"] = _binary(matrix, path)
    for key, value in list(document.items()):
        if key == "matrix":
            continue
        if value.ndim != 1:
            raise InterchangeError(
                f"{path}: '{key}' is a {value.ndim}-D array; store one value per "
                f"{'object' if key in ('prior', 'groups', 'objects') else 'entry'}, 1-D"
            )
        wanted = "if" if key in NUMBER_KEYS else "U"
        if value.dtype.kind not in wanted:
            kind = "numbers (int or float)" if key in NUMBER_KEYS else "text (a numpy str array)"
            raise InterchangeError(f"{path}: '{key}' has dtype {value.dtype}; store {kind}")
        document[key] = value.tolist()
    return document


def _npz_array(archive: zipfile.ZipFile, name: str, key: str, path: Path) -> np.ndarray:
    """One member, its header checked before its data is unpacked."""
    fmt = np.lib.format
    try:
        with archive.open(name) as member:
            version = fmt.read_magic(member)
            read_header = fmt.read_array_header_1_0 if version == (1, 0) else None
            if version == (2, 0):
                read_header = fmt.read_array_header_2_0
            if read_header is None:
                raise ValueError(f"unsupported .npy version {version}")
            shape, _, dtype = read_header(member)
        if dtype.hasobject:
            raise InterchangeError(
                f"{path}: '{key}' holds Python objects, which responder does not unpickle; "
                "store numbers, bools or str"
            )
        size = math.prod(shape) * dtype.itemsize
        if size > MAX_NPZ_ARRAY_BYTES:
            raise InterchangeError(
                f"{path}: '{key}' unpacks to {size / 2**30:.1f} GB, more than the "
                f"{MAX_NPZ_ARRAY_BYTES / 2**30:.0f} GB an interchange array may have"
            )
        with archive.open(name) as member:
            return fmt.read_array(member, allow_pickle=False)
    except InterchangeError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, RuntimeError) as exc:
        raise InterchangeError(
            f"{path}: the array '{key}' is damaged ({shown(str(exc), 80)}); write the file again"
        ) from None


# -- both ------------------------------------------------------------------------------------


def _problem(document: dict, path: Path) -> Problem:
    matrix = document["matrix"]
    values: dict = {}
    for key in INTERCHANGE_KEYS[1:]:
        if key not in document:
            continue
        value = document[key]
        if not isinstance(value, list):
            raise InterchangeError(f"{path}: '{key}' must be a list, not {described(value)}")
        try:
            if key in NUMBER_KEYS:
                values[key] = _weights(value, key)
            elif key in LABEL_KEYS:
                _labels(value, key)
                values[key] = value
            else:
                values[key] = [check_name(v, f"'{key}' entry {k}") for k, v in enumerate(value)]
                check_unique(values[key], f"name in '{key}'", fold=False)
        except FieldError as exc:
            raise InterchangeError(f"{path}: {exc}") from None
    try:
        return Problem.build(
            matrix,
            prior=values.get("prior"),
            object_groups=values.get("groups"),
            query_groups=values.get("query_groups"),
            pick_weights=values.get("pick_weights"),
            object_names=values.get("objects"),
            query_names=values.get("queries"),
            group_names=values.get("group_names"),
            query_group_names=values.get("query_group_names"),
        )
    except ProblemError as exc:
        raise InterchangeError(f"{path}: {exc}") from None


def _weights(values: list, key: str) -> np.ndarray:
    """Positive finite numbers (ints or floats, never bools or text), as float64."""
    if set(map(type, values)) <= {int, float}:
        try:
            array = np.asarray(values, dtype=np.float64)
        except OverflowError:  # an integer past the float range: named below
            array = None
        if array is not None and np.all(np.isfinite(array)) and np.all(array > 0):
            return array
    fix = "give one positive finite number per entry"
    for k, value in enumerate(values):
        check_number(value, f"'{key}' entry {k}", *_WEIGHT_RANGE, fix)
    return np.asarray(values, dtype=np.float64)


def _labels(values: list, key: str) -> None:
    """Group labels: text, each distinct label a valid name."""
    first: dict = {}
    for k, value in enumerate(values):
        if type(value) is not str:
            raise FieldError(
                f"'{key}' entry {k} is {described(value)}",
                'group labels must be text, e.g. "nerve agents"',
                "type",
            )
        first.setdefault(value, k)
    for value, k in first.items():
        check_name(value, f"'{key}' entry {k}")


__all__ = [
    "INTERCHANGE_KEYS",
    "InterchangeError",
    "MAX_NPZ_ARRAY_BYTES",
    "SUFFIXES",
    "is_interchange",
    "read_interchange",
]
