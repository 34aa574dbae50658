"""Domains of inequality and identity claims: the sets a claim quantifies over, once for the
search, the 50-digit confirmation and the ball-arithmetic certifier
(``docs/theory/engine.md#unbounded``, §4; issue 31, "Domains in one module").

* :class:`Domain` — named coordinates and a sampler (the general case);
* :class:`Box` — a product of closed ranges ``[lo_i, hi_i]`` (an end may be infinite), some
  coordinates possibly integers (``integer=``); its ends are floats taken as the binary numbers
  they store, in every evaluator;
* :class:`Simplex` — ``count`` probability vectors of dimension ``k``.

What a point of the domain is, and what follows from it, is decided here and nowhere else:

* :func:`check_in_domain` — a point outside the domain (a range, an integer coordinate, a
  simplex) is refused, so no path accepts a counterexample there;
* :func:`integer_names` — the coordinates a certifier must take slice by slice;
* :func:`implied_assumptions` / :func:`check_assumptions` — the SymPy assumptions a box
  implies for each coordinate, and the refusal of a symbol whose declared assumptions are
  not implied (SymPy applies them when an expression is built: ``sqrt(x**2)`` is already
  ``x`` for ``Symbol("x", positive=True)``, so a box where ``x < 0`` would make a proof of
  the rewritten side a proof of another statement);
* :func:`engine_certifier` / :class:`CheckedCertifier` — the ball-arithmetic certifier of a
  claim on a box (integer coordinates slice by slice), accepting a counterexample only in
  the domain, and an ``arb=`` twin only where it is the callables' function.

The functions the engine calls with a domain bound (:func:`_domain_sample`,
:func:`_domain_project`, …) are module-level so that claims stay picklable.
"""
from __future__ import annotations

import functools
import math
import numbers
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .engine.shrink import point_from_names
from .engine.validate import shown

__all__ = ["Domain", "Box", "Simplex", "UNBOUNDED_DECADES", "check_in_domain", "in_domain", "integer_names",
           "implied_assumptions", "check_assumptions", "engine_certifier", "CheckedCertifier"]


# ---------------------------------------------------------------------------
# Domains


class Domain:
    """A domain of an inequality or identity: named coordinates and a sampler.

    ``sample(rng) -> θ`` draws a flat float vector of ``len(names)``
    coordinates; ``names`` name them (``"x"`` or ``"p[2]"``); ``default`` is
    the point shrinking moves coordinates to (a counterexample's
    "non-default" coordinates are the ones that matter); ``project(θ) -> θ``
    maps a perturbed point back into the domain; ``blocks`` groups
    coordinates into the named arguments of ``lhs``/``rhs`` (a scalar block
    passes a float, a vector block an array).  :class:`Box` and
    :class:`Simplex` are the common cases.
    """

    def __init__(self, sample: Callable[[np.random.Generator], Any], names: Sequence[str], *,
                 default: Sequence[float] | None = None, project: Callable | None = None,
                 blocks: Mapping[str, Sequence[int] | int] | None = None):
        if not callable(sample):
            raise TypeError(f"sample must be a function rng -> point, got {shown(sample)}")
        if isinstance(names, str) or not isinstance(names, Sequence) or not names \
                or not all(isinstance(n, str) and n for n in names):
            raise TypeError(f"names must be a non-empty sequence of coordinate names, got {shown(names)}")
        if len(set(names)) != len(names):
            raise ValueError(f"names must be distinct, got {list(names)}")
        self._sample = sample
        self.names = tuple(names)
        d = np.zeros(len(names)) if default is None else np.asarray(default, dtype=float).ravel()
        if d.shape != (len(names),) or not np.all(np.isfinite(d)):
            raise ValueError(f"default must be {len(names)} finite numbers (one per coordinate), got {shown(default)}")
        self.default = d
        if project is not None and not callable(project):
            raise TypeError(f"project must be a function θ -> θ or None, got {shown(project)}")
        self._project = project
        if blocks is None:
            blocks = {n: i for i, n in enumerate(self.names)}
        self.blocks = {str(k): (int(v) if isinstance(v, numbers.Integral) else tuple(int(i) for i in v))
                       for k, v in blocks.items()}

    @property
    def size(self) -> int:
        return len(self.names)

    def sample(self, rng) -> np.ndarray:
        return np.asarray(self._sample(rng), dtype=float).ravel()

    def project(self, theta) -> np.ndarray:
        theta = np.asarray(theta, dtype=float).ravel()
        return theta if self._project is None else np.asarray(self._project(theta), dtype=float).ravel()

    def unpack(self, theta) -> dict:
        """The named arguments of ``lhs``/``rhs`` at ``θ``."""
        theta = np.asarray(theta, dtype=float).ravel()
        return {k: (float(theta[v]) if isinstance(v, int) else theta[list(v)].copy())
                for k, v in self.blocks.items()}

    def describe(self, theta) -> dict:
        """``{coordinate name: value}`` — how a point is printed."""
        theta = np.asarray(theta, dtype=float).ravel()
        return {n: float(v) for n, v in zip(self.names, theta)}

    def simplify(self, theta) -> Iterable[np.ndarray]:
        """Domain-specific simpler points (e.g. of smaller dimension); none by default."""
        return ()

    def parse_point(self, point) -> np.ndarray:
        """A full θ from a list of all coordinates or a ``{name: value}`` dict
        (unnamed coordinates take their default)."""
        if isinstance(point, Mapping):
            return point_from_names(point, self.names, self.default)
        theta = np.asarray(point, dtype=float).ravel()
        if theta.shape != (self.size,):
            raise ValueError(f"point must have {self.size} coordinates, got {theta.size}")
        return theta

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self.names[:6])}{', …' if self.size > 6 else ''})"


