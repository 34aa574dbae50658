"""The environment variables theorycheck reads, parsed in one place.

``THEORYCHECK_DEBUG`` turns debugging output on only for ``1``, ``true``, ``yes`` or ``on``
(any case, surrounding blanks ignored); ``0``, ``false``, ``no``, ``off``, an empty or blank
value and any other text mean off — so ``THEORYCHECK_DEBUG=0`` never turns it on.
"""
from __future__ import annotations

import os

__all__ = ["debug_enabled"]

_ON = ("1", "true", "yes", "on")


def debug_enabled() -> bool:
    """Whether ``THEORYCHECK_DEBUG`` asks for tracebacks (see the module docstring)."""
    return os.environ.get("THEORYCHECK_DEBUG", "").strip().lower() in _ON
