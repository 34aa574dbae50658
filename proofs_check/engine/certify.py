"""Certified verdicts: branch-and-bound over a box in ball arithmetic (``docs/theory/engine.md`` §4).

:func:`certify_nonnegative` decides ``g(θ) + a(θ) ≥ 0`` for every θ of a closed bounded box,
where ``g`` and the allowance ``a ≥ 0`` are SymPy expressions (an inequality ``lhs ≤ rhs``
with the claim's float allowance is ``g = rhs − lhs``, ``a = atol + rtol·|rhs|``).  Boxes are
kept with exact binary endpoints and evaluated with the inclusion functions of
:mod:`.expr` (outward rounding in Arb; Moore–Kearfott–Cloud 2009, Thm 5.1).  For each box
``X`` the lower bound of ``g`` on ``X`` is the best of

1. the **natural extension** ``G(X)``;
2. a **monotonicity reduction**: when the interval of ``∂g/∂x_i`` on ``X`` is ``≥ 0``
   (``≤ 0``) the minimum of ``g`` over ``X`` lies on the face ``x_i = lo_i`` (``hi_i``), so
   the box is replaced by that face (recursively; a box whose every coordinate is fixed is
   one exact point).  This is what proves inequalities tight at a corner of a box — e.g.
   ``log(1+x) ≥ x − x²/2`` at ``x = 0``: ``∂/∂x = x²/(1+x) ≥ 0`` — exactly, with no tolerance;
3. **mean-value forms** ``g(e) + Σ_i ∂_i g(X)·(X_i − e_i)`` expanded at the centre and at
   the two extreme corners (all corners in ≤ 2 dimensions) — the Taylor/Lipschitz argument at
   a contact point: the error is ``O(width²)`` instead of ``O(width)`` (Neumaier,
   *Interval Methods for Systems of Equations*, CUP 1990, §2.3).

Each partial derivative comes from ``sympy.diff``; a rational derivative is also rewritten
as ``factor(together(·))``.

**Premises before rules** (issue 31; Tucker, *Validated Numerics*, 2011, §3: a mean-value or
monotonicity argument is valid only where the function is shown continuous and
differentiable on the box).  Rules 2 and 3, and the mean-value refinement of a derivative
enclosure by second derivatives, are applied on a box ``X`` only when

(a) the natural extension of ``g`` succeeded on ``X`` (switch
    ``_PREMISES["g_enclosed_before_derivative"]``).  Every supported operation of
    :mod:`.expr` raises :class:`~.expr.Undefined` unless it is defined on its whole
    argument interval (a division by an interval containing 0, ``log``/``sqrt``/real powers
    reaching outside their domain, ``tan`` across a pole: Arb returns a non-finite ball),
    and every supported operation is continuous on its domain (``+ − × ÷``, powers,
    ``exp log sqrt log1p expm1 sin cos tan atan asinh sinh cosh tanh erf erfc Abs Min
    Max``).  So a successful enclosure on ``X`` implies that ``g`` is defined and continuous
    on ``X``.  Without this premise a derivative that SymPy has simplified proves false
    statements: ``d/dx atan(tan x) = 1`` everywhere, while ``atan(tan x)`` jumps by π at π/2;
    and
(b) the enclosure of the derivative used comes from the derivative *as differentiated*,
    which succeeded on ``X`` (switch ``_PREMISES["as_differentiated_derivative"]``); the
    ``factor(together(·))`` form only narrows it by intersection, never replaces it.  (The
    simplified ``d/dx atan(1/(x − a)) = −1/((x − a)² + 1)`` is defined across the jump at
    ``a``; the form as differentiated, ``−1/((1 + (x − a)⁻²)(x − a)²)``, is not.)  The same
    holds one level up: a Hessian row refines ``∂_i g`` only when ``∂_i g`` and the row were
    both enclosed as differentiated on ``X``.

Why (a) and (b) give differentiability on the interior of ``X``.  The chain rule gives
``∂_i g`` at every point where each node of ``g`` is differentiable.  For the supported
operations a node defined at a point is differentiable there except: ``Abs`` at 0,
``Min``/``Max`` at ties, ``sqrt`` and ``u**y`` (``0 < y < 1``) at ``u = 0``.  SymPy 1.14
differentiates these (real coordinates) into ``sign(u)`` (``Abs``), ``Heaviside`` (``Min``,
``Max``), ``1/(2 sqrt(u))`` and ``y·u**(y − 1)`` — ``sign`` and ``Heaviside`` have no interval
extension here (the derivative does not compile: no derivative rule on any box), and the last
two are undefined on any interval reaching ``u = 0`` (:class:`~.expr.Undefined`).  ``u**y`` with
``y > 1`` is differentiable at ``u = 0`` with the derivative the formula gives (0).  A
successful enclosure of the derivative as differentiated on ``X`` therefore encloses the true
derivative at every interior point (checked in ``tests/engine/test_certify_premises.py``).
``Piecewise``, ``floor``, ``ceiling``, ``sign``, ``Heaviside``, ``Mod`` in ``g`` have no
interval extension: such a claim is "undecided (not certifiable)", never settled.

**Integer coordinates** (``integer=``) are certified slice by slice: each integer value in
``[⌈lo⌉, ⌊hi⌋]`` is fixed as an exact point and the continuous coordinates are branched as
above (switch ``_PREMISES["integer_slices"]``); more than ``MAX_INTEGER_SLICES`` slices is
"undecided".  Every refutation point is then integral on those coordinates.

**The statement proved is the statement printed.**  The allowance ``a`` is part of the
certificate (``proved_statement`` and ``allowance`` in :meth:`Certificate.to_dict`): with
``a = 0`` it reads ``lhs ≤ rhs``, otherwise ``lhs ≤ rhs + 0.0001`` or ``lhs ≤ rhs +
1e-09·|rhs|``; identities read ``|lhs − rhs| ≤ tol·scale`` with their ``tol_mode``.

A box is **settled** when the certified lower bound of ``g + a`` on it is ``≥ 0``.  A box is
**refuted** when at its centre or one of its extreme corners — an exact binary point of the
declared box — the certified upper bound of ``g + a`` is ``< 0``: a counterexample confirmed
in ball arithmetic.  Other boxes are split in two along the coordinate with the largest
``width × |∂g/∂x_i|`` (the largest relative width without derivatives), most negative
lower bound first, until all are settled (``proved``), a counterexample is confirmed
(``refuted``) or the box/time budget is spent (``undecided``: the uncertified volume and
its boxes are reported).  Inequalities tight along a curve inside the box (Pinsker at
``p = q``) can be proved only up to a positive allowance ``atol`` — the δ of δ-complete
decision procedures (Gao, Avigad, Clarke, "δ-complete decision procedures for
satisfiability over the reals", IJCAR 2012).
"""
from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, Sequence

from . import expr as _expr
from .expr import Iv, Undefined, UnsupportedExpression, down, up

__all__ = ["Certificate", "certify_nonnegative", "certify_inequality", "certify_identity",
           "box_bounds", "MAX_BOXES", "MAX_SECONDS", "MAX_INTEGER_SLICES", "Certifier", "upgrade"]

