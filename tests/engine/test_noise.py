"""Persistent-noise mode: the implicit masses and costs (Appendix II) against the explicit
dilated matrix (Section 6), on the paper's toy example 3 and on random small problems."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from noise_helpers import (
    TOL,
    assert_close,
    compare_nodes,
    implicit_masses,
    models,
    random_noise,
    random_problem,
)

from responder.engine.belief import Model
from responder.engine.dilated import (
    DilatedTooLarge,
    build_dilated,
    dilated_rows,
    group_size,
    to_interchange,
)
from responder.engine.evaluate import exact
from responder.engine.noise import BinomialTable, NoiseModel, NoiseSettingsError, prone_mask
from responder.engine.policies import CATEGORY_POLICIES, Policy
from responder.engine.problem import Problem

PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- toy example 3 (Figure 3) -------------------------------------------------------------

TOY_B = [[0, 0, 0], [1, 1, 1]]
TOY_PRIOR = [0.25, 0.75]
TOY_PRONE = np.array([False, True, True])
TOY_ROWS = [[0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, 0, 1], [1, 1, 0]]
TOY_MODEL1 = [Fraction(1, 12)] * 3 + [Fraction(1, 4)] * 3
TOY_MODEL2 = [
    Fraction(3, 20),
    Fraction(1, 20),
    Fraction(1, 20),
    Fraction(9, 20),
    Fraction(3, 20),
    Fraction(3, 20),
]


def toy(model: int):
    problem = Problem.build(TOY_B, prior=TOY_PRIOR)
    noise = NoiseModel(1, TOY_PRONE, model=model, p=0.25)
    return problem, noise


@pytest.mark.parametrize("model, expected", [(1, TOY_MODEL1), (2, TOY_MODEL2)])
def test_toy_example_3_explicit_builder(model, expected):
    problem, noise = toy(model)
    d = build_dilated(problem, noise)
    assert d.problem.matrix.astype(int).tolist() == TOY_ROWS
    assert_close(d.problem.prior, [float(x) for x in expected], "dilated prior")
    assert d.source.tolist() == [0, 0, 0, 1, 1, 1]
    assert d.errors.tolist() == [0, 1, 1, 0, 1, 1]
    assert d.problem.object_groups.tolist() == [0, 0, 0, 1, 1, 1]
    assert abs(d.problem.prior.sum() - 1.0) <= TOL


@pytest.mark.parametrize("model, expected", [(1, TOY_MODEL1), (2, TOY_MODEL2)])
def test_toy_example_3_implicit_masses(model, expected):
    problem, noise = toy(model)
    table = BinomialTable(noise)
    pi = np.array(TOY_PRIOR)
    # Leaf masses: every answer given, n_a = 0, mass pi_i r^delta / Z.
    implicit_model = Model(problem, "object", noise)
    for row, want, i in zip(TOY_ROWS, expected, [0, 0, 0, 1, 1, 1]):
        delta = int(np.sum(np.array(row[1:]) != np.array(TOY_B[i][1:])))
        assert abs(pi[i] * table.mass(0, np.array([delta]))[0] - float(want)) <= TOL
        leaf = implicit_model.node_from_answers({j: bool(v) for j, v in enumerate(row)})
        assert leaf.idx.tolist() == [i]
        assert abs(leaf.mass[0] - float(want)) <= TOL
    # The root holds each group whole: pi_i.
    root = implicit_model.root()
    assert_close(root.mass, pi, "root masses")


def test_toy_example_3_child_masses_and_costs():
    for model in (1, 2):
        problem, noise = toy(model)
        d = build_dilated(problem, noise)
        imp, exp = models(problem, noise, "object", d)
        compare_nodes(imp.root(), exp.root(), d.source)
        # q2 asked "yes": object 0 now has delta 1 (one error spent), object 1 delta 0.
        compare_nodes(imp.root().child(1, True), exp.root().child(1, True), d.source)
    # Model 1, q2 at the root: pi_l = 1/12 + 2 * 1/4 ... by hand from Figure 3b.
    problem, noise = toy(1)
    stats = Model(problem, "object", noise).root().split()
    assert abs(stats.no[1] - (2 / 12 + 1 / 4)) <= TOL
    assert abs(stats.yes[1] - (1 / 12 + 2 / 4)) <= TOL
    assert abs(stats.no[0] - 0.25) <= TOL and abs(stats.yes[0] - 0.75) <= TOL


def test_binomial_table_against_direct_sums():
    for n_prone, eps, p in [(5, 2, 0.5), (7, 3, 0.1), (4, 4, 0.3), (6, 0, 0.2), (3, 2, 0.0)]:
        noise = NoiseModel(eps, np.ones(n_prone, bool), model=2, p=p)
        table = BinomialTable(noise)
        z = sum(comb(n_prone, e) * p**e * (1 - p) ** (n_prone - e) for e in range(eps + 1))
        for n in range(n_prone + 1):
            for delta in range(eps + 3):
                tau = min(n, eps - delta)
                direct = (
                    sum(
                        comb(n, e) * p ** (e + delta) * (1 - p) ** (n_prone - e - delta)
                        for e in range(tau + 1)
                    )
                    / z
                    if delta <= eps
                    else 0.0
                )
                got = table.mass(n, np.array([delta]))[0]
                assert abs(got - direct) <= TOL, (n_prone, eps, p, n, delta)


# -- Appendix II, literally (the two errata listed in responder.engine.noise fixed) -------


def _bracket(pi, n, delta, nnu, eps, p):
    """pi_i [sum_{e=0}^{tau} C(n, e) p^{e+delta} (1-p)^{N nu - e - delta}],
    tau = min(n, eps - delta)."""
    tau = min(n, eps - delta)
    return pi * sum(
        comb(n, e) * p ** (e + delta) * (1 - p) ** (nnu - e - delta) for e in range(tau + 1)
    )


def appendix_ii(problem, noise, answers):
    """rho_a(q) and rho_a^i(q) for every unasked q at the node reached by ``answers``
    (object target), straight from Appendix II's formulas, and the objects left there.
    Returns ({q: rho}, {q: {i: rho_i}}, alive)."""
    B = problem.matrix
    p, eps, nnu = noise.p_effective, noise.eps_eff, noise.n_prone
    asked = set(answers)
    delta, alive = {}, []
    for i in range(problem.n_objects):
        if any(B[i, q] != a for q, a in answers.items() if not noise.prone[q]):
            continue
        d = sum(B[i, q] != a for q, a in answers.items() if noise.prone[q])
        if d <= eps:
            delta[i] = d
            alive.append(i)
    n_a = nnu - sum(1 for q in answers if noise.prone[q])
    pi = problem.prior
    rho, rho_i = {}, {}
    if not alive:
        return rho, rho_i, alive
    for q in range(problem.n_queries):
        if q in asked:
            continue
        if not noise.prone[q]:
            side = [
                sum(_bracket(pi[i], n_a, delta[i], nnu, eps, p) for i in alive if B[i, q] == b)
                for b in (0, 1)
            ]
            union = sum(_bracket(pi[i], n_a, delta[i], nnu, eps, p) for i in alive)
            rho[q] = max(side) / union
            rho_i[q] = {i: 1.0 for i in alive}
            continue
        num = [0.0, 0.0]
        den = 0.0
        rho_i[q] = {}
        for i in alive:
            dl, dr = delta[i] + int(B[i, q] != 0), delta[i] + int(B[i, q] != 1)
            left = _bracket(pi[i], n_a - 1, dl, nnu, eps, p) if dl <= eps else 0.0
            right = _bracket(pi[i], n_a - 1, dr, nnu, eps, p) if dr <= eps else 0.0
            whole = _bracket(pi[i], n_a, delta[i], nnu, eps, p)
            num[0] += left
            num[1] += right
            den += whole
            rho_i[q][i] = 1.0 if delta[i] == eps else max(left, right) / whole
        rho[q] = max(num) / den
    return rho, rho_i, alive


@settings(PROPERTY, max_examples=48)
@given(
    config=st.sampled_from([("all", 1), ("subset", 2)]),
    eps=st.integers(1, 2),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_appendix_ii_formulas(config, eps, seed, data):
    """rho_a(q) and rho_a^i(q) at the node of any answers (a random subset of the queries,
    each answered yes or no) equal Appendix II's formulas, on a 5 x 6 problem; where no
    object is left, the node is empty exactly as the formulas' candidate set is."""
    prone, noise_model = config
    rng = np.random.default_rng(seed)
    problem = random_problem(rng, 5, 6)
    noise = random_noise(rng, 6, eps=eps, prone=prone, model=noise_model)
    model = Model(problem, "object", noise)
    order = data.draw(st.permutations(range(problem.n_queries)), label="order")
    n_answered = data.draw(st.integers(0, problem.n_queries - 1), label="answered")
    values = data.draw(st.lists(st.booleans(), min_size=n_answered, max_size=n_answered))
    answers = {int(q): v for q, v in zip(order[:n_answered], values)}
    node = model.node_from_answers(answers)
    rho, rho_i, alive = appendix_ii(problem, noise, answers)
    assert node.idx.tolist() == alive
    if not alive:  # nothing left to split
        return
    stats = node.split()
    for q, value in rho.items():
        assert abs(stats.reduction_factor[q] - value) <= TOL
        gt = stats.group_total
        for k, i in enumerate(node.idx.tolist()):
            got = max(stats.group_no[k, q], stats.group_yes[k, q]) / gt[k]
            assert abs(got - rho_i[q][i]) <= TOL


