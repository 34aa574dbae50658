"""The mismatch claims: registered, runnable, and able to fail (power)."""
import functools

import numpy as np

import pytest

from proofs_check.engine import claims as all_claims
from proofs_check.engine import replace
from proofs_check.engine import verify_claim

from proofs_check.mismatch import cases, inequalities, pairs


def _mine():
    return {c.id: c for c in all_claims("mismatch")}


def test_registered_and_labelled():
    from proofs_check.engine.registry import claims_registered_by

    cs = _mine()
    # every mismatch.* claim comes from the topic's claims package (no pinned count)
    assert set(cs) == {c.id for c in claims_registered_by("proofs_check.mismatch.claims")}
    for key in ("classical", "pm_kl", "pm_tv", "mix_kl", "mix_tv", "coupling", "adaptive", "unified"):
        for g in ("uniform", "sparse", "low_prob", "iid_tilt"):
            assert f"mismatch.bound.{key}.{g}" in cs
    for cid, c in cs.items():
        assert cid.startswith("mismatch.") and c.label in ("CONFIRMED", "DERIVED", "OPEN")


@pytest.mark.parametrize("cid", ["mismatch.identity.gain_tangent_delta", "mismatch.identity.future_tv",
                                 "mismatch.identity.mis_bias", "mismatch.identity.trm_acceptance"])
def test_identity_claims_hold(cid):
    r = verify_claim(_mine()[cid], budget=20, seed=1)
    assert r.verdict == "holds", r.to_dict()


def test_bound_claim_reports_tightness():
    r = verify_claim(_mine()["mismatch.bound.unified.uniform"], budget=100, seed=0)
    assert r.verdict == "holds"
    assert 0.0 < r.worst_ratio <= 1.0
    assert r.worst_point["kind"] == "tabular" and "bounds" in r.worst_point


def test_mutated_claims_are_refuted():
    """Power: the advantage lemma with constant ½ and the gain identity with the sign of Δ flipped fail."""
    c = _mine()["mismatch.lemma.advantage_tight"]
    bad = replace(c, id="mismatch.mutant.advantage_half",
                  evaluate=functools.partial(inequalities.evaluate_advantage, const=0.5, V=2, T=3))
    assert verify_claim(bad, budget=100, seed=0).verdict == "refuted"
    ident = _mine()["mismatch.identity.gain_tangent_delta"]
    bad2 = replace(ident, id="mismatch.mutant.sign", fn=_flipped)
    assert verify_claim(bad2, budget=20, seed=0).verdict == "refuted"


def _flipped(rng, n):
    lhs, rhs, scale = cases.gain_tangent_cases(rng, n)
    return lhs, -rhs, scale


def test_scaling_claims_quick():
    for cid in ("mismatch.scaling.iid_tilt_remainder", "mismatch.scaling.pm_kl_bound",
                "mismatch.scaling.staleness_drift_k"):
        r = verify_claim(_mine()[cid], seed=0)
        assert r.verdict == "holds", r.to_dict()


def test_proxy_claim_measures_leak():
    r = verify_claim(_mine()["mismatch.trm.proxy_k2_max_false_accept"], budget=4000, seed=0)
    assert r.verdict == "refuted" and r.to_dict()["p_hat"] > 0.05


def _shrunk(theta, **kw):
    lhs, rhs = inequalities.evaluate_bound(theta, **kw)
    return lhs, 0.05 * rhs


def _shrunk_mp(theta, **kw):
    lhs, rhs = inequalities.evaluate_bound_mp(theta, **kw)
    return lhs, 0.05 * rhs


def test_mp_evaluator_agrees_and_confirms_a_shrunk_bound():
    import mpmath
    kw = dict(key="unified", V=2, T=3, iid_T=None)
    rng = np.random.default_rng(3)
    th = pairs.sample_pair(rng, generator="uniform", V=2, T=3)
    a = inequalities.evaluate_bound(th, **kw)
    with mpmath.workdps(50):
        b = inequalities.evaluate_bound_mp(th, **kw)
    assert abs(a[0] - float(b[0])) < 1e-14 and abs(a[1] - float(b[1])) <= 1e-12 * a[1]
    c = _mine()["mismatch.bound.unified.uniform"]
    bad = replace(c, id="mismatch.mutant.shrunk", evaluate=functools.partial(_shrunk, **kw),
                  evaluate_mp=functools.partial(_shrunk_mp, **kw))
    r = verify_claim(bad, budget=100, seed=0)
    assert r.verdict == "refuted" and "mpmath" in r.confirmed_by
