"""Symbolic (sympy) proofs of the toolkit's identities.

Each ``prove_*`` function returns ``True`` when sympy reduces
``lhs − rhs`` to zero; it is both a test and the ``proof`` of a claim.
A ``V``/``T``/``N`` argument proves the identity for that explicit size with
one symbol per entry; ``None`` proves it for a symbolic size (sums over an
``IndexedBase`` with ``KroneckerDelta``, or an induction step).
"""
from __future__ import annotations

import sympy as sp

from .engine.validate import check_int

__all__ = ["prove_logit_energy_identity", "prove_logit_energy_identity_general",
           "prove_zero_sum_logit_update", "prove_telescoping_ratio", "prove_otb_equal_weights",
           "prove_otb_scale_invariance", "prove_kl_second_order"]


def prove_logit_energy_identity(V: int) -> bool:
    """``‖e_a − softmax(z)‖² = 1 − 2 p_a + Σ_b p_b²`` for symbolic logits.

    With ``p_b = e^{z_b} / Σ_c e^{z_c}`` for symbols ``z_1..z_V`` and every
    choice of ``a``.  Theory: ``docs/theory/baselines.md#proxy`` (CONFIRMED).
    """
    V = check_int("V", V, lo=2, hi=12)
    z = sp.symbols(f"z0:{V}", real=True)
    Z = sum(sp.exp(zi) for zi in z)
    p = [sp.exp(zi) / Z for zi in z]
    for a in range(V):
        lhs = sum(((1 if b == a else 0) - p[b]) ** 2 for b in range(V))
        rhs = 1 - 2 * p[a] + sum(pb ** 2 for pb in p)
        if sp.simplify(sp.expand(lhs - rhs)) != 0:
            return False
    return True


def _sum_doit_refined(expr, assumption):
    """Expand ``expr``, evaluate each ``Sum`` term, and refine under ``assumption``."""
    terms = [t.doit() if isinstance(t, sp.Sum) else t for t in sp.Add.make_args(sp.expand(expr))]
    return sp.simplify(sp.refine(sp.factor_terms(sp.Add(*terms)), assumption))


def prove_logit_energy_identity_general() -> bool:
    r"""The energy identity for a symbolic vocabulary size ``V`` and any vector ``p``.

    .. math:: \sum_{b=1}^V (\delta_{ab} - p_b)^2 = 1 - 2 p_a + \sum_{b=1}^V p_b^2,
              \quad 1 \le a \le V.

    (It needs no normalisation of ``p``.)  ``Σ_b δ_{ab} f(b)`` is evaluated by
    sympy to ``f(a)`` under ``a ≤ V``.  Theory: ``baselines.md#proxy``.
    """
    V, a, b = sp.symbols("V a b", integer=True, positive=True)
    p = sp.IndexedBase("p")
    lhs = sp.Sum(sp.expand((sp.KroneckerDelta(a, b) - p[b]) ** 2), (b, 1, V))
    rhs = 1 - 2 * p[a] + sp.Sum(p[b] ** 2, (b, 1, V))
    return _sum_doit_refined(lhs - rhs, sp.Q.le(a, V)) == 0


def prove_zero_sum_logit_update(V: int | None = None) -> bool:
    r"""``Σ_j Δz_j = 0`` for the step ``Δz_j = ηA(δ_{ja} − p_j)``, ``p = softmax(z)``.

    ``V`` an int in [2, 12]: explicit symbols ``z_1..z_V`` and every ``a``;
    ``V=None``: symbolic ``V`` with ``p_b = e^{z_b}/Σ_c e^{z_c}``.
    Theory: ``baselines.md#logit-dynamics`` (DERIVED).
    """
    eta, A = sp.symbols("eta A", real=True)
    if V is None:
        Vs, a, b = sp.symbols("V a b", integer=True, positive=True)
        z = sp.IndexedBase("z", real=True)
        Z = sp.Sum(sp.exp(z[b]), (b, 1, Vs))
        total = sp.Sum(eta * A * (sp.KroneckerDelta(a, b) - sp.exp(z[b]) / Z), (b, 1, Vs))
        return _sum_doit_refined(total, sp.Q.le(a, Vs)) == 0
    V = check_int("V", V, lo=2, hi=12)
    z = sp.symbols(f"z0:{V}", real=True)
    Z = sum(sp.exp(zi) for zi in z)
    p = [sp.exp(zi) / Z for zi in z]
    for a in range(V):
        total = sum(eta * A * ((1 if j == a else 0) - p[j]) for j in range(V))
        if sp.simplify(total) != 0:
            return False
    return True


def _telescoping_summand(rho_t, suffix_next):
    """``(ρ_t − 1) Π_{j>t} ρ_j`` written with ``suffix_next = Π_{j>t} ρ_j``."""
    return (rho_t - 1) * suffix_next


