r"""One-call checks for users: coverage of the sequential JL theorem, and the empirical M*.

* :func:`check_coverage` — decide ``P(∃ t ≤ T: ‖S_t‖²/V_t ∉ [1−ε, 1+ε]) ≤ δ``
  at a given ``M`` through the verification engine (exact and anytime-valid
  statistics, seeded, reproducible on every executor).
* :func:`empirical_min_dim` — bracket the empirical ``M*(ε, δ, T)`` at which
  the time-uniform failure probability equals δ, with its uncertainty, and the
  efficiency ratio ``M_theorem / M*``.

Both ask only for the time-uniform failure flag, so both run the first-exit kernels
(:func:`seqproj.reduced.exit_times_reduced`, :func:`seqproj.simulate.exit_times_full`: no path
statistics, each trial stops at its first exit; same random stream as the path-statistics
simulators, so the counts equal theirs bit for bit), under the engine's seeding, on all
cores by default (the engine's ``"auto"`` executor; results identical on every executor).

Validate once: the arguments are checked at the entry; the frozen
:class:`~seqproj.protocol.SimSetup` of a configuration
(:func:`seqproj.events.simulation_setup`) is built once and bound with
:func:`functools.partial` to the first-exit run function (:data:`EXIT_TIMES`), so no chunk
re-validates or rebuilds it.

Theory: ``docs/theory/seqproj.md#coverage``, ``#efficiency``.
"""
from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass

import numpy as np

from proofs_check.engine import (Experiment, ProbabilityClaim, Source, check_alpha, check_budget, check_int,
                                 check_open_unit, check_real, check_seed, clopper_pearson, measure,
                                 verify_claim)

from .adversaries import adversary as make_adversary, require_predictable
from .bounds import sequential_jl_min_dim
from .events import check_columns_name, choose_simulator, simulation_setup
from .experiments import CHUNK
from .limits import CHUNK_MAX, M_MAX, N_MAX, T_MAX
from .reduced import exit_times_reduced, exit_times_reduced_setup
from .simulate import exit_times_full, exit_times_full_setup

__all__ = ["check_coverage", "empirical_min_dim", "MinDimResult", "failure_flags", "count_failures",
           "failure_experiment", "EXIT_TIMES", "setup_failure_flags", "setup_failure_count"]


def failure_flags(rng, n, *, simulator, M, eps, T, columns="sphere", adversary="constant", x0=1.0,
                  cx=1.0) -> dict:
    """``{"failed": bool array (n,)}``: did the ratio ``‖S_t‖²/V_t`` leave ``[1−ε, 1+ε]`` at some
    ``t ≤ T``, from the first-exit kernels of ``simulator`` ∈ ``{"reduced", "full"}``
    (an engine experiment's ``fn(rng, n)``)."""
    if simulator == "reduced":
        et = exit_times_reduced(M, eps, T, n, rng, columns=columns, adversary=adversary, x0=x0, cx=cx)
    elif simulator == "full":
        et = exit_times_full(M, eps, T, n, rng, columns=columns, adversary=adversary, x0=x0, cx=cx)
    else:
        raise ValueError(f"simulator must be one of ['full', 'reduced'], got {simulator!r}")
    return {"failed": et <= T}


def count_failures(rng, n, **kw) -> int:
    """The number of failures among ``n`` trials of :func:`failure_flags` (same keywords)."""
    return int(np.count_nonzero(failure_flags(rng, n, **kw)["failed"]))


#: The first-exit run function of each simulator on a validated
#: :class:`~seqproj.protocol.SimSetup`: ``f(rng, n, *, setup) -> exit times`` (``T + 1``: none).
EXIT_TIMES = {"reduced": exit_times_reduced_setup, "full": exit_times_full_setup}


def setup_failure_flags(rng, n, *, exit_times, setup) -> dict:
    """``{"failed": bool array (n,)}`` from ``exit_times(rng, n, setup=setup)`` (a run function of
    :data:`EXIT_TIMES` on a validated ``setup``): the chunk function of :func:`failure_experiment`."""
    return {"failed": exit_times(rng, n, setup=setup) <= setup.T}


def setup_failure_count(rng, n, *, exit_times, setup) -> int:
    """The number of failures among ``n`` trials of :func:`setup_failure_flags` (same keywords):
    the trial function of :func:`check_coverage`."""
    return int(np.count_nonzero(exit_times(rng, n, setup=setup) <= setup.T))


