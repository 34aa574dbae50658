"""Shrinking a confirmed inequality violation to a counterexample a person can read."""
import json
import textwrap

import numpy as np
import pytest

import proofs_check as pc
from theorycheck.cli import main
from proofs_check.engine import registry
from proofs_check.engine.shrink import complexity, point_from, reevaluate, shrink
from proofs_check.engine import verify_claim

#: A false inequality in 10 dimensions whose violation needs exactly two coordinates
#: (x3·x7 > 1 − 0.05 Σ sin x_i; the sine term is a small perturbation of every coordinate).
PLANTED = '''
import mpmath
import numpy as np
import proofs_check as pc


def lhs(x):
    return float(x[3] * x[7] + 0.05 * np.sum(np.sin(x)))


def rhs(x):
    return 1.0


def lhs_mp(x):
    return x[3] * x[7] + mpmath.mpf("0.05") * mpmath.fsum(mpmath.sin(v) for v in x)


def rhs_mp(x):
    return mpmath.mpf(1)


pc.inequality("planted.ten_dims", lhs, rhs, domain=pc.Box(x=(-2.0, 2.0, 10)), lhs_mp=lhs_mp, rhs_mp=rhs_mp,
              expected="refuted", role="control")
'''


@pytest.fixture(autouse=True)
def _isolated_registry():
    with registry.isolated():
        yield


@pytest.fixture
def planted(tmp_path):
    path = tmp_path / "planted.py"
    path.write_text(textwrap.dedent(PLANTED))
    (claim,) = pc.load_claims(str(path))
    return path, claim


def test_planted_ten_dimensional_violation_shrinks_to_two_coordinates(planted, capsys):
    path, claim = planted
    r = verify_claim(claim, quick=True, seed=0, executor="serial")
    assert r.verdict == "refuted" and r.guarantee == "exact"
    ce = r.worst_point
    assert ce["non_default"] <= 2 and set(ce["counterexample"]) <= {"x[3]", "x[7]"}
    assert ce["confirmed_by"].startswith("violation confirmed in mpmath")
    theta = point_from(claim, ce["counterexample"])
    again = reevaluate(claim, theta)
    assert again["violates"] and again["confirmed_mp"] is True and again["margin"] == ce["margin"]
    # the reproduce line, run as printed, re-evaluates the same point
    line = ce["reproduce"]
    assert line.startswith(f"theorycheck reproduce {path} planted.ten_dims --point '")
    point = line.split("--point '", 1)[1].rstrip("'")
    assert main(["reproduce", str(path), "planted.ten_dims", "--point", point, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["violates"] and out["confirmed_mp"] is True and out["lhs"] == ce["lhs"]
    # the search's own worst point had every coordinate away from the default
    assert complexity(list(ce["search_worst"].values()), claim.default_point)[0] > 2


def test_cli_prints_the_counterexample_and_its_reproduce_line(planted, tmp_path, capsys):
    path, _ = planted
    assert main(["verify", str(path), "--quick", "--out", str(tmp_path / "o"), "--format", "table",
                 "--executor", "serial"]) == 0
    out = capsys.readouterr().out
    assert "counterexample to planted.ten_dims (shrunk; 2 coordinate(s) off their default" in out
    assert f"reproduce: theorycheck reproduce {path} planted.ten_dims --point" in out


def test_shrink_rounds_and_resets_while_the_violation_stays_confirmed():
    def lhs(a, b, c):
        return a * a + 0.0 * c

    def rhs(a, b, c):
        return 2.0 + b * 0.0

    claim = pc.inequality("mine.rounding", lhs, rhs, domain=pc.Box(a=(0, 3), b=(-1, 1), c=(-1, 1)),
                          register=False, lhs_mp=lhs, rhs_mp=rhs)
    theta = np.array([1.8372615, 0.3141, -0.77])
    sh = shrink(claim, theta)
    assert sh.theta.tolist() == [2.0, 0.0, 0.0]          # a = 2 is the roundest a with a² > 2
    assert sh.status == 2 and sh.margin > 0
    assert complexity(sh.theta, claim.default_point)[:3] == (1, 1, 1)
    with pytest.raises(ValueError, match="not a confirmed violation"):
        shrink(claim, np.array([1.0, 0.0, 0.0]))


def test_shrink_removes_an_outcome_of_a_simplex_when_it_can():
    def lhs(p):
        return float(np.max(p))

    def rhs(p):
        return 0.45

    claim = pc.inequality("mine.maxprob", lhs, rhs, domain=pc.Simplex(6), register=False)
    theta = np.array([0.5, 0.1, 0.1, 0.1, 0.1, 0.1])
    sh = shrink(claim, theta)
    assert np.count_nonzero(sh.theta) < 6 and sh.theta.max() > 0.45


def test_claims_without_a_default_point_are_not_shrunk():
    from proofs_check.engine import InequalityClaim, replace

    def lhs(a, b):
        return a * b

    def rhs(a, b):
        return 0.5

    declared = pc.inequality("mine.noshrink", lhs, rhs, domain=pc.Box(a=(0, 2), b=(0, 2)), register=False)
    plain = replace(declared, default_point=None)
    assert isinstance(plain, InequalityClaim)
    r = verify_claim(plain, quick=True, seed=0, executor="serial")
    assert r.verdict == "refuted" and isinstance(r.worst_point, dict) and "counterexample" not in r.worst_point


def test_hypothesis_bridge_reports_the_engine_margin_and_shrunk_point(planted):
    from hypothesis import strategies as st

    from proofs_check.strategies import from_claim, from_domain, inequality_test

    _, claim = planted
    test = inequality_test(claim, max_examples=50)
    with pytest.raises(AssertionError) as info:
        test()
    msg = str(info.value)
    # Hypothesis's failing example, shrunk by the engine's shrinker and reported as the engine does:
    # ≤ 2 coordinates off their default, the margin the engine computes there, a reproduce line
    assert "counterexample (shrunk; 2 coordinate(s) off their default)" in msg
    point = msg.split("--point '", 1)[1].rstrip("'")
    again = reevaluate(claim, point_from(claim, point))
    assert f"margin lhs − rhs = {again['lhs_mp'] - again['rhs_mp']!r}" in msg and again["confirmed_mp"]
    assert set(json.loads(point)) <= {"x[3]", "x[7]"}
    # the domains as strategies: points of the box; pairs of probability vectors
    from hypothesis import given, settings

    @settings(max_examples=20)
    @given(from_claim(claim), from_domain(pc.Simplex(3, names=("p", "q"))))
    def draws(x, pq):
        assert x.shape == (10,) and np.all(np.abs(x) <= 2)
        assert pq.shape == (6,) and np.allclose(pq.reshape(2, 3).sum(axis=1), 1.0)

    draws()
    assert isinstance(from_domain(pc.Box(a=(0, 1))), st.SearchStrategy)
