"""CSV inputs that fuzzing found mishandled, each of which must give a clear result or
message."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from responder.kb import KBError
from responder.kb.csv_import import csv_to_files, load_csv, stable_id


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "kb.csv"
    path.write_text(text, encoding="utf-8")
    return path


def issues(path: Path) -> list:
    with pytest.raises(KBError) as info:
        csv_to_files(path)
    return info.value.issues


def test_a_chemical_named_category_is_a_chemical(tmp_path):
    kb = load_csv(
        write(
            tmp_path, "name,class,Cough,Headache\nCategory,Irritants,1,0\nChlorine,Irritants,1,1\n"
        )
    )
    assert [c.name for c in kb.chemicals] == ["Category", "Chlorine"]
    assert [s.label for s in kb.symptoms] == ["Cough", "Headache"]


def test_the_category_row_is_still_recognised(tmp_path):
    kb = load_csv(
        write(
            tmp_path,
            "name,class,Cough,Headache\ncategory,,Breathing,Nervous\nChlorine,Irritants,1,1\n",
        )
    )
    assert [c.name for c in kb.chemicals] == ["Chlorine"]
    assert sorted(c.label for c in kb.categories) == ["Breathing", "Nervous"]


def test_a_category_named_row_with_only_0_1_cells_is_a_chemical_missing_its_class(tmp_path):
    found = issues(write(tmp_path, "name,class,Cough\nCategory,,1\nChlorine,Irritants,1\n"))
    assert len(found) == 1 and found[0].line == 2 and "no class" in found[0].problem


def test_a_stray_opening_quote_is_reported_on_its_line(tmp_path):
    # It used to swallow every later row into one cell, reported as a short row at the end.
    found = issues(
        write(
            tmp_path,
            'name,class,Cough\n"Chlorine,Irritants,1\nAmmonia,Irritants,1\nPhosgene,Irritants,0\n',
        )
    )
    assert len(found) == 1 and found[0].line == 2 and "never closed" in found[0].problem


def test_a_quote_inside_an_unquoted_cell_is_reported(tmp_path):
    # Python's csv keeps it as text: the chemical would have been called Chl"orine.
    found = issues(
        write(tmp_path, 'name,class,Cough\nChl"orine,Irritants,1\nAmmonia,Irritants,1\n')
    )
    assert len(found) == 1 and found[0].line == 2 and 'Chl"orine' in found[0].problem


def test_a_quoted_cell_running_over_lines_is_reported(tmp_path):
    found = issues(write(tmp_path, 'name,class,Cough\n"Phos\ngene",Irritants,1\n'))
    assert found[0].line == 2 and "line 2 to line 3" in found[0].problem


def test_text_after_a_closing_quote_is_reported(tmp_path):
    found = issues(write(tmp_path, 'name,class,Cough\n"Chl"orine,Irritants,1\n'))
    assert found[0].line == 2 and "cannot be parsed" in found[0].problem


def test_properly_quoted_cells_still_import(tmp_path):
    kb = load_csv(
        write(tmp_path, 'name,class,Cough\n"Chlorine, gas",Irritants,1\n"Amm""onia",Irritants,1\n')
    )
    assert [c.name for c in kb.chemicals] == ["Chlorine, gas", 'Amm"onia']


def test_cyrillic_and_chinese_headers_and_names_import(tmp_path):
    text = "name,class,Кашель,头痛\nХлор,Раздражители,1,1\nАммиак,Раздражители,1,0\n"
    kb = load_csv(write(tmp_path, text))
    assert [s.label for s in kb.symptoms] == ["Кашель", "头痛"]
    assert [c.name for c in kb.chemicals] == ["Хлор", "Аммиак"]
    assert [c.label for c in kb.classes] == ["Раздражители"]
    # ids are stable across imports (a re-import keeps journals and answers valid)
    again = load_csv(write(tmp_path, text))
    assert [s.id for s in again.symptoms] == [s.id for s in kb.symptoms]
    assert kb.symptoms[0].id == stable_id("Кашель", "symptom")
    assert kb.to_problem().matrix.astype(int).tolist() == [[1, 1], [1, 0]]


def test_headers_with_no_letters_at_all_are_still_refused(tmp_path):
    found = issues(write(tmp_path, "name,class,Cough,—\nChlorine,Irritants,1,0\n"))
    assert any("no letters or digits" in i.problem for i in found)


@pytest.mark.parametrize("sep", [";", "\t"])
def test_a_spreadsheet_s_semicolon_or_tab_export_imports_like_a_comma_file(tmp_path, sep):
    """Excel in locales whose decimal mark is a comma exports "CSV" with semicolons: the
    header's separator is used, and the result is the comma file's."""
    rows = ["name,class,cas,Cough,Headache", "Chlorine,Irritants,7782-50-5,1,0"]
    rows += ['"Ammonia, anhydrous",Irritants,,1,1']
    comma = load_csv(write(tmp_path, "\n".join(rows) + "\n"))
    other = [
        r.replace(",", sep).replace(f'"Ammonia{sep} anhydrous"', '"Ammonia, anhydrous"')
        for r in rows
    ]
    (tmp_path / "other").mkdir()
    kb = load_csv(write(tmp_path / "other", "\n".join(other) + "\n"))
    assert [c.name for c in kb.chemicals] == ["Chlorine", "Ammonia, anhydrous"]
    assert [c.name for c in kb.chemicals] == [c.name for c in comma.chemicals]
    assert [c.symptoms for c in kb.chemicals] == [c.symptoms for c in comma.chemicals]
    assert [s.label for s in kb.symptoms] == ["Cough", "Headache"]


def test_a_short_row_of_a_semicolon_file_names_the_semicolons(tmp_path):
    found = issues(write(tmp_path, "name;class;Cough;Headache\nChlorine;Irritants;1\n"))
    assert len(found) == 1 and found[0].line == 2
    assert "3 cells but the header has 4" in found[0].problem and "semicolons" in found[0].fix


@pytest.mark.skipif(sys.platform != "linux", reason="a file name of bytes that are not UTF-8")
def test_a_csv_whose_file_name_is_not_utf8_is_imported(tmp_path, monkeypatch):
    """kb import of 'qa-\\xff.csv' (a file name in another encoding: a lone surrogate once
    Python reads it from the command line) stopped with a UnicodeEncodeError traceback: the
    name went into the TOML text written ('Imported from ...'). It is written with U+FFFD."""
    from responder import paths
    from responder.kb.csv_import import import_csv

    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))
    path = tmp_path / "qa-\udcff.csv"
    path.write_text("name,class,cough\nA,x,1\n", encoding="utf-8")
    kb, folder = import_csv(path)
    assert kb.name == "qa" and [c.name for c in kb.chemicals] == ["A"]
    texts = [p.read_text(encoding="utf-8") for p in folder.rglob("*.toml")]
    assert any("Imported from qa-\ufffd.csv" in t for t in texts)
