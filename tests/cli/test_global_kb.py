"""``responder --kb DIR COMMAND``: the knowledge base given before the command is the one
every command uses (``eval`` and ``simulate`` used to evaluate the bundled one instead)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from responder.cli import main
from responder.kb.resolve import resolve_kb

FIXTURE_KB = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kb"
COMMANDS = {
    "eval": ["eval", "--json"],
    "simulate": ["simulate", "--interviews", "3", "--extra-errors", "0", "--seed", "0", "--json"],
    "simulate --answers": [
        "simulate",
        "--answers",
        "flip:0.1",
        "--interviews",
        "3",
        "--seed",
        "0",
        "--json",
    ],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_kb_before_the_command_is_evaluated(capsys, command):
    code = main(["--kb", str(FIXTURE_KB), *COMMANDS[command]])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    fixture = resolve_kb(str(FIXTURE_KB))
    out = json.loads(captured.out)
    assert (out["objects"], out["queries"]) == (len(fixture.chemicals), len(fixture.symptoms))


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_broken_kb_before_the_command_is_refused(tmp_path, capsys, command):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "symptoms.toml").write_text("[[symptom]\n")
    code = main(["--kb", str(broken), *COMMANDS[command]])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert str(broken / "symptoms.toml") in captured.err and "Traceback" not in captured.err


def test_the_kb_after_the_command_wins(tmp_path, capsys):
    code = main(["--kb", str(tmp_path / "nowhere"), "eval", "--kb", str(FIXTURE_KB), "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["objects"] == len(
        resolve_kb(str(FIXTURE_KB)).chemicals
    )


@pytest.mark.parametrize(
    "argv",
    [["eval", "--kb", ""], ["--kb", " ", "eval"], ["kb", "info", "--kb", ""], ["kb", "check", ""]],
)
def test_an_empty_kb_is_refused_not_read_as_the_current_folder(tmp_path, monkeypatch, capsys, argv):
    """`--kb "$KB"` with KB unset read the current folder as a knowledge base: three lines
    on symptoms.toml, classes.toml and chemicals/ missing, or, run from a knowledge-base
    folder, that folder silently."""
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "the knowledge base is given as an empty name" in err and "bundled" in err
