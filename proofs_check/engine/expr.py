"""One SymPy expression, three evaluators: float64 (search), mpmath (confirmation) and
rigorous intervals in ball arithmetic (proof) — ``docs/theory/engine.md`` §1.

An inequality or identity whose sides are SymPy expressions in the domain's coordinate
names is evaluated

* in float64 by ``sympy.lambdify(..., "numpy")`` (:class:`FloatEvaluator`),
* in mpmath by ``sympy.lambdify(..., "mpmath")`` (:class:`MpEvaluator`, the 50-digit
  confirmation of a violation),
* over a box by :func:`compile_interval`: a tree of interval operations whose endpoints are
  exact binary numbers (``flint.arb`` with radius 0).  Every operation evaluates its
  candidate endpoints in Arb ball arithmetic (Johansson, "Arb: efficient arbitrary-precision
  midpoint-radius interval arithmetic", IEEE Trans. Computers 66 (2017)), whose balls are
  guaranteed to contain the exact result, and keeps the ball's lower bound as the new lower
  endpoint and its upper bound as the new upper endpoint (:func:`down`, :func:`up`): outward
  rounding throughout.  Endpoint form (not midpoint-radius) keeps signs: ``[0, w]² = [0, w²]``.

The inclusion property (Moore, Kearfott, Cloud, *Introduction to Interval Analysis*, SIAM
2009, Thm 5.1 — the fundamental theorem of interval arithmetic): for every point ``θ`` of
the box ``X``, ``f(θ) ∈ F(X)``.  Each operation below is an inclusion function: a monotone
function is applied at the endpoints, ``x²ᵏ``, ``|x|``, ``cosh`` use their minimum at 0,
other functions go through an Arb ball enclosing the interval.  A function undefined
somewhere on the box (``log`` of an interval reaching 0, a division by an interval
containing 0) raises :class:`Undefined`: the box cannot be settled as it is.

**Numbers: one rule for all three evaluators.**  Rational constants are exact (``fmpq``).  A
Python ``float`` anywhere — a side, a box end, an allowance — and a SymPy ``Float`` inside an
expression are the exact binary number they store, ``sympy.Rational(fractions.Fraction(v))``
(:func:`as_expr` rewrites every ``Float`` of an expression into that ``Rational``, so float64,
mpmath and ball arithmetic all evaluate the same number).  ``0.1`` is therefore
``3602879701896397/36028797018963968``, the double nearest to 1/10, exactly as a box end
``0.1`` is: ``x ≤ 0.1`` on ``Box(x=(0, 0.1))`` holds.  Write ``sympy.Rational(1, 10)`` for
the decimal 1/10.  Supported: ``+ − × ÷``, integer, rational and real powers, ``exp log sqrt log1p
expm1 sin cos tan atan asinh sinh cosh tanh erf erfc Abs Min Max``, ``π``, ``e``.
"""
from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

__all__ = ["Iv", "Undefined", "UnsupportedExpression", "compile_interval", "FloatEvaluator",
           "MpEvaluator", "IntervalEvaluator", "as_expr", "free_names", "down", "up", "PREC"]

#: Working precision (bits) of the ball arithmetic behind every interval operation.
PREC = 128


class Undefined(ArithmeticError):
    """The expression is not defined (or not bounded) on the whole interval box."""


class UnsupportedExpression(ValueError):
    """The expression uses a function without an interval extension here."""


def _flint():
    try:
        import flint
    except ImportError as exc:                                     # pragma: no cover - dependency
        raise ImportError("certified verdicts need python-flint (pip install python-flint)") from exc
    return flint


# -- outward rounding: the two places every endpoint passes through ---------------------------

def down(ball):
    """An exact number ≤ every point of ``ball`` (Arb's certified lower bound; NaN stays NaN,
    and every comparison with NaN is false, so a NaN never settles a box)."""
    return ball.lower()


def up(ball):
    """An exact number ≥ every point of ``ball`` (Arb's certified upper bound)."""
    return ball.upper()


