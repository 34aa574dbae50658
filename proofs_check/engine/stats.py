"""Statistics behind verdicts (spec ``verification.md`` §2).

* :func:`clopper_pearson` — exact binomial interval (``scipy.stats.binomtest``'s
  ``method='exact'``), used at a fixed budget.
* :func:`log_e_below` / :func:`log_e_above` — anytime-valid test
  supermartingales (truncated-beta mixtures of likelihood ratios against
  ``p = δ``).  By Ville's inequality ``P(sup_n E_n ≥ 1/a) ≤ a`` under the
  null, at every stopping time, so a run may stop at the first chunk where
  one of them crosses its threshold.
* :func:`t_interval` — interval on a mean, used for comparisons and slopes.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st
from scipy.special import betainc, betaincc, betaln

__all__ = ["clopper_pearson", "beta_prior", "log_e_below", "log_e_above", "anytime_decision",
           "trials_to_decide", "t_interval", "slope_interval"]


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided exact ``1 − α`` interval for a binomial proportion ``k/n``."""
    if n <= 0:
        return (0.0, 1.0)
    lo = 0.0 if k == 0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(_st.beta.isf(alpha / 2, k + 1, n - k))
    return (lo, hi)


def beta_prior(delta: float) -> tuple[float, float]:
    """Mixing prior ``Beta(a, b)`` with mean ``δ`` (``a = 1``, ``b = (1 − δ)/δ``, at least 1)."""
    return 1.0, max(1.0, (1.0 - delta) / delta)


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


def log_e_below(k: int, n: int, delta: float, a: float = 1.0, b: float | None = None) -> float:
    """log of the e-value certifying ``p < δ`` after ``k`` events in ``n`` trials.

    .. math::
        E = \\frac{B(k+a, n-k+b)\\, I_δ(k+a, n-k+b)}{B(a, b)\\, I_δ(a, b)}
            \\Big/ \\big(δ^k (1-δ)^{n-k}\\big)

    the likelihood ratio mixed over ``q ∈ [0, δ)`` with a truncated
    ``Beta(a, b)`` prior.  A supermartingale under every ``p ≥ δ``
    (DERIVED, verification.md §2).
    """
    if b is None:
        a, b = beta_prior(delta)
    return (betaln(k + a, n - k + b) + _log(betainc(k + a, n - k + b, delta))
            - betaln(a, b) - _log(betainc(a, b, delta))
            - k * math.log(delta) - (n - k) * math.log1p(-delta))


def log_e_above(k: int, n: int, delta: float, a: float = 1.0, b: float | None = None) -> float:
    """Mirror of :func:`log_e_below`: mixes over ``q ∈ (δ, 1]``; certifies ``p > δ``."""
    if b is None:
        a, b = beta_prior(delta)
    return (betaln(k + a, n - k + b) + _log(betaincc(k + a, n - k + b, delta))
            - betaln(a, b) - _log(betaincc(a, b, delta))
            - k * math.log(delta) - (n - k) * math.log1p(-delta))


def anytime_decision(k: int, n: int, delta: float, alpha: float) -> str | None:
    """``"holds"``/``"refuted"`` once an e-value passes ``2/α``, else ``None``.

    Each direction spends ``α/2``, so at ``p = δ`` (both nulls true) the
    probability of any verdict is at most ``α``.
    """
    thr = math.log(2.0 / alpha)
    if log_e_below(k, n, delta) >= thr:
        return "holds"
    if log_e_above(k, n, delta) >= thr:
        return "refuted"
    return None


def trials_to_decide(k: int, n: int, delta: float, alpha: float, power: float = 0.8) -> int | None:
    """Rough number of further trials after which a fixed-n interval would
    likely exclude δ, if the true p equals the current estimate; ``None`` if
    the estimate equals δ."""
    p = (k + 0.5) / (n + 1.0)
    if abs(p - delta) < 1e-15:
        return None
    z = _st.norm.isf(alpha / 2) + _st.norm.ppf(power)
    need = z * z * p * (1 - p) / (p - delta) ** 2
    return max(0, int(math.ceil(need - n)))


def t_interval(mean: float, sd: float, n: int, alpha: float) -> tuple[float, float]:
    """``mean ± t_{n−1, 1−α/2} sd/√n`` (``(−inf, inf)`` when ``n < 2``)."""
    if n < 2 or not np.isfinite(sd):
        return (-math.inf, math.inf)
    h = float(_st.t.isf(alpha / 2, n - 1)) * sd / math.sqrt(n)
    return (mean - h, mean + h)


def slope_interval(x, y, alpha: float) -> tuple[float, float, float]:
    """Least-squares slope of ``y`` on ``x`` and its ``1 − α`` t-interval."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = x.size
    xc = x - x.mean()
    sxx = float(xc @ xc)
    slope = float(xc @ (y - y.mean()) / sxx)
    if n < 3:
        return slope, -math.inf, math.inf
    resid = y - y.mean() - slope * xc
    se = math.sqrt(float(resid @ resid) / (n - 2) / sxx)
    h = float(_st.t.isf(alpha / 2, n - 2)) * se
    return slope, slope - h, slope + h
