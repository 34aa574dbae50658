"""Statistics behind verdicts (``docs/theory/engine.md`` §2).

* :func:`clopper_pearson` — exact binomial interval (``scipy.stats.binomtest``'s
  ``method='exact'``), used at a fixed budget.
* :func:`log_e_below` / :func:`log_e_above` — anytime-valid test
  supermartingales (truncated-beta mixtures of likelihood ratios against
  ``p = δ``).  By Ville's inequality ``P(sup_n E_n ≥ 1/a) ≤ a`` under the
  null, at every stopping time, so a run may stop at the first chunk where
  one of them crosses its threshold.
* :func:`probability_cs` — the anytime-valid confidence sequence that
  inverts those e-values (coherent with the anytime verdict: ``δ`` lies
  outside it exactly when the anytime test decides).
* :func:`hall_interval` — Hall's skewness-corrected t-interval on a mean
  (asymptotic), used for comparisons without declared bounds.
* :func:`t_interval` — Student-t interval on a mean, used for scaling slopes.
* :func:`binomial_dispersion_pvalue`, :func:`anova_dispersion_pvalue` — tests
  that chunks agree more than independent trials allow (clustered trials);
  the binomial one is exact (conditional on the total) from 2 chunks on.
* :func:`block_dispersion_pvalue` — the same F-test on blocks of consecutive
  trials *within* chunks, so a run that stopped after one chunk is checked too.
"""
from __future__ import annotations

import math

import numpy as np


class _Lazy:
    """A SciPy module imported on first use (``scipy.stats`` costs ~1 s, ``scipy.special``
    a third of that; the CLI answers bad input, and claims are declared, before any
    statistics are needed)."""

    def __init__(self, module: str):
        self._module = module

    def __getattr__(self, name):
        import importlib

        return getattr(importlib.import_module(self._module), name)


_st = _Lazy("scipy.stats")
_sp = _Lazy("scipy.special")

#: p-value below which chunks are reported as disagreeing more than independent
#: trials allow (fixed in advance; a false warning has probability ≤ 1e-3).
DISPERSION_LEVEL = 1e-3

