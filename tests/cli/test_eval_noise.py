"""``responder eval`` in noise mode gives the E[K] of the same policy on the explicit
dilated matrix (Section 6), written as an interchange file with groups = original objects."""

from __future__ import annotations

import json

import numpy as np
import pytest

from responder.cli import main
from responder.engine.diagnostics import default_eps, min_hamming_distance
from responder.engine.dilated import build_dilated, to_interchange
from responder.engine.noise import NoiseModel, prone_mask
from responder.engine.problem import Problem


def small_problem(seed: int, m: int = 5, n: int = 7, min_delta: int = 3) -> dict:
    rng = np.random.default_rng(seed)
    rows: list[np.ndarray] = []
    while len(rows) < m:  # greedy: keep a random row if it is far enough from the others
        r = rng.random(n) < 0.5
        if all(int((r != s).sum()) >= min_delta for s in rows):
            rows.append(r)
    B = np.array(rows)
    return {
        "matrix": B.astype(int).tolist(),
        "prior": (rng.random(m) + 0.2).tolist(),
        "groups": [f"class{g}" for g in (list(range(2)) + rng.integers(0, 2, m - 2).tolist())],
        "queries": [f"q{j}" for j in range(n)],
        "objects": [f"chem{i}" for i in range(m)],
        "query_groups": [f"cat{c}" for c in ([0, 1] + rng.integers(0, 2, n - 2).tolist())],
    }


def run_json(capsys, argv) -> dict:
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def _noise_for(data: dict, eps, prone: str, model: int, p: float, seed: int) -> NoiseModel:
    problem = Problem.build(data["matrix"], query_names=data["queries"])
    if eps == "auto":
        eps = default_eps(min_hamming_distance(problem.matrix))
    mask = prone_mask(problem.n_queries, prone, problem.query_names, seed=seed)
    return NoiseModel(int(eps), mask, model=model, p=p)


CASES = [
    # (seed, eps, prone, model, p)
    (0, "auto", "all", 1, 0.25),
    (1, "auto", "all", 2, 0.25),
    (2, "1", "q1,q3,q4,q6", 1, 0.25),
    (3, "1", "0.6", 2, 0.1),
    (4, "2", "all", 2, 0.3),  # eps above floor((delta-1)/2): a warning, same E[K]
]


@pytest.mark.parametrize("seed, eps, prone, model, p", CASES)
@pytest.mark.parametrize("target", ["object", "group"])
@pytest.mark.parametrize("policy", ["gbs", "gisa"])
def test_eval_noise_equals_explicit_dilated(
    tmp_path, capsys, seed, eps, prone, model, p, target, policy
):
    data = small_problem(seed)
    src = tmp_path / "problem.json"
    src.write_text(json.dumps(data))
    noisy = run_json(
        capsys,
        [
            "eval",
            "--kb",
            str(src),
            "--target",
            target,
            "--policy",
            policy,
            "--json",
            "--noise-eps",
            eps,
            "--noise-prone",
            prone,
            "--noise-model",
            str(model),
            *(["--noise-p", str(p)] if model == 2 else []),  # model 1 takes no p
            "--seed",
            str(seed),
            "--method",
            "exact",
        ],
    )
    noise = _noise_for(data, eps, prone, model, p, seed)
    problem = Problem.build(
        data["matrix"],
        prior=data["prior"],
        object_groups=data["groups"],
        query_names=data["queries"],
        object_names=data["objects"],
    )
    dilated = build_dilated(problem, noise, target=target)
    dst = tmp_path / "dilated.json"
    dst.write_text(json.dumps(to_interchange(dilated)))
    explicit = run_json(
        capsys,
        [
            "eval",
            "--kb",
            str(dst),
            "--target",
            "group",
            "--policy",
            policy,
            "--json",
            "--method",
            "exact",
        ],
    )
    assert noisy["method"] == explicit["method"] == "exact"
    assert abs(noisy["expected_queries"] - explicit["expected_queries"]) <= 1e-12
    assert abs(noisy["decomposition"] - noisy["expected_queries"]) <= 1e-9
    assert explicit["objects"] == dilated.n_rows
    # The settings actually used are reported.
    assert noisy["noise"] == noise.describe()
    assert noisy["noise"]["prone_count"] == int(noise.prone.sum())


