"""Fixtures for the headless core's tests: a private RESPONDER_HOME and the small test KB.

A module with its own name rather than a second ``conftest.py``: tests/app imports its
``conftest`` by name, and two modules called ``conftest`` would shadow each other. Test
modules here import the fixtures (``from core_fixtures import home, knowledge``)."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURE_KB = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kb"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch) -> Path:
    """Every test gets its own settings, incident database and export folders."""
    monkeypatch.setenv("RESPONDER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture(scope="session")
def knowledge():
    from responder.kb.resolve import load_knowledge

    return load_knowledge(str(FIXTURE_KB))
