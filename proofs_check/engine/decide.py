"""From chunk statistics to a verdict, one function per claim kind.

Each decision states its guarantee (:data:`.results.GUARANTEES`) and any
warnings; the statistics are in :mod:`.stats` and :mod:`.betting`, the search
in :mod:`.search`.  ``early_stop(claim, alpha, method)`` gives the per-chunk
stopping rule for the kinds whose verdict is anytime-valid.
"""
from __future__ import annotations

import math

import numpy as np

from . import stats
from .betting import BettingState, confidence_sequence
from .kinds import ComparisonClaim, IdentityClaim, InequalityClaim, ProbabilityClaim, ScalingClaim
from .results import (ComparisonResult, IdentityResult, InequalityResult, ProbabilityResult,
                      ScalingResult)
from .search import STATUS

__all__ = ["decide", "early_stop", "decision_method", "extension_is_valid", "DISPERSION_LEVEL"]

#: p-value below which chunks are reported as disagreeing more than independent
#: trials allow (fixed in advance; a false warning has probability ≤ 1e-3).
DISPERSION_LEVEL = 1e-3


def decision_method(claim, method: str) -> str:
    """The name of the statistical decision used for ``claim`` under ``method``."""
    if isinstance(claim, ProbabilityClaim):
        return method
    if isinstance(claim, ComparisonClaim):
        return "betting" if claim.bounds is not None else "hall"
    if isinstance(claim, ScalingClaim):
        return "deterministic" if claim.deterministic else "t-slopes"
    return "search"


def extension_is_valid(decision: str) -> bool:
    """Whether a run decided by ``decision`` may be continued on more data
    after its verdict was seen.  Fixed-sample tests may not (optional
    stopping inflates their error); anytime-valid, search and deterministic
    decisions may."""
    return decision not in ("fixed", "hall", "t-slopes")


def early_stop(claim, alpha: float, method: str):
    """A ``stop(chunk_stats) -> bool`` for anytime-valid decisions, else ``None``."""
    if isinstance(claim, ProbabilityClaim) and method == "anytime":
        acc = {"k": 0, "n": 0}

        def stop(chunk_stats):
            acc["k"] += int(chunk_stats[0])
            acc["n"] += claim.chunk_size
            return stats.anytime_decision(acc["k"], acc["n"], claim.delta, alpha) is not None
        return stop
    if isinstance(claim, ComparisonClaim) and claim.bounds is not None:
        state = BettingState(claim.threshold, claim.bounds, alpha)

        def stop(chunk_stats):
            state.update(chunk_stats)
            return state.decision() is not None
        return stop
    return None


def decide(claim, prefix, alpha, method, n_chunks, common):
    for cls, fn in ((ProbabilityClaim, _probability), (IdentityClaim, _identity),
                    (InequalityClaim, _inequality), (ScalingClaim, _scaling),
                    (ComparisonClaim, _comparison)):
        if isinstance(claim, cls):
            return fn(claim, prefix, alpha, method, n_chunks, common)
    raise TypeError(f"unsupported claim type {type(claim).__name__}")


# ---------------------------------------------------------------------------

def _probability(claim: ProbabilityClaim, prefix, alpha, method, n_chunks, common):
    counts = [int(s[0]) for s in prefix]
    k = int(sum(counts))
    n = len(prefix) * claim.chunk_size
    delta = float(claim.delta)
    le_b = float(stats.log_e_below(k, n, delta))
    le_a = float(stats.log_e_above(k, n, delta))
    warnings = []
    if method == "anytime":
        verdict = stats.anytime_decision(k, n, delta, alpha) or "inconclusive"
        ci = stats.probability_cs(k, n, alpha)
        guarantee = "anytime-valid"
    else:
        ci = stats.clopper_pearson(k, n, alpha)
        verdict = "holds" if ci[1] < delta else "refuted" if ci[0] > delta else "inconclusive"
        guarantee = "exact"
    pval = stats.binomial_dispersion_pvalue(counts, claim.chunk_size)
    if pval is not None and pval < DISPERSION_LEVEL:
        warnings.append(f"event counts vary across chunks more than independent trials allow "
                        f"(dispersion test p = {pval:.2g}): trials may not be independent, and then "
                        f"the interval is too narrow")
    further = stats.trials_to_decide(k, n, delta, alpha) if verdict == "inconclusive" else None
    return ProbabilityResult(**common, verdict=verdict, elapsed_s=0.0, guarantee=guarantee,
                             warnings=tuple(warnings), trials=n, events=k, p_hat=k / n, ci=ci,
                             delta=delta, method=method, stopped_early=len(prefix) < n_chunks,
                             log_e_below=le_b, log_e_above=le_a, further_trials=further)


