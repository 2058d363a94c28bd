"""The WISER-shaped stand-in has WISER's published shape, and the sensitivity readings differ
only where they should."""

import json

import numpy as np
import pytest

from responder.cli import main
from responder.engine.belief import Model
from responder.engine.bounds import entropy
from responder.engine.diagnostics import distinguishable_count
from responder.engine.evaluate import evaluate
from responder.engine.policies import Policy
from responder.engine.problem import Problem
from responder.experiments import report
from responder.experiments.datasets import equal_sizes
from responder.experiments.sensitivity import SplittingRandomPolicy, placement_gammas
from responder.experiments.wiser_standin import (
    majority_one_probability,
    standin_class_sizes,
    standin_dataset,
    standin_gammas,
)


def test_class_sizes_have_wisers_entropy():
    sizes = standin_class_sizes()
    assert len(sizes) == 16 and sum(sizes) == 298 and min(sizes) >= 1
    assert entropy(np.asarray(sizes, dtype=float)) == pytest.approx(3.068, abs=5e-4)
    assert list(sizes) == sorted(sizes, reverse=True)


def test_class_sizes_hit_other_targets_and_reject_impossible_ones():
    for target in (2.5, 3.5, 3.9):
        sizes = standin_class_sizes(target=target)
        assert entropy(np.asarray(sizes, dtype=float)) == pytest.approx(target, abs=5e-4)
    with pytest.raises(ValueError, match="target entropy"):
        standin_class_sizes(target=4.0)  # log2(16): only equal sizes, 298 is not divisible


def test_gammas_one_fourth_quadrant_query():
    gw, gb = standin_gammas(79, np.random.default_rng(3))
    fourth = (gw >= 0.75) & (gb <= 0.75)
    assert fourth.sum() == 1
    assert (gw[~fourth] >= 0.75).all() and (gb[~fourth] >= 0.95).all()


def test_majority_probability_gives_the_target_density():
    rng = np.random.default_rng(0)
    gw, gb = standin_gammas(79, rng)
    p_x = majority_one_probability(gw, gb, 0.3)
    a = np.mean(gb * gw + (1 - gb) * (1 - gw))
    b = np.mean((1 - gb) * gw + gb * (1 - gw))
    assert p_x * a + (1 - p_x) * b == pytest.approx(0.3)
    with pytest.raises(ValueError, match="outside what these gammas allow"):
        majority_one_probability(gw, gb, 0.02)


def test_dataset_has_wisers_shape_and_distinct_rows():
    sizes = standin_class_sizes()
    densities = []
    for seed in range(4):
        problem, params = standin_dataset(
            sizes, equal_sizes(10, 79), 0.3, np.random.default_rng(seed)
        )
        assert problem.matrix.shape == (298, 79)
        assert distinguishable_count(problem.matrix) == 298
        assert np.bincount(problem.object_groups).tolist() == list(sizes)
        assert problem.n_query_groups == 10
        densities.append(problem.matrix.mean())
    assert np.mean(densities) == pytest.approx(0.3, abs=0.05)


def test_splitting_random_search_never_asks_a_useless_symptom():
    rng = np.random.default_rng(1)
    B = rng.random((40, 30)) < 0.08  # sparse: many symptoms split nothing
    problem = Problem.build(B, object_groups=rng.integers(0, 4, 40))
    model = Model(problem, "object")
    node = model.root()
    policy = SplittingRandomPolicy()
    while (choice := policy.choose(node)) is not None:
        assert node.split().splits[choice.queries].all()
        node = node.child(int(choice.queries[0]), bool(B[0, choice.queries[0]]))
    any_ = evaluate(model, Policy("random"), method="monte-carlo", trials=400, seed=2)
    useful = evaluate(model, SplittingRandomPolicy(), method="monte-carlo", trials=400, seed=2)
    assert useful.expected_queries < any_.expected_queries


@pytest.mark.parametrize("placement", ["ours", "swapped", "low"])
def test_placements_draw_inside_their_rectangles(placement):
    gw, gb = placement_gammas(placement, 2000, 0.25, 0.1, np.random.default_rng(0))
    w_lo, b_lo, b_hi = {
        "ours": (0.75, 0.9, 1.0),
        "swapped": (0.9, 0.75, 1.0),
        "low": (0.75, 0.5, 0.6),
    }[placement]
    assert gw.min() >= w_lo and gw.max() <= 1.0
    assert gb.min() >= b_lo and gb.max() <= b_hi


def test_cli_writes_both_tables_beside_the_papers(tmp_path):
    out = tmp_path / "o"
    assert (
        main(
            [
                "experiments",
                "wiser-standin",
                "--quick",
                "--datasets",
                "1",
                "--trials",
                "20",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    text = (out / "wiser-standin.md").read_text()
    assert "7.792 ± 0.001" in text and "11.360 ± 0.096" in text  # the paper's numbers
    data = json.loads((out / "wiser-standin.json").read_text())
    point = data["points"][0]
    assert point["group"]["gisa"]["mean"] >= 3.068 - 1e-9  # E[K] >= H(P_y) (Theorem 2)
    assert point["object"]["gbs"]["mean"] >= 8.2819 - 1e-9  # Huffman: 298 equal objects
    assert point["distinct_rows"]["mean"] == 298
    if report.pyplot() is not None:
        assert (out / "wiser-standin.png").exists()
