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


def _option_help(argv: list[str], option: str, capsys) -> str:
    assert main([*argv, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    start = text.rindex(f" {option} ")  # the option's entry, after the usage line
    return text[start : start + 400]


@pytest.mark.parametrize("argv", [["interview"], ["simulate"], ["kb", "validate"]])
def test_the_evidence_options_help_gives_the_bundled_knowledge_bases_own_values(capsys, argv):
    """A value the --help said was the default (--leak 0.1, --textbook-share 0.0 ...) was not
    the one used: the bundled knowledge base's grades.toml sets leak 0.05, frequency_leak 0.6,
    class_borrow 0.4 and textbook_share 0.5, and those apply when the option is left out."""
    import tomllib

    from responder.kb.loader import bundled_root

    grades = tomllib.loads((Path(bundled_root()) / "grades.toml").read_text(encoding="utf-8"))
    assert grades
    for key, value in grades.items():
        option = "--" + key.replace("_", "-")
        assert f"bundled: {value:g}" in _option_help(argv, option, capsys), option
