r"""What a chunk of trials returns: per-trial events of the simulators, as engine experiments.

* :func:`path_events` — ``fn(rng, n)`` of an engine experiment: ``n`` runs of
  one simulator and, per trial, the four events of :data:`EVENTS`
  (time-uniform failure, out of band at ``T``, mixture boundary crossed,
  any-time band left).  :func:`path_experiment` wraps it in an
  :class:`~proofs_check.engine.experiment.Experiment`, so the claims of
  :mod:`seqproj.claims` (``experiment=..., reduce=count_true``) and the
  figures that show the same simulation read the same stored chunks.
* :func:`count_events` — the same run reduced to one count (the trial
  function of :func:`seqproj.check.check_coverage`).
* :func:`tail_difference`, :func:`inner_product_events` — the trial functions
  of the tails comparison and of the inner-product corollary.

All follow the engine's convention ``f(rng, n, *, param=...)``: keyword-only
parameters bound with :func:`functools.partial`, so they pickle.
"""
from __future__ import annotations

import functools

import numpy as np

from proofs_check.engine.experiment import Experiment
from proofs_check.engine.validate import check_choice, check_int, check_real, shown

from .adversaries import ADVERSARIES, Adversary, adversary as make_adversary
from .columns import FAMILIES, ColumnFamily
from .protocol import CHUNK_MAX, M_MAX, T_MAX, make_setup
from .inner_product import simulate_inner_product
from .lookahead import simulate_lookahead
from .reduced import check_reduced_supported, simulate_reduced
from .simulate import simulate_full

__all__ = ["EVENTS", "SIMULATORS", "choose_simulator", "simulate_paths", "path_events",
           "path_experiment", "count_true", "count_events", "tail_difference",
           "inner_product_events"]

#: Events a probability claim may count (attributes of :class:`~seqproj.protocol.PathStats`).
EVENTS = ("failed", "out_at_T", "mix_cross", "anytime_exit")
SIMULATORS = ("auto", "full", "reduced", "lookahead")


def choose_simulator(columns: str, adversary, simulator: str = "auto") -> str:
    """``"reduced"`` when the reduced simulation can serve (sphere/Gaussian, adversary on ``(‖S‖², V)``), else ``"full"``."""
    if not isinstance(simulator, str):
        raise TypeError(f"simulator must be one of {list(SIMULATORS)}, got {shown(simulator)}")
    check_choice("simulator", simulator, SIMULATORS)
    if isinstance(columns, str):
        check_choice("columns", columns, FAMILIES)
    elif not isinstance(columns, ColumnFamily):
        raise TypeError(f"columns must be a column family name {list(FAMILIES)} or a ColumnFamily, "
                        f"got {shown(columns)}")
    if isinstance(adversary, str):
        check_choice("adversary", adversary, ADVERSARIES)
    elif not isinstance(adversary, Adversary):
        raise TypeError(f"adversary must be a name {list(ADVERSARIES)} or an Adversary, "
                        f"got {shown(adversary)}")
    if simulator != "auto":
        return simulator
    try:
        check_reduced_supported(columns, adversary)
        return "reduced"
    except ValueError:
        return "full"


def simulate_paths(rng, n, *, simulator="reduced", M, eps, T, columns="sphere", adversary="constant",
                   adversary_kw=None, **kw):
    """:class:`~seqproj.protocol.PathStats` of ``n`` runs of ``simulator`` ∈ ``{"full",
    "reduced", "lookahead"}``; the remaining keywords go to the simulator."""
    adv = make_adversary(adversary, **(adversary_kw or {})) if isinstance(adversary, str) else adversary
    if simulator == "reduced":
        return simulate_reduced(M, eps, T, n, rng, columns=columns, adversary=adv, **kw)
    if simulator == "full":
        return simulate_full(M, eps, T, n, rng, columns=columns, adversary=adv, **kw)
    if simulator == "lookahead":
        return simulate_lookahead(M, eps, T, n, rng, columns=columns, **kw)
    raise ValueError(f"simulator must be one of ['full', 'lookahead', 'reduced'], got {simulator!r}")


def path_events(rng, n, **kw) -> dict:
    """Per-trial events of :func:`simulate_paths` (same keywords): ``{event: bool array (n,)}``
    for every event of :data:`EVENTS`."""
    ps = simulate_paths(rng, n, **kw)
    return {e: np.asarray(getattr(ps, e), dtype=bool) for e in EVENTS}


