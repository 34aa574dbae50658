"""Anytime-valid inference on a mean with a declared variance bound
(heavy tails, unbounded data): Catoni-style confidence sequences
(``docs/theory/engine.md`` §2.3b).

H. Wang and A. Ramdas, "Catoni-style confidence sequences for heavy-tailed
mean estimation", Stochastic Processes and their Applications (2023),
arXiv:2202.01250 (the Catoni-style supermartingale below and Ville's
inequality); the
influence function is O. Catoni's, "Challenging the empirical mean and
empirical variance: a deviation study", Ann. IHP Probab. Stat. 48 (2012).

Assumption (declared by the user; tested on the data by
:func:`variance_excess_log_e`, which can refute it but never confirm it): the observations ``x_i`` have
conditional mean ``μ`` and conditional variance at most ``σ²`` given the past,
``E[(x_i − μ)² | x_1 … x_{i−1}] ≤ σ²`` (for independent draws: ``Var x ≤ σ²``).
No bound on the values is needed.

With Catoni's widest influence function

.. math::
    ψ(u) = \\log(1 + u + u^2/2) \\ (u ≥ 0), \\qquad ψ(u) = −\\log(1 − u + u^2/2) \\ (u < 0),

which is increasing and satisfies ``−log(1 − u + u²/2) ≤ ψ(u) ≤ log(1 + u + u²/2)``
for every ``u`` (because ``(1 + u²/2)² − u² ≥ 1``), and deterministic
weights ``λ_i > 0``, put ``S_t(m) = Σ_{i≤t} ψ(λ_i (x_i − m))`` and
``V_t = σ² Σ_{i≤t} λ_i² / 2``.  Then

.. math::
    M_t^+ = \\exp(S_t(μ) − V_t), \\qquad M_t^- = \\exp(−S_t(μ) − V_t)

are non-negative supermartingales: ``E exp(ψ(λ(x − μ))) ≤ E[1 + λ(x − μ) +
λ²(x − μ)²/2] ≤ 1 + λ²σ²/2 ≤ exp(λ²σ²/2)``, and the same for ``−ψ``.  By
Ville's inequality each exceeds ``2/α`` at some ``t`` with probability at most
``α/2``.  Since ``S_t(m)`` decreases in ``m``:

* ``E x < m`` is certified ("less") once ``−S_t(m) − V_t ≥ log(2/α)`` at some
  ``t``: if ``μ ≥ m`` then ``−S_t(m) ≤ −S_t(μ)`` and ``M_t^-`` crossed ``2/α``;
* ``E x > m`` ("greater") once ``S_t(m) − V_t ≥ log(2/α)``, symmetrically;
* with ``μ = m`` a decisive answer has probability at most ``α``, at every
  stopping time;
* ``{m : |S_t(m)| < log(2/α) + V_t for every t so far}`` is a ``1 − α``
  confidence sequence (the running intersection), an interval ``[L, U]``
  found by bisection on the two monotone conditions.

The weights are the anytime schedule
``λ_i = sqrt(2 log(2/α) / (σ² · i · log(i + 1)))`` (the ``i log(i + 1)`` rate
of the predictable plug-in bets of Waudby-Smith & Ramdas, JRSS-B 2024, with
the variance known; a design choice: any deterministic positive sequence
keeps the guarantee, the choice only moves the width).

:class:`CatoniState` keeps the two statistics at one ``m`` incrementally
(chunk by chunk, for early stopping); :func:`catoni_confidence_sequence`
gives the interval after all the data.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["catoni_psi", "catoni_weights", "CatoniState", "catoni_confidence_sequence",
           "VARIANCE_CHECK_LEVEL", "variance_excess_log_e"]

#: Level of the check of a declared variance bound against the data
#: (:func:`variance_excess_log_e`): under ``Var x ≤ σ²`` and independent draws it
#: flags the bound with probability at most this, for every distribution.
VARIANCE_CHECK_LEVEL = 1e-3

#: The bets λ of the mixture in :func:`variance_excess_log_e` (fixed, equal weights).
_VARIANCE_BETS = 0.5 ** np.arange(1, 13)


def catoni_psi(u) -> np.ndarray:
    """Catoni's widest influence function ``ψ(u)`` (increasing, odd)."""
    u = np.asarray(u, float)
    a = np.abs(u)
    return np.sign(u) * np.log1p(a + 0.5 * a * a)


