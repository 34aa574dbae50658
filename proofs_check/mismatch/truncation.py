r"""The MSE-optimal truncation of sequence-level TIS and the ``R_max → R_max²`` correction
(theory ``mismatch.md#truncation``; theory ``mismatch.md#estimators``).

Sequence TIS, one sample ``y ∼ μ``: ``ĝ = min(ρ(y), C) f(y)``, ``f = R ∇log π``,
``K = sup_y ‖f(y)‖``, ``χ² = χ²_seq = E_μ ρ² − 1``.  The theory page's table gives

* bias ``‖E ĝ − g‖ ≤ K E_μ[(ρ − C)_+] ≤ K (1 + χ²)/C`` (``E(ρ − C)_+ ≤ E[ρ 1{ρ > C}] ≤ E ρ²/C``),
* variance ``Var ĝ ≤ C² E_μ‖f‖² ≤ C² K²``,

so the per-sample MSE obeys the bound (:func:`tis_mse_bound`)

.. math::  U_\beta(C) = \beta^2 K^2 (1+\chi^2)^2 / C^2 + C^2 K^2
   \quad\text{(bias bound } \beta K(1+\chi^2)/C\text{)},

minimised at (:func:`c_star`) :math:`C^* = \sqrt{\beta (1+\chi^2)}`
(:math:`C^4 = \beta^2(1+\chi^2)^2`) with value :math:`U_\beta(C^*) = 2\beta K^2(1+\chi^2)`
(:func:`tis_mse_bound_min`).  The spec states ``C* = √(2(1 + χ²))`` "DERIVED from the
blog's MSE bound", i.e. ``β = 2``: a bias constant twice the theory page table's, in the
blog's bound, which we could not read — so ``β`` is a **RECONSTRUCTED** constant, a
keyword with default 2; the theory page's own table gives ``β = 1``.  Its slack against the
exact MSE-optimal threshold is measured by :func:`tis_mse_profile`.

The blog's variance line writes ``R_max`` where the variance of ``R ∇log π`` needs
``R_max²`` (DERIVED: variance is quadratic in the reward scale): for rewards in
``[0, R_max]``, ``Var ĝ ≤ C² E_μ‖f‖² ≤ C² R_max² E_μ‖∇log π‖²``, while
``C² R_max E_μ‖∇log π‖²`` fails as soon as ``R_max > 1`` (:func:`variance_rmax_sides`).
"""
from __future__ import annotations

import math

import numpy as np

from ..engine import check_choice, check_finite_array, check_real
from ..policies import sequence_chi2, sequence_log_probs
from .estimators import estimator_moments, estimator_values
from .pairs import linear_from_flat

__all__ = ["C_STAR_BETA", "c_star", "tis_mse_bound", "tis_mse_bound_min", "c_star_cases",
           "tis_mse_profile", "evaluate_mse_bound", "evaluate_c_star_slack", "sample_linear_c",
           "sample_linear_rmax", "variance_rmax_sides", "project_linear_c", "project_linear_rmax",
           "C_GRID"]

#: β of the theory page's ``C* = √(2(1 + χ²))`` (RECONSTRUCTED: the blog's bias constant, relative to
#: the variance constant; the theory page's table has β = 1).
C_STAR_BETA = 2.0

_HI = 1e150


def c_star(chi2: float, *, beta: float = C_STAR_BETA) -> float:
    r"""``C* = √(β (1 + χ²))``, the minimiser of :func:`tis_mse_bound` over ``C > 0``
    (``β = 2``: the theory page's ``√(2(1 + χ²))``, RECONSTRUCTED)."""
    chi2 = check_real("chi2", chi2, lo=0.0, hi=_HI)
    beta = check_real("beta", beta, lo=0.0, lo_open=True, hi=1e6)
    return math.sqrt(beta * (1.0 + chi2))


def tis_mse_bound(C: float, chi2: float, K: float, *, beta: float = C_STAR_BETA) -> float:
    r"""``U_β(C) = β² K² (1 + χ²)²/C² + C² K²`` — the bias²-plus-variance bound of sequence TIS."""
    C = check_real("C", C, lo=0.0, lo_open=True, hi=1e100)
    chi2 = check_real("chi2", chi2, lo=0.0, hi=1e100)
    K = check_real("K", K, lo=0.0, hi=1e100)
    beta = check_real("beta", beta, lo=0.0, lo_open=True, hi=1e6)
    return beta * beta * K * K * (1.0 + chi2) ** 2 / (C * C) + C * C * K * K


