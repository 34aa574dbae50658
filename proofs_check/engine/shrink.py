"""Counterexamples a person can read: shrink a confirmed inequality violation.

After the worst-case search (:mod:`.search`) confirms a violation θ of
``lhs ≤ rhs``, :func:`shrink` simplifies it the way Hypothesis shrinks a
failing example, accepting a candidate θ' only when

* it is *simpler*: (number of coordinates away from the claim's
  ``default_point``, number of non-zero coordinates, total significant
  decimal digits of the non-default coordinates, Σ|θ − default|) decreases
  lexicographically (:func:`complexity`), and
* it is *still a confirmed violation*: ``lhs − rhs > atol + rtol·|rhs|`` in
  float64 and, when the claim has ``evaluate_mp``, again at 50 digits in
  mpmath (:func:`.search.confirm_mp`).

Candidates, tried in this order until none is accepted: (1) each
non-default coordinate reset to its default; (2) the claim's ``simplify(θ)``
points (domain-specific, e.g. a probability vector with one outcome removed —
a smaller dimension); (3) each non-default coordinate rounded to fewer
significant digits (1, 2, … figures) or to an integer; (4) each non-default
coordinate moved halfway to its default (accepted only if its digits do not
grow: 2 → 1 → 0.5, never 0.25 after 0.5).  Each candidate passes
through the claim's ``project`` (so it stays in the domain).  Each step strictly decreases
this order and the digit count bounds the halvings, so shrinking ends; it is also capped at ``max_evals``
evaluations.  The result is a local minimum: no single reset, simplification
or rounding keeps the violation.

:func:`reevaluate` re-checks a point (what a ``reproduce`` line runs) and
:func:`reproduce_line` writes that line.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from .search import STATUS, confirm_mp, violates

__all__ = ["shrink", "Shrunk", "complexity", "reevaluate", "point_from", "point_from_names",
           "reproduce_line", "counterexample_point", "MAX_SHRINK_EVALS"]

#: Evaluations a shrink may spend (float64; mpmath re-checks only on float violations).
MAX_SHRINK_EVALS = 2_000


def _digits(x: float) -> int:
    """Significant decimal digits of the shortest repr of ``x`` (0 for 0)."""
    if x == 0 or not math.isfinite(x):
        return 0
    text = np.format_float_positional(abs(float(x)), trim="-", unique=True)
    return len(text.replace(".", "").strip("0"))


def complexity(theta, default) -> tuple:
    """(coordinates ≠ default, coordinates ≠ 0, total significant digits of the
    non-default ones, Σ |θ − default|) — compared lexicographically; smaller is simpler."""
    theta, default = np.asarray(theta, dtype=float), np.asarray(default, dtype=float)
    off = theta != default
    return (int(off.sum()), int(np.count_nonzero(theta)), int(sum(_digits(v) for v in theta[off])),
            float(np.abs(theta - default).sum()))


@dataclass(frozen=True)
class Shrunk:
    """A shrunk counterexample: the point, its two sides, how it was confirmed."""

    theta: np.ndarray
    lhs: float
    rhs: float
    status: int            # as in search.STATUS
    evaluations: int
    steps: int

    @property
    def margin(self) -> float:
        return self.lhs - self.rhs


def _check(claim, theta):
    """``(lhs, rhs, status)`` when θ is a confirmed violation, else ``None``."""
    try:
        lhs, rhs = claim.evaluate(theta)
        lhs, rhs = float(lhs), float(rhs)
    except Exception:
        return None
    if not (math.isfinite(lhs) and math.isfinite(rhs)) or not violates(lhs, rhs, claim.atol, claim.rtol):
        return None
    if claim.evaluate_mp is None:
        return lhs, rhs, 1
    try:
        checked = confirm_mp(claim.evaluate_mp, theta, claim.atol, claim.rtol)
    except Exception:
        return None
    return (checked[1], checked[2], 2) if checked[0] else None


def _round_candidates(x: float, lo_digits: int):
    """``x`` rounded to 1, 2, … significant figures and to integers (simplest first)."""
    seen = set()
    if x != 0:
        e = math.floor(math.log10(abs(x)))
        for sig in range(1, lo_digits):
            v = float(round(x, sig - 1 - e))
            if v not in seen and v != x:
                seen.add(v)
                yield v
    for v in (float(round(x)), float(math.floor(x)), float(math.ceil(x))):
        if v not in seen and v != x:
            seen.add(v)
            yield v


def shrink(claim, theta, *, max_evals: int = MAX_SHRINK_EVALS) -> Shrunk:
    """Shrink the confirmed violation ``theta`` of inequality ``claim`` (see the module doc).

    ``claim.default_point`` is required; ``ValueError`` if ``theta`` is not a
    confirmed violation."""
    theta = np.array(theta, dtype=float, copy=True).ravel()
    if claim.default_point is None:
        raise ValueError(f"claim {claim.id}: shrinking needs default_point (the point coordinates move to)")
    default = np.asarray(claim.default_point, dtype=float).ravel()
    if default.shape != theta.shape:
        raise ValueError(f"claim {claim.id}: default_point has {default.size} coordinates, the point {theta.size}")
    first = _check(claim, theta)
    if first is None:
        raise ValueError(f"claim {claim.id}: the point to shrink is not a confirmed violation")
    cur, (lhs, rhs, status) = theta, first
    cost = complexity(cur, default)
    evals, steps = 1, 0

    def project(t):
        return np.asarray(claim.project(t), dtype=float).ravel() if claim.project is not None else t

    def candidates(t):
        off = np.flatnonzero(t != default)
        for i in off:                                          # (1) reset to default
            c = t.copy()
            c[i] = default[i]
            yield c
        if claim.simplify is not None:                         # (2) smaller dimension, …
            try:
                yield from (np.asarray(c, dtype=float).ravel() for c in claim.simplify(t))
            except Exception:
                pass
        for i in off:                                          # (3) rounder numbers
            for v in _round_candidates(float(t[i]), _digits(float(t[i]))):
                c = t.copy()
                c[i] = v
                yield c
        for i in off:                                          # (4) halfway to the default
            c = t.copy()
            c[i] = default[i] + (t[i] - default[i]) / 2
            yield c

    improved = True
    while improved and evals < max_evals:
        improved = False
        for cand in candidates(cur):
            if evals >= max_evals:
                break
            try:
                cand = project(cand)
            except Exception:
                continue
            if cand.shape != cur.shape or not np.all(np.isfinite(cand)):
                continue
            c_cost = complexity(cand, default)
            if c_cost >= cost:
                continue
            evals += 1
            got = _check(claim, cand)
            if got is not None:
                cur, cost, (lhs, rhs, status) = cand, c_cost, got
                steps += 1
                improved = True
                break                                          # restart from the simplest moves
    return Shrunk(theta=cur, lhs=lhs, rhs=rhs, status=status, evaluations=evals, steps=steps)


def point_from_names(point, names, default, *, of: str = "") -> np.ndarray:
    """θ from a ``{name: value}`` mapping: ``default`` with the named coordinates replaced.
    An unknown name or a value that is not a real number → ``ValueError`` (``of`` names the
    owner in the message)."""
    theta = np.asarray(default, dtype=float).copy()
    index = {n: i for i, n in enumerate(names)}
    for k, v in point.items():
        if k not in index:
            raise ValueError(f"point names an unknown coordinate {k!r}{of}; its coordinates are "
                             f"{list(names)[:12]}")
        try:
            theta[index[k]] = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"point[{k!r}] must be a real number, got {v!r:.60}") from None
    return theta


def point_from(claim, point) -> np.ndarray:
    """A full θ from a list of every coordinate, or a ``{name: value}`` dict
    (the other coordinates at the claim's ``default_point``)."""
    if isinstance(point, str):
        try:
            point = json.loads(point)
        except json.JSONDecodeError as exc:
            raise ValueError(f"point must be JSON (a list of numbers or an object of name: value), "
                             f"got {point[:80]!r}: {exc.msg}") from None
    if isinstance(point, dict):
        if claim.coordinates is None or claim.default_point is None:
            raise ValueError(f"claim {claim.id} has no named coordinates: give the point as a list of numbers")
        return point_from_names(point, claim.coordinates, claim.default_point, of=f" of claim {claim.id}")
    try:
        theta = np.asarray(point, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"point must be a list of numbers or a {{name: value}} object, got {point!r}") from None
    n = len(claim.default_point) if claim.default_point is not None else (
        len(claim.coordinates) if claim.coordinates is not None else None)
    if n is not None and theta.size != n:
        raise ValueError(f"point must have {n} coordinates for claim {claim.id}, got {theta.size}")
    if not np.all(np.isfinite(theta)):
        raise ValueError("point must be finite numbers")
    return theta


def reevaluate(claim, theta, *, dps: int = 50) -> dict:
    """Both sides of ``claim`` at ``theta`` in float64 and (if it has one) its
    mpmath evaluator at ``dps`` digits."""
    theta = np.asarray(theta, dtype=float).ravel()
    lhs, rhs = claim.evaluate(theta)
    lhs, rhs = float(lhs), float(rhs)
    out = {"claim": claim.id, "lhs": lhs, "rhs": rhs, "margin": lhs - rhs,
           "violates": violates(lhs, rhs, claim.atol, claim.rtol), "confirmed_mp": None}
    checked = confirm_mp(claim.evaluate_mp, theta, claim.atol, claim.rtol, dps=dps)
    if checked is not None:
        out.update(confirmed_mp=bool(checked[0]), lhs_mp=checked[1], rhs_mp=checked[2],
                   margin_mp=checked[1] - checked[2])
    return out


def counterexample_point(claim, theta) -> dict | list:
    """The point as it goes in a reproduce line: ``{name: value}`` of the
    non-default coordinates when the claim names them, else the full list."""
    theta = np.asarray(theta, dtype=float).ravel()
    if claim.coordinates is None or claim.default_point is None:
        return [float(v) for v in theta]
    default = np.asarray(claim.default_point, dtype=float)
    return {n: float(v) for n, v, d in zip(claim.coordinates, theta, default) if v != d}


def reproduce_line(claim, theta, *, origin: str = "") -> str:
    """``theorycheck reproduce [ORIGIN] ID --point '<json>'`` — re-evaluates the point
    (``origin``: the claims file or ``-m module`` the claim comes from)."""
    point = json.dumps(counterexample_point(claim, theta), separators=(", ", ": "))
    where = f"{origin} " if origin else ""
    return f"theorycheck reproduce {where}{claim.id} --point '{point}'"


def shrink_result(claim, result, prefix, seed: int):
    """``result`` (a refuted inequality verdict) with its ``worst_point`` replaced
    by the shrunk counterexample: ``{"counterexample": non-default coordinates,
    "lhs", "rhs", "margin", "confirmed_by", "non_default", "seed", "reproduce",
    "search_worst": the search's worst point}``."""
    import dataclasses

    from .registry import claim_origin

    best = max(prefix, key=lambda s: (int(s[3]) > 0, s[4] if not math.isnan(s[4]) else -math.inf))
    theta = np.asarray(best[7:], dtype=float)
    if int(best[3]) == 0 or theta.size == 0:
        return result
    try:
        sh = shrink(claim, theta)
    except ValueError:
        return result
    named = claim.describe_point(sh.theta) if claim.describe_point is not None else sh.theta.tolist()
    point = {"counterexample": counterexample_point(claim, sh.theta), "lhs": sh.lhs, "rhs": sh.rhs,
             "margin": sh.margin, "confirmed_by": STATUS[sh.status],
             "non_default": int(complexity(sh.theta, claim.default_point)[0]), "point": named,
             "seed": int(seed), "shrink_evaluations": sh.evaluations,
             "reproduce": reproduce_line(claim, sh.theta, origin=claim_origin(claim.id)),
             "search_worst": result.worst_point}
    return dataclasses.replace(result, worst_point=point)