__all__ = ["DISPERSION_LEVEL", "clopper_pearson", "beta_prior", "log_e_below", "log_e_above", "anytime_decision",
           "probability_cs", "trials_to_decide", "t_interval", "slope_interval", "hall_interval",
           "sample_skewness", "binomial_dispersion_pvalue", "anova_dispersion_pvalue", "block_size",
           "block_dispersion_pvalue"]


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided exact ``1 − α`` interval for a binomial proportion ``k/n``."""
    if n <= 0:
        return (0.0, 1.0)
    lo = 0.0 if k == 0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(_st.beta.isf(alpha / 2, k + 1, n - k))
    return (lo, hi)


def beta_prior(delta: float) -> tuple[float, float]:
    """Mixing prior ``Beta(a, b)`` with mean ``δ`` (``a = 1``, ``b = (1 − δ)/δ``, at least 1)."""
    return 1.0, max(1.0, (1.0 - delta) / delta)


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


def log_e_below(k: int, n: int, delta: float, a: float = 1.0, b: float | None = None) -> float:
    """log of the e-value certifying ``p < δ`` after ``k`` events in ``n`` trials.

    .. math::
        E = \\frac{B(k+a, n-k+b)\\, I_δ(k+a, n-k+b)}{B(a, b)\\, I_δ(a, b)}
            \\Big/ \\big(δ^k (1-δ)^{n-k}\\big)

    the likelihood ratio mixed over ``q ∈ [0, δ)`` with a truncated
    ``Beta(a, b)`` prior.  A supermartingale under every ``p ≥ δ``
    (DERIVED, ``docs/theory/engine.md`` §2).
    """
    if b is None:
        a, b = beta_prior(delta)
    return (_sp.betaln(k + a, n - k + b) + _log(_sp.betainc(k + a, n - k + b, delta))
            - _sp.betaln(a, b) - _log(_sp.betainc(a, b, delta))
            - k * math.log(delta) - (n - k) * math.log1p(-delta))


def log_e_above(k: int, n: int, delta: float, a: float = 1.0, b: float | None = None) -> float:
    """Mirror of :func:`log_e_below`: mixes over ``q ∈ (δ, 1]``; certifies ``p > δ``."""
    if b is None:
        a, b = beta_prior(delta)
    return (_sp.betaln(k + a, n - k + b) + _log(_sp.betaincc(k + a, n - k + b, delta))
            - _sp.betaln(a, b) - _log(_sp.betaincc(a, b, delta))
            - k * math.log(delta) - (n - k) * math.log1p(-delta))


def anytime_decision(k: int, n: int, delta: float, alpha: float) -> str | None:
    """``"holds"``/``"refuted"`` once an e-value passes ``2/α``, else ``None``.

    Each direction spends ``α/2``, so at ``p = δ`` (both nulls true) the
    probability of any verdict is at most ``α``.
    """
    thr = math.log(2.0 / alpha)
    if log_e_below(k, n, delta) >= thr:
        return "holds"
    if log_e_above(k, n, delta) >= thr:
        return "refuted"
    return None


def probability_cs(k: int, n: int, alpha: float, tol: float = 1e-10) -> tuple[float, float]:
    """Anytime-valid ``1 − α`` confidence sequence for ``p`` after ``k`` events in ``n`` trials.

    The set of ``q`` that neither one-sided test rejects at ``2/α``:
    ``{q : log_e_below(k, n, q) < log(2/α) and log_e_above(k, n, q) < log(2/α)}``
    (each test with its own prior :func:`beta_prior` ``(q)``, fixed before the
    data).  For the true ``p`` both are supermartingales, so by Ville's
    inequality the sequence misses ``p`` at some time with probability ≤ α.
    It is coherent with :func:`anytime_decision`: ``δ`` lies outside the
    interval exactly when the anytime test at ``δ`` decides.  Endpoints are
    found by bisection from ``p̂ = k/n`` (to ``tol``).
    """
    if n <= 0:
        return (0.0, 1.0)
    thr = math.log(2.0 / alpha)
    p_hat = k / n

    def bisect(f, inside, outside):
        # f(inside) False (not rejected), f(outside) True (rejected)
        for _ in range(200):
            if abs(outside - inside) <= tol:
                break
            mid = 0.5 * (inside + outside)
            if f(mid):
                outside = mid
            else:
                inside = mid
        return outside

    def rej_below(q):
        return log_e_below(k, n, q) >= thr

    def rej_above(q):
        return log_e_above(k, n, q) >= thr

    top = 1.0 - 1e-15
    hi = 1.0 if k == n or not rej_below(top) else bisect(rej_below, max(p_hat, 1e-300), top)
    lo = 0.0 if k == 0 or not rej_above(1e-300) else bisect(rej_above, min(p_hat, top), 1e-300)
    return (lo, hi)


def trials_to_decide(k: int, n: int, delta: float, alpha: float, power: float = 0.8) -> int | None:
    """Rough number of further trials after which a fixed-n interval would
    likely exclude δ, if the true p equals the current estimate; ``None`` if
    the estimate equals δ."""
    p = (k + 0.5) / (n + 1.0)
    if abs(p - delta) < 1e-15:
        return None
    z = _st.norm.isf(alpha / 2) + _st.norm.ppf(power)
    need = z * z * p * (1 - p) / (p - delta) ** 2
    return max(0, int(math.ceil(need - n)))


def t_interval(mean: float, sd: float, n: int, alpha: float) -> tuple[float, float]:
    """``mean ± t_{n−1, 1−α/2} sd/√n`` (``(−inf, inf)`` when ``n < 2``)."""
    if n < 2 or not np.isfinite(sd):
        return (-math.inf, math.inf)
    h = float(_st.t.isf(alpha / 2, n - 1)) * sd / math.sqrt(n)
    return (mean - h, mean + h)


def slope_interval(x, y, alpha: float) -> tuple[float, float, float]:
    """Least-squares slope of ``y`` on ``x`` and its ``1 − α`` t-interval."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = x.size
    xc = x - x.mean()
    sxx = float(xc @ xc)
    slope = float(xc @ (y - y.mean()) / sxx)
    if n < 3:
        return slope, -math.inf, math.inf
    resid = y - y.mean() - slope * xc
    se = math.sqrt(float(resid @ resid) / (n - 2) / sxx)
    h = float(_st.t.isf(alpha / 2, n - 2)) * se
    return slope, slope - h, slope + h


def sample_skewness(x) -> float:
    """Adjusted Fisher–Pearson skewness ``G1 = g1·√(n(n−1))/(n−2)`` (0 for ``n < 3``
    or zero variance)."""
    x = np.asarray(x, float)
    n = x.size
    if n < 3:
        return 0.0
    d = x - x.mean()
    m2 = float(d @ d) / n
    if m2 <= 0:
        return 0.0
    g1 = float(np.mean(d ** 3)) / m2 ** 1.5
    return g1 * math.sqrt(n * (n - 1)) / (n - 2)