def failure_experiment(*, simulator, M, eps, T, columns="sphere", adversary="constant", chunk_size,
                       **kw) -> Experiment:
    """The engine experiment of the failure flags (statistic ``"failed"``) for one
    configuration; ``adversary`` is a name, ``kw`` are ``x0``/``cx``.  The configuration is
    validated once, here (:func:`seqproj.events.simulation_setup`); the chunk function is
    :func:`setup_failure_flags` bound to that setup.  The failure flags equal those of
    :func:`seqproj.events.path_experiment` with the same arguments trial for trial."""
    if simulator not in EXIT_TIMES:
        raise ValueError(f"simulator must be one of {sorted(EXIT_TIMES)}, got {simulator!r}")
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=CHUNK_MAX)
    setup = simulation_setup(simulator, M, eps, T, columns=columns, adversary=adversary, **kw)
    extra = "".join(f".{k}{float(v):g}" for k, v in sorted(kw.items()))
    eid = (f"seqproj.failures.{simulator}.{columns}.{adversary}.M{setup.M}.T{setup.T}.eps{setup.eps:g}"
           f"{extra}.chunk{chunk_size}")
    params = {"simulator": simulator, "M": setup.M, "eps": setup.eps, "T": setup.T, "columns": columns,
              "adversary": adversary, **kw}
    fn = functools.partial(setup_failure_flags, exit_times=EXIT_TIMES[simulator], setup=setup)
    return Experiment(id=eid, fn=fn, chunk_size=chunk_size, params=params)


def _predictable_run(columns, adversary, simulator, who):
    """``(adversary, simulator)`` of a one-call check: ``columns`` a family name, ``adversary``
    predictable (an :class:`~seqproj.adversaries.Adversary`), the simulator that
    :func:`~seqproj.events.choose_simulator` picks — never the look-ahead control."""
    check_columns_name(columns)
    adv = require_predictable(adversary)
    sim = choose_simulator(columns, adv, simulator)
    if sim == "lookahead":
        raise ValueError(f"simulator='lookahead' runs the non-predictable negative control; "
                         f"{who} needs a predictable adversary")
    return adv, sim


def check_coverage(M, eps, delta, T, *, columns="sphere", adversary="constant", budget=None, seed=0,
                   executor=None, alpha=0.01, simulator="auto", x0=1.0, cx=1.0, chunk_size=None,
                   method="anytime"):
    r"""Decide whether the time-uniform failure probability at dimension ``M`` is at most δ.

    .. math:: p = P\big(\exists\, t \le T:\ \|S_t\|^2 / V_t \notin [1-\varepsilon, 1+\varepsilon]\big)
              \overset{?}{\le} \delta

    under ``columns`` and a **predictable** ``adversary``, with ``x_0 = 1``
    (default) and ``z_0`` a fixed unit vector (setup of ``docs/theory/seqproj.md#coverage``).  The claim is
    built on the fly (not registered) and decided by
    :func:`proofs_check.engine.verify.verify_claim` at level ``alpha``.

    Returns the engine's :class:`~proofs_check.engine.results.ProbabilityResult`
    (``verdict``, ``trials``, ``events``, ``p_hat``, interval, seed, ...).

    ``simulator="auto"`` uses the exact reduced simulation (theory ``#reduced``) when it can,
    the full protocol otherwise, each through its first-exit kernel (only the failure flag is
    computed; a trial stops at its first exit).  ``budget`` defaults to 20 000 trials (reduced)
    or 2 000 (full).  ``executor=None`` runs the chunks on all cores (the engine's ``"auto"``);
    the result is bitwise the same on every executor and worker count.
    """
    adv, sim = _predictable_run(columns, adversary, simulator, "check_coverage")
    # everything a worker would check, checked here, once: the setup (M, eps, T, x0, cx and what
    # the simulator can serve), delta, budget, seed, alpha, chunk size
    setup = simulation_setup(sim, M, eps, T, columns=columns, adversary=adv, x0=x0, cx=cx)
    M, eps, T, x0, cx = setup.M, setup.eps, setup.T, setup.x0, setup.cx
    delta = check_open_unit("delta", delta)
    if budget is not None:
        check_budget(budget)
    check_seed(seed)
    check_alpha(alpha)
    if chunk_size is not None:
        chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=CHUNK_MAX)
    fn = functools.partial(setup_failure_count, exit_times=EXIT_TIMES[sim], setup=setup)
    reduced = sim == "reduced"
    chunk = CHUNK[sim] if chunk_size is None else chunk_size
    claim = ProbabilityClaim(
        id=f"seqproj.adhoc.coverage.{columns}.{adv.name}.M{M}",
        statement=(f"P(∃ t ≤ T: ‖S_t‖²/V_t ∉ [1−ε, 1+ε]) ≤ δ at M = {M}, ε = {eps:g}, T = {T}, "
                   f"δ = {delta:g}, {columns} columns, {adv.name} adversary"),
        source=Source(papers=("seqjl",), where="sequential JL theorem",
                      theory="seqproj.md#coverage", note="ad-hoc check at a user's M"),
        label="RECONSTRUCTED",
        params={"M": M, "eps": eps, "delta": delta, "T": T, "columns": columns,
                "adversary": adv.name, "simulator": sim, "x0": x0, "cx": cx},
        fn=fn, delta=delta, chunk_size=chunk,
        default_budget=20_000 if reduced else 2_000, quick_budget=2_000 if reduced else 400,
    )
    return verify_claim(claim, budget=budget, seed=seed, alpha=alpha, executor=executor,
                        method=method)


