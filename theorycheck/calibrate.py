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
comparison, bounds, hostile        clip(N(0,1), ±5) + 50·Bern(0.01),    wrong ≤ α (anytime)
                                   Pareto(1.1) on [1, 1000], t(2)
                                   clipped to ±100; E d = thr
comparison, no bounds (Hall)       Exp(1) − 1, thr = 0                  wrong "holds" ≤ 2·α/2
comparison, variance bound         N(0,1)+50·Bern(0.01), Pareto(2.5);   wrong ≤ α (anytime)
                                   E d = thr, Var d = declared bound
scaling, noisy replicates          y = x^a·e^{σZ}, a = window edge      wrong ≤ α (asymptotic)
                                   (estimand log-mean, and mean)
scaling, quantised                 y = x or x² (p = 0.1) per replicate; wrong "holds" ≤ α/2
                                   E log y slope 1.1 ∉ [0.9, 1.05]
probability anytime / fixed        Bernoulli(δ)                         wrong ≤ α
probability anytime + resume       budget doubled until decisive        wrong ≤ α
probability fixed + extend         budget doubled after a look          refused, so wrong ≤ α
probability CS coverage            p = δ/2, stop when decided           miss ≤ α
probability same-seed re-run       --fixed budget doubled, same seed,   refused, so wrong ≤ α
                                   fresh runs in one --out
probability clustered trials       clusters of 10 at p = δ              warned ≥ 0.25 (floor)
probability clustered, runs of 2   undeclared / cluster=2 declared      none (premise violated)
                                   (p = δ)                              / wrong ≤ α
comparison, false variance bound   N(0,1)+50·Bern(0.01), bound 1 (true  none (premise violated)
                                   25.75), E d = thr                    / premise printed: always
probability API same-seed re-run   --fixed ×2, same seed, out=None      none (premise violated)
                                                                        / re-look labelled: always
inequality power                   planted violation of volume v        detected ≥ 1 − (1 − v)^(B/2)
inequality certified               planted near-miss (x−c)² ≥ ε·s       detection ≥ 0.99,
                                                                        never "proved"
identity cancellation              true identities that cancel in       refuted = 0
                                   float64, with/without a 50-digit twin
inequality near-miss               f ≤ 0, f ≤ ε = 1e-6 on a ball of     detected ≥ 1 − (1 − v)^(B/2)
                                   volume 1e-3 in [0,1]⁴
=================================  ===================================  =====================

Every cell runs at each verdict level α ∈ :data:`ALPHAS` = (0.01, 0.05, 0.2)
(``--alpha``/``--alphas`` choose others; ``--quick`` alone runs α = 0.2) and
states its promise at each (:func:`promise_of`; a cell without one fails).
The acceptance rule of a rate cell (used by the tests) is fixed before the
data: with ``R`` replications and promised rate ``r``, pass when
``wrong ≤ c``, ``c`` the smallest count with ``P(Binom(R, r) > c) ≤ 10⁻³``
(:func:`acceptance_count`); :func:`power_at` reports the probability that a
rate of ``1.5·r`` would be caught.  A power cell promises a floor ``f`` on its
detection rate and passes with at least :func:`floor_count` ``(R, f)``
detections (``P(Binom(R, f) < c) ≤ 10⁻³``).  Each row prints its promise and
its rule; ``--json`` adds the theorem it rests on (``basis``).
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

__all__ = ["Cell", "CELLS", "ALPHAS", "acceptance_count", "floor_count", "power_at", "promise_of", "run_cell", "main"]

FALSE_ALARM = 1e-3


# -- samplers (module level: picklable) --------------------------------------

def bernoulli_diffs(rng, n, *, p):
    return (rng.random(n) < p).astype(float)


def beta_diffs(rng, n, *, a, b):
    return rng.beta(a, b, n)


def two_point_diffs(rng, n, *, big, q):
    """``big`` with probability ``q``, else 0: mean ``big·q``, a heavy right tail."""
    return np.where(rng.random(n) < q, float(big), 0.0)


def outlier_mixture_bounded(rng, n, *, big=50.0, q=0.01, clip=5.0):
    """``clip(N(0, 1), ±clip) + big·Bernoulli(q)`` in ``[−clip, clip + big]``: mean ``big·q``
    exactly (the clipped normal is symmetric) — the rare-outlier mixture of issue 21 item 2,
    made bounded so that a declared ``bounds`` is true."""
    return np.clip(rng.standard_normal(n), -clip, clip) + big * (rng.random(n) < q)


def truncated_pareto(rng, n, *, a, top):
    """Pareto(x_m = 1, shape ``a``) truncated to ``[1, top]`` (inverse CDF): a heavy right tail."""
    u = rng.random(n)
    return (1.0 - u * (1.0 - top ** -a)) ** (-1.0 / a)


def truncated_pareto_mean(a: float, top: float) -> float:
    """``E X`` of :func:`truncated_pareto`: ``a/(a − 1) · (1 − top^{1−a})/(1 − top^{−a})`` (a ≠ 1)."""
    return a / (a - 1.0) * (1.0 - top ** (1.0 - a)) / (1.0 - top ** -a)


