"""Route views: a victim exposed by one route shows another route's contact signs only
occasionally (evidence mode).

Each chemical's likelihood is a mixture over "several routes at once" (the row's union) and
each route its row lists; the checks below write the views out cell by cell and the mixture
by explicit products, independently of the engine's vectorised form.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joint_tables import add_answers, information

from responder.engine.evidence import (
    AnswerModel,
    EvidenceError,
    EvidenceModel,
    EvidenceSettings,
    route_views,
    row_signs,
)
from responder.engine.problem import Problem, ProblemError

FIELD = AnswerModel(0.8, 0.1, None, 0.25, class_borrow=0.4)
TEXTBOOK = AnswerModel(0.97, 0.01, None, 0.0)
# queries 0-4 are signs, 5-7 the routes (inhaled, skin, swallowed); 8 a fourth route, drug use
SIGNS, ROUTES = 5, 4
INHALED_ONLY = [0, 1]  # cough, sore throat: breathed in
SKIN_ONLY = [2]  # skin burns: where it touched


def off_route_table() -> np.ndarray:
    off = np.zeros((ROUTES, SIGNS + ROUTES), dtype=bool)
    off[1, INHALED_ONLY] = True  # on the skin: no cough, no sore throat
    off[2, INHALED_ONLY + SKIN_ONLY] = True  # swallowed: none of them
    off[0, SKIN_ONLY] = True  # breathed in: no skin burn
    return off  # drug use (row 3) restricts nothing


def routed_problem(seed: int, M: int = 7) -> Problem:
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 4, size=(M, SIGNS + ROUTES))
    grades[0, SIGNS:] = 0  # one row lists no route: it keeps the union alone
    grades[1, SIGNS:] = [2, 0, 0, 0]  # one lists a single route
    return with_routes(
        grades,
        prior=rng.integers(1, 5, size=M),
        object_groups=[str(g) for g in rng.integers(0, 3, M)],
    )


def with_routes(grades, **extra) -> Problem:
    """The graded rows over five signs and the four routes, with the route views."""
    grades = np.asarray(grades)
    return Problem.build(
        grades > 0,
        query_groups=["signs"] * SIGNS + ["route"] * ROUTES,
        grades=grades,
        alternatives=[False] * SIGNS + [True] * ROUTES,
        split_chance=[False] * SIGNS + [True] * ROUTES,
        route_queries=list(range(SIGNS, SIGNS + ROUTES)),
        off_route=off_route_table(),
        **extra,
    )


def written_views(problem: Problem, model: AnswerModel, several: float):
    """Each view's likelihood and share, cell by cell from the definition."""
    L = model.likelihood(problem)
    leaks = model.effective_leaks(problem)
    lengths = row_signs(problem)
    typical = float(problem.prior @ lengths)
    occasional = model._discounted(model.occasional, lengths, typical, leaks)
    M, N = L.shape
    routes = list(problem.route_queries)
    views, shares = [], []
    for r, route in enumerate(routes):
        view = L.copy()
        share = np.zeros(M)
        for i in range(M):
            listed = [q for q in routes if problem.matrix[i, q]]
            if route in listed:
                above = {q: L[i, q] - leaks[q] for q in listed}
                share[i] = (1 - several) * above[route] / sum(above.values())
            for q in range(N):
                if q in routes:
                    whole = leaks[q] + (L[i, q] - leaks[q]) * max(len(listed), 1)
                    if q == route:
                        view[i, q] = min(whole, 1 - 1e-9)
                    elif q in listed:
                        view[i, q] = leaks[q]
                elif problem.off_route[r, q]:
                    view[i, q] = max(min(L[i, q], occasional[i]), leaks[q])
        views.append(view)
        shares.append(share)
    views.append(L)
    lists_a_route = problem.matrix[:, routes].any(axis=1)
    shares.append(np.where(lists_a_route, several, 1.0))
    return views, shares


def written_out(problem, known, several, presentations):
    """P(i, view | answers) by explicit products, shape (K, M)."""
    joint = []
    for weight, model in presentations:
        for view, share in zip(*written_views(problem, model, several), strict=True):
            p = weight * share * problem.prior
            for q, yes in known.items():
                p = p * (view[:, q] if yes else 1 - view[:, q])
            joint.append(p)
    joint = np.array(joint)
    return joint / joint.sum()


