r"""Both sides of the three equivalences of linear Ensemble++ on random problems
(theory ``ensemble.md#equivalences`` and ``ensemble.md#hypermodel``).

Each function has the engine's chunk signature ``f(rng, n, *, ...)``: it draws
``n`` random problems (dimension, ensemble size, data, prior and noise scales)
and returns ``(lhs, rhs)``, the incremental quantities and their batch
counterparts, flattened:

* :func:`ridge_cases` — :math:`(\mu_t, \Sigma_t)` of
  :class:`~seqproj.ensemble.LinearEnsemblePP` (every index/perturbation family)
  vs. the ridge posterior;
* :func:`ensemble_sampling_cases` — the one-hot samples
  :math:`\mu_t + A_t\sqrt M e_m` vs. the members of classic ensemble sampling;
* :func:`hypermodel_cases` — the HyperAgent hypermodel after gradient descent
  (exact ±√M eᵢ index set, or 2 sampled ξ with mirrors) vs. the closed form.
"""
from __future__ import annotations

import math

import numpy as np

from proofs_check.engine import as_generator, check_int

from ._limits import MAX_D, MAX_M, MAX_N
from .batch_posterior import ensemble_sampling_members, ridge_posterior
from .hypermodel import LinearHypermodel
from .index_families import INDEX_FAMILIES, PERTURBATION_FAMILIES
from .posterior_factor import LinearEnsemblePP

__all__ = ["ridge_cases", "ensemble_sampling_cases", "hypermodel_cases"]


def _check_case_args(rng, n, d_max, M_max, n_max):
    """Validated chunk arguments: a generator, ``n`` cases and bounded problem sizes."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=MAX_N)
    d_max = check_int("d_max", d_max, lo=1, hi=MAX_D // 10)
    M_max = check_int("M_max", M_max, lo=1, hi=MAX_M // 1000)
    n_max = check_int("n_max", n_max, lo=0, hi=100_000)
    return rng, n, d_max, M_max, n_max


def _random_problem(rng, *, d_max, M_max, n_max):
    d = int(rng.integers(1, d_max + 1))
    M = int(rng.integers(1, M_max + 1))
    n = int(rng.integers(0, n_max + 1))
    s0 = float(rng.uniform(0.3, 5.0))
    sig = float(rng.uniform(0.3, 3.0))
    X = rng.uniform(-1, 1, size=(n, d))
    y = rng.standard_normal(n) * 2.0
    return d, M, n, s0, sig, X, y


def _joined(parts) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0)


def ridge_cases(rng, n, *, d_max=8, M_max=12, n_max=40):
    """``n`` problems: (μ_t, Σ_t) of the incremental update vs. the ridge posterior
    (random prior mean, random index and perturbation families)."""
    rng, n, d_max, M_max, n_max = _check_case_args(rng, n, d_max, M_max, n_max)
    lhs, rhs = [], []
    for _ in range(n):
        d, M, k, s0, sig, X, y = _random_problem(rng, d_max=d_max, M_max=M_max, n_max=n_max)
        idx = INDEX_FAMILIES[int(rng.integers(len(INDEX_FAMILIES)))]
        pert = PERTURBATION_FAMILIES[int(rng.integers(len(PERTURBATION_FAMILIES)))]
        mu0 = rng.standard_normal(d)
        ens = LinearEnsemblePP(d, M, prior_var=s0, noise_sd=sig, index=idx, perturbation=pert,
                               rng=rng, prior_mean=mu0)
        for i in range(k):
            ens.update(X[i], y[i])
        m, C = ridge_posterior(X, y, prior_var=s0, noise_sd=sig, prior_mean=mu0)
        lhs += [ens.mean.ravel(), ens.cov.ravel()]
        rhs += [m, C.ravel()]
    return _joined(lhs), _joined(rhs)


def ensemble_sampling_cases(rng, n, *, d_max=8, M_max=12, n_max=40):
    """``n`` problems: the M one-hot samples μ_t + A_t√M e_m vs. the M members of
    classic ensemble sampling fitted in batch (Lu & Van Roy: member m starts at
    θ_{0,m} ~ N(0, s₀I) and fits y + w with w ~ N(0, σ²))."""
    rng, n, d_max, M_max, n_max = _check_case_args(rng, n, d_max, M_max, n_max)
    lhs, rhs = [], []
    for _ in range(n):
        d, M, k, s0, sig, X, y = _random_problem(rng, d_max=d_max, M_max=M_max, n_max=n_max)
        ens = LinearEnsemblePP(d, M, prior_var=s0, noise_sd=sig, index="one_hot",
                               perturbation="gaussian", rng=rng)
        Z = rng.standard_normal((k, M)) / math.sqrt(M)
        for i in range(k):
            ens.update(X[i], y[i], z=Z[i])
        theta0 = math.sqrt(M) * np.asarray(ens.prior_factor)
        W = sig * math.sqrt(M) * Z
        members = ensemble_sampling_members(X, y, W, theta0, prior_var=s0, noise_sd=sig)
        samples = np.stack([ens.sample(zeta=math.sqrt(M) * np.eye(M)[m]) for m in range(M)], axis=1)
        lhs.append(samples.ravel())
        rhs.append(members.ravel())
    return _joined(lhs), _joined(rhs)


def hypermodel_cases(rng, n, *, d_max=5, M_max=6, n_max=15, steps_max=30_000):
    """``n`` problems: (μ₀ + b, A₀ + W) of the hypermodel after gradient descent vs.
    (μ_t, A_t) of the incremental update.  Odd cases use 2 sampled indices (plus
    mirrors) per step, even cases the exact ±√M eᵢ set; descent runs in blocks of
    500 steps until the parameters stop moving (< 1e-14) or ``steps_max`` steps."""
    rng, n, d_max, M_max, n_max = _check_case_args(rng, n, d_max, M_max, n_max)
    steps_max = check_int("steps_max", steps_max, lo=0, hi=10_000_000)
    lhs, rhs = [], []
    for case in range(n):
        d, M, k, s0, sig, X, y = _random_problem(rng, d_max=d_max, M_max=M_max, n_max=n_max)
        s0 = float(rng.uniform(0.5, 2.0))
        sig = float(rng.uniform(0.7, 2.0))
        ens = LinearEnsemblePP(d, M, prior_var=s0, noise_sd=sig, rng=rng)
        Z = rng.standard_normal((k, M)) / math.sqrt(M)
        hm = LinearHypermodel(d, M, prior_var=s0, noise_sd=sig, prior_factor=ens.prior_factor)
        for i in range(k):
            ens.update(X[i], y[i], z=Z[i])
            hm.add(X[i], y[i], Z[i])
        sampled = case % 2 == 1
        for _ in range(steps_max // 500):
            before = np.concatenate([hm.W.ravel(), hm.b])
            hm.fit(500, rng=rng, n_indices=2 if sampled else None)
            after = np.concatenate([hm.W.ravel(), hm.b])
            if np.max(np.abs(after - before)) < 1e-14:
                break
        lhs += [np.asarray(hm.mean), np.asarray(hm.factor).ravel()]
        rhs += [np.asarray(ens.mean), np.asarray(ens.factor).ravel()]
    return _joined(lhs), _joined(rhs)
