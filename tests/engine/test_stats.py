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


@pytest.mark.parametrize("delta", [0.01, 0.1, 0.5])
def test_probability_cs_is_coherent_with_the_anytime_test(delta):
    from proofs_check.engine.stats import anytime_decision, probability_cs
    for n in (100, 1_000, 20_000):
        for k in sorted({0, 1, int(n * delta * 0.5), int(n * delta), int(n * delta * 1.5), n}):
            lo, hi = probability_cs(k, n, 0.05)
            decided = anytime_decision(k, n, delta, 0.05)
            assert lo <= k / n <= hi
            assert (decided is not None) == (not lo <= delta <= hi), (k, n, delta, lo, hi, decided)
            if decided == "holds":
                assert hi < delta
            if decided == "refuted":
                assert lo > delta


def test_hall_interval_is_the_t_interval_on_symmetric_data():
    from scipy import stats as st

    from proofs_check.engine.stats import hall_interval
    x = np.random.default_rng(0).standard_normal(30)
    x = np.concatenate([x, -x]) + 2.0                # skewness exactly 0
    lo, hi = hall_interval(x, 0.05)
    h = st.t.isf(0.025, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size)
    assert (lo, hi) == pytest.approx((2.0 - h, 2.0 + h), rel=1e-12)


def test_hall_interval_shifts_up_for_right_skewed_data():
    from proofs_check.engine.stats import hall_interval, t_interval
    x = np.random.default_rng(1).exponential(1.0, 60)
    lo, hi = hall_interval(x, 0.05)
    tlo, thi = t_interval(x.mean(), x.std(ddof=1), x.size, 0.05)
    assert hi > thi and lo > tlo                    # the correction moves the interval right


def test_betting_state_is_the_same_in_chunks_and_in_one_batch():
    from proofs_check.engine.betting import BettingState, confidence_sequence
    x = np.random.default_rng(2).beta(0.5, 5.0, 700)
    one, many = BettingState(0.05, (0.0, 1.0), 0.05), BettingState(0.05, (0.0, 1.0), 0.05)
    one.update(x)
    for part in np.array_split(x, 9):
        many.update(part)
    assert (one.max_log_minus, one.max_log_plus) == pytest.approx((many.max_log_minus, many.max_log_plus))
    lo, hi = confidence_sequence(x, (0.0, 1.0), 0.05)
    assert lo <= x.mean() <= hi
    assert one.decision() == "greater" and lo > 0.05     # E x = 1/11 > 0.05, decided and excluded


def test_betting_capital_is_a_fair_game_at_the_true_mean():
    """E[Π(1 − λ_i(y_i − μ))] = 1 at E y = μ: the average terminal capital over many
    independent paths stays near 1 (a broken bet — e.g. using y_i in λ_i — inflates it)."""
    from proofs_check.engine.betting import BettingState
    rng = np.random.default_rng(3)
    caps = []
    for _ in range(3000):
        s = BettingState(0.5, (0.0, 1.0), 0.05)
        s.update((rng.random(40) < 0.5).astype(float))
        caps.append(np.exp(s.log_minus))
    assert np.mean(caps) == pytest.approx(1.0, abs=0.1)