# --------------------------------------------------------------------------
# empirical M*
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class MinDimResult:
    """Empirical ``M*`` where the time-uniform failure probability equals δ.

    ``M_star`` is the point estimate (log-linear interpolation of ``p̂(M)``
    between the two evaluated dimensions that straddle δ); ``M_lo``/``M_hi``
    bracket it: at ``M_lo`` the Clopper–Pearson interval lies above δ, at
    ``M_hi`` below (p is decreasing in M).  Every evaluated dimension's interval
    is at level ``alpha / max_looks`` (Bonferroni over the at most ``max_looks``
    dimensions the search may evaluate, a bound fixed before the search; the
    union bound needs no independence between dimensions), so with probability
    ≥ 1 − α all of them cover at once and ``M_lo < M* ≤ M_hi``: a simultaneous (1 − α)
    confidence bracket, not a single CP interval.  ``efficiency`` is
    ``M_theorem / M_star`` with interval ``(M_theorem/M_hi, M_theorem/M_lo)``
    (same level).  ``evaluations`` lists ``(M, events, trials)``.
    """

    eps: float
    delta: float
    T: int
    columns: str
    adversary: str
    M_star: float
    M_lo: int
    M_hi: int
    M_theorem: int
    efficiency: float
    efficiency_interval: tuple
    evaluations: tuple
    trials_per_point: int
    seed: int
    alpha: float
    simulator: str
    max_looks: int

    def to_dict(self) -> dict:
        d = asdict(self)
        d["evaluations"] = [list(e) for e in self.evaluations]
        d["efficiency_interval"] = list(self.efficiency_interval)
        return d


