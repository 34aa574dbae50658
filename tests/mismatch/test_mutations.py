"""Mutation checks: break the code under test of every ``mismatch.*`` claim family and watch the
claim's verdict move away from its normal one.

Each mutant is a plausible bug (a dropped factor, a reversed KL, an ignored argument, the wrong
mask) monkeypatched where the claim's function looks the name up: the library module that holds the
case generators (``proofs_check.mismatch.cases``), search evaluators (``.inequalities``,
``.bounds_mp``), curves (``.horizon``, ``.update_size``) or masks (``.masks``).  Runs use the
serial executor, ``out=None`` and small budgets; measured experiments are forgotten around each test.
"""
import dataclasses
import math

import numpy as np
import pytest

from proofs_check.engine import clear_measurements, get_claim
from proofs_check.engine import verify_claim
from proofs_check.mismatch import bounds_mp, cases, horizon, masks, update_size
from proofs_check.mismatch import inequalities as ineq


@pytest.fixture(autouse=True)
def _fresh_measurements():
    """Experiments are memoised per process by fingerprint, which a monkeypatch does not change:
    forget every measured chunk before and after each mutant."""
    clear_measurements()
    yield
    clear_measurements()


def _verdict(cid, budget, **kw):
    return verify_claim(get_claim(cid), budget=budget, seed=0, **kw).verdict


def _wrap_result(mod, name, **changes):
    """A mutant of ``mod.<name>`` whose dataclass result has fields transformed by ``changes``."""
    orig = getattr(mod, name)

    def mutant(*a, **k):
        r = orig(*a, **k)
        return dataclasses.replace(r, **{f: fn(getattr(r, f)) for f, fn in changes.items()})
    return mutant


def _scaled_out(mod, name, factor, index=None):
    """A mutant of ``mod.<name>`` returning its result (or element ``index``) times ``factor``."""
    orig = getattr(mod, name)

    def mutant(*a, **k):
        r = orig(*a, **k)
        if index is None:
            return r * factor if not isinstance(r, list) else [x * factor for x in r]
        r = list(r)
        r[index] = r[index] * factor
        return tuple(r)
    return mutant


# --------------------------------------------------------------------------
# identities: the normal verdict is "holds"
# --------------------------------------------------------------------------

def _reversed_kl():
    orig = cases.rel_entr
    return lambda p, q: orig(q, p)                             # KL(π‖μ) for KL(μ‖π)


def _swapped_estimators():
    orig = cases.estimator_moments

    def mutant(*a, **k):
        g, mom = orig(*a, **k)
        mom = dict(mom)
        mom["seq_is"], mom["seq_mis"] = mom["token_is"], mom["seq_tis"]   # token for sequence, TIS for MIS
        return g, mom
    return mutant


def _trm_avg_for_max():
    orig = cases.proxy_acceptance

    def mutant(*a, **k):
        r = orig(*a, **k)
        return dataclasses.replace(r, accept={**r.accept, "trm_max": r.accept["trm_avg"]})
    return mutant


def _mis_without_log():
    # compares Σ_t log ρ_t with C instead of log C
    return lambda a, b, m, C: (np.where(m, np.asarray(a) - np.asarray(b), 0.0)).sum(axis=1) <= C


def _rule_ignored():
    orig = cases.count_state_tilt
    return lambda m, e, T, rule="majority": orig(m, e, T, rule="majority")


