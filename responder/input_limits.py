"""Limits at every input boundary: file kinds, file sizes, text encodings, nesting depth and
number sizes.

Every reader of a user's file (knowledge-base TOML, CSV, interchange JSON, settings, interview
journals) goes through here, so a hostile or damaged file ends in one clear message instead
of a hang (a FIFO), a memory blow-up (``/dev/zero``), a ``RecursionError`` (``[[[[...`` a
thousand deep) or an ``OverflowError`` (``1e400``, a 5000-digit integer).

All failures raise :class:`InputRejected`, whose message names the file and says how to fix
it; ``kind`` tells callers apart a missing file (often fine: use defaults) from a bad one.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

#: Deepest nesting of lists/tables/objects accepted in any TOML or JSON input. Every format
#: responder reads needs at most 4 levels.
MAX_DEPTH = 64
#: Integer literals longer than this are refused (Python refuses 4300+ digits with a
#: traceback, and nothing responder reads needs more than a 64-bit integer).
MAX_INT_DIGITS = 40
#: Largest magnitude accepted for an integer read from TOML or JSON (TOML's own range).
MAX_INT = 2**63 - 1

MiB = 1024 * 1024
#: Size caps per kind of file, in bytes.
MAX_BYTES = {
    "knowledge-base file": 32 * MiB,
    "CSV file": 64 * MiB,
    "interchange JSON file": 256 * MiB,
    "settings file": 1 * MiB,
    "journal": 32 * MiB,
}


class InputRejected(ValueError):
    """A file or value that responder will not read.

    ``str()`` gives one line: ``where[:line]: problem; fix``. ``kind`` is one of "missing",
    "kind" (not a regular file), "size", "encoding", "syntax", "depth", "number" or "io".
    """

    def __init__(self, where: str, problem: str, fix: str, kind: str, line: int | None = None):
        self.where, self.problem, self.fix, self.kind, self.line = where, problem, fix, kind, line
        self.path: list = []  # key path of a bad value (check_values), e.g. ["noise", "eps"]
        at = f"{where}:{line}" if line else where
        super().__init__(f"{at}: {problem}; {fix}")


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"  # pragma: no cover


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind_name(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_bytes(path: str | Path, what: str, max_bytes: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (default: ``MAX_BYTES[what]``).

    FIFOs, devices, sockets and folders are refused without blocking (the file is opened
    non-blocking and checked with ``fstat``, so a symlink to ``/dev/zero`` is refused too); a
    dangling symbolic link is reported as such. Files that grow past the cap while being
    read (``/proc`` files report size 0) are refused as well.

    Raises
    ------
    InputRejected
    """
    path = Path(path)
    limit = MAX_BYTES.get(what, 64 * MiB) if max_bytes is None else max_bytes
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        if path.is_symlink():
            raise InputRejected(
                str(path),
                f"the {what} is a symbolic link to {os.readlink(path)}, which does not exist",
                "fix or remove the link",
                "missing",
            ) from None
        raise InputRejected(
            str(path), "no such file", f"check the path of the {what}", "missing"
        ) from None
    except PermissionError:
        raise InputRejected(
            str(path), f"permission denied reading the {what}", "check its permissions", "io"
        ) from None
    except OSError as exc:
        raise InputRejected(
            str(path),
            f"cannot open the {what} ({exc.strerror or exc})",
            "check the path and the disk",
            "io",
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputRejected(
                str(path),
                f"the {what} is {_kind_name(info.st_mode)}, not a regular file",
                "give the path of an ordinary file",
                "kind",
            )
        if info.st_size > limit:
            raise InputRejected(
                str(path),
                f"the {what} is {_size(info.st_size)}, more than the "
                f"{_size(limit)} a {what} may have",
                "check that it is the right file",
                "size",
            )
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(limit + 1 - total, 4 * MiB))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputRejected(
                    str(path),
                    f"the {what} holds more than the {_size(limit)} a {what} may have",
                    "check that it is the right file",
                    "size",
                )
        return b"".join(chunks)
    except OSError as exc:
        raise InputRejected(
            str(path), f"cannot read the {what} ({exc.strerror or exc})", "check the disk", "io"
        ) from None
    finally:
        os.close(fd)