#: Decades spanned by the log-uniform half of an unbounded coordinate's offsets
#: (:meth:`Box.offsets`): ``10^v``, ``v`` uniform on this interval.
UNBOUNDED_DECADES = (-8.0, 8.0)


def _no_sampler(rng):
    """Placeholder sampler of :class:`Box` and :class:`Simplex`, which override ``sample``;
    never called."""
    raise NotImplementedError("Box and Simplex draw points in their own sample method")


class Box(Domain):
    """A box of named coordinates, sampled uniformly.

    ``Box(a=(0, 1), b=(-2, 2))`` has two scalar coordinates; ``Box(x=(-1, 1, 10))``
    a vector block ``x`` of 10 coordinates (passed to ``lhs``/``rhs`` as an
    array; printed as ``x[0]`` … ``x[9]``).  ``default`` (a number per block,
    or a dict) is where shrinking moves a coordinate: 0 when the range
    contains it, else the range's finite end nearest to 0.  ``integer`` names
    blocks whose values are rounded to integers: their points are the integers of the
    range, for the search, :func:`check_in_domain` (so ``reproduce``) and the certifier,
    which takes such a coordinate slice by slice (a counterexample at ``n = 1/2`` is no
    counterexample).

    **Ends are binary numbers.**  Each end is a Python float, taken as the binary number
    it stores: ``Box(x=(0, 0.1))`` ends at ``0.1000000000000000055511151231257827…``, the
    double nearest to 1/10.  A float literal in a SymPy side means the same number
    (:func:`proofs_check.engine.expr.as_expr`), so ``x ≤ 0.1`` holds on that box in the
    search, the 50-digit confirmation and the certifier alike.  For the exact decimal write
    ``sympy.Rational(1, 10)`` in the side (the box end stays the double).

    **Unbounded ranges.**  An end may be infinite: ``Box(x=(0, np.inf))`` is the
    half-line ``x ≥ 0``, ``(-np.inf, 1)`` the half-line ``x ≤ 1`` and
    ``(-np.inf, np.inf)`` the real line — "for all x ≥ 0" needs no arbitrary cap.
    Uniform sampling is impossible there, so such a coordinate is sampled as its
    finite end ``a`` plus (or minus) a scale-free offset ``t``
    (:meth:`offsets`): with probability ½ ``t = 10^v``, ``v`` uniform on
    :data:`UNBOUNDED_DECADES` (every scale from 1e-8 to 1e8 equally often), else
    ``t ~ Exponential(1)`` (the unit scale, densely); on the real line ``±t``
    with a random sign.  The local search then climbs from those points as on a
    bounded range.  What this does *not* give: points beyond ``1e8`` from the
    finite end are rarely drawn (a violation only at larger ``x`` may be
    missed: shift or rescale the coordinate), and a "holds" verdict on an
    unbounded range is always a search, never a proof — the ball-arithmetic
    certifier needs a bounded box, so SymPy sides on such a Box are searched and
    not certified (``docs/theory/engine.md#unbounded``, §4).
    """

    def __init__(self, *, default: Mapping[str, float] | None = None, integer: Sequence[str] = (), **coords):
        if not coords:
            raise ValueError("Box needs at least one coordinate, e.g. Box(x=(0, 1))")
        names, blocks, lo, hi, dflt = [], {}, [], [], []
        default = dict(default or {})
        integer = tuple(integer)
        for k in integer:
            if k not in coords:
                raise ValueError(f"integer names {k!r}, which is not a coordinate of the Box ({list(coords)})")
        for k in default:
            if k not in coords:
                raise ValueError(f"default names {k!r}, which is not a coordinate of the Box ({list(coords)})")
        for name, spec in coords.items():
            if not isinstance(spec, (tuple, list)) or len(spec) not in (2, 3):
                raise TypeError(f"coordinate {name} must be (lo, hi) or (lo, hi, size), got {shown(spec)}")
            a, b = float(spec[0]), float(spec[1])
            if math.isnan(a) or math.isnan(b) or not a < b or a == math.inf or b == -math.inf:
                raise ValueError(f"coordinate {name}: need lo < hi (an end may be infinite, e.g. (0, np.inf) "
                                 f"for x ≥ 0), got {shown(spec)}")
            size = None if len(spec) == 2 else int(spec[2])
            if size is not None and size < 1:
                raise ValueError(f"coordinate {name}: size must be ≥ 1, got {spec[2]!r}")
            d = float(default.get(name, 0.0 if a <= 0.0 <= b else a if math.isfinite(a) else b))
            if not math.isfinite(d):
                raise ValueError(f"coordinate {name}: default must be finite, got {d}")
            if not a <= d <= b:
                raise ValueError(f"coordinate {name}: default {d} lies outside [{a}, {b}]")
            start = len(names)
            if size is None:
                names.append(name)
                blocks[name] = start
            else:
                names += [f"{name}[{i}]" for i in range(size)]
                blocks[name] = tuple(range(start, start + size))
            n = 1 if size is None else size
            lo += [a] * n
            hi += [b] * n
            dflt += [d] * n
        self.lo, self.hi = np.array(lo), np.array(hi)
        self.integer_mask = np.array([any(n == k or n.startswith(k + "[") for k in integer) for n in names],
                                     dtype=bool)
        super().__init__(_no_sampler, names, default=dflt, blocks=blocks)

    @property
    def bounded(self) -> bool:
        """Whether every range is finite (a closed bounded box)."""
        return bool(np.all(np.isfinite(self.lo)) and np.all(np.isfinite(self.hi)))

    @staticmethod
    def offsets(rng, n: int) -> np.ndarray:
        """``n`` scale-free offsets ``t > 0`` for unbounded ranges: ``10^v`` with ``v``
        uniform on :data:`UNBOUNDED_DECADES` or ``Exponential(1)``, half and half."""
        v = 10.0 ** rng.uniform(*UNBOUNDED_DECADES, size=n)
        e = rng.exponential(1.0, size=n)
        return np.where(rng.random(n) < 0.5, v, e)

    def sample(self, rng) -> np.ndarray:
        if self.bounded:
            return self.project(rng.uniform(self.lo, self.hi))
        lo_ok, hi_ok = np.isfinite(self.lo), np.isfinite(self.hi)
        both = lo_ok & hi_ok
        x = np.empty(self.lo.shape)
        x[both] = rng.uniform(self.lo[both], self.hi[both])
        t = self.offsets(rng, x.size)
        up, down, line = lo_ok & ~hi_ok, ~lo_ok & hi_ok, ~lo_ok & ~hi_ok
        x[up] = self.lo[up] + t[up]
        x[down] = self.hi[down] - t[down]
        x[line] = np.where(rng.random(x.size) < 0.5, -1.0, 1.0)[line] * t[line]
        return self.project(x)

    def project(self, theta) -> np.ndarray:
        theta = np.clip(np.asarray(theta, dtype=float).ravel(), self.lo, self.hi)
        if self.integer_mask.any():
            theta[self.integer_mask] = np.clip(np.round(theta[self.integer_mask]),
                                               np.ceil(self.lo[self.integer_mask]),
                                               np.floor(self.hi[self.integer_mask]))
        return theta


