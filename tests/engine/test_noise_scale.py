"""Persistent noise at scale: the binomial sums stay finite and exact at any N.

C(2000, 500) is about 1e486, past the largest float: the old table built C(n, e) r^e as
floats and overflowed. The references here are exact rational sums (Python integers).
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from responder.engine.noise import BinomialTable, NoiseModel, log_binomial_coefficients
from responder.engine.simulate import error_count_distribution


def _exact_mass(n_prone: int, eps: int, p: Fraction, n: int, delta: int) -> float:
    """r^delta S[n, min(n, eps - delta)] / S[n_prone, eps], in exact rationals."""
    r = Fraction(1) if p == Fraction(1, 2) else p / (1 - p)

    def s(nn: int, t: int) -> Fraction:
        return sum((comb(nn, e) * r**e for e in range(t + 1)), Fraction(0))

    if delta > eps:
        return 0.0
    return float(r**delta * s(n, min(n, eps - delta)) / s(n_prone, eps))


@pytest.mark.parametrize(
    "n_prone, eps, p",
    [(1200, 600, Fraction(1, 2)), (2000, 474, Fraction(1, 4)), (1500, 40, Fraction(1, 10))],
)
def test_masses_match_exact_rationals_past_float_range(n_prone, eps, p):
    assert comb(n_prone, min(eps, n_prone // 2)) > 10**308 or eps == 40
    noise = NoiseModel(eps, np.ones(n_prone, bool), model=2, p=float(p))
    table = BinomialTable(noise)
    for n, delta in [
        (n_prone, 0),
        (n_prone - 1, 1),
        (n_prone - 7, 3),
        (n_prone // 2, eps // 2),
        (10, eps - 2),
        (0, eps),
        (5, eps + 1),
    ]:
        got = table.mass(n, np.array([delta]))[0]
        want = _exact_mass(n_prone, eps, p, n, delta)
        assert np.isfinite(got)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-300), (n, delta)


def test_a_node_splits_its_mass_exactly_between_answers_at_large_n():
    # S[n, t] = S[n-1, t] + r S[n-1, t-1]: a group's mass at a node is the sum of the masses
    # it sends to the two answers of an error-prone query (one of them spends an error).
    noise = NoiseModel(900, np.ones(5000, bool), model=2, p=0.3)
    table = BinomialTable(noise)
    assert table.mass(5000, np.array([0]))[0] == pytest.approx(1.0, rel=1e-12)
    for n in (5000, 4000, 901, 50):
        delta = np.arange(0, 899, 37)
        parent = table.mass(n, delta)
        children = table.mass(n - 1, delta) + table.mass(n - 1, delta + 1)
        assert np.all(np.isfinite(parent))
        np.testing.assert_allclose(children, parent, rtol=1e-9, atol=1e-300)


def test_log_binomial_coefficients_are_exact():
    got = log_binomial_coefficients(3000, 1500)
    assert got.shape == (1501,)
    for e in (0, 1, 2, 700, 1500):
        want = math.log(comb(3000, e))  # math.log takes integers of any size
        assert got[e] == pytest.approx(want, rel=1e-12)
    assert log_binomial_coefficients(5, 10).shape == (6,)


@pytest.mark.parametrize("model, p", [(1, 0.5), (2, 0.25), (2, 0.0)])
def test_error_count_distribution_at_large_n(model, p):
    dist = error_count_distribution(2000, 474, model, p)
    assert dist.shape == (475,)
    assert np.all(np.isfinite(dist)) and dist.sum() == pytest.approx(1.0)
    pe = Fraction(1, 2) if model == 1 else Fraction(p).limit_denominator()
    weights = [comb(2000, k) * pe**k * (1 - pe) ** (2000 - k) for k in range(475)]
    total = sum(weights)
    if total == 0:
        want = [1.0] + [0.0] * 474
    else:
        want = [float(w / total) for w in weights]
    np.testing.assert_allclose(dist, want, rtol=1e-9, atol=1e-300)


def test_simulation_on_a_wide_matrix_with_hundreds_of_errors_tolerated():
    # The defect: `simulate` on a 20 x 2000 matrix (auto eps 474) overflowed in the table.
    # Here 6 x 1500 with eps 330: C(1500, 330) is about 1e341, past the largest float.
    from responder.engine.belief import Model
    from responder.engine.diagnostics import min_hamming_distance
    from responder.engine.policies import Policy
    from responder.engine.problem import Problem
    from responder.engine.simulate import run_simulation

    rng = np.random.default_rng(3)
    problem = Problem.build((rng.random((6, 1500)) < 0.5).astype(int).tolist())
    assert min_hamming_distance(problem.matrix) >= 2 * 330 + 1
    noise = NoiseModel(330, np.ones(1500, bool))
    assert BinomialTable(noise).log_Z > np.log(1e308)
    result = run_simulation(Model(problem, "object", noise), Policy("gbs"), interviews=3, seed=0)
    # eps = 330 <= floor((delta - 1) / 2): every interview within the budget ends on the truth
    assert result.accuracy_within_eps == 1.0
    assert result.expected_queries > 330