def _identity(claim: IdentityClaim, prefix, alpha, method, n_chunks, common):
    cases = int(sum(s[0] for s in prefix))
    max_abs = max(float(s[1]) for s in prefix)
    max_scaled = max(float(s[2]) for s in prefix)
    proved = None if claim.proof is None else bool(claim.proof())
    warnings = []
    if not max_scaled <= claim.tol:
        verdict = "refuted"
    elif proved is False:
        verdict = "inconclusive"
        warnings.append("the symbolic proof failed although every numerical case agreed")
    else:
        verdict = "holds"
    guarantee = "exact" if proved else "search"
    return IdentityResult(**common, verdict=verdict, elapsed_s=0.0, guarantee=guarantee,
                          warnings=tuple(warnings), cases=cases, max_abs_error=max_abs,
                          max_scaled_error=max_scaled, tol=claim.tol, tol_mode=claim.tol_mode,
                          proved=proved)


def _inequality(claim: InequalityClaim, prefix, alpha, method, n_chunks, common):
    evals = int(sum(s[0] for s in prefix))
    nonfinite = int(sum(s[1] for s in prefix))
    artefacts = int(sum(s[2] for s in prefix))
    # a confirmed counterexample beats any score; then the highest score
    best = max(prefix, key=lambda s: (int(s[3]) > 0, s[4] if not math.isnan(s[4]) else -math.inf))
    status, lhs, rhs = int(best[3]), float(best[5]), float(best[6])
    theta = np.asarray(best[7:], dtype=float)
    warnings = []
    if status == 2:
        verdict, guarantee = "refuted", "exact"
    elif status == 1:
        verdict, guarantee = "refuted", "search"
        warnings.append("the counterexample is checked in float64 only (the claim has no mpmath "
                        "evaluator); it could be a rounding artefact")
    else:
        verdict, guarantee = "holds", "deterministic" if claim.deterministic else "search"
    if artefacts:
        warnings.append(f"{artefacts} float64 violation(s) were rejected by mpmath as rounding artefacts")
    if nonfinite:
        warnings.append(f"{nonfinite} evaluation(s) gave NaN/inf")
        if verdict == "holds":
            verdict = "inconclusive"
    ratio = lhs / rhs if rhs > 0 else math.nan
    point = claim.describe_point(theta) if claim.describe_point is not None and theta.size else theta.tolist()
    return InequalityResult(**common, verdict=verdict, elapsed_s=0.0, guarantee=guarantee,
                            warnings=tuple(warnings), evaluations=evals, worst_ratio=ratio,
                            worst_lhs=lhs, worst_rhs=rhs, worst_point=point, nonfinite=nonfinite,
                            confirmed_by=STATUS[status], worst_margin=lhs - rhs, artefacts=artefacts)


def _window_verdict(lo, hi, claim) -> str:
    if claim.exponent_lo <= lo and hi <= claim.exponent_hi:
        return "holds"
    if hi < claim.exponent_lo or lo > claim.exponent_hi:
        return "refuted"
    return "inconclusive"