def tis_mse_bound_min(chi2: float, K: float, *, beta: float = C_STAR_BETA) -> float:
    r"""``min_C U_β(C) = 2 β K² (1 + χ²)`` (attained at :func:`c_star`)."""
    chi2 = check_real("chi2", chi2, lo=0.0, hi=1e100)
    K = check_real("K", K, lo=0.0, hi=1e100)
    beta = check_real("beta", beta, lo=0.0, lo_open=True, hi=1e6)
    return 2.0 * beta * K * K * (1.0 + chi2)


def c_star_cases(rng, n, *, beta_max: float = 8.0):
    """Identity cases ``(numerical argmin of U_β, √(β(1+χ²)))`` and ``(min U_β, 2β K²(1+χ²))``
    for random ``χ² ∈ [0, 1e4]`` (log-uniform above 1e-3), ``K ∈ [0.01, 100]``, ``β ∈ (0, beta_max]``.

    The argmin is found by golden-section search on ``log C`` (independent of the closed form), to
    a bracket of relative width 1e-10; returns ``(lhs, rhs)`` arrays of length ``2n`` (relative
    errors: the argmin is flat, so its error is ~√(machine ε) of the bracket, ≪ the tolerance)."""
    from ..engine import as_generator, check_int

    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=100_000)
    beta_max = check_real("beta_max", beta_max, lo=0.0, lo_open=True, hi=1e6)
    lhs, rhs = [], []
    for _ in range(n):
        chi2 = float(np.exp(rng.uniform(np.log(1e-3), np.log(1e4)))) * float(rng.uniform() > 0.05)
        K = float(np.exp(rng.uniform(np.log(0.01), np.log(100.0))))
        beta = float(rng.uniform(0.0, beta_max)) or beta_max
        f = lambda lc: tis_mse_bound(math.exp(lc), chi2, K, beta=beta)  # noqa: E731
        a, b = -10.0, 12.0
        g = (math.sqrt(5.0) - 1.0) / 2.0
        c, d = b - g * (b - a), a + g * (b - a)
        fc, fd = f(c), f(d)
        while b - a > 1e-10:
            if fc < fd:
                b, d, fd = d, c, fc
                c = b - g * (b - a)
                fc = f(c)
            else:
                a, c, fc = c, d, fd
                d = a + g * (b - a)
                fd = f(d)
        lc = 0.5 * (a + b)
        lhs += [math.exp(lc), f(lc)]
        rhs += [c_star(chi2, beta=beta), tis_mse_bound_min(chi2, K, beta=beta)]
    return np.asarray(lhs), np.asarray(rhs)


def _linear_case(theta, V, T, d, seed):
    theta = check_finite_array("theta", theta, ndim=1)
    lin, mu, R = linear_from_flat(theta, V, T, d, seed)
    return lin, mu, R


def tis_mse_profile(mu, lin, R, Cs) -> dict:
    """Exact per-sample MSE ``E_μ‖min(ρ, C) f − g‖²`` of sequence TIS at every threshold of ``Cs``
    (enumeration, all thresholds in one pass; equals :func:`~.estimators.estimator_moments`'s
    ``seq_tis`` MSE, tested), with ``χ²_seq``, ``K = max_y ‖f(y)‖`` and ``E_μ‖f‖²``: dict ``Cs``,
    ``mse``, ``bias_norm``, ``variance``, ``chi2``, ``K``, ``Ef2``."""
    Cs = check_finite_array("Cs", Cs, ndim=1)
    if Cs.size == 0 or Cs.size > 10_000 or np.any(Cs <= 0):
        raise ValueError(f"Cs must hold 1..10000 positive thresholds, got {Cs.size} values "
                         f"(min {Cs.min() if Cs.size else None})")
    f = estimator_values(mu, lin, R, C=1.0)["naive"]                 # (N, d): R ∇log π
    lmu = sequence_log_probs(mu)
    lpi = sequence_log_probs(lin.tabular())
    pmu, ppi = np.exp(lmu), np.exp(lpi)
    rho = np.exp(lpi - lmu)
    g = ppi @ f
    f2 = (f * f).sum(axis=1)
    W = np.minimum(rho[None, :], Cs[:, None])                        # (nC, N)
    mean = (W * pmu[None, :]) @ f                                    # (nC, d)
    second = (W * W) @ (pmu * f2)
    var = np.maximum(second - (mean * mean).sum(axis=1), 0.0)
    bias = np.linalg.norm(mean - g[None, :], axis=1)
    return {"Cs": Cs, "mse": bias ** 2 + var, "bias_norm": bias, "variance": var,
            "chi2": float(sequence_chi2(mu, lin.tabular())),
            "K": float(np.sqrt(f2.max())), "Ef2": float(pmu @ f2)}


