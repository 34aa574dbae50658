"""Premises before rules in the ball-arithmetic certifier (issue 31; review
``soundness-proved-tier.md`` findings N1, N3, N5, N14, N15).

* planted false statements whose falsity hides where a rule's premise fails — a jump that the
  simplified derivative cannot see, a removable-looking singularity, an identity that SymPy
  proves only where both sides are defined, integer domains, a shift below the rounding
  allowance, decimal literals — each asserted never ``proved`` and never refuted outside the
  declared domain;
* true statements on integer domains proved slice by slice, ``x ≤ 0.1`` on ``[0, 0.1]`` proved;
* the allowance printed with the statement proved (``proved_statement``, ``allowance``);
* the mutation table: each switch of ``certify._PREMISES`` turned off flips a named planted
  case to a false ``proved`` or an out-of-domain ``refuted``.
"""
from __future__ import annotations

import pickle
import time
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from proofs_check.engine import certify as C
from proofs_check.engine import expr as E

x, y, z, n = sp.symbols("x y z n")
R = sp.Rational
A = R(1, 3)


def _atan_window(w):
    """``atan(1/(x − 1/3)) − atan(1/(x − 1/3 − w)) ≤ 1`` on [0, 1]: false, the left side is
    ≈ π on (1/3, 1/3 + w); its derivative simplifies to a function with no jump."""
    return (sp.atan(1 / (x - A)) - sp.atan(1 / (x - A - w)), sp.Integer(1), ("x",), [0], [1])


#: (name, lhs, rhs, names, lo, hi, integer): false statements, each violated on the domain
PLANTED_FALSE = {
    "atan_window_1e-9": (*_atan_window(R(1, 10 ** 9)), ()),
    "atan_window_1e-4": (*_atan_window(R(1, 10 ** 4)), ()),
    "atan_window_1/10": (*_atan_window(R(1, 10)), ()),
    # d/dx atan(tan x) = 1 everywhere, but atan(tan x) jumps by −π at π/2
    "atan_tan_jump": (R(1, 2), sp.atan(sp.tan(x)), ("x",), [1], [2], ()),
    # sin(u)/u → 1 at u = 0 (removable-looking): false on a window of width ≈ 1.5e-4 around 1/3
    "removable_sinc": (sp.sin(x - A) / (x - A), 1 - R(1, 10 ** 9), ("x",), [0], [1], ()),
    # zero allowance: x + 1 ≤ x is false everywhere (the old default rtol = 1e-9 "proved" it)
    "shift_1e9": (x + 1, x, ("x",), [1e9], [2e9], ()),
    # x ≤ 1/10 (exact decimal) on [0, 0.1 as a double]: false at the box end 0.1000000000000000055…
    "decimal_vs_binary_end": (x, R(1, 10), ("x",), [0], [0.1], ()),
    # integer domain, false at n = 4: n² ≤ 10
    "integer_square": (n ** 2, sp.Integer(10), ("n",), [0], [5], ("n",)),
    # mixed: x·n ≤ 2 for x ∈ [0, 1], n ∈ {0, …, 3}: false at n = 3, x > 2/3
    "mixed_integer": (x * n, sp.Integer(2), ("x", "n"), [0, 0], [1, 3], ("n",)),
}

#: (name, lhs, rhs, names, lo, hi, integer): true on the declared domain (false off it)
TRUE_ON_INTEGERS = {
    "sin_pi_n": (sp.sin(sp.pi * n) ** 2, R(1, 10 ** 20), ("n",), [0], [4], ("n",)),
    "half_integer_gap": (-(n - R(1, 2)) ** 2, -R(1, 4), ("n",), [0], [4], ("n",)),
    "mixed_slices": (x * n - n, sp.sin(sp.pi * n) ** 2, ("x", "n"), [0, 0], [1, 3], ("n",)),
}


def _in_domain(point, names, lo, hi, integer):
    vals = {k: Fraction(point[k]) for k in names}
    return all(Fraction(a) <= vals[k] <= Fraction(b) for k, a, b in zip(names, lo, hi)) and \
        all(vals[k].denominator == 1 for k in integer)


def _violated_at(lhs, rhs, point):
    """Re-check a counterexample at 60 digits, independently of the certifier."""
    env = {sp.Symbol(k): sp.Rational(v) for k, v in point.items()}
    with mpmath.workdps(60):
        return sp.N(lhs.subs(env), 60) > sp.N(rhs.subs(env), 60)