def clipped_t(rng, n, *, df, clip):
    """Student t with ``df`` degrees of freedom clipped to ``[−clip, clip]``: mean 0 by symmetry."""
    return np.clip(rng.standard_t(df, n), -clip, clip)


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
    ``promise(alpha)`` is the rate the guarantee promises — an upper bound on
    the event's probability (pass rule: :func:`acceptance_count`).  A power
    cell (a detection rate) has ``promise(alpha) = None`` and a ``floor(alpha)``
    instead: a lower bound on the detection probability (pass rule:
    :func:`floor_count`).  Every cell states one of the two at every α, fixed
    before the data; a cell with neither fails (:func:`promise_of`) — except a
    cell that names the premise its data violate (``violated``): the guarantee
    does not cover it, so its row says "premise violated: no promise" and only
    reports the rate (issue 31: what the output says about such runs is a
    companion cell with a promise of its own).
    ``basis`` names the theorem or argument the promise rests on.
    """

    kind: str
    name: str
    what: str
    trial: Callable[[int, float], bool]
    promise: Callable[[float], float | None]
    slow: bool = False
    info: dict = dataclasses.field(default_factory=dict)
    floor: Callable[[float], float | None] | None = None
    basis: str = ""
    #: a cell whose data violate a premise of the guarantee on purpose (clustered trials, a false
    #: declared bound, a re-used seed): the premise, and the row is reported as "premise violated:
    #: no promise" (its rate measured, nothing asserted) instead of a rate or a floor
    violated: str = ""


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
                     x=X_GRID, exponent_lo=1.0, exponent_hi=2.0, estimand="log-mean")
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
    betting = ("anytime-valid betting CS (Waudby-Smith & Ramdas 2024, JRSS-B 86; Ville's inequality): "
               "at E d = thr a decisive verdict has probability ≤ α, for every distribution on the bounds")
    for label, fn, thr, bounds in bounded:
        for n in (10, 40, 200):
            cells.append(Cell("comparison", f"bounds, {label}, n={n}", "decisive verdict at E d = thr",
                              functools.partial(_comparison_trial, fn, thr, bounds, n),
                              lambda a: a, slow=n == 200 or not label.startswith("Bern"), basis=betting))
    # hostile cells for the bounds route (issue 21 items 2 and 12): rare outliers and heavy tails,
    # bounded so the declaration is true; E d = thr exactly.  Promise α, as for every bounded cell.
    hostile = (("outliers N(0,1)±5 + 50·Bern(0.01)", outlier_mixture_bounded, 0.5, (-5.0, 55.0)),
               ("heavy tail Pareto(1.1) on [1, 1000]",
                functools.partial(truncated_pareto, a=1.1, top=1000.0), truncated_pareto_mean(1.1, 1000.0),
                (1.0, 1000.0)),
               ("heavy tail t(2) clipped to ±100", functools.partial(clipped_t, df=2.0, clip=100.0), 0.0,
                (-100.0, 100.0)))
    for label, fn, thr, bounds in hostile:
        for n in (40, 200):
            cells.append(Cell("comparison", f"bounds, {label}, n={n}", "decisive verdict at E d = thr",
                              functools.partial(_comparison_trial, fn, thr, bounds, n),
                              lambda a: a, slow=n == 200, basis=betting))
    for n in (40, 200):
        cells.append(Cell("comparison", f"no bounds (Hall), Exp(1)−1, n={n}",
                          "wrong 'holds' at E d = thr", functools.partial(_hall_trial, n),
                          lambda a: a, slow=n == 200,
                          basis="asymptotic (Hall 1992): one-sided miss ≈ α/2 for large n on this "
                                "distribution; no finite-sample guarantee — the promise is α (2·α/2)"))
    for reps in (3, 10):
        cells.append(Cell("scaling", f"noisy replicates, R={reps}", "decisive verdict at a = edge",
                          functools.partial(_scaling_trial, reps), lambda a: a, slow=reps == 10,
                          basis="Student t-interval over replicate slopes: exact for Gaussian slopes "
                                "(log-normal noise makes them Gaussian here)"))
    ville = "test supermartingale (mixture likelihood ratio) and Ville's inequality"
    cells += [
        Cell("probability", "anytime, budget 20 000", "decisive verdict at p = δ",
             functools.partial(_probability_trial, "anytime", 20_000), lambda a: a, basis=ville),
        Cell("probability", "fixed, budget 4 000", "decisive verdict at p = δ",
             functools.partial(_probability_trial, "fixed", 4_000), lambda a: a, slow=True,
             basis="exact Clopper–Pearson interval at a budget fixed in advance"),
        Cell("probability", "anytime + resume ×2 until decisive", "decisive verdict at any look",
             functools.partial(_resume_trial, "anytime"), lambda a: a, slow=True,
             basis=ville + ": valid at any stopping time, so at every look"),
        Cell("probability", "fixed + extend ×2 until decisive", "decisive verdict at any look",
             functools.partial(_resume_trial, "fixed"), lambda a: a, slow=True,
             basis="the engine refuses a second look at a fixed-sample run, so only the first "
                   "(Clopper–Pearson) look counts"),
        Cell("probability", "anytime CS coverage at stop", "interval misses p",
             _coverage_trial, lambda a: a, basis="confidence sequence inverting the e-values; Ville"),
    ]
    for side in (0.1, 0.03):
        for budget in (200, 1000):
            cells.append(Cell("inequality", f"planted 1% violation, volume {side * side:g}, "
                                            f"{budget} evaluations", "violation detected",
                              functools.partial(_inequality_trial, side, budget), lambda a: None,
                              slow=budget == 1000, info={"volume": side * side, "evaluations": budget},
                              floor=functools.partial(random_phase_detection, side * side, budget),
                              basis="the search's random half alone detects a region of volume v with "
                                    "probability 1 − (1 − v)^(evaluations/2)"))
    return cells


def random_phase_detection(volume: float, evaluations: int, alpha: float | None = None) -> float:
    """What the random half of a search alone detects: ``1 − (1 − volume)^(evaluations // 2)``
    (the floor promised for the inequality power cells; independent of α)."""
    return 1.0 - (1.0 - volume) ** (evaluations // 2)


CELLS = _cells()


# -- scaling, quantised replicates (issue 21 item 1): ties are not determinism ------------------
# y = x w.p. 0.9, x² w.p. 0.1 per replicate, so a replicate's slope is 1 or 2 and
# E log y = 1.1·log x, outside the window [0.9, 1.05]: a "holds" is wrong.  Before issue 21 all-equal
# replicates were decided as deterministic (wrong "holds" 72.9 % at R = 3, 35.4 % at R = 10).
# Promise, fixed before the data: wrong "holds" ≤ α/2 (the one-sided error of a two-sided level-α
# t-interval; the truth lies beyond the window's edge, so a fortiori), never labelled deterministic.
# Pass rule: the module's acceptance count (P(Binom(R, α/2) > c) ≤ 10⁻³).

def quantised_power_law(rng, n, *, x, p=0.1):
    """``n`` replicates over ``x``: each is ``x`` with probability ``1 − p``, else ``x²``."""
    x = np.asarray(x, float)
    square = rng.random(n) < p
    return np.where(square[:, None], x ** 2, x) * np.ones((n, x.size))


def _mean_scaling_trial(reps, seed, alpha):
    """The noisy-replicates cell under ``estimand="mean"`` (the default): E y = e^{σ²/2}·x², so
    the slope of log E y is 2, the window's edge."""
    c = ScalingClaim(id="calibrate.scaling.mean", statement="E y ∝ x^a, a ∈ [1, 2]", source="calibration",
                     label="DERIVED", fn=functools.partial(noisy_power_law, a=2.0, sigma=0.3, x=X_GRID),
                     x=X_GRID, exponent_lo=1.0, exponent_hi=2.0, estimand="mean")
    return _decisive(verify_claim(c, budget=reps, seed=seed, alpha=alpha))


def _quantised_scaling_trial(reps, seed, alpha):
    c = ScalingClaim(id="calibrate.scaling.quantised", statement="E log y ∝ a log x, a ∈ [0.9, 1.05]",
                     source="calibration", label="DERIVED", estimand="log-mean",
                     fn=functools.partial(quantised_power_law, x=X_GRID), x=X_GRID,
                     exponent_lo=0.9, exponent_hi=1.05)
    r = verify_claim(c, budget=reps, seed=seed, alpha=alpha)
    if r.guarantee == "deterministic":
        raise AssertionError("random replicates must never be decided as deterministic")
    return r.verdict == "holds"


for _reps in (3, 10):
    CELLS.append(Cell("scaling", f"quantised y ∈ {{x, x²}} w.p. 0.9/0.1, R={_reps}",
                      "wrong 'holds' (E log y slope 1.1)",
                      functools.partial(_quantised_scaling_trial, _reps), lambda a: a / 2,
                      basis="one side of a level-α t-interval over replicate slopes (asymptotic); "
                            "replicates with no spread are inconclusive: R equal draws cannot bound "
                            "a mean (Bahadur & Savage 1956)"))
    CELLS.append(Cell("scaling", f"noisy replicates, estimand mean, R={_reps}",
                      "decisive verdict at a = edge", functools.partial(_mean_scaling_trial, _reps),
                      lambda a: a, slow=_reps == 10,
                      basis="delta-method t-interval for the slope of log E y (asymptotic; "
                            "van der Vaart 1998 §3.1)"))


# -- comparison, declared variance bound (issue 21 item 2): heavy tails at the boundary --------
# Truth on the boundary twice over: E d = thr exactly and Var d = the declared bound exactly.
# Promise, fixed before the data: a decisive verdict (either direction) with probability ≤ α
# (Catoni-style confidence sequence, Wang & Ramdas 2023; docs/theory/engine.md §2.3b).  Pass rule:
# the module's acceptance count (P(Binom(R, α) > c) ≤ 10⁻³).

def outlier_normal_diffs(rng, n, *, big=50.0, q=0.01):
    """``N(0, 1) + big·Bernoulli(q)``: mean ``big·q``, variance ``1 + big²·q·(1 − q)``."""
    return rng.standard_normal(n) + big * (rng.random(n) < q)


def pareto_diffs(rng, n, *, a=2.5):
    """Pareto(x_m = 1, a): mean ``a/(a − 1)``, variance ``a/((a − 1)²(a − 2))`` (a > 2)."""
    return rng.pareto(a, n) + 1.0


def _variance_bound_trial(fn, thr, var, n, seed, alpha):
    c = ComparisonClaim(id="calibrate.catoni", statement="E d < thr", source="calibration",
                        label="DERIVED", fn=fn, threshold=thr, variance_bound=var, chunk_size=min(n, 100))
    r = verify_claim(c, budget=n, seed=seed, alpha=alpha)
    if r.guarantee != "anytime-valid" or r.method != "catoni":
        raise AssertionError(f"a declared variance bound must give the Catoni route, got {r.method!r}")
    return _decisive(r)


for _label, _fn, _mean, _var, _n in (
        ("N(0,1)+50·Bern(0.01)", outlier_normal_diffs, 0.5, 1.0 + 2500.0 * 0.01 * 0.99, 40),
        ("N(0,1)+50·Bern(0.01)", outlier_normal_diffs, 0.5, 1.0 + 2500.0 * 0.01 * 0.99, 200),
        ("Pareto(2.5)", pareto_diffs, 2.5 / 1.5, 2.5 / (1.5 ** 2 * 0.5), 200)):
    CELLS.append(Cell("comparison", f"variance bound (Catoni), {_label}, n={_n}",
                      "decisive verdict at E d = thr, Var d = bound",
                      functools.partial(_variance_bound_trial, _fn, _mean, _var, _n), lambda a: a,
                      slow=_n == 200))


# -- inequality, certified in ball arithmetic (issue 22): planted near-misses -----------------
# Each replication plants a false inequality (x − c)² ≥ ε·s on [0, 1] (c uniform on a 10⁻⁶ grid
# of [0, 1], ε log-uniform in [1e-12, 1e-3], s ∈ {1, 1 + x²}; seeded): violated on
# |x − c| < √(ε s) only.  Fixed before the data: a "proved" certificate is never allowed (the
# trial raises: the inclusion theorem of interval arithmetic with outward rounding, Moore,
# Kearfott & Cloud 2009, Thm 5.1); the promise is a power floor: the certifier refutes (a
# counterexample certified in ball arithmetic) with probability ≥ 0.99 at 2000 boxes / 2 s.

def _certified_near_miss_trial(seed, alpha):
    import sympy as sp

    from proofs_check.engine.certify import certify_inequality

    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(22,)))
    x = sp.Symbol("x")
    c = sp.Rational(int(rng.integers(0, 10 ** 6 + 1)), 10 ** 6)
    eps = sp.Rational(10.0 ** rng.uniform(-12, -3)).limit_denominator(10 ** 15)
    s = 1 + x ** 2 if rng.random() < 0.5 else sp.Integer(1)
    cert = certify_inequality(eps * s, (x - c) ** 2, ("x",), [0], [1], max_boxes=2000, max_seconds=2)
    if cert.status == "proved":
        raise AssertionError(f"a planted false inequality was proved: c={c}, ε={eps}, s={s}")
    return cert.status == "refuted"


