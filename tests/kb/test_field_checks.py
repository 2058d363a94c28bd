"""Field values the knowledge-base loader and the CSV importer refuse with one message each:
numbers out of range however long they are, and names or texts holding characters a
terminal would act on, or too long to show. Both readers use the validators of
:mod:`responder.kb.fields`, so the limits are the same in both."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from responder.cli import main
from responder.kb import KBError, load_kb
from responder.kb.csv_import import load_csv
from responder.kb.fields import MAX_NAME_CHARS, MAX_TEXT_CHARS

FIXTURE_KB = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kb"
HUGE = "9" * 400


def fixture_copy(tmp_path: Path, edit=None) -> Path:
    """The app's fixture knowledge base, with ``edit(relative path, text) -> text`` applied."""
    root = tmp_path / "kb"
    shutil.copytree(FIXTURE_KB, root)
    if edit is not None:
        for path in root.rglob("*.toml"):
            rel = path.relative_to(root).as_posix()
            path.write_text(edit(rel, path.read_text(encoding="utf-8")), encoding="utf-8")
    return root


def with_prior(value: str):
    def edit(rel: str, text: str) -> str:
        if rel == "chemicals/vesicants.toml":
            return text.replace('name = "Lewisite"', f'name = "Lewisite"\nprior = {value}')
        return text

    return edit


def run(argv, capsys):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- numbers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["kb", "check", "{kb}"],
        ["kb", "info", "{kb}"],
        ["eval", "--kb", "{kb}"],
        ["--kb", "{kb}", "eval"],
        ["simulate", "--kb", "{kb}", "--interviews", "2"],
    ],
    ids=["kb check", "kb info", "eval --kb", "--kb eval", "simulate"],
)
def test_a_400_digit_prior_is_one_message_and_exit_2(tmp_path, capsys, argv):
    root = fixture_copy(tmp_path, with_prior(HUGE))
    code, out, err = run([a.format(kb=root) for a in argv], capsys)
    assert code == 2 and out == ""
    assert "Traceback" not in err and "OverflowError" not in err
    assert '"Lewisite": prior is a 400-digit integer, outside 1e-06 .. 1e+06' in err
    assert len(err.strip().splitlines()) == 1


def test_the_app_starts_on_the_bundled_kb_when_settings_name_a_kb_with_a_400_digit_prior(
    tmp_path, monkeypatch
):
    from responder.app.main import prepare
    from responder.settings import Settings, save_settings

    monkeypatch.setenv("RESPONDER_HOME", str(tmp_path / "home"))
    root = fixture_copy(tmp_path, with_prior(HUGE))
    save_settings(Settings(kb=str(root)))
    app = prepare(None, journal=False)
    assert app.knowledge.name == "bundled"
    assert any("400-digit" in text for text, _ in app.notices)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (HUGE, "has leak a 400-digit integer, which is not a probability below 1"),
        ("1e400", "has leak inf, which is not a probability below 1"),
        ("true", "`leak` must be a number"),
        ('"0.1"', "`leak` must be a number"),
    ],
)
def test_a_leak_that_is_no_probability_is_one_error(tmp_path, value, message):
    def edit(rel: str, text: str) -> str:
        if rel == "symptoms.toml":
            return text.replace('id = "cough"', f'id = "cough"\nleak = {value}', 1)
        return text

    with pytest.raises(KBError) as info:
        load_kb(fixture_copy(tmp_path, edit), strict=False)
    (issue,) = info.value.issues
    assert message in issue.problem and issue.line is not None


# -- names and texts ----------------------------------------------------------------------------

CONTROL = {
    "escape sequence": "\x1b[2J",
    "bell": "\x07",
    "C1 control": "\x9b",
    "right-to-left override": "\u202e",
    "line separator": "\u2028",
    "tab": "\t",
}


def toml_escaped(text: str) -> str:
    return "".join(
        f"\\u{ord(c):04x}" if ord(c) < 32 or c in "\u202e\u2028\x9b" else c for c in text
    )


@pytest.mark.parametrize("char", list(CONTROL.values()), ids=list(CONTROL))
@pytest.mark.parametrize(
    ("rel", "old", "what"),
    [
        ("chemicals/vesicants.toml", 'name = "Lewisite"', "`name`"),
        ("symptoms.toml", 'label = "Cough"', "`label`"),
        ("classes.toml", 'label = "Blister agents"', "`label`"),
    ],
    ids=["chemical name", "symptom label", "class label"],
)
def test_kb_check_refuses_control_characters_in_names(tmp_path, capsys, char, rel, old, what):
    def edit(path: str, text: str) -> str:
        if path != rel:
            return text
        assert old in text
        return text.replace(old, old[:-2] + toml_escaped(char) + old[-2:], 1)

    root = fixture_copy(tmp_path, edit)
    code, out, err = run(["kb", "check", root], capsys)
    assert code == 2 and out == ""
    assert f"{root / rel}:" in err and f"{what} " in err and "control character" in err
    assert char not in err  # quoted escaped, never sent to the terminal


