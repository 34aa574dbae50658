"""What the report says about one result: its number, interval, slack, worst
point and — for an inconclusive verdict — what would settle it.

Pure functions of a :class:`~proofs_check.engine.Result` (and the claim's
parameters, which the result carries); nothing is re-run.  What depends on the
kind of claim is said by the result itself (its ``headline``, ``interval``,
``slack``, ``budget_to_settle`` and ``settle_advice``, defined with the kind in
``proofs_check/engine/kinds/``); this module adds what holds for every kind.

Budget to settle (inconclusive only).  A confidence interval's half-width
``w`` at ``n`` units shrinks like ``1/√n`` (for an exact binomial bound with no
event at all, like ``1/n``).  If the estimate stays where it is, the interval
excludes the threshold once ``w`` falls below the gap ``g`` between the
estimate and the threshold, i.e. at

    N ≈ n · (w / g)²        (N ≈ n · w / g when no event was seen),

rounded up to whole chunks.  The anytime-valid sequences shrink a little
slower (an extra ``√log n``), so ``N`` is a lower estimate; the advice says
whether the run may be continued (anytime-valid, search) or must be a fresh
run with a new seed (fixed-sample tests: optional stopping would void their
guarantee).
"""
from __future__ import annotations

from proofs_check.engine.results import fmt

__all__ = ["fmt", "status", "STATUS_TEXT", "headline", "interval", "slack", "worst_point",
           "settle_advice", "chunk_size_of", "budget_to_settle", "margin_note", "ROUNDING_ULPS"]

#: A positive worst margin ``lhs − rhs`` of a claim that holds is "at rounding level" when it is at
#: most this many units in the last place of ``max(|lhs|, |rhs|)`` (float64).
ROUNDING_ULPS = 64

#: What each status means, for legends.
STATUS_TEXT = {
    "contradicted": "contradicts the verdict it was expected to reach",
    "finding": "no verdict was expected in advance (a finding)",
    "unsettled": "expected verdict not settled at this budget",
    "as expected": "reached the verdict it was expected to reach",
}


def status(r) -> str:
    """``contradicted`` / ``unsettled`` / ``finding`` / ``as expected``."""
    if r.expected is None:
        return "finding"
    if r.verdict == r.expected:
        return "as expected"
    return "unsettled" if r.verdict == "inconclusive" else "contradicted"


def headline(r) -> str:
    """The one number a verdict rests on, named (with :func:`margin_note`'s short words when a
    claim that holds shows a positive worst margin)."""
    note = margin_note(r)
    return r.headline() + (f" ({note[0]})" if note else "")


def margin_note(r) -> tuple[str, str] | None:
    """``(short, sentence)`` explaining a *positive* worst margin ``lhs − rhs`` beside "holds", or
    ``None``.  An inequality result holds unless ``lhs − rhs > atol + rtol·|rhs|`` (its declared
    allowance, ``docs/theory/engine.md`` §2.7), so a positive margin of a result that holds lies
    inside the allowance; it is *at rounding level* when it is at most :data:`ROUNDING_ULPS` units
    in the last place of ``max(|lhs|, |rhs|)``."""
    import math

    m = getattr(r, "worst_margin", None)
    if r.verdict != "holds" or not isinstance(m, (int, float)) or isinstance(m, bool) or not m > 0 \
            or not math.isfinite(m):
        return None
    sides = [abs(float(x)) for x in (getattr(r, "worst_lhs", None), getattr(r, "worst_rhs", None))
             if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(float(x))]
    scale = max(sides, default=0.0)
    if scale > 0 and m <= ROUNDING_ULPS * math.ulp(scale):
        return ("margin at rounding level",
                f"the positive worst margin lhs − rhs = {fmt(m)} is at rounding level (≤ {ROUNDING_ULPS} ulp "
                f"of max(|lhs|, |rhs|) = {fmt(scale)}) and inside the claim's allowance atol + rtol·|rhs|: "
                f"not a violation")
    return ("margin inside the declared allowance",
            f"the positive worst margin lhs − rhs = {fmt(m)} lies inside the claim's declared allowance "
            f"atol + rtol·|rhs| (a violation needs more): not a violation")


def interval(r, level: str) -> str | None:
    """``"99 % CS [a, b]"`` for kinds with an interval, else ``None``."""
    return r.interval(level)


def slack(r) -> list[str]:
    """How far the verdict is from the other side, in the claim's own terms."""
    out = list(r.slack())
    note = margin_note(r)
    if note:
        out.append(note[1])
    p = r.params or {}
    if "M_theorem" in p and "M" in p:
        try:
            m, mt = float(p["M"]), float(p["M_theorem"])
            out.append(f"M = {fmt(m)} vs the theorem's M = {fmt(mt)} (M_theorem/M = {fmt(mt / m, 3)})")
        except (TypeError, ValueError, ZeroDivisionError):
            pass
    return out


def _flat(d, prefix=""):
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            yield from _flat(v, name + ".")
        else:
            yield name, v


def _value(v) -> str:
    if isinstance(v, (list, tuple)):
        inner = ", ".join(fmt(x, 3) for x in v[:6])
        return f"({inner}{', …' if len(v) > 6 else ''})"
    return fmt(v) if isinstance(v, (int, float)) else str(v)


def worst_point(r, names=None, limit: int = 12) -> str | None:
    """The tightest point of a worst-case search (results that have a
    ``worst_point``), coordinates named where the claim names them
    (``describe_point`` dicts, or ``names``)."""
    pt = getattr(r, "worst_point", None)
    if pt is None:
        return None
    if isinstance(pt, dict):
        items = list(_flat(pt))
    elif isinstance(pt, (list, tuple)):
        if names and len(names) == len(pt):
            items = list(zip(names, pt))
        else:
            shown = ", ".join(fmt(x, 3) for x in pt[:limit])
            return (f"θ = ({shown}{', …' if len(pt) > limit else ''}) — {len(pt)} unnamed coordinates "
                    f"(the claim has no describe_point; all of them are in results.jsonl)")
    else:
        return str(pt)
    text = ", ".join(f"{k} = {_value(v)}" for k, v in items[:limit])
    return text + (f", … ({len(items)} entries in results.jsonl)" if len(items) > limit else "")


def chunk_size_of(r) -> int:
    """Units per chunk of the run (budget / chunks)."""
    return r.chunk_size


def budget_to_settle(r) -> int | None:
    """The total budget at which the current estimate would be decided (module
    docstring), or ``None`` when no budget would (estimate on the threshold,
    infinite interval) or the kind has no interval."""
    return r.budget_to_settle()


def settle_advice(r) -> str | None:
    """For an inconclusive verdict: the budget or the method that would settle it."""
    return r.settle_advice()
