"""Anytime-valid inference on a bounded mean by betting.

I. Waudby-Smith and A. Ramdas, "Estimating means of bounded random variables
by betting", JRSS-B 86 (2024) 1–27, §4 (predictable plug-in bets, "PrPl").

Observations ``x_i ∈ [lo, hi]`` are rescaled to ``y_i = (x_i − lo)/(hi − lo)``
in ``[0, 1]``; a candidate mean ``m`` becomes ``μ = (m − lo)/(hi − lo)``.
For the one-sided null ``E y ≥ μ`` the capital

.. math::
    K_t^-(μ) = \\prod_{i ≤ t} \\bigl(1 − λ_i (y_i − μ)\\bigr),
    \\quad 0 ≤ λ_i ≤ c/(1 − μ),

is a non-negative supermartingale under every distribution with mean ≥ μ
(``E[1 − λ(y − μ)] = 1 − λ(E y − μ) ≤ 1``); for ``E y ≤ μ`` the mirror
``K_t^+(μ) = Π(1 + λ_i (y_i − μ))``, ``0 ≤ λ_i ≤ c/μ``.  The bets are
predictable: ``λ̃_i = sqrt(2 log(2/α) / (σ̂²_{i−1} · i · log(i + 1)))`` with
``μ̂_i = (1/2 + Σ_{j≤i} y_j)/(i + 1)`` and
``σ̂²_i = (1/4 + Σ_{j≤i} (y_j − μ̂_j)²)/(i + 1)``, truncated at ``c = 1/2``
of the admissible range.  By Ville's inequality
``P(sup_t K_t ≥ 2/α) ≤ α/2`` under each null, so

* a claim ``E d < m`` is certified ("holds") once ``sup K^-(m) ≥ 2/α``, and
  refuted once ``sup K^+(m) ≥ 2/α``: with ``E d = m`` exactly (both nulls
  true) a decisive verdict has probability ≤ α, at any stopping time;
* ``{m : sup K^-(m) < 2/α and sup K^+(m) < 2/α}`` is a ``1 − α`` confidence
  sequence (the running intersection).

:class:`BettingState` keeps the capital at one ``m`` incrementally (chunk by
chunk, for early stopping); :func:`confidence_sequence` evaluates a grid.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["BettingState", "predictable_bets", "confidence_sequence", "stopped_log_capital"]

TRUNCATION = 0.5


def predictable_bets(y: np.ndarray, alpha: float, *, t0: int = 0, sum_y: float = 0.0,
                     sum_sq: float = 0.0) -> tuple[np.ndarray, float, float]:
    """Untruncated predictable bets ``λ̃_i`` for the values ``y`` that follow
    ``t0`` earlier values (whose running sums are ``sum_y`` and
    ``sum_sq = Σ (y_j − μ̂_j)²``).  Returns ``(λ̃, new_sum_y, new_sum_sq)``."""
    y = np.asarray(y, float)
    t = t0 + np.arange(1, y.size + 1, dtype=float)          # index i of each new value
    cy = sum_y + np.cumsum(y)
    mu_hat = (0.5 + cy) / (t + 1.0)                          # μ̂_i (uses y_i)
    csq = sum_sq + np.cumsum((y - mu_hat) ** 2)
    # σ̂²_{i−1}: the value before y_i
    prev_sq = np.concatenate(([sum_sq], csq[:-1]))
    var_prev = (0.25 + prev_sq) / t                          # (1/4 + Σ_{j<i})/((i−1)+1)
    lam = np.sqrt(2.0 * math.log(2.0 / alpha) / (var_prev * t * np.log(t + 1.0)))
    return lam, float(cy[-1]) if y.size else sum_y, float(csq[-1]) if y.size else sum_sq


def _log_capital_paths(y, lam, mu):
    """Running log-capital of both sides at rescaled mean(s) ``mu`` (shape (G,)):
    returns cumulative arrays of shape (n, G) for K^- and K^+."""
    mu = np.atleast_1d(np.asarray(mu, float))
    with np.errstate(divide="ignore"):
        lam_minus = np.minimum(lam[:, None], TRUNCATION / np.maximum(1.0 - mu, 1e-300)[None, :])
        lam_plus = np.minimum(lam[:, None], TRUNCATION / np.maximum(mu, 1e-300)[None, :])
    dev = y[:, None] - mu[None, :]
    lk_minus = np.cumsum(np.log1p(-lam_minus * dev), axis=0)
    lk_plus = np.cumsum(np.log1p(lam_plus * dev), axis=0)
    return lk_minus, lk_plus


class BettingState:
    """Incremental capital of both one-sided tests at one mean ``m``.

    ``update(x)`` consumes the next values in order; ``max_log_minus`` is
    ``log sup_t K_t^-(m)`` (evidence that ``E x < m``), ``max_log_plus``
    ``log sup_t K_t^+(m)`` (evidence that ``E x > m``).
    """

    def __init__(self, m: float, bounds: tuple[float, float], alpha: float):
        self.lo, self.hi = float(bounds[0]), float(bounds[1])
        self.mu = (float(m) - self.lo) / (self.hi - self.lo)
        if not 0.0 < self.mu < 1.0:
            raise ValueError(f"the tested mean {m!r} must lie strictly inside the bounds {bounds!r}")
        self.alpha = float(alpha)
        self.t = 0
        self.sum_y = 0.0
        self.sum_sq = 0.0
        self.log_minus = 0.0
        self.log_plus = 0.0
        self.max_log_minus = 0.0
        self.max_log_plus = 0.0

    def update(self, x) -> None:
        y = (np.asarray(x, float) - self.lo) / (self.hi - self.lo)
        if y.size == 0:
            return
        lam, self.sum_y, self.sum_sq = predictable_bets(y, self.alpha, t0=self.t, sum_y=self.sum_y,
                                                        sum_sq=self.sum_sq)
        lkm, lkp = _log_capital_paths(y, lam, self.mu)
        lkm, lkp = self.log_minus + lkm[:, 0], self.log_plus + lkp[:, 0]
        self.max_log_minus = max(self.max_log_minus, float(lkm.max()))
        self.max_log_plus = max(self.max_log_plus, float(lkp.max()))
        self.log_minus, self.log_plus = float(lkm[-1]), float(lkp[-1])
        self.t += y.size

    def decision(self) -> str | None:
        """``"less"`` / ``"greater"`` once one side's capital passed ``2/α``."""
        thr = math.log(2.0 / self.alpha)
        if self.max_log_minus >= thr:
            return "less"
        if self.max_log_plus >= thr:
            return "greater"
        return None


