r"""The finite-arm regret sweep: Ensemble++ against exact TS as the ensemble size grows
(theory ``ensemble.md#regret``).

The claim under test (paper key ``ensemblepp``, abstract; orders CONFIRMED,
constants OPEN): with M = Θ(d log T) Ensemble++ has regret comparable to exact
Thompson sampling.  The sweep plays, on common random numbers, exact TS,
LinUCB, greedy and Ensemble++ for every family of :data:`SWEEP_FAMILIES` and
every M of :func:`sweep_ms` on the finite-arm environment.

* :func:`finite_sweep` — the sweep as one :class:`~proofs_check.engine.experiment.Experiment`
  per dimension d (trial = one lock-step repetition; statistics ``final``,
  the final regret of every agent, and ``curve``, the cumulative regret of
  the agents of :func:`curve_labels` every ``T/200`` rounds).  The claims
  ``ensemble.regret.finite.*`` reduce it with :func:`final_gap`; the figures
  read it through :func:`~proofs_check.engine.measure` and :class:`RegretSweep`.
* :func:`smallest_m_within` — the smallest M within a margin of TS, with a
  bootstrap interval; :func:`smallest_m_on_grid` the censored point estimate.
* :func:`smallest_m_experiment` — the smallest M as a function of d (its own
  d-grid; trial = one replicate of ``n_inner`` repetitions per d), reduced by
  :func:`smallest_m_per_d` for the claim ``ensemble.regret.smallest_m_vs_d``.
* Issue 15: :func:`env_sweep` — TS against Gaussian Ensemble++ at
  M ∈ {d/4, d/2, d, 2d, 4d, 8d} on the compact (unit-sphere) and the
  changing-context environments (reduced by :func:`env_gap`);
  :func:`smallest_m_law_experiment` with the monotone (isotonic) criterion
  :func:`smallest_m_isotonic` for ``ensemble.regret.smallest_m_vs_d.isotonic``.

The experiments the claims and figures share are named in :mod:`.experiments`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from proofs_check.engine import Experiment
from proofs_check.engine import (as_generator, check_finite_array, check_instance,
                                          check_int, check_open_unit, check_real, shown)
from ._limits import check_choice

from ._limits import (MAX_D, MAX_K, MAX_M, MAX_N, MAX_T, check_cells, check_int_sequence,
                      check_mapping)
from .agents import EnsemblePP, ExactTS, Greedy, LinUCB
from .bandits import BanditResult, cumulative_regrets
from .index_families import INDEX_FAMILIES, PERTURBATION_FAMILIES
from .environments import ChangingContextEnv, FiniteArmEnv, SphereEnv

__all__ = ["SWEEP_FAMILIES", "sweep_ms", "sweep_agents", "family_label", "curve_labels", "curve_times",
           "sweep_trials", "finite_sweep", "final_gap", "RegretSweep", "SmallestM",
           "smallest_m_within", "smallest_m_on_grid", "MSTAR_GRID", "smallest_m_trials",
           "smallest_m_experiment", "smallest_m_per_d",
           "ENV_KINDS", "env_sweep_ms", "env_sweep_trials", "env_sweep", "env_gap",
           "isotonic_nonincreasing", "smallest_m_isotonic", "smallest_m_law_experiment",
           "smallest_m_isotonic_per_d"]

#: (index, perturbation) pairs of the sweep: matched families + classic ensemble sampling.
SWEEP_FAMILIES = (("gaussian", "gaussian"), ("sphere", "sphere"), ("cube", "cube"),
                  ("signed_coord", "signed_coord"), ("sparse", "sparse"), ("one_hot", "gaussian"))


def sweep_ms(d: int) -> tuple:
    """Ensemble sizes of the sweep: powers of two and d, 2d, 4d, 8d, up to 8d."""
    d = check_int("d", d, lo=1, hi=MAX_D)
    ms = {2**k for k in range(0, 20) if 2**k <= 8 * d} | {d, 2 * d, 4 * d, 8 * d}
    return tuple(sorted(ms))


def _check_ms(ms) -> tuple:
    return check_int_sequence("ms", ms, lo=1, hi=MAX_M, max_len=1000)


def _check_families(families) -> tuple:
    """``families`` as a tuple of (index, perturbation) pairs of known families."""
    if isinstance(families, (str, bytes, dict)) or not hasattr(families, "__iter__"):
        raise TypeError(f"families must be a sequence of (index, perturbation) pairs, got "
                        f"{shown(families)}")
    out = []
    for pair in families:
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise TypeError(f"families entries must be (index, perturbation) pairs, got {shown(pair)}")
        out.append((check_choice("families index", pair[0], INDEX_FAMILIES),
                    check_choice("families perturbation", pair[1], PERTURBATION_FAMILIES)))
        if len(out) > 100:
            raise ValueError("families must hold at most 100 pairs")
    if not out:
        raise ValueError("families must not be empty")
    return tuple(out)


def sweep_agents(d: int, *, families=SWEEP_FAMILIES, ms=None) -> tuple:
    """TS, LinUCB, Greedy, then Ensemble++ for every family and M (lock-step set)."""
    ms = sweep_ms(d) if ms is None else _check_ms(ms)
    families = _check_families(families)
    return (ExactTS(), LinUCB(), Greedy()) + tuple(EnsemblePP(M, i, p) for i, p in families
                                                    for M in ms)


def family_label(index: str, perturbation: str) -> str:
    """Family part of an :class:`EnsemblePP` label (``"gaussian"``, ``"ES"`` …)."""
    check_choice("index", index, INDEX_FAMILIES)
    check_choice("perturbation", perturbation, PERTURBATION_FAMILIES)
    return EnsemblePP(1, index, perturbation).label.split("[")[0]


@dataclass(frozen=True)
class SmallestM:
    """Smallest M on the grid from which on (this M and every larger one on the
    grid) the mean final regret is ≤ (1 + margin)·TS — "from which on" guards
    against a single lucky crossing at small M.

    ``m`` is the point estimate (``None`` if no M on the grid qualifies);
    ``ci`` the percentile-bootstrap interval over repetitions (paired
    resampling, ``n_boot`` resamples, seed ``seed``), ``None`` entries meaning
    "beyond the grid"; ``ratio`` the mean-regret ratio to TS per M.
    """

    family: str
    margin: float
    rule: str
    m: int | None
    ci: tuple
    level: float
    ms: tuple
    ratio: tuple
    n_boot: int
    seed: int

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def smallest_m_within(result, index: str, perturbation: str, *, margin: float = 0.10,
                      level: float = 0.90, n_boot: int = 2000, seed: int = 0,
                      rule: str = "from_which_on") -> SmallestM:
    """:class:`SmallestM` from a sweep result (a :class:`RegretSweep` or a
    :class:`~seqproj.ensemble.BanditResult` of the agents of :func:`sweep_agents`).

    ``rule="from_which_on"`` (default): the smallest grid M such that it and every
    larger grid M are within the margin; ``rule="first"``: the first grid M within
    the margin (optimistic: one lucky crossing suffices).
    """
    check_instance("result", result, (RegretSweep, BanditResult))
    margin = check_real("margin", margin, lo=0.0, hi=1e6)
    check_choice("rule", rule, ("from_which_on", "first"))
    level = check_open_unit("level", level)
    n_boot = check_int("n_boot", n_boot, lo=1, hi=10_000_000)
    seed = check_int("seed", seed, lo=0)
    fam = family_label(index, perturbation)
    pairs = [(int(lab.split("M=")[1].split("]")[0].split(",")[0]), i)
             for i, lab in enumerate(result.labels)
             if lab.startswith(fam + "[") and ",haar" not in lab]
    if not pairs:
        raise ValueError(f"no agent of family {fam!r} in the result (arguments index, perturbation)")
    pairs.sort()
    ms = tuple(m for m, _ in pairs)
    F = result.final[[i for _, i in pairs]]          # (n_M, n_reps)
    ts = result.final[result.index("TS")]             # (n_reps,)

    def first(mean_f, mean_ts):
        if rule == "first":
            ok = np.nonzero(mean_f <= (1.0 + margin) * mean_ts)[0]
            return ms[ok[0]] if ok.size else None
        bad = np.nonzero(mean_f > (1.0 + margin) * mean_ts)[0]
        k = 0 if bad.size == 0 else int(bad[-1]) + 1
        return ms[k] if k < len(ms) else None

    m_hat = first(F.mean(axis=1), ts.mean())
    g = np.random.default_rng(seed)
    n = ts.size
    big = 10 * max(ms)
    boots = []
    for _ in range(n_boot):
        r = g.integers(0, n, size=n)
        v = first(F[:, r].mean(axis=1), ts[r].mean())
        boots.append(big if v is None else v)
    lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf")
    ci = (None if lo == big else int(lo), None if hi == big else int(hi))
    return SmallestM(family=fam, margin=margin, rule=rule, m=m_hat, ci=ci, level=level, ms=ms,
                     ratio=tuple(float(x) for x in F.mean(axis=1) / ts.mean()), n_boot=n_boot,
                     seed=seed)


def smallest_m_on_grid(ms, final_means, ts_mean, margin):
    """The smallest grid M from which on (it and every larger grid M) the mean
    final regret is ≤ (1 + margin)·TS, or ``math.nan`` when the criterion is
    not met at the largest grid M, ``None`` (**censored**: "not reached on the
    grid" is not a number and is never replaced by one; :func:`smallest_m_per_d`
    records it as NaN).  ``ms`` is an increasing sequence of ensemble sizes,
    ``final_means`` one finite mean regret per grid M, ``ts_mean`` and
    ``margin ≥ 0`` finite reals."""
    ms = _check_ms(ms)
    if any(b <= a for a, b in zip(ms, ms[1:])):
        raise ValueError(f"ms must be strictly increasing, got {shown(ms)}")
    final_means = check_finite_array("final_means", final_means, ndim=1)
    if final_means.shape != (len(ms),):
        raise ValueError(f"final_means must have one entry per grid M ({len(ms)}), got shape "
                         f"{final_means.shape}")
    ts_mean = check_real("ts_mean", ts_mean)
    margin = check_real("margin", margin, lo=0.0, hi=1e6)
    with np.errstate(over="ignore"):
        good = final_means <= (1.0 + margin) * ts_mean
    bad = np.nonzero(~good)[0]
    first = 0 if bad.size == 0 else int(bad[-1]) + 1
    return float(ms[first]) if first < len(ms) else None


# ---------------------------------------------------------------------------
# the sweep as an experiment: one per d, read by the regret claims and figures
# ---------------------------------------------------------------------------

def curve_labels(d: int) -> tuple:
    """The agents whose cumulative-regret curves the sweep keeps: TS, four families at M = 8d,
    LinUCB and greedy."""
    M = 8 * check_int("d", d, lo=1, hi=MAX_D)
    return ("TS", f"gaussian[M={M}]", f"sphere[M={M}]", f"ES[M={M}]", f"signed_coord[M={M}]",
            "LinUCB", "Greedy")


def curve_times(T: int) -> np.ndarray:
    """The rounds at which the sweep keeps cumulative regret: every ``max(1, T // 200)``-th."""
    every = max(1, check_int("T", T, lo=1, hi=MAX_T) // 200)
    return np.arange(every, T + 1, every)


def sweep_trials(rng, n, *, d, K, T, ms=None) -> dict:
    """``n`` independent lock-step repetitions of the sweep (:func:`sweep_agents`).

    Returns ``final`` (``n × n_agents``, final regrets in the order of
    :func:`sweep_agents`) and ``curve`` (``n × len(curve_labels(d)) ×
    len(curve_times(T))``, cumulative regret at the rounds of :func:`curve_times`).  One root seed per repetition is drawn from ``rng``
    (:func:`~seqproj.ensemble.cumulative_regrets`), so the numbers equal those
    of :func:`~seqproj.ensemble.run_bandit` with the same seed and chunk size.
    """
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=MAX_N)
    d = check_int("d", d, lo=1, hi=MAX_D)
    K = check_int("K", K, lo=1, hi=MAX_K)
    T = check_int("T", T, lo=1, hi=MAX_T)
    agents = sweep_agents(d, ms=ms)
    labels = [a.label for a in agents]
    picks = [labels.index(lab) for lab in curve_labels(d) if lab in labels]
    cum = cumulative_regrets(rng, n, env=FiniteArmEnv(d, K), agents=agents, T=T)
    return {"final": cum[:, :, -1], "curve": cum[:, picks][:, :, curve_times(T) - 1]}


def finite_sweep(d: int, *, K: int = 1000, T: int = 2000, ms=None, chunk_size: int = 5) -> Experiment:
    """The finite-arm sweep at dimension ``d`` as an experiment (id
    ``ensemble.regret.finite.d<d>``; a smaller ``K``/``T``/``ms`` gets its own id)."""
    d = check_int("d", d, lo=1, hi=MAX_D)
    K = check_int("K", K, lo=1, hi=MAX_K)
    T = check_int("T", T, lo=1, hi=MAX_T)
    ms = sweep_ms(d) if ms is None else _check_ms(ms)
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=MAX_N)
    check_cells("the sweep's regrets of one chunk", chunk_size, T, 3 + len(SWEEP_FAMILIES) * len(ms))
    full = (K, T, ms) == (1000, 2000, sweep_ms(d))
    eid = f"ensemble.regret.finite.d{d}" + ("" if full else f".K{K}.T{T}.M{'-'.join(map(str, ms))}")
    return Experiment(id=eid, fn=functools.partial(sweep_trials, d=d, K=K, T=T, ms=ms),
                      chunk_size=chunk_size,
                      params={"d": d, "K": K, "T": T, "ms": list(ms),
                              "families": [list(f) for f in SWEEP_FAMILIES],
                              "theta_var": 10.0, "noise_sd": 1.0})


