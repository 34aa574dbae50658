"""Limits of the engine's inputs, in a module light enough for the CLI parser."""
from __future__ import annotations

__all__ = ["MIN_ALPHA", "MAX_BUDGET"]

#: The smallest verdict level accepted: 2/α must be a finite double with room to spare.
MIN_ALPHA = 1e-12

#: The largest budget accepted (trials, cases, evaluations or replicates).  Far
#: beyond what a machine runs in a year; larger values are refused at once.
MAX_BUDGET = 10 ** 15
