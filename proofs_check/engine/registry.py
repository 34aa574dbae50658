"""The one registry of claims.

Claim modules call :func:`register` at import time.  The engine names no
topic: :func:`claims` imports every module declared in the entry-point group
``theorycheck.claims`` (this project's own topics in ``pyproject.toml``, and
any installed package's) and returns the registered claims sorted by id.
"""
from __future__ import annotations

import fnmatch
import importlib
from importlib.metadata import entry_points

from .claims import Claim

__all__ = ["ENTRY_POINT_GROUP", "claim_modules", "register", "claims", "get_claim", "select", "matches", "registered_ids"]

#: The entry-point group whose values are modules that register claims.
ENTRY_POINT_GROUP = "theorycheck.claims"


def claim_modules() -> list[str]:
    """The claim modules declared in the ``theorycheck.claims`` entry points."""
    return sorted({ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)})


_REGISTRY: dict[str, Claim] = {}
_loaded = False


def register(claim: Claim) -> Claim:
    """Add ``claim`` to the registry; ids are unique."""
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a Claim, got {type(claim).__name__}")
    old = _REGISTRY.get(claim.id)
    if old is not None and old is not claim:
        raise ValueError(f"duplicate claim id {claim.id!r}")
    _REGISTRY[claim.id] = claim
    return claim


def registered_ids() -> list[str]:
    """Ids registered so far in this process (without loading the entry-point modules)."""
    return sorted(_REGISTRY)


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    modules = claim_modules()
    if not modules:
        raise RuntimeError(f"no claim modules found in the entry-point group {ENTRY_POINT_GROUP!r}: "
                           f"is theorycheck installed (pip install .)?")
    for name in modules:
        importlib.import_module(name)
    _loaded = True


def claims(pattern: str | None = None) -> list[Claim]:
    """Every registered claim (sorted by id), optionally filtered by ``pattern``.

    A pattern matches a claim when it equals its id, is a dotted prefix of it
    (``"seqproj"``, ``"seqproj.coverage"``), or matches it as a shell glob
    (``"*tail*"``).
    """
    if pattern is not None and not isinstance(pattern, str):
        raise TypeError(f"pattern must be a string (an id, dotted prefix or glob), got {type(pattern).__name__}")
    _load_all()
    out = sorted(_REGISTRY.values(), key=lambda c: c.id)
    if pattern is None:
        return out
    return [c for c in out if matches(c.id, pattern)]


def matches(claim_id: str, pattern: str) -> bool:
    """Whether ``pattern`` selects ``claim_id``: equal, a dotted prefix, or a shell glob."""
    return (claim_id == pattern or claim_id.startswith(pattern.rstrip(".") + ".")
            or fnmatch.fnmatchcase(claim_id, pattern))


def get_claim(claim_id: str) -> Claim:
    """The claim with exactly this id; ``ValueError`` listing near names if unknown."""
    if not isinstance(claim_id, str):
        raise TypeError(f"claim_id must be a claim id string, got {type(claim_id).__name__}")
    _load_all()
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        import difflib

        near = difflib.get_close_matches(claim_id, list(_REGISTRY), n=5, cutoff=0.6)
        hint = f"; similar: {', '.join(near)}" if near else "; run `theorycheck list` for all ids"
        raise ValueError(f"unknown claim_id {claim_id!r}{hint}") from None


def select(pattern: str) -> list[Claim]:
    """Claims matching an id or pattern; ``ValueError`` if none match."""
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a string (an id, dotted prefix or glob), got {type(pattern).__name__}")
    found = claims(pattern)
    if not found:
        raise ValueError(f"pattern {pattern!r} matches no claim; run `theorycheck list` to see the ids")
    return found
