r"""The setting shared by the claim families, and the one way a path claim is registered.

Setup throughout (``docs/theory/seqproj.md#coverage``): ``x_0 = 1``, ``z_0`` a fixed unit
vector, ``c_x = 1``, ε = 0.5, δ = 0.05, T = 300.

Every probability claim of the package reads an engine experiment named in
:mod:`seqproj.experiments` (:func:`seqproj.events.path_experiment`: one simulator, one
configuration, the four per-trial events) and counts one event per chunk
(:func:`seqproj.events.count_true`); the figures measure the same experiments.  Simulator per
claim: the exact reduced simulation (theory ``#reduced``) wherever it can serve
(sphere/Gaussian columns, adversaries on ``(‖S‖², V)``), with chunks of 1 000 trials; the full
protocol (O(M) per step) otherwise, with chunks of 100 — at the theorem's M the true failure
rate is tiny, so a few hundred trials decide.

Trials are independent: every trial of a chunk draws its own 64-bit key and
all its variates from it (:mod:`seqproj.rng`), the adversary's own randomness
included; nothing random is shared across trials.
"""
from __future__ import annotations

import functools

from proofs_check.engine import ProbabilityClaim, register

from ..events import count_true
from ..experiments import DELTA, EPS, M_THEOREM, T

__all__ = ["EPS", "DELTA", "T", "M_THEOREM", "register_path_claim"]


def register_path_claim(id, statement, source, label, *, experiment, event, delta, role, expected,
                        notes="", quick=None, default=None, params=None, reduce=None):
    """Register ``P(event) ≤ delta`` decided from ``experiment`` (a path experiment of
    :mod:`seqproj.experiments`).

    Budgets default to 4 / 40 chunks (reduced) or 400 / 2 000 trials (full, look-ahead).
    The claim shows the experiment's configuration, ``delta`` and ``event``, and ``params``.
    ``reduce`` replaces the default count of ``event`` (a chunk's statistics → a count).
    """
    config = dict(experiment.params)
    simulator, chunk = config["simulator"], experiment.chunk_size
    reduced = simulator == "reduced"
    options = {k: v for k, v in config.items()
               if k not in ("simulator", "M", "eps", "T", "columns", "adversary")}
    shown = {"M": config["M"], "eps": config["eps"], "delta": delta, "T": config["T"],
             "columns": config["columns"],
             **({"adversary": config["adversary"]} if "adversary" in config else {}),
             "simulator": simulator, "event": event, **options, **(params or {})}
    return register(ProbabilityClaim(
        id=id, statement=statement, source=source, label=label, params=shown,
        experiment=experiment, reduce=reduce or functools.partial(count_true, name=event), delta=delta,
        chunk_size=chunk, quick_budget=quick or (4 * chunk if reduced else 400),
        default_budget=default or (40 * chunk if reduced else 2000), notes=notes, role=role,
        expected=expected))
