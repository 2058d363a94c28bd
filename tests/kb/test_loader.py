"""Loading and validating knowledge-base folders: every malformed case gets its own message."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import numpy as np
import pytest
from kb_helpers import errors_of, line_of, only_error, write_files

from responder.kb import KBError, load_bundled, load_kb, resolve_kb
from responder.kb.identifiers import is_supplementary
from responder.kb.loader import SOURCE_SERIES, bundled_root, cas_check_digit

SYMPTOMS = """\
# A tiny vocabulary for tests.
[[category]]
id = "eyes"
label = "Eyes"

[[category]]
id = "breathing"
label = "Breathing"

[[symptom]]
id = "tearing"
label = "Watery eyes"
category = "eyes"
check = "Are tears running?"

[[symptom]]
id = "cough"
label = "Cough"
category = "breathing"
check = "Is the person coughing?"

[[symptom]]
id = "wheezing"
label = "Wheezing"
category = "breathing"
check = "Whistling when breathing out?"
"""

CLASSES = """\
[[class]]
id = "irritant_gases"
label = "Irritant gases"
syndrome = "irritant"
description = "Gases that burn the airways."

[[class]]
id = "corrosives"
label = "Corrosives"
"""

IRRITANTS = """\
# Sources: NIOSH NPG.
class = "irritant_gases"

[[chemical]]
name = "Chlorine"
cas = "7782-50-5"
un = "1017"
symptoms = ["tearing", "cough",
            "wheezing"]
sources = ["NIOSH NPG: Chlorine"]
source_checked = true

[[chemical.evidence]]
title = "NIOSH NPG: Chlorine"
url = "https://www.cdc.gov/niosh/npg/npgd0115.html"
symptoms = ["tearing", "cough"]

[[chemical.evidence]]
title = "CDC: Facts About Chlorine"
url = "https://emergency.cdc.gov/agent/chlorine/basics/facts.asp"
symptoms = ["wheezing", "cough"]

[[chemical]]
name = "Ammonia"
cas = "7664-41-7"
un = "1005"
symptoms = ["tearing", "cough"]
sources = ["NIOSH NPG: Ammonia", "ATSDR MMG: Ammonia"]
prior = 2.0
"""

CORROSIVES = """\
class = "corrosives"

