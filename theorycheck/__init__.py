"""theorycheck: check the mathematics of exploration and LLM-RL theory numerically.

The one Python front door.  The distribution ``theorycheck`` has four packages,
one per layer, each importing only the ones below it::

    theorycheck   the top: this facade, the command line, the report, calibration,
                  the claims catalogue, the pytest plugin, the conformance kit
    paper_figs    the figures
    seqproj       sequential random projections; seqproj.ensemble: Ensemble++, HyperAgent, DeepSea
    proofs_check  the verification engine, its substrate and the LLM-RL topics

This module re-exports the public API, imported lazily so ``import theorycheck``
is cheap::

    import theorycheck as tc
    tc.__version__
    [c.id for c in tc.claims("selftest")]
    r = tc.verify("selftest.dg_tail", seed=1)
    r.verdict, r.guarantee, r.to_dict()

    # a bound of your own (see README "Check your own bound")
    box = tc.Box(x=(0.0, 1.0))
    tc.inequality("mine.square", lambda x: x * x, lambda x: x, domain=box)
"""
from __future__ import annotations

import importlib

from proofs_check import DECLARE_NAMES
from proofs_check._version import __version__
from proofs_check.kind_names import kind_class_names

#: public name -> module that defines it
_WHERE = {
    "claims": "proofs_check",
    "verify": "proofs_check",
    **{name: "proofs_check.engine" for name in (
        "Claim", *kind_class_names(), "Source", "Result", "register", "get_claim", "select", "replace",
        "verify_claim", "verify_claims", "Experiment", "measure", "KINDS", "VERDICTS", "GUARANTEES")},
    "build_figures": "paper_figs",
    # declaring your own claims (proofs_check.declare)
    **{name: "proofs_check" for name in DECLARE_NAMES},
    # the conformance kit for a package's own claims module
    "check_claims_module": "theorycheck.testing",
    # property-based tests from claims (Hypothesis)
    **{name: "proofs_check.strategies" for name in (
        "from_domain", "from_claim", "inequality_test", "probability_vectors", "probability_pairs",
        "logits", "tabular_policies", "policy_pairs")},
}

__all__ = ["__version__", *_WHERE]


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'theorycheck' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), "build" if name == "build_figures" else name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