CELLS.append(Cell("inequality", "certified (ball arithmetic), planted near-miss ε ∈ [1e-12, 1e-3]",
                  "violation certified (a 'proved' raises)", _certified_near_miss_trial, lambda a: None,
                  slow=True, floor=lambda a: 0.99,
                  basis="never proved: inclusion theorem of interval arithmetic with outward rounding "
                        "(Moore, Kearfott & Cloud 2009, Thm 5.1); refuted: bisection towards the "
                        "most negative lower bound reaches the sliver within 2000 boxes"))


# -- probability, same-seed re-run and clustered trials (issue 21 items 3 and 7) -------------------
# Same-seed re-run: a user doubles a --fixed budget (2 000 → 32 000) with the SAME seed and no --resume,
# in one --out, until decisive (before issue 21, in this cell: wrong 0.035 / 0.14 / 0.52 at
# α = 0.01 / 0.05 / 0.2).  Promise, fixed before the data: wrong ≤ α (the engine refuses the second
# run, so only the first Clopper–Pearson test counts).  Pass rule: the module's acceptance count.
# Clustered trials: clusters of 10 trials share one outcome, p = δ, anytime.  The verdict's promise
# assumes independent trials, so wrong verdicts are expected (0.88 at α = 0.05); the event is the
# dependence warning (before issue 21 it needed 5 chunks: a run stopped at 1–4 chunks was never warned).
# Floor CLUSTERED_FLOOR of the warned fraction, fixed after a 300-replication pilot (0.31 / 0.51 / 0.58
# warned at α = 0.2 / 0.05 / 0.01) and before the 1000-replication runs; pass rule: the module's
# floor count.

