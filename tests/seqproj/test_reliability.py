"""Issue 14 (reliability) regressions for seqproj: exact dimension ceilings, extreme levels,
bool flags, hostile numbers, size bounds before allocation.  Each failed on the old code."""
from __future__ import annotations

import decimal
import time

import mpmath
import numpy as np
import pytest

import seqproj
from seqproj import bounds as B
M_MAX = 1 << 24          # seqproj.limits.M_MAX (literal, so the file imports on the old code)


# --------------------------------------------------------------------------
# minimum dimensions: the exact integer ceiling (M − 1 fails, M passes)
# --------------------------------------------------------------------------

def _mp(x):
    return mpmath.mpf(float(x))


def _gap(e):
    return e * e / 2 - e ** 3 / 3


BOUNDS = {
    "sequential": (lambda e: B.sequential_jl_min_dim(e, 0.05, 1000),
                   lambda e: 16 * (1 + e) / e ** 2 * (-mpmath.log(_mp(0.05)) + mpmath.log1p(1000))),
    "fixed_vector": (lambda e: B.fixed_vector_jl_min_dim(e, 0.05),
                     lambda e: 2 * mpmath.log(2 / _mp(0.05)) / _gap(e)),
    "union": (lambda e: B.union_bound_jl_min_dim(e, 0.05, 1000),
              lambda e: 2 * mpmath.log(2 * 1000 / _mp(0.05)) / _gap(e)),
    "sklearn": (lambda e: B.sklearn_jl_min_dim(1000, e),
                lambda e: 4 * mpmath.log(1000) / _gap(e)),
}


@pytest.mark.parametrize("eps", [0.5, 0.1, 0.01, 4.1e-9, 3e-9, 1e-9, 1e-12, 1e-30])
@pytest.mark.parametrize("which", sorted(BOUNDS))
def test_min_dim_is_the_exact_ceiling(which, eps):
    # old: -9223372036854775808 for eps <= 1e-9 (int64 wrap), and 783..5563 below the bound at
    # eps = 3e-9 / 4.1e-9 (float rounding + the 1 - 4 ulp "noise guard")
    fn, exact = BOUNDS[which]
    M = fn(eps)
    assert isinstance(M, int)
    with mpmath.workprec(600):
        b = exact(_mp(eps))
        assert M - 1 < b <= M, (M, mpmath.nstr(b, 40))


def test_min_dim_arrays_never_wrap():
    out = B.sequential_jl_min_dim(np.array([0.5, 1e-12]), 0.05, 1000)
    assert out.dtype == object and out[0] == B.sequential_jl_min_dim(0.5, 0.05, 1000) == 951
    assert out[1] == B.sequential_jl_min_dim(1e-12, 0.05, 1000) > 2 ** 63
    small = B.sequential_jl_min_dim(np.array([0.5, 0.1]), 0.05, np.array([10 ** 3, 10 ** 4]))
    assert small.dtype == np.int64 and small.tolist() == [951, 21483]


def test_sklearn_truncation_is_exact():
    e = 3e-9
    with mpmath.workprec(600):
        b = 4 * mpmath.log(1000) / _gap(_mp(e))
        assert B.sklearn_jl_min_dim(1000, e, round_up=False) == int(mpmath.floor(b))


def test_certified_eps_is_conservative():
    for M in (51, 836, 10 ** 6):
        for T in (1, 300, 10 ** 7):
            e = B.sequential_jl_eps(M, 0.5, T)
            if e < 1:
                assert B.sequential_jl_min_dim(e, 0.5, T) <= M


# --------------------------------------------------------------------------
# time-uniform boundaries at extreme levels
# --------------------------------------------------------------------------

def test_normal_mixture_bound_subnormal_alpha_is_finite():
    # old: inf (log(1/alpha) with 1/1e-320 = inf)
    got = B.normal_mixture_bound(1, 1e-320, 1)
    rho = B.normal_mixture_rho(1)
    with mpmath.workprec(200):
        want = mpmath.sqrt((1 + _mp(rho)) * (mpmath.log1p(1 / _mp(rho)) - 2 * mpmath.log(_mp(1e-320))))
    assert np.isfinite(got) and abs(got - float(want)) <= 1e-12 * float(want)
    assert np.isfinite(B.normal_mixture_bound(1, 1e-320, 1, two_sided=False))


def test_mixture_bounds_refuse_out_of_range_intrinsic_time():
    with pytest.raises(ValueError, match="v_opt"):
        B.normal_mixture_rho(5e-324)
    with pytest.raises(ValueError, match="v must"):
        B.normal_mixture_bound(1e300, 0.05, 1.0)


def test_kernel_levels_are_finite_for_subnormal_alpha():
    setup = seqproj.make_setup(5, 0.5, 10, mix_alpha=5e-324, anytime_delta=5e-324)
    args = setup.kernel_args()
    assert np.isfinite(args[7]) and np.isfinite(args[9])


