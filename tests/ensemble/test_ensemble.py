import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from seqproj.ensemble import (LinearEnsemblePP, LinearHypermodel, anticoncentration,
                              checked_cholesky, diagnose_factor, ensemble_sampling_members,
                              haar_rows, ridge_posterior, sup_tracking_error, tracking_error)
from seqproj.ensemble.index_families import INDEX_FAMILIES, PERTURBATION_FAMILIES


def _data(seed, n, d, M):
    g = np.random.default_rng(seed)
    return g.uniform(-1, 1, (n, d)), g.standard_normal(n), g.standard_normal((n, M)) / math.sqrt(M)


# ---------------------------------------------------------------- equivalences
@pytest.mark.parametrize("index", INDEX_FAMILIES)
@pytest.mark.parametrize("perturbation", PERTURBATION_FAMILIES)
def test_mean_and_cov_equal_ridge(index, perturbation):
    d, M, n = 6, 9, 60
    X, y, _ = _data(0, n, d, M)
    ens = LinearEnsemblePP(d, M, prior_var=3.0, noise_sd=0.7, index=index,
                           perturbation=perturbation, rng=1)
    for i in range(n):
        ens.update(X[i], y[i])
    m, C = ridge_posterior(X, y, prior_var=3.0, noise_sd=0.7)
    np.testing.assert_allclose(ens.mean, m, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ens.cov, C, rtol=0, atol=1e-13)


@settings(max_examples=30, deadline=None)
@given(d=st.integers(1, 6), M=st.integers(1, 8), n=st.integers(0, 25),
       s0=st.floats(0.1, 10), sig=st.floats(0.2, 5), seed=st.integers(0, 2**32 - 1))
def test_mean_is_ridge_property(d, M, n, s0, sig, seed):
    X, y, Z = _data(seed, n, d, M)
    ens = LinearEnsemblePP(d, M, prior_var=s0, noise_sd=sig, rng=seed)
    for i in range(n):
        ens.update(X[i], y[i], z=Z[i])
    m, C = ridge_posterior(X, y, prior_var=s0, noise_sd=sig)
    scale = max(1.0, np.abs(m).max(initial=0))
    assert np.max(np.abs(ens.mean - m)) <= 1e-10 * scale
    # the unrolled factor: Σ_t⁻¹ A_t = Σ_0⁻¹ A_0 + σ⁻¹ Σ x_s z_sᵀ
    P = np.linalg.solve(C, ens.factor)
    P_ref = np.asarray(ens.prior_factor) / s0 + X.T @ Z / sig
    assert np.max(np.abs(P - P_ref)) <= 1e-9 * max(1.0, np.abs(P_ref).max())


def test_one_hot_gaussian_is_classic_ensemble_sampling():
    d, M, n, s0, sig = 4, 7, 50, 2.0, 0.5
    X, y, Z = _data(3, n, d, M)
    ens = LinearEnsemblePP(d, M, prior_var=s0, noise_sd=sig, index="one_hot",
                           perturbation="gaussian", rng=4)
    for i in range(n):
        ens.update(X[i], y[i], z=Z[i])
    members = ensemble_sampling_members(X, y, sig * math.sqrt(M) * Z,
                                        math.sqrt(M) * np.asarray(ens.prior_factor),
                                        prior_var=s0, noise_sd=sig)
    for m in range(M):
        np.testing.assert_allclose(ens.sample(zeta=math.sqrt(M) * np.eye(M)[m]), members[:, m],
                                   rtol=0, atol=1e-12)
    # and a random one-hot sample is one of the members
    th = ens.sample(np.random.default_rng(0))
    assert np.min(np.max(np.abs(members - th[:, None]), axis=0)) < 1e-12


@pytest.mark.parametrize("n_indices", [None, 1, 3])
def test_sgd_converges_to_closed_form(n_indices):
    d, M, n, s0, sig = 3, 5, 12, 1.5, 1.0
    X, y, Z = _data(5, n, d, M)
    ens = LinearEnsemblePP(d, M, prior_var=s0, noise_sd=sig, rng=6)
    hm = LinearHypermodel(d, M, prior_var=s0, noise_sd=sig, prior_factor=ens.prior_factor)
    for i in range(n):
        ens.update(X[i], y[i], z=Z[i])
        hm.add(X[i], y[i], Z[i])
    hm.fit(6000, rng=7, n_indices=n_indices)
    np.testing.assert_allclose(hm.mean, ens.mean, rtol=0, atol=1e-10)
    np.testing.assert_allclose(hm.factor, ens.factor, rtol=0, atol=1e-10)


