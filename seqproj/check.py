r"""One-call checks for users: coverage of the sequential JL theorem, and the empirical M*.

* :func:`check_coverage` — decide ``P(∃ t ≤ T: ‖S_t‖²/V_t ∉ [1−ε, 1+ε]) ≤ δ``
  at a given ``M`` through the verification engine (exact and anytime-valid
  statistics, seeded, reproducible on every executor).
* :func:`empirical_min_dim` — bracket the empirical ``M*(ε, δ, T)`` at which
  the time-uniform failure probability equals δ, with its uncertainty, and the
  efficiency ratio ``M_theorem / M*``.
* :func:`count_events` — the picklable trial function used by every
  probability claim of :mod:`seqproj.claims`.

Spec ``seqproj.md`` §6 A (check A), ``verification.md`` §2.
"""
from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as sstats

from proofs_check.engine.claims import ProbabilityClaim
from proofs_check.engine.verify import verify_claim
from proofs_check.engine.validate import check_choice, check_int, check_open_unit

from .adversaries import ADVERSARIES, adversary as make_adversary, require_predictable
from .bounds import sequential_jl_min_dim
from .columns import FAMILIES
from .reduced import check_reduced_supported, simulate_reduced
from .simulate import simulate_full, simulate_lookahead

__all__ = ["EVENTS", "SIMULATORS", "count_events", "choose_simulator", "check_coverage",
           "empirical_min_dim", "MinDimResult"]

#: Events a probability claim may count (attributes of :class:`~seqproj.simulate.PathStats`).
EVENTS = ("failed", "out_at_T", "mix_cross", "anytime_exit")
SIMULATORS = ("auto", "full", "reduced", "lookahead")


def choose_simulator(columns: str, adversary, simulator: str = "auto") -> str:
    """``"reduced"`` when §7 can serve (sphere/Gaussian, adversary on ``(‖S‖², V)``), else ``"full"``."""
    check_choice("simulator", simulator, SIMULATORS)
    if simulator != "auto":
        return simulator
    try:
        check_reduced_supported(columns, adversary)
        return "reduced"
    except ValueError:
        return "full"


def count_events(rng, n, *, event="failed", simulator="reduced", M, eps, T, columns="sphere",
                 adversary="constant", adversary_kw=None, **kw) -> int:
    """Run ``n`` trials and count those in which ``event`` happened.

    ``event`` ∈ :data:`EVENTS`; ``simulator`` ∈ ``{"full", "reduced", "lookahead"}``;
    the remaining keywords go to the simulator.  Module-level so that claims
    built with :func:`functools.partial` pickle.
    """
    check_choice("event", event, EVENTS)
    adv = make_adversary(adversary, **(adversary_kw or {})) if isinstance(adversary, str) else adversary
    if simulator == "reduced":
        ps = simulate_reduced(M, eps, T, n, rng, columns=columns, adversary=adv, **kw)
    elif simulator == "full":
        ps = simulate_full(M, eps, T, n, rng, columns=columns, adversary=adv, **kw)
    elif simulator == "lookahead":
        ps = simulate_lookahead(M, eps, T, n, rng, columns=columns, **kw)
    else:
        raise ValueError(f"simulator must be one of ['full', 'lookahead', 'reduced'], got {simulator!r}")
    return int(np.count_nonzero(getattr(ps, event)))


