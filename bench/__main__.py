"""``python -m bench [--quick] [--rounds N] [PATTERN]``: every comparison, interleaved (:mod:`bench.run_all`)."""
from bench.run_all import main

if __name__ == "__main__":
    raise SystemExit(main())
