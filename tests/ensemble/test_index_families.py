import numpy as np
import pytest

from seqproj.ensemble.index_families import (INDEX_FAMILIES, PERTURBATION_FAMILIES, sample_index,
                                    sample_perturbation, sample_rows)


@pytest.mark.parametrize("family", INDEX_FAMILIES)
def test_index_second_moment_is_identity(family):
    M, n = 6, 40_000
    Z = sample_index(family, M, 1, size=n)
    S = Z.T @ Z / n
    # entries of ζζᵀ have variance ≤ M² (one-hot worst case): 6 standard errors
    assert np.max(np.abs(S - np.eye(M))) < 6 * M / np.sqrt(n)


@pytest.mark.parametrize("family", PERTURBATION_FAMILIES)
def test_perturbation_second_moment_is_identity_over_m(family):
    M, n = 6, 40_000
    Z = sample_perturbation(family, M, 2, size=n)
    S = Z.T @ Z / n
    assert np.max(np.abs(M * S - np.eye(M))) < 6 * M / np.sqrt(n)


@pytest.mark.parametrize("family", ["sphere", "cube", "signed_coord", "one_hot", "sparse"])
def test_index_norms_are_exact(family):
    M = 7
    Z = sample_index(family, M, 3, size=100)
    np.testing.assert_allclose(np.sum(Z**2, axis=1), M, rtol=1e-12)


@pytest.mark.parametrize("family", ["sphere", "cube", "signed_coord", "sparse"])
def test_perturbation_unit_norm(family):
    Z = sample_perturbation(family, 9, 4, size=100)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 1.0, rtol=1e-12)


def test_sparse_support_and_small_m():
    Z = sample_index("sparse", 10, 5, size=200, s=3)
    assert np.all(np.sum(Z != 0, axis=1) == 3)
    Z1 = sample_index("sparse", 1, 5, size=5)           # s clipped to M = 1
    np.testing.assert_allclose(np.abs(Z1), 1.0)


def test_shapes_and_seeding():
    assert sample_index("gaussian", 4, 0).shape == (4,)
    assert sample_perturbation("cube", 4, 0, size=3).shape == (3, 4)
    assert sample_rows("gaussian", 5, 4, 0).shape == (5, 4)
    np.testing.assert_array_equal(sample_index("sphere", 5, 11, size=3),
                                  sample_index("sphere", 5, 11, size=3))


def test_bad_input():
    with pytest.raises(ValueError, match="family"):
        sample_index("laplace", 3, 0)
    with pytest.raises(ValueError, match="M"):
        sample_index("gaussian", 0, 0)
    with pytest.raises(ValueError, match="one_hot"):
        sample_perturbation("one_hot", 3, 0)
    with pytest.raises(TypeError, match="rng"):
        sample_index("gaussian", 3, None)
