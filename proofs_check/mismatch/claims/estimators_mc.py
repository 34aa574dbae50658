"""``mismatch.mc.*`` — Monte Carlo twins of the exact estimator claims (issue 15).

The exact claims (``mismatch.identity.seq_is_unbiased``, ``mismatch.identity.mis_bias``,
``mismatch.estimator.*``) never sample.  These claims sample the same estimators from per-token
log-probs through the engine's chunked path (one stored experiment,
:data:`proofs_check.mismatch.experiments.ESTIMATOR_MC`), on one fixed pair whose exact moments
set every threshold before any sample is drawn; so each expected verdict is known and the claims
check the sampling path (seeding, chunking, the interval/betting decisions) against enumeration.
Equalities are checked as equivalences: two one-sided claims with a margin fixed in advance.
"""
from __future__ import annotations

import functools

import numpy as np

from proofs_check.engine import ComparisonClaim, register
from proofs_check.mismatch.estimator_mc import exact_targets, projected_error, squared_error_gap
from proofs_check.mismatch.experiments import ESTIMATOR_MC, MC_CASE

from ._common import ours, paper

_TG = exact_targets()
_BN = float(np.linalg.norm(_TG.b_naive))
_BM = float(np.linalg.norm(_TG.b_mis_formula))
_G = float(np.linalg.norm(_TG.g))
#: almost-sure ranges of the projected errors (|⟨e, ĝ⟩| ≤ w_max K): naive w ≤ 1, MIS w ≤ C.
_NAIVE_BOUNDS = (-(_TG.K + _G), _TG.K + _G)
_MIS_BOUNDS = (-(MC_CASE["C"] * _TG.K + _G + _BM), MC_CASE["C"] * _TG.K + _G + _BM)
#: issue 21: sequence IS weights ρ(y) ≤ ρ_max (the exact maximum over the pair's support), so
#: |⟨e, ρ f − g⟩| ≤ ρ_max K + ‖g‖; and ‖ĝ − g‖ ≤ w_max K + ‖g‖ for the squared-error gap
#: (TIS w ≤ C, IS w ≤ ρ_max).  Widened by 1e-9 (relative) for the float path of ρ.
_PAD = 1.0 + 1e-9
_IS_BOUNDS = (-(_TG.rho_max * _TG.K + _G) * _PAD, (_TG.rho_max * _TG.K + _G) * _PAD)
_MSE_GAP_BOUNDS = (-((_TG.rho_max * _TG.K + _G) ** 2) * _PAD, (MC_CASE["C"] * _TG.K + _G) ** 2 * _PAD)
_COMMON = dict(experiment=ESTIMATOR_MC, chunk_size=ESTIMATOR_MC.chunk_size, default_budget=20_000,
               quick_budget=1_000, version=1)
_P = {**MC_CASE, "sampling": "y ∼ μ, per-token log-probs (estimator_samples)"}
_NOTE = ("Fixed pair MC_CASE (exact: ‖b_naive‖ = {bn:.4f}, ‖b_MIS‖ = {bm:.4f}, ‖g‖ = {g:.4f}, "
         "K = {K:.4f}, ρ_max = {rm:.2f}); the threshold is fixed from these exact values.")
_NOTE = _NOTE.format(bn=_BN, bm=_BM, g=_G, K=_TG.K, rm=_TG.rho_max)

register(ComparisonClaim(
    id="mismatch.mc.naive_biased",
    statement="sampled: the naive estimator f(y), y ∼ μ, is biased along its exact bias direction e: "
              "E⟨e, ĝ_naive − g⟩ > ½‖b_naive‖",
    source=paper("speed-kills", "estimators-mc", note="the naive estimator's bias, sampled"),
    label="CONFIRMED", params={**_P, "threshold": "½‖b_naive‖"},
    reduce=functools.partial(projected_error, name="naive", direction="naive_bias"),
    threshold=0.5 * _BN, alternative="greater", bounds=_NAIVE_BOUNDS, role="statement",
    expected="holds", notes=_NOTE + " Exact mean ‖b_naive‖; bounded: anytime-valid betting.", **_COMMON))

