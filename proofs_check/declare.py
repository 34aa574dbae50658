"""Declare your own claims: the user writes mathematics, not engine plumbing.

Five constructors, one per claim kind (``docs/theory/engine.md#kinds``), each returning
a registered :class:`~proofs_check.engine.Claim` that ``theorycheck verify``,
``report``, the pytest plugin and :func:`proofs_check.verify` accept::

    import numpy as np
    import proofs_check as pc

    def tv(p, q):  return 0.5 * np.abs(p - q).sum()
    def kl(p, q):  return float(np.sum(p * np.log(p / q)))
    def pinsker_rhs(p, q): return np.sqrt(kl(p, q) / 2)

    pc.inequality("mine.pinsker", lhs=tv, rhs=pinsker_rhs,
                  domain=pc.Simplex(3, names=("p", "q"), min_prob=1e-6), expected="holds")

* :func:`probability` — ``P(event) ≤ delta`` from ``events(rng, n)`` returning
  ``n`` booleans (or the integer count of events);
* :func:`inequality` — ``lhs(θ) ≤ rhs(θ)`` on a :class:`Box`, a
  :class:`Simplex` or any :class:`Domain`; ``lhs``/``rhs`` take the domain's
  coordinates by name; a confirmed violation is shrunk to a readable
  counterexample (:mod:`.engine.shrink`) with a ``reproduce`` line;
* :func:`identity` — ``lhs(θ) = rhs(θ)`` to a tolerance, on a domain;
* :func:`comparison` — ``E[d] < threshold`` from paired differences
  ``differences(rng, n) -> (n,)``;
* :func:`scaling` — ``y(x) ∝ x^a`` with ``a`` in a window, from a simulation
  ``measure(rng, x) -> y`` (one replicate at one grid value).

Each constructor (and decorator: omit the function and decorate it) checks
the declaration at once and says what to fix: a function that is not
callable, one that returns the wrong shape or a non-finite value on a probe
call (one call on a tiny input, ``probe=False`` to skip), a duplicate id.
Picklability is checked when a ``processes`` or ``dask`` executor is chosen
(:func:`proofs_check.engine.registry.check_portable`): lambdas and nested functions run on ``serial`` and
``threads`` only.

:func:`reproduce` re-evaluates an inequality claim at a point (the
counterexample's ``reproduce`` line); see ``docs/history/user_claims.md``.

The domains (:class:`Box`, :class:`Simplex`, :class:`Domain`) and what a point of one is
live in :mod:`proofs_check.domains` and are re-exported here.  A proved verdict is about the
statement as declared: no float allowance unless one is declared (printed in the default
statement), SymPy assumptions checked against the box, integer coordinates certified slice
by slice, and an ``arb=`` twin proved only when it is the callables' function
(:class:`CheckedCertifier`; issue 31).
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import sys
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .engine.claims import Claim
from .engine.errors import ClaimDeclarationError, UserClaimsError
from .engine.kinds import ComparisonClaim, IdentityClaim, InequalityClaim, ProbabilityClaim, ScalingClaim
from .domains import (UNBOUNDED_DECADES, Box, CheckedCertifier, Domain, Simplex,  # noqa: F401 (re-exported)
                      _domain_describe, _domain_project, _domain_sample, _domain_simplify, check_assumptions,
                      check_in_domain, engine_certifier, integer_names,
                      unmentioned_coordinates)
from .engine.validate import shown

__all__ = ["ClaimDeclarationError", "Domain", "Box", "Simplex", "probability", "inequality", "identity",
           "comparison", "scaling", "reproduce", "load_claims"]


def _fail(cid, what: str) -> ClaimDeclarationError:
    return ClaimDeclarationError(f"claim {cid!r}: {what}")


def _fname(fn) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if name is None and isinstance(fn, functools.partial):
        return f"partial({_fname(fn.func)})"
    return name or type(fn).__name__


def _check_id(cid) -> str:
    if not isinstance(cid, str):
        raise TypeError(f"id must be a claim id string, e.g. 'mine.pinsker', got {shown(cid)}")
    if not cid or any(c.isspace() for c in cid):
        raise ValueError(f"id must be a non-empty claim id without spaces, e.g. 'mine.pinsker', got {shown(cid)}")
    return cid


def _check_callable(cid, name, fn, signature: str):
    if not callable(fn):
        raise TypeError(f"claim {cid!r}: {name} must be a function {signature}, got {shown(fn)}")
    return fn


#: :func:`_positional_arity` of a side that takes the coordinates as keyword arguments.
_KEYWORDS = -1
#: :func:`_positional_arity` of a side that takes any number of positional arguments (``*args``).
_ANY = -2


def _positional_arity(fn) -> int:
    """How a side is called.  Sides are called with the domain's coordinates as keyword
    arguments, ``lhs(x=…, y=…)`` (:data:`_KEYWORDS`), except a function that cannot take
    them so: a NumPy ufunc (``np.log1p``: its ``nin`` positional inputs), a function whose
    required parameters are positional-only (``math.log1p``: their count), or a library
    callable taking only ``*args`` (and maybe ``**kwargs``), such as mpmath's bound
    ``mpmath.log1p`` (:data:`_ANY`); a ``def`` of your own with ``*args, **kwargs`` keeps
    getting keywords."""
    if isinstance(fn, np.ufunc):
        return int(fn.nin)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):             # no signature (some builtins): keywords, as documented
        return _KEYWORDS
    required = [q for q in params if q.default is q.empty and q.kind not in (q.VAR_POSITIONAL, q.VAR_KEYWORD)]
    if required and all(q.kind is q.POSITIONAL_ONLY for q in required):
        return len(required)
    if not required and any(q.kind is q.VAR_POSITIONAL for q in params) \
            and not any(q.kind in (q.POSITIONAL_OR_KEYWORD, q.KEYWORD_ONLY) for q in params) \
            and not (inspect.isfunction(fn) and any(q.kind is q.VAR_KEYWORD for q in params)):
        return _ANY                 # a library's *args wrapper; your own def f(*a, **kw) keeps keywords
    return _KEYWORDS


def _call_positional(fn, order, **coordinates):
    """``fn`` called with the coordinates as positional arguments in the domain's order."""
    return fn(*[coordinates[k] for k in order])


