"""Worst-case search for deterministic inequalities (``docs/theory/engine.md`` §4).

A point θ violates ``lhs ≤ rhs`` when the signed margin exceeds the
floating-point allowance: ``lhs − rhs > atol + rtol·|rhs|`` (:func:`violates`;
``rhs ≤ 0`` is allowed).  The search maximises a *signed margin*, ``s > 0``
exactly where the margin is positive, invariant under multiplying both sides
by a positive constant (:func:`score`), in one of two scales fixed from the
chunk's random points (:func:`running_scale`):

* the right-hand side is not identically 0 there: the relative margin
  ``s = (lhs − rhs)/|rhs|`` (``= lhs/rhs − 1`` where ``rhs > 0``), so the
  ascent climbs to the *tightest* point, not to where both sides vanish
  (a point with ``rhs = 0`` scores ``+inf`` if violated, else −1: degenerate,
  not tight);
* the right-hand side is identically 0 (a claim written ``f ≤ 0``): the
  margin in the units of the sides, ``s = lhs/S`` with ``S`` the median
  ``|lhs|`` of the random points, which still points uphill.

So ``f ≤ 0`` and ``1 + f ≤ 1`` are searched alike, and where ``rhs`` crosses
zero a violation scores ``+∞`` side of the crossing (it attracts the ascent)
while a satisfied point scores ``−∞`` side (it repels it).

One chunk of ``n`` evaluations: ``random_fraction·n`` random points of the
domain, then local ascent of ``s`` (Gaussian steps with the 1/5th success
rule; Rechenberg 1973) from the best random points.  Starts are taken with
*distinct* scores, so a plateau of equality (``lhs = rhs`` on a region, all
its points scoring exactly 0) supplies one start, not all of them; an ascent
that has not improved for ``patience`` steps is abandoned and its budget goes
to the next start (so a plateau or a local maximum stalls one ascent, not the
chunk).  Every float64 violation met on the way is re-evaluated in mpmath at 50
digits when the claim has ``evaluate_mp``: a confirmed one is kept as a
counterexample; a rejected one (a rounding artefact) is re-scored with its
high-precision value, so the ascent moves past it; a non-finite
high-precision value counts as a non-finite evaluation (never as an
artefact).  Once a counterexample is confirmed, a later float violation is
checked only if it scores higher.
"""
from __future__ import annotations

import math
import threading

import numpy as np

__all__ = ["score", "violates", "search_chunk", "confirm_mp", "running_scale", "STATUS", "MP_LOCK"]

#: mpmath's working precision is one process-wide setting (``mpmath.mp.dps``), not per thread:
#: a chunk running in another thread that leaves ``workdps`` would drop this one's 50 digits to
#: 15 mid-evaluation (a cancellation then "confirms" a false counterexample).  Every
#: high-precision evaluation of the engine holds this lock.
MP_LOCK = threading.RLock()

#: Status of a chunk's reported point.
STATUS = {0: "no violation", 1: "violation in float64 (no mpmath evaluator)",
          2: "violation confirmed in mpmath (50 digits)"}


def score(lhs, rhs, scale: float = 0.0) -> float:
    """Signed margin (module docstring); NaN when a side is not finite.

    ``scale == 0``: relative margin ``(lhs − rhs)/|rhs|`` (at ``rhs = 0``: ``+inf`` if
    ``lhs > 0``, −1 if ``lhs = 0``, ``−inf`` if ``lhs < 0``); ``scale > 0`` (a claim whose
    right-hand side is identically 0): ``(lhs − rhs)/max(|rhs|, scale)``.  Works for floats
    and mpmath numbers (returns a float)."""
    if not isinstance(lhs, (int, float)) or not isinstance(rhs, (int, float)):
        d, r = lhs - rhs, abs(rhs)                       # mpmath: exact sign, then a float
        if scale > 0:
            return float(d / max(r, type(r)(scale)))
        if r != 0:
            return float(d / r)
        return math.inf if lhs > 0 else (-1.0 if lhs == 0 else -math.inf)
    lhs, rhs = float(lhs), float(rhs)
    if not (math.isfinite(lhs) and math.isfinite(rhs)):
        return math.nan
    if scale > 0:
        return (lhs - rhs) / max(abs(rhs), scale)
    if rhs != 0.0:
        return (lhs - rhs) / abs(rhs)
    return math.inf if lhs > 0 else (-1.0 if lhs == 0 else -math.inf)


def running_scale(sides) -> float:
    """0.0 (relative margin) when some finite ``rhs`` of ``(lhs, rhs)`` is nonzero; else the
    median ``|lhs|`` of the finite pairs (1.0 when that is 0 or there are none)."""
    fin = [(l, r) for l, r in sides if math.isfinite(l) and math.isfinite(r)]
    if any(r != 0.0 for _, r in fin):
        return 0.0
    s = float(np.median([abs(l) for l, _ in fin])) if fin else 0.0
    return s if (s > 0 and math.isfinite(s)) else 1.0


def violates(lhs, rhs, atol: float, rtol: float) -> bool:
    """``lhs − rhs > atol + rtol·|rhs|`` (works for floats and mpmath numbers)."""
    return bool(lhs - rhs > atol + rtol * abs(rhs))


