"""Where responder keeps the user's settings, journals and imported knowledge bases.

Locations follow platformdirs. Setting ``RESPONDER_HOME`` puts everything under that one
folder instead (``config/`` and ``data/`` inside it), so tests never touch the user's files.
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


def config_dir() -> Path:
    """Folder for settings (``settings.toml``)."""
    base = _override()
    path = base / "config" if base else Path(platformdirs.user_config_dir(APP_NAME))
    return path


def data_dir() -> Path:
    """Folder for journals, exports and imported knowledge bases."""
    base = _override()
    path = base / "data" if base else Path(platformdirs.user_data_dir(APP_NAME))
    return path


def user_kb_dir() -> Path:
    """Folder holding knowledge bases made by ``responder kb import``, one sub-folder each."""
    return data_dir() / "kb"


def journal_dir() -> Path:
    """Folder holding interview journals (one JSON-lines file per interview)."""
    return data_dir() / "journal"