def final_gap(stats, *, d: int, label: str, margin: float, ms=None) -> np.ndarray:
    """Per repetition ``R_label − (1 + margin)·R_TS`` from the sweep's ``final`` statistic
    (the paired differences of the regret claims)."""
    labels = [a.label for a in sweep_agents(d, ms=ms)]
    check_instance("label", label, str)
    if label not in labels:
        raise ValueError(f"label {shown(label)} is not an agent of the sweep at d = {d}")
    margin = check_real("margin", margin, lo=0.0, hi=1e6)
    stats = check_mapping("stats", stats, ("final",))
    fin = check_finite_array("stats['final']", stats["final"], ndim=2)
    if fin.shape[1] != len(labels):
        raise ValueError(f"stats['final'] must have {len(labels)} columns (one per agent of the "
                         f"sweep at d = {d}), got shape {fin.shape}")
    with np.errstate(over="ignore", invalid="ignore"):
        out = fin[:, labels.index(label)] - (1.0 + margin) * fin[:, labels.index("TS")]
    if not np.all(np.isfinite(out)):
        raise ValueError("stats['final'] entries are too large: the gap overflows float64")
    return out


@dataclass(frozen=True)
class RegretSweep:
    """A measured sweep read back for plotting: ``final[i, r]`` is the final regret of
    agent ``labels[i]`` in repetition ``r`` (``ms`` the ensemble sizes of the sweep);
    ``curve[r, j, k]`` the cumulative regret of ``curve_labels[j]`` after round ``times[k]``."""

    labels: tuple
    ms: tuple
    final: np.ndarray
    curve_labels: tuple
    times: np.ndarray
    curve: np.ndarray
    T: int
    level: float = 0.95

    @classmethod
    def from_measurement(cls, measurement, *, level: float = 0.95) -> "RegretSweep":
        p = measurement.experiment.params
        d, T = int(p["d"]), int(p["T"])
        labels = tuple(a.label for a in sweep_agents(d, ms=p["ms"]))
        return cls(labels=labels, ms=tuple(int(m) for m in p["ms"]), final=np.ascontiguousarray(np.asarray(measurement.stats["final"]).T),
                   curve_labels=tuple(lab for lab in curve_labels(d) if lab in labels),
                   times=curve_times(T), curve=np.asarray(measurement.stats["curve"]),
                   T=T, level=check_real("level", level, lo=0.0, hi=1.0, lo_open=True, hi_open=True))

    @property
    def n_reps(self) -> int:
        return int(self.final.shape[1])

    def index(self, label: str) -> int:
        try:
            return self.labels.index(label)
        except ValueError:
            raise ValueError(f"unknown agent label {label!r}; have {list(self.labels)}") from None

    def _mean_ci(self, v):
        from scipy import stats as st

        m = v.mean(axis=0)
        if v.shape[0] < 2:
            return m, np.full_like(m, -np.inf), np.full_like(m, np.inf)
        h = st.t.ppf(0.5 + self.level / 2, v.shape[0] - 1) * v.std(axis=0, ddof=1) / math.sqrt(v.shape[0])
        return m, m - h, m + h

    def final_mean_ci(self, label: str):
        """Mean final regret of ``label`` and its ``level`` t-interval."""
        m, lo, hi = self._mean_ci(self.final[self.index(label)])
        return float(m), (float(lo), float(hi))

    def curve_mean_ci(self, label: str):
        """Mean cumulative regret of ``label`` at :attr:`times` and its pointwise t-band."""
        if label not in self.curve_labels:
            raise ValueError(f"no curve kept for {label!r}; have {list(self.curve_labels)}")
        return self._mean_ci(self.curve[:, self.curve_labels.index(label), :])


