"""The experiments that the claims and the figures of this topic share, named once.

A claim of :mod:`seqproj.claims` reads one of these
:class:`~proofs_check.engine.Experiment` objects (``experiment=...,
reduce=count_true``) and a figure of ``paper_figs/seqproj_figs.py`` measures
the same object (:func:`proofs_check.engine.measure`): same fingerprint, so the
figure plots the very chunks that decided the claim.  Both build them here, with
one set of keywords; ``tests/test_figure_experiments.py`` checks the figures
that say so (``chunks_of=`` of :func:`paper_figs.figure`).

* :data:`EPS`, :data:`DELTA`, :data:`T` — the setting of the package (theory
  ``#coverage``: ε = 0.5, δ = 0.05, T = 300, ``x_0 = 1``, ``c_x = 1``), and
  :data:`M_THEOREM`, the theorem's dimension there (836).
* :data:`CHUNK` — trials per chunk of each simulator: the exact reduced
  simulation (O(T) per trial) 1 000, the full protocol (O(T·M) per trial) 100.
  :func:`seqproj.check_coverage` and :func:`seqproj.empirical_min_dim` use them too.
* :func:`band_experiment` — the path experiment of one configuration
  (:func:`seqproj.events.path_experiment`), by default in the setting, with
  the simulator's chunk size: the coverage, control, efficiency, mixture and
  any-time claims; the figure ``seqproj_failure_vs_M``.
* :func:`fixed_time_experiment` — the fixed-time family (T = :data:`FIXED_TIME_T`,
  chunks of :data:`FIXED_TIME_CHUNK`): the ``seqproj.fixed_time.*`` claims; the
  figure ``seqproj_fixed_vs_uniform``.
* :func:`tails_experiment` — the tails family (constant design, chunks of
  :data:`TAILS_CHUNK` for both simulators, M = :data:`TAILS_M` for the claims):
  the ``seqproj.tails.*`` claims (and the mixture claims of the constant design);
  the figure ``seqproj_tails``.
"""
from __future__ import annotations

from proofs_check.engine import Experiment

from .bounds import sequential_jl_min_dim
from .events import choose_simulator, path_experiment

__all__ = ["EPS", "DELTA", "T", "M_THEOREM", "CHUNK", "FIXED_TIME_T", "FIXED_TIME_CHUNK", "TAILS_M",
           "TAILS_CHUNK", "band_experiment", "fixed_time_experiment", "tails_experiment"]

#: The setting: band half-width ε, failure probability δ, horizon T.
EPS, DELTA, T = 0.5, 0.05, 300
#: The theorem's dimension at (ε, δ, T) = (0.5, 0.05, 300): 836.
M_THEOREM = int(sequential_jl_min_dim(EPS, DELTA, T))
#: Trials per chunk of each simulator (exact reduced: O(T) per trial; full: O(T·M)).
CHUNK = {"reduced": 1000, "full": 100}

#: The fixed-time family: horizon and trials per chunk (its claims need 10⁴–10⁶ trials).
FIXED_TIME_T, FIXED_TIME_CHUNK = 500, 10_000
#: The tails family: the claims' dimension, and trials per chunk for every column family.
TAILS_M, TAILS_CHUNK = 128, 1000


def band_experiment(M, columns="sphere", adversary="constant", *, simulator=None, eps=EPS, T=T,
                    chunk_size=None, **kw) -> Experiment:
    """The path experiment (:func:`seqproj.events.path_experiment`) of one configuration:
    ``simulator`` defaults to :func:`~seqproj.events.choose_simulator` (the exact reduced
    simulation wherever it can serve), ``chunk_size`` to :data:`CHUNK` of the simulator;
    ``kw`` go to :func:`~seqproj.events.path_experiment`."""
    simulator = choose_simulator(columns, adversary) if simulator is None else simulator
    chunk_size = CHUNK[simulator] if chunk_size is None else chunk_size
    return path_experiment(simulator=simulator, M=M, eps=eps, T=T, columns=columns, adversary=adversary,
                           chunk_size=chunk_size, **kw)


def fixed_time_experiment(M, columns="sphere", adversary="stopping") -> Experiment:
    """The fixed-time family at dimension ``M``: reduced simulation, ε = :data:`EPS`,
    T = :data:`FIXED_TIME_T`, chunks of :data:`FIXED_TIME_CHUNK`."""
    return band_experiment(M, columns, adversary, simulator="reduced", T=FIXED_TIME_T,
                           chunk_size=FIXED_TIME_CHUNK)


def tails_experiment(columns, M=TAILS_M) -> Experiment:
    """The tails family for ``columns`` at dimension ``M`` (default :data:`TAILS_M`): constant
    design, the setting's ε and T, chunks of :data:`TAILS_CHUNK` whatever the simulator."""
    return band_experiment(M, columns, "constant", chunk_size=TAILS_CHUNK)
