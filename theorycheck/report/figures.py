"""Which figures support which claims.

A figure declares the claims it supports as ids or globs (``paper_figs``'
``figure_info() -> {name: {"caption", "claims", "width"}}``, from the
``@figure(name, caption=, claims=, width=)`` decorator).  A pattern
matches a claim id as the registry's patterns do: equal, a dotted prefix, or
a shell glob.  A ``paper_figs`` without ``figure_info`` gives every figure no caption and
no claim.
"""
from __future__ import annotations

import fnmatch

__all__ = ["figure_info", "matches", "figures_for", "supported_claims", "figures_by_claim"]


def figure_info() -> dict:
    """``{name: {"caption": str, "claims": [patterns], "width": float|None}}`` of
    every registered figure (plain JSON, sorted by name)."""
    import paper_figs
    import paper_figs.registry

    info = getattr(paper_figs, "figure_info", None) or getattr(paper_figs.registry, "figure_info", None)
    raw = info() if callable(info) else {name: {} for name in paper_figs.figures()}
    out = {}
    for name in sorted(raw):
        d = raw[name] or {}
        claims = d.get("claims") or ()
        out[name] = {"caption": str(d.get("caption") or ""),
                     "claims": [claims] if isinstance(claims, str) else [str(c) for c in claims],
                     "width": d.get("width")}
    return out


def matches(claim_id: str, pattern: str) -> bool:
    """Whether ``pattern`` (an id, dotted prefix or glob) selects ``claim_id``."""
    return (claim_id == pattern or claim_id.startswith(pattern.rstrip(".") + ".")
            or fnmatch.fnmatchcase(claim_id, pattern))


def _ids(claims) -> list[str]:
    if isinstance(claims, str):
        raise TypeError("claims must be a list of claims or claim ids, got a single string")
    return [c if isinstance(c, str) else c.id for c in claims]


def supported_claims(patterns, claim_ids) -> list[str]:
    """The ids among ``claim_ids`` that one of a figure's ``patterns`` selects."""
    return [i for i in claim_ids if any(matches(i, p) for p in patterns)]


def figures_for(claims, info: dict | None = None) -> list[str]:
    """Names of the figures supporting at least one of ``claims`` (claims or ids),
    sorted; ``info`` defaults to :func:`figure_info`.  ``report PATTERN`` builds these."""
    ids = _ids(claims)
    info = figure_info() if info is None else info
    return sorted(name for name, d in info.items() if supported_claims(d.get("claims") or (), ids))


def figures_by_claim(info: dict, claim_ids) -> dict:
    """``{claim id: [figure names]}`` for the figures in ``info``."""
    out = {i: [] for i in claim_ids}
    for name in sorted(info):
        for i in supported_claims(info[name].get("claims") or (), claim_ids):
            out[i].append(name)
    return out
