"""Large problems finish or are refused at once, with an estimate and the flag that forces
them: on 10,000 x 500, ``eval --noise-eps auto``, ``simulate`` (automatic eps) and
``simulate --answers flip:0.1`` used to run for hours; on 50,000 x 1,000 noise runs held
2.45 GB.

The 10,000 x 500 runs are real processes: their estimates are hours on any machine, so the
refusal does not depend on its speed. The timeout only stops a hang; no time is asserted.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from responder.cli import compare as compare_cli
from responder.cli import inputs, main
from responder.engine.workload import Workload

HANG = 75  # seconds: what the runs took before (and more) is a failure, not a wait


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    path = tmp_path_factory.mktemp("large") / "p10000x500.json"
    rng = np.random.default_rng(0)
    matrix = (rng.random((10_000, 500)) < 0.3).astype(np.int8)
    path.write_text(json.dumps({"matrix": matrix.tolist()}))
    return path


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["eval", "--noise-eps", "auto"], "--time-limit"),
        (["simulate"], "--time-limit"),
        (["simulate", "--answers", "flip:0.1"], "--time-limit"),
    ],
    ids=["eval auto eps", "simulate", "simulate --answers"],
)
def test_runs_on_10000_x_500_are_refused_with_an_estimate(large, argv, flag):
    done = subprocess.run(
        [sys.executable, "-m", "responder.cli", argv[0], "--kb", str(large), *argv[1:]],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("responder: error: estimated ") and flag in line
    assert " h " in line or " days " in line or " min " in line or "years" in line


def small_json(tmp_path, m=600, n=120, seed=3):
    rng = np.random.default_rng(seed)
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"matrix": (rng.random((m, n)) < 0.4).astype(int).tolist()}))
    return path


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (["eval", "--noise-eps", "2"], "evaluating 600 x 120 under noise needs an estimated"),
        (
            ["eval", "--noise-eps", "2", "--method", "monte-carlo"],
            "evaluating 600 x 120 under noise by Monte Carlo over 10000 interviews needs",
        ),
        (["simulate"], "simulating 1000 interviews on 600 x 120 needs an estimated"),
        (["simulate", "--answers", "flip:0.1"], "comparing evidence, strict, noise on 600 x 120"),
    ],
    ids=["eval", "eval monte carlo", "simulate", "simulate --answers"],
)
def test_a_run_past_the_memory_limit_is_refused_before_it_starts(
    tmp_path, capsys, monkeypatch, argv, what
):
    def no_measuring(*_, **__):
        raise AssertionError("measured although the memory estimate was refused")

    monkeypatch.setattr(inputs, "measure_interviews", no_measuring)
    path = small_json(tmp_path)
    code = main([argv[0], "--kb", str(path), *argv[1:], "--memory-limit", "50"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert what in captured.err and "more than the --memory-limit of 50 MB" in captured.err
    assert re.search(r"pass --memory-limit \d+ \(0 = no limit\) to run it anyway", captured.err)


def test_the_memory_limit_can_be_lifted(tmp_path, capsys):
    path = small_json(tmp_path, m=40, n=30)
    argv = ["simulate", "--kb", str(path), "--interviews", "5", "--seed", "0", "--json"]
    assert main([*argv, "--memory-limit", "50"]) == 2
    capsys.readouterr()
    assert main([*argv, "--memory-limit", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["interviews"] == 5


def test_delta_too_long_to_find_is_refused_with_its_estimate(tmp_path, capsys):
    path = small_json(tmp_path, m=3000, n=40)
    code = main(["eval", "--kb", str(path), "--noise-eps", "auto", "--time-limit", "0.000001"])
    err = capsys.readouterr().err
    assert code == 2
    assert "finding delta, the least Hamming distance between two rows of this 3000 x 40" in err
    assert "more than the 1e-06 s limit; pass --time-limit " in err


@pytest.fixture
def slow_modes(monkeypatch):
    """Every mode measures 0.5 s per interview."""

    def measure(*_, **__):
        return Workload(0.5, 20.0, 3, 40, 0)

    monkeypatch.setattr(compare_cli, "measure_interviewer", measure)
    monkeypatch.setattr(compare_cli, "measure_policy_interviews", measure)


def test_answers_comparison_past_the_time_limit_is_refused_per_mode(tmp_path, capsys, slow_modes):
    path = small_json(tmp_path, m=40, n=30)
    code = main(["simulate", "--kb", str(path), "--answers", "flip:0.1", "--interviews", "250"])
    err = capsys.readouterr().err
    assert code == 2
    # 3 modes x 250 interviews x 0.5 s
    assert "estimated 6.2 min for 250 interviews per mode (" in err
    assert "strict gbs 2.1 min" in err and "noise gbs eps=2 2.1 min" in err
    # 375 s and a fifth more: a limit named exactly was refused again when measured anew
    assert "more than the 300 s limit" in err and "--time-limit 450" in err


def test_a_comparison_refused_on_its_noise_mode_alone_names_no_limit_too_short(
    tmp_path, capsys, slow_modes
):
    """Refused on the noise mode, measured first (125 s here), it said 'pass --time-limit
    125'; given that, the whole comparison (375 s) was refused in turn."""
    path = small_json(tmp_path, m=40, n=30)
    argv = ["simulate", "--kb", str(path), "--answers", "flip:0.1", "--interviews", "250"]
    code = main([*argv, "--time-limit", "100"])
    err = capsys.readouterr().err
    assert code == 2 and "estimated at least 2.1 min for 250 interviews per mode" in err
    assert "before the other modes are measured" in err
    assert "pass a --time-limit above 150 (the other modes add to it; 0 = no limit)" in err
    assert "pass --time-limit 125" not in err