for _side, _alt, _thr in (("upper", "less", 0.5 * _BN), ("lower", "greater", -0.5 * _BN)):
    register(ComparisonClaim(
        id=f"mismatch.mc.seq_is_unbiased.{_side}",
        statement=f"sampled: sequence IS ρ(y) f(y) is unbiased to within ½‖b_naive‖ along e "
                  f"({_side} side): E⟨e, ĝ_IS − g⟩ {'<' if _alt == 'less' else '>'} "
                  f"{'+' if _alt == 'less' else '−'}½‖b_naive‖",
        source=paper("speed-kills", "estimators-mc", note="Monte Carlo twin of mismatch.identity.seq_is_unbiased"),
        label="CONFIRMED", params={**_P, "margin": "½‖b_naive‖"},
        reduce=functools.partial(projected_error, name="seq_is", direction="naive_bias"),
        threshold=_thr, alternative=_alt, bounds=_IS_BOUNDS, role="statement", expected="holds",
        notes=_NOTE + " Exact mean 0; one side of an equivalence test.  Bounded (issue 21): IS weights "
                      "≤ ρ_max, so |⟨e, ĝ_IS − g⟩| ≤ ρ_max K + ‖g‖; anytime-valid betting (version 1: "
                      "Hall's interval, asymptotic).", **{**_COMMON, "version": 2}))
    register(ComparisonClaim(
        id=f"mismatch.mc.mis_bias.{_side}",
        statement=f"sampled: the bias of sequence MIS along e' equals that of −E_π[f 1{{ρ > C}}] to "
                  f"within ½‖b_formula‖ ({_side} side)",
        source=paper("speed-kills", "estimators-mc", note="Monte Carlo twin of mismatch.identity.mis_bias"),
        label="CONFIRMED", params={**_P, "margin": "½‖E_π[f 1{ρ > C}]‖"},
        reduce=functools.partial(projected_error, name="seq_mis", direction="mis_formula",
                                 offset="mis_formula"),
        threshold=0.5 * _BM if _alt == "less" else -0.5 * _BM, alternative=_alt,
        bounds=_MIS_BOUNDS, role="statement", expected="holds",
        notes=_NOTE + " Exact mean 0; one side of an equivalence test; bounded (MIS weights ≤ C): "
                      "anytime-valid betting.", **_COMMON))

register(ComparisonClaim(
    id="mismatch.mc.tis_mse_below_is",
    statement="sampled: sequence TIS (C = 2) has smaller per-sample MSE than sequence IS: "
              "E[‖ĝ_TIS − g‖² − ‖ĝ_IS − g‖²] < 0",
    source=ours("estimators-mc", "our Monte Carlo twin of the exact MSEs of the estimator claims on the "
                                 "fixed pair (exact: {:.3f} vs {:.3f})".format(
                                     _TG.moments["seq_tis"].mse, _TG.moments["seq_is"].mse)),
    label="DERIVED", params=_P,
    reduce=functools.partial(squared_error_gap, a="seq_tis", b="seq_is"),
    threshold=0.0, alternative="less", bounds=_MSE_GAP_BOUNDS, role="statement", expected="holds",
    notes=_NOTE + " Exact mean MSE_TIS − MSE_IS < 0; heavy right tail of IS errors.  Bounded (issue "
                  "21): ‖ĝ_TIS − g‖ ≤ C K + ‖g‖ and ‖ĝ_IS − g‖ ≤ ρ_max K + ‖g‖, so the gap lies in "
                  "[−(ρ_max K + ‖g‖)², (C K + ‖g‖)²]; anytime-valid betting (version 1: Hall's "
                  "interval, asymptotic).", **{**_COMMON, "version": 2}))