def check_coverage(M, eps, delta, T, *, columns="sphere", adversary="constant", budget=None, seed=0,
                   executor=None, alpha=0.01, simulator="auto", x0=1.0, cx=1.0, chunk_size=None,
                   method="anytime"):
    r"""Decide whether the time-uniform failure probability at dimension ``M`` is at most δ.

    .. math:: p = P\big(\exists\, t \le T:\ \|S_t\|^2 / V_t \notin [1-\varepsilon, 1+\varepsilon]\big)
              \overset{?}{\le} \delta

    under ``columns`` and a **predictable** ``adversary``, with ``x_0 = 1``
    (default) and ``z_0`` a fixed unit vector (setup of spec §6 A).  The claim is
    built on the fly (not registered) and decided by
    :func:`proofs_check.engine.verify.verify_claim` at level ``alpha``.

    Returns the engine's :class:`~proofs_check.engine.results.ProbabilityResult`
    (``verdict``, ``trials``, ``events``, ``p_hat``, interval, seed, ...).

    ``simulator="auto"`` uses the exact reduced simulation (§7) when it can,
    the full protocol otherwise.  ``budget`` defaults to 20 000 trials (reduced)
    or 2 000 (full).
    """
    M = check_int("M", M, lo=1)
    eps = check_open_unit("eps", eps)
    delta = check_open_unit("delta", delta)
    T = check_int("T", T, lo=1)
    check_choice("columns", columns, FAMILIES)
    if isinstance(adversary, str):
        check_choice("adversary", adversary, ADVERSARIES)
    adv = require_predictable(adversary)
    sim = choose_simulator(columns, adv, simulator)
    if sim == "lookahead":
        raise ValueError("simulator='lookahead' runs the non-predictable negative control; "
                         "check_coverage needs a predictable adversary")
    if sim == "reduced":
        check_reduced_supported(columns, adv)
    fn = functools.partial(count_events, event="failed", simulator=sim, M=M, eps=eps, T=T,
                           columns=columns, adversary=adv, x0=x0, cx=cx)
    reduced = sim == "reduced"
    chunk = chunk_size or (1000 if reduced else 100)
    claim = ProbabilityClaim(
        id=f"seqproj.adhoc.coverage.{columns}.{adv.name}.M{M}",
        statement=(f"P(exists t<=T: ||S_t||^2/V_t outside [1-eps,1+eps]) <= delta at M={M}, "
                   f"eps={eps:g}, T={T}, delta={delta:g}, {columns} columns, {adv.name} adversary"),
        source="Li, Probability Tools for Sequential Random Projection (arXiv 2402.14026), "
               "sequential JL; spec seqproj.md §2, §6 A",
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
    dimensions the search may evaluate, a bound fixed before the search; each
    dimension has its own independent trials), so with probability ≥ 1 − α all
    of them cover at once and ``M_lo < M* ≤ M_hi``: a simultaneous (1 − α)
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


def _cp(k, n, alpha):
    lo = 0.0 if k == 0 else float(sstats.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(sstats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


def empirical_min_dim(eps, delta, T, *, columns="sphere", adversary="constant", trials=20_000,
                      seed=0, alpha=0.01, simulator="auto", M_max=None, x0=1.0, cx=1.0,
                      max_evals=24) -> MinDimResult:
    r"""Bracket the empirical ``M*(ε, δ, T)`` where ``p(M) = δ``, with its uncertainty.

    Bisection on integer ``M`` (``p`` decreases in ``M``), ``trials`` trials per
    evaluated ``M``, each ``M`` with its own seed ``SeedSequence(seed, spawn_key=(M,))``.
    The bracket ``(M_lo, M_hi]`` is a simultaneous (1 − α) confidence bracket
    for ``M*``: the closest pair of evaluated dimensions with the Clopper–Pearson
    interval at level ``α / max_looks`` above δ at ``M_lo`` and below δ at
    ``M_hi`` (``max_looks`` bounds the number of evaluated dimensions: the
    geometric search, ``max_evals`` in all for the bisection, 16 refinement
    steps).  ``M_star`` interpolates ``log p̂`` linearly between the evaluated
    dimensions closest to δ.  Also reports ``M_theorem /M*`` (spec §6 A; the
    spec's own runs suggest 7–10).
    """
    eps = check_open_unit("eps", eps)
    delta = check_open_unit("delta", delta)
    T = check_int("T", T, lo=1)
    trials = check_int("trials", trials, lo=100)
    alpha = check_open_unit("alpha", alpha)
    adv = require_predictable(adversary)
    sim = choose_simulator(columns, adv, simulator)
    if sim == "lookahead":
        raise ValueError("empirical_min_dim needs a predictable adversary")
    M_th = int(sequential_jl_min_dim(eps, delta, T, cx=cx, x0=x0))
    M_max = M_th if M_max is None else check_int("M_max", M_max, lo=2)
    max_evals = check_int("max_evals", max_evals, lo=2)
    # bound on the number of evaluated dimensions, fixed before the search: the geometric
    # search (at most ceil(log2 M_max) + 1 points), the bisection (at most max_evals points
    # in all) and the refinement (at most 2 x 8 points)
    max_looks = max(max_evals, math.ceil(math.log2(M_max)) + 1) + 16
    level = alpha / max_looks
    evals: dict[int, tuple[int, int]] = {}

    def p_at(M):
        if M not in evals:
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(M),)))
            k = count_events(rng, trials, event="failed", simulator=sim, M=int(M), eps=eps, T=T,
                             columns=columns, adversary=adv, x0=x0, cx=cx)
            evals[M] = (k, trials)
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
        return _cp(*evals[M], level)

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
                        tuple((M, *evals[M]) for M in Ms), trials, int(seed), alpha, sim,
                        int(max_looks))
