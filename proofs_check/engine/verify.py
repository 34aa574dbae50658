"""Run a claim under a budget and an executor; return a frozen verdict.

``verify_claim(claim, ...)`` is the single entry point used by the Python API
(:func:`proofs_check.verify`), the CLI and the report.  It knows nothing of
any paper: it only runs chunks (:mod:`.runner`) and applies the statistics of
:mod:`.stats` for the claim's kind.
"""
from __future__ import annotations

import dataclasses
import math
import re
import time
from pathlib import Path
from typing import Callable

import numpy as np

from . import stats
from .claims import (Claim, ComparisonClaim, IdentityClaim, InequalityClaim, ProbabilityClaim,
                     ScalingClaim)
from .executors import Executor, make_executor
from .results import (ComparisonResult, IdentityResult, InequalityResult, ProbabilityResult,
                      Result, ScalingResult)
from .runner import run_chunks
from .search import confirm_mp
from .store import ChunkStore

__all__ = ["verify_claim", "check_alpha", "check_budget", "result_path"]

METHODS = ("anytime", "fixed")


def check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) \
            or not (0.0 < float(alpha) < 1.0):
        raise ValueError(f"alpha must lie in the open interval (0, 1), got {alpha!r}")
    return float(alpha)


def check_budget(budget) -> int:
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ValueError(f"budget must be a positive integer, got {budget!r}")
    return int(budget)


def result_path(out, claim_id: str) -> Path:
    """``OUT/<claim id>.chunks.jsonl`` (ids are file-name safe)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", claim_id)
    return Path(out) / f"{safe}.chunks.jsonl"


def verify_claim(claim: Claim, *, budget: int | None = None, seed: int = 0, alpha: float = 0.01,
                 executor: str | Executor | None = None, workers: int | None = None,
                 scheduler: str | None = None, quick: bool = False, out=None, resume: bool = False,
                 method: str = "anytime",
                 progress: Callable[[int, int], None] | None = None) -> Result:
    """Decide ``claim``.

    Parameters
    ----------
    budget : units of work (trials, cases, evaluations, replicates); default
        ``claim.quick_budget`` if ``quick`` else ``claim.default_budget``.
        Rounded up to whole chunks.
    seed : root seed of the run (chunk k uses ``SeedSequence(seed, spawn_key=(k,))``).
    alpha : error level of the verdict, in (0, 1).
    executor, workers, scheduler : where chunks run (:func:`.executors.make_executor`).
    out : folder for the per-chunk result file; ``None`` keeps it in memory.
    resume : reuse the chunks already in ``out``'s file (validated against the claim).
    method : for probability claims, ``"anytime"`` (stop as soon as an e-value
        crosses ``2/α``; error ≤ α at any stopping time) or ``"fixed"``
        (run the whole budget, decide by the exact Clopper–Pearson interval).
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a Claim, got {type(claim).__name__}")
    alpha = check_alpha(alpha)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    seed = int(seed)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    budget = check_budget(budget if budget is not None else
                          (claim.quick_budget if quick else claim.default_budget))
    n_chunks = math.ceil(budget / claim.chunk_size)
    header = {"claim": claim.id, "kind": claim.kind, "fingerprint": claim.fingerprint(),
              "seed": seed, "chunk_size": int(claim.chunk_size)}
    if resume and out is None:
        raise ValueError("resume needs an output folder (--out DIR) holding the earlier result file")
    store = ChunkStore.open(result_path(out, claim.id) if out is not None else None, header,
                            resume=resume)
    stop = None
    acc = {"k": 0, "n": 0}
    if isinstance(claim, ProbabilityClaim) and method == "anytime":
        def stop(chunk_stats):
            acc["k"] += int(chunk_stats[0])
            acc["n"] += claim.chunk_size
            return stats.anytime_decision(acc["k"], acc["n"], claim.delta, alpha) is not None

    t0 = time.perf_counter()
    owned = not isinstance(executor, Executor)
    ex = make_executor(executor, workers, scheduler)
    try:
        with store:
            prefix = run_chunks(claim.chunk_task(), n_chunks, chunk_size=claim.chunk_size, seed=seed,
                                executor=ex, store=store, stop=stop, progress=progress)
    finally:
        if owned:
            ex.close()
    common = dict(claim=claim.id, kind=claim.kind, statement=claim.statement, source=claim.source,
                  label=claim.label, seed=seed, alpha=alpha, budget=len(prefix) * claim.chunk_size,
                  chunks=len(prefix), params=dict(claim.params), notes=claim.notes)
    result = _dispatch(claim)(claim, prefix, alpha, method, n_chunks, common)
    # elapsed covers the chunk runs and the verdict (e.g. a sympy proof)
    return dataclasses.replace(result, elapsed_s=round(time.perf_counter() - t0, 6))


def _dispatch(claim):
    for cls, fn in ((ProbabilityClaim, _probability), (IdentityClaim, _identity),
                    (InequalityClaim, _inequality), (ScalingClaim, _scaling),
                    (ComparisonClaim, _comparison)):
        if isinstance(claim, cls):
            return fn
    raise TypeError(f"unsupported claim type {type(claim).__name__}")


# ---------------------------------------------------------------------------

