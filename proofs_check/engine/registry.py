"""The one registry of claims.

Claim modules call :func:`register` at import time.  :func:`claims` imports
every module named in :data:`CLAIM_MODULES` (so the CLI sees every claim) and
returns the registered claims sorted by id.
"""
from __future__ import annotations

import fnmatch
import importlib

from .claims import Claim

__all__ = ["CLAIM_MODULES", "register", "claims", "get_claim", "select"]

#: Modules whose import registers claims.  One line per topic.
CLAIM_MODULES = (
    "proofs_check.seed_claims",
    "seqproj.claims",
    "seqproj.ensemble_claims",
    "proofs_check.mismatch_claims",
    "proofs_check.baseline_claims",
)

_REGISTRY: dict[str, Claim] = {}
_loaded = False


def register(claim: Claim) -> Claim:
    """Add ``claim`` to the registry; ids are unique."""
    if not isinstance(claim, Claim):
        raise TypeError(f"register() takes a Claim, got {type(claim).__name__}")
    old = _REGISTRY.get(claim.id)
    if old is not None and old is not claim:
        raise ValueError(f"duplicate claim id {claim.id!r}")
    _REGISTRY[claim.id] = claim
    return claim


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    for name in CLAIM_MODULES:
        importlib.import_module(name)
    _loaded = True


def claims(pattern: str | None = None) -> list[Claim]:
    """Every registered claim (sorted by id), optionally filtered by ``pattern``.

    A pattern matches a claim when it equals its id, is a dotted prefix of it
    (``"seqproj"``, ``"seqproj.coverage"``), or matches it as a shell glob
    (``"*tail*"``).
    """
    _load_all()
    out = sorted(_REGISTRY.values(), key=lambda c: c.id)
    if pattern is None:
        return out
    return [c for c in out if _matches(c.id, pattern)]


def _matches(claim_id: str, pattern: str) -> bool:
    return (claim_id == pattern or claim_id.startswith(pattern.rstrip(".") + ".")
            or fnmatch.fnmatchcase(claim_id, pattern))


def get_claim(claim_id: str) -> Claim:
    """The claim with exactly this id; ``ValueError`` listing near names if unknown."""
    _load_all()
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        near = [c for c in _REGISTRY if claim_id.split(".")[0] in c][:5]
        hint = f"; similar: {', '.join(near)}" if near else "; run `theorycheck list` for all ids"
        raise ValueError(f"unknown claim id {claim_id!r}{hint}") from None


def select(pattern: str) -> list[Claim]:
    """Claims matching an id or pattern; ``ValueError`` if none match."""
    found = claims(pattern)
    if not found:
        raise ValueError(f"no claim matches {pattern!r}; run `theorycheck list` to see the ids")
    return found