#: Default budget of one certification.
MAX_BOXES = 40_000
MAX_SECONDS = 10.0
#: A box is accepted when its lower bound is ≥ −_ACCEPT_SLACK (0: no slack; a mutation test
#: sets it > 0 and watches the soundness suite fail).
_ACCEPT_SLACK = 0
#: Boxes narrower than this fraction of the declared width are not split further.
_MIN_REL_WIDTH = 2.0 ** -90
#: How many uncertified boxes a certificate lists.
_SHOW = 5
#: More integer slices than this: the certification is undecided (not attempted).
MAX_INTEGER_SLICES = 4096
#: The symbolic identity proof needs both sides shown defined on the box: natural enclosures
#: on the box or on every sub-box of a bisection of at most this many boxes.
_DEFINED_BOXES = 256
#: ``simplify``/``equals`` are skipped above this ``count_ops`` of ``lhs − rhs`` (they may
#: not return), and the ``factor(together(·))`` form of a derivative above this many nodes.
_SYMBOLIC_MAX_OPS = 400
_SIMPLER_MAX_NODES = 300
#: Second derivatives are not formed for ``g`` above this many nodes (or > 4 coordinates),
#: first derivatives not above ``_DERIVATIVE_MAX_NODES`` (``sympy.diff`` of a large sum takes
#: seconds per coordinate and cannot be interrupted; the natural extension alone remains).
_HESSIAN_MAX_NODES = 1500
_DERIVATIVE_MAX_NODES = 3000

#: The premise checks; each is skipped when its switch is False (mutation tests only:
#: ``tests/engine/test_certify_premises.py`` shows that each one matters).
_PREMISES = {
    "g_enclosed_before_derivative": True,     # (a) of the module docstring
    "as_differentiated_derivative": True,     # (b)
    "symbolic_needs_defined": True,           # certify_identity: both sides defined on the box
    "integer_slices": True,                   # integer coordinates certified slice by slice
    "counterexample_in_domain": True,         # upgrade: a refutation point in the declared domain
}


def _boxes(n) -> str:
    return f"{n} box" if n == 1 else f"{n} boxes"


@dataclass
class Certificate:
    """The outcome of a certification: ``proved``, ``refuted`` or ``undecided``.

    ``proved_statement`` is the statement the certification is about, with its allowance
    written out (``lhs ≤ rhs`` exactly when ``allowance == "0"``); ``notes`` are remarks that
    do not change the status (e.g. symbolic preprocessing skipped)."""

    status: str
    boxes: int
    seconds: float
    min_width: float
    names: tuple
    method: str = "ball arithmetic (python-flint Arb), branch-and-bound"
    uncertified_fraction: float = 0.0
    uncertified: list = field(default_factory=list)
    counterexample: dict | None = None
    counterexample_exact: dict | None = None
    margin_upper: float | None = None
    reason: str = ""
    proved_statement: str = ""
    allowance: str = "0"
    notes: tuple = ()

    def to_dict(self) -> dict:
        d = {"status": self.status, "method": self.method, "boxes": self.boxes,
             "seconds": round(self.seconds, 4), "min_width": self.min_width,
             "proved_statement": self.proved_statement, "allowance": self.allowance}
        if self.status == "undecided":
            d["uncertified_fraction"] = self.uncertified_fraction
            d["uncertified_boxes"] = self.uncertified
        if self.counterexample is not None:
            d["counterexample"] = self.counterexample
            d["counterexample_exact"] = self.counterexample_exact
            d["margin_upper"] = self.margin_upper
        if self.reason:
            d["reason"] = self.reason
        if self.notes:
            d["notes"] = list(self.notes)
        return d

    def sentence(self) -> str:
        base = f"{_boxes(self.boxes)}, smallest width {self.min_width:.3g}, {self.seconds:.2f} s"
        notes = "".join(f"; {n}" for n in self.notes)
        allow = "" if self.allowance in ("", "0") else f" with the declared allowance {self.allowance}"
        stmt = f" {self.proved_statement}" if self.proved_statement else ""
        if self.status == "proved":
            return f"proved in ball arithmetic{allow}:{stmt} ({base}){notes}"
        if self.status == "refuted":
            return (f"counterexample confirmed in ball arithmetic at {self.counterexample} "
                    f"(rhs − lhs + allowance ≤ {self.margin_upper:.3g} < 0, allowance {self.allowance}); "
                    f"{base}{notes}")
        where = "; ".join(", ".join(f"{k} ∈ [{a:.6g}, {b:.6g}]" for k, (a, b) in bx.items())
                          for bx in self.uncertified[:3])
        why = f" ({self.reason})" if self.reason else ""
        return (f"certification undecided{why}: {self.uncertified_fraction:.3g} of the box volume "
                f"uncertified after {base}" + (f"; e.g. {where}" if where else "") + notes)


def _exact(flint, v):
    """A Python number as an exact ``fmpq``."""
    if isinstance(v, Fraction):
        return flint.fmpq(v.numerator, v.denominator)
    if isinstance(v, int):
        return flint.fmpq(v)
    f = Fraction(float(v))
    return flint.fmpq(f.numerator, f.denominator)


def _fmpq_of(x):
    return x.mid().fmpq()


def _size_at_most(sp, e, limit: int) -> bool:
    """Whether ``e`` has at most ``limit`` nodes (stops counting early)."""
    for k, _ in enumerate(sp.preorder_traversal(e)):
        if k >= limit:
            return False
    return True


