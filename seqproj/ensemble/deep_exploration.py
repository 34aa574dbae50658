r"""The deep-exploration study: episodes to solve DeepSea(N) as N grows (theory
``ensemble.md#deep-sea``).

**Solved** (fixed before any run): the number of episodes to solve is the
smallest ``e ≥ 0`` such that in the ``W = 20`` episodes ``e + 1, …, e + W`` the
reward was found in at least ``⌈0.9 W⌉ = 18``; "found" is bsuite's complement of
``bad_episode`` (never "left" on the diagonal; in the deterministic variant:
the +1 was collected).  A run whose first qualifying window does not end
within the episode budget ``E(N) = N² + 200`` is **censored**: it is stored as
NaN ("not solved within E(N)"), never as a number.

Agents (:mod:`.deep_agents`), with noise ``σ = 0.1`` and prior variance
``s₀ = 1`` (chosen on a pilot with seeds outside the study's, see the note):
exact RLSVI, HyperAgent with index dimension :func:`index_dim` (``M =
⌈2 log(2N²)⌉``, the log of the number of state–action pairs) by closed form
and by SGD, a bootstrapped ensemble of ``K = 10``, ε-greedy with ε = 0.1.

* :func:`run_deep_sea` — one batch of agents on a batch of instances, to the
  first solved window or the budget;
* :func:`episodes_to_solve` — the solve rule on a found-matrix;
* :func:`deep_sea_trials` / :func:`deep_sea_experiment` — every agent on the
  **same** instances (common action mappings) at every N of a grid, as an
  :class:`~proofs_check.engine.experiment.Experiment` (trial = one instance per
  N; statistic ``episodes_<agent>``, ``(n, len(Ns))``, NaN = censored);
* :func:`fit_exponent` — the growth exponent with its interval over the grid
  points where **no** run is censored (rule below);
* :func:`step_times` — wall time per environment step of each agent, measured
  interleaved.

Censoring rule of :func:`fit_exponent`: the fit uses the longest prefix of the
N-grid (from the smallest N) on which every replicate solved; beyond it the
number of censored runs per N is reported and nothing is fitted.  Within the
prefix no value is censored, so the usual interval (mean of the per-replicate
log–log slopes, Student t over replicates, as the engine's scaling claims)
is valid for the exponent *on that range*; it is never made tighter by
substituting the budget for a censored run (which would bias the exponent
down).  With fewer than three uncensored grid points no exponent is reported.
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numpy as np
from scipy import stats as st

from proofs_check.engine import Experiment
from proofs_check.engine import as_generator, check_bool, check_finite_array, check_int, \
    check_real

from ._limits import check_choice, check_int_sequence
from .deep_agents import BootstrappedEnsemble, EpsilonGreedy, HyperAgent, RLSVI
from .deepsea import DeepSea, deep_sea_step

__all__ = ["WINDOW", "THRESHOLD", "NOISE_SD", "PRIOR_VAR", "AGENT_NAMES", "index_dim", "budget",
           "make_agent", "episodes_to_solve", "run_deep_sea", "deep_sea_trials",
           "deep_sea_experiment", "ExponentFit", "fit_exponent", "step_times",
           "fit_median_exponent", "censored_count", "factor_events", "episodes_column",
           "BSUITE_THRESH", "bsuite_learning_time"]

#: Window W and threshold of the solve rule (fixed before any run).
WINDOW = 20
THRESHOLD = 0.9
#: σ and s₀ of every agent's Gaussian model.
NOISE_SD = 0.1
PRIOR_VAR = 1.0
#: bsuite's threshold on the cumulative fraction of bad episodes (``find_solution``'s ``thresh``).
BSUITE_THRESH = 0.8
#: Agents of the study by name.
AGENT_NAMES = ("rlsvi", "hyper", "hyper_sgd", "bootstrap", "eps_greedy")


def index_dim(N: int, *, factor: float = 2.0) -> int:
    r"""HyperAgent's index dimension :math:`M = \lceil c\log(2N^2)\rceil` (``factor`` c = 2):
    logarithmic in the number ``2N²`` of state–action pairs."""
    N = check_int("N", N, lo=2, hi=1000)
    factor = check_real("factor", factor, lo=0.01, hi=1000.0)
    return max(1, math.ceil(factor * math.log(2 * N * N)))


def budget(N: int) -> int:
    """The episode budget ``E(N) = N² + 200``."""
    N = check_int("N", N, lo=2, hi=1000)
    return N * N + 200


def make_agent(name: str, N: int, *, batch: int, rng, noise_sd: float = NOISE_SD, **kw):
    """An agent of the study by name (:data:`AGENT_NAMES`) with the study's σ (``noise_sd``,
    default :data:`NOISE_SD`; swept in ``ensemble.md#deep-sea-laws``), s₀, M, K, ε;
    keywords override (e.g. ``index_scale=0`` for the mutation check, ``M=4``)."""
    name = check_choice("name", name, AGENT_NAMES)
    noise_sd = check_real("noise_sd", noise_sd, lo=1e-6, hi=1e6)
    common = dict(batch=batch, rng=rng, prior_var=PRIOR_VAR, noise_sd=noise_sd)
    if name == "rlsvi":
        return RLSVI(N, **common, **kw)
    if name == "hyper":
        return HyperAgent(N, kw.pop("M", index_dim(N)), **common, **kw)
    if name == "hyper_sgd":
        return HyperAgent(N, kw.pop("M", index_dim(N)), update="sgd", **common, **kw)
    if name == "bootstrap":
        return BootstrappedEnsemble(N, kw.pop("K", 10), **common, **kw)
    return EpsilonGreedy(N, kw.pop("eps", 0.1), **common, **kw)


def episodes_to_solve(found, *, window: int = WINDOW, threshold: float = THRESHOLD) -> np.ndarray:
    r"""Per row of the ``(B, E)`` 0/1 matrix ``found``: the smallest ``e`` with
    :math:`\sum_{j=e}^{e+W-1}\mathrm{found}_j \ge \lceil \text{threshold}\cdot W\rceil`
    (0-based columns, so ``e`` episodes came before the window), or NaN when no
    such window fits in the ``E`` columns (censored at ``E − W``)."""
    f = check_finite_array("found", found, ndim=2)
    if not np.all((f == 0) | (f == 1)):
        raise ValueError("found must hold only 0/1 values")
    window = check_int("window", window, lo=1, hi=100_000)
    threshold = check_real("threshold", threshold, lo=0.0, hi=1.0, lo_open=True)
    need = math.ceil(threshold * window - 1e-12)
    B, E = f.shape
    out = np.full(B, np.nan)
    if E < window:
        return out
    cs = np.concatenate([np.zeros((B, 1)), np.cumsum(f, axis=1)], axis=1)
    ok = (cs[:, window:] - cs[:, :-window]) >= need           # (B, E − W + 1)
    hit = ok.any(axis=1)
    out[hit] = ok[hit].argmax(axis=1)
    return out


def bsuite_learning_time(found, *, thresh: float = BSUITE_THRESH) -> np.ndarray:
    r"""bsuite's learning time (``bsuite/experiments/deep_sea/analysis.py``, ``find_solution``;
    Osband et al., "Behaviour Suite for Reinforcement Learning", ICLR 2020): per row of the
    ``(B, E)`` 0/1 matrix ``found`` (found = not a bad episode), the first episode count
    ``e ∈ {1, …, E}`` at which the **cumulative** fraction of bad episodes is below ``thresh``,

    .. math::  \frac{1}{e}\sum_{j=1}^{e}(1 - \mathrm{found}_j) < \text{thresh}
               \iff \sum_{j\le e}\mathrm{found}_j > (1 - \text{thresh})\,e,

    or NaN (censored) when no ``e ≤ E`` qualifies.  bsuite's default ``thresh = 0.8`` (its plot
    axis says "90 %"; the code uses 0.8).  Unlike the 90 %-window rule of
    :func:`episodes_to_solve`, a cumulative fraction remembers the early failures: an agent that
    fails ``e₀`` episodes and then always finds the reward reaches it at ``e > e₀/thresh``
    (``1.25 e₀``), and it fires after only ``(1 − thresh)e`` successes in all."""
    f = check_finite_array("found", found, ndim=2)
    if not np.all((f == 0) | (f == 1)):
        raise ValueError("found must hold only 0/1 values")
    thresh = check_real("thresh", thresh, lo=0.0, hi=1.0, lo_open=True)
    B, E = f.shape
    out = np.full(B, np.nan)
    if E == 0:
        return out
    e = np.arange(1, E + 1)
    ok = (e - np.cumsum(f, axis=1)) < thresh * e
    hit = ok.any(axis=1)
    out[hit] = ok[hit].argmax(axis=1) + 1
    return out


def _greedy_found(agent, mapping, N):
    """Deterministic rollout of the agent's greedy policy (ε-greedy's evaluation)."""
    B = mapping.shape[0]
    col = np.zeros(B, dtype=np.int64)
    found = np.ones(B, dtype=bool)
    for h in range(N):
        a = agent._greedy(h, col)          # unchecked: arguments from the validated loop
        _, nxt, _, right = deep_sea_step(h, col, a, mapping, N=N)
        found &= right | (col != h)
        col = nxt
    return found


def run_deep_sea(agent, env: DeepSea, episodes: int, *, window: int = WINDOW,
                 threshold: float = THRESHOLD, bsuite: bool = False) -> dict:
    """Play up to ``episodes`` episodes of ``agent`` on ``env`` (one agent per
    instance of the batch), stopping early once every instance has a solved
    window (``bsuite=True``: and has reached bsuite's learning time,
    :func:`bsuite_learning_time`, which may come later).  Returns ``{"found": (B,
    E_played) bool, "solve": (B,) float (NaN = censored at episodes − W), "played":
    E_played}``, with ``"bsuite": (B,) float`` (NaN = censored) when ``bsuite``."""
    from proofs_check.engine import check_instance

    from .deep_agents import _TabularAgent

    check_instance("agent", agent, _TabularAgent)
    check_instance("env", env, DeepSea)
    if (agent.N, agent.B) != (env.N, env.batch):
        raise ValueError(f"agent (N = {agent.N}, batch = {agent.B}) and env (N = {env.N}, batch = "
                         f"{env.batch}) must match")
    episodes = check_int("episodes", episodes, lo=1, hi=10_000_000)
    window = check_int("window", window, lo=1, hi=100_000)
    threshold = check_real("threshold", threshold, lo=0.0, hi=1.0, lo_open=True)
    bsuite = check_bool("bsuite", bsuite)
    need = math.ceil(threshold * window - 1e-12)
    B, N = env.batch, env.N
    n_found = np.zeros(B)
    learnt = np.ones(B, dtype=bool) if not bsuite else np.zeros(B, dtype=bool)
    found = np.zeros((B, episodes), dtype=bool)
    solved = np.zeros(B, dtype=bool)
    greedy_eval = getattr(agent, "evaluate_greedy", False)
    played = 0
    for e in range(episodes):
        agent.begin_episode()
        col = env.reset()
        for h in range(N):
            a = agent._act(h, col)         # unchecked per-step methods: (h, col, r, nxt) come
            r, nxt = env.step(a)           # from the validated env (issue 26: checks kept out
            agent._observe(h, col, a, r, nxt)   # of this hot loop)
            col = nxt
        found[:, e] = _greedy_found(agent, env.mapping, N) if greedy_eval else env.found
        played = e + 1
        if bsuite:
            n_found += found[:, e]
            learnt |= (played - n_found) < BSUITE_THRESH * played
        if played >= window:
            solved |= found[:, played - window:played].sum(axis=1) >= need
            if solved.all() and learnt.all():
                break
    f = found[:, :played]
    out = {"found": f, "solve": episodes_to_solve(f.astype(float), window=window, threshold=threshold),
           "played": played}
    if bsuite:
        out["bsuite"] = bsuite_learning_time(f.astype(float))
    return out


def deep_sea_trials(rng, n, *, agents, Ns, stochastic=False, budget_extra=200,
                    noise_sd=NOISE_SD, bsuite=False) -> dict:
    """``n`` independent instances at every N of ``Ns``; every agent of
    ``agents`` plays the same ``n`` instances (common action mappings; each
    agent its own random stream), with the agents' σ = ``noise_sd``.  Statistic
    ``episodes_<agent>`` ``(n, len(Ns))`` (NaN = censored at the budget ``N² +
    budget_extra``); with ``bsuite=True`` also ``bsuite_<agent>``, bsuite's learning
    time (:func:`bsuite_learning_time`, NaN = censored) on the same runs."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=1, hi=10_000)
    Ns = check_int_sequence("Ns", Ns, lo=2, hi=200, max_len=50)
    agents = tuple(check_choice("agents", a, AGENT_NAMES) for a in agents)
    if not agents:
        raise ValueError("agents must not be empty")
    stochastic = check_bool("stochastic", stochastic)
    budget_extra = check_int("budget_extra", budget_extra, lo=0, hi=1_000_000)
    noise_sd = check_real("noise_sd", noise_sd, lo=1e-6, hi=1e6)
    bsuite = check_bool("bsuite", bsuite)
    out = {f"episodes_{a}": np.full((n, len(Ns)), np.nan) for a in agents}
    if bsuite:
        out.update({f"bsuite_{a}": np.full((n, len(Ns)), np.nan) for a in agents})
    for j, N in enumerate(Ns):
        env_seed, *agent_seeds = rng.spawn(1 + len(agents))
        env_state = np.random.default_rng(env_seed)
        mapping = DeepSea(N, batch=n, rng=env_state).mapping
        for name, s in zip(agents, agent_seeds):
            g = np.random.default_rng(s)
            env = DeepSea(N, batch=n, rng=g, stochastic=stochastic)
            env.mapping = mapping.copy()
            agent = make_agent(name, N, batch=n, rng=g, noise_sd=noise_sd)
            res = run_deep_sea(agent, env, N * N + budget_extra, bsuite=bsuite)
            out[f"episodes_{name}"][:, j] = res["solve"]
            if bsuite:
                out[f"bsuite_{name}"][:, j] = res["bsuite"]
    return out


