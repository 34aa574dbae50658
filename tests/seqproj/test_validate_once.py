"""Validate once: an experiment or a one-call check builds its frozen SimSetup once, at the
entry, and no chunk rebuilds it (issue 20 §2.1, the ``eps`` walk)."""
import numpy as np
import pytest

import seqproj
import seqproj.protocol as protocol_mod
from proofs_check.engine import chunk_rng, measure
from seqproj.check import failure_experiment
from seqproj.events import path_experiment, simulation_setup


@pytest.fixture
def setups_built(monkeypatch):
    """Counts the set-ups built: ``make_setup`` builds every one through ``column_family``."""
    built = []
    orig = protocol_mod.column_family

    def counting(*a, **kw):
        built.append(a)
        return orig(*a, **kw)

    monkeypatch.setattr(protocol_mod, "column_family", counting)
    return built


@pytest.mark.parametrize("make", [
    lambda: path_experiment(simulator="reduced", M=16, eps=0.5, T=20, chunk_size=50),
    lambda: path_experiment(simulator="full", M=8, eps=0.5, T=10, columns="rademacher", chunk_size=50),
    lambda: path_experiment(simulator="lookahead", M=4, eps=0.5, T=10, chunk_size=5),
    lambda: failure_experiment(simulator="reduced", M=16, eps=0.5, T=20, chunk_size=50),
    lambda: failure_experiment(simulator="full", M=8, eps=0.5, T=10, chunk_size=50, x0=2.0),
])
def test_an_experiment_builds_its_setup_once(make, setups_built):
    exp = make()
    assert len(setups_built) == 1
    assert isinstance(exp.fn.keywords["setup"], seqproj.SimSetup)
    m = measure(exp, 4 * exp.chunk_size, seed=1, executor="serial")
    assert m.trials == 4 * exp.chunk_size and len(setups_built) == 1       # no chunk rebuilt it


def test_check_coverage_builds_its_setup_once(setups_built):
    r = seqproj.check_coverage(16, 0.5, 0.05, 20, budget=3000, chunk_size=500, executor="serial",
                               method="fixed")
    assert r.trials == 3000 and len(setups_built) == 1


def test_the_setup_run_functions_equal_the_one_call_simulators():
    """``simulate_*_setup(rng, n, setup=...)`` is the second half of ``simulate_*``: same draws."""
    kw = dict(M=12, eps=0.5, T=30)
    for sim, one_call, on_setup in [
            ("reduced", seqproj.simulate_reduced, seqproj.simulate_reduced_setup),
            ("full", seqproj.simulate_full, seqproj.simulate_full_setup)]:
        setup = simulation_setup(sim, adversary="pushing", **kw)
        a = one_call(n=40, rng=chunk_rng(3, 0), adversary="pushing", **kw)
        b = on_setup(chunk_rng(3, 0), 40, setup=setup)
        np.testing.assert_array_equal(a.exit_time, b.exit_time)
        np.testing.assert_array_equal(a.ratio_grid, b.ratio_grid)
    setup = simulation_setup("reduced", **kw)
    np.testing.assert_array_equal(seqproj.exit_times_reduced_setup(chunk_rng(4, 0), 30, setup=setup),
                                  seqproj.simulate_reduced(n=30, rng=chunk_rng(4, 0), **kw).exit_time)


def test_a_run_function_refuses_a_setup_it_cannot_serve():
    full_only = simulation_setup("full", 8, 0.5, 10, columns="rademacher")
    with pytest.raises(ValueError, match="rademacher"):
        seqproj.simulate_reduced_setup(0, 5, setup=full_only)
    with pytest.raises(TypeError, match="SimSetup"):
        seqproj.simulate_full_setup(0, 5, setup={"M": 8})
    with pytest.raises(ValueError, match="T > M"):
        simulation_setup("lookahead", 8, 0.5, 8)              # T > M is checked at the entry
    with pytest.raises(TypeError, match="exact"):
        path_experiment(simulator="reduced", M=8, eps=0.5, T=10, chunk_size=5, exact=False)
