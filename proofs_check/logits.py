"""Softmax scores and the logit-gradient energy.

For ``p = softmax(z)`` and a sampled token ``a``: ``∇_z log p_a = e_a − p`` and

.. math::  \\|\\nabla_z \\log p_a\\|^2 = 1 - 2 p_a + \\sum_b p_b^2 \\in [0, 2).

``Σ_b p_b² = exp(logsumexp(2z) − 2 logsumexp(z))`` is read off the forward
pass and is stable for logits of any size.

References: "The Optimal Token Baseline" (arXiv 2602.07078) and "Logit Dynamics
in Softmax Policy Gradient Methods" (arXiv 2506.12912); theory
``docs/theory/baselines.md#proxy`` and ``#logit-dynamics`` (CONFIRMED).  The
mpmath versions (``*_mp``) evaluate the definitions at high precision, one
context at a time.
"""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .engine.validate import check_finite_array, check_int, check_real

__all__ = ["log_softmax", "softmax", "sum_pi_squared", "logit_gradient_energy", "softmax_mp",
           "sum_pi_squared_mp", "logit_gradient_energy_mp"]


#: Largest mpmath working precision accepted by the ``*_mp`` functions (digits).
MAX_DPS = 2000


def _logits(name, logits) -> np.ndarray:
    """Finite real logits with a non-empty last axis (a 0-d array is refused, not indexed)."""
    z = check_finite_array(name, logits)
    if z.ndim == 0 or z.shape[-1] < 1:
        raise ValueError(f"{name} must have a non-empty last axis, got shape {z.shape}")
    return z


def _check_dps(dps) -> int:
    return check_int("dps", dps, lo=1, hi=MAX_DPS)


def log_softmax(logits) -> np.ndarray:
    """``log softmax(z)`` along the last axis, stable for |z| up to float max/2."""
    z = _logits("logits", logits)
    return _log_softmax_checked(z)


def _log_softmax_checked(z) -> np.ndarray:
    # Shift by the max *before* subtracting the log-normaliser: z − max(z) is
    # exact for the entries that matter, and log Σ exp(z − max) ∈ [0, log V],
    # so log p keeps full relative accuracy even for |z| ~ 1e4 (subtracting
    # logsumexp(z) ~ 1e4 directly would cost ulp(1e4) ≈ 2e-12 absolute).
    zs = z - np.max(z, axis=-1, keepdims=True)
    return zs - np.log(np.sum(np.exp(zs), axis=-1, keepdims=True))


def softmax(logits) -> np.ndarray:
    """``softmax(z)`` along the last axis."""
    return np.exp(log_softmax(logits))


def sum_pi_squared(logits) -> np.ndarray:
    """Collision probability ``Σ_b p_b² = exp(logsumexp(2z) − 2 logsumexp(z))``.

    Along the last axis; exact to rounding for any finite logits (no overflow).
    """
    z = _logits("logits", logits)
    zs = z - np.max(z, axis=-1, keepdims=True)     # same value, no ulp(|z|) loss
    return np.exp(logsumexp(2.0 * zs, axis=-1) - 2.0 * logsumexp(zs, axis=-1))


def logit_gradient_energy(logits, actions) -> np.ndarray:
    """``‖e_a − softmax(z)‖² = 1 − 2 p_a + Σ_b p_b²`` for each row of ``logits``.

    ``logits`` has shape ``(..., V)``; ``actions`` holds integer token ids with
    the leading shape ``(...)``.  Computed as ``(1 − p_a)² + (Σp² − p_a²)`` so
    that it is accurate (not a difference of nearly equal numbers) when
    ``p_a → 1``.
    """
    z, a = _logits_actions(logits, actions)
    V = z.shape[-1]
    logp = log_softmax(z)
    logp_a = np.take_along_axis(logp, a[..., None], axis=-1)[..., 0]
    p_a = np.exp(logp_a)
    # Σ_{b≠a} p_b² via log-sum-exp with the a-th entry removed.
    two = 2.0 * logp
    np.put_along_axis(two, a[..., None], -np.inf, axis=-1)
    others = np.exp(logsumexp(two, axis=-1)) if V > 1 else np.zeros_like(p_a)
    # 1 − p_a computed without cancellation: Σ_{b≠a} p_b.
    lp = logp.copy()
    np.put_along_axis(lp, a[..., None], -np.inf, axis=-1)
    one_minus = np.exp(logsumexp(lp, axis=-1)) if V > 1 else np.zeros_like(p_a)
    return one_minus ** 2 + others


