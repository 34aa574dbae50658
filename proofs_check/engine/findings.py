"""Headline findings: sentence templates bound to claims, declared by topics.

A :class:`Finding` is what a topic wants a reader to take away from a run, as a
*template*, never as stored text with numbers: its sentences have ``{field}``
slots, and its ``values`` function computes the fields from the results of the
claims it is bound to, every time a report is rendered.  The report
(``theorycheck/report/findings.py``) fills the template, and when a bound claim
is missing from the run or inconclusive at its budget it says "not settled in
this run (…)" instead of a number.

Which sentence is used depends on the run: ``sentences`` maps a *case* to a
template; the case is the verdict of the first bound claim (``"holds"`` /
``"refuted"``), unless ``values`` returns a ``"case"`` field of its own.  So a
finding reads differently when the claim it rests on flips.

``values(r)`` receives a mapping ``claim id -> Result`` holding every bound
claim, each decided (holds or refuted), and returns a mapping of field values;
it raises :class:`NotSettled` with a reason when the results, though decided,
do not support any sentence (e.g. only one end of a bracket is decided).

Topics declare findings in ``<topic>/findings.py`` with :func:`register_finding`
(imported from :mod:`proofs_check.engine`), and the topic's ``claims`` package
imports that module, so loading a topic's claims loads its findings.  A user's
claims file (or ``-m`` module, or package) declares its findings the same way,
next to its claims: loading the file registers them, and ``theorycheck report
claims_mine.py`` shows each finding with at least one bound claim in the run
(README, "Headline findings for your own claims").  How a finding *reads*
("paper statement: proved", "your claim: no counterexample in N evaluations (not
a proof)", …) is derived from its claims by :mod:`.reading`, never declared.
:func:`registered_findings` loads every claims entry point first, then lists them.
"""
from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

__all__ = ["Finding", "NotSettled", "register_finding", "registered_findings", "get_finding"]

_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_*-]+)+$")


class NotSettled(Exception):
    """Raised by a finding's ``values`` when decided results support no sentence;
    the message says why (the report prints it after "not settled in this run")."""


def template_fields(template: str) -> set[str]:
    """The ``{field}`` names a template uses (``ValueError`` if it is malformed)."""
    try:
        return {name.split(".")[0].split("[")[0]
                for _, name, _, _ in string.Formatter().parse(template) if name}
    except ValueError as exc:
        raise ValueError(f"malformed template {template!r}: {exc}") from None


@dataclass(frozen=True)
class Finding:
    """One headline result of a topic, as a template bound to claims.

    ``id``: dotted, starting with the topic name (``"seqproj.theorem_vs_worst_case"``);
    ``title``: a few words; ``claims``: the bound claim ids, the first one the
    *primary* claim whose role and expected verdict decide how the finding is
    read (paper statement, our derivation, control, measurement); ``sentences``:
    case -> template (``str.format`` syntax, e.g. ``"{ratio:.1f}×"``);
    ``values``: results -> fields (module docstring); ``figures``: figure names
    that show it; ``order``: place among the headline findings (smaller first).
    """

    id: str
    title: str
    claims: tuple
    sentences: Mapping[str, str]
    values: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    figures: tuple = ()
    order: int = 100
    fields: frozenset = field(default=frozenset(), init=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"Finding id must be dotted like 'topic.name', got {self.id!r}")
        if not isinstance(self.title, str) or not self.title.strip():
            raise ValueError(f"Finding {self.id}: title must be a non-empty string, got {self.title!r}")
        claims = (self.claims,) if isinstance(self.claims, str) else (
            tuple(self.claims) if isinstance(self.claims, (list, tuple)) else None)
        if not claims or not all(isinstance(c, str) and c for c in claims):
            raise ValueError(f"Finding {self.id}: claims must be one or more claim ids, got {self.claims!r}")
        object.__setattr__(self, "claims", claims)
        if not isinstance(self.sentences, Mapping) or not self.sentences:
            raise ValueError(f"Finding {self.id}: sentences must map a case ('holds', 'refuted', …) to a "
                             f"template, got {self.sentences!r}")
        used = set()
        for case, text in self.sentences.items():
            if not isinstance(case, str) or not isinstance(text, str) or not text.strip():
                raise ValueError(f"Finding {self.id}: sentences[{case!r}] must be a non-empty string")
            try:
                used |= template_fields(text)
            except ValueError as exc:
                raise ValueError(f"Finding {self.id}: sentences[{case!r}]: {exc}") from None
            if re.search(r"(?<![{\w.])\d+\.\d+|\d{2,}", re.sub(r"\{[^}]*\}", "", text)):
                raise ValueError(f"Finding {self.id}: sentences[{case!r}] holds a number outside a field "
                                 f"({text!r}); numbers must come from the run through `values`")
        lacking = [c for c in ("holds", "refuted") if c not in self.sentences]
        if lacking:
            raise ValueError(f"Finding {self.id}: sentences must say what a 'holds' and a 'refuted' run mean "
                             f"(missing: {', '.join(lacking)}), so that a flipped verdict reads differently")
        object.__setattr__(self, "sentences", dict(self.sentences))
        object.__setattr__(self, "fields", frozenset(used))
        if not callable(self.values):
            raise TypeError(f"Finding {self.id}: values must be a function of the results, "
                            f"got {type(self.values).__name__}")
        figures = (self.figures,) if isinstance(self.figures, str) else (
            tuple(self.figures) if isinstance(self.figures, (list, tuple)) else None)
        if figures is None or not all(isinstance(f, str) and f for f in figures):
            raise ValueError(f"Finding {self.id}: figures must be figure names, got {self.figures!r}")
        object.__setattr__(self, "figures", figures)
        if isinstance(self.order, bool) or not isinstance(self.order, int):
            raise TypeError(f"Finding {self.id}: order must be an int, got {self.order!r}")

    @property
    def primary(self) -> str:
        """The claim whose verdict picks the sentence and whose role decides the reading."""
        return self.claims[0]


_FINDINGS: dict[str, Finding] = {}


def register_finding(finding: Finding) -> Finding:
    """Add ``finding`` to the registry (ids unique; re-registering the same object is a no-op)."""
    if not isinstance(finding, Finding):
        raise TypeError(f"finding must be a Finding, got {type(finding).__name__}")
    old = _FINDINGS.get(finding.id)
    if old is not None and old is not finding:
        raise ValueError(f"duplicate finding id {finding.id!r}: give each finding a unique id")
    _FINDINGS[finding.id] = finding
    return finding


def registered_findings() -> list[Finding]:
    """Every registered finding, sorted by (order, id), after loading every claims module."""
    from .registry import claims

    claims()
    return sorted(_FINDINGS.values(), key=lambda f: (f.order, f.id))


def get_finding(finding_id: str) -> Finding:
    """The finding with this id (``ValueError`` naming the known ones if unknown)."""
    if not isinstance(finding_id, str):
        raise TypeError(f"finding_id must be a finding id string, got {type(finding_id).__name__}")
    known = {f.id: f for f in registered_findings()}
    if finding_id not in known:
        raise ValueError(f"unknown finding_id {finding_id!r}; known: {', '.join(sorted(known))}")
    return known[finding_id]
