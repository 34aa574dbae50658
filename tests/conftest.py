"""Shared test configuration: headless matplotlib, a Hypothesis profile."""
import os

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("THEORYCHECK_FAST", "1")
if "THEORYCHECK_CACHE_DIR" not in os.environ:       # the `list` cache: never the user's home in tests
    import tempfile

    os.environ["THEORYCHECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="theorycheck-cache-")

from hypothesis import settings  # noqa: E402

settings.register_profile("theorycheck", deadline=None, print_blob=True, derandomize=True)
settings.load_profile("theorycheck")


import pytest  # noqa: E402

# Loaded before any test so that pytester's in-process runs (which drop the modules first
# imported inside them) never leave two copies of the declaration classes behind.
import proofs_check.declare  # noqa: E402,F401


@pytest.fixture(autouse=True)
def _fresh_measurements():
    """Each test starts with no experiment chunks memoised in this process, so a
    test that patches a simulator never reads chunks the unpatched code made."""
    from proofs_check.engine import clear_measurements

    clear_measurements()
    yield
    clear_measurements()
