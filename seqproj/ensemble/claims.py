"""Claims about linear Ensemble++ / HyperAgent (spec ``ensemble.md``), registered at import.

Ids start with ``ensemble.``:

* ``ensemble.equivalence.*`` — the three equivalences of §2 (identity claims);
* ``ensemble.tracking.*`` — covariance tracking under adaptive play, §4.1
  (scaling and comparison claims);
* ``ensemble.regret.*`` — the finite-arm regret sweep, §4.2 (comparison claims,
  paired on common random numbers) and the smallest-M scaling law;
* ``ensemble.failure.*`` — each failure mode of §4.3 detected with a diagnosis.

Every user function is a module-level function or a ``functools.partial`` of
one, so claims run on every executor.

Statistics (issue 9).  Every comparison claim here has paired differences of
unbounded random quantities (regrets under θ* ~ N(0, 10 I), sup tracking
errors under a Gaussian start): no almost-sure range can be derived from the
problem that is smaller than T·(max_x xᵀθ* − min_x xᵀθ*), i.e. ≈ 10⁴ times the
size of the effects, so no ``bounds`` are declared and the engine's
skewness-corrected interval (guarantee "asymptotic") decides; see the comment
above each claim.  Censored observations are never replaced by a value (the
smallest-M law returns NaN for "not reached", which makes the verdict
inconclusive).
"""
from __future__ import annotations

import collections
import functools
import math

import numpy as np

from proofs_check.engine.claims import ComparisonClaim, IdentityClaim, ScalingClaim
from proofs_check.engine.registry import register

from seqproj.ensemble.bandits import (SWEEP_FAMILIES, ExactTS, EnsemblePP, FiniteArmEnv, _bandit_chunk,
                      family_label, sweep_agents, sweep_ms)
from seqproj.ensemble import (LinearEnsemblePP, LinearHypermodel, checked_cholesky, diagnose_factor,
                       ensemble_sampling_members, ridge_posterior, sup_tracking_error)
from seqproj.ensemble.index_families import INDEX_FAMILIES, PERTURBATION_FAMILIES

SPEC = "spec ensemble.md"
SRC_EPP = "Li, Xu, Wang, Luo, 'Scalable Exploration via Ensemble++' (arXiv 2407.13195)"


# ---------------------------------------------------------------------------
# §2 equivalences
# ---------------------------------------------------------------------------

def _random_problem(rng, *, d_max=8, M_max=12, n_max=40):
    d = int(rng.integers(1, d_max + 1))
    M = int(rng.integers(1, M_max + 1))
    n = int(rng.integers(0, n_max + 1))
    s0 = float(rng.uniform(0.3, 5.0))
    sig = float(rng.uniform(0.3, 3.0))
    X = rng.uniform(-1, 1, size=(n, d))
    y = rng.standard_normal(n) * 2.0
    return d, M, n, s0, sig, X, y


def _mean_is_ridge(rng, n_cases):
    lhs, rhs = [], []
    for _ in range(n_cases):
        d, M, n, s0, sig, X, y = _random_problem(rng)
        idx = INDEX_FAMILIES[int(rng.integers(len(INDEX_FAMILIES)))]
        pert = PERTURBATION_FAMILIES[int(rng.integers(len(PERTURBATION_FAMILIES)))]
        mu0 = rng.standard_normal(d)
        ens = LinearEnsemblePP(d, M, prior_var=s0, noise_sd=sig, index=idx, perturbation=pert,
                               rng=rng, prior_mean=mu0)
        for i in range(n):
            ens.update(X[i], y[i])
        m, C = ridge_posterior(X, y, prior_var=s0, noise_sd=sig, prior_mean=mu0)
        lhs += [ens.mean.ravel(), ens.cov.ravel()]
        rhs += [m, C.ravel()]
    return np.concatenate(lhs), np.concatenate(rhs)