def test_eval_noise_class_target_with_category_policy(tmp_path, capsys):
    data = small_problem(9)
    src = tmp_path / "problem.json"
    src.write_text(json.dumps(data))
    noisy = run_json(
        capsys,
        [
            "eval",
            "--kb",
            str(src),
            "--target",
            "group",
            "--policy",
            "gigqsa",
            "--json",
            "--noise-eps",
            "1",
            "--method",
            "exact",
        ],
    )
    noise = _noise_for(data, 1, "all", 1, 0.25, 0)
    problem = Problem.build(
        data["matrix"],
        prior=data["prior"],
        object_groups=data["groups"],
        query_groups=data["query_groups"],
        query_names=data["queries"],
    )
    dst = tmp_path / "dilated.json"
    dst.write_text(json.dumps(to_interchange(build_dilated(problem, noise, target="group"))))
    explicit = run_json(
        capsys,
        [
            "eval",
            "--kb",
            str(dst),
            "--target",
            "group",
            "--policy",
            "gigqsa",
            "--json",
            "--method",
            "exact",
        ],
    )
    assert abs(noisy["expected_queries"] - explicit["expected_queries"]) <= 1e-12


def test_eval_noise_text_output(tmp_path, capsys):
    src = tmp_path / "problem.json"
    src.write_text(json.dumps(small_problem(5)))
    assert main(["eval", "--kb", str(src), "--noise-eps", "auto", "--noise-model", "2"]) == 0
    out = capsys.readouterr().out
    assert "persistent noise: eps 1" in out and "model 2, p 0.25" in out


BAD_SETTINGS = [
    (["--noise-eps=-1"], "eps is -1"),
    (["--noise-eps", "-1"], "eps is -1"),
    (["--noise-eps", "1.5"], "not a whole number"),
    (["--noise-eps", "1", "--noise-model", "2", "--noise-p", "0.7"], "[0, 0.5]"),
    (["--noise-eps", "1", "--noise-model", "2", "--noise-p=-0.1"], "[0, 0.5]"),
    (["--noise-eps", "1", "--noise-prone", "1.5"], "[0, 1]"),
    (["--noise-eps", "1", "--noise-prone=-0.2"], "[0, 1]"),
    (["--noise-eps", "1", "--noise-prone", "q1,nausea"], "unknown query name(s) 'nausea'"),
]


@pytest.mark.parametrize("extra, message", BAD_SETTINGS)
def test_eval_impossible_noise_settings(tmp_path, capsys, extra, message):
    src = tmp_path / "problem.json"
    src.write_text(json.dumps(small_problem(0)))
    code = main(["eval", "--kb", str(src), "--json"] + extra)
    out = capsys.readouterr()
    assert code == 2
    assert out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("responder: error: ")
    assert message in lines[0]
    assert "Traceback" not in out.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--noise-p", "0.3"], "--noise-p 0.3 is model 2's chance of a wrong answer"),
        (["--noise-eps", "1", "--noise-p", "0.3"], "add --noise-model 2, or leave --noise-p out"),
        (["--noise-model", "2"], "--noise-model applies only under persistent noise"),
        (["--noise-prone", "0.5"], "add --noise-eps E (or auto), or leave it out"),
    ],
)
def test_noise_options_the_run_would_not_read_are_refused(capsys, argv, message):
    """'eval --noise-p 0.3' printed the noise-free E[K] and 'eval --noise-eps 1 --noise-p
    0.3' model 1's (p = 0.5), each without a word about the p given."""
    code = main(["eval", *argv])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and message in captured.err
