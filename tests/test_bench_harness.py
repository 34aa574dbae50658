"""The bench harness: interleaving, per-round ratios, the MET rule, module discovery."""
import time

import pytest

from bench.harness import Comparison, format_result, measure, median_interval
from bench.run_all import bench_modules, select


def _sleeper(s, log, tag):
    def run():
        log.append(tag)
        time.sleep(s)
    return run


def test_known_sleep_ratio_is_measured_and_decides_the_target():
    log = []
    # B sleeps 4x longer than A: ratio ≈ 4; scheduling overshoot (a few ms on a loaded machine)
    # moves it towards 1 or up, hence the wide bounds
    cmp = Comparison("sleep", _sleeper(0.02, log, "A"), _sleeper(0.08, log, "B"), target=1.5, work="sleep")
    res = measure(cmp, rounds=5)
    assert 2.0 < res["ratio"]["median"] < 5.0
    assert res["ratio"]["min"] <= res["ratio"]["median"] <= res["ratio"]["max"]
    assert res["met"] is True
    assert len(res["ratios"]) == 5
    assert res["time_a"]["median"] >= 0.02 and res["time_b"]["median"] >= 0.08
    # interleaved: A,B then B,A in alternate rounds, never two rounds of one side in a row
    assert log == ["A", "B", "B", "A", "A", "B", "B", "A", "A", "B"]
    line = format_result(res)
    assert "MET" in line and "NOT MET" not in line and "target >= 1.5" in line


def test_exact_ratios_with_a_fake_clock(monkeypatch):
    """A clock that A advances by 1 s and B by 3 s per call (its 2nd call: 6 s): exact ratios."""
    import bench.harness as h

    now = [0.0]
    calls = {"b": 0}
    monkeypatch.setattr(h.time, "perf_counter", lambda: now[0])

    def a():
        now[0] += 1.0

    def b():
        calls["b"] += 1
        now[0] += 6.0 if calls["b"] == 2 else 3.0

    res = measure(Comparison("clock", a, b, target=3.0), rounds=3)
    assert res["ratios"] == [3.0, 6.0, 3.0]
    assert res["ratio"] == {"min": 3.0, "median": 3.0, "max": 6.0}
    assert res["interval"] == {"lo": 3.0, "hi": 6.0, "coverage": 0.75}   # 3 rounds: (min, max)
    assert res["verdict"] == "MET" and res["met"] is True                 # whole interval >= 3
    calls["b"] = 0
    res = measure(Comparison("clock", a, b, target=3.01), rounds=3)       # 3.01 inside [3, 6]
    assert res["verdict"] == "UNSETTLED" and res["met"] is False
    assert "UNSETTLED" in format_result(res)
    calls["b"] = 0
    assert measure(Comparison("clock", a, b, target=6.5), rounds=3)["verdict"] == "NOT MET"
    assert res["time_a"]["median"] == 1.0 and res["time_b"]["max"] == 6.0


def test_target_not_met_when_a_is_slower():
    cmp = Comparison("slow A", _sleeper(0.04, [], "A"), _sleeper(0.01, [], "B"), target=1.0)
    res = measure(cmp, rounds=3)
    assert res["ratio"]["median"] < 0.75
    assert res["met"] is False
    assert "NOT MET" in format_result(res)


def test_setup_runs_once_untimed_and_before_the_rounds():
    calls = []
    cmp = Comparison("setup", lambda: calls.append("a"), lambda: calls.append("b"), target=0.1,
                     setup=lambda: calls.append("setup"))
    measure(cmp, rounds=2)
    assert calls == ["setup", "a", "b", "b", "a"]


def test_bad_arguments_are_refused():
    cmp = Comparison("x", lambda: None, lambda: None, target=1.0)
    with pytest.raises(ValueError, match="rounds"):
        measure(cmp, rounds=0)
    with pytest.raises(TypeError, match="Comparison"):
        measure(object())
    with pytest.raises(ValueError, match="target"):
        measure(Comparison("x", lambda: None, lambda: None, target=0.0))


def test_pattern_selection_and_module_discovery():
    assert select(None, "seqproj_mc", "anything")
    assert select("seqproj", "seqproj_mc", "x")
    assert select("*kernel*", "m", "reduced kernel vs roofline")
    assert not select("otb", "seqproj_mc", "reduced kernel")
    mods = bench_modules()
    assert "seqproj_mc" in mods and "harness" not in mods and "run_all" not in mods


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 9, 12, 20, 41])
def test_median_interval_is_the_sign_test_interval(n):
    """Against SciPy's binomial: the largest k with 1 − 2·P(Bin(n, ½) ≤ k − 1) ≥ 0.95, and the
    order statistics x_(k), x_(n+1−k) of shuffled values."""
    from scipy.stats import binom
    import numpy as np

    x = np.random.default_rng(n).permutation(np.arange(1.0, n + 1))
    lo, hi, cov = median_interval(x)
    ks = [k for k in range(1, (n + 1) // 2 + 1) if 1 - 2 * binom.cdf(k - 1, n, 0.5) >= 0.95]
    k = max(ks) if ks else 1
    assert (lo, hi) == (float(k), float(n + 1 - k))
    assert cov == pytest.approx(1 - 2 * binom.cdf(k - 1, n, 0.5), abs=1e-12)
    if n == 9:
        assert (lo, hi) == (2.0, 8.0) and cov == pytest.approx(0.9609375)


def test_median_interval_refuses_no_values():
    with pytest.raises(ValueError, match="at least one"):
        median_interval([])


def test_run_all_reports_a_raising_comparison_as_failed_and_exits_1(monkeypatch, capsys):
    """A comparison that raises prints FAILED, the others still run, the summary counts it and the
    exit status is 1 (what the CI smoke run of `python -m bench --quick` relies on); 0 without it."""
    import sys
    import types

    import bench.run_all as ra

    def boom():
        raise ValueError("planted")

    fake = types.ModuleType("bench._fake_failing")
    fake.comparisons = lambda quick: [Comparison("raises", boom, lambda: None, 1.0),
                                      Comparison("fine", lambda: None, lambda: None, 1e-9)]
    monkeypatch.setitem(sys.modules, "bench._fake_failing", fake)
    monkeypatch.setattr(ra, "bench_modules", lambda: ["_fake_failing"])
    monkeypatch.setattr(ra, "roofline", lambda quick=False: {})
    monkeypatch.setattr(ra, "_format_roof", lambda: "roofline (not measured in this test)")
    assert ra.main(["--rounds", "1"]) == 1
    out = capsys.readouterr().out
    assert "[_fake_failing] raises: FAILED" in out and "ValueError: planted" in out
    assert "[_fake_failing] fine: ratio" in out
    assert "1 FAILED;" in out.splitlines()[-1]
    assert ra.main(["--rounds", "1", "fine"]) == 0
    out = capsys.readouterr().out
    assert "FAILED" not in out