def confirm_mp(evaluate_mp, theta, atol: float, rtol: float, dps: int = 50, scale: float = 0.0):
    """Re-evaluate at ``dps`` digits.

    Returns ``(violated, lhs, rhs, score)`` with float renderings of the
    high-precision sides, or ``None`` when the claim has no high-precision
    evaluator.  ``violated`` is ``None`` when a high-precision side is not
    finite (NaN/inf): such a point is neither a counterexample nor a rounding
    artefact — the caller counts it as a non-finite evaluation."""
    if evaluate_mp is None:
        return None
    import mpmath

    with MP_LOCK, mpmath.workdps(dps):
        lhs, rhs = evaluate_mp(np.asarray(theta, dtype=float))
        lhs, rhs = mpmath.mpmathify(lhs), mpmath.mpmathify(rhs)
        if not all(isinstance(v, mpmath.mpf) and mpmath.isfinite(v) for v in (lhs, rhs)):
            # NaN, ±inf or a complex value: no verdict from this point
            return None, math.nan, math.nan, math.nan
        bad = violates(lhs, rhs, mpmath.mpf(atol), mpmath.mpf(rtol))
        # the score of the true point, computed in high precision; a rejected
        # point is never scored above 0 (it satisfies the claim up to the allowance)
        s = score(lhs, rhs, scale)
        return bad, float(lhs), float(rhs), (s if bad else min(s, 0.0))


def search_chunk(sample, evaluate, project, evaluate_mp, step, random_fraction, atol, rtol, rng, n,
                 patience: int | None = None):
    """Random sampling then local ascent of the scaled signed margin.

    Returns ``[evals, nonfinite, artefacts, status, score, lhs, rhs, *θ]``:
    the best confirmed counterexample if there is one (status 2, or 1 when no
    mpmath evaluator exists), else the highest-scoring point (status 0);
    ``artefacts`` counts float64 violations that mpmath rejected;
    ``nonfinite`` counts NaN/inf evaluations in float64 or in mpmath.
    ``patience`` (default ``max(20, 5·dim)``) is how many steps without
    improvement end an ascent.
    """
    evals = nonfinite = artefacts = 0
    best = (-math.inf, None, math.nan, math.nan)        # best point overall (true score)
    found = (-math.inf, None, math.nan, math.nan, 0)    # best confirmed violation
    scale = 0.0

    def judge(theta, lhs, rhs):
        """Score an evaluated point; confirm a float violation; keep the bests."""
        nonlocal best, found, nonfinite, artefacts
        s = score(lhs, rhs, scale)
        if math.isnan(s):
            nonfinite += 1
            return -math.inf
        lhs, rhs = float(lhs), float(rhs)
        if violates(lhs, rhs, atol, rtol) and s > found[0]:
            checked = confirm_mp(evaluate_mp, theta, atol, rtol, scale=scale)
            if checked is None:
                found = (s, np.array(theta, dtype=float, copy=True), lhs, rhs, 1)
            elif checked[0] is None:
                nonfinite += 1                  # high precision is not finite here: no verdict, no artefact
                return -math.inf
            elif checked[0]:
                found = (s, np.array(theta, dtype=float, copy=True), lhs, rhs, 2)
            else:
                artefacts += 1
                _, lhs, rhs, s = checked
        if s > best[0] or best[1] is None:
            best = (s, np.array(theta, dtype=float, copy=True), lhs, rhs)
        return s

    def ev(theta):
        nonlocal evals
        evals += 1
        lhs, rhs = evaluate(theta)
        return judge(theta, lhs, rhs)

    # random phase: evaluate, fix the running scale, then score
    n_random = max(1, min(n, int(round(n * random_fraction))))
    raw = []
    for _ in range(n_random):
        theta = np.asarray(sample(rng), dtype=float).ravel()
        evals += 1
        lhs, rhs = evaluate(theta)
        raw.append((theta, float(lhs), float(rhs)))
    scale = running_scale([(l, r) for _, l, r in raw])
    pool = [(judge(theta, l, r), theta) for theta, l, r in raw]
    pool.sort(key=lambda t: -t[0])          # judge() maps NaN to -inf, so this is total
    # starts: best points with distinct scores (a plateau supplies one start)
    starts, seen = [], set()
    for r0, theta in pool:
        if r0 > -math.inf and r0 not in seen:
            seen.add(r0)
            starts.append((r0, theta))
    left = n - n_random
    if not starts or left <= 0:
        return _report(evals, nonfinite, artefacts, found, best)
    dim = starts[0][1].size
    patience = int(patience) if patience is not None else max(20, 5 * dim)
    n_lanes = min(3, len(starts))
    queue = list(starts)
    lanes = [queue.pop(0) for _ in range(n_lanes)]
    for i, (r0, theta) in enumerate(lanes):
        share = left // n_lanes + (1 if i < left % n_lanes else 0)
        cur, cur_r, sigma, stale = theta, r0, float(step), 0
        for _ in range(share):
            if stale >= patience and found[1] is None:
                # stalled (a plateau or a local maximum): restart from the next start,
                # or from a fresh random point (this step's evaluation) when the starts are used up
                sigma, stale = float(step), 0
                if queue:
                    cur_r, cur = queue.pop(0)
                else:
                    cur = np.asarray(sample(rng), dtype=float).ravel()
                    cur_r = ev(cur)
                    continue
            prop = cur + sigma * rng.standard_normal(cur.shape)
            if project is not None:
                prop = np.asarray(project(prop), dtype=float).ravel()
            r = ev(prop)
            if r > cur_r:
                cur, cur_r, stale = prop, r, 0
                sigma *= 1.5
            else:
                sigma *= 0.9
                stale += 1
            sigma = min(max(sigma, 1e-6), 10.0 * step)
    return _report(evals, nonfinite, artefacts, found, best)


def _report(evals, nonfinite, artefacts, found, best):
    if found[1] is not None:
        s, theta, lhs, rhs, status = found
    else:
        s, theta, lhs, rhs = best
        status = 0
    theta = theta if theta is not None else np.zeros(0)
    return [evals, nonfinite, artefacts, status, s, lhs, rhs, *theta.tolist()]
