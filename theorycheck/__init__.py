"""theorycheck: check the mathematics of exploration and LLM-RL theory numerically.

The distribution is called ``theorycheck``; its code lives in the packages
``proofs_check`` (the engine and the LLM-RL theory), ``seqproj`` (sequential
random projections and Ensemble++) and ``paper_figs`` (the figures).  This
module is the front door: it re-exports the public API, imported lazily so
``import theorycheck`` is cheap::

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

from proofs_check._version import __version__

#: public name -> module that defines it
_WHERE = {
    "claims": "proofs_check",
    "verify": "proofs_check",
    **{name: "proofs_check.engine" for name in (
        "Claim", "ProbabilityClaim", "ComparisonClaim", "ScalingClaim", "InequalityClaim",
        "IdentityClaim", "Source", "Result", "register", "get_claim", "select", "replace",
        "verify_claim", "verify_claims", "Experiment", "measure", "KINDS", "VERDICTS")},
    "build_figures": "paper_figs",
    # declaring your own claims (proofs_check.declare)
    **{name: "proofs_check" for name in (
        "probability", "inequality", "identity", "comparison", "scaling", "reproduce", "load_claims",
        "Box", "Simplex", "Domain", "ClaimDeclarationError")},
    # property-based tests from claims (Hypothesis)
    **{name: "proofs_check.strategies" for name in ("from_domain", "from_claim", "inequality_test")},
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