[[chemical]]
name = "Hydrogen chloride"
cas = "7647-01-0"
symptoms = ["cough"]
sources = ["CHEMM: Hydrogen chloride"]
notes = "Gas or acid mist."
"""


def without_wheezing(irritants: str) -> str:
    """Chlorine without its "wheezing" cell (and the evidence for it)."""
    return irritants.replace(',\n            "wheezing"', "").replace(
        '["wheezing", "cough"]', '["cough"]'
    )


def write_kb(root: Path, **edits: str) -> Path:
    """Write the test knowledge base under ``root``; keyword args replace whole files.

    Keys: symptoms, classes, irritants, corrosives (None removes a file).
    """
    return write_files(
        root,
        {
            "symptoms.toml": edits.get("symptoms", SYMPTOMS),
            "classes.toml": edits.get("classes", CLASSES),
            "chemicals/irritant_gases.toml": edits.get("irritants", IRRITANTS),
            "chemicals/corrosives.toml": edits.get("corrosives", CORROSIVES),
        },
    )


# --- the valid case and the engine problem ----------------------------------------------


def test_valid_kb_loads(tmp_path):
    kb = load_kb(write_kb(tmp_path), strict=True)
    assert kb.name == tmp_path.name
    assert [c.name for c in kb.chemicals] == ["Chlorine", "Ammonia", "Hydrogen chloride"]
    assert kb.symptom_ids == ("tearing", "cough", "wheezing")
    chlorine = kb.chemical("chlorine")
    assert chlorine.un == "1017" and chlorine.source_checked
    assert chlorine.class_id == "irritant_gases"
    assert chlorine.file.endswith("irritant_gases.toml")
    assert chlorine.line == line_of(IRRITANTS, 'name = "Chlorine"')
    assert kb.chemical("Hydrogen chloride").un is None
    assert kb.chemical("Hydrogen chloride").notes == "Gas or acid mist."
    assert kb.symptom_label("cough") == "Cough"
    assert kb.category_label("eyes") == "Eyes"
    assert kb.class_label("corrosives") == "Corrosives"
    assert kb.class_by_id["irritant_gases"].syndrome == "irritant"
    assert kb.warnings == ()
    assert len(kb.digest) == 64


def test_a_class_short_label_is_optional_and_kept_short(tmp_path):
    with_short = CLASSES.replace(
        'label = "Irritant gases"\n', 'label = "Irritant gases"\nshort_label = "Irritants"\n'
    )
    kb = load_kb(write_kb(tmp_path / "ok", classes=with_short), strict=True)
    assert [c.short for c in kb.classes] == ["Irritants", "Corrosives"]  # else the label
    assert kb.chemicals[0].class_short == "Irritants"
    too_long = with_short.replace('"Irritants"', '"Irritant and choking gases"')
    issue = only_error(write_kb(tmp_path / "long", classes=too_long))
    assert "short_label is 26 characters" in issue.problem
    assert issue.line == line_of(too_long, "short_label")


def test_every_bundled_class_has_a_short_label_that_fits_a_class_bar():
    kb = load_bundled()
    assert all(c.short_label and len(c.short_label) <= 18 for c in kb.classes)


def test_to_problem(tmp_path):
    kb = load_kb(write_kb(tmp_path))
    problem = kb.to_problem()
    assert problem.matrix.astype(int).tolist() == [[1, 1, 1], [1, 1, 0], [0, 1, 0]]
    # default "class" prior: each class 1/2, split 1:2 inside irritant_gases (Ammonia prior 2.0)
    np.testing.assert_allclose(problem.prior, [1 / 6, 1 / 3, 1 / 2])
    np.testing.assert_allclose(kb.to_problem("chemical").prior, [0.25, 0.5, 0.25])
    assert problem.object_names == ("Chlorine", "Ammonia", "Hydrogen chloride")
    assert problem.query_names == ("tearing", "cough", "wheezing")
    assert problem.group_names == ("irritant_gases", "corrosives")
    assert problem.object_groups.tolist() == [0, 0, 1]
    assert problem.query_group_names == ("eyes", "breathing")
    assert problem.query_groups.tolist() == [0, 1, 1]


def test_chemicals_are_ordered_by_class_order(tmp_path):
    classes = (
        CLASSES.replace('id = "irritant_gases"', 'id = "x"')
        .replace('id = "corrosives"', 'id = "irritant_gases"')
        .replace('id = "x"', 'id = "corrosives"')
    )
    kb = load_kb(write_kb(tmp_path, classes=classes))
    assert [c.name for c in kb.chemicals] == ["Hydrogen chloride", "Chlorine", "Ammonia"]
    assert kb.to_problem().group_names == ("corrosives", "irritant_gases")


def test_cas_check_digit():
    assert cas_check_digit("778250") == 5  # 7782-50-5, chlorine
    assert cas_check_digit("7490") == 8  # 74-90-8, hydrogen cyanide


# --- one clear message per malformed case ------------------------------------------------


def test_unknown_symptom_id_suggests_closest(tmp_path):
    text = IRRITANTS.replace('"wheezing"]', '"wheezng"]')
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert issue.file.endswith("chemicals/irritant_gases.toml")
    assert issue.line == line_of(text, '"wheezng"')  # the continuation line of the list
    assert 'unknown symptom id "wheezng"' in issue.problem
    assert 'did you mean "wheezing"' in issue.fix


def test_unknown_symptom_id_without_close_match_says_where_ids_live(tmp_path):
    text = IRRITANTS.replace('"wheezing"]', '"zzz"]')
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert "symptoms.toml" in issue.fix


def test_unknown_class(tmp_path):
    text = IRRITANTS.replace('class = "irritant_gases"', 'class = "irritant_gas"')
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert issue.line == 2
    assert 'unknown class "irritant_gas"' in issue.problem
    assert "irritant_gases" in issue.fix


def test_duplicate_chemical_name_case_insensitive_names_both_places(tmp_path):
    text = CORROSIVES.replace('name = "Hydrogen chloride"', 'name = "CHLORINE"')
    issue = only_error(write_kb(tmp_path, corrosives=text))
    # corrosives.toml sorts first, so the irritant_gases entry is the duplicate
    assert issue.file.endswith("irritant_gases.toml")
    assert issue.line == line_of(IRRITANTS, 'name = "Chlorine"')
    assert 'duplicate chemical "Chlorine"' in issue.problem
    assert f"corrosives.toml:{line_of(text, 'name = ')}" in issue.problem


def test_duplicate_cas(tmp_path):
    text = CORROSIVES.replace("7647-01-0", "7782-50-5")
    issue = only_error(write_kb(tmp_path, corrosives=text))
    assert issue.file.endswith("irritant_gases.toml")
    assert issue.line == line_of(IRRITANTS, 'cas = "7782-50-5"')
    assert "7782-50-5" in issue.problem and "Hydrogen chloride" in issue.problem
    assert "corrosives.toml:" in issue.problem


def test_missing_sources_key(tmp_path):
    text = CORROSIVES.replace('sources = ["CHEMM: Hydrogen chloride"]\n', "")
    issue = only_error(write_kb(tmp_path, corrosives=text))
    assert issue.line == line_of(text, 'name = "Hydrogen chloride"')
    assert "no `sources`" in issue.problem
    assert "sources = [" in issue.fix


def test_empty_sources_list(tmp_path):
    text = CORROSIVES.replace('["CHEMM: Hydrogen chloride"]', "[]")
    issue = only_error(write_kb(tmp_path, corrosives=text))
    assert issue.line == line_of(text, "sources = []")
    assert "empty sources list" in issue.problem


def test_source_must_name_a_series_in_bundled_rules_only(tmp_path):
    text = IRRITANTS.replace("ATSDR MMG: Ammonia", "Wikipedia: Ammonia")
    root = write_kb(tmp_path, irritants=text)
    issue = only_error(root, strict=True)
    assert issue.line == line_of(text, "Wikipedia: Ammonia")
    assert '"Wikipedia: Ammonia"' in issue.problem
    assert all(s in issue.fix for s in SOURCE_SERIES)
    # user-imported knowledge bases may name any source
    assert load_kb(root, strict=False).chemical("Ammonia").sources[1] == "Wikipedia: Ammonia"


def test_a_cameo_chemicals_datasheet_is_an_agency_source(tmp_path):
    text = IRRITANTS.replace("ATSDR MMG: Ammonia", "CAMEO Chemicals: Ammonia, anhydrous")
    kb = load_kb(write_kb(tmp_path, irritants=text), strict=True)
    assert "CAMEO Chemicals: Ammonia, anhydrous" in kb.chemical("Ammonia").sources
    assert not is_supplementary("CAMEO Chemicals: Ammonia, anhydrous")


def test_an_epa_document_is_an_agency_source(tmp_path):
    text = IRRITANTS.replace(
        "ATSDR MMG: Ammonia", "EPA: Reregistration Eligibility Decision for Ammonia"
    )
    kb = load_kb(write_kb(tmp_path, irritants=text), strict=True)
    assert "EPA: Reregistration Eligibility Decision for Ammonia" in kb.chemical("Ammonia").sources
    assert not is_supplementary("EPA: Reregistration Eligibility Decision for Ammonia")


def test_blank_source_is_an_error_even_for_user_kbs(tmp_path):
    text = IRRITANTS.replace('"ATSDR MMG: Ammonia"', '"  "')
    issue = only_error(write_kb(tmp_path, irritants=text), strict=False)
    assert "a source is empty" in issue.problem


def test_empty_symptom_set(tmp_path):
    text = CORROSIVES.replace('symptoms = ["cough"]', "symptoms = []")
    issue = only_error(write_kb(tmp_path, corrosives=text))
    assert issue.line == line_of(text, "symptoms = []")
    assert '"Hydrogen chloride" has an empty symptom list' in issue.problem


def test_bad_cas_check_digit_says_what_it_should_be(tmp_path):
    text = IRRITANTS.replace("7782-50-5", "7782-50-4")
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert issue.line == line_of(text, 'cas = "7782-50-4"')
    assert "check digit 4 but its digits give 5" in issue.problem
    assert '"7782-50-5"' in issue.fix


@pytest.mark.parametrize("cas", ["7782505", "7782-5-05", "77-82-50-5", "CAS 7782-50-5", ""])
def test_malformed_cas(tmp_path, cas):
    text = IRRITANTS.replace("7782-50-5", cas)
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert issue.line == line_of(text, f'cas = "{cas}"')
    assert "malformed" in issue.problem and "e.g." in issue.fix


@pytest.mark.parametrize("un", ["UN1017", "101", "10177"])
def test_malformed_un(tmp_path, un):
    text = IRRITANTS.replace('un = "1017"', f'un = "{un}"')
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert issue.line == line_of(text, "un = ")
    assert f'UN number "{un}" is malformed' in issue.problem


def test_un_written_as_a_number(tmp_path):
    text = IRRITANTS.replace('un = "1017"', "un = 1017")
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert issue.line == line_of(text, "un = 1017")
    assert "`un` must be a quoted string" in issue.problem


@pytest.mark.parametrize("prior", ["0", "-1.5", "nan", "-inf"])
def test_non_positive_prior(tmp_path, prior):
    text = IRRITANTS.replace("prior = 2.0", f"prior = {prior}")
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert issue.line == line_of(text, "prior = ")
    assert "not a positive number" in issue.problem


def test_prior_must_be_a_number(tmp_path):
    text = IRRITANTS.replace("prior = 2.0", 'prior = "high"')
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert "`prior` must be a number" in issue.problem


def test_malformed_toml_reports_tomllib_message_and_line(tmp_path):
    text = CORROSIVES.replace('name = "Hydrogen chloride"', 'name = "Hydrogen chloride')
    issue = only_error(write_kb(tmp_path, corrosives=text))
    assert issue.file.endswith("corrosives.toml")
    assert issue.line == line_of(text, 'name = "Hydrogen')
    assert issue.problem.startswith("not valid TOML:")
    assert "(at line" not in issue.problem  # the position is in the line number instead


def test_missing_required_key(tmp_path):
    text = IRRITANTS.replace('name = "Ammonia"\n', "")
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert "has no `name`" in issue.problem
    assert issue.line == line_of(text, "[[chemical]]", 2)


def test_cas_is_required_in_bundled_rules_only(tmp_path):
    text = CORROSIVES.replace('cas = "7647-01-0"\n', "")
    root = write_kb(tmp_path, corrosives=text)
    assert "has no `cas`" in only_error(root, strict=True).problem
    assert load_kb(root, strict=False).chemical("Hydrogen chloride").cas == ""


def test_chemical_file_without_class(tmp_path):
    text = CORROSIVES.replace('class = "corrosives"\n', "")
    issue = only_error(write_kb(tmp_path, corrosives=text))
    assert issue.file.endswith("corrosives.toml") and issue.line == 1
    assert "does not say its class" in issue.problem
    assert "corrosives" in issue.fix  # lists the known classes


def test_class_written_after_the_first_chemical(tmp_path):
    text = CORROSIVES.replace('class = "corrosives"\n', "") + 'class = "corrosives"\n'
    issues = errors_of(write_kb(tmp_path, corrosives=text))
    assert [i.problem for i in issues] == [
        "the file does not say its class",
        "unknown key `class` in this [[chemical]] table",
    ]
    assert "move it to the top" in issues[1].fix
    assert issues[1].line == line_of(text, 'class = "corrosives"')


def test_unknown_key_suggests_the_right_one(tmp_path):
    text = IRRITANTS.replace("source_checked = true", "source_cheked = true")
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert issue.line == line_of(text, "source_cheked")
    assert 'did you mean "source_checked"' in issue.fix


def test_misspelt_chemical_table(tmp_path):
    text = CORROSIVES.replace("[[chemical]]", "[[chemicals]]")
    issue = only_error(write_kb(tmp_path, corrosives=text))
    assert issue.line == line_of(text, "[[chemicals]]")
    assert "`chemicals`" in issue.problem and "`chemical`" in issue.fix


def test_symptom_with_unknown_category(tmp_path):
    text = SYMPTOMS.replace('category = "eyes"', 'category = "eye"')
    issue = only_error(write_kb(tmp_path, symptoms=text))
    assert issue.file.endswith("symptoms.toml")
    assert issue.line == line_of(text, 'category = "eye"')
    assert 'symptom "tearing" has unknown category "eye"' in issue.problem
    assert 'did you mean "eyes"' in issue.fix


def test_duplicate_symptom_ids(tmp_path):
    text = SYMPTOMS.replace('id = "wheezing"', 'id = "cough"')
    issue = only_error(write_kb(tmp_path, symptoms=text, irritants=without_wheezing(IRRITANTS)))
    assert issue.line == line_of(text, 'id = "cough"', 2)
    assert 'duplicate symptom id "cough"' in issue.problem
    first = line_of(text, 'id = "cough"')
    assert f"symptoms.toml:{first}" in issue.fix


def test_missing_file(tmp_path):
    root = write_kb(tmp_path, classes=None)
    issues = errors_of(root)
    assert any(i.file.endswith("classes.toml") and "missing" in i.problem for i in issues)


def test_not_a_folder(tmp_path):
    issue = only_error(tmp_path / "nope")
    assert "does not exist" in issue.problem


def test_all_errors_are_reported_together(tmp_path):
    irritants = IRRITANTS.replace("7782-50-5", "7782-50-4").replace('"wheezing"]', '"wheez"]')
    corrosives = CORROSIVES.replace('symptoms = ["cough"]', "symptoms = []")
    issues = errors_of(write_kb(tmp_path, irritants=irritants, corrosives=corrosives))
    assert len(issues) == 3
    # one line each, in file order then line order, as file:line: problem — fix
    for line in str(KBError(issues)).splitlines():
        assert re.match(r"^.+\.toml:\d+: .+ — .+$", line)
    assert [i.file.rsplit("/", 1)[-1] for i in issues] == [
        "corrosives.toml",
        "irritant_gases.toml",
        "irritant_gases.toml",
    ]
    assert issues[1].line < issues[2].line


def test_unused_symptom_is_a_warning_not_an_error(tmp_path):
    text = without_wheezing(IRRITANTS)
    kb = load_kb(write_kb(tmp_path, irritants=text))
    [warning] = kb.warnings
    assert warning.severity == "warning"
    assert warning.file.endswith("symptoms.toml")
    assert warning.line == line_of(SYMPTOMS, 'id = "wheezing"')
    assert 'no chemical has symptom "wheezing"' in str(warning)
    assert "warning:" in str(warning)


def test_duplicate_symptom_in_one_chemical_is_a_warning(tmp_path):
    text = IRRITANTS.replace('["tearing", "cough"]', '["tearing", "cough", "cough"]')
    kb = load_kb(write_kb(tmp_path, irritants=text))
    assert any('lists symptom "cough" twice' in w.problem for w in kb.warnings)
    assert kb.chemical("Ammonia").symptoms == {"tearing", "cough"}


# --- the bundled knowledge base -----------------------------------------------------------


def test_bundled_kb_loads_and_passes_check():
    """Passes once the chemical files have landed in kb/chemicals/."""
    kb = load_bundled()
    assert kb.name == "bundled"
    root = bundled_root()
    vocabulary = tomllib.loads(root.joinpath("symptoms.toml").read_text(encoding="utf-8"))
    scene = tomllib.loads(root.joinpath("scene.toml").read_text(encoding="utf-8"))
    classes = tomllib.loads(root.joinpath("classes.toml").read_text(encoding="utf-8"))
    assert len(kb.symptoms) == len(vocabulary["symptom"]) + len(scene["observation"])
    assert len(kb.categories) == len(vocabulary["category"]) + len(scene["category"])
    assert len(kb.classes) == len(classes["class"])
    assert {c.class_id for c in kb.chemicals} == {c.id for c in kb.classes}
    for chem in kb.chemicals:
        assert chem.sources and all(s.split(":")[0] in SOURCE_SERIES for s in chem.sources)
    problem = kb.to_problem()
    assert problem.matrix.shape == (len(kb.chemicals), len(kb.symptoms))
    assert resolve_kb(None).digest == kb.digest == resolve_kb("bundled").digest


def test_bundled_folder_given_as_a_path_gets_bundled_rules(tmp_path, monkeypatch):
    text = IRRITANTS.replace("ATSDR MMG: Ammonia", "Wikipedia: Ammonia")
    bundled = write_kb(tmp_path / "bundled", irritants=text)
    other = write_kb(tmp_path / "other", irritants=text)
    monkeypatch.setattr("responder.kb.loader.bundled_root", lambda: bundled)
    assert "Wikipedia" in only_error(bundled, strict=None).problem
    assert len(load_kb(other).chemicals) == 3


def test_a_source_checkout_reads_its_own_kb_folder(tmp_path):
    """Code run from a checkout reads the kb/ beside it, not whatever folder an editable
    install of another clone maps ``responder.bundled_kb`` to."""
    import subprocess
    import sys
    from pathlib import Path

    import responder

    checkout = Path(responder.__file__).resolve().parents[1]
    assert Path(str(bundled_root())).resolve() == checkout / "kb"
    # a copy of the package in another "checkout" with its own kb/ reads that one
    clone = tmp_path / "clone"
    (clone / "kb").mkdir(parents=True)
    (clone / "pyproject.toml").write_text("[project]\nname = 'responder'\n", "utf-8")
    (clone / "kb" / "symptoms.toml").write_text("", "utf-8")
    import shutil

    shutil.copytree(checkout / "responder", clone / "responder")
    code = "from responder.kb.loader import bundled_root; print(bundled_root())"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(clone), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()) == clone / "kb"


def test_a_missing_symptoms_file_is_the_one_error_without_follow_on_errors(tmp_path):
    import shutil

    root = tmp_path / "kb"
    shutil.copytree(bundled_root(), root, ignore=shutil.ignore_patterns("cases", "__pycache__"))
    (root / "symptoms.toml").unlink()
    issues = errors_of(root)
    assert [(i.file.rsplit("/", 1)[-1], "missing" in i.problem) for i in issues] == [
        ("symptoms.toml", True)
    ]
