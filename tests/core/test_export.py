"""Export of an interview as Markdown and JSON."""

from __future__ import annotations

import json
import re

import pytest
from core_fixtures import home, knowledge  # noqa: F401 (pytest fixtures)

from responder.config import InterviewConfig
from responder.core.export import export_interview, report, to_markdown
from responder.core.session import Interview
from responder.engine.state import Answer
from responder.paths import UnsafePathError, path_inside

# -- export -----------------------------------------------------------------------------------


def test_export_markdown_and_json(knowledge, home):
    it = Interview.start(knowledge, InterviewConfig("chemical", "symptom", "strict"))
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
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    it.answer(knowledge.symptom_index("pinpoint_pupils"), Answer.YES)
    it.answer(knowledge.symptom_index("skin_burns"), Answer.YES)
    md, _ = export_interview(it, tmp_path / "out")
    assert md.parent == tmp_path / "out"
    text = md.read_text()
    assert "## No chemical in the knowledge base matches all 2 answers" in text
    assert "Closest chemicals by number of contradicted answers" in text
    assert (
        to_markdown(
            report(Interview(knowledge, InterviewConfig("chemical", "symptom", "strict")))
        ).count("no answers yet")
        == 1
    )


def test_a_changed_answer_leaves_a_trace_in_the_export(knowledge):
    """A changed answer shows in the export (what it was, what it is now, when it changed);
    undoing the change removes the trace."""
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    cough = knowledge.symptom_index("cough")
    it.answer(cough, Answer.YES, at=1_700_000_000.0)
    it.answer(knowledge.symptom_index("blisters"), Answer.NO, at=1_700_000_060.0)
    it.answer(cough, Answer.NO, at=1_700_000_120.0)  # changed two minutes later
    data = report(it)
    assert [a["symptom_id"] for a in data["answers"]] == ["blisters", "cough"]
    (change,) = data["changed_answers"]
    assert (change["symptom_id"], change["was"], change["now"]) == ("cough", "yes", "no")
    assert change["was_at"] < change["changed_at"]
    md = to_markdown(data)
    assert f"changed to no at {change['changed_at']}" in md
    # Undoing the change removes its trace: the export shows the answers as they stand.
    it.undo()
    assert report(it)["changed_answers"] == []


# -- stored values that build paths -----------------------------------------------------------


@pytest.mark.parametrize(
    "stored_id",
    ["x/../../../escaped", "../escaped", "/tmp/escaped", "a\\..\\b", "x\x1b[2J", "x" * 300],
    ids=["dot-dot path", "parent", "absolute", "backslashes", "escape", "long"],
)
def test_an_interview_id_that_would_leave_the_exports_folder_is_refused(
    knowledge, tmp_path, monkeypatch, stored_id
):
    monkeypatch.setattr(Interview, "id", property(lambda self: stored_id))
    folder = tmp_path / "deep" / "er" / "exports"
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    with pytest.raises(UnsafePathError, match="interview id") as info:
        export_interview(it, folder)
    assert "\x1b" not in str(info.value)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written == [] and not folder.exists()


@pytest.mark.parametrize("name", ["exp\x1b[2Jorts", "exp\torts", "exp\x7forts"])
def test_a_folder_holding_a_control_character_is_refused_and_named_safely(
    knowledge, tmp_path, name
):
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    folder = tmp_path / name
    with pytest.raises(UnsafePathError, match="holds the control character U\\+00") as info:
        export_interview(it, folder)
    assert not any(ch in str(info.value) for ch in "\x1b\t\x7f")
    assert not folder.exists() and [p for p in tmp_path.rglob("*")] == []


def test_an_export_file_linked_elsewhere_is_refused(knowledge, tmp_path):
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    folder, elsewhere = tmp_path / "exports", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / f"interview-{it.id}.md").symlink_to(elsewhere / "report.md")
    with pytest.raises(UnsafePathError, match="leads outside"):
        export_interview(it, folder)
    assert list(elsewhere.iterdir()) == []


def test_an_ordinary_id_exports_inside_the_folder(knowledge, tmp_path):
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    md, js = export_interview(it, tmp_path / "exports")
    assert md.parent == js.parent == tmp_path / "exports"
    assert path_inside(tmp_path, "kb name", "knowledge-base name") == tmp_path / "kb name"
    for name in ("..", ".", "", "a/b"):
        with pytest.raises(UnsafePathError, match="knowledge-base name"):
            path_inside(tmp_path, name, "knowledge-base name", resolve=False)


