"""Hypothesis strategies for property-testing the toolkit's (and your) inequalities.

Strategies return NumPy arrays in the spec's interchange layout:

* :func:`probability_vectors` — points of the simplex (optionally bounded away
  from 0, or with exact zeros);
* :func:`logits` — finite logit vectors, including extreme ones (|z| up to 1e4);
* :func:`tabular_policies` — a list of ``T`` logit tables, depth ``t`` of shape
  ``(V**t, V)`` (spec README layout);
* :func:`policy_pairs` — ``(mu, pi)`` tabular policies, ``pi`` a perturbation
  of ``mu`` of a drawn size (from nearly equal to far apart);
* :func:`probability_pairs` — ``(p, q)`` on the same simplex.

:func:`inequality_test` turns ``lhs(x) ≤ rhs(x)`` over such inputs into a
Hypothesis test steered by :func:`hypothesis.target` toward the tight case::

    from proofs_check.strategies import probability_pairs, inequality_test
    test_pinsker = inequality_test(lambda pq: tv(*pq), lambda pq: (kl(*pq) / 2) ** 0.5,
                                   probability_pairs(min_prob=1e-6))
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from hypothesis import assume, given, settings, target
from hypothesis import strategies as st

from .engine.validate import check_int, check_real, shown

__all__ = ["probability_vectors", "probability_pairs", "logits", "tabular_policies",
           "policy_pairs", "inequality_test"]


def _size(name, v, lo, hi):
    """A size argument of a strategy (checked when the strategy draws: ``st.composite`` is lazy)."""
    return None if v is None else check_int(name, v, lo=lo, hi=hi)


def _finite(lo, hi):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


@st.composite
def logits(draw, V: int | None = None, *, min_V: int = 2, max_V: int = 16, max_abs: float = 1e4,
           extreme: bool = True) -> np.ndarray:
    """A finite logit vector of length ``V`` (drawn in ``[min_V, max_V]`` if None).

    With ``extreme`` a scale up to ``max_abs`` is drawn, so near-one-hot
    softmaxes (|z| ~ 1e4) are generated alongside moderate ones.
    """
    V, min_V, max_V = _size("V", V, 1, 10 ** 6), _size("min_V", min_V, 1, 10 ** 6), _size("max_V", max_V, 1, 10 ** 6)
    max_abs = check_real("max_abs", max_abs, lo=0.0)
    V = V if V is not None else draw(st.integers(min_V, max_V))
    base = np.array(draw(st.lists(_finite(-1.0, 1.0), min_size=V, max_size=V)))
    scale = draw(st.sampled_from([1.0, 3.0, 10.0]) | _finite(0.0, max_abs if extreme else 10.0))
    return base * scale


@st.composite
def probability_vectors(draw, V: int | None = None, *, min_V: int = 2, max_V: int = 8,
                        min_prob: float = 0.0) -> np.ndarray:
    """A point of the simplex of dimension ``V`` with every entry ≥ ``min_prob``.

    ``min_prob = 0`` allows exact zeros (and one-hot vectors).
    """
    V, min_V, max_V = _size("V", V, 1, 10 ** 6), _size("min_V", min_V, 1, 10 ** 6), _size("max_V", max_V, 1, 10 ** 6)
    min_prob = check_real("min_prob", min_prob, lo=0.0)
    V = V if V is not None else draw(st.integers(min_V, max_V))
    if not 0.0 <= min_prob < 1.0 / V:
        raise ValueError(f"min_prob must lie in [0, 1/V) = [0, {1.0 / V:g}), got {min_prob}")
    w = np.array(draw(st.lists(_finite(0.0, 1.0), min_size=V, max_size=V)))
    if w.sum() <= 0:
        w = np.zeros(V)
        w[draw(st.integers(0, V - 1))] = 1.0
    p = w / w.sum()
    p = min_prob + (1.0 - V * min_prob) * p
    return p / p.sum()


@st.composite
def probability_pairs(draw, V: int | None = None, *, min_V: int = 2, max_V: int = 8,
                      min_prob: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Two points ``(p, q)`` of the same simplex."""
    V = V if V is not None else draw(st.integers(min_V, max_V))
    return (draw(probability_vectors(V, min_prob=min_prob)),
            draw(probability_vectors(V, min_prob=min_prob)))