def _run(case, **kw):
    lhs, rhs, names, lo, hi, integer = case
    return C.certify_inequality(lhs, rhs, names, lo, hi, integer=integer, **kw)


@pytest.mark.parametrize("name", sorted(PLANTED_FALSE))
def test_planted_false_never_proved_never_refuted_outside(name):
    case = PLANTED_FALSE[name]
    c = _run(case, max_boxes=4000, max_seconds=6)
    assert c.status != "proved", (name, c.sentence())
    if c.status == "refuted":
        lhs, rhs, names, lo, hi, integer = case
        assert _in_domain(c.counterexample_exact, names, lo, hi, integer), (name, c.counterexample_exact)
        assert _violated_at(lhs, rhs, c.counterexample_exact), (name, c.counterexample_exact)


def test_planted_false_mostly_refuted():
    """Not proved is the guarantee; refuted (in the domain) is the power: all but the
    removable singularity are found within the budget."""
    got = {k: _run(v, max_boxes=4000, max_seconds=6).status for k, v in PLANTED_FALSE.items()}
    assert sum(s == "refuted" for s in got.values()) >= len(got) - 1, got


@pytest.mark.parametrize("name", sorted(TRUE_ON_INTEGERS))
def test_true_on_integers_proved_slice_by_slice(name):
    lhs, rhs, names, lo, hi, integer = TRUE_ON_INTEGERS[name]
    c = _run(TRUE_ON_INTEGERS[name], max_seconds=10)
    assert c.status == "proved", (name, c.sentence())
    assert c.boxes >= hi[names.index("n")] - lo[names.index("n")] + 1       # one slice at least per value


def test_removable_identity_not_proved_symbolically():
    """(x² − 1)/(x − 1) = x + 1 simplifies to 0 = 0, but the left side is undefined at 1 ∈ [0, 2]."""
    c = C.certify_identity((x ** 2 - 1) / (x - 1), x + 1, ("x",), [0], [2], tol=1e-12, max_seconds=3)
    assert c.status != "proved", c.sentence()
    assert any("not shown defined" in t for t in c.notes), c.notes
    # off the singularity the symbolic proof stands
    c = C.certify_identity((x ** 2 - 1) / (x - 1), x + 1, ("x",), [2], [3], tol=1e-12)
    assert c.status == "proved" and c.method.startswith("symbolic"), c.sentence()
    # defined on every sub-box of a bisection is enough: the natural enclosure of the
    # denominator x − x² + 1/2 contains 0 on [0, 1], not on [0, 1/2], [1/2, 3/4], [3/4, 1]
    lhs = 1 / (x - x ** 2 + R(1, 2))
    assert not C._defined_on(lhs, ("x",), [0], [1], budget=1)
    assert C._defined_on(lhs, ("x",), [0], [1])
    c = C.certify_identity(lhs, 2 / (1 + 2 * x - 2 * x ** 2), ("x",), [0], [1], tol=0)
    assert c.status == "proved" and c.method.startswith("symbolic"), c.sentence()


def test_decimal_literal_is_the_binary_number():
    assert E.as_expr(0.1) == sp.Rational(Fraction(0.1)) != R(1, 10)
    assert E.as_expr(sp.Float(0.1) * x) == sp.Rational(Fraction(0.1)) * x
    for rhs in (0.1, sp.Float(0.1), sp.Float(0.1) + 0 * x):
        c = C.certify_inequality(x, rhs, ("x",), [0], [0.1])
        assert c.status == "proved", (rhs, c.sentence())
    c = C.certify_inequality(x, R(1, 10), ("x",), [0], [0.1])     # 1/10 < the double 0.1
    assert c.status == "refuted" and Fraction(c.counterexample_exact["x"]) == Fraction(0.1)
    # the three evaluators see the same number
    fe, me = E.FloatEvaluator([E.as_expr(0.1) * x], ("x",)), E.MpEvaluator([E.as_expr(0.1) * x], ("x",))
    assert fe(x=1.0) == 0.1
    with mpmath.workdps(50):
        assert me(x=mpmath.mpf(1)) == mpmath.mpf(Fraction(0.1).numerator) / Fraction(0.1).denominator


