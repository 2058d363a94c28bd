"""A documented default never draws a warning against itself: ``simulate`` with no options and
the README's ``eval --noise-eps auto`` example (automatic eps is at least 1 by definition)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from responder.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_command(prefix: str) -> list[str]:
    """The README's example command starting with ``prefix``, as argv (comment dropped)."""
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith(prefix):
            return line.split("#")[0].split()[1:]
    raise AssertionError(f"the README has no example starting {prefix!r}")


@pytest.mark.parametrize(
    "argv",
    [["simulate"], readme_command("responder eval --policy gbs --noise-eps auto")],
    ids=["simulate", "eval --noise-eps auto"],
)
def test_no_warning_from_a_documented_default(capsys, argv):
    assert main(argv) == 0
    out = capsys.readouterr()
    assert not re.search(r"(?im)^warning", out.err), out.err
    assert "E[K]" in out.out


def test_a_typed_eps_above_the_bound_still_warns(capsys, tmp_path):
    # four objects a Hamming distance of 1 apart: floor((delta - 1) / 2) = 0
    problem = tmp_path / "square.json"
    problem.write_text('{"matrix": [[0, 0], [0, 1], [1, 0], [1, 1]]}', encoding="utf-8")
    assert main(["eval", "--kb", str(problem), "--policy", "gbs", "--noise-eps", "2"]) == 0
    assert "warning: eps = 2 exceeds floor((delta-1)/2) = 0" in capsys.readouterr().err
    assert main(["eval", "--kb", str(problem), "--policy", "gbs", "--noise-eps", "auto"]) == 0
    assert "warning" not in capsys.readouterr().err