def _same_seed_trial(seed, alpha):
    """Fresh ``--fixed`` runs with one seed in one ``--out``, budget doubled until decisive."""
    import tempfile

    claim = _probability_claim(0.1, 0.1)
    with tempfile.TemporaryDirectory() as out:
        budget = 2_000
        r = verify_claim(claim, budget=budget, seed=seed, alpha=alpha, method="fixed", out=out)
        while r.verdict == "inconclusive" and budget < 32_000:
            budget *= 2
            try:
                r = verify_claim(claim, budget=budget, seed=seed, alpha=alpha, method="fixed", out=out)
            except ValueError as exc:
                if "--seed" not in str(exc):
                    raise
                return False                 # refused: the chase ends, inconclusive
        return _decisive(r)


def clustered_events(rng, n, *, p, m):
    """Trials in clusters of ``m`` sharing one outcome: ``m·Binomial(n/m, p)`` events
    (mean ``n·p``, variance ``m`` times the binomial one)."""
    return int(m * rng.binomial(n // m, p))


CLUSTERED_FLOOR = 0.25


def _clustered_trial(m, seed, alpha):
    """Clusters of ``m`` at p = δ = 0.1, anytime, budget 20 000 in chunks of 500: warned?"""
    c = ProbabilityClaim(id="calibrate.clustered", statement="P(X = 1) ≤ δ", source="calibration",
                         label="DERIVED", fn=functools.partial(clustered_events, p=0.1, m=m), delta=0.1,
                         chunk_size=500)
    r = verify_claim(c, budget=20_000, seed=seed, alpha=alpha)
    return any("independent trials" in w for w in r.warnings)


CELLS.append(Cell("probability", "same-seed re-run: fresh --fixed ×2 until decisive",
                  "decisive verdict at any run", _same_seed_trial, lambda a: a, slow=True,
                  basis="the engine refuses a fresh fixed-sample run with the seed of an evaluated run "
                        "in the same --out (same seed = same data), so only the first (Clopper–Pearson) "
                        "test counts"))
CELLS.append(Cell("probability", "clustered trials (clusters of 10), anytime", "dependence warning",
                  functools.partial(_clustered_trial, 10), lambda a: None, slow=True,
                  floor=lambda a: CLUSTERED_FLOOR,
                  basis="exact conditional dispersion test from 2 chunks (hypergeometric / Monte Carlo, "
                        "level 10⁻³); a run stopped at its first chunk cannot be checked"))


# -- declared premises (issue 31): clustered trials, a false variance bound, an API same-seed re-run ------
# Each cell's data violate a premise of the guarantee on purpose, so its wrong-verdict row promises
# nothing ("premise violated: no promise", the rate reported); each has a companion row with a promise:
# * clustered trials (review F7: runs of 2 trials share one outcome, p = δ = 0.1, anytime, 20 000 trials
#   in chunks of 500; before issue 31: 12.7 % wrong at α = 0.05, 2 of 127 warned).  Companion: the same
#   data with cluster=2 declared, decided on run fractions (a test supermartingale for [0, 1]-valued
#   observations): wrong ≤ α.
# * a declared variance bound 25.75× too small (review N7: N(0,1) + 50·Bern(0.01), variance_bound=1,
#   E d = thr; before: 30.7 % wrong at n = 200, 68 % at n = 2000, printed as a bare "anytime-valid").
#   Companion: a decisive verdict whose summary does not print "anytime-valid if Var(D) ≤ 1
#   (declared)" — never (promise 0).
# * the same seed re-run through the Python API with a doubled --fixed budget, no store (review F3:
#   15.4 % wrong at α = 0.05, labelled exact).  Companion: a decisive re-look not labelled "first look
#   only" — never (promise 0).
# Promises fixed before the data; pass rule: the module's acceptance count (0 for a promise of 0).

CLUSTER_F7 = 2


def _clustered_f7_trial(declare, seed, alpha):
    """Runs of 2 trials share one outcome at p = δ = 0.1 (anytime, 20 000 trials in chunks of 500):
    decisive?  ``declare``: the claim declares ``cluster=2``."""
    c = ProbabilityClaim(id="calibrate.clustered.f7", statement="P(X = 1) ≤ δ", source="calibration",
                         label="DERIVED", fn=functools.partial(clustered_events, p=0.1, m=CLUSTER_F7), delta=0.1,
                         chunk_size=500, cluster=CLUSTER_F7 if declare else None)
    return _decisive(verify_claim(c, budget=20_000, seed=seed, alpha=alpha))


def _false_variance_bound_trial(n, event, seed, alpha):
    """N(0,1) + 50·Bern(0.01) (Var 25.75) declared ``variance_bound=1``, E d = thr = 0.5.
    ``event``: ``"decisive"`` or ``"unlabelled"`` (decisive without the printed premise)."""
    c = ComparisonClaim(id="calibrate.catoni.false_bound", statement="E d < thr", source="calibration",
                        label="DERIVED", fn=outlier_normal_diffs, threshold=0.5, variance_bound=1.0,
                        chunk_size=100)
    r = verify_claim(c, budget=n, seed=seed, alpha=alpha)
    if event == "decisive":
        return _decisive(r)
    return _decisive(r) and "anytime-valid if Var(D) ≤ 1 (declared)" not in r.summary()


def _api_same_seed_trial(event, seed, alpha):
    """Fresh ``method="fixed"`` runs through the API (``out=None``), one seed, budget doubled
    2 000 → 32 000 until decisive.  ``event``: ``"decisive"`` (at any look) or ``"unlabelled"``
    (a decisive look after the first without the "first look only" label)."""
    # one claim per event and α (its fingerprint), so that rows do not share the process's record
    claim = ProbabilityClaim(id=f"calibrate.same_seed_api.{event}.{alpha:g}", statement="P(X = 1) ≤ δ",
                             source="calibration", label="DERIVED",
                             fn=functools.partial(bernoulli_events, p=0.1), delta=0.1, chunk_size=500)
    budget, looks = 2_000, 0
    while True:
        r = verify_claim(claim, budget=budget, seed=seed, alpha=alpha, method="fixed")
        looks += 1
        if _decisive(r) or budget >= 32_000:
            break
        budget *= 2
    if event == "decisive":
        return _decisive(r)
    return _decisive(r) and looks > 1 and not any("first look only" in w for w in r.warnings)


CELLS += [
    Cell("probability", "clustered trials (runs of 2, undeclared), anytime", "decisive verdict at p = δ",
         functools.partial(_clustered_f7_trial, False), lambda a: None,
         violated="independent trials: runs of 2 share one outcome, not declared"),
    Cell("probability", "clustered trials (runs of 2), cluster=2 declared", "decisive verdict at p = δ",
         functools.partial(_clustered_f7_trial, True), lambda a: a,
         basis="mixture likelihood ratios on run fractions x ∈ [0, 1] (q^x(1−q)^(1−x) is convex in x, "
               "so they stay test supermartingales; Hoeffding 1963 §3) and Ville's inequality"),
    Cell("comparison", "variance bound 25.75× too small (Catoni), N(0,1)+50·Bern(0.01), n=200",
         "decisive verdict at E d = thr", functools.partial(_false_variance_bound_trial, 200, "decisive"),
         lambda a: None, violated="Var(D) ≤ 1 declared, Var(D) = 25.75"),
    Cell("comparison", "variance bound 25.75× too small (Catoni), N(0,1)+50·Bern(0.01), n=2000",
         "decisive verdict at E d = thr", functools.partial(_false_variance_bound_trial, 2000, "decisive"),
         lambda a: None, slow=True, violated="Var(D) ≤ 1 declared, Var(D) = 25.75"),
    Cell("comparison", "variance bound 25.75× too small (Catoni), n=200: premise printed",
         "decisive without 'if Var(D) ≤ 1 (declared)'",
         functools.partial(_false_variance_bound_trial, 200, "unlabelled"), lambda a: 0.0,
         basis="every result decided through a declared variance bound prints it as its premise "
               "(ComparisonResult.premises, in summary and headline)"),
    Cell("probability", "API same-seed re-run: fixed ×2 until decisive, out=None",
         "decisive verdict at any look", functools.partial(_api_same_seed_trial, "decisive"),
         lambda a: None, violated="one fixed-sample test per seed's data: the same seed is re-tested"),
    Cell("probability", "API same-seed re-run, out=None: re-looks labelled",
         "decisive re-look without 'first look only'", functools.partial(_api_same_seed_trial, "unlabelled"),
         lambda a: 0.0,
         basis="the engine keeps an in-process record (claim fingerprint, seed) of fixed-sample looks and "
               "labels every later look at another budget (verify._label_same_seed_look)"),
]


# -- identity, cancellation-prone true identities; inequality, planted near-misses (issue 21 items 4–6, 13) --
# True identities that cancel catastrophically in float64 (before issue 21: refuted 50/50 seeds each),
# checked with the default tolerance, with and without a 50-digit twin (lhs_mp/rhs_mp).  Promise, fixed
# before the data: a refuted verdict never (rate 0) — a refutation needs a case confirmed at 50 digits,
# and these identities are true.  Pass rule: zero refuted in R replications.
# Planted near-miss: m(x) = ε·(1 − ‖x − c‖²/r²) > 0 on a ball of volume 1e-3 in [0, 1]⁴, ε = 1e-6, written
# as m(x) ≤ 0 (rhs = 0: the case a ratio-guided search could not climb), 400 evaluations, confirmed by a
# 50-digit twin.  Floor, fixed before the data: the random half alone, 1 − (1 − 1e-3)^200 = 0.181.

def _id_cosh(x):
    return np.cosh(x) ** 2 - np.sinh(x) ** 2


def _id_cosh_mp(x):
    import mpmath
    return mpmath.cosh(x) ** 2 - mpmath.sinh(x) ** 2


def _id_square(x):
    return (x + 1) ** 2 - x ** 2 - 2 * x


def _id_var(x):
    return np.mean(x ** 2) - np.mean(x) ** 2


def _id_var_two_pass(x):
    return np.mean((x - x.mean()) ** 2)


def _id_var_mp(x):
    import mpmath
    return mpmath.fsum(v ** 2 for v in x) / len(x) - (mpmath.fsum(x) / len(x)) ** 2


def _id_var_two_pass_mp(x):
    import mpmath
    m = mpmath.fsum(x) / len(x)
    return mpmath.fsum((v - m) ** 2 for v in x) / len(x)


def _id_log(x):
    import math
    return math.log(1 + x) / x


def _id_log1p(x):
    import math
    return math.log1p(x) / x


def _id_log_mp(x):
    import mpmath
    return mpmath.log(1 + x) / x


def _id_log1p_mp(x):
    import mpmath
    return mpmath.log1p(x) / x


def _one(**kw):
    return 1.0


def _one_mp(**kw):
    import mpmath
    return mpmath.mpf(1)


def _cancellation_trial(seed, alpha):
    """Seed → one of four true identities, with or without its 50-digit twin: refuted?"""
    from proofs_check.declare import Box, identity

    cases = ((_id_cosh, _one, Box(x=(0, 20)), _id_cosh_mp, _one_mp),
             (_id_square, _one, Box(x=(0, 1e8)), _id_square, _one_mp),
             (_id_var, _id_var_two_pass, Box(x=(1e6, 1e6 + 1, 8)), _id_var_mp, _id_var_two_pass_mp),
             (_id_log, _id_log1p, Box(x=(1e-12, 1e-4)), _id_log_mp, _id_log1p_mp))
    lhs, rhs, dom, lhs_mp, rhs_mp = cases[seed % 4]
    twin = dict(lhs_mp=lhs_mp, rhs_mp=rhs_mp) if (seed // 4) % 2 else {}
    c = identity("calibrate.identity", lhs, rhs, domain=dom, register=False, probe=False, **twin)
    return verify_claim(c, budget=300, seed=seed, alpha=alpha).verdict == "refuted"


NEAR_MISS = {"dim": 4, "volume": 1e-3, "eps": 1e-6, "evaluations": 400}


def _near_miss_margin(theta, *, c, r, eps):
    return eps * (1.0 - float(np.sum((np.asarray(theta, dtype=float) - c) ** 2)) / r ** 2)


def _near_miss_sides(theta, *, c, r, eps):
    return _near_miss_margin(theta, c=c, r=r, eps=eps), 0.0


def _near_miss_sides_mp(theta, *, c, r, eps):
    import mpmath
    d2 = mpmath.fsum((mpmath.mpf(float(t)) - mpmath.mpf(float(ci))) ** 2 for t, ci in zip(theta, c))
    return mpmath.mpf(eps) * (1 - d2 / mpmath.mpf(r) ** 2), mpmath.mpf(0)


def _unit_cube(rng, *, dim):
    return rng.uniform(0.0, 1.0, size=dim)


def _near_miss_trial(seed, alpha):
    """A near-miss f ≤ 0 (f > 0 by at most ε = 1e-6 on a ball of volume 1e-3 in [0,1]⁴): detected and
    confirmed at 50 digits (refuted, exact)?"""
    import math

    d, vol, eps = NEAR_MISS["dim"], NEAR_MISS["volume"], NEAR_MISS["eps"]
    r = (vol / (math.pi ** (d / 2) / math.gamma(d / 2 + 1))) ** (1 / d)
    c = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2113,))).uniform(r, 1 - r, size=d)
    kw = dict(c=c, r=r, eps=eps)
    claim = InequalityClaim(id="calibrate.near_miss", statement="f ≤ 0", source="calibration", label="DERIVED",
                            sample=functools.partial(_unit_cube, dim=d), project=clip01,
                            evaluate=functools.partial(_near_miss_sides, **kw),
                            evaluate_mp=functools.partial(_near_miss_sides_mp, **kw), chunk_size=200)
    res = verify_claim(claim, budget=NEAR_MISS["evaluations"], seed=seed, alpha=alpha)
    return res.verdict == "refuted" and res.guarantee == "exact"


