r"""The logit-gradient proxy against its definition, and against the true energy.

For ``p = softmax(z)`` and a sampled token ``a``, the proxy
``w = 1 − 2p_a + Σ_b p_b²`` equals ``‖∇_z log p_a‖² = ‖e_a − p‖²``; for a
tabular policy the cumulative proxy ``Σ_{j≤t} w_j`` equals the cumulative
energy ``‖Σ_{j≤t} s_j‖²`` exactly, with shared parameters only approximately.

* :func:`extreme_logits` — one random context, ``V`` up to 1e5, ``|z|`` up to
  1e4, a third with one dominant logit (``p_a → 1`` half the time);
* chunk functions ``f(rng, n, *, ...)``: :func:`proxy_identity_cases`,
  :func:`collision_cases`, :func:`tabular_exact_cases` (``(lhs, rhs, scale)``
  for identities with ``tol_mode="scale"``) and :func:`correlation_samples`;
* :func:`dense_tabular_scores` — explicit score vectors of a tabular policy
  (independent of :class:`~.population.ExactModel`);
* :func:`proxy_correlation` — the probability-weighted correlation of the
  cumulative proxy and the true cumulative energy of a linear-softmax policy.

Theory page ``docs/theory/baselines.md#proxy``.
"""
from __future__ import annotations

import numpy as np

from proofs_check.logits import logit_gradient_energy, softmax, sum_pi_squared
from proofs_check.engine import as_generator, check_instance, check_int, check_real
from proofs_check.policies import LinearSoftmaxPolicy, TabularPolicy

from ._args import MAX_SEQ, chunk_args, enum_size

from .population import exact_model

__all__ = ["extreme_logits", "proxy_identity_cases", "collision_cases", "dense_tabular_scores",
           "tabular_exact_cases", "proxy_correlation", "correlation_samples"]


def extreme_logits(rng, *, max_v: int, max_scale: float):
    """One context: ``V`` log-uniform in [2, max_v], logit scale log-uniform up to ``max_scale``;
    a third of the contexts have one dominant logit, which is the chosen token half the time
    (the ``p_a → 1`` regime where ``1 − p_a`` cancels)."""
    rng = as_generator(rng, "rng")
    max_v, max_scale = _extreme_args(max_v, max_scale)
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


def _extreme_args(max_v, max_scale):
    return (check_int("max_v", max_v, lo=2, hi=1_000_000),
            check_real("max_scale", max_scale, lo=1e-3, hi=1e6))


def _sum_of_squares_scale(e: np.ndarray) -> float:
    """First-order rounding sensitivity of ``Σ_k e_k²`` when every ``e_k`` carries an absolute
    error of one unit roundoff: ``Σ_k e_k² + 2 Σ_k |e_k|`` (the tolerance is then a few ε)."""
    return float(np.sum(e * e) + 2.0 * np.sum(np.abs(e)))


def proxy_identity_cases(rng, n, *, max_v: int, max_scale: float):
    """``lhs = Σ_b (δ_ab − p_b)²`` from a stable softmax; ``rhs`` = :func:`logit_gradient_energy`;
    ``scale`` = the rounding sensitivity of the ``V``-term sum (``tol_mode="scale"``), so that a
    cancellation in ``1 − p_a`` (``p_a → 1``) is not hidden by an absolute tolerance."""
    rng, n = chunk_args(rng, n, hi=10_000)
    max_v, max_scale = _extreme_args(max_v, max_scale)
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


def collision_cases(rng, n, *, max_v: int, max_scale: float):
    """``Σ_b p_b²`` two ways: squaring a stable softmax vs :func:`sum_pi_squared` (logsumexp form).

    ``scale = Σ_b p_b²`` (the sum of the ``V`` accumulated non-negative terms)."""
    rng, n = chunk_args(rng, n, hi=10_000)
    max_v, max_scale = _extreme_args(max_v, max_scale)
    lhs, rhs, scale = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        z, _ = extreme_logits(rng, max_v=max_v, max_scale=max_scale)
        p = softmax(z)
        lhs[i] = float(np.sum(p * p))
        rhs[i] = float(sum_pi_squared(z))
        scale[i] = lhs[i]
    return lhs, rhs, scale


def dense_tabular_scores(policy):
    """Explicit score vectors of a tabular policy: (n_seq, T, n_params), independent of ExactModel."""
    check_instance("policy", policy, TabularPolicy)
    V, T = policy.V, policy.T
    size = V ** T * T * sum(V ** t * V for t in range(T))
    if size > 1 << 24:
        raise ValueError(f"policy is too large for dense score vectors: V**T · T · n_params = {size} floats "
                         f"(limit {1 << 24})")
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


def tabular_exact_cases(rng, n, *, V: int, T: int, scale: float):
    """Tabular: ``‖Σ_{j≤t} s_j‖²`` (explicit score vectors) = ``Σ_{j≤t} (1 − 2p + Σp²)``
    (:func:`exact_model`'s ``proxy``); scale = rounding sensitivity of the sum of squares times
    the ``t`` accumulated positions."""
    rng, n = chunk_args(rng, n, hi=10_000)
    V, T = enum_size(V, T, max_seq=256)
    scale = check_real("scale", scale, lo=0.0, hi=1e6)
    lhs, rhs, sc = [], [], []
    for _ in range(n):
        pol = TabularPolicy.random(V, T, rng, scale=scale)
        S = np.cumsum(dense_tabular_scores(pol), axis=1)
        m = exact_model(pol, np.zeros(V ** T))
        lhs.append(np.sum(S * S, axis=2).ravel())
        rhs.append(np.cumsum(m.proxy, axis=1).ravel())
        sens = np.sum(S * S, axis=2) + 2.0 * np.sum(np.abs(S), axis=2)
        sc.append((sens * np.arange(1, T + 1)[None, :]).ravel())
    return np.concatenate(lhs), np.concatenate(rhs), np.concatenate(sc)


def proxy_correlation(policy) -> float:
    """Probability-weighted Pearson correlation over (y, t) of the proxy ``Σ_{j≤t} w_j``
    and the true cumulative energy ``‖Σ_{j≤t} s_j‖²`` of a linear-softmax policy (0 when either is
    constant, where the correlation is undefined)."""
    check_instance("policy", policy, LinearSoftmaxPolicy)
    enum_size(policy.V, policy.T, max_seq=MAX_SEQ)
    m = exact_model(policy, np.zeros(policy.V ** policy.T))
    Sc = np.cumsum(m.scores, axis=1)
    true = np.sum(Sc * Sc, axis=2)
    prox = np.cumsum(m.proxy, axis=1)
    w = np.repeat(m.P[:, None], m.T, axis=1).ravel()
    x, y = prox.ravel(), true.ravel()
    mx, my = w @ x / w.sum(), w @ y / w.sum()
    cov = w @ ((x - mx) * (y - my))
    var = (w @ (x - mx) ** 2) * (w @ (y - my) ** 2)
    if not var > 0:
        raise ValueError("policy has a constant proxy or a constant energy: the correlation is undefined")
    return float(cov / np.sqrt(var))


def correlation_samples(rng, n, *, V: int, T: int, d: int, scale: float):
    """Correlations for ``n`` random linear-softmax policies (``θ`` and features random)."""
    rng, n = chunk_args(rng, n, hi=10_000)
    V, T = enum_size(V, T, max_seq=4096)
    d = check_int("d", d, lo=1, hi=256)
    scale = check_real("scale", scale, lo=0.0, hi=1e6)
    return np.array([proxy_correlation(LinearSoftmaxPolicy.random(V, T, d, rng, scale=scale))
                     for _ in range(n)])