def _one_hot_is_ensemble_sampling(rng, n_cases):
    lhs, rhs = [], []
    for _ in range(n_cases):
        d, M, n, s0, sig, X, y = _random_problem(rng)
        ens = LinearEnsemblePP(d, M, prior_var=s0, noise_sd=sig, index="one_hot",
                               perturbation="gaussian", rng=rng)
        Z = rng.standard_normal((n, M)) / math.sqrt(M)
        for i in range(n):
            ens.update(X[i], y[i], z=Z[i])
        # Lu & Van Roy: member m starts at θ_0,m ~ N(0, s0 I), fits y + w with w ~ N(0, σ²)
        theta0 = math.sqrt(M) * np.asarray(ens.prior_factor)
        W = sig * math.sqrt(M) * Z
        members = ensemble_sampling_members(X, y, W, theta0, prior_var=s0, noise_sd=sig)
        # the one-hot index √M e_m selects member m: μ + A √M e_m
        samples = np.stack([ens.sample(zeta=math.sqrt(M) * np.eye(M)[m]) for m in range(M)], axis=1)
        lhs.append(samples.ravel())
        rhs.append(members.ravel())
    return np.concatenate(lhs), np.concatenate(rhs)


def _sgd_to_closed_form(rng, n_cases):
    lhs, rhs = [], []
    for case in range(n_cases):
        d, M, n, s0, sig, X, y = _random_problem(rng, d_max=5, M_max=6, n_max=15)
        s0 = float(rng.uniform(0.5, 2.0))
        sig = float(rng.uniform(0.7, 2.0))
        ens = LinearEnsemblePP(d, M, prior_var=s0, noise_sd=sig, rng=rng)
        Z = rng.standard_normal((n, M)) / math.sqrt(M)
        hm = LinearHypermodel(d, M, prior_var=s0, noise_sd=sig, prior_factor=ens.prior_factor)
        for i in range(n):
            ens.update(X[i], y[i], z=Z[i])
            hm.add(X[i], y[i], Z[i])
        sampled = case % 2 == 1      # half the cases: 2 sampled indices (+ mirrors) per step
        for _ in range(60):
            before = np.concatenate([hm.W.ravel(), hm.b])
            hm.fit(500, rng=rng, n_indices=2 if sampled else None)
            after = np.concatenate([hm.W.ravel(), hm.b])
            if np.max(np.abs(after - before)) < 1e-14:
                break
        lhs += [np.asarray(hm.mean), np.asarray(hm.factor).ravel()]
        rhs += [np.asarray(ens.mean), np.asarray(ens.factor).ravel()]
    return np.concatenate(lhs), np.concatenate(rhs)


register(IdentityClaim(
    id="ensemble.equivalence.mean_is_ridge",
    statement="Ensemble++ mean μ_t and Σ_t (Sherman–Morrison) equal the ridge/Kalman posterior "
              "(I/s0 + XᵀX/σ²)⁻¹ and its mean, for every index/perturbation family",
    source=f"{SRC_EPP}, §3; {SPEC} §2", label="DERIVED",
    params={"d_max": 8, "M_max": 12, "n_max": 40},
    fn=_mean_is_ridge, tol=1e-9, tol_mode="mixed", chunk_size=50, default_budget=500,
    quick_budget=100, role="statement", expected="holds"))

register(IdentityClaim(
    id="ensemble.equivalence.one_hot_is_ensemble_sampling",
    statement="one-hot index √M e_m + Gaussian perturbations: μ_t + A_t√M e_m equals member m of "
              "classic ensemble sampling (perturbed prior N(0, s0 I), perturbed rewards N(0, σ²))",
    source=f"{SRC_EPP}; Lu & Van Roy, 'Ensemble Sampling' (NeurIPS 2017); {SPEC} §2",
    label="DERIVED", params={"d_max": 8, "M_max": 12, "n_max": 40},
    fn=_one_hot_is_ensemble_sampling, tol=1e-9, tol_mode="mixed", chunk_size=50,
    default_budget=500, quick_budget=100, role="statement", expected="holds"))