def test_statement_carries_the_allowance():
    c = C.certify_inequality(x + 1, x, ("x",), [1e9], [2e9])
    assert c.status == "refuted" and c.allowance == "0"
    c = C.certify_inequality(x + 1, x, ("x",), [1e9], [2e9], rtol=1e-9)
    assert c.status == "proved"                                  # only with its declared allowance …
    d = c.to_dict()
    assert d["allowance"] == "1e-09·|x|" and d["proved_statement"] == "x + 1 ≤ x + 1e-09·|x|"
    assert "with the declared allowance 1e-09·|x|" in c.sentence() and "1 box," in c.sentence()
    c = C.certify_inequality(x, x + R(1, 10 ** 5), ("x",), [0], [1], atol=1e-4)
    assert c.to_dict()["proved_statement"] == "x ≤ x + 1/100000 + 0.0001"
    c = C.certify_inequality(x - x ** 2 / 2, sp.log(1 + x), ("x",), [0], [1])
    assert c.status == "proved" and c.allowance == "0" and "allowance" not in c.sentence()
    assert c.proved_statement == "-x**2/2 + x ≤ log(x + 1)"
    c = C.certify_identity(sp.cosh(x) ** 2, 1 + sp.sinh(x) ** 2, ("x",), [0], [1], tol=1e-12,
                           tol_mode="relative", symbolic=False)
    assert c.status == "proved", c.sentence()
    assert c.proved_statement == ("|cosh(x)**2 − (sinh(x)**2 + 1)| ≤ 1e-12·max(|cosh(x)**2|, |sinh(x)**2 + 1|) "
                                  "(tol_mode relative)")
    assert c.allowance == "1e-12·max(|cosh(x)**2|, |sinh(x)**2 + 1|)"
    c = C.certify_identity(sp.cosh(x) ** 2, 1 + sp.sinh(x) ** 2, ("x",), [0], [1], tol=1e-12)
    assert c.status == "proved" and c.method.startswith("symbolic") and c.proved_statement == \
        "cosh(x)**2 = sinh(x)**2 + 1" and c.allowance == "0"
    many = C.certify_inequality(x ** 2, x, ("x",), [R(1, 3)], [1])
    assert many.boxes > 1 and f"{many.boxes} boxes" in many.sentence()


def test_integer_slices_limit_and_validation():
    c = C.certify_inequality(n + y, n + y + 1, ("n", "y"), [0, 0], [5000, 1], integer=("n",))
    assert c.status == "undecided" and "5001 integer slices" in c.reason, c.reason
    c = C.certify_inequality(n * y, n * y + 1, ("n", "y"), [0, 0], [64, 64], integer=("n", "y"))
    assert c.status == "undecided" and "4225 integer slices" in c.reason, c.reason
    c = C.certify_inequality(n, n + 1, ("n",), [R(1, 3)], [R(2, 3)], integer=("n",))
    assert c.status == "undecided" and "no integer value" in c.reason
    with pytest.raises(ValueError, match="not coordinates"):
        C.certify_inequality(n, n + 1, ("n",), [0], [1], integer=("m",))
    with pytest.raises(TypeError, match="integer"):
        C.certify_inequality(n, n + 1, ("n",), [0], [1], integer="n")


def test_certifier_integer_pickle_repr_contains():
    cf = C.Certifier("<=", sp.sin(sp.pi * n) ** 2, R(1, 10 ** 20), ("n", "x"), [0, 0], [4, 0.5], integer=("n",))
    back = pickle.loads(pickle.dumps(cf))
    assert back.integer == ("n",) and repr(back) == repr(cf)
    assert "n ∈ {0, …, 4} (integer)" in repr(cf) and "x ∈ [0, 1/2]" in repr(cf)
    assert cf.contains({"n": "2", "x": "1/4"}) and not cf.contains({"n": "1/2", "x": "0"})
    assert not cf.contains({"n": "5", "x": "0"}) and not cf.contains({"n": "1"})
    assert back().status == "proved"
    with pytest.raises(ValueError, match="not coordinates"):
        C.Certifier("<=", n, n, ("n",), [0], [1], integer=("k",))


@pytest.mark.parametrize("g", [sp.Piecewise((x, x < R(1, 2)), (x + 1, True)), sp.floor(3 * x), sp.sign(x - A),
                               sp.Heaviside(x - A), sp.Mod(3 * x, 1), sp.ceiling(3 * x)],
                         ids=["Piecewise", "floor", "sign", "Heaviside", "Mod", "ceiling"])