class _Program:
    """``g``, its partial derivatives (as differentiated, plus a simplified form) and the
    allowance, compiled."""

    def __init__(self, g, allowance, names, deadline: float = math.inf):
        import sympy as sp

        self.names = tuple(names)
        #: after ``deadline`` (half the time budget) no more simplified forms are built
        self.deadline = deadline
        # differentiate with respect to the very symbols of g (real ones: see _real); a
        # symbol of the same name with other assumptions would give ∂g/∂x = 0
        syms = [sp.Symbol(n, real=True) for n in names]
        stray = {s for s in g.free_symbols if s.name in names} - set(syms)
        if stray:
            raise ValueError(f"internal: symbols {stray} are not the real coordinates {syms}")
        self.g = _expr.compile_interval(g, names)
        self.allow = None if allowance is None or allowance == 0 else _expr.compile_interval(allowance, names)
        self.grad, self.hess = [], []
        self.notes = ()
        #: small enough for derivatives and for the float contact-point search
        self.small = _size_at_most(sp, g, _DERIVATIVE_MAX_NODES)
        if not self.small:
            self.grad = [(None, None)] * len(syms)
            self.hess = [None] * len(syms)
            self.notes = (f"derivative forms skipped: expression too large (> {_DERIVATIVE_MAX_NODES} nodes)",)
            return
        hessian = len(syms) <= 4 and _size_at_most(sp, g, _HESSIAN_MAX_NODES)
        for s in syms:
            d = sp.diff(g, s)
            self.grad.append(_forms(sp, d, names, deadline))
            # the row of second derivatives: a mean-value form of ∂g/∂x_i (for monotonicity
            # near a contact point, where the natural enclosure of ∂g/∂x_i straddles 0)
            self.hess.append([_forms(sp, sp.diff(d, t), names, deadline) for t in syms] if hessian else None)

    def g_on(self, env):
        """The natural extension of ``g`` on ``env``, or ``None`` where it is not defined."""
        try:
            return self.g(env)
        except Undefined:
            return None

    def grad_iv(self, i, env, box=None):
        """An enclosure of ``∂g/∂x_i`` on the box ``env`` (``None``: no derivative rule here).

        The caller has established premise (a) (``g`` enclosed on the box).  The enclosure
        is the derivative as differentiated (premise (b)), narrowed by its simplified form
        and by a mean-value form of ``∂g/∂x_i`` at the two extreme corners with the Hessian
        row — the latter only when the row, as differentiated, is enclosed on the box."""
        out = _best(self.grad[i], env)
        if out is None or box is None or self.hess[i] is None or out.lo >= 0 or out.hi <= 0:
            return out
        free = [j for j, b in enumerate(box) if not b.is_point]
        rows = {j: _best(self.hess[i][j], env) for j in free}
        if any(r is None for r in rows.values()):
            return out
        for e in ([Iv(b.lo) for b in box], [Iv(b.hi) for b in box]):
            v = _best(self.grad[i], dict(zip(self.names, e)))
            if v is None:
                continue
            try:
                for j in free:
                    h = Iv(down(box[j].lo - e[j].lo), up(box[j].hi - e[j].lo))
                    v = _expr.iv_add(v, _expr.iv_mul(rows[j], h))
            except Undefined:
                continue
            out = _intersect(out, v)
            if out.lo >= 0 or out.hi <= 0:
                break
        return out


def _intersect(a, b):
    lo = b.lo if b.lo > a.lo else a.lo
    hi = b.hi if b.hi < a.hi else a.hi
    return a if lo > hi else Iv(lo, hi)


def _forms(sp, d, names, deadline: float = math.inf):
    """``(as differentiated, simplified)``: inclusion functions of ``d`` as SymPy returned it
    and of its ``factor(together(·))`` form; either is ``None`` when it does not compile
    (e.g. ``sign``/``Heaviside`` from ``Abs``/``Min``/``Max``: no interval extension)."""
    out = []
    for cand in (d, _simpler(sp, d) if time.perf_counter() < deadline else None):
        f = None
        if cand is not None:
            try:
                f = _expr.compile_interval(cand, names)
            except UnsupportedExpression:
                f = None
        out.append(f)
    return tuple(out)


def _best(forms, env):
    """The enclosure of a derivative on ``env``: the form as differentiated, intersected with
    the simplified form where that succeeds too; ``None`` when the form as differentiated
    does not compile or is not defined on ``env`` (premise (b) of the module docstring: a
    simplified derivative may be defined across a pole or a jump of ``g``)."""
    primary, simplified = forms
    if not _PREMISES["as_differentiated_derivative"]:          # mutation: either form alone
        out = None
        for f in forms:
            if f is None:
                continue
            try:
                v = f(env)
            except Undefined:
                continue
            out = v if out is None else _intersect(out, v)
        return out
    if primary is None:
        return None
    try:
        out = primary(env)
    except Undefined:
        return None
    if simplified is not None:
        try:
            out = _intersect(out, simplified(env))
        except Undefined:
            pass
    return out


def _simpler(sp, d):
    # rational functions only: sympy's polynomial machinery turns exp(c·x²) with a large c
    # into a power of a generator and may never return
    if not _size_at_most(sp, d, _SIMPLER_MAX_NODES) or not d.is_rational_function():
        return None
    try:
        c = sp.factor(sp.together(d))
    except Exception:                                   # noqa: BLE001 - a failed rewrite is no form
        return None
    return None if c == d else c


def _lower(prog: _Program, box: list, zero, need=None):
    """(certified lower bound of g on ``box`` or ``None``, gradient intervals); stops early
    once the bound reaches ``need``.

    The derivative rules (monotonicity reduction, mean-value forms) run only when the
    natural extension of ``g`` succeeded on this very box (premise (a)) and the derivative
    used was enclosed as differentiated (premise (b), in :meth:`_Program.grad_iv`)."""
    env = dict(zip(prog.names, box))
    best = None
    gv = prog.g_on(env)
    if gv is not None:
        best = gv.lo
    elif _PREMISES["g_enclosed_before_derivative"]:
        return None, {}                  # g not shown continuous on the box: no derivative rule
    if need is not None and best is not None and best >= need:
        return best, {}
    free = [i for i, b in enumerate(box) if not b.is_point]
    if not free:
        return best, {}
    grads = {i: prog.grad_iv(i, env, box) for i in free}
    reduced = list(box)
    fixed = False
    for i, gi in grads.items():
        if gi is None:
            continue
        if gi.lo >= 0:
            reduced[i], fixed = Iv(box[i].lo), True
        elif gi.hi <= 0:
            reduced[i], fixed = Iv(box[i].hi), True
    if fixed:
        sub, _ = _lower(prog, reduced, zero, need)
        if sub is not None and (best is None or sub > best):
            best = sub
        return best, grads
    if any(g is None for g in grads.values()):
        return best, grads
    for e in _expansion_points(box, free):
        try:
            acc = prog.g(dict(zip(prog.names, e)))
            for i in free:
                h = Iv(down(box[i].lo - e[i].lo), up(box[i].hi - e[i].lo))
                acc = _expr.iv_add(acc, _expr.iv_mul(grads[i], h))
        except Undefined:
            continue
        if best is None or acc.lo > best:
            best = acc.lo
        if need is not None and best >= need:
            break
    return best, grads


def _expansion_points(box, free):
    centre = [b if b.is_point else Iv(_mid(b)) for b in box]
    pts = [centre]
    if len(free) <= 2:
        for corner in itertools.product((0, 1), repeat=len(free)):
            p = list(box)
            for k, i in enumerate(free):
                p[i] = Iv(box[i].hi if corner[k] else box[i].lo)
            pts.append([b if b.is_point else Iv(b.lo) for b in p])
    else:
        pts.append([Iv(b.lo) for b in box])
        pts.append([Iv(b.hi) for b in box])
    return pts


def _mid(b: Iv):
    m = ((b.lo + b.hi) / 2).mid()
    return m


def _allow_lower(prog, box, zero):
    if prog.allow is None:
        return zero
    try:
        a = prog.allow(dict(zip(prog.names, box))).lo
    except Undefined:
        return zero
    return a if a > zero else zero


def _point_violation(prog, point, zero):
    """Certified upper bound of ``g + a`` at an exact point, when it is < 0 (else ``None``)."""
    env = dict(zip(prog.names, point))
    try:
        g = prog.g(env)
        a = prog.allow(env) if prog.allow is not None else Iv(zero)
    except Undefined:
        return None
    total = up(g.hi + a.hi)
    return total if total < 0 else None


