"""``responder simulate``: error simulation from the command line (Section 7.3)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from responder.cli import main
from responder.cli.simulate import wilson
from responder.engine.diagnostics import min_hamming_distance


def problem_file(
    tmp_path,
    seed: int = 0,
    m: int = 12,
    n: int = 12,
    min_delta: int = 5,
    categories: bool = True,
    groups: bool = True,
):
    rng = np.random.default_rng(seed)
    rows: list[np.ndarray] = []
    while len(rows) < m:  # greedy: keep a random row if it is far enough from the others
        r = rng.random(n) < 0.45
        if all(int((r != s).sum()) >= min_delta for s in rows):
            rows.append(r)
    B = np.array(rows)
    assert min_hamming_distance(B) >= min_delta
    data = {
        "matrix": B.astype(int).tolist(),
        "prior": (rng.random(m) + 0.2).tolist(),
        "queries": [f"sym{j}" for j in range(n)],
        "objects": [f"chem{i}" for i in range(m)],
    }
    if groups:
        data["groups"] = [f"class{i % 3}" for i in range(m)]
    if categories:
        data["query_groups"] = [f"cat{j % 3}" for j in range(n)]
    path = tmp_path / f"problem{seed}.json"
    path.write_text(json.dumps(data))
    return path


def run_json(capsys, argv) -> tuple[dict, str]:
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out), out.err


@pytest.mark.parametrize("policy", ["gbs", "gisa", "gqsa", "gigqsa"])
@pytest.mark.parametrize("target", ["object", "group"])
def test_accuracy_is_100_percent_within_eps(tmp_path, capsys, policy, target):
    path = problem_file(tmp_path)
    data, err = run_json(
        capsys,
        [
            "simulate",
            "--kb",
            str(path),
            "--policy",
            policy,
            "--target",
            target,
            "--interviews",
            "150",
            "--seed",
            "3",
            "--json",
        ],
    )
    assert err == ""
    acc = data["within_eps"]["accuracy"]
    assert acc["share"] == 1.0 and acc["count"] == acc["of"] == 150
    assert acc["ci95"][1] == 1.0 and 0.9 < acc["ci95"][0] < 1.0
    lo, hi = data["ci95"]
    assert lo <= data["expected_queries"] <= hi
    assert data["noise"]["eps"] == data["noise"]["eps_bound"] == 2  # --noise-eps auto
    assert data["noise"]["delta"] >= 5
    beyond = data["beyond_eps"]
    assert beyond["interviews"] == 150 and beyond["errors"] == [3, 4]
    parts = (
        beyond["accuracy"]["count"]
        + beyond["no_candidate_consistent"]["count"]
        + beyond["wrong_but_consistent"]["count"]
    )
    assert parts == 150
    for key in (
        "accuracy",
        "no_candidate_consistent",
        "wrong_but_consistent",
        "no_object_fits_all_answers",
    ):
        lo, hi = beyond[key]["ci95"]
        assert 0.0 <= lo <= beyond[key]["share"] <= hi <= 1.0


def test_noise_settings_actually_used_are_reported(tmp_path, capsys):
    path = problem_file(tmp_path, seed=1)
    argv = [
        "simulate",
        "--kb",
        str(path),
        "--policy",
        "gisa",
        "--interviews",
        "60",
        "--noise-eps",
        "1",
        "--noise-prone",
        "0.5",
        "--noise-model",
        "2",
        "--noise-p",
        "0.1",
        "--seed",
        "7",
        "--json",
    ]
    data, _ = run_json(capsys, argv)
    noise = data["noise"]
    assert noise["eps"] == 1 and noise["model"] == 2 and noise["p"] == 0.1
    assert noise["prone_count"] == 6 and len(noise["prone_queries"]) == 6
    assert data["within_eps"]["accuracy"]["share"] == 1.0
    again, _ = run_json(capsys, argv)
    assert again == data  # reproducible with --seed
    named, _ = run_json(
        capsys,
        [
            "simulate",
            "--kb",
            str(path),
            "--interviews",
            "20",
            "--noise-prone",
            "sym1, sym4",
            "--seed",
            "0",
            "--json",
        ],
    )
    assert named["noise"]["prone_queries"] == ["sym1", "sym4"]


def test_text_output(tmp_path, capsys):
    path = problem_file(tmp_path, seed=2)
    assert (
        main(
            ["simulate", "--kb", str(path), "--policy", "gisa", "--interviews", "80", "--seed", "1"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "E[K] = " in out and "95% interval" in out
    assert "accuracy with <= eps wrong answers: 100.0% (80/80" in out
    assert "accuracy with 3..4 wrong answers (> eps):" in out
    assert "no candidate consistent within eps:" in out
    assert "persistent noise: eps 2 (effective 2; delta" in out


def test_no_extra_errors(tmp_path, capsys):
    path = problem_file(tmp_path, seed=3)
    data, _ = run_json(
        capsys,
        [
            "simulate",
            "--kb",
            str(path),
            "--interviews",
            "30",
            "--extra-errors",
            "0",
            "--seed",
            "0",
            "--json",
        ],
    )
    assert data["beyond_eps"] is None and data["notes"] == []


def test_budget_covers_every_prone_query(tmp_path, capsys):
    path = problem_file(tmp_path, seed=4)
    data, _ = run_json(
        capsys,
        [
            "simulate",
            "--kb",
            str(path),
            "--interviews",
            "30",
            "--noise-prone",
            "sym0,sym1",
            "--noise-eps",
            "2",
            "--seed",
            "0",
            "--json",
        ],
    )
    assert data["beyond_eps"] is None
    assert "no interviews past the budget" in data["notes"][0]
    assert data["within_eps"]["accuracy"]["share"] == 1.0


def test_eps_above_bound_warns(tmp_path, capsys):
    path = problem_file(tmp_path, seed=5, min_delta=3)
    data, err = run_json(
        capsys,
        [
            "simulate",
            "--kb",
            str(path),
            "--interviews",
            "40",
            "--noise-eps",
            "3",
            "--seed",
            "0",
            "--json",
        ],
    )
    assert err.startswith("warning: eps = 3 exceeds floor((delta-1)/2)")
    assert data["warnings"] and data["noise"]["eps"] == 3


def test_identical_rows_count_as_identified_together(tmp_path, capsys):
    path = tmp_path / "twins.json"
    path.write_text(
        json.dumps(
            {"matrix": [[1, 1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0], [0, 0, 0, 1, 1, 1, 1]]}
        )
    )
    data, _ = run_json(
        capsys,
        [
            "simulate",
            "--kb",
            str(path),
            "--interviews",
            "50",
            "--noise-eps",
            "1",
            "--seed",
            "0",
            "--json",
        ],
    )
    assert data["within_eps"]["accuracy"]["share"] == 1.0
    assert data["within_eps"]["several_candidates"]["count"] > 0
    assert (
        main(
            ["simulate", "--kb", str(path), "--interviews", "50", "--noise-eps", "1", "--seed", "0"]
        )
        == 0
    )
    assert "ended on several chemicals with identical rows" in capsys.readouterr().out


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert abs(lo - 0.4038) < 1e-4 and abs(hi - 0.5962) < 1e-4
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


BAD = [
    (["--noise-eps=-1"], "eps is -1"),
    (["--noise-eps", "x"], "not a whole number"),
    (["--noise-model", "2", "--noise-p", "0.6"], "[0, 0.5]"),
    (["--noise-prone", "1.5"], "[0, 1]"),
    (["--noise-prone=-0.5"], "[0, 1]"),
    (["--noise-prone", "sym1,headache"], "unknown query name(s) 'headache'"),
    (["--interviews", "0"], "--interviews must be at least 1"),
    (["--extra-errors", "-1"], "--extra-errors must be 0 or more"),
    # a ValueError traceback from numpy ('high is out of bounds for int64')
    (["--extra-errors", "99999999999999999999"], "give at most"),
    (["--policy", "best"], "invalid choice: 'best' (choose from 'gbs', 'gisa'"),
]


@pytest.mark.parametrize("extra, message", BAD)
def test_impossible_settings_exit_2_with_one_line(tmp_path, capsys, extra, message):
    path = problem_file(tmp_path, seed=6)
    code = main(["simulate", "--kb", str(path), "--json"] + extra)
    out = capsys.readouterr()
    assert code == 2 and out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("responder: error: "), out.err
    assert message in lines[0]


def test_unusable_inputs_exit_2(tmp_path, capsys):
    plain = problem_file(tmp_path, seed=7, categories=False, groups=False)
    for argv in (
        ["--kb", str(plain), "--target", "group"],
        ["--kb", str(plain), "--policy", "gqsa"],
        ["--kb", str(tmp_path / "missing.json")],
    ):
        code = main(["simulate"] + argv)
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "extra", [[], ["--answers", "flip:0.1"]], ids=["noise simulation", "answers compared"]
)
def test_per_victim_without_victims_is_one_error_saying_what_to_add(capsys, extra):
    from responder.cli import main  # noqa: PLC0415

    assert main(["simulate", "--interviews", "5", "--per-victim", "3", *extra]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.strip().splitlines() == [
        "responder: error: --per-victim limits the questions per victim of simulated "
        "incidents: add --victims K (for example --victims 3 --per-victim 3), or leave "
        "--per-victim out"
    ]


IGNORED = [
    # --victims runs the evidence mode's incidents: no answer model, policy or persistent noise
    (["--victims", "2", "--answers", "flip:0.3"], "--answers"),
    (["--victims", "2", "--policy", "gisa"], "--policy"),
    (["--victims", "2", "--noise-eps", "2"], "--noise-eps"),
    (["--victims", "2", "--modes", "strict"], "--modes"),
    # without --answers or --victims: the paper's persistent noise, no modes or scene step
    (["--modes", "strict"], "--modes"),
    (["--scene-step"], "--scene-step"),
    (["--sensitivity", "0.9"], "--sensitivity"),
]


@pytest.mark.parametrize("extra, option", IGNORED)
def test_an_option_the_run_does_not_read_is_an_error(capsys, extra, option):
    """A trainer's --answers flip:0.3 beside --victims was dropped without a word, and the
    clean incidents' 100% read as a result under wrong answers."""
    code = main(["simulate", "--interviews", "2", "--seed", "0"] + extra)
    out = capsys.readouterr()
    assert code == 2 and out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("responder: error: "), out.err
    assert f"{option} does not apply" in lines[0]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--noise-p", "0.3"], "add --noise-model 2, or leave --noise-p out"),
        (
            ["--answers", "flip:0.1", "--modes", "evidence", "--noise-eps", "3"],
            "--noise-eps applies only under persistent noise",
        ),
        (
            ["--answers", "flip:0.1", "--modes", "evidence,strict", "--noise-model", "2"],
            "add noise to --modes, or leave it out",
        ),
    ],
)
def test_noise_options_the_run_would_not_read_are_refused(capsys, argv, message):
    """'simulate --noise-p 0.3' ran model 1 and reported p 0.5; the evidence and strict
    modes dropped --noise-eps and --noise-model without a word."""
    code = main(["simulate", "--interviews", "5", *argv])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and message in captured.err


