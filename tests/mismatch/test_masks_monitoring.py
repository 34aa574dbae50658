"""Masks (theory mismatch.md#trm), monitoring statistics (#estimators) and the veRL conventions (#verl)."""
import math

import numpy as np
import pytest

from proofs_check.mismatch.masks import (geometric_mask, k2_max_mask, k3_mean_mask, length_neutral_mask,
                                         masked_gradient, proxy_acceptance, sequence_mis_mask, trm_acceptance,
                                         trm_avg_mask, trm_max_mask)
from proofs_check.mismatch.monitoring import (monitoring_statistics, parse_k1_threshold, verl_is_weights,
                                              verl_rejection_mask, verl_statistics)
from proofs_check.policies import random_pair

M = np.array([[1, 1, 1, 0], [1, 1, 1, 1]], dtype=bool)


def test_trm_masks_hand():
    kl = np.array([[0.01, 0.05, 0.02, 9.9], [0.01, 0.01, 0.01, 0.01]])
    assert trm_max_mask(kl, M, 0.03).tolist() == [False, True]      # padding (9.9) ignored
    assert trm_avg_mask(kl, M, 0.03).tolist() == [True, True]        # mean 0.0267 ≤ 0.03
    assert trm_avg_mask(kl, M, 0.02).tolist() == [False, True]


def test_proxies_and_sequence_masks_hand():
    lpi = np.log(np.array([[0.5, 0.5, 0.5, 1.0], [0.9, 0.9, 0.9, 0.9]]))
    lmu = np.log(np.array([[0.25, 0.5, 0.5, 1.0], [0.9, 0.9, 0.9, 0.9]]))
    # Δ = (log 2, 0, 0) for row 0: k2 max = (log 2)²/2 = 0.240; k3 mean = (2 − 1 − log 2)/3
    assert k2_max_mask(lpi, lmu, M, 0.25).tolist() == [True, True]
    assert k2_max_mask(lpi, lmu, M, 0.24).tolist() == [False, True]
    k3 = (1 - math.log(2)) / 3
    assert k3_mean_mask(lpi, lmu, M, k3 + 1e-12).tolist() == [True, True]
    assert k3_mean_mask(lpi, lmu, M, k3 - 1e-6).tolist() == [False, True]
    assert sequence_mis_mask(lpi, lmu, M, 2.0).tolist() == [True, True]      # ρ = 2 ≤ 2
    assert sequence_mis_mask(lpi, lmu, M, 1.99).tolist() == [False, True]
    g = 2 ** (1 / 3)
    assert geometric_mask(lpi, lmu, M, 0.5, g + 1e-9).tolist() == [True, True]
    assert geometric_mask(lpi, lmu, M, 0.5, g - 1e-6).tolist() == [False, True]
    with pytest.raises(ValueError, match="C_lo ≤ C_hi"):
        geometric_mask(lpi, lmu, M, 2.0, 1.0)


def test_length_neutral_hand():
    lpi = np.log(np.array([[0.5, 0.5, 0.5, 1.0]]))
    lmu = np.log(np.array([[0.25, 0.5, 0.5, 1.0]]))
    m = M[:1]
    # T = 3, ε = 1, δ = 2: w = (min(1, 2, sqrt(2)), min(1, 1, 1), 0) = (1, 1, 0); W = |2 − 1|·1 = 1; Σw = 2
    assert length_neutral_mask(lpi, lmu, m, eps=1.0, delta=2.0, delta_w=0.5).tolist() == [True]
    assert length_neutral_mask(lpi, lmu, m, eps=1.0, delta=2.0, delta_w=0.49).tolist() == [False]
    with pytest.raises(ValueError, match="left-aligned"):
        length_neutral_mask(lpi, lmu, np.array([[0, 1, 1, 1]]), eps=1.0, delta=2.0, delta_w=0.5)


def test_masked_gradient_normalised_by_total_N():
    N, T, d = 4, 3, 2
    m = np.ones((N, T), bool)
    score = np.ones((N, T, d))
    z = np.zeros((N, T))
    acc = np.array([True, False, False, False])
    g = masked_gradient(acc, np.ones(N), z, z, score, m)
    np.testing.assert_allclose(g, [3 / 4, 3 / 4])        # one accepted of 4: divide by N = 4, not 1


def test_proxy_acceptance_exact():
    mu, pi = random_pair("low_prob", 2, 6, 0, sigma=1.0, tau=0.3)
    pa = proxy_acceptance(mu, pi, 0.02)
    assert pa.false_accept["trm_max"] == 0.0
    assert 0 < pa.p_violation < 1
    assert math.isclose(pa.accept["trm_max"], 1 - pa.p_violation, rel_tol=1e-12)
    for k in ("trm_avg", "k2_max", "k3_mean"):
        assert 0 <= pa.false_accept[k] <= pa.p_violation + 1e-15
    assert pa.to_dict()["delta"] == 0.02


def test_trm_acceptance_formula():
    assert math.isclose(trm_acceptance(0.01, 100), 0.99 ** 100, rel_tol=1e-12)
    assert trm_acceptance(1.0, 3) == 0.0
    with pytest.raises(ValueError):
        trm_acceptance(1.5, 3)


