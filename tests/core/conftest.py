"""Fixtures for the headless core's tests: a private RESPONDER_HOME and the small test KB."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURE_KB = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kb"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch) -> Path:
    """Every test gets its own settings, journal and export folders."""
    monkeypatch.setenv("RESPONDER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture(scope="session")
def knowledge():
    from responder.kb.resolve import load_knowledge

    return load_knowledge(str(FIXTURE_KB))
