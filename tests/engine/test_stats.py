"""Exact tests of the statistics behind verdicts."""
import math

import numpy as np
import pytest
from scipy import stats as st

from proofs_check.engine import stats


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (17, 1000), (500, 1000)])
@pytest.mark.parametrize("alpha", [0.01, 0.05])
def test_clopper_pearson_matches_scipy_binomtest(k, n, alpha):
    ref = st.binomtest(k, n).proportion_ci(confidence_level=1 - alpha, method="exact")
    lo, hi = stats.clopper_pearson(k, n, alpha)
    assert lo == pytest.approx(ref.low, abs=1e-12)
    assert hi == pytest.approx(ref.high, abs=1e-12)


def _expected_e(log_e, n, p, delta):
    k = np.arange(n + 1)
    pmf = st.binom.pmf(k, n, p)
    return float(sum(pmf[i] * math.exp(log_e(int(i), n, delta)) for i in k))


@pytest.mark.parametrize("n", [1, 5, 40])
@pytest.mark.parametrize("delta", [0.05, 0.3])
def test_e_values_are_martingales_at_p_equal_delta(n, delta):
    # a mixture of likelihood ratios against p = δ has expectation exactly 1 under p = δ
    assert _expected_e(stats.log_e_below, n, delta, delta) == pytest.approx(1.0, rel=1e-9)
    assert _expected_e(stats.log_e_above, n, delta, delta) == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("n", [5, 40])
def test_e_values_are_supermartingales_on_their_whole_null(n):
    delta = 0.1
    for p in (0.12, 0.2, 0.5):          # null of E_below: p ≥ δ
        assert _expected_e(stats.log_e_below, n, p, delta) < 1.0
    for p in (0.0, 0.02, 0.08):         # null of E_above: p ≤ δ
        assert _expected_e(stats.log_e_above, n, p, delta) < 1.0


def test_anytime_decision_directions():
    assert stats.anytime_decision(0, 2000, 0.05, 0.01) == "holds"
    assert stats.anytime_decision(400, 2000, 0.05, 0.01) == "refuted"
    assert stats.anytime_decision(100, 2000, 0.05, 0.01) is None


def test_slope_interval_exact_line_and_noise():
    x = np.log([1, 2, 4, 8, 16])
    s, lo, hi = stats.slope_interval(x, 2 * x + 1, 0.05)
    assert s == pytest.approx(2.0) and lo == pytest.approx(2.0) and hi == pytest.approx(2.0)
    rng = np.random.default_rng(0)
    s, lo, hi = stats.slope_interval(x, 2 * x + 0.1 * rng.standard_normal(5), 0.05)
    assert lo < 2.0 < hi