# -- random small problems: every node of the trees ------------------------------------------

CONFIGS = [
    (prone, model, target)
    for prone in ("all", "subset")
    for model in (1, 2)
    for target in ("object", "group")
]


@st.composite
def setups(draw, prone: str, model: int, target: str):
    """``(problem, noise, dilated, seed)``: a random problem of 3 to 5 objects (distinct rows,
    two classes, two categories, random prior and pick weights) and 4 to 6 queries, eps 1 or
    2 on all or a random subset of the queries, p in [0.05, 0.5] under model 2, its dilated
    matrix for ``target``, and the seed of its random parts (also for later random steps)."""
    m, n = draw(st.integers(3, 5), label="objects"), draw(st.integers(4, 6), label="queries")
    seed = draw(st.integers(0, 2**32 - 1), label="seed")
    eps = draw(st.integers(1, 2), label="eps")
    p = draw(st.floats(0.05, 0.5), label="p") if model == 2 else None
    rng = np.random.default_rng(seed)
    problem = random_problem(rng, m, n, n_groups=2, n_categories=2)
    noise = random_noise(rng, n, eps, prone=prone, model=model, p=p)
    return problem, noise, build_dilated(problem, noise, target=target), seed


def walk_policy_tree(policy_name, imp_model, exp_model, source):
    """Compare implicit and explicit nodes at every node of the policy's tree (both built
    side by side); return the number of distinct nodes visited."""
    policy = Policy(policy_name, ties="first")
    seen = set()

    def visit(imp, exp):
        key = imp.key()
        if key in seen:
            return
        seen.add(key)
        compare_nodes(imp, exp, source)
        ci, ce = policy.choose(imp), policy.choose(exp)
        assert (ci is None) == (ce is None)
        if ci is None:
            return
        assert ci.kind == ce.kind and ci.index == ce.index
        assert np.array_equal(ci.queries, ce.queries)
        assert_close(ci.probs, ce.probs, "pick probabilities")
        for q in ci.queries.tolist():
            for answer in (False, True):
                a, b = imp.child(q, answer), exp.child(q, answer)
                assert (a.idx.size == 0) == (b.idx.size == 0)
                if a.idx.size:
                    visit(a, b)

    visit(imp_model.root(), exp_model.root())
    return len(seen)


