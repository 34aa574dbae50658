"""``ensemble.regret.*``: Ensemble++ against exact Thompson sampling (theory ``ensemble.md#regret``).

* ``ensemble.regret.finite.d<d>.<family>`` — at M = 8d ≈ d log T the final regret is
  within 10% of TS on more instances than the reverse (a majority of signs: issue 21, a mean
  of regrets cannot be decided, docs/theory/engine.md#sign-comparison).  The twelve claims read two stored experiments,
  :data:`~seqproj.ensemble.experiments.FINITE_SWEEPS` (one lock-step sweep per d: every agent,
  family and M on common random numbers, one fresh root seed per repetition), each
  reducing it to its own paired differences (:func:`~seqproj.ensemble.regret_sweep.final_gap`);
  the figures ``ensemble_regret_vs_m`` and ``ensemble_regret_curves`` plot the same
  chunks.  The sweep is measured once per process (and stored once with ``--out``).
* ``ensemble.regret.smallest_m_vs_d`` — the smallest M within 10% of TS grows like
  d^a, a ∈ [0.5, 1.5]; it reads :data:`~seqproj.ensemble.experiments.SMALLEST_M`, whose trial is a
  replicate of 30 repetitions at each d of its own d-grid (a scaling law needs more
  than the sweep's two dimensions, and M* is not defined on one repetition).
* Issue 15: ``ensemble.regret.{compact,contexts}.d<d>.{below_d,at_8d}`` — on the unit
  sphere and with fresh contexts, M = d/2 < d has regret materially (> 25%) above TS, and
  M = 8d is within 10% of TS, each on more instances than the reverse (:data:`~seqproj.ensemble.experiments.ENV_SWEEPS`);
  ``ensemble.regret.smallest_m_vs_d.isotonic`` — the smallest-M law with the monotone
  criterion (:data:`~seqproj.ensemble.experiments.SMALLEST_M_LAW`), censored values kept as NaN.
"""
from __future__ import annotations

import functools

from proofs_check.engine import ComparisonClaim, ScalingClaim, Source, register, sign_of

from ..agents import EnsemblePP
from ..experiments import (ENV_SWEEPS, FINITE_SWEEPS, MSTAR_GRID, SMALLEST_M, SMALLEST_M_LAW,
                           SWEEP_FAMILIES)
from ..regret_sweep import (env_gap, env_sweep_ms, family_label, final_gap, smallest_m_isotonic_per_d,
                            smallest_m_per_d)

_SOURCE_NOTE = ("the abstract's 'regret comparable to exact Thompson sampling with Θ(d log T) "
                "ensemble sizes'; orders CONFIRMED, constants OPEN; ")

for _d, _exp in FINITE_SWEEPS.items():
    _K, _T = _exp.params["K"], _exp.params["T"]
    for _idx, _pert in SWEEP_FAMILIES:
        _fam = family_label(_idx, _pert)
        register(ComparisonClaim(
            id=f"ensemble.regret.finite.d{_d}.{_fam}",
            statement=f"finite arms (d = {_d}, K = {_K}, T = {_T}): Ensemble++ {_fam} with "
                      f"M = 8d = {8 * _d} (≈ d log T) has final regret within 10% of exact TS on "
                      "more instances than the reverse: E sign(R_EPP − 1.1 R_TS) < 0",
            source=Source(papers=("ensemblepp",), where="abstract", theory="ensemble.md#regret",
                          note=_SOURCE_NOTE + "M = 8d, the 10% margin and the majority reading are "
                                              "our operationalisation"),
            label="OPEN",
            params={"d": _d, "K": _K, "T": _T, "M": 8 * _d, "family": _fam, "margin": 0.10,
                    "sweep_ms": list(_exp.params["ms"]), "statistic": "sign"},
            experiment=_exp,
            reduce=functools.partial(sign_of, functools.partial(
                final_gap, d=_d, label=EnsemblePP(8 * _d, _idx, _pert).label, margin=0.10)),
            threshold=0.0, alternative="less",
            # Per round 0 ≤ r_t ≤ Δ = max_x xᵀθ* − min_x xᵀθ*, with Δ unbounded (θ* ~ N(0, 10 I)):
            # the gap has no almost-sure range, and its true variance bound T²·max(1, c)²·E[Δ²]
            # is 10⁵–10⁶ times the observed variance, so a mean statement could never be decided
            # (version 3 declared it: inconclusive at every budget, no mutant refuted).  Issue 21:
            # the claim states a majority — each instance's sign, in [−1, 1] — decided by the
            # betting sequence, anytime-valid (docs/theory/engine.md#sign-comparison).
            bounds=(-1.0, 1.0),
            chunk_size=_exp.chunk_size, default_budget=50, quick_budget=10, role="statement",
            expected=None, version=4,
            notes="Reads the stored sweep of its d (TS, LinUCB, greedy, every family and M on "
                  "common random numbers; one fresh root seed per repetition, so the paired "
                  "differences are independent); the six families of one d and the regret "
                  "figures read the same chunks, so their verdicts are correlated, each valid on "
                  "its own.  Margin rule: 10%, 'comparable to TS'.  Version 4 (issue 21): a "
                  "majority of signs (bounds [−1, 1], anytime-valid); version 3 declared the true "
                  "variance bound of the mean gap (inconclusive at every feasible budget), "
                  "version 2 read Hall's asymptotic interval."))