def _as_side(cid, name: str, fn, domain):
    """``fn`` as a side called with keyword coordinates: itself, or (a ufunc such as
    ``np.log1p``, a positional-only builtin) wrapped to pass the coordinates positionally
    in the domain's order.  A positional arity that does not match the number of
    coordinates is refused with the calling convention spelled out."""
    arity = _positional_arity(fn)
    if arity == _KEYWORDS:
        return fn
    order = tuple(domain.blocks)
    if arity != _ANY and arity != len(order):
        call = ", ".join(f"{k}=…" for k in order)
        raise _fail(cid, f"{name} = {_fname(fn)} takes {arity} positional argument(s), but the domain has "
                         f"{len(order)} coordinate block(s) ({', '.join(order)}); sides are called with the "
                         f"coordinates as keyword arguments, {name}({call}): wrap it, e.g. "
                         f"lambda {', '.join(order)}: {_fname(fn)}(…)")
    return functools.partial(_call_positional, fn, order)


def _calling_hint(domain) -> str:
    """How sides are called, for an error raised by calling one (a ``TypeError``)."""
    order = tuple(domain.blocks)
    return (f"; sides are called with the domain's coordinates as keyword arguments, "
            f"lhs({', '.join(f'{k}=…' for k in order)}): name the parameters after the coordinates, or pass "
            f"a function of {len(order)} positional argument(s) such as np.log1p")


# ---------------------------------------------------------------------------
# the functions the engine calls (module level: picklable)


def _side(value, cid, name, theta_desc) -> float:
    arr = np.asarray(value)
    if arr.ndim != 0 and arr.size != 1:
        raise ClaimDeclarationError(f"claim {cid!r}: {name} must return one number, got an array of shape "
                                    f"{arr.shape} at {theta_desc}; reduce it to a scalar (e.g. .sum() or max)")
    try:
        return float(arr.reshape(()))
    except (TypeError, ValueError):
        raise ClaimDeclarationError(f"claim {cid!r}: {name} must return a real number, got "
                                    f"{shown(value)}") from None


def _evaluate_named(domain, lhs, rhs, cid, theta):
    kw = domain.unpack(theta)
    return (_side(lhs(**kw), cid, "lhs", "a point"), _side(rhs(**kw), cid, "rhs", "a point"))


def _evaluate_named_mp(domain, lhs_mp, rhs_mp, theta):
    import mpmath

    kw = domain.unpack(theta)
    kw = {k: (mpmath.mpf(v) if isinstance(v, float) else [mpmath.mpf(float(x)) for x in v])
          for k, v in kw.items()}
    return lhs_mp(**kw), rhs_mp(**kw)


def _identity_side(value, cid, name, theta_desc) -> tuple[float, float]:
    """``(value, magnitude of the largest term)`` of one identity side: a number, or a
    tuple/list of terms (summed with ``math.fsum``)."""
    if isinstance(value, (tuple, list)):
        if not value:
            raise ClaimDeclarationError(f"claim {cid!r}: {name} returned an empty list of terms at {theta_desc}")
        terms = [_side(t, cid, f"{name} term", theta_desc) for t in value]
        if not all(math.isfinite(t) for t in terms):
            return math.nan, math.nan
        return math.fsum(terms), max(abs(t) for t in terms)
    v = _side(value, cid, name, theta_desc)
    return v, abs(v)


def _identity_cases(domain, lhs, rhs, cid, rng, n, terms=False):
    """``n`` cases at points ``domain.sample(rng)``: ``(lhs, rhs)``, or with ``terms``
    ``(lhs, rhs, largest |term|)`` (``tol_mode="terms"``)."""
    ls, rs, mag = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        kw = domain.unpack(domain.sample(rng))
        (ls[i], lm), (rs[i], rm) = (_identity_side(lhs(**kw), cid, "lhs", "a point"),
                                    _identity_side(rhs(**kw), cid, "rhs", "a point"))
        mag[i] = max(lm, rm)
    return (ls, rs, mag) if terms else (ls, rs)


def _identity_cases_mp(domain, lhs_mp, rhs_mp, rng, n):
    """The same ``n`` cases as :func:`_identity_cases` (same draws from ``rng``) in mpmath:
    lists of values or of term lists (the engine sums them)."""
    ls, rs = [], []
    for _ in range(n):
        lv, rv = _evaluate_named_mp(domain, lhs_mp, rhs_mp, domain.sample(rng))
        ls.append(list(lv) if isinstance(lv, (tuple, list)) else lv)
        rs.append(list(rv) if isinstance(rv, (tuple, list)) else rv)
    return ls, rs


class _Terms:
    """One identity side given as a SymPy sum, evaluated term by term: ``(**coords) ->
    tuple`` of the terms' values (float64 or mpmath, by the evaluators it holds).  The
    identity kind sums them (``math.fsum``/``mpmath.fsum``) and scales the error by the
    largest ``|term|`` (``tol_mode="terms"``), so the tolerance of an identity written
    ``f = 0`` is measured against the magnitude of what cancels, not against the
    rounding residual of ``0`` (issue 31, N2)."""

    def __init__(self, evaluators):
        self.evaluators = tuple(evaluators)

    def __call__(self, **kw):
        return tuple(e(**kw) for e in self.evaluators)

    def __repr__(self) -> str:
        return " + ".join(repr(e) for e in self.evaluators)


