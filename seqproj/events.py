r"""What a chunk of trials returns: per-trial events of the simulators, as engine experiments.

* :func:`path_events` — ``n`` runs of one simulator and, per trial, the four
  events of :data:`EVENTS` (time-uniform failure, out of band at ``T``,
  mixture boundary crossed, any-time band left).
* :func:`path_experiment` — the same as an
  :class:`~proofs_check.engine.Experiment`, so the claims of
  :mod:`seqproj.claims` (``experiment=..., reduce=count_true``) and the
  figures that show the same simulation read the same stored chunks.  It
  validates its configuration once (:func:`simulation_setup`: the frozen
  :class:`~seqproj.protocol.SimSetup`) and binds the setup with
  :func:`functools.partial` to the simulator's run function
  (:data:`SETUP_SIMULATORS`) through :func:`setup_events`; no chunk rebuilds it.
* :func:`count_events` — the same run reduced to one count.
* :func:`tail_difference`, :func:`inner_product_events` — the trial functions
  of the tails comparison and of the inner-product corollary.

All follow the engine's convention ``f(rng, n, *, param=...)``: keyword-only
parameters bound with :func:`functools.partial`, so they pickle.
"""
from __future__ import annotations

import functools

import numpy as np

from proofs_check.engine import Experiment, check_bool, check_choice, check_int, shown

from .adversaries import ADVERSARIES, Adversary, adversary as make_adversary
from .columns import FAMILIES, ColumnFamily
from .protocol import CHUNK_MAX, SimSetup, make_setup
from .inner_product import simulate_inner_product
from .lookahead import lookahead_setup, simulate_lookahead, simulate_lookahead_setup
from .reduced import check_reduced_supported, reduced_setup, simulate_reduced, simulate_reduced_setup
from .simulate import simulate_full, simulate_full_setup

__all__ = ["EVENTS", "SIMULATORS", "SETUP_SIMULATORS", "choose_simulator", "check_columns_name",
           "simulation_setup", "simulate_paths", "path_events", "setup_events", "path_experiment",
           "count_true", "count_events", "tail_difference", "inner_product_events"]

#: Events a probability claim may count (attributes of :class:`~seqproj.protocol.PathStats`).
EVENTS = ("failed", "out_at_T", "mix_cross", "anytime_exit")
SIMULATORS = ("auto", "full", "reduced", "lookahead")
#: Each simulator's run function on a validated :class:`~seqproj.protocol.SimSetup`:
#: ``f(rng, n, *, setup, **options) -> PathStats`` (options: ``backend``; ``exact`` for ``"full"``).
SETUP_SIMULATORS = {"full": simulate_full_setup, "reduced": simulate_reduced_setup,
                    "lookahead": simulate_lookahead_setup}


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


def check_columns_name(columns) -> str:
    """``columns`` as a column family *name* (experiment ids and ad-hoc claims name their columns)."""
    if not isinstance(columns, str):
        raise TypeError(f"columns must be a column family name {list(FAMILIES)}, got {shown(columns)}")
    check_choice("columns", columns, FAMILIES)
    return columns


def simulation_setup(simulator, M, eps, T, *, columns="sphere", adversary="constant", **kw) -> SimSetup:
    """The validated, frozen :class:`~seqproj.protocol.SimSetup` of ``simulator`` ∈ ``{"full",
    "reduced", "lookahead"}`` for one configuration: every check a chunk would make, made once,
    the simulator's own included (reduced: rotation-invariant columns, an adversary on
    ``(‖S‖², V)``, ``M ≥ 3``; look-ahead: ``T > M``, and ``adversary`` is ignored).  ``kw`` go to
    :func:`seqproj.protocol.make_setup`."""
    if not isinstance(simulator, str):
        raise TypeError(f"simulator must be one of {list(SETUP_SIMULATORS)}, got {shown(simulator)}")
    check_choice("simulator", simulator, tuple(SETUP_SIMULATORS))
    if simulator == "reduced":
        return reduced_setup(M, eps, T, columns=columns, adversary=adversary, **kw)
    if simulator == "lookahead":
        return lookahead_setup(M, eps, T, columns=columns, **kw)
    return make_setup(M, eps, T, columns=columns, adversary=adversary, **kw)


def _run_options(simulator, options) -> dict:
    """The run options of :data:`SETUP_SIMULATORS` (``backend``; ``exact`` for ``"full"``), checked."""
    allowed = {"full": ("backend", "exact"), "reduced": ("backend",), "lookahead": ()}[simulator]
    for k in options:
        if k not in allowed:
            raise TypeError(f"the {simulator} simulator takes no option {k!r} (its options: {list(allowed)})")
    if "backend" in options:
        if not isinstance(options["backend"], str):
            raise TypeError(f"backend must be 'numba' or 'numpy', got {shown(options['backend'])}")
        check_choice("backend", options["backend"], ("numba", "numpy"))
    if "exact" in options:
        check_bool("exact", options["exact"])
    return dict(options)


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


def setup_events(rng, n, *, simulate, setup, **options) -> dict:
    """Per-trial events of ``simulate(rng, n, setup=setup, **options)`` — a run function of
    :data:`SETUP_SIMULATORS` on a validated ``setup``: ``{event: bool array (n,)}`` for every
    event of :data:`EVENTS` (the chunk function of :func:`path_experiment`)."""
    ps = simulate(rng, n, setup=setup, **options)
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
    adversary's default parameters); ``kw`` go to :func:`simulation_setup`
    (``x0``, ``cx``, ``s``, ``grid``, ``mix_alpha``, …) or are run options
    (``backend``; ``exact`` for ``"full"``).  Everything is checked here, once:
    the chunk function is :func:`setup_events` bound to the validated setup.
    """
    if isinstance(adversary, Adversary):
        raise TypeError("path_experiment takes an adversary name (its id names the adversary)")
    if not isinstance(simulator, str):
        raise TypeError(f"simulator must be one of {list(SIMULATORS[1:])}, got {shown(simulator)}")
    check_choice("simulator", simulator, SIMULATORS[1:])
    check_columns_name(columns)
    if not isinstance(adversary, str):
        raise TypeError(f"adversary must be an adversary name {list(ADVERSARIES)}, got {shown(adversary)}")
    check_choice("adversary", adversary, ADVERSARIES)
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=CHUNK_MAX)
    options = _run_options(simulator, {k: v for k, v in kw.items() if k in ("backend", "exact")})
    setup = simulation_setup(simulator, M, eps, T, columns=columns, adversary=adversary,
                             **{k: v for k, v in kw.items() if k not in options})
    M, eps, T = setup.M, setup.eps, setup.T
    params = {"simulator": simulator, "M": M, "eps": eps, "T": T,
              "columns": columns, **({} if simulator == "lookahead" else {"adversary": adversary}),
              **kw}
    extra = "".join(f".{k}{v:g}" if isinstance(v, float) else f".{k}{v}" for k, v in sorted(kw.items()))
    adv = "lookahead" if simulator == "lookahead" else adversary
    eid = f"seqproj.paths.{simulator}.{columns}.{adv}.M{M}.T{T}.eps{eps:g}{extra}.chunk{chunk_size}"
    fn = functools.partial(setup_events, simulate=SETUP_SIMULATORS[simulator], setup=setup, **options)
    return Experiment(id=eid, fn=fn, chunk_size=chunk_size, params=params)


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
