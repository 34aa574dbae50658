"""Fixtures for the seqproj tests: warm the numba kernels once per session; forget measured
experiment chunks around every test (a monkeypatched simulator must be re-run)."""
import pytest

from proofs_check.engine import clear_measurements
from seqproj.reduced import simulate_reduced
from seqproj.simulate import simulate_full


@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """Compile (or load from cache) the full and reduced kernels once."""
    simulate_full(4, 0.5, 3, 2, 0)
    simulate_reduced(4, 0.5, 3, 2, 0)
    yield


@pytest.fixture(autouse=True)
def fresh_measurements():
    """The engine memoises experiment chunks by fingerprint, which cannot see a monkeypatch."""
    clear_measurements()
    yield
    clear_measurements()