# ---------------------------------------------------------------------------
# the smallest M within 10% of TS as a function of d (its own d-grid)
# ---------------------------------------------------------------------------

#: Ensemble sizes of the smallest-M law (ratio ≈ 1.5); at each d the grid stops at 8d.
MSTAR_GRID = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)


def _mstar_ms(d: int) -> list:
    return [m for m in MSTAR_GRID if m <= 8 * d]


def smallest_m_trials(rng, n, *, ds, K, T, n_inner) -> dict:
    """``n`` independent replicates; per replicate and d, ``n_inner`` lock-step repetitions of
    TS and Gaussian Ensemble++ over :data:`MSTAR_GRID` (≤ 8d) on common random numbers.
    Statistic ``mean_final_d<d>`` (``n × (1 + n_M)``): the replicate's mean final regret of
    TS, then of each grid M."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=MAX_N)
    ds, K, T, n_inner = _check_smallest_m(ds, K, T, n_inner)
    out = {f"mean_final_d{d}": np.empty((n, 1 + len(_mstar_ms(d)))) for d in ds}
    for r in range(n):
        for d in ds:
            agents = (ExactTS(),) + tuple(EnsemblePP(m) for m in _mstar_ms(d))
            cum = cumulative_regrets(rng, n_inner, env=FiniteArmEnv(d, K), agents=agents, T=T)
            out[f"mean_final_d{d}"][r] = cum[:, :, -1].mean(axis=0)
    return out


def _check_smallest_m(ds, K, T, n_inner):
    ds = check_int_sequence("ds", ds, lo=1, hi=MAX_D, max_len=100)
    K = check_int("K", K, lo=1, hi=MAX_K)
    T = check_int("T", T, lo=1, hi=MAX_T)
    n_inner = check_int("n_inner", n_inner, lo=1, hi=MAX_N)
    check_cells("n_inner × agents × T regrets", n_inner, T, 1 + len(MSTAR_GRID))
    return ds, K, T, n_inner


def smallest_m_experiment(ds=(4, 8, 16, 32), *, K: int = 100, T: int = 500, n_inner: int = 30,
                          chunk_size: int = 1) -> Experiment:
    """The smallest-M replicates as an experiment (id ``ensemble.regret.smallest_m``)."""
    ds, K, T, n_inner = _check_smallest_m(ds, K, T, n_inner)
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=MAX_N)
    return Experiment(id="ensemble.regret.smallest_m",
                      fn=functools.partial(smallest_m_trials, ds=ds, K=K, T=T, n_inner=n_inner),
                      chunk_size=chunk_size,
                      params={"d": list(ds), "K": K, "T": T, "n_inner": n_inner,
                              "M_grid": list(MSTAR_GRID)})


def _per_replicate_and_d(stats, ds, margin, smallest, *, need_positive_ts: bool) -> np.ndarray:
    """``smallest(ms, final_row, margin)`` (``None`` → NaN: censored) for every replicate row of
    ``stats['mean_final_d<d>']`` (columns TS, then each grid M of ``_mstar_ms(d)``) and every d;
    validated; shape ``(n, len(ds))``."""
    ds = check_int_sequence("ds", ds, lo=1, hi=MAX_D, max_len=100)
    margin = check_real("margin", margin, lo=0.0, hi=1e6)
    stats = check_mapping("stats", stats, [f"mean_final_d{d}" for d in ds])
    cols = []
    for d in ds:
        ms = _mstar_ms(d)
        fin = check_finite_array(f"stats['mean_final_d{d}']", stats[f"mean_final_d{d}"], ndim=2)
        if fin.shape[1] != 1 + len(ms):
            raise ValueError(f"stats['mean_final_d{d}'] must have {1 + len(ms)} columns (TS and "
                             f"each grid M), got shape {fin.shape}")
        if need_positive_ts and np.any(fin[:, 0] <= 0):
            raise ValueError(f"stats['mean_final_d{d}'] has a non-positive TS regret; ratios "
                             "to TS are undefined")
        col = [smallest(ms, row, margin) for row in fin]
        cols.append([math.nan if m is None else m for m in col])
    return np.asarray(cols, dtype=float).T.reshape(-1, len(ds))


def smallest_m_per_d(stats, *, ds, margin: float) -> np.ndarray:
    """Per replicate and d the smallest grid M from which on Gaussian Ensemble++ is within
    ``margin`` of TS (:func:`smallest_m_on_grid`; NaN = censored), shape ``(n, len(ds))``."""
    return _per_replicate_and_d(stats, ds, margin,
                                lambda ms, row, mg: smallest_m_on_grid(ms, row[1:], row[0], mg),
                                need_positive_ts=False)


# ---------------------------------------------------------------------------
# issue 15: the compact (unit sphere) and changing-context sweeps
# ---------------------------------------------------------------------------

#: Environments of :func:`env_sweep`: ``"compact"`` = :class:`SphereEnv` (play θ̃/‖θ̃‖),
#: ``"contexts"`` = :class:`ChangingContextEnv` (K fresh arms N(0, I)/‖·‖ per round).
ENV_KINDS = ("compact", "contexts")


def env_sweep_ms(d: int) -> tuple:
    """Ensemble sizes of the environment sweeps: d/4, d/2 (both < d: rank-deficient A Aᵀ),
    d, 2d, 4d, 8d (8d ≈ d log T at T = 1000..3000), deduplicated, each ≥ 1."""
    d = check_int("d", d, lo=1, hi=MAX_D)
    return tuple(sorted({max(1, d // 4), max(1, d // 2), d, 2 * d, 4 * d, 8 * d}))


def _env(kind: str, d: int, K: int):
    check_choice("kind", kind, ENV_KINDS)
    return SphereEnv(d) if kind == "compact" else ChangingContextEnv(d, K)


def env_sweep_trials(rng, n, *, kind, d, K, T) -> dict:
    """``n`` independent lock-step repetitions of exact TS and Gaussian Ensemble++ at every M of
    :func:`env_sweep_ms` on the environment ``kind`` (common random numbers: the same θ*,
    contexts and noise for every agent; one root seed per repetition drawn from ``rng``).

    Returns ``final`` (``n × (1 + n_M)``): the final regret of TS, then of each M."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=MAX_N)
    d = check_int("d", d, lo=1, hi=MAX_D)
    K = check_int("K", K, lo=1, hi=MAX_K)
    T = check_int("T", T, lo=1, hi=MAX_T)
    env = _env(kind, d, K)
    ms = env_sweep_ms(d)
    check_cells("n × agents × T regrets", n, 1 + len(ms), T)
    agents = (ExactTS(),) + tuple(EnsemblePP(m) for m in ms)
    cum = cumulative_regrets(rng, n, env=env, agents=agents, T=T)
    return {"final": np.ascontiguousarray(cum[:, :, -1])}


