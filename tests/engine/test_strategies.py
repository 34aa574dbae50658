"""The Hypothesis strategies and the inequality-test helper."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_check.strategies import (inequality_test, logits, policy_pairs, probability_pairs,
                                     probability_vectors, tabular_policies)


def tv(p, q):
    return 0.5 * np.abs(p - q).sum()


def kl(p, q):
    return float(np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0) / q), 0.0)))


test_pinsker = inequality_test(lambda pq: tv(*pq), lambda pq: np.sqrt(kl(*pq) / 2),
                               probability_pairs(min_prob=1e-9), max_examples=150)


def test_helper_finds_a_counterexample_to_a_false_inequality():
    # TV ≤ KL/2 is false for close distributions: the helper must fail.
    false = inequality_test(lambda pq: tv(*pq), lambda pq: kl(*pq) / 2,
                            probability_pairs(min_prob=1e-3), max_examples=200)
    with pytest.raises(AssertionError):
        false()


@settings(max_examples=50)
@given(probability_vectors(min_prob=0.0), logits(), tabular_policies(), policy_pairs())
def test_strategies_produce_valid_objects(p, z, pol, pair):
    assert np.all(p >= 0) and abs(p.sum() - 1) < 1e-12
    assert np.all(np.isfinite(z)) and np.abs(z).max() <= 1e4
    V = pol[0].shape[1]
    for t, table in enumerate(pol):
        assert table.shape == (V ** t, V)
    mu, pi = pair
    assert [a.shape for a in mu] == [b.shape for b in pi]


@settings(max_examples=5)
@given(st.data())
def test_min_prob_validation(data):
    with pytest.raises(ValueError, match="min_prob"):
        data.draw(probability_vectors(4, min_prob=0.5))
