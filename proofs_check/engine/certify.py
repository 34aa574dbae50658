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

Each partial derivative comes from ``sympy.diff`` and is evaluated in two algebraically
equal forms (as differentiated, and ``cancel(together(·))``); both enclose the same
function, so their intersection does too.

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
           "box_bounds", "MAX_BOXES", "MAX_SECONDS"]

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


@dataclass
class Certificate:
    """The outcome of a certification: ``proved``, ``refuted`` or ``undecided``."""

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

    def to_dict(self) -> dict:
        d = {"status": self.status, "method": self.method, "boxes": self.boxes,
             "seconds": round(self.seconds, 4), "min_width": self.min_width}
        if self.status == "undecided":
            d["uncertified_fraction"] = self.uncertified_fraction
            d["uncertified_boxes"] = self.uncertified
        if self.counterexample is not None:
            d["counterexample"] = self.counterexample
            d["counterexample_exact"] = self.counterexample_exact
            d["margin_upper"] = self.margin_upper
        if self.reason:
            d["reason"] = self.reason
        return d

    def sentence(self) -> str:
        base = f"{self.boxes} boxes, smallest width {self.min_width:.3g}, {self.seconds:.2f} s"
        if self.status == "proved":
            return f"proved in ball arithmetic: {base}"
        if self.status == "refuted":
            return (f"counterexample confirmed in ball arithmetic at {self.counterexample} "
                    f"(rhs − lhs + allowance ≤ {self.margin_upper:.3g} < 0); {base}")
        where = "; ".join(", ".join(f"{k} ∈ [{a:.6g}, {b:.6g}]" for k, (a, b) in bx.items())
                          for bx in self.uncertified[:3])
        why = f" ({self.reason})" if self.reason else ""
        return (f"certification undecided{why}: {self.uncertified_fraction:.3g} of the box volume "
                f"uncertified after {base}" + (f"; e.g. {where}" if where else ""))


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


class _Program:
    """``g``, its partial derivatives (two forms each) and the allowance, compiled."""

    def __init__(self, g, allowance, names):
        import sympy as sp

        self.names = tuple(names)
        # differentiate with respect to the very symbols of g (real ones: see _real); a
        # symbol of the same name with other assumptions would give ∂g/∂x = 0
        syms = [sp.Symbol(n, real=True) for n in names]
        stray = {s for s in g.free_symbols if s.name in names} - set(syms)
        if stray:
            raise ValueError(f"internal: symbols {stray} are not the real coordinates {syms}")
        self.g = _expr.compile_interval(g, names)
        self.allow = None if allowance is None or allowance == 0 else _expr.compile_interval(allowance, names)
        self.grad, self.hess = [], []
        for s in syms:
            d = sp.diff(g, s)
            self.grad.append(_forms(sp, d, names))
            # the row of second derivatives: a mean-value form of ∂g/∂x_i (for monotonicity
            # near a contact point, where the natural enclosure of ∂g/∂x_i straddles 0)
            self.hess.append([_forms(sp, sp.diff(d, t), names) for t in syms] if len(syms) <= 4 else None)

    def grad_iv(self, i, env, box=None):
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


def _forms(sp, d, names):
    """Inclusion functions of ``d`` in the algebraically equal forms that compile."""
    forms = []
    for cand in (d, _simpler(sp, d)):
        if cand is None:
            continue
        try:
            forms.append(_expr.compile_interval(cand, names))
        except UnsupportedExpression:
            pass
    return forms


def _best(forms, env):
    """The intersection of the enclosures of all forms (each encloses the same function)."""
    out = None
    for f in forms:
        try:
            v = f(env)
        except Undefined:
            continue
        out = v if out is None else _intersect(out, v)
    return out


def _simpler(sp, d):
    # rational functions only: sympy's polynomial machinery turns exp(c·x²) with a large c
    # into a power of a generator and may never return
    if sp.count_ops(d) > 300 or not d.is_rational_function():
        return None
    try:
        c = sp.factor(sp.together(d))
    except Exception:                                   # noqa: BLE001 - a failed rewrite is no form
        return None
    return None if c == d else c


