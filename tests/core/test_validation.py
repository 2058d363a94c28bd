"""``responder kb validate``: case files, the simulated responder, ranks, and the command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from responder.cli import main as cli_main
from responder.config import InterviewConfig, NoiseSettings
from responder.core.validation import (
    MODES,
    chemical_rank,
    class_rank,
    make_settings,
    validate,
)
from responder.kb import load_kb
from responder.kb.cases import bundled_cases_dir, load_cases
from responder.kb.model import KBError

SYMPTOMS = """\
[[category]]
id = "x"
label = "Category X"

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
category = "x"

[[symptom]]
id = "d"
label = "Symptom D"
category = "x"
"""

CLASSES = """\
[[class]]
id = "g1"
label = "Group one"

[[class]]
id = "g2"
label = "Group two"
"""


def chem(name: str, symptoms: list[str]) -> str:
    return f'[[chemical]]\nname = "{name}"\nsymptoms = {json.dumps(symptoms)}\nsources = ["x"]\n\n'


# Rows (a b c d): P 1100, R 1010 in g1; S 0011, T 0001 in g2. Uniform prior.
G1 = 'class = "g1"\n\n' + chem("P", ["a", "b"]) + chem("R (r-agent)", ["a", "c"])
G2 = 'class = "g2"\n\n' + chem("S", ["c", "d"]) + chem("T", ["d"])


@pytest.fixture
def kb(tmp_path):
    root = tmp_path / "kb"
    (root / "chemicals").mkdir(parents=True)
    (root / "symptoms.toml").write_text(SYMPTOMS)
    (root / "classes.toml").write_text(CLASSES)
    (root / "chemicals" / "g1.toml").write_text(G1)
    (root / "chemicals" / "g2.toml").write_text(G2)
    return load_kb(root)


def case_text(agent="r", klass="g1", signs=(("a", True), ("c", True))) -> str:
    head = (
        f'agent = {json.dumps(agent)}\nclass = "{klass}"\n'
        'citation = "Doe J. A case. J Tox. 2000;1:1"\nurl = "https://example.org/case"\n'
    )
    body = "".join(
        f'\n[[sign]]\nsymptom = "{s}"\npresent = {str(p).lower()}\nquote = "q"\n' for s, p in signs
    )
    return head + body


def write_case(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


def one(kb, tmp_path, mode, settings=None, **kw):
    write_case(tmp_path / "cases", "c1", case_text(**kw))
    cases, _ = load_cases(tmp_path / "cases", kb)
    return validate(kb, cases, [mode], settings).results[mode, "scene"][0]


# --- the interview, computed by hand ----------------------------------------------------


def test_gbs_asks_the_hand_computed_questions_and_names_the_truth(kb, tmp_path):
    # Root: a, c, d each split 2/2 (a first). a=yes leaves {P, R}; b splits them and comes
    # first, but the report does not mention b (can't tell); c=yes leaves R.
    r = one(kb, tmp_path, "strict-gbs")
    assert r.asked == (("a", "yes"), ("b", "unknown"), ("c", "yes"))
    assert (r.rank, r.class_rank, r.status) == (1, 1, "identified")
    assert r.top == ("R (r-agent)",)


def test_gbs_drops_the_truth_on_one_contradicting_answer(kb, tmp_path):
    # a=no removes P and R; c=yes then leaves S, in the wrong class.
    r = one(kb, tmp_path, "strict-gbs", signs=(("a", False), ("c", True)))
    assert r.asked == (("a", "no"), ("c", "yes"))
    assert r.rank is None and r.class_rank is None
    assert r.top == ("S",) and not r.top5


def test_gisa_stops_when_the_class_is_known(kb, tmp_path):
    # a splits the classes exactly (g1 = {P, R} says yes), so GISA asks it and stops.
    r = one(kb, tmp_path, "strict-gisa")
    assert r.asked == (("a", "yes"),)
    assert r.class_rank == 1 and r.status == "identified"
    assert r.rank == 2  # P and R tie at 1/2; ties never count for the truth


def test_noise_with_eps_zero_is_strict_gbs(kb, tmp_path):
    for signs in ((("a", True), ("c", True)), (("a", False), ("c", True))):
        strict = one(kb, tmp_path, "strict-gbs", signs=signs)
        noisy = one(
            kb,
            tmp_path,
            "noise-gbs",
            make_settings(InterviewConfig(noise=NoiseSettings(eps=0))),
            signs=signs,
        )
        assert (noisy.asked, noisy.rank, noisy.class_rank) == (
            strict.asked,
            strict.rank,
            strict.class_rank,
        )


def test_noise_keeps_the_truth_after_one_wrong_answer(kb, tmp_path):
    r = one(
        kb,
        tmp_path,
        "noise-gbs",
        make_settings(InterviewConfig(noise=NoiseSettings(eps=1))),
        signs=(("a", False), ("c", True)),
    )
    assert r.rank is not None  # strict GBS eliminated it (test above)


# --- ranks ------------------------------------------------------------------------------


def test_chemical_rank_is_pessimistic_about_ties_and_merges_identical_profiles():
    B = np.array([[1, 0], [0, 1], [1, 1]], dtype=bool)
    p = np.array([0.4, 0.4, 0.2])
    assert chemical_rank(B, p, [0]) == 2
    assert chemical_rank(B, p, [2]) == 3
    assert chemical_rank(B, np.array([0.5, 0.3, 0.2]), [0]) == 1
    assert chemical_rank(B, np.array([0.0, 0.6, 0.4]), [0]) is None
    same = np.array([[1, 0], [1, 0], [0, 1]], dtype=bool)
    assert chemical_rank(same, p, [1]) == 1  # 0 and 1 share a profile
    assert chemical_rank(B, p, [1, 2]) == 2  # best of several accepted agents


def test_class_rank():
    assert class_rank(np.array([0.5, 0.5]), 0) == 2
    assert class_rank(np.array([0.7, 0.3]), 1) == 2
    assert class_rank(np.array([0.7, 0.3]), 0) == 1
    assert class_rank(np.array([1.0, 0.0]), 1) is None


def test_summary_counts(kb, tmp_path):
    folder = tmp_path / "cases"
    write_case(folder, "hit", case_text())
    write_case(folder, "miss", case_text(signs=(("a", False), ("c", True))))
    write_case(
        folder, "absent", case_text(agent="unlisted agent", klass="g2", signs=(("d", True),))
    )
    cases, warnings = load_cases(folder, kb)
    assert [w.file.endswith("absent.toml") for w in warnings] == [True]
    report = validate(kb, cases, ["strict-gbs"])
    s = report.summary("strict-gbs")
    assert (s.cases, s.top1, s.top5) == (3, 1, 1)
    # absent: a and c are asked but not mentioned (can't tell), d=yes leaves S and T, which
    # only c could part: 3 questions, class g2 found, agent unranked.
    absent = report.results["strict-gbs", "scene"][0]
    assert [q for q, _ in absent.asked] == ["a", "c", "d"] and absent.class_rank == 1
    assert s.class_top1 == 2
    assert s.mean_questions == pytest.approx((3 + 3 + 2) / 3)


def test_class_only_cases_score_on_class_and_stay_out_of_chemical_accuracy(kb, tmp_path):
    folder = tmp_path / "cases"
    write_case(folder, "hit", case_text())
    write_case(folder, "klass", case_text(agent="g2", klass="g2", signs=(("d", True),)))
    cases, warnings = load_cases(folder, kb)
    assert [c.class_only for c in cases] == [False, True] and not warnings
    s = validate(kb, cases, ["strict-gbs"]).summary("strict-gbs")
    assert (s.cases, s.chemical_cases, s.top1, s.class_top1) == (2, 1, 1, 2)
    assert s.as_dict()["top1_rate"] == 1.0 and s.as_dict()["class_rate"] == 1.0


def test_sign_coverage_against_the_agents_row(kb, tmp_path):
    from responder.core.validation import SignCoverage, sign_coverage

    folder = tmp_path / "cases"
    # R lists a and c. The report: a, c, d present; b absent -> 2 of 3 listed, d unlisted.
    write_case(folder, "r", case_text(signs=(("a", True), ("c", True), ("d", True), ("b", False))))
    # Agent P or R: a absent contradicts both rows; P matches b, R matches nothing else.
    write_case(folder, "pr", case_text(agent=["p", "r"], signs=(("a", False), ("b", True))))
    write_case(folder, "cls", case_text(agent="g2", klass="g2", signs=(("d", True),)))
    cases, _ = load_cases(folder, kb)
    by_id = {c.id: sign_coverage(kb, c) for c in cases}
    assert by_id["r"] == SignCoverage(2, 3, ("d",), ())
    assert by_id["pr"] == SignCoverage(1, 1, (), ("a",))
    assert by_id["cls"] is None
    report = validate(kb, cases, ["strict-gbs"])
    assert report.sign_totals() == (3, 4)


# --- case files -------------------------------------------------------------------------


def test_agent_spellings_resolve(kb, tmp_path):
    for agent in ("r", "R", "R (r-agent)", "r_r_agent", ["nothing", "r"]):
        write_case(tmp_path / "cases", "c1", case_text(agent=agent))
        cases, warnings = load_cases(tmp_path / "cases", kb)
        assert cases[0].chemicals == (1,) and not warnings, agent


@pytest.mark.parametrize(
    "text, line, words",
    [
        (case_text(signs=(("a", True), ("zz", True))), 12, 'unknown symptom "zz"'),
        (case_text(signs=(("a", True), ("a", False))), 12, 'the sign "a" is listed twice'),
        (case_text(klass="g3"), 2, 'unknown class "g3"'),
        (case_text().replace('agent = "r"\n', ""), 1, "`agent` is missing"),
        (
            case_text().replace("present = true", "present = 1", 1),
            8,
            "`present` must be true or false",
        ),
        (case_text() + "\n[oops\n", 16, "not valid TOML"),
        (case_text(signs=()), 1, "no [[sign]] tables"),
        ("severity = 3\n" + case_text(), 1, "unknown top-level key or table `severity`"),
    ],
)
def test_bad_case_files_name_the_file_and_line(kb, tmp_path, text, line, words):
    path = write_case(tmp_path / "cases", "bad", text)
    with pytest.raises(KBError) as info:
        load_cases(tmp_path / "cases", kb)
    issue = info.value.issues[0]
    assert issue.file == str(path) and words in issue.problem
    if line is not None:
        assert issue.line == line


def test_unreadable_case_files_are_reported_not_read(kb, tmp_path):
    import os

    folder = tmp_path / "cases"
    write_case(folder, "good", case_text())
    os.mkfifo(folder / "pipe.toml")  # would block a naive reader forever
    (folder / "binary.toml").write_bytes(b'agent = "r"\n\xff\xfe\x00')
    (folder / "big.toml").write_text(case_text() + "# " + "x" * 300_000 + "\n")
    with pytest.raises(KBError) as info:
        load_cases(folder, kb)
    by_file = {Path(i.file).name: i.problem for i in info.value.issues}
    assert set(by_file) == {"pipe.toml", "binary.toml", "big.toml"}
    assert "named pipe" in by_file["pipe.toml"]
    assert "more than" in by_file["big.toml"]


def test_long_quotes_are_refused(kb, tmp_path):
    text = case_text().replace('quote = "q"', 'quote = "' + "word " * 30 + '"', 1)
    write_case(tmp_path / "cases", "long", text)
    with pytest.raises(KBError, match="more than 20 words"):
        load_cases(tmp_path / "cases", kb)


# --- the command ------------------------------------------------------------------------


def run(argv, capsys):
    code = cli_main(argv)  # the real entry point: its one error style and exit codes
    out, err = capsys.readouterr()
    return code, out, err


def test_command_prints_summary_and_json(kb, tmp_path, capsys):
    write_case(tmp_path / "cases", "c1", case_text())
    kb_dir = str(Path(kb.origin))
    code, out, err = run(["kb", "validate", str(tmp_path / "cases"), "--kb", kb_dir], capsys)
    assert code == 0 and "strict-gbs" in out and "1/1" in out
    assert f"on 1 case vignette from {tmp_path / 'cases'} (prior" in out  # "1 case vignettes"
    code, out, _ = run(
        [
            "kb",
            "validate",
            str(tmp_path / "cases"),
            "--kb",
            kb_dir,
            "--json",
            "--mode",
            "strict-gbs",
        ],
        capsys,
    )
    data = json.loads(out)
    # One summary per answers seen (signs only, with the scene) and per half (all, fit,
    # held-out); the one case sits in one half.
    assert {(m["mode"], m["answers"], m["half"]) for m in data["modes"]} == {
        ("strict-gbs", seen, half)
        for seen in ("signs", "scene")
        for half in ("all", "fit", "held-out")
    }
    everything = [m for m in data["modes"] if m["half"] == "all"]
    assert [m["top1"] for m in everything] == [1, 1]
    half = data["cases"][0]["half"]
    assert [m["cases"] for m in data["modes"] if m["half"] == half] == [1, 1]
    asked = data["cases"][0]["modes"]["strict-gbs (scene)"]["asked"]
    assert asked[0] == {"symptom": "a", "answer": "yes"}


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--mode", "telepathy"], "unknown mode 'telepathy'; choose from"),
        (["--eps", "-1"], "responder: error: --eps: eps is -1"),
        (
            ["--long-row-exponent", "-1"],
            "responder: error: --long-row-exponent: long-row exponent is -1",
        ),
        (["--sensitivity", "2"], "responder: error: --sensitivity: sensitivity is 2.0"),
        (["--leak", "0.9"], "responder: error: --leak: leak (0.9) must be below"),
        (["--prior", "flat"], "responder: error: --prior: unknown prior 'flat'"),
        (
            ["--textbook-share", "1"],
            "responder: error: --textbook-share: textbook share is 1.0",
        ),
        (
            ["--textbook-leak", "0.99"],
            "responder: error: --textbook-leak: textbook leak (0.99) must be below",
        ),
    ],
)
def test_command_bad_options_exit_2(kb, tmp_path, capsys, extra, words):
    write_case(tmp_path / "cases", "c1", case_text())
    code, out, err = run(
        ["kb", "validate", str(tmp_path / "cases"), "--kb", str(Path(kb.origin)), *extra], capsys
    )
    assert code == 2 and words in err and "Traceback" not in err


def test_command_bad_case_file_exit_2(kb, tmp_path, capsys):
    path = write_case(tmp_path / "cases", "bad", case_text(signs=(("zz", True),)))
    code, out, err = run(
        ["kb", "validate", str(tmp_path / "cases"), "--kb", str(Path(kb.origin))], capsys
    )
    assert code == 2 and f"{path}:7:" in err and out == ""
    code, _, err = run(["kb", "validate", str(tmp_path / "nowhere")], capsys)
    assert code == 2 and "does not exist" in err


# --- the bundled cases ------------------------------------------------------------------


def test_bundled_cases_load_against_the_bundled_kb():
    from responder.kb import load_bundled

    kb = load_bundled()
    cases, _ = load_cases(None, kb)
    assert len(cases) == len(list(bundled_cases_dir().glob("*.toml")))
    for case in cases:
        assert case.citation and case.url.startswith("http")
        assert any(s.present for s in case.signs)


def test_every_registered_mode_runs(kb, tmp_path):
    write_case(tmp_path / "cases", "c1", case_text())
    cases, _ = load_cases(tmp_path / "cases", kb)
    report = validate(kb, cases)
    assert report.modes == list(MODES)
    for mode in MODES:
        for seen in ("signs", "scene"):
            assert report.results[mode, seen][0].class_rank == 1


@pytest.mark.parametrize(
    "data, words",
    [
        ({"noise": {"eps": -1}}, "noise.eps = -1 is not allowed"),
        ({"evidence": {"sensitivity": 1.5}}, "sensitivity is 1.5"),
        ({"evidence": {"leak": 0.0}}, "leak is 0.0"),
        ({"evidence": {"sensitivity": 0.3, "leak": 0.4}}, "must be below sensitivity"),
        ({"evidence": {"long_row_exponent": 2}}, "long-row exponent is 2"),
    ],
)
def test_impossible_settings_are_refused(data, words):
    """Validation takes its settings through the one interview configuration."""
    with pytest.raises(ValueError, match=words):
        make_settings(InterviewConfig.from_dict(data))


def test_an_unknown_prior_is_refused():
    with pytest.raises(ValueError, match="unknown prior 'flat'; choose one of chemical, class"):
        make_settings(prior="flat")


def test_evidence_mode_keeps_the_truth_after_a_contradicting_answer(kb, tmp_path):
    pytest.importorskip("responder.engine.evidence")
    # Strict GBS eliminates R on a=no (see above); the evidence mode only lowers it.
    for mode in ("evidence", "evidence-class"):
        r = one(kb, tmp_path, mode, signs=(("a", False), ("c", True)))
        assert r.rank is not None and r.class_rank is not None, mode
        assert r.status != "no_fit"
    r = one(kb, tmp_path, "evidence")
    assert r.rank == 1 and r.class_rank == 1  # consistent answers still name R first


def test_evidence_mode_uses_the_settings(kb, tmp_path):
    pytest.importorskip("responder.engine.evidence")
    from responder.core.validation import make_settings

    def settings(s, l_):
        return make_settings(
            InterviewConfig.from_dict({"evidence": {"sensitivity": s, "leak": l_}})
        )

    loose = one(kb, tmp_path, "evidence", settings(0.75, 0.15))
    sharp = one(kb, tmp_path, "evidence", settings(0.99, 0.01))
    # Answers carry less evidence when signs are unreliable, so more questions are needed.
    assert len(loose.asked) >= len(sharp.asked)


def test_validate_runs_on_the_committed_cases(capsys):
    code, out, err = run(["kb", "validate", "--mode", "strict-gisa", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["modes"][0]["cases"] == len(list(bundled_cases_dir().glob("*.toml")))
    assert data["modes"][0]["cases"] >= 25
    # Every case was interviewed, and every answer is what the case file states: the scene
    # step ticks the scene facts it states present, the questions take the rest.
    for case in data["cases"]:
        stated = {s["symptom"]: "yes" if s["present"] else "no" for s in case["signs"]}
        run_ = case["modes"]["strict-gisa (scene)"]
        asked, ticked = run_["asked"], run_["scene_step"]
        assert asked or ticked
        assert all(stated[sid] == "yes" for sid in ticked)
        assert not {a["symptom"] for a in asked} & set(ticked)
        for a in asked:
            assert a["answer"] == stated.get(a["symptom"], "unknown"), (case["case"], a)
    # Cases quote scene facts, so the scene step ticked some; signs only ticks none.
    assert sum(bool(c["modes"]["strict-gisa (scene)"]["scene_step"]) for c in data["cases"]) >= 60
    assert not any(c["modes"]["strict-gisa (signs)"]["scene_step"] for c in data["cases"])
