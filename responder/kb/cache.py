"""A knowledge base checked once is kept, ready to use, in the user's cache folder.

Checking every file of the bundled knowledge base takes about a third of a second, most of the
app's start-up on a field laptop. A knowledge base that passed its checks is stored (pickled,
with its engine problem) under a key made of every byte of its files, its name, origin and
rules, and the size and time of the code that checks and builds it; the next start with the
same files and code reads it back in milliseconds. Anything else (a changed file, new code, a
damaged or unreadable cache file) is simply a miss: the files are checked again and the
cache rewritten. Only knowledge bases that passed are kept, so errors are always reported
from the files.

The cache holds only what responder itself wrote, in a folder of the user's (mode 0600
files), as trusted as the code; ``RESPONDER_NO_KB_CACHE=1`` turns it off.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from responder import paths

#: bumped when what is stored changes shape
FORMAT = 1
OFF_ENV = "RESPONDER_NO_KB_CACHE"
_PACKAGE = Path(__file__).resolve().parents[1]
#: the code whose output is cached: the checks, the model, and the engine's problem
_CODE = ("kb", "engine", "input_limits.py", "__init__.py")

_code_key: str | None = None


def _code_fingerprint() -> str:
    """Size and modification time of every source file the cached object depends on."""
    global _code_key
    if _code_key is None:
        digest = hashlib.sha256(f"format {FORMAT}".encode())
        for part in _CODE:
            root = _PACKAGE / part
            files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
            for f in files:
                try:
                    st = f.stat()
                except OSError:
                    continue
                digest.update(f"{f.relative_to(_PACKAGE)} {st.st_size} {st.st_mtime_ns}\n".encode())
        _code_key = digest.hexdigest()
    return _code_key


def cache_key(files: Mapping[str, object], *, name: str, origin: str, strict: bool) -> str | None:
    """The key of a knowledge base given as file contents; None when a file could not be
    read (such a base is never cached: its errors must be reported)."""
    digest = hashlib.sha256(_code_fingerprint().encode())
    digest.update(f"\0{name}\0{origin}\0{strict}\0".encode())
    for rel in sorted(files):
        data = files[rel]
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, bytes):
            return None
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def _folder() -> Path:
    return paths.cache_dir() / "kb"


#: The pickled bytes of the knowledge bases this process loaded lately, by key: a second load
#: in one process (a new interview, another app in the test suite) unpickles a fresh copy
#: without reading the cache folder, which may have moved (``RESPONDER_HOME``).
_recent: dict[str, bytes] = {}
_RECENT_KEPT = 4


def cached(key: str | None, build: Callable[[], object]):
    """The object stored under ``key``, else ``build()`` (stored for next time). Errors
    from ``build`` pass through and nothing is stored. Each call returns its own copy."""
    if key is None or os.environ.get(OFF_ENV) == "1":
        return build()
    if key in _recent:
        return pickle.loads(_recent[key])  # noqa: S301 (pickled by this process)
    path = _folder() / f"{key}.pickle"
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        value = pickle.loads(data)  # noqa: S301 (written by this module, in the user's folder)
    except FileNotFoundError:
        pass
    except Exception:  # noqa: BLE001 (damaged or from another version: rebuild it)
        pass
    else:
        _remember(key, data)
        return value
    value = build()
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 (unpicklable: nothing to keep)
        return value
    _remember(key, data)
    _store(path, data)
    return value


def _remember(key: str, data: bytes) -> None:
    _recent.pop(key, None)
    _recent[key] = data
    while len(_recent) > _RECENT_KEPT:
        del _recent[next(iter(_recent))]


def _store(path: Path, data: bytes) -> None:
    """Write ``data`` next to its final name, then rename: a reader sees all or nothing.
    A cache that cannot be written is no error (the next start checks the files again).
    A ``RESPONDER_HOME`` that does not exist is left so: a cache never creates the home
    (``kb info``, ``kb check`` and every command that only reads create nothing)."""
    if paths.missing_home() is not None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for old in path.parent.glob("*.pickle"):  # one knowledge base version per key kept
            if old != path and old.stat().st_mtime < _week_ago():
                old.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".kb.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except Exception:  # noqa: BLE001 (read-only home, full disk, unpicklable: no cache)
        pass


def _week_ago() -> float:
    import time  # noqa: PLC0415

    return time.time() - 7 * 24 * 3600
