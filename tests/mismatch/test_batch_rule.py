"""The batch-size-invariant rule (theory mismatch.md#batch-rule; claims ``mismatch.batch_rule.*``)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from proofs_check.engine import clear_measurements, get_claim, verify_claim
from proofs_check.mismatch import batch_rule as br


# --------------------------------------------------------------------------
# the rule function


def test_rule_values_on_the_grid():
    got = [br.batch_rule(B) for B in br.RULE_B_GRID]
    assert [k for _, k in got] == [32, 16, 8, 4, 2, 1]
    np.testing.assert_allclose([e for e, _ in got], [0.05, 0.1, 0.2, 0.4, 0.8, 1.6])
    assert br.batch_rule(64, rule="linear") == pytest.approx((0.8, 32))
    assert br.batch_rule(64, rule="fixed") == (0.05, 32)
    assert br.batch_rule(64, rule="sqrt") == pytest.approx((0.05 * 4.0, 32))


def test_queue_floors_at_one_past_b_star():
    """``k`` is an integer ≥ 1: beyond ``B* = k₀B₀`` the rule cannot shrink the queue."""
    for B in br.BREAK_B_GRID:
        eta, k = br.batch_rule(B)
        assert k == 1 and eta == pytest.approx(0.05 * B / 4)


@settings(max_examples=60, deadline=None)
@given(j=st.integers(0, 5), G=st.floats(1e-6, 1e3), S=st.floats(1e-6, 1e3),
       B0=st.sampled_from([1, 2, 4, 8]), k0=st.sampled_from([32, 64]))
def test_rule_holds_both_terms_of_the_gap(j, G, S, B0, k0):
    """``½k²η²G + kη²S/(2B)`` is the same at ``B₀`` and at ``B = 2^j B₀`` (while ``k ≥ 1`` is exact),
    and ``η/B``, ``k·B`` are fixed."""
    def gap(B):
        eta, k = br.batch_rule(B, B0=B0, k0=k0)
        return 0.5 * k * k * eta * eta * G + k * eta * eta * S / (2 * B), eta / B, k * B
    a, b = gap(B0), gap(B0 * 2 ** j)
    assert b[0] == pytest.approx(a[0], rel=1e-9)
    assert b[1] == pytest.approx(a[1], rel=1e-12) and b[2] == a[2]


def test_halved_exponent_moves_the_noise_term():
    """The mutant rule (exponent ½) leaves ``kη`` fixed but lets ``kη²/B`` fall ``∝ B^{−1/2}``."""
    xs = np.array(br.RULE_B_GRID, float)
    noise = [k * e * e / B for B, (e, k) in zip(xs, (br.batch_rule(int(B), exponent=0.5) for B in xs))]
    assert br.log_slope(xs[:4], noise[:4]) == pytest.approx(-0.5, abs=0.05)


@pytest.mark.parametrize("kw, exc, name", [
    ({"B": 0}, ValueError, "B"), ({"B": 2.5}, TypeError, "B"), ({"B": 8, "B0": 0}, ValueError, "B0"),
    ({"B": 8, "eta0": 0.0}, ValueError, "eta0"), ({"B": 8, "eta0": float("nan")}, ValueError, "eta0"),
    ({"B": 8, "k0": 0}, ValueError, "k0"), ({"B": 8, "exponent": -1.0}, ValueError, "exponent"),
    ({"B": 8, "rule": "cosine"}, ValueError, "rule"), ({"B": 8, "rule": None}, ValueError, "rule"),
])
def test_bad_input_names_the_argument(kw, exc, name):
    B = kw.pop("B")
    with pytest.raises(exc, match=rf"\b{name}\b"):
        br.batch_rule(B, **kw)


def test_bad_input_of_the_experiment_functions():
    th = np.zeros(12)
    with pytest.raises(ValueError, match="windows"):
        br.gap_of(th, np.full(9, 0.5), eta=0.1, k=2, B=4, windows=1, rng=0)
    with pytest.raises(ValueError, match="k"):
        br.gap_of(th, np.full(9, 0.5), eta=0.1, k=0, B=4, windows=4, rng=0)
    with pytest.raises(ValueError, match="reward"):
        br.batch_gap_trials(np.random.default_rng(0), 1, reward="uniform")
    with pytest.raises(ValueError, match="rules"):
        br.batch_gap_trials(np.random.default_rng(0), 1, rules=("rule", "cosine"))


def test_gap_is_the_staleness_kl_and_is_paired():
    """One trial: the gap equals ``staleness_kl`` of the same run, and a rerun from the same
    generator state reproduces every rule's row (the pairing over seeds)."""
    a = br.batch_gap_trials(np.random.default_rng(3), 1, B_grid=(4, 8, 16))
    b = br.batch_gap_trials(np.random.default_rng(3), 1, B_grid=(4, 8, 16))
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    assert a["gap[rule]"][0, 0] == a["gap[linear]"][0, 0] == a["gap[fixed]"][0, 0]  # same (η, k) at B₀
    assert np.all(a["gap[rule]"] > 0)


# --------------------------------------------------------------------------
# the claims, and the mutation: the rule's exponent halved moves the verdict


@pytest.fixture
def _fresh():
    clear_measurements()
    yield
    clear_measurements()


def test_drift_claims_are_deterministic_and_as_expected():
    for cid in ("mismatch.batch_rule.drift_rule_holds_gap", "mismatch.batch_rule.drift_breaks_fixed_queue"):
        assert verify_claim(get_claim(cid), seed=0).verdict == "holds"


@pytest.mark.slow
def test_halved_exponent_moves_the_rule_claim(monkeypatch, _fresh):
    """Normal, 8 seeds: ``rule_holds_gap`` is not refuted and its interval covers 0 (it holds at its
    default 32 seeds: tests/test_expected_verdicts.py); mutant (``η ∝ √B``, ``k ∝ 1/√B``): the gap
    falls ``∝ B^{−1/2}`` and the same claim is refuted at the same budget and seed."""
    cid = "mismatch.batch_rule.rule_holds_gap"
    normal = verify_claim(get_claim(cid), budget=8, seed=0, executor="serial")
    assert normal.verdict != "refuted" and normal.exponent_ci[0] < 0 < normal.exponent_ci[1]
    clear_measurements()
    orig = br.batch_rule

    def halved(B, **kw):
        return orig(B, **{**kw, "exponent": kw.get("exponent", 1.0) / 2})
    monkeypatch.setattr(br, "batch_rule", halved)
    res = verify_claim(get_claim(cid), budget=8, seed=0, executor="serial")
    assert res.verdict == "refuted"
    assert res.exponent_ci[1] < -0.2 and math.isfinite(res.exponent)
