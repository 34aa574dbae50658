"""Issue 13: the first-exit kernels (failure flag only, early exit per trial) against the
path-statistics kernels — same random stream, so the exit times are bit-identical."""

import numpy as np
import pytest

import seqproj
from proofs_check.engine import measure
from proofs_check.engine import chunk_rng
from seqproj.check import count_failures, failure_experiment, failure_flags
from seqproj.events import count_events, path_experiment
from seqproj.kernels import LANES
from seqproj.reduced import exit_times_reduced
from seqproj.simulate import exit_times_full

REDUCED_ADV = ("constant", "random", "stopping", "magnitude", "pushing")


@pytest.mark.parametrize("family", ["sphere", "gaussian"])
@pytest.mark.parametrize("adversary", REDUCED_ADV)
def test_reduced_exit_times_equal_path_statistics(family, adversary):
    for seed, M, eps, T in ((0, 8, 0.5, 200), (1, 32, 0.3, 150), (2, 64, 0.5, 300), (3, 128, 0.2, 100)):
        n = 400 if adversary == "pushing" else 2000
        full = seqproj.simulate_reduced(M, eps, T, n, seed, columns=family, adversary=adversary)
        et = exit_times_reduced(M, eps, T, n, seed, columns=family, adversary=adversary)
        assert et.dtype == np.int64 and et.shape == (n,)
        np.testing.assert_array_equal(et, full.exit_time)
        assert 0 < np.count_nonzero(et <= T) or M >= 64        # the small M exercise exits
    # NumPy reference of the exit path, bit for bit
    et_np = exit_times_reduced(16, 0.4, 120, 300, 9, columns=family, adversary=adversary, backend="numpy")
    np.testing.assert_array_equal(et_np, exit_times_reduced(16, 0.4, 120, 300, 9, columns=family,
                                                            adversary=adversary))


@pytest.mark.parametrize("family", ["sphere", "gaussian", "rademacher", "onehot", "sparse"])
def test_full_exit_times_equal_path_statistics(family):
    for adversary in ("constant", "stopping", "magnitude", "coordinate", "random"):
        for seed, M, eps, T in ((4, 8, 0.5, 60), (5, 24, 0.3, 40)):
            full = seqproj.simulate_full(M, eps, T, 60, seed, columns=family, adversary=adversary)
            et = exit_times_full(M, eps, T, 60, seed, columns=family, adversary=adversary)
            np.testing.assert_array_equal(et, full.exit_time)
    et_np = exit_times_full(12, 0.4, 30, 40, 6, columns=family, adversary="coordinate", backend="numpy")
    np.testing.assert_array_equal(et_np, exit_times_full(12, 0.4, 30, 40, 6, columns=family,
                                                         adversary="coordinate"))


def test_check_coverage_counts_equal_the_path_statistics_counts():
    r = seqproj.check_coverage(48, 0.5, 0.05, 80, budget=3000, seed=5, method="fixed")
    old = sum(count_events(chunk_rng(5, k), 1000, event="failed", simulator="reduced", M=48, eps=0.5,
                           T=80, columns="sphere", adversary=seqproj.adversary("constant"))
              for k in range(3))
    assert r.events == old > 0
    kw = dict(simulator="full", M=16, eps=0.5, T=40, columns="rademacher",
              adversary=seqproj.adversary("coordinate"))
    rng_a, rng_b = chunk_rng(1, 0), chunk_rng(1, 0)
    assert count_failures(rng_a, 200, **kw) == count_events(rng_b, 200, event="failed", **kw)


def test_failure_experiment_equals_path_experiment_trial_for_trial():
    kw = dict(simulator="reduced", M=40, eps=0.5, T=100, columns="sphere", adversary="constant",
              chunk_size=500)
    a = measure(failure_experiment(**kw), 1500, seed=3, executor="serial").stats["failed"]
    b = measure(path_experiment(**kw), 1500, seed=3, executor="serial").stats["failed"]
    np.testing.assert_array_equal(a, b)
    assert a.sum() > 0
    with pytest.raises(ValueError, match="simulator"):
        failure_flags(chunk_rng(0, 0), 3, simulator="lookahead", M=8, eps=0.5, T=5)


def test_exit_times_validate_like_the_simulators():
    with pytest.raises(ValueError, match="columns='rademacher'"):
        exit_times_reduced(16, 0.5, 10, 5, 0, columns="rademacher")
    with pytest.raises(ValueError, match="eps"):
        exit_times_full(16, 1.5, 10, 5, 0)
    with pytest.raises(ValueError, match="backend"):
        exit_times_reduced(16, 0.5, 10, 5, 0, backend="gpu")
    assert exit_times_full(4, 0.5, 3, 0, 0).shape == (0,)


def test_band_exit_shortcut_decides_like_the_division():
    """The division-free shortcut of the first-exit kernels never changes a decision: values
    within a few ulps of the band edges, tiny and large ε, huge and tiny V."""
    from seqproj.bookkeeping import band_deviation, band_exit, inner_band

    rng = np.random.default_rng(0)
    for eps in (0.5, 0.3, 1e-3, 1e-7, 1e-12, 1e-15, 1e-300, 0.999999):
        eps_in = inner_band.py_func(eps)
        for V in (1.0, 3.7, 1e-200, 1e200, 301.0):
            edges = V * np.array([1 + eps, 1 - eps])
            near = np.concatenate([e + np.spacing(e) * np.arange(-40, 41) for e in edges])
            s2 = np.concatenate([near, V * (1 + eps * rng.uniform(-1.2, 1.2, 2000)), [0.0, V]])
            for x in s2:
                assert band_exit.py_func(x, V, eps, eps_in) == (band_deviation.py_func(x, V) > eps), (x, V, eps)


def test_tiny_eps_exit_times_equal_path_statistics():
    for eps in (1e-6, 1e-13):
        full = seqproj.simulate_reduced(16, eps, 30, 200, 1)
        np.testing.assert_array_equal(exit_times_reduced(16, eps, 30, 200, 1), full.exit_time)


@pytest.mark.parametrize("n", [1, 2, LANES - 1, LANES, LANES + 1, 2 * LANES + 37])
def test_lane_kernels_at_block_boundaries(n):
    """The lane-parallel reduced kernels (lanes refilled on exit, packed once no trial is left;
    blocks of LANES trials in step) against the NumPy references, bit for bit, at every
    boundary of the lane bookkeeping — exits and survivors both present."""
    for family, adversary in (("sphere", "constant"), ("gaussian", "random"), ("sphere", "stopping")):
        kw = dict(columns=family, adversary=adversary)
        ref = seqproj.simulate_reduced(16, 0.3, 40, n, 11, backend="numpy", **kw)
        got = seqproj.simulate_reduced(16, 0.3, 40, n, 11, **kw)
        for f in ("exit_time", "final_ratio", "ratio_grid", "mix_cross", "anytime_exit", "max_dev"):
            np.testing.assert_array_equal(getattr(got, f), getattr(ref, f), err_msg=f)
        et = exit_times_reduced(16, 0.3, 40, n, 11, **kw)
        np.testing.assert_array_equal(et, ref.exit_time)
        np.testing.assert_array_equal(et, exit_times_reduced(16, 0.3, 40, n, 11, backend="numpy", **kw))
        if n >= LANES:
            assert 0 < np.count_nonzero(et <= 40) < n
