"""Issue 15: token-level PPO clipping leaks; token masking leaves the trust region unbounded."""
import numpy as np
import pytest

from proofs_check.engine import clear_measurements, get_claim
from proofs_check.engine import verify_claim
from proofs_check.mismatch import ppo_clip as pc


@pytest.fixture(autouse=True)
def _fresh():
    clear_measurements()
    yield
    clear_measurements()


@pytest.mark.parametrize("rho,adv,active,leak", [
    (1.0, 1.0, True, False), (1.0, -1.0, True, False),
    (1.5, 1.0, False, False),    # clipped above with A > 0: no gradient
    (1.5, -1.0, True, True),     # ρ ≫ 1 + ε with A < 0: the unclipped branch is the min — leak
    (0.5, 1.0, True, True),      # ρ < 1 − ε with A > 0: leak
    (0.5, -1.0, False, False),   # clipped below with A < 0
    (1.1, 0.0, False, False),
])
def test_gradient_region_table(rho, adv, active, leak):
    eps = 0.2
    assert bool(pc.unclipped_active(rho, adv, eps)) is active
    assert bool(pc.clip_leak(rho, adv, eps)) is leak
    h = 1e-7
    fd = (pc.ppo_clip_objective(rho + h, adv, eps) - pc.ppo_clip_objective(rho - h, adv, eps)) / (2 * h)
    assert float(fd) == pytest.approx(adv if active else 0.0, abs=1e-6)


def test_leak_cases_and_token_mask():
    lhs, rhs = pc.leak_cases(np.random.default_rng(0), 300)
    np.testing.assert_allclose(lhs, rhs, atol=1e-6)
    np.testing.assert_array_equal(pc.token_keep_mask([0.7, 0.8, 1.2, 1.3], 0.2), [False, True, True, False])


def test_events_on_constructed_stats():
    stats = {"log_rho": np.log([[1.0, 1.5], [1.0, 1.0], [0.5, 1.0]]),
             "kl_exact": np.array([[0.0, 0.1], [0.0, 0.0], [0.05, 0.0]]),
             "adv": np.array([-0.3, 0.2, -0.1])}
    # row 0: ρ = 1.5, A < 0 -> leak; row 2: ρ = 0.5 but A < 0 -> clipped, no leak
    assert pc.leak_events(stats, eps=0.2) == 1
    # rows 0 and 2 keep a token (ρ = 1) and pass a context with KL > 0.02
    assert pc.token_mask_violations(stats, eps=0.2, delta=0.02) == 2
    with pytest.raises(ValueError, match="stats"):
        pc.leak_events({"log_rho": np.zeros((2, 2))}, eps=0.2)
    with pytest.raises(ValueError, match="eps"):
        pc.clip_leak(1.0, 1.0, 1.5)


def test_path_trials_seeded():
    a = pc.ppo_path_trials(np.random.default_rng(1), 5)
    b = pc.ppo_path_trials(np.random.default_rng(1), 5)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert a["log_rho"].shape == (5, 6) and np.all(np.abs(a["adv"]) <= 0.5)


def _verdict(cid, budget):
    return verify_claim(get_claim(cid), budget=budget, seed=0).verdict


def test_quick_verdicts():
    assert _verdict("mismatch.ppo_clip.gradient_region", 500) == "holds"
    assert _verdict("mismatch.ppo_clip.clipping_stops_outside_tokens", 250) == "refuted"


def test_mutation_symmetric_clip_is_caught(monkeypatch):
    """Mutant: treat clipping as a symmetric trust region (gradient only inside [1−ε, 1+ε]) — the
    identity is refuted and the leak claim no longer refuted."""
    monkeypatch.setattr(pc, "unclipped_active",
                        lambda rho, adv, eps: (np.abs(np.asarray(rho, float) - 1.0) <= eps) & (np.asarray(adv) != 0))
    assert _verdict("mismatch.ppo_clip.gradient_region", 500) == "refuted"
    assert _verdict("mismatch.ppo_clip.clipping_stops_outside_tokens", 250) != "refuted"
