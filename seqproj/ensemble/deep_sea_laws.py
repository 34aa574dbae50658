r"""Laws of the deep-exploration study beyond one average exponent (theory
``ensemble.md#deep-sea-laws``, issue 23 §3).

Input everywhere: per-replicate episodes to solve, an ``(n, len(Ns))`` array (a replicate is
one DeepSea instance per N, independent across N and across replicates; NaN = **censored**,
not solved within the budget, :mod:`.deep_exploration`).  Censored stays censored: it is
counted and reported, never replaced by a number.

* :func:`local_exponents` — the log–log slope on each run of ``width`` consecutive grid points,
  per replicate, with a Student-t interval over replicates (paired within a replicate, as
  :func:`.deep_exploration.fit_exponent`); a window with a censored run reports the count and
  no slope.
* :func:`curvature` — is the log–log curve bending?  Per replicate the quadratic coefficient
  ``q`` of :math:`\log y = a + b\,\ell + q\,\ell^2` (:math:`\ell = \log N`, centred) and the
  difference of the last and first local slopes, each with a t-interval.
* :func:`curvature_or_against` — the per-replicate ``q`` read by the claims
  ``ensemble.deepsea.{rlsvi,hyper}.curvature`` (a censored replicate counts against).
* Smallest index dimension: :func:`mstar_trials` / :func:`mstar_experiment` run exact RLSVI
  and HyperAgent at every M of a grid on common instances; :func:`paired_signs` is the
  per-instance criterion ``T_hyper ≤ factor · T_RLSVI`` as a sign; :func:`smallest_m` the
  smallest grid M from which on (it and every larger grid M) the mean sign is > 0 ("on more
  instances within the factor than not"), ``None`` = censored ``> M_max``;
  :func:`smallest_m_table` adds a bootstrap interval per N and :func:`mstar_log_slope` the
  slope of M* against :math:`\log(2N^2)`.

Intervals.  The t-intervals of :func:`local_exponents` and :func:`curvature` treat the ``R``
per-replicate statistics as iid (true by construction: independent instances and agent
streams); Student's t is then exact only if they are normal, so the intervals are
**approximate** (asymptotically valid by the central limit theorem, coverage → level as
R → ∞).  They measure replicate noise at the given grid, not the error of reading a power law
into a curve.  The bootstrap intervals of the smallest-M functions are percentile intervals
(Efron & Tibshirani 1993, ch. 13), also asymptotic only, and on a discrete grid coarse.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as st

from proofs_check.engine import Experiment, as_generator, check_finite_array, check_int, check_real

from ._limits import check_int_sequence
from .deep_exploration import (NOISE_SD, _check_episodes, episodes_column, make_agent,
                               run_deep_sea)
from .deepsea import DeepSea

__all__ = ["LocalExponent", "local_exponents", "Curvature", "curvature", "curvature_or_against",
           "MSTAR_MS", "MSTAR_FACTOR", "mstar_trials", "mstar_experiment", "paired_signs",
           "mstar_signs", "smallest_m", "smallest_m_table", "mstar_log_slope"]

#: Index dimensions of the smallest-M law (fixed before any run).
MSTAR_MS = (1, 2, 3, 4, 6, 8, 12, 16)
#: The factor of the smallest-M criterion ``T_hyper ≤ 1.5 · T_RLSVI`` (fixed before any run).
MSTAR_FACTOR = 1.5


def _t_interval(v, level):
    """Mean of ``v`` with its Student-t interval (``None`` for fewer than two values)."""
    m = float(np.mean(v))
    if v.size < 2:
        return m, None
    h = st.t.ppf(0.5 + level / 2, v.size - 1) * float(np.std(v, ddof=1)) / math.sqrt(v.size)
    return m, (m - float(h), m + float(h))


@dataclass(frozen=True)
class LocalExponent:
    """The log–log slope of episodes to solve on the grid points ``Ns`` (one window).

    ``exponent``/``ci`` are ``None`` when ``censored > 0`` (runs of the window with a censored
    value) or fewer than two points; ``ci`` is ``None`` with one replicate."""

    agent: str
    Ns: tuple
    exponent: float | None
    ci: tuple | None
    level: float
    censored: int
    replicates: int

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def local_exponents(Ns, episodes, *, width: int = 3, level: float = 0.95,
                    agent: str = "") -> tuple:
    r"""One :class:`LocalExponent` per window ``Ns[i : i + width]`` (``i = 0, 1, …``).

    Per replicate ``r`` the least-squares slope :math:`s_r` of :math:`\log\max(y_{r,N}, 1)` on
    :math:`\log N` over the window; the exponent is :math:`\bar s` with the interval
    :math:`\bar s \pm t_{R-1,\,(1+\text{level})/2}\,\mathrm{sd}(s)/\sqrt R` (approximate: see the
    module docstring).  A window in which any run is censored reports the number of such runs
    and no slope (dropping them would bias the slope down: the censored are the slow ones)."""
    Ns, y, level = _check_episodes(Ns, episodes, level)
    width = check_int("width", width, lo=2, hi=max(2, len(Ns)))
    if len(Ns) < width:
        raise ValueError(f"Ns must have at least width = {width} points, got {len(Ns)}")
    out = []
    for i in range(len(Ns) - width + 1):
        w = y[:, i:i + width]
        cens = int(np.isnan(w).any(axis=1).sum())
        exp = ci = None
        if cens == 0:
            lx = np.log(np.asarray(Ns[i:i + width], float))
            slopes = np.polyfit(lx, np.log(np.maximum(w, 1.0)).T, 1)[0]
            exp, ci = _t_interval(np.atleast_1d(slopes), level)
        out.append(LocalExponent(agent=str(agent), Ns=tuple(Ns[i:i + width]), exponent=exp, ci=ci,
                                 level=level, censored=cens, replicates=int(y.shape[0])))
    return tuple(out)


@dataclass(frozen=True)
class Curvature:
    """Bending of the log–log curve on ``Ns_used`` (the uncensored prefix of the grid).

    ``quad``/``quad_ci`` — mean per-replicate quadratic coefficient of :math:`\\log y` on
    centred :math:`\\log N` with its t-interval; ``slope_diff``/``slope_diff_ci`` — mean of
    (last − first local slope, windows of ``width``); ``None`` where the prefix is too short;
    ``censored`` — censored runs per grid N."""

    agent: str
    Ns: tuple
    Ns_used: tuple
    width: int
    quad: float | None
    quad_ci: tuple | None
    slope_diff: float | None
    slope_diff_ci: tuple | None
    level: float
    censored: tuple
    replicates: int

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def _quad_coefs(Ns, y):
    """Per row of ``y`` (no NaN) the quadratic coefficient of ``log max(y, 1)`` on centred ``log N``."""
    lx = np.log(np.asarray(Ns, float))
    lx = lx - lx.mean()
    return np.atleast_1d(np.polyfit(lx, np.log(np.maximum(y, 1.0)).T, 2)[0])


def curvature(Ns, episodes, *, width: int = 3, level: float = 0.95, agent: str = "") -> Curvature:
    r""":class:`Curvature` of an ``(n, len(Ns))`` array (NaN = censored).

    Uses the longest prefix of the grid on which no run is censored (as
    :func:`.deep_exploration.fit_exponent`).  Per replicate ``r``: the quadratic coefficient
    :math:`q_r` of the least-squares fit :math:`\log y = a + b\ell + q\ell^2` (``ℓ`` = centred
    :math:`\log N`; needs ≥ 3 points) and :math:`\Delta_r = s_{r,\text{last}} -
    s_{r,\text{first}}` of the local slopes of :func:`local_exponents` (needs ≥ width + 1
    points).  A power law ``y = cN^a`` has ``q = Δ = 0``; a local exponent that rises with N has
    ``q, Δ > 0``.  Both come with the Student-t interval over replicates (approximate, iid
    replicates, exact only for normal statistics — module docstring)."""
    Ns, y, level = _check_episodes(Ns, episodes, level)
    width = check_int("width", width, lo=2, hi=1000)
    cens = np.isnan(y).sum(axis=0)
    k = int(np.argmax(cens > 0)) if np.any(cens > 0) else len(Ns)
    used = tuple(Ns[:k])
    quad = quad_ci = dif = dif_ci = None
    if k >= 3:
        quad, quad_ci = _t_interval(_quad_coefs(used, y[:, :k]), level)
    if k >= width + 1:
        ly = np.log(np.maximum(y[:, :k], 1.0))
        lx = np.log(np.asarray(used, float))
        first = np.polyfit(lx[:width], ly[:, :width].T, 1)[0]
        last = np.polyfit(lx[k - width:], ly[:, k - width:].T, 1)[0]
        dif, dif_ci = _t_interval(np.atleast_1d(last - first), level)
    return Curvature(agent=str(agent), Ns=tuple(Ns), Ns_used=used, width=width, quad=quad,
                     quad_ci=quad_ci, slope_diff=dif, slope_diff_ci=dif_ci, level=level,
                     censored=tuple(int(c) for c in cens), replicates=int(y.shape[0]))


def curvature_or_against(stats, *, agent: str, Ns) -> np.ndarray:
    r"""Per replicate of ``stats['episodes_<agent>']`` the quadratic coefficient ``q`` of
    :func:`curvature` on the whole grid ``Ns``, or ``−1.0`` for a replicate censored at some N
    (counted **against** "the curve bends upwards": conservative, never dropped).  Read through
    :func:`proofs_check.engine.sign_of`, so only the sign of each value matters."""
    Ns = check_int_sequence("Ns", Ns, lo=1, hi=100_000, max_len=1000)
    if len(Ns) < 3:
        raise ValueError(f"Ns must have at least 3 points for a quadratic fit, got {len(Ns)}")
    y = episodes_column(stats, agent=agent)
    if y.ndim != 2 or y.shape[1] != len(Ns):
        raise ValueError(f"stats['episodes_{agent}'] must have shape (n, {len(Ns)}), got {y.shape}")
    out = np.full(y.shape[0], -1.0)
    ok = ~np.isnan(y).any(axis=1)
    if ok.any():
        out[ok] = _quad_coefs(Ns, y[ok])
    return out


# ---------------------------------------------------------------------------
# the smallest index dimension M at which HyperAgent keeps up with exact RLSVI
# ---------------------------------------------------------------------------

def _check_ms(ms):
    ms = check_int_sequence("ms", ms, lo=1, hi=1024, max_len=64)
    if any(b <= a for a, b in zip(ms, ms[1:])):
        raise ValueError(f"ms must be strictly increasing, got {list(ms)}")
    return ms


def mstar_trials(rng, n, *, Ns, ms=MSTAR_MS, noise_sd=NOISE_SD, budget_extra=200) -> dict:
    """``n`` independent instances at every N of ``Ns``, played by exact RLSVI and by
    HyperAgent (closed form) at every index dimension of ``ms``, all on the **same** instances
    (common action mappings; each agent its own stream).  Statistics ``episodes_rlsvi`` and
    ``episodes_m<M>``, each ``(n, len(Ns))``, NaN = censored at ``N² + budget_extra``."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=1, hi=10_000)
    Ns = check_int_sequence("Ns", Ns, lo=2, hi=200, max_len=50)
    ms = _check_ms(ms)
    noise_sd = check_real("noise_sd", noise_sd, lo=1e-6, hi=1e6)
    budget_extra = check_int("budget_extra", budget_extra, lo=0, hi=1_000_000)
    out = {"episodes_rlsvi": np.full((n, len(Ns)), np.nan),
           **{f"episodes_m{m}": np.full((n, len(Ns)), np.nan) for m in ms}}
    for j, N in enumerate(Ns):
        env_seed, *seeds = rng.spawn(1 + 1 + len(ms))
        mapping = DeepSea(N, batch=n, rng=np.random.default_rng(env_seed)).mapping
        for (key, kw), s in zip([("episodes_rlsvi", None)] + [(f"episodes_m{m}", m) for m in ms], seeds):
            g = np.random.default_rng(s)
            env = DeepSea(N, batch=n, rng=g)
            env.mapping = mapping.copy()
            agent = (make_agent("rlsvi", N, batch=n, rng=g, noise_sd=noise_sd) if kw is None else
                     make_agent("hyper", N, batch=n, rng=g, noise_sd=noise_sd, M=kw))
            out[key][:, j] = run_deep_sea(agent, env, N * N + budget_extra)["solve"]
    return out