def _contact_points(g, allowance, names, lo, hi, starts: int = 6, seed: int = 0):
    """Candidate contact points: local minima of ``g + allowance`` found in float64
    (L-BFGS-B from the centre and ``starts`` seeded random points) where the value is within
    ``1e-9`` of 0, snapped to simple rationals (``limit_denominator(10**6)``).  Splitting the
    box there makes a contact point a vertex of the sub-boxes, where the monotonicity and
    corner mean-value forms settle it exactly (binary coordinates only: :func:`_split_at`).  A heuristic for speed only: soundness never depends on it."""
    import numpy as np
    import sympy as sp
    from scipy.optimize import minimize

    try:
        f = sp.lambdify([sp.Symbol(n, real=True) for n in names], g + (allowance or 0), modules="numpy")
    except Exception:                                        # noqa: BLE001 - no float form: no hint
        return []
    lo_f, hi_f = np.array([float(v) for v in lo]), np.array([float(v) for v in hi])
    rng = np.random.default_rng(seed)
    scale = 1.0
    found = []
    with np.errstate(all="ignore"):
        def obj(x):
            v = float(f(*x))
            return v if math.isfinite(v) else 1e300
        for x0 in [(lo_f + hi_f) / 2] + [rng.uniform(lo_f, hi_f) for _ in range(starts)]:
            try:
                res = minimize(obj, x0, method="L-BFGS-B", bounds=list(zip(lo_f, hi_f)),
                               options={"maxiter": 60})
            except Exception:                                # noqa: BLE001
                continue
            if abs(res.fun) <= 1e-9 * scale:
                # the simplest rational near the minimiser where g + a is still ≈ 0
                pt = None
                for k in range(1, 7):
                    cand = tuple(Fraction(float(v)).limit_denominator(10 ** k) for v in res.x)
                    if all(a <= float(c) <= b for c, a, b in zip(cand, lo_f, hi_f)) \
                            and abs(obj([float(c) for c in cand])) <= 1e-9 * scale:
                        pt = cand
                        break
                if pt is not None and pt not in found:
                    found.append(pt)
    return found[:4]


def _split_at(flint, box, point):
    """``box`` split at the point along every coordinate strictly inside whose value is a
    binary number (a non-binary contact cannot be a vertex: bisection approaches it instead)."""
    out = [box]
    for i, q in enumerate(point):
        b = flint.arb(flint.fmpq(q.numerator, q.denominator))
        if not b.is_exact():
            continue
        cuts = [b]
        nxt = []
        for bx in out:
            iv = bx[i]
            if iv.is_point or not all(iv.lo < c < iv.hi for c in cuts):
                nxt.append(bx)
                continue
            edges = [iv.lo] + cuts + [iv.hi]
            for a, c in zip(edges, edges[1:]):
                child = list(bx)
                child[i] = Iv(a, c)
                nxt.append(child)
        out = nxt
    return out


def _real(e, names):
    """``e`` with its coordinates as real symbols (so that ``Abs(exp(x))`` is ``exp(x)``, not
    ``exp(re(x))``)."""
    import sympy as sp

    if e is None or isinstance(e, (int, float)):
        return e
    e = _expr.as_expr(e)
    # only the symbols that change: xreplace rebuilds (and re-evaluates) every node above a
    # replaced symbol, which takes minutes on a large expression
    rule = {}
    for s in e.free_symbols:
        if s.name in names:
            r = sp.Symbol(s.name, real=True)
            if r is not s:
                rule[s] = r
    if not rule:
        return e
    # rebuilt from its exact tree with evaluation off: the user's tree is the statement (an
    # expression built unevaluated, e.g. exp(log(x)), must not be rewritten to x on the way to
    # the proof)
    with sp.evaluate(False):
        return e.xreplace(rule)


def box_bounds(domain_names, lo, hi):
    """``[(name, lo, hi)]`` checked: finite, ``lo < hi``."""
    if len(lo) != len(domain_names) or len(hi) != len(domain_names):
        raise ValueError(f"box needs one (lo, hi) per coordinate {list(domain_names)}")
    for n, a, b in zip(domain_names, lo, hi):
        if not (math.isfinite(float(a)) and math.isfinite(float(b)) and float(a) <= float(b)):
            raise ValueError(f"coordinate {n}: a certified verdict needs a closed bounded range, got "
                             f"[{a}, {b}]")
    return list(zip(domain_names, lo, hi))


def _integer_names(names, integer) -> tuple:
    if isinstance(integer, str) or not all(isinstance(n, str) for n in integer):
        raise TypeError(f"integer must be a sequence of coordinate names, got {integer!r}")
    integer = tuple(integer)
    bad = [n for n in integer if n not in names]
    if bad:
        raise ValueError(f"integer names {bad} which are not coordinates of the box {list(names)}")
    return integer


def _nonneg_statement(g, allowance):
    a = "0" if allowance is None or allowance == 0 else str(allowance)
    return (f"{g} ≥ 0" if a == "0" else f"{g} + ({a}) ≥ 0"), a


