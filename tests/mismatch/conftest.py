"""Fixtures for the mismatch tests.  No numba kernels here, so nothing to warm."""
import numpy as np
import pytest

from proofs_check.policies import GENERATORS, random_pair

#: (V, T) shapes of the enumeration harness (theory mismatch.md#enumeration) used across tests.
SHAPES = [(2, 1), (2, 4), (2, 7), (3, 3), (4, 2), (4, 3)]


@pytest.fixture(params=[(g, s) for g in GENERATORS for s in SHAPES],
                ids=lambda p: f"{p[0]}-V{p[1][0]}T{p[1][1]}")
def pair(request):
    """A random pair from every generator and shape (seeded by the parameters)."""
    g, (V, T) = request.param
    seed = 1000 * GENERATORS.index(g) + 10 * V + T
    return random_pair(g, V, T, seed, **({"sigma": 0.4} if g in ("uniform", "iid_tilt") else {}))


@pytest.fixture
def rng():
    return np.random.default_rng(20261130)
