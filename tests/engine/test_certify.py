"""Soundness of the ball-arithmetic certifier (``proofs_check.engine.certify``, issue 22).

* planted false inequalities (violations of relative size 1e-3 … 1e-12, and below float64
  resolution; at interior points, at box corners, on thin slivers): never ``proved``, each
  ``refuted`` (with a counterexample re-checked here at 60 digits) or ``undecided``;
* true inequalities tight at a point, at a corner or along an edge: ``proved``;
* mutations of the certifier — outward rounding dropped (endpoints evaluated in float64),
  a box accepted whose lower bound is slightly negative — make the planted suite fail.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from proofs_check.engine import certify as C
from proofs_check.engine import expr as E

x, y, z, w = sp.symbols("x y z w")
R = sp.Rational

SIZES = [1e-3, 1e-6, 1e-9, 1e-12]


def _eps(v):
    return sp.Rational(Fraction(v))


def planted_false():
    """(name, lhs, rhs, names, lo, hi): each violated somewhere on its box."""
    out = []
    for s in SIZES:
        e = _eps(s)
        # interior point: a parabola touching 0 at 1/3 lifted above by e·(scale 1)
        out.append((f"interior_{s:g}", e, (x - R(1, 3)) ** 2, ("x",), [0], [1]))
        # box corners (violation only within e of x = 0, resp. of x = 1)
        out.append((f"corner_lo_{s:g}", e, x, ("x",), [0], [1]))
        out.append((f"corner_hi_{s:g}", e, 1 - x, ("x",), [0], [1]))
        # thin sliver in 2-D: violation on the band |x + y − 1| < √e
        out.append((f"sliver_{s:g}", e, (x + y - 1) ** 2, ("x", "y"), [0, 0], [1, 1]))
        # a relative violation of an identity-tight pair: sin² + cos² ≤ 1 − e·(bump at 0.7)
        out.append((f"tight_pair_{s:g}", sp.sin(x) ** 2 + sp.cos(x) ** 2 + e * (1 - 4 * (x - R(7, 10)) ** 2),
                    sp.Integer(1), ("x",), [R(1, 2)], [R(9, 10)]))
        # the log lemma with its x³ coefficient raised by e: false for x > 0 small
        out.append((f"log_lemma_{s:g}", x - x ** 2 / 2 + (R(1, 3) + e) * x ** 3, sp.log(1 + x),
                    ("x",), [0], [1]))
    # jumps that a derivative cannot see (issue 31, N1): the simplified derivative of
    # atan(1/(x − a)) is defined across a; d/dx atan(tan x) = 1 across the jump at π/2
    a = R(1, 3)
    out.append(("atan_window_1e-9", sp.atan(1 / (x - a)) - sp.atan(1 / (x - a - R(1, 10 ** 9))), sp.Integer(1),
                ("x",), [0], [1]))
    out.append(("atan_tan_jump", R(1, 2), sp.atan(sp.tan(x)), ("x",), [1], [2]))
    # below float64 resolution: 1 + 1e-20 ≤ 1 (a float evaluation cannot see it)
    out.append(("subfloat", 1 + R(1, 10 ** 20) * (1 + x), sp.Integer(1), ("x",), [0], [1]))
    out.append(("subfloat_2d", x * y + R(1, 10 ** 20), x * y, ("x", "y"), [-1, -1], [1, 1]))
    return out


def true_tight():
    """(name, lhs, rhs, names, lo, hi, rtol): true, and tight somewhere."""
    return [
        ("log_lower_0_50", x - x ** 2 / 2, sp.log(1 + x), ("x",), [0], [50], 0),
        ("exp_tangent_interior", 1 + x, sp.exp(x), ("x",), [-2], [3], 0),
        ("exp_tangent_corner", 1 + x, sp.exp(x), ("x",), [0], [5], 0),
        ("am_gm_at_1", 2 * x, x ** 2 + 1, ("x",), [-3], [5], 0),
        ("non_binary_contact", R(2, 3) * x - R(1, 9), x ** 2, ("x",), [-1], [2], 1e-9),
        ("cosh_ge_1_plus_half_sq", 1 + x ** 2 / 2, sp.cosh(x), ("x",), [-2], [2], 0),
        ("edge_tight_2d", x * y, x, ("x", "y"), [0, 0], [1, 1], 0),            # equality on x = 0 and y = 1
        ("exp_sum_2d_interior_point", 2 + x + y, sp.exp(x) + sp.exp(y), ("x", "y"), [-1, -R(3, 2)], [2, 1], 0),
        ("log_sum_3d_corner", x + y + z - (x ** 2 + y ** 2 + z ** 2) / 2,
         sp.log(1 + x) + sp.log(1 + y) + sp.log(1 + z), ("x", "y", "z"), [0, 0, 0], [3, 2, 1], 0),
    ]


def _violated_at(lhs, rhs, names, point, rtol=0.0):
    """Re-check a certified counterexample at 60 digits, independently of the certifier."""
    with mpmath.workdps(60):
        env = {sp.Symbol(n): sp.Rational(v) for n, v in point.items()}
        lv = sp.N(lhs.subs(env), 60)
        rv = sp.N(rhs.subs(env), 60)
        return lv - rv > rtol * abs(rv)


@pytest.mark.parametrize("case", planted_false(), ids=lambda c: c[0])
def test_planted_false_never_proved(case):
    name, lhs, rhs, names, lo, hi = case
    c = C.certify_inequality(lhs, rhs, names, lo, hi, max_boxes=4000, max_seconds=4)
    assert c.status in ("refuted", "undecided"), (name, c.sentence())
    if c.status == "refuted":
        pt = c.counterexample_exact
        assert all(Fraction(a) <= Fraction(pt[n]) <= Fraction(b) for n, a, b in zip(names, lo, hi)), pt
        assert _violated_at(lhs, rhs, names, pt), (name, pt)


def test_planted_false_mostly_refuted():
    """Undecided is allowed, but the suite must find most counterexamples."""
    got = [C.certify_inequality(l, r, n, a, b, max_boxes=4000, max_seconds=4).status
           for _, l, r, n, a, b in planted_false()]
    assert got.count("proved") == 0
    assert got.count("refuted") >= len(got) - 2, got


@pytest.mark.parametrize("case", true_tight(), ids=lambda c: c[0])
def test_true_tight_proved(case):
    name, lhs, rhs, names, lo, hi, rtol = case
    c = C.certify_inequality(lhs, rhs, names, lo, hi, rtol=rtol, max_seconds=10)
    assert c.status == "proved", (name, c.sentence())


def test_tight_along_a_curve_needs_an_allowance():
    """Pinsker for two-point distributions, 2(a − b)² ≤ KL(a‖b), is tight on the whole
    diagonal: with atol = 0 it is not proved within a small budget (and never refuted); a
    declared δ = atol makes it decidable (δ-completeness)."""
    a, b = sp.symbols("a b")
    kl = a * sp.log(a / b) + (1 - a) * sp.log((1 - a) / (1 - b))
    c0 = C.certify_inequality(2 * (a - b) ** 2, kl, ("a", "b"), [R(1, 10)] * 2, [R(9, 10)] * 2,
                              max_boxes=300, max_seconds=20)     # the box budget binds (a loaded machine)
    assert c0.status == "undecided" and 0 < c0.uncertified_fraction < 1 and c0.uncertified
    c1 = C.certify_inequality(2 * (a - b) ** 2, kl, ("a", "b"), [R(1, 10)] * 2, [R(9, 10)] * 2,
                              atol=1e-4, max_seconds=20)
    assert c1.status == "proved", c1.sentence()


def test_unbounded_or_bad_box_refused():
    with pytest.raises(ValueError, match="closed bounded"):
        C.certify_inequality(x, x + 1, ("x",), [0], [float("inf")])
    with pytest.raises(ValueError, match="max_boxes"):
        C.certify_inequality(x, x + 1, ("x",), [0], [1], max_boxes=0)


def test_unsupported_function_is_undecided_not_proved():
    c = C.certify_inequality(sp.gamma(x), x + 10, ("x",), [1], [2])
    assert c.status == "undecided" and "not certifiable" in c.reason


def test_undefined_on_part_of_the_box_is_not_proved():
    c = C.certify_inequality(sp.Integer(-1), sp.log(x), ("x",), [0], [1], max_boxes=500, max_seconds=2)
    assert c.status != "proved"


def test_interval_ops_contain_samples():
    """The inclusion property on random sub-boxes (a direct check of expr.compile_interval)."""
    import random

    import flint

    exprs = [sp.log(1 + x) * sp.exp(-y) + sp.sqrt(x + y) - sp.Abs(x - y) ** 3,
             sp.cosh(x - y) / (1 + x ** 2) + sp.Max(x, y) * sp.Min(x, 2 * y) + sp.sin(3 * x) * sp.atan(y),
             (x + 1) ** R(3, 2) - x ** R(1, 3) * y ** -2]
    rnd = random.Random(5)
    with flint.ctx.workprec(E.PREC):
        for e in exprs:
            F = E.compile_interval(e, ("x", "y"))
            for _ in range(8):
                a0, b0 = sorted(rnd.uniform(0.01, 3) for _ in range(2))
                a1, b1 = sorted(rnd.uniform(0.5, 3) for _ in range(2))
                iv = F({"x": E.Iv(flint.arb(a0), flint.arb(b0)), "y": E.Iv(flint.arb(a1), flint.arb(b1))})
                for _ in range(4):
                    px, py = rnd.uniform(a0, b0), rnd.uniform(a1, b1)
                    with mpmath.workdps(40):
                        v = sp.N(e.subs({x: sp.Rational(px), y: sp.Rational(py)}), 40)
                    assert float(iv.lo.mid()) - 1e-12 <= float(v) <= float(iv.hi.mid()) + 1e-12, (e, px, py)


# -- mutations: each must make the planted suite fail -------------------------------------

def _planted_proved():
    return [n for n, l, r, ns, a, b in planted_false()
            if C.certify_inequality(l, r, ns, a, b, max_boxes=2000, max_seconds=2).status == "proved"]


def test_mutation_float_rounding_is_caught(monkeypatch):
    """Endpoints rounded to the nearest float64 instead of outward: a planted false
    inequality gets 'proved' — the suite above would fail."""
    import flint

    def to_float(ball):
        return flint.arb(float(ball.mid()))

    monkeypatch.setattr(E, "down", to_float)
    monkeypatch.setattr(E, "up", to_float)
    monkeypatch.setattr(C, "down", to_float)
    monkeypatch.setattr(C, "up", to_float)
    wrong = _planted_proved()
    assert wrong, "dropping outward rounding went unnoticed by the planted suite"


def test_mutation_negative_slack_is_caught(monkeypatch):
    """A box accepted when its lower bound is ≥ −1e-10 (slightly negative): planted
    violations of size 1e-12 get 'proved'."""
    monkeypatch.setattr(C, "_ACCEPT_SLACK", 1e-10)
    wrong = _planted_proved()
    assert any("1e-12" in n for n in wrong), wrong


def test_identity_symbolic_then_balls():
    c = C.certify_identity(sp.cosh(x) ** 2 - sp.sinh(x) ** 2, sp.Integer(1), ("x",), [-3], [3], tol=1e-12)
    assert c.status == "proved" and c.method.startswith("symbolic")
    c = C.certify_identity(sp.log(x * y), sp.log(x) + sp.log(y), ("x", "y"), [R(1, 2)] * 2, [3, 2],
                           tol=1e-12, tol_mode="absolute")
    # symbolically, with the signs the box implies (x, y > 0): log(x·y) = log x + log y there
    assert c.status == "proved" and c.method.startswith("symbolic")
    c = C.certify_identity(sp.log(x * y), sp.log(x) + sp.log(y), ("x", "y"), [R(1, 2)] * 2, [3, 2],
                           tol=1e-12, tol_mode="absolute", symbolic=False)
    assert c.status == "proved" and c.boxes >= 1
    c = C.certify_identity(sp.log(x * y), sp.log(x) + sp.log(y) + R(1, 10 ** 9) * x, ("x", "y"),
                           [R(1, 2)] * 2, [3, 2], tol=1e-12, tol_mode="absolute")
    assert c.status == "refuted"


# -- the declaration, the verdict, JSON, the pytest plugin and `theorycheck verify file.py` -----

def test_declared_expression_claims_verdicts():
    import theorycheck as tc
    from proofs_check.engine import verify_claim

    c = tc.inequality("t22.log_lower", lhs=x - x ** 2 / 2, rhs=sp.log(1 + x), domain=tc.Box(x=(0, 50)),
                      register=False)
    r = verify_claim(c)
    assert (r.verdict, r.guarantee, r.certificate["status"]) == ("holds", "proved", "proved")
    d = json.loads(r.to_json())
    assert d["certificate"]["boxes"] >= 1 and "seconds" in d["certificate"]
    assert type(r).from_dict(d).certificate["status"] == "proved"
    # the sentence states the statement proved, with its allowance (none here: rtol = 0 is
    # not the default of a declaration, the certifier's statement is what is printed)
    sentence = r.certificate_sentence()
    assert sentence.startswith("proved") and r.certificate["proved_statement"] in sentence, sentence
    # a violation on a sliver of width ≈ 2e-9 around 1/3: the search misses it, balls do not
    # (lhs − rhs = 1e-6 at x = 1/3, above the declaration's allowance rtol·|rhs| = 1e-9)
    c = tc.inequality("t22.sliver", lhs=1 - R(1, 10 ** 6) + 2 * R(1, 10 ** 6) * sp.exp(-((x - R(1, 3)) * 10 ** 9) ** 2),
                      rhs=sp.Integer(1), domain=tc.Box(x=(0, 1)), budget=400, register=False)
    r = verify_claim(c)
    assert (r.verdict, r.guarantee) == ("refuted", "exact"), r
    assert r.certificate["status"] == "refuted"
    assert abs(r.certificate["counterexample"]["x"] - 1 / 3) < 1e-8
    c = tc.identity("t22.cosh", lhs=sp.cosh(x) ** 2 - sp.sinh(x) ** 2, rhs=sp.Integer(1), domain=tc.Box(x=(-3, 3)),
                    register=False)
    r = verify_claim(c)
    assert (r.verdict, r.guarantee) == ("holds", "proved")
    c = tc.inequality("t22.nocert", lhs=x - x ** 2 / 2, rhs=sp.log(1 + x), domain=tc.Box(x=(0, 50)),
                      register=False, certify=False)
    assert verify_claim(c).guarantee == "search"


def test_callable_sides_with_arb_twin_and_refusals():
    import math as m

    import theorycheck as tc

    c = tc.inequality("t22.callable", lhs=lambda x: 1 + x, rhs=lambda x: m.exp(x), domain=tc.Box(x=(-1, 1)),
                      arb=(1 + x, sp.exp(x)), register=False)
    assert c.certifier is not None and c.certifier().status == "proved"
    with pytest.raises(ValueError, match="Box"):
        tc.inequality("t22.simplex", lhs=lambda p: 0.0, rhs=lambda p: 1.0, domain=tc.Simplex(2),
                      arb=(sp.Integer(0), sp.Integer(1)), register=False)
    d = tc.Domain(lambda rng: rng.uniform(0, 1, 1), ["x"])            # not a box: searched, and says so
    c = tc.inequality("t22.domain", lhs=x, rhs=x + 1, domain=d, register=False)
    assert c.certifier is None and "only a closed bounded Box" in c.notes
    with pytest.raises(ValueError, match="not coordinates"):
        tc.inequality("t22.bad", lhs=x, rhs=y, domain=tc.Box(x=(0, 1)), register=False)
    with pytest.raises(ValueError, match="max_boxes"):
        tc.inequality("t22.budget", lhs=x, rhs=x + 1, domain=tc.Box(x=(0, 1)), certify={"boxes": 3},
                      register=False)


@pytest.mark.slow
@pytest.mark.hostile     # 14 s of subprocesses (CLI and pytest)
def test_cli_verify_file_and_pytest_plugin(tmp_path):
    src = textwrap.dedent('''
        import sympy as sp
        import theorycheck as tc
        x = sp.Symbol("x")
        tc.inequality("mine.log_lower", lhs=x - x**2/2, rhs=sp.log(1 + x), domain=tc.Box(x=(0, 50)),
                      expected="holds")
    ''')
    f = tmp_path / "claims22.py"
    f.write_text(src)
    out = subprocess.run([sys.executable, "-m", "theorycheck", "verify", str(f), "--quick", "--json",
                          "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout.strip().splitlines()[0])
    assert row["guarantee"] == "proved" and row["certificate"]["status"] == "proved"
    table = subprocess.run([sys.executable, "-m", "theorycheck", "verify", str(f), "--quick",
                            "--out", str(tmp_path / "out2")], capture_output=True, text=True, cwd=tmp_path)
    assert "proved: -x**2/2 + x ≤ log(x + 1) at every point of the declared domain" in table.stdout, table.stdout
    table = subprocess.run([sys.executable, "-m", "theorycheck", "verify", str(f), "--quick", "--format", "table",
                            "--out", str(tmp_path / "out3")], capture_output=True, text=True, cwd=tmp_path)
    assert "at every point of the declared domain" in table.stdout, table.stdout
    test = tmp_path / "test_mine22.py"
    test.write_text(textwrap.dedent('''
        import pytest
        import sympy as sp
        import theorycheck as tc
        x = sp.Symbol("x")

        @pytest.mark.theorycheck_claim(expect="holds")
        def test_log_lower():
            return tc.inequality("mine.log_lower_pt", lhs=x - x**2/2, rhs=sp.log(1 + x),
                                 domain=tc.Box(x=(0, 50)), register=False)

        @pytest.mark.theorycheck_claim(expect="refuted")
        def test_log_false():
            return tc.inequality("mine.log_false_pt", lhs=x - x**2/2 + x**3/2, rhs=sp.log(1 + x),
                                 domain=tc.Box(x=(0, 1)), register=False)
    '''))
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", str(test), "-p", "no:cacheprovider",
                          "--theorycheck-budget", "quick"], capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0 and "2 passed" in res.stdout, res.stdout + res.stderr
