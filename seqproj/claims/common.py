r"""The setting shared by the claim families, and the one way a path claim is registered.

Setup throughout (``docs/theory/seqproj.md#coverage``): ``x_0 = 1``, ``z_0`` a fixed unit
vector, ``c_x = 1``, ε = 0.5, δ = 0.05, T = 300.

Every probability claim of the package reads an engine experiment
(:func:`seqproj.events.path_experiment`: one simulator, one configuration,
the four per-trial events) and counts one event per chunk
(:func:`seqproj.events.count_true`).  Simulator per claim: the exact reduced
simulation (theory ``#reduced``) wherever it can serve (sphere/Gaussian columns, adversaries on
``(‖S‖², V)``), with chunks of 1 000 trials; the full protocol (O(M) per step)
otherwise, with chunks of 100 — at the theorem's M the true failure rate is
tiny, so a few hundred trials decide.

Trials are independent: every trial of a chunk draws its own 64-bit key and
all its variates from it (:mod:`seqproj.rng`), the adversary's own randomness
included; nothing random is shared across trials.
"""
from __future__ import annotations

import functools

from proofs_check.engine import ProbabilityClaim
from proofs_check.engine.registry import register

from ..bounds import sequential_jl_min_dim
from ..events import count_true, path_experiment

__all__ = ["EPS", "DELTA", "T", "M_THEOREM", "register_path_claim"]

EPS, DELTA, T = 0.5, 0.05, 300
#: the theorem's dimension at (ε, δ, T) = (0.5, 0.05, 300): 836
M_THEOREM = int(sequential_jl_min_dim(EPS, DELTA, T))


def register_path_claim(id, statement, source, label, *, event, delta, simulator, M, eps=EPS, T=T,
                        columns="sphere", adversary="constant", role, expected, notes="", chunk=None,
                        quick=None, default=None, params=None, sim_kw=None):
    """Register ``P(event) ≤ delta`` decided from :func:`path_experiment` of this configuration.

    Budgets default to 4 / 40 chunks (reduced) or 400 / 2 000 trials (full).
    ``params`` are shown with the claim in addition to the configuration.
    """
    reduced = simulator == "reduced"
    chunk = chunk or (1000 if reduced else 100)
    sim_kw = dict(sim_kw or {})
    exp = path_experiment(simulator=simulator, M=M, eps=eps, T=T, columns=columns,
                          adversary=adversary, chunk_size=chunk, **sim_kw)
    shown = {"M": M, "eps": eps, "delta": delta, "T": T, "columns": columns,
             **({} if simulator == "lookahead" else {"adversary": adversary}),
             "simulator": simulator, "event": event, **sim_kw, **(params or {})}
    return register(ProbabilityClaim(
        id=id, statement=statement, source=source, label=label, params=shown,
        experiment=exp, reduce=functools.partial(count_true, name=event), delta=delta,
        chunk_size=chunk, quick_budget=quick or (4 * chunk if reduced else 400),
        default_budget=default or (40 * chunk if reduced else 2000), notes=notes, role=role,
        expected=expected))
