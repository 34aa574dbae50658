"""i.i.d.-tilt closed form and count-state tilts (horizon scaling)."""
import math

import numpy as np
import pytest

from proofs_check.mismatch import worst_case_reward
from proofs_check.mismatch.tilt import compositions, count_state_tilt, iid_tilt_worst_case
from proofs_check.policies import divergence_summary, iid_tilt_pair


@pytest.mark.parametrize("m,p,T", [([0.5, 0.5], [0.51, 0.49], 10), ([0.2, 0.3, 0.5], [0.25, 0.3, 0.45], 5),
                                   ([0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1], 4), ([0.9, 0.1], [0.3, 0.7], 12)])
def test_closed_form_matches_enumeration(m, p, T):
    r = iid_tilt_worst_case(m, p, T)
    mu, pi = iid_tilt_pair(m, p, T)
    assert abs(r.abs_error - worst_case_reward(mu, pi).abs_error) < 1e-13
    s = divergence_summary(mu, pi)
    assert math.isclose(r.delta, s.delta, rel_tol=1e-10)
    assert math.isclose(r.d_tv_seq, s.d_tv_seq, rel_tol=1e-10, abs_tol=1e-15)
    assert math.isclose(r.d_kl_seq, s.d_kl_seq, rel_tol=1e-10)


def test_constant_state_tilt_equals_iid():
    for T in (1, 7, 300):
        a = count_state_tilt(0.3, 0.05, T, rule="constant")
        b = iid_tilt_worst_case([0.7, 0.3], [0.65, 0.35], T)
        assert abs(a.abs_error - b.abs_error) < 1e-12
        assert math.isclose(a.d_kl_seq, b.d_kl_seq, rel_tol=1e-10)
        assert a.exact


def test_state_tilt_is_lower_bound_on_enumeration():
    """For a non-constant rule, the count-reward worst case is ≤ the true worst case."""
    from proofs_check.policies import TabularPolicy
    T, m, e = 6, 0.5, 0.1
    lb = count_state_tilt(m, e, T, rule="majority").abs_error
    mu = TabularPolicy.iid([1 - m, m], T)
    tabs = []
    for t in range(T):
        k = np.array([bin(r).count("1") for r in range(2 ** t)])
        q1 = m + e * np.where(k >= t * m, 1.0, -1.0)
        tabs.append(np.log(np.stack([1 - q1, q1], axis=1)))
    pi = TabularPolicy(tabs)
    assert lb <= worst_case_reward(mu, pi).abs_error + 1e-14


def test_T4096_is_cheap_and_linear():
    r = iid_tilt_worst_case([0.5, 0.5], [0.51, 0.49], 4096)
    assert 0.4 < r.abs_error / (4096 * r.delta) < 0.5       # spec: ≈ 0.48 T δ, drifting down slowly
    assert r.bounds["pm_kl"] > r.abs_error


def test_compositions_and_bad_input():
    n = compositions(4, 3)
    assert n.shape == (15, 3) and np.all(n.sum(1) == 4) and len({tuple(r) for r in n}) == 15
    with pytest.raises(ValueError, match="exceed max_count"):
        compositions(4096, 4)
    with pytest.raises(ValueError, match="probability vector"):
        iid_tilt_worst_case([0.5, 0.6], [0.5, 0.5], 3)
    with pytest.raises(ValueError, match="eps0 must lie"):
        count_state_tilt(0.5, 0.6, 10)
    with pytest.raises(ValueError, match="rule must be"):
        count_state_tilt(0.5, 0.1, 10, rule="bogus")
