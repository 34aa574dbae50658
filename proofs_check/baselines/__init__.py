"""The optimal token baseline and its relatives (spec ``baselines.md``):
baselines, group estimators and the exact population model (:mod:`.core`),
the divergence-augmented recursion (:mod:`.dapo`) and the toy problem
(:mod:`.toy`).  Claims live in :mod:`.claims`, loaded by the registry through
the ``theorycheck.claims`` entry point, not here.
"""
from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all

__all__ = list(_core_all)
