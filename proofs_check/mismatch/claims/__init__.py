"""Claims of the training–inference mismatch topic; ids ``mismatch.*``.

The theory they check: ``docs/theory/mismatch.md``.  One module per family,
registrations only (the case generators, search points and experiments live in
the library modules of :mod:`proofs_check.mismatch`):

* :mod:`.identities` — ``mismatch.identity.*``: every identity, exact by
  enumeration on random pairs from all four generators (``tol_mode="scale"``).
* :mod:`.bounds` — ``mismatch.bound.<key>.<generator>``: every trust-region
  bound under the worst-case reward, searched over policy pairs; float64
  violations re-evaluated in mpmath.
* :mod:`.lemmas` — ``mismatch.lemma.*``: advantage, master inequality, context
  shift, Pinsker, ``D_KL^seq ≤ Tδ``, length-neutral, the ``(4/3)T^{3/2}δ`` form.
* :mod:`.estimators` — ``mismatch.estimator.*``: bias/variance bounds of the
  gradient estimators.
* :mod:`.scaling` — ``mismatch.scaling.*`` of the horizon: i.i.d., random,
  near-one-hot and count-state tilts, and the bounds' exponents.
* :mod:`.staleness` — update size and staleness: ``mismatch.scaling.staleness_*``
  and ``mismatch.staleness.*``.
* :mod:`.trm` — ``mismatch.trm.*``: the library's TRM-Max mask against the
  exact rule, and how often the proxy masks admit a violating response.
* :mod:`.truncation` — ``mismatch.truncation.*``: the MSE-optimal truncation
  ``C* = √(2(1 + χ²))`` and the ``R_max → R_max²`` correction (issue 15).
* :mod:`.ppo_clip` — ``mismatch.ppo_clip.*``: the leak of token-level PPO
  clipping, and token masking leaving the trust region unbounded (issue 15).
* :mod:`.estimators_mc` — ``mismatch.mc.*``: Monte Carlo twins of the exact
  estimator claims, through the engine's sampling path (issue 15).
* :mod:`.scalar` — ``mismatch.scalar.*``: Pinsker (two-point), the step of the
  pm_kl closed form and the truncation constant, proved in ball arithmetic (issue 22).

Importing this package registers the claims; nothing outside it imports it.
"""
# registration order = listing order
from . import identities  # noqa: F401
from . import bounds  # noqa: F401
from . import lemmas  # noqa: F401
from . import estimators  # noqa: F401
from . import scaling  # noqa: F401
from . import staleness  # noqa: F401
from . import trm  # noqa: F401
from . import truncation  # noqa: F401
from . import ppo_clip  # noqa: F401
from . import estimators_mc  # noqa: F401
from . import scalar  # noqa: F401
from . import lr_schedule  # noqa: F401
from . import batch_rule  # noqa: F401
from .. import findings  # noqa: E402,F401  (the headline findings bound to these claims)