def deep_sea_experiment(name: str, *, agents, Ns, chunk_size: int = 8,
                        stochastic: bool = False, noise_sd: float = NOISE_SD,
                        bsuite: bool = False) -> Experiment:
    """:func:`deep_sea_trials` as an experiment (id ``ensemble.deepsea.<name>``); ``noise_sd``
    and ``bsuite`` (the extra statistic ``bsuite_<agent>``) are passed to the trials only when
    they differ from the defaults, so the existing experiments keep their fingerprints."""
    Ns = check_int_sequence("Ns", Ns, lo=2, hi=200, max_len=50)
    agents = tuple(check_choice("agents", a, AGENT_NAMES) for a in agents)
    noise_sd = check_real("noise_sd", noise_sd, lo=1e-6, hi=1e6)
    bsuite = check_bool("bsuite", bsuite)
    extra = {"bsuite_thresh": BSUITE_THRESH} if bsuite else {}
    kw = {**({"noise_sd": noise_sd} if noise_sd != NOISE_SD else {}),
          **({"bsuite": True} if bsuite else {})}
    return Experiment(id=f"ensemble.deepsea.{name}",
                      fn=functools.partial(deep_sea_trials, agents=agents, Ns=Ns,
                                           stochastic=stochastic, **kw),
                      chunk_size=chunk_size,
                      params={"agents": list(agents), "Ns": list(Ns), "window": WINDOW,
                              "threshold": THRESHOLD, "noise_sd": noise_sd, **extra,
                              "prior_var": PRIOR_VAR, "budget": "N^2 + 200",
                              "M": "ceil(2 log(2 N^2))", "K": 10, "eps": 0.1,
                              "stochastic": stochastic})


