"""The level-wise GBS/GISA tree builder gives the node-by-node walk's tree, bit for bit.

``evaluate.exact`` builds noise-free GBS and GISA trees (first-index ties) a level at a time
(:mod:`responder.engine.tree`). It must pick the same query at every node as
:class:`~responder.engine.policies.Policy`, so every object's depth, the height and E[K]
must be *identical* floats to the node-by-node walk (``level_wise=False``), on uniform,
random and very skewed priors, with identical rows, from the root and from later nodes.

The checks are Hypothesis properties over random problems (:func:`problems`: the matrix,
its density, copied rows, the object groups and the kind of prior; :func:`start_nodes`: the
answered and skipped queries of a later node), with ``@example`` cases for the shapes that
must always be tried: the paper's Figure 1 and Figure 3 examples, identical rows inside one
group and across groups, a very skewed prior, a single object, a matrix that splits nothing.
Hypothesis runs under the profile of ``tests/conftest.py``: ``derandomize=True`` and no
example database by default, so every run (and CI) tries the same examples;
``HYPOTHESIS_PROFILE=explore`` draws new ones each run.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, note, settings
from hypothesis import strategies as st

from responder.engine import tree
from responder.engine.belief import Model
from responder.engine.evaluate import exact
from responder.engine.noise import NoiseModel
from responder.engine.policies import Policy
from responder.engine.problem import Problem
from responder.engine.tree import applies, build_level_tree, noisy_applies

PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_problem(seed: int) -> Problem:
    """A fixed random problem (for the checks of which trees are built level-wise)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 90))
    n = int(rng.integers(1, 30))
    B = rng.random((m, n)) < rng.choice([0.05, 0.2, 0.5, 0.85])
    if seed % 5 == 0 and m > 3:
        B[1] = B[0]  # identical rows, possibly in two groups
    groups = rng.integers(0, int(rng.integers(1, 8)), size=m)
    prior = [None, rng.random(m) + 1e-3, rng.dirichlet(np.full(m, 0.2)) + 1e-12][seed % 3]
    return Problem.build(B, object_groups=groups, prior=prior)


@st.composite
def problems(
    draw,
    max_objects: int = 89,
    max_queries: int = 29,
    min_queries: int = 1,
    skewed_floor: float = 1e-12,
) -> Problem:
    """A random problem: up to ``max_objects`` x ``max_queries``, its cells drawn one by one
    (small) or at a density of 0.05 to 0.85 (any size), some rows copied onto others
    (identical rows, in one group or two), 1 to 7 object groups, and a uniform, random,
    very skewed (Dirichlet 0.2, plus ``skewed_floor``) or drawn prior."""
    m = draw(st.integers(1, max_objects), label="objects")
    n = draw(st.integers(min_queries, max_queries), label="queries")
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="seed"))
    if m <= 30 and n <= 25 and draw(st.booleans(), label="cells drawn one by one"):
        cells = st.lists(st.booleans(), min_size=n, max_size=n)
        B = np.array(draw(st.lists(cells, min_size=m, max_size=m)), dtype=bool)
    else:
        density = draw(st.sampled_from([0.05, 0.2, 0.5, 0.85]), label="density")
        B = rng.random((m, n)) < density
    copies = draw(st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)), max_size=3))
    for src, dst in copies:
        B[dst] = B[src]
    n_groups = draw(st.integers(1, 7), label="groups")
    groups = rng.integers(0, n_groups, size=m)
    kind = draw(st.sampled_from(["uniform", "random", "skewed", "drawn"]), label="prior")
    prior = {
        "uniform": lambda: None,
        "random": lambda: rng.random(m) + 1e-3,
        "skewed": lambda: rng.dirichlet(np.full(m, 0.2)) + skewed_floor,
        "drawn": lambda: draw(st.lists(st.floats(1e-6, 1.0), min_size=m, max_size=m)),
    }[kind]()
    note(f"matrix {B.astype(int).tolist()}\ngroups {groups.tolist()}\nprior {prior}")
    return Problem.build(B, object_groups=groups, prior=prior)


