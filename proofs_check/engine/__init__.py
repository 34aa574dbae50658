"""The verification engine: claims, chunked Monte Carlo, statistics, search,
executors, result files and verdicts.  It knows nothing of any paper."""
from .claims import EXPECTED, KINDS, LABELS, ROLES, Claim, replace
from .kinds import ComparisonClaim, IdentityClaim, InequalityClaim, ProbabilityClaim, ScalingClaim
from .source import Source
from .executors import EXECUTORS, make_executor
from .experiment import Experiment, Measurement, clear_measurements, measure
from .registry import claims, get_claim, register, select
from .results import (VERDICTS, ComparisonResult, IdentityResult, InequalityResult,
                      ProbabilityResult, Result, ScalingResult)
from .runner import chunk_rng, map_chunks
from .store import ResultFileError
from .verify import verify_claim, verify_claims

__all__ = [
    "KINDS", "LABELS", "ROLES", "EXPECTED", "VERDICTS", "EXECUTORS", "Source",
    "Claim", "ProbabilityClaim", "IdentityClaim", "InequalityClaim", "ScalingClaim", "ComparisonClaim",
    "Result", "ProbabilityResult", "IdentityResult", "InequalityResult", "ScalingResult", "ComparisonResult",
    "ResultFileError", "register", "claims", "get_claim", "select", "replace",
    "verify_claim", "verify_claims", "map_chunks", "chunk_rng", "make_executor",
    "Experiment", "Measurement", "measure", "clear_measurements",
]
