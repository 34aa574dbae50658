import sympy as sp
import pytest

from proofs_check import symbolic
from proofs_check.symbolic import (prove_kl_second_order, prove_logit_energy_identity,
                                   prove_logit_energy_identity_general, prove_otb_equal_weights,
                                   prove_otb_scale_invariance, prove_telescoping_ratio,
                                   prove_zero_sum_logit_update)


@pytest.mark.parametrize("V", [2, 3, 4, 5, 6])
def test_energy_identity_small_v(V):
    assert prove_logit_energy_identity(V)


def test_energy_identity_general_v():
    assert prove_logit_energy_identity_general()


@pytest.mark.parametrize("V", [2, 3, 4, 5, 6, None])
def test_zero_sum(V):
    assert prove_zero_sum_logit_update(V)


@pytest.mark.parametrize("T", [1, 2, 3, 4, 5, 6, None])
def test_telescoping(T):
    assert prove_telescoping_ratio(T)


@pytest.mark.parametrize("N", [1, 2, 3, 6, None])
def test_otb_equal_weights(N):
    assert prove_otb_equal_weights(N)


def test_scale_invariance_and_kl():
    assert prove_otb_scale_invariance(4)
    assert prove_kl_second_order(2)
    assert prove_kl_second_order(3)


def test_the_machinery_rejects_false_identities():
    # the general-V reduction must not turn a false identity into 0
    V, a, b = sp.symbols("V a b", integer=True, positive=True)
    p = sp.IndexedBase("p")
    wrong = sp.Sum(sp.expand((sp.KroneckerDelta(a, b) - p[b]) ** 2), (b, 1, V)) \
        - (1 - p[a] + sp.Sum(p[b] ** 2, (b, 1, V)))
    assert symbolic._sum_doit_refined(wrong, sp.Q.le(a, V)) != 0


@pytest.mark.parametrize("T", [3, None])
def test_telescoping_proof_fails_for_a_wrong_summand(monkeypatch, T):
    """The proof (explicit T and the general-T telescoping sum) goes through the project's summand:
    a summand with the suffix product off by one factor must make it return False."""
    monkeypatch.setattr(symbolic, "_telescoping_summand", lambda rho_t, suffix: (rho_t - 1) * suffix * rho_t)
    assert not prove_telescoping_ratio(T)
    monkeypatch.setattr(symbolic, "_telescoping_summand", lambda rho_t, suffix: rho_t * suffix)
    assert not prove_telescoping_ratio(T)


def test_bad_sizes():
    with pytest.raises(ValueError):
        prove_logit_energy_identity(1)
    with pytest.raises(ValueError):
        prove_telescoping_ratio(0)
    with pytest.raises(TypeError):
        prove_otb_equal_weights(2.5)
