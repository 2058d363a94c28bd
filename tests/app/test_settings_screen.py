"""The settings as the app uses them: a bad file, starting modes, keys, the settings screen."""

from __future__ import annotations

import pytest
from app_helpers import notified, toasts

from responder.config import InterviewConfig
from responder.settings import Settings, load_settings, save_settings, settings_path


async def test_a_bad_settings_file_starts_the_app_with_defaults_and_a_message(home):
    from conftest import SIZE, make_app

    settings_path().parent.mkdir(parents=True)
    settings_path().write_text('target = "molecule"\n')
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert app.interview.target == "chemical"
        assert await notified(pilot, app, "Settings not used")
        assert any("Settings not used" in m and "target" in m for m in toasts(app))


async def test_settings_choose_the_starting_modes_and_theme(home):
    from conftest import SIZE, make_app

    save_settings(Settings(InterviewConfig("class", "category"), "nord"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.interview.policy_name == "gigqsa"
        assert app.theme == "nord"


async def test_keys_can_be_remapped_by_binding_id(home):
    from conftest import SIZE, make_app

    from responder.engine.state import Answer

    save_settings(Settings(keys={"answer.unknown": "space"}))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("space")
        await pilot.pause()
        assert app.interview.state.answers[-1].answer is Answer.UNKNOWN


async def open_settings_choosing_category_suggestions(pilot, app) -> None:
    """Open the settings form (ctrl+s) and pick "a category of symptoms" (not yet saved)."""
    from textual.widgets import RadioSet

    await pilot.pause()
    await pilot.press("ctrl+s")
    await pilot.pause()
    app.screen.query_one("#set-suggest", RadioSet).query("RadioButton").last().value = True


async def test_settings_screen_saves(home):
    from conftest import SIZE, make_app

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_settings_choosing_category_suggestions(pilot, app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert load_settings().suggest == "category"


async def test_theme_change_is_remembered(home):
    from conftest import SIZE, make_app

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.theme = "gruvbox"
        await pilot.pause()
        await pilot.pause()
    assert load_settings().theme == "gruvbox"


async def test_every_settings_field_fits_the_dialog_at_80x24(home):
    """The noise checkbox's label ran past the dialog: 'use this interview's noise settings
    as def'."""
    from conftest import make_app
    from textual.widgets import Checkbox

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        box = app.screen.query_one("#set-noise-current", Checkbox)
        form = app.screen.query_one("#settings-form")
        assert box.region.x + box.outer_size.width <= form.region.right - 2  # its scrollbar
        field = box.parent
        assert box.region.x + box.outer_size.width <= field.region.right


@pytest.mark.parametrize("folder", ["field laptop [old]", "a[/]b"])
async def test_a_notice_shows_a_path_with_brackets_as_it_is(tmp_path, monkeypatch, folder):
    """Notices were read as Textual markup: 'Settings saved to .../field laptop [old]/...'
    showed '.../field laptop /...' (the brackets taken for a style), and a '[/]' in a path
    or an error message stopped the app with a MarkupError; they are plain text."""
    from conftest import SIZE, make_app

    home = tmp_path / folder / "home"
    monkeypatch.setenv("RESPONDER_HOME", str(home))
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("ctrl+s")
        assert await notified(pilot, app, "Settings saved to")
        shown = "".join("".join(toasts(app)).split())  # wrapped: compared without spaces
        assert "".join(f"{home}/config/settings.toml".split()) in shown
    assert app.return_code in (None, 0)


@pytest.mark.parametrize("key, saved", [("y", "category"), ("n", "symptom")])
async def test_quitting_over_changed_settings_asks_before_dropping_them(home, key, saved):
    """QA round 13 left it: ctrl+q over the settings form dropped its edits without a word.
    Now the app asks: y saves them, n quits without them; either way it quits."""
    from conftest import SIZE, make_app

    from responder.app.screens.confirm import ConfirmScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_settings_choosing_category_suggestions(pilot, app)
        await pilot.pause()
        await pilot.press("ctrl+q")
        for _ in range(20):
            await pilot.pause()
            if isinstance(app.screen, ConfirmScreen):
                break
        assert isinstance(app.screen, ConfirmScreen)
        assert "Save the settings you changed" in app.screen.question
        await pilot.press(key)
        await pilot.pause()
        await pilot.pause()
    assert app.return_code == 0
    assert load_settings().suggest == saved


async def test_quitting_over_unchanged_settings_just_quits(home):
    from conftest import SIZE, make_app

    from responder.app.screens.confirm import ConfirmScreen

    app = make_app()
    asked = False
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        before = load_settings()
        await pilot.press("ctrl+q")
        for _ in range(10):
            await pilot.pause()
            asked = asked or isinstance(app.screen, ConfirmScreen)
    assert app.return_code == 0 and not asked
    assert load_settings() == before
