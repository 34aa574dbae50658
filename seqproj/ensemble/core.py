r"""Linear Ensemble++ and the HyperAgent linear hypermodel.

Linear Ensemble++ keeps a posterior mean :math:`\mu_t` and a ``d × M`` factor
:math:`A_t` with :math:`A_tA_t^\top\approx\Sigma_t`; a posterior sample is one
matrix-vector product :math:`\tilde\theta = \mu_t + A_t\zeta`.  After playing
``x_t`` and observing ``y_t`` (spec ``ensemble.md`` §2, CONFIRMED from code):

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
arXiv 2407.13195 (NeurIPS 2025), §3; "HyperAgent", arXiv 2402.10228 (ICML 2024);
Lu & Van Roy, "Ensemble Sampling" (NeurIPS 2017).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.linalg import blas as _blas

from proofs_check.engine.validate import (as_generator, check_choice, check_finite_array, check_int,
                                   check_real)

from proofs_check.engine.blas import single_threaded_blas

from seqproj.ensemble.index_families import (INDEX_FAMILIES, PERTURBATION_FAMILIES, sample_index,
                             sample_perturbation, sample_rows)

__all__ = ["LinearEnsemblePP", "LinearHypermodel", "FactorDiagnosis", "diagnose_factor",
           "tracking_error", "ridge_posterior", "ensemble_sampling_members", "haar_rows",
           "checked_cholesky", "anticoncentration", "sup_tracking_error"]


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


def haar_rows(d: int, M: int, rng) -> np.ndarray:
    r"""A ``d × M`` matrix with orthonormal rows (``M ≥ d``: :math:`BB^\top = I_d`
    exactly) drawn from the Haar measure; for ``M < d`` orthonormal columns
    scaled by :math:`\sqrt{d/M}` so that :math:`\mathbb E[BB^\top] = I_d`.
    (The orthogonal start of spec §2 step 1; the ``M < d`` scaling is our choice.)"""
    d = check_int("d", d, lo=1)
    M = check_int("M", M, lo=1)
    rng = as_generator(rng)
    big, small = max(d, M), min(d, M)
    q, r = np.linalg.qr(rng.standard_normal((big, small)))
    q = q * np.sign(np.where(np.diag(r) == 0, 1.0, np.diag(r)))  # Haar, not QR-biased
    if M >= d:
        return np.ascontiguousarray(q.T)           # d × M, orthonormal rows
    return q * math.sqrt(d / M)                    # d × M, scaled orthonormal columns


def _pd_error(what: str, detail: str) -> RuntimeError:
    return RuntimeError(
        f"{what} has lost positive definiteness ({detail}). The Sherman–Morrison recursion "
        "accumulates round-off when Σ_t is very ill-conditioned (tiny noise_sd, huge prior_var "
        "or huge actions); refusing to sample from it. Rescale the problem, increase noise_sd, "
        "or maintain a Cholesky factor of the precision instead.")


class LinearEnsemblePP:
    r"""Linear Ensemble++: incremental posterior mean and factor (spec ``ensemble.md`` §2).

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
        N(0, I/M)" (``perturbation_scale = √M``), which :func:`diagnose_factor`
        detects.
    """

    def __init__(self, d, M, *, prior_var=1.0, noise_sd=1.0, index="gaussian",
                 perturbation="gaussian", init="random", rng=None, prior_mean=None, s=2,
                 perturbation_scale=1.0):
        self.d = check_int("d", d, lo=1)
        self.M = check_int("M", M, lo=1)
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
        self.s = check_int("s", s, lo=1)
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
            zeta = sample_index(self.index, self.M, rng, s=self.s)
        else:
            zeta = check_finite_array("zeta", zeta, ndim=1)
            if zeta.shape != (self.M,):
                raise ValueError(f"zeta must have shape ({self.M},), got {zeta.shape}")
        return self._mu + _blas.dgemv(1.0, self._A, zeta)

    def sample_many(self, rng, n: int) -> np.ndarray:
        """``n`` samples as an ``(n, d)`` array."""
        n = check_int("n", n, lo=0)
        Z = sample_index(self.index, self.M, rng, size=n, s=self.s)
        return self._mu[None, :] + Z @ self._A.T

    # ----------------------------------------------------------------- update
    def update(self, x, y, *, z=None) -> None:
        r"""Incorporate the observation ``y`` at action ``x`` (rank-one, O(d² + dM)).

        ``z`` (shape ``(M,)``) overrides the perturbation; by default a fresh
        one is drawn here, after ``x`` is known.  For the continuous laws
        (``gaussian``, ``sphere``) a user-supplied ``z`` that was already used
        is refused: reusing perturbations breaks the independence the
        sequential JL argument needs (spec §4 item 3).  For the discrete laws a
        repeated value is legitimate and cannot be told from reuse.
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
            # exact repeats have probability 0 only for continuous laws; for the discrete
            # families (cube, signed_coord, sparse) a repeat is legitimate and not flagged.
            if self.perturbation in ("gaussian", "sphere") and key in self._seen_z:
                raise ValueError("perturbation z was already used in an earlier update: reusing "
                                 "z breaks the fresh-perturbation (predictability) assumption "
                                 "and A_t A_tᵀ no longer tracks Σ_t (spec ensemble.md §4.3)")
            self._seen_z.add(key)
        z = z * self.perturbation_scale
        sigma = self.noise_sd
        x = np.ascontiguousarray(x, dtype=float)
        g = _blas.dsymv(1.0, self._Sigma, x)                 # Σ_{t−1} x (upper triangle)
        q = float(x @ g)
        if not math.isfinite(q) or (q <= 0.0 and np.any(x != 0.0)):
            raise _pd_error("Σ_t", f"xᵀΣx = {q!r} for a nonzero x at round {self.t + 1}")
        c = sigma * sigma + q
        # Σ_t = Σ_{t−1} − g gᵀ/c, A_t = A_{t−1} + (g/c)(σ z − A_{t−1}ᵀ x)ᵀ: in place, BLAS-2
        # (dger on the full array: scipy's dsyr wrapper measured 1000× slower; dsymv and
        # the cov property read the upper triangle only, so rounding asymmetry is harmless)
        _blas.dger(-1.0 / c, g, g, a=self._Sigma, overwrite_a=1)
        dg = np.diagonal(self._Sigma)
        if not np.all(dg > 0.0):
            raise _pd_error("Σ_t", f"diagonal entry {float(dg.min())!r} ≤ 0 after round {self.t + 1}")
        self._mu += g * ((y - float(x @ self._mu)) / c)
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
            raise _pd_error("Σ_t", f"Cholesky failed, smallest eigenvalue {lam:.3e}") from None
        return float(np.linalg.eigvalsh(S)[0])

    def diagnose(self) -> "FactorDiagnosis":
        """:func:`diagnose_factor` of the current state."""
        return diagnose_factor(self.cov, self._A)


