"""Consistent questions: an exclusive group answered with one key, and categories of
alternatives (one place, one smell) no longer suggested once one of them holds."""

from __future__ import annotations

import numpy as np
import pytest

from responder.engine.evidence import EvidenceSettings
from responder.engine.interview import run_interview
from responder.engine.problem import Problem, ProblemError
from responder.engine.state import Answer, ExclusiveGroups, Implications, InterviewState

YES, NO, UNKNOWN = Answer.YES, Answer.NO, Answer.UNKNOWN
# Queries 0-1: pupils small / large (a group with "normal size"); 2-4: onset bins (a group
# where one value always holds); 5: a sign outside any group.
GROUPS = ExclusiveGroups(((0, 1), (2, 3, 4)), (True, False))


def answers(**given):
    """answer_of for queries named q0..q5 (unnamed: no)."""
    table = {int(k[1:]): v for k, v in given.items()}
    return lambda q: table.get(q, NO)


def all_open(_q):
    return True


def test_a_yes_to_the_asked_value_is_entered_alone():
    assert GROUPS.one_question(0, answers(q0=YES, q1=YES), all_open) == ((0, YES),)


def test_the_value_that_holds_is_chosen_instead_of_the_asked_one():
    assert GROUPS.one_question(0, answers(q1=YES), all_open) == ((1, YES),)
    assert GROUPS.one_question(2, answers(q4=YES), all_open) == ((4, YES),)


def test_none_of_these_answers_every_open_value_no():
    assert GROUPS.one_question(0, answers(), all_open) == ((0, NO), (1, NO))


def test_a_group_without_none_of_these_takes_the_asked_answer_alone():
    assert GROUPS.one_question(3, answers(), all_open) == ((3, NO),)


def test_an_unknown_value_keeps_the_group_open():
    assert GROUPS.one_question(0, answers(q1=UNKNOWN), all_open) == ((0, NO),)
    assert GROUPS.one_question(0, answers(q0=UNKNOWN), all_open) == ((0, UNKNOWN),)


def test_values_already_answered_are_not_offered_again():
    def only_first_open(q):
        return q == 0

    assert GROUPS.one_question(0, answers(q1=YES), only_first_open) == ((0, NO),)


def test_a_query_outside_every_group_is_answered_as_asked():
    assert GROUPS.one_question(5, answers(q5=YES), all_open) == ((5, YES),)
    assert GROUPS.group_of(5) is None and GROUPS.group_of(3) == 1


# --- one question, several entries, in the one interview loop ---------------------------

B = np.array(
    [
        [1, 0, 1, 0, 0, 1],
        [0, 1, 0, 1, 0, 0],
        [0, 0, 0, 0, 1, 1],
        [0, 0, 1, 0, 0, 0],
    ],
    dtype=bool,
)


def group_state(**kw):
    rules = {}
    for members in GROUPS.members:
        for q in members:
            rules[(q, True)] = tuple((o, NO) for o in members if o != q)
    problem = Problem.build(B, object_groups=[0, 0, 1, 1])
    return InterviewState(problem, evidence=EvidenceSettings(), implications=Implications(rules))


def _victim_respond(state, truth):
    return lambda q: GROUPS.one_question(
        q, lambda m: YES if truth[m] else NO, lambda m: state.answer_of(m) is None
    )


def test_none_of_these_is_one_question_that_answers_both_pupils():
    st = group_state()
    asked, end = run_interview(_AskFirst(st, 0), _victim_respond(st, B[2]), cap=1)
    assert asked == [(0, NO)]
    assert st.given() == {0: NO, 1: NO}


def test_choosing_another_onset_is_one_question_and_settles_the_others():
    st = group_state()
    asked, _ = run_interview(_AskFirst(st, 2), _victim_respond(st, B[2]), cap=1)
    assert asked == [(4, YES)]
    assert st.given() == {4: YES}
    assert st.answer_of(2) is NO and st.answer_of(3) is NO  # implied, never asked


def test_plain_answers_still_count_one_question_each():
    st = group_state()
    asked, _ = run_interview(st, lambda q: bool(B[0, q]), cap=3)
    assert len(asked) == 3 and len(st.given()) == 3


class _AskFirst:
    """A stepper that asks ``query`` first, then whatever the state suggests."""

    def __init__(self, state, query):
        self.state, self.query = state, query

    def next_query(self, rng):
        return self.query if self.query is not None else self.state.next_query(rng)

    def after(self, query, answer):
        self.state.answer(query, answer)
        return _AskFirst(self.state, None)


# --- categories of alternatives ----------------------------------------------------------

# Queries 0-2: a setting (alternatives); 3-4: the pattern (not); 5: a route (alternatives,
# per victim).
CATS = ["setting", "setting", "setting", "pattern", "pattern", "route"]
ALTERNATIVES = np.array([True, True, True, False, False, True])
SHARED = np.array([True, True, True, True, True, False])


