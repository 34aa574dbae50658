"""Claims about linear Ensemble++ / HyperAgent, registered at import, one module per family.

Ids start with ``ensemble.``; the mathematics is restated on the theory page
``docs/theory/ensemble.md``:

* :mod:`.equivalences` — ``ensemble.equivalence.*``: the incremental factor
  equals the ridge posterior, classic ensemble sampling and the trained
  HyperAgent hypermodel (identity claims);
* :mod:`.tracking` — ``ensemble.tracking.*``: covariance tracking under
  adaptive play (scaling and comparison claims reading the tracking
  experiments);
* :mod:`.failure_detectors` — ``ensemble.failure.*``: each failure mode
  detected with a diagnosis (controls);
* :mod:`.regret` — ``ensemble.regret.*``: the finite-arm regret sweep (one
  stored experiment per d read by every per-family claim and by the regret
  figures) and the smallest-M law;
* :mod:`.deep_exploration` — ``ensemble.deepsea.*``: HyperAgent's deep
  exploration on DeepSea against exact RLSVI, with the ε-greedy control.

This package is loaded by the registry through the ``theorycheck.claims``
entry point; nothing outside it imports it.  Every function a claim runs lives
in a library module of :mod:`seqproj.ensemble`.
"""
from . import deep_exploration, equivalences, failure_detectors, regret, tracking  # noqa: F401

__all__: list[str] = []
from .. import findings  # noqa: E402,F401  (the headline findings bound to these claims)
