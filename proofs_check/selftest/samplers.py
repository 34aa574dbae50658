"""Samplers and exact computations behind the engine's self-test claims.

* :func:`energy_cases` — the logit-gradient energy identity, float64 library
  code against a 40-digit mpmath evaluation of the definition.
* :data:`DG_DEVIATION` — the experiment behind the Dasgupta–Gupta tail claims.
* :func:`bernoulli_events` — a coin with known bias (calibration).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from proofs_check.engine import Experiment

from proofs_check.logits import logit_gradient_energy
from proofs_check.symbolic import prove_logit_energy_identity

__all__ = ["bernoulli_events", "count_deviations", "dg_deviation_trials", "dg_tail_bound", "energy_cases",
           "projected_sq_norm_ratio", "prove_energy_identity", "DG_DEVIATION", "DG_M", "DG_EPS"]


def energy_cases(rng: np.random.Generator, n: int, *, max_v: int = 64, max_scale: float = 1e4):
    """``n`` random cases of the energy identity; returns ``(lhs, rhs)``.

    Vocabulary sizes ``V ∈ [2, max_v]`` and logit scales log-uniform up to
    ``max_scale`` (extreme logits included).  ``lhs`` is the definition
    ``‖e_a − softmax(z)‖²`` evaluated in 40-digit arithmetic (mpmath) from the
    same float64 logits; ``rhs`` is the float64
    :func:`proofs_check.logits.logit_gradient_energy` (``1 − 2p_a + Σp²``).
    The identity and its stable implementation are checked together.
    """
    import mpmath

    lhs = np.empty(n)
    rhs = np.empty(n)
    for i in range(n):
        V = int(rng.integers(2, max_v + 1))
        scale = float(np.exp(rng.uniform(np.log(1e-3), np.log(max_scale))))
        z = rng.standard_normal(V) * scale
        a = int(rng.integers(V))
        with mpmath.workdps(40):
            zm = [mpmath.mpf(float(v)) for v in z]
            top = max(zm)
            w = [mpmath.exp(v - top) for v in zm]
            tot = mpmath.fsum(w)
            lhs[i] = float(mpmath.fsum(((1 if b == a else 0) - w[b] / tot) ** 2 for b in range(V)))
        rhs[i] = float(logit_gradient_energy(z[None, :], np.array([a]))[0])
    return lhs, rhs


def _implementation_form_matches(V: int) -> bool:
    """Sympy: the form ``logit_gradient_energy`` evaluates, ``(1 − p_a)² + Σ_{b≠a} p_b²``
    with ``1 − p_a`` computed as ``Σ_{b≠a} p_b``, equals ``‖e_a − softmax(z)‖²`` for
    every ``a``.  Exact rational arithmetic in ``w_b = e^{z_b} > 0``
    (``p_b = w_b / Σ_c w_c``): the difference cancels to 0."""
    import sympy as sp

    w = sp.symbols(f"w0:{V}", positive=True)
    Z = sum(w)
    p = [wi / Z for wi in w]
    for a in range(V):
        others = [p[b] for b in range(V) if b != a]
        impl = sum(others) ** 2 + sum(pb ** 2 for pb in others)
        lhs = sum(((1 if b == a else 0) - p[b]) ** 2 for b in range(V))
        if sp.cancel(lhs - impl) != 0:
            return False
    return True


def prove_energy_identity(v_max: int = 6) -> bool:
    """Symbolic proof for ``V = 2..v_max``: the statement's two sides are equal
    (:func:`proofs_check.symbolic.prove_logit_energy_identity`) and so is the
    rearrangement that :func:`proofs_check.logits.logit_gradient_energy` computes."""
    return all(prove_logit_energy_identity(V) and _implementation_form_matches(V)
               for V in range(2, v_max + 1))


def dg_tail_bound(M: int, eps: float, *, exponent_factor: float = 1.0) -> float:
    """``2 exp(−f (M/2)(ε²/2 − ε³/3))``; ``f = 1`` is Dasgupta–Gupta."""
    return 2.0 * math.exp(-exponent_factor * (M / 2.0) * (eps ** 2 / 2 - eps ** 3 / 3))


def projected_sq_norm_ratio(M: int, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` independent draws of ``‖Πu‖²/‖u‖²`` for ``Π`` with i.i.d. ``N(0, 1/M)`` entries.

    For any fixed ``u``, ``Πu ~ N(0, ‖u‖² I_M / M)`` by rotation invariance, so
    the ratio is exactly ``χ²_M / M``; one draw per trial.
    """
    return rng.chisquare(M, size=n) / M


def dg_deviation_trials(rng: np.random.Generator, n: int, *, M: int, eps: float) -> dict:
    """``n`` trials of classical JL for one fixed vector: the ratio ``‖Πu‖²/‖u‖²``
    (:func:`projected_sq_norm_ratio`) and whether it deviates, ``|ratio − 1| > ε``."""
    r = projected_sq_norm_ratio(M, rng, n)
    return {"ratio": r, "deviates": np.abs(r - 1.0) > eps}


def count_deviations(stats) -> int:
    """Events of a chunk of :data:`DG_DEVIATION` (the claims' ``reduce``)."""
    return int(np.count_nonzero(stats["deviates"]))


#: The experiment behind ``selftest.dg_tail*`` and the e-value figure: M = 400, ε = 0.2.
DG_M, DG_EPS = 400, 0.2
DG_DEVIATION = Experiment(id="selftest.dg_deviation",
                          fn=functools.partial(dg_deviation_trials, M=DG_M, eps=DG_EPS),
                          chunk_size=1_000, params={"M": DG_M, "eps": DG_EPS})


def bernoulli_events(rng: np.random.Generator, n: int, *, p: float) -> int:
    """Number of events among ``n`` Bernoulli(p) trials (``rng.random(n) < p``)."""
    return int(np.count_nonzero(rng.random(n) < p))


