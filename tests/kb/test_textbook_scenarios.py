"""The textbook scenarios (benchmarks/scenarios/) stay valid as the bundled knowledge base
changes: every file loads, every observation names a symptom or scene observation of the
bundled knowledge base (an id, a retired id or a synonym), and every agent and class exists.
The replay script (benchmarks/textbook_scenarios.py) answers as its docstring says."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from responder.kb import load_bundled

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "textbook_scenarios.py"
KB = load_bundled()


def load_script():
    spec = importlib.util.spec_from_file_location("textbook_scenarios", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


SCRIPT_MODULE = load_script()
SCENARIOS = SCRIPT_MODULE.load_scenarios()


def canonical(text):
    return KB.symptom(text).id


def test_there_are_thirty_one_scenarios_with_distinct_agents():
    # 19 written first (80d70a5), 12 more written blind later (f3017cc)
    assert len(SCENARIOS) == 31
    assert len({s.agent for s in SCENARIOS}) == len(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_every_observation_exists_in_the_bundled_knowledge_base(scenario):
    unknown = []
    for text in scenario.observations():
        try:
            KB.symptom(text)
        except KeyError:
            unknown.append(text)
    assert unknown == []


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_agent_exists_in_its_class(scenario):
    assert scenario.class_id in KB.class_by_id
    assert KB.chemical(scenario.agent).class_id == scenario.class_id


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_no_observation_is_both_yes_and_no_and_each_sheet_names_its_sources(scenario):
    sheet = SCRIPT_MODULE.Sheet(scenario, canonical)  # raises on a contradiction
    assert all(sheet.answer(canonical(x)) == "yes" for x in scenario.reported)
    assert all(sheet.answer(canonical(x)) == "no" for x in scenario.no)
    assert scenario.sources and scenario.judgement


def test_a_sheet_with_a_missing_key_is_refused_by_name(tmp_path):
    (tmp_path / "broken.toml").write_text('title = "x"\nagent = "ammonia"\n', encoding="utf-8")
    with pytest.raises(SCRIPT_MODULE.ScenarioError, match="broken.toml: missing"):
        SCRIPT_MODULE.load_scenarios(tmp_path)


def test_a_contradicting_sheet_is_refused(tmp_path):
    scenario = SCENARIOS[0]
    bad = SCRIPT_MODULE.Scenario(**{**vars(scenario), "no": ("cough",), "yes": ("coughing",)})
    with pytest.raises(SCRIPT_MODULE.ScenarioError, match="both yes and no"):
        SCRIPT_MODULE.Sheet(bad, canonical)


def _sheet(yes=(), no=()):
    scenario = SCRIPT_MODULE.Scenario(
        "t", "t", "ammonia", "irritant_gases", ("cough",), tuple(yes), tuple(no), ("s",), ("j",)
    )
    return SCRIPT_MODULE.Sheet(scenario, canonical)


def _reply(symptoms, members=None):
    group = None if members is None else {"id": "g", "members": members, "none": "Normal"}
    return {"suggestion": {"kind": "symptom", "symptoms": symptoms, "group": group}}


def test_an_exclusive_group_is_one_question_answered_from_the_sheet():
    pupils = ["pinpoint_pupils", "dilated_pupils"]
    reply = _reply(pupils, members=pupils)
    assert SCRIPT_MODULE.next_question(reply, _sheet(yes=["dilated_pupils"]), set()) == [
        ("dilated_pupils", "yes")
    ]
    assert SCRIPT_MODULE.next_question(reply, _sheet(no=pupils), set()) == [
        ("pinpoint_pupils", "no"),
        ("dilated_pupils", "no"),
    ]
    # one member ruled out, the other not said: only the suggested sign is answered
    assert SCRIPT_MODULE.next_question(reply, _sheet(no=["pinpoint_pupils"]), set()) == [
        ("pinpoint_pupils", "no")
    ]


def test_a_sign_the_sheet_does_not_mention_is_answered_unknown_and_never_twice():
    reply = _reply(["cough", "frostbite"])
    assert SCRIPT_MODULE.next_question(reply, _sheet(), {"cough"}) == [("frostbite", "unknown")]
    assert SCRIPT_MODULE.next_question(reply, _sheet(), {"cough", "frostbite"}) == []


def test_a_replay_enters_the_reported_facts_first_and_keeps_to_the_answer_limit():
    scenario = next(s for s in SCENARIOS if s.name == "ammonia_cold_store")
    result = SCRIPT_MODULE.replay(scenario, "evidence", canonical, max_answers=8)
    reported = [f"{x}=yes" for x in scenario.reported]
    assert list(result.transcript[: len(reported)]) == reported
    assert result.answers == 8 or result.status != "asking"
    assert result.answers <= 8 and result.reported == len(reported)
    assert result.rank is not None and 0 < result.probability <= 1