# ---------------------------------------------------------------------------
# mpmath versions (one context at a time): the definitions at high precision
# ---------------------------------------------------------------------------

def softmax_mp(logits, *, dps: int = 50) -> list:
    """``softmax(z)`` of one context (a 1-D sequence of floats) as ``mpf`` numbers at ``dps`` digits."""
    import mpmath

    dps = _check_dps(dps)
    z = check_finite_array("logits", logits, ndim=1)
    if z.size < 1:
        raise ValueError("logits must be a non-empty 1-D array")
    with mpmath.workdps(dps):
        zm = [mpmath.mpf(float(v)) for v in z]
        top = max(zm)
        w = [mpmath.exp(v - top) for v in zm]
        tot = mpmath.fsum(w)
        return [x / tot for x in w]


def sum_pi_squared_mp(logits, *, dps: int = 50) -> float:
    """:func:`sum_pi_squared` of one context from its definition ``Σ_b p_b²`` at ``dps`` digits."""
    import mpmath

    dps = _check_dps(dps)
    p = softmax_mp(logits, dps=dps)
    with mpmath.workdps(dps):
        return float(mpmath.fsum(x * x for x in p))


def logit_gradient_energy_mp(logits, action: int, *, dps: int = 50) -> float:
    """:func:`logit_gradient_energy` of one context from its definition ``‖e_a − softmax(z)‖²`` at
    ``dps`` digits (rounded to the nearest float at the end)."""
    import mpmath

    dps = _check_dps(dps)
    p = softmax_mp(logits, dps=dps)
    a = check_int("action", action, lo=0, hi=len(p) - 1)
    with mpmath.workdps(dps):
        return float(mpmath.fsum(((1 if b == a else 0) - p[b]) ** 2 for b in range(len(p))))


# ---------------------------------------------------------------------------
# the softmax score and one-step logit dynamics (theory baselines.md#logit-dynamics)
# ---------------------------------------------------------------------------

def _logits_actions(logits, actions):
    z = _logits("logits", logits)
    if actions is None or isinstance(actions, (str, bytes)):
        raise TypeError(f"actions must be integer token ids, got {actions!r:.60}")
    a = np.asarray(actions)
    if a.dtype.kind not in "iu":
        raise TypeError(f"actions must be integer token ids, got dtype {a.dtype}")
    if a.shape != z.shape[:-1]:
        raise ValueError(f"actions shape {a.shape} must equal logits.shape[:-1] = {z.shape[:-1]}")
    V = z.shape[-1]
    if a.size and (a.min() < 0 or a.max() >= V):
        raise ValueError(f"actions must lie in [0, {V - 1}], got range [{a.min()}, {a.max()}]")
    return z, a


def _broadcast_real(name, value, shape):
    v = check_finite_array(name, value)
    try:
        return np.broadcast_to(v, shape)
    except ValueError:
        raise ValueError(f"{name} of shape {v.shape} does not broadcast to {shape}") from None


def softmax_score(logits, actions) -> np.ndarray:
    r"""The softmax score ``s = ∇_z log p_a = e_a − softmax(z)``, shape ``(..., V)``.

    .. math:: s_j = \delta_{ja} - p_j, \qquad \sum_j s_j = 0.

    ``logits`` is ``z`` (shape ``(..., V)``), ``actions`` is ``a`` (shape ``(...)``).
    Theory: ``docs/theory/baselines.md#proxy`` (CONFIRMED).
    """
    z, a = _logits_actions(logits, actions)
    s = -softmax(z)
    np.put_along_axis(s, a[..., None], np.take_along_axis(s, a[..., None], axis=-1) + 1.0, axis=-1)
    # the chosen entry 1 − p_a without cancellation: Σ_{b≠a} p_b
    V = z.shape[-1]
    if V > 1:
        lp = log_softmax(z)
        np.put_along_axis(lp, a[..., None], -np.inf, axis=-1)
        np.put_along_axis(s, a[..., None], np.exp(logsumexp(lp, axis=-1))[..., None], axis=-1)
    return s


