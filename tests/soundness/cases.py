"""The table of planted statements (see the package docstring for the rule and how to extend it).

Each row says where its violation lives.  ``w`` is the width of a violation window; a window
far narrower than the search's resolution (≲ 1e-6 of the box) is found only by the certifier,
which is the point: the certifier alone must not settle a box across it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import sympy as sp

import theorycheck as tc

x, y, n = sp.symbols("x y n")
R = sp.Rational
THIRD = R(1, 3)


@dataclass(frozen=True)
class Case:
    """One planted statement.

    ``expect``: ``"false"`` (never proved, never refuted outside the domain) or ``"true"``
    (never refuted).  ``box``: ``{name: (lo, hi)}``; ``integer``: the integer coordinates.
    ``build(domain) -> claim``.  ``seeded``: the search may find the violation on some seeds
    (slow tier: 30 seeds).  ``fast``: in the default (≤ 60 s) subset."""

    id: str
    cls: str
    expect: str
    box: dict
    build: Callable
    integer: tuple = ()
    seeded: bool = False
    fast: bool = False
    note: str = ""
    #: words a refusal at declaration must contain to count as a pass (it names the problem)
    refusal_names: tuple = field(default_factory=tuple)

    def domain(self):
        return tc.Box(**self.box, integer=list(self.integer))


def ineq(lhs, rhs, **kw):
    """A builder of ``lhs ≤ rhs`` (SymPy sides or callables) on the case's domain."""
    def build(domain, cid="soundness.case"):
        return tc.inequality(cid, lhs, rhs, domain=domain, register=False, **kw)
    return build


def ident(lhs, rhs, **kw):
    """A builder of ``lhs = rhs`` on the case's domain."""
    def build(domain, cid="soundness.case"):
        return tc.identity(cid, lhs, rhs, domain=domain, register=False, **kw)
    return build


def lazy(make):
    """A builder whose sides are made at build time (symbols with assumptions: SymPy
    rewrites the expression when it is built, so the build is part of the case)."""
    def build(domain, cid="soundness.case"):
        return make(domain, cid)
    return build


def _window(a, w):
    """``atan(1/(x−a)) − atan(1/(x−a−w))``: ≈ π on ``(a, a + w)``, ≈ 0 elsewhere; its
    derivative simplifies to a function continuous across both jumps."""
    return sp.atan(1 / (x - a)) - sp.atan(1 / (x - a - w))


def _sign_pi(a):
    """``atan(1/(x−a)) + atan(x−a)`` = ``π/2·sign(x − a)``; its simplified derivative is 0."""
    return sp.atan(1 / (x - a)) + sp.atan(x - a)


def _gap(a=THIRD, w=R(1, 10 ** 9)):
    """``(x − a)(x − a − w)``: negative exactly on the window ``(a, a + w)``, positive at the
    box's default point 0 (so the search's first point does not give the violation away)."""
    return (x - a) * (x - a - w)


# -- callables for the arb= twin rows (module level: picklable) ----------------------------

def _spike_window(x, lo=0.5, w=1e-7):
    return x + (1.0 if lo < x < lo + w else 0.0)


def _spike_wide(x):
    return _spike_window(x, 0.5, 1e-3)


def _spike_point(x):
    return 1.0 if x == 0.25 else 0.0


def _zero(x):
    return 0.0


def _half(x):
    return 0.5


def _x(x):
    return x


def _x_plus_half(x):
    return x + 0.5


def _shifted_sq(x):
    return x * x + 1e-7


def _sq(x):
    return x * x


def _cos(x):
    return math.cos(x)


def _log1p(x):
    return math.log1p(x)


def _tiny_spike_cos(x):
    return 1.0 if 0.3 < x < 0.3 + 1e-9 else math.sin(x)


def _sin(x):
    return math.sin(x)


def bare_engine(lhs, rhs, **kw):
    """A builder of ``lhs ≤ rhs`` whose certifier is the engine's own
    :class:`proofs_check.engine.certify.Certifier` (as ``registered_cert.py``-style claims
    declare it), without the declaration layer's checks around it: the engine's premise
    checks (``integer_slices``, ``counterexample_in_domain``) are then the only guard."""
    def build(domain, cid="soundness.case"):
        import dataclasses

        from proofs_check.engine.certify import Certifier

        claim = tc.inequality(cid, lhs, rhs, domain=domain, register=False, **kw)
        ints = [nm for nm, flag in zip(domain.names, domain.integer_mask) if flag]
        extra = {"integer": ints} if ints else {}
        cert = Certifier("<=", lhs, rhs, domain.names, [float(v) for v in domain.lo],
                         [float(v) for v in domain.hi], atol=kw.get("atol", 0.0), rtol=kw.get("rtol", 1e-9),
                         **extra)
        return dataclasses.replace(claim, certifier=cert)
    return build