def mstar_experiment(name: str, *, Ns, ms=MSTAR_MS, chunk_size: int = 8) -> Experiment:
    """:func:`mstar_trials` as an experiment (id ``ensemble.deepsea.<name>``)."""
    Ns = check_int_sequence("Ns", Ns, lo=2, hi=200, max_len=50)
    ms = _check_ms(ms)
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=10_000)
    return Experiment(id=f"ensemble.deepsea.{name}",
                      fn=functools.partial(mstar_trials, Ns=Ns, ms=ms), chunk_size=chunk_size,
                      params={"agents": ["rlsvi", "hyper"], "Ns": list(Ns), "M_grid": list(ms),
                              "noise_sd": NOISE_SD, "budget": "N^2 + 200",
                              "factor": MSTAR_FACTOR})


def paired_signs(t_hyper, t_ref, *, factor: float = MSTAR_FACTOR) -> np.ndarray:
    r"""Per instance :math:`\operatorname{sign}(\text{factor}\cdot T_\text{ref} - T_\text{hyper})`
    (``e = 0`` counts as 1): +1 when HyperAgent is within the factor of the reference on the
    instance, −1 when not, 0 on a tie.  Censoring (NaN), decided conservatively against
    HyperAgent: HyperAgent censored → −1 (also when the reference is censored too); reference
    censored and HyperAgent solved → +1 (``T_ref`` > budget ≥ ``T_hyper``, factor ≥ 1).  Its mean
    is :math:`P(T_h < fT_r) - P(T_h > fT_r)`, > 0 iff more instances are within the factor than
    not (the paired median of ``T_h/T_r`` is ≤ f)."""
    h = check_finite_array("t_hyper", t_hyper, ndim=1, finite=False)
    r = check_finite_array("t_ref", t_ref, ndim=1, finite=False)
    if h.shape != r.shape:
        raise ValueError(f"t_hyper and t_ref must have one shape, got {h.shape} and {r.shape}")
    if np.any(np.isinf(h)) or np.any(np.isinf(r)) or np.any(h[~np.isnan(h)] < 0) \
            or np.any(r[~np.isnan(r)] < 0):
        raise ValueError("t_hyper and t_ref must be ≥ 0 or NaN (censored)")
    factor = check_real("factor", factor, lo=1.0, hi=1e6)
    with np.errstate(invalid="ignore"):
        s = np.sign(factor * np.maximum(r, 1.0) - np.maximum(h, 1.0))
    s = np.where(np.isnan(r), 1.0, s)
    return np.where(np.isnan(h), -1.0, s)