def test_jump_functions_are_not_certifiable(g):
    c = C.certify_inequality(g, sp.Integer(10), ("x",), [0], [1])
    assert c.status == "undecided" and "not certifiable" in c.reason, c.sentence()


def test_sympy_derivatives_of_kinks_have_no_interval_extension():
    """The docstring's claims about SymPy 1.14: the derivative of a kink does not compile or is
    undefined where the kink is, so no derivative rule is applied there."""
    import flint

    xr = sp.Symbol("x", real=True)
    yr = sp.Symbol("y", real=True)
    assert sp.diff(sp.Abs(xr - A), xr) == sp.sign(xr - A)
    assert sp.diff(sp.Max(xr, yr), xr).has(sp.Heaviside) and sp.diff(sp.Min(xr, yr), xr).has(sp.Heaviside)
    with flint.ctx.workprec(E.PREC):
        for g in (sp.Abs(xr - A), sp.Max(xr, 1 - xr), sp.Min(xr, 1 - xr)):
            prog = C._Program(g, 0, ("x",))
            assert prog.grad[0][0] is None, g                     # no form as differentiated
        box = {"x": E.Iv(flint.arb(0), flint.arb(1))}
        for g in (sp.sqrt(xr), xr ** R(1, 3), xr ** R(3, 4), sp.sqrt(xr ** 2 - 2 * xr / 3 + R(1, 9))):
            prog = C._Program(g, 0, ("x",))
            assert prog.grad_iv(0, box) is None, g                # undefined where the kink is
        prog = C._Program(xr ** R(5, 2), 0, ("x",))               # differentiable at 0: enclosed
        assert prog.grad_iv(0, box) is not None
        # the simplified derivative of the atan window is defined across the jump, the form
        # as differentiated is not, and only the latter is used
        prog = C._Program(sp.atan(1 / (xr - A)), 0, ("x",))
        assert prog.grad[0][1] is not None
        assert prog.grad_iv(0, box) is None


def test_large_expressions_return_in_budget():
    t = time.perf_counter()
    c = C.certify_inequality(x ** (10 ** 6), sp.Integer(1), ("x",), [0], [1], max_seconds=5)
    assert c.status == "proved" and time.perf_counter() - t < 10
    e = sp.expand((x + y + z + 1) ** 12)
    t = time.perf_counter()
    c = C.certify_identity(e, (x + y + z + 1) ** 12, ("x", "y", "z"), [0] * 3, [1] * 3, tol=1e-12, max_seconds=1)
    assert time.perf_counter() - t < 15, time.perf_counter() - t
    assert c.status != "refuted" and any("symbolic preprocessing skipped" in t for t in c.notes), c.notes


@pytest.mark.slow
def test_expand_22_identity_returns_in_budget():
    e = sp.expand((x + y + z + 1) ** 22)
    t = time.perf_counter()
    c = C.certify_identity(e, (x + y + z + 1) ** 22, ("x", "y", "z"), [0] * 3, [1] * 3, tol=1e-12, max_seconds=5)
    assert time.perf_counter() - t < 30, time.perf_counter() - t
    assert c.status != "refuted" and "symbolic preprocessing skipped: expression too large" in c.to_dict()["notes"][0]


# -- upgrade: the certifier's premises and the domain of a counterexample ---------------------

def _holds_result():
    import theorycheck as tc
    from proofs_check.engine import verify_claim

    c = tc.inequality("t31.searched", lhs=sp.sin(sp.pi * n) ** 2, rhs=R(1, 10 ** 20),
                      domain=tc.Box(n=(0, 4), integer=["n"]), budget=50, register=False, certify=False)
    r = verify_claim(c, executor="serial")
    assert (r.verdict, r.guarantee) == ("holds", "search")
    return r


class _Twin:
    """A certifier whose premise fails (the wrapper of callables + arb twins does this)."""

    def __init__(self, inner, why):
        self.inner, self.why, self.called = inner, why, False

    def premise_failure(self, result):
        return self.why

    def __call__(self):
        self.called = True
        return self.inner()


