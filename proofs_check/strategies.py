"""Hypothesis strategies for property-testing the toolkit's (and your) inequalities.

Strategies return NumPy arrays in the project's interchange layout (``docs/theory/mismatch.md#enumeration``):

* :func:`probability_vectors` — points of the simplex (optionally bounded away
  from 0, or with exact zeros);
* :func:`logits` — finite logit vectors, including extreme ones (|z| up to 1e4);
* :func:`tabular_policies` — a list of ``T`` logit tables, depth ``t`` of shape
  ``(V**t, V)`` (that layout);
* :func:`policy_pairs` — ``(mu, pi)`` tabular policies, ``pi`` a perturbation
  of ``mu`` of a drawn size (from nearly equal to far apart);
* :func:`probability_pairs` — ``(p, q)`` on the same simplex.

:func:`inequality_test` turns ``lhs(x) ≤ rhs(x)`` over such inputs into a
Hypothesis test steered by :func:`hypothesis.target` toward the tight case;
given a declared inequality claim (:func:`proofs_check.inequality`) instead,
it draws from the claim's domain (:func:`from_claim`, :func:`from_domain`)
and a failure reports what ``theorycheck verify`` reports — the margin
``lhs − rhs`` and the counterexample shrunk by the engine
(:mod:`proofs_check.engine.shrink`) with its reproduce line::

    from proofs_check.strategies import probability_pairs, inequality_test
    test_pinsker = inequality_test(lambda pq: tv(*pq), lambda pq: (kl(*pq) / 2) ** 0.5,
                                   probability_pairs(min_prob=1e-6))
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from hypothesis import Phase, assume, given, settings, target
from hypothesis import strategies as st

from .engine.validate import check_int, check_real, shown

__all__ = ["probability_vectors", "probability_pairs", "logits", "tabular_policies",
           "policy_pairs", "inequality_test", "from_domain", "from_claim"]


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


def from_domain(domain) -> st.SearchStrategy:
    """A Hypothesis strategy drawing points θ (flat arrays) of a claim domain
    (:class:`proofs_check.Box`, :class:`~proofs_check.Simplex` or any
    :class:`~proofs_check.Domain`).

    A box draws each coordinate from its interval (integers for integer
    coordinates; Hypothesis shrinks toward the interval's simplest value); a
    simplex draws each vector with :func:`probability_vectors`; another domain
    draws a seed and calls its sampler (shrinking then only changes the seed).
    Every point passes through the domain's ``project``."""
    from .declare import Box, Domain, Simplex

    if not isinstance(domain, Domain):
        raise TypeError(f"domain must be a Box, Simplex or Domain, got {shown(domain)}")
    if isinstance(domain, Box):
        parts = [st.integers(int(math.ceil(lo)), int(math.floor(hi))).map(float) if is_int
                 else _finite(float(lo), float(hi))
                 for lo, hi, is_int in zip(domain.lo, domain.hi, domain.integer_mask)]
        return st.tuples(*parts).map(lambda t: domain.project(np.array(t, dtype=float)))
    if isinstance(domain, Simplex):
        one = probability_vectors(domain.k, min_prob=domain.min_prob)
        return st.tuples(*[one] * domain.count).map(lambda t: domain.project(np.concatenate(t)))
    return st.integers(0, 2 ** 32 - 1).map(lambda s: domain.project(domain.sample(np.random.default_rng(s))))


def from_claim(claim) -> st.SearchStrategy:
    """The points of an inequality claim's domain as a Hypothesis strategy: its
    declared domain (:func:`from_domain`) or, for an engine claim, seeds fed
    to its ``sample(rng)``."""
    import functools

    from .declare import _domain_sample
    from .engine.kinds import InequalityClaim

    if not isinstance(claim, InequalityClaim):
        raise TypeError(f"claim must be an inequality claim, got {shown(claim)}")
    sample = claim.sample
    if isinstance(sample, functools.partial) and sample.func is _domain_sample:
        return from_domain(sample.args[0])
    return st.integers(0, 2 ** 32 - 1).map(lambda s: np.asarray(sample(np.random.default_rng(s)), dtype=float).ravel())


class _Violation(AssertionError):
    """A confirmed violation at ``theta`` (raised inside the Hypothesis test)."""

    def __init__(self, msg, theta):
        super().__init__(msg)
        self.theta = theta


def _claim_test(claim, max_examples: int):
    """:func:`inequality_test` for a claim: the engine's violation rule, its
    mpmath confirmation, and — on the example Hypothesis shrank to — the
    engine's own shrinking and report."""
    from .engine.search import confirm_mp, violates
    from .engine.registry import claim_origin
    from .engine.shrink import complexity, reproduce_line, shrink

    strategy = from_claim(claim)

    # no "explain" phase: the engine's shrinker explains the failure (and the phase costs ~1000 runs)
    @settings(max_examples=max_examples, deadline=None,
              phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])
    @given(strategy)
    def search(theta):
        l, r = claim.evaluate(theta)
        l, r = float(l), float(r)
        assume(math.isfinite(l) and math.isfinite(r))
        if r > 0:
            target(l / r, label=claim.id)
        if not violates(l, r, claim.atol, claim.rtol):
            return
        if claim.evaluate_mp is not None and not confirm_mp(claim.evaluate_mp, theta, claim.atol, claim.rtol)[0]:
            return                                   # a rounding artefact, as in the engine
        raise _Violation(f"{claim.id}: lhs − rhs = {l - r!r} > 0 at θ = {theta.tolist()!r}", theta)

    def test():
        __tracebackhide__ = True
        try:
            search()
        except _Violation as exc:
            if claim.default_point is None:
                raise AssertionError(str(exc)) from None
            sh = shrink(claim, exc.theta)
            shown_point = claim.describe_point(sh.theta) if claim.describe_point else sh.theta.tolist()
            raise AssertionError(
                f"{claim.id}: counterexample (shrunk; {complexity(sh.theta, claim.default_point)[0]} "
                f"coordinate(s) off their default) {shown_point}: lhs = {sh.lhs!r}, rhs = {sh.rhs!r}, "
                f"margin lhs − rhs = {sh.margin!r}\n  reproduce: {reproduce_line(claim, sh.theta, origin=claim_origin(claim.id))}") from None

    test.__name__ = test.__qualname__ = f"test_{claim.id.replace('.', '_')}"
    return test