register(IdentityClaim(
    id="ensemble.equivalence.sgd_to_closed_form",
    statement="HyperAgent linear hypermodel trained by gradient descent on the symmetrised loss "
              "(exact ±√M e_i set, or 2 sampled ξ with mirrors) converges to (μ_t, A_t) of Ensemble++",
    source=f"'HyperAgent' (arXiv 2402.10228), §3; {SRC_EPP}; {SPEC} §2–3", label="DERIVED",
    params={"d_max": 5, "M_max": 6, "n_max": 15, "steps_max": 30000},
    fn=_sgd_to_closed_form, tol=1e-8, tol_mode="mixed", chunk_size=10, default_budget=60,
    quick_budget=20, role="statement", expected="holds",
    notes="The closed form is a fixed point of every symmetrised step (the residual of the "
          "normal equations multiplies the empirical ΞᵀΞ), so sampled indices converge exactly too."))


# ---------------------------------------------------------------------------
# §4.1 covariance tracking
# ---------------------------------------------------------------------------

def _sup_error_grid(grid_name, grid, fixed, rng, n):
    out = np.empty((n, len(grid)))
    for r in range(n):
        for j, v in enumerate(grid):
            kw = dict(fixed)
            if grid_name == "M":
                kw["M"] = int(v)
            elif grid_name == "d":
                kw["d"] = int(v)
                kw["M"] = int(fixed["M_per_d"] * v)
            elif grid_name == "T":
                kw["T"] = int(v)
            kw.pop("M_per_d", None)
            out[r, j] = sup_tracking_error(kw.pop("d"), kw.pop("M"), kw.pop("T"), rng, **kw)
    return out


_TRACK = {"d": 10, "T": 2000, "K": 100, "prior_var": 1.0, "noise_sd": 1.0}
_STMT_TRACK = "sup_{t≤T} ‖Σ_t^{-1/2} A_t A_tᵀ Σ_t^{-1/2} − I‖ under adaptive play"

register(ScalingClaim(
    id="ensemble.tracking.decay_in_M",
    statement=f"{_STMT_TRACK} decays like M^a with a ∈ [−0.65, −0.35] (≈ 2√(d/M)), random start, "
              "d = 10, K = 100 unit arms, T = 2000",
    source=f"{SRC_EPP}; {SPEC} §4.1 (form DERIVED, constants OPEN)", label="DERIVED",
    params={**_TRACK, "init": "random", "M": [10, 20, 40, 80, 160, 320]},
    x=[10, 20, 40, 80, 160, 320], exponent_lo=-0.65, exponent_hi=-0.35,
    fn=functools.partial(_sup_error_grid, "M", (10, 20, 40, 80, 160, 320),
                         {**_TRACK, "init": "random"}),
    chunk_size=1, default_budget=10, quick_budget=3, role="statement", expected="holds",
    notes="Replicates are independent: each draws its own arms, θ*, start and perturbations "
          "from the chunk generator.  Window rule (fixed before the runs): the derived rate "
          "−1/2 ± 0.15."))

register(ScalingClaim(
    id="ensemble.tracking.flat_in_d",
    statement=f"{_STMT_TRACK} at M = 8d is flat in d: exponent in [−0.15, 0.15], d ∈ {{5,10,20,40}}",
    source=f"{SPEC} §4.1 (reference runs 0.82, 0.79, 0.79 for d = 5, 10, 20)", label="DERIVED",
    params={"T": 2000, "K": 100, "M_per_d": 8, "d": [5, 10, 20, 40]},
    x=[5, 10, 20, 40], exponent_lo=-0.15, exponent_hi=0.15,
    fn=functools.partial(_sup_error_grid, "d", (5, 10, 20, 40),
                         {"T": 2000, "K": 100, "M_per_d": 8}),
    chunk_size=1, default_budget=6, quick_budget=2, role="statement", expected=None,
    notes="Window rule: 'flat' = |exponent| ≤ 0.15, the same half-width as decay_in_M."))