def empirical_min_dim(eps, delta, T, *, columns="sphere", adversary="constant", trials=20_000,
                      seed=0, alpha=0.01, simulator="auto", M_max=None, x0=1.0, cx=1.0,
                      max_evals=24, executor=None) -> MinDimResult:
    r"""Bracket the empirical ``M*(ε, δ, T)`` where ``p(M) = δ``, with its uncertainty.

    Bisection on integer ``M`` (``p`` decreases in ``M``), ``trials`` trials per
    evaluated ``M`` (rounded up to whole chunks), each ``M`` measured as the engine
    experiment :func:`failure_experiment` (first-exit kernels; its failure flags equal those of
    :func:`seqproj.events.path_experiment` trial for trial) at root ``seed`` — chunk ``k``
    of every ``M`` draws from ``SeedSequence(seed, spawn_key=(k,))``, so the
    dimensions share their random keys (common random numbers; the Bonferroni
    bracket below needs no independence) and a figure or claim that measures the
    same experiment sees the same trials.
    The bracket ``(M_lo, M_hi]`` is a simultaneous (1 − α) confidence bracket
    for ``M*``: the closest pair of evaluated dimensions with the Clopper–Pearson
    interval at level ``α / max_looks`` above δ at ``M_lo`` and below δ at
    ``M_hi`` (``max_looks`` bounds the number of evaluated dimensions: the
    geometric search, ``max_evals`` in all for the bisection, 16 refinement
    steps).  ``M_star`` interpolates ``log p̂`` linearly between the evaluated
    dimensions closest to δ.  Also reports ``M_theorem /M*`` (theory ``#efficiency``; our
    runs give about 10).  ``adversary`` must be a name (default
    parameters); ``executor`` runs the chunks (default ``None``: all cores, the engine's
    ``"auto"``; identical results on every executor).
    """
    eps = check_open_unit("eps", eps)
    delta = check_open_unit("delta", delta)
    T = check_int("T", T, lo=1, hi=T_MAX)
    trials = check_int("trials", trials, lo=100, hi=N_MAX)
    alpha = check_alpha(alpha)
    check_seed(seed)
    x0 = check_real("x0", x0, lo=-1e50, hi=1e50)
    cx = check_real("cx", cx, lo=1e-100, hi=1e100)
    adv, sim = _predictable_run(columns, adversary, simulator, "empirical_min_dim")
    if adv != make_adversary(adv.name):
        raise ValueError(f"empirical_min_dim takes an adversary name (default parameters), got {adv}")
    M_th = int(sequential_jl_min_dim(eps, delta, T, cx=cx, x0=x0))
    if M_max is None and M_th > M_MAX:
        raise ValueError(f"the theorem's dimension {M_th} for eps={eps:g}, T={T} exceeds the largest "
                         f"simulated dimension {M_MAX}; pass M_max <= {M_MAX} (or a larger eps)")
    M_max = M_th if M_max is None else check_int("M_max", M_max, lo=2, hi=M_MAX)
    max_evals = check_int("max_evals", max_evals, lo=2, hi=1000)
    # bound on the number of evaluated dimensions, fixed before the search: the geometric
    # search (at most ceil(log2 M_max) + 1 points), the bisection (at most max_evals points
    # in all) and the refinement (at most 2 x 8 points)
    max_looks = max(max_evals, math.ceil(math.log2(M_max)) + 1) + 16
    level = alpha / max_looks
    evals: dict[int, tuple[int, int]] = {}

    kw = {} if (x0, cx) == (1.0, 1.0) else {"x0": x0, "cx": cx}

    def p_at(M):
        if M not in evals:
            exp = failure_experiment(simulator=sim, M=int(M), eps=eps, T=T, columns=columns,
                                     adversary=adv.name, chunk_size=CHUNK[sim], **kw)
            failed = measure(exp, trials, seed=seed, executor=executor).stats["failed"]
            evals[M] = (int(failed.sum()), int(failed.size))
        k, n = evals[M]
        return k / n

    lo, hi = 2, M_max
    if p_at(hi) > delta:
        raise ValueError(f"p(M_max={hi}) = {p_at(hi):.4g} > delta={delta}: raise M_max")
    # geometric search downwards for a dimension with p̂ > δ
    m = hi
    while m > 2:
        m = max(2, m // 2)
        if p_at(m) > delta:
            lo = m
            break
        hi = m
    else:
        raise ValueError(f"p(M) <= delta down to M=2 for eps={eps}, T={T}: M* < 2")
    while hi - lo > 1 and len(evals) < max_evals:
        mid = (lo + hi) // 2
        if p_at(mid) > delta:
            lo = mid
        else:
            hi = mid
    # interpolate log p between the straddling evaluated points lo (p̂>δ) and hi (p̂≤δ)
    p_lo, p_hi = p_at(lo), p_at(hi)
    if p_hi > 0 and p_lo > p_hi:
        f = (math.log(p_lo) - math.log(delta)) / (math.log(p_lo) - math.log(p_hi))
        M_star = lo + f * (hi - lo)
    else:
        M_star = 0.5 * (lo + hi)

    def ci(M):
        return clopper_pearson(*evals[M], level)

    # refine the bracket: step outwards from M* until the exact intervals exclude δ
    step = max(1, int(round(0.04 * M_star)))
    m0 = int(round(M_star))
    for direction in (-1, 1):
        for j in range(1, 9):
            m = m0 + direction * j * step
            if m < 2 or m > M_max:
                break
            p_at(m)
            c_lo, c_hi = ci(m)
            if (direction < 0 and c_lo > delta) or (direction > 0 and c_hi < delta):
                break
    Ms = sorted(evals)
    below = [M for M in Ms if ci(M)[1] < delta]
    M_hi = min(below) if below else M_max
    above = [M for M in Ms if ci(M)[0] > delta and M < M_hi]
    M_lo = max(above) if above else 2
    return MinDimResult(eps, delta, T, columns, adv.name, float(M_star), int(M_lo), int(M_hi), M_th,
                        M_th / M_star, (M_th / M_hi, M_th / M_lo),
                        tuple((M, *evals[M]) for M in Ms), evals[M_max][1], int(seed), alpha, sim,
                        int(max_looks))