def mstar_signs(stats, *, M: int, j: int = 0, factor: float = MSTAR_FACTOR) -> np.ndarray:
    """:func:`paired_signs` of HyperAgent with index dimension ``M`` against exact RLSVI at grid
    column ``j`` of a :func:`mstar_trials` result (the statistic of the smallest-M claims)."""
    M = check_int("M", M, lo=1, hi=1024)
    j = check_int("j", j, lo=0, hi=1000)
    cols = []
    for key in ("episodes_rlsvi", f"episodes_m{M}"):
        if not hasattr(stats, "keys") or key not in stats:
            raise ValueError(f"stats must hold {key!r}")
        y = np.asarray(stats[key], dtype=float)
        if y.ndim != 2 or not 0 <= j < y.shape[1]:
            raise ValueError(f"stats[{key!r}] must be (n, len(Ns)) with column {j}, got {y.shape}")
        cols.append(y[:, j])
    return paired_signs(cols[1], cols[0], factor=factor)


def smallest_m(ms, signs):
    """The smallest grid M from which on (it and every larger grid M) the mean of the paired
    signs is > 0, or ``None`` — **censored** ("> max(ms)", not a number) — when the largest M
    fails.  ``signs``: ``(len(ms), n)`` array of :func:`paired_signs` rows.  The "from which on"
    rule makes the estimate monotone by construction: a small M that qualifies by luck below a
    failing larger M does not count."""
    ms = _check_ms(ms)
    s = check_finite_array("signs", signs, ndim=2)
    if s.shape[0] != len(ms) or s.shape[1] < 1:
        raise ValueError(f"signs must have shape ({len(ms)}, n ≥ 1), got {s.shape}")
    if not np.all(np.isin(s, (-1.0, 0.0, 1.0))):
        raise ValueError("signs must hold only -1, 0, 1")
    bad = np.nonzero(~(s.mean(axis=1) > 0))[0]
    first = 0 if bad.size == 0 else int(bad[-1]) + 1
    return float(ms[first]) if first < len(ms) else None