CELLS.append(Cell("identity", "cancellation-prone true identities (cosh²−sinh², (x+1)²−x²−2x, variance, "
                              "log(1+x)/x), default tolerance, with and without lhs_mp/rhs_mp",
                  "refuted (any guarantee)", _cancellation_trial, lambda a: 0.0, slow=True,
                  basis="a refutation needs a case confirmed beyond tol at 50 digits (or a declared rounding "
                        "scale); these identities are true, so none may be refuted"))
CELLS.append(Cell("inequality", "planted near-miss f ≤ 0, ε = 1e-6 on a ball of volume 1e-3 in [0,1]⁴, "
                                "400 evaluations", "detected and confirmed (refuted, exact)",
                  _near_miss_trial, lambda a: None, info=dict(NEAR_MISS), slow=True,
                  floor=functools.partial(random_phase_detection, NEAR_MISS["volume"], NEAR_MISS["evaluations"]),
                  basis="the search's random half alone detects a region of volume v with probability "
                        "1 − (1 − v)^(evaluations/2); the 50-digit twin confirms ε = 1e-6 ≫ 10⁻⁵⁰"))


def acceptance_count(reps: int, rate: float, false_alarm: float = FALSE_ALARM) -> int:
    """Smallest ``c`` with ``P(Binom(reps, rate) > c) ≤ false_alarm``."""
    return int(_st.binom.isf(false_alarm, reps, rate))


