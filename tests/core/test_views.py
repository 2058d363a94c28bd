"""Views built by pure functions of a headless interview, and whole interviews driven
without a terminal (the Pilot tests keep only what needs a screen)."""

from __future__ import annotations

import pytest
from core_fixtures import home, knowledge  # noqa: F401 (pytest fixtures)

from responder.config import InterviewConfig, NoiseSettings
from responder.core import views
from responder.core.session import Interview
from responder.engine.state import Answer, Status


def answer_as(it: Interview, chemical: str, limit: int = 60) -> int:
    """Answer every suggestion as ``chemical``'s row says, taking the first symptom listed
    (what the app selects); returns the questions asked."""
    kn = it.knowledge
    row = kn.chemicals[kn.chemical_index(chemical)].symptoms
    asked = 0
    while it.status is Status.ASKING and asked < limit:
        q = views.question(it).items[0].symptom.index
        it.answer(q, Answer.YES if kn.symptoms[q].id in row else Answer.NO)
        asked += 1
    return asked


# -- interview views --------------------------------------------------------------------------


def test_category_question_lists_useful_symptoms_first(knowledge):
    it = Interview(knowledge, InterviewConfig("chemical", "category", "strict"))
    view = views.question(it)
    assert view.kind == "category" and view.category is not None
    it.answer(knowledge.symptom_index("pinpoint_pupils"), Answer.YES)
    # among nerve agents, pupils and tearing split nothing; the eyes category then holds
    # only symptoms that cannot change the outcome, so another category is suggested
    view = views.question(it)
    assert (
        view.category.id
        != knowledge.symptoms[knowledge.symptom_index("pinpoint_pupils")].category_id
    )
    node = it.state.node
    for item in view.items:
        # "useful" is exactly "answering it can change the candidates"
        q = item.symptom.index
        sides = [node.child(q, a).idx.size for a in (False, True)]
        assert item.useful == (min(sides) > 0)
    useful = view.useful
    assert len(useful) >= 2 and view.items[: len(useful)] == useful
    splits = [i.split for i in useful]
    assert splits == sorted(splits, reverse=True) and all(0 < s <= 0.5 for s in splits)


def test_optional_symptoms_are_marked(knowledge):
    """Symptoms of the suggested category that cannot change the outcome are listed after the
    useful ones, with a split of 0; interviews in category mode meet such states."""
    seen = 0
    for chem in knowledge.chemicals:
        it = Interview(knowledge, InterviewConfig("chemical", "category", "strict"))
        while it.status is Status.ASKING:
            view = views.question(it)
            useless = [i for i in view.items if not i.useful]
            seen += len(useless)
            for item in useless:
                assert item.split == 0.0
            assert view.items[len(view.useful) :] == tuple(useless)
            q = view.items[0].symptom.index
            it.answer(q, Answer.YES if knowledge.symptoms[q].id in chem.symptoms else Answer.NO)
    assert seen > 0


def test_policies_follow_target_and_suggestion(knowledge):
    pairs = {
        ("chemical", "symptom"): "gbs",
        ("class", "symptom"): "gisa",
        ("chemical", "category"): "gqsa",
        ("class", "category"): "gigqsa",
    }
    for (t, s), name in pairs.items():
        assert Interview(knowledge, InterviewConfig(t, s, "strict")).state.policy.name == name


def test_noise_auto_eps_is_at_least_one(knowledge):
    it = Interview(
        knowledge, InterviewConfig("chemical", "symptom", "noise", NoiseSettings(enabled=True))
    )
    assert it.delta == 1 and it.safe_eps == 0
    assert it.state.noise.eps == 1
    assert it.noise_budget() == (0, 1)


def test_inconsistent_interview_ranks_the_closest(knowledge):
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    it.answer(knowledge.symptom_index("pinpoint_pupils"), Answer.YES)
    it.answer(knowledge.symptom_index("skin_burns"), Answer.YES)
    assert it.status is Status.INCONSISTENT and views.question(it) is None
    closest = views.closest(it)
    assert closest[0].mismatches == 1
    assert views.top_candidate(it) == "no chemical fits"
    why = views.no_fit(it)
    assert why.headline == "No chemical in the knowledge base matches all 2 answers"
    assert why.closest.mismatches == 1


