"""Fixtures for the Ensemble++ tests: warm the numba kernels once per session."""
import numpy as np
import pytest


@pytest.fixture(scope="session", autouse=True)
def _warm_kernels():
    from seqproj.ensemble.bandits import _solve_upper_t, chol_rank1_update

    L = np.eye(3)
    chol_rank1_update(L, np.ones(3))
    _solve_upper_t(L, np.ones(3))
    yield