# -- symbols with assumptions (built lazily: the rewrite happens at construction) -----------

def _pos_sqrt(domain, cid):
    xp = sp.Symbol("x", positive=True)
    return tc.identity(cid, sp.sqrt(xp ** 2), xp, domain=domain, register=False)


def _pos_abs(domain, cid):
    xp = sp.Symbol("x", positive=True)
    return tc.inequality(cid, sp.Abs(xp), xp, domain=domain, register=False, rtol=0)


def _neg_sqrt(domain, cid):
    xn = sp.Symbol("x", negative=True)
    return tc.identity(cid, sp.sqrt(xn ** 2), -xn, domain=domain, register=False)


def _int_sin(domain, cid):
    ni = sp.Symbol("n", integer=True)
    return tc.identity(cid, sp.sin(sp.pi * ni), sp.Integer(0), domain=domain, register=False, tol_mode="absolute")


def _int_floor(domain, cid):
    ni = sp.Symbol("n", integer=True)
    return tc.identity(cid, sp.floor(ni), ni, domain=domain, register=False)


def _int_cos(domain, cid):
    ni = sp.Symbol("n", integer=True)
    return tc.inequality(cid, sp.Integer(1), sp.cos(2 * sp.pi * ni), domain=domain, register=False, rtol=0)


def _nonzero_sign(domain, cid):
    xz = sp.Symbol("x", nonzero=True)
    return tc.inequality(cid, sp.Integer(1), sp.sign(xz) ** 2, domain=domain, register=False, rtol=0)


def _pos_log(domain, cid):
    xp = sp.Symbol("x", positive=True)
    return tc.identity(cid, sp.exp(sp.log(xp)), xp, domain=domain, register=False)


def _pos_consistent(domain, cid):
    xp = sp.Symbol("x", positive=True)
    return tc.identity(cid, sp.sqrt(xp ** 2), xp, domain=domain, register=False)


def _int_consistent(domain, cid):
    ni = sp.Symbol("n", integer=True)
    return tc.identity(cid, sp.sin(sp.pi * ni), sp.Integer(0), domain=domain, register=False, tol_mode="absolute")


U = {"x": (0, 1)}
U2 = {"x": (0, 1), "y": (0, 1)}

