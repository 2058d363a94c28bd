"""The headless interview in evidence mode: modes, storage, notices, resume."""

from __future__ import annotations

from dataclasses import replace

from core_fixtures import home, knowledge  # noqa: F401 (pytest fixtures)

from responder.config import InterviewConfig
from responder.core import views
from responder.core.session import Interview
from responder.core.store import find_incident
from responder.engine.evidence import EvidenceSettings
from responder.engine.state import Answer, Status


def answer_as(it, chemical):
    kn = it.knowledge
    row = kn.chemicals[kn.chemical_index(chemical)].symptoms
    while it.status is Status.ASKING:
        q = views.question(it).items[0].symptom.index
        it.answer(q, Answer.YES if kn.symptoms[q].id in row else Answer.NO)


def test_start_weighs_evidence_and_the_incident_records_it(knowledge, home):
    it = Interview.start(
        knowledge,
        InterviewConfig(mode="evidence", evidence=EvidenceSettings(0.85, 0.05, threshold=0.9)),
    )
    assert it.mode == "evidence"
    answer_as(it, "VX")
    res = views.result(it)
    assert res.title == "VX" and res.headline.startswith("Most likely: VX")
    assert "probable" in res.status
    assert (
        it.stored_config()["mode"] == "evidence"
        and it.stored_config()["evidence"]["sensitivity"] == 0.85
    )
    data, _ = find_incident(it.id)
    assert data.config["mode"] == "evidence" and data.config["evidence"]["threshold"] == 0.9


def test_resume_restores_the_mode_and_old_journals_stay_strict(knowledge, home):
    it = Interview.start(
        knowledge, InterviewConfig(mode="evidence", evidence=EvidenceSettings(0.85, 0.05))
    )
    it.answer(knowledge.symptom_index("cough"), Answer.YES)
    data, _ = find_incident(it.id)
    again, warnings = Interview.resume(knowledge, data)
    assert again.mode == "evidence" and again.evidence.sensitivity == 0.85 and not warnings
    data.config.pop("mode")
    old, _ = Interview.resume(knowledge, data)
    assert old.mode == "strict"


def test_resume_keeps_the_long_row_discount_and_old_journals_run_without_it(knowledge, home):
    from responder.engine.evidence import DEFAULT_LONG_ROW_EXPONENT

    it = Interview.start(
        knowledge,
        InterviewConfig(mode="evidence", evidence=EvidenceSettings(long_row_exponent=0.5)),
    )
    it.answer(knowledge.symptom_index("cough"), Answer.YES)
    assert it.stored_config()["evidence"]["long_row_exponent"] == 0.5
    data, _ = find_incident(it.id)
    again, warnings = Interview.resume(knowledge, data)
    assert again.evidence.long_row_exponent == 0.5 and not warnings
    # A journal written before the discount existed resumes without it, as it ran.
    data.config["evidence"].pop("long_row_exponent")
    old, warnings = Interview.resume(knowledge, replace(data, imported_from="old.jsonl"))
    assert old.evidence.long_row_exponent == 0.0 and not warnings
    assert old.evidence.textbook_share == 0.0  # nor the textbook presentation
    assert (
        Interview(
            knowledge, InterviewConfig("chemical", "symptom", "evidence")
        ).evidence.long_row_exponent
        == DEFAULT_LONG_ROW_EXPONENT
    )


def test_an_incident_on_the_default_settings_resumes_with_the_same_odds(knowledge, home):
    """Resuming (after a crash, or to list, show or export an incident) gives the odds the
    responder saw: the knowledge base's answer model, long-row discount included."""
    import numpy as np

    it = Interview.start(knowledge, InterviewConfig(mode="evidence"))
    assert it.evidence.long_row_exponent > 0
    for symptom in ("pinpoint_pupils", "cough", "sweating"):
        it.answer(knowledge.symptom_index(symptom), Answer.YES)
    data, _ = find_incident(it.id)
    assert data.config["evidence"] == {}  # only what the user set is stored
    again, warnings = Interview.resume(knowledge, data, write=False)
    assert not warnings and again.evidence == it.evidence
    assert np.allclose(again.state.object_probabilities(), it.state.object_probabilities())
    assert views.top_candidate(again) == views.top_candidate(it)


def test_class_notice_when_one_answer_sharply_lowers_a_class(knowledge):
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "evidence"))
    notices = []
    for s in knowledge.symptoms:
        it.answer(s.index, Answer.YES)
        notices += it.class_notices()
        if notices:
            break
    assert notices and "lowered" in notices[0] and "%" in notices[0]
    it.answer(knowledge.symptoms[-1].index, Answer.UNKNOWN)
    assert it.class_notices() == []


