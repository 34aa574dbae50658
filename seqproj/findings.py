"""Headline findings of sequential random projection (``docs/theory/seqproj.md``).

Sentence templates bound to claims (:class:`proofs_check.engine.Finding`); every
number is computed from the run's results by the ``values`` functions below,
never stored here.  The report fills them (``theorycheck/report/findings.py``).

* ``seqproj.theorem_vs_worst_case`` — the sequential JL theorem's M against the
  exact worst case: ``M*_worst`` is a *range* ``(M_lo, M_hi]`` (theory
  ``#worst-case-bracket``): the lower end holds when the DP policy, replayed as a
  predictable adversary, fails with probability whose exact Clopper–Pearson lower
  end exceeds δ (no grid involved); the upper end when the DP's estimate
  ``U(M_hi) ≤ δ`` (an estimate, not a bound).  The ratio ``M_theorem / M*`` is
  therefore the range ``[M_theorem / M_hi, M_theorem / M_lo)``.
* ``seqproj.theorem_slack`` — already ``⌈M_theorem/5⌉`` keeps the failure rate
  under δ (theory ``#efficiency``).
* ``seqproj.fixed_time_under_stopping`` — the negative control: fixed-time JL
  (Dasgupta–Gupta Lemma 2.2) fails under a predictable stopping adversary,
  while its fixed-design positive control holds (theory ``#fixed-time``).
"""
from __future__ import annotations

from proofs_check.engine import Finding, NotSettled, register_finding

__all__ = ["THEOREM_VS_WORST_CASE", "THEOREM_SLACK", "FIXED_TIME_UNDER_STOPPING"]

_CELL = "seqproj.worst_case.M_star.eps0.5_T300"


def _theorem_vs_worst_case(r):
    """Fields of the bracket sentence from ``theorem_M`` and the bracket's two ends."""
    thm, lo, hi = (r["seqproj.worst_case.theorem_M"], r[f"{_CELL}.lower"], r[f"{_CELL}.upper"])
    M_theorem = int(thm.params["M"])
    p = lo.params
    v = {"M_theorem": M_theorem, "eps": p["eps"], "T": p["T"], "delta": p["delta"],
         "p_coarse": thm.worst_lhs, "M_lo": int(lo.params["M"]), "M_hi": int(hi.params["M"]),
         "cp_lo": lo.worst_rhs, "U": hi.worst_lhs, "cp_level": f"{100 * (1 - lo.params['cp_alpha']):g} %"}
    if thm.verdict == "refuted":
        return {**v, "case": "refuted"}
    if lo.verdict == "holds" and hi.verdict == "holds":
        # M*_worst ∈ (M_lo, M_hi], i.e. M_lo + 1 ≤ M*_worst ≤ M_hi
        return {**v, "ratio_lo": M_theorem / v["M_hi"], "ratio_hi": M_theorem / (v["M_lo"] + 1)}
    if hi.verdict == "holds":
        return {**v, "case": "upper_only", "ratio_lo": M_theorem / v["M_hi"]}
    if lo.verdict == "holds":
        return {**v, "case": "lower_only", "ratio_hi": M_theorem / (v["M_lo"] + 1)}
    raise NotSettled(f"neither end of the worst-case bracket held: the replay's CP lower end at M = "
                     f"{v['M_lo']} is {lo.worst_rhs:.4g} ≤ δ and U({v['M_hi']}) = {hi.worst_lhs:.4g} > δ")