register(ScalingClaim(
    id="ensemble.tracking.flat_in_T",
    statement=f"{_STMT_TRACK} at d = 10, M = 80 is nearly flat in T: exponent in [−0.05, 0.1], "
              "T ∈ {100, 300, 1000, 3000}",
    source=f"{SPEC} §4.1 ('nearly flat in T, consistent with d log T')", label="DERIVED",
    params={"d": 10, "M": 80, "K": 100, "T": [100, 300, 1000, 3000]},
    x=[100, 300, 1000, 3000], exponent_lo=-0.05, exponent_hi=0.1,
    fn=functools.partial(_sup_error_grid, "T", (100, 300, 1000, 3000),
                         {"d": 10, "M": 80, "K": 100}),
    chunk_size=1, default_budget=8, quick_budget=2, role="statement", expected="holds",
    notes="Window rule: 'nearly flat' = exponent in [−0.05, 0.1] (d log T growth over T = "
          "100…3000 has local exponent ≈ 0.15 at most; the spec says nearly flat)."))


def _haar_minus_random(d, M, T, rng, n):
    out = np.empty(n)
    for r in range(n):
        seed = int(rng.integers(0, 2**63))
        h = sup_tracking_error(d, M, T, np.random.default_rng(seed), init="haar")
        s = sup_tracking_error(d, M, T, np.random.default_rng(seed), init="random")
        out[r] = h - s
    return out


register(ComparisonClaim(
    id="ensemble.tracking.haar_start_lowers_sup",
    statement=f"a Haar (orthogonal) start lowers {_STMT_TRACK}: E[sup_haar − sup_random] < 0 "
              "at d = 10, M = 80, T = 2000",
    source=f"{SPEC} §4.1 ('a floor set by the random start B; a Haar start removes it')",
    label="OPEN", params={"d": 10, "M": 80, "T": 2000, "K": 100},
    fn=functools.partial(_haar_minus_random, 10, 80, 2000), threshold=0.0, alternative="less",
    # bounds=None: a sup tracking error is ≥ 0 but has no almost-sure upper bound (the random
    # start B is Gaussian, so ‖B Bᵀ − I‖ is unbounded), hence no honest range for the
    # difference; the engine's skewness-corrected interval decides (guarantee "asymptotic").
    bounds=None,
    chunk_size=5, default_budget=30, quick_budget=10, role="statement", expected=None,
    notes="Same seed for both starts (common random numbers for arms, θ*, ζ's); one fresh "
          "seed per pair, so pairs are independent.  No bounds: the sup error is unbounded "
          "(Gaussian start), verdict asymptotic."))


# ---------------------------------------------------------------------------
# §4.2 regret sweep (finite arms, K = 1000, T = 2000)
# ---------------------------------------------------------------------------

_SWEEP_CACHE: "collections.OrderedDict" = collections.OrderedDict()


def clear_sweep_cache() -> None:
    """Empty the in-process sweep cache (tests that patch the simulator call it)."""
    _SWEEP_CACHE.clear()


def _code_token() -> tuple:
    """Identity of the code a cached sweep was computed with: the simulator
    entry points as looked up *now*, so a monkeypatched (mutated) simulator
    never receives numbers computed by the original one."""
    from seqproj.ensemble import bandits

    return tuple(id(getattr(bandits, name)) for name in
                 ("simulate_repetition", "sample_index", "sample_perturbation", "sample_rows",
                  "_solve_upper_t", "chol_rank1_update", "_epp_start")) + (id(_bandit_chunk),)