# ---------------------------------------------------------------------------
# references used by the equivalence tests and claims
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# diagnostics: tracking error and failure modes (spec §4 items 1 and 3)
# ---------------------------------------------------------------------------

def _chol_or_raise(Sigma):
    try:
        return np.linalg.cholesky(Sigma)
    except np.linalg.LinAlgError:
        lam = float(np.linalg.eigvalsh(Sigma)[0])
        raise _pd_error("Σ", f"Cholesky failed, smallest eigenvalue {lam:.3e}") from None


def tracking_error(Sigma, A) -> float:
    r""":math:`\|\Sigma^{-1/2}AA^\top\Sigma^{-1/2} - I\|_{op}` (spec §4.1), computed as
    :math:`\|L^{-1}AA^\top L^{-\top} - I\|` with :math:`LL^\top = \Sigma` (a similar
    matrix; same eigenvalues)."""
    L = _chol_or_raise(np.asarray(Sigma, float))
    Wm = np.linalg.solve(L, np.asarray(A, float))
    ev = np.linalg.eigvalsh(Wm @ Wm.T)
    return float(max(abs(ev[0] - 1.0), abs(ev[-1] - 1.0)))


@dataclass(frozen=True)
class FactorDiagnosis:
    """How well ``A Aᵀ`` tracks ``Σ``; ``problems`` is empty when nothing is wrong.

    ``eig_min``/``eig_max``/``eig_mean`` are the eigenvalues of
    ``Σ^{-1/2} A Aᵀ Σ^{-1/2}`` (all 1 when tracking is perfect).
    """

    error: float
    eig_min: float
    eig_max: float
    eig_mean: float
    rank: int
    d: int
    M: int
    problems: tuple

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        out = asdict(self)
        out["problems"] = list(self.problems)
        return out


