"""``responder kb check | info | import`` through argparse, as the CLI will call them."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pytest

from responder import paths
from responder.cli.kb import register

SYMPTOMS = """\
[[category]]
id = "x"
label = "Category X"

[[category]]
id = "y"
label = "Category Y"

[[symptom]]
id = "a"
label = "Symptom A"
category = "x"

[[symptom]]
id = "b"
label = "Symptom B"
category = "x"

[[symptom]]
id = "c"
label = "Symptom C"
category = "y"

[[symptom]]
id = "d"
label = "Symptom D"
category = "y"
"""

CLASSES = """\
[[class]]
id = "g1"
label = "Group one"

[[class]]
id = "g2"
label = "Group two"
"""

# Rows: P 1100, Q 1100 (same as P), R 1010 | S 0011, T 0001.
G1 = """\
class = "g1"

[[chemical]]
name = "P"
cas = "7782-50-5"
symptoms = ["a", "b"]
sources = ["NIOSH NPG: P"]

[[chemical]]
name = "Q"
cas = "7664-41-7"
symptoms = ["a", "b"]
sources = ["NIOSH NPG: Q"]

[[chemical]]
name = "R"
cas = "7647-01-0"
symptoms = ["a", "c"]
sources = ["CHEMM: R"]
"""

G2 = """\
class = "g2"

[[chemical]]
name = "S"
cas = "74-90-8"
symptoms = ["c", "d"]
sources = ["ATSDR MMG: S"]

