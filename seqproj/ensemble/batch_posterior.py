r"""Batch solutions the incremental factor must reproduce (theory ``ensemble.md#equivalences``).

* :func:`ridge_posterior` — the Gaussian (ridge / Kalman) posterior of all the
  data at once;
* :func:`ensemble_sampling_members` — classic ensemble sampling (Lu & Van Roy
  2017, paper key ``ensemble-sampling``): every member refitted on perturbed
  rewards from a perturbed prior draw.

Both are closed forms solved with one linear system; they are the right-hand
sides of the equivalence claims ``ensemble.equivalence.*``.
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import check_finite_array, check_real

from ._limits import MAX_D, check_cells


def _check_design(X, y):
    X = check_finite_array("X", X, ndim=2)
    y = check_finite_array("y", y, ndim=1)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} entries")
    if X.shape[1] < 1:
        raise ValueError(f"X must have at least one column (the dimension d), got shape {X.shape}")
    if X.shape[1] > MAX_D:
        raise ValueError(f"X must have at most {MAX_D} columns (the dimension d), got {X.shape[1]}")
    return X, y


def _finite(what, *arrays):
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise ValueError(f"X, y and the scales overflow float64 in the {what}; rescale the data "
                         "(prior_var, noise_sd)")

__all__ = ["ridge_posterior", "ensemble_sampling_members"]


def ridge_posterior(X, y, *, prior_var=1.0, noise_sd=1.0, prior_mean=None):
    r"""Batch Gaussian posterior (ridge / Kalman): returns ``(mean, cov)`` with
    :math:`\Sigma = (I/s_0 + X^\top X/\sigma^2)^{-1}`,
    :math:`\mu = \Sigma(\mu_0/s_0 + X^\top y/\sigma^2)` (CONFIRMED, standard)."""
    X, y = _check_design(X, y)
    s0 = check_real("prior_var", prior_var, lo=0.0, lo_open=True)
    sig = check_real("noise_sd", noise_sd, lo=0.0, lo_open=True)
    d = X.shape[1]
    if prior_mean is None:
        mu0 = np.zeros(d)
    else:
        mu0 = check_finite_array("prior_mean", prior_mean, ndim=1)
        if mu0.shape != (d,):
            raise ValueError(f"prior_mean must have shape ({d},), got {mu0.shape}")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        prec = np.eye(d) / s0 + X.T @ X / (sig * sig)
        rhs = mu0 / s0 + X.T @ y / (sig * sig)
        _finite("precision", prec, rhs)
        try:
            cov = np.linalg.inv(prec)
            mean = np.linalg.solve(prec, rhs)
        except np.linalg.LinAlgError:
            raise ValueError("X, prior_var and noise_sd give a numerically singular precision; "
                             "rescale the data") from None
        cov = 0.5 * (cov + cov.T)
    _finite("posterior", cov, mean)
    return mean, cov


def ensemble_sampling_members(X, y, W, theta0, *, prior_var=1.0, noise_sd=1.0):
    r"""Classic ensemble sampling (Lu & Van Roy 2017), solved in batch.

    Member m minimises
    :math:`\sum_s (y_s + w_{s,m} - x_s^\top\theta)^2/\sigma^2 + \|\theta - \theta_{0,m}\|^2/s_0`,
    i.e. :math:`\theta_m = \Sigma(\theta_{0,m}/s_0 + \sum_s x_s(y_s + w_{s,m})/\sigma^2)`.
    ``W`` is ``(n, M)`` (reward perturbations ~ N(0, σ²)), ``theta0`` is
    ``(d, M)`` (prior draws ~ N(μ_0, s_0 I)).  Returns the ``(d, M)`` members.
    """
    X, y = _check_design(X, y)
    W = check_finite_array("W", W, ndim=2)
    theta0 = check_finite_array("theta0", theta0, ndim=2)
    n, d = X.shape
    if W.shape[0] != n or W.shape[1] < 1:
        raise ValueError(f"W must have shape ({n}, M) with M ≥ 1 (one row per observation), "
                         f"got {W.shape}")
    if theta0.shape != (d, W.shape[1]):
        raise ValueError(f"theta0 must have shape ({d}, {W.shape[1]}) (d × M), got {theta0.shape}")
    check_cells("the d × M members", d, W.shape[1])
    s0 = check_real("prior_var", prior_var, lo=0.0, lo_open=True)
    sig = check_real("noise_sd", noise_sd, lo=0.0, lo_open=True)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        prec = np.eye(d) / s0 + X.T @ X / (sig * sig)
        rhs = theta0 / s0 + X.T @ (y[:, None] + W) / (sig * sig)
        _finite("precision", prec, rhs)
        try:
            out = np.linalg.solve(prec, rhs)
        except np.linalg.LinAlgError:
            raise ValueError("X, prior_var and noise_sd give a numerically singular precision; "
                             "rescale the data") from None
    _finite("members", out)
    return out