@pytest.mark.parametrize("prone, model, target", CONFIGS)
@settings(PROPERTY, max_examples=4)
@given(data=st.data())
def test_every_node_of_policy_trees(prone, model, target, data):
    problem, noise, dilated, _ = data.draw(setups(prone, model, target))
    imp, exp = models(problem, noise, target, dilated)
    for policy in ("gbs", "gisa", "gqsa", "gigqsa"):
        assert walk_policy_tree(policy, imp, exp, dilated.source) >= 1


@pytest.mark.parametrize("prone, model, target", CONFIGS)
@settings(PROPERTY, max_examples=4)
@given(data=st.data())
def test_random_paths_with_skips(prone, model, target, data):
    """Random answer sequences with "can't tell" answers, both by child()/skip() steps and
    by node_from_answers() from scratch."""
    problem, noise, dilated, seed = data.draw(setups(prone, model, target))
    rng = np.random.default_rng([seed, 1])
    imp, exp = models(problem, noise, target, dilated)
    for _ in range(6):
        a, b = imp.root(), exp.root()
        answers, skipped = {}, []
        for q in rng.permutation(problem.n_queries).tolist():
            move = rng.integers(0, 3)
            if move == 2:
                a, b = a.skip(q), b.skip(q)
                skipped.append(q)
            else:
                a, b = a.child(q, bool(move)), b.child(q, bool(move))
                answers[q] = bool(move)
            if a.idx.size == 0:
                assert b.idx.size == 0
                break
            compare_nodes(a, b, dilated.source)
            fresh = imp.node_from_answers(answers, skipped)
            assert np.array_equal(fresh.idx, a.idx)
            assert np.array_equal(fresh.delta, a.delta)
            assert fresh.n_unanswered == a.n_unanswered
            assert_close(fresh.mass, a.mass, "node_from_answers vs child path")
            compare_nodes(fresh, exp.node_from_answers(answers, skipped), dilated.source)


