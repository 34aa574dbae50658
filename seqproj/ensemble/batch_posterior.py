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

from proofs_check.engine.validate import check_finite_array, check_real

__all__ = ["ridge_posterior", "ensemble_sampling_members"]


def ridge_posterior(X, y, *, prior_var=1.0, noise_sd=1.0, prior_mean=None):
    r"""Batch Gaussian posterior (ridge / Kalman): returns ``(mean, cov)`` with
    :math:`\Sigma = (I/s_0 + X^\top X/\sigma^2)^{-1}`,
    :math:`\mu = \Sigma(\mu_0/s_0 + X^\top y/\sigma^2)` (CONFIRMED, standard)."""
    X = check_finite_array("X", X, ndim=2)
    y = check_finite_array("y", y, ndim=1)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} entries")
    s0 = check_real("prior_var", prior_var, lo=0.0, lo_open=True)
    sig = check_real("noise_sd", noise_sd, lo=0.0, lo_open=True)
    d = X.shape[1]
    mu0 = np.zeros(d) if prior_mean is None else np.asarray(prior_mean, float)
    prec = np.eye(d) / s0 + X.T @ X / sig**2
    cov = np.linalg.inv(prec)
    mean = np.linalg.solve(prec, mu0 / s0 + X.T @ y / sig**2)
    return mean, 0.5 * (cov + cov.T)


def ensemble_sampling_members(X, y, W, theta0, *, prior_var=1.0, noise_sd=1.0):
    r"""Classic ensemble sampling (Lu & Van Roy 2017), solved in batch.

    Member m minimises
    :math:`\sum_s (y_s + w_{s,m} - x_s^\top\theta)^2/\sigma^2 + \|\theta - \theta_{0,m}\|^2/s_0`,
    i.e. :math:`\theta_m = \Sigma(\theta_{0,m}/s_0 + \sum_s x_s(y_s + w_{s,m})/\sigma^2)`.
    ``W`` is ``(n, M)`` (reward perturbations ~ N(0, σ²)), ``theta0`` is
    ``(d, M)`` (prior draws ~ N(μ_0, s_0 I)).  Returns the ``(d, M)`` members.
    """
    X = check_finite_array("X", X, ndim=2)
    y = check_finite_array("y", y, ndim=1)
    W = check_finite_array("W", W, ndim=2)
    theta0 = check_finite_array("theta0", theta0, ndim=2)
    s0 = check_real("prior_var", prior_var, lo=0.0, lo_open=True)
    sig = check_real("noise_sd", noise_sd, lo=0.0, lo_open=True)
    d = X.shape[1]
    prec = np.eye(d) / s0 + X.T @ X / sig**2
    rhs = theta0 / s0 + X.T @ (y[:, None] + W) / sig**2
    return np.linalg.solve(prec, rhs)
