"""Fixtures for the Ensemble++ tests: warm the numba kernels once per session."""
import numpy as np
import pytest


@pytest.fixture(scope="session", autouse=True)
def _warm_kernels():
    from seqproj.ensemble.cholesky_update import chol_rank1_update, solve_upper_t

    L = np.eye(3)
    chol_rank1_update(L, np.ones(3))
    solve_upper_t(L, np.ones(3))
    yield
