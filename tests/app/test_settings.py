"""Settings: TOML under the config folder, defaults on any problem, atomic saves."""

from __future__ import annotations

import pytest

from responder.settings import (
    NoiseSettings,
    Settings,
    SettingsError,
    load_settings,
    save_settings,
    settings_path,
)


def test_missing_file_gives_defaults(home):
    assert load_settings() == Settings()
    assert settings_path() == home / "config" / "settings.toml"


def test_round_trip(home):
    s = Settings("class", "category", "nord", "my-kb",
                 NoiseSettings(True, 2, ("cough", "headache"), 2, 0.1), {"answer.unknown": "u,space"})
    save_settings(s)
    assert load_settings() == s


def test_bundled_and_auto_read_as_defaults(home):
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text('kb = "bundled"\n[noise]\neps = "auto"\nprone = "all"\n')
    s = load_settings()
    assert s.kb is None and s.noise.eps is None and s.noise.prone is None


@pytest.mark.parametrize("text, words", [
    ('target = "molecule"', "target"),
    ('suggest = 3', "suggest"),
    ('colour = "red"', "unknown setting"),
    ('[noise]\neps = -1', "noise.eps"),
    ('[noise]\np = 0.9', "noise.p"),
    ('[noise]\nmodel = 3', "noise.model"),
    ('[noise]\nprone = []', "noise.prone"),
    ('target = "chemical', "not valid TOML"),
])
def test_bad_values_raise_one_clear_message(home, text, words):
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(text + "\n")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert words in str(err.value) and str(settings_path()) in str(err.value)


def test_saving_over_a_bad_file_keeps_a_copy(home):
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text("target = [broken\n")
    save_settings(Settings(theme="nord"))
    assert settings_path().with_name("settings.toml.bad").read_text() == "target = [broken\n"
    assert load_settings().theme == "nord"


async def test_a_bad_settings_file_starts_the_app_with_defaults_and_a_message(home):
    from conftest import SIZE, make_app

    settings_path().parent.mkdir(parents=True)
    settings_path().write_text('target = "molecule"\n')
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.interview.target == "chemical"
        messages = [n.message for n in app._notifications]
        assert any("Settings not used" in m and "target" in m for m in messages)


async def test_settings_choose_the_starting_modes_and_theme(home):
    from conftest import SIZE, make_app

    save_settings(Settings("class", "category", "nord"))
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


async def test_settings_screen_saves(home):
    from conftest import SIZE, make_app
    from textual.widgets import RadioSet

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one("#set-suggest", RadioSet).query("RadioButton").last().value = True
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
