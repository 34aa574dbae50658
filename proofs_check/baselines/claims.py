"""Claims of spec ``baselines.md``: the logit-gradient proxy, the ordering and bias
of baselines, logit dynamics, divergence augmentation, and the toy headline.

Every claim id starts with ``baselines.``; ``theorycheck verify baselines``
runs them all.  Case generators are module-level functions (picklable).
"""
from __future__ import annotations

import functools

import numpy as np

from proofs_check.baselines import (exact_model, group_estimator_moments,
                        optimal_token_baseline_advantage, otb_advantage_loop, population_baselines,
                        population_variances)
from proofs_check.baselines.dapo import (discounted_reward_to_go, kl_gradient_complex_step, kl_gradient_reward_to_go,
                   per_decision_is_check, trajectory_kl, trajectory_kl_chain, transcribed_accumulation,
                   truncated_is_accumulation)
from proofs_check.engine import ComparisonClaim, IdentityClaim, InequalityClaim, ScalingClaim, register
from proofs_check.logits import (approximation_errors, breaking_step_size, log_softmax, logit_gradient_energy,
                     logit_update, logit_update_norm, softmax, sum_pi_squared)
from proofs_check.policies import LinearSoftmaxPolicy, TabularPolicy
from proofs_check.symbolic import (prove_logit_energy_identity, prove_logit_energy_identity_general,
                       prove_otb_equal_weights, prove_zero_sum_logit_update)

OTB_SRC = "OTB (arXiv 2602.07078) and veRL compute_optimal_token_baseline_advantage; spec baselines.md"
LD_SRC = "Logit Dynamics in Softmax PG (arXiv 2506.12912); spec baselines.md §4"
DAPO_SRC = "Divergence-Augmented Policy Optimization (NeurIPS 2019); spec baselines.md §5"


# ---------------------------------------------------------------------------
# random case generators
# ---------------------------------------------------------------------------

def extreme_logits(rng, *, max_v: int = 100_000, max_scale: float = 1e4):
    """One context: ``V`` log-uniform in [2, max_v], logit scale log-uniform up to ``max_scale``;
    a third of the contexts have one dominant logit, which is the chosen token half the time
    (the ``p_a → 1`` regime where ``1 − p_a`` cancels)."""
    V = int(np.exp(rng.uniform(np.log(2), np.log(max_v + 1))))
    V = min(max(V, 2), max_v)
    scale = float(np.exp(rng.uniform(np.log(1e-3), np.log(max_scale))))
    kind = rng.integers(3)
    if kind == 0:
        z = rng.standard_normal(V) * scale
    elif kind == 1:
        z = rng.uniform(-scale, scale, V)
    else:  # one dominant logit: p_a → 1 (a is the dominant token, half the time) or p_a → 0
        z = rng.standard_normal(V)
        top = int(rng.integers(V))
        z[top] += scale
        if rng.random() < 0.5:
            return z, top
    return z, int(rng.integers(V))


def _sum_of_squares_scale(e: np.ndarray) -> float:
    """First-order rounding sensitivity of ``Σ_k e_k²`` when every ``e_k`` carries an absolute
    error of one unit roundoff: ``Σ_k e_k² + 2 Σ_k |e_k|`` (the tolerance is then a few ε)."""
    return float(np.sum(e * e) + 2.0 * np.sum(np.abs(e)))


def proxy_identity_cases(rng, n, *, max_v: int = 100_000, max_scale: float = 1e4):
    """``lhs = Σ_b (δ_ab − p_b)²`` from a stable softmax; ``rhs`` = :func:`logit_gradient_energy`;
    ``scale`` = the rounding sensitivity of the ``V``-term sum (``tol_mode="scale"``), so that a
    cancellation in ``1 − p_a`` (``p_a → 1``) is not hidden by an absolute tolerance."""
    lhs, rhs, scale = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        z, a = extreme_logits(rng, max_v=max_v, max_scale=max_scale)
        p = softmax(z)
        e = -p
        e[a] += 1.0
        lhs[i] = float(np.sum(e * e))
        rhs[i] = float(logit_gradient_energy(z[None], np.array([a]))[0])
        scale[i] = _sum_of_squares_scale(e) + np.finfo(float).tiny
    return lhs, rhs, scale


def collision_cases(rng, n, *, max_v: int = 100_000, max_scale: float = 1e4):
    """``Σ_b p_b²`` two ways: squaring a stable softmax vs :func:`sum_pi_squared` (logsumexp form).

    ``scale = Σ_b p_b²`` (the sum of the ``V`` accumulated non-negative terms)."""
    lhs, rhs, scale = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        z, _ = extreme_logits(rng, max_v=max_v, max_scale=max_scale)
        p = softmax(z)
        lhs[i] = float(np.sum(p * p))
        rhs[i] = float(sum_pi_squared(z))
        scale[i] = lhs[i]
    return lhs, rhs, scale