def power_at(reps: int, rate: float, factor: float = 1.5) -> float:
    """Probability that a true rate of ``factor·rate`` exceeds the acceptance count."""
    c = acceptance_count(reps, rate)
    return float(_st.binom.sf(c, reps, min(1.0, factor * rate)))


def floor_count(reps: int, rate: float, false_alarm: float = FALSE_ALARM) -> int:
    """Largest ``c`` with ``P(Binom(reps, rate) < c) ≤ false_alarm``: a power cell passes with
    at least ``c`` detections when its detection probability is at least ``rate``."""
    return int(_st.binom.ppf(false_alarm, reps, rate))


def promise_of(cell: Cell, alpha: float) -> tuple[str, float | None, float | None]:
    """``("rate", promise, None)``, ``("power", None, floor)`` or ``("none", None, None)``:
    what ``cell`` promises at ``alpha`` (fixed before any replication runs); ``("premise violated",
    None, None)`` for a cell whose data violate a premise of the guarantee (``Cell.violated``)."""
    if cell.violated:
        return "premise violated", None, None
    p = cell.promise(alpha)
    if p is not None:
        return "rate", float(p), None
    f = cell.floor(alpha) if cell.floor is not None else None
    if f is not None:
        return "power", None, float(f)
    return "none", None, None