def diagnose_factor(Sigma, A, *, tol: float | None = None) -> FactorDiagnosis:
    r"""Diagnose :math:`A A^\top` against Σ (spec ``ensemble.md`` §4 item 3).

    Detected, each with a plain-language diagnosis:

    * Σ not positive definite (``RuntimeError`` from the Cholesky);
    * ``rank(A) < d`` (e.g. ``M < d``): samples never move in ``d − rank``
      directions, so exploration there is absent (linear regret);
    * mean eigenvalue within a factor 3 of M (M ≥ 16): perturbations drawn N(0, I)
      instead of N(0, I/M);
    * mean eigenvalue within a factor 3 of 1/M (M ≥ 16): perturbations scaled twice by 1/√M;
      (for M < 16 the factor M is not separable from ordinary tracking noise — adaptive
      play concentrates the data on few directions, where the error fluctuates by
      ≈ √(2/M) — and only the generic tracking-error message can fire);
    * tracking error above ``tol`` (default ``2·√(d/M) + d/M + 0.5``, a generous
      multiple of the random-start level; OPEN constant, keyword).
    """
    Sigma = check_finite_array("Sigma", Sigma, ndim=2)
    A = check_finite_array("A", A, ndim=2)
    d, M = A.shape
    if Sigma.shape != (d, d):
        raise ValueError(f"Sigma must have shape ({d}, {d}) to match A {A.shape}, got {Sigma.shape}")
    L = _chol_or_raise(Sigma)
    Wm = np.linalg.solve(L, A)
    ev = np.linalg.eigvalsh(Wm @ Wm.T)
    err = float(max(abs(ev[0] - 1.0), abs(ev[-1] - 1.0)))
    sv = np.linalg.svd(Wm, compute_uv=False)
    rank = int(np.sum(sv > sv.max(initial=0.0) * max(d, M) * np.finfo(float).eps)) if sv.size else 0
    mean_ev = float(ev.mean())
    problems = []
    if rank < d:
        problems.append(f"A Aᵀ has rank {rank} < d = {d}"
                        + (f" because M = {M} < d" if M < d else "")
                        + f": posterior samples never move in {d - rank} direction(s); "
                        "exploration there is absent and regret grows linearly in them")
    if M >= 16 and abs(math.log(mean_ev / M)) < math.log(3.0):
        problems.append(f"A Aᵀ ≈ {mean_ev:.3g}·Σ ≈ M·Σ (M = {M}): perturbations were drawn with "
                        "E zzᵀ = I instead of I/M (or the start B was not scaled by 1/√M)")
    elif M >= 16 and abs(math.log(mean_ev * M)) < math.log(3.0):
        problems.append(f"A Aᵀ ≈ {mean_ev:.3g}·Σ ≈ Σ/M (M = {M}): perturbations scaled by 1/M "
                        "instead of 1/√M")
    thr = (2.0 * math.sqrt(d / M) + d / M + 0.5) if tol is None else check_real("tol", tol, lo=0.0)
    if err > thr and rank == d and not problems:
        problems.append(f"tracking error ‖Σ^(-1/2) A Aᵀ Σ^(-1/2) − I‖ = {err:.3g} exceeds "
                        f"{thr:.3g}; eigenvalues in [{ev[0]:.3g}, {ev[-1]:.3g}] — check that each "
                        "z_t is fresh and drawn after x_t is chosen (predictability)")
    return FactorDiagnosis(error=err, eig_min=float(ev[0]), eig_max=float(ev[-1]),
                           eig_mean=mean_ev, rank=rank, d=d, M=M, problems=tuple(problems))


