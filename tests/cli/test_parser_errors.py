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