def test_sgd_minibatch_rows_is_close_with_averaging():
    d, M, n = 3, 4, 40
    X, y, Z = _data(8, n, d, M)
    ens = LinearEnsemblePP(d, M, rng=9)
    hm = LinearHypermodel(d, M, prior_factor=ens.prior_factor)
    for i in range(n):
        ens.update(X[i], y[i], z=Z[i])
        hm.add(X[i], y[i], Z[i])
    hm.fit(20000, rng=10, n_indices=2, batch_size=8, lr=0.02, average=True)
    assert np.max(np.abs(hm.factor - ens.factor)) < 0.05 * np.abs(ens.factor).max()


# ---------------------------------------------------------------- A Aᵀ → Σ
def test_factor_tracks_covariance_as_m_grows():
    """Gaussian family, fixed data: the error shrinks like √(d/M)."""
    d, n = 5, 200
    X, y, _ = _data(11, n, d, 1)
    errs = []
    for M in (5, 20, 80, 320, 1280):
        e = []
        for seed in range(5):
            ens = LinearEnsemblePP(d, M, rng=seed)
            for i in range(n):
                ens.update(X[i], y[i])
            e.append(tracking_error(ens.cov, ens.factor))
        errs.append(float(np.median(e)))
    assert all(a > b for a, b in zip(errs, errs[1:])), errs
    scaled = [e / math.sqrt(d / M) for e, M in zip(errs, (5, 20, 80, 320, 1280))]
    assert all(1.0 < s < 4.0 for s in scaled[1:]), scaled
    assert errs[-1] < 0.2


def test_haar_start_is_exact_at_time_zero():
    ens = LinearEnsemblePP(6, 10, prior_var=2.0, init="haar", rng=0)
    np.testing.assert_allclose(ens.factor @ ens.factor.T, ens.cov, atol=1e-12)
    B = haar_rows(8, 3, 1)               # M < d: E[BBᵀ] = I via scaling
    np.testing.assert_allclose(B.T @ B, (8 / 3) * np.eye(3), atol=1e-12)


def test_sup_tracking_matches_reference_level():
    """Reference runs (theory ensemble.md#tracking): d = 10, M = 80 → about 0.84 (median of runs)."""
    e = np.median([sup_tracking_error(10, 80, 300, s) for s in range(5)])
    assert 0.6 < e < 1.1


# ---------------------------------------------------------------- state & errors
def test_read_only_state():
    ens = LinearEnsemblePP(3, 4, rng=0)
    for arr in (ens.mean, ens.cov, ens.factor):
        with pytest.raises(ValueError):
            arr[0] = 1.0


@pytest.mark.parametrize("kw, match", [
    (dict(d=0, M=2), "d"), (dict(d=2, M=0), "M"),
    (dict(d=2, M=2, prior_var=0.0), "prior_var"), (dict(d=2, M=2, noise_sd=-1.0), "noise_sd"),
    (dict(d=2, M=2, index="laplace"), "index"), (dict(d=2, M=2, perturbation="one_hot"), "perturbation"),
    (dict(d=2, M=2, init="zeros"), "init"), (dict(d=2, M=2, prior_mean=[1.0]), "prior_mean"),
])
def test_bad_constructor_arguments(kw, match):
    kw.setdefault("rng", 0)
    with pytest.raises(ValueError, match=match):
        LinearEnsemblePP(**kw)


def test_rng_is_required():
    with pytest.raises(TypeError, match="rng"):
        LinearEnsemblePP(3, 3)


def test_bad_update_arguments():
    ens = LinearEnsemblePP(3, 4, rng=0)
    with pytest.raises(ValueError, match="NaN"):
        ens.update([np.nan, 0, 0], 1.0)
    with pytest.raises(ValueError, match="y"):
        ens.update([1.0, 0, 0], np.inf)
    with pytest.raises(ValueError, match="shape"):
        ens.update([1.0, 0], 1.0)
    with pytest.raises(ValueError, match="shape"):
        ens.update([1.0, 0, 0], 1.0, z=np.ones(3))
    with pytest.raises(ValueError, match="shape"):
        ens.sample(zeta=np.ones(2))


def test_reused_perturbation_is_refused():
    ens = LinearEnsemblePP(3, 4, rng=0)
    z = np.random.default_rng(1).standard_normal(4) / 2
    ens.update([1.0, 0, 0], 1.0, z=z)
    with pytest.raises(ValueError, match="already used"):
        ens.update([0.0, 1.0, 0], 1.0, z=z)