def hall_interval(x, alpha: float) -> tuple[float, float]:
    """Hall's skewness-corrected ``1 − α`` interval for the mean of ``x``.

    P. Hall, "On the removal of skewness by transformation", JRSS-B 54 (1992)
    221–228.  With ``T = (x̄ − μ)/s``, skewness estimate ``γ`` (the adjusted
    :func:`sample_skewness`) and ``a = γ/3``, the statistic
    ``√n·g(T)``, ``g(T) = T + aT² + a²T³/3 + γ/(6n)``, is closer to normal than
    ``√n·T`` (its skewness term cancels).  ``g`` is increasing
    (``g' = (1 + aT)²``) with inverse
    ``g⁻¹(y) = ((1 + 3a(y − γ/(6n)))^{1/3} − 1)/a``, so the interval is
    ``[x̄ − s·g⁻¹(q/√n), x̄ − s·g⁻¹(−q/√n)]`` with ``q = t_{n−1, 1−α/2}`` (the
    Student quantile in place of Hall's normal one: measured on Exp(1)−1 the
    one-sided miss rate stays within 1.3× nominal for α ≥ 0.05, n ≥ 40).
    Asymptotic: no finite-sample guarantee.  ``(−inf, inf)`` for ``n < 3``;
    the point ``(x̄, x̄)`` when ``s = 0`` (callers must not decide on it).
    """
    x = np.asarray(x, float)
    n = x.size
    if n < 3:
        return (-math.inf, math.inf)
    m = float(x.mean())
    s = float(x.std(ddof=1))
    if s == 0.0:
        return (m, m)
    gam = sample_skewness(x)
    a = gam / 3.0
    q = float(_st.t.isf(alpha / 2, n - 1))

    def ginv(y):
        if abs(a) < 1e-12:
            return y - gam / (6 * n)
        return (math.copysign(abs(1 + 3 * a * (y - gam / (6 * n))) ** (1 / 3),
                              1 + 3 * a * (y - gam / (6 * n))) - 1) / a

    return (m - s * ginv(q / math.sqrt(n)), m - s * ginv(-q / math.sqrt(n)))


#: Chunks up to which :func:`binomial_dispersion_pvalue` uses the exact conditional
#: (Monte Carlo) test; above, Pearson's χ² approximation (J − 1 degrees of freedom).
DISPERSION_MC_MAX_CHUNKS = 100
#: Null draws of the conditional Monte Carlo dispersion test: p-values are multiples
#: of 1/(B + 1), so ``DISPERSION_LEVEL`` = 2/(B + 1) is reachable exactly (B·J
#: hypergeometric draws: about 0.1 s at J = 100).
DISPERSION_MC_DRAWS = 1_999


def binomial_dispersion_pvalue(events, n_per: int) -> float | None:
    """p-value of the test that per-chunk event counts ``k_1..k_J`` are
    Binomial(``n_per``, p) with one p (independent trials), against extra
    variation across chunks (clustered trials).  Small values mean the chunks
    disagree more than independent trials allow.

    The test is conditional on the total ``K = Σ k_j``, which removes the unknown
    p: under independence the counts given ``K`` follow the multivariate
    hypergeometric law (``K`` events spread over ``J·n_per`` exchangeable trials;
    Fisher's argument for exact tests of a 2×J table, e.g. Agresti, *Categorical
    Data Analysis*, 3rd ed., §3.5).  The statistic is Pearson's
    ``X² = Σ (k_j − K/J)² / (n_per p̂ (1 − p̂))``, for a fixed ``K`` an increasing
    function of ``T = Σ k_j²``; the p-value is ``P(T* ≥ T | K)``:

    * ``J = 2``: exact, ``k_1 ~ Hypergeom(2·n_per, K, n_per)``,
      ``p = P(|k_1* − K/2| ≥ |k_1 − K/2|)``;
    * ``3 ≤ J ≤`` :data:`DISPERSION_MC_MAX_CHUNKS` when ``J < 5`` or fewer than 5
      events (or non-events) per chunk are expected: a Monte Carlo test with
      ``B =`` :data:`DISPERSION_MC_DRAWS` null draws, ``p = (1 + #{T* ≥ T})/(B + 1)``,
      which satisfies ``P(p ≤ u) ≤ u`` for every ``u`` exactly (Barnard 1963;
      Davison & Hinkley 1997, §4.2.5); the draws come from a generator seeded by
      ``(K, J, n_per)`` only, so the p-value is reproducible and the draws do not
      depend on how the events are spread;
    * otherwise (``J ≥ 5`` chunks with ≥ 5 expected events and non-events each, or
      more than :data:`DISPERSION_MC_MAX_CHUNKS` chunks): ``X² ~ χ²_{J−1}``
      (Pearson's large-sample approximation, the test used before issue 21; it
      resolves p-values below 1/(B + 1), where the Monte Carlo test loses power).

    So a warning at level ``u`` (:data:`DISPERSION_LEVEL`) is false with probability
    ≤ ``u`` under independence from ``J = 2`` chunks on (the χ² branch: ≈ ``u``;
    measured in ``tests/engine/test_dispersion.py``).
    ``None`` when it cannot be computed (fewer than 2 chunks, or no/all events).
    """
    k = np.asarray(events, dtype=np.int64)
    J = k.size
    if J < 2:
        return None
    n_per = int(n_per)
    K = int(k.sum())
    if K <= 0 or K >= J * n_per:
        return None
    if J == 2:
        d = abs(2 * int(k[0]) - K)                  # 2·|k_1 − K/2|, in integers: ties are exact
        if d == 0:
            return 1.0
        lo, hi = (K - d) // 2, (K + d + 1) // 2     # largest x with 2x − K ≤ −d, smallest with 2x − K ≥ d
        law = _st.hypergeom(2 * n_per, K, n_per)
        return float(min(1.0, law.cdf(lo) + law.sf(hi - 1)))
    if J <= DISPERSION_MC_MAX_CHUNKS and (J < 5 or min(K, J * n_per - K) < 5 * J):
        t_obs = int((k * k).sum())
        rng = np.random.default_rng(np.random.SeedSequence([K, J, n_per]))
        draws = rng.multivariate_hypergeometric(np.full(J, n_per, dtype=np.int64), K,
                                                size=DISPERSION_MC_DRAWS, method="marginals")
        t_null = (draws.astype(np.int64) ** 2).sum(axis=1)
        return float((1 + np.count_nonzero(t_null >= t_obs)) / (DISPERSION_MC_DRAWS + 1))
    p = K / (J * n_per)
    chi2 = float(((k - n_per * p) ** 2).sum() / (n_per * p * (1 - p)))
    return float(_st.chi2.sf(chi2, J - 1))