def certify_nonnegative(g, names: Sequence[str], lo: Sequence, hi: Sequence, *, allowance=0,
                        integer: Sequence[str] = (), max_boxes: int = MAX_BOXES,
                        max_seconds: float = MAX_SECONDS, _statement: tuple | None = None) -> Certificate:
    """Decide ``g + allowance ≥ 0`` on the box ``∏ [lo_i, hi_i]`` (see the module docstring).

    ``g``/``allowance``: SymPy expressions in ``names``; ``lo``/``hi``: exact rationals
    (``int``, ``Fraction``, or floats taken as the binary numbers they are).  ``integer``:
    the coordinates that take integer values only; they are certified slice by slice (each
    integer of ``[⌈lo⌉, ⌊hi⌋]`` an exact point; at most :data:`MAX_INTEGER_SLICES` slices)."""
    import flint

    if not isinstance(max_boxes, int) or max_boxes < 1:
        raise ValueError(f"max_boxes must be an integer ≥ 1, got {max_boxes!r}")
    if not (isinstance(max_seconds, (int, float)) and max_seconds > 0):
        raise ValueError(f"max_seconds must be > 0, got {max_seconds!r}")
    box_bounds(names, lo, hi)
    t0 = time.perf_counter()
    names = tuple(names)
    integer = _integer_names(names, integer)
    g, allowance = _real(g, names), _real(allowance, names)
    g = _expr.as_expr(g)
    stmt, allow_text = _statement if _statement is not None else _nonneg_statement(g, allowance)
    label = dict(proved_statement=stmt, allowance=allow_text)
    with flint.ctx.workprec(_expr.PREC):
        try:
            prog = _Program(g, allowance, names, deadline=t0 + max_seconds / 2)
        except UnsupportedExpression as exc:
            return Certificate("undecided", 0, time.perf_counter() - t0, math.nan, names,
                               uncertified_fraction=1.0, reason=f"not certifiable: {exc}", **label)
        label["notes"] = prog.notes
        qlo = [_exact(flint, v) for v in lo]
        qhi = [_exact(flint, v) for v in hi]
        slices = [()]
        idx = [names.index(n) for n in integer] if _PREMISES["integer_slices"] else []
        if idx:
            ranges = []
            for i in idx:
                a = math.ceil(Fraction(int(qlo[i].p), int(qlo[i].q)))
                b = math.floor(Fraction(int(qhi[i].p), int(qhi[i].q)))
                ranges.append(range(a, b + 1))
            count = math.prod(len(r) for r in ranges)
            if count == 0:
                return Certificate("undecided", 0, time.perf_counter() - t0, math.nan, names,
                                   uncertified_fraction=1.0, reason="no integer value in the range of "
                                   + ", ".join(integer), **label)
            if count > MAX_INTEGER_SLICES:
                return Certificate("undecided", 0, time.perf_counter() - t0, math.nan, names,
                                   uncertified_fraction=1.0,
                                   reason=f"not certified: {count} integer slices of {', '.join(integer)} "
                                          f"(more than {MAX_INTEGER_SLICES})", **label)
            slices = list(itertools.product(*ranges))
        n_boxes, min_width = 0, math.inf
        stuck_frac, shown, reasons = 0.0, [], []
        for values in slices:
            slo, shi = list(qlo), list(qhi)
            for i, v in zip(idx, values):
                slo[i] = shi[i] = flint.fmpq(v)
            left_boxes = max_boxes - n_boxes
            if left_boxes < 1 or time.perf_counter() - t0 > max_seconds:
                stuck_frac += 1.0 / len(slices)
                reasons.append("box budget spent" if left_boxes < 1 else "time budget spent")
                if len(shown) < _SHOW:
                    shown.append({n: (_expr.to_float(flint.arb(a)), _expr.to_float(flint.arb(b)))
                                  for n, a, b in zip(names, slo, shi)})
                continue
            out = _branch_and_bound(flint, prog, g, allowance, names, slo, shi, left_boxes,
                                    t0 + max_seconds)
            n_boxes += out["boxes"]
            min_width = min(min_width, out["min_width"])
            if out["status"] == "refuted":
                return Certificate("refuted", n_boxes, time.perf_counter() - t0, out["min_width"], names,
                                   counterexample=out["counterexample"],
                                   counterexample_exact=out["counterexample_exact"],
                                   margin_upper=out["margin_upper"], **label)
            if out["status"] == "undecided":
                stuck_frac += out["uncertified_fraction"] / len(slices)
                shown.extend(out["uncertified"][:max(0, _SHOW - len(shown))])
                reasons.append(out["reason"])
        seconds = time.perf_counter() - t0
        if not reasons:
            return Certificate("proved", n_boxes, seconds, min_width, names, **label)
        reason = "; ".join(sorted(set(reasons)))
        if len(slices) > 1:
            reason += f" (integer slices: {len(slices)})"
        return Certificate("undecided", n_boxes, seconds, min_width, names,
                           uncertified_fraction=min(1.0, stuck_frac), uncertified=shown, reason=reason,
                           **label)


def _branch_and_bound(flint, prog, g, allowance, names, qlo, qhi, max_boxes, deadline) -> dict:
    """The branch-and-bound on the box ``∏ [qlo_i, qhi_i]`` (exact ``fmpq`` ends; a
    coordinate with ``qlo_i == qhi_i`` is an exact point)."""
    t0 = time.perf_counter()
    zero = flint.arb(0)
    root = []
    for a, b in zip(qlo, qhi):
        ba, bb = flint.arb(a), flint.arb(b)
        root.append(Iv(down(ba), up(bb)) if a != b else Iv.ball(ba))
    widths0 = [max(_expr.width_float(b), 0.0) for b in root]
    vol0 = math.prod(w for w in widths0 if w > 0) or 1.0

    def inside(point):
        return all(qa <= _fmpq_of(p.lo) <= qb for p, qa, qb in zip(point, qlo, qhi))

    counter = itertools.count()
    heap = [(-math.inf, next(counter), root)]
    n_boxes, min_width = 0, math.inf
    stuck: list = []
    reason = ""
    slack = flint.arb(_ACCEPT_SLACK)
    while heap:
        if n_boxes >= max_boxes or time.perf_counter() > deadline:
            reason = "box budget spent" if n_boxes >= max_boxes else "time budget spent"
            break
        _, _, box = heapq.heappop(heap)
        n_boxes += 1
        wmax = max((_expr.width_float(b) for b in box), default=0.0)
        min_width = min(min_width, wmax)
        # the bound that settles the box (the allowance's lower bound and the slack aside)
        need = -(_allow_lower(prog, box, zero) + slack)
        low, grads = _lower(prog, box, zero, need)
        if low is not None:
            total = low + _allow_lower(prog, box, zero)
            if down(total + slack) >= 0:
                continue                                         # settled
        # a confirmed violation at an exact point of the declared box: refuted
        free = [i for i, b in enumerate(box) if not b.is_point]
        cands = [[b if b.is_point else Iv(_mid(b)) for b in box],
                 [Iv(b.lo) for b in box], [Iv(b.hi) for b in box]]
        for p in cands:
            if not inside(p):
                continue
            v = _point_violation(prog, p, zero)
            if v is not None:
                return {"status": "refuted", "boxes": n_boxes, "min_width": wmax,
                        "counterexample": {n: _expr.to_float(x.lo) for n, x in zip(names, p)},
                        "counterexample_exact": {n: str(_fmpq_of(x.lo)) for n, x in zip(names, p)},
                        "margin_upper": _expr.to_float(v)}
        if not free:
            stuck.append((low, box))
            continue
        if n_boxes == 1 and prog.small:  # the root is not settled: split at float contact points first
            parts = [box]
            lo_f = [Fraction(int(q.p), int(q.q)) for q in qlo]
            hi_f = [Fraction(int(q.p), int(q.q)) for q in qhi]
            for p in _contact_points(g, allowance, names, lo_f, hi_f):
                parts = [c for b in parts for c in _split_at(flint, b, p)]
            if len(parts) > 1:
                for c in parts:
                    heapq.heappush(heap, (-math.inf, next(counter), c))
                continue
        # split: largest width × |∂g/∂x_i| (largest relative width without derivatives)
        def score(i):
            w = _expr.width_float(box[i])
            gi = grads.get(i)
            if gi is not None:
                mag = max(abs(_expr.to_float(gi.lo)), abs(_expr.to_float(gi.hi)))
                if math.isfinite(mag) and mag > 0:
                    return w * mag
            return w / widths0[i] if widths0[i] > 0 else 0.0
        i = max(free, key=score)
        if _expr.width_float(box[i]) <= _MIN_REL_WIDTH * widths0[i]:
            stuck.append((low, box))
            continue
        m = _mid(box[i])
        if not (box[i].lo < m < box[i].hi):
            stuck.append((low, box))
            continue
        key = _expr.to_float(low) if low is not None else -math.inf
        for half in (Iv(box[i].lo, m), Iv(m, box[i].hi)):
            child = list(box)
            child[i] = half
            heapq.heappush(heap, (key, next(counter), child))
    if not heap and not stuck:
        return {"status": "proved", "boxes": n_boxes, "min_width": min_width}
    rest = [(k, b) for k, _, b in heap] + [(_expr.to_float(l) if l is not None else -math.inf, b)
                                            for l, b in stuck]
    vol = sum(math.prod(_expr.width_float(x) for x, w0 in zip(b, widths0) if w0 > 0) for _, b in rest)
    rest.sort(key=lambda kb: kb[0])
    shown = [{n: (_expr.to_float(x.lo), _expr.to_float(x.hi)) for n, x in zip(names, b)}
             for _, b in rest[:_SHOW]]
    return {"status": "undecided", "boxes": n_boxes, "min_width": min_width,
            "uncertified_fraction": min(1.0, vol / vol0), "uncertified": shown,
            "reason": reason or "boxes at the precision limit", "seconds": time.perf_counter() - t0}


