"""Linear Ensemble++ / HyperAgent (theory page ``docs/theory/ensemble.md``).

Modules, each named after what it computes:

* :mod:`.index_families` — index ζ and perturbation z laws;
* :mod:`.posterior_factor` — :class:`LinearEnsemblePP`, the incremental
  posterior mean and factor (and the Haar start :func:`haar_rows`);
* :mod:`.batch_posterior` — the batch solutions it must reproduce (ridge
  posterior, classic ensemble sampling);
* :mod:`.hypermodel` — HyperAgent's :class:`LinearHypermodel` trained by (S)GD;
* :mod:`.tracking` — the tracking error ‖Σ^{-1/2}AAᵀΣ^{-1/2} − I‖ and its
  supremum under adaptive play;
* :mod:`.diagnosis` — what went wrong, in words (:func:`diagnose_factor`,
  :func:`checked_cholesky`, :func:`anticoncentration`);
* :mod:`.equivalences`, :mod:`.failure_modes` — random cases of the
  equivalences and of the failure modes (chunk functions of the claims);
* :mod:`.environments`, :mod:`.agents`, :mod:`.cholesky_update`,
  :mod:`.bandits` — linear bandits, agent specifications, the rank-one
  Cholesky kernels of exact TS, the lock-step simulator and runner;
* :mod:`.regret_sweep` — the finite-arm regret sweep as an experiment, and
  the smallest ensemble size within 10% of TS;
* :mod:`.deepsea`, :mod:`.deep_agents` (kernels in :mod:`.deep_kernels`),
  :mod:`.deep_exploration` — DeepSea(N), tabular RLSVI / HyperAgent /
  bootstrapped ensemble / ε-greedy, and the deep-exploration study.

Claims live in :mod:`.claims` (a package by family), loaded by the registry
through the ``theorycheck.claims`` entry point — never imported from here.
"""
from .agents import *  # noqa: F401,F403
from .agents import __all__ as _agents
from .bandits import *  # noqa: F401,F403
from .bandits import __all__ as _bandits
from .batch_posterior import *  # noqa: F401,F403
from .batch_posterior import __all__ as _batch
from .cholesky_update import *  # noqa: F401,F403
from .cholesky_update import __all__ as _cholesky
from .deep_agents import *  # noqa: F401,F403
from .deep_agents import __all__ as _deep_agents
from .deep_exploration import *  # noqa: F401,F403
from .deep_exploration import __all__ as _deep_exploration
from .deepsea import *  # noqa: F401,F403
from .deepsea import __all__ as _deepsea
from .diagnosis import *  # noqa: F401,F403
from .diagnosis import __all__ as _diagnosis
from .environments import *  # noqa: F401,F403
from .environments import __all__ as _environments
from .equivalences import *  # noqa: F401,F403
from .equivalences import __all__ as _equivalences
from .failure_modes import *  # noqa: F401,F403
from .failure_modes import __all__ as _failure_modes
from .hypermodel import *  # noqa: F401,F403
from .hypermodel import __all__ as _hypermodel
from .index_families import *  # noqa: F401,F403
from .index_families import __all__ as _index_families
from .posterior_factor import *  # noqa: F401,F403
from .posterior_factor import __all__ as _posterior_factor
from .regret_sweep import *  # noqa: F401,F403
from .regret_sweep import __all__ as _regret_sweep
from .tracking import *  # noqa: F401,F403
from .tracking import __all__ as _tracking

__all__ = [*_posterior_factor, *_batch, *_hypermodel, *_tracking, *_diagnosis, *_index_families,
           *_equivalences, *_failure_modes, *_environments, *_agents, *_cholesky, *_bandits,
           *_regret_sweep, *_deepsea, *_deep_agents, *_deep_exploration]