def _trials(trial, alpha, seeds) -> int:
    """In a worker: how many of ``seeds`` counted."""
    return sum(bool(trial(s, alpha)) for s in seeds)


def make_pool(workers: int):
    """A process pool for :func:`run_cell` (one BLAS thread per worker), or ``None`` for one worker.
    Made once per run: starting processes costs more than a cheap cell."""
    if workers <= 1:
        return None
    import concurrent.futures as cf
    import multiprocessing as mp

    from proofs_check.engine.across_claims import worker_init

    return cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("forkserver"),
                                  initializer=worker_init)


def run_cell(cell: Cell, reps: int, alpha: float, progress: Callable[[int], None] | None = None,
             workers: int = 1, pool=None) -> dict:
    """Run ``reps`` replications (seeds ``0..reps−1``); a plain-JSON summary with the
    promise, the pass rule fixed in advance and whether it passed (``ok``).
    ``workers > 1`` splits the seeds over processes — those of ``pool``
    (:func:`make_pool`) if given — with the same count (each seed is its own
    replication)."""
    t0 = time.perf_counter()
    how, promise, floor = promise_of(cell, alpha)       # fixed before the data
    hits = 0
    if workers > 1 and reps > 1:
        own = pool is None
        pool = make_pool(workers) if own else pool
        try:
            nb = min(reps, 4 * workers)
            blocks = [range(i, reps, nb) for i in range(nb)]
            hits = sum(pool.map(_trials, [cell.trial] * nb, [alpha] * nb, blocks))
        finally:
            if own:
                pool.shutdown(wait=True)
        if progress is not None:
            progress(reps)
    else:
        for s in range(reps):
            hits += bool(cell.trial(s, alpha))
            if progress is not None:
                progress(s + 1)
    lo, hi = clopper_pearson(hits, reps, 0.05)
    out = {"kind": cell.kind, "cell": cell.name, "event": cell.what, "reps": reps, "alpha": alpha,
           "count": hits, "rate": hits / reps, "ci95": (lo, hi), "promise": promise,
           "seconds": round(time.perf_counter() - t0, 2)}
    if how == "rate":
        c = acceptance_count(reps, promise)
        out.update(accept_max=c, ok=hits <= c, power_at_1_5x=power_at(reps, promise),
                   promise_text=f"P({cell.what}) ≤ {promise:.3g}",
                   rule=f"pass if count ≤ {c} of {reps} (P(Binom({reps}, {promise:.3g}) > {c}) ≤ {FALSE_ALARM:g})")
    elif how == "power":
        c = floor_count(reps, floor)
        out.update(floor=floor, accept_min=c, ok=hits >= c, promise_text=f"P({cell.what}) ≥ {floor:.3g}",
                   rule=f"pass if count ≥ {c} of {reps} (P(Binom({reps}, {floor:.3g}) < {c}) ≤ {FALSE_ALARM:g})")
    elif how == "premise violated":
        out.update(ok=None, promise_text=f"premise violated: no promise ({cell.violated})",
                   rule="reported, not tested: the guarantee does not cover these data")
    else:
        out.update(ok=False, promise_text="NO PROMISE STATED", rule="fails: every cell must state a promise")
    if cell.basis:
        out["basis"] = cell.basis
    return out