IDENTITY_MUTANTS = [
    ("gain_tangent_delta", "trm_decomposition", lambda: _wrap_result(cases, "trm_decomposition", delta_term=lambda v: 1.01 * v)),
    ("worst_case_reward", "trm_decomposition", lambda: _wrap_result(cases, "trm_decomposition", remainder=lambda v: 1.01 * v)),
    ("pdi_gain", "performance_difference", lambda: _wrap_result(cases, "performance_difference", gain_pdi=lambda v: 1.01 * v)),
    ("pdi_tangent", "performance_difference",
     lambda: _wrap_result(cases, "performance_difference", tangent_pdi=lambda v: 1.01 * v)),
    ("advantage_mean_zero", "performance_difference",
     lambda: _wrap_result(cases, "performance_difference", adv_mean_max=lambda v: v + 1e-6)),
    ("chain_rule", "sequence_kl_chain", lambda: _scaled_out(cases, "sequence_kl_chain", 1.001)),
    ("log_rho_geo", "sequence_kl_chain", lambda: _scaled_out(cases, "sequence_kl_chain", 1.001)),
    ("abs_ratio", "abs_ratio_identity", lambda: _scaled_out(cases, "abs_ratio_identity", 1.001, index=1)),
    ("future_tv", "future_tv_identity", lambda: _scaled_out(cases, "future_tv_identity", 1.001, index=1)),
    ("k1_k3_unbiased", "rel_entr", _reversed_kl),
    ("seq_is_unbiased", "estimator_moments", _swapped_estimators),
    ("mis_bias", "estimator_moments", _swapped_estimators),
    ("no_sequence_only_control", "divergence_summary",
     lambda: _wrap_result(cases, "divergence_summary", d_kl_seq=lambda v: 2.0 * v)),
    ("trm_acceptance", "proxy_acceptance", _trm_avg_for_max),
    ("length_trap", "sequence_mis_mask", _mis_without_log),
    ("iid_tilt_closed_form", "iid_tilt_worst_case",
     lambda: _wrap_result(cases, "iid_tilt_worst_case", abs_error=lambda v: 1.001 * v)),
    ("state_tilt_constant", "count_state_tilt", _rule_ignored),
]


def test_every_identity_has_a_mutant():
    from proofs_check.engine import claims
    assert {c.id.rsplit(".", 1)[-1] for c in claims("mismatch.identity")} == {m[0] for m in IDENTITY_MUTANTS}


@pytest.mark.parametrize("cid,name,make", IDENTITY_MUTANTS, ids=[m[0] for m in IDENTITY_MUTANTS])
def test_identity_mutant_refuted(monkeypatch, cid, name, make):
    cid = f"mismatch.identity.{cid}"
    budget = 10 if cid.endswith("state_tilt_constant") else 20
    monkeypatch.setattr(cases, name, make())
    assert _verdict(cid, budget) == "refuted"


@pytest.mark.slow
def test_state_tilt_constant_holds_to_T_8192():
    """The scale-mode tolerance does not depend on T: the DP still matches the closed form at T = 8192
    (the old absolute tolerance failed from T = 2048 on)."""
    lhs, rhs, scale = cases.state_tilt_constant_cases(np.random.default_rng(0), 2, T_choices=(8192,))
    assert np.all(np.abs(lhs - rhs) / scale <= get_claim("mismatch.identity.state_tilt_constant").tol)
    assert np.max(np.abs(lhs - rhs)) / 2.0 > 1e-12    # the old rule |lhs − rhs|/2 ≤ 1e-12 would fail here


# --------------------------------------------------------------------------
# bounds (§5): shrink the bound in float AND in the mpmath re-implementation
# --------------------------------------------------------------------------

def _shrink_bounds(monkeypatch, factor=0.1):
    """An order-of-magnitude error in every bound (e.g. δ where √δ belongs, at δ ≈ 0.01)."""
    orig_tab, orig_mp = ineq.trm_bounds_from_policies, bounds_mp.trm_bounds_mp
    monkeypatch.setattr(ineq, "trm_bounds_from_policies",
                        lambda *a, **k: {key: factor * v for key, v in orig_tab(*a, **k).items()})
    monkeypatch.setattr(bounds_mp, "trm_bounds_mp", lambda *a: {key: factor * v for key, v in orig_mp(*a).items()})
    monkeypatch.setattr(ineq, "iid_tilt_worst_case", _wrap_result(
        ineq, "iid_tilt_worst_case", bounds=lambda b: {key: factor * v for key, v in b.items()}))


BOUND_CASES = [f"{k}.iid_tilt" for k in ("classical", "pm_kl", "pm_tv", "mix_kl", "mix_tv", "coupling",
                                          "adaptive", "unified")] + ["unified.uniform", "unified.sparse",
                                                                     "unified.low_prob"]


@pytest.mark.parametrize("case", BOUND_CASES)
def test_bound_mutant_refuted(monkeypatch, case):
    cid = f"mismatch.bound.{case}"
    assert _verdict(cid, 200) == "holds"
    _shrink_bounds(monkeypatch)
    r = verify_claim(get_claim(cid), budget=200, seed=0)
    assert r.verdict == "refuted" and "mpmath" in r.confirmed_by