class Simplex(Domain):
    """``count`` probability vectors of dimension ``k`` (e.g. ``(p, q)`` for a
    divergence inequality), each entry ≥ ``min_prob``.

    Sampled from the flat Dirichlet mixed with sparse and near-one-hot draws;
    the default point is the uniform distribution; shrinking may remove an
    outcome (set it to ``min_prob`` in every vector and renormalise — a
    smaller dimension).
    """

    def __init__(self, k: int, *, names: Sequence[str] = ("p",), min_prob: float = 0.0):
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 2 <= k <= 10_000:
            raise ValueError(f"k must be an integer in [2, 10000], got {shown(k)}")
        if isinstance(names, str):
            names = (names,)
        if (not isinstance(names, (tuple, list)) or not names
                or not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names)):
            raise TypeError(f"names must be a string or a non-empty sequence of distinct non-empty strings, "
                            f"got {shown(names)}")
        if isinstance(min_prob, bool) or not isinstance(min_prob, numbers.Real):
            raise TypeError(f"min_prob must be a real number in [0, 1/k), got {shown(min_prob)}")
        min_prob = float(min_prob)
        if not 0.0 <= min_prob < 1.0 / k:
            raise ValueError(f"min_prob must lie in [0, 1/k) = [0, {1.0 / k:g}), got {min_prob}")
        self.k, self.count, self.min_prob = int(k), len(names), min_prob
        flat = [f"{n}[{i}]" for n in names for i in range(k)]
        blocks = {n: tuple(range(j * k, (j + 1) * k)) for j, n in enumerate(names)}
        super().__init__(_no_sampler, flat, default=np.full(len(flat), 1.0 / k), blocks=blocks)

    def sample(self, rng) -> np.ndarray:
        alpha = [1.0, 0.3, 0.05][int(rng.integers(3))]
        return self.project(rng.dirichlet(np.full(self.k, alpha), size=self.count).ravel())

    def project(self, theta) -> np.ndarray:
        t = np.abs(np.asarray(theta, dtype=float).reshape(self.count, self.k))
        if np.all(np.abs(t.sum(axis=1) - 1.0) <= 1e-12) and t.min() >= self.min_prob:
            return t.ravel()                          # already in the simplex: keep its digits
        t = t / np.maximum(t.sum(axis=1, keepdims=True), np.finfo(float).tiny)
        t = self.min_prob + (1.0 - self.k * self.min_prob) * t
        return (t / t.sum(axis=1, keepdims=True)).ravel()

    def simplify(self, theta):
        """Simpler points: a vector reset to uniform; a vector rounded to 1, 2 or 3
        decimals (its largest entry takes the remainder); an outcome removed."""
        t = np.asarray(theta, dtype=float).reshape(self.count, self.k)
        for v in range(self.count):
            if not np.all(t[v] == 1.0 / self.k):
                s = t.copy()
                s[v] = 1.0 / self.k
                yield s.ravel()
        for v in range(self.count):
            for d in (1, 2, 3):
                r = np.maximum(np.round(t[v], d), self.min_prob)
                i = int(np.argmax(r))
                r[i] = round(1.0 - (r.sum() - r[i]), 12)       # 0.6, not 0.6000000000000001
                if r[i] >= self.min_prob and not np.array_equal(r, t[v]):
                    s = t.copy()
                    s[v] = r
                    yield s.ravel()
        for j in range(self.k):
            if np.all(t[:, j] <= self.min_prob):
                continue
            s = t.copy()
            s[:, j] = 0.0
            if np.all(s.sum(axis=1) > 0):
                yield self.project(s.ravel())