def _num(v: float) -> str:
    """A declared tolerance as text (its float repr: ``0.0001``, ``1e-09``)."""
    return repr(float(v))


def _paren(sp, e, text) -> str:
    return f"({text})" if isinstance(e, sp.Add) else text


def certify_inequality(lhs, rhs, names, lo, hi, *, atol: float = 0.0, rtol: float = 0.0,
                       integer: Sequence[str] = (), max_boxes: int = MAX_BOXES,
                       max_seconds: float = MAX_SECONDS) -> Certificate:
    """``lhs ≤ rhs + atol + rtol·|rhs|`` on the box — the violation rule of
    inequality claims (``docs/theory/engine.md#inequality``) — by :func:`certify_nonnegative`.
    The certificate's ``proved_statement`` carries the allowance (``lhs ≤ rhs`` when
    ``atol = rtol = 0``)."""
    import sympy as sp

    for nm, v in (("atol", atol), ("rtol", rtol)):
        if not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0):
            raise ValueError(f"{nm} must be a finite number ≥ 0, got {v!r}")
    lhs, rhs = _real(_expr.as_expr(lhs, "lhs"), names), _real(_expr.as_expr(rhs, "rhs"), names)
    allowance = sp.Rational(Fraction(float(atol))) + sp.Rational(Fraction(float(rtol))) * sp.Abs(rhs)
    parts = ([_num(atol)] if atol else []) + ([f"{_num(rtol)}·|{rhs}|"] if rtol else [])
    allow_text = " + ".join(parts) or "0"
    stmt = f"{lhs} ≤ {rhs}" + (f" + {allow_text}" if parts else "")
    return certify_nonnegative(rhs - lhs, names, lo, hi, allowance=allowance, integer=integer,
                               max_boxes=max_boxes, max_seconds=max_seconds, _statement=(stmt, allow_text))


def _scale(sp, lhs, rhs, tol_mode):
    # unevaluated on large sides: Max/Abs compare their arguments symbolically (minutes on a
    # polynomial of thousands of terms); only their interval extension is used
    ev = _size_at_most(sp, lhs, _SYMBOLIC_MAX_OPS) and _size_at_most(sp, rhs, _SYMBOLIC_MAX_OPS)
    if tol_mode == "absolute":
        return sp.Integer(1)
    if tol_mode in ("relative", "terms"):       # one-expression sides: the largest term is a side
        return sp.Max(sp.Abs(lhs, evaluate=ev), sp.Abs(rhs, evaluate=ev), evaluate=ev)
    if tol_mode == "mixed":
        return sp.Max(sp.Integer(1), sp.Abs(lhs, evaluate=ev), sp.Abs(rhs, evaluate=ev), evaluate=ev)
    raise ValueError(f"tol_mode must be absolute/relative/terms/mixed, got {tol_mode!r}")


def _scale_text(lhs, rhs, tol_mode) -> str:
    if tol_mode == "absolute":
        return ""
    if tol_mode == "mixed":
        return f"·max(1, |{lhs}|, |{rhs}|)"
    return f"·max(|{lhs}|, |{rhs}|)"


def _defined_on(expr, names, qlo, qhi, budget: int = _DEFINED_BOXES) -> bool:
    """Whether the natural interval extension of ``expr`` succeeds on the box, or on every
    sub-box of a bisection (widest coordinate first) of at most ``budget`` boxes: then
    ``expr`` is defined (and continuous) on the whole box (module docstring, premise (a))."""
    import flint

    try:
        f = _expr.compile_interval(expr, names)
    except UnsupportedExpression:
        return False
    with flint.ctx.workprec(_expr.PREC):
        root = []
        for a, b in zip(qlo, qhi):
            ba, bb = flint.arb(_exact(flint, a)), flint.arb(_exact(flint, b))
            root.append(Iv(down(ba), up(bb)) if a != b else Iv.ball(ba))
        todo, used = [root], 0
        while todo:
            box = todo.pop()
            used += 1
            if used > budget:
                return False
            try:
                f(dict(zip(names, box)))
                continue
            except Undefined:
                pass
            free = [i for i, b in enumerate(box) if not b.is_point]
            if not free:
                return False
            i = max(free, key=lambda k: _expr.width_float(box[k]))
            m = _mid(box[i])
            if not (box[i].lo < m < box[i].hi):
                return False
            for half in (Iv(box[i].lo, m), Iv(m, box[i].hi)):
                child = list(box)
                child[i] = half
                todo.append(child)
    return True


def implied_facts(lo, hi, integer: bool = False) -> dict:
    """The SymPy assumptions that hold at every point of ``[lo, hi]`` (exact comparisons; ends
    as ``int``/``Fraction``/binary floats), as keyword arguments of ``sympy.Symbol``: ``real``
    always; ``positive`` when ``lo > 0``, ``nonnegative`` when ``lo ≥ 0``, ``negative`` when
    ``hi < 0``, ``nonpositive`` when ``hi ≤ 0``, ``nonzero`` when ``0 ∉ [lo, hi]``, ``integer``
    for an integer coordinate — never an assumption the range does not imply.  Used for the
    symbolic step here and for the declaration's assumption check (:mod:`proofs_check.domains`)."""
    # exact for finite ends; an infinite end (a half-line) compares as the float it is
    a, b = (Fraction(v) if math.isfinite(float(v)) else float(v) for v in (lo, hi))
    facts = {"real": True}
    if a > 0:
        facts["positive"] = True
    if a >= 0:
        facts["nonnegative"] = True
    if b < 0:
        facts["negative"] = True
    if b <= 0:
        facts["nonpositive"] = True
    if not a <= 0 <= b:
        facts["nonzero"] = True
    if integer:
        facts["integer"] = True
    return facts


def _box_facts(sp, names, lo, hi, integer=()):
    """``{x: Symbol(x, positive=True, …)}``: each real coordinate replaced by a symbol carrying
    the facts every point of the box has (:func:`implied_facts`)."""
    out = {}
    ints = tuple(integer or ())
    for n, a, b in zip(names, lo, hi):
        kw = implied_facts(a, b, n in ints)
        if len(kw) > 1:
            out[sp.Symbol(n, real=True)] = sp.Symbol(n, **kw)
    return out