def checked_cholesky(matrix, *, name: str = "matrix", dtype=np.float64, rtol: float = 1e-3):
    r"""Lower Cholesky factor of a symmetric positive-definite matrix, *checked*.

    The check is the one that matters for sampling: a sample
    :math:`\mu + Lg` has covariance :math:`LL^\top`, which must match Σ in
    *every* direction, i.e. :math:`\|L^{-1}\Sigma L^{-\top} - I\|_{op} \le` ``rtol``
    (computed in float64).  Raises ``RuntimeError`` with a diagnosis when the
    factorisation fails or the check does not pass — the float32 failure
    mode of spec §4 item 3: the square root of an ill-conditioned Σ_t in
    float32 fails or is wrong in the small-variance directions; use float64
    and a Cholesky factor of the precision.
    """
    S = np.asarray(matrix, dtype=np.float64)
    dt = np.dtype(dtype)
    try:
        L = np.linalg.cholesky(S.astype(dt))
    except np.linalg.LinAlgError:
        ev = np.linalg.eigvalsh(S)
        kappa = ev[-1] / ev[0] if ev[0] > 0 else math.inf
        raise RuntimeError(
            f"Cholesky of {name} failed in {dt.name}: smallest eigenvalue {ev[0]:.3e}, "
            f"condition number {kappa:.3e}"
            + (" exceeds 1/eps of this precision" if kappa * np.finfo(dt).eps > 1 else "")
            + "; the matrix is not (numerically) positive definite. Use float64 and a Cholesky "
            "factor of the precision Σ⁻¹.") from None
    L64 = L.astype(np.float64)
    if not np.all(np.isfinite(L64)) or np.any(np.diag(L64) <= 0):
        raise RuntimeError(f"Cholesky of {name} in {dt.name} returned a non-finite or singular "
                           "factor. Use float64 and a Cholesky factor of the precision Σ⁻¹.")
    Wm = np.linalg.solve(L64, S)
    E = np.linalg.solve(L64, Wm.T)
    err = float(np.max(np.abs(np.linalg.eigvalsh(0.5 * (E + E.T)) - 1.0)))
    if not err <= rtol:
        ev = np.linalg.eigvalsh(S)
        raise RuntimeError(f"Cholesky of {name} in {dt.name} is wrong by a factor up to "
                           f"{1 + err:.3g} in some direction (‖L⁻¹ΣL⁻ᵀ − I‖ = {err:.3e} > {rtol:g}; "
                           f"condition number {ev[-1] / max(ev[0], np.finfo(float).tiny):.3e}): too "
                           "ill-conditioned for this precision. Use float64 and a Cholesky factor "
                           "of the precision Σ⁻¹.")
    return L64


def anticoncentration(ens: LinearEnsemblePP, u, rng, *, n: int = 4000) -> float:
    r"""Monte Carlo :math:`P(u^\top(\tilde\theta-\mu) \ge \sqrt{u^\top\Sigma u})`, the
    optimism probability (Gaussian / exact TS: :math:`1-\Phi(1) = 0.1587`).
    A one-hot index at small M takes only M values, so this can be 0 in
    some directions: anti-concentration fails (spec §4 item 3)."""
    u = check_finite_array("u", u, ndim=1)
    if u.shape != (ens.d,):
        raise ValueError(f"u must have shape ({ens.d},), got {u.shape}")
    th = ens.sample_many(rng, check_int("n", n, lo=1)) - ens.mean[None, :]
    sd = math.sqrt(float(u @ ens.cov @ u))
    return float(np.mean(th @ u >= sd))


# ---------------------------------------------------------------------------
# HyperAgent linear hypermodel trained by SGD
# ---------------------------------------------------------------------------