def _dense_tabular_scores(policy):
    """Explicit score vectors of a tabular policy: (n_seq, T, n_params), independent of ExactModel."""
    V, T = policy.V, policy.T
    n = V ** T
    offsets = np.cumsum([0] + [V ** t * V for t in range(T)])
    S = np.zeros((n, T, offsets[-1]))
    for y in range(n):
        row = 0
        for t in range(T):
            tok = (y // V ** (T - 1 - t)) % V
            p = policy.probs(t)[row]
            base = offsets[t] + row * V
            S[y, t, base:base + V] = -p
            S[y, t, base + tok] += 1.0
            row = row * V + tok
    return S


def tabular_exact_cases(rng, n, *, V: int = 3, T: int = 3, scale: float = 2.0):
    """Tabular: ``‖Σ_{j≤t} s_j‖²`` (explicit score vectors) = ``Σ_{j≤t} (1 − 2p + Σp²)``
    (:func:`exact_model`'s ``proxy``); scale = rounding sensitivity of the sum of squares times
    the ``t`` accumulated positions."""
    lhs, rhs, sc = [], [], []
    for _ in range(n):
        pol = TabularPolicy.random(V, T, rng, scale=scale)
        S = np.cumsum(_dense_tabular_scores(pol), axis=1)
        m = exact_model(pol, np.zeros(V ** T))
        lhs.append(np.sum(S * S, axis=2).ravel())
        rhs.append(np.cumsum(m.proxy, axis=1).ravel())
        sens = np.sum(S * S, axis=2) + 2.0 * np.sum(np.abs(S), axis=2)
        sc.append((sens * np.arange(1, T + 1)[None, :]).ravel())
    return np.concatenate(lhs), np.concatenate(rhs), np.concatenate(sc)


def proxy_correlation(policy) -> float:
    """Probability-weighted Pearson correlation over (y, t) of the proxy ``Σ_{j≤t} w_j``
    and the true cumulative energy ``‖Σ_{j≤t} s_j‖²`` of a linear-softmax policy."""
    m = exact_model(policy, np.zeros(policy.V ** policy.T))
    Sc = np.cumsum(m.scores, axis=1)
    true = np.sum(Sc * Sc, axis=2)
    prox = np.cumsum(m.proxy, axis=1)
    w = np.repeat(m.P[:, None], m.T, axis=1).ravel()
    x, y = prox.ravel(), true.ravel()
    mx, my = w @ x / w.sum(), w @ y / w.sum()
    cov = w @ ((x - mx) * (y - my))
    return float(cov / np.sqrt((w @ (x - mx) ** 2) * (w @ (y - my) ** 2)))


def correlation_samples(rng, n, *, V: int = 3, T: int = 4, d: int = 4, scale: float = 2.0):
    """Correlations for ``n`` random linear-softmax policies (``θ`` and features random)."""
    return np.array([proxy_correlation(LinearSoftmaxPolicy.random(V, T, d, rng, scale=scale))
                     for _ in range(n)])


# --- variance ordering (worst-case search over tabular instances) ------------

def instance_sample(rng, *, V: int = 2, T: int = 3, scale: float = 2.0):
    """θ = (all tabular logits, rewards in [0, 1])."""
    n_par = sum(V ** t * V for t in range(T))
    return np.concatenate([scale * rng.standard_normal(n_par), rng.random(V ** T)])


def instance_project(theta, *, V: int = 2, T: int = 3):
    n_par = sum(V ** t * V for t in range(T))
    out = np.array(theta, dtype=float)
    out[:n_par] = np.clip(out[:n_par], -12, 12)
    out[n_par:] = np.clip(out[n_par:], 0.0, 1.0)
    return out


def instance_variances(theta, *, V: int = 2, T: int = 3) -> dict:
    n_par = sum(V ** t * V for t in range(T))
    pol = TabularPolicy.from_flat(theta[:n_par], V, T)
    return population_variances(exact_model(pol, theta[n_par:]))


def variance_pair(theta, *, small: str, large: str, V: int = 2, T: int = 3):
    """``(Var[small], Var[large])`` for the inequality ``Var[small] ≤ Var[large]``."""
    v = instance_variances(instance_project(theta, V=V, T=T), V=V, T=T)
    return v[small], v[large]


# --- finite-group bias and MSE ------------------------------------------------

def group_bias_cases(rng, n, *, kind: str, V: int = 2, T: int = 3, Ns=(2, 3, 4)):
    """Group mean: ``(scale, bias_ratio)`` = ``((N−1)/N, 1/N)``; RLOO: ``(1, 0)``."""
    lhs, rhs = [], []
    for _ in range(n):
        pol = TabularPolicy.random(V, T, rng, scale=1.5)
        m = exact_model(pol, rng.random(V ** T))
        for N in Ns:
            gm = group_estimator_moments(m, N, kind)
            if kind == "mean":
                lhs += [gm.scale, gm.bias_ratio]
                rhs += [(N - 1) / N, 1.0 / N]
            else:
                lhs += [gm.scale, gm.bias_ratio ** 2]
                rhs += [1.0, 0.0]
    return np.array(lhs), np.array(rhs)


def otb_bias_curve(rng, n, *, Ns=(2, 3, 4, 5), V: int = 2, T: int = 3):
    """``|E ĝ − g|/|g|`` of the OTB group estimator at each N (exact, N-tuple enumeration)."""
    out = np.empty((n, len(Ns)))
    for i in range(n):
        pol = TabularPolicy.random(V, T, rng, scale=1.5)
        m = exact_model(pol, rng.random(V ** T))
        out[i] = [group_estimator_moments(m, N, "otb").bias_ratio for N in Ns]
    return out


def group_mse_differences(rng, n, *, a: str = "otb", b: str = "mean", N: int = 4, V: int = 2, T: int = 3):
    """``MSE[a] − MSE[b]`` for the group estimators at group size N on random tabular instances."""
    d = np.empty(n)
    for i in range(n):
        pol = TabularPolicy.random(V, T, rng, scale=1.5)
        m = exact_model(pol, rng.random(V ** T))
        d[i] = group_estimator_moments(m, N, a).mse - group_estimator_moments(m, N, b).mse
    return d


# --- the OTB implementation -----------------------------------------------------

def ragged_batch(rng, *, N: int = 16, L: int = 12, V: int = 6, n_groups: int = 5, is_weights: bool = True):
    """A random padded batch: ragged lengths (incl. 0 and ties), groups of one, optional IS weights."""
    lens = rng.integers(0, L + 1, N)
    if rng.random() < 0.5:  # a tie for the longest
        lens[:2] = L
    m = (np.arange(L)[None, :] < lens[:, None]).astype(float)
    r = rng.normal(size=(N, L)) * (rng.random((N, L)) < 0.3)
    z = rng.normal(size=(N, L, V)) * rng.uniform(0.1, 5)
    a = rng.integers(0, V, (N, L))
    lp = np.take_along_axis(log_softmax(z), a[..., None], -1)[..., 0]
    spp = sum_pi_squared(z)
    g = rng.integers(0, n_groups, N)
    g[-1] = n_groups + 7  # a group of one
    isw = np.minimum(rng.lognormal(0, 0.5, (N, L)), 2.0) if is_weights else None
    return r, m, g, lp, spp, isw


def otb_reference_cases(rng, n):
    """Kernel vs the per-token loop on random ragged batches (all option combinations).

    Scale per batch: ``L² · max|r|`` — ``G_t`` accumulates up to ``L`` rewards (error
    ``≲ L ε max|r|``) and ``B_t`` is a ratio of sums of up to ``L`` weights (relative error
    ``≲ L ε``) times ``|G| ≤ L max|r|``.
    """
    lhs, rhs, sc = [], [], []
    for _ in range(n):
        r, m, g, lp, spp, isw = ragged_batch(rng)
        s = r.shape[1] ** 2 * max(float(np.max(np.abs(r))), np.finfo(float).tiny)
        for use_is in (False, True):
            for tail in (False, True):
                kw = {"is_weights": isw if use_is else None, "handle_zero_tail": tail}
                A1, R1 = optimal_token_baseline_advantage(r, m, g, lp, spp, **kw)
                A2, R2 = otb_advantage_loop(r, m, g, lp, spp, **kw)
                lhs += [A1.ravel(), R1.ravel()]
                rhs += [A2.ravel(), R2.ravel()]
                sc.append(np.full(2 * r.size, s))
    return np.concatenate(lhs), np.concatenate(rhs), np.concatenate(sc)


def otb_equal_weight_cases(rng, n):
    """Equal per-token energies in a group (identical log-probs and Σπ²): B_t = per-position mean of G.

    Scale per group: ``N L · max|r|`` (``G`` sums up to ``L`` rewards, ``B`` averages ``N`` of them).
    """
    lhs, rhs, sc = [], [], []
    for _ in range(n):
        N, L = int(rng.integers(2, 8)), int(rng.integers(1, 10))
        r = rng.normal(size=(N, L))
        m = np.ones((N, L))
        p = rng.uniform(0.05, 0.6)
        lp = np.full((N, L), np.log(p))
        spp = np.full((N, L), min(1.0, p * p + rng.uniform(0.01, 0.3)))
        A, G = optimal_token_baseline_advantage(r, m, np.zeros(N), lp, spp, eps=0.0)
        lhs.append(A.ravel())
        rhs.append((G - G.mean(axis=0, keepdims=True)).ravel())
        sc.append(np.full(N * L, N * L * float(np.max(np.abs(r)))))
    return np.concatenate(lhs), np.concatenate(rhs), np.concatenate(sc)


# --- logit dynamics -------------------------------------------------------------

def zero_sum_cases(rng, n):
    """``Σ_j Δz_j`` (lhs) vs 0, ``|ηA| ≤ 10``, extreme logits; scale ``Σ_j |Δz_j|`` (the ``V``
    accumulated terms)."""
    lhs, sc = np.empty(n), np.empty(n)
    for i in range(n):
        z, a = extreme_logits(rng, max_v=20_000)
        dz = logit_update(z, a, rng.uniform(-1, 1), eta=float(rng.uniform(1e-3, 10)))
        lhs[i] = float(np.sum(dz))
        sc[i] = float(np.sum(np.abs(dz))) + np.finfo(float).tiny
    return lhs, np.zeros(n), sc


def update_norm_cases(rng, n):
    """``‖Δz‖`` of the explicit update vs ``η|A| sqrt(1 − 2p_a + Σp²)``; scale ``‖Δz‖`` (relative:
    every entry of Δz is computed to full relative accuracy)."""
    lhs, rhs = np.empty(n), np.empty(n)
    for i in range(n):
        z, a = extreme_logits(rng, max_v=20_000)
        A, eta = float(rng.uniform(-3, 3)), float(rng.uniform(1e-3, 3))
        lhs[i] = float(np.linalg.norm(logit_update(z, a, A, eta=eta)))
        rhs[i] = float(logit_update_norm(z, a, A, eta=eta))
    return lhs, rhs, np.maximum(np.abs(lhs), np.finfo(float).tiny)


ETA_GRID = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2)
TOL_GRID = (1e-8, 1e-7, 1e-6, 1e-5, 1e-4)
#: The fixed panel of contexts of the logit scaling claims: ``PANEL_SIZE`` contexts
#: ``z ~ 2·N(0, I_V)``, ``a`` uniform, drawn once from ``SeedSequence(PANEL_SEED)`` — chosen
#: before any data, so the fits are deterministic (``ScalingClaim(deterministic=True)``).
PANEL_SEED = 20_260_601
PANEL_SIZE = 8