def _check(sigma2: float, alpha: float) -> tuple[float, float]:
    sigma2, alpha = float(sigma2), float(alpha)
    if not (math.isfinite(sigma2) and sigma2 > 0):
        raise ValueError(f"variance_bound must be a finite positive number, got {sigma2!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    return sigma2, alpha


def catoni_weights(t0: int, n: int, sigma2: float, alpha: float) -> np.ndarray:
    """``λ_i = sqrt(2 log(2/α) / (σ² i log(i + 1)))`` for ``i = t0 + 1 … t0 + n``."""
    sigma2, alpha = _check(sigma2, alpha)
    i = t0 + np.arange(1, n + 1, dtype=float)
    return np.sqrt(2.0 * math.log(2.0 / alpha) / (sigma2 * i * np.log1p(i)))


class CatoniState:
    """Incremental Catoni statistics at one mean ``m``.

    ``update(x)`` consumes the next values in order.  ``max_log_minus`` is
    ``sup_t (−S_t(m) − V_t)`` (evidence that ``E x < m``), ``max_log_plus``
    ``sup_t (S_t(m) − V_t)`` (evidence that ``E x > m``); both start at 0
    (``t = 0``).
    """

    def __init__(self, m: float, sigma2: float, alpha: float):
        self.sigma2, self.alpha = _check(sigma2, alpha)
        self.m = float(m)
        self.t = 0
        self.s = 0.0
        self.v = 0.0
        self.max_log_minus = 0.0
        self.max_log_plus = 0.0

    def update(self, x) -> None:
        x = np.asarray(x, float).ravel()
        if x.size == 0:
            return
        lam = catoni_weights(self.t, x.size, self.sigma2, self.alpha)
        s = self.s + np.cumsum(catoni_psi(lam * (x - self.m)))
        v = self.v + np.cumsum(0.5 * self.sigma2 * lam * lam)
        self.max_log_minus = max(self.max_log_minus, float(np.max(-s - v)))
        self.max_log_plus = max(self.max_log_plus, float(np.max(s - v)))
        self.s, self.v = float(s[-1]), float(v[-1])
        self.t += x.size

    def decision(self) -> str | None:
        """``"less"`` / ``"greater"`` once one side passed ``log(2/α)``; ``None``
        before, and ``None`` if both did (the confidence sequence is empty:
        a sign that the declared variance bound is false)."""
        thr = math.log(2.0 / self.alpha)
        less, greater = self.max_log_minus >= thr, self.max_log_plus >= thr
        if less and greater:
            return None
        return "less" if less else "greater" if greater else None

    @property
    def log_minus(self) -> float:
        """``−S_t(m) − V_t`` now: the log of ``M_t^-`` at ``m``, an e-value against
        ``E x ≥ m`` when read at a stopping time."""
        return -self.s - self.v

    @property
    def log_plus(self) -> float:
        """``S_t(m) − V_t`` now: the log e-value against ``E x ≤ m``."""
        return self.s - self.v

    @property
    def both_sides(self) -> bool:
        """Both sides passed ``log(2/α)``: no mean is consistent with the data
        and the declared variance bound."""
        thr = math.log(2.0 / self.alpha)
        return self.max_log_minus >= thr and self.max_log_plus >= thr


def _sup_excess(x, lam, v, m: float, sign: float) -> float:
    """``sup_t (sign · S_t(m) − V_t)`` over the whole path."""
    s = np.cumsum(catoni_psi(lam * (x - m)))
    return float(np.max(sign * s - v))


def catoni_confidence_sequence(x, sigma2: float, alpha: float,
                               rtol: float = 1e-9) -> tuple[float, float]:
    """The ``1 − α`` Catoni confidence sequence ``[L, U]`` for the mean after
    all of ``x`` (running intersection over every prefix).

    ``L`` is the root of the decreasing ``m ↦ sup_t (S_t(m) − V_t) − log(2/α)``
    and ``U`` that of the increasing ``m ↦ sup_t (−S_t(m) − V_t) − log(2/α)``,
    each bracketed by doubling steps of ``σ`` from the sample mean and bisected
    to ``rtol·σ`` (outward: the reported interval contains the exact one).
    Empty (``L > U``) only on the event the guarantee excludes; it is then
    returned as it is, ``L > U``.  ``(−inf, inf)`` for no data."""
    sigma2, alpha = _check(sigma2, alpha)
    x = np.asarray(x, float).ravel()
    if x.size == 0:
        return (-math.inf, math.inf)
    lam = catoni_weights(0, x.size, sigma2, alpha)
    v = np.cumsum(0.5 * sigma2 * lam * lam)
    c = math.log(2.0 / alpha)
    sd = math.sqrt(sigma2)
    centre = float(np.mean(x))

    def end(sign: float) -> float:
        # sign = +1: L (rejected below, accepted above); sign = −1: U (mirror).
        def rejected(m):
            return _sup_excess(x, lam, v, m, sign) >= c
        step = sd
        inner = centre
        if rejected(inner):                     # the centre itself is rejected by this side: walk inward
            outer = inner
            while rejected(inner):
                outer = inner
                inner = inner + sign * step
                step *= 2.0
        else:
            outer = inner - sign * step
            while not rejected(outer):
                inner = outer
                step *= 2.0
                outer = outer - sign * step
        while abs(outer - inner) > rtol * sd * max(1.0, abs(centre) / sd if sd > 0 else 1.0):
            mid = 0.5 * (inner + outer)
            if mid in (inner, outer):
                break
            if rejected(mid):
                outer = mid
            else:
                inner = mid
        return outer

    return (end(+1.0), end(-1.0))


def variance_excess_log_e(x, sigma2: float) -> tuple[float, float]:
    """Evidence against a declared variance bound ``Var x ≤ σ²``: the running
    supremum of the log of a test supermartingale, and the sample variance.

    The values are taken in disjoint consecutive pairs; for independent draws
    ``y_j = (x_{2j} − x_{2j−1})² / 2`` are independent, non-negative, with
    ``E y_j = Var x ≤ σ²`` whatever the mean.  For a bet ``λ ∈ [0, 1)``,
    ``Π_j (1 + λ (y_j/σ² − 1))`` is non-negative (``y ≥ 0``) and each factor has
    conditional mean ``1 + λ(Var x/σ² − 1) ≤ 1``: a test supermartingale (betting
    against the mean of a non-negative variable, Waudby-Smith & Ramdas 2024,
    ``docs/theory/engine.md`` §2.3b); so is the equal-weight mixture over the
    fixed bets ``λ = 2^{-1} … 2^{-12}``.  By Ville's inequality its supremum over
    the path passes ``1/u`` with probability at most ``u`` under the bound, for
    every distribution: the check "``sup ≥ log(1/VARIANCE_CHECK_LEVEL)``" is a
    false alarm with probability ≤ :data:`VARIANCE_CHECK_LEVEL`.  A bound that is
    false by a factor shows up once pairs with a large spread are seen (one
    pair at ``y = 1250 σ²`` multiplies the ``λ = 2^{-7}`` term by ≈ 10).
    Returns ``(sup_t log M_t, sample variance)``; ``(0, nan)`` for fewer than 2 values."""
    sigma2 = float(sigma2)
    if not (math.isfinite(sigma2) and sigma2 > 0):
        raise ValueError(f"variance_bound must be a finite positive number, got {sigma2!r}")
    x = np.asarray(x, float).ravel()
    m = x.size // 2 * 2
    if m < 2:
        return 0.0, math.nan
    y = 0.5 * (x[1:m:2] - x[0:m:2]) ** 2
    paths = np.cumsum(np.log1p(_VARIANCE_BETS[:, None] * (y[None, :] / sigma2 - 1.0)), axis=1)
    top = paths.max(axis=0)
    mix = top + np.log(np.mean(np.exp(paths - top[None, :]), axis=0))
    return max(0.0, float(mix.max())), float(np.var(x, ddof=1))