@st.composite
def later_answers(draw, problem: Problem, noise: NoiseModel | None = None):
    """The answers and skipped queries of a later node: a victim answered some queries as its
    row says (with up to ``noise.eps`` of its noise-prone answers flipped) and skipped
    others; at least one query stays unasked. Returns ``(answers, skipped)``."""
    N = problem.n_queries
    truth = draw(st.integers(0, problem.n_objects - 1), label="victim")
    order = draw(st.permutations(range(N)))
    n_answered = draw(st.integers(1, N - 2), label="answered")
    n_skipped = draw(st.integers(1, N - 1 - n_answered), label="skipped")
    answers = {int(q): bool(problem.matrix[truth, q]) for q in order[:n_answered]}
    if noise is not None and noise.eps and noise.p_effective > 0:
        prone = sorted(q for q in answers if noise.prone[q])
        if prone:
            flips = st.lists(st.sampled_from(prone), unique=True, max_size=noise.eps)
            for q in draw(flips, label="errors"):
                answers[q] = not answers[q]
    skipped = [int(q) for q in order[n_answered : n_answered + n_skipped]]
    note(f"victim {truth}, answers {answers}, skipped {skipped}")
    return answers, skipped


@st.composite
def later_nodes(draw):
    """``(problem, answers, skipped)``: a problem with at least three queries and a later
    node of it (:func:`later_answers`)."""
    problem = draw(problems(min_queries=3))
    return (problem, *draw(later_answers(problem)))


def targets(problem: Problem) -> tuple[str, ...]:
    """Both targets, or the object target alone for a problem without object groups (the
    paper's Figure 3 example)."""
    return ("object", "group") if problem.object_groups is not None else ("object",)


def assert_same_tree(model: Model, policy: str, start=None) -> None:
    fast = exact(model, Policy(policy), start=start)
    slow = exact(model, Policy(policy), start=start, level_wise=False)
    assert fast.expected_queries == slow.expected_queries  # exactly, not approximately
    assert np.array_equal(fast.per_object_depth, slow.per_object_depth)
    assert fast.max_depth == slow.max_depth
    assert fast.decomposition == pytest.approx(slow.decomposition, abs=1e-12)
    # The decomposition of Theorems 1-4 holds for the level-wise tree too.
    assert fast.decomposition == pytest.approx(fast.expected_queries, abs=1e-9)


# -- the shapes that are always tried ------------------------------------------------------------

#: Figure 1 (toy example 1): class 1 is {theta_1, theta_2, theta_3}, class 2 {theta_4}.
FIGURE_1 = Problem.build([[0, 1, 1], [1, 1, 0], [0, 1, 0], [1, 0, 0]], object_groups=[1, 1, 1, 2])
#: Figures 3 and 4 (toy example 2), with its query categories and pick weights.
FIGURE_3 = Problem.build(
    [[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1]],
    query_groups=[1, 1, 2, 2],
    pick_weights=[0.5, 0.5, 0.9, 0.1],
)
#: Identical rows: objects 0 and 1 in one group, 2 and 3 in two groups.
IDENTICAL_ROWS = Problem.build(
    [[1, 0, 1], [1, 0, 1], [0, 1, 1], [0, 1, 1], [0, 0, 0], [1, 1, 0]],
    object_groups=[0, 0, 1, 2, 1, 0],
    prior=[0.3, 0.1, 0.2, 0.1, 0.2, 0.1],
)
#: One object holds almost all the mass, the others 1e-10 each (skewed Dirichlet priors draw
#: such; ten orders of magnitude, short of the split statistics' relative tolerance of 1e-12,
#: at which the walk and the level-wise builder may round a split differently).
SKEWED_PRIOR = Problem.build(
    np.random.default_rng(0).random((40, 12)) < 0.3,
    object_groups=np.arange(40) % 5,
    prior=[1.0] + [1e-10] * 39,
)
SINGLE_OBJECT = Problem.build([[1, 0, 1]])
SPLITS_NOTHING = Problem.build(np.zeros((5, 4), dtype=bool), object_groups=[0, 1, 0, 1, 2])


