"""Mutation checks: every family of ``baselines.*`` claims must change its verdict when the code
under test is broken.

Each test monkeypatches the function where the claim's case generator looks it up (the library
module whose namespace the generator reads), runs the claim with the serial executor, ``out=None``,
seed 0 at a small budget, and asserts (a) the unmutated verdict at that budget and (b) a different
verdict after the mutation.  Measured experiments are forgotten around each run (the memo is keyed
by the experiment's fingerprint, which a monkeypatch does not change).  The variance inequalities
re-check float64 violations in mpmath, an independent implementation that a float-only mutation
does not reach: their mutation tests run the claim without that check (the float search must catch
the mutation by itself), and one test shows the mpmath check rejecting a float-only mutation.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.special import logsumexp

import proofs_check.baselines.dapo as dapo
import proofs_check.baselines.instances as inst
import proofs_check.baselines.logit_dynamics as ld
import proofs_check.baselines.moments as mom
import proofs_check.baselines.population as pop
import proofs_check.baselines.proxy as px
import proofs_check.baselines.ragged as rg
import proofs_check.logits as lg
from proofs_check.engine import clear_measurements, get_claim
from proofs_check.engine import verify_claim


def run(cid: str, budget: int | None = None, *, mp: bool = True):
    claim = get_claim(cid)
    if not mp:
        claim = dataclasses.replace(claim, evaluate_mp=None)
    clear_measurements()
    try:
        return verify_claim(claim, budget=budget, seed=0, out=None)
    finally:
        clear_measurements()


def check(monkeypatch, cid, budget, target, name, broken, normal="holds", *, mp: bool = True):
    """Assert ``normal`` before and a different verdict after ``setattr(target, name, broken)``."""
    assert run(cid, budget, mp=mp).verdict == normal
    with monkeypatch.context() as m:
        m.setattr(target, name, broken)
        mutated = run(cid, budget, mp=mp).verdict
    assert mutated != normal, f"{cid}: the mutation of {name} did not change the verdict ({mutated})"
    return mutated


# --- the logit-gradient proxy ------------------------------------------------------------------

def naive_energy(logits, actions):
    """The cancellation-prone form ``1 − 2p_a + Σp²`` (loses everything when p_a → 1)."""
    p = lg.softmax(logits)
    pa = np.take_along_axis(p, np.asarray(actions)[..., None], -1)[..., 0]
    return 1.0 - 2.0 * pa + np.sum(p * p, axis=-1)


def unshifted_collision(logits):
    """``Σp²`` without the max shift: costs ulp(|z|) ≈ 4e-12 in the exponent at |z| ~ 1e4."""
    z = np.asarray(logits, dtype=float)
    return np.exp(logsumexp(2.0 * z, axis=-1) - 2.0 * logsumexp(z, axis=-1))


def test_proxy_identity_detects_a_cancelling_energy(monkeypatch):
    assert check(monkeypatch, "baselines.proxy.identity", 100, px, "logit_gradient_energy", naive_energy) == "refuted"


def test_proxy_collision_detects_an_unshifted_logsumexp(monkeypatch):
    assert check(monkeypatch, "baselines.proxy.collision", 100, px, "sum_pi_squared", unshifted_collision) == "refuted"


def _with_proxy(model, proxy):
    return dataclasses.replace(model, proxy=proxy)


def model_without_collision_term(policy, reward, **kw):
    """``exact_model`` whose proxy forgets ``Σ_{b≠a} p_b²``: ``(1 − p_a)²`` only."""
    m = pop.exact_model(policy, reward, **kw)
    idx = np.arange(m.n_seq)
    proxy = np.empty_like(m.proxy)
    for t in range(m.T):
        p = m.row_probs[t][idx // m.V ** (m.T - t)]
        proxy[:, t] = (1.0 - p[idx, m.tokens[:, t]]) ** 2
    return _with_proxy(m, proxy)


def model_with_shifted_proxy(policy, reward, **kw):
    """``exact_model`` whose proxy is misaligned by one position (w_{t+1} stored at t)."""
    m = pop.exact_model(policy, reward, **kw)
    return _with_proxy(m, np.roll(m.proxy, -1, axis=1))


def test_tabular_exact_detects_a_wrong_proxy(monkeypatch):
    assert check(monkeypatch, "baselines.proxy.tabular_exact", 10, px, "exact_model",
                 model_without_collision_term) == "refuted"


def test_shared_correlation_detects_a_misaligned_proxy(monkeypatch):
    assert check(monkeypatch, "baselines.proxy.shared_correlation", 100, px, "exact_model",
                 model_with_shifted_proxy) != "holds"


# --- exact population variances -----------------------------------------------------------------

_real_population_baselines = pop.population_baselines


def otb_normalised_by_total_weight(model, *, weights="proxy"):
    """OTB normalised by the final ``E W_T`` instead of ``E W_t``: ``B_t = E[W_t R]/E[W_T]``."""
    out = _real_population_baselines(model, weights=weights)
    W = np.cumsum(model.proxy if weights == "proxy" else model.energy, axis=1)
    out["otb"] = (model.P @ (W * model.R[:, None])) / (model.P @ W[:, -1])
    return out


def per_token_without_cross_terms(model, *, weights="proxy"):
    """Per-token optimum with the tabular formula ``E[‖s_k‖² R]/E‖s_k‖²`` (drops ⟨s_k, s_t⟩, t ≠ k)."""
    out = _real_population_baselines(model, weights=weights)
    out["per_token"] = (model.P @ (model.energy * model.R[:, None])) / (model.P @ model.energy)
    return out


def variances_ignoring_baseline(model, baselines=None):
    """``population_variances`` that forgets to subtract the baseline: every kind gets Var[ĝ_none]."""
    v = pop.population_variances(model, baselines)
    return {k: v["none"] for k in v}


@pytest.mark.parametrize("cid", ["baselines.variance.otb_le_global_bstar", "baselines.variance.otb_le_mean"])
def test_tabular_ordering_detects_a_wrong_otb_normaliser(monkeypatch, cid):
    assert check(monkeypatch, cid, 200, pop, "population_baselines", otb_normalised_by_total_weight,
                 mp=False) == "refuted"


def test_mpmath_check_rejects_a_float_only_mutation(monkeypatch):
    """The 50-digit re-check is independent of the float model: a wrong float OTB normaliser meets
    float64 violations that mpmath rejects, so the verdict stays 'holds' with a warning."""
    with monkeypatch.context() as m:
        m.setattr(pop, "population_baselines", otb_normalised_by_total_weight)
        r = run("baselines.variance.otb_le_global_bstar", 200)
    assert r.verdict == "holds"
    assert any("rejected by mpmath" in w for w in r.warnings), r.warnings


def reversed_per_token(model, *, weights="proxy"):
    """Per-token baselines assigned to the wrong positions (reversed)."""
    out = _real_population_baselines(model, weights=weights)
    out["per_token"] = out["per_token"][::-1].copy()
    return out


def bstar_without_score_weights(model, *, weights="proxy"):
    """b* computed as ``E[R ‖S‖]/E‖S‖`` (norm instead of squared norm)."""
    out = _real_population_baselines(model, weights=weights)
    S = np.sqrt(model.self_gram.sum(axis=(1, 2)))
    out["global_bstar"] = np.full(model.T, (model.P @ (S * model.R)) / (model.P @ S))
    return out


@pytest.mark.parametrize("cid", ["baselines.variance.per_token_le_otb",
                                 "baselines.variance.per_token_le_global_bstar"])
def test_tabular_ordering_detects_misplaced_per_token(monkeypatch, cid):
    assert check(monkeypatch, cid, 200, pop, "population_baselines", reversed_per_token, mp=False) == "refuted"


def test_bstar_le_mean_detects_a_wrong_bstar(monkeypatch):
    assert check(monkeypatch, "baselines.variance.global_bstar_le_mean", 200, pop, "population_baselines",
                 bstar_without_score_weights, mp=False) == "refuted"


@pytest.mark.parametrize("cid", ["baselines.variance.shared.otb_le_global_bstar",
                                 "baselines.variance.shared.otb_le_mean"])
def test_shared_counterexamples_vanish_if_the_baseline_is_ignored(monkeypatch, cid):
    assert check(monkeypatch, cid, 200, inst, "population_variances", variances_ignoring_baseline,
                 normal="refuted") == "holds"


def test_shared_per_token_detects_missing_cross_terms(monkeypatch):
    assert check(monkeypatch, "baselines.variance.shared.per_token_le_otb", 200, inst, "population_baselines",
                 per_token_without_cross_terms, mp=False) == "refuted"


# --- exact finite-group moments -------------------------------------------------------------------

_real_coefficients = mom._group_coefficients


def mean_with_wrong_normaliser(kind, R, W, eps):
    """Group mean over N+1 (off-by-one) and a leave-one-out that forgets to leave one out."""
    N = R.shape[1]
    G = np.repeat(R[:, :, None], W.shape[2], axis=2)
    if kind == "mean":
        return G - (R.sum(axis=1) / (N + 1))[:, None, None]
    if kind == "rloo":
        return G - (R.sum(axis=1, keepdims=True) / (N - 1))[:, :, None]
    return _real_coefficients(kind, R, W, eps)


def summed_not_averaged(kind, R, W, eps):
    """``ĝ = Σ_i …`` instead of ``(1/N) Σ_i …``: coefficients scaled by N."""
    return R.shape[1] * _real_coefficients(kind, R, W, eps)


def otb_sign_flip(kind, R, W, eps):
    """OTB adds its baseline instead of subtracting it."""
    a = _real_coefficients(kind, R, W, eps)
    if kind != "otb":
        return a
    G = np.repeat(R[:, :, None], W.shape[2], axis=2)
    return 2 * G - a


@pytest.mark.parametrize("cid", ["baselines.bias.group_mean", "baselines.bias.rloo"])
def test_group_bias_detects_wrong_normalisers(monkeypatch, cid):
    assert check(monkeypatch, cid, 10, mom, "_group_coefficients", mean_with_wrong_normaliser) == "refuted"


def test_otb_bias_scaling_detects_a_sum_instead_of_a_mean(monkeypatch):
    assert check(monkeypatch, "baselines.bias.otb_measured", 10, mom, "_group_coefficients",
                 summed_not_averaged) == "refuted"


@pytest.mark.parametrize("cid", ["baselines.mse.group_otb_lt_mean", "baselines.mse.group_otb_lt_rloo"])
def test_group_mse_detects_a_sign_flip(monkeypatch, cid):
    assert check(monkeypatch, cid, 20, mom, "_group_coefficients", otb_sign_flip) == "refuted"


# --- the OTB implementation -----------------------------------------------------------------------

_real_otb = rg.optimal_token_baseline_advantage


def otb_ignoring_zero_tail(*args, handle_zero_tail=False, **kw):
    return _real_otb(*args, **kw)


def otb_ignoring_eps(*args, eps=1e-8, **kw):
    return _real_otb(*args, **kw)


def test_otb_reference_detects_a_dropped_option(monkeypatch):
    assert check(monkeypatch, "baselines.otb.reference", 20, rg, "optimal_token_baseline_advantage",
                 otb_ignoring_zero_tail) == "refuted"


def test_otb_equal_weights_detects_a_dropped_eps(monkeypatch):
    assert check(monkeypatch, "baselines.otb.equal_weights_group_mean", 50, rg, "optimal_token_baseline_advantage",
                 otb_ignoring_eps) == "refuted"


# --- logit dynamics ---------------------------------------------------------------------------------

def update_without_chosen_correction(logits, actions, advantage, *, eta):
    """``Δz = ηA(e_a − p)`` with the chosen entry moved by ηA instead of ηA(1 − p_a)."""
    dz = lg.logit_update(logits, actions, advantage, eta=eta)
    z = np.asarray(logits, dtype=float)
    a = np.asarray(actions)
    pa = np.take_along_axis(lg.softmax(z), a[..., None], -1)
    np.put_along_axis(dz, a[..., None], np.take_along_axis(dz, a[..., None], -1) + eta * advantage * pa, -1)
    return dz


def norm_without_abs(logits, actions, advantage, *, eta):
    return eta * np.asarray(advantage) * np.sqrt(lg.logit_gradient_energy(np.asarray(logits)[None],
                                                                          np.atleast_1d(actions)))[0]


def test_zero_sum_detects_a_wrong_chosen_entry(monkeypatch):
    assert check(monkeypatch, "baselines.logit.zero_sum", 100, ld, "logit_update",
                 update_without_chosen_correction) == "refuted"


def test_update_norm_detects_a_missing_abs(monkeypatch):
    assert check(monkeypatch, "baselines.logit.update_norm", 100, ld, "logit_update_norm",
                 norm_without_abs) == "refuted"


def first_order_without_normaliser(logits, actions, advantage, *, eta):
    """First-order Δlog p without the normaliser term −(p_a − Σp²): an O(η) error."""
    z, a = np.asarray(logits, dtype=float), np.asarray(actions)
    return eta * np.asarray(advantage)[..., None] * lg.softmax_score(z, a)


def second_order_without_half(logits, delta_z):
    return 2.0 * _real_second_order(logits, delta_z)


_real_second_order = lg.second_order_kl


# the breaking-step claims (≈ 10–15 s each) share the mutated function with the error claims: slow
@pytest.mark.parametrize("cid", ["baselines.logit.first_order_error",
                                 pytest.param("baselines.logit.first_order_breaking_step", marks=pytest.mark.slow)])
def test_first_order_claims_detect_a_missing_term(monkeypatch, cid):
    assert check(monkeypatch, cid, None, lg, "first_order_logprob_change", first_order_without_normaliser) == "refuted"


@pytest.mark.parametrize("cid", ["baselines.logit.second_order_error",
                                 pytest.param("baselines.logit.second_order_breaking_step", marks=pytest.mark.slow)])
def test_second_order_claims_detect_a_missing_half(monkeypatch, cid):
    assert check(monkeypatch, cid, None, lg, "second_order_kl", second_order_without_half) == "refuted"


# --- divergence augmentation --------------------------------------------------------------------------

def _chain_under(weights_policy, pi, mu):
    """The chain-rule side weighted by ``weights_policy``'s context distribution (μ instead of π)."""
    from proofs_check.policies import context_distributions
    d = context_distributions(weights_policy)
    total = 0.0
    for t in range(pi.T):
        lp, lm = pi.log_probs(t), mu.log_probs(t)
        total += float(d[t] @ np.sum(np.exp(lp) * (lp - lm), axis=1))
    return total


