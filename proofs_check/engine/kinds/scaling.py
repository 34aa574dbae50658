"""Scaling claims: a quantity grows like ``x**a`` with ``a`` in a window
(``docs/theory/engine.md`` §1–2, §2.5).

* user function: ``fn(rng, n) -> (n, len(x))`` array, ``n`` replicates of the
  quantity on the grid ``x``;
* chunk statistics: the ``n·len(x)`` values, flattened (NaN marks a censored one);
* decision: ``deterministic=True``: the least-squares log–log slope of the
  exactly computed curve, in the window or not (guarantee ``"deterministic"``),
  after checking that replicates drawn from two independent streams agree
  bitwise (else ``ValueError``); random replicates (at least two): the slope of
  the declared ``estimand`` with a Student-t interval over replicates
  (guarantee ``"asymptotic"``) — ``"mean"``: the slope of ``log E y``, by the
  delta method; ``"log-mean"``: the slope of ``E log y``, the mean
  per-replicate slope.  Replicates with no spread at all never decide a
  random claim (inconclusive).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, ClassVar, Sequence

import numpy as np

from ..claims import Claim
from ..results import Result, fmt, summary_number
from ..stats import sample_skewness, t_interval

__all__ = ["ESTIMANDS", "ScalingClaim", "ScalingResult", "scaling_stats"]

#: What the exponent of a random scaling claim is the exponent *of*
#: (``docs/theory/engine.md`` §2.5); the words name it in every result.
ESTIMANDS = {
    "mean": "the slope of log E y (the exponent of the mean)",
    "log-mean": "the slope of E log y (the mean per-replicate exponent)",
}
#: The decision of each estimand (random replicates); both are fixed-sample t-intervals.
_DECISIONS = {"mean": "delta-mean", "log-mean": "t-slopes"}


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
    cover the asymptotic regime.  With ``ℓ_i = log x_i`` the least-squares
    weights are ``w_i = (ℓ_i − ℓ̄)/Σ_j (ℓ_j − ℓ̄)²``, so a slope is ``Σ_i w_i v_i``
    for the values ``v_i`` on log axes (``docs/theory/engine.md`` §2.5).

    * ``deterministic=True`` (an exactly computed quantity, independent of
      ``rng``): two chunks are run whatever the budget, from two independent
      streams (``SeedSequence(seed, spawn_key=(k,))``, ``k = 0, 1``), and every
      replicate must agree **bitwise** with the first — a quantity that does
      not read its generator cannot differ, so a difference proves it is
      random and raises ``ValueError`` naming the claim.  The exponent is the
      least-squares slope of ``log y`` on ``log x``; the verdict says whether
      it lies in the window, with no interval (guarantee ``"deterministic"``).
    * random replicates (at least two are run), by the declared ``estimand``:

      - ``"mean"`` (the default): the slope of ``log E y``.  Estimate
        ``b̂ = Σ_i w_i log ȳ_i``; by the delta method (van der Vaart,
        *Asymptotic Statistics*, 1998, §3.1) ``b̂ − b ≈ (1/R) Σ_r z_r`` with the
        replicate's influence ``z_r = Σ_i w_i (y_ri/ȳ_i − 1)``, which keeps the
        correlation of one replicate's grid points; interval
        ``b̂ ± t_{R−1, 1−α/2} s_z/√R``.  Zeros are allowed (``ȳ_i > 0`` is needed).
      - ``"log-mean"``: the slope of ``E log y`` = the mean of the
        per-replicate slopes ``s_r = Σ_i w_i log y_ri``, with the Student-t
        interval ``s̄ ± t_{R−1, 1−α/2} sd(s)/√R`` (exact for independent
        Gaussian slopes).  For a median-type statement: ``E log y`` and
        ``log median y`` have the same slope when ``log y`` has an
        ``x``-independent symmetric shape.

      Both intervals are asymptotic in ``R`` (guarantee ``"asymptotic"``).
      The two estimands agree when ``y = c(x)·ε`` with an ``x``-independent
      law of ``ε``; they differ when the spread of ``log y`` changes along the
      grid (then ``E log y`` has slope ``b − ½ d Var(log y)/d log x`` for
      lognormal ``y``).
    * ties: if the replicates' influence values (``z_r`` or ``s_r``) have no
      spread at all, the verdict is **inconclusive**, never decided as if
      the quantity were deterministic: ``R`` equal draws happen with
      probability ``≥ α`` for any law that puts mass ``≥ α^{1/R}`` on one
      value, so they cannot bound the mean of a law that may put the rest
      anywhere (Bahadur & Savage, Ann. Math. Stat. 1956).
    """

    kind: ClassVar[str] = "scaling"
    fixed_sample_decisions: ClassVar[tuple[str, ...]] = tuple(_DECISIONS.values())
    _callables: ClassVar[tuple[str, ...]] = ("fn",)
    fn: Callable[[np.random.Generator, int], np.ndarray] | None = None
    x: Sequence[float]
    exponent_lo: float = -math.inf
    exponent_hi: float = math.inf
    deterministic: bool = False
    estimand: str = "mean"
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
        if not isinstance(self.deterministic, (bool, np.bool_)):
            raise TypeError(f"claim {self.id}: deterministic must be True or False, got {self.deterministic!r}")
        if self.estimand not in ESTIMANDS:
            raise ValueError(f"claim {self.id}: estimand must be one of {tuple(ESTIMANDS)} "
                             f"('mean': slope of log E y; 'log-mean': slope of E log y), got {self.estimand!r}")

    def _fingerprint_extra(self) -> dict:
        extra = {"x": [float(v) for v in self.x], "deterministic": bool(self.deterministic),
                 "window": [float(self.exponent_lo), float(self.exponent_hi)]}
        if not self.deterministic:                # the estimand decides a random claim only
            extra["estimand"] = self.estimand
        return extra

    def stats_function(self):
        return functools.partial(scaling_stats, len(self.x))

    @staticmethod
    def check_stats(stats, chunk_size):
        if not stats or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in stats):
            return "scaling statistics must be a non-empty list of numbers"
        return None

    def decision_method(self, method):
        return "deterministic" if self.deterministic else _DECISIONS[self.estimand]

    def planned_chunks(self, n_chunks):
        """Two chunks when deterministic (two independent streams, compared
        bitwise), else enough for at least two replicates."""
        return 2 if self.deterministic else max(n_chunks, math.ceil(2 / self.chunk_size))

    def _window_verdict(self, lo, hi) -> str:
        if self.exponent_lo <= lo and hi <= self.exponent_hi:
            return "holds"
        if hi < self.exponent_lo or lo > self.exponent_hi:
            return "refuted"
        return "inconclusive"

    def _check_reproducible(self, y: np.ndarray) -> None:
        """``ValueError`` unless every replicate equals the first bitwise (the
        replicates come from at least two independent streams)."""
        bits = np.ascontiguousarray(y).view(np.int64)
        differ = np.flatnonzero(np.any(bits != bits[0], axis=1))
        if differ.size:
            r = int(differ[0])
            i = int(np.flatnonzero(bits[r] != bits[0])[0])
            raise ValueError(
                f"claim {self.id}: declared deterministic=True, but its replicates differ: replicate {r} "
                f"(chunk {r // self.chunk_size}, another random stream) gives y = {y[r, i]!r} at "
                f"x = {self.x[i]!r}, replicate 0 gives {y[0, i]!r} ({differ.size} of {y.shape[0] - 1} "
                f"replicates differ). An exactly computed quantity must not depend on its generator: "
                f"make fn ignore rng, or declare the claim random (deterministic=False) with "
                f"estimand='mean' (slope of log E y) or 'log-mean' (slope of E log y)")

    def decide(self, prefix, alpha, method, n_chunks, common):
        x = np.asarray(self.x, dtype=float)
        y = np.concatenate([np.asarray(s, dtype=float) for s in prefix]).reshape(-1, x.size)
        R = y.shape[0]
        deterministic = bool(self.deterministic)
        if deterministic:
            self._check_reproducible(y)
        mean = y.mean(axis=0)
        se = y.std(axis=0, ddof=1) / math.sqrt(R) if R > 1 else np.full_like(mean, math.nan)
        lx = np.log(x)
        distinct = len({row.tobytes() for row in y})
        base = dict(elapsed_s=0.0, x=tuple(x.tolist()), y_mean=tuple(mean.tolist()),
                    y_se=tuple(se.tolist()), replicates=R, exponent_lo=self.exponent_lo,
                    exponent_hi=self.exponent_hi, distinct_replicates=distinct,
                    estimand="exact" if deterministic else self.estimand)
        by_mean = not deterministic and self.estimand == "mean"
        bad_mask = ~np.isfinite(y) | ((y < 0) if by_mean else (y <= 0))
        bad = int(np.sum(bad_mask))
        if bad or (by_mean and np.any(mean <= 0)):
            why = (f"{bad} value(s) are not finite and {'≥ 0' if by_mean else 'positive'} (censored or "
                   f"undefined): no exponent is fitted" if bad else
                   "the mean is 0 at some grid point: log E y is undefined, no exponent is fitted")
            return ScalingResult(**common, **base, verdict="inconclusive",
                                 guarantee="deterministic" if deterministic else "asymptotic",
                                 warnings=(why,), exponent=math.nan,
                                 exponent_ci=None if deterministic else (math.nan, math.nan),
                                 deterministic=deterministic)
        xc = lx - lx.mean()
        w = xc / float(xc @ xc)                  # least-squares weights on log axes
        warnings = []
        if deterministic:
            ly0 = np.log(y[0])
            slope = float(w @ ly0)
            local = tuple(float(v) for v in np.diff(ly0) / np.diff(lx))
            verdict = "holds" if self.exponent_lo <= slope <= self.exponent_hi else "refuted"
            if local and not (self.exponent_lo <= local[-1] <= self.exponent_hi):
                warnings.append(f"the last local slope {local[-1]:.4g} lies outside the window: the "
                                f"asymptotic exponent may differ from the fit over the grid")
            return ScalingResult(**common, **base, verdict=verdict, guarantee="deterministic",
                                 warnings=tuple(warnings), exponent=slope,
                                 exponent_ci=None, deterministic=True, local_exponents=local)
        if by_mean:
            est = float(w @ np.log(mean))
            influence = (y / mean - 1.0) @ w     # delta method: b̂ − b ≈ mean of these
        else:
            influence = np.log(y) @ w            # per-replicate slopes
            est = float(influence.mean())
        sd = float(influence.std(ddof=1)) if R > 1 else math.nan
        if R < 2 or not sd > 1e-12 * max(1.0, abs(est)):
            tie = (f"all {R} replicates give the same exponent (no spread): a sample with no spread "
                   f"cannot bound the {ESTIMANDS[self.estimand].split(' (')[0]} — a law that puts mass "
                   f"≥ α^(1/R) on one value repeats it R times with probability ≥ α, whatever it puts "
                   f"elsewhere. Inconclusive. If the quantity is computed exactly (it ignores rng), "
                   f"declare deterministic=True (checked: two independent streams must agree bitwise)"
                   if R >= 2 else f"only {R} replicate: no interval")
            return ScalingResult(**common, **base, verdict="inconclusive", guarantee="asymptotic",
                                 warnings=(tie,), exponent=est, exponent_ci=(-math.inf, math.inf),
                                 deterministic=False)
        lo, hi = t_interval(est, sd, R, alpha)
        verdict = self._window_verdict(lo, hi)
        if R < 5:
            warnings.append(f"only {R} replicates: the t-interval is exact only for Gaussian "
                            f"{'influence values' if by_mean else 'slopes'}")
        if by_mean and R >= 10 and abs(sample_skewness(influence)) > 1:
            warnings.append(f"the replicates' contributions to the exponent of E y are skewed (sample "
                            f"skewness {sample_skewness(influence):.2g}): the mean of a right-skewed "
                            f"quantity is often underestimated at {R} replicates and the delta-method "
                            f"interval may undercover; more replicates, or estimand='log-mean' if the "
                            f"statement is about typical (median-like) values")
        if distinct < R:
            warnings.append(f"only {distinct} distinct replicates among {R}: the measurement is discrete "
                            f"(quantised); the t-interval over replicates is a large-R approximation")
        return ScalingResult(**common, **base, verdict=verdict, guarantee="asymptotic",
                             warnings=tuple(warnings), exponent=est,
                             exponent_ci=(lo, hi), deterministic=False)


