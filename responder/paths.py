"""Where responder keeps the user's settings, incidents, exports and imported knowledge bases.

Locations follow platformdirs. Setting ``RESPONDER_HOME`` puts everything under that one
folder instead (``config/``, ``data/`` and ``cache/`` inside it), so tests never touch the user's files.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "responder"
HOME_ENV = "RESPONDER_HOME"


def _override() -> Path | None:
    value = os.environ.get(HOME_ENV)
    return Path(value).expanduser() if value else None


def missing_home() -> Path | None:
    """The ``RESPONDER_HOME`` folder when it is set and does not exist (a typo, a fresh
    machine): what only reads, or only speeds things up (the knowledge-base cache), never
    creates it. None when it exists or is not set."""
    base = _override()
    return base if base is not None and not base.exists() else None


def config_dir() -> Path:
    """Folder for settings (``settings.toml``)."""
    base = _override()
    path = base / "config" if base else Path(platformdirs.user_config_dir(APP_NAME))
    return path


def data_dir() -> Path:
    """Folder for the incident database, exports and imported knowledge bases."""
    base = _override()
    path = base / "data" if base else Path(platformdirs.user_data_dir(APP_NAME))
    return path


def cache_dir() -> Path:
    """Folder for what can be rebuilt at any time (checked knowledge bases)."""
    base = _override()
    return base / "cache" if base else Path(platformdirs.user_cache_dir(APP_NAME))


def user_kb_dir() -> Path:
    """Folder holding knowledge bases made by ``responder kb import``, one sub-folder each."""
    return data_dir() / "kb"


def incident_db() -> Path:
    """The incident database (SQLite): every interview, its victims and answers."""
    return data_dir() / "incidents.sqlite"


def journal_dir() -> Path:
    """Folder where earlier versions kept one JSON-lines journal per interview; they are
    imported into the incident database on first use and moved to ``imported/``."""
    return data_dir() / "journal"


class UnsafePathError(ValueError):
    """A stored value that would name a file outside its folder, or no file at all."""


#: Longest file name built from a stored value (most file systems allow 255 bytes).
MAX_NAME_BYTES = 255


def path_inside(folder: str | Path, name: str, what: str, *, resolve: bool = True) -> Path:
    """``folder / name`` for a file name built from stored data (an interview id, a
    knowledge-base name), refused unless it stays inside ``folder``.

    ``name`` must be one plain file name: not empty, not ``.`` or ``..``, no ``/`` or
    ``\\``, no control character, at most :data:`MAX_NAME_BYTES` bytes; and (with
    ``resolve``) the path it gives, with symbolic links resolved, must lie directly in
    ``folder`` (``resolve=False`` for a name the user may link elsewhere on purpose, such
    as an imported knowledge base read in place). Every store that turns a value it read
    back into a path goes through here, so a damaged or hostile file cannot make responder
    write elsewhere.

    Raises
    ------
    UnsafePathError
        Naming ``what`` (e.g. "interview id") and the value, escaped.
    """
    folder = Path(folder)
    text = str(name)
    shown = text.encode("unicode_escape").decode("ascii")[:80]
    problem = None
    if text in ("", ".", ".."):
        problem = "is not a file name"
    elif "/" in text or "\\" in text or (os.altsep and os.altsep in text):
        problem = "holds a folder separator"
    elif any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        problem = "holds a control character"
    elif len(text.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        problem = f"is longer than {MAX_NAME_BYTES} bytes"
    elif not resolve:
        return folder / text
    else:
        target = folder / text
        try:
            inside = target.resolve().parent == folder.resolve()
        except (OSError, RuntimeError, ValueError):  # a symbolic-link loop, an odd name
            inside = False
        if inside:
            return target
        problem = f"leads outside {folder}"
    raise UnsafePathError(
        f'the {what} "{shown}" {problem}, so it cannot name a file in {folder}; the data '
        "it was read from is damaged or was edited by hand"
    )


def file_in_the_way(folder: Path) -> Path | None:
    """The file standing where ``folder`` or one of the folders above it should be (the
    folder could not be created), or None."""
    for place in (folder, *folder.parents):
        try:
            if place.exists() or place.is_symlink():
                return None if place.is_dir() else place
        except OSError:  # a name too long, a folder that may not be searched: no file seen
            continue
    return None
