"""Fixtures for the baselines tests: warm the numba kernel once per session."""
import numpy as np
import pytest


@pytest.fixture(scope="session", autouse=True)
def warm_otb_kernel():
    from proofs_check.baselines import optimal_token_baseline_advantage

    r = np.zeros((2, 3))
    m = np.ones((2, 3))
    lp = np.full((2, 3), np.log(0.5))
    spp = np.full((2, 3), 0.5)
    optimal_token_baseline_advantage(r, m, [0, 0], lp, spp)
    optimal_token_baseline_advantage(r, m, [0, 0], lp, spp, is_weights=np.ones((2, 3)), handle_zero_tail=True)
    yield


@pytest.fixture
def rng():
    return np.random.default_rng(20260601)
