"""From chunk statistics to a verdict: the engine's side of the decision.

Each kind decides for itself (its ``decide``, ``decision_method`` and
``early_stop``, in its module under :mod:`.kinds`; ``docs/theory/engine.md``
§2): this module is how the engine asks, and the one rule that holds for every
kind — which decisions may be continued on more data after their verdict was
seen (:func:`extension_is_valid`).  Each decision states its guarantee
(:data:`.results.GUARANTEES`) and any warnings.
"""
from __future__ import annotations

from .claims import Claim

__all__ = ["decide", "early_stop", "decision_method", "extension_is_valid"]

def decision_method(claim: Claim, method: str) -> str:
    """The name of the statistical decision used for ``claim`` under ``method``."""
    return claim.decision_method(method)


def extension_is_valid(claim: Claim, decision: str) -> bool:
    """Whether a run of ``claim`` decided by ``decision`` may be continued on
    more data after its verdict was seen.  Fixed-sample tests (the kind's
    ``fixed_sample_decisions``) may not: optional stopping inflates their
    error.  Anytime-valid, search and deterministic decisions may."""
    return decision not in claim.fixed_sample_decisions


def early_stop(claim: Claim, alpha: float, method: str):
    """A ``stop(chunk_stats) -> bool`` for anytime-valid decisions, else ``None``."""
    return claim.early_stop(alpha, method)


def decide(claim: Claim, prefix, alpha, method, n_chunks, common):
    """The verdict of ``claim`` on the chunk statistics ``prefix`` (a result of its kind)."""
    if not isinstance(claim, Claim):
        raise TypeError(f"unsupported claim type {type(claim).__name__}")
    return claim.decide(prefix, alpha, method, n_chunks, common)