def test_set_modes_switches_between_the_three(knowledge):
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "evidence"))
    it.answer(0, Answer.YES)
    it.set_modes(mode="strict")
    assert it.mode == "strict"
    it.set_modes(mode="noise")
    assert it.mode == "noise" and it.config.noise.enabled
    it.set_modes(mode="evidence")
    assert it.mode == "evidence" and it.asked == 1 and not it.config.noise.enabled


def test_a_second_victim_answers_several_victims_as_evidence():
    from responder.kb.resolve import load_knowledge  # noqa: PLC0415

    bundled = load_knowledge(None)
    several = bundled.symptom_index("pattern_several_victims")
    cough = bundled.symptom_index("cough")
    alone = Interview(bundled)
    alone.answer(cough, Answer.YES)
    assert alone.several_victims_noted is None and alone.answer_of(several) is None
    two = Interview(bundled)
    two.answer(cough, Answer.YES)
    two.add_victim("driver")
    record = two.several_victims_noted
    assert (record.query, record.answer, record.victim) == (several, Answer.YES, -1)
    assert two.answer_of(several) is Answer.YES
    # it is evidence: the posterior moves, and it is never suggested again
    assert not (two.state.belief.posterior == alone.state.belief.posterior).all()
    shown = [item.symptom.index for item in views.question(two).items]
    assert several not in shown
    # a third victim records nothing more
    two.add_victim()
    assert two.several_victims_noted is None and len(two.records) == 2


def test_several_victims_taken_back_stays_taken_back_when_more_victims_come(home):
    from responder.kb.resolve import load_knowledge  # noqa: PLC0415

    bundled = load_knowledge(None)
    several = bundled.symptom_index("pattern_several_victims")
    it = Interview.start(bundled, InterviewConfig())
    it.answer(bundled.symptom_index("cough"), Answer.YES)
    it.add_victim()
    assert it.answer_of(several) is Answer.YES
    assert it.undo().query == several  # z takes back the automatic answer
    it.add_victim()
    assert it.several_victims_noted is None and it.answer_of(several) is None
    # ... and after a resume, a fourth victim does not answer it either
    data, _ = find_incident(it.id)
    again, _ = Interview.resume(bundled, data)
    again.add_victim()
    assert again.several_victims_noted is None and again.answer_of(several) is None
    # removing it (rather than z) is a take-back too
    other = Interview(bundled)
    other.add_victim()
    other.remove(several)
    other.add_victim()
    assert other.answer_of(several) is None


def test_a_responders_own_several_victims_answer_stands(knowledge):
    from responder.kb.resolve import load_knowledge  # noqa: PLC0415

    bundled = load_knowledge(None)
    several = bundled.symptom_index("pattern_several_victims")
    it = Interview(bundled)
    it.answer(several, Answer.NO)
    it.add_victim()
    assert it.several_victims_noted is None and it.answer_of(several) is Answer.NO
    # nor is it recorded when another answer implies it (that answer already counts)
    rescued = Interview(bundled)
    rescued.answer(bundled.symptom_index("pattern_rescuers_affected"), Answer.YES)
    rescued.add_victim()
    assert rescued.several_victims_noted is None and rescued.state.is_implied(several)
    # a knowledge base without the observation records nothing
    small = Interview(knowledge)
    small.add_victim()
    assert small.several_victims_noted is None and small.records == []


def test_none_of_these_answers_every_unanswered_member_no_and_is_saved(home):
    from responder.kb.loader import load_bundled

    kb = load_bundled()
    it = Interview.start(kb, InterviewConfig())
    pinpoint, wide = kb.symptom_index("pinpoint_pupils"), kb.symptom_index("dilated_pupils")
    slow, fast = kb.symptom_index("slow_pulse"), kb.symptom_index("fast_pulse")
    it.answer(slow, Answer.UNKNOWN)
    records = it.answer_none_of(("pinpoint_pupils", "dilated_pupils"))
    assert [r.query for r in records] == [pinpoint, wide]
    assert it.answer_of(pinpoint) is Answer.NO and it.answer_of(wide) is Answer.NO
    # a member already answered keeps its answer
    assert [r.query for r in it.answer_none_of(("slow_pulse", "fast_pulse"))] == [fast]
    assert it.record_of(slow).answer is Answer.UNKNOWN
    data, _ = find_incident(it.id)
    stored = {(a.symptom, a.answer) for a in data.answers}
    assert {("pinpoint_pupils", "no"), ("dilated_pupils", "no"), ("fast_pulse", "no")} <= stored


