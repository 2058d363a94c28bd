"""The headless core: knowledge adapter, interview views, export and the entry point."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURE_KB
from responder.core.export import export_interview, report, to_markdown
from responder.kb.model import match_score
from responder.kb.resolve import KnowledgeError, load_knowledge
from responder.core.session import Interview
from responder.settings import NoiseSettings
from responder.engine.state import Answer, Status
from responder.core import views


# -- knowledge adapter ------------------------------------------------------------------------


def test_adapter_indexes_match_the_engine(knowledge):
    p = knowledge.problem
    assert p.query_names == knowledge.symptom_ids
    assert [c.name for c in knowledge.chemicals] == list(p.object_names)
    for c in knowledge.chemicals:
        assert knowledge.classes[p.object_groups[c.index]].id == c.class_id
        row = {knowledge.symptoms[j].id for j in range(p.n_queries) if p.matrix[c.index, j]}
        assert row == c.symptoms
    for s in knowledge.symptoms:
        assert knowledge.categories[p.query_groups[s.index]].id == s.category_id
    chlorine = knowledge.chemicals[knowledge.chemical_index("chlorine")]
    assert chlorine.cas == "7782-50-5" and chlorine.un == "1017"


@pytest.mark.parametrize("typed, expected", [
    ("cough", "cough"), ("COUGH", "cough"), ("pupil", "pinpoint_pupils"),
    ("shrt brth", "shortness_of_breath"), ("convuls", "seizures"), ("watery", "tearing"),
    ("sweat", "sweating"), ("breath", "shortness_of_breath"),
])
def test_symptom_search_is_forgiving(knowledge, typed, expected):
    assert knowledge.search_symptoms(typed)[0].id == expected


def test_search_ranks_prefixes_first_and_finds_nothing_for_nonsense(knowledge):
    assert match_score("cou", "Cough") > match_score("cou", "Sudden cough")
    assert knowledge.search_symptoms("xqzw") == []
    assert len(knowledge.search_symptoms("")) == len(knowledge.symptoms)
    assert knowledge.search_chemicals("1017")[0].name == "Chlorine"


def test_a_bad_knowledge_base_is_one_message(tmp_path):
    (tmp_path / "symptoms.toml").write_text("[[symptom]]\nid = 'Bad Id'\n")
    with pytest.raises(KnowledgeError) as err:
        load_knowledge(str(tmp_path))
    assert "symptoms.toml" in str(err.value)
    with pytest.raises(KnowledgeError) as err:
        load_knowledge("no-such-kb")
    assert "no knowledge base has this name" in str(err.value)


# -- interview views --------------------------------------------------------------------------


def test_category_question_lists_useful_symptoms_first(knowledge):
    it = Interview(knowledge, "chemical", "category")
    view = views.question(it)
    assert view.kind == "category" and view.category is not None
    it.answer(knowledge.symptom_index("pinpoint_pupils"), Answer.YES)
    # among nerve agents, pupils and tearing split nothing; the eyes category then holds
    # only symptoms that cannot change the outcome, so another category is suggested
    view = views.question(it)
    assert all(i.useful for i in view.useful)
    assert view.items[: len(view.useful)] == view.useful


def test_optional_symptoms_are_marked(knowledge):
    it = Interview(knowledge, "chemical", "category")
    it.answer(knowledge.symptom_index("cough"), Answer.YES)
    it.answer(knowledge.symptom_index("blisters"), Answer.NO)
    view = views.question(it)
    useless = [i for i in view.items if not i.useful]
    for item in useless:
        assert item.split == 0.0


def test_policies_follow_target_and_suggestion(knowledge):
    pairs = {("chemical", "symptom"): "gbs", ("class", "symptom"): "gisa",
             ("chemical", "category"): "gqsa", ("class", "category"): "gigqsa"}
    for (t, s), name in pairs.items():
        assert Interview(knowledge, t, s).state.policy.name == name


def test_noise_auto_eps_is_at_least_one(knowledge):
    it = Interview(knowledge, "chemical", "symptom", NoiseSettings(enabled=True))
    assert it.delta == 1 and it.safe_eps == 0
    assert it.state.noise.eps == 1
    assert it.noise_budget() == (0, 1)


def test_inconsistent_interview_ranks_the_closest(knowledge):
    it = Interview(knowledge, "chemical", "symptom")
    it.answer(knowledge.symptom_index("pinpoint_pupils"), Answer.YES)
    it.answer(knowledge.symptom_index("skin_burns"), Answer.YES)
    assert it.status is Status.INCONSISTENT and views.question(it) is None
    closest = views.closest(it)
    assert closest[0].mismatches == 1
    assert views.top_candidate(it) == "no chemical fits"


def test_result_profile_marks_matches_and_mismatches(knowledge):
    it = Interview(knowledge, "chemical", "symptom", NoiseSettings(enabled=True, eps=1))
    # Sarin's profile, except "no" to headache (a wrong answer the noise model tolerates)
    for sid, ans in (("pinpoint_pupils", "yes"), ("headache", "no"), ("wheezing", "yes"),
                     ("shortness_of_breath", "yes"), ("confusion", "no"), ("cough", "no")):
        it.answer(knowledge.symptom_index(sid), ans)
    cands = views.candidates(it)
    assert cands[0].names == "Sarin (GB)" and cands[0].mismatches == 1
    while views.question(it) is not None:
        item = views.question(it).items[0].symptom
        sarin = knowledge.chemicals[knowledge.chemical_index("Sarin (GB)")]
        it.answer(item.index, "yes" if item.id in sarin.symptoms else "no")
    result = views.result(it)
    marks = {r.symptom.id: r.marks[0] for r in result.profile if r.answer}
    assert marks["headache"] == "mismatch" and marks["pinpoint_pupils"] == "match"
    assert result.mismatches == 1


def test_class_result_uses_shares(knowledge):
    it = Interview(knowledge, "class", "symptom")
    it.answer(knowledge.symptom_index("pinpoint_pupils"), Answer.YES)
    result = views.result(it)
    assert result.kind == "class" and result.title == "Nerve agents"
    shares = {r.symptom.id: r.expected[0] for r in result.profile}
    assert shares["pinpoint_pupils"] == 1.0
    assert shares["headache"] == pytest.approx(2 / 3)


def test_remaining_spec_is_tagged_with_its_generation(knowledge):
    from responder.core.remaining import RemainingService, evaluate_spec

    it = Interview(knowledge, "chemical", "category", NoiseSettings(enabled=True))
    generation, spec = it.remaining_spec()
    it.answer(0, Answer.YES)  # the responder goes on while the job runs
    assert generation == 0 != it.generation
    value, method = evaluate_spec(spec)
    assert value > 0 and method in ("exact", "monte-carlo")
    service = RemainingService()
    try:
        assert service.compute(spec) == (value, method)  # same figure from the helper process
    finally:
        service.close()


def test_remaining_service_can_be_cancelled(knowledge):
    import threading

    from responder.core.remaining import Cancelled, RemainingService

    it = Interview(knowledge, "class", "category", NoiseSettings(enabled=True))
    service = RemainingService()
    outcome = []

    def run():
        try:
            outcome.append(service.compute(it.remaining_spec()[1]))
        except Cancelled:
            outcome.append("cancelled")

    try:
        thread = threading.Thread(target=run)
        thread.start()
        import time

        for _ in range(200):
            if service.busy:
                break
            time.sleep(0.01)
        service.cancel()
        thread.join(10)
        assert outcome in (["cancelled"], [pytest.approx(outcome[0])])
        assert service.compute(Interview(knowledge).remaining_spec()[1])[1] == "exact"
    finally:
        service.close()


# -- export -----------------------------------------------------------------------------------


def test_export_markdown_and_json(knowledge, home):
    it = Interview.start(knowledge, "chemical", "symptom", NoiseSettings())
    it.answer(knowledge.symptom_index("cough"), Answer.YES)
    it.answer(knowledge.symptom_index("blisters"), Answer.YES, volunteered=True)
    md, js = export_interview(it)
    assert md.parent == home / "data" / "exports" and md.name == f"interview-{it.id}.md"
    data = json.loads(js.read_text())
    assert data["status"] == "indistinguishable"
    assert [a["symptom_id"] for a in data["answers"]] == ["cough", "blisters"]
    assert data["answers"][1]["volunteered"] is True
    assert data["answers"][0]["at"].startswith("20")  # ISO timestamps
    assert data["result"]["kind"] == "set"
    text = md.read_text()
    assert "Sulfur mustard" in text and "Lewisite" in text and "not a diagnosis" in text
    assert "| Blisters |" in text


def test_export_to_a_chosen_folder_and_of_an_inconsistent_interview(knowledge, tmp_path):
    it = Interview(knowledge, "chemical", "symptom")
    it.answer(knowledge.symptom_index("pinpoint_pupils"), Answer.YES)
    it.answer(knowledge.symptom_index("skin_burns"), Answer.YES)
    md, _ = export_interview(it, tmp_path / "out")
    assert md.parent == tmp_path / "out"
    assert "No chemical fits every answer" in md.read_text()
    assert to_markdown(report(Interview(knowledge))).count("no answers yet") == 1


# -- entry point ------------------------------------------------------------------------------


def test_run_with_a_bad_kb_prints_one_message_and_exits_2(capsys):
    from responder.app.main import run

    assert run("no-such-kb") == 2
    err = capsys.readouterr().err
    assert "no knowledge base has this name" in err and "Traceback" not in err


def test_cli_passes_kb_to_the_app(monkeypatch):
    import responder.app.main as main
    from responder.cli import main as cli_main

    seen = {}
    monkeypatch.setattr(main, "run", lambda kb=None: seen.setdefault("kb", kb) and 0)
    cli_main(["--kb", str(FIXTURE_KB)])
    assert seen["kb"] == str(FIXTURE_KB)


def test_a_bad_kb_in_settings_falls_back_to_bundled_with_a_message(home):
    from responder.app.main import prepare
    from responder.settings import Settings, save_settings

    save_settings(Settings(kb="no-such-kb"))
    app = prepare(None)
    assert app.knowledge.name == "bundled"
    assert any("no-such-kb" in m for m, _ in app.notices)