THEOREM_VS_WORST_CASE = register_finding(Finding(
    id="seqproj.theorem_vs_worst_case",
    title="Sequential JL: the theorem's M against the exact worst case",
    claims=("seqproj.worst_case.theorem_M", f"{_CELL}.lower", f"{_CELL}.upper"),
    sentences={
        "holds": ("At ε = {eps}, δ = {delta}, T = {T} the theorem's M = {M_theorem} is safe even against the "
                  "optimal predictable adversary (DP value {p_coarse:.2g} ≤ δ, an estimate on a coarse grid), and it is "
                  "{ratio_lo:.1f}–{ratio_hi:.1f}× the exact worst-case dimension: M*_worst lies in "
                  "({M_lo}, {M_hi}] — a range, not a point (lower end exact: the DP policy replayed at "
                  "M = {M_lo} fails with probability ≥ {cp_lo:.4f} > δ at the {cp_level} Clopper–Pearson "
                  "level; upper end an estimate: the DP's U({M_hi}) = {U:.4f} ≤ δ)."),
        "upper_only": ("At ε = {eps}, δ = {delta}, T = {T} the theorem's M = {M_theorem} is at least "
                       "{ratio_lo:.1f}× the worst-case dimension (the DP's U({M_hi}) = {U:.4f} ≤ δ, an "
                       "estimate); the bracket's lower end M*_worst > {M_lo} was not confirmed in this run "
                       "(replay CP lower end {cp_lo:.4f})."),
        "lower_only": ("At ε = {eps}, δ = {delta}, T = {T} the exact worst-case dimension exceeds {M_lo} "
                       "(replay CP lower end {cp_lo:.4f} > δ), so the theorem's M = {M_theorem} is at most "
                       "{ratio_hi:.1f}× it; the upper end M*_worst ≤ {M_hi} was not confirmed in this run "
                       "(U = {U:.4f})."),
        "refuted": ("At ε = {eps}, δ = {delta}, T = {T} the theorem's M = {M_theorem} is NOT safe against the "
                    "optimal predictable adversary: the DP puts the failure probability at {p_coarse:.3g} > "
                    "δ = {delta}."),
    },
    values=_theorem_vs_worst_case,
    figures=("seqproj_worst_case_ratio", "seqproj_required_M"),
    order=10,
))


def _slack(r):
    x = r["seqproj.efficiency.M_theorem_div5"]
    return {"M": x.params["M"], "M_theorem": x.params["M_theorem"],
            "factor": x.params["M_theorem"] / x.params["M"], "p": x.p_hat, "lo": x.ci[0], "hi": x.ci[1],
            "delta": x.delta, "trials": x.trials, "adversary": x.params["adversary"]}


THEOREM_SLACK = register_finding(Finding(
    id="seqproj.theorem_slack",
    title="Sequential JL: the theorem's M is conservative",
    claims=("seqproj.efficiency.M_theorem_div5",),
    sentences={
        "holds": ("Already at M = {M} (the theorem's {M_theorem} divided by {factor:.1f}) the time-uniform "
                  "failure rate under the {adversary} design is {p:.4f} ({level} CS [{lo:.4f}, {hi:.4f}], "
                  "{trials} trials) ≤ δ = {delta}."),
        "refuted": ("At M = {M} (the theorem's {M_theorem} divided by {factor:.1f}) the time-uniform failure "
                    "rate under the {adversary} design is {p:.4f} ({level} CS [{lo:.4f}, {hi:.4f}]) > "
                    "δ = {delta}: the theorem's M is not that conservative."),
    },
    values=_slack,
    figures=("seqproj_failure_vs_M",),
    order=11,
))


def _fixed_time(r):
    s, c = r["seqproj.fixed_time.stopping.sphere"], r["seqproj.fixed_time.constant.gaussian"]
    return {"p": s.p_hat, "lo": s.ci[0], "hi": s.ci[1], "bound": s.delta, "M": s.params["M"],
            "T": s.params["T"], "p_fixed": c.p_hat, "fixed_ok": "holds" if c.verdict == "holds" else
            "is refuted too (the positive control failed)"}


FIXED_TIME_UNDER_STOPPING = register_finding(Finding(
    id="seqproj.fixed_time_under_stopping",
    title="Fixed-time JL does not survive a stopping adversary",
    claims=("seqproj.fixed_time.stopping.sphere", "seqproj.fixed_time.constant.gaussian"),
    sentences={
        "refuted": ("Applied where its independence assumption fails, the fixed-time JL bound "
                    "(Dasgupta–Gupta) is exceeded: a predictable stopping adversary makes ‖S_T‖²/V_T leave "
                    "the band with probability {p:.3f} ({level} CS [{lo:.3f}, {hi:.3f}]) against the bound "
                    "{bound:.4f} (M = {M}, T = {T}); with a fixed design the bound {fixed_ok} "
                    "(p̂ = {p_fixed:.3f})."),
        "holds": ("The stopping adversary did not push fixed-time JL past its bound ({p:.3f}, {level} CS "
                  "[{lo:.3f}, {hi:.3f}] vs {bound:.4f}): the negative control did not fire."),
    },
    values=_fixed_time,
    figures=("seqproj_fixed_vs_uniform",),
    order=12,
))