def sweep_chunk_finals(d, K, T, rng, n):
    """Final regrets ``(n, n_agents)`` of the lock-step sweep (:func:`sweep_agents`).

    Memoised in-process on the chunk's generator state, so the per-family
    claims of one ``verify`` pattern share one simulation on the serial and
    threads executors (other executors recompute; the numbers are identical).

    Validity: the engine gives chunk ``k`` the generator
    ``SeedSequence(seed, spawn_key=(k,))`` whatever the claim, so a cache hit
    returns exactly the numbers a fresh run would compute (tested).  Inside a
    chunk every repetition draws its own root seed from ``rng`` (one
    ``integers`` call, :func:`seqproj.ensemble.bandits._rep_streams`), so repetitions —
    the engine's paired differences — stay independent; the cache only makes
    the per-family *claims* share data (their verdicts are correlated, each is
    valid on its own).  The key includes the identity of the simulator
    functions (:func:`_code_token`), and the cached array is read-only.
    """
    key = (d, K, T, n, repr(rng.bit_generator.state), _code_token())
    if key in _SWEEP_CACHE:
        _SWEEP_CACHE.move_to_end(key)
        fin = _SWEEP_CACHE[key]
        # advance the generator exactly as a fresh run would (one root seed per repetition)
        for _ in range(n):
            rng.integers(0, 2**63)
        return fin
    cum = _bandit_chunk(FiniteArmEnv(d, K), sweep_agents(d), T, rng, n)
    fin = cum[:, :, -1].copy()
    fin.flags.writeable = False
    _SWEEP_CACHE[key] = fin
    while len(_SWEEP_CACHE) > 128:
        _SWEEP_CACHE.popitem(last=False)
    return fin


def _regret_gap(d, K, T, label, margin, rng, n):
    labels = [a.label for a in sweep_agents(d)]
    fin = sweep_chunk_finals(d, K, T, rng, n)
    return fin[:, labels.index(label)] - (1.0 + margin) * fin[:, labels.index("TS")]


for _d in (10, 50):
    for _idx, _pert in SWEEP_FAMILIES:
        _fam = family_label(_idx, _pert)
        _lab = EnsemblePP(8 * _d, _idx, _pert).label
        register(ComparisonClaim(
            id=f"ensemble.regret.finite.d{_d}.{_fam}",
            statement=f"finite arms (d = {_d}, K = 1000, T = 2000): Ensemble++ {_fam} with "
                      f"M = 8d = {8 * _d} (≈ d log T) has mean final regret within 10% of exact "
                      "TS: E[R_EPP − 1.1 R_TS] < 0",
            source=f"{SRC_EPP}, regret theorem ('comparable to exact Thompson sampling' with "
                   f"M = Θ(d log T)); {SPEC} §4.2 (orders CONFIRMED, constants OPEN)",
            label="OPEN",
            params={"d": _d, "K": 1000, "T": 2000, "M": 8 * _d, "family": _fam,
                    "margin": 0.10, "sweep_ms": list(sweep_ms(_d))},
            fn=functools.partial(_regret_gap, _d, 1000, 2000, _lab, 0.10),
            threshold=0.0, alternative="less",
            # bounds=None: per round 0 ≤ r_t ≤ Δ = max_x xᵀθ* − min_x xᵀθ*, so the only
            # almost-sure range is d ∈ [−1.1·T·Δ, T·Δ], with Δ unbounded (θ* ~ N(0, 10 I)).
            # Normalising by T·Δ makes d ∈ [−1.1, 1] but the effects are ≈ 2e-4 of that range
            # (regret ≈ 130 vs T·Δ ≈ 3e4 at d = 10): a betting sequence cannot decide at
            # 50 repetitions.  The engine's skewness-corrected interval decides (asymptotic;
            # the differences are right-skewed, skew 1.2–2.9).
            bounds=None,
            chunk_size=5, default_budget=50, quick_budget=10, role="statement", expected=None,
            notes="One chunk runs the whole lock-step sweep (TS, LinUCB, Greedy, every family and "
                  "M on common random numbers; one fresh root seed per repetition, so the paired "
                  "differences are independent); the figure ensemble_regret_vs_m and the note use "
                  "the same chunks (seed 0).  The per-family claims share chunks through an "
                  "in-process cache: their verdicts are correlated, each is valid on its own.  "
                  "Margin rule: 10%, the spec's 'comparable to TS'.  No bounds: regret has no "
                  "useful almost-sure range; verdict asymptotic."))


# ---------------------------------------------------------------------------
# §4.3 failure modes, each detected with a diagnosis
# ---------------------------------------------------------------------------