def _lower(prog: _Program, box: list, zero, need=None):
    """(certified lower bound of g on ``box`` or ``None``, gradient intervals); stops early
    once the bound reaches ``need``."""
    env = dict(zip(prog.names, box))
    best = None
    try:
        best = prog.g(env).lo
    except Undefined:
        pass
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
    return e.xreplace({s: sp.Symbol(s.name, real=True) for s in e.free_symbols if s.name in names})


def box_bounds(domain_names, lo, hi):
    """``[(name, lo, hi)]`` checked: finite, ``lo < hi``."""
    if len(lo) != len(domain_names) or len(hi) != len(domain_names):
        raise ValueError(f"box needs one (lo, hi) per coordinate {list(domain_names)}")
    for n, a, b in zip(domain_names, lo, hi):
        if not (math.isfinite(float(a)) and math.isfinite(float(b)) and float(a) <= float(b)):
            raise ValueError(f"coordinate {n}: a certified verdict needs a closed bounded range, got "
                             f"[{a}, {b}]")
    return list(zip(domain_names, lo, hi))


def certify_nonnegative(g, names: Sequence[str], lo: Sequence, hi: Sequence, *, allowance=0,
                        max_boxes: int = MAX_BOXES, max_seconds: float = MAX_SECONDS) -> Certificate:
    """Decide ``g + allowance ≥ 0`` on the box ``∏ [lo_i, hi_i]`` (see the module docstring).

    ``g``/``allowance``: SymPy expressions in ``names``; ``lo``/``hi``: exact rationals
    (``int``, ``Fraction``, or floats taken as the binary numbers they are)."""
    import flint

    if not isinstance(max_boxes, int) or max_boxes < 1:
        raise ValueError(f"max_boxes must be an integer ≥ 1, got {max_boxes!r}")
    if not (isinstance(max_seconds, (int, float)) and max_seconds > 0):
        raise ValueError(f"max_seconds must be > 0, got {max_seconds!r}")
    box_bounds(names, lo, hi)
    t0 = time.perf_counter()
    names = tuple(names)
    g, allowance = _real(g, names), _real(allowance, names)
    with flint.ctx.workprec(_expr.PREC):
        try:
            prog = _Program(_expr.as_expr(g), allowance, names)
        except UnsupportedExpression as exc:
            return Certificate("undecided", 0, time.perf_counter() - t0, math.nan, names,
                               uncertified_fraction=1.0, reason=f"not certifiable: {exc}")
        zero = flint.arb(0)
        qlo = [_exact(flint, v) for v in lo]
        qhi = [_exact(flint, v) for v in hi]
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
            if n_boxes >= max_boxes or time.perf_counter() - t0 > max_seconds:
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
                    pt = {n: _expr.to_float(x.lo) for n, x in zip(names, p)}
                    exact = {n: str(_fmpq_of(x.lo)) for n, x in zip(names, p)}
                    return Certificate("refuted", n_boxes, time.perf_counter() - t0, wmax, names,
                                       counterexample=pt, counterexample_exact=exact,
                                       margin_upper=_expr.to_float(v))
            if not free:
                stuck.append((low, box))
                continue
            if n_boxes == 1:             # the root is not settled: split at float contact points first
                parts = [box]
                for p in _contact_points(g, allowance, names, lo, hi):
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
        seconds = time.perf_counter() - t0
        if not heap and not stuck:
            return Certificate("proved", n_boxes, seconds, min_width, names)
        rest = [(k, b) for k, _, b in heap] + [(_expr.to_float(l) if l is not None else -math.inf, b)
                                                for l, b in stuck]
        vol = sum(math.prod(_expr.width_float(x) for x, w0 in zip(b, widths0) if w0 > 0) for _, b in rest)
        rest.sort(key=lambda kb: kb[0])
        shown = [{n: (_expr.to_float(x.lo), _expr.to_float(x.hi)) for n, x in zip(names, b)}
                 for _, b in rest[:_SHOW]]
        if not reason:
            reason = "boxes at the precision limit"
        return Certificate("undecided", n_boxes, seconds, min_width, names,
                           uncertified_fraction=min(1.0, vol / vol0), uncertified=shown, reason=reason)


