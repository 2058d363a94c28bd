"""An option no command takes is reported by the command it was given to, pointing at that
command's own --help: one line on stderr, exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from responder.cli import main


@pytest.mark.parametrize(
    ("argv", "help_of"),
    [
        (["interview", "--jsonl", "--bogus"], "responder interview"),
        (["kb", "validate", "--bogus"], "responder kb validate"),
        (["incidents", "list", "--zz"], "responder incidents list"),
        (["simulate", "--zz", "3"], "responder simulate"),
        (["--bogus"], "responder"),
    ],
)
def test_an_unknown_option_points_at_its_own_commands_help(capsys, argv, help_of):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("responder: error: unrecognized arguments: ")
    assert err[0].endswith(f"(see `{help_of} --help`)")


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--interviews", "5", "--seed", "-1"],
        ["eval", "--policy", "random", "--trials", "10", "--seed", "-1"],
        ["experiments", "diagnostic", "--quick", "--seed", "-3"],
    ],
    ids=["simulate", "eval", "experiments"],
)
def test_a_negative_seed_is_one_line_not_a_traceback(capsys, tmp_path, monkeypatch, argv):
    """numpy takes seeds of 0 or more: --seed -1 ended in numpy's ValueError traceback."""
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "--seed" in err[0] and "0 or more" in err[0]


def _commands(parser, prefix=()):
    """(argv, parser) of every command and subcommand."""
    import argparse

    yield list(prefix), parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*prefix, name))


def test_no_help_shows_a_doubled_percent_sign(capsys):
    """argparse formats an option's help with %, not a command's description: simulate's
    --help read "accuracy with 95%% intervals"."""
    from responder.cli import build_parser

    for argv, parser in _commands(build_parser()):
        text = parser.format_help()
        assert "%%" not in text, (argv, text[text.index("%%") - 60 : text.index("%%") + 10])


@pytest.mark.parametrize(
    ("closed", "argv", "message"),
    [
        (0, ["interview", "--jsonl"], "standard input is closed"),
        (1, ["interview", "--jsonl"], "standard output is closed"),
        (1, ["eval", "--json"], "standard output is closed"),
        (1, ["incidents", "list", "--json"], "standard output is closed"),
    ],
    ids=["interview <&-", "interview >&-", "eval >&-", "incidents list >&-"],
)
def test_a_closed_standard_stream_is_one_line_not_a_traceback(tmp_path, closed, argv, message):
    """Started with stdin or stdout closed (`<&-`, `>&-`), these ended in an AttributeError
    traceback ('NoneType' object has no attribute 'readline' / 'write'), exit 1."""
    done = subprocess.run(
        [sys.executable, "-m", "responder.cli", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL if closed == 1 else subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        env={**os.environ, "RESPONDER_HOME": str(tmp_path / "home")},
        preexec_fn=lambda: os.close(closed),
    )
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 2 and line.startswith("responder: error: ") and message in line