def test_evidence_no_fit_says_why_in_a_responders_words(knowledge):
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "evidence"))
    assert views.no_fit(it) is None
    for s in knowledge.symptoms:  # every sign at once: no listed chemical has them all
        it.answer(s.index, Answer.YES)
    assert it.mode == "evidence" and it.status is Status.INCONSISTENT
    assert views.question(it) is None and views.result(it) is None
    why = views.no_fit(it)
    fit = it.state.fit()
    assert why.headline == "No chemical in the knowledge base fits these answers well"
    top = views.candidates(it)[0]
    assert why.closest == top and fit.candidate in top.objects
    assert (
        f"The closest, {top.chemicals[0].name}, has {fit.against} of "
        f"{len(knowledge.symptoms)} answers against it"
    ) in why.detail
    assert f"({fit.unlisted:.0%})" in why.detail and fit.unlisted >= 0.5
    assert views.top_candidate(it) == "no chemical fits"


def test_result_profile_marks_matches_and_mismatches(knowledge):
    it = Interview(
        knowledge,
        InterviewConfig("chemical", "symptom", "noise", NoiseSettings(enabled=True, eps=1)),
    )
    # Sarin's profile, except "no" to headache (a wrong answer the noise model tolerates)
    for sid, ans in (
        ("pinpoint_pupils", "yes"),
        ("headache", "no"),
        ("wheezing", "yes"),
        ("shortness_of_breath", "yes"),
        ("confusion", "no"),
        ("cough", "no"),
    ):
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
    it = Interview(knowledge, InterviewConfig("class", "symptom", "strict"))
    it.answer(knowledge.symptom_index("pinpoint_pupils"), Answer.YES)
    result = views.result(it)
    assert result.kind == "class" and result.title == "Nerve agents"
    shares = {r.symptom.id: r.expected[0] for r in result.profile}
    assert shares["pinpoint_pupils"] == 1.0
    assert shares["headache"] == pytest.approx(2 / 3)


# -- whole interviews -------------------------------------------------------------------------


def _chemicals(knowledge):
    return [c.name for c in knowledge.chemicals]


@pytest.mark.parametrize("suggest", ["symptom", "category"])
def test_every_chemical_is_identified_from_its_row(knowledge, suggest):
    """Each chemical's own answers end on it (alone, or with the chemicals that share its
    row), every answer matching its profile, with its sources."""
    rows = {}
    for c in knowledge.chemicals:
        rows.setdefault(c.symptoms, []).append(c.name)
    for chemical in _chemicals(knowledge):
        it = Interview(knowledge, InterviewConfig("chemical", suggest, "strict"))
        asked = answer_as(it, chemical)
        assert asked == it.asked and asked < 60
        result = views.result(it)
        same = rows[knowledge.chemicals[knowledge.chemical_index(chemical)].symptoms]
        if len(same) == 1:
            assert it.status is Status.IDENTIFIED, chemical
            assert result.kind == "chemical" and result.title == chemical
            assert result.sources == knowledge.chemicals[knowledge.chemical_index(chemical)].sources
        else:
            assert it.status is Status.INDISTINGUISHABLE, chemical
            assert result.kind == "set"
            assert {c.name for c in result.candidates[0].chemicals} == set(same)
        assert all(m == "match" for row in result.profile if row.answer for m in row.marks)
        assert "not a diagnosis" in result.disclaimer
        assert views.question(it) is None


def test_category_questions_stay_inside_the_suggested_category(knowledge):
    it = Interview(knowledge, InterviewConfig("chemical", "category", "strict"))
    sarin = knowledge.chemicals[knowledge.chemical_index("Sarin (GB)")].symptoms
    while it.status is Status.ASKING:
        view = views.question(it)
        assert view.kind == "category"
        assert all(i.symptom.category_id == view.category.id for i in view.items)
        useful = [i.useful for i in view.items]
        assert useful == sorted(useful, reverse=True) and useful[0]
        q = view.items[-1 if len(view.useful) == len(view.items) else 0].symptom.index
        it.answer(q, Answer.YES if knowledge.symptoms[q].id in sarin else Answer.NO)
    assert views.result(it).title == "Sarin (GB)"


def test_class_target_then_chemical_keeps_the_answers(knowledge):
    it = Interview(knowledge, InterviewConfig("class", "symptom", "strict"))
    answer_as(it, "VX")
    result = views.result(it)
    assert result.kind == "class" and result.title == "Nerve agents"
    asked = it.asked
    it.set_modes(target="chemical")
    assert it.asked == asked and it.target == "chemical"
    answer_as(it, "VX")
    assert views.result(it).title == "VX"


