"""``responder kb validate`` on the command line: which cases it runs, and its errors."""

from __future__ import annotations

import pytest

from responder import paths
from responder.cli import main


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))


def test_the_bundled_cases_on_another_knowledge_base_are_one_error_not_one_per_case_line(
    tmp_path, capsys
):
    """The bundled cases name the bundled ids: on an imported CSV knowledge base they gave
    683 'unknown class / unknown symptom' lines."""
    csv = tmp_path / "two.csv"
    csv.write_text("name,class,cough,pinpoint_pupils\nA,x,1,0\nB,y,0,1\n", encoding="utf-8")
    assert main(["kb", "import", str(csv)]) == 0
    capsys.readouterr()
    assert main(["kb", "validate", "--kb", "two"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("responder: error: the bundled cases are written for the bundled")
    assert "knowledge base 'two' lacks" in line
    assert "give a folder of cases written for it: responder kb validate CASES --kb two" in line


def test_cases_given_for_another_knowledge_base_still_list_each_problem(tmp_path, capsys):
    csv = tmp_path / "two.csv"
    csv.write_text("name,class,cough,pinpoint_pupils\nA,x,1,0\nB,y,0,1\n", encoding="utf-8")
    case = tmp_path / "cases" / "one.toml"
    case.parent.mkdir()
    case.write_text('agent = "A"\nclass = "nope"\n', encoding="utf-8")
    assert main(["kb", "validate", str(case.parent), "--kb", str(csv)]) == 2
    err = capsys.readouterr().err
    assert "one.toml" in err and "bundled cases" not in err


def test_empty_cases_is_one_error_not_the_current_folder(tmp_path, capsys, monkeypatch):
    """kb validate '' read the current folder and said the bundled cases folder 'holds no
    case files'."""
    monkeypatch.chdir(tmp_path)
    assert main(["kb", "validate", ""]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines() == [
        "responder: error: CASES is empty; give a folder of case .toml files or one file, or "
        "leave it out for the bundled cases"
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mode", "evidence", "--eps", "0"], "--eps applies only to the persistent-noise mode"),
        (
            ["--mode", "strict-gbs", "--sensitivity", "0.9"],
            "--sensitivity applies only to the evidence modes",
        ),
        (["--pick", "any"], "--pick applies only to category suggestions"),
    ],
)
def test_options_no_chosen_mode_reads_are_refused_before_any_case_runs(
    capsys, monkeypatch, argv, message
):
    """They were dropped without a word: 'kb validate --mode strict-gbs --sensitivity 0.9'
    printed the strict figures as if the sensitivity had been tried."""
    from responder.core import validation  # noqa: PLC0415

    def no_run(*_, **__):
        raise AssertionError("the cases ran although an option applies to no mode")

    monkeypatch.setattr(validation, "validate", no_run)
    code = main(["kb", "validate", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_every_key_of_kb_validate_json_is_documented(tmp_path, capsys):
    """kb validate --json's keys were documented nowhere but as 'every question asked'."""
    import json  # noqa: PLC0415
    import re  # noqa: PLC0415
    import shutil  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    from responder.kb.loader import bundled_root  # noqa: PLC0415

    doc = (Path(__file__).resolve().parents[2] / "docs" / "knowledge-base.md").read_text()
    paragraph = doc[doc.index("`kb validate --json` prints one object") :].split("\n\n", 1)[0]
    documented = set(re.findall(r"`([a-z_0-9]+)`", paragraph))
    cases = tmp_path / "cases"
    cases.mkdir()
    first = sorted(bundled_root().joinpath("cases").iterdir())[0]
    shutil.copy(first, cases / first.name)
    assert main(["kb", "validate", str(cases), "--mode", "strict-gbs", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    case = out["cases"][0]
    (mode,) = [v for k, v in case["modes"].items() if k.endswith("(signs)")]
    nested = [out["settings"], out["modes"][0], case, case["signs"][0], mode, mode["asked"][0]]
    for keys in (out, *nested):
        assert set(keys) <= documented, set(keys) - documented


def test_a_broken_knowledge_base_is_listed_not_a_traceback(tmp_path, capsys):
    """kb validate --kb on a folder with a typo'd id stopped with UnboundLocalError ('kb'
    read in the handler of the error that loading it raised) instead of the file:line list
    kb check prints."""
    import shutil  # noqa: PLC0415

    from responder.kb.loader import bundled_root  # noqa: PLC0415

    root = tmp_path / "kb"
    shutil.copytree(bundled_root(), root, ignore=shutil.ignore_patterns("cases"))
    chem = root / "chemicals" / "irritant_gases.toml"
    text = chem.read_text(encoding="utf-8")
    text = text.replace('"frostbite", "hoarseness"', '"frostbit", "hoarseness"', 1)
    chem.write_text(text, encoding="utf-8")
    n = next(i for i, row in enumerate(text.splitlines(), 1) if '"frostbit"' in row)
    assert main(["kb", "validate", "--kb", str(root)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.strip().splitlines()
    assert f'irritant_gases.toml:{n}: "Chlorine": unknown symptom id "frostbit"' in line
    assert 'did you mean "frostbite"?' in line


def _small_kb(root):
    """A two-chemical knowledge base folder (no case of the bundled set is read)."""
    (root / "chemicals").mkdir(parents=True)
    (root / "symptoms.toml").write_text(
        '[[category]]\nid = "x"\nlabel = "Category X"\n\n'
        '[[symptom]]\nid = "a"\nlabel = "Symptom A"\ncategory = "x"\n\n'
        '[[symptom]]\nid = "b"\nlabel = "Symptom B"\ncategory = "x"\n',
        encoding="utf-8",
    )
    (root / "classes.toml").write_text('[[class]]\nid = "g1"\nlabel = "Group one"\n')
    chems = ""
    for name, signs in (("Alpha", '["a"]'), ("Beta", '["b"]')):
        chems += (
            f'[[chemical]]\nname = "{name}"\nsymptoms = {signs}\nsources = ["doc"]\n'
            f'[[chemical.evidence]]\ntitle = "CDC: a document"\nurl = "https://cdc.gov/{name}"\n'
            f"symptoms = {signs}\n\n"
        )
    (root / "chemicals" / "g1.toml").write_text('class = "g1"\n\n' + chems, encoding="utf-8")
    return root


def test_a_knowledge_base_folder_with_cases_is_scored_on_its_own_cases(tmp_path, capsys):
    """kb validate --kb FOLDER always scored the bundled cases (and failed on a knowledge
    base they do not fit) though FOLDER/cases held the maintainer's own; it reads those now,
    and says which cases it read."""
    import json  # noqa: PLC0415

    root = _small_kb(tmp_path / "mine")
    (root / "cases").mkdir()
    (root / "cases" / "one.toml").write_text(
        'agent = "Beta"\nclass = "g1"\ncitation = "CDC. A report. MMWR 2000;1:1"\n'
        'url = "https://cdc.gov/report"\n\n[[sign]]\nsymptom = "b"\npresent = true\nquote = "q"\n',
        encoding="utf-8",
    )
    assert main(["kb", "validate", "--kb", str(root), "--mode", "evidence", "--json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert [c["agent"] for c in report["cases"]] == [["Beta"]]
    assert report["cases_from"] == str(root / "cases")
    assert "bundled" not in err
    assert main(["kb", "validate", "--kb", str(root), "--mode", "evidence"]) == 0
    out, _ = capsys.readouterr()
    assert f"on 1 case vignette from {root / 'cases'} " in out.splitlines()[0]


def test_a_knowledge_base_folder_without_cases_falls_back_to_the_bundled_ones_and_says_so(
    tmp_path, capsys
):
    root = _small_kb(tmp_path / "mine")
    assert main(["kb", "validate", "--kb", str(root), "--mode", "evidence"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "has no cases/ folder" not in err  # the error says it in its own words
    (line,) = err.strip().splitlines()
    assert "the bundled cases are written for the bundled knowledge base" in line
    assert line.endswith(f"or put them in {root / 'cases'}")