def _rejected(y, lam, mu: float, thr: float) -> bool:
    lkm, lkp = _log_capital_paths(y, lam, np.array([mu]))
    return bool(lkm.max() >= thr or lkp.max() >= thr)


def confidence_sequence(x, bounds: tuple[float, float], alpha: float,
                        grid: int = 401, tol: float = 1e-9) -> tuple[float, float]:
    """The ``1 − α`` betting confidence sequence for the mean after all of
    ``x`` (running intersection): the hull of the grid points not rejected,
    each end refined by bisection to ``tol`` (relative to the bounds' width)
    against its rejected neighbour."""
    lo, hi = float(bounds[0]), float(bounds[1])
    y = (np.asarray(x, float) - lo) / (hi - lo)
    if y.size == 0:
        return (lo, hi)
    lam, _, _ = predictable_bets(y, alpha)
    mu = np.linspace(0.0, 1.0, grid)[1:-1]
    thr = math.log(2.0 / alpha)
    inside = np.ones(mu.size, bool)
    step = max(1, int(2_000_000 // max(mu.size, 1)))         # bound memory: rows per block
    run_m = np.zeros(mu.size)
    run_p = np.zeros(mu.size)
    for start in range(0, y.size, step):
        lkm, lkp = _log_capital_paths(y[start:start + step], lam[start:start + step], mu)
        lkm += run_m
        lkp += run_p
        inside &= (lkm.max(axis=0) < thr) & (lkp.max(axis=0) < thr)
        run_m, run_p = lkm[-1], lkp[-1]
    if not inside.any():                  # narrower than the grid: bisect around the mean
        centre = float(np.clip(y.mean(), mu[0], mu[-1]))
        if _rejected(y, lam, centre, thr):
            return (lo + (hi - lo) * centre, lo + (hi - lo) * centre)
        a_in = b_in = centre
        a_out = float(mu[mu < centre][-1]) if np.any(mu < centre) else 0.0
        b_out = float(mu[mu > centre][0]) if np.any(mu > centre) else 1.0
    else:
        idx = np.flatnonzero(inside)
        a_in, b_in = float(mu[idx[0]]), float(mu[idx[-1]])
        a_out = float(mu[idx[0] - 1]) if idx[0] > 0 else 0.0
        b_out = float(mu[idx[-1] + 1]) if idx[-1] + 1 < mu.size else 1.0

    def refine(inner, outer):
        if outer in (0.0, 1.0) and not 0.0 < outer < 1.0:
            return outer                  # the bound itself: never rejected by construction
        while abs(outer - inner) > tol:
            mid = 0.5 * (inner + outer)
            if _rejected(y, lam, mid, thr):
                outer = mid
            else:
                inner = mid
        return outer

    return (lo + (hi - lo) * refine(a_in, a_out), lo + (hi - lo) * refine(b_in, b_out))


def stopped_log_capital(x, m: float, bounds: tuple[float, float], alpha: float) -> tuple[float, float]:
    """``(log K^-_τ(m), log K^+_τ(m))``: both capitals at the stopping time ``τ``,
    the first value at which either reaches ``2/α`` (else the last value).

    Each capital is a non-negative supermartingale with ``K_0 = 1`` under its
    null (``E d ≥ m`` for ``K^-``, ``E d ≤ m`` for ``K^+``), so by optional
    stopping ``E[K_τ] ≤ 1``: the stopped values are e-values (what
    :mod:`.multiplicity` feeds to e-BH; Wang & Ramdas 2022).  The running
    supremum that decides a verdict is not one."""
    lo, hi = float(bounds[0]), float(bounds[1])
    y = (np.asarray(x, float) - lo) / (hi - lo)
    if y.size == 0:
        return (0.0, 0.0)
    mu = (float(m) - lo) / (hi - lo)
    lam, _, _ = predictable_bets(y, alpha)
    lkm, lkp = _log_capital_paths(y, lam, np.array([mu]))
    lkm, lkp = lkm[:, 0], lkp[:, 0]
    thr = math.log(2.0 / alpha)
    hit = np.flatnonzero((lkm >= thr) | (lkp >= thr))
    t = int(hit[0]) if hit.size else y.size - 1
    return (float(lkm[t]), float(lkp[t]))
