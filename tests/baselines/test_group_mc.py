"""Issue 15: Monte Carlo twins of the group-estimator bias claims."""
import numpy as np
import pytest

from proofs_check.baselines import group_mc as gm
from proofs_check.baselines.moments import group_estimator_moments
from proofs_check.engine import clear_measurements, get_claim
from proofs_check.engine import verify_claim


@pytest.fixture(autouse=True)
def _fresh():
    clear_measurements()
    yield
    clear_measurements()


def test_exact_scales_of_the_fixed_instance():
    m, g2, h = gm.mc_instance()
    N = gm.MC_INSTANCE["N"]
    assert group_estimator_moments(m, N, "mean").scale == pytest.approx((N - 1) / N, abs=1e-12)
    assert group_estimator_moments(m, N, "rloo").scale == pytest.approx(1.0, abs=1e-12)


def test_sampled_projection_means():
    st = gm.group_projection_trials(np.random.default_rng(1), 20_000)
    for kind, target in (("mean", 0.75), ("rloo", 1.0)):
        u = st[kind]
        assert abs(u.mean() - target) < 5 * u.std() / np.sqrt(u.size)
    d = gm.projection_minus(st, kind="mean", value="shrunk")
    np.testing.assert_allclose(d, st["mean"] - 0.75)
    with pytest.raises(ValueError, match="kind"):
        gm.projection_minus(st, kind="otb", value="one")


def _verdict(cid, budget):
    return verify_claim(get_claim(cid), budget=budget, seed=0).verdict


def test_quick_verdicts():
    for cid in ("baselines.mc.group_mean_scale.upper", "baselines.mc.group_mean_scale.lower",
                "baselines.mc.rloo_scale.upper", "baselines.mc.rloo_scale.lower"):
        assert _verdict(cid, 2000) == "holds", cid


def test_mutation_mean_without_self_term_is_caught(monkeypatch):
    """Mutant: the 'group mean' advantage computed leave-one-out (the self term dropped): its
    scale is 1, not (N−1)/N — the upper side of the group-mean equivalence is refuted."""
    monkeypatch.setattr(gm, "group_mean_advantage", gm.rloo_advantage)
    try:
        verdict = _verdict("baselines.mc.group_mean_scale.upper", 20_000)
    except ValueError as exc:      # the mutant leaves the claim's declared bounds: caught before any verdict
        assert "outside the declared bounds" in str(exc), exc
        return
    assert verdict == "refuted"