# ---------------------------------------------------------------------------
# the functions the engine calls (module level: picklable)


def _domain_sample(domain, rng):
    return domain.sample(rng)


def _domain_project(domain, theta):
    return domain.project(theta)


def _domain_describe(domain, theta):
    return domain.describe(theta)


def _domain_simplify(domain, theta):
    return list(domain.simplify(theta))


def check_in_domain(claim, theta) -> None:
    """``ValueError`` naming the coordinate, its value and the domain when ``theta`` lies
    outside ``claim``'s domain (a violation there says nothing about the claim).  A
    :class:`Box` is checked coordinate by coordinate against its ranges (and its integer
    blocks); any other domain, or a claim's own ``project``, by projection: a point of the
    domain is a fixed point of ``project`` (up to rounding: relative 1e-9, absolute 1e-12).
    A claim with no ``project`` cannot be checked."""
    theta = np.asarray(theta, dtype=float).ravel()
    project = claim.project
    domain = (project.args[0] if isinstance(project, functools.partial) and project.func is _domain_project
              and project.args else None)
    names = (list(claim.coordinates) if claim.coordinates is not None and len(claim.coordinates) == theta.size
             else [f"θ[{i}]" for i in range(theta.size)])
    why = "; a violation outside the domain says nothing about the claim"
    if isinstance(domain, Box):
        for i, (v, lo, hi) in enumerate(zip(theta.tolist(), domain.lo.tolist(), domain.hi.tolist())):
            if not lo <= v <= hi:
                raise ValueError(f"point {names[i]} = {v!r} lies outside the domain of claim {claim.id}: "
                                 f"{names[i]} ∈ [{lo!r}, {hi!r}]{why}")
            if domain.integer_mask[i] and v != round(v):
                raise ValueError(f"point {names[i]} = {v!r} lies outside the domain of claim {claim.id}: "
                                 f"{names[i]} is an integer in [{lo!r}, {hi!r}]{why}")
        return
    if project is None:
        return
    projected = np.asarray(project(theta.copy()), dtype=float).ravel()
    if projected.shape != theta.shape:
        return
    off = ~np.isclose(projected, theta, rtol=1e-9, atol=1e-12)
    if off.any():
        i = int(np.argmax(off))
        what = (f"{type(domain).__name__} of {domain.k} outcomes with entries ≥ {domain.min_prob:g} summing "
                f"to 1" if isinstance(domain, Simplex) else repr(domain) if domain is not None
                else "the set its project() maps to")
        raise ValueError(f"point {names[i]} = {float(theta[i])!r} lies outside the domain of claim {claim.id} "
                         f"({what}): projected into it, {names[i]} would be {float(projected[i])!r}{why}")