def test_the_export_counts_every_victims_answers(knowledge):
    """The export's status line ("asking after N answers") and questions_asked counted only
    the victim being asked, not every victim's answers the evidence mode ranks on."""
    it = Interview(knowledge, InterviewConfig())  # the evidence mode pools every victim's
    it.answer(knowledge.symptom_index("cough"), Answer.YES)
    it.answer(knowledge.symptom_index("eye_irritation"), Answer.YES)
    it.add_victim()
    it.answer(knowledge.symptom_index("tearing"), Answer.YES)
    data = report(it)
    assert data["questions_asked"] == 3 and len(data["answers"]) == 3
    assert "after 3 answers" in to_markdown(data)


def test_the_export_says_whose_each_answer_is(knowledge):
    """With several victims the export listed every answer without saying whose: "Cough: no"
    and "Cough: yes" one under the other, and the incident's scene facts like a victim's."""
    it = Interview(knowledge, InterviewConfig())
    cough = knowledge.symptom_index("cough")
    it.answer(cough, Answer.NO, at=1_700_000_000.0)
    it.add_victim("driver")
    it.answer(cough, Answer.YES, at=1_700_000_060.0)
    it.answer(cough, Answer.NO, at=1_700_000_120.0)  # victim 2's answer changed
    data = report(it)
    assert [v["label"] for v in data["victims"]] == ["Victim 1", "Victim 2 (driver)"]
    assert [(a["symptom_id"], a["answer"], a["victim"]) for a in data["answers"]] == [
        ("cough", "no", 0),
        ("cough", "no", 1),
    ]
    assert [a["victim_label"] for a in data["answers"]] == ["Victim 1", "Victim 2 (driver)"]
    (change,) = data["changed_answers"]
    assert change["victim_label"] == "Victim 2 (driver)"
    md = to_markdown(data)
    assert "| Time | Victim | Symptom | Category | Answer | Volunteered |" in md
    assert "| Victim 2 (driver) | Cough |" in md and "| Victim 1 | Cough |" in md
    assert "- Victim 2 (driver): Cough: yes" in md
    assert "- Victims: 2 (Victim 1, Victim 2 (driver))" in md
    # one victim: the table keeps its columns
    alone = Interview(knowledge, InterviewConfig())
    alone.answer(cough, Answer.YES)
    assert "| Time | Symptom | Category | Answer | Volunteered |" in to_markdown(report(alone))


def test_the_export_marks_the_incidents_scene_answers_once():
    from responder.kb.resolve import load_knowledge

    bundled = load_knowledge(None)
    it = Interview(bundled, InterviewConfig())
    it.answer(bundled.symptom_index("odour_bleach"), Answer.YES)
    it.answer(bundled.symptom_index("cough"), Answer.YES)
    it.add_victim()  # answers "several people ill" for the incident
    rows = [(a["symptom_id"], a["victim"], a["victim_label"]) for a in report(it)["answers"]]
    assert rows == [
        ("odour_bleach", -1, "all (the scene)"),
        ("cough", 0, "Victim 1"),
        ("pattern_several_victims", -1, "all (the scene)"),
    ]
    assert to_markdown(report(it)).count("| all (the scene) |") == 2


def _pooled_two_victims(knowledge) -> Interview:
    """Two victims whose pooled answers make Tabun the result; the responder is back on the
    first victim, whose own answers do not tell Tabun from Sarin."""
    it = Interview(knowledge, InterviewConfig(evidence={"threshold": 0.75}))
    ix = knowledge.symptom_index
    for sid, a in [("pinpoint_pupils", "yes"), ("headache", "yes"), ("confusion", "no")]:
        it.answer(ix(sid), a)
    it.add_victim()
    for sid, a in [("wheezing", "yes"), ("shortness_of_breath", "no"), ("sweating", "yes")]:
        it.answer(ix(sid), a)
    it.select_victim(0)
    return it