def logit_panel(*, V: int = 8, size: int = PANEL_SIZE) -> list:
    """The fixed contexts ``[(z, a), ...]`` of the logit scaling claims (no dependence on the run's rng)."""
    g = np.random.default_rng(np.random.SeedSequence(PANEL_SEED))
    out = []
    for _ in range(size):
        z = g.standard_normal(V) * 2
        out.append((z, int(g.integers(V))))
    return out


def approximation_error_curves(rng, n, *, order: int, V: int = 8):
    """Worst error over :func:`logit_panel` of the first-order (order 1) or second-order
    (order 2, absolute) approximation at each step of ETA_GRID (``A = 1``).

    Deterministic: ``rng`` is not used; the ``n`` rows are identical.
    """
    curves = []
    for z, a in logit_panel(V=V):
        e = approximation_errors(z, a, 1.0, np.array(ETA_GRID))
        curves.append(e["first_order"] if order == 1 else e["second_order"])
    return np.repeat(np.max(curves, axis=0)[None, :], n, axis=0)


def breaking_step_curves(rng, n, *, order: int, V: int = 8):
    """Smallest step over :func:`logit_panel` at which the approximation error first exceeds each
    tolerance of TOL_GRID (``A = 1``).  Deterministic: ``rng`` is not used."""
    steps = [[breaking_step_size(z, a, 1.0, order=order, tol=tol, eta_hi=100.0) for tol in TOL_GRID]
             for z, a in logit_panel(V=V)]
    return np.repeat(np.min(steps, axis=0)[None, :], n, axis=0)


