"""Benchmarks: ``python -m bench [--quick] [--rounds N] [PATTERN]`` (see :mod:`bench.run_all`)."""