@settings(PROPERTY, max_examples=150)
@example(problem=FIGURE_1)
@example(problem=FIGURE_3)
@example(problem=IDENTICAL_ROWS)
@example(problem=SKEWED_PRIOR)
@example(problem=SINGLE_OBJECT)
@example(problem=SPLITS_NOTHING)
@given(problem=problems())
def test_same_tree_as_node_by_node(problem):
    for target in targets(problem):
        model = Model(problem, target)
        for policy in ("gbs", "gisa"):
            assert_same_tree(model, policy)


@settings(PROPERTY, max_examples=40)
@example(case=(FIGURE_3, {0: False}, [3]))
@example(case=(IDENTICAL_ROWS, {0: True}, [2]))
@example(case=(SKEWED_PRIOR, {q: bool(SKEWED_PRIOR.matrix[0, q]) for q in (0, 5)}, [11]))
@given(case=later_nodes())
def test_same_tree_from_a_later_node_with_skipped_queries(case):
    problem, answers, skipped = case
    for target in targets(problem):
        model = Model(problem, target)
        start = model.node_from_answers(answers, skipped=skipped)
        assert start.idx.size  # the victim is still a candidate
        for policy in ("gbs", "gisa"):
            assert_same_tree(model, policy, start=start)


def test_only_noise_free_single_query_first_ties():
    problem = random_problem(3)
    model = Model(problem, "group")
    assert applies(model, Policy("gisa"))
    assert applies(model, Policy("gbs"))
    assert not applies(model, Policy("gisa", ties="random", seed=1))
    assert not applies(model, Policy("random"))
    noisy = Model(problem, "group", NoiseModel(1, np.ones(problem.n_queries, dtype=bool)))
    assert not applies(noisy, Policy("gisa"))
    big = Problem.build(np.eye(2100, 1000, dtype=bool), object_groups=np.arange(2100) % 3)
    assert not applies(Model(big, "group"), Policy("gisa"))  # the walk is faster there
    with pytest.raises(ValueError, match="choose one of gbs, gisa"):
        build_level_tree(model, "gqsa", 1e-9, model.root())


# -- under persistent noise: engine/tree.py's build_noisy_level_tree -------------------------------


@st.composite
def noisy_problems(draw, min_queries: int = 1):
    """``(problem, noise)``: a problem of :func:`problems` (at most 50 x 16) with persistent
    noise: eps 0 to 2, 30%, 70% or all of the queries prone to error, model 1 or 2 with p
    0 or in [1e-4, 0.5].

    Kept clear of the split statistics' relative tolerance (1e-12): a mass ratio at that
    tolerance (p = 1e-12, or a prior tail of 1e-12 next to 1) is decided by round-off, and
    the walk and the level-wise builder can round it differently. So p^eps stays above 1e-8
    and the skewed priors' smallest weights at 1e-9 of the largest."""
    problem = draw(
        problems(NOISY_OBJECTS, NOISY_QUERIES, min_queries=min_queries, skewed_floor=1e-9)
    )
    N = problem.n_queries
    share = draw(st.sampled_from([0.3, 0.7, 1.0]), label="prone share")
    prone = draw(st.lists(st.floats(0, 1, exclude_max=True), min_size=N, max_size=N))
    noise = NoiseModel(
        draw(st.integers(0, 2), label="eps"),
        np.array(prone) < share,
        model=draw(st.integers(1, 2), label="noise model"),
        p=draw(st.just(0.0) | st.floats(1e-4, 0.5), label="p"),
    )
    return problem, noise


# The walk (the reference) costs up to seconds per tree on 80 x 20 problems with two errors;
# 50 x 16 reaches the same code (no size limit of the level-wise builder is near), and a
# small chunk (drawn) makes levels span several chunks, which 4,096 never does here.
NOISY_OBJECTS, NOISY_QUERIES = 50, 16

