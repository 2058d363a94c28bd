"""Snapshots of the main screens at 80x24 and 120x36, plus layout checks up to 200x50.

A snapshot is the screen's text exactly as the SVG screenshot draws it (read back from
``app.export_screenshot()``), with times and private paths masked.
``RESPONDER_UPDATE_SNAPSHOTS=1 pytest tests/app/test_snapshots.py`` rewrites them; review the
diff like code. Beside the text each run writes the SVG to ``tests/app/snapshots/out/``
(git-ignored) to look at.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest
from app_helpers import answer_from_row, settle, suggested, until
from conftest import make_app
from rich.cells import cell_len

from responder.app.screens.interview import InterviewScreen
from responder.app.screens.result import ResultScreen

HERE = Path(__file__).with_name("snapshots")
UPDATE = os.environ.get("RESPONDER_UPDATE_SNAPSHOTS") == "1"
SIZES = [(80, 24), (120, 36)]


#: One <text> element of Rich's SVG export: its x (in pixels), its line and its characters.
SVG_TEXT = re.compile(
    r'<text class="[^"]*" x="([0-9.]+)" y="[0-9.]+" textLength="[0-9.]+" '
    r'clip-path="url\(#[\w-]+-line-(\d+)\)">(.*?)</text>'
)
#: The SVG's cell width in pixels (Rich's export_svg: font size 20, aspect ratio 0.61).
CELL_PX = 20 * 0.61


def screen_text(app, svg: str | None = None) -> str:
    """The screen as text, read back from its SVG screenshot (``app.export_screenshot()``,
    which ``save_screenshot`` writes): each run of text at its column on its line, blanks
    between, every line the screen's width; times and private paths masked."""
    if svg is None:
        svg = app.export_screenshot()
    width, height = app.size
    runs: list[list[tuple[int, str]]] = [[] for _ in range(height)]
    for x, line, chars in SVG_TEXT.findall(svg):
        text = html.unescape(chars).replace("\xa0", " ")  # the SVG writes spaces as &#160;
        runs[int(line)].append((round(float(x) / CELL_PX), text))
    lines = []
    for row in runs:
        line, at = "", 0
        for column, text in sorted(row):
            line += " " * (column - at) + text
            at = column + cell_len(text)
        lines.append(line + " " * (width - at))
    text = "\n".join(lines)
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
    svg = app.export_screenshot()
    text = screen_text(app, svg)
    lines = text.rstrip("\n").split("\n")
    assert len(lines) <= h and all(len(line) <= w for line in lines)
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / f"{name}-{w}x{h}.svg").write_text(svg, encoding="utf-8")
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
