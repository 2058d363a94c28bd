"""``responder simulate --answers``: modes side by side on the same simulated victims."""

from __future__ import annotations

import json

import pytest

from responder.cli import main


def run_json(capsys, *args):
    code = main(["simulate", *args, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_modes_side_by_side_with_intervals(capsys):
    out = run_json(capsys, "--answers", "flip:0.1", "--interviews", "40", "--seed", "3")
    assert out["answers"] == "flip:0.1" and out["objects"] > 200
    names = [m["mode"] for m in out["modes"]]
    assert (
        names[0].startswith("evidence")
        and names[1] == "strict gbs"
        and names[2].startswith("noise")
    )
    for m in out["modes"]:
        assert m["interviews"] == 40
        for key in ("top1", "top5", "silently_wrong", "no_fit"):
            lo, hi = m[key]["ci95"]
            assert 0 <= lo <= m[key]["share"] <= hi <= 1
        assert m["top1"]["share"] <= m["top5"]["share"]
        lo, hi = m["mean_questions"]["ci95"]
        assert lo <= m["mean_questions"]["mean"] <= hi
    evidence, strict = out["modes"][0], out["modes"][1]
    # 10% wrong answers: strict elimination is often silently wrong, the evidence mode rarely.
    assert strict["silently_wrong"]["share"] > evidence["silently_wrong"]["share"]
    assert evidence["top5"]["share"] > strict["top5"]["share"]


def test_victims_and_categories_and_text_output(capsys):
    out = run_json(
        capsys,
        "--answers",
        "victim:0.7,0.05",
        "--interviews",
        "10",
        "--seed",
        "1",
        "--policy",
        "gqsa",
        "--modes",
        "evidence,strict",
        "--pick",
        "any",
    )
    # the evidence mode runs with the bundled knowledge base's fitted answer model
    from responder.kb.resolve import resolve_kb

    fitted = resolve_kb(None).answer_model
    name = f"evidence s={fitted['sensitivity']:g} l={fitted['leak']:g} pick=any"
    assert [m["mode"] for m in out["modes"]] == [name, "strict gqsa"]
    assert main(["simulate", "--answers", "flip:0", "--interviews", "5", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "top-1" in text and "strict gbs" in text and "100.0%" in text


def test_the_eps_warning_only_when_persistent_noise_is_compared(capsys):
    args = ["simulate", "--answers", "flip:0", "--interviews", "5", "--seed", "1"]
    assert main([*args, "--modes", "evidence,strict"]) == 0
    assert "eps" not in capsys.readouterr().err
    # the bundled knowledge base has identical rows (delta 1), so eps auto = 1 is past it
    assert main([*args, "--modes", "noise"]) == 0
    assert "warning: eps = " in capsys.readouterr().err


def test_persistent_uses_the_noise_settings(capsys):
    out = run_json(
        capsys,
        "--answers",
        "persistent",
        "--noise-eps",
        "1",
        "--interviews",
        "10",
        "--seed",
        "2",
        "--modes",
        "noise",
    )
    assert out["answers"] == "persistent" and out["noise_eps"] == 1


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--answers", "flip:0.9"], "F must lie in [0, 0.5]"),
        (["--answers", "victim:0.1"], "is not understood"),
        (["--answers", "flip:0.1", "--modes", "fast"], "choose from evidence, strict, noise"),
        (["--answers", "flip:0.1", "--sensitivity", "0"], "--sensitivity: sensitivity is 0"),
        (["--answers", "flip:0.1", "--leak", "1.2"], "--leak: leak is 1.2"),
        (["--answers", "flip:0.1", "--threshold", "0.2"], "--threshold: threshold is 0.2"),
        (
            ["--answers", "flip:0.1", "--long-row-exponent", "1.5"],
            "--long-row-exponent: long-row exponent is 1.5",
        ),
        (["--answers", "flip:0.1", "--policy", "random"], "--answers compares"),
    ],
)
def test_bad_input_exit_2(capsys, args, fragment):
    assert main(["simulate", *args]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err


def test_the_scene_step_comes_first_and_is_not_counted(capsys):
    args = ("--answers", "flip:0", "--modes", "evidence", "--interviews", "40", "--seed", "2")
    plain = run_json(capsys, *args)
    scene = run_json(capsys, *args, "--scene-step")
    assert plain["scene_step"] is False and scene["scene_step"] is True
    # The smell, the place and the rest are ticked before any question: fewer questions.
    assert scene["modes"][0]["median_questions"] < plain["modes"][0]["median_questions"]
    assert scene["modes"][0]["top5"]["share"] == 1.0


@pytest.mark.parametrize(
    "args, message",
    [
        (("--answers", "flip:0.1", "--scene-step"), "--modes evidence"),
        (("--answers", "victim:0.7,0.05", "--modes", "evidence", "--scene-step"), "flip:F"),
    ],
)
def test_a_scene_step_the_comparison_cannot_have_is_refused(capsys, args, message):
    code = main(["simulate", *args, "--interviews", "5"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_a_mode_named_twice_is_an_error(capsys):
    """evidence,evidence printed two 'evidence' rows with different figures (the second run
    drew other wrong answers), as if the same mode on the same victims disagreed with itself."""
    code = main(
        ["simulate", "--answers", "flip:0.1", "--modes", "evidence,strict,evidence"]
        + ["--interviews", "2", "--seed", "0"]
    )
    out = capsys.readouterr()
    assert code == 2 and out.out == ""
    assert out.err.strip() == (
        "responder: error: --modes 'evidence,strict,evidence' names evidence twice; "
        "name each mode once"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--answers", "flip:0.1", "--modes", "evidence", "--interviews", "5"],
        ["simulate", "--victims", "2", "--interviews", "2"],
        ["kb", "validate"],
        ["interview", "--jsonl"],
    ],
)
def test_several_routes_share_on_a_knowledge_base_without_contact_signs_is_refused(
    argv, capsys, monkeypatch
):
    """QA round 12: on a knowledge base listing no [[contact_signs]] the option changed
    nothing, yet simulate's JSON echoed it ("several_routes_share": 0.3) beside figures run
    without route views. Refused like any option the run does not read; 1 (off) is kept."""
    import io
    from pathlib import Path

    fixture = str(Path(__file__).resolve().parents[1] / "app" / "fixtures" / "kb")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main([*argv, "--kb", fixture, "--several-routes-share", "0.3"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines() == [
        "responder: error: --several-routes-share does not apply here: knowledge base 'kb' "
        "lists no route's contact signs ([[contact_signs]] in consistency.toml), so every "
        "victim is weighed on the whole row; leave it out, or use a knowledge base that "
        "lists them (the bundled one does)"
    ]
    if argv[0] == "interview":
        assert main([*argv, "--kb", fixture, "--several-routes-share", "1"]) == 0