def certify_identity(lhs, rhs, names, lo, hi, *, tol: float, tol_mode: str = "mixed",
                     integer: Sequence[str] = (), max_boxes: int = MAX_BOXES,
                     max_seconds: float = MAX_SECONDS, symbolic: bool = True) -> Certificate:
    """``lhs = rhs`` on the box: first symbolically, then
    ``|lhs − rhs| ≤ tol·scale`` (``tol_mode`` as for identity claims, ``docs/theory/engine.md#identity``)
    as two inequalities in ball arithmetic.

    The symbolic proof (``simplify(lhs − rhs) == 0`` or ``lhs.equals(rhs)``) shows that the two
    sides agree wherever both are defined; it proves the identity on the box only when both
    sides are shown defined on the whole box (:func:`_defined_on`; switch
    ``_PREMISES["symbolic_needs_defined"]``) — ``(x² − 1)/(x − 1) = x + 1`` is not proved on
    ``[0, 2]``.  It is skipped (a note says so) when ``count_ops(lhs − rhs)`` exceeds
    ``_SYMBOLIC_MAX_OPS``: ``simplify`` may not return on a large expression."""
    import sympy as sp

    t0 = time.perf_counter()
    if not (isinstance(tol, (int, float)) and not isinstance(tol, bool) and math.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number ≥ 0, got {tol!r}")
    names = tuple(names)
    lhs, rhs = _real(_expr.as_expr(lhs, "lhs"), names), _real(_expr.as_expr(rhs, "rhs"), names)
    scale = _scale(sp, lhs, rhs, tol_mode)
    notes = []
    if symbolic:
        diff = lhs - rhs
        if not _size_at_most(sp, diff, 4 * _SYMBOLIC_MAX_OPS) or sp.count_ops(diff) > _SYMBOLIC_MAX_OPS:
            notes.append("symbolic preprocessing skipped: expression too large "
                         f"(count_ops > {_SYMBOLIC_MAX_OPS})")
        else:
            try:
                # the signs the box implies (x > 0 on a box with lo > 0, …) are facts on the box,
                # so SymPy may use them (log(x·y) = log x + log y needs x, y > 0)
                facts = _box_facts(sp, names, lo, hi, integer)
                same = (sp.simplify(diff) == 0 or lhs.equals(rhs) is True
                        or (bool(facts) and sp.simplify(diff.xreplace(facts)) == 0))
            except Exception:                                          # noqa: BLE001 - no proof
                same = False
            if same:
                defined = (not _PREMISES["symbolic_needs_defined"]
                           or all(_defined_on(side, names, lo, hi) for side in (lhs, rhs)))
                if defined:
                    return Certificate("proved", 0, time.perf_counter() - t0, math.nan, names,
                                       method="symbolic (sympy simplify/equals; both sides defined on the box)",
                                       proved_statement=f"{lhs} = {rhs}", allowance="0", notes=())
                notes.append("symbolically equal where both sides are defined, but a side is not shown "
                             "defined on the whole box: no symbolic proof")
    lt, rt = str(lhs), str(rhs)
    if tol:
        allow_text = f"{_num(tol)}{_scale_text(lt, rt, tol_mode)}"
        stmt = f"|{lt} − {_paren(sp, rhs, rt)}| ≤ {allow_text} (tol_mode {tol_mode})"
    else:
        allow_text, stmt = "0", f"{lt} = {rt}"
    allow = sp.Rational(Fraction(float(tol))) * scale
    parts = []
    for g in (lhs - rhs, rhs - lhs):
        left = max(0.1, max_seconds - (time.perf_counter() - t0))
        c = certify_nonnegative(g, names, lo, hi, allowance=allow, integer=integer, max_boxes=max_boxes,
                                max_seconds=left, _statement=(stmt, allow_text))
        parts.append(c)
        if c.status == "refuted":
            break
    boxes = sum(c.boxes for c in parts)
    seconds = time.perf_counter() - t0
    width = min(c.min_width for c in parts)
    notes += [n for c in parts for n in c.notes if n not in notes]
    label = dict(proved_statement=stmt, allowance=allow_text, notes=tuple(notes))
    for c in parts:
        if c.status == "refuted":
            c.boxes, c.seconds = boxes, seconds
            c.proved_statement, c.allowance, c.notes = stmt, allow_text, tuple(notes)
            return c
    if all(c.status == "proved" for c in parts):
        return Certificate("proved", boxes, seconds, width, names, **label)
    und = [c for c in parts if c.status == "undecided"]
    return Certificate("undecided", boxes, seconds, width, names,
                       uncertified_fraction=max(c.uncertified_fraction for c in und),
                       uncertified=[b for c in und for b in c.uncertified][:_SHOW],
                       reason="; ".join(sorted({c.reason for c in und if c.reason})), **label)


#: What a :class:`Certifier` proves: ``lhs ≤ rhs`` (up to the allowance) or ``lhs = rhs`` (to ``tol``).
RELATIONS = ("<=", "==")


def _exact_text(v) -> str:
    """A box end as exact rational text: a float is the binary number it stores, a SymPy
    ``Rational``/``Float`` its exact value, a string or ``Decimal`` parsed by ``Fraction``."""
    if isinstance(v, bool) or isinstance(v, complex):
        raise TypeError(f"a box end must be a real number, got {v!r}")
    p, q = getattr(v, "p", None), getattr(v, "q", None)
    if isinstance(p, int) and isinstance(q, int):                 # sympy Rational / Integer
        return str(Fraction(p, q))
    if type(v).__module__.split(".")[0] == "sympy" and getattr(v, "is_Float", False):
        import sympy as sp

        r = sp.Rational(v)
        return str(Fraction(int(r.p), int(r.q)))
    try:
        return str(Fraction(v))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"a box end must be an int, a float, a Fraction or a rational string, got {v!r}") from exc


