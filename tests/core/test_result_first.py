"""A result a responder can act on: the leader named on the first line, counts that match
the list, and advice for the leader (or, while nobody is confident, only what is common to
the leading classes, with the leader's hallmark warnings first)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from core_fixtures import home, knowledge  # noqa: F401 (pytest fixtures)

from responder.config import InterviewConfig
from responder.core import views
from responder.core.export import report, to_markdown
from responder.core.session import Interview
from responder.engine.evidence import Belief
from responder.engine.state import Answer, Status
from responder.kb.next_steps import parse_next_steps, result_steps

HEADLINE = re.compile(r"^Most likely: (?P<names>.+) \((?P<cls>[^()]+)\) (?P<p>[<>]?\d+)%$")


@pytest.fixture(scope="module")
def bundled():
    from responder.kb.resolve import load_knowledge

    return load_knowledge(None)


def answer_as(it: Interview, chemical: str, truthful: int = 99, limit: int = 200) -> None:
    """Answer each suggestion as ``chemical``'s row says for the first ``truthful``
    questions, "can't tell" after that, until the interview stops."""
    kn = it.knowledge
    row = kn.chemicals[kn.chemical_index(chemical)].symptoms
    asked = 0
    while it.status is Status.ASKING and asked < limit:
        q = views.question(it).items[0].symptom
        if asked < truthful:
            it.answer(q.index, Answer.YES if q.id in row else Answer.NO)
        else:
            it.answer(q.index, Answer.UNKNOWN)
        asked += 1


# -- the first lines --------------------------------------------------------------------------


def test_an_identified_chemical_is_named_first_with_its_short_class_and_chance(bundled):
    it = Interview(bundled, InterviewConfig(mode="strict"))
    answer_as(it, "Chlorine")
    r = views.result(it)
    m = HEADLINE.match(r.headline)
    assert m, r.headline
    assert (m["names"], m["cls"], m["p"]) == ("Chlorine", "Irritant gases", ">99")
    assert r.class_line.startswith("Class: Irritant and choking gases")
    assert "CAS 7782-50-5" in r.class_line
    assert r.status == f"Identified after {it.asked} answers" and r.confident


def test_an_identical_profile_set_is_named_in_full_on_the_first_line(knowledge):
    it = Interview(knowledge, InterviewConfig(mode="strict"))
    it.answer(next(s.index for s in knowledge.symptoms if s.id == "blisters"), Answer.YES)
    answer_as(it, "Lewisite")
    r = views.result(it)
    assert r.kind == "set"
    assert r.headline == "Most likely: Sulfur mustard / Lewisite (Blister agents) >99%"
    assert r.leader == "Sulfur mustard / Lewisite"


def cough_then_cant_tell(bundled) -> Interview:
    """A strict interview: cough yes, every other symptom "can't tell"."""
    it = Interview(bundled, InterviewConfig(mode="strict"))
    cough = next(s.index for s in bundled.symptoms if s.id == "cough")
    it.answer(cough, Answer.YES)
    for s in bundled.symptoms:
        if s.index != cough:
            it.answer(s.index, Answer.UNKNOWN)
    return it


def test_several_left_count_profiles_and_chemicals_as_the_list_shows_them(bundled):
    it = cough_then_cant_tell(bundled)
    r = views.result(it)
    assert r.kind == "several" and not r.confident
    profiles, chemicals = len(r.candidates), sum(len(c.objects) for c in r.candidates)
    assert profiles < chemicals  # the bundled base has chemicals that share a profile
    assert r.counts == f"{profiles} profiles, {chemicals} chemicals"
    assert f"these {profiles} profiles, {chemicals} chemicals apart" in r.status
    top = r.candidates[0]
    assert r.headline == f"Most likely: {top.names} ({top.class_short}) {top.probability:.0%}"


def test_evidence_mode_counts_only_the_plausible_candidates(bundled):
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    answer_as(it, "Sarin (GB)", limit=4)
    shown, total = views.plausible(it)
    rows = views.candidates(it)
    expected = sum(len(r.objects) for r in rows if round(r.probability, 3) >= views.EVIDENCE_SHOWN)
    assert shown == expected and 0 < shown < total == len(bundled.chemicals)


def test_the_export_puts_the_leader_and_what_to_do_before_the_rest(bundled):
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    answer_as(it, "Chlorine")
    data = report(it)
    md = to_markdown(data)
    lines = [line for line in md.splitlines() if line.strip()]
    # the leader's line, with the chance the result screen shows (not pinned: it moves with the rows)
    assert lines[1].startswith("**Most likely: Chlorine (Irritant gases) ")
    assert lines[1] == f"**{views.result(it).headline}**"
    assert lines[2].startswith("Class: Irritant and choking gases")
    order = [
        md.index("### What to do now"),
        md.index("Answers that weighed most for Chlorine"),
        md.index("### Symptom profile"),
        md.index("## Answers"),
        md.index(data["disclaimer"]),
    ]
    assert order == sorted(order)
    assert data["result"]["weighed"]["for"]  # evidence mode: the answers that weighed


# -- advice for the leader --------------------------------------------------------------------


def _texts(steps) -> str:
    return " ".join(
        s.text for s in (*steps.hallmarks, *(x for v in steps.by_kind.values() for x in v))
    )


def test_a_confident_chlorine_gets_chlorines_steps_and_its_delayed_oedema_warning(bundled):
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    answer_as(it, "Chlorine")
    r = views.result(it)
    assert r.confident and r.title == "Chlorine"
    steps = result_steps(bundled, r)
    assert not steps.common_to
    assert any("delayed" in s.text for s in steps.hallmarks)
    assert "15-30 minutes" not in _texts(steps)  # the pepper-spray line is not chlorine's


def unsure_result_led_by(knowledge, chemical: str):
    """An evidence-mode result led by ``chemical`` without confidence and with at least two
    leading classes: its profile answered for the first few questions, "can't tell" after; the
    fewest truthful answers that give one (which depends on the knowledge base's question
    order)."""
    for truthful in range(2, 25):
        it = Interview(knowledge, InterviewConfig(mode="evidence"))
        answer_as(it, chemical, truthful=truthful)
        r = views.result(it)
        if (
            r.kind == "several"
            and not r.confident
            and r.leader == chemical
            and len(r.leading_classes) >= 2
        ):
            return r
    raise AssertionError(f"no unsure result led by {chemical}")


@pytest.mark.parametrize(
    ("chemical", "warning"),
    [("Phosgene", "delayed"), ("Carbon monoxide", "100% oxygen")],
)
def test_while_nobody_is_confident_the_common_steps_and_the_leaders_warning_show(
    bundled, chemical, warning
):
    r = unsure_result_led_by(bundled, chemical)
    # carbon monoxide leads on the scene (an engine, no smell) before any sign is yes
    assert r.headline.startswith(f"Most likely: {chemical} (") or (
        r.headline == views.NO_SIGN_HEADLINE and r.status.startswith(f"{chemical} leads at ")
    )
    assert len(r.leading_classes) >= 2
    steps = result_steps(bundled, r)
    assert steps.common_to == tuple(c.label for c in r.leading_classes)
    assert any(warning in s.text for s in steps.hallmarks)
    # only what holds for every leading class: no chemical's own step but the leader's warnings
    leader = {c.id for c in r.candidates[0].chemicals}
    for kind_steps in steps.by_kind.values():
        for s in kind_steps:
            assert not (set(s.targets) & leader)
            assert "any" in s.targets or {c.id for c in r.leading_classes} <= set(s.targets)


def test_common_to_keeps_a_step_given_for_every_leading_class_only(knowledge):
    text = """
