"""Shared test configuration: headless matplotlib, a Hypothesis profile."""
import os

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("THEORYCHECK_FAST", "1")

from hypothesis import settings  # noqa: E402

settings.register_profile("theorycheck", deadline=None, print_blob=True, derandomize=True)
settings.load_profile("theorycheck")