B2 = np.array(
    [[1, 1, 0, 1, 1, 1], [0, 1, 1, 1, 0, 0], [1, 0, 1, 0, 1, 1], [0, 0, 1, 1, 1, 0]],
    dtype=bool,
)


def alternatives_state(**kw):
    problem = Problem.build(
        B2, object_groups=[0, 0, 1, 1], query_groups=CATS, alternatives=ALTERNATIVES
    )
    return InterviewState(problem, evidence=EvidenceSettings(), shared=SHARED, **kw)


def test_a_yes_in_a_category_of_alternatives_settles_the_rest():
    st = alternatives_state()
    assert st.available().all()
    st.answer(1, YES)
    assert st.available().tolist() == [False, False, False, True, True, True]
    assert st.suggestion().index not in (0, 2)


def test_a_no_leaves_the_category_open_and_other_categories_are_untouched():
    st = alternatives_state()
    st.answer(0, NO)
    st.answer(3, YES)  # the pattern is not a category of alternatives
    assert st.available().all()


def test_an_implied_yes_settles_its_category_too():
    st = alternatives_state(implications=Implications({(3, True): ((0, YES),)}))
    st.answer(3, YES)
    assert not st.available()[[1, 2]].any()


def test_alternatives_answered_per_victim_stay_open_for_the_next_victim():
    st = alternatives_state()
    st.answer(5, YES)
    assert not st.available()[5]
    other = st.add_victim()
    assert st.available(other)[5]
    st.answer(0, YES)  # the place is the incident's: settled for every victim
    assert not st.available(0)[[1, 2]].any() and not st.available(other)[[1, 2]].any()


def test_alternatives_mark_whole_categories_of_a_problem():
    with pytest.raises(ProblemError, match="query groups"):
        Problem.build(B2, alternatives=ALTERNATIVES)
    with pytest.raises(ProblemError, match="booleans, one per query"):
        Problem.build(B2, query_groups=CATS, alternatives=[True, False])
    with pytest.raises(ProblemError, match="partly marked"):
        Problem.build(B2, query_groups=CATS, alternatives=[True, True, False, False, False, True])
    p = Problem.build(B2, query_groups=CATS, alternatives=ALTERNATIVES)
    assert [c.tolist() for c in p.alternative_categories()] == [[0, 1, 2], [5]]
    assert p.settled_by_yes([1]).tolist() == [True, True, True, False, False, False]
    assert p.settled_by_yes([1, 5]).tolist() == [True, True, True, False, False, True]
    assert not p.settled_by_yes([3]).any() and not p.settled_by_yes([]).any()
    assert not Problem.build(B2, query_groups=CATS).settled_by_yes([1]).any()
    assert p.subset(queries=[0, 3, 5]).alternatives.tolist() == [True, False, True]
    assert p.with_prior([1, 2, 3, 4]).alternatives is p.alternatives


# --- per-victim alternatives split a row's chance ------------------------------------------


def test_split_chance_marks_only_categories_of_alternatives():
    with pytest.raises(ProblemError, match="only categories of alternatives"):
        Problem.build(B2, query_groups=CATS, split_chance=ALTERNATIVES)
    with pytest.raises(ProblemError, match="partly marked in split_chance"):
        Problem.build(
            B2,
            query_groups=CATS,
            alternatives=ALTERNATIVES,
            split_chance=[True, False, False, False, False, False],
        )
    route = np.array([False] * 5 + [True])
    p = Problem.build(B2, query_groups=CATS, alternatives=ALTERNATIVES, split_chance=route)
    assert [c.tolist() for c in p.alternative_categories(split=True)] == [[5]]
    assert p.subset(queries=[0, 5]).split_chance.tolist() == [False, True]


def test_a_row_listing_several_values_of_a_split_category_shares_their_chance():
    from responder.engine.evidence import AnswerModel

    split = np.array([True, True, True, False, False, False])  # the first category
    kw = dict(object_groups=[0, 0, 1, 1], query_groups=CATS, alternatives=ALTERNATIVES)
    shared = Problem.build(B2, split_chance=split, **kw)
    whole = Problem.build(B2, **kw)
    model = AnswerModel(0.8, 0.05, long_row_exponent=0.0)
    L, L0 = model.likelihood(shared), model.likelihood(whole)
    # Row 0 lists two of the three: each keeps half its chance above the leak.
    assert L[0, 0] == pytest.approx(0.05 + (L0[0, 0] - 0.05) / 2)
    assert L[0, 2] == pytest.approx(L0[0, 2])  # unlisted: still the leak
    assert L[3, 2] == pytest.approx(L0[3, 2])  # listed alone: its whole chance
    assert np.allclose(L[:, 3:], L0[:, 3:])  # other categories untouched
    # So each victim's "this one" favours the row that lists only it.
    assert L[3, 2] > L[1, 2]
