"""Worst-case search for deterministic inequalities (``verification.md`` §3).

One chunk of ``n`` evaluations: ``random_fraction·n`` random points of the
domain, then local ascent of ``lhs/rhs`` (Gaussian steps with the 1/5th
success rule) from the three best random points, the remaining evaluations
shared between them.  The engine keeps the best chunk; a candidate
counterexample (ratio > 1) is confirmed in high precision by
:func:`confirm_mp` before it is reported.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["ratio", "search_chunk", "confirm_mp"]


def ratio(lhs: float, rhs: float) -> float:
    """Tightness ``lhs/rhs``; ``+inf`` for ``lhs > 0 = rhs``; NaN if undefined."""
    lhs, rhs = float(lhs), float(rhs)
    if not (math.isfinite(lhs) and math.isfinite(rhs)):
        return math.nan
    if rhs > 0:
        return lhs / rhs
    if rhs == 0:
        return math.inf if lhs > 0 else 0.0
    return math.inf if lhs > rhs else lhs / rhs  # rhs < 0: any lhs > rhs violates


def search_chunk(sample, evaluate, project, step, random_fraction, rng, n):
    """Random sampling then local ascent; returns
    ``[evals, best_ratio, best_lhs, best_rhs, nonfinite, *best_theta]``."""
    best = (-math.inf, None, math.nan, math.nan)
    nonfinite = 0
    evals = 0
    pool: list[tuple[float, np.ndarray]] = []

    def ev(theta):
        nonlocal best, nonfinite, evals
        evals += 1
        lhs, rhs = evaluate(theta)
        r = ratio(lhs, rhs)
        if math.isnan(r):
            nonfinite += 1
            return -math.inf
        if r > best[0] or best[1] is None:
            best = (r, np.array(theta, dtype=float, copy=True), float(lhs), float(rhs))
        return r

    n_random = max(1, min(n, int(round(n * random_fraction))))
    for _ in range(n_random):
        theta = np.asarray(sample(rng), dtype=float).ravel()
        pool.append((ev(theta), theta))
    pool.sort(key=lambda t: -t[0])          # ev() maps NaN to -inf, so this is total
    starts = [t for t in pool[:3] if math.isfinite(t[0])]
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
    theta = best[1] if best[1] is not None else np.zeros(0)
    return [evals, best[0], best[2], best[3], nonfinite, *theta.tolist()]


def confirm_mp(evaluate_mp, theta, rtol: float, dps: int = 50) -> bool | None:
    """Re-evaluate ``(lhs, rhs)`` with mpmath at ``dps`` digits; True when
    ``lhs > rhs·(1 + rtol)`` there.  ``None`` when no high-precision evaluator exists."""
    if evaluate_mp is None:
        return None
    import mpmath

    with mpmath.workdps(dps):
        lhs, rhs = evaluate_mp(np.asarray(theta, dtype=float))
        return bool(mpmath.mpf(lhs) > mpmath.mpf(rhs) * (1 + mpmath.mpf(rtol)))
