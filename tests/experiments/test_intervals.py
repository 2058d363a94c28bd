"""Intervals of the experiments: Student's t, not the normal 1.96, when n is small."""

import numpy as np
import pytest

from responder.experiments.runner import mean_ci, t_quantile


@pytest.mark.parametrize(
    "df, expected",
    [
        # Published two-sided 95% critical values (any t table).
        (1, 12.7062),
        (2, 4.3027),
        (4, 2.7764),
        (9, 2.2622),
        (19, 2.0930),
        (99, 1.9842),
    ],
)
def test_t_quantile_matches_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)


def test_t_quantile_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 3, 5, 12, 40, 250, 5000):
        for p in (0.9, 0.95, 0.975, 0.995):
            assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), abs=1e-8)


def test_t_quantile_rejects_bad_arguments():
    with pytest.raises(ValueError, match="p must lie"):
        t_quantile(0.4, 3)
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_quantile(0.975, 0)


def test_mean_ci_uses_t_with_n_minus_one_degrees():
    values = [7.1, 7.4, 7.0, 7.9, 7.3]
    out = mean_ci(values)
    s = np.std(values, ddof=1)
    assert out["half"] == pytest.approx(2.7764451 * s / np.sqrt(5), rel=1e-7)
    assert out["half"] > 1.96 * s / np.sqrt(5) * 1.4  # the normal interval is far too narrow
    assert mean_ci([3.0])["half"] == 0.0
    assert mean_ci([])["mean"] is None
