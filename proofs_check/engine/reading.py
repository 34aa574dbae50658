"""A result's *reading*: the words it is filed under and printed with, derived, never typed.

One function, :func:`reading`, turns what a result is (the claim's ``role`` and
``label``, whether its source records the statement as read from the paper, who
declared it) and what it shows (``verdict`` and ``guarantee``, against the
``expected`` verdict) into words.  The headline findings, the report's groups,
the command line and ``theorycheck diff`` all print these words, so a reading is
never stronger in one place than in another.

The rule is three tables, written out in ``docs/theory/engine.md`` §5
("Readings", anchor ``#readings``), and a test (``tests/engine/test_reading.py``) parses those
tables from the page and checks every combination against this module:

* the **subject** (what the claim is): :data:`SUBJECTS`, first matching row;
* the **status** (what the verdict establishes under its guarantee):
  :data:`STATUSES`; only an exact, anytime-valid or proved verdict reads
  "confirmed"; ``search`` reads "no counterexample in N evaluations (not a
  proof)"; ``asymptotic`` and ``estimate`` read "indicated, not settled";
* the **suffix** (the verdict against the expected one): :data:`SUFFIXES`.

The words are ``f"{subject}: {status}{suffix}"``.  Where the result is filed is
its status *family* (:data:`FAMILIES`), except that measurements and controls
have groups of their own (:data:`GROUPS`).

*Source read* (:func:`source_state`): ``"read"`` when the source names papers
and ``where`` names the place in the first one (a theorem, section, equation,
the abstract); ``"cited"`` when it names papers but no place; ``"none"`` when it
names no paper (our derivation).  Only ``where`` counts: a note neither
promotes nor demotes (notes are prose, and a claim whose statement was not
read from the paper leaves ``where`` empty); the label then decides — a
CONFIRMED statement read from the paper is a "paper statement", one merely
citing a paper is "reconstructed from the paper", DERIVED is "our derivation"
and OPEN "our open question" whatever the source.

*Origin* (:func:`claim_origin_kind`): ``"project"`` for a claim registered by a
claims module that this distribution (``theorycheck``) declares as an entry
point; ``"user"`` for every other one — a claims file, a ``-m`` module, a
third-party package's entry point, a test's module.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .claims import LABELS, ROLES
from .results import GUARANTEES, VERDICTS

__all__ = ["reading", "Reading", "reading_of", "source_state", "claim_origin_kind", "guarantee_strength",
           "SOURCE_STATES", "ORIGINS", "SUBJECTS", "STATUSES", "SUFFIXES", "FAMILIES", "GROUPS",
           "EXPECTED_STATES", "weakest", "budget_count"]

#: Whether the claim's source records its statement as read from the paper (module docstring).
SOURCE_STATES = ("read", "cited", "none")
#: Who declared the claim: this distribution's topics, or a user (file, module, other package).
ORIGINS = ("project", "user")
#: The expected verdict as the tables see it: none declared, the verdict reached, another one.
EXPECTED_STATES = ("none", "same", "other")

_ANY = "*"

#: (origin, role, label, source, expected) -> (subject key, words); the first matching row wins.
#: ``expected`` here is the declared expected verdict (``"holds"``, ``"refuted"``, ``"none"``).
SUBJECTS: tuple[tuple[str, str, str, str, str, str, str], ...] = (
    ("*", "control", "*", "*", "refuted", "negative-control", "negative control"),
    ("*", "control", "*", "*", "holds", "positive-control", "positive control"),
    ("*", "control", "*", "*", "*", "control", "control"),
    ("user", "measurement", "*", "*", "*", "user-measurement", "your measurement"),
    ("project", "measurement", "*", "*", "*", "measurement", "our measurement"),
    ("user", "statement", "*", "*", "*", "user", "your claim"),
    ("project", "statement", "DERIVED", "*", "*", "derived", "our derivation"),
    ("project", "statement", "OPEN", "*", "*", "open", "our open question"),
    ("project", "statement", "*", "none", "*", "derived", "our derivation"),
    ("project", "statement", "CONFIRMED", "read", "*", "paper", "paper statement"),
    ("project", "statement", "*", "*", "*", "reconstructed", "reconstructed from the paper"),
)

#: (verdict, guarantee) -> (status key, family, words for a statement, words for a measurement or
#: control); ``{level}``, ``{n}`` and ``{unit}`` are filled from the result.  The first matching row wins.
STATUSES: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("inconclusive", "*", "inconclusive", "unsettled", "not settled at this budget",
     "not settled at this budget"),
    ("holds", "proved", "proved", "confirmed", "proved", "holds, proved"),
    ("holds", "exact", "exact", "confirmed", "confirmed (exact at {level})", "holds (exact at {level})"),
    ("holds", "anytime-valid", "anytime", "confirmed", "confirmed (anytime-valid at {level})",
     "holds (anytime-valid at {level})"),
    ("holds", "deterministic", "grid", "checked", "holds on the grid computed (exact computation, not a proof)",
     "holds on the grid computed (exact computation, not a proof)"),
    ("holds", "search", "search", "checked", "no counterexample in {n} {unit} (not a proof)",
     "no counterexample in {n} {unit} (not a proof)"),
    ("holds", "asymptotic", "asymptotic", "indicated", "indicated, not settled (asymptotic interval only)",
     "holds, indicated, not settled (asymptotic interval only)"),
    ("holds", "estimate", "estimate", "indicated", "indicated, not settled (numerical estimate only)",
     "holds, indicated, not settled (numerical estimate only)"),
    ("refuted", "proved", "proved", "refuted", "refuted (counterexample certified in ball arithmetic)",
     "refuted (counterexample certified in ball arithmetic)"),
    ("refuted", "exact", "exact", "refuted", "refuted (exact at {level})", "refuted (exact at {level})"),
    ("refuted", "anytime-valid", "anytime", "refuted", "refuted (anytime-valid at {level})",
     "refuted (anytime-valid at {level})"),
    ("refuted", "deterministic", "grid", "refuted", "refuted on the grid computed (exact computation)",
     "refuted on the grid computed (exact computation)"),
    ("refuted", "search", "float", "checked",
     "refuted by a floating-point counterexample (not confirmed in high precision)",
     "refuted by a floating-point counterexample (not confirmed in high precision)"),
    ("refuted", "asymptotic", "asymptotic", "indicated", "refutation indicated, not settled (asymptotic interval only)",
     "refutation indicated, not settled (asymptotic interval only)"),
    ("refuted", "estimate", "estimate", "indicated", "refutation indicated, not settled (numerical estimate only)",
     "refutation indicated, not settled (numerical estimate only)"),
)

#: (role, expected state, families) -> suffix; the first matching row wins.  ``families`` is
#: ``"*"`` or a comma-separated list; ``{expected}`` is the declared expected verdict.
SUFFIXES: tuple[tuple[str, str, str, str], ...] = (
    ("*", "none", "*", ""),
    ("*", "*", "unsettled", ""),
    ("control", "same", "*", ", as designed"),
    ("control", "other", "confirmed,refuted",
     " — FAILED (expected {expected}): the simulator or the engine is suspect"),
    ("control", "other", "*", " — not as designed (expected {expected}), not settled"),
    ("*", "same", "*", " (as expected)"),
    ("*", "other", "confirmed,refuted", " (contradicts the expected {expected})"),
    ("*", "other", "*", " (expected {expected}, not settled)"),
)

#: family -> what it means (settled: the verdict is decided with a finite-sample or exact guarantee).
FAMILIES = {
    "confirmed": "confirmed: exact, anytime-valid or proved",
    "refuted": "refuted: exact, anytime-valid, certified or computed exactly",
    "checked": "searched or computed on a grid: not proofs",
    "indicated": "indicated, not settled: asymptotic intervals and numerical estimates",
    "unsettled": "not settled at this budget",
}

#: Where a result is filed in the report: key -> title (in this order).  A statement is filed
#: under its family; measurements and controls under their own groups.
GROUPS = {
    "confirmed": "Confirmed (exact, anytime-valid or proved)",
    "refuted": "Refuted (exact, anytime-valid, certified, or computed exactly on a grid)",
    "checked": "Searched or computed on a grid, not proved (no counterexample found; not proofs)",
    "indicated": "Indicated, not settled (asymptotic intervals and numerical estimates)",
    "unsettled": "Not settled at this budget",
    "measurement": "Measurements (no verdict expected in advance)",
    "control": "Controls (checks that the simulator and the engine can fail)",
}

#: Strength of a guarantee for a decided verdict (larger is stronger): a finding over several
#: claims reads by its weakest one.
_STRENGTH = {"proved": 4, "exact": 3, "anytime-valid": 3, "deterministic": 2, "search": 1, "asymptotic": 0,
             "estimate": 0}


@dataclass(frozen=True)
class Reading:
    """The reading of one result (or of a finding).  ``words`` = ``subject: status`` + ``suffix``;
    ``key`` = ``"<subject key>.<status key>"``; ``family`` in :data:`FAMILIES`, ``group`` in
    :data:`GROUPS`; ``settled``: the family is ``confirmed`` or ``refuted``; ``alarm``: a control
    that failed, or a settled verdict against the expected one."""

    key: str
    subject: str
    status: str
    suffix: str
    words: str
    family: str
    group: str
    settled: bool
    alarm: bool

    def __str__(self) -> str:
        return self.words


def _match(cell: str, value: str) -> bool:
    return cell == _ANY or value in cell.split(",")


def _check(name: str, value, allowed) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {', '.join(allowed)}; got {type(value).__name__} "
                        f"{value!r}")
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def source_state(source: Any) -> str:
    """``"read"`` / ``"cited"`` / ``"none"`` for a claim's source (a :class:`~.source.Source`,
    its ``to_dict()``, or a report's ``{"text": …}`` of a result whose structured source is
    unknown — read as ``"cited"`` unless empty, never ``"read"``).  Rule in the module docstring."""
    from .source import Source

    if isinstance(source, Source):
        return "none" if not source.papers else ("read" if source.read_from_paper else "cited")
    elif isinstance(source, Mapping):
        if "papers" not in source and "text" in source:
            text = str(source.get("text") or "").strip()
            return "none" if not text or text.startswith("our derivation") else "cited"
        papers, where = source.get("papers") or (), source.get("where") or ""
    else:
        raise TypeError(f"source must be a Source or its dict, got {type(source).__name__}")
    if not papers:
        return "none"
    return "read" if str(where).strip() else "cited"


def claim_origin_kind(claim_id: str) -> str | None:
    """``"project"`` if ``claim_id`` is registered by a claims module of this distribution's own
    entry points, ``"user"`` if it is registered by anything else, ``None`` if it is not registered
    in this process (results from another installation)."""
    from . import registry

    if not isinstance(claim_id, str):
        raise TypeError(f"claim_id must be a claim id string, got {type(claim_id).__name__}")
    if claim_id not in registry.registered_ids():
        return None
    own = {ep.value for ep in registry.claim_entry_points() if registry.is_own_entry_point(ep)}
    for module in own:
        if any(c.id == claim_id for c in registry.claims_registered_by(module)):
            return "project"
    return "user"


def guarantee_strength(guarantee: str) -> int:
    """How strong a decided verdict's guarantee is (proved 4, exact/anytime-valid 3,
    deterministic 2, search 1, asymptotic/estimate 0)."""
    _check("guarantee", guarantee, tuple(GUARANTEES))
    return _STRENGTH[guarantee]


def reading(role: str, label: str, source_read: str, verdict: str, guarantee: str, *, origin: str = "project",
            expected: str | None = None, n: int | None = None, unit: str = "evaluations",
            level: str = "99 %") -> Reading:
    """The words a result is filed under and printed with (module docstring; the tables are
    in ``docs/theory/engine.md`` §5, "Readings").

    ``role`` in :data:`~.claims.ROLES`, ``label`` in :data:`~.claims.LABELS`, ``source_read`` in
    :data:`SOURCE_STATES` (:func:`source_state` of the claim's source), ``verdict`` in
    :data:`~.results.VERDICTS`, ``guarantee`` in :data:`~.results.GUARANTEES` (``""`` is
    allowed for an inconclusive verdict only), ``origin`` in :data:`ORIGINS`,
    ``expected`` ``None``/``"holds"``/``"refuted"``; ``n`` and ``unit`` the budget a search
    verdict rests on (``n`` required then), ``level`` the interval level (``"99 %"``).
    """
    _check("role", role, ROLES)
    _check("label", label, LABELS)
    _check("source_read", source_read, SOURCE_STATES)
    _check("verdict", verdict, VERDICTS)
    _check("origin", origin, ORIGINS)
    if not (verdict == "inconclusive" and guarantee == ""):
        _check("guarantee", guarantee, tuple(GUARANTEES))
    if expected is not None:
        _check("expected", expected, ("holds", "refuted"))
    exp = "none" if expected is None else expected
    subj_key, subject = next((k, w) for o, r, lab, s, e, k, w in SUBJECTS
                             if _match(o, origin) and _match(r, role) and _match(lab, label)
                             and _match(s, source_read) and _match(e, exp))
    st_key, family, words_statement, words_other = next(
        (k, f, ws, wo) for v, g, k, f, ws, wo in STATUSES if _match(v, verdict) and _match(g, guarantee))
    template = words_statement if role == "statement" else words_other
    if "{n}" in template:
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be the number of {unit} a {guarantee} verdict rests on (an int ≥ 0), "
                             f"got {n!r}")
        if not isinstance(unit, str) or not unit:
            raise ValueError(f"unit must be a non-empty string, got {unit!r}")
    if not isinstance(level, str):
        raise TypeError(f"level must be a string such as '99 %', got {type(level).__name__}")
    if n == 1 and unit.endswith("s"):
        unit = unit[:-1]                              # "1 evaluation", "1 paired difference"
    status = template.format(level=level, n=n, unit=unit)
    exp_state = "none" if expected is None else ("same" if expected == verdict else "other")
    suffix = next(sfx for r, e, f, sfx in SUFFIXES
                  if _match(r, role) and _match(e, exp_state) and _match(f, family)).format(expected=expected)
    group = role if role in ("measurement", "control") else family
    settled = family in ("confirmed", "refuted")
    alarm = settled and exp_state == "other"
    return Reading(key=f"{subj_key}.{st_key}", subject=subject, status=status, suffix=suffix,
                   words=f"{subject}: {status}{suffix}", family=family, group=group, settled=settled,
                   alarm=alarm)


def reading_of(result, *, source: Any = None, origin: str | None = None, level: str = "99 %") -> Reading:
    """:func:`reading` of a :class:`~.results.Result`.  ``source``: the claim's structured source
    (a :class:`~.source.Source` or its dict; default: the registered claim's, else the result's
    text, which never reads as "read"); ``origin``: ``"project"``/``"user"`` (default:
    :func:`claim_origin_kind`, ``"project"`` when the claim is not registered here)."""
    if source is None:
        from . import registry

        source = ({"text": result.source} if result.claim not in registry.registered_ids()
                  else registry.get_claim(result.claim).source)
    if origin is None:
        origin = claim_origin_kind(result.claim) or "project"
    return reading(result.role, result.label, source_state(source), result.verdict, result.guarantee or "",
                   origin=origin, expected=result.expected, n=budget_count(result.budget),
                   unit=getattr(result, "unit", "units"), level=level)


def budget_count(value):
    """A budget as a whole number, or ``None`` when it is not one (a damaged results file)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def weakest(results) -> Any:
    """The result with the weakest evidence among decided ``results`` (lowest
    :func:`guarantee_strength`, then the smallest budget): what a finding over several claims
    can cite at most.  ``None`` for no result."""
    results = [r for r in results if r is not None]
    if not results:
        return None
    return min(results, key=lambda r: (guarantee_strength(r.guarantee) if r.guarantee in _STRENGTH else -1,
                                       budget_count(r.budget) or 0))