def prove_telescoping_ratio(T: int | None = None) -> bool:
    r"""``Π_{t=1}^T ρ_t − 1 = Σ_{t=1}^T (ρ_t − 1) Π_{j>t} ρ_j``.

    ``T`` an int in [1, 10]: expanded polynomial identity in symbols
    ``ρ_1..ρ_T``.  ``T=None`` (symbolic ``T``): with the suffix products
    ``Q(t) = Π_{j≥t} ρ_j`` (so ``Q(t) = ρ_t Q(t+1)``, ``Q(1) = Π ρ``,
    ``Q(T+1) = 1``) sympy must rewrite each summand as ``Q(t) − Q(t+1)`` and
    evaluate the telescoping ``Σ_{t=1}^T`` to ``Q(1) − Q(T+1)``.  Source: the
    tangent/remainder split, theory ``docs/theory/mismatch.md#decomposition`` (DERIVED).
    """
    if T is None:
        t, Ts = sp.symbols("t T", integer=True, positive=True)
        rho, Q = sp.Function("rho"), sp.Function("Q")
        summand = _telescoping_summand(rho(t), Q(t + 1))
        # the only fact used: Q(t) = ρ_t Q(t+1), i.e. ρ_t = Q(t)/Q(t+1)
        summand = sp.simplify(summand.subs(rho(t), Q(t) / Q(t + 1)))
        total = sp.Sum(sp.expand(summand), (t, 1, Ts)).doit()
        return sp.simplify(total - (Q(1) - Q(Ts + 1))) == 0
    T = check_int("T", T, lo=1, hi=10)
    rho = sp.symbols(f"rho1:{T + 1}", positive=True)
    lhs = sp.prod(rho) - 1
    rhs = sum(_telescoping_summand(rho[t], sp.prod(rho[t + 1:])) for t in range(T))
    return sp.expand(lhs - rhs) == 0


def prove_otb_equal_weights(N: int | None = None) -> bool:
    r"""With equal cumulative energies the OTB baseline is the per-position group mean.

    .. math:: \frac{\sum_i m_i G_i W}{\sum_i m_i W} = \frac{\sum_i m_i G_i}{\sum_i m_i}

    (step 4 of the implementation without the ``1e-8`` guard; ``m_i`` the
    mask at the position).  ``N`` an int in [1, 12]: explicit symbols;
    ``None``: symbolic group size.  Theory: ``baselines.md#otb-implementation`` (DERIVED).
    """
    W = sp.symbols("W", positive=True)
    if N is None:
        Ns, i = sp.symbols("N i", integer=True, positive=True)
        m, G = sp.IndexedBase("m"), sp.IndexedBase("G")
        B = sp.Sum(m[i] * G[i] * W, (i, 1, Ns)) / sp.Sum(m[i] * W, (i, 1, Ns))
        mean = sp.Sum(m[i] * G[i], (i, 1, Ns)) / sp.Sum(m[i], (i, 1, Ns))
        return sp.simplify(sp.factor_terms(B) - mean) == 0
    N = check_int("N", N, lo=1, hi=12)
    m = sp.symbols(f"m1:{N + 1}", positive=True)
    G = sp.symbols(f"G1:{N + 1}", real=True)
    B = sum(mi * gi * W for mi, gi in zip(m, G)) / sum(mi * W for mi in m)
    mean = sum(mi * gi for mi, gi in zip(m, G)) / sum(m)
    return sp.simplify(B - mean) == 0


def prove_otb_scale_invariance(N: int) -> bool:
    """Scaling every ``w`` (hence every ``W``) by ``c > 0`` leaves ``B_t`` unchanged (no guard).

    Theory: ``baselines.md#otb-implementation`` (DERIVED).
    """
    N = check_int("N", N, lo=1, hi=12)
    c = sp.symbols("c", positive=True)
    W = sp.symbols(f"W1:{N + 1}", positive=True)
    G = sp.symbols(f"G1:{N + 1}", real=True)
    B = sum(g * w for g, w in zip(G, W)) / sum(W)
    Bc = sum(g * c * w for g, w in zip(G, W)) / sum(c * w for w in W)
    return sp.simplify(B - Bc) == 0


def prove_kl_second_order(V: int) -> bool:
    r"""``KL(p ‖ softmax(z + εd))`` has Taylor expansion ``½ε² dᵀ(diag p − ppᵀ)d + O(ε³)``.

    Explicit symbols ``z_1..z_V``, ``d_1..d_V``; the series in ``ε`` to order 2
    must equal the quadratic form (``V`` in [2, 3]).  Theory: ``baselines.md#logit-dynamics`` (DERIVED).
    """
    V = check_int("V", V, lo=2, hi=3)  # V = 4 takes sympy minutes
    eps = sp.symbols("epsilon", real=True)
    z = sp.symbols(f"z0:{V}", real=True)
    d = sp.symbols(f"d0:{V}", real=True)
    Z = sum(sp.exp(zi) for zi in z)
    p = [sp.exp(zi) / Z for zi in z]
    # KL(p ‖ p') = log Σ_b p_b e^{ε d_b} − ε Σ_b p_b d_b
    kl = sp.log(sum(pb * sp.exp(eps * db) for pb, db in zip(p, d))) - eps * sum(pb * db for pb, db in zip(p, d))
    series = sp.series(kl, eps, 0, 3).removeO()
    quad = sp.Rational(1, 2) * eps ** 2 * (sum(pb * db ** 2 for pb, db in zip(p, d))
                                            - sum(pb * db for pb, db in zip(p, d)) ** 2)
    return sp.simplify(series - quad) == 0