def routed_model(seed: int, several: float, textbook: float, target: str = "object"):
    """The routed problem of ``seed``, its evidence model and the presentations (share,
    answer model) the written-out mixture weighs."""
    problem = routed_problem(seed)
    model = EvidenceModel(
        problem, FIELD, target=target, textbook=(textbook, TEXTBOOK), several_routes_share=several
    )
    presentations = [(1 - textbook, FIELD)] + ([(textbook, TEXTBOOK)] if textbook else [])
    return problem, model, presentations


def splash_problem() -> Problem:
    return with_routes(
        [
            # cough, sore throat, burns, -, -, inhaled, skin, swallowed, drug use
            [2, 2, 2, 0, 0, 2, 2, 0, 0],  # both routes, both kinds of sign
            [0, 0, 2, 0, 0, 0, 2, 0, 0],  # the skin only, burns only
        ]
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    several=st.sampled_from([0.0, 0.3, 0.8]),
    textbook=st.sampled_from([0.0, 0.5]),
    target=st.sampled_from(["object", "group"]),
    n_answers=st.integers(0, 5),
)
def test_posterior_views_and_gains_are_the_written_out_mixture(
    seed, several, textbook, target, n_answers
):
    problem, model, presentations = routed_model(seed, several, textbook, target)
    rng = np.random.default_rng(seed)
    N = problem.n_queries
    known = {int(q): bool(rng.integers(0, 2)) for q in rng.permutation(N)[:n_answers]}
    belief = model.belief(known)
    joint = written_out(problem, known, several, presentations)
    np.testing.assert_allclose(belief.posterior, joint.sum(axis=0), rtol=1e-9)
    np.testing.assert_allclose(
        belief.presentation, np.divide(joint, joint.sum(axis=0)), rtol=1e-9, atol=1e-300
    )
    labels = problem.object_groups if target == "group" else np.arange(problem.n_objects)
    views = [v for _, m in presentations for v in written_views(problem, m, several)[0]]
    for q in range(N):
        table: dict = {}
        for k, view in enumerate(views):
            for i in range(problem.n_objects):
                add_answers(table, labels[i], joint[k, i], view[i, q])
        expected = 0.0 if q in known else information(table)
        assert belief.gains()[q] == pytest.approx(expected, abs=1e-9)


def test_routes_of_one_grade_keep_their_split_chance_and_a_hallmark_route_weighs_more():
    """Over the views, a row whose routes share one grade gives each route the split chance
    of the union: the route views change what goes with a route, not how often each route
    is seen. A row whose route breathed in is a hallmark and whose skin route is occasional
    (chlorine) gives the first the larger share."""
    problem = routed_problem(4)
    L = FIELD.likelihood(problem)
    views, shares = route_views(problem, FIELD, L, 0.5)
    np.testing.assert_allclose(shares.sum(axis=0), 1.0)
    mixed = np.einsum("vm,vmn->mn", shares, views)
    routes = problem.route_queries
    graded = problem.grades[:, routes]
    one_grade = np.array([np.unique(g[g > 0]).size <= 1 for g in graded])
    assert one_grade.sum() >= 3
    np.testing.assert_allclose(mixed[one_grade][:, routes], L[one_grade][:, routes], rtol=1e-12)
    chlorine = with_routes([[2, 0, 0, 0, 0, 3, 1, 0, 0]])
    _, shares = route_views(chlorine, FIELD, FIELD.likelihood(chlorine), 0.0)
    assert shares[0, 0] > 2.5 * shares[1, 0] > 0


def test_a_share_of_one_is_the_union_alone():
    problem = routed_problem(5)
    plain = Problem.build(
        problem.matrix,
        prior=problem.prior,
        object_groups=problem.object_groups,
        query_groups=problem.query_groups,
        grades=problem.grades,
        alternatives=problem.alternatives,
        split_chance=problem.split_chance,
    )
    routed = EvidenceModel(problem, FIELD, several_routes_share=1.0)
    union = EvidenceModel(plain, FIELD)
    assert routed.components is None
    known = {0: False, 2: True, 6: True}
    np.testing.assert_array_equal(routed.belief(known).posterior, union.belief(known).posterior)
    np.testing.assert_array_equal(routed.belief(known).gains(), union.belief(known).gains())