@pytest.mark.parametrize("target", ["object", "group"])
def test_model_2_edge_values_of_p(target):
    """p = 0 (no errors possible: only exact matches keep mass) and p = 0.5 (model 1)."""
    rng = np.random.default_rng(7)
    problem = random_problem(rng, 4, 5)
    for p in (0.0, 0.5):
        noise = NoiseModel(1, np.ones(5, bool), model=2, p=p)
        dilated = build_dilated(problem, noise, target=target)
        if p == 0.0:
            assert dilated.n_rows == problem.n_objects  # zero-prior strings left out
        imp, exp = models(problem, noise, target, dilated)
        for policy in ("gbs", "gisa"):
            walk_policy_tree(policy, imp, exp, dilated.source)
    m1 = Model(problem, target, NoiseModel(1, np.ones(5, bool), model=1))
    m2 = Model(problem, target, NoiseModel(1, np.ones(5, bool), model=2, p=0.5))
    node1 = m1.node_from_answers({0: True, 1: False})
    node2 = m2.node_from_answers({0: True, 1: False})
    assert_close(node1.mass, node2.mass, "model 1 == model 2 at p = 0.5")


def test_eps_beyond_budget_and_beyond_prone_count():
    """eps above floor((delta-1)/2) (strings shared by several groups) and eps > N nu."""
    rng = np.random.default_rng(11)
    problem = random_problem(rng, 4, 5, min_delta=1)
    for eps, prone in ((3, "all"), (2, "subset")):
        noise = random_noise(rng, 5, eps, prone=prone, model=2)
        for target in ("object", "group"):
            dilated = build_dilated(problem, noise, target=target)
            imp, exp = models(problem, noise, target, dilated)
            for policy in ("gbs", "gisa", "gigqsa"):
                walk_policy_tree(policy, imp, exp, dilated.source)


# -- E[K] of whole trees ----------------------------------------------------------------------

EK_POLICIES = ["gbs", "gisa", "gqsa", "gigqsa", "minmin", "minmax"]


