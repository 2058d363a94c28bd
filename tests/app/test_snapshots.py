"""Snapshots of the main screens at 80x24 and 120x36, plus layout checks up to 200x50.

A snapshot is the screen's text exactly as the SVG screenshot draws it (the same compositor
render), with times and private paths masked. ``RESPONDER_UPDATE_SNAPSHOTS=1 pytest
tests/app/test_snapshots.py`` rewrites them; review the diff like code. Beside the text each
run writes the SVG to ``tests/app/snapshots/out/`` (git-ignored) to look at.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from app_helpers import answer_from_row, settle, suggested, until
from conftest import make_app
from rich.console import Console

from responder.app.screens.interview import InterviewScreen
from responder.app.screens.result import ResultScreen

HERE = Path(__file__).with_name("snapshots")
UPDATE = os.environ.get("RESPONDER_UPDATE_SNAPSHOTS") == "1"
SIZES = [(80, 24), (120, 36)]


def screen_text(app) -> str:
    """The screen as text: the compositor render that ``save_screenshot`` turns into SVG."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(
        app.screen._compositor.render_update(  # noqa: SLF001 (as export_screenshot)
            full=True, screen_stack=app._background_screens
        )
    )  # noqa: SLF001
    text = console.export_text()
    text = re.sub(r"\d\d:\d\d:\d\d", "HH:MM:SS", text)
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "YYYY-MM-DD HH:MM", text)
    return text


@pytest.fixture(autouse=True)
def fixed_settings_path(monkeypatch):
    """The settings dialog names its file; a fixed name keeps the snapshot machine-free."""
    from pathlib import PurePosixPath

    import responder.app.screens.settings as settings_screen

    monkeypatch.setattr(
        settings_screen, "settings_path", lambda: PurePosixPath("~/.config/responder/settings.toml")
    )


def check(app, name: str) -> str:
    w, h = app.size
    text = screen_text(app)
    lines = text.rstrip("\n").split("\n")
    assert len(lines) <= h and all(len(line) <= w for line in lines)
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    app.save_screenshot(path=str(out), filename=f"{name}-{w}x{h}.svg")
    path = HERE / f"{name}-{w}x{h}.txt"
    if UPDATE or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        f"{path.name} changed; look at {out}/{name}-{w}x{h}.svg and rerun with "
        "RESPONDER_UPDATE_SNAPSHOTS=1 if the change is intended"
    )
    return text


async def wait_remaining(pilot, app) -> None:
    assert await until(pilot, lambda: app.interview_screen.remaining is not None, 20)
    await settle(pilot)


async def two_answers(pilot, app) -> None:
    kn = app.knowledge
    row = kn.chemicals[kn.chemical_index("Sarin (GB)")].symptoms
    for _ in range(2):
        await pilot.press("y" if kn.symptoms[suggested(app)].id in row else "n")
        await settle(pilot)
    await wait_remaining(pilot, app)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_main_and_category_screens(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await two_answers(pilot, app)
        text = check(app, "main")
        assert "Asked 2" in text and re.search(r"[Ll]eft\s+[≈\d]", text)  # figures survive
        await pilot.press("m")
        await settle(pilot)
        await wait_remaining(pilot, app)
        check(app, "category")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_history_result_and_dialogs(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await two_answers(pilot, app)
        await pilot.press("h")
        await settle(pilot)
        text = check(app, "history")
        assert "✓ yes" in text or "✗ no" in text  # the answer column is visible
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        check(app, "help")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        text = check(app, "noise")
        assert "Apply" in text and "Cancel" in text  # buttons on screen at both sizes
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        text = check(app, "settings")
        assert "Save" in text and "Cancel" in text
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        await pilot.press(*"miosis")
        await settle(pilot)
        check(app, "volunteer")
        await pilot.press("escape")
        await settle(pilot)
        await answer_from_row(pilot, app, "Sarin (GB)")
        assert isinstance(app.screen, ResultScreen)
        check(app, "result")


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_dialog_buttons_are_reached_by_tab(size):
    from textual.widgets import Button

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for key, label in (("E", "apply"), ("ctrl+s", "save")):
            await pilot.press(key)
            await settle(pilot)
            for _ in range(30):
                if isinstance(app.focused, Button) and app.focused.id == label:
                    break
                await pilot.press("tab")
            assert isinstance(app.focused, Button) and app.focused.id == label
            button = app.focused
            region = button.region
            assert region.height > 0 and region.bottom <= size[1]  # visible, not clipped
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, InterviewScreen)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_question_status_and_keys_always_visible(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await two_answers(pilot, app)
        text = screen_text(app)
        assert "Does the victim have" in text
        assert "Asked 2" in text and re.search(r"[Ll]eft\s+[≈\d]", text)
        footer = " " + text.rstrip("\n").split("\n")[-1]
        for key in (" y ", " n ", " u ", " z ", " / ", " ? "):
            assert key in footer, (key, footer)
