"""Scaling claims: a quantity grows like ``x**a`` with ``a`` in a window
(``docs/theory/engine.md`` §1–2).

* user function: ``fn(rng, n) -> (n, len(x))`` array, ``n`` replicates of the
  quantity on the grid ``x``;
* chunk statistics: the ``n·len(x)`` values, flattened (NaN marks a censored one);
* decision: ``deterministic=True``: the least-squares log–log slope of one
  replicate, in the window or not (guarantee ``"deterministic"``); random
  replicates (at least two): the mean per-replicate slope with a Student-t
  interval (guarantee ``"asymptotic"``).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, ClassVar, Sequence

import numpy as np

from ..claims import Claim
from ..results import Result, fmt, summary_number
from ..stats import slope_interval, t_interval

__all__ = ["ScalingClaim", "ScalingResult", "scaling_stats"]


def scaling_stats(m, out, n):
    """The ``n × m`` values ``fn(rng, n)`` returned, flattened."""
    y = np.asarray(out, dtype=float)
    if y.shape != (n, m):
        raise ValueError(f"scaling measurement returned shape {y.shape}, expected {(n, m)}")
    return y.ravel().tolist()


@dataclass(frozen=True, kw_only=True)
class ScalingClaim(Claim):
    """A quantity grows like ``x**a`` with ``a`` in ``[exponent_lo, exponent_hi]``.

    ``x`` is the grid; ``fn(rng, n)`` returns an ``(n, len(x))`` array of ``n``
    independent replicates of the quantity on the grid.  Choose the grid to
    cover the asymptotic regime.

    * ``deterministic=True`` (an exactly computed quantity): one replicate is
      run whatever the budget; the exponent is the least-squares slope of
      ``log y`` on ``log x``; the verdict says whether it lies in the window,
      with no confidence interval (guarantee ``"deterministic"``).
    * random replicates (at least two are run): the exponent is the mean of
      the per-replicate log–log slopes, i.e. the slope of ``E log y``, with a
      Student-t interval over replicates (exact for Gaussian slopes, otherwise
      asymptotic; guarantee ``"asymptotic"``).  Replicates that come out
      identical are treated as deterministic, with a warning.
    """

    kind: ClassVar[str] = "scaling"
    fixed_sample_decisions: ClassVar[tuple[str, ...]] = ("t-slopes",)
    _callables: ClassVar[tuple[str, ...]] = ("fn",)
    fn: Callable[[np.random.Generator, int], np.ndarray] | None = None
    x: Sequence[float]
    exponent_lo: float = -math.inf
    exponent_hi: float = math.inf
    deterministic: bool = False
    chunk_size: int = 1
    default_budget: int = 10
    quick_budget: int = 3

    def __post_init__(self) -> None:
        super().__post_init__()
        x = np.asarray(self.x, dtype=float)
        if x.ndim != 1 or x.size < 3 or np.any(x <= 0):
            raise ValueError(f"claim {self.id}: x must be ≥ 3 positive grid points, got {self.x!r}")
        if not self.exponent_lo <= self.exponent_hi:
            raise ValueError(f"claim {self.id}: exponent_lo > exponent_hi")

    def _fingerprint_extra(self) -> dict:
        return {"x": [float(v) for v in self.x], "deterministic": bool(self.deterministic),
                "window": [float(self.exponent_lo), float(self.exponent_hi)]}

    def stats_function(self):
        return functools.partial(scaling_stats, len(self.x))

    @staticmethod
    def check_stats(stats, chunk_size):
        if not stats or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in stats):
            return "scaling statistics must be a non-empty list of numbers"
        return None

    def decision_method(self, method):
        return "deterministic" if self.deterministic else "t-slopes"

    def planned_chunks(self, n_chunks):
        """One replicate when deterministic, else at least two."""
        return 1 if self.deterministic else max(n_chunks, math.ceil(2 / self.chunk_size))

    def _window_verdict(self, lo, hi) -> str:
        if self.exponent_lo <= lo and hi <= self.exponent_hi:
            return "holds"
        if hi < self.exponent_lo or lo > self.exponent_hi:
            return "refuted"
        return "inconclusive"

    def decide(self, prefix, alpha, method, n_chunks, common):
        x = np.asarray(self.x, dtype=float)
        y = np.concatenate([np.asarray(s, dtype=float) for s in prefix]).reshape(-1, x.size)
        R = y.shape[0]
        mean = y.mean(axis=0)
        se = y.std(axis=0, ddof=1) / math.sqrt(R) if R > 1 else np.full_like(mean, math.nan)
        lx = np.log(x)
        base = dict(elapsed_s=0.0, x=tuple(x.tolist()), y_mean=tuple(mean.tolist()),
                    y_se=tuple(se.tolist()), replicates=R, exponent_lo=self.exponent_lo,
                    exponent_hi=self.exponent_hi)
        if np.any(~np.isfinite(y)) or np.any(y <= 0):
            bad = int(np.sum(~np.isfinite(y) | (y <= 0)))
            return ScalingResult(**common, **base, verdict="inconclusive",
                                 guarantee="deterministic" if self.deterministic else "asymptotic",
                                 warnings=(f"{bad} value(s) are not finite and positive (censored or "
                                           f"undefined): no exponent is fitted",),
                                 exponent=math.nan,
                                 exponent_ci=None if self.deterministic else (math.nan, math.nan),
                                 deterministic=bool(self.deterministic))
        ly = np.log(y)
        slopes = np.array([slope_interval(lx, row, alpha)[0] for row in ly])
        warnings = []
        deterministic = bool(self.deterministic)
        spread = float(np.ptp(slopes)) if R > 1 else 0.0
        if not deterministic and R > 1 and spread <= 1e-12 * max(1.0, float(np.abs(slopes).max())):
            deterministic = True
            warnings.append("all replicates give the same exponent: treated as deterministic "
                            "(declare deterministic=True)")
        if deterministic:
            slope = float(slopes[0])
            local = tuple(float(v) for v in np.diff(ly[0]) / np.diff(lx))
            verdict = "holds" if self.exponent_lo <= slope <= self.exponent_hi else "refuted"
            if local and not (self.exponent_lo <= local[-1] <= self.exponent_hi):
                warnings.append(f"the last local slope {local[-1]:.4g} lies outside the window: the "
                                f"asymptotic exponent may differ from the fit over the grid")
            return ScalingResult(**common, **base, verdict=verdict, guarantee="deterministic",
                                 warnings=tuple(warnings), exponent=slope,
                                 exponent_ci=None, deterministic=True, local_exponents=local)
        lo, hi = t_interval(float(slopes.mean()), float(slopes.std(ddof=1)), R, alpha)
        verdict = self._window_verdict(lo, hi)
        if R < 5:
            warnings.append(f"only {R} replicates: the t-interval is exact only for Gaussian slopes")
        return ScalingResult(**common, **base, verdict=verdict, guarantee="asymptotic",
                             warnings=tuple(warnings), exponent=float(slopes.mean()),
                             exponent_ci=(lo, hi), deterministic=False)


@dataclass(frozen=True, kw_only=True, repr=False)
class ScalingResult(Result, kind="scaling"):
    """``y ∝ x^a``: the fitted exponent, its interval and the data."""

    unit: ClassVar[str] = "replicates"

    x: tuple
    y_mean: tuple
    y_se: tuple
    replicates: int
    exponent: float
    exponent_ci: tuple[float, float] | None
    exponent_lo: float
    exponent_hi: float
    deterministic: bool = False
    local_exponents: tuple = ()

    def summary(self) -> str:
        n = summary_number
        window = f"[{n(self.exponent_lo)}, {n(self.exponent_hi)}]"
        if self.deterministic:
            local = (f"; local slopes {n(min(self.local_exponents))}…{n(max(self.local_exponents))}"
                     if self.local_exponents else "")
            return f"exponent {n(self.exponent)} (exact fit over the grid{local}) vs {window}"
        ci = self.exponent_ci
        return (f"exponent {n(self.exponent)} CI[{n(ci[0])}, {n(ci[1])}]"
                f" vs {window} ({self.replicates} replicates)")

    def headline(self) -> str:
        return (f"exponent = {fmt(self.exponent)} vs window [{fmt(self.exponent_lo)}, {fmt(self.exponent_hi)}]"
                + ("" if self.deterministic else f" ({self.replicates} replicates)"))

    def interval(self, level):
        if self.exponent_ci is None:
            return None
        return f"{level} t-CI [{fmt(self.exponent_ci[0])}, {fmt(self.exponent_ci[1])}] for the exponent"

    def _gap_to_window(self) -> float:
        e, lo, hi = self.exponent, self.exponent_lo, self.exponent_hi
        if lo <= e <= hi:
            return min(e - lo, hi - e)
        return lo - e if e < lo else e - hi

    def slack(self):
        out = []
        if math.isfinite(self.exponent):
            where = "inside" if self.exponent_lo <= self.exponent <= self.exponent_hi else "outside"
            out.append(f"exponent {where} the window, {fmt(self._gap_to_window(), 3)} from its nearest edge")
        if self.x:
            pts = ", ".join(f"{fmt(x)}: {fmt(y)}" + (f" ± {fmt(se, 2)}" if isinstance(se, float)
                                                      and math.isfinite(se) else "")
                            for x, y, se in list(zip(self.x, self.y_mean,
                                                     self.y_se or [math.nan] * len(self.x)))[:8])
            more = f" … ({len(self.x)} points)" if len(self.x) > 8 else ""
            out.append(f"measured mean at each grid point (x: y ± se): {pts}{more}")
        return out

    def budget_to_settle(self):
        if self.exponent_ci is None or not math.isfinite(self.exponent):
            return None
        lo, hi = self.exponent_ci
        if not (math.isfinite(lo) and math.isfinite(hi)) or self.replicates < 2:
            return None
        g = self._gap_to_window()
        if g <= 0:
            return None
        return self.whole_chunks(_t_replicates((hi - lo) / 2, self.replicates, g, self.alpha))

    def settle_advice(self):
        if self.verdict != "inconclusive":
            return None
        if not math.isfinite(self.exponent):
            return ("method, not budget: some measured values are censored or not positive, so no exponent "
                    "is fitted; widen the grid (e.g. the range of M searched) until every replicate "
                    "yields a value, or fit the censored values with a survival model")
        return self.budget_advice(self.budget_to_settle(),
                                  rule="Student-t half-width t·s/√N with the current sd s")


def _t_replicates(half_width: float, R: int, gap: float, alpha: float) -> int:
    """Replicates ``N`` at which a Student-t half-width ``t_{N−1}·s/√N`` falls
    below ``gap``, with ``s = half_width·√R / t_{R−1}`` the sample sd now (the
    quantile shrinks with ``N`` too, so plain ``1/√n`` scaling would overstate
    ``N`` for few replicates)."""
    from scipy.stats import t

    s = half_width * math.sqrt(R) / float(t.isf(alpha / 2, R - 1))

    def wide(n):                          # t_{n−1}·s/√n ≥ gap: decreasing in n
        return float(t.isf(alpha / 2, n - 1)) * s / math.sqrt(n) >= gap

    lo, hi = R, R + 1
    while wide(hi) and hi < 10 ** 15:
        lo, hi = hi, hi * 2
    while hi - lo > 1:                    # smallest n with a half-width below the gap
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if wide(mid) else (lo, mid)
    return hi