def anova_dispersion_pvalue(groups) -> float | None:
    """One-way ANOVA F-test p-value that chunk means of a quantity agree as
    much as independent draws allow; ``None`` with fewer than 3 chunks of ≥ 2
    values or zero within-chunk variance."""
    groups = [np.asarray(g, float) for g in groups if len(g) >= 2]
    if len(groups) < 3:
        return None
    ns = np.array([g.size for g in groups], float)
    means = np.array([g.mean() for g in groups])
    grand = float((ns * means).sum() / ns.sum())
    ssb = float((ns * (means - grand) ** 2).sum())
    ssw = float(sum(((g - g.mean()) ** 2).sum() for g in groups))
    dfb, dfw = len(groups) - 1, float(ns.sum() - len(groups))
    if ssw <= 0 or dfw <= 0:
        return None
    return float(_st.f.sf((ssb / dfb) / (ssw / dfw), dfb, dfw))


def block_size(chunk_size: int) -> int:
    """Trials per block of :func:`block_dispersion_pvalue`: ``min(10, chunk_size // 3)``,
    at least 2 (so a chunk holds at least 3 blocks when it has ≥ 6 trials)."""
    return max(2, min(10, int(chunk_size) // 3))


def block_dispersion_pvalue(chunks, block: int) -> float | None:
    """F-test p-value that blocks of ``block`` consecutive values *within* each
    chunk have means that agree as much as independent draws allow
    (:func:`anova_dispersion_pvalue` on the blocks of every chunk; a chunk's
    incomplete last block is left out).

    Trials that share randomness in runs of consecutive draws (clusters) make
    the values of one block positively correlated, so block means vary more
    than ``σ²/block``: the between-block mean square grows by ``1 + (c − 1)ρ``
    for clusters of ``c`` with intra-cluster correlation ``ρ`` while the
    within-block one does not (one-way random-effects ANOVA, e.g. Scheffé,
    *The Analysis of Variance*, 1959, §7.2).  Unlike the test across chunks,
    it needs only one chunk of ``≥ 3·block`` values.  Under independent,
    identically distributed draws the F-test is exact for Gaussian values and
    approximate otherwise (equal block sizes make it robust to non-normality;
    measured in ``tests/engine/test_dispersion.py``).  ``None`` when fewer than
    3 blocks or no within-block spread."""
    block = int(block)
    if block < 2:
        raise ValueError(f"block must be an integer ≥ 2, got {block!r}")
    groups = []
    for c in chunks:
        c = np.asarray(c, float).ravel()
        for j in range(c.size // block):
            groups.append(c[j * block:(j + 1) * block])
    return anova_dispersion_pvalue(groups)