@pytest.mark.parametrize("prone, model, target", CONFIGS)
@settings(PROPERTY, max_examples=3)
@given(data=st.data())
def test_expected_queries_implicit_equals_explicit(prone, model, target, data):
    problem, noise, dilated, _ = data.draw(setups(prone, model, target))
    imp, exp = models(problem, noise, target, dilated)
    for name in EK_POLICIES:
        ei = exact(imp, Policy(name, ties="first"))
        ee = exact(exp, Policy(name, ties="first"))
        assert abs(ei.expected_queries - ee.expected_queries) <= 1e-12, name
        # The two formulas (mass x depth, Theorems 1, 2, 5, 6 decomposition) agree on both sides.
        assert abs(ei.expected_queries - ei.decomposition) <= 1e-9, name
        assert abs(ee.expected_queries - ee.decomposition) <= 1e-9, name
        assert abs(ei.decomposition - ee.decomposition) <= 1e-9, name
        assert ei.max_depth == ee.max_depth
        # Per original object, the expected depth is the dilated strings' average.
        pi = problem.prior
        agg = (
            np.bincount(
                dilated.source,
                weights=dilated.problem.prior * ee.per_object_depth,
                minlength=problem.n_objects,
            )
            / pi
        )
        assert_close(ei.per_object_depth, agg, f"{name} per-object depth", tol=1e-10)


def test_expected_queries_with_categories_branching_on_picks():
    """Category trees branch on the responder's pick: still the same E[K]."""
    rng = np.random.default_rng(3)
    problem = random_problem(rng, 5, 6, n_categories=3)
    noise = random_noise(rng, 6, 1, prone="subset", model=2)
    for target in ("object", "group"):
        dilated = build_dilated(problem, noise, target=target)
        imp, exp = models(problem, noise, target, dilated)
        for name in sorted(CATEGORY_POLICIES - {"random-category"}):
            ei, ee = exact(imp, Policy(name)), exact(exp, Policy(name))
            assert abs(ei.expected_queries - ee.expected_queries) <= 1e-12


# -- the builder ------------------------------------------------------------------------------


def test_builder_sizes_groups_and_interchange():
    rng = np.random.default_rng(5)
    problem = random_problem(rng, 4, 6, n_groups=2)
    noise = random_noise(rng, 6, 2, prone="subset")
    k = noise.n_prone
    assert group_size(noise) == sum(comb(k, e) for e in range(min(2, k) + 1))
    d = build_dilated(problem, noise, target="group")
    assert d.n_rows == dilated_rows(problem, noise)
    assert np.array_equal(d.problem.object_groups, problem.object_groups[d.source])
    assert d.problem.group_names == problem.group_names
    # Every row differs from its source row only on error-prone queries, in e <= eps' places.
    diff = d.problem.matrix ^ problem.matrix[d.source]
    assert not diff[:, ~noise.prone].any()
    assert np.array_equal(diff.sum(axis=1), d.errors)
    assert d.errors.max() <= noise.eps_eff
    # Rows within one group are distinct, and each group's prior sums to pi_i.
    for i in range(problem.n_objects):
        rows = d.problem.matrix[d.source == i]
        assert np.unique(rows, axis=0).shape[0] == rows.shape[0]
    assert_close(np.bincount(d.source, weights=d.problem.prior), problem.prior, "group priors")
    data = to_interchange(d)
    assert (
        len(data["matrix"]) == d.n_rows
        and data["groups"][0] == problem.group_names[problem.object_groups[0]]
    )
    assert to_interchange(build_dilated(problem, noise))["groups"] == [
        str(i) for i in d.source.tolist()
    ]


def test_builder_refuses_large_problems():
    problem = Problem.build(np.eye(40, dtype=int))
    noise = NoiseModel(3, np.ones(40, bool))
    with pytest.raises(DilatedTooLarge, match="rows x 40 queries"):
        build_dilated(problem, noise, max_rows=10_000)


# -- impossible settings ----------------------------------------------------------------------