def gradient_current_step_only(pi, mu):
    """Only the current step's log-ratio, no accumulation over k ≥ t."""
    m = pop.exact_model(pi, np.zeros(pi.V ** pi.T))
    return m.mean_gradient(dapo._per_step_log_ratio(pi, mu))


def accumulation_off_by_one(reg, rho=None, *, gamma, rho_bar=np.inf, c_bar=np.inf):
    """``D_k = reg_k + γ V_k`` (V at k instead of k + 1)."""
    D, V = _real_accumulation(reg, rho, gamma=gamma, rho_bar=rho_bar, c_bar=c_bar)
    return np.asarray(reg, dtype=float) + gamma * V, V


_real_accumulation = dapo.truncated_is_accumulation


def accumulation_without_is_weight(reg, rho=None, *, gamma, rho_bar=np.inf, c_bar=np.inf):
    """The per-step value enters V unweighted by its ratio: ``V_k = reg_k + γ c_k V_{k+1}``."""
    reg = np.asarray(reg, dtype=float)
    rho = np.ones_like(reg) if rho is None else np.asarray(rho, dtype=float)
    D, V = np.empty_like(reg), np.empty_like(reg)
    nxt = 0.0
    for k in range(reg.size - 1, -1, -1):
        D[k] = reg[k] + gamma * nxt
        nxt = reg[k] + gamma * min(c_bar, rho[k]) * nxt
        V[k] = nxt
    return D, V