def env_sweep(kind: str, d: int, *, K: int = 100, T: int = 1000, chunk_size: int = 10) -> Experiment:
    """The sweep of :func:`env_sweep_trials` as an experiment (id
    ``ensemble.regret.<kind>.d<d>``; non-default ``K``/``T`` get their own id).  ``K`` is
    ignored (recorded as ``None``) for the compact environment."""
    kind = check_choice("kind", kind, ENV_KINDS)
    d = check_int("d", d, lo=1, hi=MAX_D)
    K = check_int("K", K, lo=1, hi=MAX_K)
    T = check_int("T", T, lo=1, hi=MAX_T)
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=MAX_N)
    check_cells("one chunk's regrets", chunk_size, T, 1 + len(env_sweep_ms(d)))
    Kp = K if kind == "contexts" else None
    eid = f"ensemble.regret.{kind}.d{d}" + ("" if (K, T) == (100, 1000) else f".K{K}.T{T}")
    return Experiment(id=eid, fn=functools.partial(env_sweep_trials, kind=kind, d=d, K=K, T=T),
                      chunk_size=chunk_size,
                      params={"env": kind, "d": d, "K": Kp, "T": T, "ms": list(env_sweep_ms(d)),
                              "family": "gaussian", "theta_var": 10.0, "noise_sd": 1.0})


