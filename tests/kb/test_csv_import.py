"""Importing a wide CSV as a knowledge base: round trip, and one clear error per bad input."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from responder import paths
from responder.cli.kb import register
from responder.kb import KBError, available_kbs, import_csv, resolve_kb
from responder.kb.csv_import import csv_to_files, slugify

CSV = """\
name,class,cas,un,Burning eyes,Cough,Pinpoint pupils (miosis),Drooling,source
category,,,,Eyes,Breathing,Eyes,"Ears, nose, throat",
Chlorine,Irritant gases,7782-50-5,1017,1,1,0,0,NIOSH NPG: Chlorine
Ammonia,Irritant gases,7664-41-7,1005,1,1,0,1,
"Sarin (GB)",Nerve agents,107-44-8,,0,1,1,1,CHEMM: Sarin; ATSDR MMG: Nerve agents
"""


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """Keep imported knowledge bases inside the test's folder."""
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))
    return tmp_path / "home"


def write(tmp_path, text: str, name: str = "my data.csv", encoding: str = "utf-8"):
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    """The CLI convention: subparsers from register(), then args.handler(args)."""
    parser = argparse.ArgumentParser(prog="responder")
    register(parser.add_subparsers())
    args = parser.parse_args(argv)
    code = args.handler(args)
    out, err = capsys.readouterr()
    return code, out, err


def csv_error(tmp_path, capsys, text: str) -> str:
    """Import ``text`` through the CLI; assert it fails cleanly and wrote nothing."""
    path = write(tmp_path, text)
    code, out, err = run(["kb", "import", str(path)], capsys)
    assert code == 2
    assert "Traceback" not in err and out == ""
    assert not paths.user_kb_dir().exists() or not any(paths.user_kb_dir().iterdir())
    return err


# --- round trip -------------------------------------------------------------------------


def test_round_trip(tmp_path, capsys, home):
    path = write(tmp_path, CSV)
    code, out, err = run(
        ["kb", "import", str(path), "--name", "field", "--source", "Team notes 2024"], capsys
    )
    assert code == 0, err
    assert "Imported 3 chemicals" in out and "--kb field" in out
    folder = home / "data" / "kb" / "field"
    assert (folder / "symptoms.toml").is_file()
    assert sorted(p.name for p in (folder / "chemicals").iterdir()) == [
        "irritant_gases.toml",
        "nerve_agents.toml",
    ]

    kb = resolve_kb("field")
    assert kb.name == "field"
    assert kb.symptom_ids == ("burning_eyes", "cough", "pinpoint_pupils_miosis", "drooling")
    assert [s.label for s in kb.symptoms] == [
        "Burning eyes",
        "Cough",
        "Pinpoint pupils (miosis)",
        "Drooling",
    ]
    assert [(c.id, c.label) for c in kb.categories] == [
        ("eyes", "Eyes"),
        ("breathing", "Breathing"),
        ("ears_nose_throat", "Ears, nose, throat"),
    ]
    assert [s.category for s in kb.symptoms] == ["eyes", "breathing", "eyes", "ears_nose_throat"]
    assert [(c.id, c.label) for c in kb.classes] == [
        ("irritant_gases", "Irritant gases"),
        ("nerve_agents", "Nerve agents"),
    ]
    assert [c.name for c in kb.chemicals] == ["Chlorine", "Ammonia", "Sarin (GB)"]
    np.testing.assert_array_equal(kb.matrix, [[1, 1, 0, 0], [1, 1, 0, 1], [0, 1, 1, 1]])
    assert kb.chemical("Chlorine").un == "1017" and kb.chemical("Sarin (GB)").un is None
    assert kb.chemical("Sarin (GB)").cas == "107-44-8"
    assert kb.chemical("Chlorine").sources == ("NIOSH NPG: Chlorine",)
    assert kb.chemical("Ammonia").sources == ("Team notes 2024",)  # --source fills blanks
    assert kb.chemical("Sarin (GB)").sources == ("CHEMM: Sarin", "ATSDR MMG: Nerve agents")
    assert "field" in available_kbs()
    assert kb.to_problem().group_names == ("irritant_gases", "nerve_agents")


