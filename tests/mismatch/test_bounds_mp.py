"""The mpmath implementation of the bounds and the worst case agrees with the float64 one.

:mod:`proofs_check.mismatch.bounds_mp` re-implements :func:`trm_bounds`, the worst-case remainder of
a tabular pair and the i.i.d.-tilt closed form independently (per-sequence loops, exact factorials);
the bound claims trust it to confirm or reject float64 violations, so the two must agree wherever
float64 is accurate.
"""
import math

import mpmath
import numpy as np
import pytest

from proofs_check.mismatch import BOUND_KEYS, trm_bounds, trm_bounds_from_policies, worst_case_reward
from proofs_check.mismatch.bounds_mp import iid_tilt_worst_case_mp, tabular_worst_case_mp, trm_bounds_mp
from proofs_check.mismatch.pairs import draw_pair, tilt_probs_from_flat
from proofs_check.mismatch.tilt import iid_tilt_worst_case
from proofs_check.policies import GENERATORS


def _close(a, b, rel=1e-12, abs_=1e-15):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + abs_


@pytest.mark.parametrize("seed", range(40))
def test_trm_bounds_agree_on_random_inputs(seed):
    """Random horizons and divergences, caps active and inactive (δ from 1e-10 to 3)."""
    rng = np.random.default_rng(seed)
    T = int(rng.integers(1, 300))
    delta = float(np.exp(rng.uniform(np.log(1e-10), np.log(3.0))))
    eps = min(1.0, math.sqrt(delta / 2) * float(rng.uniform(0.1, 1.0)))
    d_kl = float(T * delta * rng.uniform(0.0, 1.0))
    d_tv = min(1.0, math.sqrt(d_kl / 2))
    dbar = eps * rng.uniform(0.0, 1.0, size=T)
    f = trm_bounds(T, delta, eps=eps, d_kl_seq=d_kl, d_tv_seq=d_tv, dbar=dbar)
    with mpmath.workdps(50):
        m = trm_bounds_mp(T, delta, eps, d_kl, d_tv, dbar.tolist())
    assert set(m) == set(f) == set(BOUND_KEYS)
    for k in BOUND_KEYS:
        assert _close(f[k], float(m[k])), (k, f[k], m[k])


@pytest.mark.parametrize("gen", GENERATORS)
@pytest.mark.parametrize("shape", [(2, 2), (2, 4), (3, 2), (3, 3)])
def test_tabular_worst_case_and_bounds_agree(gen, shape):
    V, T = shape
    rng = np.random.default_rng(1000 * GENERATORS.index(gen) + 10 * V + T)
    for _ in range(3):
        mu, pi = draw_pair(rng, gen, V, T)
        theta = np.concatenate([mu.flat_logits(), pi.flat_logits()])
        err_f = worst_case_reward(mu, pi).abs_error
        b_f = trm_bounds_from_policies(mu, pi)
        with mpmath.workdps(50):
            err_m, b_m = tabular_worst_case_mp(theta, V, T)
        assert abs(err_f - float(err_m)) <= 1e-14, (err_f, err_m)
        for k in BOUND_KEYS:
            assert _close(b_f[k], float(b_m[k]), rel=1e-10, abs_=1e-14), (k, b_f[k], b_m[k])


@pytest.mark.parametrize("seed", range(12))
def test_iid_tilt_closed_forms_agree(seed):
    rng = np.random.default_rng(seed)
    V = int(rng.integers(2, 4))
    T = int(rng.choice([1, 5, 32, 64]))
    theta = np.concatenate([rng.standard_normal(V), rng.standard_normal(V)]) * float(rng.uniform(0.1, 2.0))
    theta[V:] = theta[:V] + float(np.exp(rng.uniform(np.log(1e-3), 0.0))) * rng.standard_normal(V)
    m, p = tilt_probs_from_flat(theta, V)
    r = iid_tilt_worst_case(m, p, T)
    with mpmath.workdps(50):
        err_m, b_m = iid_tilt_worst_case_mp(theta, V, T)
    assert abs(r.abs_error - float(err_m)) <= 1e-13 * max(1.0, T * float(np.abs(p - m).sum())), (r.abs_error, err_m)
    for k in BOUND_KEYS:
        assert _close(r.bounds[k], float(b_m[k]), rel=1e-10, abs_=1e-14), (k, r.bounds[k], b_m[k])