def _sympy_sides(cid, domain, lhs, rhs, lhs_mp, rhs_mp, *, terms: bool = False):
    """Sides given as SymPy expressions in the coordinate names → float64 and mpmath
    evaluators (:mod:`proofs_check.engine.expr`: ``lambdify`` to numpy and to mpmath),
    so the high-precision twin is derived, not hand-written.  Every free symbol's SymPy
    assumptions are checked against the domain first (:func:`.domains.check_assumptions`).
    With ``terms`` (an identity in ``tol_mode="terms"``) a side that is a sum is evaluated
    term by term (:class:`_Terms`)."""
    from .engine.expr import FloatEvaluator, MpEvaluator, as_expr, free_names

    names = tuple(domain.blocks)
    if any(not isinstance(v, int) for v in domain.blocks.values()):
        raise TypeError(f"claim {cid!r}: SymPy sides need scalar coordinates; the domain has vector blocks "
                        f"{[k for k, v in domain.blocks.items() if not isinstance(v, int)]}")
    out = []
    for side, mp_side, name in ((lhs, lhs_mp, "lhs"), (rhs, rhs_mp, "rhs")):
        if callable(side) and not _is_sympy(side):
            out.append((side, mp_side))
            continue
        expr = as_expr(side, name)
        unknown = free_names(expr) - set(names)
        if unknown:
            raise ValueError(f"claim {cid!r}: {name} uses {sorted(unknown)}, which are not coordinates of the "
                             f"domain ({list(names)})")
        check_assumptions(cid, domain, [expr], f"the {name}")
        if terms and expr.is_Add:
            parts = expr.args
            out.append((_Terms(FloatEvaluator([t], names) for t in parts),
                        mp_side if mp_side is not None else _Terms(MpEvaluator([t], names) for t in parts)))
            continue
        out.append((FloatEvaluator([expr], names), mp_side if mp_side is not None else MpEvaluator([expr], names)))
    return out[0][0], out[1][0], out[0][1], out[1][1]


def _certifier(cid, domain, exprs, atol, rtol, certify, explicit=True, *, sides=None, mp=None):
    """The ball-arithmetic certifier of an inequality with SymPy sides ``exprs`` on a
    :class:`Box` (:class:`CheckedCertifier` around :class:`proofs_check.engine.certify.Certifier`),
    or ``None``.  ``atol``/``rtol`` are the *declared* allowance (0 unless the claim declares
    one: the proof is of ``lhs ≤ rhs + atol + rtol·|rhs|``); ``sides`` the float callables when
    ``exprs`` is their ``arb=`` twin."""
    if exprs is None or certify is False:
        return None
    if not (isinstance(exprs, (tuple, list)) and len(exprs) == 2):
        raise TypeError(f"claim {cid!r}: arb must be a pair (lhs, rhs) of SymPy expressions, got {shown(exprs)}")
    budget = {} if certify is True else dict(certify)
    unknown = set(budget) - {"max_boxes", "max_seconds"}
    if unknown:
        raise ValueError(f"claim {cid!r}: certify accepts True, False or a dict with max_boxes/max_seconds, "
                         f"got keys {sorted(unknown)}")
    if not isinstance(domain, Box) or any(not isinstance(v, int) for v in domain.blocks.values()) \
            or not domain.bounded:
        if explicit:
            unbounded = isinstance(domain, Box) and not domain.bounded
            raise ValueError(f"claim {cid!r}: a certified verdict needs a closed bounded Box of scalar "
                             f"coordinates, got {domain!r}"
                             + (" with an infinite range (a half-line is searched, never proved)" if unbounded
                                else "") + "; pass certify=False to search only")
        return None                     # SymPy sides on another domain: searched, not certified
    from .engine.expr import as_expr, free_names

    sides_ = [as_expr(e, side) for e, side in zip(exprs, ("lhs", "rhs"))]
    unknown = set().union(*(free_names(e) for e in sides_)) - set(domain.names)
    if unknown:
        raise ValueError(f"claim {cid!r}: the sides use {sorted(unknown)}, which are not coordinates of the "
                         f"domain ({list(domain.names)})")
    check_assumptions(cid, domain, sides_, "the arb= sides" if sides is not None else "the sides")
    inner = engine_certifier("<=", domain, sides_[0], sides_[1], atol=atol, rtol=rtol, **budget)
    if inner is None:
        return None
    return CheckedCertifier(inner, domain, sides=sides, twin=None if sides is None else sides_, mp=mp,
                            atol=atol, rtol=rtol)


#: The float64 search's relative allowance of an inequality that declares no ``rtol``
#: (rounding of the two sides; never part of a proof).
SEARCH_RTOL = 1e-9


def _allowance_text(atol: float, rtol: float) -> str:
    """`` + atol + rtol·|rhs|`` as printed in a statement (the declared allowance; empty
    when there is none)."""
    return (f" + {atol:g}" if atol else "") + (f" + {rtol:g}·|rhs|" if rtol else "")


def _is_sympy(x) -> bool:
    return type(x).__module__.split(".")[0] == "sympy"


