"""The RNG-roofline helpers of bench/ at the sizes ``python -m bench --quick`` uses (issue 25).

The reduced-kernel rooflines run :func:`bench.roofline.lane_normal_chisq_sum` on 2000 keys, not a
multiple of :data:`seqproj.kernels.LANES` (128); by design the helper then runs the left-over keys as
a short last block, as the reduced kernels do, so it makes exactly the draws of that many trials —
the draws :func:`bench.roofline.counter_normal_chisq_sum` makes one key at a time.  Fast: a few
seconds once numba's cache is warm.
"""
import math
import time

import numpy as np
import pytest

from bench.harness import measure
from bench.roofline import (counter_normal_chisq_sum, counter_normals_sum, format_roofline,
                            lane_normal_chisq_sum, measure_roofline)
from bench.seqproj_mc import T, _keys, comparisons, roofline_sizes
from seqproj.kernels import LANES
from seqproj.reduced import chisq_constants

QUICK = roofline_sizes(True)


def _rate(fn, units):
    """units/s of one call after a warm-up call, and the call's value."""
    fn()
    t0 = time.perf_counter()
    v = fn()
    return units / (time.perf_counter() - t0), v


def test_the_quick_reduced_size_is_not_a_multiple_of_lanes():
    # otherwise the tests below would not exercise the short last block at the quick size
    assert QUICK["reduced"] % LANES != 0


@pytest.mark.parametrize("M", [64, 256])
def test_lane_roofline_at_the_quick_size_is_the_scalar_draws_at_a_finite_positive_rate(M):
    n = QUICK["reduced"]
    keys = _keys(n)
    d, c = chisq_constants(M)
    rate, s = _rate(lambda: lane_normal_chisq_sum(keys, T, d, c), 2 * n * T)
    assert math.isfinite(rate) and rate > 0
    # the same n·T (normal, χ²_{M−1}) pairs as one key at a time (the sums differ only in the order
    # of the additions); E[sum] = n·T·(M − 1) and the draws' spread is ~ sqrt(n·T·2M)
    ref = counter_normal_chisq_sum(keys, T, d, c)
    assert s == pytest.approx(ref, rel=1e-12)
    assert abs(s - n * T * (M - 1)) < 6 * math.sqrt(n * T * (2 * (M - 1) + 1))


@pytest.mark.parametrize("n", [1, LANES - 1, LANES, LANES + 1, 2 * LANES + 37])
def test_a_key_count_not_a_multiple_of_lanes_makes_exactly_its_draws(n):
    """The keys are a view into a longer array: a lane reading past ``n`` would add real draws
    of the keys that follow, and one that skipped the short last block would miss some."""
    big = _keys(3 * LANES)
    d, c = chisq_constants(64)
    per = 3
    lane = lane_normal_chisq_sum(big[:n], per, d, c)
    scalar = counter_normal_chisq_sum(big[:n], per, d, c)
    assert lane == pytest.approx(scalar, rel=1e-12)
    assert lane != pytest.approx(counter_normal_chisq_sum(big[:n + 1], per, d, c), rel=1e-12)
    if n > 1:
        assert lane != pytest.approx(counter_normal_chisq_sum(big[:n - 1], per, d, c), rel=1e-12)


def test_no_keys_no_draws():
    d, c = chisq_constants(64)
    assert lane_normal_chisq_sum(_keys(0), 5, d, c) == 0.0


@pytest.mark.parametrize("M", sorted(QUICK["full"]))
def test_normals_roofline_at_the_quick_sizes_has_a_finite_positive_rate(M):
    n = QUICK["full"][M]
    keys = _keys(n)
    rate, s = _rate(lambda: counter_normals_sum(keys, T * M), n * T * M)
    assert math.isfinite(rate) and rate > 0
    assert abs(s) < 6 * math.sqrt(n * T * M)            # a sum of n·T·M standard normals


def test_every_quick_roofline_comparison_reports_a_verdict():
    """What `python -m bench --quick` runs: each RNG-roofline comparison, one round, a ratio."""
    cmps = [c for c in comparisons(True) if "RNG roofline" in c.name]
    assert len(cmps) == 2 + len(QUICK["full"])
    for c in cmps:
        res = measure(c, rounds=1)
        assert res["verdict"] in ("MET", "NOT MET", "UNSETTLED"), c.name
        assert math.isfinite(res["ratio"]["median"]) and res["ratio"]["median"] > 0, c.name


def test_measure_roofline_quick_gives_finite_positive_rates():
    r = measure_roofline(quick=True)
    assert set(r) == {"counter_normal", "numba_normal", "numpy_normal", "chisq", "copy"}
    for k, v in r.items():
        assert math.isfinite(v) and v > 0, k
    assert "M/s" in format_roofline(r)