def sample_linear_c(rng, *, V, T, d):
    """A point of :func:`~.pairs.sample_linear` followed by ``log C``, ``C ∈ [1.05, 20]``."""
    from .pairs import sample_linear

    th = sample_linear(rng, V=V, T=T, d=d)
    return np.concatenate([th, [float(rng.uniform(math.log(1.05), math.log(20.0)))]])


def project_linear_c(theta):
    """Search projection for :func:`sample_linear_c`: logits clipped to ±30, ``C ∈ [1.05, 20]``."""
    theta = np.clip(check_finite_array("theta", theta, ndim=1), -30.0, 30.0)
    theta[-1] = min(max(theta[-1], math.log(1.05)), math.log(20.0))
    return theta


def evaluate_mse_bound(theta, *, V, T, d, seed, beta=1.0):
    """``(exact MSE of seq TIS at C, U_β(C))`` at the point ``theta`` of :func:`sample_linear_c`
    (``C = exp(theta[-1])``); with the theory page table's constants ``β = 1`` the bound must hold."""
    theta = check_finite_array("theta", theta, ndim=1)
    C = math.exp(float(np.clip(theta[-1], -30.0, 30.0)))
    lin, mu, R = _linear_case(theta[:-1], V, T, d, seed)
    p = tis_mse_profile(mu, lin, R, [C])
    return float(p["mse"][0]), tis_mse_bound(C, p["chi2"], p["K"], beta=beta)


#: Thresholds on which the exact MSE-optimal C is searched (log grid 1.0 … 1e4, 241 points).
C_GRID = np.exp(np.linspace(0.0, math.log(1e4), 241))


def evaluate_c_star_slack(theta, *, V, T, d, seed, beta=C_STAR_BETA, factor=2.0):
    """``(MSE(C*), factor · min_{C ∈ grid ∪ {C*}} MSE(C))`` — exact, at the point ``theta`` of
    :func:`~.pairs.sample_linear`; ``C* = √(β(1 + χ²_seq))``."""
    theta = check_finite_array("theta", theta, ndim=1)
    factor = check_real("factor", factor, lo=1.0, hi=1e6)
    lin, mu, R = _linear_case(theta, V, T, d, seed)
    chi2 = float(sequence_chi2(mu, lin.tabular()))
    cs = c_star(chi2, beta=beta)
    p = tis_mse_profile(mu, lin, R, np.append(C_GRID, cs))
    return float(p["mse"][-1]), factor * float(p["mse"].min())


def sample_linear_rmax(rng, *, V, T, d):
    """A point of :func:`~.pairs.sample_linear` followed by ``log C`` (``C ∈ [1.05, 8]``) and
    ``log R_max`` (``R_max ∈ [1, 100]``)."""
    from .pairs import sample_linear

    th = sample_linear(rng, V=V, T=T, d=d)
    return np.concatenate([th, [float(rng.uniform(math.log(1.05), math.log(8.0))),
                                float(rng.uniform(0.0, math.log(100.0)))]])


def project_linear_rmax(theta):
    """Search projection for :func:`sample_linear_rmax`: logits clipped to ±30,
    ``C ∈ [1.05, 8]``, ``R_max ∈ [1, 100]``."""
    theta = np.clip(check_finite_array("theta", theta, ndim=1), -30.0, 30.0)
    theta[-2] = min(max(theta[-2], math.log(1.05)), math.log(8.0))
    theta[-1] = min(max(theta[-1], 0.0), math.log(100.0))
    return theta


def variance_rmax_sides(theta, *, V, T, d, seed, power="squared"):
    """``(Var(seq TIS), C² R_max^p E_μ‖∇log π‖²)`` with rewards ``R_max · R`` (``R ∈ [0, 1]``) at the
    point of :func:`sample_linear_rmax`; ``power="squared"`` (p = 2, the corrected line, DERIVED)
    or ``"linear"`` (p = 1, the blog's line as written)."""
    theta = check_finite_array("theta", theta, ndim=1)
    check_choice("power", power, ("squared", "linear"))
    C = math.exp(float(np.clip(theta[-2], -30.0, 30.0)))
    rmax = math.exp(float(np.clip(theta[-1], 0.0, 30.0)))
    lin, mu, R = _linear_case(theta[:-2], V, T, d, seed)
    _, mom = estimator_moments(mu, lin, rmax * R, C=C, C_hi=max(2.0, C))
    S = estimator_values(mu, lin, np.ones_like(R), C=C, C_hi=max(2.0, C))["naive"]  # ∇log π(y)
    pmu = np.exp(sequence_log_probs(mu))
    ES2 = float(pmu @ (S * S).sum(axis=1))
    p = 2.0 if power == "squared" else 1.0
    return mom["seq_tis"].variance, C * C * rmax ** p * ES2