# --- DAPO -------------------------------------------------------------------------

def dapo_chain_cases(rng, n, *, V: int = 3, T: int = 4):
    """``KL(P^π‖P^μ)`` by enumeration vs the chain rule; scale ``Σ_y P^π(y)(|log P^π(y)| + |log P^μ(y)|)``,
    the sensitivity of the ``V**T``-term sum to a unit roundoff in every log-probability."""
    from proofs_check.policies import sequence_log_probs
    lhs, rhs, sc = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        pi, mu = TabularPolicy.random(V, T, rng, scale=1.5), TabularPolicy.random(V, T, rng, scale=1.5)
        lhs[i], rhs[i] = trajectory_kl(pi, mu), trajectory_kl_chain(pi, mu)
        lp, lm = sequence_log_probs(pi), sequence_log_probs(mu)
        sc[i] = float(np.exp(lp) @ (np.abs(lp) + np.abs(lm)))
    return lhs, rhs, sc


def dapo_gradient_cases(rng, n, *, V: int = 2, T: int = 3):
    lhs, rhs = [], []
    for _ in range(n):
        pi, mu = TabularPolicy.random(V, T, rng, scale=1.5), TabularPolicy.random(V, T, rng, scale=1.5)
        lhs += [x.ravel() for x in kl_gradient_reward_to_go(pi, mu)]
        rhs += [x.ravel() for x in kl_gradient_complex_step(pi, mu)]
    return np.concatenate(lhs), np.concatenate(rhs)


def accumulation_onpolicy_cases(rng, n, *, recursion: str = "correct"):
    """All ratios 1, no truncation: the accumulation vs the discounted reward-to-go.

    Scale of entry ``k``: ``Σ_{j≥k} γ^{j−k} |reg_j|`` (the accumulated terms; the per-step
    values span five decades, so an absolute or mixed tolerance would not fit every entry).
    """
    lhs, rhs, sc = [], [], []
    for _ in range(n):
        L = int(rng.integers(2, 40))
        reg = rng.normal(size=L) * 10 ** rng.uniform(-1, 3, L)
        gamma = float(rng.uniform(0.1, 1.0))
        if recursion == "correct":
            D = truncated_is_accumulation(reg, gamma=gamma)[0]
        else:
            D = transcribed_accumulation(reg, gamma=gamma)
        lhs.append(D)
        rhs.append(discounted_reward_to_go(reg, gamma=gamma))
        sc.append(discounted_reward_to_go(np.abs(reg), gamma=gamma))
    return np.concatenate(lhs), np.concatenate(rhs), np.concatenate(sc)


def per_decision_cases(rng, n, *, V: int = 2, T: int = 4):
    lhs, rhs = np.empty(n), np.empty(n)
    for i in range(n):
        pi, mu = TabularPolicy.random(V, T, rng, scale=1.0), TabularPolicy.random(V, T, rng, scale=1.0)
        reg = [rng.normal(size=(V ** t, V)) for t in range(T)]
        lhs[i], rhs[i] = per_decision_is_check(pi, mu, reg, gamma=float(rng.uniform(0.5, 1.0)))
    return lhs, rhs


# --- the toy headline ---------------------------------------------------------------

def toy_headline_differences(rng, n, *, steps: int = 40, lr: float = 0.3, eos: bool = False):
    """Per seed: ``J(OTB, N=4) − J(group mean, N=32)`` after the same token budget."""
    from proofs_check.baselines.toy import CountTask, train
    task = (CountTask(V=4, T=48, n_prompts=3, threshold=20, eos=True, eos_logit=-3.0) if eos
            else CountTask(V=4, T=48, n_prompts=3, threshold=18))
    d = np.empty(n)
    for i in range(n):
        s1, s2 = (int(x) for x in rng.integers(0, 2 ** 31, 2))
        a = train(task, "otb", 4, steps=steps, lr=lr, seed=s1, eval_every=steps).final_return
        b = train(task, "mean", 32, steps=steps, lr=lr, seed=s2, eval_every=steps).final_return
        d[i] = a - b
    return d


# --- shared parameters: can OTB lose to b*? -----------------------------------------

def _shared_sizes(V, T, d):
    return (V + 1) * V * d, d, V ** T


def shared_instance_sample(rng, *, V: int = 2, T: int = 3, d: int = 2, scale: float = 2.0):
    """θ = (feature table G of shape (V+1, V, d), parameters θ (d), rewards in [0, 1])."""
    nG, nt, nR = _shared_sizes(V, T, d)
    return np.concatenate([rng.standard_normal(nG), scale * rng.standard_normal(nt) / np.sqrt(d),
                           rng.random(nR)])


