"""Headline finding of the self-test topic (``docs/theory/selftest.md``): the
Dasgupta–Gupta tail bound and its doubled-tail negative control, as a sentence
template whose numbers come from the run (:class:`proofs_check.engine.Finding`)."""
from __future__ import annotations

from proofs_check.engine import Finding, register_finding

__all__ = ["DG_TAIL"]


def _dg(r):
    x, d = r["selftest.dg_tail"], r["selftest.dg_tail_doubled"]
    return {"p": x.p_hat, "lo": x.ci[0], "hi": x.ci[1], "delta": x.delta, "M": x.params["M"],
            "eps": x.params["eps"], "n": x.trials, "d_delta": d.delta,
            "d_reads": ("is refuted as designed (the engine can refute)" if d.verdict == "refuted"
                        else "was NOT refuted: the negative control did not fire")}


DG_TAIL = register_finding(Finding(
    id="selftest.dg_tail",
    title="Self-test: the Dasgupta–Gupta tail bound",
    claims=("selftest.dg_tail", "selftest.dg_tail_doubled"),
    sentences={
        "holds": ("A Gaussian projection to M = {M} dimensions distorts a fixed vector by more than ε = {eps} "
                  "with probability {p:.4f} ({level} CS [{lo:.4f}, {hi:.4f}], {n} trials), within the "
                  "Dasgupta–Gupta bound {delta:.4f}; the claim with the exponent doubled (bound "
                  "{d_delta:.4f}) {d_reads}."),
        "refuted": ("A Gaussian projection to M = {M} dimensions distorts a fixed vector by more than "
                    "ε = {eps} with probability {p:.4f} ({level} CS [{lo:.4f}, {hi:.4f}]), above the "
                    "Dasgupta–Gupta bound {delta:.4f}: the simulator or the engine is wrong."),
    },
    values=_dg,
    order=90,
))