@dataclass(frozen=True, kw_only=True, repr=False)
class ScalingResult(Result, kind="scaling"):
    """``y ∝ x^a``: the fitted exponent, its interval and the data.

    ``estimand`` says what the exponent is the exponent *of* (:data:`ESTIMANDS`, or
    ``"exact"`` for a deterministic curve; random records written before it existed
    were ``"log-mean"``); ``distinct_replicates``
    counts the bitwise-distinct replicates (0: not recorded)."""

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
    estimand: str = "log-mean"
    distinct_replicates: int = 0

    @property
    def _of(self) -> str:
        """What the exponent is of, in a few symbols."""
        if self.deterministic:
            return "y"
        return {"mean": "E y", "log-mean": "E log y"}.get(self.estimand, self.estimand)

    @property
    def tied(self) -> bool:
        """Random replicates whose exponents had no spread at all (decided inconclusive,
        with an unbounded interval)."""
        ci = self.exponent_ci
        return (not self.deterministic and self.replicates >= 2 and ci is not None
                and math.isfinite(self.exponent) and ci[0] == -math.inf and ci[1] == math.inf)

    def summary(self) -> str:
        n = summary_number
        window = f"[{n(self.exponent_lo)}, {n(self.exponent_hi)}]"
        if self.deterministic:
            local = (f"; local slopes {n(min(self.local_exponents))}…{n(max(self.local_exponents))}"
                     if self.local_exponents else "")
            return (f"exponent {n(self.exponent)} (exact fit over the grid, {self.replicates} runs agree "
                    f"bitwise{local}) vs {window}")
        ci = self.exponent_ci
        tied = ", no spread" if self.tied else ""
        return (f"exponent of {self._of} {n(self.exponent)} CI[{n(ci[0])}, {n(ci[1])}]"
                f" vs {window} ({self.replicates} replicates{tied})")

    def headline(self) -> str:
        return (f"exponent of {self._of} = {fmt(self.exponent)} vs window [{fmt(self.exponent_lo)}, "
                f"{fmt(self.exponent_hi)}]" + ("" if self.deterministic else f" ({self.replicates} replicates)"))

    def interval(self, level):
        if self.exponent_ci is None:
            return None
        how = {"mean": "delta-method t-CI", "log-mean": "t-CI"}.get(self.estimand, "t-CI")
        what = ESTIMANDS.get(self.estimand, "the exponent")
        return f"{level} {how} [{fmt(self.exponent_ci[0])}, {fmt(self.exponent_ci[1])}] for {what}"

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
        if self.tied:
            return (f"method, not budget: the {self.replicates} replicates give the same exponent, and no "
                    f"spread means no interval. If the quantity is computed exactly (fn ignores rng), "
                    f"declare deterministic=True (two independent streams are then checked to agree "
                    f"bitwise); if it is random with discrete outcomes, more replicates (a fresh run "
                    f"with a new seed) until they differ")
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
