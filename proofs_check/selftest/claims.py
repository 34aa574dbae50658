"""Seed claims that exercise every path of the engine with real, small mathematics.

* ``selftest.logit_energy_identity`` — identity, numeric and sympy:
  ``‖e_a − softmax(z)‖² = 1 − 2p_a + Σ_b p_b²`` (theory ``baselines.md#proxy``, CONFIRMED).
* ``selftest.dg_tail`` — probability bound that holds: the Dasgupta–Gupta tail of
  classical JL for one fixed vector (theory ``selftest.md#dg-tail``, CONFIRMED).
* ``selftest.dg_tail_doubled`` — the same tail with its exponent doubled, a false
  claim the engine must refute (a control: power check, ``docs/theory/engine.md#statistics``).

Each claim's function looks its code under test up at call time
(:func:`proofs_check.logits.logit_gradient_energy`, :func:`projected_sq_norm_ratio`),
so a mutation test can replace it (``tests/seqproj/test_mutations.py``).
"""
from __future__ import annotations

import functools

from proofs_check.engine import IdentityClaim, ProbabilityClaim, Source, register
from proofs_check.selftest.samplers import (DG_DEVIATION, DG_EPS, DG_M, count_deviations, dg_tail_bound,
                                            energy_cases, prove_energy_identity)

__all__: list[str] = []


# -- the logit-gradient energy identity --------------------------------------

register(IdentityClaim(
    id="selftest.logit_energy_identity",
    statement="‖e_a − softmax(z)‖² = 1 − 2 p_a + Σ_b p_b² for all logits z and tokens a",
    source=Source(papers=("otb", "logit-dynamics"), theory="selftest.md#energy-identity",
                  note="the identity behind the logit-gradient proxy"),
    label="CONFIRMED",
    params={"max_v": 64, "max_scale": 1e4, "sympy_v": "2..6"},
    fn=functools.partial(energy_cases, max_v=64, max_scale=1e4),
    tol=1e-12, tol_mode="absolute",
    proof=prove_energy_identity,
    chunk_size=100, default_budget=2_000, quick_budget=300,
    role="statement", expected="holds",
    notes="the energy lies in [0, 2], so an absolute tolerance of 1e-12 is a few hundred ulps",
))


# -- the Dasgupta–Gupta tail -----------------------------------------------

register(ProbabilityClaim(
    id="selftest.dg_tail",
    statement="P(|‖Πu‖² − ‖u‖²| > ε‖u‖²) ≤ 2 exp(−(M/2)(ε²/2 − ε³/3)), Π Gaussian, u fixed",
    source=Source(papers=("dasgupta-gupta",), where="Lemma 2.2", theory="selftest.md#dg-tail"),
    label="CONFIRMED",
    params={"M": DG_M, "eps": DG_EPS},
    experiment=DG_DEVIATION, reduce=count_deviations,
    delta=dg_tail_bound(DG_M, DG_EPS),
    chunk_size=1_000, default_budget=1_000_000, quick_budget=100_000,
    role="statement", expected="holds",
))

register(ProbabilityClaim(
    id="selftest.dg_tail_doubled",
    statement="P(|‖Πu‖² − ‖u‖²| > ε‖u‖²) ≤ 2 exp(−M(ε²/2 − ε³/3)), Π Gaussian, u fixed",
    source=Source(theory="selftest.md#dg-tail-doubled",
                  note="a deliberately false variant (exponent doubled): the engine's power check"),
    label="DERIVED",
    params={"M": DG_M, "eps": DG_EPS, "exponent_factor": 2.0},
    experiment=DG_DEVIATION, reduce=count_deviations,
    delta=dg_tail_bound(DG_M, DG_EPS, exponent_factor=2.0),
    chunk_size=1_000, default_budget=1_000_000, quick_budget=100_000,
    role="control", expected="refuted",
    notes="false on purpose (exponent doubled: bound 0.0020 against the true rate 0.0049 = P(|χ²_400/400 − 1| > 0.2)); "
          "the engine must refute it",
))
from . import findings  # noqa: E402,F401  (the headline finding bound to these claims)