def certify_inequality(lhs, rhs, names, lo, hi, *, atol: float = 0.0, rtol: float = 0.0,
                       max_boxes: int = MAX_BOXES, max_seconds: float = MAX_SECONDS) -> Certificate:
    """``lhs ≤ rhs + atol + rtol·|rhs|`` on the box — the violation rule of
    inequality claims (``docs/theory/engine.md#inequality``) — by :func:`certify_nonnegative`."""
    import sympy as sp

    lhs, rhs = _real(_expr.as_expr(lhs, "lhs"), names), _real(_expr.as_expr(rhs, "rhs"), names)
    allowance = sp.Rational(Fraction(float(atol))) + sp.Rational(Fraction(float(rtol))) * sp.Abs(rhs)
    return certify_nonnegative(rhs - lhs, names, lo, hi, allowance=allowance,
                               max_boxes=max_boxes, max_seconds=max_seconds)


def _scale(sp, lhs, rhs, tol_mode):
    if tol_mode == "absolute":
        return sp.Integer(1)
    if tol_mode in ("relative", "terms"):       # one-expression sides: the largest term is a side
        return sp.Max(sp.Abs(lhs), sp.Abs(rhs))
    if tol_mode == "mixed":
        return sp.Max(1, sp.Abs(lhs), sp.Abs(rhs))
    raise ValueError(f"tol_mode must be absolute/relative/mixed, got {tol_mode!r}")


def certify_identity(lhs, rhs, names, lo, hi, *, tol: float, tol_mode: str = "mixed",
                     max_boxes: int = MAX_BOXES, max_seconds: float = MAX_SECONDS,
                     symbolic: bool = True) -> Certificate:
    """``lhs = rhs`` on the box: first symbolically (``simplify(lhs − rhs) == 0`` or
    ``lhs.equals(rhs)``: proved exactly, for every value of the symbols), then
    ``|lhs − rhs| ≤ tol·scale`` (``tol_mode`` as for identity claims, ``docs/theory/engine.md#identity``)
    as two inequalities in ball arithmetic."""
    import sympy as sp

    t0 = time.perf_counter()
    lhs, rhs = _real(_expr.as_expr(lhs, "lhs"), names), _real(_expr.as_expr(rhs, "rhs"), names)
    if symbolic:
        try:
            same = sp.simplify(lhs - rhs) == 0 or lhs.equals(rhs) is True
        except Exception:                                          # noqa: BLE001 - no proof
            same = False
        if same:
            return Certificate("proved", 0, time.perf_counter() - t0, math.nan, tuple(names),
                               method="symbolic (sympy simplify/equals)")
    allow = sp.Rational(Fraction(float(tol))) * _scale(sp, lhs, rhs, tol_mode)
    parts = []
    for g in (lhs - rhs, rhs - lhs):
        left = max(0.1, max_seconds - (time.perf_counter() - t0))
        c = certify_nonnegative(g, names, lo, hi, allowance=allow, max_boxes=max_boxes, max_seconds=left)
        parts.append(c)
        if c.status == "refuted":
            break
    boxes = sum(c.boxes for c in parts)
    seconds = time.perf_counter() - t0
    width = min(c.min_width for c in parts)
    for c in parts:
        if c.status == "refuted":
            c.boxes, c.seconds = boxes, seconds
            return c
    if all(c.status == "proved" for c in parts):
        return Certificate("proved", boxes, seconds, width, tuple(names))
    und = [c for c in parts if c.status == "undecided"]
    return Certificate("undecided", boxes, seconds, width, tuple(names),
                       uncertified_fraction=max(c.uncertified_fraction for c in und),
                       uncertified=[b for c in und for b in c.uncertified][:_SHOW],
                       reason="; ".join(sorted({c.reason for c in und if c.reason})))


#: What a :class:`Certifier` proves: ``lhs ≤ rhs`` (up to the allowance) or ``lhs = rhs`` (to ``tol``).
RELATIONS = ("<=", "==")