def inequality_test(lhs, rhs: Callable | None = None, strategy=None, *, rtol: float = 1e-9,
                    atol: float = 1e-12, max_examples: int = 200, label: str = "lhs/rhs"):
    """A Hypothesis test asserting ``lhs(x) ≤ rhs(x)·(1 + rtol) + atol`` for ``x`` drawn from ``strategy``.

    Each example reports ``target(lhs/rhs)`` so Hypothesis climbs toward the
    tight case, and a failure shrinks to a minimal counterexample.  Assign the
    returned function to a ``test_*`` name for pytest to collect it.

    ``inequality_test(claim)`` with a declared inequality claim draws from its
    domain and applies the engine's rule (``lhs − rhs > atol + rtol·|rhs|``,
    confirmed in mpmath when the claim can); a failure reports the margin and
    the engine's shrunk counterexample with its ``reproduce`` line.
    """
    from .engine.kinds import InequalityClaim

    if isinstance(lhs, InequalityClaim):
        if rhs is not None or strategy is not None:
            raise TypeError("inequality_test(claim) takes no rhs or strategy: they come from the claim")
        return _claim_test(lhs, check_int("max_examples", max_examples, lo=1, hi=10 ** 7))
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
        assert l <= r * (1 + rtol) + atol, f"{label}: lhs={l!r} > rhs={r!r} (margin lhs − rhs = {l - r!r}) at x={x!r}"

    return test
