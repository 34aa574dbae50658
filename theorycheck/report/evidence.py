"""What the report says about one result: its number, interval, slack, worst
point and — for an inconclusive verdict — what would settle it.

Pure functions of a :class:`~proofs_check.engine.Result` (and the claim's
parameters, which the result carries); nothing is re-run.

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

import math

__all__ = ["fmt", "status", "STATUS_TEXT", "headline", "interval", "slack", "worst_point",
           "settle_advice", "chunk_size_of", "budget_to_settle"]

#: What each status means, for legends.
STATUS_TEXT = {
    "contradicted": "contradicts the verdict it was expected to reach",
    "finding": "no verdict was expected in advance (a finding)",
    "unsettled": "expected verdict not settled at this budget",
    "as expected": "reached the verdict it was expected to reach",
}

#: The unit of a budget, per kind.
UNITS = {"probability": "trials", "comparison": "paired differences", "scaling": "replicates",
         "inequality": "evaluations", "identity": "cases"}


def fmt(x, digits: int = 4) -> str:
    """A number in ``digits`` significant digits (``nan``, ``∞`` spelt out)."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x)
    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    text = f"{x:.{digits}g}"
    return text.replace("-", "−") if text.startswith("-") else text


def status(r) -> str:
    """``contradicted`` / ``unsettled`` / ``finding`` / ``as expected``."""
    if r.expected is None:
        return "finding"
    if r.verdict == r.expected:
        return "as expected"
    return "unsettled" if r.verdict == "inconclusive" else "contradicted"


def headline(r) -> str:
    """The one number a verdict rests on, named."""
    k = r.kind
    if k == "probability":
        return f"p̂ = {fmt(r.p_hat)} ({r.events}/{r.trials}) vs δ = {fmt(r.delta)}"
    if k == "comparison":
        op = "<" if r.alternative == "less" else ">"
        return f"mean difference = {fmt(r.mean_diff)} (n = {r.n}); claim: mean {op} {fmt(r.threshold)}"
    if k == "scaling":
        return (f"exponent = {fmt(r.exponent)} vs window [{fmt(r.exponent_lo)}, {fmt(r.exponent_hi)}]"
                + ("" if r.deterministic else f" ({r.replicates} replicates)"))
    if k == "inequality":
        if math.isfinite(r.worst_ratio):
            return f"max lhs/rhs = {fmt(r.worst_ratio)} over {r.evaluations} evaluations"
        return f"max lhs − rhs = {fmt(r.worst_margin)} over {r.evaluations} evaluations"
    if k == "identity":
        return (f"max error = {fmt(r.max_abs_error)} ({r.tol_mode} {fmt(r.max_scaled_error)} vs tol "
                f"{fmt(r.tol)}) over {r.cases} cases")
    return r.summary()


def interval(r, level: str) -> str | None:
    """``"99 % CS [a, b]"`` for kinds with an interval, else ``None``."""
    if r.kind == "probability":
        what = "anytime-valid CS" if r.method == "anytime" else "Clopper–Pearson CI"
        return f"{level} {what} [{fmt(r.ci[0])}, {fmt(r.ci[1])}] for p"
    if r.kind == "comparison":
        what = "betting CS" if r.method == "betting" else "Hall CI"
        return f"{level} {what} [{fmt(r.ci[0])}, {fmt(r.ci[1])}] for the mean difference"
    if r.kind == "scaling" and r.exponent_ci is not None:
        return f"{level} t-CI [{fmt(r.exponent_ci[0])}, {fmt(r.exponent_ci[1])}] for the exponent"
    return None


def _gap_to_window(e, lo, hi) -> float:
    if lo <= e <= hi:
        return min(e - lo, hi - e)
    return lo - e if e < lo else e - hi


