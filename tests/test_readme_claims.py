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