[[source]]
id = "s"
title = "A source"
url = "https://example.org/a"

[[step]]
for = "any"
kind = "first_aid"
text = "Fresh air."
source = "s"

[[step]]
for = "nerve_agents"
kind = "decontamination"
text = "Take off clothing."
source = "s"

[[step]]
for = "irritant_gases"
kind = "decontamination"
text = "Take off clothing."
source = "s"

[[step]]
for = "irritant_gases"
kind = "treatment"
text = "Only for irritant gases."
source = "s"

[[step]]
for = "chlorine"
kind = "first_aid"
text = "Lung oedema may come hours later."
hallmark = true
source = "s"

[[step]]
for = "chlorine"
kind = "treatment"
text = "Chlorine's own step."
source = "s"
"""
    ns = parse_next_steps(text, knowledge, "next_steps.toml")
    common = ns.common_to(
        ["irritant_gases", "nerve_agents"], ["Irritant gases", "Nerve agents"], ["chlorine"]
    )
    assert [s.text for s in common.hallmarks] == ["Lung oedema may come hours later."]
    shown = {k: [s.text for s in v] for k, v in common.by_kind.items()}
    assert shown == {"first_aid": ["Fresh air."], "decontamination": ["Take off clothing."]}
    assert common.common_to == ("Irritant gases", "Nerve agents")
    alone = ns.for_result(["irritant_gases"], ["chlorine"])
    assert [s.text for s in alone.hallmarks] == ["Lung oedema may come hours later."]
    assert "Only for irritant gases." in [s.text for s in alone.by_kind["treatment"]]
    with pytest.raises(Exception, match="hallmark must be true or false"):
        parse_next_steps(text.replace("hallmark = true", 'hallmark = "yes"'), knowledge, "x")


RESPIRATORY = ("SCBA", "self-contained breathing apparatus", "respirator")


@pytest.mark.parametrize(
    "chemical",
    ["Chlorine", "Sarin (GB)", "Hydrogen cyanide", "Hydrogen sulfide", "Carbon monoxide"],
)
def test_the_result_for_each_scenario_agent_names_respiratory_protection(bundled, chemical):
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    answer_as(it, chemical)
    r = views.result(it)
    # The leader must be the agent; sarin may stop short of the confidence threshold, because the
    # sources read give tabun nearly the same row (the next steps are the nerve agents' either way).
    assert r.leader == chemical, r.headline
    assert r.confident or chemical == "Sarin (GB)", r.headline
    steps = result_steps(bundled, r)
    protection = " ".join(s.text for s in steps.all_by_kind().get("protection", ()))
    assert any(word in protection for word in RESPIRATORY), protection
    if chemical == "Carbon monoxide":
        assert "100% oxygen" in _texts(steps) and "fresh air" in _texts(steps)


def test_an_answer_implied_by_another_is_never_marked_as_contradicting_the_leader(bundled):
    """Chlorine's sources list every onset; "Signs within minutes: yes" answers the other
    onsets "no" for the responder. Those implied answers count against nobody (the candidates
    panel gives Chlorine 0 answers against it), so the result's profile must not mark them
    "contradicts" either."""
    it = Interview(bundled, InterviewConfig())
    for sid in ("odour_bleach", "cloud_yellow_green", "setting_swimming_pool", "onset_minutes"):
        it.answer(bundled.symptom_index(sid), Answer.YES)
    for sid in ("choking", "eye_irritation", "cough"):
        it.answer(bundled.symptom_index(sid), Answer.YES)
    r = views.result(it)
    assert r is not None and r.candidates[0].names == "Chlorine"
    assert r.candidates[0].mismatches == 0 == r.mismatches
    implied = {a.query for a in it.state.answers if a.implied}
    onsets = {bundled.symptom_index(s) for s in ("onset_seconds", "onset_hours", "onset_delayed")}
    assert onsets <= implied
    marks = {row.symptom.index: row.marks[0] for row in r.profile if row.answer is not None}
    assert not [bundled.symptoms[q].id for q, m in marks.items() if m == "mismatch"]
    assert {marks[q] for q in onsets} == {"implied"}
    md = to_markdown(report(it))
    assert "Signs within a minute | no | yes — implied by another answer, not counted |" in md


def test_the_plausible_count_agrees_with_the_chances_the_list_prints(bundled):
    """After 'Seizures: yes' the title said '0 plausible of 274' above rows printed at
    1.0% (0.96%, counted below 1%)."""
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    it.answer(bundled.symptom_index("seizures"), Answer.YES, volunteered=True)
    rows = views.candidates(it)
    printed = [r for r in rows if float(f"{r.probability * 100:.1f}") >= 1.0]  # "{:6.1%}"
    assert printed and printed[0].probability < views.EVIDENCE_SHOWN  # the case in point
    assert views.plausible(it)[0] == sum(len(r.objects) for r in printed)


def test_a_victim_without_any_sign_gets_no_chemical_named_as_most_likely(bundled):
    """An unharmed person by a white powder, every sign answered no: the interview ended on
    "Most likely: Platinum (soluble salts) (Metals & fumes) 77%", the chemical whose sources
    list fewest signs. The result now says no victim has a sign, and that the leader is no
    identification; its steps are the general ones."""
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    powder = next(s for s in bundled.symptoms if s.id == "powder_white")
    it.answer(powder.index, Answer.YES)
    while it.status is Status.ASKING:
        q = views.question(it).items[0].symptom
        it.answer(q.index, Answer.UNKNOWN if q.kind == "scene" else Answer.NO)
    r = views.result(it)
    assert r.headline == "No victim has a sign of poisoning yet"
    assert not r.headline.startswith("Most likely") and not r.confident
    top = r.candidates[0]
    assert r.status.startswith(f"{top.names} leads at ")
    assert r.status.endswith("not an identification")
    md = to_markdown(report(it))
    assert "**No victim has a sign of poisoning yet**" in md
    assert "Most likely" not in md


def test_no_sign_gives_no_chemicals_cas_or_un_number(bundled):
    """The white-powder result read "No victim has a sign of poisoning yet", then "Class:
    Metals and metal fumes 38% ... · CAS 7440-06-4": Platinum's CAS number with no chemical
    named above it, on the screen and in the export, for a crew to pass on as if found."""
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    powder = next(s for s in bundled.symptoms if s.id == "powder_white")
    it.answer(powder.index, Answer.YES)
    cough = next(s for s in bundled.symptoms if s.id == "cough")
    it.answer(cough.index, Answer.NO)
    lead = views.provisional_lead(it)
    top = lead.candidates[0].chemicals[0]
    assert top.cas and top.cas_label not in lead.class_line, lead.class_line
    while it.status is Status.ASKING:
        q = views.question(it).items[0].symptom
        it.answer(q.index, Answer.UNKNOWN if q.kind == "scene" else Answer.NO)
    r = views.result(it)
    assert r.headline == views.NO_SIGN_HEADLINE
    chem = r.candidates[0].chemicals[0]
    assert chem.cas, chem.name  # the bundled leader has one: the test would see it
    assert "CAS" not in r.class_line and "UN " not in r.class_line, r.class_line
    assert r.class_line.startswith("Class: ")  # the leading classes stay: the steps are theirs
    md = to_markdown(report(it))
    head = md.split("What to do now")[0]
    assert views.NO_SIGN_HEADLINE in head and chem.cas not in head, head


def test_a_sign_answered_yes_names_the_most_likely_again(bundled):
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    answer_as(it, "Chlorine")
    assert views.signs_seen(it)
    assert views.result(it).headline.startswith("Most likely: Chlorine")


def test_an_interview_in_progress_without_a_sign_says_no_chemical_leads_on_signs(bundled):
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    for sid in ("powder_white", "cough", "vomiting"):
        q = next(s for s in bundled.symptoms if s.id == sid)
        it.answer(q.index, Answer.YES if sid == "powder_white" else Answer.NO)
    lead = views.provisional_lead(it)
    assert lead.headline.startswith("No victim has a sign of poisoning yet. ")
    assert "not an identification" in lead.headline


def test_not_confident_blames_cant_tell_only_when_an_answer_was_cant_tell(bundled):
    """Parathion answered yes or no throughout ended "Not confident: ... (some answers were
    "can't tell", or no symptom separates them)": no answer was "can't tell"."""

    def answered_as(name):
        it = Interview(bundled, InterviewConfig(mode="evidence"))
        answer_as(it, name)
        return it

    # near-twins whose rows no question separates; which of them ends unsure moves with the
    # knowledge base's cells, so the first that does is taken
    twins = ("Parathion", "Methyl parathion", "Mevinphos", "Dioxathion", "Tabun (GA)")
    it = next(it for it in map(answered_as, twins) if views.result(it).kind == "several")
    r = views.result(it)
    assert r.status.startswith("Not confident")
    assert not any(rec.answer is Answer.UNKNOWN for rec in it.records)
    assert "can't tell" not in r.status, r.status
    assert r.status.endswith(
        ("(no symptom in the knowledge base separates them)", "are answered already)")
    )