@st.composite
def tabular_policies(draw, V: int | None = None, T: int | None = None, *, max_V: int = 3,
                     max_T: int = 3, max_abs: float = 8.0) -> list[np.ndarray]:
    """Logit tables ``[z_0, …, z_{T−1}]`` with ``z_t`` of shape ``(V**t, V)``."""
    V, max_V = _size("V", V, 2, 64), _size("max_V", max_V, 2, 64)
    T, max_T = _size("T", T, 1, 16), _size("max_T", max_T, 1, 16)
    max_abs = check_real("max_abs", max_abs, lo=0.0)
    V = V if V is not None else draw(st.integers(2, max_V))
    T = T if T is not None else draw(st.integers(1, max_T))
    if T * math.log2(V) > 20:
        raise ValueError(f"tabular_policies draws V**T·V/(V−1) logits: V={V}, T={T} is above 2**20")
    tables = []
    for t in range(T):
        n = V ** t * V
        vals = draw(st.lists(_finite(-max_abs, max_abs), min_size=n, max_size=n))
        tables.append(np.array(vals).reshape(V ** t, V))
    return tables


@st.composite
def policy_pairs(draw, V: int | None = None, T: int | None = None, *, max_V: int = 3,
                 max_T: int = 3, max_shift: float = 2.0) -> tuple[list, list]:
    """``(mu, pi)`` tabular policies; ``pi = mu + s·u`` with ``u`` drawn in
    ``[−1, 1]`` per logit and ``s`` drawn in ``[0, max_shift]`` (so pairs range
    from identical to far apart)."""
    max_shift = check_real("max_shift", max_shift, lo=0.0)
    mu = draw(tabular_policies(V, T, max_V=max_V, max_T=max_T))
    s = draw(st.sampled_from([0.0, 1e-3, 0.05]) | _finite(0.0, max_shift))
    pi = []
    for z in mu:
        u = np.array(draw(st.lists(_finite(-1.0, 1.0), min_size=z.size, max_size=z.size)))
        pi.append(z + s * u.reshape(z.shape))
    return mu, pi


def inequality_test(lhs: Callable, rhs: Callable, strategy, *, rtol: float = 1e-9,
                    atol: float = 1e-12, max_examples: int = 200, label: str = "lhs/rhs"):
    """A Hypothesis test asserting ``lhs(x) ≤ rhs(x)·(1 + rtol) + atol`` for ``x`` drawn from ``strategy``.

    Each example reports ``target(lhs/rhs)`` so Hypothesis climbs toward the
    tight case, and a failure shrinks to a minimal counterexample.  Assign the
    returned function to a ``test_*`` name for pytest to collect it.
    """
    for name, fn in (("lhs", lhs), ("rhs", rhs)):
        if not callable(fn):
            raise TypeError(f"{name} must be a callable x ↦ float, got {shown(fn)}")
    if not isinstance(strategy, st.SearchStrategy):
        raise TypeError(f"strategy must be a Hypothesis SearchStrategy, got {shown(strategy)}")
    rtol = check_real("rtol", rtol, lo=0.0)
    atol = check_real("atol", atol, lo=0.0)
    max_examples = check_int("max_examples", max_examples, lo=1, hi=10 ** 7)
    if not isinstance(label, str):
        raise TypeError(f"label must be a string, got {shown(label)}")
    @settings(max_examples=max_examples, deadline=None)
    @given(strategy)
    def test(x):
        l, r = float(lhs(x)), float(rhs(x))
        assume(math.isfinite(l) and math.isfinite(r))
        if r > 0:
            target(l / r, label=label)
        assert l <= r * (1 + rtol) + atol, f"{label}: lhs={l!r} > rhs={r!r} at x={x!r}"

    return test