class _Hull:
    """A certifier that declares n ∈ {0, …, 4} integer but certifies the continuous hull (as the
    declaration layer did before issue 31)."""

    def __init__(self):
        self.declared = C.Certifier("<=", sp.sin(sp.pi * n) ** 2, R(1, 10 ** 20), ("n",), [0], [4],
                                    integer=("n",))

    def contains(self, point):
        return self.declared.contains(point)

    def __call__(self):
        return C.certify_inequality(sp.sin(sp.pi * n) ** 2, R(1, 10 ** 20), ("n",), [0], [4])


def test_upgrade_premise_failure_keeps_the_search_verdict():
    r = _holds_result()
    inner = C.Certifier("<=", sp.sin(sp.pi * n) ** 2, R(1, 10 ** 20), ("n",), [0], [4], integer=("n",))
    out = C.upgrade(r, _Twin(inner, "the arb twin disagrees with the callables at n = 2"))
    assert (out.verdict, out.guarantee, out.certificate) == ("holds", "search", r.certificate)
    assert out.warnings[-1] == "the arb twin disagrees with the callables at n = 2"
    twin = _Twin(inner, "")
    out = C.upgrade(r, twin)
    assert twin.called and out.guarantee == "proved"
    assert out.certificate["proved_statement"] == "sin(pi*n)**2 ≤ 1/100000000000000000000"


def test_upgrade_refuses_a_counterexample_outside_the_domain():
    r = _holds_result()
    out = C.upgrade(r, _Hull())
    assert (out.verdict, out.guarantee) == ("holds", "search"), out
    assert "outside the declared domain" in out.warnings[-1]


# -- the mutation table: each premise check matters ---------------------------------------------

def _proved(case):
    return _run(PLANTED_FALSE[case], max_boxes=2000, max_seconds=4).status == "proved"


def _flip_g_enclosed():
    return _proved("atan_tan_jump")


def _flip_as_differentiated():
    # (b) is the second layer: with (a) gone, it alone stops the atan window (the simplified
    # derivative is defined across the jump) — and at the rule level it withholds the
    # derivative enclosure on a box straddling the pole
    import flint

    prog = C._Program(sp.atan(1 / (sp.Symbol("x", real=True) - A)), 0, ("x",))
    with flint.ctx.workprec(E.PREC):
        enclosed = prog.grad_iv(0, {"x": E.Iv(flint.arb(0), flint.arb(1))}) is not None
    return enclosed and _proved("atan_window_1/10")


def _flip_symbolic():
    return C.certify_identity((x ** 2 - 1) / (x - 1), x + 1, ("x",), [0], [2], tol=1e-12,
                              max_seconds=2).status == "proved"


def _flip_integer_slices():
    c = _run(TRUE_ON_INTEGERS["sin_pi_n"], max_seconds=4)
    return c.status == "refuted" and Fraction(c.counterexample_exact["n"]).denominator != 1


def _flip_in_domain():
    out = C.upgrade(_holds_result(), _Hull())
    return out.verdict == "refuted" and out.guarantee == "exact"


#: switch → (switches turned off, the planted case that flips)
MUTATIONS = {
    "g_enclosed_before_derivative": (("g_enclosed_before_derivative",), _flip_g_enclosed),
    "as_differentiated_derivative": (("g_enclosed_before_derivative", "as_differentiated_derivative"),
                                     _flip_as_differentiated),
    "symbolic_needs_defined": (("symbolic_needs_defined",), _flip_symbolic),
    "integer_slices": (("integer_slices",), _flip_integer_slices),
    "counterexample_in_domain": (("counterexample_in_domain",), _flip_in_domain),
}


def test_mutation_table_covers_every_premise():
    assert set(MUTATIONS) == set(C._PREMISES)


@pytest.mark.parametrize("flag", sorted(MUTATIONS))
def test_mutation_each_premise_matters(flag, monkeypatch):
    off, flips = MUTATIONS[flag]
    assert not flips(), f"{flag}: the planted case is already wrong with every premise checked"
    if len(off) > 1:                          # the other switches alone do not flip it
        for other in off:
            if other != flag:
                monkeypatch.setitem(C._PREMISES, other, False)
        assert not flips(), f"{flag}: the case flips without removing {flag}"
    for f in off:
        monkeypatch.setitem(C._PREMISES, f, False)
    assert flips(), f"removing the premise check {flag} went unnoticed by its planted case"