def shared_instance_project(theta, *, V: int = 2, T: int = 3, d: int = 2):
    nG, nt, nR = _shared_sizes(V, T, d)
    out = np.array(theta, dtype=float)
    out[:nG + nt] = np.clip(out[:nG + nt], -6, 6)
    out[nG + nt:] = np.clip(out[nG + nt:], 0.0, 1.0)
    return out


def shared_policy(theta, *, V: int = 2, T: int = 3, d: int = 2):
    """The linear-softmax policy of :meth:`LinearSoftmaxPolicy.random` from a flat θ:
    features ``φ(c, v) = G[last token of c (or BOS), v]`` shared across depths."""
    nG, nt, nR = _shared_sizes(V, T, d)
    G = theta[:nG].reshape(V + 1, V, d)
    feats = [G[V][None].copy()] + [G[np.arange(V ** t) % V] for t in range(1, T)]
    return LinearSoftmaxPolicy(theta[nG:nG + nt], feats), theta[nG + nt:]


def shared_variance_pair(theta, *, small: str, large: str, V: int = 2, T: int = 3, d: int = 2,
                         weights: str = "proxy"):
    pol, R = shared_policy(shared_instance_project(theta, V=V, T=T, d=d), V=V, T=T, d=d)
    m = exact_model(pol, R)
    v = population_variances(m, population_baselines(m, weights=weights))
    return v[small], v[large]


# ---------------------------------------------------------------------------
# registration
# ---------------------------------------------------------------------------
#
# Tolerance rules (fixed before any data):
# * identities accumulated over many terms (V up to 1e5 logits, L positions, V**T sequences)
#   use ``tol_mode="scale"`` with the scale stated in the case generator and ``tol = 1e-13``
#   (a few hundred unit roundoffs: pairwise summation of 1e5 terms costs ≈ 17 ε);
# * identities over a small, fixed number of terms (group moments over ≤ 8**4 tuples of
#   normalised O(1) ratios, the 2×3 complex-step gradient, 16-sequence per-decision IS)
#   keep ``tol_mode="mixed"`` at 1e-12;
# * inequalities: the true (lhs, rhs) and the engine's default ``atol = 0``, ``rtol = 1e-9``
#   (the exact population variances are a difference of two sums of at most 8 × 9 products,
#   each correct to ~1e-15 relative, so 1e-9 is far above rounding and far below every
#   reported ratio);
# * scaling windows: the theoretical exponent ± 0.1 (logit dynamics: a Taylor remainder,
#   exact exponent 2, 3, ½, 1) and −1 ± 0.5 for the OTB group bias (see its notes).

def _prove_energy() -> bool:
    return all(prove_logit_energy_identity(V) for V in range(2, 7)) and prove_logit_energy_identity_general()


def _prove_zero_sum() -> bool:
    return all(prove_zero_sum_logit_update(V) for V in range(2, 7)) and prove_zero_sum_logit_update(None)


def _prove_equal_weights() -> bool:
    return all(prove_otb_equal_weights(N) for N in range(1, 7)) and prove_otb_equal_weights(None)


register(IdentityClaim(
    id="baselines.proxy.identity",
    statement="‖∇_z log softmax(z)_a‖² = 1 − 2p_a + Σ_b p_b², |z| ≤ 1e4, V ≤ 1e5 "
              "(error ≤ 1e-13 × the rounding sensitivity of the V-term sum)",
    source=OTB_SRC + " §2", label="CONFIRMED", role="statement", expected="holds", version=2,
    params={"max_v": 100_000, "max_scale": 1e4, "sympy": "V=2..6 and general V"},
    fn=proxy_identity_cases, tol=1e-13, tol_mode="scale", proof=_prove_energy,
    chunk_size=50, default_budget=1_000, quick_budget=100,
))

register(IdentityClaim(
    id="baselines.proxy.collision",
    statement="Σ_b p_b² = exp(logsumexp(2z) − 2 logsumexp(z)) to 1e-13 relative, |z| ≤ 1e4, V ≤ 1e5",
    source=OTB_SRC + " §2", label="CONFIRMED", role="statement", expected="holds", version=2,
    params={"max_v": 100_000, "max_scale": 1e4},
    fn=collision_cases, tol=1e-13, tol_mode="scale",
    chunk_size=50, default_budget=1_000, quick_budget=100,
))

register(IdentityClaim(
    id="baselines.proxy.tabular_exact",
    statement="tabular policy: ‖Σ_{j≤t} s_j‖² = Σ_{j≤t}(1 − 2π(y_j|c_j) + Σ_v π(v|c_j)²) for every y, t",
    source=OTB_SRC + " §2", label="CONFIRMED", role="statement", expected="holds", version=2,
    params={"V": 3, "T": 3, "scale": 2.0},
    fn=tabular_exact_cases, tol=1e-13, tol_mode="scale",
    chunk_size=5, default_budget=50, quick_budget=10,
))

register(ComparisonClaim(
    id="baselines.proxy.shared_correlation",
    statement="linear-softmax (shared θ): E[corr(Σ_{j≤t} w_j, ‖Σ_{j≤t} s_j‖²)] > 0.5 over random instances",
    source=OTB_SRC + " §2 (the proxy is only a proxy with shared parameters)", label="OPEN",
    role="measurement", expected=None,
    params={"V": 3, "T": 4, "d": 4, "scale": 2.0},
    fn=correlation_samples, threshold=0.5, alternative="greater",
    # each difference is a Pearson correlation, so it lies in [−1, 1] surely
    bounds=(-1.0, 1.0),
    chunk_size=20, default_budget=200, quick_budget=40,
    notes="A measurement: the reported mean is the average probability-weighted Pearson correlation; "
          "the threshold 0.5 (\"more signal than noise\") was fixed before the data.",
))

