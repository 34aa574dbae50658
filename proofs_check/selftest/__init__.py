"""The engine's own claims (``selftest.*``): small, real mathematics that
exercises every path of the engine.  Samplers in :mod:`.samplers`, claims in
:mod:`.claims` (loaded through the ``theorycheck.claims`` entry point).

This package exports the mathematics the claims check (``__all__`` below); the
case generators, chunk functions, reductions and the experiment
:data:`~.samplers.DG_DEVIATION` stay in :mod:`.samplers`."""
from .samplers import bernoulli_events, dg_tail_bound, projected_sq_norm_ratio, prove_energy_identity

__all__ = [
    # the Dasgupta–Gupta tail of classical JL for one fixed vector
    "dg_tail_bound", "projected_sq_norm_ratio",
    # the logit-gradient energy identity, proved symbolically
    "prove_energy_identity",
    # a coin of known bias (the calibration of the engine's decisions)
    "bernoulli_events",
]
