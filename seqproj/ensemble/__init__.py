"""Linear Ensemble++ / HyperAgent (spec ``ensemble.md``): the incremental
posterior factor and hypermodel (:mod:`.core`), index and perturbation
families (:mod:`.index_families`), linear bandits with Thompson sampling and
Ensemble++ agents (:mod:`.bandits`).  Claims live in :mod:`.claims`, loaded
by the registry through the ``theorycheck.claims`` entry point, not here.
"""
from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all

__all__ = list(_core_all)