def test_a_pooled_result_shows_every_victims_answers_the_ranking_used(knowledge):
    from responder.core import views  # noqa: PLC0415

    it = _pooled_two_victims(knowledge)
    result = views.result(it)
    assert result.headline.startswith("Most likely: Tabun (GA)")
    answered = [(row.who, row.symptom.id, row.answer.value) for row in result.profile if row.answer]
    assert answered == [
        ("V1", "pinpoint_pupils", "yes"),
        ("V1", "headache", "yes"),
        ("V1", "confusion", "no"),
        ("V2", "wheezing", "yes"),
        ("V2", "shortness_of_breath", "no"),
        ("V2", "sweating", "yes"),
    ]
    # every answer the pooled posterior weighed appears in the profile
    assert len(answered) == len(it.state.pooled_answers()[0])
    # what set Tabun above Sarin was victim 2's "no" to shortness of breath
    assert [(w.who, w.symptom.id) for w in result.favour] == [("V2", "shortness_of_breath")]
    data = report(it)
    assert [r.get("victim") for r in data["result"]["profile"] if r["answer"]] == [
        "V1",
        "V1",
        "V1",
        "V2",
        "V2",
        "V2",
    ]
    assert data["result"]["weighed"]["for"][0]["victim"] == "V2"
    text = to_markdown(data)
    assert "| V2 · Wheezing | yes |" in text
    assert "- V2 · Shortness of breath: no (" in text


def test_one_victims_result_names_no_victim(knowledge):
    from responder.core import views  # noqa: PLC0415

    it = Interview(knowledge, InterviewConfig(evidence={"threshold": 0.75}))
    for sid, a in [("pinpoint_pupils", "yes"), ("headache", "yes"), ("wheezing", "yes")]:
        it.answer(knowledge.symptom_index(sid), a)
    it.answer(knowledge.symptom_index("shortness_of_breath"), "no")
    result = views.result(it)
    assert result is not None and all(row.who == "" for row in result.profile)
    assert "victim" not in report(it)["result"]["profile"][0]


def test_an_export_before_the_result_has_provisional_steps_for_the_leader():
    from responder.core import views  # noqa: PLC0415
    from responder.kb.resolve import load_knowledge  # noqa: PLC0415

    bundled = load_knowledge(None)
    it = Interview(bundled, InterviewConfig())
    for seen in ("odour_bleach", "cloud_yellow_green", "cough"):
        it.answer(bundled.symptom_index(seen), Answer.YES)
    assert views.result(it) is None
    data = report(it)
    assert "result" not in data
    provisional = data["provisional"]
    assert provisional["headline"].startswith("Leading so far: Chlorine (Irritant gases) ")
    assert provisional["class_line"].startswith("Class: Irritant and choking gases ")
    steps = provisional["next_steps"]
    warnings = [s for kind in steps["steps"].values() for s in kind if s.get("hallmark")]
    assert any("delayed" in s["text"] for s in warnings)  # chlorine's lung warning
    assert steps["common_to"]  # unsure: only what the leading classes share
    text = to_markdown(data)
    top = text.split("## Interview")[0]
    assert "### What to do now (provisional)" in top and "Provisional: the interview" in top
    assert "**Warning for the most likely, Chlorine**" in top
    assert "1-800-222-1222" in top


def test_an_export_with_a_result_has_no_provisional_steps(knowledge):
    it = _pooled_two_victims(knowledge)
    data = report(it)
    assert "result" in data and "provisional" not in data
    assert "(provisional)" not in to_markdown(data)


def test_a_small_knowledge_base_is_counted_in_words(tmp_path, home):
    """One chemical read '(1 chemicals, 1 symptoms)' in the export, and one answer no
    chemical fits 'matches all 1 answers'."""
    from responder.config import InterviewConfig
    from responder.core import views
    from responder.core.export import report, to_markdown
    from responder.core.session import Interview
    from responder.engine.state import Answer
    from responder.kb.resolve import load_knowledge

    path = tmp_path / "small.csv"
    path.write_text("name,class,Cough,Rash\nChlorine,Irritants,1,0\n", encoding="utf-8")
    kb = load_knowledge(str(path))
    it = Interview(kb, InterviewConfig(mode="strict"))
    assert "(1 chemical, 2 symptoms)" in to_markdown(report(it))
    it.answer(kb.symptom_index("rash"), Answer.YES)
    assert views.no_fit(it).headline.startswith(
        "No chemical in the knowledge base matches the 1 answer"
    )


def test_a_victim_with_no_answers_is_listed_as_such_not_as_if_examined(knowledge):
    """A victim added and never asked anything was listed among the victims like the
    others: the Markdown and the JSON now both say "no answers recorded" for them."""
    it = Interview(knowledge, InterviewConfig())
    it.answer(knowledge.symptom_index("cough"), Answer.YES)
    it.add_victim("driver")
    it.answer(knowledge.symptom_index("tearing"), Answer.YES)
    it.add_victim()
    it.select_victim(0)
    data = report(it)
    assert [(v["label"], v["answers_recorded"], v.get("note")) for v in data["victims"]] == [
        ("Victim 1", 1, None),
        ("Victim 2 (driver)", 1, None),
        ("Victim 3", 0, "no answers recorded"),
    ]
    md = to_markdown(data)
    assert "- Victims: 3 (Victim 1, Victim 2 (driver), Victim 3: no answers recorded)" in md
    assert md.count("no answers recorded") == 1


