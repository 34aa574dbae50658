r"""HyperAgent's linear hypermodel, trained by (stochastic) gradient descent.

The hypermodel :math:`\theta(\xi) = (W\xi + b) + (A_0\xi + \mu_0)` keeps a
frozen random prior and learns :math:`(W, b)` on the symmetrised Ensemble++
loss; in the linear-Gaussian bandit its minimiser is the incremental factor of
:class:`~seqproj.ensemble.LinearEnsemblePP` (theory
``ensemble.md#hypermodel``; claim ``ensemble.equivalence.sgd_to_closed_form``).
Paper keys ``hyperagent`` (the architecture and loss, CONFIRMED from the
authors' code) and ``ensemblepp``.
"""
from __future__ import annotations

import math

import numpy as np

from proofs_check.engine import (as_generator, check_bool, check_finite_array, check_int,
                                          check_real, shown)

from ._limits import MAX_D, MAX_M, MAX_N, check_cells
from .posterior_factor import _readonly

__all__ = ["LinearHypermodel"]


class LinearHypermodel:
    r"""HyperAgent's linear hypermodel :math:`\theta(\xi) = (W\xi + b) + (A_0\xi + \mu_0)`
    with frozen prior :math:`(A_0, \mu_0)`, trained by (stochastic) gradient
    descent on the symmetrised Ensemble++ loss (theory ``ensemble.md#hypermodel``):

    .. math::

        L(W, b) = \frac1n\,\mathbb E_\xi\Big[\sum_s \frac{(y_s + \sigma z_s^\top\xi
        - x_s^\top\theta(\xi))^2}{\sigma^2} + \|W\xi + b\|^2_{\Sigma_0^{-1}}\Big].

    With :math:`\mathbb E\xi = 0,\ \mathbb E\xi\xi^\top = I` its minimiser is the
    closed form of :class:`~seqproj.ensemble.LinearEnsemblePP`: :math:`\mu_0 + b = \mu_t`,
    :math:`A_0 + W = A_t` (DERIVED).  The expectation over ξ is either the
    exact symmetric set :math:`\{\pm\sqrt M e_i\}` (``n_indices=None``, exact
    gradients) or ``n_indices`` sampled Gaussian indices per step, each used
    with its mirror −ξ (symmetrisation; unbiased gradients).

    Parameters: ``d``, ``M``, ``prior_var`` (s_0), ``noise_sd`` (σ, the
    :math:`\sigma_\omega` of HyperAgent), ``prior_factor`` A_0 (``d × M``),
    ``prior_mean`` μ_0.  See "HyperAgent" (arXiv 2402.10228, key ``hyperagent``)
    and the code of HyperDQN/HyperAgent (CONFIRMED from the code).
    """

    def __init__(self, d, M, *, prior_var=1.0, noise_sd=1.0, prior_factor, prior_mean=None):
        self.d = check_int("d", d, lo=1, hi=MAX_D)
        self.M = check_int("M", M, lo=1, hi=MAX_M)
        check_cells("the d × M factor", self.d, self.M)
        self.prior_var = check_real("prior_var", prior_var, lo=0.0, lo_open=True)
        self.noise_sd = check_real("noise_sd", noise_sd, lo=0.0, lo_open=True)
        A0 = check_finite_array("prior_factor", prior_factor, ndim=2).astype(float)
        if A0.shape != (self.d, self.M):
            raise ValueError(f"prior_factor must have shape ({self.d}, {self.M}), got {A0.shape}")
        self._A0 = A0.copy()
        self._mu0 = np.zeros(self.d) if prior_mean is None else \
            check_finite_array("prior_mean", prior_mean, ndim=1).astype(float).copy()
        if self._mu0.shape != (self.d,):
            raise ValueError(f"prior_mean must have shape ({self.d},), got {self._mu0.shape}")
        self.W = np.zeros((self.d, self.M))
        self.b = np.zeros(self.d)
        self._X: list = []
        self._y: list = []
        self._Z: list = []

    @property
    def mean(self) -> np.ndarray:
        return _readonly(self._mu0 + self.b)

    @property
    def factor(self) -> np.ndarray:
        return _readonly(self._A0 + self.W)

    def sample(self, rng) -> np.ndarray:
        """One forward pass with a fresh ξ ~ N(0, I_M)."""
        xi = as_generator(rng).standard_normal(self.M)
        return self._mu0 + self.b + (self._A0 + self.W) @ xi

    def add(self, x, y, z) -> None:
        """Store the transition ``(x, y, z)`` (z: its perturbation, shape ``(M,)``)."""
        x = check_finite_array("x", x, ndim=1)
        if x.shape != (self.d,):
            raise ValueError(f"x must have shape ({self.d},), got {x.shape}")
        z = check_finite_array("z", z, ndim=1)
        if z.shape != (self.M,):
            raise ValueError(f"z must have shape ({self.M},), got {z.shape}")
        self._X.append(x.astype(float))
        self._y.append(check_real("y", y))
        self._Z.append(z.astype(float))

    def loss_gradient(self, Xi, *, rows=None):
        """Gradients ``(grad_W, grad_b)`` of the loss with the index set ``Xi``
        (``(k, M)``, weights 1/k, ``k ≥ 1``) on the stored rows (all, or the integer indices ``rows``).

        The checks (O(kM + |rows|)) are small next to the gradient (O(n d k)), so :meth:`fit` calls
        this checked method too."""
        Xi = check_finite_array("Xi", Xi, ndim=2)
        if Xi.shape[0] < 1 or Xi.shape[1] != self.M:
            raise ValueError(f"Xi must have shape (k, M) = (k, {self.M}) with k ≥ 1, got {Xi.shape}")
        if rows is not None:
            r = np.asarray(rows)
            n = len(self._y)
            if r.ndim != 1 or (r.size and r.dtype.kind not in "iu"):
                raise TypeError(f"rows must be a 1-D array of integer indices of the stored rows, got {shown(rows)}")
            if r.size and (int(r.min()) < 0 or int(r.max()) >= n):
                raise ValueError(f"rows must lie in [0, {n}) (the {n} stored rows), got {shown(rows)}")
            rows = r.astype(np.int64)
        return self._loss_gradient(Xi, rows=rows)

    def _loss_gradient(self, Xi, *, rows=None):
        """:meth:`loss_gradient` without the checks (the SGD loop of :meth:`fit`)."""
        X = np.asarray(self._X, dtype=float).reshape(-1, self.d)
        y = np.asarray(self._y, dtype=float)
        Z = np.asarray(self._Z, dtype=float).reshape(-1, self.M)
        if rows is not None:
            X, y, Z = X[rows], y[rows], Z[rows]
        n = max(len(self._y), 1)
        sig = self.noise_sd
        R = (y[:, None] + sig * (Z @ Xi.T) - (X @ (self._mu0 + self.b))[:, None]
             - X @ ((self._A0 + self.W) @ Xi.T))                      # (n_rows, k)
        scale = len(self._y) / max(X.shape[0], 1)                    # minibatch → full-sum scale
        G = (-2.0 / sig**2) * scale * (X.T @ R) + (2.0 / self.prior_var) * (self.W @ Xi.T
                                                                         + self.b[:, None])
        k = Xi.shape[0]
        return (G @ Xi) / (k * n), G.mean(axis=1) / n

    def lipschitz(self) -> float:
        """Largest curvature of the loss, ``(2/n) λ_max(XᵀX/σ² + I/s_0)`` (for step sizes)."""
        X = np.asarray(self._X, dtype=float).reshape(-1, self.d)
        n = max(len(self._y), 1)
        H = (X.T @ X) / self.noise_sd**2 + np.eye(self.d) / self.prior_var if len(X) else \
            np.eye(self.d) / self.prior_var
        return 2.0 * float(np.linalg.eigvalsh(H)[-1]) / n

    def fit(self, steps: int, *, rng=None, lr: float | None = None, n_indices: int | None = None,
            batch_size: int | None = None, average: bool = False) -> "LinearHypermodel":
        r"""Run ``steps`` (S)GD steps.

        ``n_indices=None`` uses the exact symmetric index set ±√M e_i; else
        ``n_indices`` Gaussian ξ plus their mirrors (needs ``rng``).
        ``batch_size`` samples rows with replacement (needs ``rng``).
        ``lr`` defaults to ``1/L`` (:meth:`lipschitz`).  ``average=True``
        returns the Polyak average of the iterates of the second half.
        """
        steps = check_int("steps", steps, lo=0, hi=MAX_N)
        average = check_bool("average", average)
        if n_indices is not None:
            n_indices = check_int("n_indices", n_indices, lo=1, hi=MAX_N)
            check_cells("2 n_indices × M indices", 2 * n_indices, self.M)
        if lr is None:
            # exact set: curvature L; sampled indices: L times the largest eigenvalue of the
            # empirical ΞᵀΞ/k, about (1 + √(M/2k))² (Marchenko–Pastur edge), with a safety factor 2.
            spread = 1.0 if n_indices is None else 2.0 * (1.0 + math.sqrt(self.M / (2.0 * n_indices)))**2
            lr = 1.0 / (self.lipschitz() * spread)
        else:
            lr = check_real("lr", lr, lo=0.0, lo_open=True)
        stochastic = n_indices is not None or batch_size is not None
        g = as_generator(rng) if stochastic else None
        if n_indices is None:
            e = math.sqrt(self.M) * np.eye(self.M)
            Xi_exact = np.vstack([e, -e])
        n = len(self._y)
        if batch_size is not None:
            batch_size = check_int("batch_size", batch_size, lo=1, hi=MAX_N)
            check_cells("batch_size × d rows", batch_size, self.d)
        W_sum = np.zeros_like(self.W)
        b_sum = np.zeros_like(self.b)
        n_avg = 0
        for step in range(steps):
            if n_indices is None:
                Xi = Xi_exact
            else:
                half = g.standard_normal((n_indices, self.M))
                Xi = np.vstack([half, -half])
            rows = None if batch_size is None or n == 0 else g.integers(0, n, size=batch_size)
            gW, gb = self.loss_gradient(Xi, rows=rows)
            self.W -= lr * gW
            self.b -= lr * gb
            if average and step >= steps // 2:
                W_sum += self.W
                b_sum += self.b
                n_avg += 1
        if average and n_avg:
            self.W = W_sum / n_avg
            self.b = b_sum / n_avg
        return self