class Certifier:
    """A claim's certification, declared once: ``Certifier(relation, lhs, rhs, names, lo, hi, ...)()``
    runs :func:`certify_inequality` (``relation="<="``, with the claim's ``atol``/``rtol``)
    or :func:`certify_identity` (``relation="=="``, with ``tol``/``tol_mode``) and returns
    the :class:`Certificate`.  It keeps the expressions as text (picklable; the fingerprint
    sees the text, the box and the budget)."""

    def __init__(self, relation: str, lhs, rhs, names: Sequence[str], lo: Sequence, hi: Sequence, *,
                 atol: float = 0.0, rtol: float = 0.0, tol: float = 0.0, tol_mode: str = "mixed",
                 max_boxes: int = MAX_BOXES, max_seconds: float = MAX_SECONDS,
                 substitutions: Mapping[str, Any] | None = None):
        if relation not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
        box_bounds(names, lo, hi)
        self.relation = relation
        self.lhs, self.rhs = str(_expr.as_expr(lhs, "lhs")), str(_expr.as_expr(rhs, "rhs"))
        self.names = tuple(names)
        self.lo = tuple(str(Fraction(v) if not isinstance(v, float) else Fraction(v)) for v in lo)
        self.hi = tuple(str(Fraction(v) if not isinstance(v, float) else Fraction(v)) for v in hi)
        self.atol, self.rtol, self.tol, self.tol_mode = float(atol), float(rtol), float(tol), tol_mode
        self.max_boxes, self.max_seconds = int(max_boxes), float(max_seconds)
        #: coordinates that are not box variables but exact expressions of them (a simplex
        #: through its parametrisation, e.g. ``{"p1": "1 - p0"}``)
        self.substitutions = {k: str(v) for k, v in (substitutions or {}).items()}

    def _sides(self):
        import sympy as sp

        loc = {n: sp.Symbol(n) for n in self.names}
        for k in self.substitutions:
            loc[k] = sp.Symbol(k)
        lhs, rhs = sp.sympify(self.lhs, locals=loc), sp.sympify(self.rhs, locals=loc)
        sub = {sp.Symbol(k): sp.sympify(v, locals=loc) for k, v in self.substitutions.items()}
        return (lhs.subs(sub), rhs.subs(sub)) if sub else (lhs, rhs)

    def __call__(self) -> Certificate:
        lhs, rhs = self._sides()
        lo = [Fraction(v) for v in self.lo]
        hi = [Fraction(v) for v in self.hi]
        if self.relation == "<=":
            return certify_inequality(lhs, rhs, self.names, lo, hi, atol=self.atol, rtol=self.rtol,
                                      max_boxes=self.max_boxes, max_seconds=self.max_seconds)
        return certify_identity(lhs, rhs, self.names, lo, hi, tol=self.tol, tol_mode=self.tol_mode,
                                max_boxes=self.max_boxes, max_seconds=self.max_seconds)

    def __repr__(self) -> str:
        return (f"Certifier({self.relation}: {self.lhs} vs {self.rhs} on "
                f"{', '.join(f'{n} ∈ [{a}, {b}]' for n, a, b in zip(self.names, self.lo, self.hi))})")


def upgrade(result, certifier: Certifier):
    """The search's result after the ball-arithmetic certification (the hook of the
    inequality and identity kinds, called once a search verdict is "holds"):

    * ``proved`` → guarantee ``"proved"`` (the inclusion theorem of interval arithmetic,
      Moore–Kearfott–Cloud 2009 Thm 5.1, applied to every settled box);
    * ``refuted`` → verdict ``"refuted"``, guarantee ``"exact"``: a point of the declared box
      where the certified upper bound of ``rhs − lhs + allowance`` is negative;
    * ``undecided`` → the search's verdict and guarantee stay; a warning names the
      uncertified volume and where it is.

    The certificate is attached to the result either way."""
    import dataclasses

    if result.verdict != "holds":
        return result
    cert = certifier()
    d = cert.to_dict()
    if cert.status == "proved":
        return dataclasses.replace(result, guarantee="proved", certificate=d)
    if cert.status == "refuted":
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