for small, large, label, note in (
        ("per_token", "otb", "DERIVED", "per-position constants: the per-token optimum minimises the variance"),
        ("per_token", "global_bstar", "DERIVED", "b* is a per-position constant, so the per-token optimum wins"),
        ("otb", "global_bstar", "DERIVED",
         "tabular, outcome reward: Var(b) = Σ_t a_t (b_t − b_t°)² + const with a_t = E‖s_t‖², "
         "b_t° the per-token optimum; OTB's B_t is the a-weighted prefix mean of b°, b* the full mean, "
         "and Welford's update S_t = S_{t−1} + a_t (A_t/A_{t−1})(b°_t − B_t)² gives "
         "Σ_t a_t (b* − b°_t)² ≥ Σ_t a_t (B_t − b°_t)², so no counterexample exists here (ours)"),
        ("otb", "mean", "DERIVED", "follows from otb ≤ b* ≤ mean in the tabular case"),
        ("global_bstar", "mean", "CONFIRMED", "b* minimises E‖S(R − b)‖² over scalars b")):
    register(InequalityClaim(
        id=f"baselines.variance.{small}_le_{large}",
        statement=f"tabular V=2, T=3, R∈[0,1]: population Var[ĝ_{small}] ≤ Var[ĝ_{large}]",
        source=OTB_SRC + " §1", label=label, role="statement", expected="holds",
        params={"V": 2, "T": 3, "scale": 2.0},
        sample=instance_sample, project=instance_project,
        evaluate=functools.partial(variance_pair, small=small, large=large), atol=0.0, rtol=1e-9,
        chunk_size=100, default_budget=1_000, quick_budget=200, notes=note,
    ))

register(IdentityClaim(
    id="baselines.bias.group_mean",
    statement="self-inclusive group mean: E ĝ = ((N−1)/N) g exactly (scale (N−1)/N, |bias|/|g| = 1/N), N=2..4",
    source=OTB_SRC + " §3", label="DERIVED", role="statement", expected="holds", version=2,
    params={"V": 2, "T": 3, "Ns": [2, 3, 4]},
    fn=functools.partial(group_bias_cases, kind="mean"), tol=1e-12, tol_mode="mixed",
    chunk_size=5, default_budget=40, quick_budget=10,
))

register(IdentityClaim(
    id="baselines.bias.rloo",
    statement="leave-one-out group estimator is unbiased: E ĝ = g, N=2..4",
    source=OTB_SRC + " §3", label="DERIVED", role="statement", expected="holds", version=2,
    params={"V": 2, "T": 3, "Ns": [2, 3, 4]},
    fn=functools.partial(group_bias_cases, kind="rloo"), tol=1e-12, tol_mode="mixed",
    chunk_size=5, default_budget=40, quick_budget=10,
))

register(ScalingClaim(
    id="baselines.bias.otb_measured",
    statement="OTB group estimator bias |E ĝ − g|/|g| decays like N^a, a ∈ [−1.5, −0.5] (V=2, T=3)",
    source=OTB_SRC + " §3", label="OPEN", role="measurement", expected=None,
    params={"V": 2, "T": 3}, x=(2, 3, 4, 5), fn=otb_bias_curve, deterministic=False,
    exponent_lo=-1.5, exponent_hi=-0.5, chunk_size=2, default_budget=10, quick_budget=4,
    notes="Each replicate is one fresh random tabular instance (independent replicates), its bias "
          "computed exactly by N-tuple enumeration. Window rule, fixed before the data: the "
          "self-inclusive group mean's bias is exactly 1/N (exponent −1); 'order 1/N' is read as "
          "−1 ± 0.5.",
))

# MSE comparisons: no bounds.  The only a.s. range we can derive is |d| ≤ 8T = 24
# (|A| ≤ 1 since G, b ∈ [0, 1]; tabular scores orthogonal across positions with ‖s_t‖² ≤ 2, so
# ‖ĝ‖, ‖g‖ ≤ √(2T)), four orders of magnitude above the observed |d| ≈ 3e-3: a betting
# sequence on [−24, 24] could not decide at any affordable budget.  Asymptotic t-interval.
register(ComparisonClaim(
    id="baselines.mse.group_otb_lt_mean",
    statement="group size 4, tabular V=2, T=3: E[MSE(OTB group) − MSE(group mean)] < 0 over random instances",
    source=OTB_SRC + " §3 (compare by MSE, not raw variance)", label="OPEN", role="measurement", expected=None,
    params={"N": 4, "V": 2, "T": 3},
    fn=group_mse_differences, threshold=0.0, alternative="less", bounds=None,
    chunk_size=5, default_budget=40, quick_budget=10,
))

register(ComparisonClaim(
    id="baselines.mse.group_otb_lt_rloo",
    statement="group size 4, tabular V=2, T=3: E[MSE(OTB group) − MSE(leave-one-out)] < 0 over random instances",
    source=OTB_SRC + " §3", label="OPEN", role="measurement", expected=None,
    params={"N": 4, "V": 2, "T": 3},
    fn=functools.partial(group_mse_differences, b="rloo"), threshold=0.0, alternative="less", bounds=None,
    chunk_size=5, default_budget=40, quick_budget=10,
))

register(IdentityClaim(
    id="baselines.otb.reference",
    statement="fused OTB kernel = per-token loop of spec §3 on ragged batches (groups of one, ties, IS weights, zero tail)",
    source=OTB_SRC + " §3", label="CONFIRMED", role="statement", expected="holds", version=2,
    params={"N": 16, "L": 12, "V": 6},
    fn=otb_reference_cases, tol=1e-13, tol_mode="scale",
    chunk_size=20, default_budget=200, quick_budget=40,
))