def test_a_victim_name_holding_a_bar_keeps_the_answers_table_whole(knowledge):
    """A victim named 'a|b' (the protocol takes any printable name) split the Markdown
    answers table's row: 'b)' stood in the Symptom column and every cell after it moved
    one column right. A '|' in a cell is escaped."""
    it = Interview(knowledge, InterviewConfig())
    cough = knowledge.symptom_index("cough")
    it.answer(cough, Answer.NO, at=1_700_000_000.0)
    it.add_victim("bus|stop")
    it.answer(cough, Answer.YES, at=1_700_000_060.0)
    md = to_markdown(report(it))
    lines = md.splitlines()
    header = lines.index("| Time | Victim | Symptom | Category | Answer | Volunteered |")
    rows = lines[header + 2 : header + 4]
    assert "| Victim 2 (bus\\|stop) | Cough |" in rows[1]
    for row in rows:  # six cells on every row: bars only between cells, escaped in them
        assert len(row.replace("\\|", "").split("|")) == 6 + 2, row


def test_a_step_source_read_at_two_addresses_is_two_markdown_links():
    """A [[source]] whose url gives two addresses ('a ; b', as next_steps.toml writes a page
    read through a copy) was written '<a ; b>': no autolink may hold a blank, so the Markdown
    report showed neither address as a link."""
    from responder.kb.resolve import load_knowledge

    bundled = load_knowledge(None)
    it = Interview(bundled, InterviewConfig())
    for sid in ("odour_rotten_eggs", "setting_refinery", "state_gas"):
        it.answer(bundled.symptom_index(sid), Answer.YES)
    md = to_markdown(report(it))
    line = next(row for row in md.splitlines() if "fdocuments.us" in row)
    assert line.endswith(
        "<https://fdocuments.us/document/h2s55cf8f58550346703b9b7013.html> ; "
        "<https://documents.pub/document/h2s-dose-effect-relationship-personal-protection-"
        "200-500ppm-bronchitis-cephalgia.html>"
    )
    assert not any(" ; " in link for link in re.findall(r"<[^>]*>", md))


def _skin_victim_of_hydrogen_fluoride():
    """A victim splashed on the skin by hydrogen fluoride: skin burns, no cough, no sore
    throat (the breathing route's contact signs), the rest as its row says."""
    from responder.core import views
    from responder.engine.state import Status
    from responder.kb.loader import load_bundled

    kb = load_bundled()
    skin = next(c.signs for c in kb.contact_signs if c.route == "route_skin")
    other = {s for c in kb.contact_signs for s in c.signs} - set(skin)
    row = kb.chemicals[kb.chemical_index("hydrogen_fluoride")].symptoms
    it = Interview.start(kb, InterviewConfig(mode="evidence"))
    for sid, yes in (("route_skin", 1), ("skin_burns", 1), ("cough", 0), ("throat_irritation", 0)):
        it.answer(kb.symptom_index(sid), Answer.YES if yes else Answer.NO)
    for _ in range(40):
        if it.status is not Status.ASKING:
            break
        q = views.question(it).items[0].symptom
        listed = q.id in row and q.id not in other and not q.id.startswith("route_")
        it.answer(q.index, Answer.YES if listed else Answer.NO)
    return it


def test_a_no_to_another_routes_contact_sign_is_no_mismatch_in_the_result_or_export(home):
    """QA round 12: the candidates panel counted nothing against hydrogen fluoride for a
    victim splashed on the skin who answered no to cough and sore throat (route views), but
    the result's profile and the Markdown export marked both "✗ contradicts"."""
    from responder.core import views

    it = _skin_victim_of_hydrogen_fluoride()
    res = views.result(it)
    assert res is not None and res.title == "Hydrogen fluoride"
    assert views.against_labels(it, views.candidates(it)[0]) == []
    marks = {r.symptom.id: r.marks[0] for r in res.profile if r.answer is not None}
    assert marks["cough"] == marks["throat_irritation"] == "uncounted"
    assert "mismatch" not in marks.values()
    md = to_markdown(report(it))
    cough = next(line for line in md.splitlines() if line.startswith("| Cough"))
    assert "mismatch" not in cough and "not counted" in cough


