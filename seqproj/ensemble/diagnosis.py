r"""Diagnosis of a posterior factor: what went wrong, in words (theory ``ensemble.md#failure-modes``).

* :func:`diagnose_factor` → :class:`FactorDiagnosis` — rank deficiency,
  perturbations off by a factor M (or 1/M), a tracking error above a generous
  threshold;
* :func:`checked_cholesky` — a Cholesky factor checked in every direction (the
  float32 square-root failure);
* :func:`anticoncentration` — the optimism probability of the sampler (the
  one-hot failure at small M).

The thresholds are keyword/OPEN constants of ours, not the paper's.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from proofs_check.engine import (as_generator, check_finite_array, check_instance, check_int,
                                          check_real, shown)

from ._limits import MAX_D, MAX_M, MAX_N, NotPositiveDefiniteError, check_cells
from .posterior_factor import LinearEnsemblePP
from .whitening import check_pair, is_symmetric, whitened_eigs

__all__ = ["FactorDiagnosis", "diagnose_factor", "default_tracking_threshold", "checked_cholesky",
           "anticoncentration"]


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


def default_tracking_threshold(d: int, M: int) -> float:
    r"""The generic tracking alarm :math:`2\sqrt{d/M} + d/M + 0.5`: the Marchenko–Pastur
    edge of a random start (:math:`2\sqrt{d/M} + d/M`) plus 0.5 (an OPEN constant of ours,
    fixed before any run)."""
    d = check_int("d", d, lo=1, hi=MAX_D)
    M = check_int("M", M, lo=1, hi=MAX_M)
    return 2.0 * math.sqrt(d / M) + d / M + 0.5


def diagnose_factor(Sigma, A, *, tol: float | None = None) -> FactorDiagnosis:
    r"""Diagnose :math:`A A^\top` against Σ (theory ``ensemble.md#failure-modes``).

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
      multiple of the random-start level, :func:`default_tracking_threshold`; OPEN
      constant, keyword).
    """
    Sigma, A = check_pair(Sigma, A)
    d, M = A.shape
    if M > MAX_M:
        raise ValueError(f"A must have at most {MAX_M} columns (the ensemble size M), got {M}")
    thr = default_tracking_threshold(d, M) if tol is None else check_real("tol", tol, lo=0.0)
    Wm, ev = whitened_eigs(Sigma, A)
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
    if M >= 16 and mean_ev > 0.0 and abs(math.log(mean_ev / M)) < math.log(3.0):
        problems.append(f"A Aᵀ ≈ {mean_ev:.3g}·Σ ≈ M·Σ (M = {M}): perturbations were drawn with "
                        "E zzᵀ = I instead of I/M (or the start B was not scaled by 1/√M)")
    elif M >= 16 and mean_ev > 0.0 and abs(math.log(mean_ev * M)) < math.log(3.0):
        problems.append(f"A Aᵀ ≈ {mean_ev:.3g}·Σ ≈ Σ/M (M = {M}): perturbations scaled by 1/M "
                        "instead of 1/√M")
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
    mode of theory ``ensemble.md#failure-modes``: the square root of an ill-conditioned Σ_t in
    float32 fails or is wrong in the small-variance directions; use float64
    and a Cholesky factor of the precision.

    ``matrix`` must be a finite symmetric square array (at most ``MAX_D`` rows),
    ``dtype`` ``float32`` or ``float64``, ``rtol`` ≥ 0.  The refusals of the
    check are :class:`NotPositiveDefiniteError` (a ``ValueError`` about
    ``matrix`` and, as before, a ``RuntimeError``).
    """
    check_instance("name", name, str)
    S = check_finite_array("matrix", matrix, ndim=2)
    if S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"matrix must be a non-empty square array, got shape {S.shape}")
    if S.shape[0] > MAX_D:
        raise ValueError(f"matrix must have at most {MAX_D} rows, got {S.shape[0]}")
    if not is_symmetric(S):
        raise ValueError("matrix must be symmetric, got an asymmetric array")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be numpy.float32 or numpy.float64, got {shown(dtype)}") from None
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be numpy.float32 or numpy.float64, got {shown(dtype)}")
    rtol = check_real("rtol", rtol, lo=0.0)
    if not np.all(np.abs(S) <= np.finfo(dt).max):
        raise ValueError(f"matrix has entries beyond the range of {dt.name}")
    try:
        L = np.linalg.cholesky(S.astype(dt))
    except np.linalg.LinAlgError:
        ev = np.linalg.eigvalsh(S)
        kappa = ev[-1] / ev[0] if ev[0] > 0 else math.inf
        raise NotPositiveDefiniteError(
            f"matrix: Cholesky of {name} failed in {dt.name}: smallest eigenvalue {ev[0]:.3e}, "
            f"condition number {kappa:.3e}"
            + (" exceeds 1/eps of this precision" if kappa * np.finfo(dt).eps > 1 else "")
            + "; the matrix is not (numerically) positive definite. Use float64 and a Cholesky "
            "factor of the precision Σ⁻¹.") from None
    L64 = L.astype(np.float64)
    if not np.all(np.isfinite(L64)) or np.any(np.diag(L64) <= 0):
        raise NotPositiveDefiniteError(f"matrix: Cholesky of {name} in {dt.name} returned a non-finite or singular "
                           "factor. Use float64 and a Cholesky factor of the precision Σ⁻¹.")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        Wm = np.linalg.solve(L64, S)
        E = np.linalg.solve(L64, Wm.T)
    if not np.all(np.isfinite(E)):
        err = math.inf
    else:
        err = float(np.max(np.abs(np.linalg.eigvalsh(0.5 * (E + E.T)) - 1.0)))
    if not err <= rtol:
        ev = np.linalg.eigvalsh(S)
        raise NotPositiveDefiniteError(f"matrix: Cholesky of {name} in {dt.name} is wrong by a factor up to "
                           f"{1 + err:.3g} in some direction (‖L⁻¹ΣL⁻ᵀ − I‖ = {err:.3e} > {rtol:g}; "
                           f"condition number {ev[-1] / max(ev[0], np.finfo(float).tiny):.3e}): too "
                           "ill-conditioned for this precision. Use float64 and a Cholesky factor "
                           "of the precision Σ⁻¹.")
    return L64


def anticoncentration(ens, u, rng, *, n: int = 4000) -> float:
    r"""Monte Carlo :math:`P(u^\top(\tilde\theta-\mu) \ge \sqrt{u^\top\Sigma u})`, the
    optimism probability (Gaussian / exact TS: :math:`1-\Phi(1) = 0.1587`).
    A one-hot index at small M takes only M values, so this can be 0 in
    some directions: anti-concentration fails (theory ``ensemble.md#failure-modes``).
    ``ens`` is a :class:`~seqproj.ensemble.LinearEnsemblePP`."""
    check_instance("ens", ens, LinearEnsemblePP)
    u = check_finite_array("u", u, ndim=1)
    if u.shape != (ens.d,):
        raise ValueError(f"u must have shape ({ens.d},), got {u.shape}")
    rng = as_generator(rng)
    n = check_int("n", n, lo=1, hi=MAX_N)
    check_cells("n samples of dimension d", n, max(ens.d, ens.M))
    with np.errstate(over="ignore", invalid="ignore"):
        var = float(u @ ens.cov @ u)
        proj = (ens.sample_many(rng, n) - ens.mean[None, :]) @ u
    if not (math.isfinite(var) and np.all(np.isfinite(proj))):
        raise ValueError("u is too large: uᵀΣu or the projected samples overflow float64")
    sd = math.sqrt(max(var, 0.0))
    return float(np.mean(proj >= sd))