def test_loss_of_positive_definiteness_is_reported():
    ens = LinearEnsemblePP(3, 4, rng=0)
    ens._Sigma[:] = -np.eye(3)        # simulate a corrupted covariance
    with pytest.raises(RuntimeError, match="positive definiteness"):
        ens.update([1.0, 0.0, 0.0], 0.5)
    with pytest.raises(RuntimeError, match="positive definiteness"):
        ens.check_positive_definite()
    ok = LinearEnsemblePP(3, 4, rng=0)
    assert ok.check_positive_definite() > 0


# ---------------------------------------------------------------- failure modes
def _played(M, d=6, **kw):
    ens = LinearEnsemblePP(d, M, rng=3, **kw)
    g = np.random.default_rng(4)
    for _ in range(80):
        x = g.standard_normal(d)
        ens.update(x / np.linalg.norm(x), float(g.standard_normal()))
    return ens


def _diagnosed(M, **kw):
    ens = _played(M, **kw)
    return diagnose_factor(ens.cov, ens.factor)


def test_diagnosis_clean_run():
    assert _diagnosed(48).ok


def test_diagnosis_unnormalised_perturbation():
    dg = _diagnosed(48, perturbation_scale=math.sqrt(48))
    assert any("I instead of I/M" in p for p in dg.problems), dg.problems


def test_diagnosis_rank_deficient():
    dg = _diagnosed(3)
    assert dg.rank == 3 and any("M = 3 < d" in p for p in dg.problems), dg.problems
    assert dg.to_dict()["problems"]


def test_lookahead_and_reuse_break_tracking():
    base = sup_tracking_error(5, 40, 200, 0)
    look = sup_tracking_error(5, 40, 200, 0, play="lookahead")
    reuse = sup_tracking_error(5, 40, 200, 0, reuse_z=True)
    thr = 2 * math.sqrt(5 / 40) + 5 / 40 + 0.5
    assert base < thr < look and thr < reuse


def test_float32_square_root_is_refused():
    g = np.random.default_rng(0)
    U = np.linalg.qr(g.standard_normal((10, 10)))[0]
    prec = (U * np.logspace(0, 9, 10)) @ U.T
    Sigma = np.linalg.inv(prec)
    with pytest.raises(RuntimeError, match="float64"):
        checked_cholesky(Sigma, dtype=np.float32)
    L = checked_cholesky(prec)                     # float64 precision: fine
    np.testing.assert_allclose(L @ L.T, prec, rtol=1e-12, atol=1e-6)


def test_one_hot_small_m_fails_anticoncentration():
    d = 6
    oh = LinearEnsemblePP(d, 2, index="one_hot", rng=0)
    ga = LinearEnsemblePP(d, 200, rng=0)
    u = np.eye(d)[0]
    p_g = anticoncentration(ga, u, 1, n=4000)
    assert abs(p_g - 0.1587) < 0.03
    # two members: the optimism probability is 0, 1/2 or 1 and the sample takes 2 values
    p_o = anticoncentration(oh, u, 1, n=4000)
    assert min(abs(p_o - v) for v in (0.0, 0.5, 1.0)) < 0.05
    assert len({tuple(np.round(oh.sample(s), 12)) for s in range(50)}) == 2


def test_diagnose_factor_bad_shapes():
    with pytest.raises(ValueError, match="Sigma"):
        diagnose_factor(np.eye(3), np.ones((2, 4)))


def test_hypermodel_and_reference_bad_input():
    with pytest.raises(ValueError, match="prior_factor"):
        LinearHypermodel(3, 4, prior_factor=np.zeros((3, 5)))
    hm = LinearHypermodel(3, 4, prior_factor=np.zeros((3, 4)))
    with pytest.raises(ValueError, match="x"):
        hm.add([1.0, 2.0], 0.0, np.zeros(4))
    with pytest.raises(ValueError, match="z"):
        hm.add([1.0, 2.0, 3.0], 0.0, np.zeros(3))
    with pytest.raises(ValueError, match="NaN"):
        hm.add([1.0, np.nan, 3.0], 0.0, np.zeros(4))
    with pytest.raises(ValueError, match="n_indices"):
        hm.fit(1, n_indices=0, rng=0)
    with pytest.raises(ValueError, match="rows"):
        ridge_posterior(np.ones((3, 2)), np.ones(4))
    with pytest.raises(ValueError, match="noise_sd"):
        ridge_posterior(np.ones((3, 2)), np.ones(3), noise_sd=0.0)
    # an empty hypermodel fits to the prior (b = 0, W = 0)
    hm.fit(5)
    assert np.all(hm.W == 0) and np.all(hm.b == 0)
