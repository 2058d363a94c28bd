"""A route per victim: victims of one incident share its presentation (field or textbook) but
each was exposed their own way (one splashed on the skin, another who breathed the vapour).

The posterior, the view weights of the victim being asked, the gains, each answer's weight
and the answers counted against a chemical are checked against the mixture written out by
enumeration, independently of the engine's vectorised form.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joint_tables import add_answers, information
from test_route_views import (
    FIELD,
    TEXTBOOK,
    routed_model,
    routed_problem,
    splash_problem,
    written_views,
)

from responder.engine.evidence import EvidenceModel, EvidenceSettings
from responder.engine.state import Answer, InterviewState


def views_of(problem, several, presentations):
    """Per presentation: its share and its (view likelihood, view share) pairs."""
    return [
        (weight, list(zip(*written_views(problem, model, several), strict=True)))
        for weight, model in presentations
    ]


def victim_likelihood(view, i, answers):
    p = 1.0
    for q, yes in answers:
        p *= view[i, q] if yes else 1 - view[i, q]
    return p


def enumerated(problem, victims, current, several, presentations):
    """P(i | answers) and P(p, r_current | i, answers) by explicit sums over every victim's
    route view, shape (M,) and (K, M); ``victims`` maps a victim to its (query, yes) list."""
    M = problem.n_objects
    joint_current = []  # (K, M) unnormalised: P(i, p, r_current, answers)
    for weight, views in views_of(problem, several, presentations):
        for view_c, share_c in views:
            p = np.zeros(M)
            for i in range(M):
                total = weight * problem.prior[i] * share_c[i]
                total *= victim_likelihood(view_c, i, victims.get(current, []))
                for v, answers in victims.items():
                    if v == current:
                        continue
                    total *= sum(s[i] * victim_likelihood(view, i, answers) for view, s in views)
                p[i] = total
            joint_current.append(p)
    joint = np.array(joint_current)
    posterior = joint.sum(axis=0) / joint.sum()
    return posterior, joint / joint.sum(axis=0)


def pooled_arguments(victims):
    queries, values, owners = [], [], []
    for v, answers in victims.items():
        for q, yes in answers:
            queries.append(q)
            values.append(yes)
            owners.append(v)
    return np.array(queries, dtype=np.int64), np.array(values, dtype=bool), np.array(owners)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    several=st.sampled_from([0.0, 0.4]),
    textbook=st.sampled_from([0.0, 0.5]),
    target=st.sampled_from(["object", "group"]),
    current=st.integers(0, 2),
)
def test_posterior_views_and_gains_are_the_per_victim_mixture(
    seed, several, textbook, target, current
):
    problem, model, presentations = routed_model(seed, several, textbook, target)
    rng = np.random.default_rng(seed)
    N = problem.n_queries
    # victims 0 and 1 answer a few queries each (a query may repeat across victims);
    # victim 2 has answered nothing yet
    victims = {
        v: [(int(q), bool(rng.integers(0, 2))) for q in rng.permutation(N)[: rng.integers(1, 4)]]
        for v in (0, 1)
    }
    queries, values, owners = pooled_arguments(victims)
    asked = np.zeros(N, dtype=bool)
    asked[[q for q, _ in victims.get(current, [])]] = True
    belief = model.pooled(queries, values, asked, owners, current)
    posterior, views = enumerated(problem, victims, current, several, presentations)
    np.testing.assert_allclose(belief.posterior, posterior, rtol=1e-9)
    np.testing.assert_allclose(belief.presentation, views, rtol=1e-9, atol=1e-300)
    labels = problem.object_groups if target == "group" else np.arange(problem.n_objects)
    every_view = [view for _, vs in views_of(problem, several, presentations) for view, _ in vs]
    for q in range(N):
        table: dict = {}
        for k, view in enumerate(every_view):
            for i in range(problem.n_objects):
                add_answers(table, labels[i], posterior[i] * views[k, i], view[i, q])
        expected = 0.0 if asked[q] else information(table)
        assert belief.gains()[q] == pytest.approx(expected, abs=1e-9)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), textbook=st.sampled_from([0.0, 0.5]))
def test_each_answer_weighs_what_leaving_it_out_of_its_victim_changes(seed, textbook):
    problem, model, presentations = routed_model(seed, 0.3, textbook)
    rng = np.random.default_rng(seed + 1)
    N = problem.n_queries
    victims = {
        v: [(int(q), bool(rng.integers(0, 2))) for q in rng.permutation(N)[:3]] for v in (0, 1)
    }
    queries, values, owners = pooled_arguments(victims)
    belief = model.pooled(queries, values, np.zeros(N, bool), owners, 0)
    objects = np.arange(problem.n_objects)

    def log_likelihood(answers_by_victim):
        total = np.zeros(problem.n_objects)
        for weight, views in views_of(problem, 0.3, presentations):
            for i in objects:
                p = weight
                for answers in answers_by_victim.values():
                    p *= sum(s[i] * victim_likelihood(view, i, answers) for view, s in views)
                total[i] += p
        return np.log(total)

    full = log_likelihood(victims)
    t = 0
    for v, answers in victims.items():
        for j in range(len(answers)):
            without = {**victims, v: answers[:j] + answers[j + 1 :]}
            np.testing.assert_allclose(
                belief.answer_weights(objects)[:, t], full - log_likelihood(without), rtol=1e-9
            )
            t += 1


def test_one_victim_and_the_incidents_answers_are_todays_single_view():
    """The incident's answers count as the first victim's: with one victim the result is the
    single mixture, bit for bit."""
    problem = routed_problem(11)
    model = EvidenceModel(problem, FIELD, textbook=(0.5, TEXTBOOK), several_routes_share=0.3)
    queries, values = np.array([0, 6, 2]), np.array([True, True, False])
    asked = np.zeros(problem.n_queries, bool)
    single = model.pooled(queries, values, asked)
    owned = model.pooled(queries, values, asked, np.array([-1, 0, 0]), 0)
    assert owned.owners is None
    np.testing.assert_array_equal(single.posterior, owned.posterior)
    np.testing.assert_array_equal(single.gains(), owned.gains())


def test_victims_exposed_differently_both_fit_the_chemical_that_has_both_routes():
    """Hydrofluoric acid (both routes: cough breathed in, burns on the skin) against a
    chemical met on the skin alone. One victim splashed (burns, no cough), one who breathed
    it (cough, no burns): with a route per victim the first explains both victims; with one
    view for the incident it must call both victims exposed both ways."""
    problem = splash_problem()
    model = EvidenceModel(problem, FIELD, several_routes_share=0.5)
    victims = {0: [(6, True), (2, True), (0, False)], 1: [(5, True), (0, True), (2, False)]}
    queries, values, owners = pooled_arguments(victims)
    asked = np.zeros(problem.n_queries, bool)
    per_victim = model.pooled(queries, values, asked, owners, 1)
    one_view = model.pooled(queries, values, asked)
    assert per_victim.posterior[0] > one_view.posterior[0]
    # the victim being asked (who breathed it) weighs its "breathed in" view most
    inhaled, skin = 0, 1  # components: the field presentation's route views, in route order
    assert per_victim.presentation[inhaled, 0] > 0.5 > per_victim.presentation[skin, 0]
    # a "no" to the cough counts against the chemical only from the victim who breathed it
    said_no = (np.array([6, 0, 5, 0]), np.array([True, False, True, False]), asked)
    assert model.pooled(*said_no, [0, 0, 1, 1], 0).against()[0].tolist() == [0, 0, 0, 1]
    assert model.pooled(*said_no).against()[0].tolist() == [0, 1, 0, 1]


def test_the_interview_asks_each_victim_by_their_own_route():
    """In an interview, the victim being asked carries their own route: a second victim
    who breathed the vapour is asked about the cough though the first, splashed on the skin,
    already said no to it."""
    problem = splash_problem()
    state = InterviewState(problem, evidence=EvidenceSettings(several_routes_share=0.5))
    for q, answer in ((6, Answer.YES), (2, Answer.YES), (0, Answer.NO)):
        state.answer(q, answer)
    state.add_victim()
    state.answer(5, Answer.YES)
    owners = np.array(state.pooled_owners())
    assert sorted(set(owners.tolist())) == [0, 1]
    belief = state.belief
    assert belief.current == 1 and belief.owners is not None
    skin_victim = state.model.pooled(*state.pooled_answers(), np.zeros(9, bool), owners, 0)
    objects, chances = belief.answer_chances()
    first = int(np.flatnonzero(objects == 0)[0])
    objects0, chances0 = skin_victim.answer_chances()
    cough_now, cough_for_the_first = (
        chances[first, 0],
        chances0[int(np.flatnonzero(objects0 == 0)[0]), 0],
    )
    assert cough_now > cough_for_the_first


@pytest.mark.parametrize("owners", [[0], [0, 1, 2]])
def test_owners_must_match_the_answers(owners):
    model = EvidenceModel(splash_problem(), FIELD, several_routes_share=0.5)
    with pytest.raises(ValueError, match="owners for 2 answers"):
        model.pooled(np.array([0, 1]), np.array([True, False]), np.zeros(9, bool), owners, 0)


def test_the_victim_to_ask_is_scored_with_their_own_route():
    problem = splash_problem()
    state = InterviewState(problem, evidence=EvidenceSettings(several_routes_share=0.5))
    state.answer(6, Answer.YES)
    state.add_victim()
    state.answer(5, Answer.YES)
    queries, values = state.pooled_answers()
    owners = np.array(state.pooled_owners())
    best = {}
    for v in (0, 1):
        gains = state.model.pooled(queries, values, np.zeros(9, bool), owners, v).gains()
        open_ = np.ones(9, bool)
        open_[list(state.given(v))] = False
        best[v] = gains[open_].max()
    assert best[0] != pytest.approx(best[1])
    assert state.victim_to_ask() == max(best, key=best.get)


@pytest.mark.parametrize("owners", [[0, 0, 1, 1], [0, 0, 0, 0], [-1, 0, 0, 0]])
def test_asking_another_victim_is_the_posterior_built_for_them(owners):
    """``Belief.as_victim`` reuses the per-victim sums: the same as building the belief with
    that victim being asked, including a victim with no answers yet."""
    problem = routed_problem(21)
    model = EvidenceModel(problem, FIELD, textbook=(0.5, TEXTBOOK), several_routes_share=0.3)
    queries, values = np.array([0, 6, 5, 2]), np.array([True, True, True, False])
    asked = np.zeros(problem.n_queries, bool)
    built = model.pooled(queries, values, asked, owners, 0)
    for victim in (0, 1, 2):
        mine = np.zeros(problem.n_queries, bool)
        mine[queries[np.maximum(owners, 0) == victim]] = True
        expected = model.pooled(queries, values, mine, owners, victim)
        twin = built.as_victim(victim, mine)
        np.testing.assert_allclose(twin.posterior, expected.posterior, rtol=1e-12)
        np.testing.assert_allclose(twin.presentation, expected.presentation, rtol=1e-9, atol=1e-300)
        np.testing.assert_allclose(twin.gains(), expected.gains(), atol=1e-12)