def env_gap(stats, *, d: int, M: int, factor: float) -> np.ndarray:
    """Per repetition ``R_EPP(M) − factor·R_TS`` from an environment sweep's ``final``
    statistic (columns TS, then :func:`env_sweep_ms` (d)); ``factor > 0``."""
    ms = env_sweep_ms(d)
    M = check_int("M", M, lo=1, hi=MAX_M)
    if M not in ms:
        raise ValueError(f"M = {M} is not on the sweep grid {list(ms)} of d = {d}")
    factor = check_real("factor", factor, lo=0.0, hi=1e6, lo_open=True)
    stats = check_mapping("stats", stats, ("final",))
    fin = check_finite_array("stats['final']", stats["final"], ndim=2)
    if fin.shape[1] != 1 + len(ms):
        raise ValueError(f"stats['final'] must have {1 + len(ms)} columns (TS and each M of "
                         f"{list(ms)}), got shape {fin.shape}")
    with np.errstate(over="ignore", invalid="ignore"):
        out = fin[:, 1 + ms.index(M)] - factor * fin[:, 0]
    if not np.all(np.isfinite(out)):
        raise ValueError("stats['final'] entries are too large: the gap overflows float64")
    return out


# ---------------------------------------------------------------------------
# issue 15: the smallest-M law with a monotone (isotonic) criterion
# ---------------------------------------------------------------------------

