r"""Whitening a factor by a covariance: :math:`\Sigma^{-1/2}A`, the helpers of tracking and diagnosis.

The tracking error (:mod:`.tracking`) and the diagnosis of a factor (:mod:`.diagnosis`)
both look at the eigenvalues of :math:`\Sigma^{-1/2}AA^\top\Sigma^{-1/2}`, computed as
:math:`L^{-1}AA^\top L^{-\top}` with :math:`LL^\top = \Sigma` (a similar matrix):

* :func:`check_pair` — a validated ``(Σ, A)``; :func:`is_symmetric` — symmetry up to round-off;
* :func:`whiten` — :math:`L^{-1}A`; :func:`whitened_eigs` — it and the eigenvalues above;
* :func:`pd_error` — the error raised when a covariance has lost positive definiteness
  (also by :class:`~seqproj.ensemble.LinearEnsemblePP`).
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import check_finite_array

from ._limits import MAX_D, NotPositiveDefiniteError

__all__ = ["pd_error", "is_symmetric", "check_pair", "whiten", "whitened_eigs"]


def pd_error(what: str, detail: str) -> NotPositiveDefiniteError:
    """The error for a covariance ``what`` that lost positive definiteness (``detail``: how)."""
    return NotPositiveDefiniteError(
        f"{what} has lost positive definiteness ({detail}). The Sherman–Morrison recursion "
        "accumulates round-off when Σ_t is very ill-conditioned (tiny noise_sd, huge prior_var "
        "or huge actions); refusing to sample from it. Rescale the problem, increase noise_sd, "
        "or maintain a Cholesky factor of the precision instead.")


def is_symmetric(S) -> bool:
    """Symmetric up to round-off (1e-6 of the largest entry: the inverse of an ill-conditioned
    matrix is asymmetric at that level; the Cholesky reads one triangle)."""
    return bool(np.max(np.abs(S - S.T), initial=0.0) <= 1e-6 * np.max(np.abs(S), initial=0.0))


def check_pair(Sigma, A):
    """Validated ``(Sigma, A)``: finite 2-d float arrays, Σ symmetric d × d, A d × M, bounded d."""
    Sigma = check_finite_array("Sigma", Sigma, ndim=2)
    A = check_finite_array("A", A, ndim=2)
    d, M = A.shape
    if d < 1 or M < 1:
        raise ValueError(f"A must have at least one row and one column, got shape {A.shape}")
    if d > MAX_D:
        raise ValueError(f"A must have at most {MAX_D} rows (the dimension d), got {d}")
    if Sigma.shape != (d, d):
        raise ValueError(f"Sigma must have shape ({d}, {d}) to match A {A.shape}, got {Sigma.shape}")
    if not is_symmetric(Sigma):
        raise ValueError("Sigma must be symmetric (a covariance), got an asymmetric matrix")
    return Sigma, A


def whiten(Sigma, A) -> np.ndarray:
    r""":math:`L^{-1}A` with :math:`LL^\top = \Sigma` (raises :class:`NotPositiveDefiniteError`,
    a ``ValueError`` and a ``RuntimeError``, if Σ is not PD)."""
    try:
        L = np.linalg.cholesky(Sigma)
    except np.linalg.LinAlgError:
        lam = float(np.linalg.eigvalsh(Sigma)[0])
        raise pd_error("Σ (argument Sigma)", f"Cholesky failed, smallest eigenvalue {lam:.3e}") from None
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        Wm = np.linalg.solve(L, A)
    if not np.all(np.isfinite(Wm)):
        raise ValueError("Sigma and A are too far apart in scale: Σ^(-1/2) A overflows float64")
    return Wm


def whitened_eigs(Sigma, A) -> tuple:
    """``(Wm, eigenvalues of Wm Wmᵀ)`` with ``Wm`` = :func:`whiten` ``(Sigma, A)``; refuses a
    product that overflows."""
    Wm = whiten(Sigma, A)
    with np.errstate(over="ignore", invalid="ignore"):
        G = Wm @ Wm.T
    if not np.all(np.isfinite(G)):
        raise ValueError("A is too large relative to Sigma: Σ^(-1/2) A Aᵀ Σ^(-1/2) overflows float64")
    return Wm, np.linalg.eigvalsh(G)
