"""The engine state a knowledge base gives an interview: its exclusive groups as one
question each, and its categories of alternatives."""

from __future__ import annotations

from dataclasses import replace

from responder.config import InterviewConfig
from responder.core.modes import exclusive_groups, implications, state_for
from responder.engine.state import Answer
from responder.kb.loader import load_bundled
from responder.kb.model import Implication

KB = load_bundled()


def test_the_bundled_scene_categories_of_alternatives():
    flagged = {c.id for c in KB.categories if c.alternatives}
    assert flagged == {"odour", "appearance", "state", "onset", "route", "setting"}
    mask = KB.problem.alternatives
    assert mask[KB.symptom_index("setting_swimming_pool")]
    assert not mask[KB.symptom_index("pattern_several_victims")]
    assert not mask[KB.symptom_index("cough")]


def test_once_the_place_is_named_no_other_place_is_suggested():
    st = state_for(KB, InterviewConfig())
    pool = KB.symptom_index("setting_swimming_pool")
    st.answer(pool, Answer.YES)
    settings = [s.index for s in KB.symptoms if s.category == "setting"]
    available = st.available()
    assert not available[settings].any()
    assert available[KB.symptom_index("pattern_several_victims")]
    assert available[KB.symptom_index("odour_bleach")]
    for _ in range(15):  # however long the interview, no second place is asked
        q = st.next_query()
        if q is None:
            break
        assert q not in settings
        st.answer(q, Answer.NO)


def test_exclusive_groups_as_query_indices():
    groups = exclusive_groups(KB)
    pupils = groups.group_of(KB.symptom_index("pinpoint_pupils"))
    assert groups.members[pupils] == (
        KB.symptom_index("pinpoint_pupils"),
        KB.symptom_index("dilated_pupils"),
    )
    assert groups.has_none[pupils]
    onset = groups.group_of(KB.symptom_index("onset_minutes"))
    assert not groups.has_none[onset] and len(groups.members[onset]) == 4


def test_onset_and_route_split_their_chance_and_the_place_does_not():
    split = KB.problem.split_chance
    assert split[KB.symptom_index("onset_minutes")] and split[KB.symptom_index("route_inhaled")]
    assert not split[KB.symptom_index("setting_swimming_pool")]
    assert not split[KB.symptom_index("odour_bleach")]


def test_an_answer_implies_what_its_implications_imply_in_turn():
    # rescuers fell ill -> several victims -> (a made-up link) a gas; walking -> not
    # unconscious -> (made up) no seizures: a chain is filled in to its end, as the matrix's
    # implied cells are, and never back onto the answer itself.
    chain = (
        Implication("pattern_rescuers_affected", "yes", (("pattern_several_victims", "yes"),), ""),
        Implication("pattern_several_victims", "yes", (("state_gas", "yes"),), ""),
        Implication("unconsciousness", "no", (("seizures", "no"),), ""),
    )
    kb = replace(KB, implications=KB.implications + chain)
    i = kb.symptom_index
    rules = implications(kb)
    implied = rules.implied_by({i("pattern_rescuers_affected"): Answer.YES})
    assert implied == {i("pattern_several_victims"): Answer.YES, i("state_gas"): Answer.YES}
    implied_walking = rules.implied_by({i("walking_talking"): Answer.YES})
    assert implied_walking[i("unconsciousness")] is Answer.NO
    assert implied_walking[i("seizures")] is Answer.NO
    assert i("walking_talking") not in implied_walking