def _count_events(events, cid, rng, n):
    out = events(rng, n)
    if isinstance(out, (bool, np.bool_)) or (isinstance(out, np.ndarray) and out.ndim == 0
                                             and out.dtype == bool):
        raise ClaimDeclarationError(f"claim {cid!r}: events(rng, n) must return n = {n} booleans (one "
                                    f"per trial) or the integer count of events, got one boolean")
    if isinstance(out, numbers.Integral):
        k = int(out)
    else:
        arr = np.asarray(out)
        if arr.dtype.kind not in "biuf" or arr.shape != (n,):
            raise ClaimDeclarationError(
                f"claim {cid!r}: events(rng, n) must return n = {n} booleans (one per trial) or the "
                f"integer count of events, got {'shape ' + str(arr.shape) if arr.dtype.kind in 'biuf' else shown(out)}")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ClaimDeclarationError(f"claim {cid!r}: events(rng, n) returned non-finite values "
                                        f"(e.g. NaN); return booleans, one per trial")
        if not np.all((arr == 0) | (arr == 1)):
            raise ClaimDeclarationError(f"claim {cid!r}: events(rng, n) must return booleans (or 0/1), got "
                                        f"values such as {shown(arr[(arr != 0) & (arr != 1)][:3].tolist())}")
        k = int(arr.sum())
    if not 0 <= k <= n:
        raise ClaimDeclarationError(f"claim {cid!r}: events(rng, n) returned {k} events for n = {n} trials; "
                                    f"the count must lie in [0, n]")
    return k


def _differences(fn, cid, rng, n):
    d = np.asarray(fn(rng, n), dtype=float)
    if d.shape != (n,):
        raise ClaimDeclarationError(f"claim {cid!r}: differences(rng, n) must return an array of shape "
                                    f"({n},) — one paired difference per draw — got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ClaimDeclarationError(f"claim {cid!r}: differences(rng, n) returned non-finite values "
                                    f"(e.g. NaN); guard the metric or restrict the simulation")
    return d


def _replicates(measure, x, cid, rng, n):
    y = np.empty((n, len(x)))
    for r in range(n):
        for j, xj in enumerate(x):
            y[r, j] = _measured(measure(rng, xj), cid, xj)
    return y


def _measured(value, cid, xj) -> float:
    arr = np.asarray(value)
    if arr.size != 1 or arr.dtype.kind not in "biuf":
        raise ClaimDeclarationError(f"claim {cid!r}: measure(rng, x) must return one number (the "
                                    f"quantity at x = {xj:g}), got {shown(value)}")
    return float(arr.reshape(()))


# ---------------------------------------------------------------------------
# declaration helpers


def _caller_module(depth: int = 3) -> str:
    f = sys._getframe(depth)
    while f is not None:
        name = f.f_globals.get("__name__", "")
        if name != __name__ and not name.startswith("proofs_check.engine"):
            return name
        f = f.f_back
    return "__main__"


def _source_for(fn, source):
    if source:
        return source
    # a functools.partial reports "functools" as its module: the user's module is the caller's
    mod = None if isinstance(fn, functools.partial) else getattr(fn, "__module__", None)
    mod = mod or _caller_module()
    from .engine.registry import module_origin

    return f"your own claim (declared in {module_origin(mod)})"


def _common(cid, statement, source, fn, *, label, role, expected, params, notes, version):
    if expected not in ("holds", "refuted", None):
        raise ValueError(f"claim {cid!r}: expected must be 'holds', 'refuted' or None, got {shown(expected)}")
    return dict(id=cid, statement=statement, source=_source_for(fn, source), label=label, role=role,
                expected=expected, params=dict(params or {}), notes=notes, version=version)


def _budgets(kw, budget, quick_budget, chunk_size):
    if budget is not None:
        kw["default_budget"] = budget
    if quick_budget is not None:
        kw["quick_budget"] = quick_budget
    if chunk_size is not None:
        kw["chunk_size"] = chunk_size
    return kw