class Iv:
    """A closed interval ``[lo, hi]`` with exact ``arb`` endpoints (radius 0)."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi=None):
        self.lo = lo
        self.hi = lo if hi is None else hi

    @classmethod
    def ball(cls, b) -> "Iv":
        """The interval hull of an Arb ball (outward)."""
        if not b.is_finite():
            raise Undefined(f"non-finite ball {b}")
        return cls(down(b), up(b))

    @property
    def is_point(self) -> bool:
        return self.lo == self.hi

    def as_ball(self):
        """An Arb ball containing the interval."""
        return self.lo if self.is_point else self.lo.union(self.hi)

    def __repr__(self) -> str:
        return f"[{self.lo.mid().str(12, radius=False)}, {self.hi.mid().str(12, radius=False)}]"


def _min(vals):
    m = vals[0]
    for v in vals[1:]:
        if v < m:
            m = v
    return m


def _max(vals):
    m = vals[0]
    for v in vals[1:]:
        if v > m:
            m = v
    return m


def iv_add(a: Iv, b: Iv) -> Iv:
    return Iv(down(a.lo + b.lo), up(a.hi + b.hi))


def iv_neg(a: Iv) -> Iv:
    return Iv(-a.hi, -a.lo)


def iv_mul(a: Iv, b: Iv) -> Iv:
    if a.lo == a.hi:
        if b.lo == b.hi:
            p = a.lo * b.lo
            return Iv(down(p), up(p))
        a, b = b, a
    if b.lo == b.hi:
        p, q = a.lo * b.lo, a.hi * b.lo
        return Iv(down(p), up(q)) if b.lo >= 0 else Iv(down(q), up(p))
    ps = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
    return Iv(_min([down(p) for p in ps]), _max([up(p) for p in ps]))


def iv_recip(b: Iv) -> Iv:
    if not (b.lo > 0 or b.hi < 0):
        raise Undefined("division by an interval containing 0")
    return Iv(down(1 / b.hi), up(1 / b.lo))


def iv_powi(a: Iv, n: int) -> Iv:
    if n == 0:
        return Iv(a.lo * 0 + 1)
    if n < 0:
        return iv_recip(iv_powi(a, -n))
    plo, phi = a.lo ** n, a.hi ** n
    if n % 2 == 1 or a.lo >= 0:
        return Iv(down(plo), up(phi))
    if a.hi <= 0:
        return Iv(down(phi), up(plo))
    return Iv(a.lo * 0, _max([up(plo), up(phi)]))


def _monotone(fname: str, increasing: bool = True, lower_ok: Callable | None = None):
    def op(a: Iv) -> Iv:
        if lower_ok is not None and not lower_ok(a.lo):
            raise Undefined(f"{fname} is not defined on the whole interval {a}")
        flo, fhi = getattr(a.lo, fname)(), getattr(a.hi, fname)()
        if not (flo.is_finite() and fhi.is_finite()):
            raise Undefined(f"{fname} is not finite on {a}")
        return Iv(down(flo), up(fhi)) if increasing else Iv(down(fhi), up(flo))
    return op


def _via_ball(fname: str):
    def op(a: Iv) -> Iv:
        return Iv.ball(getattr(a.as_ball(), fname)())
    return op


def iv_abs(a: Iv) -> Iv:
    if a.lo >= 0:
        return a
    if a.hi <= 0:
        return iv_neg(a)
    return Iv(a.lo * 0, _max([-a.lo, a.hi]))


def iv_cosh(a: Iv) -> Iv:
    c_lo, c_hi = a.lo.cosh(), a.hi.cosh()
    if a.lo >= 0:
        return Iv(down(c_lo), up(c_hi))
    if a.hi <= 0:
        return Iv(down(c_hi), up(c_lo))
    return Iv(a.lo * 0 + 1, _max([up(c_lo), up(c_hi)]))


def iv_pow_real(a: Iv, y) -> Iv:
    """``a**y`` for an exact real ``y`` (not an integer): needs ``a ≥ 0`` (``> 0`` when ``y < 0``)."""
    if y > 0:
        if not a.lo >= 0:
            raise Undefined(f"x**{y} needs x ≥ 0, got {a}")
        lo = a.lo * 0 if a.lo == 0 else down(a.lo ** y)
        return Iv(lo, up(a.hi ** y) if a.hi > 0 else a.hi * 0)
    if not a.lo > 0:
        raise Undefined(f"x**{y} needs x > 0, got {a}")
    return Iv(down(a.hi ** y), up(a.lo ** y))


_POS = (lambda lo: lo > 0)
_NONNEG = (lambda lo: lo >= 0)

_UNARY = {
    "exp": _monotone("exp"),
    "log": _monotone("log", lower_ok=_POS),
    "sqrt": _monotone("sqrt", lower_ok=_NONNEG),
    "log1p": None,        # filled below (needs lo > −1)
    "expm1": _monotone("expm1"),
    "atan": _monotone("atan"),
    "asinh": _monotone("asinh"),
    "sinh": _monotone("sinh"),
    "tanh": _monotone("tanh"),
    "erf": _monotone("erf"),
    "erfc": _monotone("erfc", increasing=False),
    "cosh": iv_cosh,
    "sin": _via_ball("sin"),
    "cos": _via_ball("cos"),
    "tan": _via_ball("tan"),
    "Abs": iv_abs,
}
_UNARY["log1p"] = _monotone("log1p", lower_ok=lambda lo: lo > -1)


# -- SymPy -> interval program ------------------------------------------------------------

def as_expr(value, what: str = "expression"):
    """``value`` as a SymPy expression, every number exact (the module's rule for numbers):
    an ``int`` is an ``Integer``; a ``float`` — and every SymPy ``Float`` inside an
    expression — is the binary number it stores, ``sympy.Rational(fractions.Fraction(v))``
    (never the decimal ``nsimplify`` would guess: ``0.1`` is not 1/10)."""
    import fractions

    import sympy as sp

    if isinstance(value, sp.Basic):
        floats = value.atoms(sp.Float)
        if floats:
            value = value.xreplace({f: sp.Rational(f) for f in floats})
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"{what} must be a finite number, got {value!r}")
            return sp.Rational(fractions.Fraction(value))
        return sp.Integer(value)
    raise TypeError(f"{what} must be a SymPy expression, got {type(value).__name__}")


def tree_text(value) -> str:
    """The exact tree of a SymPy expression as text (its pickle, base64): :func:`from_tree_text`
    rebuilds the very same tree, where re-parsing ``str(expr)`` would evaluate it again
    (``exp(log(x))`` built unevaluated would come back as ``x``).  ``srepr`` is not exact
    either: it writes the coefficient −1/2 as ``Integer(-1), Rational(1, 2)``."""
    import base64
    import pickle

    return base64.b64encode(pickle.dumps(as_expr(value), protocol=4)).decode("ascii")


def from_tree_text(text: str):
    """The expression :func:`tree_text` wrote, rebuilt with evaluation off (no rewriting).
    Only for text this module wrote (it is a pickle)."""
    import base64
    import pickle

    import sympy as sp

    if not isinstance(text, str):
        raise TypeError(f"tree text must be a string, got {type(text).__name__}")
    with sp.evaluate(False):
        return pickle.loads(base64.b64decode(text))          # noqa: S301 - our own pickle of a SymPy tree


def free_names(expr) -> set:
    return {s.name for s in expr.free_symbols}


def _const(flint, value):
    """An exact-endpoint interval enclosing the SymPy number ``value``."""
    import sympy as sp

    if value is sp.pi:
        return Iv.ball(flint.arb.pi())
    if value is sp.E:
        return Iv.ball(flint.arb.const_e())
    if isinstance(value, sp.Float):
        value = sp.Rational(value)          # the binary number the Float stores, exactly
    if isinstance(value, sp.Rational):
        b = flint.arb(flint.fmpq(int(value.p), int(value.q)))
        return Iv(down(b), up(b)) if not b.is_exact() else Iv(b)
    if value.is_number and value.is_real:
        raise UnsupportedExpression(f"constant {value} (write it with +, ×, ÷, powers and the supported "
                                    f"functions)")
    raise UnsupportedExpression(f"non-real constant {value}")


def compile_interval(expr, names: Sequence[str]) -> Callable[[Mapping[str, Iv]], Iv]:
    """``F(env) -> Iv``: an inclusion function of ``expr`` (``env`` maps names to intervals).

    Raises :class:`UnsupportedExpression` naming the first function without an interval
    extension."""
    import sympy as sp

    flint = _flint()
    with flint.ctx.workprec(PREC):
        return _compile(sp, flint, as_expr(expr), set(names))


def _compile(sp, flint, e, names):
    if isinstance(e, sp.Symbol):
        if e.name not in names:
            raise UnsupportedExpression(f"symbol {e.name!r} is not a coordinate of the domain ({sorted(names)})")
        nm = e.name
        return lambda env: env[nm]
    if e.is_Number or e in (sp.pi, sp.E):
        c = _const(flint, e)
        return lambda env: c
    if isinstance(e, sp.Add):
        parts = [_compile(sp, flint, a, names) for a in e.args]

        def add(env):
            acc = parts[0](env)
            for p in parts[1:]:
                acc = iv_add(acc, p(env))
            return acc
        return add
    if isinstance(e, sp.Mul):
        # c·x⁻¹ terms become divisions (one rounding, and no reciprocal of a point)
        parts = [_compile(sp, flint, a, names) for a in e.args]

        def mul(env):
            acc = parts[0](env)
            for p in parts[1:]:
                acc = iv_mul(acc, p(env))
            return acc
        return mul
    if isinstance(e, sp.Pow):
        base, ex = e.args
        b = _compile(sp, flint, base, names)
        if ex.is_Integer:
            n = int(ex)
            return lambda env: iv_powi(b(env), n)
        if ex == sp.Rational(1, 2):
            f = _UNARY["sqrt"]
            return lambda env: f(b(env))
        if ex == sp.Rational(-1, 2):
            f = _UNARY["sqrt"]
            return lambda env: iv_recip(f(b(env)))
        if ex.is_Rational or ex.is_Float:
            q = sp.Rational(ex)
            yb = flint.arb(flint.fmpq(int(q.p), int(q.q)))
            if not yb.is_exact():                       # e.g. 1/3: x**(1/3) through exp(y log x)
                y = _compile(sp, flint, ex, names)
                return lambda env: _UNARY["exp"](iv_mul(y(env), _UNARY["log"](b(env))))
            return lambda env: iv_pow_real(b(env), yb)
        y = _compile(sp, flint, ex, names)
        return lambda env: _UNARY["exp"](iv_mul(y(env), _UNARY["log"](b(env))))
    if isinstance(e, (sp.Min, sp.Max)):
        parts = [_compile(sp, flint, a, names) for a in e.args]
        pick = (_min, _min) if isinstance(e, sp.Min) else (_max, _max)

        def minmax(env):
            vals = [p(env) for p in parts]
            return Iv(pick[0]([v.lo for v in vals]), pick[1]([v.hi for v in vals]))
        return minmax
    fname = type(e).__name__
    if fname == "log" and len(e.args) == 2:
        return _compile(sp, flint, sp.log(e.args[0]) / sp.log(e.args[1]), names)
    if fname in _UNARY and len(e.args) == 1:
        f = _UNARY[fname]
        a = _compile(sp, flint, e.args[0], names)
        return lambda env: f(a(env))
    raise UnsupportedExpression(
        f"{fname} has no interval extension here (supported: + − × ÷, powers, "
        f"{', '.join(sorted(_UNARY))}, Min, Max, pi, E)")


# -- the three evaluators (picklable: they keep the expression text, compile lazily) ----------

class _Lazy:
    """Keeps ``(exprs, names)``; the compiled function is cached outside the pickled state and
    outside the fingerprint (which sees the expression text only)."""

    def __init__(self, exprs, names):
        self.exprs = tuple(str(as_expr(e)) for e in exprs)
        self.trees = tuple(tree_text(e) for e in exprs)
        self.names = tuple(names)

    def __getstate__(self):
        return {"exprs": self.exprs, "trees": self.trees, "names": self.names}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _symbols(self):
        import sympy as sp

        return [sp.Symbol(n) for n in self.names]

    def _parsed(self):
        import sympy as sp

        trees = self.__dict__.get("trees")
        if trees:
            out = []
            for t in trees:
                e = from_tree_text(t)
                rule = {s: sp.Symbol(s.name) for s in e.free_symbols if s.name in self.names}
                with sp.evaluate(False):               # the coordinates as the plain symbols lambdify takes
                    out.append(e.xreplace(rule))
            return out
        loc = {n: sp.Symbol(n) for n in self.names}
        return [sp.sympify(t, locals=loc) for t in self.exprs]

    def _compiled(self):
        fn = self.__dict__.get("__fn")
        if fn is None:
            fn = self._compile()
            self.__dict__["__fn"] = fn
        return fn

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self.exprs)})"


class FloatEvaluator(_Lazy):
    """``(**coords) -> float`` of one expression, by ``lambdify(..., "numpy")``."""

    def _compile(self):
        import sympy as sp

        return sp.lambdify(self._symbols(), self._parsed()[0], modules="numpy")

    def __call__(self, **kw):
        # NumPy scalars, not Python floats: 0.0**-1 and 1/0.0 are ±inf/NaN (IEEE 754), as in
        # every other float64 evaluation of the search, not a ZeroDivisionError
        import numpy as np

        with np.errstate(all="ignore"):
            return float(self._compiled()(*[np.float64(kw[n]) for n in self.names]))


class MpEvaluator(_Lazy):
    """``(**coords as mpmath numbers) -> mpf`` of one expression, by ``lambdify(..., "mpmath")``."""

    def _compile(self):
        import sympy as sp

        return sp.lambdify(self._symbols(), self._parsed()[0], modules="mpmath")

    def __call__(self, **kw):
        # a pole hit exactly (1/0) is "undefined here", as NaN is in float64 — not a crash
        import mpmath

        try:
            return self._compiled()(*[kw[n] for n in self.names])
        except (ZeroDivisionError, OverflowError):
            return mpmath.nan


class IntervalEvaluator(_Lazy):
    """``(env of Iv) -> Iv`` of one expression (:func:`compile_interval`)."""

    def _compile(self):
        return compile_interval(self._parsed()[0], self.names)

    def __call__(self, env):
        return self._compiled()(env)


def width_float(iv: Iv) -> float:
    return float((iv.hi - iv.lo).mid()) if not iv.is_point else 0.0


def to_float(x) -> float:
    """An exact ``arb`` as the nearest float (for reports only)."""
    v = float(x.mid())
    return v if math.isfinite(v) else math.nan
