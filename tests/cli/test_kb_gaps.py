"""``responder kb gaps [PATH] [--category ID | --chemical NAME] [--limit N] [--json]`` through
the program's real entry point."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from responder import paths
from responder.cli import main
from responder.kb.gaps import find_gaps
from responder.kb.loader import load_bundled

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kb"))
from test_scene_and_grades import write_kb  # noqa: E402


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))


@pytest.fixture
def kb_path(tmp_path) -> str:
    return str(write_kb(tmp_path / "kb"))


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_text_counts_each_scene_category_and_ranks_the_chemicals(kb_path, capsys):
    code, out, err = run(["kb", "gaps", kb_path], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert "  3 chemicals, 0 checked against their sources" in lines
    assert (
        "  4 cells no agency document supports (0 of them only a supplementary one does)" in lines
    )
    assert any(line.split()[:4] == ["odour", "1", "of", "3"] for line in lines)
    assert any(line.split()[:4] == ["setting", "2", "of", "3"] for line in lines)
    ranked = lines[lines.index("Most gaps first (3 of 3 chemicals with a gap):") + 2 :][:3]
    assert [r.split()[0] for r in ranked] == ["Ammonia", "Sarin", "Chlorine"]
    assert ranked[0].split()[1:] == ["1", "odour,", "setting"]
    assert all(len(line) <= 80 for line in lines)


def test_limit_shortens_the_ranking(kb_path, capsys):
    code, out, _ = run(["kb", "gaps", kb_path, "--limit", "1"], capsys)
    assert code == 0
    assert "Most gaps first (1 of 3 chemicals with a gap):" in out
    assert "Sarin" not in out


def test_one_category_lists_its_chemicals(kb_path, capsys):
    code, out, _ = run(["kb", "gaps", kb_path, "--category", "setting"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "2 of 3 chemicals have no setting cell (Setting):"
    assert [line.split()[0] for line in lines[1:]] == ["ammonia", "sarin"]


def test_limit_shortens_one_categorys_list_and_says_how_many_more(kb_path, capsys):
    """`kb gaps --category onset --limit 2` listed every chemical, ignoring --limit."""
    code, out, _ = run(["kb", "gaps", kb_path, "--category", "setting", "--limit", "1"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "2 of 3 chemicals have no setting cell (Setting):"
    assert lines[1].split()[0] == "ammonia" and "sarin" not in out
    assert lines[2] == "  ... and 1 more (--limit N shows N)" and len(lines) == 3


@pytest.mark.parametrize("option", [["--chemical", "sarin"], ["--json"]])
def test_limit_where_nothing_is_shortened_is_one_error(kb_path, capsys, option):
    code, _, err = run(["kb", "gaps", kb_path, *option, "--limit", "2"], capsys)
    assert code == 2 and err.startswith("responder: error: --limit shortens a list")
    assert err.count("\n") == 1


def test_one_chemical_in_full_and_as_json(kb_path, capsys):
    code, out, _ = run(["kb", "gaps", kb_path, "--chemical", "sarin"], capsys)
    assert code == 0
    assert "  no cell in: setting" in out
    assert "  no document supports: wheezing, dilated_pupils" in out
    code, out, _ = run(["kb", "gaps", kb_path, "--chemical", "sarin", "--json"], capsys)
    assert code == 0
    assert json.loads(out) == {
        "id": "sarin",
        "name": "Sarin",
        "class": "nerve",
        "source_checked": False,
        "unrecorded": ["setting"],
        "no_document": ["wheezing", "dilated_pupils"],
        "supplementary_only": [],
    }


def test_json_holds_every_gap(kb_path, capsys):
    code, out, _ = run(["kb", "gaps", kb_path, "--json"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["graded"] and report["unverified_cells"] == 4
    assert {c["category"]: c["missing"] for c in report["categories"]} == {
        "odour": ["ammonia"],
        "setting": ["ammonia", "sarin"],
    }
    assert [c["id"] for c in report["chemical_gaps"]] == ["chlorine", "ammonia", "sarin"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--category", "smell"], "no scene category 'smell'; valid choices are: odour, setting"),
        (["--chemical", "zzz"], 'no chemical is called "zzz"'),
        (["--limit", "0"], "--limit is 0; give a whole number of at least 1"),
        (["--category", "odour", "--chemical", "sarin"], "give --category or --chemical, not both"),
    ],
)
def test_bad_input_gets_one_message_and_exit_2(kb_path, capsys, argv, message):
    code, out, err = run(["kb", "gaps", kb_path, *argv], capsys)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_csv_import_has_no_grades_and_no_scene(tmp_path, capsys):
    csv = tmp_path / "t.csv"
    csv.write_text("name,class,cough,wheezing\nFoo,gases,1,0\nBar,gases,1,1\n", encoding="utf-8")
    code, out, err = run(["kb", "gaps", str(csv)], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert "  2 chemicals; no documents recorded, so every cell counts alike" in lines
    assert "  none: this knowledge base has no scene observations" in lines
    assert "Most gaps first (0 of 0 chemicals with a gap):" in lines
    assert all(len(line) <= 80 for line in lines)


def test_one_chemicals_long_lists_wrap_within_80_columns(capsys):
    longest = max(find_gaps(load_bundled()).chemicals, key=lambda c: len(c.supplementary_only))
    assert len(", ".join(longest.supplementary_only)) > 80
    code, out, _ = run(["kb", "gaps", "--chemical", longest.id], capsys)
    assert code == 0
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert any(line.startswith("    ") for line in lines)  # a wrapped list goes on indented


@pytest.mark.parametrize(
    "flag, fix",
    [("--category", "a scene category id"), ("--chemical", "a chemical's id, name or CAS")],
)
@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_category_or_chemical_is_one_error_not_ignored(kb_path, capsys, flag, fix, value):
    """kb gaps --category '' printed the whole report, as if the flag were not there."""
    assert main(["kb", "gaps", kb_path, flag, value]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines() == [
        f"responder: error: {flag} is empty; give {fix}"
        + (" (e.g. onset)" if flag == "--category" else " number")
        + ", or leave it out for every gap"
    ]


@pytest.mark.parametrize("given", ["Setting", " setting ", "SETTING"])
def test_a_category_is_found_as_a_chemical_is_whatever_its_case_or_blanks(kb_path, capsys, given):
    """--chemical CHLORINE was found, but --category Setting (or ' setting') was 'no scene
    category'; a category id is now compared as names are (fold_name)."""
    code, out, _ = run(["kb", "gaps", kb_path, "--category", given], capsys)
    assert code == 0
    assert out.splitlines()[0] == "2 of 3 chemicals have no setting cell (Setting):"