def test_a_no_to_another_routes_contact_sign_barely_counts_against_a_chemical():
    """Hydrofluoric acid on the hand: its row lists a cough (breathed in) and skin burns. A
    victim splashed on the skin, with burns and no cough, still fits it; without route
    views the honest "no" to the cough hands it to a chemical that lists no cough."""
    problem = splash_problem()
    answers = {6: True, 2: True, 0: False, 1: False}
    union = EvidenceModel(problem, FIELD, several_routes_share=1.0).belief(answers)
    routed = EvidenceModel(problem, FIELD, several_routes_share=0.5).belief(answers)
    assert routed.posterior[0] > 2 * union.posterior[0]
    # for a victim who breathed it in, the same "no"s still weigh clearly against the first
    # (a factor of about 9, 14 without route views); on the skin, about 4
    model = EvidenceModel(problem, FIELD, several_routes_share=0.5)
    union_model = EvidenceModel(problem, FIELD, several_routes_share=1.0)

    def weight_of_the_nos(model, route):
        said = model.belief({route: True, 2: True}).log_weights[0]
        return model.belief({route: True, 2: True, 0: False, 1: False}).log_weights[0] - said

    assert weight_of_the_nos(union_model, 5) < weight_of_the_nos(model, 5) < -2.0
    assert weight_of_the_nos(model, 6) > weight_of_the_nos(model, 5) + 0.5
    # and once the skin route is known, asking about the cough is worth less for the first
    before = EvidenceModel(problem, FIELD, several_routes_share=0.5).belief({2: True})
    after = EvidenceModel(problem, FIELD, several_routes_share=0.5).belief({2: True, 6: True})
    objects, chances = after.answer_chances()
    first = int(np.flatnonzero(objects == 0)[0])
    objects0, chances0 = before.answer_chances()
    assert chances[first, 0] < chances0[int(np.flatnonzero(objects0 == 0)[0]), 0]


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"route_queries": [5, 6, 7, 8]}, "route_queries and off_route go together"),
        ({"route_queries": [5, 6], "off_route": np.zeros((2, 9), bool)}, "every query of one"),
        ({"route_queries": [0, 1, 2, 3], "off_route": np.zeros((4, 9), bool)}, "split"),
        ({"route_queries": [5, 6, 7, 9], "off_route": np.zeros((4, 9), bool)}, "from 0 to 8"),
        ({"route_queries": [5, 6, 7, 8], "off_route": np.zeros((4, 8), bool)}, "4 x 9 booleans"),
        (
            {"route_queries": [5, 6, 7, 8], "off_route": np.eye(4, 9, 5, dtype=bool)},
            "a route query cannot be off-route",
        ),
    ],
)
def test_bad_route_views_are_one_clear_message(kwargs, words):
    with pytest.raises(ProblemError, match=words):
        Problem.build(
            np.ones((2, 9), dtype=int),
            query_groups=["signs"] * SIGNS + ["route"] * ROUTES,
            alternatives=[False] * SIGNS + [True] * ROUTES,
            split_chance=[False] * SIGNS + [True] * ROUTES,
            **kwargs,
        )


def test_a_subset_keeps_the_route_views_only_with_every_route():
    problem = routed_problem(6)
    kept = problem.subset(queries=[0, 2, 5, 6, 7, 8])
    np.testing.assert_array_equal(kept.route_queries, [2, 3, 4, 5])
    np.testing.assert_array_equal(kept.off_route, problem.off_route[:, [0, 2, 5, 6, 7, 8]])
    assert problem.subset(queries=[0, 1, 5, 6]).route_queries is None


@pytest.mark.parametrize("value", [-0.1, 1.5, "half", True])
def test_a_bad_several_routes_share_names_its_setting(value):
    with pytest.raises(EvidenceError) as info:
        EvidenceSettings(several_routes_share=value)
    assert info.value.field == "several_routes_share"
    assert "several-routes share" in str(info.value)


def test_a_no_to_another_routes_contact_sign_is_not_listed_against_the_chemical():
    problem = splash_problem()
    answers = {6: True, 0: False}  # on the skin, no cough
    routed = EvidenceModel(problem, FIELD, several_routes_share=0.5).belief(answers)
    union = EvidenceModel(problem, FIELD, several_routes_share=1.0).belief(answers)
    assert list(union.answers_against(0)) == [0]
    assert list(routed.answers_against(0)) == []
    breathed = EvidenceModel(problem, FIELD, several_routes_share=0.5).belief({5: True, 0: False})
    assert list(breathed.answers_against(0)) == [0]