def _scaling(claim: ScalingClaim, prefix, alpha, method, n_chunks, common):
    x = np.asarray(claim.x, dtype=float)
    y = np.concatenate([np.asarray(s, dtype=float) for s in prefix]).reshape(-1, x.size)
    R = y.shape[0]
    mean = y.mean(axis=0)
    se = y.std(axis=0, ddof=1) / math.sqrt(R) if R > 1 else np.full_like(mean, math.nan)
    lx = np.log(x)
    base = dict(elapsed_s=0.0, x=tuple(x.tolist()), y_mean=tuple(mean.tolist()),
                y_se=tuple(se.tolist()), replicates=R, exponent_lo=claim.exponent_lo,
                exponent_hi=claim.exponent_hi)
    if np.any(~np.isfinite(y)) or np.any(y <= 0):
        bad = int(np.sum(~np.isfinite(y) | (y <= 0)))
        return ScalingResult(**common, **base, verdict="inconclusive",
                             guarantee="deterministic" if claim.deterministic else "asymptotic",
                             warnings=(f"{bad} value(s) are not finite and positive (censored or "
                                       f"undefined): no exponent is fitted",),
                             exponent=math.nan,
                             exponent_ci=None if claim.deterministic else (math.nan, math.nan),
                             deterministic=bool(claim.deterministic))
    ly = np.log(y)
    slopes = np.array([stats.slope_interval(lx, row, alpha)[0] for row in ly])
    warnings = []
    deterministic = bool(claim.deterministic)
    spread = float(np.ptp(slopes)) if R > 1 else 0.0
    if not deterministic and R > 1 and spread <= 1e-12 * max(1.0, float(np.abs(slopes).max())):
        deterministic = True
        warnings.append("all replicates give the same exponent: treated as deterministic "
                        "(declare deterministic=True)")
    if deterministic:
        slope = float(slopes[0])
        local = tuple(float(v) for v in np.diff(ly[0]) / np.diff(lx))
        verdict = "holds" if claim.exponent_lo <= slope <= claim.exponent_hi else "refuted"
        if local and not (claim.exponent_lo <= local[-1] <= claim.exponent_hi):
            warnings.append(f"the last local slope {local[-1]:.4g} lies outside the window: the "
                            f"asymptotic exponent may differ from the fit over the grid")
        return ScalingResult(**common, **base, verdict=verdict, guarantee="deterministic",
                             warnings=tuple(warnings), exponent=slope,
                             exponent_ci=None, deterministic=True, local_exponents=local)
    lo, hi = stats.t_interval(float(slopes.mean()), float(slopes.std(ddof=1)), R, alpha)
    verdict = _window_verdict(lo, hi, claim)
    if R < 5:
        warnings.append(f"only {R} replicates: the t-interval is exact only for Gaussian slopes")
    return ScalingResult(**common, **base, verdict=verdict, guarantee="asymptotic",
                         warnings=tuple(warnings), exponent=float(slopes.mean()),
                         exponent_ci=(lo, hi), deterministic=False)


def _comparison(claim: ComparisonClaim, prefix, alpha, method, n_chunks, common):
    d = np.concatenate([np.asarray(s, dtype=float) for s in prefix])
    n = int(d.size)
    mean = float(d.mean())
    sd = float(d.std(ddof=1)) if n > 1 else math.nan
    skew = stats.sample_skewness(d)
    thr = float(claim.threshold)
    warnings = []
    pval = stats.anova_dispersion_pvalue(prefix)
    if pval is not None and pval < DISPERSION_LEVEL:
        warnings.append(f"chunk means vary more than independent draws allow (F-test p = {pval:.2g}): "
                        f"draws may not be independent")
    if claim.bounds is not None:
        state = BettingState(thr, claim.bounds, alpha)
        state.update(d)
        side = state.decision()
        want = claim.alternative
        verdict = "inconclusive" if side is None else ("holds" if side == want else "refuted")
        ci = confidence_sequence(d, claim.bounds, alpha)
        guarantee, how = "anytime-valid", "betting"
    else:
        guarantee, how = "asymptotic", "hall"
        ci = stats.hall_interval(d, alpha)
        if n < 3 or not sd > 0:
            verdict = "inconclusive"
            warnings.append(f"all {n} differences are equal ({mean:.6g}) or too few: no variance to "
                            f"estimate; declare bounds=(lo, hi) for an anytime-valid verdict"
                            if n >= 3 else f"only {n} differences: no interval")
            ci = (-math.inf, math.inf)
        else:
            if claim.alternative == "less":
                verdict = "holds" if ci[1] < thr else "refuted" if ci[0] > thr else "inconclusive"
            else:
                verdict = "holds" if ci[0] > thr else "refuted" if ci[1] < thr else "inconclusive"
            if abs(skew) > 1.0 and n < 200:
                warnings.append(f"skewness {skew:.2g} at n = {n}: the asymptotic interval may "
                                f"undercover; declare bounds for a finite-sample guarantee")
    return ComparisonResult(**common, verdict=verdict, elapsed_s=0.0, guarantee=guarantee,
                            warnings=tuple(warnings), n=n, mean_diff=mean, ci=ci, threshold=thr,
                            alternative=claim.alternative, sd=sd, skewness=skew,
                            bounds=claim.bounds, method=how)