# ---------------------------------------------------------------------------
# what a box implies for one coordinate


def integer_names(domain) -> tuple:
    """The coordinates of ``domain`` that take integer values only (a :class:`Box`'s
    ``integer=`` blocks, by coordinate name); ``()`` for any other domain."""
    if not isinstance(domain, Box):
        return ()
    return tuple(n for n, m in zip(domain.names, domain.integer_mask.tolist()) if m)


def implied_assumptions(lo: float, hi: float, integer: bool = False) -> dict:
    """The SymPy assumptions that hold for every value of a coordinate ranging over
    ``[lo, hi]`` (``integer``: integer values only), as keyword arguments of
    ``sympy.Symbol``: ``real`` always (SymPy's ``real`` includes ``finite``: every point of a
    range, even an unbounded one, is a finite real number); ``positive`` when ``lo > 0``,
    ``nonnegative`` when ``lo ≥ 0``, ``negative`` when ``hi < 0``, ``nonpositive`` when
    ``hi ≤ 0``, ``nonzero`` when ``0 ∉ [lo, hi]``, ``integer`` for an integer coordinate.
    SymPy closes them under its own rules (``Symbol(name, **facts).assumptions0``)."""
    from .engine.certify import implied_facts

    return implied_facts(float(lo), float(hi), integer)


#: What to change in the box for a refused assumption (the hint of :func:`check_assumptions`).
_FIX = {"positive": "a box with lo > 0", "nonnegative": "a box with lo ≥ 0", "negative": "a box with hi < 0",
        "nonpositive": "a box with hi ≤ 0", "nonzero": "a box that excludes 0", "zero": "no such box",
        "integer": "integer=[…] naming it in the Box"}


#: Assumptions about integrality (the range note of :func:`check_assumptions` says "real values").
_INTEGER_LIKE = ("integer", "rational", "algebraic", "even", "odd", "prime", "composite", "noninteger",
                 "irrational", "transcendental")


def _range_of(domain, name):
    """``(lo, hi, integer)`` of the scalar coordinate ``name``, or ``None`` when the domain
    gives no range for it (a :class:`Domain` other than a :class:`Box`)."""
    if isinstance(domain, Box) and name in domain.names:
        i = domain.names.index(name)
        return float(domain.lo[i]), float(domain.hi[i]), bool(domain.integer_mask[i])
    return None


def check_assumptions(cid, domain, exprs, what: str = "the sides") -> None:
    """Refuse SymPy expressions whose free symbols carry assumptions the domain does not imply.

    For each free symbol of ``exprs`` (a coordinate of ``domain``), every fact in
    ``symbol.assumptions0`` must hold in ``sympy.Symbol(name, **implied).assumptions0``
    (:func:`implied_assumptions` of the coordinate's range; only ``real`` on a domain that is
    not a :class:`Box`).  SymPy uses a symbol's assumptions when the expression is *built*
    (``sqrt(x**2) → x`` for ``positive=True``, ``sin(pi*n) → 0`` for ``integer=True``), so an
    assumption the domain does not imply has already turned the side into another function
    there: ``ValueError`` naming the claim, the symbol, the assumption, the range and the
    fix.  A plain ``Symbol("x")`` or ``Symbol("x", real=True)`` is always accepted."""
    import sympy as sp

    for expr in exprs:
        if not isinstance(expr, sp.Basic):
            continue
        for sym in sorted(expr.free_symbols, key=lambda s: s.name):
            rng = _range_of(domain, sym.name)
            implied = implied_assumptions(*rng) if rng is not None else {"real": True}
            allowed = sp.Symbol(sym.name, **implied).assumptions0
            bad = {k: v for k, v in sym.assumptions0.items() if allowed.get(k) != v}
            if not bad:
                continue
            orig = getattr(sym, "_assumptions_orig", None) or {}
            named = [k for k in orig if k in bad] or sorted(bad)
            key = named[0]
            if rng is None:
                where = f"the domain {domain!r} gives no range for {sym.name}"
            else:
                lo, hi, integer = rng
                where = (f"the box gives {sym.name} ∈ [{lo!r}, {hi!r}]"
                         + (" (integers)" if integer else " (real values)" if key in _INTEGER_LIKE else ""))
            fix = _FIX.get(key, "a domain where it holds")
            raise ValueError(
                f"claim {cid!r}: the symbol {sym.name} in {what} is declared {key}={bad[key]!r}, but {where}: "
                f"SymPy has already used that assumption to rewrite the expression (it now reads "
                f"{shown(str(expr), 120)}), so a verdict would be about another statement; declare "
                f"{sym.name} = Symbol({sym.name!r}) (or real=True), or {fix}")