def test_bound_remainder_mutant_is_caught_by_mpmath(monkeypatch):
    """A float bug in the remainder alone is rejected by the independent mpmath evaluator: the
    verdict stays "holds" but every rejected float violation is reported (the verdict is about the
    mathematics, and the warning exposes the broken float code)."""
    monkeypatch.setattr(ineq, "worst_case_reward", _wrap_result(ineq, "worst_case_reward", abs_error=lambda v: 20.0 * v))
    r = verify_claim(get_claim("mismatch.bound.unified.uniform"), budget=100, seed=0)
    assert r.verdict == "holds" and r.artefacts > 0 and any("mpmath" in w for w in r.warnings)


# --------------------------------------------------------------------------
# lemmas and estimator bounds
# --------------------------------------------------------------------------

def _moments_with_C(factor):
    """The estimator moments computed with the clipping constant off by ``factor``."""
    orig = ineq.estimator_moments
    return lambda mu, lin, R, C: orig(mu, lin, R, C=factor * C)


def _pm_closed_no_4_3():
    return lambda T, delta: T ** 1.5 * delta                   # (4/3) dropped


INEQ_MUTANTS = [
    ("lemma.advantage_paper", "performance_difference",
     lambda: _wrap_result(ineq, "performance_difference", g_over_tv_max=lambda v: 2.5 * v)),
    ("lemma.advantage_tight", "performance_difference",
     lambda: _wrap_result(ineq, "performance_difference", g_over_tv_max=lambda v: 1.1 * v)),
    ("lemma.master", "performance_difference",
     lambda: _wrap_result(ineq, "performance_difference", master_bound=lambda v: 0.3 * v)),
    ("lemma.context_shift", "divergence_summary",
     lambda: _wrap_result(ineq, "divergence_summary", eps=lambda v: 0.5 * v, delta=lambda v: 0.5 * v,
                          d_tv_seq=lambda v: 0.5 * v, d_kl_seq=lambda v: 0.5 * v)),
    ("lemma.kl_seq_le_T_delta", "divergence_summary",
     lambda: _wrap_result(ineq, "divergence_summary", delta=lambda v: 0.5 * v)),
    ("lemma.pinsker", "per_context_tv", lambda: _scaled_out(ineq, "per_context_tv", 2.0)),   # TV without the ½
    ("lemma.length_neutral", "length_neutral_weights", lambda: _scaled_out(ineq, "length_neutral_weights", 0.1)),
    ("lemma.pm_kl_closed_form", "pm_kl_closed_form", _pm_closed_no_4_3),
    ("estimator.naive", "sequence_tv", lambda: _scaled_out(ineq, "sequence_tv", 0.3)),
    # χ² computed as (E_μ ρ)² − 1 = 0 instead of E_μ ρ² − 1
    ("estimator.tis_chi2", "sequence_chi2", lambda: (lambda *a, **k: 0.0)),
    ("estimator.is_second_moment", "per_context_chi2", lambda: _scaled_out(ineq, "per_context_chi2", 0.5)),
    ("estimator.tis_excess", "estimator_moments", lambda: _moments_with_C(0.5)),
    ("estimator.seq_tis", "estimator_moments", lambda: _moments_with_C(2.0)),
    ("estimator.seq_mis", "estimator_moments", lambda: _moments_with_C(2.0)),
]


def test_every_lemma_and_estimator_has_a_mutant():
    from proofs_check.engine import claims
    have = {c.id.split(".", 1)[1] for c in claims("mismatch.lemma") + claims("mismatch.estimator")}
    assert have == {m[0] for m in INEQ_MUTANTS}


@pytest.mark.parametrize("cid,name,make", INEQ_MUTANTS, ids=[m[0] for m in INEQ_MUTANTS])
def test_inequality_mutant_refuted(monkeypatch, cid, name, make):
    cid = f"mismatch.{cid}"
    monkeypatch.setattr(ineq, name, make())
    assert _verdict(cid, 200) == "refuted"


# --------------------------------------------------------------------------
# scaling and staleness
# --------------------------------------------------------------------------

def _tilt_times_sqrt_T():
    orig = horizon.iid_tilt_worst_case

    def mutant(m, p, T, **k):
        r = orig(m, p, T, **k)
        f = math.sqrt(T)
        return dataclasses.replace(r, abs_error=f * r.abs_error, bounds={key: f * v for key, v in r.bounds.items()})
    return mutant


def _state_times_T2():
    orig = horizon.count_state_tilt

    def mutant(m, e, T, **k):
        r = orig(m, e, T, **k)
        return dataclasses.replace(r, abs_error=T * T * r.abs_error)
    return mutant