def _adaptive_state(rng, d, M, T, **kw):
    ens = LinearEnsemblePP(d, M, rng=rng, **kw)
    arms = rng.standard_normal((50, d))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    theta = rng.standard_normal(d)
    for _ in range(T):
        x = arms[int(np.argmax(arms @ ens.sample(rng)))]
        ens.update(x, float(x @ theta + rng.standard_normal()))
    return ens


def _has(diag, word):
    return float(any(word in p for p in diag.problems))


def _detect_unnormalised(rng, n_cases):
    lhs, rhs = [], []
    for _ in range(n_cases):
        d = int(rng.integers(2, 9))
        M = max(16, int(rng.integers(4, 9)) * d)
        bad = _adaptive_state(rng, d, M, 100, perturbation_scale=math.sqrt(M))
        good = _adaptive_state(rng, d, M, 100)
        lhs += [_has(bad.diagnose(), "I instead of I/M"), _has(good.diagnose(), "I instead of I/M")]
        rhs += [1.0, 0.0]
    return np.array(lhs), np.array(rhs)


def _detect_rank_deficient(rng, n_cases):
    lhs, rhs = [], []
    for _ in range(n_cases):
        d = int(rng.integers(3, 12))
        M = int(rng.integers(1, d))
        ens = _adaptive_state(rng, d, M, 50)
        full = _adaptive_state(rng, d, 4 * d, 50)
        lhs += [_has(ens.diagnose(), "rank"), _has(full.diagnose(), "rank")]
        rhs += [1.0, 0.0]
    return np.array(lhs), np.array(rhs)


def _detect_broken_predictability(mode, rng, n_cases):
    lhs, rhs = [], []
    d, M, T = 5, 40, 300
    for _ in range(n_cases):
        seed = int(rng.integers(0, 2**63))
        kw = {"play": "lookahead"} if mode == "lookahead" else {"reuse_z": True}
        bad = sup_tracking_error(d, M, T, np.random.default_rng(seed), **kw)
        good = sup_tracking_error(d, M, T, np.random.default_rng(seed))
        thr = 2.0 * math.sqrt(d / M) + d / M + 0.5       # diagnose_factor's default threshold
        lhs += [float(bad > thr), float(good > thr)]
        rhs += [1.0, 0.0]
    return np.array(lhs), np.array(rhs)


def _detect_float32(rng, n_cases):
    lhs, rhs = [], []
    for _ in range(n_cases):
        d = int(rng.integers(5, 30))
        # many plays along a few directions: precision eigenvalues from 1 to ~1e9
        U = np.linalg.qr(rng.standard_normal((d, d)))[0]
        lam = np.logspace(0, float(rng.uniform(8.5, 10)), d)
        prec = (U * lam) @ U.T
        Sigma = np.linalg.inv(prec)
        Sigma = 0.5 * (Sigma + Sigma.T)
        fired32 = 0.0
        try:
            checked_cholesky(Sigma, name="Sigma_t", dtype=np.float32)
        except RuntimeError as exc:
            fired32 = float("float64" in str(exc))
        ok64 = 1.0
        try:
            checked_cholesky(prec, name="precision", dtype=np.float64)
        except RuntimeError:
            ok64 = 0.0
        lhs += [fired32, ok64]
        rhs += [1.0, 1.0]
    return np.array(lhs), np.array(rhs)


def _one_hot_small_m_gap(d, M, T, rng, n):
    agents = (ExactTS(), EnsemblePP(M, "one_hot", "gaussian"), EnsemblePP(M, "gaussian", "gaussian"))
    cum = _bandit_chunk(FiniteArmEnv(d, 100), agents, T, rng, n)
    fin = cum[:, :, -1]
    return fin[:, 1] - 1.5 * fin[:, 0]


_FLAG = ("lhs = [detector fires on the faulty run, detector fires on the correct run], "
         "rhs = [1, 0]")