class Certifier:
    """A claim's certification, declared once: ``Certifier(relation, lhs, rhs, names, lo, hi, ...)()``
    runs :func:`certify_inequality` (``relation="<="``, with the claim's ``atol``/``rtol``)
    or :func:`certify_identity` (``relation="=="``, with ``tol``/``tol_mode``) and returns
    the :class:`Certificate`.  ``integer`` names the coordinates that take integer values
    only (certified slice by slice).  It keeps the expressions as text (picklable; the
    fingerprint sees the text, the box, the integer coordinates and the budget)."""

    def __init__(self, relation: str, lhs, rhs, names: Sequence[str], lo: Sequence, hi: Sequence, *,
                 atol: float = 0.0, rtol: float = 0.0, tol: float = 0.0, tol_mode: str = "mixed",
                 max_boxes: int = MAX_BOXES, max_seconds: float = MAX_SECONDS,
                 substitutions: Mapping[str, Any] | None = None, integer: Sequence[str] = ()):
        if relation not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
        box_bounds(names, lo, hi)
        self.relation = relation
        self.lhs, self.rhs = str(_expr.as_expr(lhs, "lhs")), str(_expr.as_expr(rhs, "rhs"))
        #: the exact trees (``srepr``), rebuilt unevaluated: re-parsing the text would let SymPy
        #: rewrite an expression the user built unevaluated (``exp(log(x))`` → ``x``)
        self.trees = tuple(_expr.tree_text(e) for e in (lhs, rhs))
        self.names = tuple(names)
        self.lo = tuple(_exact_text(v) for v in lo)
        self.hi = tuple(_exact_text(v) for v in hi)
        self.integer = _integer_names(self.names, integer)
        self.atol, self.rtol, self.tol, self.tol_mode = float(atol), float(rtol), float(tol), tol_mode
        self.max_boxes, self.max_seconds = int(max_boxes), float(max_seconds)
        #: coordinates that are not box variables but exact expressions of them (a simplex
        #: through its parametrisation, e.g. ``{"p1": "1 - p0"}``)
        self.substitutions = {k: str(v) for k, v in (substitutions or {}).items()}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("integer", ())          # pickles from before integer coordinates

    def _sides(self):
        import sympy as sp

        loc = {n: sp.Symbol(n) for n in self.names}
        for k in self.substitutions:
            loc[k] = sp.Symbol(k)
        trees = getattr(self, "trees", None)
        if trees:
            lhs, rhs = (_expr.from_tree_text(t) for t in trees)
        else:
            lhs, rhs = sp.sympify(self.lhs, locals=loc), sp.sympify(self.rhs, locals=loc)
        sub = {sp.Symbol(k): sp.sympify(v, locals=loc) for k, v in self.substitutions.items()}
        return (lhs.subs(sub), rhs.subs(sub)) if sub else (lhs, rhs)

    def contains(self, point: Mapping[str, Any]) -> bool:
        """Whether ``point`` (coordinate → exact rational text, ``Fraction`` or number) lies in
        the declared domain: every coordinate given, within ``[lo, hi]``, integral on the
        integer coordinates."""
        try:
            vals = {n: Fraction(_exact_text(point[n])) for n in self.names}
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            return False
        for n, a, b in zip(self.names, self.lo, self.hi):
            if not Fraction(a) <= vals[n] <= Fraction(b):
                return False
        return all(vals[n].denominator == 1 for n in self.integer)

    def __call__(self) -> Certificate:
        lhs, rhs = self._sides()
        lo = [Fraction(v) for v in self.lo]
        hi = [Fraction(v) for v in self.hi]
        if self.relation == "<=":
            return certify_inequality(lhs, rhs, self.names, lo, hi, atol=self.atol, rtol=self.rtol,
                                      integer=self.integer, max_boxes=self.max_boxes,
                                      max_seconds=self.max_seconds)
        return certify_identity(lhs, rhs, self.names, lo, hi, tol=self.tol, tol_mode=self.tol_mode,
                                integer=self.integer, max_boxes=self.max_boxes, max_seconds=self.max_seconds)

    def __repr__(self) -> str:
        def rng(n, a, b):
            return f"{n} ∈ {{{a}, …, {b}}} (integer)" if n in self.integer else f"{n} ∈ [{a}, {b}]"
        return (f"Certifier({self.relation}: {self.lhs} vs {self.rhs} on "
                f"{', '.join(rng(n, a, b) for n, a, b in zip(self.names, self.lo, self.hi))})")


def _outside_domain(certifier, point) -> str:
    """``""`` when the counterexample ``point`` lies in the certifier's declared domain, else
    why not (a certifier that cannot say where its domain is cannot have its refutation
    accepted)."""
    contains, obj = None, certifier
    for _ in range(4):             # a wrapper (declare.CheckedCertifier) keeps the Certifier inside
        contains = getattr(obj, "contains", None)
        if callable(contains) or getattr(obj, "certifier", None) is None:
            break
        obj = obj.certifier
    if not callable(contains):
        return "the certifier declares no domain to check the counterexample against"
    if not point:
        return "the certificate gives no exact counterexample"
    try:
        ok = contains(point)
    except Exception as exc:                                   # noqa: BLE001 - not shown inside
        return f"the domain check failed ({type(exc).__name__}: {exc})"
    return "" if ok else f"{dict(point)} is outside the declared domain {obj!r}"


def upgrade(result, certifier):
    """The search's result after the ball-arithmetic certification (the hook of the
    inequality and identity kinds, called once a search verdict is "holds"):

    * the certifier's own premises first: when it has ``premise_failure(result)`` and that
      returns a non-empty string, nothing is certified — the search verdict and guarantee
      stay, the string is appended as a warning and no certificate is attached;
    * ``proved`` of an ``arb=`` twin of callables (``certifier.proves_claim`` false): the
      search verdict stays, with a warning — the proof is of the twin, not of the callables;
    * ``proved`` → guarantee ``"proved"`` (the inclusion theorem of interval arithmetic,
      Moore–Kearfott–Cloud 2009 Thm 5.1, applied to every settled box);
    * ``refuted`` → verdict ``"refuted"``, guarantee ``"exact"``: a point of the declared
      domain (box and integer coordinates, :meth:`Certifier.contains`) where the certified
      upper bound of ``rhs − lhs + allowance`` is negative; a point outside the declared
      domain is not accepted (switch ``_PREMISES["counterexample_in_domain"]``): the search's
      verdict stays, with a warning;
    * ``undecided`` → the search's verdict and guarantee stay; a warning names the
      uncertified volume and where it is.

    The certificate is attached to the result in the last three cases."""
    import dataclasses

    if result.verdict != "holds":
        return result
    check = getattr(certifier, "premise_failure", None)
    if callable(check):
        why = check(result)
        if why:
            return dataclasses.replace(result, warnings=tuple(result.warnings) + (str(why),))
    cert = certifier()
    d = cert.to_dict()
    if cert.status == "proved" and not getattr(certifier, "proves_claim", True):
        # an arb= twin of callables: the proof is of the twin's expressions; agreement at the
        # points checked does not make the callables the same function, so the claim stays searched
        return dataclasses.replace(result, warnings=tuple(result.warnings) + (
            f"the arb= twin {d.get('proved_statement', '')} is proved in ball arithmetic, but a proof of a "
            f"twin is not a proof of the callables (they agree with it at the points checked, not "
            f"everywhere): the verdict stays a search — give the sides as SymPy expressions to prove them",))
    if cert.status == "proved":
        return dataclasses.replace(result, guarantee="proved", certificate=d)
    if cert.status == "refuted":
        bad = _outside_domain(certifier, cert.counterexample_exact) \
            if _PREMISES["counterexample_in_domain"] else ""
        if bad:
            d = {**d, "status": "undecided", "uncertified_fraction": 1.0, "uncertified_boxes": [],
                 "reason": f"a counterexample was reported outside the declared domain, not accepted: {bad}"}
            return dataclasses.replace(result, certificate=d, warnings=tuple(result.warnings) + (
                f"certification undecided: {d['reason']}",))
        warn = (f"the search found no violation, but ball arithmetic certifies one at "
                f"{cert.counterexample_exact} (rhs − lhs + allowance ≤ {cert.margin_upper:.3g} < 0)")
        kw = dict(verdict="refuted", guarantee="exact", certificate=d,
                  warnings=tuple(result.warnings) + (warn,))
        names = {f.name for f in dataclasses.fields(result)}
        if "worst_point" in names:
            kw["worst_point"] = dict(cert.counterexample)
            kw["confirmed_by"] = "ball arithmetic"
        return dataclasses.replace(result, **kw)
    return dataclasses.replace(result, certificate=d,
                               warnings=tuple(result.warnings) + (cert.sentence(),))
