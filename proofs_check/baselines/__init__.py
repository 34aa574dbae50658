"""Baselines for REINFORCE on sequences: the optimal token baseline (OTB), its
relatives, logit dynamics and divergence augmentation (theory page
``docs/theory/baselines.md``).

Modules, by mathematical object:

* :mod:`.otb` — the OTB group estimator on padded batches: fused numba kernel,
  NumPy reference, per-token loop;
* :mod:`.group` — group mean, leave-one-out, the group estimate of ``b*``;
* :mod:`.population` — the exact population model (every response enumerated)
  and the per-position baselines' exact variances; :mod:`.population_mp` its
  mpmath twin;
* :mod:`.moments` — exact finite-group moments (bias, MSE) by enumerating
  ``N``-tuples;
* :mod:`.proxy` — the logit-gradient proxy against its definition and the true
  energy; :mod:`.logit_dynamics` — one policy-gradient step on the logits;
* :mod:`.instances` — small random instances as flat vectors (worst-case search
  domains); :mod:`.ragged` — random ragged batches;
* :mod:`.dapo` — the trajectory KL, its gradient and the truncated-IS
  accumulation of a per-step divergence;
* :mod:`.toy` — the toy problem (a counting task trained by REINFORCE);
  :mod:`.toy_sweeps` — the toy over many seeds;
* :mod:`.experiments` — the experiments that claims and figures share.

Claims live in :mod:`.claims` (a package, one module per family), loaded by the
registry through the ``theorycheck.claims`` entry point, never from here.
"""
from . import dapo, experiments, group, instances, logit_dynamics, moments, otb, population, population_mp
from . import proxy, ragged, toy, toy_sweeps
from .dapo import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403
from .group import *  # noqa: F401,F403
from .instances import *  # noqa: F401,F403
from .logit_dynamics import *  # noqa: F401,F403
from .moments import *  # noqa: F401,F403
from .otb import *  # noqa: F401,F403
from .population import *  # noqa: F401,F403
from .population_mp import *  # noqa: F401,F403
from .proxy import *  # noqa: F401,F403
from .ragged import *  # noqa: F401,F403
from .toy import *  # noqa: F401,F403
from .toy_sweeps import *  # noqa: F401,F403

__all__ = [name for mod in (otb, group, population, population_mp, moments, proxy, logit_dynamics, instances,
                            ragged, dapo, toy, toy_sweeps, experiments)
           for name in mod.__all__]
