"""The operating characteristic of every claim kind, measured on this machine.

``theorycheck calibrate`` (or ``python -m theorycheck.calibrate``) runs, for
each kind, synthetic claims whose truth sits *exactly on the boundary* — so
that every decisive verdict is wrong — ``reps`` times with seeds
``0..reps−1``, and prints the rate of wrong verdicts with its exact
Clopper–Pearson 95 % interval next to the rate the guarantee promises.  For
search kinds (inequality, identity) it prints the detection rate of planted
violations of known size.  ``tests/calibration/`` asserts the same cells.

Cells (α is the verdict level; "one-sided" = α/2):

=================================  ===================================  =====================
cell                               truth on the boundary                promise
=================================  ===================================  =====================
comparison, declared bounds        Bernoulli(0.1), Beta(0.5, 5),        wrong ≤ α (anytime)
                                   two-point heavy tail; E d = thr
comparison, no bounds (Hall)       Exp(1) − 1, thr = 0                  wrong "holds" ≤ 2·α/2
scaling, noisy replicates          y = x^a·e^{σZ}, a = window edge      wrong ≤ α (asymptotic)
probability anytime / fixed        Bernoulli(δ)                         wrong ≤ α
probability anytime + resume       budget doubled until decisive        wrong ≤ α
probability fixed + extend         budget doubled after a look          refused, so wrong ≤ α
probability CS coverage            p = δ/2, stop when decided           miss ≤ α
inequality power                   planted violation of volume v        detection rate
=================================  ===================================  =====================

The acceptance rule of a rate cell (used by the tests) is fixed before the
data: with ``R`` replications and promised rate ``r``, pass when
``wrong ≤ c``, ``c`` the smallest count with ``P(Binom(R, r) > c) ≤ 10⁻³``
(:func:`acceptance_count`); :func:`power_at` reports the probability that a
rate of ``1.5·r`` would be caught.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
import time
from typing import Callable

import numpy as np
from scipy import stats as _st

from proofs_check.engine import (ComparisonClaim, InequalityClaim, ProbabilityClaim, ScalingClaim,
                     verify_claim)
from proofs_check.engine.stats import clopper_pearson
from proofs_check.selftest.samplers import bernoulli_events

__all__ = ["Cell", "CELLS", "acceptance_count", "power_at", "run_cell", "main"]

FALSE_ALARM = 1e-3


# -- samplers (module level: picklable) --------------------------------------

def bernoulli_diffs(rng, n, *, p):
    return (rng.random(n) < p).astype(float)


def beta_diffs(rng, n, *, a, b):
    return rng.beta(a, b, n)


def two_point_diffs(rng, n, *, big, q):
    """``big`` with probability ``q``, else 0: mean ``big·q``, a heavy right tail."""
    return np.where(rng.random(n) < q, float(big), 0.0)


def exp_minus_one(rng, n):
    return rng.exponential(1.0, n) - 1.0


def noisy_power_law(rng, n, *, a, sigma, x):
    x = np.asarray(x, float)
    return x ** a * np.exp(sigma * rng.standard_normal((n, x.size)))


def exact_power_law(rng, n, *, a, x):
    x = np.asarray(x, float)
    return np.tile(x ** a * (1 + 0.1 / x), (n, 1))


def unit_square(rng):
    return rng.random(2)


def clip01(theta):
    return np.clip(theta, 0.0, 1.0)


def planted_box(theta, *, side):
    """``lhs ≤ rhs`` on ``[0,1]²`` with a 1 % violation on the box
    ``[0.6, 0.6 + side]²`` (volume ``side²``), and lhs/rhs ≤ 0.9 elsewhere."""
    x, y = float(theta[0]), float(theta[1])
    inside = 0.6 <= x <= 0.6 + side and 0.6 <= y <= 0.6 + side
    return (1.01 if inside else 0.9 - 0.1 * ((x - 0.3) ** 2 + (y - 0.3) ** 2)), 1.0


# -- cells -------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Cell:
    """One cell of the operating characteristic.

    ``trial(seed, alpha) -> bool`` runs one replication and returns whether
    the event counted (a wrong verdict, a miss, a detection or a refusal);
    ``promise(alpha)`` is the rate the guarantee promises (for ``"rate"``
    cells: an upper bound; for ``"power"`` cells: ``None``, reported only).
    """

    kind: str
    name: str
    what: str
    trial: Callable[[int, float], bool]
    promise: Callable[[float], float | None]
    slow: bool = False
    info: dict = dataclasses.field(default_factory=dict)


def _decisive(r) -> bool:
    return r.verdict != "inconclusive"


def _comparison_trial(fn, threshold, bounds, n, seed, alpha):
    c = ComparisonClaim(id="calibrate.comparison", statement="E d < thr", source="calibration",
                        label="DERIVED", fn=fn, threshold=threshold, bounds=bounds,
                        chunk_size=min(n, 100))
    return _decisive(verify_claim(c, budget=n, seed=seed, alpha=alpha))


def _hall_trial(n, seed, alpha):
    c = ComparisonClaim(id="calibrate.hall", statement="E d < 0", source="calibration",
                        label="DERIVED", fn=exp_minus_one, threshold=0.0, chunk_size=min(n, 100))
    r = verify_claim(c, budget=n, seed=seed, alpha=alpha)
    if r.guarantee != "asymptotic":
        raise AssertionError(f"comparison without bounds must say 'asymptotic', got {r.guarantee!r}")
    return r.verdict == "holds"              # the direction right skew pushes it


X_GRID = (2.0, 4.0, 8.0, 16.0, 32.0, 64.0)


def _scaling_trial(reps, seed, alpha):
    c = ScalingClaim(id="calibrate.scaling", statement="y ~ x^a, a ∈ [1, 2]", source="calibration",
                     label="DERIVED", fn=functools.partial(noisy_power_law, a=2.0, sigma=0.3, x=X_GRID),
                     x=X_GRID, exponent_lo=1.0, exponent_hi=2.0)
    return _decisive(verify_claim(c, budget=reps, seed=seed, alpha=alpha))


def _probability_claim(p, delta, chunk_size=500):
    return ProbabilityClaim(id="calibrate.probability", statement="P(X = 1) ≤ δ", source="calibration",
                            label="DERIVED", fn=functools.partial(bernoulli_events, p=p), delta=delta,
                            chunk_size=chunk_size)


def _probability_trial(method, budget, seed, alpha):
    return _decisive(verify_claim(_probability_claim(0.1, 0.1), budget=budget, seed=seed,
                                  alpha=alpha, method=method))


def _resume_trial(method, seed, alpha):
    """Run 2 000 trials, look, double the budget and look again, up to 32 000:
    a wrong verdict at any look counts (what a user chasing a verdict does).
    With ``method="fixed"`` the engine refuses the second look, so the chase
    ends at the first (inconclusive) verdict."""
    import tempfile

    claim = _probability_claim(0.1, 0.1)
    with tempfile.TemporaryDirectory() as out:
        budget = 2_000
        r = verify_claim(claim, budget=budget, seed=seed, alpha=alpha, method=method, out=out)
        while r.verdict == "inconclusive" and budget < 32_000:
            budget *= 2
            try:
                r = verify_claim(claim, budget=budget, seed=seed, alpha=alpha, method=method,
                                 out=out, resume=True)
            except ValueError:
                if method != "fixed":
                    raise
                return False                 # refused: the chase ends, inconclusive
        return _decisive(r)


def _coverage_trial(seed, alpha):
    """p = 0.05 < δ = 0.1: the run stops when decided; does the reported
    anytime interval miss p at the stopping time?"""
    r = verify_claim(_probability_claim(0.05, 0.1, chunk_size=200), budget=40_000, seed=seed,
                     alpha=alpha)
    return not (r.ci[0] <= 0.05 <= r.ci[1])


def _inequality_trial(side, budget, seed, alpha):
    c = InequalityClaim(id="calibrate.inequality", statement="lhs ≤ rhs", source="calibration",
                        label="DERIVED", sample=unit_square, evaluate=functools.partial(planted_box, side=side),
                        project=clip01, chunk_size=min(budget, 200))
    return verify_claim(c, budget=budget, seed=seed, alpha=alpha).verdict == "refuted"


def _cells() -> list[Cell]:
    cells = []
    bounded = (("Bernoulli(0.1)", functools.partial(bernoulli_diffs, p=0.1), 0.1, (0.0, 1.0)),
               ("Beta(0.5,5)", functools.partial(beta_diffs, a=0.5, b=5.0), 0.5 / 5.5, (0.0, 1.0)),
               ("two-point 100·Bern(0.01)", functools.partial(two_point_diffs, big=100.0, q=0.01), 1.0,
                (0.0, 100.0)))
    for label, fn, thr, bounds in bounded:
        for n in (10, 40, 200):
            cells.append(Cell("comparison", f"bounds, {label}, n={n}", "decisive verdict at E d = thr",
                              functools.partial(_comparison_trial, fn, thr, bounds, n),
                              lambda a: a, slow=n == 200 or not label.startswith("Bern")))
    for n in (40, 200):
        cells.append(Cell("comparison", f"no bounds (Hall), Exp(1)−1, n={n}",
                          "wrong 'holds' at E d = thr", functools.partial(_hall_trial, n),
                          lambda a: a, slow=n == 200))
    for reps in (3, 10):
        cells.append(Cell("scaling", f"noisy replicates, R={reps}", "decisive verdict at a = edge",
                          functools.partial(_scaling_trial, reps), lambda a: a, slow=reps == 10))
    cells += [
        Cell("probability", "anytime, budget 20 000", "decisive verdict at p = δ",
             functools.partial(_probability_trial, "anytime", 20_000), lambda a: a),
        Cell("probability", "fixed, budget 4 000", "decisive verdict at p = δ",
             functools.partial(_probability_trial, "fixed", 4_000), lambda a: a, slow=True),
        Cell("probability", "anytime + resume ×2 until decisive", "decisive verdict at any look",
             functools.partial(_resume_trial, "anytime"), lambda a: a, slow=True),
        Cell("probability", "fixed + extend ×2 until decisive", "decisive verdict at any look",
             functools.partial(_resume_trial, "fixed"), lambda a: a, slow=True),
        Cell("probability", "anytime CS coverage at stop", "interval misses p",
             _coverage_trial, lambda a: a),
    ]
    for side in (0.1, 0.03):
        for budget in (200, 1000):
            cells.append(Cell("inequality", f"planted 1% violation, volume {side * side:g}, "
                                            f"{budget} evaluations", "violation detected",
                              functools.partial(_inequality_trial, side, budget), lambda a: None,
                              slow=budget == 1000, info={"volume": side * side, "evaluations": budget}))
    return cells


CELLS = _cells()


def acceptance_count(reps: int, rate: float, false_alarm: float = FALSE_ALARM) -> int:
    """Smallest ``c`` with ``P(Binom(reps, rate) > c) ≤ false_alarm``."""
    return int(_st.binom.isf(false_alarm, reps, rate))


def power_at(reps: int, rate: float, factor: float = 1.5) -> float:
    """Probability that a true rate of ``factor·rate`` exceeds the acceptance count."""
    c = acceptance_count(reps, rate)
    return float(_st.binom.sf(c, reps, min(1.0, factor * rate)))


def run_cell(cell: Cell, reps: int, alpha: float, progress: Callable[[int], None] | None = None) -> dict:
    """Run ``reps`` replications (seeds ``0..reps−1``); a plain-JSON summary."""
    t0 = time.perf_counter()
    hits = 0
    for s in range(reps):
        hits += bool(cell.trial(s, alpha))
        if progress is not None:
            progress(s + 1)
    promise = cell.promise(alpha)
    lo, hi = clopper_pearson(hits, reps, 0.05)
    out = {"kind": cell.kind, "cell": cell.name, "event": cell.what, "reps": reps, "alpha": alpha,
           "count": hits, "rate": hits / reps, "ci95": (lo, hi), "promise": promise,
           "seconds": round(time.perf_counter() - t0, 2)}
    if promise is not None:
        c = acceptance_count(reps, promise)
        out.update(accept_max=c, ok=hits <= c, power_at_1_5x=power_at(reps, promise))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="theorycheck calibrate",
                                description="Measure the wrong-verdict rate of every claim kind "
                                            "with the truth on the boundary.")
    p.add_argument("--reps", type=int, default=1000, metavar="N", help="replications per cell (default 1000)")
    p.add_argument("--alpha", type=float, default=0.2,
                   help="verdict level α (default 0.2: rates are measurable with 1000 reps)")
    p.add_argument("--quick", action="store_true", help="only the fast cells")
    p.add_argument("--kind", action="append", help="only these kinds (repeatable)")
    p.add_argument("--json", action="store_true", help="one JSON object per cell")
    args = p.parse_args(argv)
    if args.reps < 1 or args.reps > 10_000_000:
        p.error(f"--reps must be an integer in [1, 10000000], got {args.reps}")
    if not 0 < args.alpha < 1:
        p.error(f"--alpha must lie in (0, 1), got {args.alpha}")
    import json

    cells = [c for c in CELLS if (not args.quick or not c.slow) and (not args.kind or c.kind in args.kind)]
    if not cells:
        p.error("no calibration cell matches --kind")
    failed = 0
    if not args.json:
        print(f"operating characteristic at α = {args.alpha}, {args.reps} replications per cell "
              f"(seeds 0..{args.reps - 1}); 95% Clopper–Pearson intervals")
        print(f"{'kind':<12} {'cell':<52} {'event':<30} {'rate':>7} {'95% CI':>17} {'promise':>8}  ok")
    for cell in cells:
        if sys.stderr.isatty():
            print(f"  running {cell.kind}: {cell.name} ...", file=sys.stderr, end="\r", flush=True)
        r = run_cell(cell, args.reps, args.alpha)
        failed += r.get("ok") is False
        if args.json:
            print(json.dumps(r, ensure_ascii=False), flush=True)
            continue
        prom = "—" if r["promise"] is None else f"≤{r['promise']:.3g}"
        ok = "" if "ok" not in r else ("yes" if r["ok"] else "NO")
        print(f"{r['kind']:<12} {r['cell']:<52} {r['event']:<30} {r['rate']:7.4f} "
              f"[{r['ci95'][0]:.4f}, {r['ci95'][1]:.4f}] {prom:>8}  {ok}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
