"""The names of the claim kinds, read from the files of ``proofs_check/engine/kinds/``
without importing anything, so that the light facades (``theorycheck``,
``proofs_check``, ``proofs_check.engine``) can list a kind's names without
paying for the engine.

A kind ``<kind>`` is the module ``engine/kinds/<kind>.py``; it defines
``<Kind>Claim`` and ``<Kind>Result`` (CamelCase of the module name), and its
user constructor ``proofs_check.declare.<kind>``.
``tests/engine/test_kind_registry.py`` checks that every module keeps to this.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["kind_names", "kind_class_names"]

_KINDS_DIR = Path(__file__).parent / "engine" / "kinds"


def kind_names() -> tuple[str, ...]:
    """Every kind, alphabetically: the public module names of ``engine/kinds/``."""
    return tuple(sorted(p.stem for p in _KINDS_DIR.glob("*.py") if not p.stem.startswith("_")))


def kind_class_names() -> list[str]:
    """``<Kind>Claim`` and ``<Kind>Result`` of every kind."""
    camel = ["".join(part.capitalize() for part in name.split("_")) for name in kind_names()]
    return [f"{c}{what}" for c in camel for what in ("Claim", "Result")]