# --------------------------------------------------------------------------
# flags are bools
# --------------------------------------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda: B.normal_mixture_bound(1.0, 0.05, 1.0, two_sided="no"), "two_sided"),
    (lambda: B.normal_mixture_bound(1.0, 0.05, 1.0, two_sided=0), "two_sided"),
    (lambda: B.sklearn_jl_min_dim(100, 0.5, round_up="no"), "round_up"),
    (lambda: seqproj.simulate_full(4, 0.5, 5, 2, 0, exact="no"), "exact"),
    (lambda: seqproj.make_setup(4, 0.5, 5, allow_lookahead="yes"), "allow_lookahead"),
])
def test_flags_must_be_bools(call, name):
    # old: 'no' was truthy and taken as True
    with pytest.raises(TypeError, match=name):
        call()


# --------------------------------------------------------------------------
# hostile numbers: refused with the argument's name
# --------------------------------------------------------------------------

HOSTILE = [10 ** 400, 1 + 1j, np.array([0.5 + 0.25j]), "0.5", decimal.Decimal("0.5")]


@pytest.mark.parametrize("value", HOSTILE, ids=["10**400", "complex", "complex-array", "str",
                                                "Decimal"])
@pytest.mark.parametrize("call, name", [
    (lambda v: B.sequential_jl_min_dim(v, 0.05, 100), "eps"),
    (lambda v: B.fixed_vector_jl_min_dim(0.5, v), "delta"),
    (lambda v: B.sklearn_jl_min_dim(v, 0.5), "n_samples"),
    (lambda v: B.sequential_jl_eps(v, 0.05, 100), "M"),
    (lambda v: B.fixed_vector_jl_failure_bound(32, v), "eps"),
    (lambda v: B.normal_mixture_bound(v, 0.05, 1.0), "v"),
    (lambda v: B.normal_mixture_rho(v), "v_opt"),
    (lambda v: B.anytime_jl_eps(100, 0.05, v), "V"),
    (lambda v: B.self_normalized_bound(2.0, 1.0, v), "delta"),
])
def test_hostile_numbers_are_refused_by_name(call, name, value):
    # old: OverflowError (10**400), complex arrays truncated, "0.5" and Decimal accepted
    with pytest.raises((TypeError, ValueError), match=name):
        call(value)


def test_hostile_names_are_refused_by_name():
    # old: ValueError "truth value of an empty array is ambiguous" (no argument named)
    with pytest.raises(TypeError, match="adversary"):
        seqproj.adversary(np.array([]))
    with pytest.raises(TypeError, match="simulator"):
        seqproj.choose_simulator("sphere", "constant", np.array([]))
    with pytest.raises(TypeError, match="columns"):
        seqproj.check_reduced_supported(np.array([]), "constant")
    with pytest.raises(ValueError, match="columns"):
        seqproj.choose_simulator("bogus", "constant")       # old: silently "full"
    with pytest.raises(TypeError, match="T"):
        seqproj.path_experiment(simulator="full", M=4, eps=0.5, T=np.array([]), chunk_size=10)
    with pytest.raises(TypeError, match="stats"):
        seqproj.count_true(None, name="failed")


# --------------------------------------------------------------------------
# sizes are bounded before anything is allocated
# --------------------------------------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda: seqproj.make_setup(10 ** 400, 0.5, 10), "M"),
    (lambda: seqproj.make_setup(M_MAX + 1, 0.5, 10), "M"),
    (lambda: seqproj.make_setup(5, 0.5, 2 ** 63), "T"),
    (lambda: seqproj.simulate_full(5, 0.5, 10, 10 ** 12, 0), "n"),
    (lambda: seqproj.simulate_full(2 ** 20, 0.5, 2 ** 20, 1, 0, backend="numpy"), "T and M"),
    (lambda: seqproj.simulate_reduced(5, 0.5, 10, 10 ** 12, 0), "n"),
    (lambda: seqproj.simulate_lookahead(2 ** 16, 0.5, 2 ** 17, 1, 0), "T and M"),
    (lambda: seqproj.simulate_inner_product(2 ** 20, 0.5, 2 ** 20, 1, 0), "T and M"),
    (lambda: seqproj.sample_columns("sphere", 2 ** 20, 2 ** 20, 0), "size"),
    (lambda: seqproj.check_coverage(50, 0.5, 0.05, 10, budget=10 ** 30), "budget"),
    (lambda: seqproj.check_coverage(50, 0.5, 0.05, 10, chunk_size=0), "chunk_size"),
    (lambda: seqproj.path_experiment(simulator="full", M=5, eps=0.5, T=10, chunk_size=10 ** 12),
     "chunk_size"),
    (lambda: seqproj.empirical_min_dim(1e-9, 0.05, 10), "M_max"),
])
def test_sizes_refused_before_allocation(call, name):
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=name):
        call()
    assert time.perf_counter() - t0 < 2.0
