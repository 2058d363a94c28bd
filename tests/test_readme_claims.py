"""The README's figures about the bundled knowledge base are measured, not remembered: the
class target's and the chemical target's exact expected questions it states must be what
`responder eval` computes now (a remembered claim, such as "the class target needs fewer
questions", can be false on the bundled knowledge base)."""

from __future__ import annotations

import re
from pathlib import Path

from responder.engine.belief import Model
from responder.engine.evaluate import evaluate
from responder.engine.policies import Policy
from responder.kb.resolve import resolve_kb

README = Path(__file__).resolve().parents[1] / "README.md"


def exact(target: str, policy: str) -> float:
    problem = resolve_kb(None).to_problem()
    return evaluate(Model(problem, target), Policy(policy), method="exact").expected_queries


def test_readme_class_and_chemical_question_counts_are_current():
    text = " ".join(README.read_text(encoding="utf-8").split())
    claims = re.findall(
        r"(\d+\.\d) for the class \(GISA\) against (\d+\.\d) for the chemical \(GBS\)", text
    )
    claims += re.findall(
        r"(\d+\.\d) expected questions against GBS's (\d+\.\d) for the chemical", text
    )
    assert len(claims) == 2, claims  # the Target mode and the "How it decides" section
    gisa, gbs = exact("group", "gisa"), exact("object", "gbs")
    for class_figure, chemical_figure in claims:
        assert (class_figure, chemical_figure) == (f"{gisa:.1f}", f"{gbs:.1f}")
    # The wording must agree with the figures: "saves little" only while the class is cheaper.
    assert gisa < gbs or "saves little" not in text


def test_the_readme_key_table_lists_every_key_of_the_interview_screen():
    from responder.app.screens.interview import InterviewScreen

    text = README.read_text(encoding="utf-8")
    table = text[text.index("### Keys") :]
    table = table[: table.index("\n\n", table.index("| Key | Action |"))]
    shown = {
        "up": "↑",
        "down": "↓",
        "pageup": "pgup",
        "pagedown": "pgdn",
        "question_mark": "?",
        "slash": "/",
        "plus": "+",
        "minus": "-",
        "backspace": "⌫",
        "f1": "F1",
    }
    for binding in InterviewScreen.BINDINGS:
        if binding.id.startswith("victim.") and binding.id.removeprefix("victim.").isdigit():
            assert "`1`-`9`" in table
            continue
        for key in binding.key.split(","):
            key = shown.get(key, key)
            # a key of its own, not the dash of "`1`-`9`"
            assert re.search(rf"(?m)(?:^|[\s|])`{re.escape(key)}`", table), (binding.id, key)


def _documented_keys(opening: str) -> set[str]:
    """Every `name` the README's paragraph opening with ``opening`` quotes."""
    text = README.read_text(encoding="utf-8")
    paragraph = text[text.index(opening) :].split("\n\n", 1)[0]
    return set(re.findall(r"`([a-z_0-9]+)`", paragraph)) | set(
        re.findall(r'"([a-z_0-9]+)"', paragraph)
    )


def _json_of(capsys, *argv: str) -> dict:
    import json  # noqa: PLC0415

    from responder.cli import main  # noqa: PLC0415

    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_every_key_of_eval_json_is_documented(capsys):
    """The README named 7 of eval --json's 16 keys (18 for a category policy)."""
    documented = _documented_keys("`eval --json` prints")
    for argv in (["eval"], ["eval", "--policy", "gqsa", "--trials", "200"]):
        out = _json_of(capsys, *argv)
        assert set(out) <= documented, set(out) - documented
        for model in out.get("pick_models", {}).values():
            assert set(model) <= documented


def test_every_key_of_simulate_json_is_documented(capsys, tmp_path, monkeypatch):
    """simulate --json's three shapes were documented nowhere."""
    monkeypatch.setenv("RESPONDER_HOME", str(tmp_path / "home"))
    documented = _documented_keys("`simulate --json` prints")
    persistent = _json_of(capsys, "simulate", "--interviews", "20", "--seed", "0")
    compared = _json_of(
        capsys, "simulate", "--answers", "flip:0.1", "--modes", "evidence", "--interviews", "3"
    )
    incidents = _json_of(capsys, "simulate", "--victims", "2", "--interviews", "3")
    nested = [persistent["within_eps"], persistent["beyond_eps"], *compared["modes"]]
    nested += [persistent["within_eps"]["accuracy"], compared["modes"][0]["top1"]]
    for keys in (persistent, compared, incidents, *nested):
        assert set(keys) <= documented, set(keys) - documented


def test_every_key_of_a_protocol_reply_is_documented():
    """The README listed 'candidate' for 'candidates' and left out 'answers', 'victims',
    'incident', the suggestion's 'victim' and the input's 'victim'."""
    from responder.cli.interview import Protocol  # noqa: PLC0415
    from responder.config import InterviewConfig  # noqa: PLC0415
    from responder.core.session import Interview  # noqa: PLC0415

    documented = _documented_keys("Input is `{")
    kb = resolve_kb(None)
    proto = Protocol(kb, Interview(kb, InterviewConfig()))
    reply = proto.handle('{"symptom": "small pupils", "answer": "yes", "victim": "driver"}')
    assert {"symptom", "answer", "victim", "undo", "implied"} <= documented
    group = Protocol(kb, Interview(kb, InterviewConfig()))._group(kb.symptom_index("slow_pulse"))
    nested = [reply["suggestion"], group, reply["candidates"][0]]
    nested += [reply["candidates"][0]["chemicals"][0], reply["classes"][0], reply["victims"][0]]
    nested += [reply["answers"][-1]]  # an implied one: the other pupil size
    assert reply["answers"][-1]["implied"] is True
    for keys in (reply, *nested):
        assert set(keys) <= documented, set(keys) - documented


def test_the_readme_says_when_eval_json_has_trials_and_pick_models(capsys, tmp_path):
    """The README said a category policy adds `trials`: an exact category run has none, and
    every Monte Carlo run (GBS too) has it."""
    problem = tmp_path / "p.json"
    problem.write_text(
        '{"matrix": [[0,1,1],[1,1,0],[0,1,0],[1,0,0]], "query_groups": ["x","x","y"]}',
        encoding="utf-8",
    )
    kb = ["--kb", str(problem)]
    category_exact = _json_of(capsys, "eval", *kb, "--policy", "gqsa")
    assert "pick_models" in category_exact and "trials" not in category_exact
    gbs_by_sampling = _json_of(capsys, "eval", *kb, "--method", "monte-carlo", "--trials", "50")
    assert gbs_by_sampling["trials"] == 50 and "pick_models" not in gbs_by_sampling
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert "a category policy adds `pick_models`" in text
    assert "a Monte Carlo run (any policy) `trials`" in text