register(IdentityClaim(
    id="ensemble.failure.unnormalised_perturbation",
    statement="perturbations N(0, I) instead of N(0, I/M) make A Aᵀ ≈ M Σ; diagnose_factor says so, "
              "and stays silent on the correct update",
    source=f"{SPEC} §4.3", label="DERIVED", params={"d": "2..8", "M": "max(16, 4d..8d)", "T": 100},
    fn=_detect_unnormalised, tol=0.5, tol_mode="absolute", chunk_size=10, default_budget=40,
    quick_budget=10, role="control", expected="holds", notes=_FLAG))

register(IdentityClaim(
    id="ensemble.failure.rank_deficient",
    statement="M < d: A Aᵀ has rank M < d (samples never move in d − M directions); "
              "diagnose_factor reports it, and not for M = 4d",
    source=f"{SPEC} §4.3", label="DERIVED", params={"d": "3..11", "M": "1..d-1", "T": 50},
    fn=_detect_rank_deficient, tol=0.5, tol_mode="absolute", chunk_size=10, default_budget=40,
    quick_budget=10, role="control", expected="holds", notes=_FLAG))

register(IdentityClaim(
    id="ensemble.failure.lookahead_perturbation",
    statement="drawing z_t before x_t (the action maximises xᵀP_{t−1}z_t) breaks predictability: "
              "the sup tracking error exceeds the diagnostic threshold 2√(d/M)+d/M+0.5, "
              "which the predictable run (same seed) stays under; d = 5, M = 40, T = 300",
    source=f"{SPEC} §4.3; seqproj.md §1 (predictability)", label="DERIVED",
    params={"d": 5, "M": 40, "T": 300},
    fn=functools.partial(_detect_broken_predictability, "lookahead"), tol=0.5,
    tol_mode="absolute", chunk_size=5, default_budget=20, quick_budget=5, role="control",
    expected="holds", notes=_FLAG))

register(IdentityClaim(
    id="ensemble.failure.reused_perturbation",
    statement="reusing one z for every update makes the sup tracking error exceed the diagnostic "
              "threshold, which the fresh-z run (same seed) stays under; d = 5, M = 40, T = 300",
    source=f"{SPEC} §4.3", label="DERIVED", params={"d": 5, "M": 40, "T": 300},
    fn=functools.partial(_detect_broken_predictability, "reuse"), tol=0.5,
    tol_mode="absolute", chunk_size=5, default_budget=20, quick_budget=5, role="control",
    expected="holds", notes=_FLAG))

register(IdentityClaim(
    id="ensemble.failure.float32_sqrt",
    statement="a float32 Cholesky square root of an ill-conditioned Σ_t (κ ≥ 3e8) is refused with "
              "a diagnosis, while the float64 Cholesky of the precision whitens it to 1e-3 in every direction",
    source=f"{SPEC} §4.3", label="DERIVED", params={"d": "5..29", "log10_kappa": "8.5..10"},
    fn=_detect_float32, tol=0.5, tol_mode="absolute", chunk_size=20, default_budget=100,
    quick_budget=20, role="control", expected="holds",
    notes="lhs = [float32 refused with the float64 advice, float64 precision Cholesky ok], rhs = [1, 1]"))

register(ComparisonClaim(
    id="ensemble.failure.one_hot_small_m",
    statement="one-hot index at small M (classic ensemble sampling, M = 2 < d = 10) loses "
              "anti-concentration: its final regret exceeds 1.5× exact TS (finite arms, K = 100, T = 1000)",
    source=f"{SPEC} §4.3; Lu & Van Roy (2017)", label="DERIVED",
    params={"d": 10, "M": 2, "K": 100, "T": 1000, "factor": 1.5},
    fn=functools.partial(_one_hot_small_m_gap, 10, 2, 1000), threshold=0.0,
    alternative="greater",
    # bounds=None: regrets have no useful almost-sure range (θ* Gaussian; see the regret
    # claims above); the engine's skewness-corrected interval decides (asymptotic).
    bounds=None,
    chunk_size=10, default_budget=50, quick_budget=20, role="control", expected="holds",
    notes="A positive control of the simulator: the known failure mode (one-hot index, M < d) "
          "must show up as excess regret.  Factor rule: 1.5× TS, the spec's 'loses "
          "anti-concentration' made quantitative before the runs.  One fresh instance per "
          "repetition; no bounds (verdict asymptotic)."))


