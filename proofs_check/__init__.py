"""proofs_check: the verification engine and the LLM-RL theory it checks.

Python API mirroring the command line::

    import proofs_check as pc
    pc.claims()                                   # every registered claim
    r = pc.verify("selftest.dg_tail", seed=1)         # a frozen result
    r.verdict, r.to_dict()

The engine is imported on first use, so ``import proofs_check`` is cheap.
"""
from __future__ import annotations

from ._version import __version__
from .kind_names import kind_names

#: Declaring your own claims (:mod:`proofs_check.declare`), imported on first use: one
#: constructor per claim kind (named after it), the domains, and the helpers.
DECLARE_NAMES = (*kind_names(), "reproduce", "load_claims", "Box", "Simplex", "Domain", "ClaimDeclarationError")

__all__ = ["verify", "claims", "__version__", *DECLARE_NAMES]


def __getattr__(name: str):
    if name in DECLARE_NAMES:
        from . import declare

        value = getattr(declare, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'proofs_check' has no attribute {name!r}")


def claims(pattern: str | None = None):
    """Every registered claim (sorted by id), optionally filtered by an id, prefix or glob."""
    from .engine.registry import claims as _claims

    return _claims(pattern)


def verify(claim_id: str, *, budget: int | None = None, seed: int = 0, alpha: float = 0.01,
           executor=None, workers: int | None = None, quick: bool = False, out=None,
           resume: bool = False, method: str = "anytime"):
    """Verify one claim by id; see :func:`proofs_check.engine.verify_claim` (returns a ``Result``)."""
    from .engine.registry import get_claim
    from .engine.verify import verify_claim

    return verify_claim(get_claim(claim_id), budget=budget, seed=seed, alpha=alpha,
                        executor=executor, workers=workers, quick=quick, out=out,
                        resume=resume, method=method)