def test_monitoring_statistics():
    lpi = np.log(np.array([[0.5, 0.4, 0.3, 0.2]]))
    lmu = np.log(np.array([[0.4, 0.4, 0.6, 0.2]]))
    s = monitoring_statistics(lpi, lmu, M[:1])
    d = (lpi - lmu)[0, :3]
    np.testing.assert_allclose(s.k1[0, :3], -d)
    np.testing.assert_allclose(s.k2[0, :3], d ** 2 / 2)
    np.testing.assert_allclose(s.k3[0, :3], np.exp(d) - d - 1)
    assert s.k1[0, 3] == 0.0 and np.all(s.k3 >= 0)
    assert math.isclose(s.log_ppl_gap[0], -d.mean(), rel_tol=1e-12)     # −log ρ_geo


def test_verl_clamp_and_orientation():
    old = np.array([[0.0, -30.0, np.log(0.5)]])
    roll = np.array([[-30.0, 0.0, np.log(0.25)]])
    m = np.ones((1, 3), bool)
    s = verl_statistics(old, roll, m)
    np.testing.assert_allclose(s["log_ratio"][0], [20.0, -20.0, np.log(2)])   # clamped to ±20
    np.testing.assert_allclose(s["token_k1"][0], [-20.0, 20.0, -np.log(2)])   # k1 = −log r = log(μ/π)
    np.testing.assert_allclose(s["token_k3"][0, 2], 2 - 1 - np.log(2))
    assert s["seq_max_k2"][0] == 200.0
    # π_old/π_rollout = 2 on token 2: k1 = log(1/2).  Keep-rule log(lower) ≤ k1 ≤ log(upper) bounds μ/π:
    # thresholds (0.6, 1.6) reject it (μ/π = 0.5 < 0.6) although π/μ = 2 ≥ 1.6 would be the "intuitive" test.
    old2, roll2 = np.log([[0.5, 0.5]]), np.log([[0.25, 0.5]])
    m2 = np.ones((1, 2), bool)
    assert verl_rejection_mask(old2, roll2, m2, {"token_k1": "0.6_1.6"}).tolist() == [[False, True]]
    # mirrored: (0.4, 1.2) keeps μ/π = 0.5 even though π/μ = 2 > 1.2
    assert verl_rejection_mask(old2, roll2, m2, {"token_k1": "0.4_1.2"}).tolist() == [[True, True]]
    assert parse_k1_threshold(2.0) == (0.5, 2.0)
    with pytest.raises(ValueError, match="lower ≤ upper"):
        parse_k1_threshold("2.0_1.0")


def test_verl_and_criteria_and_weights():
    old = np.log(np.array([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]))
    roll = np.log(np.array([[0.5, 0.5, 0.5], [0.1, 0.5, 0.5]]))
    m = np.ones((2, 3), bool)
    keep = verl_rejection_mask(old, roll, m, {"seq_max_k2": 1.0, "seq_mean_k3": 10.0})
    assert keep.tolist() == [[True] * 3, [False] * 3]             # one failing criterion rejects (AND)
    keep2 = verl_rejection_mask(old, roll, m, {"seq_max_k2": 10.0, "seq_mean_k3": 10.0})
    assert keep2.all()
    w = verl_is_weights(old, roll, m, level="token", mode="truncate", upper=2.0)
    assert w[1, 0] == 2.0 and w[0, 0] == 1.0                      # clamp above; weights untouched by RS
    w2 = verl_is_weights(old, roll, m, level="token", mode="lo_hi", upper=2.0)
    assert w2[1, 0] == 0.0 and w2[1, 1] == 1.0                    # zero outside [lo, hi]
    ws = verl_is_weights(old, roll, m, level="sequence", mode="truncate", upper=100.0)
    assert math.isclose(ws[1, 0], 5.0, rel_tol=1e-12) and ws[1, 2] == ws[1, 0]
    with pytest.raises(ValueError, match="lower ≤ upper"):
        verl_is_weights(old, roll, m, upper=2.0, lower=3.0)
    with pytest.raises(ValueError, match="criteria option"):
        verl_rejection_mask(old, roll, m, {"bogus": 1.0})


def test_padded_input_validation():
    with pytest.raises(ValueError, match="shape of response_mask"):
        trm_max_mask(np.zeros((2, 3)), M, 0.1)
    with pytest.raises(ValueError, match="NaN or inf"):
        trm_max_mask(np.array([[np.nan, 0, 0, 0], [0, 0, 0, 0.0]]), M, 0.1)
    # NaN in padding is fine
    assert trm_max_mask(np.array([[0, 0, 0, np.nan], [0, 0, 0, 0.0]]), M, 0.1).all()
    with pytest.raises(ValueError, match="delta must lie"):
        trm_max_mask(np.zeros((2, 4)), M, -0.1)
    with pytest.raises(ValueError, match="at least one valid token"):
        trm_avg_mask(np.zeros((1, 2)), np.zeros((1, 2)), 0.1)