def _smallest_m_law(id, statement, *, theory, note, exp, params, reduce, default_budget, version, notes):
    """Register the scaling claim ``id``: the smallest M within 10% of TS, one value per replicate
    and d of ``exp``, grows like d^a with a ∈ [0.5, 1.5] (OPEN; a measurement of the abstract)."""
    register(ScalingClaim(
        id=id, statement=statement,
        source=Source(papers=("ensemblepp",), where="abstract", theory=theory,
                      note=_SOURCE_NOTE + note),
        label="OPEN", params=params,
        x=list(exp.params["d"]), exponent_lo=0.5, exponent_hi=1.5,
        # M* is read off a geometric grid, so each replicate's error is additive on the log
        # scale: the mean per-replicate slope (slope of E log M*), ties never decide it
        estimand="log-mean",
        experiment=exp, reduce=reduce,
        chunk_size=exp.chunk_size, default_budget=default_budget, quick_budget=2, role="statement",
        expected=None, version=version, notes=notes))


_smallest_m_law(
    "ensemble.regret.smallest_m_vs_d",
    "the smallest M from which on Gaussian Ensemble++ mean final regret is within 10% of "
    "exact TS grows like d^a with a ∈ [0.5, 1.5] at fixed T (M* = Θ(d log T)); finite "
    "arms K = 100, T = 500, d ∈ {4, 8, 16, 32}, 30 repetitions per point",
    theory="ensemble.md#regret", note="Θ(d log T) at fixed T read as exponent 1 in d",
    exp=SMALLEST_M, params={**SMALLEST_M.params, "margin": 0.10, "M_grid": list(MSTAR_GRID)},
    reduce=functools.partial(smallest_m_per_d, ds=tuple(SMALLEST_M.params["d"]), margin=0.10),
    default_budget=6, version=2,
    notes="M* is read off a geometric grid (ratio ≈ 1.5), so each replicate's value is "
          "quantised.  CENSORING: a replicate in which the criterion fails at M = 8d has no M* "
          "on the grid; it is reported as NaN (never replaced by a value — version 1 used 8d·√2, "
          "which forced the exponent to 1 when Ensemble++ never reached TS level), so any "
          "censored replicate makes the verdict inconclusive.  Replicates are independent "
          "(fresh instances per repetition).  Window rule: Θ(d log T) at fixed T means "
          "exponent 1; ±0.5 allows the grid quantisation.  Issue 15: decided by the monotone "
          "criterion in ensemble.regret.smallest_m_vs_d.isotonic (this raw rule is kept as the "
          "record).")


# ---------------------------------------------------------------------------
# issue 15: compact (unit sphere) and changing-context environments
# ---------------------------------------------------------------------------

_ENV_TEXT = {"compact": "unit sphere (play θ̃/‖θ̃‖)",
             "contexts": "changing contexts (K = 100 fresh arms N(0, I)/‖·‖ per round)"}
#: "materially above TS": more than 25% above (fixed with the claim, before the default-budget
#: run; a 4-repetition timing pilot had been run, see the note).
_BELOW_FACTOR = 1.25


def _env_comparison(kind, d, exp, name, *, M, factor, alternative, statement, source, label, expected,
                    margin, notes):
    """Register ``ensemble.regret.<kind>.d<d>.<name>``: the majority sign of
    ``R_EPP(M) − factor·R_TS`` on the environment sweep ``exp`` (``margin``: the params entry
    naming the factor).

    Issue 21: a regret under a Gaussian θ* has no almost-sure range, and the true variance bound
    of the gap, T²·max(1, c)²·E[Δ²] (Δ ≤ 2‖θ*‖ on unit-norm arms), is 10³–10⁶ times the observed
    variance: no mean statement could be decided.  Each claim states a majority —
    ``E sign(R_EPP − c·R_TS)``, bounds [−1, 1], the betting sequence, anytime-valid
    (docs/theory/engine.md#sign-comparison)."""
    register(ComparisonClaim(
        id=f"ensemble.regret.{kind}.d{d}.{name}", statement=statement, source=source, label=label,
        params={"env": kind, "d": d, "K": exp.params["K"], "T": exp.params["T"], "M": M, **margin,
                "sweep_ms": list(env_sweep_ms(d)), "statistic": "sign"},
        experiment=exp, reduce=functools.partial(sign_of, functools.partial(env_gap, d=d, M=M, factor=factor)),
        threshold=0.0, alternative=alternative, bounds=(-1.0, 1.0),
        chunk_size=exp.chunk_size, default_budget=100, quick_budget=10, role="statement",
        expected=expected, version=3,
        notes=notes + "  Version 3 (issue 21): a majority — the sign of each instance's gap, bounds "
                      "[−1, 1], betting sequence, anytime-valid; version 2 declared the true "
                      "variance bound of the mean gap (inconclusive at every feasible budget) or "
                      "read Hall's asymptotic interval, version 1 read Hall's interval."))


