"""Comparison claims: ``E[d] < threshold`` (or ``>``) for paired differences
(``docs/theory/engine.md`` §1–2).

* user function: ``fn(rng, n) -> (n,)`` differences ``d = metric_A − metric_B``
  drawn on common random numbers;
* chunk statistics: the ``n`` differences;
* decision, by what the claim declares (``docs/theory/engine.md`` §2.3–2.4):

  - ``bounds=(lo, hi)``: betting confidence sequences for a bounded mean
    (:mod:`..betting`, Waudby-Smith & Ramdas 2024; guarantee
    ``"anytime-valid"``, the run stops at the first chunk that decides);
  - ``variance_bound=σ²``: Catoni-style confidence sequences for a mean with
    a known variance bound, valid for unbounded, heavy-tailed differences
    (:mod:`..catoni`, Wang & Ramdas 2023; guarantee ``"anytime-valid"``);
  - neither: Hall's skewness-corrected t-interval (guarantee
    ``"asymptotic"``, no finite-sample guarantee — Bahadur & Savage 1956);
    every such result carries a warning, at every ``n``, and ``--fail-on``
    counts a decisive asymptotic verdict as not settled.

  Chunk means, and the means of blocks of consecutive differences within
  chunks, that vary more than independent draws allow draw a warning.

Declared premises are printed (issue 31): a result decided through a declared
``variance_bound`` carries ``premises = ("Var(D) ≤ v (declared)",)`` and says
"anytime-valid if Var(D) ≤ v (declared)" in its summary and headline; the
declaration is checked against the data (:func:`..catoni.variance_excess_log_e`,
false alarm ≤ 10⁻³) and a bound the data refute withholds the verdict.
``cluster=m`` declares that runs of ``m`` consecutive differences share
randomness: the decision then uses the ``n/m`` cluster means.  A *sign
comparison* (``functools.partial(sign_of, fn)``) is printed in its own terms,
``P(D > 0) − P(D < 0)``, never as a mean difference.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, ClassVar

import numpy as np

from ..betting import BettingState, confidence_sequence, stopped_log_capital
from ..catoni import (VARIANCE_CHECK_LEVEL, CatoniState, catoni_confidence_sequence,
                      variance_excess_log_e)
from ..claims import Claim, checked_cluster
from ..results import Result, fmt, summary_number
from ..stats import (DISPERSION_LEVEL, anova_dispersion_pvalue, block_dispersion_pvalue, block_size,
                     hall_interval, sample_skewness)

__all__ = ["ComparisonClaim", "ComparisonResult", "comparison_stats", "ASYMPTOTIC_WARNING", "sign_of",
           "is_sign_statistic", "default_statement", "variance_premise"]

#: The warning every comparison decided without bounds or a variance bound carries.
ASYMPTOTIC_WARNING = ("no bounds and no variance bound declared: Hall's interval is asymptotic only, with no "
                      "finite-sample guarantee at any n (Bahadur & Savage 1956: none is possible for an "
                      "unbounded mean), and on outliers or heavy tails its error can be many times α; "
                      "declare bounds=(lo, hi) or variance_bound=σ² for an anytime-valid verdict "
                      "(--fail-on counts this verdict as not settled)")


def sign_of(differences: Callable, *args, **kwargs) -> np.ndarray:
    """``sign(D)`` for every paired difference ``D = differences(*args, **kwargs)``: the
    statistic of a **sign comparison** (``functools.partial(sign_of, fn)`` in place of ``fn`` or
    ``reduce``, with ``bounds=(-1, 1)``).

    ``E sign(D) = P(D > 0) − P(D < 0)`` lies in ``[−1, 1]``, so the betting confidence sequence
    for a bounded mean decides ``E sign(D) > 0`` ("A beats B on more instances than the
    reverse", the paired sign test made anytime-valid; Waudby-Smith & Ramdas 2024) with no
    assumption on the tails of ``D``.  This is the honest route for a difference that has no
    almost-sure range and no useful variance bound (a regret under a Gaussian θ*: Bahadur &
    Savage 1956 rule out any finite-sample test of its mean); the claim then states a
    majority, not a mean (``docs/theory/engine.md`` §2.3c)."""
    d = np.asarray(differences(*args, **kwargs), dtype=float)
    if not np.all(np.isfinite(d)):
        raise ValueError("sign_of: the differences must be finite (a NaN has no sign)")
    return np.sign(d)


def is_sign_statistic(fn, _depth: int = 0) -> bool:
    """Whether ``fn`` computes :func:`sign_of` of the differences: ``fn`` is
    ``functools.partial(sign_of, …)``, or a partial whose function or arguments
    are (the declaration layer wraps the user's function in one, :mod:`proofs_check.declare`)."""
    if fn is sign_of:
        return True
    if _depth > 4 or not isinstance(fn, functools.partial):
        return False
    return any(is_sign_statistic(f, _depth + 1) for f in (fn.func, *fn.args) if callable(f))


def default_statement(fn, alternative: str, threshold: float, name: str) -> str:
    """The statement a comparison declared without one prints: ``E[name] < t``, and for a
    sign comparison (:func:`is_sign_statistic`) the majority it decides —
    "D > 0 on more instances than D < 0" at ``t = 0`` (``E sign(D) > 0`` ⇔
    ``P(D > 0) > P(D < 0)``, ``docs/theory/engine.md`` §2.3c), else
    "P(D > 0) − P(D < 0) > t"."""
    op = "<" if alternative == "less" else ">"
    if not is_sign_statistic(fn):
        return f"E[{name}] {op} {threshold:g}"
    if float(threshold) == 0.0:
        return ("D > 0 on more instances than D < 0" if alternative == "greater"
                else "D < 0 on more instances than D > 0")
    return f"P(D > 0) − P(D < 0) {op} {threshold:g}"


def variance_premise(variance_bound: float) -> str:
    """The premise of a verdict decided through a declared variance bound (the Catoni route)."""
    return f"Var(D) ≤ {variance_bound:.6g} (declared)"


def comparison_stats(bounds, out, n):
    """The ``n`` differences ``fn(rng, n)`` returned (finite, within ``bounds`` if declared)."""
    d = np.asarray(out, dtype=float).ravel()
    if d.shape != (n,):
        raise ValueError(f"comparison sampler returned {d.shape}, expected ({n},)")
    if not np.all(np.isfinite(d)):
        raise ValueError("comparison sampler returned non-finite differences")
    if bounds is not None:
        lo, hi = bounds
        bad = (d < lo) | (d > hi)
        if np.any(bad):
            raise ValueError(f"comparison sampler returned d = {float(d[bad][0])!r} outside the "
                             f"declared bounds [{lo}, {hi}]: fix the bounds or the sampler")
    return d.tolist()


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


@dataclass(frozen=True, kw_only=True)
class ComparisonClaim(Claim):
    """``E[d] < threshold`` (``alternative="less"``) or ``> threshold``
    (``"greater"``) for paired differences ``d = metric_A − metric_B`` drawn on
    common random numbers by ``fn(rng, n) -> (n,)``.

    * ``bounds=(lo, hi)`` declares that every difference lies in ``[lo, hi]``
      almost surely (a value outside raises ``ValueError``).  The verdict then
      comes from betting confidence sequences for a bounded mean
      (:mod:`..betting`): valid for every distribution on the bounds, at every
      stopping time (guarantee ``"anytime-valid"``), so the run stops at the
      first chunk that decides.
    * ``variance_bound=σ²`` declares ``Var d ≤ σ²`` (for independent draws;
      the values may be unbounded).  The verdict then comes from Catoni-style
      confidence sequences (:mod:`..catoni`, H. Wang & A. Ramdas 2023,
      "Catoni-style confidence sequences for heavy-tailed mean estimation"):
      valid for every distribution with that variance bound, at every stopping
      time (guarantee ``"anytime-valid"``), printed with its premise
      "anytime-valid if Var(D) ≤ σ² (declared)".  A false bound voids the
      guarantee: the bound is tested on the data (a test supermartingale on
      pairs of differences, :func:`..catoni.variance_excess_log_e`, false alarm
      ≤ 10⁻³ for every distribution that meets it), and a bound the data
      refute, or an empty confidence sequence, withholds the verdict; a sample
      variance above ``2σ²`` draws a warning.
    * neither: Hall's (1992) skewness-corrected t-interval on the mean
      (guarantee ``"asymptotic"``; never decisive on zero-variance data;
      always warned, :data:`ASYMPTOTIC_WARNING`).
    * ``cluster=m`` (a whole divisor of ``chunk_size``) declares that each run
      of ``m`` consecutive differences may share randomness, runs being
      independent of each other: every route above is then applied to the
      ``n/m`` run means (bounds hold for a mean of bounded values, and
      ``Var(mean of m) ≤ σ²`` when each ``Var d ≤ σ²``, by Cauchy–Schwarz).

    Premises the guarantee rests on are listed in the result's ``premises``
    and printed with it (issue 31): the declared variance bound, checked
    against the data (a bound the data refute at level
    :data:`..catoni.VARIANCE_CHECK_LEVEL` withholds the verdict), and the
    independence of the trials (checked on blocks of consecutive differences
    within chunks and across chunks; a warning when they disagree).
    """

    kind: ClassVar[str] = "comparison"
    fixed_sample_decisions: ClassVar[tuple[str, ...]] = ("hall",)
    _callables: ClassVar[tuple[str, ...]] = ("fn",)
    fn: Callable[[np.random.Generator, int], np.ndarray] | None = None
    threshold: float = 0.0
    alternative: str = "less"
    bounds: tuple[float, float] | None = None
    variance_bound: float | None = None
    cluster: int | None = None
    chunk_size: int = 100
    default_budget: int = 2_000
    quick_budget: int = 200

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.alternative not in ("less", "greater"):
            raise ValueError(f"claim {self.id}: alternative must be 'less' or 'greater', got {self.alternative!r}")
        if not math.isfinite(float(self.threshold)):
            raise ValueError(f"claim {self.id}: threshold must be finite, got {self.threshold!r}")
        if self.bounds is not None:
            try:
                lo, hi = (float(v) for v in self.bounds)
            except (TypeError, ValueError):
                raise ValueError(f"claim {self.id}: bounds must be a pair (lo, hi), got {self.bounds!r}") from None
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                raise ValueError(f"claim {self.id}: bounds must be finite with lo < hi, got {self.bounds!r}")
            if not lo < float(self.threshold) < hi:
                raise ValueError(f"claim {self.id}: threshold {self.threshold!r} must lie strictly inside "
                                 f"bounds {self.bounds!r}")
            object.__setattr__(self, "bounds", (lo, hi))
        if self.variance_bound is not None:
            if self.bounds is not None:
                raise ValueError(f"claim {self.id}: declare bounds or variance_bound, not both (bounds "
                                 f"{self.bounds!r} already give an anytime-valid verdict)")
            v = self.variance_bound
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (math.isfinite(v) and v > 0):
                raise ValueError(f"claim {self.id}: variance_bound must be a finite number > 0 (a bound on "
                                 f"Var d), got {v!r}")
            object.__setattr__(self, "variance_bound", float(v))
        if self.cluster is not None:
            object.__setattr__(self, "cluster", checked_cluster(self.id, self.cluster, self.chunk_size))

    def _fingerprint_extra(self) -> dict:
        return {"threshold": float(self.threshold), "alternative": self.alternative,
                "bounds": None if self.bounds is None else list(self.bounds),
                **({} if self.variance_bound is None else {"variance_bound": self.variance_bound}),
                **({} if self.cluster in (None, 1) else {"cluster": self.cluster})}

    @property
    def sign_statistic(self) -> bool:
        """Whether the differences are ``sign(D)`` (:func:`sign_of`): the claim then
        decides ``P(D > 0) − P(D < 0)`` against the threshold, a majority, not a mean."""
        return is_sign_statistic(self.fn) or is_sign_statistic(self.reduce)

    def _units(self, chunk) -> np.ndarray:
        """A chunk's differences, or their run means under ``cluster=m``."""
        d = np.asarray(chunk, dtype=float).ravel()
        m = self.cluster or 1
        return d if m == 1 else d[: d.size // m * m].reshape(-1, m).mean(axis=1)

    def stats_function(self):
        return functools.partial(comparison_stats, self.bounds)

    @staticmethod
    def check_stats(stats, chunk_size):
        if len(stats) != chunk_size or not all(_finite(v) for v in stats):
            return f"a comparison chunk holds {chunk_size} finite differences"
        return None

    def decision_method(self, method):
        return "betting" if self.bounds is not None else "catoni" if self.variance_bound is not None else "hall"

    def early_stop(self, alpha, method):
        if self.bounds is not None:
            state = BettingState(self.threshold, self.bounds, alpha)
        elif self.variance_bound is not None:
            state = CatoniState(self.threshold, self.variance_bound, alpha)
        else:
            return None

        def stop(chunk_stats):
            state.update(self._units(chunk_stats))
            return state.decision() is not None
        return stop

    def decide(self, prefix, alpha, method, n_chunks, common):
        units = [self._units(c) for c in prefix]
        d = np.concatenate(units)
        n = int(sum(len(c) for c in prefix))            # differences seen (n/m units under cluster=m)
        mean = float(d.mean())
        sd = float(d.std(ddof=1)) if d.size > 1 else math.nan
        skew = sample_skewness(d)
        thr = float(self.threshold)
        warnings, premises = [], []
        le_refute = le_holds = math.nan           # e-values for multiplicity (betting, catoni)
        pval = anova_dispersion_pvalue(units)
        if pval is not None and pval < DISPERSION_LEVEL:
            warnings.append(f"chunk means vary more than independent draws allow (F-test p = {pval:.2g}): "
                            f"draws may not be independent")
        blk = block_size(len(units[0]))
        bval = block_dispersion_pvalue(units, blk)
        if bval is not None and bval < DISPERSION_LEVEL:
            what = "differences" if not self.cluster or self.cluster == 1 else f"run means (cluster={self.cluster})"
            warnings.append(f"blocks of {blk} consecutive {what} vary more than independent draws allow "
                            f"(F-test p = {bval:.2g}): trials within a chunk share randomness, and the "
                            f"{'interval' if self.bounds is None and self.variance_bound is None else 'confidence sequence'} "
                            f"is too narrow; declare cluster=m (m consecutive trials that share randomness)")
        if self.cluster and self.cluster > 1:
            premises.append(f"runs of {self.cluster} consecutive trials independent of each other (declared)")
        elif bval is None and pval is None:
            premises.append(f"trials independent (not checked: {len(prefix)} chunk"
                            f"{'' if len(prefix) == 1 else 's'} of {len(prefix[0])}, too few for a "
                            f"dispersion test)")
        if self.bounds is not None:
            state = BettingState(thr, self.bounds, alpha)
            state.update(d)
            side = state.decision()
            want = self.alternative
            verdict = "inconclusive" if side is None else ("holds" if side == want else "refuted")
            ci = confidence_sequence(d, self.bounds, alpha)
            guarantee, how = "anytime-valid", "betting"
            le_minus, le_plus = stopped_log_capital(d, thr, self.bounds, alpha)
            le_refute, le_holds = (le_plus, le_minus) if want == "less" else (le_minus, le_plus)
        elif self.variance_bound is not None:
            s2 = self.variance_bound
            premises.insert(0, variance_premise(s2))
            state = CatoniState(thr, s2, alpha)
            state.update(d)
            side = state.decision()
            verdict = "inconclusive" if side is None else ("holds" if side == self.alternative else "refuted")
            ci = catoni_confidence_sequence(d, s2, alpha)
            guarantee, how = "anytime-valid", "catoni"
            # the supermartingales at the run's end (a stopping time) are e-values (catoni.py)
            le_minus, le_plus = state.log_minus, state.log_plus
            le_refute, le_holds = (le_plus, le_minus) if self.alternative == "less" else (le_minus, le_plus)
            log_e_var, s2_hat = variance_excess_log_e(d, s2)
            if state.both_sides or ci[0] > ci[1]:
                warnings.append(f"no mean is consistent with these {n} differences and the declared "
                                f"variance_bound {s2:.6g} (the confidence sequence is empty): the bound is "
                                f"probably false, and with it the guarantee; verdict withheld")
                verdict = "inconclusive"
            elif log_e_var >= math.log(1.0 / VARIANCE_CHECK_LEVEL):
                worst = float(np.max(np.abs(d - mean)))
                warnings.append(f"the data refute the declared variance_bound {s2:.6g}: sample variance "
                                f"{s2_hat:.6g}, largest deviation from the mean {worst:.6g} (test of Var(D) ≤ "
                                f"{s2:.6g} on pairs of differences, e-value {math.exp(min(log_e_var, 700)):.3g} ≥ "
                                f"{1 / VARIANCE_CHECK_LEVEL:g}, false alarm ≤ {VARIANCE_CHECK_LEVEL:g}); the "
                                f"anytime-valid guarantee rests on that bound: verdict withheld")
                verdict = "inconclusive"
            elif d.size >= 2 and sd * sd > 2.0 * s2:
                warnings.append(f"the sample variance {sd * sd:.6g} exceeds twice the declared variance_bound "
                                f"{s2:.6g}: if Var d > {s2:.6g} the anytime-valid guarantee is void; check "
                                f"where the bound comes from")
        else:
            guarantee, how = "asymptotic", "hall"
            warnings.append(ASYMPTOTIC_WARNING)
            ci = hall_interval(d, alpha)
            if d.size < 3 or not sd > 0:
                verdict = "inconclusive"
                warnings.append(f"all {d.size} differences are equal ({mean:.6g}) or too few: no variance to "
                                f"estimate; declare bounds=(lo, hi) or variance_bound=σ² for an "
                                f"anytime-valid verdict"
                                if d.size >= 3 else f"only {d.size} differences: no interval")
                ci = (-math.inf, math.inf)
            else:
                if self.alternative == "less":
                    verdict = "holds" if ci[1] < thr else "refuted" if ci[0] > thr else "inconclusive"
                else:
                    verdict = "holds" if ci[0] > thr else "refuted" if ci[1] < thr else "inconclusive"
                if abs(skew) > 1.0:
                    warnings.append(f"skewness {skew:.2g} at n = {d.size}: the asymptotic interval may "
                                    f"undercover badly")
        return ComparisonResult(**common, verdict=verdict, elapsed_s=0.0, guarantee=guarantee,
                                warnings=tuple(warnings), n=n, mean_diff=mean, ci=ci, threshold=thr,
                                alternative=self.alternative, sd=sd, skewness=skew,
                                bounds=self.bounds, method=how, variance_bound=self.variance_bound,
                                log_e_refute=le_refute, log_e_holds=le_holds,
                                statistic="sign" if self.sign_statistic else "mean",
                                premises=tuple(premises), cluster=self.cluster)


@dataclass(frozen=True, kw_only=True, repr=False)
class ComparisonResult(Result, kind="comparison"):
    """Paired comparison: mean difference and its interval (a betting
    confidence sequence with declared bounds, else Hall's interval)."""

    unit: ClassVar[str] = "paired differences"

    n: int
    mean_diff: float
    ci: tuple[float, float]
    threshold: float
    alternative: str
    sd: float = math.nan
    skewness: float = math.nan
    bounds: tuple | None = None
    method: str = ""
    #: the declared bound on Var d (the Catoni route), else None
    variance_bound: float | None = None
    #: log e-values at the stopping time (betting only; nan otherwise), for e-BH across a run
    #: (:mod:`..multiplicity`): against the claim (null: it holds) and for it.
    log_e_refute: float = math.nan
    log_e_holds: float = math.nan
    #: ``"mean"`` (E D), or ``"sign"`` for a sign comparison (E sign(D) = P(D > 0) − P(D < 0))
    statistic: str = "mean"
    #: what the guarantee rests on beyond the data (declared or unchecked): printed with the
    #: verdict, e.g. ``("Var(D) ≤ 25 (declared)",)`` (issue 31)
    premises: tuple = ()
    #: declared number of consecutive trials that share randomness, else None
    cluster: int | None = None

    def e_values(self):
        """The stopped capital of the betting CS, or the Catoni supermartingale under a
        declared variance bound (``docs/theory/engine.md#betting``)."""
        lr, lh, how = super().e_values()
        if lr is not None:
            how = ("Catoni supermartingale (declared variance bound) at the stopping time"
                   if self.method == "catoni" else "betting capital at the stopping time")
        return lr, lh, how

    def _estimand(self) -> str:
        return "P(D > 0) − P(D < 0)" if self.statistic == "sign" else "mean difference"

    def premise_text(self) -> str:
        """``"<guarantee> if <premise> and <premise>"`` ("" with no premise): the guarantee
        qualified by what it rests on (issue 31, "declared premises are printed")."""
        if not self.premises:
            return ""
        return f"{self.guarantee} if " + " and ".join(self.premises)

    def summary(self) -> str:
        op = "<" if self.alternative == "less" else ">"
        what = "CS" if self.method in ("betting", "catoni") else "CI"
        n = summary_number
        tail = f"; {self.premise_text()}" if self.premises else ""
        if self.statistic == "sign":
            if self.threshold == 0.0:
                lead = ("more instances with D > 0 than D < 0" if self.alternative == "greater"
                        else "more instances with D < 0 than D > 0")
                return (f"{lead}: E sign(D) = {n(self.mean_diff)}, {what}[{n(self.ci[0])}, {n(self.ci[1])}] "
                        f"{op} 0? (n={self.n}){tail}")
            return (f"P(D>0) − P(D<0) = {n(self.mean_diff)} {what}[{n(self.ci[0])}, {n(self.ci[1])}] "
                    f"{op} {self.threshold:g}? (n={self.n}){tail}")
        return (f"mean diff {n(self.mean_diff)} {what}[{n(self.ci[0])}, {n(self.ci[1])}] "
                f"{op} {self.threshold:g}? (n={self.n}){tail}")

    def headline(self) -> str:
        op = "<" if self.alternative == "less" else ">"
        tail = f"; {self.premise_text()}" if self.premises else ""
        if self.statistic == "sign":
            claim = (("D > 0 on more instances than D < 0" if self.alternative == "greater"
                      else "D < 0 on more instances than D > 0") if self.threshold == 0.0
                     else f"P(D > 0) − P(D < 0) {op} {fmt(self.threshold)}")
            return (f"E sign(D) = P(D > 0) − P(D < 0) = {fmt(self.mean_diff)} (n = {self.n}); "
                    f"claim: {claim}{tail}")
        return (f"mean difference = {fmt(self.mean_diff)} (n = {self.n}); claim: mean {op} "
                f"{fmt(self.threshold)}{tail}")

    def interval(self, level):
        what = {"betting": "betting CS", "catoni": "Catoni CS"}.get(self.method, "Hall CI")
        return f"{level} {what} [{fmt(self.ci[0])}, {fmt(self.ci[1])}] for the {self._estimand()}"

    def slack(self):
        gap = self.mean_diff - self.threshold
        sd = f", {fmt(gap / self.sd, 3)} sd" if isinstance(self.sd, float) and self.sd > 0 else ""
        what = "E sign(D)" if self.statistic == "sign" else "mean"
        return [f"{what} − threshold = {fmt(gap)}{sd} (interval [{fmt(self.ci[0] - self.threshold)}, "
                f"{fmt(self.ci[1] - self.threshold)}])"]

    def budget_to_settle(self):
        lo, hi = self.ci
        est, thr = self.mean_diff, self.threshold
        if not (math.isfinite(lo) and math.isfinite(hi)) or est == thr:
            return None
        w, g = (hi - est, thr - est) if est < thr else (est - lo, est - thr)
        return self.whole_chunks(self.n * (w / g) ** 2)

    def settle_advice(self):
        if self.verdict != "inconclusive":
            return None
        need = self.budget_to_settle()
        if self.method == "hall" and need is None:
            return ("method: the differences have no variance (or too few); declare bounds=(lo, hi) or "
                    "variance_bound=σ² on the claim for an anytime-valid confidence sequence")
        return self.budget_advice(need, extendable=self.method in ("betting", "catoni"))