def _probability(claim: ProbabilityClaim, prefix, alpha, method, n_chunks, common):
    k = int(sum(int(s[0]) for s in prefix))
    n = len(prefix) * claim.chunk_size
    delta = float(claim.delta)
    ci = stats.clopper_pearson(k, n, alpha)
    le_b = float(stats.log_e_below(k, n, delta))
    le_a = float(stats.log_e_above(k, n, delta))
    if method == "anytime":
        verdict = stats.anytime_decision(k, n, delta, alpha) or "inconclusive"
    else:
        verdict = "holds" if ci[1] < delta else "refuted" if ci[0] > delta else "inconclusive"
    further = stats.trials_to_decide(k, n, delta, alpha) if verdict == "inconclusive" else None
    return ProbabilityResult(**common, verdict=verdict, elapsed_s=0.0, trials=n, events=k,
                             p_hat=k / n, ci=ci, delta=delta, method=method,
                             stopped_early=len(prefix) < n_chunks, log_e_below=le_b,
                             log_e_above=le_a, further_trials=further)


def _identity(claim: IdentityClaim, prefix, alpha, method, n_chunks, common):
    cases = int(sum(s[0] for s in prefix))
    max_abs = max(float(s[1]) for s in prefix)
    max_scaled = max(float(s[2]) for s in prefix)
    proved = None if claim.proof is None else bool(claim.proof())
    if not max_scaled <= claim.tol:
        verdict = "refuted"
    elif proved is False:
        verdict = "inconclusive"
    else:
        verdict = "holds"
    return IdentityResult(**common, verdict=verdict, elapsed_s=0.0, cases=cases,
                          max_abs_error=max_abs, max_scaled_error=max_scaled, tol=claim.tol,
                          tol_mode=claim.tol_mode, proved=proved)


def _inequality(claim: InequalityClaim, prefix, alpha, method, n_chunks, common):
    evals = int(sum(s[0] for s in prefix))
    nonfinite = int(sum(s[4] for s in prefix))
    best = max(prefix, key=lambda s: (s[1] if not math.isnan(s[1]) else -math.inf))
    worst_ratio, lhs, rhs = float(best[1]), float(best[2]), float(best[3])
    theta = np.asarray(best[5:], dtype=float)
    confirmed_by = "no violation found"
    verdict = "holds"
    if worst_ratio > 1.0 + claim.rtol:
        ok = confirm_mp(claim.evaluate_mp, theta, claim.rtol)
        if ok is None:
            verdict, confirmed_by = "refuted", "float64 only (claim has no mpmath evaluator)"
        elif ok:
            verdict, confirmed_by = "refuted", "mpmath (50 digits)"
        else:
            confirmed_by = "float64 candidate rejected by mpmath (rounding artefact)"
    if nonfinite and verdict == "holds":
        verdict = "inconclusive"
        confirmed_by += f"; {nonfinite} evaluations gave NaN/inf"
    point = claim.describe_point(theta) if claim.describe_point is not None and theta.size else theta.tolist()
    return InequalityResult(**common, verdict=verdict, elapsed_s=0.0, evaluations=evals,
                            worst_ratio=worst_ratio, worst_lhs=lhs, worst_rhs=rhs,
                            worst_point=point, nonfinite=nonfinite, confirmed_by=confirmed_by)


def _scaling(claim: ScalingClaim, prefix, alpha, method, n_chunks, common):
    x = np.asarray(claim.x, dtype=float)
    y = np.concatenate([np.asarray(s, dtype=float) for s in prefix]).reshape(-1, x.size)
    R = y.shape[0]
    mean = y.mean(axis=0)
    se = y.std(axis=0, ddof=1) / math.sqrt(R) if R > 1 else np.zeros_like(mean)
    lx = np.log(x)
    if np.any(~np.isfinite(y)) or np.any(y <= 0):
        return ScalingResult(**common, verdict="inconclusive", elapsed_s=0.0, x=tuple(x.tolist()),
                             y_mean=tuple(mean.tolist()), y_se=tuple(se.tolist()), replicates=R,
                             exponent=math.nan, exponent_ci=(math.nan, math.nan),
                             exponent_lo=claim.exponent_lo, exponent_hi=claim.exponent_hi)
    slope, lo, hi = stats.slope_interval(lx, np.log(mean), alpha)
    if R > 1:
        slopes = np.array([stats.slope_interval(lx, np.log(row), alpha)[0] for row in y])
        lo, hi = stats.t_interval(float(slopes.mean()), float(slopes.std(ddof=1)), R, alpha)
        # the interval must also cover the slope of the mean curve
        lo, hi = min(lo, slope), max(hi, slope)
    if claim.exponent_lo <= lo and hi <= claim.exponent_hi:
        verdict = "holds"
    elif hi < claim.exponent_lo or lo > claim.exponent_hi:
        verdict = "refuted"
    else:
        verdict = "inconclusive"
    return ScalingResult(**common, verdict=verdict, elapsed_s=0.0, x=tuple(x.tolist()),
                         y_mean=tuple(mean.tolist()), y_se=tuple(se.tolist()), replicates=R,
                         exponent=slope, exponent_ci=(lo, hi), exponent_lo=claim.exponent_lo,
                         exponent_hi=claim.exponent_hi)


def _comparison(claim: ComparisonClaim, prefix, alpha, method, n_chunks, common):
    n = int(sum(s[0] for s in prefix))
    s1 = float(sum(s[1] for s in prefix))
    s2 = float(sum(s[2] for s in prefix))
    mean = s1 / n
    var = max(0.0, (s2 - n * mean * mean) / (n - 1)) if n > 1 else math.inf
    lo, hi = stats.t_interval(mean, math.sqrt(var), n, alpha)
    thr = claim.threshold
    if claim.alternative == "less":
        verdict = "holds" if hi < thr else "refuted" if lo > thr else "inconclusive"
    else:
        verdict = "holds" if lo > thr else "refuted" if hi < thr else "inconclusive"
    return ComparisonResult(**common, verdict=verdict, elapsed_s=0.0, n=n, mean_diff=mean, ci=(lo, hi),
                            threshold=thr, alternative=claim.alternative)
