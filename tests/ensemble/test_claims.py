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


def test_smallest_m_censoring_is_never_a_value():
    """'Not reached on the grid' is NaN (censored), never a number that a fit could use."""
    import math

    from seqproj.ensemble.claims import smallest_m_on_grid

    ms = (1, 2, 4, 8)
    ts = 100.0
    assert smallest_m_on_grid(ms, [130, 105, 108, 109], ts, 0.10) == 2
    assert smallest_m_on_grid(ms, [105, 130, 108, 109], ts, 0.10) == 4    # from which on
    assert smallest_m_on_grid(ms, [100, 100, 100, 100], ts, 0.10) == 1
    assert math.isnan(smallest_m_on_grid(ms, [100, 100, 100, 111], ts, 0.10))
    assert math.isnan(smallest_m_on_grid(ms, [200, 200, 200, 200], ts, 0.10))


def test_roles_and_expectations_are_declared():
    by_id = {c.id: c for c in _ours()}
    for c in by_id.values():
        assert c.role in ("statement", "control", "measurement")
        assert c.expected in ("holds", "refuted", None)
    for cid, c in by_id.items():
        if cid.startswith("ensemble.failure."):
            assert (c.role, c.expected) == ("control", "holds"), cid
        if cid.startswith("ensemble.regret.") or cid.startswith("ensemble.tracking.haar"):
            assert c.kind != "comparison" or c.bounds is None, cid   # no honest a.s. range
    assert by_id["ensemble.regret.smallest_m_vs_d"].version >= 2


def test_sweep_cache_is_transparent():
    from seqproj.ensemble.claims import _SWEEP_CACHE, sweep_chunk_finals

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
