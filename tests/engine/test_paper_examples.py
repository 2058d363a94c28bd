"""The paper's two toy examples, worked by hand (group_diagnosis_v7.tex, Figures 1-4).

Indices are 0-based: q1..q4 of the paper are queries 0..3, theta_1..theta_3 objects 0..2,
query groups Q^1, Q^2 categories 0, 1.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from responder.engine.belief import Model
from responder.engine.evaluate import evaluate
from responder.engine.policies import Policy
from responder.engine.problem import Problem

# -- Toy Example 1 (Figure 1) -------------------------------------------------------------

TOY1 = [
    [0, 1, 1],  # theta_1, group 1
    [1, 1, 0],  # theta_2, group 1
    [0, 1, 0],  # theta_3, group 1
    [1, 0, 0],  # theta_4, group 2
]
TOY1_GROUPS = [1, 1, 1, 2]


def toy1_model() -> Model:
    return Model(Problem.build(TOY1, object_groups=TOY1_GROUPS), target="group")


def single_query_tree(model: Model, policy: Policy, node=None):
    """The tree as nested tuples: ("leaf", objects) or ("q", query, no_subtree, yes_subtree)."""
    node = node if node is not None else model.root()
    choice = policy.choose(node)
    if choice is None:
        return ("leaf", tuple(int(i) for i in node.idx))
    assert choice.kind == "query"
    q = int(choice.index)
    no, yes = node.child(q, False), node.child(q, True)
    assert no.idx.size and yes.idx.size, "an active policy asked a query that splits nothing"
    return ("q", q, single_query_tree(model, policy, no), single_query_tree(model, policy, yes))


def test_toy1_gisa_needs_one_query():
    model = toy1_model()
    ev = evaluate(model, Policy("gisa"))
    assert ev.method == "exact"
    assert ev.expected_queries == pytest.approx(1.0, abs=1e-12)
    assert ev.decomposition == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(ev.per_object_depth, [1, 1, 1, 1])
    # The one query is q2, which alone separates group 1 from group 2.
    assert single_query_tree(model, Policy("gisa")) == ("q", 1, ("leaf", (3,)), ("leaf", (0, 1, 2)))


def test_toy1_gbs_needs_one_and_a_half():
    model = toy1_model()
    ev = evaluate(model, Policy("gbs"))
    assert ev.expected_queries == pytest.approx(1.5, abs=1e-12)
    assert ev.decomposition == pytest.approx(1.5, abs=1e-12)
    # theta_2 and theta_4 need 2 queries (Section 3's remark on Figure 2).
    np.testing.assert_allclose(ev.per_object_depth, [1, 2, 1, 2])


def test_toy1_gbs_tree_is_figure_2():
    # Figure 2: q1 at the root; q1 = 0 -> y = 1; q1 = 1 -> q2; q2 = 0 -> y = 2, q2 = 1 -> y = 1.
    tree = single_query_tree(toy1_model(), Policy("gbs"))
    assert tree == (
        "q",
        0,
        ("leaf", (0, 2)),
        ("q", 1, ("leaf", (3,)), ("leaf", (1,))),
    )
    # Each leaf is pure (one group), as group identification stops there.
    groups = np.array(TOY1_GROUPS)
    for leaf in [("leaf", (0, 2)), ("leaf", (3,)), ("leaf", (1,))]:
        assert len(set(groups[list(leaf[1])])) == 1


def test_toy1_theorem2_by_hand():
    # E[K] = H(P_y) + sum_a pi_a [1 - H(rho_a) + sum_i pi_a^i/pi_a H(rho_a^i)] for Figure 2.
    def H(p):
        return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)

    h_py = H(0.25)
    root = 1.0 * (1 - H(0.5) + 0.75 * H(2 / 3))  # group 1 splits 2:1 on q1
    inner = 0.5 * (1 - H(0.5) + 0.5 * 0 + 0.5 * 0)
    assert h_py + root + inner == pytest.approx(1.5, abs=1e-12)


# -- Toy Example 2 (Figures 3 and 4) -------------------------------------------------------

TOY2 = [
    [0, 1, 1, 0],  # theta_1
    [1, 0, 1, 1],  # theta_2
    [1, 1, 0, 1],  # theta_3
]
TOY2_QUERY_GROUPS = [1, 1, 2, 2]
TOY2_PICKS = [0.5, 0.5, 0.9, 0.1]


def toy2_model() -> Model:
    problem = Problem.build(TOY2, query_groups=TOY2_QUERY_GROUPS, pick_weights=TOY2_PICKS)
    return Model(problem, target="object")


def leaf(*objs):
    return ("leaf", tuple(objs))


# Figure 4. A category node is ("cat", j, ((q, p(q), no_subtree, yes_subtree), ...)).
FIGURE_4 = (
    "cat",
    1,
    (
        (
            2,
            0.9,
            leaf(2),
            (
                "cat",
                0,
                (
                    (0, 0.5, leaf(0), leaf(1)),  # q1 = 0 -> theta_1* (reached with chance 0.45)
                    (1, 0.5, leaf(1), leaf(0)),
                ),
            ),
        ),
        (3, 0.1, leaf(0), ("cat", 1, ((2, 1.0, leaf(2), leaf(1)),))),
    ),
)


def build_category_tree(model: Model, chooser, node=None):
    """Nested-tuple tree of a category policy; ``chooser(node)`` returns a Choice or None."""
    node = node if node is not None else model.root()
    choice = chooser(node)
    if choice is None:
        return leaf(*(int(i) for i in node.idx))
    branches = []
    for q, p in zip(choice.queries.tolist(), choice.probs.tolist()):
        kids = []
        for answer in (False, True):
            child = node.child(q, answer)
            kids.append(None if child.idx.size == 0 else build_category_tree(model, chooser, child))
        branches.append((q, round(p, 12), kids[0], kids[1]))
    return ("cat", int(choice.index), tuple(branches))


def all_tie_resolutions(model: Model, node=None, tol=1e-9):
    """Every tree GQSA can build when each tie (costs within tol) may go either way."""
    node = node if node is not None else model.root()
    choice = Policy("gqsa").choose(node)
    if choice is None:
        return [leaf(*(int(i) for i in node.idx))]
    costs = choice.costs
    tied = np.flatnonzero(costs <= costs.min() + tol)
    trees = []
    problem = model.problem
    for j in tied.tolist():
        qs = [
            q
            for q in range(problem.n_queries)
            if problem.query_groups[q] == j and not node.asked[q]
        ]
        w = np.array([problem.pick_weights[q] for q in qs])
        w = w / w.sum()
        per_query = []
        for q in qs:
            sides = []
            for answer in (False, True):
                child = node.child(q, answer)
                sides.append(
                    [None] if child.idx.size == 0 else all_tie_resolutions(model, child, tol)
                )
            per_query.append([(a, b) for a in sides[0] for b in sides[1]])
        for combo in itertools.product(*per_query):
            trees.append(
                (
                    "cat",
                    j,
                    tuple(
                        (q, round(float(p), 12), no, yes) for q, p, (no, yes) in zip(qs, w, combo)
                    ),
                )
            )
    return trees


def _H(p):
    return 0.0 if p <= 0.0 or p >= 1.0 else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def object_depth(tree, i, matrix):
    """Expected number of questions when object ``i`` is the truth (over the picks)."""
    matrix = np.asarray(matrix, dtype=bool)
    if tree[0] == "leaf":
        assert i in tree[1]
        return 0.0
    return 1.0 + sum(
        p * object_depth(yes if matrix[i, q] else no, i, matrix) for q, p, no, yes in tree[2]
    )


def tree_expected_queries(tree, prior, matrix):
    """E[K] of a category tree two ways: sum_i pi_i sum_leaves p_leaf d_leaf, and
    Theorem 5 (thm:group queries)."""
    matrix = np.asarray(matrix, dtype=bool)
    prior = np.asarray(prior, dtype=float)
    by_depth = sum(prior[i] * object_depth(tree, i, matrix) for i in range(len(prior)))

    def objects(t):
        if t is None:
            return set()
        if t[0] == "leaf":
            return set(t[1])
        out = set()
        for _, _, no, yes in t[2]:
            out |= objects(no) | objects(yes)
        return out

    def decomposition(t, reach):
        if t[0] == "leaf":
            return 0.0
        here = sorted(objects(t))
        pi_a = prior[here].sum()
        cost = 1.0
        total = 0.0
        for q, p, no, yes in t[2]:
            yes_mass = prior[[i for i in here if matrix[i, q]]].sum()
            rho = max(yes_mass, pi_a - yes_mass) / pi_a
            cost -= p * _H(rho)
            for sub in (no, yes):
                if sub is not None:
                    total += decomposition(sub, reach * p)
        return reach * pi_a * cost + total

    h = -sum(p * math.log2(p) for p in prior)
    return by_depth, h + decomposition(tree, 1.0)


def reach_probabilities(tree, target_object, matrix):
    """{path: chance} of the leaves where ``target_object`` ends, given it is the truth."""
    matrix = np.asarray(matrix, dtype=bool)
    out = {}

    def walk(t, chance, path):
        if t[0] == "leaf":
            out[path] = out.get(path, 0.0) + chance
            return
        for q, p, no, yes in t[2]:
            ans = bool(matrix[target_object, q])
            walk(yes if ans else no, chance * p, path + ((q, ans),))

    walk(tree, 1.0, ())
    return out


def test_toy2_root_categories_tie():
    model = toy2_model()
    choice = Policy("gqsa").choose(model.root())
    expected = 1 - _H(2 / 3)
    np.testing.assert_allclose(choice.costs, [expected, expected], atol=1e-12)
    # ties="first": the lowest category index, Q^1.
    assert choice.kind == "category" and choice.index == 0


def test_toy2_ties_first_tree_has_same_expected_queries():
    model = toy2_model()
    ev = evaluate(model, Policy("gqsa"))
    assert ev.method == "exact"
    assert ev.expected_queries == pytest.approx(5 / 3, abs=1e-12)
    assert ev.decomposition == pytest.approx(5 / 3, abs=1e-12)
    tree = build_category_tree(model, Policy("gqsa").choose)
    assert tree[1] == 0 and tree != FIGURE_4


def test_toy2_figure_4_is_a_gqsa_tie_resolution():
    model = toy2_model()
    trees = all_tie_resolutions(model)
    assert FIGURE_4 in trees
    assert len(trees) > 1
    prior = model.problem.prior
    for tree in trees:
        by_depth, by_theorem = tree_expected_queries(tree, prior, TOY2)
        assert by_depth == pytest.approx(5 / 3, abs=1e-12)
        assert by_theorem == pytest.approx(5 / 3, abs=1e-12)


def test_toy2_figure_4_numbers():
    # Reach probability of theta_1* (q3 = 1, then Q^1, q1 = 0) is 0.9 x 0.5 = 0.45.
    reach = reach_probabilities(FIGURE_4, 0, TOY2)
    assert reach[((2, True), (0, False))] == pytest.approx(0.45)
    assert sum(reach.values()) == pytest.approx(1.0)
    # Expected depths of theta_1..theta_3: 1.9, 2.0, 1.1.
    depths = [object_depth(FIGURE_4, i, TOY2) for i in range(3)]
    np.testing.assert_allclose(depths, [1.9, 2.0, 1.1], atol=1e-12)
    assert sum(depths) / 3 == pytest.approx(5 / 3, abs=1e-12)


class RecordingPolicy(Policy):
    """A policy that remembers what it chose at each state (exact() chooses once per state)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log = {}

    def choose(self, node):
        choice = super().choose(node)
        self.log[node.key()] = choice
        return choice


def test_toy2_random_ties_realise_figure_4():
    model = toy2_model()
    depths_seen = set()
    found = None
    for seed in range(64):
        policy = RecordingPolicy("gqsa", ties="random", seed=seed)
        ev = evaluate(model, policy, method="exact")
        # Every tie resolution gives E[K] = 5/3, computed both ways.
        assert ev.expected_queries == pytest.approx(5 / 3, abs=1e-12)
        assert ev.decomposition == pytest.approx(5 / 3, abs=1e-12)
        depths = tuple(np.round(ev.per_object_depth, 12))
        depths_seen.add(depths)
        tree = build_category_tree(model, lambda node, policy=policy: policy.log[node.key()])
        if tree == FIGURE_4:
            found = (seed, ev)
    assert found is not None, "no seed realised the tree of Figure 4"
    _, ev = found
    np.testing.assert_allclose(ev.per_object_depth, [1.9, 2.0, 1.1], atol=1e-12)
    # The ties-first tree (Q^1 at the root) is among the realisations too.
    assert (1.5, 1.5, 2.0) in depths_seen and (1.9, 2.0, 1.1) in depths_seen
