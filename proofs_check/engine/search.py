"""Worst-case search for deterministic inequalities (``docs/theory/engine.md`` §4).

A point θ violates ``lhs ≤ rhs`` when the signed margin exceeds the
floating-point allowance: ``lhs − rhs > atol + rtol·|rhs|`` (:func:`violates`;
``rhs ≤ 0`` is allowed).  The search maximises the scale-free score
``s = (lhs − rhs)/|rhs|`` (``= lhs/rhs − 1`` where ``rhs > 0``; degenerate
points with ``lhs = rhs = 0`` score −1; :func:`score`).

One chunk of ``n`` evaluations: ``random_fraction·n`` random points of the
domain, then local ascent of the score (Gaussian steps with the 1/5th success
rule) from the three best random points, the remaining evaluations shared
between them.  Every float64 violation met on the way is re-evaluated in
mpmath at 50 digits when the claim has ``evaluate_mp``: a confirmed one is
kept as a counterexample, a rejected one (a rounding artefact) is re-scored
with its high-precision value, so the ascent moves past it instead of
climbing into it.  Once a counterexample is confirmed, a later float
violation is checked only if it scores higher.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["score", "violates", "search_chunk", "confirm_mp", "STATUS"]

#: Status of a chunk's reported point.
STATUS = {0: "no violation", 1: "violation in float64 (no mpmath evaluator)",
          2: "violation confirmed in mpmath (50 digits)"}


def score(lhs: float, rhs: float, atol: float = 0.0) -> float:
    """Scale-free signed margin ``(lhs − rhs)/|rhs|``; NaN when a side is not finite.

    At ``rhs = 0`` the ratio is undefined: a violation (``lhs > atol``) scores
    ``+inf``; ``0 ≤ lhs ≤ atol`` scores −1 (as ``lhs/rhs = 0`` would: a
    degenerate point, not a tight one, so the search does not climb to it);
    ``lhs < 0`` scores ``−inf``."""
    lhs, rhs = float(lhs), float(rhs)
    if not (math.isfinite(lhs) and math.isfinite(rhs)):
        return math.nan
    if rhs != 0.0:
        return (lhs - rhs) / abs(rhs)
    if lhs > atol:
        return math.inf
    return -1.0 if lhs >= 0 else -math.inf


def violates(lhs, rhs, atol: float, rtol: float) -> bool:
    """``lhs − rhs > atol + rtol·|rhs|`` (works for floats and mpmath numbers)."""
    return bool(lhs - rhs > atol + rtol * abs(rhs))


def confirm_mp(evaluate_mp, theta, atol: float, rtol: float, dps: int = 50):
    """Re-evaluate at ``dps`` digits.  Returns ``(violated, lhs, rhs)`` with
    float renderings of the high-precision sides, or ``None`` when the claim
    has no high-precision evaluator."""
    if evaluate_mp is None:
        return None
    import mpmath

    with mpmath.workdps(dps):
        lhs, rhs = evaluate_mp(np.asarray(theta, dtype=float))
        lhs, rhs = mpmath.mpf(lhs), mpmath.mpf(rhs)
        bad = violates(lhs, rhs, mpmath.mpf(atol), mpmath.mpf(rtol))
        # the score of the true point, computed in high precision; a rejected
        # point is never scored above 0 (it satisfies the claim up to the allowance)
        if rhs != 0:
            s = float((lhs - rhs) / abs(rhs))
        else:
            s = math.inf if lhs > atol else (-1.0 if lhs >= 0 else -math.inf)
        return bad, float(lhs), float(rhs), (s if bad else min(s, 0.0))


def search_chunk(sample, evaluate, project, evaluate_mp, step, random_fraction, atol, rtol, rng, n):
    """Random sampling then local ascent.

    Returns ``[evals, nonfinite, artefacts, status, score, lhs, rhs, *θ]``:
    the best confirmed counterexample if there is one (status 2, or 1 when no
    mpmath evaluator exists), else the highest-scoring point (status 0);
    ``artefacts`` counts float64 violations that mpmath rejected.
    """
    evals = nonfinite = artefacts = 0
    best = (-math.inf, None, math.nan, math.nan)        # best point overall (true score)
    found = (-math.inf, None, math.nan, math.nan, 0)    # best confirmed violation

    def ev(theta):
        nonlocal best, found, evals, nonfinite, artefacts
        evals += 1
        lhs, rhs = evaluate(theta)
        s = score(lhs, rhs, atol)
        if math.isnan(s):
            nonfinite += 1
            return -math.inf
        lhs, rhs = float(lhs), float(rhs)
        if violates(lhs, rhs, atol, rtol) and s > found[0]:
            checked = confirm_mp(evaluate_mp, theta, atol, rtol)
            if checked is None:
                found = (s, np.array(theta, dtype=float, copy=True), lhs, rhs, 1)
            elif checked[0]:
                found = (s, np.array(theta, dtype=float, copy=True), lhs, rhs, 2)
            else:
                artefacts += 1
                _, lhs, rhs, s = checked
        if s > best[0] or best[1] is None:
            best = (s, np.array(theta, dtype=float, copy=True), lhs, rhs)
        return s

    pool: list[tuple[float, np.ndarray]] = []
    n_random = max(1, min(n, int(round(n * random_fraction))))
    for _ in range(n_random):
        theta = np.asarray(sample(rng), dtype=float).ravel()
        pool.append((ev(theta), theta))
    pool.sort(key=lambda t: -t[0])          # ev() maps NaN to -inf, so this is total
    starts = [t for t in pool[:3] if t[0] > -math.inf]
    left = n - n_random
    for i, (r0, theta) in enumerate(starts):
        share = left // len(starts) + (1 if i < left % len(starts) else 0)
        sigma = float(step)
        cur, cur_r = theta, r0
        for _ in range(share):
            prop = cur + sigma * rng.standard_normal(cur.shape)
            if project is not None:
                prop = np.asarray(project(prop), dtype=float).ravel()
            r = ev(prop)
            if r > cur_r:
                cur, cur_r = prop, r
                sigma *= 1.5
            else:
                sigma *= 0.9
            sigma = min(max(sigma, 1e-6), 10.0 * step)
    if found[1] is not None:
        s, theta, lhs, rhs, status = found
    else:
        s, theta, lhs, rhs = best
        status = 0
    theta = theta if theta is not None else np.zeros(0)
    return [evals, nonfinite, artefacts, status, s, lhs, rhs, *theta.tolist()]
