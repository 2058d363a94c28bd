"""The one settings model: TOML under the config folder read with tomllib, written with
tomlkit (the user's comments kept), validated in one place, atomic saves."""

from __future__ import annotations

import pytest

from responder.config import ConfigError, InterviewConfig, NoiseSettings
from responder.core.session import Interview
from responder.engine.diagnostics import auto_eps, default_eps
from responder.settings import (
    Settings,
    SettingsError,
    load_settings,
    save_settings,
    settings_path,
)


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RESPONDER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_missing_file_gives_defaults(home):
    assert load_settings() == Settings()
    assert settings_path() == home / "config" / "settings.toml"


def test_round_trip(home):
    s = Settings(
        InterviewConfig(
            "class", "category", "noise", NoiseSettings(True, 2, ("cough", "headache"), 2, 0.1)
        ),
        "nord",
        "my-kb",
        {"answer.unknown": "u,space"},
    )
    save_settings(s)
    assert load_settings() == s


def test_bundled_and_auto_read_as_defaults(home):
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text('kb = "bundled"\n[noise]\neps = "auto"\nprone = "all"\n')
    s = load_settings()
    assert s.kb is None and s.noise.eps is None and s.noise.prone is None


@pytest.mark.parametrize(
    "text, words",
    [
        ('target = "molecule"', "target"),
        ("suggest = 3", "suggest"),
        ('colour = "red"', "unknown setting"),
        ("[noise]\neps = -1", "noise.eps"),
        ("[noise]\np = 0.9", "noise.p"),
        ("[noise]\nmodel = 3", "noise.model"),
        ("[noise]\nprone = []", "noise.prone"),
        ("[evidence]\nlong_row_exponent = 2", "evidence.long_row_exponent"),
        ('target = "chemical', "not valid TOML"),
    ],
)
def test_bad_values_raise_one_clear_message(home, text, words):
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(text + "\n")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert words in str(err.value) and str(settings_path()) in str(err.value)


@pytest.mark.parametrize(
    "key, value",
    [
        ("sensitivity", 0.8),
        ("leak", 0.1),
        ("threshold", 0.985),
        ("long_row_exponent", 0.25),
        ("hallmark", 0.9),
        ("occasional", 0.3),
        ("frequency_leak", 0.05),
        ("class_borrow", 0.5),
        ("textbook_share", 0.5),
        ("textbook_sensitivity", 0.9),
        ("textbook_leak", 0.05),
        ("several_routes_share", 0.5),
        ("gain_floor", 0.1),
    ],
)
def test_a_quoted_number_in_the_evidence_table_is_one_clear_message(home, key, value):
    """QA round 13: `[evidence] several_routes_share = "0.5"` (a quoted string) was taken
    as the number 0.5 without a word, as was every number setting of the table (the
    engine's validator reads text, the command line's options being text). Now one message
    names the key, the value and what to give; the number itself is accepted."""
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(f'[evidence]\n{key} = "{value}"\n')
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert str(err.value) == (
        f"{settings_path()}: evidence.{key} = '{value}' is text, not a number; write it "
        f"without quotes: {key} = {value}"
    )
    settings_path().write_text(f"[evidence]\n{key} = {value}\n")
    assert load_settings().evidence == {key: value}


def test_a_quoted_number_out_of_range_says_the_range_too(home):
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text('[evidence]\nthreshold = "1"\n')
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "evidence.threshold = '1' is text, not a number; give a number without quotes" in (
        str(err.value)
    )
    assert "strictly between 0.5 and 1" in str(err.value)


def test_saving_over_a_bad_file_keeps_a_copy(home):
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text("target = [broken\n")
    save_settings(Settings(theme="nord"))
    assert settings_path().with_name("settings.toml.bad").read_text() == "target = [broken\n"
    assert load_settings().theme == "nord"


def test_saving_keeps_the_users_comments_and_layout(home):
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(
        "# my field laptop\n"
        'target = "class"   # the crew wants classes first\n'
        "\n"
        "[noise]\n"
        "# wrong answers are common in the dark\n"
        "enabled = true\n"
        "eps = 2\n"
    )
    s = load_settings()
    save_settings(s.with_changes(theme="nord", noise=s.noise.with_enabled(False)))
    text = settings_path().read_text()
    assert "# my field laptop" in text
    assert "# the crew wants classes first" in text
    assert "# wrong answers are common in the dark" in text
    assert text.index("target") < text.index("[noise]")
    again = load_settings()
    assert again.theme == "nord" and again.target == "class"
    assert again.noise.enabled is False and again.noise.eps == 2


def test_removed_key_remaps_leave_the_file(home):
    save_settings(Settings(keys={"answer.unknown": "space"}))
    assert "[keys]" in settings_path().read_text()
    save_settings(load_settings().with_changes(keys={}))
    assert "[keys]" not in settings_path().read_text() and load_settings().keys == {}


@pytest.mark.parametrize(
    "data, words",
    [
        ({"eps": "two"}, "noise.eps"),
        ({"p": 0.7}, "noise.p"),
        ({"model": True}, "noise.model"),
        ({"prone": "some"}, "noise.prone"),
        ({"colour": 1}, "unknown noise key"),
        ("on", "a [noise] table"),
    ],
)
def test_noise_settings_are_validated_in_one_place(data, words):
    """The same rules for the settings file, the incident store and the command line: the
    error names the field."""
    with pytest.raises(ConfigError) as err:
        NoiseSettings.from_dict(data)
    assert words in str(err.value) and err.value.field.startswith("noise")
    with pytest.raises(SettingsError) as err:
        Settings.from_dict({"noise": data}, "somewhere")
    assert words in str(err.value) and str(err.value).startswith("somewhere: ")
    round_trip = NoiseSettings(True, 3, ("cough",), 2, 0.1)
    assert NoiseSettings.from_dict(round_trip.to_dict()) == round_trip


@pytest.mark.parametrize("delta, expected", [(1, 1), (2, 1), (3, 1), (4, 1), (5, 2), (7, 3)])
def test_one_auto_eps(delta, expected):
    """ "auto" is floor((delta - 1) / 2) but at least 1, in the app and on the command line."""
    assert auto_eps(delta) == expected == max(1, default_eps(delta))


def test_the_app_and_the_cli_resolve_auto_alike():
    import argparse

    from responder.cli.inputs import noise_from_args
    from responder.kb.resolve import load_knowledge

    kb = load_knowledge(None)
    it = Interview(kb, InterviewConfig("chemical", "symptom", "noise", NoiseSettings(enabled=True)))
    args = argparse.Namespace(noise_eps="auto", noise_prone="all", noise_model=1, noise_p=0.25)
    noise, _ = noise_from_args(args, kb.problem)
    assert it.state.noise.eps == noise.eps == auto_eps(it.delta) >= 1


@pytest.mark.parametrize("in_the_way", ["config", "settings.toml"])
def test_a_settings_path_that_is_not_a_file_in_a_folder_says_what_to_do(home, in_the_way):
    """ctrl+s said 'Settings not saved: [Errno 17] File exists: .../config' for a file where
    the config folder should be, and '[Errno 21] Is a directory' for a folder named
    settings.toml: an errno, and nothing of what to do."""
    home.mkdir(parents=True)
    if in_the_way == "config":
        (home / "config").write_text("a file where the config folder should be")
        words = f"{home / 'config'} is a file where a folder should be; move it away"
    else:
        settings_path().mkdir(parents=True)
        words = f"{settings_path()} is a folder where the settings file should be; move it away"
    with pytest.raises(OSError) as caught:
        save_settings(Settings())
    said = str(caught.value)
    assert words in said and "Errno" not in said