def _signs_at(stats, ms, j, factor):
    return np.stack([mstar_signs(stats, M=m, j=j, factor=factor) for m in ms])


def smallest_m_table(stats, *, Ns, ms=MSTAR_MS, factor: float = MSTAR_FACTOR,
                     level: float = 0.95, n_boot: int = 1000, seed: int = 0) -> list:
    """Per N of the grid: ``{"N", "rule_M", "mstar", "ci", "censored_frac", "n", "mean_sign"}``
    — :func:`smallest_m` (``None`` = censored) with a percentile bootstrap interval (instances
    resampled, paired across the agents; ``n_boot``, ``seed``), the fraction of resamples in
    which M* is censored (an interval end is ``None`` = "> max(ms)" when that fraction exceeds
    its tail), the study's ``rule_M = ⌈2 log(2N²)⌉`` and the mean sign per grid M."""
    from .deep_exploration import index_dim

    Ns = check_int_sequence("Ns", Ns, lo=2, hi=200, max_len=50)
    ms = _check_ms(ms)
    factor = check_real("factor", factor, lo=1.0, hi=1e6)
    level = check_real("level", level, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    n_boot = check_int("n_boot", n_boot, lo=1, hi=1_000_000)
    seed = check_int("seed", seed, lo=0)
    g = np.random.default_rng(seed)
    rows = []
    for j, N in enumerate(Ns):
        S = _signs_at(stats, ms, j, factor)
        n = S.shape[1]
        boot = []
        for _ in range(n_boot):
            m = smallest_m(ms, S[:, g.integers(0, n, size=n)])
            boot.append(math.inf if m is None else m)
        boot = np.asarray(boot)
        lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf")
        rows.append({"N": int(N), "rule_M": index_dim(N), "mstar": smallest_m(ms, S),
                     "ci": (float(lo) if np.isfinite(lo) else None,
                            float(hi) if np.isfinite(hi) else None),
                     "censored_frac": float(np.mean(~np.isfinite(boot))), "n": int(n),
                     "mean_sign": [float(v) for v in S.mean(axis=1)]})
    return rows


def mstar_log_slope(stats, *, Ns, ms=MSTAR_MS, factor: float = MSTAR_FACTOR, level: float = 0.95,
                    n_boot: int = 1000, seed: int = 0) -> dict:
    r"""Does M* grow like :math:`\log N`?  The least-squares slope ``b`` of M*(N) on
    :math:`\log(2N^2)` over the grid (``b ≈ c`` if :math:`M^* \approx c\log(2N^2)`, ``b ≈ 0``
    if M* does not grow), with a percentile bootstrap interval (instances resampled within each
    N; the grids' instances are independent).  A censored M* at some N makes that slope
    undefined: the point estimate is then ``None`` and a resample with a censored M* counts as
    +∞ (so an interval end may be ``None``, "unbounded").  Coarse: M* lives on a grid."""
    Ns = check_int_sequence("Ns", Ns, lo=2, hi=200, max_len=50)
    if len(Ns) < 2:
        raise ValueError(f"Ns must have at least 2 points, got {len(Ns)}")
    ms = _check_ms(ms)
    factor = check_real("factor", factor, lo=1.0, hi=1e6)
    level = check_real("level", level, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    n_boot = check_int("n_boot", n_boot, lo=1, hi=1_000_000)
    seed = check_int("seed", seed, lo=0)
    lx = np.log(2.0 * np.asarray(Ns, float) ** 2)
    S = [_signs_at(stats, ms, j, factor) for j in range(len(Ns))]

    def slope(mst):
        if any(m is None for m in mst):
            return math.inf
        return float(np.polyfit(lx, np.asarray(mst, float), 1)[0])

    point = slope([smallest_m(ms, s) for s in S])
    g = np.random.default_rng(seed)
    boot = np.asarray([slope([smallest_m(ms, s[:, g.integers(0, s.shape[1], size=s.shape[1])])
                              for s in S]) for _ in range(n_boot)])
    lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf")
    return {"Ns": list(Ns), "slope": point if math.isfinite(point) else None,
            "ci": (float(lo) if np.isfinite(lo) else None, float(hi) if np.isfinite(hi) else None),
            "level": level, "n_boot": n_boot, "seed": seed}