[[chemical]]
name = "T"
cas = "1310-73-2"
symptoms = ["d"]
sources = ["CDC ERSH-DB: T"]
"""


def make_kb(root: Path, g1: str = G1, symptoms: str = SYMPTOMS) -> Path:
    for rel, text in {
        "symptoms.toml": symptoms,
        "classes.toml": CLASSES,
        "chemicals/g1.toml": g1,
        "chemicals/g2.toml": G2,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))


@pytest.fixture
def kb_dir(tmp_path) -> Path:
    return make_kb(tmp_path / "kb")


def run(argv: list[str], capsys, global_kb: bool = False) -> tuple[int, str, str]:
    """Tiny stand-in for responder.cli.main: register(), parse, ``args.handler(args)``.

    With ``global_kb`` the program also has its own ``--kb`` option, as the app will.
    """
    parser = argparse.ArgumentParser(prog="responder")
    if global_kb:
        parser.add_argument("--kb")
    register(parser.add_subparsers())
    args = parser.parse_args(argv)
    code = args.handler(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# --- check ------------------------------------------------------------------------------


def test_check_ok_prints_one_line_summary(kb_dir, capsys):
    code, out, err = run(["kb", "check", str(kb_dir)], capsys)
    assert code == 0
    assert out.count("\n") == 1
    assert out.startswith("OK: ")
    assert "5 chemicals in 2 of 2 classes, 4 symptoms in 2 categories, 0 warnings" in out
    assert err == ""


def test_check_lists_warnings(tmp_path, capsys):
    root = make_kb(
        tmp_path / "kb",
        g1=G1.replace('["a", "c"]', '["a"]'),
        symptoms=SYMPTOMS + '\n[[symptom]]\nid = "e"\nlabel = "E"\ncategory = "y"\n',
    )
    code, out, err = run(["kb", "check", str(root)], capsys)
    assert code == 0
    assert "1 warning" in out
    assert f"{root / 'symptoms.toml'}:" in err and 'no chemical has symptom "e"' in err


EVIDENCE = """
[[chemical.evidence]]
title = "CDC: Facts About R"
url = "https://www.cdc.gov/r"
symptoms = ["a"]
"""

MALFORMED = {
    "unknown symptom": (
        G1.replace('["a", "c"]', '["a", "cc"]'),
        'unknown symptom id "cc"',
        '["a", "cc"]',
    ),
    "unknown class": (
        G1.replace('class = "g1"', 'class = "g3"'),
        'unknown class "g3"',
        'class = "g3"',
    ),
    "duplicate name": (
        G1.replace('name = "Q"', 'name = "p"'),
        'duplicate chemical "p"',
        'name = "p"',
    ),
    "empty sources": (G1.replace('["CHEMM: R"]', "[]"), "empty sources list", "sources = []"),
    "bad series": (G1.replace("CHEMM: R", "Haz-Map: R"), 'source "Haz-Map: R"', "Haz-Map"),
    "empty symptoms": (G1.replace('["a", "c"]', "[]"), "empty symptom list", "symptoms = []"),
    "check digit": (
        G1.replace("7782-50-5", "7782-50-6"),
        "check digit 6 but its digits give 5",
        "7782-50-6",
    ),
    "cas format": (G1.replace("7782-50-5", "778-2505"), "malformed", "778-2505"),
    "prior": (
        G1.replace('name = "R"', 'name = "R"\nprior = 0'),
        "not a positive number",
        "prior = 0",
    ),
    "toml syntax": (G1.replace('name = "R"', 'name = R"'), "not valid TOML", 'name = R"'),
    "missing key": (G1.replace('symptoms = ["a", "c"]\n', ""), "has no `symptoms`", 'name = "R"'),
    "no class": (G1.replace('class = "g1"\n', ""), "does not say its class", None),
    "evidence symptom": (
        G1 + EVIDENCE.replace('["a"]', '["b", "a"]'),
        'supports "b", which is not in the chemical\'s symptoms',
        '["b", "a"]',
    ),
    "checked uncovered": (
        G1.replace('sources = ["CHEMM: R"]', "source_checked = true") + EVIDENCE,
        'no evidence document supports "c"',
        "source_checked = true",
    ),
    "evidence url": (
        G1 + EVIDENCE.replace("https://www.cdc.gov/r", "cdc r"),
        "is not a web address",
        'url = "cdc r"',
    ),
    "chemical id": (
        G1.replace('name = "R"', 'name = "R"\nid = "R!"'),
        'id "R!" is not a valid',
        'id = "R!"',
    ),
    "duplicate id": (
        G1.replace('name = "R"', 'name = "R"\nid = "p"'),
        'has id "p", the same as',
        'id = "p"',
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_check_malformed_exits_2_with_file_and_line(tmp_path, capsys, case):
    text, message, marker = MALFORMED[case]
    root = make_kb(tmp_path / "kb", g1=text)
    code, out, err = run(["kb", "check", str(root), "--strict"], capsys)
    assert code == 2
    assert out == ""
    line = 1 if marker is None else text[: text.index(marker)].count("\n") + 1
    assert f"{root / 'chemicals' / 'g1.toml'}:{line}: " in err
    assert message in err
    assert " — " in err  # every message says how to fix it


def test_user_kbs_may_name_any_source_unless_strict(tmp_path, capsys):
    root = make_kb(tmp_path / "kb", g1=G1.replace("CHEMM: R", "Haz-Map: R"))
    assert run(["kb", "check", str(root)], capsys)[0] == 0
    assert run(["kb", "check", "--strict", str(root)], capsys)[0] == 2


def test_check_reports_several_problems_at_once(tmp_path, capsys):
    text = G1.replace("7782-50-5", "7782-50-6").replace('["a", "c"]', '["a", "cc"]')
    code, out, err = run(["kb", "check", str(make_kb(tmp_path / "kb", g1=text))], capsys)
    assert code == 2
    assert "check digit" in err and "unknown symptom" in err and "2 problems found." in err


def test_kb_option_and_positional_path_wins(kb_dir, tmp_path, capsys):
    assert run(["kb", "check", "--kb", str(kb_dir)], capsys)[0] == 0
    assert run(["kb", "--kb", str(kb_dir), "check"], capsys)[0] == 0
    # the positional PATH wins over --kb
    code, out, _ = run(["kb", "check", str(kb_dir), "--kb", str(tmp_path / "nope")], capsys)
    assert code == 0
    # a program-wide --kb given before `kb` is not overwritten by the sub-command's default
    assert run(["--kb", str(kb_dir), "kb", "check"], capsys, global_kb=True)[0] == 0
    code, _, err = run(["--kb", str(tmp_path / "nope"), "kb", "check"], capsys, global_kb=True)
    assert code == 2 and "nope" in err


def test_unknown_name_lists_available(capsys):
    code, out, err = run(["kb", "check", "no_such_kb"], capsys)
    assert code == 2
    assert "no_such_kb: no knowledge base has this name" in err
    assert "bundled" in err


def test_file_that_is_not_a_kb(tmp_path, capsys):
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    code, out, err = run(["kb", "check", str(path)], capsys)
    assert code == 2 and "not a knowledge base" in err


def test_kb_without_subcommand_names_the_commands_in_one_line(capsys):
    code, out, err = run(["kb"], capsys)
    assert code == 2 and "check" in err and "import" in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("responder: error: ")


def test_imported_name_is_checked(tmp_path, capsys):
    csv = tmp_path / "field.csv"
    csv.write_text("name,class,Cough,Headache\nA,one,1,0\nB,two,0,1\n")
    assert run(["kb", "import", str(csv)], capsys)[0] == 0
    code, out, _ = run(["kb", "check", "--kb", "field"], capsys)
    assert code == 0 and "'field'" in out


def test_import_error_exits_2(tmp_path, capsys):
    csv = tmp_path / "bad.csv"
    csv.write_text("name,class,Cough\nA,one,maybe\n")
    code, out, err = run(["kb", "import", str(csv)], capsys)
    assert code == 2
    assert f"{csv}:2: " in err and '"maybe"' in err


def test_missing_csv_file_exits_2(tmp_path, capsys):
    code, out, err = run(["kb", "import", str(tmp_path / "none.csv")], capsys)
    assert code == 2 and "no such file" in err


@pytest.mark.parametrize("path", ["", "  "])
def test_an_empty_csv_path_is_named_as_such_not_read_as_the_current_folder(path, capsys):
    from responder.cli import main  # noqa: PLC0415 (the error policy lives in main)

    code = main(["kb", "import", path])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == (
        "responder: error: the CSV file is given as an empty path — give the path of the "
        "CSV file to import\n"
    )


# --- info -------------------------------------------------------------------------------


def test_info_json(kb_dir, capsys):
    code, out, err = run(["kb", "info", str(kb_dir), "--json"], capsys)
    assert code == 0
    r = json.loads(out)
    assert (r["chemicals"], r["symptoms"], r["categories"], r["classes"]) == (5, 4, 2, 2)
    assert r["per_class"] == {"g1": 3, "g2": 2}
    assert r["per_category"] == {"x": 2, "y": 2}
    assert r["distinguishable_profiles"] == 4
    assert r["identical_sets"] == [["P", "Q"]]
    # default "split" prior, whose entropies are the class prior's: g1's three chemicals
    # 1/6 each, g2's two 1/4 each
    assert r["prior_mode"] == "split"
    assert r["entropy"] == pytest.approx(3 / 6 * math.log2(6) + 2 / 4 * math.log2(4))
    assert r["group_entropy"] == pytest.approx(1.0)
    # P and Q share a profile, so no question separates them: the bound on the questions
    # merges them (H(P) alone was printed as the bound, above what GBS needs)
    merged = [2 / 6, 1 / 6, 1 / 4, 1 / 4]
    assert r["entropy_bound"] == pytest.approx(-sum(p * math.log2(p) for p in merged))
    assert r["entropy_bound"] < r["entropy"]
    assert r["group_entropy_bound"] == pytest.approx(1.0)
    assert [c["id"] for c in r["chemical_list"]] == ["p", "q", "r", "s", "t"]
    assert r["chemical_list"][2] == {
        "id": "r",
        "name": "R",
        "cas": "7647-01-0",
        "mixture": False,
        "un": None,
        "class": "g1",
        "source_checked": False,
        "sources": ["CHEMM: R"],
        "evidence": [],
        "symptoms": ["a", "c"],
    }
    assert r["checked_per_class"] == {"g1": [0, 3], "g2": [0, 2]}
    assert r["min_hamming"] == 1  # S 0011 vs T 0001
    assert r["eps"] == 0
    gamma = {g["id"]: (g["gamma_w"], g["gamma_b"]) for g in r["gamma"]}
    # a: g1 all 1, g2 all 0. b: g1 2/3 say 1, g2 all 0. c: g1 2/3 say 0, g2 tie (votes 0).
    # d: g1 all 0, g2 all 1.
    assert gamma["a"] == pytest.approx((1.0, 0.5))
    assert gamma["b"] == pytest.approx((5 / 6, 0.5))
    assert gamma["c"] == pytest.approx((7 / 12, 1.0))
    assert gamma["d"] == pytest.approx((1.0, 0.5))
    assert r["gain_region_count"] == 3
    assert r["gain_region"]["definition"] == "gamma_w >= 0.75 and gamma_b <= 0.75"
    for key in (
        "chemicals",
        "symptoms",
        "categories",
        "classes",
        "distinguishable_profiles",
        "min_hamming",
        "eps",
        "gain_region_count",
    ):
        assert isinstance(r[key], int)
    assert r["scene_observations"] == 0
    assert [o["id"] for o in r["observation_list"]] == ["a", "b", "c", "d"]
    assert r["observation_list"][0]["kind"] == "symptom"


def test_info_on_the_bundled_kb_counts_signs_and_scene_apart(capsys):
    code, out, err = run(["kb", "info", "--json"], capsys)
    assert code == 0
    r = json.loads(out)
    kinds = [o["kind"] for o in r["observation_list"]]
    assert len(kinds) == r["symptoms"]
    assert kinds.count("scene") == r["scene_observations"] > 0
    assert "symptom" in kinds
    smell = next(o for o in r["observation_list"] if o["id"] == "odour_rotten_eggs")
    assert smell["category"].startswith("odour") and "rotten eggs" in " ".join(smell["synonyms"])
    code, out, err = run(["kb", "check"], capsys)
    signs = len(kinds) - r["scene_observations"]
    assert f"{len(kinds)} observations ({signs} signs, {r['scene_observations']} scene)" in out


def test_info_text(kb_dir, capsys):
    code, out, err = run(["kb", "info", str(kb_dir)], capsys)
    assert code == 0
    assert "Distinguishable symptom profiles: 4 of 5" in out
    assert "  - P, Q" in out
    assert "H(P) = 2.292 bits" in out and "H(P_y) = 1.000 bits" in out
    assert "prior per class" in out
    assert "delta = 1" in out and "eps = floor((delta - 1) / 2) = 0" in out
    assert "Gain region: gamma_w >= 0.75 and gamma_b <= 0.75." in out
    assert "3 of 4 symptoms fall in it." in out
    assert "Group one" in out and "Category Y" in out


def test_info_on_broken_kb_exits_2(tmp_path, capsys):
    root = make_kb(tmp_path / "kb", g1=G1.replace('"b"]', '"bb"]'))
    code, out, err = run(["kb", "info", str(root), "--json"], capsys)
    assert code == 2 and out == "" and 'unknown symptom id "bb"' in err


def test_a_knowledge_base_of_one_counts_in_the_singular(tmp_path, capsys):
    """Every CSV imported without a category row has one category: 'kb check' said
    '3 symptoms in 1 categories'; and one chemical read '1 chemicals', '1 classes'."""
    path = tmp_path / "one.csv"
    path.write_text("name,class,Cough\nChlorine,Irritants,1\n", encoding="utf-8")
    code, out, _ = run(["kb", "check", str(path)], capsys)
    assert code == 0
    assert "1 chemical in 1 of 1 class, 1 symptom in 1 category, 0 warnings" in out
    code, out, _ = run(["kb", "info", str(path)], capsys)
    assert code == 0
    assert "  1 chemical (0 with sources checked), 1 class, 1 symptom in 1 category;" in out
    code, out, _ = run(["kb", "gaps", str(path)], capsys)
    assert code == 0
    assert "  1 chemical; no documents recorded" in out


def test_info_text_gives_the_bound_eval_gives_not_the_plain_entropy(kb_dir, capsys):
    """'H(P) = ... bits (lower bound on questions to name the chemical)': on the bundled
    knowledge base 7.579, while GBS needs 7.504; the bound merges chemicals of one profile."""
    code, out, err = run(["kb", "info", str(kb_dir)], capsys)
    assert code == 0
    (line,) = [ln for ln in out.splitlines() if "ower bound" in ln]
    merged = [2 / 6, 1 / 6, 1 / 4, 1 / 4]
    bound = -sum(p * math.log2(p) for p in merged)
    assert line == (
        f"Lower bound on the expected questions: {bound:.3f} to name the chemical, 1.000 its "
        "class (chemicals sharing a profile count as one)"
    )


def test_an_import_that_cannot_be_stored_is_one_line_with_the_fix(tmp_path, capsys):
    """A file where the imported knowledge bases' folder should be printed Python's own
    '[Errno 17] File exists: ...', with no word of what to do."""
    from responder.cli import main  # noqa: PLC0415

    csv = tmp_path / "two.csv"
    csv.write_text("name,class,cough,pinpoint_pupils\nA,x,1,0\nB,y,0,1\n", encoding="utf-8")
    paths.user_kb_dir().parent.mkdir(parents=True, exist_ok=True)
    paths.user_kb_dir().write_text("in the way")
    assert main(["kb", "import", str(csv)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Errno" not in err
    assert err.startswith(
        f"responder: error: the knowledge base could not be stored in {paths.user_kb_dir()}: "
    )
    assert "or set RESPONDER_HOME to a folder that is" in err and err.count("\n") == 1


@pytest.mark.parametrize("where", ["before", "after kb"])
def test_kb_import_refuses_a_kb_option_it_would_not_read(tmp_path, capsys, where):
    """'responder --kb other kb import sheet.csv' imported the CSV and dropped --kb without a
    word, though every command is documented to take it."""
    from responder.cli import main  # noqa: PLC0415

    csv = tmp_path / "two.csv"
    csv.write_text("name,class,cough,pinpoint_pupils\nA,x,1,0\nB,y,0,1\n", encoding="utf-8")
    argv = (
        ["--kb", "bundled", "kb", "import", str(csv)]
        if where == "before"
        else ["kb", "--kb", "bundled", "import", str(csv)]
    )
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--kb bundled does not apply to kb import" in err
    assert not (paths.user_kb_dir() / "two").exists()