def test_cant_tell_eliminates_no_one_and_undo_restores(knowledge):
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    before = len(views.candidates(it))
    first = views.question(it).items[0].symptom.index
    it.answer(first, Answer.UNKNOWN)
    assert len(views.candidates(it)) == before
    assert views.question(it).items[0].symptom.index != first
    it.answer(views.question(it).items[0].symptom.index, Answer.YES)
    assert len(views.candidates(it)) < before
    it.undo()
    it.undo()
    assert it.asked == 0 and len(views.candidates(it)) == before
    assert views.question(it).items[0].symptom.index == first
    assert it.undo() is None


def test_a_several_chemical_result_says_which_it_compares_and_the_export_names_all(knowledge):
    """A result with many candidates says which of them its profile compares (a note when
    not all), and the export names every chemical."""
    from responder.core.export import report

    it = Interview(
        knowledge, InterviewConfig("chemical", "symptom", "strict")
    )  # strict: "can't tell" keeps everyone
    for s in knowledge.symptoms:
        it.answer(s.index, Answer.UNKNOWN)
    assert it.status is Status.INDISTINGUISHABLE
    r = views.result(it)
    n = len(r.candidates)
    assert r.kind == "several" and n > views.PROFILE_COLUMNS
    assert len(r.columns) == views.PROFILE_COLUMNS
    assert r.profile_note == (
        f"The profile shows the {views.PROFILE_COLUMNS} most probable of "
        f"the {n} candidates; all {n} are listed above."
    )
    names = {c.name for row in r.candidates for c in row.chemicals}
    assert names == {c.name for c in knowledge.chemicals}
    exported = report(it)
    listed = {c["name"] for c in exported["result"]["chemicals"]}
    assert listed == names
    from responder.core.export import to_markdown

    md = to_markdown(exported)
    assert all(f"- {name} (CAS" in md for name in names)
    assert f"most probable of the {n} candidates" in md


def test_a_result_that_shows_every_candidate_has_no_profile_note(knowledge):
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    answer_as(it, "Lewisite")
    r = views.result(it)
    assert r.kind in ("chemical", "set") and r.profile_note == ""


def test_the_first_question_invites_the_responder_to_enter_what_is_obvious(knowledge):
    """Before the first answer the question panel invites the responder to enter what they
    can already see; the invitation goes once anything is answered."""
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    view = views.question(it)
    assert view.invitation == views.INVITATION and "press /" in view.invitation
    it.answer(view.items[0].symptom.index, Answer.UNKNOWN)
    assert views.question(it).invitation == ""
    category = Interview(knowledge, InterviewConfig("chemical", "category", "strict"))
    assert views.question(category).invitation == views.INVITATION


def test_the_app_suggests_an_observable_sign_when_gains_are_close():
    """In evidence mode a reported symptom is suggested only when no observable one comes
    within the margin of its expected gain (bundled knowledge base: both kinds)."""
    from responder.core.modes import OBSERVED_MARGIN
    from responder.kb.resolve import load_knowledge

    bundled = load_knowledge(None)
    it = Interview(bundled, InterviewConfig("chemical", "symptom", "evidence"))
    reported = {s.index for s in bundled.symptoms if s.observation == "reported"}
    assert 10 < len(reported) < len(bundled.symptoms) - 10
    for _ in range(8):
        q = views.question(it).items[0].symptom.index
        sug = it.state.belief.suggest_symptom(it.state.available())
        gains = dict(zip(sug.queries.tolist(), sug.gains.tolist()))
        best = float(sug.gains[0])
        top = int(sug.queries[0])
        assert q == top or (top in reported and q not in reported)
        if q in reported:  # no observable symptom was close enough
            assert all(
                g < best * (1 - OBSERVED_MARGIN) for k, g in gains.items() if k not in reported
            )
        else:
            assert gains[q] >= best * (1 - OBSERVED_MARGIN)
        it.answer(q, Answer.NO)


def _suggest(it: Interview, query: int, monkeypatch) -> None:
    """Make the engine suggest ``query`` now, whatever it would choose."""
    import numpy as np

    from responder.engine.policies import Choice

    choice = Choice("query", query, np.array([query]), np.ones(1), None)
    monkeypatch.setattr(it.state, "suggestion", lambda: choice)


def test_a_sign_of_an_exclusive_group_is_asked_with_its_other_values(monkeypatch):
    from responder.kb.loader import load_bundled

    knowledge = load_bundled()
    it = Interview(knowledge, InterviewConfig(mode="evidence"))
    small = knowledge.symptom_index("pinpoint_pupils")
    wide = knowledge.symptom_index("dilated_pupils")
    _suggest(it, small, monkeypatch)
    q = views.question(it)
    assert [i.symptom.index for i in q.items] == [small, wide]  # the suggested one first
    assert q.group is not None and q.group.none_label == "Normal size"
    # "no" to one value leaves the other open: it is then asked alone
    it.answer(small, Answer.NO)
    _suggest(it, wide, monkeypatch)
    assert [i.symptom.index for i in views.question(it).items] == [wide]