# ---------------------------------------------------------------------------
# §4.2 smallest M within 10% of TS, as a function of d (scaling law)
# ---------------------------------------------------------------------------

_MSTAR_GRID = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)


def smallest_m_on_grid(ms, final_means, ts_mean, margin):
    """The smallest grid M from which on (it and every larger grid M) the mean
    final regret is ≤ (1 + margin)·TS, or ``math.nan`` when the criterion is
    not met at the largest grid M (**censored**: "not reached on the grid" is
    not a number and is never replaced by one)."""
    good = np.asarray(final_means) <= (1.0 + margin) * ts_mean
    bad = np.nonzero(~good)[0]
    first = 0 if bad.size == 0 else int(bad[-1]) + 1
    return float(ms[first]) if first < len(ms) else math.nan


def _smallest_m_vs_d(ds, K, T, n_inner, margin, rng, n):
    """Per replicate: for each d, ``n_inner`` repetitions of TS and Gaussian
    Ensemble++ over the M grid (≤ 8d) on common random numbers; the smallest
    M from which on every larger grid M has mean final regret ≤ (1 + margin)·TS
    (:func:`smallest_m_on_grid`; the 'from which on' guards against a lucky
    crossing).  A d where the criterion fails at M = 8d is censored and
    returns NaN, which makes the engine's verdict inconclusive (a ScalingClaim
    needs positive finite values) — the failure to reach TS level can never
    read as a fitted exponent."""
    out = np.empty((n, len(ds)))
    for r in range(n):
        for j, d in enumerate(ds):
            ms = [m for m in _MSTAR_GRID if m <= 8 * d]
            agents = (ExactTS(),) + tuple(EnsemblePP(m) for m in ms)
            fin = _bandit_chunk(FiniteArmEnv(d, K), agents, T, rng, n_inner)[:, :, -1].mean(axis=0)
            out[r, j] = smallest_m_on_grid(ms, fin[1:], fin[0], margin)
    return out


register(ScalingClaim(
    id="ensemble.regret.smallest_m_vs_d",
    statement="the smallest M from which on Gaussian Ensemble++ mean final regret is within 10% of exact TS "
              "grows like d^a with a ∈ [0.5, 1.5] at fixed T (M* = Θ(d log T)); finite arms "
              "K = 100, T = 500, d ∈ {4, 8, 16, 32}, 30 repetitions per point",
    source=f"{SRC_EPP}, regret theorem (M = Θ(d log T)); {SPEC} §4.2 (orders CONFIRMED, "
           "constants OPEN)", label="OPEN",
    params={"d": [4, 8, 16, 32], "K": 100, "T": 500, "n_inner": 30, "margin": 0.10,
            "M_grid": list(_MSTAR_GRID)},
    x=[4, 8, 16, 32], exponent_lo=0.5, exponent_hi=1.5,
    fn=functools.partial(_smallest_m_vs_d, (4, 8, 16, 32), 100, 500, 30, 0.10),
    chunk_size=1, default_budget=6, quick_budget=2, role="statement", expected=None, version=2,
    notes="M* is read off a geometric grid (ratio ≈ 1.5), so each replicate's value is "
          "quantised.  CENSORING: a replicate in which the criterion fails at M = 8d has no M* "
          "on the grid; it is reported as NaN (never replaced by a value — version 1 used 8d·√2, "
          "which forced the exponent to 1 when Ensemble++ never reached TS level), so any "
          "censored replicate makes the verdict inconclusive.  Replicates are independent "
          "(fresh instances per repetition).  Window rule: Θ(d log T) at fixed T means "
          "exponent 1; ±0.5 allows the grid quantisation."))