def test_an_answer_takes_out_an_earlier_one_it_contradicts(home):
    """Pinpoint pupils answered yes, then Wide (dilated) pupils yes for the same victim (a
    second look in better light): both stayed yes, one victim with pupils small and large at
    once, each weighed as evidence. The newer answer wins: the earlier one is taken out (it
    is now implied no), the change is saved, and another victim's answer is not touched."""
    from responder.kb.loader import load_bundled

    kb = load_bundled()
    for mode in ("evidence", "strict"):
        it = Interview.start(kb, InterviewConfig(mode=mode))
        pinpoint, wide = kb.symptom_index("pinpoint_pupils"), kb.symptom_index("dilated_pupils")
        it.answer(pinpoint, Answer.YES, volunteered=True)
        it.add_victim()
        it.answer(pinpoint, Answer.YES, volunteered=True)
        it.select_victim(0)
        it.answer(wide, Answer.YES, volunteered=True)
        assert [r.query for r in it.displaced] == [pinpoint]
        assert it.record_of(pinpoint) is None and it.answer_of(pinpoint) is Answer.NO
        assert it.answer_of(wide) is Answer.YES
        assert it.record_of(pinpoint, victim=1).answer is Answer.YES  # the other victim's
        # walking and talking: conscious, whatever was answered before
        unconscious = kb.symptom_index("unconsciousness")
        it.answer(unconscious, Answer.YES)
        it.answer(kb.symptom_index("walking_talking"), Answer.YES)
        assert [r.query for r in it.displaced] == [unconscious]
        assert it.answer_of(unconscious) is Answer.NO
        data, _ = find_incident(it.id)
        stored = {(a.victim, a.symptom, a.answer) for a in data.answers}
        assert (0, "pinpoint_pupils", "yes") not in stored
        assert {(0, "dilated_pupils", "yes"), (1, "pinpoint_pupils", "yes")} <= stored
        assert (0, "unconsciousness", "yes") not in stored
        # z takes back walking and talking, and unconscious comes back
        it.undo()
        assert it.record_of(unconscious).answer is Answer.YES
        it.undo()  # unconscious, restored as the last answer
        it.undo()  # wide pupils: pinpoint comes back
        assert it.record_of(wide) is None and it.record_of(pinpoint).answer is Answer.YES
        data, _ = find_incident(it.id)
        stored = {(a.victim, a.symptom, a.answer) for a in data.answers}
        assert (0, "pinpoint_pupils", "yes") in stored and (
            0,
            "dilated_pupils",
            "yes",
        ) not in stored


def test_z_after_a_resume_puts_back_what_the_undone_answer_took_out(home):
    """Pinpoint pupils yes, then Wide pupils yes (which takes pinpoint out), quit and resume:
    z then took back wide and left no pupils at all, losing the first look."""
    from responder.kb.loader import load_bundled

    kb = load_bundled()
    pinpoint, wide = kb.symptom_index("pinpoint_pupils"), kb.symptom_index("dilated_pupils")
    it = Interview.start(kb, InterviewConfig())
    it.answer(kb.symptom_index("cough"), Answer.YES)
    it.answer(pinpoint, Answer.YES)
    it.answer(wide, Answer.YES)
    it.incident.close()
    data, _ = find_incident(it.id)
    again, _ = Interview.resume(kb, data)
    assert again.record_of(pinpoint) is None
    assert again.undo().query == wide
    assert again.answer_of(pinpoint) is Answer.YES and again.record_of(wide) is None
    # ... and the restored answer is stored: a second resume has it
    again.incident.close()
    data, _ = find_incident(it.id)
    third, _ = Interview.resume(kb, data)
    assert third.answer_of(pinpoint) is Answer.YES and third.record_of(wide) is None
    # a responder's own remove is not put back by a later z
    third.remove(pinpoint)
    third.answer(wide, Answer.YES)
    third.incident.close()
    data, _ = find_incident(it.id)
    fourth, _ = Interview.resume(kb, data)
    assert fourth.undo().query == wide and fourth.record_of(pinpoint) is None


def test_removing_the_second_victim_says_the_scenes_several_victims_answer_stays():
    """The second victim answered "several people ill" for the incident; removing that
    victim leaves it (others may be ill without being examined) and says how to change it."""
    from responder.kb.resolve import load_knowledge  # noqa: PLC0415

    bundled = load_knowledge(None)
    several = bundled.symptom_index("pattern_several_victims")
    it = Interview(bundled)
    it.answer(bundled.symptom_index("cough"), Answer.YES)
    it.add_victim()
    removed = it.remove_victim()
    assert it.answer_of(several) is Answer.YES and len(it.victims) == 1
    label = bundled.symptoms[several].label
    assert views.victim_removed_notice(it, removed) == (
        "Victim 2 removed (no answers); answers now go to Victim 1. The scene's "
        f"{label}: yes stays; if only one person is ill, change it with h."
    )
    assert views.victims(it)[0].removable is False  # the only victim
    it.add_victim()
    it.add_victim()
    it.remove_victim()
    assert views.victim_removed_notice(it, 2) == (
        "Victim 3 removed (no answers); answers now go to Victim 2."
    )
    assert [v.removable for v in views.victims(it)] == [False, True]