for (_kind, _d), _exp in ENV_SWEEPS.items():
    _T = _exp.params["T"]
    _low = _d // 2
    # M < d: rank-deficient A Aᵀ.  DERIVED failure mode (theory ensemble.md#failure-modes) on the
    # compact set, where exploring every direction is necessary; on fresh contexts the arms'
    # own diversity explores, so the outcome there is a finding (expected None).
    _env_comparison(
        _kind, _d, _exp, "below_d", M=_low, factor=_BELOW_FACTOR, alternative="greater",
        statement=f"{_ENV_TEXT[_kind]}, d = {_d}, T = {_T}: Gaussian Ensemble++ with M = d/2 = "
                  f"{_low} < d (rank-deficient A Aᵀ) has final regret more than 25% above "
                  "exact TS on more instances than the reverse: E sign(R_EPP − 1.25 R_TS) > 0",
        source=Source(papers=(), where="", theory="ensemble.md#regret-environments",
                      note="the M < d failure mode of the theory page (our derivation: A Aᵀ "
                           "has rank ≤ M, so the sample never moves in the missing directions); "
                           "the 25% margin is our operationalisation of 'materially'"),
        label="DERIVED" if _kind == "compact" else "OPEN",
        expected="holds" if _kind == "compact" else None, margin={"factor": _BELOW_FACTOR},
        notes="Reads the stored sweep of its environment and d (TS and Gaussian Ensemble++ at "
              "M ∈ {d/4, d/2, d, 2d, 4d, 8d} on common random numbers; one fresh instance per "
              "repetition).")
    _env_comparison(
        _kind, _d, _exp, "at_8d", M=8 * _d, factor=1.10, alternative="less",
        statement=f"{_ENV_TEXT[_kind]}, d = {_d}, T = {_T}: Gaussian Ensemble++ with M = 8d = "
                  f"{8 * _d} (≈ d log T) has final regret within 10% of exact TS on more "
                  "instances than the reverse: E sign(R_EPP − 1.1 R_TS) < 0",
        source=Source(papers=("ensemblepp",), where="abstract", theory="ensemble.md#regret-environments",
                      note=_SOURCE_NOTE + "the compact case is the setting of the paper's "
                                          "O(d^{3/2}√T) bound; M = 8d and the 10% margin are "
                                          "our operationalisation"),
        label="OPEN", expected=None, margin={"margin": 0.10},
        notes="Same stored sweep as the below_d claim of this environment and d (correlated "
              "verdicts, each valid on its own).")

_smallest_m_law(
    "ensemble.regret.smallest_m_vs_d.isotonic",
    "the smallest M at which the non-increasing (isotonic) fit of Gaussian "
    "Ensemble++'s mean-regret ratio to exact TS drops to ≤ 1.1 grows like d^a with "
    "a ∈ [0.5, 1.5] at fixed T (M* = Θ(d log T)); finite arms K = 100, T = 500, "
    "d ∈ {4, 8, 16, 32, 64}, 30 repetitions per point and replicate",
    theory="ensemble.md#smallest-m-law",
    note="Θ(d log T) at fixed T read as exponent 1 in d; the isotonic criterion is ours",
    exp=SMALLEST_M_LAW, params={**SMALLEST_M_LAW.params, "margin": 0.10, "criterion": "isotonic"},
    reduce=functools.partial(smallest_m_isotonic_per_d, ds=tuple(SMALLEST_M_LAW.params["d"]),
                             margin=0.10),
    default_budget=12, version=1,
    notes="Per replicate and d: the ratios r(M) = mean R_EPP(M)/mean R_TS over 30 lock-step "
          "repetitions, their least-squares non-increasing fit (pool-adjacent-violators), and "
          "M* = the first grid M (≤ 8d, ratio ≈ 1.5) where the fit is ≤ 1.1 — decided before "
          "the data, replacing the raw 'from which on' rule that one noisy point at the top of "
          "the grid censors.  A replicate whose fit stays above 1.1 at the largest M is "
          "CENSORED: NaN, never a number, and the verdict is then inconclusive.  The exponent "
          "is the mean of per-replicate log–log slopes with a Student-t interval over the "
          "independent replicates (guarantee asymptotic).  The quick budget (2 replicates) "
          "costs ≈ 1 min: a replicate is the smallest unit of this law.")