def test_answers_comparison_within_the_limit_runs(tmp_path, capsys, slow_modes):
    path = small_json(tmp_path, m=40, n=30)
    argv = ["simulate", "--kb", str(path), "--answers", "flip:0.1", "--interviews", "20"]
    assert main([*argv, "--seed", "0", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["modes"]) == 3


def test_measuring_stays_within_its_budget(tmp_path, capsys, monkeypatch):
    budgets: list[float] = []

    def measure(model, policy, seed=None, budget_seconds=0.5, **_):
        budgets.append(budget_seconds)
        eps = model.noise.eps_eff
        return Workload(10.0 * eps, 10.0 * eps, 5, model.problem.n_objects, eps)

    monkeypatch.setattr(inputs, "measure_interviews", measure)
    path = small_json(tmp_path, m=40, n=200, seed=5)
    code = main(["simulate", "--kb", str(path), "--extra-errors", "0", "--time-limit", "1"])
    assert code == 2 and "even eps 1 does not fit" in capsys.readouterr().err
    assert len(budgets) > 3 and sum(budgets) <= inputs.MEASURE_SECONDS + 0.05 * len(budgets)


@pytest.mark.parametrize(
    "argv",
    [
        ["--method", "monte-carlo", "--trials", "100000000"],
        [
            "--policy",
            "gqsa",
            "--trials",
            "100000000",
        ],  # auto turns to Monte Carlo past --max-states
    ],
    ids=["monte-carlo", "auto, branching"],
)
def test_a_noise_free_monte_carlo_past_the_memory_limit_is_refused(capsys, monkeypatch, argv):
    """It ran and grew: 15 GB after 30 s on the bundled knowledge base, nothing refused."""
    from responder.cli import eval as eval_cli  # noqa: PLC0415

    def no_run(*_, **__):
        raise AssertionError("evaluated although the memory estimate was refused")

    monkeypatch.setattr(eval_cli, "evaluate", no_run)
    code = main(["eval", *argv])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert "by Monte Carlo over 100000000 interviews" in captured.err
    assert "more than the --memory-limit of 1024 MB; use a smaller --trials" in captured.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--trials", "99999999999999999999", "--memory-limit", "0"], "--trials must be"),
        (["--max-states", "0"], "--max-states must be at least 1"),
        (["--max-states", "-5", "--policy", "gqsa"], "--max-states must be at least 1"),
    ],
)
def test_eval_counts_out_of_range_are_one_line(capsys, argv, message):
    """--trials 1e20 was an OverflowError traceback; --max-states -5 was taken (every
    branching tree went to Monte Carlo) and --max-states 0 said 'more than 0 states'."""
    code = main(["eval", "--method", "monte-carlo" if "--trials" in argv else "auto", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
