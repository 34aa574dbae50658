import pickle

import numpy as np
import pytest

import proofs_check
from proofs_check.engine.claims import LABELS, replace
from proofs_check.engine.registry import claims


def _ours():
    return claims("ensemble")


def test_claims_registered_and_picklable():
    ours = _ours()
    ids = {c.id for c in ours}
    for needed in ("ensemble.equivalence.mean_is_ridge",
                   "ensemble.equivalence.one_hot_is_ensemble_sampling",
                   "ensemble.equivalence.sgd_to_closed_form", "ensemble.tracking.decay_in_M",
                   "ensemble.tracking.flat_in_d", "ensemble.tracking.flat_in_T",
                   "ensemble.regret.finite.d10.gaussian", "ensemble.regret.finite.d50.ES",
                   "ensemble.regret.smallest_m_vs_d", "ensemble.failure.float32_sqrt"):
        assert needed in ids
    for c in ours:
        assert c.label in LABELS and c.id.startswith("ensemble.")
        pickle.loads(pickle.dumps(c.chunk_task()))


@pytest.mark.parametrize("cid", ["ensemble.equivalence.mean_is_ridge",
                                 "ensemble.equivalence.one_hot_is_ensemble_sampling",
                                 "ensemble.equivalence.sgd_to_closed_form",
                                 "ensemble.failure.unnormalised_perturbation",
                                 "ensemble.failure.rank_deficient",
                                 "ensemble.failure.lookahead_perturbation",
                                 "ensemble.failure.reused_perturbation",
                                 "ensemble.failure.float32_sqrt"])
def test_quick_identity_claims_hold(cid):
    r = proofs_check.verify(cid, quick=True)
    assert r.verdict == "holds", r.to_dict()


def test_mutated_equivalence_is_refused():
    """Power: the ridge identity at a tolerance below round-off is refuted."""
    from proofs_check.engine.verify import verify_claim
    from proofs_check.engine.registry import get_claim

    c = replace(get_claim("ensemble.equivalence.mean_is_ridge"), tol=1e-300, tol_mode="absolute")
    assert verify_claim(c, budget=50).verdict == "refuted"


def test_sweep_cache_is_transparent():
    from seqproj.ensemble_claims import _SWEEP_CACHE, sweep_chunk_finals

    a = sweep_chunk_finals(3, 20, 30, np.random.default_rng(1), 2)
    _SWEEP_CACHE.clear()
    b = sweep_chunk_finals(3, 20, 30, np.random.default_rng(1), 2)
    c = sweep_chunk_finals(3, 20, 30, np.random.default_rng(1), 2)     # from the cache
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(b, c)
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    sweep_chunk_finals(3, 20, 30, g1, 2)
    sweep_chunk_finals(3, 20, 30, g2, 2)
    assert g1.integers(1 << 30) == g2.integers(1 << 30)


@pytest.mark.slow
@pytest.mark.parametrize("cid", ["ensemble.tracking.decay_in_M", "ensemble.tracking.flat_in_T",
                                 "ensemble.failure.one_hot_small_m"])
def test_slow_claims_decide(cid):
    r = proofs_check.verify(cid)
    assert r.verdict == "holds", r.to_dict()
