"""Shared options and source helpers of the ``mismatch.*`` registrations (no mathematics here)."""
from __future__ import annotations

from proofs_check.engine import Source

PAGE = "mismatch.md"


def paper(key: str, anchor: str, *, where: str = "", note: str = "") -> Source:
    """A statement read in paper ``key`` (``proofs_check.papers``), restated at ``mismatch.md#anchor``."""
    return Source(papers=(key,), where=where, theory=f"{PAGE}#{anchor}", note=note)


def ours(anchor: str, note: str = "our derivation") -> Source:
    """The team's own derivation, construction or measurement: no paper, the theory page only."""
    return Source(theory=f"{PAGE}#{anchor}", note=note)


#: exactly computed quantities (closed forms / exact-gradient runs; the rng is unused): one replicate
DETERMINISTIC = dict(chunk_size=1, default_budget=1, quick_budget=1, deterministic=True, version=2)
HOLDS = dict(role="statement", expected="holds")
MEASURE = dict(role="measurement", expected=None)
#: the inequality searches of lemmas and estimator bounds
SEARCH = dict(chunk_size=100, default_budget=1_000, quick_budget=200, step=0.3, role="statement", expected="holds")
