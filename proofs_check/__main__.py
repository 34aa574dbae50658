"""``python -m proofs_check`` is kept as an alias of ``python -m theorycheck``
(the command line lives in :mod:`theorycheck.cli`, the top layer)."""
import sys

from theorycheck.cli import main

sys.exit(main())
