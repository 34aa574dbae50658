"""The verification engine: claims, chunked Monte Carlo, statistics, search,
executors, result files and verdicts.  It knows nothing of any paper.

Names are imported lazily (PEP 562) so that ``theorycheck --help`` and other
light users of one submodule do not pay for SciPy and the statistics.
"""
from __future__ import annotations

import importlib

#: public name -> submodule that defines it
_WHERE = {
    **dict.fromkeys(["EXPECTED", "KINDS", "LABELS", "ROLES", "Claim", "replace"], "claims"),
    **dict.fromkeys(["ComparisonClaim", "IdentityClaim", "InequalityClaim", "ProbabilityClaim",
                     "ScalingClaim"], "kinds"),
    "Source": "source",
    **dict.fromkeys(["EXECUTORS", "make_executor"], "executors"),
    **dict.fromkeys(["Experiment", "Measurement", "clear_measurements", "measure"], "experiment"),
    **dict.fromkeys(["claims", "get_claim", "register", "select"], "registry"),
    **dict.fromkeys(["VERDICTS", "ComparisonResult", "IdentityResult", "InequalityResult",
                     "ProbabilityResult", "Result", "ScalingResult"], "results"),
    **dict.fromkeys(["chunk_rng", "map_chunks"], "runner"),
    "ResultFileError": "store",
    **dict.fromkeys(["verify_claim", "verify_claims"], "verify"),
}

__all__ = [
    "KINDS", "LABELS", "ROLES", "EXPECTED", "VERDICTS", "EXECUTORS", "Source",
    "Claim", "ProbabilityClaim", "IdentityClaim", "InequalityClaim", "ScalingClaim", "ComparisonClaim",
    "Result", "ProbabilityResult", "IdentityResult", "InequalityResult", "ScalingResult", "ComparisonResult",
    "ResultFileError", "register", "claims", "get_claim", "select", "replace",
    "verify_claim", "verify_claims", "map_chunks", "chunk_rng", "make_executor",
    "Experiment", "Measurement", "measure", "clear_measurements",
]


# ``claims`` is both a submodule and the registry's function: bind the function
# eagerly (registry and claims are light), so importing the submodule later
# cannot shadow it.
from .registry import claims  # noqa: E402


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value              # later lookups skip __getattr__
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
