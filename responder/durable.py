"""Writing a whole file so that it is either the old one or the new one, never a mix.

The text goes to a temporary file with a unique name in the same folder (two windows
saving at once never share one), is fsync'd, renamed over the target, and the folder is
fsync'd so the rename itself survives a power cut. On failure the temporary file is removed
and the old file is untouched.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def fsync_dir(directory: Path) -> None:
    """Make a folder's entries (a new or renamed file) durable; best effort."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str) -> Path:
    """Replace ``path`` with ``text`` (UTF-8) atomically and durably; see
    :func:`atomic_write_bytes`."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    """Replace ``path`` with ``data`` atomically and durably.

    Raises
    ------
    OSError
        The folder cannot be written (the old file, if any, is unchanged).
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(path.parent)
    return path