def test_one_yes_settles_an_exclusive_group_and_no_member_is_asked_again():
    from responder.kb.loader import load_bundled

    knowledge = load_bundled()
    it = Interview(knowledge, InterviewConfig(mode="evidence"))
    small = knowledge.symptom_index("pinpoint_pupils")
    wide = knowledge.symptom_index("dilated_pupils")
    it.answer(wide, Answer.YES)
    assert it.answer_of(small) is Answer.NO and it.state.is_implied(small)
    suggested = []
    while it.status is Status.ASKING and len(suggested) < 80:
        q = views.question(it)
        suggested += [i.symptom.index for i in q.items]
        it.answer(q.items[0].symptom.index, Answer.UNKNOWN)
    assert len(suggested) > 5 and small not in suggested and wide not in suggested


def test_the_classes_panel_says_classes_start_alike_when_a_class_can_show_less_than_its_chemical():
    from responder.kb.resolve import load_knowledge  # noqa: PLC0415

    bundled = load_knowledge(None)
    it = Interview(bundled, InterviewConfig("chemical", "symptom", "evidence"))
    for sid in ("fatigue", "muscle_pain", "setting_deliberate_attack", "route_swallowed"):
        it.answer(bundled.symptom_index(sid), Answer.YES)
    main = views.main_screen(it)
    top = main.candidates.rows[0]
    own_class = dict((c.id, p) for c, p in main.classes)[top.chemicals[0].class_id]
    # the split prior: the leader's own class shows less than the leader itself
    assert own_class < top.probability
    assert main.classes_note == views.CLASSES_WEIGHED_ALIKE
    # the class target and the strict mode weigh chemicals and classes alike: no note
    for config in (
        InterviewConfig("class", "symptom", "evidence"),
        InterviewConfig("chemical", "symptom", "strict"),
    ):
        assert views.main_screen(Interview(bundled, config)).classes_note == ""


def test_an_evidence_result_counts_every_victims_answers(knowledge):
    """The evidence mode pools every victim's answers, but "Identified after N answers"
    counted only the victim being asked (with the incident's): fewer than the ranking rests
    on. The strict and noise modes read the victim being asked, and count those."""
    it = Interview(knowledge, InterviewConfig())
    assert it.mode == "evidence"
    it.answer(knowledge.symptom_index("blisters"), Answer.YES)
    it.answer(knowledge.symptom_index("skin_burns"), Answer.YES)
    it.add_victim()
    answer_as(it, "Sulfur mustard")
    found = views.result(it)
    assert found is not None
    assert it.answered == len(it.records) > it.asked
    assert f"after {it.answered} answers" in found.status, found.status
    strict = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    strict.answer(knowledge.symptom_index("cough"), Answer.YES)
    strict.add_victim()
    strict.answer(knowledge.symptom_index("pinpoint_pupils"), Answer.YES)
    strict.answer(knowledge.symptom_index("skin_burns"), Answer.YES)
    assert strict.status is Status.INCONSISTENT
    assert views.no_fit(strict).headline.endswith("matches all 2 answers")


def test_the_same_answer_again_is_no_change(knowledge):
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "strict"))
    first = it.answer(0, Answer.NO)
    generation = it.generation
    again = it.answer(0, Answer.NO)  # pressed again in history, or volunteered again
    assert again is first and it.generation == generation
    assert len(it.records) == 1 and it.log.changed == []
    it.answer(0, Answer.YES)  # a different answer is a change, with its trace
    assert [(new.answer, old.answer) for new, old in it.log.changed] == [(Answer.YES, Answer.NO)]