def test_a_newline_is_allowed_in_notes_but_not_in_a_name(tmp_path):
    def notes(rel: str, text: str) -> str:
        if rel == "chemicals/vesicants.toml":
            return text.replace('name = "Lewisite"', 'name = "Lewisite"\nnotes = "a\\nb"')
        return text

    kb = load_kb(fixture_copy(tmp_path / "notes", notes), strict=False)
    assert any(c.notes == "a\nb" for c in kb.chemicals)

    def name(rel: str, text: str) -> str:
        if rel == "chemicals/vesicants.toml":
            return text.replace('name = "Lewisite"', 'name = "Lewi\\nsite"')
        return text

    with pytest.raises(KBError, match=re.escape('`name` "Lewi\\nsite" holds the control')):
        load_kb(fixture_copy(tmp_path / "name", name), strict=False)


@pytest.mark.parametrize(
    ("key", "limit"), [("name", MAX_NAME_CHARS), ("notes", MAX_TEXT_CHARS)], ids=["name", "notes"]
)
def test_length_limits_of_the_loader(tmp_path, key, limit):
    def edit(size: int):
        def change(rel: str, text: str) -> str:
            if rel == "chemicals/vesicants.toml":
                value = "L" * size
                if key == "name":
                    return text.replace('name = "Lewisite"', f'name = "{value}"')
                return text.replace('name = "Lewisite"', f'name = "Lewisite"\nnotes = "{value}"')
            return text

        return change

    load_kb(fixture_copy(tmp_path / "at", edit(limit)), strict=False)
    with pytest.raises(KBError) as info:
        load_kb(fixture_copy(tmp_path / "past", edit(limit + 1)), strict=False)
    (issue,) = info.value.issues
    assert f"is {limit + 1:,} characters long (at most {limit:,})" in issue.problem
    assert len(str(issue)) < 400  # the value is quoted shortened


def write_csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "kb.csv"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("char", list(CONTROL.values()), ids=list(CONTROL))
@pytest.mark.parametrize(
    ("template", "line", "what"),
    [
        ("name,class,Cough\nChl{c}orine,Irritants,1\n", 2, "chemical name"),
        ("name,class,Cough\nChlorine,Irri{c}tants,1\n", 2, "class"),
        ("name,class,Co{c}ugh\nChlorine,Irritants,1\n", 1, "the header of column 3"),
        ("name,class,Cough\ncategory,,Brea{c}thing\nChlorine,Irritants,1\n", 2, "category"),
        ("name,class,source,Cough\nChlorine,Irritants,N{c}PG,1\n", 2, "source"),
    ],
    ids=["name", "class", "symptom header", "category", "source"],
)
def test_csv_import_refuses_control_characters_on_their_line(
    tmp_path, capsys, char, template, line, what
):
    if char == "\t" and what == "source":
        pytest.skip("a source is free text: a tab is printable there")
    path = write_csv(tmp_path, template.format(c=char))
    with pytest.raises(KBError) as info:
        load_csv(path)
    (issue,) = info.value.issues
    assert issue.line == line and what in issue.problem and "control character" in issue.problem
    code, _, err = run(["kb", "check", path], capsys)
    assert code == 2 and char not in err


def test_csv_import_refuses_a_100000_character_name(tmp_path, capsys):
    path = write_csv(tmp_path, f"name,class,Cough\n{'N' * 100_000},Irritants,1\nB,Irritants,1\n")
    code, out, err = run(["kb", "check", path], capsys)
    assert code == 2 and out == ""
    assert f"{path}:2: chemical name is 100,000 characters long (at most {MAX_NAME_CHARS})" in err
    assert len(err) < 500


def test_csv_and_loader_share_the_name_limit(tmp_path):
    at, past = "N" * MAX_NAME_CHARS, "N" * (MAX_NAME_CHARS + 1)
    kb = load_csv(write_csv(tmp_path, f"name,class,Cough\n{at},Irritants,1\n"))
    assert kb.chemicals[0].name == at
    with pytest.raises(KBError, match="at most 120"):
        load_csv(write_csv(tmp_path, f"name,class,Cough\n{past},Irritants,1\n"))


@pytest.mark.parametrize("edge", ["\r", "\x1c", "\u2028", "\x85"])
def test_a_control_character_at_the_end_of_a_label_is_refused_too(tmp_path, edge):
    # stripping would hide it from the check while the loader keeps the text as written
    def edit(rel: str, text: str) -> str:
        if rel == "symptoms.toml":
            return text.replace('label = "Cough"', f'label = "Cough{toml_escaped(edge)}"', 1)
        return text

    with pytest.raises(KBError, match="holds the control character"):
        load_kb(fixture_copy(tmp_path, edit), strict=False)


@given(st.text(alphabet=st.characters(codec=None), max_size=40), st.booleans())
def test_first_unprintable_is_the_first_character_of_an_unprintable_kind(text, newlines):
    """The whole-string shortcut gives what the character-by-character definition gives."""
    import unicodedata

    from responder.kb.fields import _BIDI_CONTROLS, _UNPRINTABLE_CATEGORIES, first_unprintable

    expected = next(
        (
            k
            for k, ch in enumerate(text)
            if not (ch == "\n" and newlines)
            and (unicodedata.category(ch) in _UNPRINTABLE_CATEGORIES or ch in _BIDI_CONTROLS)
        ),
        None,
    )
    assert first_unprintable(text, newlines) == expected