def in_domain(domain, theta) -> bool:
    """Whether ``theta`` (a flat vector) is a point of ``domain``: within a :class:`Box`'s
    ranges with integral integer coordinates, or a fixed point of ``project`` (relative
    1e-9, absolute 1e-12) for any other domain."""
    theta = np.asarray(theta, dtype=float).ravel()
    if theta.shape != (domain.size,) or not np.all(np.isfinite(theta)):
        return False
    if isinstance(domain, Box):
        if np.any(theta < domain.lo) or np.any(theta > domain.hi):
            return False
        ints = theta[domain.integer_mask]
        return bool(np.all(ints == np.round(ints)))
    return bool(np.allclose(domain.project(theta.copy()), theta, rtol=1e-9, atol=1e-12))


# ---------------------------------------------------------------------------
# the certifier of a claim on a box, with the premises that make its verdict the claim's


def unmentioned_coordinates(domain, *sides) -> list:
    """The coordinates of ``domain`` that no side mentions.  SymPy may drop a symbol when it
    builds an expression under the symbol's assumptions (``sin(pi*n) → 0`` for an integer
    ``n``, ``sign(x)**2 → 1`` for a nonzero ``x``), after which no check can see what was
    assumed.  A statement that mentions no coordinate at all is searched, never proved
    (:func:`engine_certifier`); one that lost some coordinates says so in its notes (the
    statement proved does not depend on them)."""
    from .engine.expr import as_expr, free_names

    used = set().union(*(free_names(as_expr(e)) for e in sides)) if sides else set()
    return [n for n in domain.names if n not in used]


def engine_certifier(relation, domain, lhs, rhs, **kw):
    """:class:`proofs_check.engine.certify.Certifier` of ``lhs relation rhs`` on the bounded
    :class:`Box` ``domain`` (its ends taken as the binary numbers they store), its integer
    coordinates certified slice by slice (``integer=``); ``None`` when the box has integer
    coordinates and the certifier cannot take them (then a proof on the reals could refute
    at a point outside the domain: the claim is searched, not certified), and when no coordinate
    of the box appears in either side (:func:`unmentioned_coordinates`)."""
    import inspect

    from .engine.certify import Certifier

    if len(unmentioned_coordinates(domain, lhs, rhs)) == len(domain.names):
        return None                     # a statement about no coordinate at all: nothing to prove on the box
    ints = integer_names(domain)
    if ints:
        if "integer" not in inspect.signature(Certifier).parameters:
            return None
        kw["integer"] = ints
    return Certifier(relation, lhs, rhs, domain.names, [float(v) for v in domain.lo],
                     [float(v) for v in domain.hi], **kw)


#: Points at which :class:`CheckedCertifier` compares callables with their ``arb=`` twin
#: (besides the domain's default point and the search's worst point).
TWIN_POINTS = 64
#: Agreement of a callable and its twin at one point: ``|f − t| ≤ TWIN_RTOL·max(|t|, |f|,
#: TWIN_FLOOR·M)``, ``M`` the side's largest magnitude over the points checked.
TWIN_RTOL = 1e-9
TWIN_FLOOR = 1e-3
#: Digits of the twin's evaluation.
TWIN_DPS = 50


