"""Noise at scale: `eval` and `simulate` estimate their run time first (with --noise-eps
auto on 1000 x 200, auto eps 33, either would otherwise run for more than 300 s).

The estimate comes from a few measured interviews; most tests replace that measurement with
fixed figures, so they do not depend on the machine's speed.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from responder.cli import inputs, main
from responder.engine.diagnostics import auto_eps, min_hamming_distance
from responder.engine.workload import Workload, duration_text, measure_interviews


def wide_problem(tmp_path, m: int = 12, n: int = 80, seed: int = 1):
    rng = np.random.default_rng(seed)
    matrix = (rng.random((m, n)) < 0.5).astype(int)
    path = tmp_path / "wide.json"
    path.write_text(json.dumps({"matrix": matrix.tolist()}))
    return path, auto_eps(min_hamming_distance(matrix.astype(bool)))


@pytest.fixture
def fake_measure(monkeypatch):
    """Measured cost grows with eps: 0.01 s and 10 questions per tolerated error."""
    seen: list[int] = []

    def measure(model, policy, seed=None, **_):
        eps = model.noise.eps_eff
        seen.append(eps)
        return Workload(0.01 * max(eps, 1), 10.0 * max(eps, 1), 5, model.problem.n_objects, eps)

    monkeypatch.setattr(inputs, "measure_interviews", measure)
    return seen


def run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_an_explicit_eps_past_the_limit_is_refused_with_the_estimate(
    tmp_path, capsys, fake_measure
):
    path, _ = wide_problem(tmp_path)
    code, out, err = run(
        capsys,
        [
            "simulate",
            "--kb",
            str(path),
            "--noise-eps",
            "5",
            "--interviews",
            "3000",
            "--extra-errors",
            "0",
            "--time-limit",
            "60",
        ],
    )
    # 3000 interviews x 0.05 s = 150 s > 60 s
    assert code == 2 and out == ""
    assert "estimated 2.5 min for 3000 interviews at eps 5" in err
    assert "--time-limit 180" in err and "--interviews" in err  # 150 s and a fifth more
    assert len(err.strip().splitlines()) == 1


def test_auto_eps_is_capped_to_fit_with_a_note(tmp_path, capsys, fake_measure):
    path, auto = wide_problem(tmp_path)
    assert auto >= 8
    code, out, err = run(
        capsys,
        [
            "simulate",
            "--kb",
            str(path),
            "--interviews",
            "20",
            "--extra-errors",
            "0",
            "--time-limit",
            "0.5",
            "--json",
            "--seed",
            "0",
        ],
    )
    assert code == 0, err
    data = json.loads(out)
    used = data["noise"]["eps"]
    assert 0.01 * used * 20 <= 0.5 < 0.01 * auto * 20  # fits; the full budget would not
    assert fake_measure[0] == auto and used in fake_measure
    note = " ".join(data["notes"])
    assert f"--noise-eps auto is {auto}" in note and f"capped at eps {used}" in note


def test_within_the_limit_nothing_changes(tmp_path, capsys, fake_measure):
    path, auto = wide_problem(tmp_path)
    code, out, _ = run(
        capsys,
        [
            "simulate",
            "--kb",
            str(path),
            "--interviews",
            "5",
            "--extra-errors",
            "0",
            "--json",
            "--seed",
            "0",
        ],
    )
    assert code == 0 and json.loads(out)["noise"]["eps"] == auto
    assert fake_measure == [auto]


def test_eval_switches_to_monte_carlo_when_the_exact_tree_is_too_big(
    tmp_path, capsys, fake_measure
):
    path, _ = wide_problem(tmp_path)
    code, out, err = run(
        capsys,
        [
            "eval",
            "--kb",
            str(path),
            "--noise-eps",
            "3",
            "--trials",
            "200",
            "--time-limit",
            "60",
            "--json",
            "--seed",
            "0",
        ],
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["method"] == "monte-carlo"
    assert any("exact tree under noise" in n for n in data["notes"])


def categorised_problem(tmp_path):
    """wide_problem with query categories, so that gqsa runs the informed pick model too."""
    path, _ = wide_problem(tmp_path)
    data = json.loads(path.read_text())
    data["query_groups"] = [f"c{q % 4}" for q in range(len(data["matrix"][0]))]
    path.write_text(json.dumps(data))
    return path


# With the fake measurement, one exact tree at eps 3 on 12 x 80 is estimated at about 109 s:
# one fits a 150 s limit, the paper's pick model and the informed one together do not.
def test_eval_counts_the_informed_pick_run_against_the_time_limit(tmp_path, capsys, fake_measure):
    path = categorised_problem(tmp_path)
    code, out, err = run(
        capsys,
        [
            "eval",
            "--kb",
            str(path),
            "--policy",
            "gqsa",
            "--noise-eps",
            "3",
            "--method",
            "exact",
            "--time-limit",
            "150",
        ],
    )
    assert code == 2 and out == ""
    assert "for 2 trees (one with the informed pick model)" in err
    assert "more than the 150 s limit" in err and "--method monte-carlo" in err


def test_eval_informed_pick_run_follows_the_switch_to_monte_carlo(tmp_path, capsys, fake_measure):
    path = categorised_problem(tmp_path)
    code, out, err = run(
        capsys,
        [
            "eval",
            "--kb",
            str(path),
            "--policy",
            "gqsa",
            "--noise-eps",
            "3",
            "--trials",
            "40",
            "--time-limit",
            "150",
            "--json",
            "--seed",
            "0",
        ],
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["method"] == "monte-carlo"
    informed = data["pick_models"]["informed"]
    assert informed["method"] == "monte-carlo" and informed["ci95"]
    assert any("for 2 trees (one with the informed pick model)" in n for n in data["notes"])


def test_no_limit_with_zero(tmp_path, capsys, fake_measure):
    path, _ = wide_problem(tmp_path)
    code, _, err = run(
        capsys,
        [
            "simulate",
            "--kb",
            str(path),
            "--noise-eps",
            "2",
            "--interviews",
            "5",
            "--extra-errors",
            "0",
            "--time-limit",
            "0",
        ],
    )
    assert code == 0, err
    assert fake_measure == []  # nothing measured


def test_real_measurement_refuses_an_astronomical_exact_tree(tmp_path, capsys):
    # Not faked: 40 x 120 with eps ~ 20 has more exact-tree nodes than atoms, on any machine.
    path, auto = wide_problem(tmp_path, m=40, n=120, seed=2)
    assert auto >= 15
    code, out, err = run(
        capsys,
        [
            "eval",
            "--kb",
            str(path),
            "--noise-eps",
            str(auto),
            "--method",
            "exact",
            "--time-limit",
            "3600",
        ],
    )
    assert code == 2 and "more than the 3600 s limit" in err
    assert "years" in err or " days" in err
    assert "--method monte-carlo" in err  # what shortens an exact evaluation


def test_measurement_and_estimates():
    from responder.engine.belief import Model
    from responder.engine.noise import NoiseModel
    from responder.engine.policies import Policy
    from responder.engine.problem import Problem

    rng = np.random.default_rng(0)
    problem = Problem.build((rng.random((30, 40)) < 0.5).astype(int).tolist())
    model = Model(problem, "object", NoiseModel(2, np.ones(40, bool)))
    work = measure_interviews(model, Policy("gbs"), seed=0, max_interviews=4)
    assert 1 <= work.interviews <= 4 and work.mean_questions >= 2 * 2 + 1
    length = round(work.mean_questions)
    leaves = 30 * (1 + length + length * (length - 1) // 2)
    assert work.exact_tree_nodes() == pytest.approx(2 * leaves)
    assert (
        duration_text(40) == "40 s"
        and duration_text(150) == "2.5 min"
        and duration_text(1200) == "20 min"
    )
    assert duration_text(3 * 3600) == "3.0 h" and duration_text(1e20).startswith("more than")


def test_simulated_incidents_are_estimated_and_refused_past_the_time_limit(capsys):
    """simulate --victims ignored --time-limit: 100000 incidents ran on for 20 min and more."""
    import time  # noqa: PLC0415

    begin = time.monotonic()
    argv = ["simulate", "--victims", "3", "--interviews", "1000000", "--time-limit", "2"]
    assert main(argv) == 2
    assert time.monotonic() - begin < 30
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("responder: error: estimated ")
    assert "for 1000000 incidents of 3 victims (measured: " in line
    assert "more than the 2 s limit; use a smaller --interviews or --per-victim" in line


def test_simulated_incidents_within_the_limit_are_not_changed_by_the_measurement(capsys):
    argv = ["simulate", "--victims", "2", "--interviews", "4", "--seed", "3", "--json"]
    assert main(argv) == 0
    measured = json.loads(capsys.readouterr().out)
    assert main([*argv, "--time-limit", "0"]) == 0
    unmeasured = json.loads(capsys.readouterr().out)
    assert measured == unmeasured


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "--memory-limit", "-5"],
        ["eval", "--policy", "random", "--trials", "10", "--memory-limit", "nan"],
        ["simulate", "--victims", "2", "--interviews", "2", "--memory-limit", "-1"],
        ["simulate", "--victims", "2", "--interviews", "2", "--time-limit", "nan"],
    ],
    ids=["eval", "eval monte carlo", "incidents memory", "incidents time"],
)
def test_a_bad_limit_is_an_error_even_where_the_run_does_not_need_it(capsys, argv):
    """--memory-limit -5 was accepted by eval without noise and by simulate --victims."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.strip().splitlines()
    assert line.endswith("must be a finite number, 0 or more (0 = no limit)")


def test_repeated_trees_past_the_time_limit_are_refused_after_the_first(capsys, monkeypatch):
    """'eval --ties random --repeats 100000' built tree after tree for about 40 minutes:
    without noise nothing was estimated."""
    from responder.cli import eval as eval_cli  # noqa: PLC0415

    built = []
    real = eval_cli.evaluate

    def counting(*args, **kwargs):
        built.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(eval_cli, "evaluate", counting)
    code = main(["eval", "--ties", "random", "--seed", "1", "--repeats", "100000"])
    err = capsys.readouterr().err
    assert code == 2 and built == [1]
    assert "for 100000 trees (measured: the first in" in err and "more than the 300 s" in err
    assert main(["eval", "--ties", "random", "--seed", "1", "--repeats", "3", "--json"]) == 0
