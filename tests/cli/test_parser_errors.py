"""An option no command takes is reported by the command it was given to, pointing at that
command's own --help: one line on stderr, exit status 2."""

from __future__ import annotations

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