def _finish(claim: Claim, register: bool, probe: bool, probe_fn) -> Claim:
    if probe:
        import warnings

        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                probe_fn()
        except ClaimDeclarationError:
            raise
        except Exception as exc:       # the user's function failed on the probe: say where
            raise _fail(claim.id, f"probe call failed with {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                                  f" — fix the function (or declare with probe=False)") from exc
    if register:
        from .engine.registry import register as _register

        try:
            _register(claim)
        except ValueError as exc:
            raise ClaimDeclarationError(str(exc)) from None
    return claim


def _decorator_or(fn, build):
    if fn is None:
        def deco(f):
            f.claim = build(f)
            return f
        return deco
    return build(fn)


#: Points an inequality or identity declaration evaluates (the default point and
#: this many random ones) to check shapes and finite values.
PROBE_POINTS = 16


def _probe_rng():
    return np.random.default_rng(np.random.SeedSequence(0, spawn_key=(2 ** 31,)))


# ---------------------------------------------------------------------------
# one constructor per kind (named after it: proofs_check.kind_names)


def probability(id: str, events: Callable | None = None, *, delta: float, statement: str | None = None,
                source: Any = None, label: str = "OPEN", role: str = "statement", expected: str | None = None,
                params: Mapping | None = None, budget: int | None = None, quick_budget: int | None = None,
                chunk_size: int | None = None, notes: str = "", version: int = 1, register: bool = True,
                probe: bool = True, cluster: int | None = None):
    """``P(event) ≤ delta`` under your simulation.

    ``events(rng, n)`` runs ``n`` independent trials with the NumPy
    generator ``rng`` and returns ``n`` booleans (True where the bad event
    happened) or their integer count.  Decided by an anytime-valid test
    (:func:`proofs_check.engine.verify_claim`).  Without ``events`` this is a
    decorator (the function gets a ``.claim`` attribute).  ``cluster=m`` declares that runs of
    ``m`` consecutive trials share randomness (each run is then one observation,
    :class:`~proofs_check.engine.ProbabilityClaim`).
    """
    cid = _check_id(id)
    try:
        delta = float(delta)
    except (TypeError, ValueError):
        raise TypeError(f"claim {cid!r}: delta must be a number in (0, 1), got {shown(delta)}") from None
    if not 0.0 < delta < 1.0:
        raise ValueError(f"claim {cid!r}: delta must lie in (0, 1), got {delta!r}")

    def build(fn):
        _check_callable(cid, "events", fn, "events(rng, n) -> n booleans")
        kw = _common(cid, statement or f"P({_fname(fn)}) ≤ {delta:g}", source, fn, label=label, role=role,
                     expected=expected, params=params, notes=notes, version=version)
        claim = ProbabilityClaim(**_budgets(kw, budget, quick_budget, chunk_size),
                                 fn=functools.partial(_count_events, fn, cid), delta=delta,
                                 **({} if cluster is None else {"cluster": cluster}))
        return _finish(claim, register, probe, lambda: _count_events(fn, cid, _probe_rng(), 8))
    return _decorator_or(events, build)


def inequality(id: str, lhs: Callable | None = None, rhs: Callable | None = None, *, domain: Domain,
               lhs_mp: Callable | None = None, rhs_mp: Callable | None = None, atol: float = 0.0,
               rtol: float | None = None, statement: str | None = None, source: Any = None, label: str = "OPEN",
               role: str = "statement", expected: str | None = None, params: Mapping | None = None,
               budget: int | None = None, quick_budget: int | None = None, chunk_size: int | None = None,
               step: float = 0.3, notes: str = "", version: int = 1, register: bool = True,
               probe: bool = True, arb: tuple | None = None,
               certify: bool | Mapping = True) -> InequalityClaim:
    """``lhs(θ) ≤ rhs(θ)`` for every θ of ``domain``, decided by worst-case search.

    ``lhs`` and ``rhs`` take the domain's coordinates as keyword arguments
    (``Box(a=..., b=...)`` → ``lhs(a, b)``; ``Simplex(3, names=("p", "q"))`` →
    ``lhs(p, q)`` with arrays) and return one real number each.  The search
    counts a point as a violation when ``lhs − rhs > atol + rtol·|rhs|``, the
    allowance for float64 rounding: ``rtol`` not given is :data:`SEARCH_RTOL`
    in the float64 search and **0 in a proof**; an ``atol``/``rtol`` you pass is
    part of the statement — the certifier proves ``lhs ≤ rhs + atol + rtol·|rhs|``
    and the default statement prints it.  ``lhs_mp``/
    ``rhs_mp`` (same arguments, as ``mpmath`` numbers) re-check every float64
    violation at 50 digits: a confirmed counterexample has guarantee
    ``"exact"``.  A confirmed counterexample is shrunk toward the domain's
    default point (:mod:`proofs_check.engine.shrink`).

    **Proved, not just searched.**  ``lhs``/``rhs`` may be SymPy expressions in the
    coordinate names (``x = sympy.Symbol("x")``; ``lhs=x - x**2/2, rhs=sympy.log(1 + x)``):
    the float64 and mpmath evaluators are derived from them, and on a :class:`Box` a
    "holds" search is followed by a branch-and-bound in ball arithmetic
    (:mod:`proofs_check.engine.certify`) that upgrades it to guarantee ``"proved"``
    (``lhs ≤ rhs`` everywhere on the box, plus the allowance only when you declared
    one), refutes it with a certified counterexample of the domain (integer coordinates
    slice by slice), or reports the uncertified region.  A symbol with SymPy assumptions
    the box does not imply (``positive=True`` on a range reaching 0) is refused
    (:func:`.domains.check_assumptions`).  With callables, ``arb=(lhs_expr, rhs_expr)``
    gives the same sides as SymPy expressions for the certifier; it is proved only when the
    twin agrees with the callables at the points :class:`CheckedCertifier` checks
    (including the search's worst point), else searched with a warning.
    ``certify=False`` skips it; a dict sets its budget (``{"max_boxes": 40000,
    "max_seconds": 10}``).
    """
    cid = _check_id(id)
    if not isinstance(domain, Domain):
        raise TypeError(f"claim {cid!r}: domain must be a Box, a Simplex or a Domain, got {shown(domain)}")
    for name, v in (("atol", atol), ("rtol", rtol)):
        if v is None and name == "rtol":
            continue
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not 0.0 <= float(v) < math.inf:
            raise ValueError(f"claim {cid!r}: {name} must be a finite number ≥ 0 (the declared allowance), "
                             f"got {shown(v)}")
    search_rtol = SEARCH_RTOL if rtol is None else float(rtol)
    proof_atol, proof_rtol = float(atol), 0.0 if rtol is None else float(rtol)
    exprs = (lhs, rhs) if (_is_sympy(lhs) or _is_sympy(rhs)) else arb
    twin = arb is not None and exprs is arb
    if _is_sympy(lhs) or _is_sympy(rhs):
        if arb is not None:
            raise ValueError(f"claim {cid!r}: arb= is for callable sides; SymPy sides are certified as they are")
        text = (str(lhs), str(rhs))
        lhs, rhs, lhs_mp, rhs_mp = _sympy_sides(cid, domain, lhs, rhs, lhs_mp, rhs_mp)
        lhs.__name__, rhs.__name__ = text
        lhs.__module__ = rhs.__module__ = _caller_module(2)      # "declared in" names the user's module
    _check_callable(cid, "lhs", lhs, "lhs(**coordinates) -> float")
    _check_callable(cid, "rhs", rhs, "rhs(**coordinates) -> float")
    if (lhs_mp is None) != (rhs_mp is None):
        raise ValueError(f"claim {cid!r}: give both lhs_mp and rhs_mp (the mpmath evaluator), or neither")
    if lhs_mp is not None:
        _check_callable(cid, "lhs_mp", lhs_mp, "lhs_mp(**coordinates as mpmath numbers)")
        _check_callable(cid, "rhs_mp", rhs_mp, "rhs_mp(**coordinates as mpmath numbers)")
    source_fn = lhs if _positional_arity(lhs) == _KEYWORDS else None
    names = (_fname(lhs), _fname(rhs))
    lhs, rhs = _as_side(cid, "lhs", lhs, domain), _as_side(cid, "rhs", rhs, domain)   # np.log1p as a side
    if lhs_mp is not None:
        lhs_mp, rhs_mp = _as_side(cid, "lhs_mp", lhs_mp, domain), _as_side(cid, "rhs_mp", rhs_mp, domain)
    certifier = _certifier(cid, domain, exprs, proof_atol, proof_rtol, certify,
                           explicit=arb is not None or certify is not True,
                           sides=(lhs, rhs) if twin else None, mp=(lhs_mp, rhs_mp) if twin and lhs_mp else None)
    lost = unmentioned_coordinates(domain, *exprs) if exprs is not None and isinstance(domain, Box) else []
    if certifier is not None and lost:
        notes = (notes + " " if notes else "") + (
            f"the sides do not mention {', '.join(lost)}: the statement proved does not depend on "
            f"{'it' if len(lost) == 1 else 'them'} (check that SymPy did not simplify a symbol away)")
    if certifier is None and exprs is not None and certify is not False:
        why = (f"the sides do not mention the coordinate(s) {', '.join(lost)} (SymPy may have simplified them "
               f"away when the expression was built, e.g. under a symbol's assumptions)" if lost
               else "the certifier cannot take the integer coordinates " + ", ".join(integer_names(domain))
               if integer_names(domain) else "only a closed bounded Box of scalar coordinates can be proved")
        notes = (notes + " " if notes else "") + f"not certified in ball arithmetic: {why}"
    kw = _common(cid, statement or f"{names[0]} ≤ {names[1]}{_allowance_text(proof_atol, proof_rtol)} on {domain!r}",
                 source, source_fn, label=label,
                 role=role, expected=expected, params=params, notes=notes, version=version)
    claim = InequalityClaim(
        **_budgets(kw, budget, quick_budget, chunk_size),
        sample=functools.partial(_domain_sample, domain),
        evaluate=functools.partial(_evaluate_named, domain, lhs, rhs, cid),
        project=functools.partial(_domain_project, domain),
        evaluate_mp=None if lhs_mp is None else functools.partial(_evaluate_named_mp, domain, lhs_mp, rhs_mp),
        describe_point=functools.partial(_domain_describe, domain),
        default_point=tuple(float(v) for v in domain.default),
        coordinates=domain.names,
        simplify=functools.partial(_domain_simplify, domain),
        atol=proof_atol, rtol=search_rtol, step=step, certifier=certifier)

    def probe_fn():
        rng = _probe_rng()
        points = [domain.project(domain.default)] + [domain.sample(rng) for _ in range(PROBE_POINTS)]
        for theta in points:
            if theta.shape != (domain.size,):
                raise _fail(cid, f"the domain's sampler returned {theta.size} coordinates, its names give "
                                 f"{domain.size}")
            at = f"θ = {shown(domain.describe(theta), 120)}"
            kw_ = domain.unpack(theta)
            try:
                lv = _side(lhs(**kw_), cid, "lhs", at)
                rv = _side(rhs(**kw_), cid, "rhs", at)
            except TypeError as exc:             # e.g. a side whose parameters are not the coordinates
                raise _fail(cid, f"probe call failed with TypeError: {str(exc).splitlines()[0] if str(exc) else ''}"
                                 f"{_calling_hint(domain)}") from exc
            for side, v in (("lhs", lv), ("rhs", rv)):
                if not math.isfinite(v):
                    raise _fail(cid, f"{side} returned {v!r} at {at}; return finite numbers on the whole "
                                     f"domain (guard the formula or shrink the domain)")
        if lhs_mp is not None:
            import mpmath

            with mpmath.workdps(30):
                lm, rm = _evaluate_named_mp(domain, lhs_mp, rhs_mp, theta)
                if not (mpmath.isfinite(mpmath.mpf(lm)) and mpmath.isfinite(mpmath.mpf(rm))):
                    raise _fail(cid, f"lhs_mp/rhs_mp returned a non-finite value at {at}")
    return _finish(claim, register, probe, probe_fn)


def identity(id: str, lhs: Callable, rhs: Callable, *, domain: Domain, tol: float = 1e-12,
             tol_mode: str = "terms", lhs_mp: Callable | None = None, rhs_mp: Callable | None = None,
             statement: str | None = None, source: Any = None, label: str = "OPEN",
             role: str = "statement", expected: str | None = None, params: Mapping | None = None,
             budget: int | None = None, quick_budget: int | None = None, chunk_size: int | None = None,
             notes: str = "", version: int = 1, register: bool = True, probe: bool = True) -> IdentityClaim:
    """``lhs(θ) = rhs(θ)`` on ``domain`` up to ``tol``; checked on random points of the domain.

    ``lhs``/``rhs`` take the coordinates as keyword arguments and return a
    number, or a tuple/list of *terms* whose sum is the side (``cosh²x − sinh²x``
    as ``(cosh(x)**2, -sinh(x)**2)``).  ``tol_mode="terms"`` (default) divides
    the error by the magnitude of the terms, ``max(|lhs|, |rhs|, max|term|)``;
    ``"relative"``, ``"mixed"`` (``max(1, |lhs|, |rhs|)``) and ``"absolute"``
    are as in :class:`~proofs_check.engine.IdentityClaim`.

    ``lhs_mp``/``rhs_mp`` (same arguments, as mpmath numbers; terms allowed)
    re-evaluate, at 50 digits, the cases of a chunk where float64 disagrees
    beyond ``tol``: the claim is refuted (``exact``) only when the
    disagreement is confirmed there, holds when it is a rounding artefact,
    and is inconclusive ("float64 only") without them.  Sides given as SymPy
    expressions in the coordinate names get both evaluators automatically
    (:mod:`proofs_check.engine.expr`); in ``tol_mode="terms"`` a side that is a sum
    is evaluated term by term (:class:`_Terms`), so ``sin(x)**2 + cos(x)**2 - 1 = 0`` is
    measured against its terms' magnitude 1, not against the rounding residual of 0.
    On a bounded :class:`Box` such a claim is also certified (symbolically, then in ball
    arithmetic), and the certification is tried before a refutation is returned
    (:meth:`~proofs_check.engine.IdentityClaim.finish`).  Symbols whose SymPy assumptions
    the box does not imply are refused (:func:`.domains.check_assumptions`)."""
    cid = _check_id(id)
    if not isinstance(domain, Domain):
        raise TypeError(f"claim {cid!r}: domain must be a Box, a Simplex or a Domain, got {shown(domain)}")
    names = [str(f) if _is_sympy(f) else _fname(f) for f in (lhs, rhs)]
    certifier = None
    exprs = (lhs, rhs)
    if _is_sympy(lhs) or _is_sympy(rhs):         # assumptions checked against the domain first
        lhs, rhs, lhs_mp, rhs_mp = _sympy_sides(cid, domain, lhs, rhs, lhs_mp, rhs_mp, terms=tol_mode == "terms")
    if all(_is_sympy(e) for e in exprs) and isinstance(domain, Box) and domain.bounded \
            and tol_mode != "scale":                                     # ball arithmetic (engine.certify)
        inner = engine_certifier("==", domain, exprs[0], exprs[1], tol=tol, tol_mode=tol_mode)
        certifier = None if inner is None else CheckedCertifier(inner, domain)
    _check_callable(cid, "lhs", lhs, "lhs(**coordinates) -> float or a tuple of terms")
    _check_callable(cid, "rhs", rhs, "rhs(**coordinates) -> float or a tuple of terms")
    if (lhs_mp is None) != (rhs_mp is None):
        raise ValueError(f"claim {cid!r}: give both lhs_mp and rhs_mp (the mpmath evaluator), or neither")
    if lhs_mp is not None:
        _check_callable(cid, "lhs_mp", lhs_mp, "lhs_mp(**coordinates as mpmath numbers)")
        _check_callable(cid, "rhs_mp", rhs_mp, "rhs_mp(**coordinates as mpmath numbers)")
    if tol_mode == "scale":
        raise ValueError(f"claim {cid!r}: tol_mode 'scale' needs an IdentityClaim with its own fn; use "
                         f"'terms', 'absolute', 'relative' or 'mixed'")
    kw = _common(cid, statement or f"{names[0]} = {names[1]} on {domain!r}", source,
                 lhs if _positional_arity(lhs) == _KEYWORDS else None, label=label,
                 role=role, expected=expected, params=params, notes=notes, version=version)
    lhs, rhs = _as_side(cid, "lhs", lhs, domain), _as_side(cid, "rhs", rhs, domain)   # np.expm1 as a side
    if lhs_mp is not None:
        lhs_mp, rhs_mp = _as_side(cid, "lhs_mp", lhs_mp, domain), _as_side(cid, "rhs_mp", rhs_mp, domain)
    claim = IdentityClaim(**_budgets(kw, budget, quick_budget, chunk_size),
                          fn=functools.partial(_identity_cases, domain, lhs, rhs, cid, terms=tol_mode == "terms"),
                          fn_mp=None if lhs_mp is None else functools.partial(_identity_cases_mp, domain,
                                                                               lhs_mp, rhs_mp),
                          tol=tol, tol_mode=tol_mode, certifier=certifier)

    def probe_fn():
        rng = _probe_rng()
        for theta in [domain.project(domain.default)] + [domain.sample(rng) for _ in range(PROBE_POINTS)]:
            at = f"θ = {shown(domain.describe(theta), 120)}"
            kw_ = domain.unpack(theta)
            for side, f in (("lhs", lhs), ("rhs", rhs)):
                v = _identity_side(f(**kw_), cid, side, at)[0]
                if not math.isfinite(v):
                    raise _fail(cid, f"{side} returned {v!r} at {at}; return finite numbers on the whole domain")
    return _finish(claim, register, probe, probe_fn)


def comparison(id: str, differences: Callable | None = None, *, threshold: float = 0.0,
               alternative: str = "less", bounds: tuple[float, float] | None = None,
               variance_bound: float | None = None,
               statement: str | None = None, source: Any = None, label: str = "OPEN", role: str = "statement",
               expected: str | None = None, params: Mapping | None = None, budget: int | None = None,
               quick_budget: int | None = None, chunk_size: int | None = None, notes: str = "",
               version: int = 1, register: bool = True, probe: bool = True, cluster: int | None = None):
    """``E[d] < threshold`` (``alternative="less"``) or ``> threshold``, where
    ``differences(rng, n)`` returns ``n`` paired differences ``d = A − B``
    drawn with common random numbers.  Declare ``bounds=(lo, hi)`` when every
    difference lies in them (betting confidence sequence), or
    ``variance_bound=σ²`` when ``Var d ≤ σ²`` is known but the values are
    unbounded (Catoni-style confidence sequence, Wang & Ramdas 2023): the
    verdict is then anytime-valid.  With neither it is asymptotic (Hall's
    interval), always warned and not counted as settled by ``--fail-on``
    (``docs/theory/engine.md`` §2.3–2.4).  ``cluster=m`` declares that runs of ``m``
    consecutive differences share randomness (decided on the run means).  A sign comparison
    (``functools.partial(sign_of, d)``) states the majority it decides by default."""
    cid = _check_id(id)

    def build(fn):
        from .engine.kinds.comparison import default_statement

        _check_callable(cid, "differences", fn, "differences(rng, n) -> n numbers")
        kw = _common(cid, statement or default_statement(fn, alternative, threshold, _fname(fn)), source, fn,
                     label=label, role=role,
                     expected=expected, params=params, notes=notes, version=version)
        claim = ComparisonClaim(**_budgets(kw, budget, quick_budget, chunk_size),
                                fn=functools.partial(_differences, fn, cid), threshold=threshold,
                                alternative=alternative, bounds=bounds, variance_bound=variance_bound,
                                **({} if cluster is None else {"cluster": cluster}))

        def probe_fn():
            d = _differences(fn, cid, _probe_rng(), 4)
            if claim.bounds is not None:
                claim.stats_function()(d, 4)
        return _finish(claim, register, probe, probe_fn)
    return _decorator_or(differences, build)


def scaling(id: str, measure: Callable | None = None, *, x: Sequence[float], exponent: tuple[float, float],
            deterministic: bool = False, estimand: str = "mean", statement: str | None = None,
            source: Any = None, label: str = "OPEN",
            role: str = "statement", expected: str | None = None, params: Mapping | None = None,
            budget: int | None = None, quick_budget: int | None = None, notes: str = "", version: int = 1,
            register: bool = True, probe: bool = True):
    """``y(x) ∝ x^a`` with ``a`` in ``exponent = (lo, hi)`` over the grid ``x``.

    ``measure(rng, x) -> y`` returns one replicate of your quantity at one
    grid value (a positive number); the engine runs ``budget`` replicates of
    the whole grid and fits the exponent of the declared ``estimand`` with a
    Student-t interval over replicates (``docs/theory/engine.md`` §2.5):
    ``"mean"`` (default) — the slope of ``log E y``, delta method; ``"log-mean"``
    — the slope of ``E log y``, the mean per-replicate slope (the reading for
    a median or a typical value).  Replicates with no spread are inconclusive.
    ``deterministic=True`` (the quantity ignores ``rng``): exact fit of one
    curve, checked by two independent streams agreeing bitwise (else
    ``ValueError``)."""
    cid = _check_id(id)
    try:
        lo, hi = (float(v) for v in exponent)
    except (TypeError, ValueError):
        raise TypeError(f"claim {cid!r}: exponent must be a window (lo, hi), got {shown(exponent)}") from None
    try:
        grid = tuple(float(v) for v in x)
    except (TypeError, ValueError):
        raise TypeError(f"claim {cid!r}: x must be a sequence of positive grid values, got {shown(x)}") from None

    def build(fn):
        _check_callable(cid, "measure", fn, "measure(rng, x) -> y")
        kw = _common(cid, statement or f"{_fname(fn)}(x) ∝ x^a, a ∈ [{lo:g}, {hi:g}]", source, fn, label=label,
                     role=role, expected=expected, params=params, notes=notes, version=version)
        claim = ScalingClaim(**_budgets(kw, budget, quick_budget, None),
                             fn=functools.partial(_replicates, fn, grid, cid), x=grid, exponent_lo=lo,
                             exponent_hi=hi, deterministic=deterministic, estimand=estimand)

        def probe_fn():
            y = _measured(fn(_probe_rng(), grid[0]), cid, grid[0])
            zero_ok = estimand == "mean" and not deterministic     # log E y needs only E y > 0
            if not (math.isfinite(y) and (y >= 0 if zero_ok else y > 0)):
                raise _fail(cid, f"measure(rng, {grid[0]:g}) returned {y!r}; the quantity must be finite "
                                 f"and > 0 to fit a power law"
                                 + (" (0 is allowed with estimand='mean', the default)" if zero_ok else ""))
        return _finish(claim, register, probe, probe_fn)
    return _decorator_or(measure, build)


# ---------------------------------------------------------------------------


def reproduce(claim, point, *, dps: int = 50) -> dict:
    """Re-evaluate inequality ``claim`` (a claim or its id) at ``point`` (a
    full list of coordinates, or ``{name: value}`` with the others at their
    default): ``{"lhs", "rhs", "margin", "violates", "confirmed_mp"}``
    (``confirmed_mp`` is ``None`` without an mpmath evaluator).  This is what
    a counterexample's ``reproduce`` line runs."""
    from .engine.shrink import point_from, reevaluate

    if isinstance(claim, str):
        from .engine.registry import get_claim

        claim = get_claim(claim)
    if not isinstance(claim, InequalityClaim):
        raise TypeError(f"claim must be an inequality claim (or its id), got {shown(claim)}")
    theta = point_from(claim, point)
    check_in_domain(claim, theta)
    return reevaluate(claim, theta, dps=dps)


def load_claims(spec: str) -> list:
    """The claims a ``.py`` file (path) or a module (dotted name) declares, loaded once
    (:func:`proofs_check.engine.registry.load_user_claims`); errors are one line."""
    from .engine.registry import load_user_claims

    try:
        return load_user_claims(spec)
    except UserClaimsError as exc:
        raise UserClaimsError(f"load_claims(spec={spec!r}): {exc}") from None
