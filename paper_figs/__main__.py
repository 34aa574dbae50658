"""``python -m paper_figs [--quick] [--out DIR] [--seed S] [PATTERN]`` — same as ``theorycheck figs``."""
import sys

from proofs_check.cli import main

sys.exit(main(["figs", *sys.argv[1:]]))