def isotonic_nonincreasing(y) -> np.ndarray:
    r"""Least-squares non-increasing fit of ``y`` (pool-adjacent-violators, equal weights):
    :math:`\hat f = \arg\min_{f_1\ge\dots\ge f_n}\sum_i (y_i-f_i)^2`.  Its last value is
    :math:`\min_k \operatorname{mean}(y_k,\dots,y_n)` (Barlow et al. 1972, min–max formula)."""
    y = check_finite_array("y", y, ndim=1)
    if y.size == 0:
        raise ValueError("y must not be empty")
    if y.size > 100_000:
        raise ValueError(f"y must hold at most 100000 values, got {y.size}")
    vals: list = []
    wts: list = []
    for v in y:
        vals.append(float(v))
        wts.append(1)
        while len(vals) > 1 and vals[-2] < vals[-1]:
            w = wts[-2] + wts[-1]
            v2 = (vals[-2] * wts[-2] + vals[-1] * wts[-1]) / w
            vals[-2:] = [v2]
            wts[-2:] = [w]
    return np.repeat(np.asarray(vals), np.asarray(wts))


def smallest_m_isotonic(ms, ratios, margin: float):
    """The smallest grid M at which the non-increasing (isotonic) fit of the regret ratios
    ``ratios[i] = mean R_EPP(ms[i]) / mean R_TS`` is ≤ 1 + ``margin``, or ``None`` — **censored**,
    not a number — when the fit exceeds it even at the largest M.

    The monotone criterion encodes "regret does not grow with M" (the posterior factor only
    improves, theory ``ensemble.md#tracking``) and replaces the raw "from which on" rule of
    :func:`smallest_m_on_grid`, which one noisy point near the top of the grid censors: the fit's
    last value is the smallest tail mean of the ratios, so censoring needs every tail average
    above the margin."""
    ms = _check_ms(ms)
    if any(b <= a for a, b in zip(ms, ms[1:])):
        raise ValueError(f"ms must be strictly increasing, got {shown(ms)}")
    ratios = check_finite_array("ratios", ratios, ndim=1)
    if ratios.shape != (len(ms),):
        raise ValueError(f"ratios must have one entry per grid M ({len(ms)}), got shape {ratios.shape}")
    margin = check_real("margin", margin, lo=0.0, hi=1e6)
    fit = isotonic_nonincreasing(ratios)
    ok = np.nonzero(fit <= 1.0 + margin)[0]
    return float(ms[int(ok[0])]) if ok.size else None