@pytest.mark.parametrize("source", ["", "   "])
def test_an_empty_source_is_refused_not_taken_for_the_default(tmp_path, capsys, home, source):
    path = write(tmp_path, CSV)
    code, out, err = run(["kb", "import", str(path), "--source", source], capsys)
    assert code == 2 and out == ""
    assert "--source text is empty" in err and "Traceback" not in err
    assert not paths.user_kb_dir().exists() or not any(paths.user_kb_dir().iterdir())


def test_without_category_row_everything_is_uncategorised(tmp_path):
    text = "\n".join(line for line in CSV.splitlines() if not line.startswith("category"))
    kb, folder = import_csv(write(tmp_path, text))
    assert folder.name == "my_data"  # default name: slug of the file stem
    assert [c.id for c in kb.categories] == ["uncategorised"]
    assert {s.category for s in kb.symptoms} == {"uncategorised"}
    assert kb.chemical("Ammonia").sources == ("Imported from my data.csv",)


def test_minimal_csv_and_excel_bom(tmp_path):
    text = "Name,Class,Cough,Headache\nA,one,1,0\nB,two,0,1\n"
    kb, _ = import_csv(write(tmp_path, text, encoding="utf-8-sig"), name="mini")
    assert [c.name for c in kb.chemicals] == ["A", "B"]
    assert kb.chemical("A").cas == ""


@pytest.mark.parametrize("line, sep", [("sep=;", ";"), ("SEP=,", ","), ("sep=\t", "\t")])
def test_excels_separator_line_names_the_separator(tmp_path, line, sep):
    """Excel's `sep=;` first line gave "column 2 has no header / no name / no class column"."""
    rows = ["Name", "Class", "Cough", "Headache"], ["A", "one", "1", "0"], ["B", "two", "0", "1"]
    text = line + "\n" + "".join(sep.join(r) + "\n" for r in rows)
    kb, _ = import_csv(write(tmp_path, text, encoding="utf-8-sig"), name="excel")
    assert [c.name for c in kb.chemicals] == ["A", "B"]
    assert kb.chemical("A").symptoms == {"cough"}


def test_a_separator_line_naming_another_separator_is_one_error(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, "sep=|\nName|Class|Cough\nA|one|1\n")
    assert "1: the first line, 'sep=|', names a separator responder does not read" in err
    assert err.count("\n") == 1


def test_a_cell_error_after_a_separator_line_keeps_its_line_number(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, "sep=;\nName;Class;Cough\nA;one;7\n")
    assert ":3:" in err


def test_csv_path_loads_directly_without_storing(tmp_path):
    kb = resolve_kb(str(write(tmp_path, CSV)))
    assert len(kb.chemicals) == 3 and kb.name == "my_data"
    assert not paths.user_kb_dir().exists()


def test_unused_symptom_column_is_a_warning(tmp_path, capsys):
    text = "name,class,Cough,Rash\nA,one,1,0\nB,two,1,0\n"
    code, out, err = run(["kb", "import", str(write(tmp_path, text))], capsys)
    assert code == 0
    assert 'warning: no chemical has symptom "rash"' in err


def test_existing_name_needs_replace(tmp_path, capsys):
    path = write(tmp_path, CSV)
    assert run(["kb", "import", str(path), "--name", "x"], capsys)[0] == 0
    code, out, err = run(["kb", "import", str(path), "--name", "x"], capsys)
    assert code == 2 and "already exists" in err and "--replace" in err
    path.write_text(CSV.replace("Chlorine", "Bromine").replace("7782-50-5", "7726-95-6"))
    code, out, err = run(["kb", "import", str(path), "--name", "x", "--replace"], capsys)
    assert code == 0, err
    assert resolve_kb("x").chemicals[0].name == "Bromine"
    assert sorted(p.name for p in paths.user_kb_dir().iterdir()) == ["x"]  # no leftovers


@pytest.mark.parametrize("name", ["../escape", "has space", ".hidden"])
def test_bad_names_are_refused(tmp_path, capsys, name):
    code, out, err = run(["kb", "import", str(write(tmp_path, CSV)), "--name", name], capsys)
    assert code == 2 and "not a usable knowledge-base name" in err


def test_slugify():
    assert slugify("Pinpoint pupils (miosis)") == "pinpoint_pupils_miosis"
    assert slugify("  Éblouissement ") == "eblouissement"
    assert slugify("!!!") == ""


# --- bad input: the CSV line number, exit 2, nothing written --------------------------------