#: Toy example 3 (Figure 3 of Section 6): q2 and q3 prone to one error, p = 0.25.
TOY_3 = (
    Problem.build([[0, 0, 0], [1, 1, 1]], prior=[0.25, 0.75]),
    NoiseModel(1, np.array([False, True, True]), model=2, p=0.25),
)
#: Identical rows under noise, two errors on every query, model 1.
IDENTICAL_NOISY = (IDENTICAL_ROWS, NoiseModel(2, np.ones(3, dtype=bool), model=1))
#: A very skewed prior, one error on every query, model 2 with a small p.
SKEWED_NOISY = (SKEWED_PRIOR, NoiseModel(1, np.ones(12, dtype=bool), model=2, p=0.1))


def assert_same_noisy_tree(model: Model, policy: str, start=None) -> None:
    """The same tree as the walk: the same height, each object's expected depth and E[K] equal
    up to round-off (summed in another order), and the decomposition of Theorems 1 and 2 on
    the dilated groups still equal to E[K]."""
    fast = exact(model, Policy(policy), start=start)
    slow = exact(model, Policy(policy), start=start, level_wise=False)
    assert fast.max_depth == slow.max_depth
    np.testing.assert_allclose(fast.per_object_depth, slow.per_object_depth, rtol=1e-12, atol=1e-12)
    assert fast.expected_queries == pytest.approx(slow.expected_queries, rel=1e-12)
    assert fast.decomposition == pytest.approx(slow.decomposition, abs=1e-9)
    assert fast.decomposition == pytest.approx(fast.expected_queries, abs=1e-9)


@settings(PROPERTY, max_examples=60)
@example(case=TOY_3, chunk=tree.NOISY_CHUNK)
@example(case=TOY_3, chunk=1)
@example(case=IDENTICAL_NOISY, chunk=2)
@example(case=SKEWED_NOISY, chunk=3)
@given(case=noisy_problems(), chunk=st.sampled_from([tree.NOISY_CHUNK, 1, 3, 16]))
def test_same_noisy_tree_as_node_by_node(case, chunk):
    problem, noise = case
    model = Model(problem, "object", noise)
    assert noisy_applies(model, Policy("gbs"))
    with mock.patch.object(tree, "NOISY_CHUNK", chunk):  # levels of several chunks
        for policy in ("gbs", "gisa"):
            assert_same_noisy_tree(model, policy)


@st.composite
def noisy_later_nodes(draw):
    """``(problem, noise, answers, skipped)``: a noisy problem with at least three queries and
    a later node reached by a victim who may have made up to eps errors so far."""
    problem, noise = draw(noisy_problems(min_queries=3))
    return (problem, noise, *draw(later_answers(problem, noise)))


@settings(PROPERTY, max_examples=25)
@example(case=(*TOY_3, {0: False, 1: True}, [2]))
@example(case=(*IDENTICAL_NOISY, {0: False}, [2]))
@given(case=noisy_later_nodes())
def test_same_noisy_tree_from_a_later_node_with_skipped_queries(case):
    problem, noise, answers, skipped = case
    model = Model(problem, "object", noise)
    start = model.node_from_answers(answers, skipped=skipped)
    assert start.idx.size  # the victim is still a candidate
    for policy in ("gbs", "gisa"):
        assert_same_noisy_tree(model, policy, start=start)


def test_noisy_level_tree_only_for_the_object_target_and_first_ties():
    problem = random_problem(4)
    noise = NoiseModel(1, np.ones(problem.n_queries, dtype=bool))
    assert noisy_applies(Model(problem, "object", noise), Policy("gisa"))
    assert not noisy_applies(Model(problem, "group", noise), Policy("gisa"))
    assert not noisy_applies(Model(problem, "object", noise), Policy("gqsa"))
    assert not noisy_applies(Model(problem, "object", noise), Policy("gbs", ties="random"))
    assert not noisy_applies(Model(problem, "object"), Policy("gbs"))
    big = Problem.build(np.eye(600, 60, dtype=bool))  # the walk is faster there
    assert not noisy_applies(
        Model(big, "object", NoiseModel(1, np.ones(60, dtype=bool))), Policy("gbs")
    )
