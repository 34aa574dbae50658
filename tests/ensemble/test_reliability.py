"""Issue 14 (reliability) in seqproj.ensemble: the bugs found, each with a test that fails on
the old code — a repeated z of the two-point sphere law at M = 1, unbounded sizes, flags that
were not bools, generators that were not made by ``as_generator``, NaN/garbage for valid input."""
import math

import numpy as np
import pytest

from seqproj.ensemble import (LinearEnsemblePP, LinearHypermodel, anticoncentration, checked_cholesky,
                              default_tracking_threshold, family_label, haar_rows, sample_index,
                              smallest_m_on_grid, sup_tracking_error, tracking_error)
from seqproj.ensemble.cholesky_update import chol_rank1_update_ref
from seqproj.ensemble.equivalences import hypermodel_cases, ridge_cases


# --- the item: the sphere law at M = 1 is the two-point law {−1, +1} ---------------

@pytest.mark.parametrize("value", [1.0, -1.0])
def test_sphere_at_m1_accepts_a_repeated_z(value):
    ens = LinearEnsemblePP(2, 1, perturbation="sphere", rng=0)
    x = np.array([1.0, 0.5])
    for _ in range(5):                       # old code: ValueError at the second update
        ens.update(x, 0.3, z=[value])
    assert ens.t == 5
    # the repeat is what the law does: draws of Unif(S⁰) repeat with probability 1/2
    draws = {float(LinearEnsemblePP(1, 1, perturbation="sphere", rng=s).prior_factor[0, 0])
             for s in range(20)}
    assert draws == {-1.0, 1.0}


def test_sphere_at_m1_equals_the_data_it_was_given():
    """Accepting the repeat gives the same state as the default draw path with the same z's."""
    a = LinearEnsemblePP(2, 1, perturbation="sphere", rng=3)
    b = LinearEnsemblePP(2, 1, perturbation="sphere", rng=3)
    zs = [1.0, 1.0, -1.0, 1.0]
    X = np.array([[1.0, 0.0], [0.3, 0.7], [0.0, 1.0], [0.5, 0.5]])
    for x, z in zip(X, zs):
        a.update(x, 0.1, z=[z])
        b.update(x, 0.1, z=np.array([z]))
    np.testing.assert_array_equal(a.factor, b.factor)


@pytest.mark.parametrize("perturbation, M", [("gaussian", 1), ("gaussian", 3), ("sphere", 2)])
def test_reuse_is_still_refused_for_atomless_laws(perturbation, M):
    ens = LinearEnsemblePP(2, M, perturbation=perturbation, rng=0)
    z = np.linspace(0.2, 0.9, M)
    ens.update([1.0, 0.0], 0.0, z=z)
    with pytest.raises(ValueError, match="already used"):
        ens.update([0.0, 1.0], 0.0, z=z)


# --- every size argument is bounded, with a message, before anything is allocated ----------

@pytest.mark.parametrize("call, message", [
    (lambda: LinearEnsemblePP(10**400, 2, rng=0), r"^d must be an integer in \[1, 10000\]"),
    (lambda: LinearEnsemblePP(2, 10**12, rng=0), r"^M must be an integer in \[1, 1000000\]"),
    (lambda: LinearEnsemblePP(100_000, 100_000, rng=0), r"^d must"),
    (lambda: LinearEnsemblePP(10_000, 100_000, rng=0), r"^the d × M factor would need"),
    (lambda: haar_rows(10_000, 1_000_000, 0), r"^a d × M matrix would need"),
    (lambda: sample_index("gaussian", 100_000, 0, size=100_000), r"^size × M draws would need"),
    (lambda: default_tracking_threshold(10**400, 1), r"^d must"),      # old: OverflowError
    (lambda: sup_tracking_error(2, 2, 10**12, 0), r"^T must"),          # old: runs for ever
    (lambda: sup_tracking_error(2, 2, 1, 0, K=10**9), r"^K must"),
    (lambda: ridge_cases(0, 10**12), r"^n must"),
    (lambda: LinearEnsemblePP(2, 2, rng=0).sample_many(0, 10**12), r"^n must"),
])
def test_sizes_are_bounded_with_a_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- flags are bools; rng goes through as_generator -------------------------------------------

def test_flags_are_bools():
    with pytest.raises(TypeError, match="reuse_z"):
        sup_tracking_error(2, 2, 1, 0, reuse_z="no")          # old: 'no' taken as True
    hm = LinearHypermodel(2, 2, prior_factor=np.eye(2))
    with pytest.raises(TypeError, match="average"):
        hm.fit(1, average=1)


def test_rng_seeds_are_accepted_and_junk_is_named():
    lhs, rhs = ridge_cases(0, 2)                               # old: AttributeError on int seed
    np.testing.assert_allclose(lhs, rhs, atol=1e-8)
    lhs, rhs = hypermodel_cases(1, 0)
    assert lhs.size == rhs.size == 0                           # old: concatenate of nothing
    ens = LinearEnsemblePP(3, 8, rng=0)
    assert 0.0 <= anticoncentration(ens, [1.0, 0.0, 0.0], 0, n=200) <= 1.0
    with pytest.raises(TypeError, match="rng"):
        ridge_cases(None, 1)
    with pytest.raises(TypeError, match="ens"):
        anticoncentration(None, [1.0], 0)                      # old: AttributeError


# --- refusals are ValueError/TypeError naming the argument, never garbage ---------------------

def test_non_positive_definite_sigma_is_a_value_error():
    with pytest.raises(ValueError, match="Sigma") as info:
        tracking_error([[0.2, 0.8], [0.8, 0.2]], np.eye(2))      # old: RuntimeError only
    assert isinstance(info.value, RuntimeError)                 # still caught by old handlers
    with pytest.raises(ValueError, match="matrix"):
        checked_cholesky([[1.0, 2.0], [2.0, 1.0]])


def test_arrays_where_strings_belong_are_type_errors():
    with pytest.raises(TypeError, match="index"):
        family_label(np.array([0.1, 0.9]), "gaussian")          # old: NumPy's ambiguous truth value


def test_censored_smallest_m_is_none_not_nan():
    assert smallest_m_on_grid((1, 2), [0.5, 0.5], 0.1, 0.5) is None   # old: math.nan
    with pytest.raises(ValueError, match="final_means"):
        smallest_m_on_grid((1, 2), [0.5], 0.1, 0.5)


def test_chol_reference_refuses_garbage_instead_of_nan():
    with pytest.raises(ValueError, match="L"):
        chol_rank1_update_ref(np.array([[0.2, 0.8], [0.5, 0.5]]), [1.0, 2.0])   # not triangular
    with pytest.raises(ValueError, match="L and x"):
        chol_rank1_update_ref(np.eye(2), [1e300, 1e300])
    L = chol_rank1_update_ref(np.eye(2), [1.0, 2.0])
    np.testing.assert_allclose(L @ L.T, np.eye(2) + np.outer([1, 2], [1, 2]))


def test_huge_observation_is_refused_before_the_state_changes():
    ens = LinearEnsemblePP(2, 3, rng=0)
    before = np.array(ens.mean)
    with pytest.raises(ValueError, match="x"):
        ens.update([1e200, 1e200], 1.0)
    with pytest.raises(ValueError, match="y"):
        ens.update([1.0, 1.0], math.inf)
    np.testing.assert_array_equal(ens.mean, before)
    assert ens.t == 0