def _sgd_ignores_eta_and_B():
    orig = update_size.run_sgd
    return lambda th, R, V, T, *, eta, steps, B=16, **k: orig(th, R, V, T, eta=0.05, steps=steps, B=16, **k)


def _stale_kl_times_k():
    orig = update_size.staleness_kl
    return lambda tr, k, **kw: k * orig(tr, k, **kw)


SCALING_MUTANTS = [(cid, mod, name, make) for ids, mod, name, make in [
    (("iid_tilt_remainder", "iid_tilt_remainder_4096", "iid_tilt_random", "pm_kl_bound", "classical_bound",
      "near_deterministic_tilt"), horizon, "iid_tilt_worst_case", _tilt_times_sqrt_T),
    (("state_tilt_majority", "state_tilt_contrarian", "state_tilt_alternating"), horizon, "count_state_tilt",
     _state_times_T2),
    (("staleness_drift_k", "staleness_noise_k"), update_size, "staleness_kl", _stale_kl_times_k),
    (("staleness_drift_eta", "staleness_noise_B"), update_size, "run_sgd", _sgd_ignores_eta_and_B),
] for cid in ids]


def test_every_scaling_claim_has_a_mutant():
    from proofs_check.engine import claims
    assert {c.id.rsplit(".", 1)[-1] for c in claims("mismatch.scaling")} == {m[0] for m in SCALING_MUTANTS}


@pytest.mark.parametrize("cid,mod,name,make", SCALING_MUTANTS, ids=[m[0] for m in SCALING_MUTANTS])
def test_scaling_mutant_refuted(monkeypatch, cid, mod, name, make):
    cid = f"mismatch.scaling.{cid}"
    c = get_claim(cid)
    budget = None if c.deterministic else 4
    monkeypatch.setattr(mod, name, make())
    assert _verdict(cid, budget) != "holds"


def test_staleness_comparison_mutant(monkeypatch):
    """A trainer that ignores η makes the paired differences vanish (sign 0): no longer "holds"
    at the budget where the unmutated claim holds (seed 0: 16 pairs, all signs −1)."""
    assert _verdict("mismatch.staleness.smaller_step_less_mismatch", 16) == "holds"
    monkeypatch.setattr(update_size, "run_sgd", _sgd_ignores_eta_and_B())
    assert _verdict("mismatch.staleness.smaller_step_less_mismatch", 16) != "holds"


# --------------------------------------------------------------------------
# TRM masks: the claims call the library's masks
# --------------------------------------------------------------------------

def test_trm_exact_mutant_avg_for_max(monkeypatch):
    """TRM-Max replaced by the average-KL rule: it admits violating responses → refuted."""
    assert _verdict("mismatch.trm.exact_never_false_accepts", 500) != "refuted"
    monkeypatch.setattr(masks, "trm_max_mask", lambda kl, m, delta: masks.trm_avg_mask(kl, m, delta))
    assert _verdict("mismatch.trm.exact_never_false_accepts", 500) == "refuted"


def test_trm_exact_mutant_strict_threshold(monkeypatch):
    """A subtler bug: δ/2 for δ (rejects compliant responses with KL in (δ/2, δ]) → refuted."""
    orig = masks.trm_max_mask
    monkeypatch.setattr(masks, "trm_max_mask", lambda kl, m, delta: orig(kl, m, delta / 2))
    assert _verdict("mismatch.trm.exact_never_false_accepts", 1000) == "refuted"


def test_trm_exact_mask_that_raises_is_not_a_pass(monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("mask not implemented")
    monkeypatch.setattr(masks, "trm_max_mask", boom)
    with pytest.raises(RuntimeError):
        _verdict("mismatch.trm.exact_never_false_accepts", 500)


@pytest.mark.parametrize("name", ["k2_max", "k3_mean"])
def test_proxy_mutant_changes_verdict(monkeypatch, name):
    """δ passed in the wrong units (×1e-6) makes the proxy accept almost nothing: the leak disappears,
    so the claim (normally refuted) now holds — it measures the library's mask."""
    attr = f"{name}_mask"
    assert _verdict(f"mismatch.trm.proxy_{name}_false_accept", 500) == "refuted"
    orig = getattr(masks, attr)
    monkeypatch.setattr(masks, attr, lambda a, b, m, d: orig(a, b, m, d * 1e-6))
    assert _verdict(f"mismatch.trm.proxy_{name}_false_accept", 2000) == "holds"