def logit_update(logits, actions, advantage, *, eta: float) -> np.ndarray:
    r"""One policy-gradient step on the logits: ``Δz = η A (e_a − p)``.

    .. math:: \Delta z_j = \eta A (\delta_{ja} - p_j)

    The chosen logit moves by ``ηA(1 − p_a)``, every other logit by ``−ηA p_j``.
    ``advantage`` (``A``) broadcasts against ``logits.shape[:-1]``; ``eta`` is
    the step size ``η > 0``.  Source: "Logit Dynamics in Softmax Policy
    Gradient Methods" (arXiv 2506.12912); theory ``baselines.md#logit-dynamics`` (CONFIRMED).
    """
    eta = check_real("eta", eta, lo=0.0, lo_open=True)
    z, a = _logits_actions(logits, actions)
    A = _broadcast_real("advantage", advantage, a.shape)
    return (eta * A)[..., None] * softmax_score(z, a)


def logit_update_norm(logits, actions, advantage, *, eta: float) -> np.ndarray:
    r"""``‖Δz‖ = η |A| sqrt(1 − 2 p_a + Σ_b p_b²)`` (closed form, no Δz formed).

    Theory: ``baselines.md#logit-dynamics`` (CONFIRMED).
    """
    eta = check_real("eta", eta, lo=0.0, lo_open=True)
    z, a = _logits_actions(logits, actions)
    A = _broadcast_real("advantage", advantage, a.shape)
    return eta * np.abs(A) * np.sqrt(logit_gradient_energy(z, a))


def collision_probability(logits) -> np.ndarray:
    """``Σ_b p_b² = exp(−H_2(p))`` (Rényi-2 entropy); alias of :func:`sum_pi_squared`."""
    return sum_pi_squared(logits)


def logprob_change(logits, delta_z) -> np.ndarray:
    """Exact change of every log-probability: ``log softmax(z + Δz) − log softmax(z)``."""
    z = _logits("logits", logits)
    dz = check_finite_array("delta_z", delta_z)
    if dz.shape != z.shape:
        raise ValueError(f"delta_z shape {dz.shape} must equal logits shape {z.shape}")
    # log p'_i − log p_i = Δz_i − log Σ_b p_b e^{Δz_b}
    lp = log_softmax(z)
    return dz - logsumexp(lp + dz, axis=-1, keepdims=True)


def first_order_logprob_change(logits, actions, advantage, *, eta: float) -> np.ndarray:
    r"""First-order change of ``log p_i`` after the step ``Δz = ηA(e_a − p)``.

    .. math:: \Delta \log p_i \approx \eta A\,[(\delta_{ia} - p_i) - (p_a - \textstyle\sum_b p_b^2)]

    Exact to ``O(η²)``.  Theory: ``baselines.md#logit-dynamics`` (DERIVED).
    """
    eta = check_real("eta", eta, lo=0.0, lo_open=True)
    z, a = _logits_actions(logits, actions)
    A = _broadcast_real("advantage", advantage, a.shape)
    p = softmax(z)
    p_a = np.take_along_axis(p, a[..., None], axis=-1)
    s2 = sum_pi_squared(z)[..., None]
    return (eta * A)[..., None] * (softmax_score(z, a) - (p_a - s2))


def kl_divergence(logits_p, logits_q) -> np.ndarray:
    """``KL(softmax(z_p) ‖ softmax(z_q))`` along the last axis (exact, stable)."""
    lp = _log_softmax_checked(_logits("logits_p", logits_p))
    lq = _log_softmax_checked(_logits("logits_q", logits_q))
    if lp.shape != lq.shape:
        raise ValueError(f"logits_p shape {lp.shape} must equal logits_q shape {lq.shape}")
    p = np.exp(lp)
    # terms with p = 0 contribute 0 (their log p may be −inf when the logits span > 1.8e308)
    with np.errstate(invalid="ignore"):
        terms = np.where(p > 0, p * (lp - lq), 0.0)
    return np.maximum(np.sum(terms, axis=-1), 0.0)


