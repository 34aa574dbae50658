"""The project's own claims that the ball-arithmetic certifier proves (issue 22, engineer 22b):
``seqproj.formula.*``, ``mismatch.scalar.*`` and ``baselines.scalar.*``.

* each registered claim carries a certifier, and it proves the claim in its default budget;
* each claim can fail: a mutated statement (a wrong sign, constant or exponent) is refuted
  with a counterexample certified in ball arithmetic and re-checked here at 60 digits,
  independently of the certifier.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy as sp

import proofs_check as pc
from proofs_check.engine import certify as C
from proofs_check.engine import registry

pc.claims()
from proofs_check.baselines.claims import scalar as BS  # noqa: E402  (registered by pc.claims())
from proofs_check.mismatch.claims import scalar as MS  # noqa: E402
from seqproj.claims import formulas as SF  # noqa: E402

R = sp.Rational


def _ineq_cases():
    out = []
    for cid, (lhs, rhs, box, atol) in SF.EXPRESSIONS.items():
        out.append((cid, "inequality", lhs, rhs, box, atol))
    for cid, (kind, lhs, rhs, box, tol) in {**MS.EXPRESSIONS, **BS.EXPRESSIONS}.items():
        out.append((cid, kind, lhs, rhs, box, tol))
    return out


CASES = _ineq_cases()
IDS = [c[0] for c in CASES]


def test_the_expected_claims_are_registered_with_a_certifier():
    assert len(IDS) == 10
    for cid in IDS:
        claim = registry.get_claim(cid)
        assert claim.certifier is not None, cid
        assert claim.expected == "holds" and claim.role == "statement", cid


@pytest.mark.parametrize("cid", IDS)
def test_registered_claim_is_proved(cid):
    cert = registry.get_claim(cid).certifier()
    assert cert.status == "proved", (cid, cert.sentence())


def _e(v):
    return sp.Rational(Fraction(float(v)))


eps, delta, T = SF.eps, SF.delta, SF.T
u, r = SF.u, SF.r
p, q, k, x = MS.p, MS.q, MS.k, MS.x
M = SF.M_SEQ
H = SF.H_MIX

#: id -> (mutated lhs, mutated rhs, what was mutated); box and atol as in the claim
MUTANTS = {
    "seqproj.formula.min_dim_decreasing_in_eps": (-sp.factor(sp.diff(M, eps)), 0, "sign of ∂M/∂ε flipped"),
    "seqproj.formula.min_dim_decreasing_in_delta": (
        sp.diff(M.subs(sp.log(1 / delta), sp.log(delta)), delta), 0, "log(1/δ) written log(δ)"),
    "seqproj.formula.min_dim_increasing_in_T": (
        0, sp.diff(M.subs(sp.log(1 + T), -sp.log(1 + T)), T), "log(1+T) with the wrong sign"),
    "seqproj.formula.mixture_boundary_concave": (
        sp.diff(H, u) ** 2, 2 * H * sp.diff(H, u, 2), "convex instead of concave"),
    "seqproj.formula.mixture_below_tangent": (
        SF.mixture_boundary(r), SF.mixture_boundary(sp.Integer(1)) + R(101, 100) * SF._TANGENT_SLOPE * (r - 1),
        "tangent slope raised by 1 %"),
    "mismatch.scalar.pinsker_two_point": (R(5, 2) * (p - q) ** 2, MS.KL_TWO_POINT, "Pinsker constant 2 → 2.5"),
    "mismatch.scalar.sqrt_sum_step": (
        sp.sqrt(k), R(1, 2) * ((k + 1) ** R(3, 2) - k ** R(3, 2)), "constant 2/3 → 1/2"),
    "mismatch.scalar.c_star_profile_sign": (0, (x - R(9, 8)) * sp.diff(MS.PROFILE, x), "minimiser moved to 9/8"),
    "mismatch.scalar.c_star_profile": (
        MS.U_BETA.subs(MS._C, x * sp.sqrt(2 * MS.beta * (1 + MS.chi2))),
        2 * MS.beta * MS.K ** 2 * (1 + MS.chi2) * MS.PROFILE, "C* = √(2β(1+χ²)) instead of √(β(1+χ²))"),
    "baselines.scalar.otb_welford_gap": (
        BS.GAP, BS.WELFORD.subs(BS.a3 ** 2, BS.a3), "weight a_3² written a_3"),
}


def _violated_at(lhs, rhs, point, atol):
    """lhs − rhs > atol at the exact point, at 60 digits (not by the certifier)."""
    env = {sp.Symbol(n): sp.Rational(v) for n, v in point.items()}
    with mpmath.workdps(60):
        lv = sp.N(sp.sympify(lhs).subs(env), 60)
        rv = sp.N(sp.sympify(rhs).subs(env), 60)
    return lv - rv > atol


@pytest.mark.parametrize("cid", IDS)
def test_mutated_claim_is_refuted_with_a_certified_counterexample(cid):
    _, kind, _, _, box, tol = next(cc for cc in CASES if cc[0] == cid)
    lhs, rhs, what = MUTANTS[cid]
    names = tuple(box)
    lo = [_e(a) for a, _ in box.values()]
    hi = [_e(b) for _, b in box.values()]
    if kind == "identity":
        mode = registry.get_claim(cid).tol_mode
        cert = C.certify_identity(lhs, rhs, names, lo, hi, tol=tol, tol_mode=mode, max_seconds=10)
    else:
        cert = C.certify_inequality(lhs, rhs, names, lo, hi, atol=tol, max_seconds=10)
    assert cert.status == "refuted", (cid, what, cert.sentence())
    pt = cert.counterexample_exact
    assert all(a <= Fraction(pt[n]) <= b for n, a, b in zip(names, lo, hi)), pt
    if kind == "identity":
        diff = (sp.sympify(lhs) - sp.sympify(rhs)).subs({sp.Symbol(n): sp.Rational(v) for n, v in pt.items()})
        assert abs(sp.N(diff, 60)) > 0, (cid, pt)
    else:
        assert _violated_at(lhs, rhs, pt, tol), (cid, what, pt)