#: The verdict levels of a full run (issue 21: the promises are checked at each).
ALPHAS = (0.01, 0.05, 0.2)


def _alpha_list(text: str) -> tuple[float, ...]:
    try:
        vals = tuple(float(v) for v in str(text).split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"--alphas must be comma-separated numbers in (0, 1), got {text!r}") from None
    if not vals or not all(0 < v < 1 for v in vals):
        raise argparse.ArgumentTypeError(f"--alphas must be comma-separated numbers in (0, 1), got {text!r}")
    return vals


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="theorycheck calibrate",
                                description="Measure the wrong-verdict rate of every claim kind "
                                            "with the truth on the boundary, at each verdict level α; "
                                            "each row states its promise and the pass rule fixed in advance.")
    p.add_argument("--reps", type=int, default=1000, metavar="N", help="replications per cell (default 1000)")
    p.add_argument("--alpha", type=float, action="append", default=None,
                   help="verdict level α (repeatable; default: 0.01, 0.05 and 0.2 — or 0.2 alone with --quick)")
    p.add_argument("--alphas", type=_alpha_list, default=None, metavar="A,B,...",
                   help="verdict levels, comma-separated (e.g. 0.01,0.05,0.2)")
    p.add_argument("--quick", action="store_true", help="only the fast cells (default α: 0.2)")
    p.add_argument("--kind", action="append", help="only these kinds (repeatable)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="worker processes for the run (each cell's seeds split between them; the same "
                        "counts as one process; default 1)")
    p.add_argument("--json", action="store_true", help="one JSON object per cell and α")
    args = p.parse_args(argv)
    if args.reps < 1 or args.reps > 10_000_000:
        p.error(f"--reps must be an integer in [1, 10000000], got {args.reps}")
    if not 1 <= args.workers <= 64:
        p.error(f"--workers must be an integer in [1, 64], got {args.workers}")
    alphas = list(args.alphas or ()) + list(args.alpha or ())
    from proofs_check.engine.validate import check_alpha

    for a in alphas:               # the engine's rule: (0, 1) and no smaller than MIN_ALPHA
        try:
            check_alpha(a)
        except ValueError as exc:
            p.error(f"--{exc}")
    if not alphas:
        alphas = [0.2] if args.quick else list(ALPHAS)
    alphas = sorted(set(alphas))
    known = sorted({c.kind for c in CELLS})
    unknown = [k for k in args.kind or () if k not in known]
    if unknown:
        p.error(f"--kind must be one of {', '.join(known)}, got {', '.join(map(repr, unknown))}")
    cells = [c for c in CELLS if (not args.quick or not c.slow) and (not args.kind or c.kind in args.kind)]
    if not cells:
        p.error("no calibration cell matches --kind")
    t_all = time.perf_counter()
    pool = make_pool(args.workers)
    try:
        failed = _run_table(cells, alphas, args, pool)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    if not args.json:
        print(f"pass rule: a rate cell passes with count ≤ c, c the smallest count with "
              f"P(Binom(R, promise) > c) ≤ {FALSE_ALARM:g}; a power cell with count ≥ the largest c with "
              f"P(Binom(R, floor) < c) ≤ {FALSE_ALARM:g}.  {failed} cell(s) failed; total "
              f"{time.perf_counter() - t_all:.0f} s", flush=True)
    return 1 if failed else 0


def _run_table(cells, alphas, args, pool) -> int:
    """Every cell at every α, printed as it finishes; the number of failed rows."""
    import json

    failed = 0
    for alpha in alphas:
        t_alpha = time.perf_counter()
        if not args.json:
            print(f"operating characteristic at α = {alpha}, {args.reps} replications per cell "
                  f"(seeds 0..{args.reps - 1}); 95% Clopper–Pearson intervals")
            print(f"{'kind':<12} {'cell':<52} {'event':<30} {'rate':>7} {'95% CI':>17} {'promise':>8}  ok"
                  f"  pass rule (fixed in advance)")
        for cell in cells:
            if sys.stderr.isatty():
                print(f"  running {cell.kind}: {cell.name} (α = {alpha}) ...", file=sys.stderr, end="\r",
                      flush=True)
            r = run_cell(cell, args.reps, alpha, workers=args.workers, pool=pool)
            failed += r.get("ok") is False
            if args.json:
                print(json.dumps(r, ensure_ascii=False), flush=True)
                continue
            prom = (f"≤{r['promise']:.3g}" if r["promise"] is not None else
                    f"≥{r['floor']:.3g}" if "floor" in r else
                    "none" if r["ok"] is None else "NONE")
            ok = "yes" if r["ok"] else "—" if r["ok"] is None else "NO"
            rule = (r["rule"].split(" (")[0].replace("pass if ", "") if r["ok"] is not None
                    else r["promise_text"])
            print(f"{r['kind']:<12} {r['cell']:<52} {r['event']:<30} {r['rate']:7.4f} "
                  f"[{r['ci95'][0]:.4f}, {r['ci95'][1]:.4f}] {prom:>8}  {ok:<3} {rule}", flush=True)
        if not args.json:
            print(f"α = {alpha}: {len(cells)} cells in {time.perf_counter() - t_alpha:.0f} s "
                  f"(workers {args.workers})", flush=True)
    return failed


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
