"""Where responder keeps the user's settings, incidents, exports and imported knowledge bases.

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
    """Folder for the incident database, exports and imported knowledge bases."""
    base = _override()
    path = base / "data" if base else Path(platformdirs.user_data_dir(APP_NAME))
    return path


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
