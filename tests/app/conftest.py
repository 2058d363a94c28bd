"""Shared fixtures for the app's tests: a private RESPONDER_HOME and a small knowledge base."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

FIXTURE_KB = Path(__file__).with_name("fixtures") / "kb"
SIZE = (120, 40)


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch) -> Path:
    """Every test gets its own settings, incident database and export folders."""
    monkeypatch.setenv("RESPONDER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture(scope="session")
def knowledge():
    from responder.kb.resolve import load_knowledge

    return load_knowledge(str(FIXTURE_KB))


def make_app(
    kb: str | None = str(FIXTURE_KB), mode: str | None = "strict", scene_first: bool = False
):
    """The app exactly as ``responder --kb <fixture>`` builds it.

    Most flows here test the paper's strict elimination, so ``mode`` ("strict" by default) is
    written to a settings file first when none exists; ``mode=None`` leaves the app's own
    default (the evidence mode). The scene step that opens a new interview on a knowledge
    base with scene observations is off unless ``scene_first`` (its own tests turn it on).
    """
    from responder.app.main import prepare
    from responder.config import InterviewConfig
    from responder.settings import Settings, save_settings, settings_path

    if not settings_path().exists():
        config = InterviewConfig() if mode is None else InterviewConfig(mode=mode)
        save_settings(Settings(config, scene_first=scene_first))
    return prepare(kb)


async def _yield_to_the_app(min_sleep: float = 0, max_sleep: float = 1) -> None:
    """Stand-in for Textual's wait for an idle process after each simulated key: yield so the
    app takes the key, without sleeping 20 ms or more (the pilot then waits until the screen
    has handled its pending messages, and :func:`app_helpers.settle` for what those caused)."""
    for _ in range(3):
        await asyncio.sleep(0)


@pytest.fixture(autouse=True)
def quick_keys(monkeypatch) -> None:
    # raising=False: should Textual rename it, the tests run as before, only slower
    monkeypatch.setattr("textual.app.wait_for_idle", _yield_to_the_app, raising=False)