def slack(r) -> list[str]:
    """How far the verdict is from the other side, in the claim's own terms."""
    out = []
    p = r.params or {}
    if r.kind == "probability":
        out.append(f"p̂/δ = {fmt(r.p_hat / r.delta, 3)} (interval for p/δ: [{fmt(r.ci[0] / r.delta, 3)}, "
                   f"{fmt(r.ci[1] / r.delta, 3)}]); the bound needs p/δ ≤ 1")
    elif r.kind == "comparison":
        gap = r.mean_diff - r.threshold
        sd = f", {fmt(gap / r.sd, 3)} sd" if isinstance(r.sd, float) and r.sd > 0 else ""
        out.append(f"mean − threshold = {fmt(gap)}{sd} (interval [{fmt(r.ci[0] - r.threshold)}, "
                   f"{fmt(r.ci[1] - r.threshold)}])")
    elif r.kind == "scaling":
        if math.isfinite(r.exponent):
            g = _gap_to_window(r.exponent, r.exponent_lo, r.exponent_hi)
            where = "inside" if r.exponent_lo <= r.exponent <= r.exponent_hi else "outside"
            out.append(f"exponent {where} the window, {fmt(g, 3)} from its nearest edge")
        if r.x:
            pts = ", ".join(f"{fmt(x)}: {fmt(y)}" + (f" ± {fmt(se, 2)}" if isinstance(se, float)
                                                      and math.isfinite(se) else "")
                            for x, y, se in list(zip(r.x, r.y_mean, r.y_se or [math.nan] * len(r.x)))[:8])
            more = f" … ({len(r.x)} points)" if len(r.x) > 8 else ""
            out.append(f"measured mean at each grid point (x: y ± se): {pts}{more}")
    elif r.kind == "inequality":
        if math.isfinite(r.worst_ratio):
            out.append(f"worst lhs/rhs = {fmt(r.worst_ratio)} (lhs = {fmt(r.worst_lhs)}, rhs = "
                       f"{fmt(r.worst_rhs)}); a ratio above 1 is a violation")
        else:
            out.append(f"worst lhs − rhs = {fmt(r.worst_margin)} (lhs = {fmt(r.worst_lhs)}, rhs = "
                       f"{fmt(r.worst_rhs)}); a positive margin is a violation")
    elif r.kind == "identity":
        out.append(f"max error / tolerance = {fmt(r.max_scaled_error / r.tol, 3)}"
                   + {True: "; sympy proof succeeded", False: "; sympy proof FAILED", None: ""}[r.proved])
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
    """The tightest point of an inequality search, coordinates named where the
    claim names them (``describe_point`` dicts, or ``names``)."""
    if r.kind != "inequality" or r.worst_point is None:
        return None
    pt = r.worst_point
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
    return max(1, r.budget // max(1, r.chunks))


def _round_up(n: float, chunk: int) -> int:
    return int(math.ceil(n / chunk) * chunk)


def budget_to_settle(r) -> int | None:
    """The total budget at which the current estimate would be decided (module
    docstring), or ``None`` when no budget would (estimate on the threshold,
    infinite interval) or the kind has no interval."""
    chunk = chunk_size_of(r)
    if r.kind == "probability":
        n, est, thr = r.trials, r.p_hat, r.delta
        lo, hi = r.ci
        if r.events == 0:
            return _round_up(n * hi / thr, chunk) if hi > 0 else None
        if est < thr:
            w, g = hi - est, thr - est
        elif est > thr:
            w, g = est - lo, est - thr
        else:
            return None
        return _round_up(n * (w / g) ** 2, chunk)
    if r.kind == "comparison":
        lo, hi = r.ci
        est, thr = r.mean_diff, r.threshold
        if not (math.isfinite(lo) and math.isfinite(hi)) or est == thr:
            return None
        w, g = (hi - est, thr - est) if est < thr else (est - lo, est - thr)
        return _round_up(r.n * (w / g) ** 2, chunk)
    if r.kind == "scaling" and r.exponent_ci is not None and math.isfinite(r.exponent):
        lo, hi = r.exponent_ci
        if not (math.isfinite(lo) and math.isfinite(hi)) or r.replicates < 2:
            return None
        g = _gap_to_window(r.exponent, r.exponent_lo, r.exponent_hi)
        if g <= 0:
            return None
        return _round_up(_t_replicates((hi - lo) / 2, r.replicates, g, r.alpha), chunk)
    return None


def _t_replicates(half_width: float, R: int, gap: float, alpha: float) -> int:
    """Replicates ``N`` at which a Student-t half-width ``t_{N−1}·s/√N`` falls
    below ``gap``, with ``s = half_width·√R / t_{R−1}`` the sample sd now (the
    quantile shrinks with ``N`` too, so plain ``1/√n`` scaling would overstate
    ``N`` for few replicates)."""
    from scipy.stats import t

    s = half_width * math.sqrt(R) / float(t.isf(alpha / 2, R - 1))

    def wide(n):                          # t_{n−1}·s/√n ≥ gap: decreasing in n
        return float(t.isf(alpha / 2, n - 1)) * s / math.sqrt(n) >= gap

    lo, hi = R, R + 1
    while wide(hi) and hi < 10 ** 15:
        lo, hi = hi, hi * 2
    while hi - lo > 1:                    # smallest n with a half-width below the gap
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if wide(mid) else (lo, mid)
    return hi


def settle_advice(r) -> str | None:
    """For an inconclusive verdict: the budget or the method that would settle it."""
    if r.verdict != "inconclusive":
        return None
    unit = UNITS.get(r.kind, "units")
    n_now = r.budget
    need = budget_to_settle(r)
    if r.kind == "identity":
        return ("method, not budget: every numerical case agreed but the symbolic (sympy) proof failed; "
                "inspect the proof — a simplification sympy cannot do, or a discrepancy outside the "
                "sampled domain")
    if r.kind == "inequality":
        return (f"method, not budget: {r.nonfinite} evaluation(s) gave NaN/inf; restrict the sampler "
                f"to the claim's domain or give the claim an mpmath evaluator (evaluate_mp) for "
                f"those points — more evaluations would not settle it")
    if r.kind == "scaling" and not math.isfinite(r.exponent):
        return ("method, not budget: some measured values are censored or not positive, so no exponent "
                "is fitted; widen the grid (e.g. the range of M searched) until every replicate "
                "yields a value, or fit the censored values with a survival model")
    if r.kind == "comparison" and r.method != "betting" and need is None:
        return ("method: the differences have no variance (or too few); declare bounds=(lo, hi) on "
                "the claim for an anytime-valid betting confidence sequence")
    if need is None:
        return (f"no budget settles it if the estimate stays where it is (it sits on the threshold); "
                f"{n_now} {unit} so far")
    anytime = (r.kind == "probability" and r.method == "anytime") or \
              (r.kind == "comparison" and r.method == "betting")
    if anytime:
        how = (f"continue the run (anytime-valid, so extending is allowed): `theorycheck verify "
               f"{r.claim} --out DIR --resume --budget {need}`")
    else:
        fixed = " --fixed" if r.kind == "probability" else ""
        how = (f"a fresh run with a new seed: `theorycheck verify {r.claim} --seed NEW{fixed} --budget "
               f"{need}` (a fixed-sample interval must not be extended after its verdict was seen)")
    scaling = ("Student-t half-width t·s/√N with the current sd s" if r.kind == "scaling" else
               "interval half-width ∝ 1/√n" + ("; a lower estimate for an anytime-valid sequence"
                                               if anytime else ""))
    return (f"≈ {need} {unit} in total ({need / max(n_now, 1):.2g}× the {n_now} {unit} run so far), if "
            f"the estimate stays where it is ({scaling}); {how}")