def count_events(rng, n, *, event="failed", **kw) -> int:
    """Run ``n`` trials of :func:`simulate_paths` (same keywords) and count those in which
    ``event`` ∈ :data:`EVENTS` happened."""
    check_choice("event", event, EVENTS)
    return int(np.count_nonzero(getattr(simulate_paths(rng, n, **kw), event)))


def count_true(stats, *, name) -> int:
    """A claim's ``reduce``: the number of trials of a chunk in which event ``name`` happened."""
    if not isinstance(name, str):
        raise TypeError(f"name must be an event name {list(EVENTS)}, got {shown(name)}")
    check_choice("name", name, EVENTS)
    if not hasattr(stats, "keys") or name not in stats:
        raise TypeError(f"stats must be a mapping of event names to boolean arrays (as returned by "
                        f"path_events) containing {name!r}, got {shown(stats)}")
    return int(np.count_nonzero(stats[name]))


def path_experiment(*, simulator, M, eps, T, columns="sphere", adversary="constant",
                    chunk_size, **kw) -> Experiment:
    """The engine experiment of :func:`path_events` for one configuration.

    Its id names the configuration (``seqproj.paths.<simulator>.<columns>.<adversary>.M…``);
    a claim and a figure that build it with the same arguments get the same
    fingerprint and so share its chunks.  ``adversary`` is a name (the
    adversary's default parameters); ``kw`` go to the simulator.
    """
    if isinstance(adversary, Adversary):
        raise TypeError("path_experiment takes an adversary name (its id names the adversary)")
    if not isinstance(simulator, str):
        raise TypeError(f"simulator must be one of {list(SIMULATORS[1:])}, got {shown(simulator)}")
    check_choice("simulator", simulator, SIMULATORS[1:])
    if not isinstance(columns, str):
        raise TypeError(f"columns must be a column family name {list(FAMILIES)}, got {shown(columns)}")
    check_choice("columns", columns, FAMILIES)
    if not isinstance(adversary, str):
        raise TypeError(f"adversary must be an adversary name {list(ADVERSARIES)}, got {shown(adversary)}")
    check_choice("adversary", adversary, ADVERSARIES)
    M = check_int("M", M, lo=1, hi=M_MAX)
    eps = check_real("eps", eps, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    T = check_int("T", T, lo=1, hi=T_MAX)
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=CHUNK_MAX)
    # every other keyword is checked now, not in a worker: build the setup once
    setup_kw = {k: v for k, v in kw.items() if k not in ("backend", "exact")}
    look = simulator == "lookahead"
    make_setup(M, eps, T, columns=columns, adversary="lookahead" if look else adversary,
               allow_lookahead=look, **setup_kw)
    if simulator == "reduced":
        check_reduced_supported(columns, adversary)
        check_int("M", M, lo=3)
    params = {"simulator": simulator, "M": int(M), "eps": float(eps), "T": int(T),
              "columns": columns, **({} if simulator == "lookahead" else {"adversary": adversary}),
              **kw}
    extra = "".join(f".{k}{v:g}" if isinstance(v, float) else f".{k}{v}" for k, v in sorted(kw.items()))
    adv = "lookahead" if simulator == "lookahead" else adversary
    eid = f"seqproj.paths.{simulator}.{columns}.{adv}.M{int(M)}.T{int(T)}.eps{float(eps):g}{extra}" \
          f".chunk{int(chunk_size)}"
    return Experiment(id=eid, fn=functools.partial(path_events, **params), chunk_size=int(chunk_size),
                      params=params)


def tail_difference(rng, n, *, M, eps, T, family):
    """Differences ``1[family fails] − 1[sphere fails]`` over ``n`` independent pairs (check E).

    The two indicators of a pair come from independent trials (the family by the
    full simulator, the sphere by the exact reduced one); each difference lies in
    ``{−1, 0, 1}``.
    """
    a = simulate_full(M, eps, T, n, rng, columns=family).failed.astype(float)
    b = simulate_reduced(M, eps, T, n, rng, columns="sphere").failed.astype(float)
    return a - b


def inner_product_events(rng, n, *, M, eps, T, columns="sphere", x0=1.0, y0=0.0):
    """Trials in which the inner-product band is left
    (:func:`seqproj.inner_product.simulate_inner_product`)."""
    return int(np.count_nonzero(simulate_inner_product(M, eps, T, n, rng, columns=columns, x0=x0,
                                                       y0=y0)))