def test_impossible_settings_are_clear_errors():
    prone = np.ones(3, bool)
    with pytest.raises(NoiseSettingsError, match="eps is -1"):
        NoiseModel(-1, prone)
    for p in (-0.1, 0.6, float("nan")):
        with pytest.raises(NoiseSettingsError, match="must lie in \\[0, 0.5\\]"):
            NoiseModel(1, prone, model=2, p=p)
    for nu in (-0.2, 1.5, "2"):
        with pytest.raises(NoiseSettingsError, match="must lie in \\[0, 1\\]"):
            prone_mask(5, nu, seed=0)
    with pytest.raises(NoiseSettingsError, match="unknown query name.*'cough'"):
        prone_mask(3, "fever,cough", query_names=("fever", "rash", "nausea"))
    with pytest.raises(NoiseSettingsError, match="whole number"):
        NoiseModel(1.5, prone)  # type: ignore[arg-type]
    with pytest.raises(NoiseSettingsError, match="noise model 3"):
        NoiseModel(1, prone, model=3)


def test_prone_mask_forms():
    names = ("fever", "rash", "nausea", "cough")
    assert prone_mask(4, "all").all()
    assert prone_mask(4, "rash, cough", names).tolist() == [False, True, False, True]
    a, b = prone_mask(10, 0.5, seed=3), prone_mask(10, "0.5", seed=3)
    assert a.sum() == 5 and np.array_equal(a, b)
    assert prone_mask(10, 0.0).sum() == 0 and prone_mask(10, 1.0).all()


def test_root_masses_are_the_prior():
    rng = np.random.default_rng(9)
    problem = random_problem(rng, 5, 6)
    for model in (1, 2):
        noise = random_noise(rng, 6, 2, prone="subset", model=model)
        root = Model(problem, "object", noise).root()
        assert_close(implicit_masses(root, 5), problem.prior, "root")
        assert np.all(root.delta == 0) and root.n_unanswered == noise.n_prone


def test_all_answer_strings_partition_the_mass():
    """Summing the leaf masses of every full answer string gives back the prior."""
    rng = np.random.default_rng(13)
    problem = random_problem(rng, 4, 5)
    noise = random_noise(rng, 5, 2, prone="subset", model=2)
    model = Model(problem, "object", noise)
    total = np.zeros(4)
    for bits in itertools.product((False, True), repeat=5):
        leaf = model.node_from_answers(dict(enumerate(bits)))
        total += implicit_masses(leaf, 4)
    assert_close(total, problem.prior, "sum over strings")


# -- property-based: any small problem, any settings -------------------------------------------


@st.composite
def noisy_problems(draw):
    m = draw(st.integers(2, 5))
    n = draw(st.integers(2, 6))
    bits = draw(
        st.lists(
            st.lists(st.booleans(), min_size=n, max_size=n), min_size=m, max_size=m, unique_by=tuple
        )
    )
    prior = draw(st.lists(st.floats(0.05, 1.0), min_size=m, max_size=m))
    groups = draw(st.lists(st.integers(0, 2), min_size=m, max_size=m))
    cats = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    prone = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    eps = draw(st.integers(0, 3))
    model = draw(st.sampled_from([1, 2]))
    p = draw(st.sampled_from([0.0, 0.01, 0.2, 0.45, 0.5]))
    problem = Problem.build(
        np.array(bits, dtype=int), prior=prior, object_groups=groups, query_groups=cats
    )
    return problem, NoiseModel(eps, np.array(prone, bool), model=model, p=p)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    noisy_problems(),
    st.sampled_from(["object", "group"]),
    st.sampled_from(["gbs", "gisa", "gqsa", "gigqsa"]),
)
def test_property_implicit_equals_explicit(case, target, policy):
    problem, noise = case
    dilated = build_dilated(problem, noise, target=target)
    imp, exp = models(problem, noise, target, dilated)
    walk_policy_tree(policy, imp, exp, dilated.source)
    ei, ee = exact(imp, Policy(policy)), exact(exp, Policy(policy))
    assert abs(ei.expected_queries - ee.expected_queries) <= 1e-12