def smallest_m_law_experiment(ds, *, K: int = 100, T: int = 500, n_inner: int = 30) -> Experiment:
    """The replicates of :func:`smallest_m_trials` for the isotonic smallest-M law (id
    ``ensemble.regret.smallest_m_law``; Gaussian Ensemble++, one replicate per chunk), reduced by
    :func:`smallest_m_isotonic_per_d`."""
    ds, K, T, n_inner = _check_smallest_m(ds, K, T, n_inner)
    return Experiment(id="ensemble.regret.smallest_m_law",
                      fn=functools.partial(smallest_m_trials, ds=ds, K=K, T=T, n_inner=n_inner),
                      chunk_size=1,
                      params={"d": list(ds), "K": K, "T": T, "n_inner": n_inner,
                              "M_grid": list(MSTAR_GRID), "family": "gaussian"})


def smallest_m_isotonic_per_d(stats, *, ds, margin: float) -> np.ndarray:
    """Per replicate and d the isotonic smallest M (:func:`smallest_m_isotonic` on the
    replicate's ratios of mean final regret to TS); NaN = censored (never replaced by a
    number).  Shape ``(n, len(ds))``."""
    return _per_replicate_and_d(stats, ds, margin,
                                lambda ms, row, mg: smallest_m_isotonic(ms, row[1:] / row[0], mg),
                                need_positive_ts=True)