def _expm1_minus_x(u):
    """``e^u − 1 − u`` without cancellation (Taylor series for |u| < 0.1)."""
    u = np.asarray(u, dtype=float)
    out = np.empty_like(u)
    small = np.abs(u) < 0.1
    us = u[small]
    term = us * us / 2.0
    acc = term.copy()
    for k in range(3, 14):
        term = term * us / k
        acc += term
    out[small] = acc
    ub = u[~small]
    out[~small] = np.expm1(np.minimum(ub, 700.0)) - ub
    return out


def kl_after_update(logits, delta_z) -> np.ndarray:
    r"""Exact ``KL(p ‖ p')`` for ``p = softmax(z)``, ``p' = softmax(z + Δz)``, accurate for tiny Δz.

    With ``u = Δz − E_p Δz``: ``KL = log Σ_b p_b e^{u_b}``, evaluated as
    ``log1p(Σ_b p_b (e^{u_b} − 1 − u_b))`` when ``max|u| < 1/2`` (relative
    accuracy ~1e-15 even when KL ~ 1e-30) and by log-sum-exp otherwise.
    """
    z = _logits("logits", logits)
    dz = check_finite_array("delta_z", delta_z)
    if dz.shape != z.shape:
        raise ValueError(f"delta_z shape {dz.shape} must equal logits shape {z.shape}")
    lp = log_softmax(z)
    p = np.exp(lp)
    u = dz - np.sum(p * dz, axis=-1, keepdims=True)
    small = np.max(np.abs(u), axis=-1) < 0.5
    out = np.empty(z.shape[:-1])
    series = np.log1p(np.sum(p * _expm1_minus_x(u), axis=-1))
    big = logsumexp(lp + u, axis=-1)
    out = np.where(small, series, big)
    return np.maximum(out, 0.0)


def second_order_kl(logits, delta_z) -> np.ndarray:
    r"""Second-order approximation of ``KL(p ‖ p')`` for ``p' = softmax(z + Δz)``.

    .. math:: \mathrm{KL}(p\,\|\,p') \approx \tfrac12 \Delta z^\top(\operatorname{diag} p - p p^\top)\Delta z
              = \tfrac12 \operatorname{Var}_{j\sim p}(\Delta z_j)

    computed as the variance form (no cancellation).  Theory:
    ``baselines.md#logit-dynamics`` (DERIVED).
    """
    z = _logits("logits", logits)
    dz = check_finite_array("delta_z", delta_z)
    if dz.shape != z.shape:
        raise ValueError(f"delta_z shape {dz.shape} must equal logits shape {z.shape}")
    p = softmax(z)
    m = np.sum(p * dz, axis=-1, keepdims=True)
    return 0.5 * np.sum(p * (dz - m) ** 2, axis=-1)


def approximation_errors(logits, actions, advantage, etas) -> dict:
    """Errors of the first- and second-order approximations along a grid of step sizes.

    Returns a dict of arrays over ``etas`` (for a single context: ``logits``
    of shape ``(V,)``, scalar ``actions`` and ``advantage``):

    * ``"first_order"``: ``max_i |Δlog p_i − first-order prediction|``;
    * ``"second_order"``: ``|KL(p‖p') − ½ Δzᵀ(diag p − ppᵀ)Δz|``;
    * ``"second_order_rel"``: the same divided by the exact KL (NaN where KL = 0).
    """
    z, a = _logits_actions(logits, actions)
    if z.ndim != 1:
        raise ValueError(f"approximation_errors takes one context: logits of shape (V,), got {z.shape}")
    etas = check_finite_array("etas", etas, ndim=1)
    if etas.size == 0 or etas.size > 100_000 or np.any(etas <= 0):
        raise ValueError("etas must be a non-empty array of at most 100 000 positive step sizes")
    A = float(_broadcast_real("advantage", advantage, a.shape))
    first, second, rel = _approximation_rows(z, a, A, etas)
    return {"eta": etas.copy(), "first_order": np.array(first), "second_order": np.array(second),
            "second_order_rel": np.array(rel)}