def decode_text(data: bytes, where: str, what: str) -> str:
    """UTF-8 text (a leading byte-order mark is dropped); other encodings and binary data
    get a message with the line of the first bad byte.

    Raises
    ------
    InputRejected
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputRejected(where, f"the {what} is UTF-16 text", "save it as UTF-8", "encoding", 1)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputRejected(
            where,
            f"the {what} is not UTF-8 text (byte 0x{data[exc.start]:02x})",
            "save it as UTF-8",
            "encoding",
            line,
        ) from None
    nul = text.find("\0")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise InputRejected(
            where,
            f"the {what} holds a NUL byte, so it is binary data, not text",
            "check that it is the right file",
            "encoding",
            line,
        )
    return text


def read_text(path: str | Path, what: str, max_bytes: int | None = None) -> str:
    """:func:`read_bytes` then :func:`decode_text`."""
    return decode_text(read_bytes(path, what, max_bytes), str(path), what)


# -- values --------------------------------------------------------------------------------


def _path_parts(link) -> list:
    parts = []
    while link is not None:  # (parent link, key) pairs, built only as deep as walked
        link, key = link
        parts.append(key)
    return parts[::-1]


def _path_text(parts: list) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the top level"


def check_values(data: Any, where: str, max_depth: int = MAX_DEPTH, numbers: bool = True) -> None:
    """Refuse nesting deeper than ``max_depth`` and (with ``numbers``) numbers that are not
    finite or exceed :data:`MAX_INT`, naming the key path of the first offender. Iterative:
    no recursion.

    Raises
    ------
    InputRejected
    """
    try:
        _check_values(data, max_depth, numbers)
    except _ValueProblem as exc:
        parts = _path_parts(exc.link)
        rejected = InputRejected(where, f"{_path_text(parts)} {exc.problem}", exc.fix, exc.kind)
        rejected.path = parts
        raise rejected from None


class _ValueProblem(Exception):
    def __init__(self, link, problem: str, fix: str, kind: str):
        super().__init__(problem)
        self.link, self.problem, self.fix, self.kind = link, problem, fix, kind


def _check_values(data: Any, max_depth: int, numbers: bool) -> None:
    stack: list[tuple[Any, Any, int]] = [(data, None, 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
        else:
            if not numbers:
                continue
            if isinstance(value, float) and not math.isfinite(value):
                raise _ValueProblem(
                    path, f"is {value}, not a finite number", "give an ordinary number", "number"
                )
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
                raise _ValueProblem(
                    path,
                    f"is a {len(str(abs(value)))}-digit number, too large to be meant",
                    "give an ordinary number",
                    "number",
                )
            continue
        if depth >= max_depth:
            raise _ValueProblem(
                path,
                f"is nested more than {max_depth} levels deep",
                "no responder file needs that: check the brackets",
                "depth",
            )
        stack.extend((v, (path, k), depth + 1) for k, v in items)


_LONG_DIGITS = re.compile(rf"\d[\d_]{{{MAX_INT_DIGITS},}}")


def _line_of(text: str, needle: str) -> int | None:
    at = text.find(needle)
    return None if at < 0 else text.count("\n", 0, at) + 1


class _BadNumber(ValueError):
    def __init__(self, literal: str, why: str):
        super().__init__(literal)
        self.literal = literal
        self.why = why


def _json_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _BadNumber(literal, "is out of range (beyond about 1.8e308)")
    return value


def _json_int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        raise _BadNumber(literal, f"has more than {MAX_INT_DIGITS} digits")
    return int(literal)


def _json_constant(literal: str):
    raise _BadNumber(literal, "is not a number JSON allows")


def _shorten(literal: str) -> str:
    return literal if len(literal) <= 24 else literal[:12] + "…" + literal[-6:]


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list) -> dict:
    """A JSON object, refusing a key given twice (``json`` would silently keep the last)."""
    obj: dict = {}
    for key, value in pairs:
        if key in obj:
            raise _DuplicateKey(key)
        obj[key] = value
    return obj


def loads_json(
    text: str,
    where: str,
    max_depth: int = MAX_DEPTH,
    *,
    check: bool = True,
    unique_keys: bool = False,
) -> Any:
    """Parse JSON refusing NaN/Infinity, out-of-range floats, huge integers and deep nesting.

    ``check=False`` leaves integers and nesting to the caller, which checks each field's
    type and range itself (as whole arrays, for large matrices): integers are then parsed
    by ``json``'s own C code, not one Python call each, and only those over Python's
    4300-digit limit are refused here. ``unique_keys`` refuses an object that gives one key
    twice.

    Raises
    ------
    InputRejected
        ``kind`` "syntax" (with ``line``; also a repeated key), "number" or "depth".
    """
    hooks: dict[str, Any] = {"parse_float": _json_float, "parse_constant": _json_constant}
    if check:
        hooks["parse_int"] = _json_int
    if unique_keys:
        hooks["object_pairs_hook"] = _unique_keys
    try:
        data = json.loads(text, **hooks)
    except _DuplicateKey as exc:
        quoted = json.dumps(exc.key)
        first = text.find(quoted)
        second = text.find(quoted, first + 1) if first >= 0 else -1
        raise InputRejected(
            where,
            f"the key {quoted[:60]} appears twice in one object",
            "keep one of them (JSON readers silently take the last)",
            "syntax",
            text.count("\n", 0, second) + 1 if second >= 0 else None,
        ) from None
    except _BadNumber as exc:
        raise InputRejected(
            where,
            f"the number {_shorten(exc.literal)} {exc.why}",
            "give an ordinary finite number",
            "number",
            _line_of(text, exc.literal),
        ) from None
    except RecursionError:
        raise InputRejected(
            where,
            f"the JSON is nested too deeply (more than {max_depth} levels)",
            "check the brackets",
            "depth",
        ) from None
    except json.JSONDecodeError as exc:
        raise InputRejected(
            where,
            f"not valid JSON at column {exc.colno} ({exc.msg})",
            "fix the syntax",
            "syntax",
            exc.lineno,
        ) from None
    except ValueError:  # an integer literal past Python's 4300-digit limit
        m = _LONG_DIGITS.search(text)
        raise InputRejected(
            where,
            "a number is far too long to be meant",
            "give an ordinary number",
            "number",
            text.count("\n", 0, m.start()) + 1 if m else None,
        ) from None
    if check:
        check_values(data, where, max_depth)
    return data


_TOML_POS = re.compile(r"\(at line (\d+), column \d+\)")
_TOML_POS_ANY = re.compile(r"\s*\(at line \d+, column \d+\)|\s*\(at end of document\)")


def loads_toml(text: str, where: str, max_depth: int = MAX_DEPTH, numbers: bool = True) -> dict:
    """Parse TOML, turning deep nesting and over-long numbers into :class:`InputRejected`
    and checking every value with :func:`check_values` (``numbers=False`` leaves the range
    of numbers to the caller, which can name the field).

    Raises
    ------
    InputRejected
        ``kind`` "syntax" (``line`` set when tomllib gives one), "number" or "depth".
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_POS.search(str(exc))
        line = (
            int(m.group(1))
            if m
            else (len(text.split("\n")) if "end of document" in str(exc) else None)
        )
        reason = _TOML_POS_ANY.sub("", str(exc)).strip() or "invalid TOML"
        raise InputRejected(
            where,
            f"not valid TOML: {reason}",
            "fix the syntax there (strings in double quotes, commas between "
            "list items, one key = value per line)",
            "syntax",
            line,
        ) from None
    except RecursionError:
        raise InputRejected(
            where,
            f"nested too deeply (more than {max_depth} levels)",
            "check the brackets",
            "depth",
        ) from None
    except ValueError:  # e.g. Python's 4300-digit limit on integer literals
        m = _LONG_DIGITS.search(text)
        raise InputRejected(
            where,
            "a number is far too long to be meant",
            "give an ordinary number",
            "number",
            text.count("\n", 0, m.start()) + 1 if m else None,
        ) from None
    check_values(data, where, max_depth, numbers)
    return data


__all__ = [
    "InputRejected",
    "MAX_BYTES",
    "MAX_DEPTH",
    "check_values",
    "decode_text",
    "loads_json",
    "loads_toml",
    "read_bytes",
    "read_text",
]
