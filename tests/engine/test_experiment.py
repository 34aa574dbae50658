"""Experiments: one simulation, measured once, read by claims and figures alike."""
import functools

import numpy as np
import pytest

from proofs_check.engine import (ComparisonClaim, Experiment, ProbabilityClaim, clear_measurements,
                                 measure, verify_claim)

CALLS = {"n": 0}


def coin_and_gap(p, rng, n):
    """n trials: a Bernoulli(p) event and a paired difference in [-1, 1]."""
    CALLS["n"] += 1
    u = rng.random(n)
    return {"event": u < p, "gap": u - 0.5}


def events_of(stats):
    return int(stats["event"].sum())


def gaps_of(stats):
    return stats["gap"]


def coin_fn(p, rng, n):
    return events_of({"event": rng.random(n) < p})


EXP = Experiment(id="test.coin", fn=functools.partial(coin_and_gap, 0.02), chunk_size=500)


@pytest.fixture(autouse=True)
def _fresh():
    clear_measurements()
    CALLS["n"] = 0
    yield
    clear_measurements()


def _prob(**kw):
    base = dict(id="test.coin.p", statement="P(event) ≤ 0.05", source="test", label="DERIVED",
                delta=0.05, chunk_size=500)
    return ProbabilityClaim(**{**base, **kw})


def test_a_claim_reading_an_experiment_equals_the_claim_with_its_own_function():
    via_exp = verify_claim(_prob(experiment=EXP, reduce=events_of), budget=20_000, seed=3)
    direct = verify_claim(_prob(fn=functools.partial(coin_fn, 0.02)), budget=20_000, seed=3)
    assert (via_exp.verdict, via_exp.events, via_exp.trials) == (direct.verdict, direct.events, direct.trials)
    assert via_exp.verdict == "holds" and via_exp.stopped_early


def test_claims_and_figures_share_one_measurement():
    m = measure(EXP, 5_000, seed=1)
    calls = CALLS["n"]
    assert calls == 10 and m.stats["event"].shape == (5_000,) and m.trials == 5_000
    verify_claim(_prob(experiment=EXP, reduce=events_of), budget=5_000, seed=1, method="fixed")
    gap = ComparisonClaim(id="test.coin.gap", statement="E gap < 0.1", source="test", label="DERIVED",
                          experiment=EXP, reduce=gaps_of, threshold=0.1, bounds=(-1.0, 1.0),
                          chunk_size=500)
    r = verify_claim(gap, budget=5_000, seed=1)
    assert CALLS["n"] == calls                                   # nothing simulated twice
    assert r.verdict == "holds"
    assert np.array_equal(measure(EXP, 5_000, seed=1).stats["gap"], m.stats["gap"])


def test_measurements_are_stored_and_resumed_from_the_result_folder(tmp_path):
    first = measure(EXP, 2_000, seed=2, out=tmp_path)
    assert (tmp_path / "experiments" / "test.coin.chunks.jsonl").exists()
    clear_measurements()
    CALLS["n"] = 0
    again = measure(EXP, 3_000, seed=2, out=tmp_path)   # 4 chunks from the store, 2 new
    assert CALLS["n"] == 2 + 4                            # + 4: the spot check recomputes a sample of the
    #                                                       stored chunks, here all 4 (runner.spot_check_size)
    assert np.array_equal(again.stats["gap"][:2_000], first.stats["gap"])


def test_default_store_shares_chunks_and_trusts_only_runs_of_this_program(tmp_path):
    """set_default_store (a report's figure workers): measure() without out reads the store; a run
    created since `trusted_since` is read without the spot check, an older one is spot-checked."""
    import time

    from proofs_check.engine.measure import set_default_store

    t0 = time.time()
    try:
        set_default_store(tmp_path, trusted_since=t0)
        first = measure(EXP, 2_000, seed=2)                 # written to the store
        assert (tmp_path / "experiments" / "test.coin.chunks.jsonl").exists()
        clear_measurements()
        CALLS["n"] = 0
        again = measure(EXP, 2_000, seed=2)
        assert CALLS["n"] == 0                              # read, not simulated again
        assert np.array_equal(again.stats["gap"], first.stats["gap"])
        clear_measurements()
        set_default_store(tmp_path, trusted_since=time.time() + 10.0)   # the run predates the program
        measure(EXP, 2_000, seed=2)
        assert CALLS["n"] == 4                              # the spot check recomputed the 4 chunks
        # a stale export (no store beside it) imported during the program is as old as its file
        import os
        import sqlite3

        os.utime(tmp_path / "experiments" / "test.coin.chunks.jsonl", (t0 - 3600, t0 - 3600))
        (tmp_path / "theorycheck.sqlite").unlink()
        clear_measurements()
        CALLS["n"] = 0
        set_default_store(tmp_path, trusted_since=t0)
        measure(EXP, 2_000, seed=2)
        assert CALLS["n"] == 4                              # imported, then spot-checked
        with sqlite3.connect(tmp_path / "theorycheck.sqlite") as db:
            assert db.execute("SELECT max(created) FROM runs").fetchone()[0] < t0
        clear_measurements()
        CALLS["n"] = 0
        set_default_store(None)
        measure(EXP, 2_000, seed=2)
        assert CALLS["n"] == 4                              # memory only again
    finally:
        set_default_store(None)


def test_measurements_are_identical_on_every_executor():
    a = measure(EXP, 3_000, seed=5, executor="serial")
    clear_measurements()
    b = measure(EXP, 3_000, seed=5, executor="threads", workers=2)
    assert np.array_equal(a.stats["gap"], b.stats["gap"])


def bad_shape(rng, n):
    return {"x": np.zeros(n + 1)}


def test_bad_experiments_and_claims_are_refused_with_a_message():
    with pytest.raises(ValueError, match="first axis"):
        measure(Experiment(id="t.bad", fn=bad_shape, chunk_size=10), 10)
    with pytest.raises(ValueError, match="chunk_size"):
        _prob(experiment=EXP, reduce=events_of, chunk_size=100)
    with pytest.raises(ValueError, match="either fn or experiment"):
        _prob(experiment=EXP, reduce=events_of, fn=functools.partial(coin_fn, 0.02))
    with pytest.raises(ValueError, match="give fn"):
        _prob()
    with pytest.raises(TypeError, match="reduce"):
        _prob(experiment=EXP)


def test_the_fingerprint_sees_the_experiment():
    other = Experiment(id="test.coin", fn=functools.partial(coin_and_gap, 0.03), chunk_size=500)
    assert (_prob(experiment=EXP, reduce=events_of).fingerprint()
            != _prob(experiment=other, reduce=events_of).fingerprint())


def test_a_failing_chunk_on_threads_reports_its_own_error_in_a_fresh_process():
    """Regression: the threads executor's `except cf.process.BrokenProcessPool` looked up a
    submodule nothing had imported, so in a fresh process a chunk's own error surfaced as
    AttributeError: module 'concurrent.futures' has no attribute 'process'."""
    import subprocess
    import sys

    code = ("import numpy as np\n"
            "from proofs_check.engine import Experiment, measure\n"
            "def bad(rng, n):\n    return {'x': np.zeros(n + 1)}\n"
            "measure(Experiment(id='t.bad', fn=bad, chunk_size=10), 20, executor='threads', workers=2)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "first axis must be the 10 trials" in r.stderr and "has no attribute 'process'" not in r.stderr
