"""``responder kb steps NAME [--json]`` through the program's real entry point."""

from __future__ import annotations

import json

import pytest

from responder import paths
from responder.cli import main


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_text_lists_each_kind_with_numbered_sources(capsys):
    code, out, err = run(["kb", "steps", "chlorine"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "Chlorine (chlorine), Irritant and choking gases"
    assert "Poison centre: 1-800-222-1222" in out
    for label in ("Decontamination", "Protective equipment"):  # chlorine's one first aid
        assert label in lines  # step is among the first ones, not listed again
    assert any(line.startswith("  > First aid: ") for line in lines)
    assert any("SCBA" in line and line.rstrip().endswith("]") for line in lines)
    sources = lines[lines.index("Sources") + 1 :]
    assert sources and all(s.startswith("  [") and "<http" in s for s in sources)
    # steps ("  > " first, "  - " the rest) and warnings ("  ! ") cite every source listed
    cited = {line.rsplit(" ", 1)[1] for line in lines if line.startswith(("  > ", "  - ", "  ! "))}
    assert cited == {f"[{k}]" for k in range(1, len(sources) + 1)}


def test_text_leads_with_the_steps_to_act_on_first_as_the_result_screen_does(capsys):
    """QA round 13: `kb steps` said it prints the steps 'as the result screen shows them',
    but went kind by kind with protective equipment last, while the result screen leads
    with protect yourself, first aid, antidote and decontaminate, one step each."""
    code, out, _ = run(["kb", "steps", "sarin"], capsys)
    assert code == 0
    lines = out.splitlines()
    first = lines[lines.index("First, one step of each kind") + 1 :][:4]
    assert [line.split(":")[0] for line in first] == [
        "  > Protect yourself",
        "  > First aid",
        "  > Antidote",
        "  > Decontaminate",
    ]
    assert lines.index("First, one step of each kind") < lines.index("Protective equipment")
    steps = [line for line in lines if line.startswith(("  > ", "  - "))]
    assert len(steps) == len(set(steps))  # each step once


@pytest.mark.parametrize("name", ["sarin_gb", "Sarin (GB)", "sarin", "GB", "SARIN  gb", "107-44-8"])
def test_a_chemical_is_found_by_id_name_cas_or_bracketed_name(name, capsys):
    code, out, _ = run(["kb", "steps", name], capsys)
    assert code == 0
    assert out.splitlines()[0] == "Sarin (GB) (sarin_gb), Nerve agents"


def test_json_is_one_object_with_the_chemical_steps_and_sources(capsys):
    code, out, _ = run(["kb", "steps", "carbon monoxide", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["chemical"]["id"] == "carbon_monoxide"
    assert data["chemical"]["class"] == "hemoglobin_toxicants"
    assert data["poison_centre"]["line"] == "1-800-222-1222"
    assert data["specific"] is True
    treatment = data["steps"]["treatment"]
    assert any("100% oxygen" in s["text"] for s in treatment)
    sources = {s["id"]: s for s in data["sources"]}
    for steps in data["steps"].values():
        for step in steps:
            assert step["source"] in sources
            assert sources[step["source"]]["url"].startswith("http")
            assert sources[step["source"]]["title"]


def test_unknown_name_is_one_error_line_and_exit_2(capsys):
    code, out, err = run(["kb", "steps", "sarn"], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith('responder: error: no chemical is called "sarn"')
    assert "Sarin (GB)" in err


def test_a_name_like_none_points_at_a_listing_that_has_the_chemicals(capsys):
    """It pointed at `kb info`, whose text lists classes and shared profiles, no chemical."""
    code, out, err = run(["kb", "steps", "zzqx"], capsys)
    assert code == 2
    assert err.strip().endswith("(`responder kb info --json` lists them)")
    code, listing, _ = run(["kb", "info", "--json"], capsys)
    names = {c["name"] for c in json.loads(listing)["chemical_list"]}
    assert code == 0 and {"Sarin (GB)", "Chlorine"} <= names


def test_name_is_required(capsys):
    code, out, err = run(["kb", "steps"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("responder: error: ") and err.count("\n") == 1


FOLDER_KB = {
    "symptoms.toml": '[[category]]\nid = "x"\nlabel = "X"\n\n'
    '[[symptom]]\nid = "a"\nlabel = "A"\ncategory = "x"\n\n'
    '[[symptom]]\nid = "b"\nlabel = "B"\ncategory = "x"\n',
    "classes.toml": '[[class]]\nid = "g"\nlabel = "Group"\n',
    "chemicals/g.toml": 'class = "g"\n\n'
    '[[chemical]]\nname = "Alpha (Z)"\ncas = "7782-50-5"\nsymptoms = ["a"]\nsources = ["s"]\n\n'
    '[[chemical]]\nname = "Beta (Z)"\ncas = "74-90-8"\nsymptoms = ["b"]\nsources = ["s"]\n',
}


@pytest.fixture
def folder_kb(tmp_path):
    for rel, text in FOLDER_KB.items():
        (tmp_path / "kb" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "kb" / rel).write_text(text, encoding="utf-8")
    return tmp_path / "kb"


def test_a_name_shared_by_two_chemicals_is_refused_naming_both(folder_kb, capsys):
    code, _, err = run(["kb", "steps", "Z", "--kb", str(folder_kb)], capsys)
    assert code == 2
    assert 'names several chemicals: "Alpha (Z)" or "Beta (Z)"' in err


def test_a_folder_without_next_steps_says_so(folder_kb, capsys):
    code, out, _ = run(["kb", "steps", "alpha", "--kb", str(folder_kb)], capsys)
    assert code == 0
    assert out.splitlines() == [
        "Alpha (Z) (alpha_z), Group",
        "No next steps are recorded in this knowledge base.",
    ]


def test_a_folder_with_a_broken_next_steps_file_is_an_error(folder_kb, capsys):
    (folder_kb / "next_steps.toml").write_text('[[step]]\nfor = "nope"\n', encoding="utf-8")
    code, out, err = run(["kb", "steps", "alpha", "--kb", str(folder_kb)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("responder: error: next steps not shown:")


@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_name_says_it_is_empty(name, capsys):
    """kb steps '' said 'no chemical is called ""', as if an empty name were a name."""
    code, out, err = run(["kb", "steps", name], capsys)
    assert code == 2 and out == ""
    assert err.strip() == (
        "responder: error: NAME is empty; give a chemical id, name or CAS number "
        "(`responder kb info --json` lists them)"
    )


@pytest.mark.parametrize(
    "argv, first",
    [
        (["kb", "steps", "hydrogen sulphide"], "Hydrogen sulfide (hydrogen_sulfide)"),
        (["kb", "steps", "Sulphur dioxide"], "Sulfur dioxide (sulfur_dioxide)"),
        (["kb", "steps", "SULPHURYL FLUORIDE"], "Sulfuryl fluoride (sulfuryl_fluoride)"),
        (["kb", "gaps", "--chemical", "hydrogen sulphide"], "Hydrogen sulfide"),
    ],
)
def test_a_chemical_named_in_british_spelling_is_found(argv, first, capsys):
    """`kb steps 'hydrogen sulphide'` said no chemical is called so: every place a chemical
    is named folds British spellings (sulphide, sulphur, aluminium, caesium...) to the
    American ones the knowledge base uses (identifiers.american_spelling)."""
    code, out, err = run(argv, capsys)
    assert code == 0 and err == "", err
    assert out.splitlines()[0].startswith(first) or first in out.splitlines()[0], out[:200]