def test_a_victim_splashed_on_the_skin_gets_the_skin_steps_before_fresh_air():
    """The general first-aid step is for a victim who breathed the chemical in; once the
    only route answered is the skin, the export lists it after the other first-aid steps
    and rinsing the skin first among the decontamination steps (nothing is dropped)."""
    from responder.core import views  # noqa: PLC0415
    from responder.kb.resolve import load_knowledge  # noqa: PLC0415

    bundled = load_knowledge(None)

    def exported(seen):
        it = Interview(bundled, InterviewConfig())
        for sid in seen:
            it.answer(bundled.symptom_index(sid), Answer.YES)
        return it, report(it)["provisional"]["next_steps"]["steps"]

    it, splashed = exported(("route_skin", "skin_burns", "state_liquid"))
    assert views.exposure_routes(it) == ("route_skin",)
    first_aid = [s for s in splashed["first_aid"] if not s["hallmark"]]
    assert first_aid[-1]["route"] == "route_inhaled"
    decontamination = [s for s in splashed["decontamination"] if not s["hallmark"]]
    assert decontamination[0].get("route") == "route_skin"
    it, _ = exported(("skin_burns", "state_liquid"))
    assert views.exposure_routes(it) == ()  # no route answered: the steps keep their order


def test_each_victims_route_decides_what_counts_against_the_chemical(home):
    """Two victims of hydrofluoric acid: one splashed on the skin who has no cough, one who
    breathed the vapour and has no cough either. Only the second "no" counts against it: in
    the candidates panel, and in the marks the result's profile and the export read. With
    one view for the whole incident both counted."""
    from responder.core import views
    from responder.kb.loader import load_bundled

    kb = load_bundled()
    hf = kb.chemical_index("hydrogen_fluoride")
    it = Interview.start(kb, InterviewConfig(mode="evidence"))
    for sid, yes in (("route_skin", 1), ("skin_burns", 1), ("cough", 0)):
        it.answer(kb.symptom_index(sid), Answer.YES if yes else Answer.NO)
    it.add_victim()
    for sid, yes in (("route_inhaled", 1), ("cough", 0), ("throat_irritation", 1)):
        it.answer(kb.symptom_index(sid), Answer.YES if yes else Answer.NO)
    row = next(r for r in views.candidates(it) if hf in r.objects)
    assert views.against_labels(it, row) == ["V2 Cough"]
    counted = views._counted_against(it, [hf])[0]
    cough = kb.symptom_index("cough")
    assert counted[(cough, False, 0)] is False and counted[(cough, False, 1)] is True


def test_the_markdown_leads_with_the_steps_to_act_on_first_as_the_result_screen_does():
    """QA round 13: the result screen lists one step of each kind to act on first (protect
    yourself, first aid, antidote, decontaminate; the victims' routes considered), but the
    Markdown export went kind by kind in the file's order: protective equipment last, and
    for a victim splashed on the skin 'Inhaled: get the victim to fresh air at once' the
    first thing to do. Now the export leads with the screen's first steps, then the rest
    kind by kind, nothing dropped."""
    from responder.kb.resolve import load_knowledge  # noqa: PLC0415

    bundled = load_knowledge(None)
    it = Interview(bundled, InterviewConfig())
    for sid in ("route_skin", "skin_burns", "state_liquid"):
        it.answer(bundled.symptom_index(sid), Answer.YES)
    data = report(it)
    ns = data["provisional"]["next_steps"]
    assert [s["label"] for s in ns["first"]] == ["Protect yourself", "Decontaminate"]
    assert ns["first"][1]["route"] == "route_skin"
    md = to_markdown(data)
    section = md[md.index("### What to do now") : md.index("Sources of these steps")]
    steps = [line for line in section.splitlines() if line.startswith("- ") and "[" in line]
    assert steps[0].startswith("- **Protect yourself:** ")
    assert steps[1].startswith("- **Decontaminate:** On the skin: ")
    fresh_air = "- Inhaled: get the victim to fresh air at once."
    assert section.index("More steps, kind by kind") < section.index(fresh_air)
    # every step still there, once
    every = [s["text"] for kind in ns["steps"].values() for s in kind if not s["hallmark"]]
    assert sorted(every) == sorted(
        line.split(":** ", 1)[-1].removeprefix("- ").rsplit(" [", 1)[0] for line in steps
    )
