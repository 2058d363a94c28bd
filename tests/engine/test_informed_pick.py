"""The informed pick model for category policies (the responder picks only useful symptoms)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from responder.engine.belief import Model
from responder.engine.evaluate import exact
from responder.engine.policies import Policy, PolicyError
from responder.engine.problem import Problem


@st.composite
def small_problems(draw):
    M = draw(st.integers(2, 7))
    N = draw(st.integers(2, 6))
    bits = draw(st.lists(st.booleans(), min_size=M * N, max_size=M * N))
    B = np.array(bits, dtype=int).reshape(M, N)
    return Problem.build(
        B,
        prior=draw(st.lists(st.integers(1, 9), min_size=M, max_size=M)),
        object_groups=[str(g) for g in draw(st.lists(st.integers(0, 2), min_size=M, max_size=M))],
        query_groups=[str(c) for c in draw(st.lists(st.integers(0, 1), min_size=N, max_size=N))],
    )


@settings(max_examples=80, deadline=None)
@given(small_problems(), st.sampled_from([("gqsa", "object"), ("gigqsa", "group")]))
def test_theorem_5_and_6_hold_for_the_informed_pick(problem, policy_target):
    """E[K] by mass x depth equals the Theorem 5/6 decomposition under the informed p_j(q)."""
    name, target = policy_target
    model = Model(problem, target)
    ev = exact(model, Policy(name, pick="informed"))
    assert ev.decomposition == pytest.approx(ev.expected_queries, abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(small_problems())
def test_informed_offers_only_splitting_queries(problem):
    node = Model(problem).root()
    choice = Policy("gqsa", pick="informed").choose(node)
    assert (choice is None) == node.is_resolved()  # it stops only where nothing is left
    assume(choice is not None)
    splits = node.split().splits
    assert np.all(splits[choice.queries[choice.probs > 0]])
    assert choice.probs.sum() == pytest.approx(1.0)


def test_informed_never_wastes_a_question_on_a_category_with_useless_symptoms():
    # Category 0 holds one splitting and three useless symptoms.
    B = [[1, 0, 0, 0, 1], [0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    p = Problem.build(B, query_groups=["a", "a", "a", "a", "b"])
    any_ = exact(Model(p), Policy("gqsa")).expected_queries
    informed = exact(Model(p), Policy("gqsa", pick="informed")).expected_queries
    assert informed == pytest.approx(2.0) and any_ > informed


def test_bad_pick_model():
    with pytest.raises(PolicyError, match="choose one of any, informed"):
        Policy("gqsa", pick="smart")