CASES: list[Case] = [
    # ---------------------------------------------------------------- poles
    Case("pole.recip", "pole", "false", U, ineq(1 / (x - THIRD), sp.Integer(10), rtol=0),
         seeded=True, note="1/(x−1/3) > 10 on (1/3, 1/3+0.1)"),
    Case("pole.recip_sq", "pole", "false", U, ineq(1 / (x - R(1, 7)) ** 2, sp.Integer(10 ** 6), rtol=0),
         seeded=True, note="> 1e6 within 1e-3 of 1/7"),
    Case("pole.tan_wide", "pole", "false", {"x": (1, 2)}, ineq(-sp.tan(x), sp.Integer(10), rtol=0),
         seeded=True, note="tan x < −10 on (π/2, π/2+0.0997)"),
    Case("pole.tan_narrow", "pole", "false", {"x": (1, 2)}, ineq(-sp.tan(x), sp.Integer(10 ** 6), rtol=0),
         fast=True, note="tan x < −1e6 on (π/2, π/2+1e-6); d tan = 1+tan² ≥ 1 would settle it by monotonicity"),
    Case("pole.tan_left", "pole", "false", {"x": (1.5, 1.6)}, ineq(sp.tan(x), sp.Integer(10 ** 9), rtol=0),
         note="tan x > 1e9 within 1e-9 left of π/2"),
    Case("pole.atan_tan", "pole", "false", {"x": (1, 2)},
         ineq(sp.Integer(0), sp.atan(sp.tan(x)) - sp.atan(sp.tan(x - R(1, 10 ** 7))), rtol=0), fast=True,
         note="= 1e-7 − π on (π/2, π/2+1e-7), 1e-7 elsewhere; SymPy differentiates it to exactly 0"),
    Case("pole.atan_tan_wide", "pole", "false", {"x": (1, 2)}, ineq(sp.Integer(0), sp.atan(sp.tan(x)), rtol=0),
         seeded=True, note="atan(tan x) < 0 on (π/2, 2]"),
    Case("pole.diff_1e-9", "pole", "false", U,
         ineq(1 / (x - THIRD) - 1 / (x - THIRD - R(1, 10 ** 9)), sp.Integer(1), rtol=0),
         note="1/(x−a) − 1/(x−a−w) ≈ +∞ on (a, a+w), w = 1e-9"),
    Case("pole.diff_1e-4", "pole", "false", U,
         ineq(1 / (x - R(7, 10)) - 1 / (x - R(7, 10) - R(1, 10 ** 4)), sp.Integer(1), rtol=0), seeded=True,
         note="same, a = 0.7, w = 1e-4"),
    Case("pole.log_abs", "pole", "false", U, ineq(sp.Integer(-30), sp.log(sp.Abs(x - THIRD)), rtol=0),
         note="log|x−1/3| < −30 within 9e-14 of 1/3; d/dx = sign/|·|"),
    Case("pole.log_sq", "pole", "false", U, ineq(sp.Integer(-60), sp.log((x - THIRD) ** 2), rtol=0),
         note="log (x−1/3)² < −60 within 9e-14 of 1/3; d/dx = 2/(x−1/3)"),
    Case("pole.log_abs_diff", "pole", "false", U,
         ineq(sp.log(sp.Abs(x - THIRD)) - sp.log(sp.Abs(x - THIRD - R(1, 10 ** 6))), sp.Integer(20), rtol=0),
         note="→ +∞ at x = 1/3 + 1e-6"),
    Case("pole.2d_window", "pole", "false", U2,
         ineq(sp.atan(1 / (x - y - THIRD)) - sp.atan(1 / (x - y - THIRD - R(1, 10 ** 9))), sp.Integer(1), rtol=0),
         note="≈ π on the strip 1/3 < x − y < 1/3 + 1e-9"),
    # ---------------------------------------------------------------- jumps hidden by simplified derivatives
    Case("jump.atan_w1e-9", "jump", "false", U, ineq(_window(THIRD, R(1, 10 ** 9)), sp.Integer(1)), fast=True,
         note="N1 reproducer: ≈ π on (1/3, 1/3+1e-9)"),
    Case("jump.atan_w1e-4", "jump", "false", U, ineq(_window(THIRD, R(1, 10 ** 4)), sp.Integer(1)), seeded=True,
         note="w = 1e-4"),
    Case("jump.atan_w1e-1", "jump", "false", U, ineq(_window(THIRD, R(1, 10)), sp.Integer(1)), seeded=True,
         note="w = 0.1: the certifier alone proved it before issue 31"),
    Case("jump.atan_w1e-6_a07", "jump", "false", U, ineq(_window(R(7, 10), R(1, 10 ** 6)), sp.Integer(1)),
         note="a = 0.7, w = 1e-6"),
    Case("jump.atan_binary_a", "jump", "false", U, ineq(_window(R(1, 2), R(1, 2 ** 30)), sp.Integer(1)),
         note="a = 1/2 (a bisection point), w = 2^-30: the jump sits on box edges"),
    Case("jump.atan_left_edge", "jump", "false", {"x": (-1, 0)},
         ineq(_window(sp.Integer(-1), R(1, 10 ** 9)), sp.Integer(1)),
         note="window (−1, −1+1e-9) at the box's left end"),
    Case("jump.atan_right_edge", "jump", "false", U,
         ineq(_window(1 - R(1, 10 ** 9), R(1, 10 ** 9)), sp.Integer(1)), note="window (1−1e-9, 1)"),
    Case("jump.atan_irrational_a", "jump", "false", U, ineq(_window(1 / sp.pi, R(1, 10 ** 8)), sp.Integer(1)),
         note="a = 1/π, w = 1e-8"),
    Case("jump.atan_wide_box", "jump", "false", {"x": (-100, 100)},
         ineq(_window(R(1, 10), R(1, 10 ** 7)), sp.Integer(1)), note="box of width 200, w = 1e-7"),
    Case("jump.atan_sum_sign", "jump", "false", U,
         ineq(_sign_pi(THIRD) - _sign_pi(THIRD + R(1, 10 ** 9)), sp.Integer(0), rtol=0), fast=True,
         note="atan(1/t)+atan(t) = π/2·sign t, so this is π on (1/3, 1/3+1e-9); d/dx simplifies to 0"),
    Case("jump.atan_single", "jump", "false", U, ineq(sp.atan(1 / (x - THIRD)), R(3, 2)), seeded=True,
         note="atan(1/(x−1/3)) > 1.5 on (1/3, 1/3+0.07)"),
    # ---------------------------------------------------------------- kinks
    Case("kink.abs_floor", "kink", "false", U, ineq(R(1, 10 ** 9), sp.Abs(x - THIRD), rtol=0),
         note="|x−1/3| < 1e-9 on a window of 2e-9"),
    Case("kink.abs_two", "kink", "false", U,
         ineq(2 * R(1, 10 ** 9), sp.Abs(x - THIRD) + sp.Abs(x - THIRD - R(1, 10 ** 9)), rtol=0),
         note="sum = 1e-9 < 2e-9 between 1/3 and 1/3+1e-9"),
    Case("kink.max", "kink", "false", U, ineq(R(1, 2) + R(1, 10 ** 9), sp.Max(x, 1 - x), rtol=0), fast=True,
         note="max(x, 1−x) < 1/2+1e-9 within 1e-9 of 1/2"),
    Case("kink.min", "kink", "false", U, ineq(sp.Min(x, 1 - x), R(1, 2) - R(1, 10 ** 9), rtol=0),
         note="min(x, 1−x) > 1/2−1e-9 within 1e-9 of 1/2"),
    Case("kink.max_trig", "kink", "false", U, ineq(R(70711, 10 ** 5), sp.Max(sp.sin(x), sp.cos(x)), rtol=0),
         seeded=True, note="max(sin, cos) = 0.707107 < 0.70711 at π/4, w ≈ 4e-6"),
    Case("kink.sqrt_sq", "kink", "false", U, ineq(R(1, 10 ** 10), sp.sqrt((x - THIRD) ** 2), rtol=0),
         note="√((x−1/3)²) < 1e-10 on a window of 2e-10"),
    Case("kink.abs_minus", "kink", "false", U, ineq(sp.Abs(_gap()) - _gap(), sp.Integer(0), rtol=0),
         note="|u| − u = −2u > 0 on the window (a, a+w)"),
    # ---------------------------------------------------------------- discontinuous functions
    Case("disc.floor", "discontinuous", "false", U, ineq(sp.floor(3 * x), 3 * x - R(1, 10 ** 9), rtol=0),
         note="fails on [k/3, k/3+3e-10)"),
    Case("disc.frac", "discontinuous", "false", {"x": (0, 2)}, ineq(x - sp.floor(x), 1 - R(1, 10 ** 9), rtol=0),
         note="frac x > 1−1e-9 just left of 1 and 2"),
    Case("disc.ceiling", "discontinuous", "false", {"x": (0, 2)},
         ineq(sp.ceiling(x) - x, 1 - R(1, 10 ** 9), rtol=0), note="ceil x − x > 1−1e-9 just right of 0 and 1"),
    Case("disc.sign", "discontinuous", "false", U,
         ineq(sp.Integer(0), sp.sign(x - THIRD) * sp.sign(x - THIRD - R(1, 10 ** 9)), rtol=0),
         note="= −1 on (1/3, 1/3+1e-9)"),
    Case("disc.heaviside", "discontinuous", "false", U,
         ineq(sp.Heaviside(x - THIRD) - sp.Heaviside(x - THIRD - R(1, 10 ** 9)), R(1, 2), rtol=0),
         note="= 1 on (1/3, 1/3+1e-9)"),
    Case("disc.piecewise", "discontinuous", "false", U,
         ineq(sp.Piecewise((0, x < THIRD), (1, x < THIRD + R(1, 10 ** 9)), (0, True)), R(1, 2), rtol=0),
         note="= 1 on [1/3, 1/3+1e-9)"),
    Case("disc.mod", "discontinuous", "false", {"x": (0, 2)}, ineq(sp.Mod(x, 1), 1 - R(1, 10 ** 9), rtol=0),
         note="x mod 1 > 1−1e-9 just left of 1 and 2"),
    Case("disc.abs_ratio", "discontinuous", "false", U,
         ineq(sp.Integer(0), sp.Abs(_gap()) / _gap(), rtol=0), note="|u|/u = −1 on the window (a, a+w)"),
    # ---------------------------------------------------------------- branch cuts
    Case("branch.sqrt", "branch", "false", U, ineq(sp.Integer(0), sp.sqrt(_gap()), rtol=0),
         note="√((x−a)(x−a−w)) is not real on (a, a+w), a = 1/3, w = 1e-9"),
    Case("branch.sqrt_quad", "branch", "false", U,
         ineq(sp.Integer(0), sp.sqrt((x - R(1, 2)) ** 2 - R(1, 100)), rtol=0),
         seeded=True, note="not real on (0.4, 0.6)"),
    Case("branch.log_gap", "branch", "false", U, ineq(sp.Integer(-100), sp.log(_gap()), rtol=0),
         note="log of a negative number on (a, a+w), w = 1e-9"),
    Case("branch.log_near0", "branch", "false", U, ineq(sp.Integer(-50), sp.log(x), rtol=0),
         note="log x < −50 on (0, 2e-22), −∞ at 0: the declaration's probe may refuse it"),
    Case("branch.cbrt_negative", "branch", "false", U, ineq(sp.Integer(-1), _gap() ** R(1, 3), rtol=0),
         note="principal ((x−a)(x−a−w))^(1/3) is not real on the window"),
    Case("branch.pow32", "branch", "false", U, ineq(sp.Integer(0), _gap() ** R(3, 2), rtol=0),
         note="^(3/2) not real on the window"),
    Case("branch.real_power", "branch", "false", {"x": (0, 1), "y": (1, 2)},
         ineq(sp.Integer(0), _gap() ** y, rtol=0), note="negative base, real exponent, on the window"),
    Case("branch.atan2_2d", "branch", "false", {"x": (-1, 1), "y": (-1, 1)},
         ineq(R(-314159, 10 ** 5), sp.atan2(y, x), rtol=0),
         note="atan2 < −3.14159 just below the negative x-axis; its gradient is continuous there"),
    Case("branch.atan2_1d", "branch", "false", U, ineq(sp.Integer(0), sp.atan2(_gap(), -1), rtol=0),
         fast=True, note="atan2(u, −1) jumps from π to −π where u < 0: on (a, a+w); d/du = −1/(1+u²)"),
    # ---------------------------------------------------------------- integer domains
    Case("int.sin_false", "integer", "false", {"n": (0, 4)}, ineq(R(1, 10 ** 30), sp.sin(sp.pi * n) ** 2, rtol=0),
         integer=("n",), note="sin²(πn) = 0 at every integer"),
    Case("int.cos_false", "integer", "false", {"n": (0, 4)},
         ineq(sp.cos(sp.pi * n) ** 2, 1 - R(1, 10 ** 30), rtol=0), integer=("n",), note="cos² = 1 at integers"),
    Case("int.quad_false", "integer", "false", {"n": (0, 4)}, ineq(R(-19, 10), n * (n - 3), rtol=0),
         integer=("n",), note="n(n−3) = −2 at n = 1, 2"),
    Case("int.true_sin", "integer", "true", {"n": (0, 4)}, ineq(sp.sin(sp.pi * n) ** 2, R(1, 10 ** 20), rtol=0),
         integer=("n",), fast=True, note="N3: true at integers, false at n = 1/2"),
    Case("int.true_quad", "integer", "true", {"n": (0, 4)}, ineq(-(n - R(1, 2)) ** 2, -R(1, 4), rtol=0),
         integer=("n",), fast=True, note="true at integers, false between"),
    Case("int.true_prod", "integer", "true", {"n": (0, 5)}, ineq(sp.Integer(0), (n - 1) * (n - 2), rtol=0),
         integer=("n",), note="(n−1)(n−2) = −1/4 at 3/2"),
    Case("int.true_sin_engine", "integer", "true", {"n": (0, 4)},
         bare_engine(sp.sin(sp.pi * n) ** 2, R(1, 10 ** 20), rtol=0), integer=("n",),
         note="as int.true_sin, certified by the engine's Certifier alone"),
    Case("int.true_quad_engine", "integer", "true", {"n": (0, 4)},
         bare_engine(-(n - R(1, 2)) ** 2, -R(1, 4), rtol=0), integer=("n",),
         note="as int.true_quad, certified by the engine's Certifier alone"),
    Case("int.true_floor_id", "integer", "true", {"n": (0, 5)}, ident(sp.floor(n), n), integer=("n",),
         note="floor n = n on integers"),
    Case("int.true_cos_id", "integer", "true", {"n": (0, 5)}, ident(sp.cos(2 * sp.pi * n), sp.Integer(1)),
         integer=("n",), note="cos 2πn = 1 on integers"),
    Case("int.true_mixed", "integer", "true", {"n": (0, 3), "y": (0, 1)},
         ineq(R(1, 4), (n - R(1, 2)) ** 2 + y ** 2, rtol=0), integer=("n",),
         note="one integer and one real coordinate; false at n = 1/2"),
    # ---------------------------------------------------------------- assumptions contradicting the box
    Case("assume.pos_sqrt", "assumption", "false", {"x": (-1, 1)}, lazy(_pos_sqrt), fast=True,
         refusal_names=("positive",), note="N4: √(x²) = x with x positive, on [−1, 1]"),
    Case("assume.pos_abs", "assumption", "false", {"x": (-1, 1)}, lazy(_pos_abs),
         refusal_names=("positive",), note="|x| ≤ x with x positive → x ≤ x"),
    Case("assume.neg_sqrt", "assumption", "false", {"x": (-1, 1)}, lazy(_neg_sqrt),
         refusal_names=("negative",), note="√(x²) = −x with x negative"),
    Case("assume.int_sin", "assumption", "false", {"n": (0, 1)}, lazy(_int_sin),
         refusal_names=("integer",), note="sin(πn) = 0 with n integer=True on a real box"),
    Case("assume.int_floor", "assumption", "false", {"n": (0, 1)}, lazy(_int_floor),
         refusal_names=("integer",), note="floor n = n with n integer=True on a real box"),
    Case("assume.int_cos", "assumption", "false", {"n": (0, 1)}, lazy(_int_cos),
         refusal_names=("integer",), note="1 ≤ cos 2πn with n integer=True on a real box"),
    Case("assume.nonzero_sign", "assumption", "false", {"x": (-1, 1)}, lazy(_nonzero_sign),
         refusal_names=("nonzero",), note="1 ≤ sign(x)² with x nonzero (false at 0)"),
    Case("assume.pos_explog", "assumption", "false", {"x": (-1, 1)}, lazy(_pos_log),
         refusal_names=("positive",), note="exp(log x) = x, x positive, on [−1, 1]"),
    Case("assume.true_pos", "assumption", "true", {"x": (1, 2)}, lazy(_pos_consistent),
         note="√(x²) = x, x positive, on [1, 2]: consistent"),
    Case("assume.true_int", "assumption", "true", {"n": (0, 4)}, lazy(_int_consistent), integer=("n",),
         note="sin πn = 0, n integer=True on an integer coordinate: consistent"),
    # ---------------------------------------------------------------- allowances
    Case("allow.shift", "allowance", "false", {"x": (1e9, 2e9)}, ineq(x + 1, x), fast=True,
         note="N5: false by 1, rtol·|rhs| = 1 to 2"),
    Case("allow.exp", "allowance", "false", U, ineq(sp.exp(x), (1 - R(1, 10 ** 10)) * sp.exp(x)), fast=True,
         note="false by 1e-10·eˣ"),
    Case("allow.scale", "allowance", "false", {"x": (1, 2)}, ineq(x, x * (1 - R(1, 10 ** 12))),
         note="false by 1e-12·x"),
    Case("allow.square", "allowance", "false", {"x": (1000, 2000)}, ineq(x ** 2 + R(5, 10 ** 4), x ** 2),
         note="false by 5e-4 < 1e-9·x²"),
    Case("allow.sin", "allowance", "false", {"x": (1, 2)}, ineq(sp.sin(x) + R(1, 10 ** 12), sp.sin(x)),
         note="false by 1e-12"),
    Case("allow.atol_decl", "allowance", "true", U, ineq(x + R(1, 10 ** 6), x, atol=1e-5, rtol=0),
         note="true with its declared atol: lhs ≤ rhs + 1e-5"),
    # ---------------------------------------------------------------- decimal literals
    Case("dec.true_01", "decimal", "true", {"x": (0, 0.1)}, ineq(x, 0.1, rtol=0), fast=True,
         note="N14: x ≤ 0.1 on [0, 0.1]"),
    Case("dec.true_1e-1", "decimal", "true", {"x": (0, 0.1)}, ineq(x, 1e-1, rtol=0), note="1e-1 literal"),
    Case("dec.true_03", "decimal", "true", {"x": (0.3, 1)}, ineq(0.3, x, rtol=0), note="0.3 ≤ x on [0.3, 1]"),
    Case("dec.true_neg", "decimal", "true", {"x": (-0.1, 0)}, ineq(-x, 0.1, rtol=0), note="−x ≤ 0.1"),
    Case("dec.true_sym_float", "decimal", "true", {"x": (0, 0.1)}, ineq(x, sp.Float(0.1), rtol=0),
         note="a SymPy Float(0.1) side"),
    Case("dec.prev_double", "decimal", "false", {"x": (0, 0.1)}, ineq(x, 0.09999999999999999, rtol=0),
         fast=True, note="the double below 0.1: false at x = 0.1 (a 'simplest rational' reading makes it 1/10)"),
    Case("dec.box_past", "decimal", "false", {"x": (0, 0.30000000000000004)}, ineq(x, 0.3, rtol=0),
         note="box end 0.1+0.2 > 0.3"),
    Case("dec.box_before", "decimal", "false", {"x": (0.09999999999999999, 1)}, ineq(0.1, x, rtol=0),
         note="box starts below 0.1"),
    # ---------------------------------------------------------------- arb= twins
    Case("twin.window", "twin", "false", U, ineq(_spike_window, _x_plus_half, arb=(x, x + R(1, 2))), fast=True,
         note="callables violate on (0.5, 0.5+1e-7); the twin does not"),
    Case("twin.window_wide", "twin", "false", U, ineq(_spike_wide, _x_plus_half, arb=(x, x + R(1, 2))),
         seeded=True, note="window 1e-3"),
    Case("twin.point", "twin", "false", U, ineq(_spike_point, _half, arb=(sp.Integer(0), R(1, 2))),
         note="callables violate at x = 0.25 only"),
    Case("twin.constant", "twin", "false", U, ineq(_shifted_sq, _sq, arb=(x ** 2, x ** 2), rtol=0),
         seeded=True, note="callables differ from the twin by 1e-7 everywhere"),
    Case("twin.other_fn", "twin", "false", U, ineq(_cos, lambda x: 0.9, arb=(sp.sin(x), R(9, 10)), rtol=0),
         seeded=True, note="callable cos, twin sin: cos > 0.9 on [0, 0.45)"),
    Case("twin.narrow_other", "twin", "false", U,
         ineq(_tiny_spike_cos, lambda x: 0.9, arb=(sp.sin(x), R(9, 10)), rtol=0),
         note="callable = 1 on (0.3, 0.3+1e-9), sin elsewhere; the twin is sin"),
    Case("twin.true", "twin", "true", U, ineq(_log1p, _x, arb=(sp.log(1 + x), x), rtol=0),
         note="log(1+x) ≤ x with a faithful twin"),
    # ---------------------------------------------------------------- zero-sided identities
    Case("zero.true_pyth", "zero", "true", U, ident(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, sp.Integer(0)),
         fast=True, note="N2"),
    Case("zero.true_double", "zero", "true", U,
         ident(sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x), sp.Integer(0)), fast=True, note="N2"),
    Case("zero.true_exp", "zero", "true", U2, ident(sp.exp(x + y) - sp.exp(x) * sp.exp(y), sp.Integer(0)),
         note="N2"),
    Case("zero.true_log", "zero", "true", {"x": (0.5, 2), "y": (0.5, 2)},
         ident(sp.log(x * y) - sp.log(x) - sp.log(y), sp.Integer(0)), note="N2"),
    Case("zero.true_cosh", "zero", "true", {"x": (0, 3)},
         ident(sp.cosh(x) ** 2 - sp.sinh(x) ** 2 - 1, sp.Integer(0)), note="cosh² − sinh² − 1"),
    Case("zero.true_big", "zero", "true", {"x": (1e6, 2e6)}, ident((x + 1) ** 2 - x ** 2 - 2 * x - 1,
                                                                 sp.Integer(0)),
         note="cancellation of terms ~1e12"),
    Case("zero.true_left", "zero", "true", U, ident(sp.Integer(0), sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1),
         note="zero on the left"),
    Case("zero.pyth_off", "zero", "false", U,
         ident(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1 - R(1, 10 ** 9), sp.Integer(0)), fast=True,
         note="false by 1e-9 (terms ~1, tol 1e-12)"),
    Case("zero.exp_off", "zero", "false", U2,
         ident(sp.exp(x + y) - sp.exp(x) * sp.exp(y) - sp.exp(x) / 10 ** 10, sp.Integer(0)),
         note="false by 1e-10·eˣ"),
    Case("zero.log_off", "zero", "false", {"x": (0.5, 2), "y": (0.5, 2)},
         ident(sp.log(x * y) - sp.log(x) - sp.log(y) - R(1, 10 ** 10), sp.Integer(0)), note="false by 1e-10"),
    Case("zero.double_off", "zero", "false", {"x": (0.5, 1)},
         ident(sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x) - x / 10 ** 9, sp.Integer(0)), note="false by 1e-9·x"),
    Case("zero.cosh_off", "zero", "false", {"x": (0, 3)},
         ident(sp.cosh(x) ** 2 - sp.sinh(x) ** 2 - 1 - R(1, 10 ** 8), sp.Integer(0)), note="false by 1e-8"),
    # ---------------------------------------------------------------- removable singularities (N15)
    Case("removable.x2m1", "removable", "false", {"x": (0, 2)}, ident((x ** 2 - 1) / (x - 1), x + 1), fast=True,
         note="undefined at x = 1"),
    Case("removable.cubic", "removable", "false", U,
         ident((x ** 3 - R(1, 27)) / (x - THIRD), x ** 2 + x / 3 + R(1, 9)), note="undefined at 1/3"),
    Case("removable.square", "removable", "false", {"x": (0, 2)}, ident((x ** 2 - 2 * x + 1) / (x - 1), x - 1),
         note="undefined at 1"),
    Case("removable.explog", "removable", "false", {"x": (-1, 1)}, ident(sp.exp(sp.log(x), evaluate=False), x),
         note="exp(log x) = x built unevaluated; log undefined on [−1, 0].  Written sp.exp(sp.log(x)), SymPy "
              "returns x itself at construction and the claim printed and proved is x = x "
              "(docs/theory/engine.md, 'What is proved')"),
    Case("removable.sinc_le", "removable", "false", {"x": (-1, 1)}, ineq(sp.sin(x) / x, sp.Integer(1), rtol=0),
         note="sin x / x undefined at 0"),
    Case("removable.ineq", "removable", "false", {"x": (0, 2)}, ineq((x ** 2 - 1) / (x - 1), x + 1, rtol=0),
         note="inequality form, undefined at 1"),
    Case("removable.true_logexp", "removable", "true", {"x": (-1, 1)}, ident(sp.log(sp.exp(x)), x),
         note="log(eˣ) = x, defined everywhere"),
    # ---------------------------------------------------------------- plain true controls
    Case("control.bernoulli", "control", "true", U, ineq(x - x ** 2 / 2, sp.log(1 + x), rtol=0),
         note="x − x²/2 ≤ log(1+x)"),
    Case("control.exp", "control", "true", {"x": (-1, 1)}, ineq(1 + x, sp.exp(x), rtol=0), fast=True,
         note="1 + x ≤ eˣ (tight at 0)"),
    Case("control.atan_window_true", "control", "true", U, ineq(_window(THIRD, R(1, 10 ** 9)), sp.Integer(4)),
         note="the N1 window, but ≤ 4 is true (≈ π < 4)"),
    Case("control.abs_triangle", "control", "true", {"x": (-1, 1)}, ineq(sp.Abs(x), sp.Abs(x - THIRD) + THIRD,
                                                                        rtol=0),
         note="|x| ≤ |x − 1/3| + 1/3"),
]

FALSE = [c for c in CASES if c.expect == "false"]
TRUE = [c for c in CASES if c.expect == "true"]
FAST = [c for c in CASES if c.fast]


def _check_table():
    ids = [c.id for c in CASES]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise ValueError(f"duplicate case ids {sorted(dup)}")
    for c in CASES:
        if c.expect not in ("false", "true"):
            raise ValueError(f"case {c.id}: expect must be 'false' or 'true', got {c.expect!r}")
        if not c.id.split(".")[0]:
            raise ValueError(f"case {c.id}: id must start with its class")


_check_table()
