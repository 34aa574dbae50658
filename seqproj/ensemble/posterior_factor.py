r"""The posterior factor of linear Ensemble++: mean μ_t and a ``d × M`` factor A_t.

Linear Ensemble++ keeps a posterior mean :math:`\mu_t` and a ``d × M`` factor
:math:`A_t` with :math:`A_tA_t^\top\approx\Sigma_t`; a posterior sample is one
matrix-vector product :math:`\tilde\theta = \mu_t + A_t\zeta`.  After playing
``x_t`` and observing ``y_t`` (theory page ``docs/theory/ensemble.md#update``,
CONFIRMED from the authors' code):

.. math::

    \Sigma_t^{-1} = \Sigma_{t-1}^{-1} + x_tx_t^\top/\sigma^2,\qquad
    \mu_t = \Sigma_t(\Sigma_{t-1}^{-1}\mu_{t-1} + y_tx_t/\sigma^2),\qquad
    A_t = \Sigma_t(\Sigma_{t-1}^{-1}A_{t-1} + x_tz_t^\top/\sigma),

with a fresh perturbation :math:`z_t` drawn *after* ``x_t`` is chosen.  With
:math:`g = \Sigma_{t-1}x_t` and :math:`c = \sigma^2 + x_t^\top g` these are the
rank-one updates (DERIVED; Sherman–Morrison)

.. math::

    \Sigma_t = \Sigma_{t-1} - gg^\top/c,\quad
    \mu_t = \mu_{t-1} + g\,(y_t - x_t^\top\mu_{t-1})/c,\quad
    A_t = A_{t-1} + (g/c)\,(\sigma z_t - A_{t-1}^\top x_t)^\top,

costing :math:`O(d^2 + dM)` per round — no factorisation.  Unrolled,
:math:`\Sigma_t^{-1}A_t = \Sigma_0^{-1}A_0 + \sigma^{-1}\sum_{s\le t}x_sz_s^\top`.

Symbols: ``d`` = d, ``M`` = M, ``prior_var`` = :math:`s_0` (``Σ_0 = s_0 I``),
``noise_sd`` = σ, ``mean`` = μ_t, ``cov`` = Σ_t, ``factor`` = A_t.

References: Li, Xu, Wang, Luo, "Scalable Exploration via Ensemble++",
arXiv 2407.13195 (paper key ``ensemblepp``) and the authors' released code;
Lu & Van Roy, "Ensemble Sampling" (NeurIPS 2017, ``ensemble-sampling``).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.linalg import blas as _blas

from proofs_check.engine import (as_generator, check_finite_array, check_int,
                                          check_real)
from ._limits import check_choice

from ._limits import MAX_D, MAX_M, MAX_N, check_cells

from .index_families import (INDEX_FAMILIES, PERTURBATION_FAMILIES, sample_index,
                             sample_perturbation, sample_rows)
from .whitening import pd_error

__all__ = ["LinearEnsemblePP", "haar_rows"]


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v

def haar_rows(d: int, M: int, rng) -> np.ndarray:
    r"""A ``d × M`` matrix with orthonormal rows (``M ≥ d``: :math:`BB^\top = I_d`
    exactly) drawn from the Haar measure; for ``M < d`` orthonormal columns
    scaled by :math:`\sqrt{d/M}` so that :math:`\mathbb E[BB^\top] = I_d`.
    (The orthogonal start of theory ``ensemble.md#update``; the ``M < d`` scaling is our choice.)"""
    d = check_int("d", d, lo=1, hi=MAX_D)
    M = check_int("M", M, lo=1, hi=MAX_M)
    check_cells("a d × M matrix", d, M)
    rng = as_generator(rng)
    big, small = max(d, M), min(d, M)
    q, r = np.linalg.qr(rng.standard_normal((big, small)))
    q = q * np.sign(np.where(np.diag(r) == 0, 1.0, np.diag(r)))  # Haar, not QR-biased
    if M >= d:
        return np.ascontiguousarray(q.T)           # d × M, orthonormal rows
    return q * math.sqrt(d / M)                    # d × M, scaled orthonormal columns


class LinearEnsemblePP:
    r"""Linear Ensemble++: incremental posterior mean and factor (theory ``ensemble.md#update``).

    Parameters
    ----------
    d : dimension of θ (``d ≥ 1``).
    M : ensemble size, the number of columns of A (``M ≥ 1``).
    prior_var : :math:`s_0 > 0`, prior covariance :math:`\Sigma_0 = s_0 I_d`.
    noise_sd : σ > 0, the reward-noise standard deviation.
    index : law of ζ, one of :data:`~seqproj.ensemble.index_families.INDEX_FAMILIES`
        (``"one_hot"`` + Gaussian perturbations is classic ensemble sampling).
    perturbation : law of z (and of the rows of the random start B).
    init : ``"random"`` (rows of B from the perturbation law, :math:`\mathbb E BB^\top=I`)
        or ``"haar"`` (orthonormal rows, :math:`BB^\top = I_d` exactly for M ≥ d).
    rng : Generator / SeedSequence / int — **required**.  It draws the start B
        and every perturbation :math:`z_t` (inside :meth:`update`, i.e. after
        the action was chosen, which keeps the perturbations predictable).
        ``None`` is refused (a ``TypeError``): randomness is explicit.
    prior_mean : :math:`\mu_0` (default 0).
    s : nonzeros of the ``sparse`` family.
    perturbation_scale : multiplies z and B; **1 is the algorithm**.  Other
        values exist only to reproduce the failure mode "N(0, I) instead of
        N(0, I/M)" (``perturbation_scale = √M``), which :func:`~seqproj.ensemble.diagnose_factor`
        detects.
    """

    def __init__(self, d, M, *, prior_var=1.0, noise_sd=1.0, index="gaussian",
                 perturbation="gaussian", init="random", rng=None, prior_mean=None, s=2,
                 perturbation_scale=1.0):
        self.d = check_int("d", d, lo=1, hi=MAX_D)
        self.M = check_int("M", M, lo=1, hi=MAX_M)
        check_cells("the d × M factor", self.d, self.M)
        self.prior_var = check_real("prior_var", prior_var, lo=0.0, lo_open=True)
        self.noise_sd = check_real("noise_sd", noise_sd, lo=0.0, lo_open=True)
        self.index = check_choice("index", index, INDEX_FAMILIES)
        if perturbation == "one_hot":
            raise ValueError("perturbation must be one of "
                             f"{sorted(PERTURBATION_FAMILIES)}, got 'one_hot' (classic ensemble "
                             "sampling = index='one_hot' with perturbation='gaussian')")
        self.perturbation = check_choice("perturbation", perturbation, PERTURBATION_FAMILIES)
        self.init = check_choice("init", init, ("random", "haar"))
        if rng is None:
            raise TypeError("rng is required (a Generator, SeedSequence or int seed): it draws "
                            "the start B and the perturbations z_t; randomness is never implicit")
        self._rng = as_generator(rng)
        self.s = check_int("s", s, lo=1, hi=MAX_M)
        self.perturbation_scale = check_real("perturbation_scale", perturbation_scale, lo=0.0,
                                             lo_open=True)
        if prior_mean is None:
            mu0 = np.zeros(self.d)
        else:
            mu0 = check_finite_array("prior_mean", prior_mean, ndim=1).astype(float)
            if mu0.shape != (self.d,):
                raise ValueError(f"prior_mean must have shape ({self.d},), got {mu0.shape}")
        if self.init == "haar":
            B = haar_rows(self.d, self.M, self._rng)
        else:
            B = sample_rows(self.perturbation, self.d, self.M, self._rng, s=self.s)
        B = B * self.perturbation_scale
        # Σ_t: Fortran-ordered; its upper triangle is the state (BLAS dsymv reads it);
        # A_t: Fortran-ordered so that dger updates it in place.
        self._Sigma = np.asfortranarray(self.prior_var * np.eye(self.d))
        self._mu = mu0.copy()
        self._A = np.asfortranarray(math.sqrt(self.prior_var) * B)
        self._A0 = np.array(self._A)
        self._mu0 = mu0.copy()
        self.t = 0
        self._seen_z: set[bytes] = set()
        # a repeated z is evidence of reuse only for laws without atoms: the Gaussian law for
        # every M and the sphere law for M ≥ 2 (Unif(S⁰) = {−1, +1} is a two-point law)
        self._atomless = self.perturbation == "gaussian" or (self.perturbation == "sphere"
                                                             and self.M >= 2)

    # ------------------------------------------------------------------ state
    @property
    def mean(self) -> np.ndarray:
        """μ_t (read-only view)."""
        return _readonly(self._mu)

    @property
    def cov(self) -> np.ndarray:
        """Σ_t (a read-only symmetric copy; the state keeps one triangle)."""
        up = np.triu(self._Sigma)
        return _readonly(up + np.triu(up, 1).T)

    @property
    def factor(self) -> np.ndarray:
        """A_t, shape ``(d, M)`` (read-only view)."""
        return _readonly(self._A)

    @property
    def prior_factor(self) -> np.ndarray:
        """A_0 = Σ_0^{1/2} B (read-only), e.g. to build the matching hypermodel."""
        return _readonly(self._A0)

    @property
    def prior_mean(self) -> np.ndarray:
        return _readonly(self._mu0)

    def __repr__(self) -> str:
        return (f"LinearEnsemblePP(d={self.d}, M={self.M}, prior_var={self.prior_var:g}, "
                f"noise_sd={self.noise_sd:g}, index={self.index!r}, "
                f"perturbation={self.perturbation!r}, init={self.init!r}, t={self.t})")

    # --------------------------------------------------------------- sampling
    def sample(self, rng=None, *, zeta=None) -> np.ndarray:
        r"""One posterior sample :math:`\mu_t + A_t\zeta`, ζ drawn from the index
        law with ``rng`` (or given as ``zeta``, shape ``(M,)``)."""
        if zeta is None:
            if rng is None:
                raise TypeError("sample() needs rng (Generator/SeedSequence/int) or zeta")
            rng = as_generator(rng)
            zeta = sample_index(self.index, self.M, rng, s=self.s)
        else:
            zeta = check_finite_array("zeta", zeta, ndim=1)
            if zeta.shape != (self.M,):
                raise ValueError(f"zeta must have shape ({self.M},), got {zeta.shape}")
        return self._mu + _blas.dgemv(1.0, self._A, zeta)

    def sample_many(self, rng, n: int) -> np.ndarray:
        """``n`` samples as an ``(n, d)`` array."""
        n = check_int("n", n, lo=0, hi=MAX_N)
        check_cells("n samples of dimension d (and their indices)", n, max(self.d, self.M))
        rng = as_generator(rng)
        Z = sample_index(self.index, self.M, rng, size=n, s=self.s)
        return self._mu[None, :] + Z @ self._A.T

    # ----------------------------------------------------------------- update
    def update(self, x, y, *, z=None) -> None:
        r"""Incorporate the observation ``y`` at action ``x`` (rank-one, O(d² + dM)).

        ``z`` (shape ``(M,)``) overrides the perturbation; by default a fresh
        one is drawn here, after ``x`` is known.

        The one check that remains on a user-supplied ``z`` is the reuse check,
        and only where it can be right: for a law *without atoms* — ``gaussian``
        (any M) and ``sphere`` with M ≥ 2 — an exact repeat has probability 0,
        so a ``z`` that was already used is refused (reusing perturbations
        breaks the independence the sequential JL argument needs, theory
        ``ensemble.md#failure-modes``).  For a law *with atoms* a repeat is
        legitimate and cannot be told from reuse, so it is accepted: the
        discrete laws (``cube``, ``signed_coord``, ``sparse``) and ``sphere``
        at M = 1, where Unif(S⁰) is the two-point law {−1, +1} and every draw
        repeats an earlier one with probability ≥ 1/2 from the second round on.
        """
        x = check_finite_array("x", x, ndim=1)
        if x.shape != (self.d,):
            raise ValueError(f"x must have shape ({self.d},), got {x.shape}")
        y = check_real("y", y)
        if z is None:
            z = sample_perturbation(self.perturbation, self.M, self._rng, s=self.s)
        else:
            z = check_finite_array("z", z, ndim=1).astype(float)
            if z.shape != (self.M,):
                raise ValueError(f"z must have shape ({self.M},), got {z.shape}")
            key = z.tobytes()
            # exact repeats have probability 0 only for atomless laws (see the docstring); for the
            # discrete families and the sphere at M = 1 ({−1, +1}) a repeat is legitimate.
            if self._atomless and key in self._seen_z:
                raise ValueError("perturbation z was already used in an earlier update: reusing "
                                 "z breaks the fresh-perturbation (predictability) assumption "
                                 "and A_t A_tᵀ no longer tracks Σ_t (docs/theory/ensemble.md#failure-modes)")
            if self._atomless:
                self._seen_z.add(key)
        z = z * self.perturbation_scale
        sigma = self.noise_sd
        x = np.ascontiguousarray(x, dtype=float)
        g = _blas.dsymv(1.0, self._Sigma, x)                 # Σ_{t−1} x (upper triangle)
        with np.errstate(over="ignore", invalid="ignore"):
            q = float(x @ g)
        if math.isinf(q) and math.isfinite(float(np.max(np.abs(self._Sigma)))):
            raise ValueError(f"x is too large: xᵀΣx overflows float64 at round {self.t + 1}; "
                             "rescale the actions")
        if not math.isfinite(q) or (q <= 0.0 and np.any(x != 0.0)):
            raise pd_error("Σ_t", f"xᵀΣx = {q!r} for a nonzero x at round {self.t + 1}")
        c = sigma * sigma + q
        with np.errstate(over="ignore", invalid="ignore"):
            mu_new = self._mu + g * ((y - float(x @ self._mu)) / c)
        if not np.all(np.isfinite(mu_new)):
            raise ValueError(f"x {x.tolist() if x.size <= 8 else '(…)'} and y = {y!r} overflow the "
                             "posterior mean (float64); rescale the actions and rewards")
        # Σ_t = Σ_{t−1} − g gᵀ/c, A_t = A_{t−1} + (g/c)(σ z − A_{t−1}ᵀ x)ᵀ: in place, BLAS-2
        # (dger on the full array: scipy's dsyr wrapper measured 1000× slower; dsymv and
        # the cov property read the upper triangle only, so rounding asymmetry is harmless)
        _blas.dger(-1.0 / c, g, g, a=self._Sigma, overwrite_a=1)
        dg = np.diagonal(self._Sigma)
        if not np.all(dg > 0.0):
            raise pd_error("Σ_t", f"diagonal entry {float(dg.min())!r} ≤ 0 after round {self.t + 1}")
        self._mu[:] = mu_new
        r = sigma * z - _blas.dgemv(1.0, self._A, x, trans=1)
        _blas.dger(1.0 / c, g, r, a=self._A, overwrite_a=1)
        self.t += 1

    def check_positive_definite(self) -> float:
        """Cholesky of Σ_t; returns its smallest eigenvalue, raises ``RuntimeError`` if not PD."""
        S = np.asarray(self.cov)
        try:
            np.linalg.cholesky(S)
        except np.linalg.LinAlgError:
            lam = float(np.linalg.eigvalsh(S)[0])
            raise pd_error("Σ_t", f"Cholesky failed, smallest eigenvalue {lam:.3e}") from None
        return float(np.linalg.eigvalsh(S)[0])