class CheckedCertifier:
    """A claim's ball-arithmetic certifier with the premises that make its verdict the claim's.

    ``CheckedCertifier(certifier, domain, sides=None, twin=None, mp=None, atol=0, rtol=0)()``
    runs ``certifier`` (:class:`proofs_check.engine.certify.Certifier`) and returns its
    :class:`~proofs_check.engine.certify.Certificate`, except that a refutation is accepted
    only when its counterexample is a point of ``domain`` (:func:`.domains.in_domain`: within
    the ranges, integral on an integer coordinate) and — for callables with an ``arb=`` twin
    (``sides`` the float callables, ``twin`` the twin's expression texts) — when the
    callables violate there too (``lhs − rhs > atol + rtol·|rhs|`` in float64, or at 50
    digits through ``mp``, the user's ``lhs_mp``/``rhs_mp``); otherwise the certificate is
    ``undecided`` with the reason.

    :meth:`premise_failure` (called by :func:`proofs_check.engine.certify.upgrade` before a
    proof is accepted) checks that the twin is the callables' function: at the domain's
    default point, :data:`TWIN_POINTS` seeded random points and the search's worst point,
    each side of the callables (float64) and of the twin (mpmath, :data:`TWIN_DPS` digits)
    agree to float rounding (:data:`TWIN_RTOL`, :data:`TWIN_FLOOR`).  A disagreement is
    named (point, both values): the twin's proof would be a proof of another function, so
    the claim stays searched (issue 31, "one source of truth per claim").  Sampling finds a
    disagreement only where it samples: a twin that differs on a window none of these points
    reaches is not seen — derive the sides from one SymPy expression to rule that out."""

    def __init__(self, certifier, domain, *, sides=None, twin=None, mp=None, atol: float = 0.0,
                 rtol: float = 0.0):
        self.certifier = certifier
        self.domain = domain
        self.sides = None if sides is None else tuple(sides)
        self.twin = None if twin is None else tuple(str(t) for t in twin)
        self.mp = None if mp is None else tuple(mp)
        self.atol, self.rtol = float(atol), float(rtol)

    @property
    def proves_claim(self) -> bool:
        """Whether a proof by the certifier is a proof of the claim: yes when the certified
        expressions are the claim's sides, no for an ``arb=`` twin of callables (agreement at
        sampled points is evidence, not identity: :func:`proofs_check.engine.certify.upgrade`
        keeps such a claim searched)."""
        return self.sides is None or self.twin is None

    def __repr__(self) -> str:
        return f"CheckedCertifier({self.certifier!r}{', twin of callables' if self.sides else ''})"

    # -- the twin is the callables' function --------------------------------------------

    def _twin_values(self, theta):
        import mpmath

        from .engine.expr import MpEvaluator
        from .engine.search import MP_LOCK

        evs = self.__dict__.get("__twin")
        if evs is None:
            import sympy as sp

            loc = {n: sp.Symbol(n) for n in self.domain.names}
            evs = [MpEvaluator([sp.sympify(t, locals=loc)], self.domain.names) for t in self.twin]
            self.__dict__["__twin"] = evs
        kw = {n: mpmath.mpf(float(v)) for n, v in zip(self.domain.names, theta)}
        with MP_LOCK, mpmath.workdps(TWIN_DPS):
            return [e(**kw) for e in evs]

    def premise_failure(self, result=None) -> str:
        """``""`` when the twin agrees with the callables at every point checked (or there is
        no twin: the sides are the certified expressions themselves), else a sentence naming
        the point and both values.  The points: ``result.worst_point`` (the search's worst
        point, when given), then the domain's default point and :data:`TWIN_POINTS` points
        drawn with a fixed seed (checked once per claim object)."""
        if self.sides is None or self.twin is None:
            return ""
        worst = getattr(result, "worst_point", None) if result is not None else None
        if worst:
            try:
                theta = self.domain.project(self.domain.parse_point(worst))
            except (TypeError, ValueError):
                theta = None
            if theta is not None:
                why = self._disagreement([theta])
                if why:
                    return why
        why = self.__dict__.get("__premise")
        if why is None:
            rng = np.random.default_rng(np.random.SeedSequence(0, spawn_key=(2 ** 31 - 31,)))
            pts = [self.domain.project(self.domain.default)] + [self.domain.sample(rng) for _ in range(TWIN_POINTS)]
            why = self._disagreement(pts)
            self.__dict__["__premise"] = why
        return why

    def _disagreement(self, points) -> str:
        """The first disagreement between the callables and the twin over ``points``, or ``""``."""
        import mpmath

        rows = []
        for theta in points:
            kw = self.domain.unpack(theta)
            at = shown(self.domain.describe(theta), 160)
            for k, (side, f) in enumerate(zip(("lhs", "rhs"), self.sides)):
                try:
                    fv = _number(f(**kw), side, at)
                except Exception as exc:                          # noqa: BLE001 - reported
                    return f"the callable {side} failed at {at} ({type(exc).__name__}): the arb= twin is not checked"
                try:
                    tv = self._twin_values(theta)[k]
                    ok = isinstance(tv, mpmath.mpf) and mpmath.isfinite(tv)
                except Exception:                                 # noqa: BLE001 - undefined there
                    ok = False
                if not ok:
                    return (f"the arb= twin's {side} is not a finite real number at {at} where the callable "
                            f"gives {fv!r}: the twin is not the callables' function, so its proof is not the "
                            f"claim's (searched, not proved)")
                if not math.isfinite(fv):
                    return (f"the callable {side} gives {fv!r} at {at} where the arb= twin gives "
                            f"{mpmath.nstr(tv, 17)}: searched, not proved")
                rows.append((side, at, fv, tv))
        for side in ("lhs", "rhs"):
            mags = [max(abs(fv), float(abs(tv))) for s, _, fv, tv in rows if s == side]
            big = max(mags, default=0.0)
            for s, at, fv, tv in rows:
                if s != side:
                    continue
                scale = max(abs(fv), float(abs(tv)), TWIN_FLOOR * big)
                if float(abs(mpmath.mpf(fv) - tv)) > TWIN_RTOL * scale:
                    return (f"the arb= twin is not the callables' function: at {at} the callable {side} = "
                            f"{fv!r} (float64) but the twin's {side} = {mpmath.nstr(tv, 17)} ({TWIN_DPS} "
                            f"digits), beyond float rounding (relative {TWIN_RTOL:g}); a proof of the twin "
                            f"is not a proof of the claim (searched, not proved)")
        return ""

    # -- the certificate, with its refutation checked ---------------------------------------

    def _refutation_problem(self, cert) -> str:
        point = dict(cert.counterexample or {})
        try:
            theta = self.domain.parse_point(point)
        except (TypeError, ValueError) as exc:
            return f"its counterexample {point} is not a point of the domain ({exc})"
        if not in_domain(self.domain, theta):
            return (f"its counterexample {point} lies outside the domain {self.domain!r} (a range, or an "
                    f"integer coordinate): a violation there says nothing about the claim")
        if self.sides is None:
            return ""
        kw = self.domain.unpack(theta)
        try:
            lv, rv = (_number(f(**kw), s, "the counterexample") for s, f in zip(("lhs", "rhs"), self.sides))
        except Exception as exc:                                  # noqa: BLE001 - reported
            return f"the callables fail at its counterexample {point} ({type(exc).__name__})"
        if lv - rv > self.atol + self.rtol * abs(rv):
            return ""
        if self.mp is not None:
            import mpmath

            from .engine.search import MP_LOCK

            with MP_LOCK, mpmath.workdps(TWIN_DPS):
                kw_mp = {k: (mpmath.mpf(v) if isinstance(v, float) else [mpmath.mpf(float(t)) for t in v])
                         for k, v in kw.items()}
                lm, rm = self.mp[0](**kw_mp), self.mp[1](**kw_mp)
                if mpmath.mpf(lm) - mpmath.mpf(rm) > self.atol + self.rtol * abs(mpmath.mpf(rm)):
                    return ""
        return (f"the arb= twin is violated at {point}, but the callables are not (lhs = {lv!r}, rhs = {rv!r}): "
                f"the twin is not the callables' function there")

    def __call__(self):
        if self.sides is not None:
            why = self.premise_failure(None)
            if why:
                return self._undecided(None, why)
        cert = self.certifier()
        if cert.status == "refuted":
            why = self._refutation_problem(cert)
            if why:
                return self._undecided(cert, f"refutation not accepted: {why}")
        return cert

    def _undecided(self, cert, reason):
        import dataclasses

        from .engine.certify import Certificate

        if cert is None:
            return Certificate("undecided", 0, 0.0, math.nan, tuple(self.domain.names), uncertified_fraction=1.0,
                               reason=reason)
        return dataclasses.replace(cert, status="undecided", counterexample=None, counterexample_exact=None,
                                   margin_upper=None, uncertified_fraction=1.0, uncertified=[], reason=reason)


def _number(value, side, at) -> float:
    """One side's value as a float (``TypeError`` naming the side and the point otherwise)."""
    arr = np.asarray(value)
    if arr.size != 1:
        raise TypeError(f"{side} returned {arr.size} numbers at {at}, not one")
    return float(arr.reshape(()))