class LinearHypermodel:
    r"""HyperAgent's linear hypermodel :math:`\theta(\xi) = (W\xi + b) + (A_0\xi + \mu_0)`
    with frozen prior :math:`(A_0, \mu_0)`, trained by (stochastic) gradient
    descent on the symmetrised Ensemble++ loss (spec ``ensemble.md`` §2–3):

    .. math::

        L(W, b) = \frac1n\,\mathbb E_\xi\Big[\sum_s \frac{(y_s + \sigma z_s^\top\xi
        - x_s^\top\theta(\xi))^2}{\sigma^2} + \|W\xi + b\|^2_{\Sigma_0^{-1}}\Big].

    With :math:`\mathbb E\xi = 0,\ \mathbb E\xi\xi^\top = I` its minimiser is the
    closed form of :class:`LinearEnsemblePP`: :math:`\mu_0 + b = \mu_t`,
    :math:`A_0 + W = A_t` (DERIVED).  The expectation over ξ is either the
    exact symmetric set :math:`\{\pm\sqrt M e_i\}` (``n_indices=None``, exact
    gradients) or ``n_indices`` sampled Gaussian indices per step, each used
    with its mirror −ξ (symmetrisation; unbiased gradients).

    Parameters: ``d``, ``M``, ``prior_var`` (s_0), ``noise_sd`` (σ, the
    :math:`\sigma_\omega` of HyperAgent), ``prior_factor`` A_0 (``d × M``),
    ``prior_mean`` μ_0.  See "HyperAgent" (arXiv 2402.10228), §3; the code
    of HyperDQN/HyperAgent (CONFIRMED).
    """

    def __init__(self, d, M, *, prior_var=1.0, noise_sd=1.0, prior_factor, prior_mean=None):
        self.d = check_int("d", d, lo=1)
        self.M = check_int("M", M, lo=1)
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
        (``(k, M)``, weights 1/k) on the stored rows (all, or ``rows``)."""
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
        steps = check_int("steps", steps, lo=0)
        if n_indices is not None:
            n_indices = check_int("n_indices", n_indices, lo=1)
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
            batch_size = check_int("batch_size", batch_size, lo=1)
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


# ---------------------------------------------------------------------------
# covariance tracking under adaptive play (spec §4 item 1)
# ---------------------------------------------------------------------------

def sup_tracking_error(d, M, T, rng, *, K=100, index="gaussian", perturbation="gaussian",
                       init="random", prior_var=1.0, noise_sd=1.0, play="agent",
                       reuse_z=False, perturbation_scale=1.0, every=1):
    r"""``sup_{t ≤ T} ‖Σ_t^{-1/2} A_t A_tᵀ Σ_t^{-1/2} − I‖_op`` along one run (t = 0 included).

    Set-up of the spec's reference runs (§4.1): K arms uniform on the unit
    sphere (fixed), θ* ~ N(0, prior_var·I), σ = ``noise_sd``, and actions
    chosen adaptively by the Ensemble++ agent itself (``play="agent"``:
    :math:`x_t = \arg\max_x x^\top(\mu_{t-1} + A_{t-1}\zeta_t)`, predictable).

    Failure-mode switches (spec §4 item 3): ``play="lookahead"`` draws
    :math:`z_t` *before* choosing :math:`x_t` and picks the arm maximising
    :math:`x^\top P_{t-1}z_t` (:math:`P = \Sigma^{-1}A`), breaking
    predictability; ``reuse_z=True`` reuses the first perturbation for every
    update; ``perturbation_scale`` rescales z and B (√M = "N(0, I) instead of
    N(0, I/M)").  ``every`` evaluates the error every ``every`` rounds (1 =
    exact sup).  Returns a float.
    """
    d = check_int("d", d, lo=1)
    M = check_int("M", M, lo=1)
    T = check_int("T", T, lo=0)
    K = check_int("K", K, lo=1)
    every = check_int("every", every, lo=1)
    check_choice("play", play, ("agent", "lookahead"))
    rng = as_generator(rng)
    with single_threaded_blas():
        return _sup_tracking_error(d, M, T, rng, K, index, perturbation, init, prior_var, noise_sd,
                                   play, reuse_z, perturbation_scale, every)


def _sup_tracking_error(d, M, T, rng, K, index, perturbation, init, prior_var, noise_sd, play,
                        reuse_z, perturbation_scale, every):
    ens = LinearEnsemblePP(d, M, prior_var=prior_var, noise_sd=noise_sd, index=index,
                           perturbation=perturbation, init=init, rng=rng,
                           perturbation_scale=perturbation_scale)
    arms = rng.standard_normal((K, d))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    theta = math.sqrt(prior_var) * rng.standard_normal(d)
    sup = tracking_error(ens.cov, ens.factor)
    z_fixed = None
    for t in range(1, T + 1):
        z = None
        if play == "lookahead":
            z = sample_perturbation(perturbation, M, rng)
            P = np.linalg.solve(ens.cov, ens.factor)
            x = arms[int(np.argmax(arms @ (P @ z)))]
        else:
            x = arms[int(np.argmax(arms @ ens.sample(rng)))]
        if reuse_z:
            if z_fixed is None:
                z_fixed = sample_perturbation(perturbation, M, rng)
            z = z_fixed
            ens._seen_z.clear()  # deliberate misuse for the failure-mode demonstration
        y = float(x @ theta) + noise_sd * float(rng.standard_normal())
        ens.update(x, y, z=z)
        if t % every == 0 or t == T:
            sup = max(sup, tracking_error(ens.cov, ens.factor))
    return sup