def test_not_confident_says_the_symptoms_that_separate_them_are_answered_when_they_are(bundled):
    """QA round 13: a soman interview (every suggestion answered as soman's row says) ended
    "Not confident: ... no further symptom tells these 2 chemicals apart (no symptom in the
    knowledge base separates them)" beside a profile whose answered "Smell of mothballs"
    does separate soman from sarin (it put soman at 98%, sarin at 2%). Now the reason is
    the true one: the symptoms that separate them are answered already; the old words stay
    for rows no answered symptom separates."""
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    answer_as(it, "Soman (GD)")
    r = views.result(it)
    assert r.kind == "several" and [c.names for c in r.candidates[:2]] == [
        "Soman (GD)",
        "Sarin (GB)",
    ]
    soman, sarin = (
        bundled.chemicals[bundled.chemical_index(n)] for n in ("Soman (GD)", "Sarin (GB)")
    )
    answered = {bundled.symptoms[rec.query].id for rec in it.records}
    assert answered & (soman.symptoms ^ sarin.symptoms)  # an answer separates them
    assert r.status.endswith(
        "no further symptom tells these 2 chemicals apart (the symptoms that do are "
        "answered already)"
    ), r.status


def test_not_confident_after_cant_tell_answers_says_so(bundled):
    it = cough_then_cant_tell(bundled)
    r = views.result(it)
    assert r.kind == "several"
    assert '(some answers were "can\'t tell", or no symptom separates them)' in r.status


