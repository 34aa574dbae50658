"""Full and reduced simulators agree in law (two-sample tests), and the test has power.

Each KS test runs at level 1e-3; with 16 seeded tests the family-wise false-alarm
rate is below 2 %.  Seeds are fixed, so the outcome is deterministic.
"""
import pytest
from scipy import stats

from seqproj.reduced import simulate_reduced
from seqproj.simulate import simulate_full

LEVEL = 1e-3


@pytest.mark.parametrize("columns", ["sphere", "gaussian"])
@pytest.mark.parametrize("M, adv", [(8, "constant"), (32, "stopping"), (64, "pushing"),
                                    (16, "magnitude")])
def test_full_and_reduced_agree_in_law(columns, M, adv):
    T, n = 60, 2500
    f = simulate_full(M, 0.5, T, n, 1000 + M, columns=columns, adversary=adv)
    r = simulate_reduced(M, 0.5, T, n, 2000 + M, columns=columns, adversary=adv)
    assert stats.ks_2samp(f.final_ratio, r.final_ratio).pvalue > LEVEL
    # exit time (T+1 = never): KS on a discrete law is conservative
    assert stats.ks_2samp(f.exit_time, r.exit_time).pvalue > LEVEL
    assert stats.ks_2samp(f.max_dev, r.max_dev).pvalue > LEVEL


def test_two_sample_test_has_power():
    """A wrong reduction (dimension off by 25%) is detected by the same tests."""
    T, n = 60, 2500
    f = simulate_full(32, 0.5, T, n, 1, adversary="constant")
    r = simulate_reduced(40, 0.5, T, n, 2, adversary="constant")
    p = [stats.ks_2samp(getattr(f, a), getattr(r, a)).pvalue
         for a in ("final_ratio", "exit_time", "max_dev")]
    assert min(p) < LEVEL, p
