"""Reproducibility contract (docs/theory/engine.md#seeding): identical counts and stopping
points on every executor and worker count."""
import functools

import numpy as np
import pytest

from proofs_check.engine import ProbabilityClaim, make_executor, map_chunks, verify_claim
from proofs_check.engine.executors import PoolExecutor, SerialExecutor, default_workers
from proofs_check.engine import chunk_rng
from proofs_check.selftest.samplers import bernoulli_events


def _claim(p=0.05, delta=0.05):
    return ProbabilityClaim(id="test.exec", statement="P(X=1) ≤ δ", source="test", label="DERIVED",
                            fn=functools.partial(bernoulli_events, p=p), delta=delta, chunk_size=500)


def _draws(rng, n):
    return rng.standard_normal(n).round(12).tolist()


def _blas_sums(rng, n):
    """Large enough for OpenBLAS to use threads if allowed: a multi-threaded
    BLAS sums in another order and changes the last bits."""
    out = []
    for _ in range(n):
        a = rng.standard_normal((300, 300))
        out.append(float((a @ a @ a[:, 0]).sum()))
    return out


@pytest.fixture(scope="module", params=[("serial", 1), ("auto", 1), ("auto", 2), ("threads", 1), ("threads", 2),
                                        ("processes", 1), ("processes", 2), ("dask", 1), ("dask", 2)],
                ids=lambda p: f"{p[0]}-{p[1]}")
def executor(request):
    name, workers = request.param
    ex = make_executor(name, workers)
    yield ex
    ex.close()


def test_chunk_stream_is_the_spawned_child():
    a = chunk_rng(42, 3).random(5)
    b = np.random.default_rng(np.random.SeedSequence(42).spawn(4)[3]).random(5)
    assert np.array_equal(a, b)


def test_fixed_budget_counts_identical_on_every_executor(executor):
    reference = verify_claim(_claim(), budget=40_000, seed=11, method="fixed", executor="serial")
    r = verify_claim(_claim(), budget=40_000, seed=11, method="fixed", executor=executor)
    assert (r.events, r.trials, r.chunks) == (reference.events, reference.trials, reference.chunks)


def test_anytime_stopping_point_identical_on_every_executor(executor):
    claim = _claim(p=0.08)
    reference = verify_claim(claim, budget=200_000, seed=5, executor="serial")
    r = verify_claim(claim, budget=200_000, seed=5, executor=executor)
    assert r.stopped_early and reference.stopped_early
    assert (r.events, r.trials, r.verdict) == (reference.events, reference.trials, reference.verdict)


def test_map_chunks_identical_on_every_executor(executor):
    ref = map_chunks(_draws, 1_050, chunk_size=100, seed=9, executor="serial")
    out = map_chunks(_draws, 1_050, chunk_size=100, seed=9, executor=executor)
    assert out == ref and len(out) == 11 and len(out[-1]) == 50


def test_blas_results_bitwise_identical_on_every_executor(executor):
    ref = map_chunks(_blas_sums, 6, chunk_size=2, seed=1, executor="serial")
    assert map_chunks(_blas_sums, 6, chunk_size=2, seed=1, executor=executor) == ref


def test_default_executor_is_auto_on_all_cores():
    """executor=None (what the CLI and every public entry point pass) means "auto":
    threads on every core, serial on one; the results are those of the serial executor."""
    with make_executor(None) as ex:
        n = default_workers()
        assert (ex.name, ex.workers) == (("threads", n) if n > 1 else ("serial", 1))
    with make_executor(None, 3) as ex:
        assert isinstance(ex, PoolExecutor) and (ex.name, ex.workers) == ("threads", 3)
    with make_executor("auto", 1) as ex:
        assert isinstance(ex, SerialExecutor)
    ref = verify_claim(_claim(p=0.08), budget=200_000, seed=5, executor="serial")
    r = verify_claim(_claim(p=0.08), budget=200_000, seed=5)
    assert (r.events, r.trials, r.chunks, r.verdict) == (ref.events, ref.trials, ref.chunks, ref.verdict)
    assert map_chunks(_draws, 1_050, chunk_size=100, seed=9) == map_chunks(_draws, 1_050, chunk_size=100,
                                                                           seed=9, executor="serial")


def test_bad_executor_arguments():
    with pytest.raises(ValueError, match="executor must be one of"):
        make_executor("gpu")
    with pytest.raises(ValueError, match=r"workers must be an integer in \[1, 512\]"):
        make_executor("threads", 0)
    with pytest.raises(ValueError, match="scheduler"):
        make_executor("threads", 1, "tcp://127.0.0.1:1")


def test_unreachable_scheduler_is_a_clear_error():
    with pytest.raises(ValueError, match="cannot reach Dask scheduler"):
        make_executor("dask", 1, "tcp://127.0.0.1:1")