register(IdentityClaim(
    id="baselines.otb.equal_weights_group_mean",
    statement="equal energies in a group (ε = 0): B_t = per-position group mean of G_t",
    source=OTB_SRC + " §3", label="DERIVED", role="statement", expected="holds", version=2,
    params={"eps": 0.0}, fn=otb_equal_weight_cases, tol=1e-13, tol_mode="scale",
    proof=_prove_equal_weights, chunk_size=50, default_budget=500, quick_budget=100,
))

register(IdentityClaim(
    id="baselines.logit.zero_sum",
    statement="Σ_j Δz_j = 0 for Δz = ηA(e_a − p), |ηA| ≤ 10, |z| ≤ 1e4",
    source=LD_SRC, label="DERIVED", role="statement", expected="holds", version=2, params={"max_v": 20_000},
    fn=zero_sum_cases, tol=1e-13, tol_mode="scale", proof=_prove_zero_sum,
    chunk_size=50, default_budget=500, quick_budget=100,
))

register(IdentityClaim(
    id="baselines.logit.update_norm",
    statement="‖Δz‖ = η|A| sqrt(1 − 2p_a + Σ_b p_b²)",
    source=LD_SRC, label="CONFIRMED", role="statement", expected="holds", version=2, params={"max_v": 20_000},
    fn=update_norm_cases, tol=1e-13, tol_mode="scale",
    chunk_size=50, default_budget=500, quick_budget=100,
))

_PANEL_NOTE = ("Deterministic: a fixed panel of {n} contexts (V = 8, z ~ 2·N(0, I), seed {seed}), A = 1; "
               "the curve is the {what} over the panel. Window: the theoretical exponent ± 0.1, fixed "
               "before the data.").format
register(ScalingClaim(
    id="baselines.logit.first_order_error",
    statement="error of Δlog p_i ≈ ηA[(δ_ia − p_i) − (p_a − Σp²)] grows like η^a, a ∈ [1.9, 2.1]",
    source=LD_SRC, label="DERIVED", role="statement", expected="holds", version=2,
    params={"V": 8, "panel_seed": PANEL_SEED, "panel_size": PANEL_SIZE}, x=ETA_GRID,
    fn=functools.partial(approximation_error_curves, order=1), deterministic=True,
    exponent_lo=1.9, exponent_hi=2.1, chunk_size=1, default_budget=1, quick_budget=1,
    notes=_PANEL_NOTE(n=PANEL_SIZE, seed=PANEL_SEED, what="worst error"),
))

register(ScalingClaim(
    id="baselines.logit.second_order_error",
    statement="error of KL(p‖p') ≈ ½Δzᵀ(diag p − ppᵀ)Δz grows like η^a, a ∈ [2.9, 3.1]",
    source=LD_SRC, label="DERIVED", role="statement", expected="holds", version=2,
    params={"V": 8, "panel_seed": PANEL_SEED, "panel_size": PANEL_SIZE}, x=ETA_GRID,
    fn=functools.partial(approximation_error_curves, order=2), deterministic=True,
    exponent_lo=2.9, exponent_hi=3.1, chunk_size=1, default_budget=1, quick_budget=1,
    notes=_PANEL_NOTE(n=PANEL_SIZE, seed=PANEL_SEED, what="worst absolute error"),
))

register(ScalingClaim(
    id="baselines.logit.first_order_breaking_step",
    statement="step size where the first-order error first exceeds tol scales like tol^a, a ∈ [0.4, 0.6]",
    source=LD_SRC, label="DERIVED", role="statement", expected="holds", version=2,
    params={"V": 8, "panel_seed": PANEL_SEED, "panel_size": PANEL_SIZE}, x=TOL_GRID,
    fn=functools.partial(breaking_step_curves, order=1), deterministic=True,
    exponent_lo=0.4, exponent_hi=0.6, chunk_size=1, default_budget=1, quick_budget=1,
    notes=_PANEL_NOTE(n=PANEL_SIZE, seed=PANEL_SEED, what="smallest breaking step"),
))

register(ScalingClaim(
    id="baselines.logit.second_order_breaking_step",
    statement="step size where the second-order KL's relative error first exceeds tol scales like tol^a, a ∈ [0.9, 1.1]",
    source=LD_SRC, label="DERIVED", role="statement", expected="holds", version=2,
    params={"V": 8, "panel_seed": PANEL_SEED, "panel_size": PANEL_SIZE}, x=TOL_GRID,
    fn=functools.partial(breaking_step_curves, order=2), deterministic=True,
    exponent_lo=0.9, exponent_hi=1.1, chunk_size=1, default_budget=1, quick_budget=1,
    notes=_PANEL_NOTE(n=PANEL_SIZE, seed=PANEL_SEED, what="smallest breaking step"),
))

register(IdentityClaim(
    id="baselines.dapo.chain_rule",
    statement="KL(P^π ‖ P^μ) = Σ_t E_{d_t^π} KL(π(·|c) ‖ μ(·|c)) (tabular V=3, T=4)",
    source=DAPO_SRC, label="DERIVED", role="statement", expected="holds", version=2, params={"V": 3, "T": 4},
    fn=dapo_chain_cases, tol=1e-13, tol_mode="scale",
    chunk_size=20, default_budget=200, quick_budget=40,
))

register(IdentityClaim(
    id="baselines.dapo.gradient_form",
    statement="∇_θ KL(P^π‖P^μ) = E_π[Σ_t ∇log π(y_t|c_t) Σ_{k≥t} log(π/μ)(y_k|c_k)] (complex-step derivative, V=2, T=3)",
    source=DAPO_SRC, label="DERIVED", role="statement", expected="holds", params={"V": 2, "T": 3},
    fn=dapo_gradient_cases, tol=1e-12, tol_mode="mixed",
    chunk_size=5, default_budget=40, quick_budget=10,
))

