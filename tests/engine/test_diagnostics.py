"""Diagnostics of a 0/1 matrix against hand-computed examples and brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from responder.engine.diagnostics import (
    default_eps,
    distinguishable_count,
    entropy,
    estimate_gammas,
    gain_region_definition,
    group_entropy_bits,
    in_gain_region,
    min_hamming_distance,
    profile_sets,
)

# Toy example 1 of the paper (Figure "toy network"): 4 objects, 3 queries, 2 groups.
TOY = np.array([[0, 1, 1], [1, 1, 0], [0, 1, 0], [1, 0, 0]])
TOY_GROUPS = [1, 1, 1, 2]

matrices = st.integers(1, 9).flatmap(
    lambda m: st.integers(1, 7).flatmap(
        lambda n: arrays(np.int8, (m, n), elements=st.integers(0, 1))
    )
)


def brute_min_hamming(B: np.ndarray) -> int:
    rows = {tuple(r) for r in B.tolist()}
    dists = [sum(a != b for a, b in zip(r, s)) for r, s in itertools.combinations(rows, 2)]
    return min(dists) if dists else 0


# --- profiles ---------------------------------------------------------------------------


def test_profile_sets_groups_identical_rows_in_first_row_order():
    B = np.array([[1, 0], [0, 1], [1, 0], [0, 0], [0, 1]])
    sets = profile_sets(B)
    assert [s.tolist() for s in sets] == [[0, 2], [1, 4], [3]]
    assert distinguishable_count(B) == 3


@given(matrices)
@settings(max_examples=200, deadline=None)
def test_profile_sets_partition_the_rows(B):
    sets = profile_sets(B)
    assert sorted(np.concatenate(sets).tolist()) == list(range(B.shape[0]))
    for s in sets:
        assert (B[s] == B[s[0]]).all()
    firsts = [tuple(B[s[0]]) for s in sets]
    assert len(set(firsts)) == len(firsts) == distinguishable_count(B)


# --- Hamming distance and eps ------------------------------------------------------------


def test_min_hamming_hand_examples():
    assert min_hamming_distance(TOY) == 1  # rows 0 and 2 differ only in q3
    assert min_hamming_distance(np.eye(4, dtype=int)) == 2
    # identical rows are ignored: the closest distinct rows are 3 apart
    assert min_hamming_distance([[0, 0, 0], [0, 0, 0], [1, 1, 1]]) == 3
    assert min_hamming_distance([[1, 0, 1]]) == 0
    assert min_hamming_distance([[1, 0], [1, 0]]) == 0


@given(matrices, st.integers(1, 4))
@settings(max_examples=300, deadline=None)
def test_min_hamming_matches_double_loop(B, block):
    assert min_hamming_distance(B, block=block) == brute_min_hamming(B)


@pytest.mark.parametrize(("delta", "eps"), [(0, 0), (1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (8, 3)])
def test_default_eps_is_floor_of_half_delta_minus_one(delta, eps):
    assert default_eps(delta) == eps


# --- entropy ---------------------------------------------------------------------------


def test_entropy():
    assert entropy([0.5, 0.5]) == pytest.approx(1.0)
    assert entropy([0.25] * 4) == pytest.approx(2.0)
    assert entropy([1.0, 0.0]) == 0.0  # 0 log 0 = 0, and never -0.0
    assert math.copysign(1.0, entropy([1.0])) == 1.0
    assert entropy([1, 1, 2]) == pytest.approx(1.5)  # masses are normalised


def test_group_entropy_bits_sums_masses_per_group():
    # groups a: 0.5, b: 0.25 + 0.25 -> H = 1 bit
    assert group_entropy_bits([0.5, 0.25, 0.25], ["a", "b", "b"]) == pytest.approx(1.0)
    assert group_entropy_bits([1, 1, 1, 1], TOY_GROUPS) == pytest.approx(
        -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))
    )


# --- gamma estimates (Section 7.1.2) ------------------------------------------------------


def test_gammas_on_paper_toy_example():
    gw, gb = estimate_gammas(TOY, TOY_GROUPS)
    # q1: group 1 answers 0,1,0 -> b=0, 2/3 agree; group 2 answers 1 -> b=1, 1/1 agree.
    # q2: group 1 all 1 -> b=1; group 2 answers 0 -> b=0.
    # q3: group 1 answers 1,0,0 -> b=0, 2/3; group 2 answers 0 -> b=0.
    np.testing.assert_allclose(gw, [(2 / 3 + 1) / 2, 1.0, (2 / 3 + 1) / 2])
    np.testing.assert_allclose(gb, [0.5, 0.5, 1.0])
    # q2 (which alone identifies the group) and q1 split the groups; q3 does not
    assert in_gain_region(gw, gb).tolist() == [True, True, False]


def test_gammas_constructed_matrix_with_known_values():
    # 4 groups of 4 objects. Query 0: groups answer 1,1,0,0 unanimously -> gamma_w = 1,
    # gamma_b = 0.5. Query 1: every group has 3 of 4 objects answering 1 -> gamma_w = 0.75,
    # all b_i = 1 -> gamma_b = 1. Query 2: groups 0-2 answer 0, group 3 has one 1 ->
    # gamma_w = (1 + 1 + 1 + 0.75) / 4, gamma_b = 1.
    groups = np.repeat(np.arange(4), 4)
    B = np.zeros((16, 3), dtype=int)
    B[:8, 0] = 1
    B[:, 1] = 1
    B[[0, 4, 8, 12], 1] = 0
    B[12, 2] = 1
    gw, gb = estimate_gammas(B, groups)
    np.testing.assert_allclose(gw, [1.0, 0.75, 0.9375])
    np.testing.assert_allclose(gb, [0.5, 1.0, 1.0])
    assert in_gain_region(gw, gb).tolist() == [True, False, False]


def test_gamma_tie_rule_votes_zero():
    # Two groups of two; query 0: group 0 splits 1/0 (tie -> b=0), group 1 answers 1,1 (b=1)
    # -> b = (0, 1) -> gamma_b = 0.5. Were the tie to vote 1, gamma_b would be 1.
    gw, gb = estimate_gammas([[1], [0], [1], [1]], ["a", "a", "b", "b"])
    assert gw[0] == pytest.approx(0.75)
    assert gb[0] == pytest.approx(0.5)


def brute_gammas(B: np.ndarray, groups) -> tuple[list[float], list[float]]:
    labels = sorted(set(groups))
    gws, gbs = [], []
    for q in range(B.shape[1]):
        b, gw_i = [], []
        for g in labels:
            answers = [B[i, q] for i in range(B.shape[0]) if groups[i] == g]
            ones = sum(answers)
            vote = 1 if ones > len(answers) - ones else 0
            b.append(vote)
            gw_i.append(sum(a == vote for a in answers) / len(answers))
        x = 1 if sum(b) > len(b) - sum(b) else 0
        gbs.append(sum(v == x for v in b) / len(b))
        gws.append(sum(gw_i) / len(gw_i))
    return gws, gbs


@given(matrices, st.data())
@settings(max_examples=200, deadline=None)
def test_gammas_match_brute_force(B, data):
    groups = data.draw(st.lists(st.integers(0, 3), min_size=B.shape[0], max_size=B.shape[0]))
    gw, gb = estimate_gammas(B, groups)
    want_w, want_b = brute_gammas(B, groups)
    np.testing.assert_allclose(gw, want_w)
    np.testing.assert_allclose(gb, want_b)
    assert ((gw >= 0.5) & (gw <= 1) & (gb >= 0.5) & (gb <= 1)).all()


def test_gammas_reject_wrong_label_count():
    with pytest.raises(ValueError, match="one label per object"):
        estimate_gammas(TOY, [1, 2])


def test_gain_region_definition_is_explicit():
    assert gain_region_definition() == "gamma_w >= 0.75 and gamma_b <= 0.75"
