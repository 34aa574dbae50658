"""A claim's source as data: paper keys, the place in the paper, the theory anchor."""
from __future__ import annotations

from dataclasses import dataclass

from .validate import shown

__all__ = ["Source"]


@dataclass(frozen=True)
class Source:
    """Where a claim comes from, as data.

    ``papers`` are keys of a paper registry (``proofs_check.papers.PAPERS``;
    empty for the team's own derivation), ``where`` the place in the first
    paper ("Thm 2", "eq. (12)", "§3"), ``theory`` the anchor of the section of
    this repository's theory page that restates it, as ``"<page>.md#<id>"``
    (``docs/theory/<page>.md`` holds ``<a id="<id>"></a>``), ``note`` anything
    else a reader needs ("our transcription of the released code").  The
    engine does not resolve keys or anchors; ``tests/test_sources.py`` does.

    ``where`` is also the record that the statement was *read* from the paper:
    a claim is printed as a "paper statement" only when ``papers`` is non-empty
    and ``where`` names a place, and its label is CONFIRMED
    (:func:`proofs_check.engine.reading.source_state`, ``docs/theory/engine.md``
    §5, "Readings").  Leave ``where`` empty when the statement was not read
    there; a note does not change the reading.
    """

    @property
    def read_from_paper(self) -> bool:
        """Whether this source records its statement as read from the paper: a paper key and a
        non-blank ``where`` (the rule of :func:`proofs_check.engine.reading.source_state`)."""
        return bool(self.papers) and bool(self.where.strip())

    papers: tuple[str, ...] = ()
    where: str = ""
    theory: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.papers, str):
            papers = (self.papers,)
        elif isinstance(self.papers, (tuple, list)) and all(isinstance(p, str) for p in self.papers):
            papers = tuple(self.papers)
        else:
            raise TypeError(f"papers must be a paper key (str) or a tuple/list of keys, got {shown(self.papers)}")
        for name in ("where", "theory", "note"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string, got {shown(getattr(self, name))}")
        object.__setattr__(self, "papers", papers)
        if not papers and not self.theory:
            raise ValueError("a Source needs a paper key or a theory page anchor")
        if self.theory and "#" not in self.theory:
            raise ValueError(f"theory must look like 'page.md#anchor', got {self.theory!r}")

    def __str__(self) -> str:
        head = ", ".join(self.papers) if self.papers else "our derivation"
        parts = [head + (f" {self.where}" if self.where else "")]
        if self.note:
            parts.append(self.note)
        if self.theory:
            parts.append(f"theory {self.theory}")
        return "; ".join(parts)

    def to_dict(self) -> dict:
        return {"papers": list(self.papers), "where": self.where, "theory": self.theory,
                "note": self.note}
