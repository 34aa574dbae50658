"""``python -m theorycheck`` is the ``theorycheck`` command."""
import sys

from .cli import main

sys.exit(main())