def _approximation_rows(z, a, A, etas):
    """The three error arrays of :func:`approximation_errors` for one validated context, every step
    of ``etas`` at once (rows of ``Δz = η A (e_a − p)``)."""
    if not np.max(np.abs(etas)) * abs(A) <= 1e150:
        raise ValueError(f"advantage times the step sizes must stay within ±1e150 (the squared step must be "
                         f"finite), got |A|·max η = {abs(A) * float(np.max(np.abs(etas))):.3g}")
    # one row per step: ηA enters as the advantage with η = 1 (1.0 · x == x exactly, so each row is
    # bit-identical to a call with that η)
    zz = np.broadcast_to(z, (etas.size,) + z.shape)
    aa = np.broadcast_to(a, (etas.size,))
    coef = etas * A
    dz = logit_update(zz, aa, coef, eta=1.0)
    first = np.max(np.abs(logprob_change(zz, dz) - first_order_logprob_change(zz, aa, coef, eta=1.0)), axis=-1)
    kl = kl_after_update(zz, dz)
    q = second_order_kl(zz, dz)
    second = np.abs(kl - q)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(kl > 0, second / np.where(kl > 0, kl, 1.0), np.nan)
    return first, second, rel


def breaking_step_size(logits, actions, advantage, *, order: int = 1, tol: float = 1e-3,
                       eta_lo: float = 1e-8, eta_hi: float = 1e4, iters: int = 200) -> float:
    """The smallest step ``η`` (to bisection precision) at which an approximation's error exceeds ``tol``.

    ``order=1``: the first-order log-probability change, error ``max_i |exact − approx|``
    (absolute).  ``order=2``: the second-order KL, error relative to the exact
    KL.  A geometric grid of 400 points on ``[eta_lo, eta_hi]`` locates the first
    crossing; bisection refines it.  Returns ``inf`` if the error never exceeds
    ``tol`` on the grid.  Theory: ``baselines.md#logit-dynamics``.
    """
    order = _check_order(order)
    tol = check_real("tol", tol, lo=0.0, lo_open=True)
    eta_lo = check_real("eta_lo", eta_lo, lo=0.0, lo_open=True)
    eta_hi = check_real("eta_hi", eta_hi, lo=eta_lo, lo_open=True)
    iters = check_int("iters", iters, lo=1, hi=10_000)
    z, a = _logits_actions(logits, actions)
    if z.ndim != 1:
        raise ValueError(f"breaking_step_size takes one context: logits of shape (V,), got {z.shape}")
    _broadcast_real("advantage", advantage, a.shape)

    A = float(_broadcast_real("advantage", advantage, a.shape))

    def errs(etas):
        first, _, rel = _approximation_rows(z, a, A, np.asarray(etas, dtype=float))
        v = first if order == 1 else rel
        return np.where(np.isfinite(v), v, 0.0)

    def err(eta):
        return float(errs([eta])[0])

    grid = np.geomspace(eta_lo, eta_hi, 400)
    grid_err = errs(grid)
    prev = eta_lo
    for eta, e in zip(grid, grid_err):
        if e > tol:
            lo, hi = prev, eta
            for _ in range(iters):
                mid = np.sqrt(lo * hi)
                if err(mid) > tol:
                    hi = mid
                else:
                    lo = mid
                if hi / lo < 1 + 1e-9:
                    break
            return float(hi)
        prev = eta
    return float("inf")


def _check_order(order):
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order not in (1, 2):
        raise ValueError(f"order must be 1 (log-prob change) or 2 (KL), got {order!r:.60}")
    return int(order)


__all__ += ["softmax_score", "logit_update", "logit_update_norm", "collision_probability",
            "logprob_change", "first_order_logprob_change", "kl_divergence", "kl_after_update", "second_order_kl",
            "approximation_errors", "breaking_step_size"]