def test_pick_without_category_suggestions_is_refused(capsys):
    """'simulate --answers flip:0.1 --pick any' (policy gbs) ran as if --pick were not given."""
    code = main(["simulate", "--answers", "flip:0.1", "--interviews", "5", "--pick", "any"])
    captured = capsys.readouterr()
    assert code == 2 and "use --policy gqsa or gigqsa, or leave --pick out" in captured.err


def test_the_default_extra_errors_run_on_a_problem_of_one_question(tmp_path, capsys):
    path = tmp_path / "one.json"
    path.write_text('{"matrix": [[1], [0]]}')
    assert main(["simulate", "--kb", str(path), "--interviews", "5", "--seed", "0"]) == 0
    assert "E[K]" in capsys.readouterr().out


@pytest.mark.parametrize("target", ["chemical", "class"])
def test_simulated_incidents_say_which_target_their_interviews_stopped_on(capsys, target):
    """simulate --victims reads --target (a class target stops each incident's interview once
    the class is clear: fewer questions, another top-1), but its report said nothing of it, so
    a class-target run read as the chemical's; --answers and the persistent-noise run say it."""
    argv = ["simulate", "--victims", "2", "--interviews", "3", "--seed", "1"]
    assert main([*argv, "--target", target, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["target"] == target
    assert main([*argv, "--target", target]) == 0
    assert f"target {target}" in capsys.readouterr().out.splitlines()[0]