@dataclass(frozen=True)
class ExponentFit:
    """Growth exponent of episodes-to-solve in N (rule in the module docstring).

    ``Ns_fitted`` — the uncensored prefix of the grid; ``exponent``/``ci``
    ``None`` when it has fewer than 3 points; ``censored`` — runs censored per
    grid N; ``replicates`` — runs per N."""

    agent: str
    Ns: tuple
    Ns_fitted: tuple
    exponent: float | None
    ci: tuple | None
    level: float
    censored: tuple
    replicates: int

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def _check_episodes(Ns, episodes, level):
    """Validated ``(Ns, episodes as an (n, len(Ns)) float array, level)`` of the exponent fits:
    episodes to solve ≥ 0, NaN = censored."""
    Ns = check_int_sequence("Ns", Ns, lo=1, hi=100_000, max_len=1000)
    # real numbers only (a complex entry is refused, never truncated); NaN = censored is allowed
    y = check_finite_array("episodes", episodes, finite=False)
    if y.ndim != 2 or y.shape[1] != len(Ns) or y.shape[0] < 1:
        raise ValueError(f"episodes must have shape (n, {len(Ns)}), got {y.shape}")
    if np.any(np.isinf(y)) or np.any(y[np.isfinite(y)] < 0):
        raise ValueError("episodes must be ≥ 0 or NaN (censored)")
    level = check_real("level", level, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    return Ns, y, level


def fit_exponent(Ns, episodes, *, agent: str = "", level: float = 0.95) -> ExponentFit:
    """:class:`ExponentFit` of an ``(n, len(Ns))`` array of episodes to solve (NaN = censored).
    A solve at ``e = 0`` enters the logarithm as 1."""
    Ns, y, level = _check_episodes(Ns, episodes, level)
    cens = np.isnan(y).sum(axis=0)
    k = int(np.argmax(cens > 0)) if np.any(cens > 0) else len(Ns)
    used = tuple(Ns[:k])
    exp = ci = None
    if k >= 3:
        lx = np.log(np.asarray(used, float))
        ly = np.log(np.maximum(y[:, :k], 1.0))
        slopes = np.polyfit(lx, ly.T, 1)[0]
        exp = float(slopes.mean())
        R = slopes.size
        if R > 1:
            h = st.t.ppf(0.5 + level / 2, R - 1) * slopes.std(ddof=1) / math.sqrt(R)
            ci = (exp - float(h), exp + float(h))
    return ExponentFit(agent=str(agent), Ns=tuple(Ns), Ns_fitted=used, exponent=exp, ci=ci,
                       level=level, censored=tuple(int(c) for c in cens), replicates=int(y.shape[0]))


def fit_median_exponent(Ns, episodes, *, level: float = 0.95, n_boot: int = 2000,
                        seed: int = 0) -> dict:
    r"""A censoring-robust second estimate: the log–log least-squares slope of the
    **median** episodes to solve over the grid points where the median is identified
    (fewer than half of the runs censored; a censored run counts as +∞, so the
    median is an exact order statistic of solved runs), with a percentile bootstrap
    interval (runs resampled within each N, ``n_boot`` resamples, ``seed``).  A
    resample whose median is censored at some used N gives slope +∞ there (the
    interval's upper end is then reported as ``None``, "unbounded").  Returns a
    dict ``{"Ns_used", "exponent", "ci", "level", "n_boot", "seed"}``; ``exponent``
    ``None`` with fewer than 3 identified medians."""
    Ns, y, level = _check_episodes(Ns, episodes, level)
    n_boot = check_int("n_boot", n_boot, lo=1, hi=1_000_000)
    seed = check_int("seed", seed, lo=0)
    Y = np.where(np.isnan(y), np.inf, np.maximum(y, 1.0))
    ok = np.isfinite(Y).sum(axis=0) * 2 > Y.shape[0]
    used = [N for N, o in zip(Ns, ok) if o]
    out = {"Ns_used": used, "exponent": None, "ci": None, "level": level, "n_boot": n_boot,
           "seed": seed}
    if len(used) < 3:
        return out
    lx = np.log(np.asarray(used, float))
    Yu = Y[:, ok]

    def slope(M):
        if not np.all(np.isfinite(M)):
            return math.inf
        return float(np.polyfit(lx, np.log(M), 1)[0])

    out["exponent"] = slope(np.median(Yu, axis=0))
    g = np.random.default_rng(seed)
    n = Yu.shape[0]
    boots = np.array([slope(np.median(np.take_along_axis(
        Yu, g.integers(0, n, size=(n, Yu.shape[1])), axis=0), axis=0)) for _ in range(n_boot)])
    lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf")
    out["ci"] = (float(lo) if np.isfinite(lo) else None, float(hi) if np.isfinite(hi) else None)
    return out


def step_times(Ns, *, agents=("rlsvi", "hyper"), episodes: int = 10,
               reps: int = 3, seed: int = 0) -> dict:
    """CPU time (``time.process_time``: the machine is shared, so wall time measures
    the load) per environment step (fit + act + update, batch of one) of each
    agent at each N: ``reps`` rounds, each timing ``episodes`` episodes of every
    agent in a rotated order (interleaved, so drifts hit all agents alike).
    Returns ``{"Ns", "agents", "seconds_per_step": (reps, len(agents), len(Ns))}``."""
    Ns = check_int_sequence("Ns", Ns, lo=2, hi=200, max_len=50)
    agents = tuple(check_choice("agents", a, AGENT_NAMES) for a in agents)
    episodes = check_int("episodes", episodes, lo=1, hi=10_000)
    reps = check_int("reps", reps, lo=1, hi=1000)
    seed = check_int("seed", seed, lo=0)
    out = np.empty((reps, len(agents), len(Ns)))
    for r in range(reps):
        for j, N in enumerate(Ns):
            order = [(r + i) % len(agents) for i in range(len(agents))]
            for i in order:
                g = np.random.default_rng([seed, r, j, i])
                env = DeepSea(N, batch=1, rng=g)
                agent = make_agent(agents[i], N, batch=1, rng=g)
                run_deep_sea(agent, env, 1)                 # compile / warm
                t0 = time.process_time()
                run_deep_sea(agent, env, episodes, window=episodes + 1)
                out[r, i, j] = (time.process_time() - t0) / (episodes * N)
    return {"Ns": list(Ns), "agents": list(agents), "seconds_per_step": out}


# ---------------------------------------------------------------------------
# reductions read by the claims (censoring-aware; NaN = censored)
# ---------------------------------------------------------------------------

def _column(stats, agent, j):
    key = f"episodes_{check_choice('agent', agent, AGENT_NAMES)}"
    if not hasattr(stats, "keys") or key not in stats:
        raise ValueError(f"stats must hold {key!r}")
    y = np.asarray(stats[key], dtype=float)
    if y.ndim != 2 or not 0 <= j < y.shape[1]:
        raise ValueError(f"stats[{key!r}] must be (n, len(Ns)) with column {j}, got {y.shape}")
    return y[:, j]


def censored_count(stats, *, agent: str, j: int = 0) -> int:
    """Number of runs of ``agent`` not solved within the budget at grid column ``j``."""
    j = check_int("j", j, lo=0, hi=1000)
    return int(np.isnan(_column(stats, agent, j)).sum())


def factor_events(stats, *, factor: float, j: int = 0, agent: str = "hyper",
                  reference: str = "rlsvi") -> int:
    r"""Number of instances on which ``agent`` needs more than ``factor`` times the
    episodes of ``reference`` (same instance; ``e = 0`` counts as 1).  Censoring is
    decided conservatively (an event whenever it cannot be excluded): ``agent``
    censored → event; ``reference`` censored and ``agent`` solved → no event
    (``T_ref`` exceeds the budget ≥ ``T_agent``, so ``factor·T_ref > T_agent`` for
    ``factor ≥ 1``)."""
    factor = check_real("factor", factor, lo=1.0, hi=1e6)
    j = check_int("j", j, lo=0, hi=1000)
    a, r = _column(stats, agent, j), _column(stats, reference, j)
    if a.shape != r.shape:
        raise ValueError("the two agents must have the same number of runs")
    ev = np.isnan(a) | (~np.isnan(r) & (np.maximum(a, 1.0) > factor * np.maximum(r, 1.0)))
    return int(ev.sum())


def episodes_column(stats, *, agent: str) -> np.ndarray:
    """The ``(n, len(Ns))`` episodes-to-solve array of ``agent`` (NaN = censored)."""
    key = f"episodes_{check_choice('agent', agent, AGENT_NAMES)}"
    if not hasattr(stats, "keys") or key not in stats:
        raise ValueError(f"stats must hold {key!r}")
    return np.asarray(stats[key], dtype=float)