register(IdentityClaim(
    id="baselines.dapo.accumulation_onpolicy",
    statement="correct truncated-IS accumulation with all ratios 1 = discounted reward-to-go of the per-step divergence",
    source=DAPO_SRC, label="DERIVED", role="statement", expected="holds", version=2, params={"recursion": "correct"},
    fn=functools.partial(accumulation_onpolicy_cases, recursion="correct"), tol=1e-13, tol_mode="scale",
    chunk_size=50, default_budget=500, quick_budget=100,
))

register(IdentityClaim(
    id="baselines.dapo.per_decision_is",
    statement="no truncation, μ ≠ π: E_μ[V_0] = E_π[Σ_j γ^j reg_j] for the correct recursion (tabular V=2, T=4)",
    source=DAPO_SRC, label="DERIVED", role="statement", expected="holds", params={"V": 2, "T": 4},
    fn=per_decision_cases, tol=1e-12, tol_mode="mixed",
    chunk_size=10, default_budget=50, quick_budget=10,
))

register(IdentityClaim(
    id="baselines.dapo.transcribed_recursion",
    statement="the transcribed released recursion with all ratios 1 = discounted reward-to-go",
    source=DAPO_SRC + " (our transcription of the released code)", label="RECONSTRUCTED",
    role="control", expected="refuted", version=2,
    params={"recursion": "transcribed"},
    fn=functools.partial(accumulation_onpolicy_cases, recursion="transcribed"), tol=1e-13, tol_mode="scale",
    chunk_size=50, default_budget=100, quick_budget=50,
    notes="A documented counterexample: e.g. (1, 10, 100, 1000), γ = 0.5 gives "
          "(426, 760, 600, 1000) against (156, 310, 600, 1000).",
))

# Toy headline: J is an exact success probability (DP), so J ∈ [0, 1] and every paired
# difference d = J(OTB, N=4) − J(mean, N=32) lies in [−1, 1] surely.
register(ComparisonClaim(
    id="baselines.toy.headline",
    statement="toy (count task, V=4, T=48): J(OTB, N=4) − J(group mean, N=32) > −0.05 at an equal budget of 61 440 tokens",
    source=OTB_SRC + " §3 headline (OTB at N=4 matches N=32)", label="CONFIRMED", role="statement",
    expected="refuted",
    params={"steps": 40, "batch": 32, "lr": 0.3, "task": "CountTask(V=4, T=48, n_prompts=3, threshold=18)"},
    fn=toy_headline_differences, threshold=-0.05, alternative="greater", bounds=(-1.0, 1.0),
    chunk_size=2, default_budget=400, quick_budget=4,
    notes="The paper's claim is CONFIRMED as stated in its abstract; this toy reproduction (ours) refutes "
          "it at equal step size η = 0.3 (seed 0: the betting sequence stops at 210 pairs, mean −0.108, "
          "[−0.157, −0.050]). The margin −0.05 was fixed before the data; a budget of 400 pairs (the "
          "range [−1, 1] is wide next to sd ≈ 0.15) is what the bounded method needs to decide.",
))

for small, large, label, expected, note in (
        ("otb", "global_bstar", "OPEN", "refuted",
         "shared θ: OTB weights are the logit proxy, not E⟨s_t, S⟩R — search for losses"),
        ("otb", "mean", "OPEN", "refuted", "shared θ: search for instances where OTB loses to the plain mean"),
        ("per_token", "otb", "DERIVED", "holds",
         "the per-token optimum minimises the variance over per-position constants")):
    register(InequalityClaim(
        id=f"baselines.variance.shared.{small}_le_{large}",
        statement=f"linear-softmax (shared θ), V=2, T=3, d=2, R∈[0,1]: population Var[ĝ_{small}] ≤ Var[ĝ_{large}]",
        source=OTB_SRC + " §1–2", label=label, role="statement", expected=expected,
        params={"V": 2, "T": 3, "d": 2, "weights": "proxy"},
        sample=shared_instance_sample, project=shared_instance_project,
        evaluate=functools.partial(shared_variance_pair, small=small, large=large), atol=0.0, rtol=1e-9,
        chunk_size=100, default_budget=2_000, quick_budget=200, notes=note,
    ))

register(ComparisonClaim(
    id="baselines.toy.headline_eos",
    statement="toy with EOS (V=4, T≤48, variable length): J(OTB, N=4) − J(group mean, N=32) > −0.05 "
              "at an equal budget of 61 440 sampled tokens",
    source=OTB_SRC + " §3 headline (OTB at N=4 matches N=32)", label="CONFIRMED", role="statement",
    expected=None,
    params={"steps": 40, "batch": 32, "lr": 0.6,
            "task": "CountTask(V=4, T=48, n_prompts=3, threshold=20, eos=True, eos_logit=-3.0)"},
    fn=functools.partial(toy_headline_differences, lr=0.6, eos=True), threshold=-0.05, alternative="greater",
    bounds=(-1.0, 1.0),  # J ∈ [0, 1], as for baselines.toy.headline
    chunk_size=2, default_budget=40, quick_budget=4,
    notes="The paper's claim is CONFIRMED as stated in its abstract; this toy reproduction is ours. "
          "Sampled tokens after EOS are masked (the budget counts batch × T per step). The mean "
          "difference sits at the margin (seed 0, 800 pairs: −0.060, anytime-valid [−0.075, −0.045]), "
          "so no affordable budget decides it; the default stays small and the verdict inconclusive.",
))
