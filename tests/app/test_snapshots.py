"""Snapshots of every screen at 80x24 (the design size) and 120x36, plus layout checks up
to 200x50.

A snapshot is the screen's text exactly as the SVG screenshot draws it (read back from
``app.export_screenshot()``), with times, interview ids and private paths masked.
``RESPONDER_UPDATE_SNAPSHOTS=1 pytest tests/app/test_snapshots.py`` rewrites them; review the
diff like code. Beside the text each run writes the SVG to ``tests/app/snapshots/out/``
(git-ignored) to look at.

Every snapshot is also checked for what makes a screen complete at that size: nothing drawn
past its edge, and quit in the footer of every full screen.
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
    if getattr(app, "interview", None) is not None:
        text = text.replace(app.interview.id, "INCIDENT-ID")
    home = os.environ.get("RESPONDER_HOME")
    if home:
        text = text.replace(home, "$RESPONDER_HOME")
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


SCENE = Path(__file__).with_name("fixtures") / "scene" / "scene.toml"


def footer_of(text: str) -> str:
    return text.rstrip("\n").split("\n")[-1]


#: scene facts given to chemicals of the test knowledge base: (file, chemical's row, added)
SCENE_CELLS = (
    ("irritant_gases", '"wheezing", "headache"]', '"odour_bleach", "setting_pool"'),
    ("cellular_asphyxiants", '"seizures", "shortness_of_breath"]', '"odour_almonds", "odour_none"'),
    ("nerve_agents", '"seizures", "headache", "sweating"]', '"setting_subway", "odour_none"'),
)


@pytest.fixture
def scene_kb(tmp_path) -> str:
    """The test knowledge base with two scene categories (smell, place), a few chemicals
    listing scene facts."""
    import shutil

    from conftest import FIXTURE_KB

    kb = tmp_path / "scene-kb"
    shutil.copytree(FIXTURE_KB, kb)
    shutil.copy(SCENE, kb / "scene.toml")
    for name, row_end, added in SCENE_CELLS:
        path = kb / "chemicals" / f"{name}.toml"
        text = path.read_text(encoding="utf-8")
        assert row_end in text
        path.write_text(text.replace(row_end, row_end[:-1] + ", " + added + "]", 1), "utf-8")
    return str(kb)


async def wait_remaining(pilot, app) -> None:
    """Until the expected questions left are shown for the answers given now (not a figure
    from before the last answer, whose refresh may still be on its way)."""
    screen = app.interview_screen
    assert await until(
        pilot,
        lambda: (
            screen.remaining is not None and screen.remaining_generation == app.interview.generation
        ),
        20,
    )
    # ... and drawn: under a dialog the screen below is repainted a little later
    assert await until(pilot, lambda: "left …" not in screen_text(app).lower(), 20)
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
        assert "decision support, not a diagnosis" in text.split("\n")[0]  # whole
        assert "^q Quit" in footer_of(text)
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
        assert "HH:MM:SS" in text and "Category" in text  # so are the time and the category
        assert "^q Quit" in footer_of(text)
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
        text = check(app, "result")
        first = text.lstrip().split("\n")[0]
        assert first.startswith("Most likely: Sarin (GB) (Nerve agents) >99%")
        assert "What to do now" in text  # on the first screen, before the profile


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


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_scene_step_and_two_victims(size, scene_kb):
    app = make_app(scene_kb, scene_first=True)
    async with app.run_test(size=size) as pilot:
        assert await until(pilot, lambda: type(app.screen).__name__ == "SceneScreen")
        await pilot.press("1")  # no smell noticed
        assert await until(pilot, lambda: app.interview.asked == 1)  # recorded (a busy machine)
        await wait_remaining(pilot, app)
        text = check(app, "scene")
        assert "✓ No smell noticed" in text and "Scene 1/2" in text
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        await pilot.press("u")
        assert await until(pilot, lambda: len(app.interview.records) == 3)
        await wait_remaining(pilot, app)
        text = check(app, "victims")
        assert re.search(r"V(ictim )?1 \(1\).*V(ictim )?2 \(1\)", text)
        assert "^q Quit" in footer_of(text)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_browse_export_and_new_interview_dialogs(size, monkeypatch):
    from pathlib import PurePosixPath

    import responder.app.screens.export as export_screen

    monkeypatch.setattr(
        export_screen, "exports_dir", lambda: PurePosixPath("/srv/responder/exports")
    )
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await two_answers(pilot, app)
        await pilot.press("b")
        await settle(pilot)
        await pilot.press(*"gb")
        await settle(pilot, 3)
        text = check(app, "browse")
        assert "Sarin (GB)" in text and "Now ranked 1" in text
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        text = check(app, "export")
        assert "Export (enter)" in text and "Cancel (esc)" in text
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        text = check(app, "new-interview")
        assert "Start a new interview?" in text


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_no_fit(size):
    from responder.engine.state import Answer

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        kn = app.knowledge
        for sid in ("pinpoint_pupils", "skin_burns"):  # no fixture chemical has both
            app.record_answer(kn.symptom_index(sid), Answer.YES)
        await settle(pilot)
        text = check(app, "no-fit")
        assert "No chemical fits" in text and "matches all 2 answers" in text
        assert "turn on noise tolerance" in text  # every key it offers, at 80 columns too


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_result_no_candidate_is_confident_of(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        while app.interview.status.value == "asking":
            await pilot.press("u")
            await settle(pilot)
        assert await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        text = check(app, "result-unsure")
        # every answer "can't tell": no chemical is named most likely
        assert text.lstrip().startswith("No victim has a sign of poisoning yet")
        assert "No candidate is confident yet" in text


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_resume_offer(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await two_answers(pilot, app)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        assert await until(pilot, lambda: type(app.screen).__name__ == "ResumeScreen")
        text = check(app, "resume")
        assert "Resume" in footer_of(text) and "Quit" in footer_of(text)