def test_bad_cell(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace("1017,1,1,0,0", "1017,1,yes,0,0"))
    assert err.startswith(f"{tmp_path / 'my data.csv'}:3: ")
    assert '"Chlorine", column "Cough": the cell is "yes", not 0 or 1' in err


def test_empty_cell_is_a_bad_cell(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace("1017,1,1,0,0", "1017,1,,0,0"))
    assert ':3: "Chlorine", column "Cough": the cell is "", not 0 or 1' in err


def test_ragged_row(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace("1005,1,1,0,1,", "1005,1,1,0,1"))
    assert ":4: this row has 8 cells but the header has 9" in err


def test_empty_name(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace("Ammonia,", ","))
    assert ":4: the chemical name is empty" in err


def test_duplicate_names_give_both_lines(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace("Ammonia", "CHLORINE"))
    assert ':4: duplicate chemical "CHLORINE": also on line 3' in err


def test_duplicate_cas(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace("7664-41-7", "7782-50-5"))
    assert ':4: "Ammonia" has CAS 7782-50-5, the same as line 3' in err


def test_bad_cas_and_un(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace("7782-50-5,1017", "7782-50-4,UN1017"))
    assert ':3: "Chlorine": CAS number "7782-50-4" has check digit 4 but its digits give 5' in err
    assert ':3: "Chlorine": UN number "UN1017" is malformed' in err


def test_row_without_symptoms(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace("1017,1,1,0,0", "1017,0,0,0,0"))
    assert ':3: "Chlorine" has no symptoms' in err


def test_missing_class_cell(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace("Chlorine,Irritant gases", "Chlorine,"))
    assert ':3: "Chlorine" has no class' in err


def test_missing_name_column(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace("name,class", "chemical,class", 1))
    assert ':1: there is no "name" column' in err


def test_symptom_headers_with_the_same_slug(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, "name,class,Cough,cough!\nA,x,1,0\n")
    assert ':1: symptom columns "Cough" and "cough!" both become the id "cough"' in err


def test_blank_category_cell(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, CSV.replace(",Eyes,Breathing", ",Eyes,"))
    assert ':2: symptom column "Cough" has no category' in err


def test_empty_file(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, "\n\n")
    assert "the file is empty" in err


def test_no_rows(tmp_path, capsys):
    err = csv_error(tmp_path, capsys, "name,class,Cough\n")
    assert ":1: there are no chemical rows" in err


def test_blank_lines_are_skipped_but_counted(tmp_path, capsys):
    text = "name,class,Cough\n\nA,x,1\n,,\nB,x,2\n"
    err = csv_error(tmp_path, capsys, text)
    assert ':5: "B", column "Cough": the cell is "2"' in err


def test_every_problem_is_reported(tmp_path):
    text = CSV.replace("1017,1,1,0,0", "1017,1,x,0,0").replace("Ammonia,", ",")
    with pytest.raises(KBError) as info:
        csv_to_files(write(tmp_path, text))
    assert [i.line for i in info.value.issues] == [3, 4]
    assert all(i.fix for i in info.value.issues)


def test_a_bad_un_number_in_a_csv_says_how_to_fix_the_cell(tmp_path, capsys):
    """The fix spoke of the TOML files ('as a quoted string', 'leave the key out'), which
    a maintainer importing a spreadsheet never sees."""
    err = csv_error(tmp_path, capsys, "name,class,un,Cough\nChlorine,Irritants,UN1017,1\n")
    assert 'UN number "UN1017" is malformed' in err
    assert 'write the 4 digits only, e.g. "1017"; leave the cell empty if there is none' in err
    assert "quoted string" not in err and "key" not in err


@pytest.mark.parametrize("argv", [["--name", "bundled"], ["--name", "Bundled"], []])
def test_the_bundled_name_is_refused_with_a_name_that_works(tmp_path, capsys, argv):
    """--name bundled (or a file called bundled.csv) was refused with 'e.g. --name bundled',
    the very name refused."""
    path = tmp_path / "bundled.csv"
    path.write_text(CSV, encoding="utf-8")
    code, out, err = run(["kb", "import", str(path), *argv], capsys)
    assert code == 2
    assert "is the knowledge base that comes with responder" in err
    suggested = err.rsplit("e.g. --name ", 1)[1].split()[0]
    assert suggested.casefold() != "bundled"
    assert run(["kb", "import", str(path), "--name", suggested], capsys)[0] == 0
