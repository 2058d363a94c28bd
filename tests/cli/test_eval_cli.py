"""``responder eval`` on interchange JSON files: results equal the engine's, bad input is one line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from responder.cli import main
from responder.cli.inputs import load_interchange
from responder.engine.belief import Model
from responder.engine.evaluate import bounds, evaluate
from responder.engine.policies import Policy


def write(tmp_path, data, name="kb.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def run_json(capsys, path, *args):
    code = main(["eval", "--kb", str(path), "--json", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def random_interchange(seed: int, m: int = 9, n: int = 7) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "matrix": (rng.random((m, n)) < 0.4).astype(int).tolist(),
        "prior": (rng.random(m) + 0.1).round(6).tolist(),
        "groups": [f"class {k}" for k in rng.integers(0, 3, m)],
        "queries": [f"symptom {j}" for j in range(n)],
        "query_groups": [f"system {k}" for k in rng.integers(0, 3, n)],
        "objects": [f"chemical {i}" for i in range(m)],
    }


TOY1 = {"matrix": [[0, 1, 1], [1, 1, 0], [0, 1, 0], [1, 0, 0]], "groups": ["1", "1", "1", "2"]}


def test_json_keys_and_toy_example(tmp_path, capsys):
    path = write(tmp_path, TOY1)
    out = run_json(capsys, path, "--target", "group", "--policy", "gisa")
    for key in ("expected_queries", "entropy_bound", "method", "ci95"):
        assert key in out
    assert out["expected_queries"] == pytest.approx(1.0)
    assert out["method"] == "exact" and out["ci95"] is None
    out = run_json(capsys, path, "--target", "group", "--policy", "gbs")
    assert out["expected_queries"] == pytest.approx(1.5)
    assert out["entropy_bound"] == pytest.approx(0.8112781244591328)


def test_only_matrix_is_required(tmp_path, capsys):
    path = write(tmp_path, {"matrix": [[0, 0], [0, 1], [1, 0], [1, 1]]})
    out = run_json(capsys, path)
    assert out["expected_queries"] == pytest.approx(2.0)
    assert out["entropy_bound"] == pytest.approx(2.0)
    assert out["method"] == "exact"


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@example(m=9, n=7, seed=0)
@given(m=st.integers(3, 12), n=st.integers(2, 9), seed=st.integers(0, 2**32 - 1))
def test_exact_expected_queries_equal_the_engine(tmp_path_factory, capsys, m, n, seed):
    """For both targets and GBS and GISA, `eval --json` on a random interchange file (random
    matrix, prior, classes and categories) reports the engine's exact E[K], its
    decomposition and entropy bound."""
    path = write(tmp_path_factory.mktemp("eval"), random_interchange(seed, m, n))
    for target in ("object", "group"):
        model = Model(load_interchange(path), target)
        for policy in ("gbs", "gisa"):
            out = run_json(capsys, path, "--target", target, "--policy", policy)
            ev = evaluate(model, Policy(policy))
            assert out["method"] == "exact" and out["ci95"] is None
            assert out["expected_queries"] == pytest.approx(ev.expected_queries, abs=1e-12)
            assert out["decomposition"] == pytest.approx(ev.expected_queries, abs=1e-9)
            assert out["entropy_bound"] == pytest.approx(bounds(model)["entropy_bound"], abs=1e-12)
            assert out["expected_queries"] >= out["entropy_bound"] - 1e-9


@pytest.mark.parametrize("target, policy", [("object", "gqsa"), ("group", "gigqsa")])
def test_category_policies_exact_or_monte_carlo(tmp_path, capsys, target, policy):
    path = write(tmp_path, random_interchange(11))
    out = run_json(capsys, path, "--target", target, "--policy", policy)
    model = Model(load_interchange(path), target)
    assert out["method"] == "exact" and out["ci95"] is None
    exact = evaluate(model, Policy(policy), method="exact").expected_queries
    assert out["expected_queries"] == pytest.approx(exact, abs=1e-12)
    # (A 95% interval misses about one seed in 20; this fixed seed is one that covers.)
    out = run_json(
        capsys, path, "--target", target, "--policy", policy, "--max-states", "5", "--seed", "1"
    )
    assert out["method"] == "monte-carlo"
    lo, hi = out["ci95"]
    assert lo <= out["expected_queries"] <= hi
    assert lo <= exact <= hi
    assert out["trials"] >= 10_000


GOOD = [[0, 1], [1, 0], [1, 1]]


@pytest.mark.parametrize(
    "data, args, needle",
    [
        ({"matrix": [[0, 2], [1, 0]]}, [], "0 or 1"),
        ({"matrix": [[0, 1], ["1", 0]]}, [], "0 or 1"),
        ({"matrix": [[0, 1], [0.5, 0]]}, [], "0 or 1"),
        ({"matrix": [[0, 1], [1]]}, [], "ragged"),
        ({"matrix": []}, [], "empty"),
        ({"matrix": "0101"}, [], "matrix"),
        ({"matrix": GOOD, "prior": [1, 2]}, [], "prior"),
        ({"matrix": GOOD, "groups": ["a", "b"]}, ["--target", "group"], "label"),
        ({"matrix": GOOD, "query_groups": ["x"]}, ["--policy", "gqsa"], "label"),
        ({"matrix": GOOD, "objects": ["a"]}, [], "name"),
        ({"matrix": GOOD, "queries": ["a", "b", "c"]}, [], "name"),
        ({"matrix": GOOD, "pick_weights": [1]}, [], "pick weights"),
        ({"matrix": GOOD, "prior": [1, -1, 1]}, [], "entry 1 is -1, which is not a positive"),
        ({"matrix": GOOD, "prior": [0, 0, 0]}, [], "entry 0 is 0, which is not a positive"),
        ({"matrix": GOOD, "prior": "uniform"}, [], "prior"),
        ({"matrix": GOOD, "groups": [[1], [2], [3]]}, ["--target", "group"], "label"),
        ({"matrix": GOOD, "group_names": 5}, [], "group_names"),
        ({"matrix": GOOD, "pick_weights": ["a", 1]}, [], "'pick_weights' entry 0 must be a number"),
        ({"matrix": GOOD}, ["--policy", "bogus"], "policy"),
        ({"matrix": GOOD}, ["--target", "group"], "group"),
        ({"matrix": GOOD, "groups": ["1", "1", "2"]}, ["--policy", "gqsa"], "categor"),
        (
            {"matrix": GOOD, "groups": ["1", "1", "2"]},
            ["--policy", "gigqsa", "--target", "group"],
            "categor",
        ),
        ({"matrix": GOOD, "colour": 1}, [], "colour"),
        ({"prior": [1]}, [], "matrix"),
        ([[0, 1]], [], "object"),
        ('{"matrix": [[0, 1], [1, 0]]', [], "JSON"),
        ("{matrix: [[0,1]]}", [], "JSON"),
        ("", [], "JSON"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, data, args, needle):
    path = write(tmp_path, data)
    code = main(["eval", "--kb", str(path), "--json", *args])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("responder: error:")
    assert needle.lower() in lines[0].lower()
    assert "Traceback" not in err


def test_missing_file_and_bad_encoding(tmp_path, capsys):
    code = main(["eval", "--kb", str(tmp_path / "nowhere.json")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no such file" in err
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"matrix": [[0, 1]], "objects": ["caf\xe9"]}')
    code = main(["eval", "--kb", str(bad)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "UTF-8" in err


@pytest.mark.parametrize(
    "data, args",
    [
        ({"matrix": [[0, 7]]}, []),
        ("not json at all", []),
        ({"matrix": GOOD}, ["--policy", "gqsa"]),
    ],
)
def test_bad_input_in_a_real_process_has_no_traceback(tmp_path, data, args):
    path = write(tmp_path, data)
    proc = subprocess.run(
        [sys.executable, "-m", "responder.cli", "eval", "--kb", str(path), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""


def test_text_output(tmp_path, capsys):
    path = write(tmp_path, TOY1)
    assert main(["eval", "--kb", str(path), "--target", "group", "--policy", "gbs"]) == 0
    out = capsys.readouterr().out
    assert "E[K] = 1.5000" in out and "[exact]" in out and "entropy bound" in out


def test_json_booleans_and_floats_are_not_binary_cells(tmp_path, capsys):
    from responder.cli import main

    for cell, shown in (("true", "true"), ("1.0", "1.0")):
        path = tmp_path / "m.json"
        path.write_text(f'{{"matrix": [[0, {cell}], [1, 0]]}}', encoding="utf-8")
        assert main(["eval", "--kb", str(path)]) == 2
        err = capsys.readouterr().err
        assert f"cell [0][1] is {shown}" in err and "Traceback" not in err


def test_exact_stops_at_max_states_with_one_message(capsys):
    """`eval --method exact --policy gqsa --max-states 1000` ran unbounded (60 s+, 340 MB)."""
    code = main(["eval", "--method", "exact", "--policy", "gqsa", "--max-states", "1000"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == (
        "responder: error: --method exact: the tree has more than 1000 distinct states "
        "(--max-states); give a larger --max-states, or --method auto to estimate it by "
        "Monte Carlo past that\n"
    )


def test_exact_stops_at_the_time_limit_with_one_message(capsys):
    import time

    started = time.monotonic()
    code = main(
        ["eval", "--method", "exact", "--policy", "gqsa", "--max-states", "10000000"]
        + ["--time-limit", "1"]
    )
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("responder: error: --method exact: not finished within --time-limit 1 s")
    assert time.monotonic() - started < 30  # the load and one second, not the whole tree


def test_exact_within_both_limits_is_the_engines_value(tmp_path, capsys):
    path = write(tmp_path, random_interchange(3))
    out = run_json(capsys, path, "--method", "exact", "--policy", "gqsa", "--time-limit", "60")
    assert out["method"] == "exact" and out["ci95"] is None
    exact = evaluate(Model(load_interchange(path), "object"), Policy("gqsa"), method="exact")
    assert out["expected_queries"] == pytest.approx(exact.expected_queries, abs=1e-12)


def test_repeats_without_random_ties_is_one_error(capsys):
    """`eval --repeats 3` without --ties random printed three identical trees' zero-width
    interval."""
    code = main(["eval", "--repeats", "3"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == (
        "responder: error: --repeats 3 needs --ties random: with --ties first every tree is "
        "the same, and their interval would be zero wide\n"
    )


def test_repeats_with_random_ties_gives_an_interval(tmp_path, capsys):
    path = write(tmp_path, random_interchange(5))
    out = run_json(capsys, path, "--ties", "random", "--repeats", "3", "--seed", "1")
    low, high = out["ci95"]
    assert low <= out["expected_queries"] <= high