@pytest.mark.parametrize("mode", ["strict", "noise"])
def test_the_strict_and_noise_modes_say_they_read_the_victim_being_asked(knowledge, mode):
    """The paper's single-victim models rank on the victim being asked and the scene: the
    status, the notice and the result say whose answers those are."""
    it = Interview(knowledge, InterviewConfig(mode=mode))
    ix = knowledge.symptom_index
    for sid in ("cough", "eye_irritation", "tearing", "headache", "shortness_of_breath"):
        it.answer(ix(sid), Answer.YES)
    it.answer(ix("wheezing"), Answer.YES)
    it.answer(ix("pinpoint_pupils"), Answer.NO)
    assert views.candidates(it)[0].names == "Chlorine" and it.status is Status.IDENTIFIED
    assert not it.reads_one_victim and views.status_view(it).reads_victim == ""
    assert it.one_victim_notice() == ""
    it.add_victim("driver")
    it.answer(ix("pinpoint_pupils"), Answer.YES)
    # only victim 2's answers are read now: the nerve agents lead, victim 1's chlorine is gone
    assert [r.names for r in views.candidates(it)[:3]] == ["Sarin (GB)", "VX", "Tabun (GA)"]
    assert it.reads_one_victim and views.status_view(it).reads_victim == "V2"
    notice = it.one_victim_notice()
    assert notice.startswith("Strict mode" if mode == "strict" else "Noise tolerance")
    assert "reads one victim, Victim 2 (driver): their answers and the scene's count" in notice
    it.select_victim(0)
    assert views.status_view(it).reads_victim == "V1"
    found = views.result(it)
    assert found.headline.startswith("Most likely: Chlorine")
    assert found.status == (
        f"Identified after 7 answers (Victim 1's and the scene's: {mode} mode reads one victim)"
    )
    # the profile lists the answers the ranking read, and no other victim's
    assert {row.who for row in found.profile if row.answer} == {"V1"}


def test_the_evidence_mode_reads_every_victim_and_says_nothing_of_one(knowledge):
    it = Interview(knowledge, InterviewConfig())
    it.answer(knowledge.symptom_index("cough"), Answer.YES)
    it.add_victim()
    assert not it.reads_one_victim and views.status_view(it).reads_victim == ""
    assert it.one_victim_notice() == ""


def test_the_answers_named_against_the_leader_are_every_victims_its_count_counts(knowledge):
    """The candidates panel's ✗ counts the pooled answers against the leader; the panel's
    lower edge names those same answers, whosever they are, not the current victim's only."""
    it = Interview(knowledge, InterviewConfig())
    ix = knowledge.symptom_index
    it.answer(ix("pinpoint_pupils"), Answer.YES)
    it.answer(ix("headache"), Answer.YES)
    it.add_victim()
    it.answer(ix("cough"), Answer.YES)  # no nerve agent lists a cough
    it.answer(ix("sweating"), Answer.YES)
    it.select_victim(0)
    view = views.candidates_view(it)
    leader = view.rows[0]
    assert leader.names == "Tabun (GA)" and leader.mismatches == 1
    assert view.against_first == ("V2 Cough",)


def test_the_evidence_title_never_says_0_plausible_and_keeps_its_threshold_when_short():
    """At 80 columns the title is the short one, which read '0 plausible of 274' after
    'Nausea: yes': nothing is ruled out in the evidence mode, every chemical was just under
    1%, and the short title had dropped the '(above 1%)' that said so."""
    from responder.kb.loader import load_bundled

    kb = load_bundled()
    it = Interview(kb, InterviewConfig(mode="evidence"))
    it.answer(kb.symptom_index("nausea"), Answer.YES, volunteered=True)
    view = views.candidates_view(it)
    assert view.plausible == 0
    assert view.title == f"Candidates: none above 1% yet, of {len(kb.chemicals)}"
    assert view.short_title == "None above 1% yet"
    it.answer(kb.symptom_index("pinpoint_pupils"), Answer.YES, volunteered=True)
    view = views.candidates_view(it)
    assert view.plausible > 0
    assert view.short_title == f"{view.plausible} plausible (>1%) of {len(kb.chemicals)}"


def test_act_now_stays_while_any_victim_has_a_life_threatening_sign_and_names_them():
    """Switching away from the victim who stopped breathing hid the banner (the victims
    strip kept their "!"): it stays, naming that victim, until their answer is taken back."""
    from responder.kb.resolve import load_knowledge  # noqa: PLC0415

    kb = load_knowledge(None)
    arrest, seizures = kb.symptom_index("respiratory_arrest"), kb.symptom_index("seizures")
    it = Interview(kb)
    it.answer(arrest, Answer.YES)
    assert "ACT NOW: Stopped breathing" in views.act_now(it)
    it.add_victim("driver")
    line = views.act_now(it)
    assert line.startswith("ACT NOW: Victim 1: Stopped breathing.") and "911" in line
    it.answer(seizures, Answer.YES)
    line = views.act_now(it)
    assert line.startswith("ACT NOW: Seizures (fits); Victim 1: Stopped breathing.")
    it.select_victim(0)
    assert views.act_now(it).startswith(
        "ACT NOW: Stopped breathing; Victim 2 (driver): Seizures (fits)."
    )
    it.remove(arrest)
    it.remove(seizures, victim=1)
    assert views.act_now(it) is None
