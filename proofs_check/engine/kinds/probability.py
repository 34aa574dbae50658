"""Probability claims: ``P(event) ≤ δ`` under a simulator (``docs/theory/engine.md`` §1–2).

* user function: ``fn(rng, n) -> int``, the number of the ``n`` trials in
  which the bad event happened;
* chunk statistics: ``[events]``;
* decision: ``method="anytime"`` (the default) stops at the first chunk where
  an e-value crosses ``2/α`` (:func:`.stats.anytime_decision`; guarantee
  ``"anytime-valid"``) and reports the confidence sequence that inverts them;
  ``method="fixed"`` runs the whole budget and decides by the exact
  Clopper–Pearson interval (guarantee ``"exact"``).  Chunks whose counts vary
  more than independent trials allow draw a warning
  (:func:`.stats.binomial_dispersion_pvalue`, exact conditional on the total from
  2 chunks on, so runs that stop early are checked too; one chunk cannot be).
  A fresh ``"fixed"`` run with the seed of an evaluated run in the same store is
  refused (``verify._refuse_same_seed``: same seed = same data).

Independence of the trials is a premise of every guarantee here.  The chunk
statistics are counts, so it can be checked only across chunks: a run that
stopped after one chunk says so on its result (``premises``, printed with the
verdict: "trials independent (not checked: stopped after 1 chunk)").
``cluster=m`` declares that runs of ``m`` consecutive trials may share
randomness (runs independent of each other): the decision then treats each
run's event fraction ``x_j ∈ [0, 1]`` as one observation — ``k/m`` events in
``n/m`` trials in the mixture likelihood ratios — which stay test
supermartingales for ``[0, 1]``-valued observations with mean ``p``
(``q^x (1 − q)^{1−x}`` is convex in ``x``, so its mean is at most its
Bernoulli(p) mean, Hoeffding 1963 §3; ``docs/theory/engine.md`` §2).  A
clustered claim is always decided by those e-values (guarantee
``"anytime-valid"``, also under ``method="fixed"``: Clopper–Pearson needs
Bernoulli trials).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar

import math

import numpy as np

from ..claims import Claim, checked_cluster
from ..results import Result, fmt, summary_number
from ..stats import (DISPERSION_LEVEL, anytime_decision, binomial_dispersion_pvalue, clopper_pearson,
                     log_e_above, log_e_below, probability_cs, trials_to_decide)

__all__ = ["ProbabilityClaim", "ProbabilityResult", "probability_stats"]


def probability_stats(events, n):
    """``[events]`` from what ``fn(rng, n)`` returned (an integer in ``[0, n]``)."""
    events = int(events)
    if events < 0 or events > n:
        raise ValueError(f"probability sampler returned {events} events for {n} trials")
    return [events]


@dataclass(frozen=True, kw_only=True)
class ProbabilityClaim(Claim):
    """``P(event) ≤ delta`` under a simulator.

    ``fn(rng, n)`` runs ``n`` independent trials and returns the integer number
    of trials in which the bad event happened.
    """

    kind: ClassVar[str] = "probability"
    fixed_sample_decisions: ClassVar[tuple[str, ...]] = ("fixed",)
    _callables: ClassVar[tuple[str, ...]] = ("fn",)
    fn: Callable[[np.random.Generator, int], int] | None = None
    delta: float
    cluster: int | None = None
    chunk_size: int = 10_000
    default_budget: int = 1_000_000
    quick_budget: int = 50_000

    def __post_init__(self) -> None:
        super().__post_init__()
        if not (0.0 < float(self.delta) < 1.0):
            raise ValueError(f"claim {self.id}: delta must lie in (0, 1), got {self.delta!r}")
        if self.cluster is not None:
            object.__setattr__(self, "cluster", checked_cluster(self.id, self.cluster, self.chunk_size))

    def _fingerprint_extra(self) -> dict:
        return {"delta": float(self.delta), **({} if self.cluster in (None, 1) else {"cluster": self.cluster})}

    @property
    def _m(self) -> int:
        return self.cluster or 1

    def stats_function(self):
        return probability_stats

    @staticmethod
    def check_stats(stats, chunk_size):
        if len(stats) != 1 or not isinstance(stats[0], int) or isinstance(stats[0], bool) \
                or not 0 <= stats[0] <= chunk_size:
            return f"events must be one integer in [0, {chunk_size}]"
        return None

    def decision_method(self, method):
        return "anytime" if self._m > 1 else method

    def early_stop(self, alpha, method):
        if self.decision_method(method) != "anytime":
            return None
        acc = {"k": 0, "n": 0}
        m = self._m

        def stop(chunk_stats):
            acc["k"] += int(chunk_stats[0])
            acc["n"] += self.chunk_size
            return anytime_decision(acc["k"] / m, acc["n"] // m, self.delta, alpha) is not None
        return stop

    def decide(self, prefix, alpha, method, n_chunks, common):
        counts = [int(s[0]) for s in prefix]
        k = int(sum(counts))
        n = len(prefix) * self.chunk_size
        delta = float(self.delta)
        m = self._m
        ku, nu = (k, n) if m == 1 else (k / m, n // m)     # run fractions: k/m "events" in n/m runs
        le_b = float(log_e_below(ku, nu, delta))
        le_a = float(log_e_above(ku, nu, delta))
        warnings, premises = [], []
        method = self.decision_method(method)
        if m > 1:
            premises.append(f"runs of {m} consecutive trials independent of each other (declared)")
        elif len(prefix) == 1:
            premises.append("trials independent (not checked: stopped after 1 chunk)")
        if method == "anytime":
            verdict = anytime_decision(ku, nu, delta, alpha) or "inconclusive"
            ci = probability_cs(ku, nu, alpha)
            guarantee = "anytime-valid"
        else:
            ci = clopper_pearson(k, n, alpha)
            verdict = "holds" if ci[1] < delta else "refuted" if ci[0] > delta else "inconclusive"
            guarantee = "exact"
        pval = binomial_dispersion_pvalue(counts, self.chunk_size) if m == 1 else None
        if pval is not None and pval < DISPERSION_LEVEL:
            warnings.append(f"event counts vary across chunks more than independent trials allow "
                            f"(dispersion test p = {pval:.2g}): trials may not be independent, and then "
                            f"the interval is too narrow")
        further = trials_to_decide(ku, nu, delta, alpha) if verdict == "inconclusive" else None
        further = None if further is None else further * m          # runs of m trials
        return ProbabilityResult(**common, verdict=verdict, elapsed_s=0.0, guarantee=guarantee,
                                 warnings=tuple(warnings), trials=n, events=k, p_hat=k / n, ci=ci,
                                 delta=delta, method=method, stopped_early=len(prefix) < n_chunks,
                                 log_e_below=le_b, log_e_above=le_a, further_trials=further,
                                 premises=tuple(premises), cluster=self.cluster)


@dataclass(frozen=True, kw_only=True, repr=False)
class ProbabilityResult(Result, kind="probability"):
    """``P(event) ≤ delta``: counts, estimate, interval, e-values.

    ``ci`` is the anytime-valid confidence sequence at the stopping time
    (``method="anytime"``) or the exact Clopper–Pearson interval
    (``method="fixed"``), both at level ``1 − α``."""

    unit: ClassVar[str] = "trials"

    trials: int
    events: int
    p_hat: float
    ci: tuple[float, float]
    delta: float
    method: str
    stopped_early: bool
    log_e_below: float
    log_e_above: float
    further_trials: int | None
    #: what the guarantee rests on beyond the data (declared or unchecked), printed with the
    #: verdict (issue 31), e.g. ``("trials independent (not checked: stopped after 1 chunk)",)``
    premises: tuple = ()
    #: declared number of consecutive trials that share randomness, else None
    cluster: int | None = None

    def premise_text(self) -> str:
        """``"<guarantee> if <premise> and …"`` ("" with no premise)."""
        return f"{self.guarantee} if " + " and ".join(self.premises) if self.premises else ""

    def proportion_ci(self) -> tuple[float, float]:
        return self.ci

    def e_values(self):
        """The two mixture likelihood ratios (test supermartingales) at the stopping time,
        under ``--fixed`` too (``docs/theory/engine.md#probability``)."""
        lr, lh = self.log_e_above, self.log_e_below
        if lr is None or lh is None or math.isnan(lr) or math.isnan(lh):
            return None, None, "probability result without e-values"
        return float(lr), float(lh), "mixture likelihood ratio (test supermartingale) at the stopping time"

    def summary(self) -> str:
        more = ""
        if self.further_trials:
            more = (f"; ~{self.further_trials} more trials (--resume --budget) would likely settle it"
                    if self.method == "anytime" else
                    f"; a fresh --fixed run with a new seed (e.g. --seed {self.seed + 1}) of "
                    f"~{self.trials + self.further_trials} trials would likely settle it")
        what = "CS" if self.method == "anytime" else "CI"
        n = summary_number
        tail = f"; {self.premise_text()}" if self.premises else ""
        return (f"p̂={n(self.p_hat)} {what}[{n(self.ci[0])}, {n(self.ci[1])}] vs δ={n(self.delta)}"
                f" ({self.events}/{self.trials}){more}{tail}")

    def headline(self) -> str:
        tail = f"; {self.premise_text()}" if self.premises else ""
        return f"p̂ = {fmt(self.p_hat)} ({self.events}/{self.trials}) vs δ = {fmt(self.delta)}{tail}"

    def interval(self, level):
        what = "anytime-valid CS" if self.method == "anytime" else "Clopper–Pearson CI"
        return f"{level} {what} [{fmt(self.ci[0])}, {fmt(self.ci[1])}] for p"

    def slack(self):
        return [f"p̂/δ = {fmt(self.p_hat / self.delta, 3)} (interval for p/δ: [{fmt(self.ci[0] / self.delta, 3)}, "
                f"{fmt(self.ci[1] / self.delta, 3)}]); the bound needs p/δ ≤ 1"]

    def budget_to_settle(self):
        n, est, thr = self.trials, self.p_hat, self.delta
        lo, hi = self.ci
        if self.events == 0:
            return self.whole_chunks(n * hi / thr) if hi > 0 else None
        if est < thr:
            w, g = hi - est, thr - est
        elif est > thr:
            w, g = est - lo, est - thr
        else:
            return None
        return self.whole_chunks(n * (w / g) ** 2)

    def settle_advice(self):
        if self.verdict != "inconclusive":
            return None
        return self.budget_advice(self.budget_to_settle(), extendable=self.method == "anytime",
                                  options=" --fixed")
