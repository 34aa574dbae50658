"""One way to time things on a shared machine: two codes interleaved, a ratio per round.

A :class:`Comparison` pairs the code under test (``run_a``) with a reference of
equal work (``run_b``: the NumPy version, an RNG or memory-copy "roofline"
operation doing the same number of draws/bytes, another algorithm).  A single
timing on a loaded 2-core machine says more about the other jobs than about the
code, but load that lasts a few seconds hits A and B of the same round alike, so
:func:`measure` runs them **interleaved** and decides on the per-round ratio

    ratio_r = time_b,r / time_a,r        (> 1: A is faster than B)

Round ``r`` runs A then B for even ``r`` and B then A for odd ``r`` (an A,B,B,A,…
pattern: a slow drift in load then favours neither side).  Reported: min, median
and max over rounds of each time and of the ratio, and a distribution-free
interval for the median ratio (:func:`median_interval`: order statistics, ≥ 95 %
when there are ≥ 6 rounds, treating the rounds' ratios as independent draws).  The
verdict has three values, like the toolkit's own:

* **MET** — the whole interval is at or above the target;
* **NOT MET** — the whole interval is below it;
* **UNSETTLED** — the target lies inside the interval: the round-to-round spread
  is larger than the distance to the target, and another run could land either
  side (the median is printed; more rounds or an idle machine narrow it).

A MET and a NOT MET of the same comparison in two runs contradict each other; an
UNSETTLED in one of them does not.  ``setup`` (e.g. a numba compilation or a
warm-up run) is called once, untimed, before the first round.

Used by ``python -m bench`` (:mod:`bench.run_all`); every bench module exposes
``comparisons(quick: bool) -> list[Comparison]``.
"""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable

__all__ = ["Comparison", "measure", "format_result", "spread", "median_interval", "COVERAGE"]

#: coverage aimed at by :func:`median_interval`
COVERAGE = 0.95


@dataclass
class Comparison:
    """Code under test ``run_a`` against reference ``run_b`` (equal work), with a speed-ratio target.

    ``target``: the comparison is MET iff the median over rounds of
    ``time_b / time_a`` is at least ``target`` (``> 1`` means A must be faster;
    ``0.5`` for "A reaches half of B's rate", e.g. half of a roofline).
    ``work`` says what one call does (printed); ``setup`` runs once, untimed.
    """

    name: str
    run_a: Callable[[], object]
    run_b: Callable[[], object]
    target: float
    work: str = ""
    setup: Callable[[], None] | None = None


def spread(values) -> dict:
    """``{"min", "median", "max"}`` of a non-empty sequence."""
    v = list(values)
    return {"min": min(v), "median": statistics.median(v), "max": max(v)}


def median_interval(values, coverage: float = COVERAGE) -> tuple:
    """``(lo, hi, achieved)``: the order statistics ``(x_(k), x_(n+1−k))`` of ``values`` with the
    largest ``k`` whose coverage of the median, ``1 − 2·P(Bin(n, ½) ≤ k − 1)``, is at least
    ``coverage`` (sign-test interval; e.g. ``n = 9``: ``(x_(2), x_(8))``, 96.1 %).  With too few
    values for that (``n ≤ 5`` at 95 %) it is ``(min, max)`` and ``achieved`` says how much less
    it covers (``1 − 2^{1−n}``)."""
    x = sorted(values)
    n = len(x)
    if n == 0:
        raise ValueError("median_interval needs at least one value")

    def cover(k):                       # 1 - 2 P(Bin(n, 1/2) <= k - 1)
        return 1.0 - 2.0 * sum(math.comb(n, i) for i in range(k)) / 2.0 ** n

    k = 1
    while k + 1 <= (n + 1) // 2 and cover(k + 1) >= coverage:
        k += 1
    return x[k - 1], x[n - k], cover(k)


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(cmp: Comparison, rounds: int = 7) -> dict:
    """Time ``cmp.run_a`` and ``cmp.run_b`` interleaved over ``rounds`` rounds.

    Returns ``{"name", "work", "target", "rounds", "time_a", "time_b", "ratio",
    "ratios", "interval", "verdict", "met"}`` with ``time_a``/``time_b``/``ratio`` each a
    :func:`spread` (seconds; ratio = time_b/time_a per round), ``interval`` =
    ``{"lo", "hi", "coverage"}`` of :func:`median_interval`, ``verdict`` one of
    ``"MET"``, ``"NOT MET"``, ``"UNSETTLED"`` (module docstring) and ``met`` =
    ``verdict == "MET"``.
    """
    if not isinstance(cmp, Comparison):
        raise TypeError(f"cmp must be a Comparison, got {type(cmp).__name__}")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be an integer >= 1, got {rounds!r}")
    if not (cmp.target > 0):
        raise ValueError(f"target must be a positive speed ratio, got {cmp.target!r}")
    if cmp.setup is not None:
        cmp.setup()
    ta, tb = [], []
    for r in range(rounds):
        if r % 2 == 0:
            ta.append(_time(cmp.run_a))
            tb.append(_time(cmp.run_b))
        else:
            tb.append(_time(cmp.run_b))
            ta.append(_time(cmp.run_a))
    ratios = [b / a if a > 0 else float("inf") for a, b in zip(ta, tb)]
    rs = spread(ratios)
    lo, hi, cov = median_interval(ratios)
    verdict = "MET" if lo >= cmp.target else "NOT MET" if hi < cmp.target else "UNSETTLED"
    return {"name": cmp.name, "work": cmp.work, "target": float(cmp.target), "rounds": rounds,
            "time_a": spread(ta), "time_b": spread(tb), "ratio": rs, "ratios": ratios,
            "interval": {"lo": lo, "hi": hi, "coverage": cov}, "verdict": verdict,
            "met": verdict == "MET"}


def format_result(res: dict) -> str:
    """One line: ratio median, its interval (with coverage) and [min, max], target, verdict, the
    median times."""
    r = res["ratio"]
    iv = res["interval"]
    return (f"{res['name']}: ratio {r['median']:.3g}, {iv['coverage']:.0%} interval "
            f"[{iv['lo']:.3g}, {iv['hi']:.3g}] (range [{r['min']:.3g}, {r['max']:.3g}], {res['rounds']} "
            f"rounds), target >= {res['target']:g}: {res['verdict']}  (A {res['time_a']['median'] * 1e3:.1f} ms, "
            f"B {res['time_b']['median'] * 1e3:.1f} ms)")