def correct_recursion_as_transcription(reg, rho=None, *, gamma, rho_bar=np.inf, c_bar=np.inf):
    return _real_accumulation(reg, rho, gamma=gamma, rho_bar=rho_bar, c_bar=c_bar)[0]


def test_chain_rule_detects_wrong_context_distribution(monkeypatch):
    assert check(monkeypatch, "baselines.dapo.chain_rule", 20, dapo, "trajectory_kl_chain",
                 lambda pi, mu: _chain_under(mu, pi, mu)) == "refuted"


def test_gradient_form_detects_a_missing_reward_to_go(monkeypatch):
    assert check(monkeypatch, "baselines.dapo.gradient_form", 10, dapo, "kl_gradient_reward_to_go",
                 gradient_current_step_only) == "refuted"


def test_accumulation_detects_an_off_by_one(monkeypatch):
    assert check(monkeypatch, "baselines.dapo.accumulation_onpolicy", 100, dapo, "truncated_is_accumulation",
                 accumulation_off_by_one) == "refuted"


def test_per_decision_is_detects_a_missing_ratio(monkeypatch):
    assert check(monkeypatch, "baselines.dapo.per_decision_is", 10, dapo, "truncated_is_accumulation",
                 accumulation_without_is_weight) == "refuted"


def test_transcribed_control_holds_if_the_transcription_were_correct(monkeypatch):
    """The control is refuted because of the transcribed pairing; with the correct recursion in its
    place it must hold — so a simulator change that hid the bug would be caught."""
    assert check(monkeypatch, "baselines.dapo.transcribed_recursion", 50, dapo, "transcribed_accumulation",
                 correct_recursion_as_transcription, normal="refuted") == "holds"


# --- the toy headline -----------------------------------------------------------------------------------

def _flipped_group_mean(*args, **kw):
    from proofs_check.baselines.group import group_mean_advantage
    A, G = group_mean_advantage(*args, **kw)
    return -A, G


@pytest.mark.slow
@pytest.mark.parametrize("cid", ["baselines.toy.headline", "baselines.toy.headline_eos"])
def test_toy_headline_detects_a_broken_comparator(monkeypatch, cid):
    """With the group-mean comparator's advantage sign flipped, N=32 un-learns and OTB wins: the
    verdict at 40 pairs changes from inconclusive to holds."""
    import proofs_check.baselines.toy as toy
    assert check(monkeypatch, cid, 40, toy, "group_mean_advantage", _flipped_group_mean,
                 normal="inconclusive") == "holds"
