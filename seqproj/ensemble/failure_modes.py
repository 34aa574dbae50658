r"""Each failure mode of linear Ensemble++ injected, and whether its detector fires
(theory ``ensemble.md#failure-modes``).

Every function has the engine's chunk signature ``f(rng, n, *, ...)``.  The
flag functions run ``n`` cases, each a faulty run and a correct one, and return
``(lhs, rhs)`` with ``lhs = [detector fires on the faulty run, detector fires
on the correct run, …]`` and ``rhs = [1, 0, …]`` — an identity that holds
exactly when the detector is right both ways:

* :func:`unnormalised_perturbation_flags` — z ~ N(0, I) instead of N(0, I/M);
* :func:`rank_deficient_flags` — M < d;
* :func:`broken_predictability_flags` — z_t drawn before x_t (``"lookahead"``)
  or one z reused for every update (``"reuse"``);
* :func:`float32_flags` — a float32 square root of an ill-conditioned Σ_t
  (``rhs = [1, 1]``: refused, and the float64 precision Cholesky accepted).

:func:`one_hot_small_m_gap` measures the one-hot failure (anti-concentration at
small M) as excess regret over exact TS.
"""
from __future__ import annotations

import math

import numpy as np

from proofs_check.engine import as_generator, check_int, check_real
from ._limits import check_choice

from ._limits import MAX_D, MAX_K, MAX_M, MAX_N, MAX_T, check_cells
from .agents import EnsemblePP, ExactTS
from .bandits import cumulative_regrets
from .diagnosis import checked_cholesky, default_tracking_threshold, diagnose_factor
from .environments import FiniteArmEnv
from .posterior_factor import LinearEnsemblePP
from .tracking import sup_tracking_error

__all__ = ["unnormalised_perturbation_flags", "rank_deficient_flags",
           "broken_predictability_flags", "float32_flags", "one_hot_small_m_gap"]


def _adaptive_state(rng, d, M, T, **kw):
    """A factor after ``T`` rounds of adaptive play on 50 unit arms (θ* ~ N(0, I))."""
    ens = LinearEnsemblePP(d, M, rng=rng, **kw)
    arms = rng.standard_normal((50, d))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    theta = rng.standard_normal(d)
    for _ in range(T):
        x = arms[int(np.argmax(arms @ ens.sample(rng)))]
        ens.update(x, float(x @ theta + rng.standard_normal()))
    return ens


def _diagnosed(ens, word) -> float:
    """1.0 if :func:`~.diagnosis.diagnose_factor` of ``ens``'s factor names a problem containing
    ``word``, else 0.0."""
    return float(any(word in p for p in diagnose_factor(ens.cov, ens.factor).problems))


def unnormalised_perturbation_flags(rng, n, *, T=100):
    """``n`` cases, d ∈ 2..8, M = max(16, (4..8)·d): perturbation scale √M vs. 1."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=MAX_N)
    T = check_int("T", T, lo=0, hi=MAX_T)
    lhs, rhs = [], []
    for _ in range(n):
        d = int(rng.integers(2, 9))
        M = max(16, int(rng.integers(4, 9)) * d)
        bad = _adaptive_state(rng, d, M, T, perturbation_scale=math.sqrt(M))
        good = _adaptive_state(rng, d, M, T)
        lhs += [_diagnosed(bad, "I instead of I/M"), _diagnosed(good, "I instead of I/M")]
        rhs += [1.0, 0.0]
    return np.array(lhs), np.array(rhs)


def rank_deficient_flags(rng, n, *, T=50):
    """``n`` cases, d ∈ 3..11: M ∈ 1..d−1 vs. M = 4d."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=MAX_N)
    T = check_int("T", T, lo=0, hi=MAX_T)
    lhs, rhs = [], []
    for _ in range(n):
        d = int(rng.integers(3, 12))
        M = int(rng.integers(1, d))
        ens = _adaptive_state(rng, d, M, T)
        full = _adaptive_state(rng, d, 4 * d, T)
        lhs += [_diagnosed(ens, "rank"), _diagnosed(full, "rank")]
        rhs += [1.0, 0.0]
    return np.array(lhs), np.array(rhs)


def broken_predictability_flags(rng, n, *, mode, d=5, M=40, T=300):
    """``n`` seeds: the sup tracking error of the broken run (``mode`` ``"lookahead"`` or
    ``"reuse"``) and of the predictable run with the same seed, each against
    :func:`~seqproj.ensemble.default_tracking_threshold`."""
    check_choice("mode", mode, ("lookahead", "reuse"))
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=MAX_N)
    d = check_int("d", d, lo=1, hi=MAX_D)
    M = check_int("M", M, lo=1, hi=MAX_M)
    T = check_int("T", T, lo=0, hi=MAX_T)
    check_cells("the d × M factor", d, M)
    kw = {"play": "lookahead"} if mode == "lookahead" else {"reuse_z": True}
    thr = default_tracking_threshold(d, M)
    lhs, rhs = [], []
    for _ in range(n):
        seed = int(rng.integers(0, 2**63))
        bad = sup_tracking_error(d, M, T, np.random.default_rng(seed), **kw)
        good = sup_tracking_error(d, M, T, np.random.default_rng(seed))
        lhs += [float(bad > thr), float(good > thr)]
        rhs += [1.0, 0.0]
    return np.array(lhs), np.array(rhs)


def float32_flags(rng, n):
    """``n`` cases, d ∈ 5..29, precision eigenvalues from 1 to 10^(8.5..10) (many plays along a
    few directions): the float32 Cholesky of Σ_t must be refused with the float64 advice, the
    float64 Cholesky of the precision accepted."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=MAX_N)
    lhs, rhs = [], []
    for _ in range(n):
        d = int(rng.integers(5, 30))
        U = np.linalg.qr(rng.standard_normal((d, d)))[0]
        lam = np.logspace(0, float(rng.uniform(8.5, 10)), d)
        prec = (U * lam) @ U.T
        Sigma = np.linalg.inv(prec)
        Sigma = 0.5 * (Sigma + Sigma.T)
        fired32 = 0.0
        try:
            checked_cholesky(Sigma, name="Sigma_t", dtype=np.float32)
        except RuntimeError as exc:
            fired32 = float("float64" in str(exc))
        ok64 = 1.0
        try:
            checked_cholesky(prec, name="precision", dtype=np.float64)
        except RuntimeError:
            ok64 = 0.0
        lhs += [fired32, ok64]
        rhs += [1.0, 1.0]
    return np.array(lhs), np.array(rhs)


def one_hot_small_m_gap(rng, n, *, d=10, M=2, K=100, T=1000, factor=1.5):
    """``n`` repetitions of ``R_ES − factor·R_TS``: classic ensemble sampling (one-hot index,
    Gaussian perturbations) at ensemble size ``M`` against exact TS on the finite-arm
    environment (Gaussian Ensemble++ at the same M plays along, on common random numbers)."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=MAX_N)
    d = check_int("d", d, lo=1, hi=MAX_D)
    M = check_int("M", M, lo=1, hi=MAX_M)
    K = check_int("K", K, lo=1, hi=MAX_K)
    T = check_int("T", T, lo=1, hi=MAX_T)
    factor = check_real("factor", factor, lo=0.0)
    agents = (ExactTS(), EnsemblePP(M, "one_hot", "gaussian"), EnsemblePP(M, "gaussian", "gaussian"))
    fin = cumulative_regrets(rng, n, env=FiniteArmEnv(d, K), agents=agents, T=T)[:, :, -1]
    return fin[:, 1] - factor * fin[:, 0]