def test_the_runner_up_a_result_is_weighed_against_is_named_in_full(knowledge):
    """Chlorine at a pool was weighed "against Carfentanil", the first name of a row of
    seven opioids with one profile; the row is named in full, as the candidates list does.
    On the fixture knowledge base sulfur mustard and lewisite share one profile: a victim
    answering as ammonia, blisters unknown, leaves that row second."""
    it = Interview(knowledge, InterviewConfig(mode="evidence"))
    ammonia = knowledge.chemicals[knowledge.chemical_index("Ammonia")].symptoms
    while it.status is Status.ASKING:
        q = views.question(it).items[0].symptom
        if q.id == "blisters":
            it.answer(q.index, Answer.UNKNOWN)
        else:
            it.answer(q.index, Answer.YES if q.id in ammonia else Answer.NO)
    second = views.candidates(it)[1]
    assert len(second.chemicals) > 1  # an identical-profile row
    r = views.result(it)
    assert r.runner_up == second.names
    md = to_markdown(report(it))
    assert f"(against {second.names})" in md


def test_a_leader_that_lists_few_of_the_signs_seen_is_called_doubtful(bundled, monkeypatch):
    """Seizures, blisters, wide pupils and a slow pulse, everything else no, ended
    "Identified: Picrotoxin 99%" though three of the four signs are not among its signs.
    The evidence mode's no-fit test now usually catches such answers first, but whether it
    does depends on where the knowledge base's grades put its edge (fever and pale skin
    have each stood in for the wide pupils as passes moved it); the result screen's own
    check must hold whatever that test says, so here every answer set counts as fitting."""
    real_fit = Belief.fit

    def always_fits(self):
        found = real_fit(self)
        return replace(found, fits=True)

    monkeypatch.setattr(Belief, "fit", always_fits)
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    for sid in ("seizures", "blisters", "slow_pulse", "fever"):
        it.answer(bundled.symptom_index(sid), Answer.YES)
    while it.status is Status.ASKING:
        it.answer(views.question(it).items[0].symptom.index, Answer.NO)
    r = views.result(it)
    top = r.candidates[0]
    unexplained, signs = views.unexplained_signs(it, top)
    assert signs == 4 and len(unexplained) == 3
    assert r.status.startswith("Doubtful: 3 of the 4 signs answered yes (")
    assert f"are not among {top.names}'s known signs" in r.status
    assert "Identified after" in r.status and not r.confident
    assert r.headline.startswith("Most likely: ")  # still named, not hidden


def test_a_leader_that_lists_the_signs_seen_is_not_called_doubtful(bundled):
    it = Interview(bundled, InterviewConfig(mode="evidence"))
    answer_as(it, "Chlorine")
    r = views.result(it)
    assert views.unexplained_signs(it, r.candidates[0])[0] == []
    assert not r.status.startswith("Doubtful") and r.confident
