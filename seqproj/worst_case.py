r"""The exact worst case of the sequential JL lemma over all predictable adversaries (issue 15 §1).

Theory: ``docs/theory/seqproj.md#worst-case`` (DERIVED).

**The control problem.**  For sphere and Gaussian columns, rotation invariance
(theory ``seqproj.md#reduced``, :mod:`seqproj.reduced`) makes the conditional law of the future given
``F_{t−1}`` depend only on ``(‖S_{t−1}‖², V_{t−1})`` and the adversary's next
``x_t``.  With ``u = ‖S‖²/V`` and ``a = x_t²/V_{t−1}``:

* sphere: ``u_t = (u + 2√(a u) ζ + a)/(1 + a)``,
* Gaussian (``z = R·w``, ``w`` uniform on the sphere, ``R² ~ χ²_M/M`` independent):
  ``u_t = (u + 2√(a u) R ζ + a R²)/(1 + a)``,

``ζ = ⟨S/‖S‖, w⟩`` the first coordinate of a uniform point of ``S^{M−1}``
(``(1+ζ)/2 ~ Beta((M−1)/2, (M−1)/2)``), and ``V_t = V_{t−1}(1 + a)``.

*Which coordinates are needed.*  The ratio dynamics depend on the action only
through ``a``; ``V`` enters only through the constraint ``x² ≤ c_x``, i.e.
``a ≤ c_x/V``.  Scaling ``(‖S‖², V, x², c_x)`` by a common factor leaves the
ratio path unchanged, so ``c_x = 1`` and ``V`` is measured in units of ``c_x``;
the start is ``u_0 = 1`` (``z_0`` a fixed unit vector, as in the simulators),
``V_0 = x_0²/c_x``.  ``V`` cannot be dropped: the optimal policy is not
"always play the maximum" (then the adversary would be the constant design),
and the set of feasible future ``a``'s shrinks as ``V`` grows.  The state is
therefore ``(steps to go n, u, V)``.  Two exact structural facts, both checked
in the tests: the value ``W_n(u, V)`` is nondecreasing in ``n`` (the pause
``x = 0`` leaves the state unchanged) and nonincreasing in ``V`` (every
``a``-sequence feasible from a larger ``V`` is feasible from a smaller one).
Without a horizon the band is left almost surely (the ratio under ``a → 0`` is
a CIR diffusion in ``log V`` time with stationary law ``χ²_M/M``), so the
fixed band has no nontrivial anytime value: ``W_n → 1`` as ``n → ∞``.

**The DP.**  ``W_0 = 0`` inside the band, 1 outside;

    W_n(u, V) = max_{x ∈ X} E[ 1{u' ∉ band} + 1{u' ∈ band} W_{n−1}(u', V + x²) ],

``p* = W_T(1, V_0)`` and the argmax is the optimal Markov policy.  Grid:
``u`` on :func:`edge_graded_nodes` (uniform ∪ geometric in the distance to each
edge down to ``delta_min``; ``n_u`` odd so that ``u = 1`` is a node), ``V`` as
``ρ = V_{t−1}/(V_0 + c_x(t−1))`` on a log grid graded towards ``ρ = 1`` (``n_v``
nodes), actions ``X = {0} ∪ {2^{−j}√c_x/n_x : j = 1..n_small} ∪ {k√c_x/n_x : k =
1..n_x}`` (containing the pushing adversary's grid for ``n_x = 16``).  Values
between nodes: monotone C¹ cubic (PCHIP) in ``u`` and in ``log ρ``
(``interp="pchip"``) or piecewise linear (``"linear"``, a Markov chain on the
grid, used for the brute-force check).  The one-step expectation of the
interpolant is integrated exactly over ``ζ`` (:mod:`seqproj.worst_case_kernel`);
the Gaussian ``R`` by Gauss–Hermite quadrature in the normal score of ``χ²_M``.

Why the edge grading: the optimal adversary near an edge plays steps whose
standard deviation is proportional to the distance ``d`` to the edge (the drift
``−aε`` is then negligible against the noise ``2√(au/M)``), leaving the band with
a fixed probability per step at almost no cost in ``V``; the value has a
boundary layer on a geometric scale in ``d``.  On a uniform grid with linear
interpolation the DP exploited its own interpolation error (0.176 vs 0.105 in
the full-simulator replay at M = 64, ε = 0.5, T = 300).

**Grid error.**  :func:`worst_case_refined` solves ``levels`` successively refined
grids ``(n_u, n_v) → (2n_u−1, 2n_v−1) → …`` (the action grid fixed), reports the
observed order ``log2(|p₁−p₂|/|p₂−p₃|)`` and the error bar ``err = |p_{L−1} − p_L|``
on the finest value (larger than the Richardson estimate ``err/(2^order−1)``
whenever the observed order is ≥ 1).  The action grid is a restriction, so
``p*`` over continuous ``x`` is ≥ the DP value up to the grid error.

**Not exact: a bracket** (issue 21 §11, theory ``#worst-case-bracket``).  The DP value is an
estimate (interpolation, finite actions).  :func:`worst_case_lower` replays the DP's policy as
a predictable adversary — an exact lower bound on ``p*`` through its Clopper–Pearson interval;
:func:`worst_case_upper` adds the observed grid and action-grid refinement moves to the DP
value — an upper *estimate*.  ``M*_worst`` is reported as the range between them.
"""
from __future__ import annotations

import functools
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

from proofs_check.engine import (
    check_bool,
    check_choice,
    check_int,
    check_real,
    shown,
)

from .limits import M_MAX
from .worst_case_fast import dp_fast
from .worst_case_kernel import dp_kernel, dp_numpy, transition_row

__all__ = [
    "WorstCase",
    "brute_force_markov_value",
    "worst_case_grids",
    "worst_case_upper",
    "worst_case_min_dim",
    "worst_case_refined",
    "worst_case_value",
]

#: default grid (coarsest level of :func:`worst_case_refined`)
N_U, N_X = 101, 16
#: smallest distance of a grid node from a band edge
DELTA_MIN = 1e-7
#: number of geometric small actions 2^-j/n_x, j = 1..N_SMALL, added below the linear grid
N_SMALL = 14
T_MAX = 100_000


def _n_v_default(T, v0):
    return int(max(3, math.ceil(2.5 * math.log1p(T / v0)) + 1))


@functools.lru_cache(maxsize=64)
def zeta_table(M: int, n_tab: int = 4001):
    """``(tlo, dz, F, f, K)``: CDF, density and ``E[ζ 1{ζ ≤ k}] = −(1−k²) f(k)/(M−1)`` of the
    first coordinate of a uniform point of ``S^{M−1}`` on ``[−L, L]``, ``L = min(1, 9/√M)`` (beyond 9 standard deviations the Beta tail is below 1e-15)."""
    m = (M - 1) / 2.0
    L = min(1.0, 9.0 / math.sqrt(M))
    k = np.linspace(-L, L, n_tab)
    b = (1.0 + k) / 2.0
    F = special.betainc(m, m, b)
    logc = special.gammaln(M / 2.0) - special.gammaln(0.5) - special.gammaln(m)
    with np.errstate(divide="ignore"):
        f = np.exp(logc + (M - 3) / 2.0 * np.log1p(-k * k)) if M > 3 else np.full(n_tab, 0.5)
    f = np.where(np.abs(k) >= 1.0, 0.0 if M > 3 else 0.5, f)
    K = -(1.0 - k * k) * f / (M - 1)
    return (float(-L), float(k[1] - k[0]), F, f, K)


def zeta_density_constants(M: int):
    """``(log c, (M−3)/2)`` of the density ``c (1 − k²)^((M−3)/2)`` of ζ."""
    m = (M - 1) / 2.0
    logc = special.gammaln(M / 2.0) - special.gammaln(0.5) - special.gammaln(m)
    return float(logc), (M - 3) / 2.0


@functools.lru_cache(maxsize=64)
def radius_nodes(M: int, columns: str, n_r: int = 12):
    """Quadrature nodes ``R²`` and weights: ``(1.0,), (1.0,)`` for the sphere; for Gaussian
    columns ``R² = F⁻¹_{χ²_M}(Φ(z))/M`` at the ``n_r`` Gauss–Hermite nodes ``z``."""
    if columns == "sphere":
        return np.ones(1), np.ones(1)
    z, w = special.roots_hermitenorm(n_r)
    w = w / w.sum()
    r2 = np.where(z < 0, stats.chi2.ppf(stats.norm.cdf(z), M), stats.chi2.isf(stats.norm.sf(z), M)) / M
    return r2, w


def edge_graded_nodes(eps, n_u, delta_min=DELTA_MIN):
    """The ``u`` grid: the centre ``1``, and on each side ``n_lin`` uniform distances
    ``d = ε k/(n_lin + 1)`` from the edge plus ``n_g`` geometric distances from ``delta_min`` up
    to the first uniform one (``n_g = ⌊n_half/2⌋``, ``n_lin = n_half − n_g``,
    ``n_half = (n_u − 1)/2``).  Beyond the outermost nodes (distance < ``delta_min``) the value
    is held constant up to the edge.  The geometric part resolves the boundary layer where
    the optimal adversary gambles with steps proportional to the distance to the edge."""
    n_half = (n_u - 1) // 2
    n_g = n_half // 2
    n_lin = n_half - n_g
    d_lin = eps * np.arange(1, n_lin + 1) / (n_lin + 1)
    if n_g > 0:
        q = (d_lin[0] / delta_min) ** (1.0 / n_g)
        d_geo = delta_min * q ** np.arange(n_g)
    else:
        d_geo = np.zeros(0)
    d = np.concatenate([d_geo, d_lin])
    lower = 1.0 - eps + d
    upper = 1.0 + eps - d[::-1]
    return np.concatenate([lower, [1.0], upper])


def worst_case_grids(eps, T, *, x0=1.0, cx=1.0, n_u=N_U, n_v=None, n_x=N_X, n_small=N_SMALL,
                     delta_min=DELTA_MIN):
    """``(ugrid, lrho, x2)``: the DP's grids (units ``c_x = 1``; module docstring).

    ``u``: :func:`edge_graded_nodes`.  ``V`` is carried as ``ρ = V_{t−1}/(V_0 + c_x(t−1))`` ∈
    ``[V_0/(V_0 + c_x(T−1)), 1]``; ``log ρ_k = −L (1 − k/(n_v−1))²``, graded towards ``ρ = 1``
    (the diagonal of the adversary that always plays the maximum, a node).  Actions
    ``x ∈ {0} ∪ {2^{−j}/n_x : j = n_small..1} ∪ {k/n_x : k = 1..n_x}`` (units ``√c_x``)."""
    v0 = x0 * x0 / cx
    n_v = _n_v_default(T, v0) if n_v is None else n_v
    u = edge_graded_nodes(eps, n_u, delta_min)
    L = math.log((v0 + T - 1.0) / v0)
    if n_v == 1 or L == 0.0:
        lrho = np.zeros(1)
    else:
        lrho = -L * (1.0 - np.linspace(0.0, 1.0, n_v)) ** 2
        lrho[-1] = 0.0
    xs = np.concatenate([2.0 ** -np.arange(n_small, 0, -1) / n_x, np.arange(1, n_x + 1) / n_x])
    x2 = np.concatenate([[0.0], xs ** 2])
    return u, lrho, x2


#: number of solves :func:`worst_case_value` memoises (values and, when at most
#: ``_CACHE_POLICY_MAX`` entries, the policy)
SOLVE_CACHE = 4
_CACHE_POLICY_MAX = 5_000_000
_SOLVES: OrderedDict = OrderedDict()
_SOLVES_LOCK = threading.Lock()
#: ``serial = True`` in a thread: its solves run the serial loop (set while solves run concurrently)
_LOCAL = threading.local()


def _use_threads(work: int) -> bool:
    """Run the fast solver's ``prange`` on several threads?  Only if numba has more than one, the
    solve is large (≥ 2·10⁶ state–action evaluations: a fork–join per step must pay) and the
    machine has an idle core (1-minute load average ≤ cores − 1): on an oversubscribed machine a
    per-step fork–join waits for a descheduled thread and the serial loop is faster (measured:
    bench/worst_case_dp.py).  The values are identical either way."""
    import os

    import numba

    if getattr(_LOCAL, "serial", False) or numba.get_num_threads() < 2 or work < 2_000_000:
        return False
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover
        return True
    return load <= (os.cpu_count() or 1) - 1


@dataclass
class WorstCase:
    """Result of :func:`worst_case_value` / :func:`worst_case_refined`.

    ``p`` the DP value ``W_T(1, V_0)``; ``err`` its grid-error bar (``nan`` for a single
    grid), ``order`` the observed order of convergence, ``levels`` the values on the
    nested grids; ``ugrid``, ``lrho`` (``log ρ``, ``ρ = V_{t−1}/(V_0 + c_x(t−1))``), ``xgrid``
    (units of ``√c_x``), ``policy[t−1, i, k]`` index into ``xgrid`` played at step ``t`` from
    ``(u_i, ρ_k)``
    (``None`` unless requested), ``value`` = ``W_T`` on the grid.
    """

    M: int
    eps: float
    T: int
    columns: str
    cx: float
    x0: float
    p: float
    err: float = math.nan
    order: float = math.nan
    levels: tuple = ()
    grid: dict = field(default_factory=dict)
    ugrid: np.ndarray | None = None
    lrho: np.ndarray | None = None
    xgrid: np.ndarray | None = None
    value: np.ndarray | None = None
    policy: np.ndarray | None = None

    @property
    def upper(self) -> float:
        return min(1.0, self.p + (0.0 if math.isnan(self.err) else self.err))

    @property
    def lower(self) -> float:
        return max(0.0, self.p - (0.0 if math.isnan(self.err) else self.err))

    def to_dict(self) -> dict:
        return {"M": self.M, "eps": self.eps, "T": self.T, "columns": self.columns, "cx": self.cx,
                "x0": self.x0, "p": self.p, "err": self.err, "order": self.order,
                "levels": list(self.levels), "grid": dict(self.grid)}


def check_problem(M, eps, T, columns, cx, x0):
    M = check_int("M", M, lo=3, hi=M_MAX)
    eps = check_real("eps", eps, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    T = check_int("T", T, lo=1, hi=T_MAX)
    if not isinstance(columns, str):
        raise TypeError(f"columns must be 'sphere' or 'gaussian', got {shown(columns)}")
    columns = check_choice("columns", columns, ("sphere", "gaussian"))
    cx = check_real("cx", cx, lo=0.0, lo_open=True)
    x0 = check_real("x0", x0)
    if x0 == 0.0:
        raise ValueError("x0 must be nonzero (x_0 = 0 makes V_0 = 0: the ratio is undefined), got 0")
    v0 = x0 * x0 / cx
    if not (1e-12 <= v0 <= 1e12):
        raise ValueError(f"x0²/cx must lie in [1e-12, 1e12], got {v0:g} (x0={x0:g}, cx={cx:g})")
    return M, eps, T, columns, cx, x0


def worst_case_value(M, eps, T, *, columns="sphere", cx=1.0, x0=1.0, n_u=N_U, n_v=None, n_x=N_X,
                     policy=False, maximize=True, backend="fast", n_small=N_SMALL,
                     interp="pchip", delta_min=DELTA_MIN) -> WorstCase:
    r"""DP value ``p* = max over predictable adversaries of P(∃ t ≤ T: |‖S_t‖²/V_t − 1| > ε)``
    on one grid (module docstring), with the optimal Markov policy if ``policy``.

    ``n_u`` odd ≥ 3, ``n_v`` ≥ 1 (default ``⌈2.5 log(1 + c_x T/x_0²)⌉ + 1``), ``n_x`` ≥ 1.
    ``maximize=False`` gives the *best* adversary's value instead (a diagnostic).
    ``backend``: ``"fast"`` (:func:`seqproj.worst_case_fast.dp_fast`, parallel over grid nodes;
    the values equal ``"numba"``'s, tested), ``"numba"`` (the reference kernel
    :func:`seqproj.worst_case_kernel.dp_kernel`), ``"numpy"`` (the slow independent reference,
    small grids only).  Cost ``O(T · n_v · n_x · n_u · cells)``, linear in ``T``.  A solve is
    memoised (:data:`SOLVE_CACHE` most recent, keyed by every argument; copies are returned), so
    the bracket's lower side reuses the grid the upper side solved.
    """
    M, eps, T, columns, cx, x0 = check_problem(M, eps, T, columns, cx, x0)
    n_u = check_int("n_u", n_u, lo=3, hi=20001)
    if n_u % 2 == 0:
        raise ValueError(f"n_u must be odd (so that u = 1 is a grid node), got {n_u}")
    if n_v is not None:
        n_v = check_int("n_v", n_v, lo=1, hi=2001)
    n_x = check_int("n_x", n_x, lo=1, hi=126)
    policy = check_bool("policy", policy)
    maximize = check_bool("maximize", maximize)
    delta_min = check_real("delta_min", delta_min, lo=1e-12, hi=1e-2)
    n_small = check_int("n_small", n_small, lo=0, hi=40)
    if not isinstance(interp, str):
        raise TypeError(f"interp must be 'pchip' or 'linear', got {shown(interp)}")
    check_choice("interp", interp, ("pchip", "linear"))
    if n_x + n_small > 126:
        raise ValueError(f"n_x + n_small must be ≤ 126 (int8 policy), got {n_x + n_small}")
    if not isinstance(backend, str):
        raise TypeError(f"backend must be 'fast', 'numba' or 'numpy', got {shown(backend)}")
    check_choice("backend", backend, ("fast", "numba", "numpy"))
    ug, lr, x2 = worst_case_grids(eps, T, x0=x0, cx=cx, n_u=n_u, n_v=n_v, n_x=n_x,
                                  n_small=n_small, delta_min=delta_min)
    ea, eb = 1.0 - eps, 1.0 + eps
    v0 = x0 * x0 / cx
    work = T * len(lr) * len(x2) * n_u
    if work > 4_000_000_000:
        raise ValueError(f"T·n_v·n_actions·n_u = {work:.3g} > 4e9 state-action evaluations: lower T "
                         f"(got T={T}) or the grid")
    if policy and T * n_u * len(lr) > 200_000_000:
        raise ValueError(f"policy=True would store T·n_u·n_v = {T * n_u * len(lr)} entries "
                         "(> 2e8); lower T or the grid")
    table = zeta_table(M)
    r2, wr = radius_nodes(M, columns)
    if backend in ("fast", "numba"):
        # the policy is kept whenever it is small, so that a later policy=True call hits the cache
        keep = policy or T * n_u * len(lr) <= _CACHE_POLICY_MAX
        key = (backend, M, eps, T, columns, cx, x0, n_u, len(lr), n_x, n_small, interp, delta_min, maximize,
               id(dp_fast), id(dp_kernel), id(zeta_table), id(radius_nodes))
        with _SOLVES_LOCK:
            hit = _SOLVES.get(key)
            if hit is not None and (hit[1] is not None or not policy):
                _SOLVES.move_to_end(key)
            else:
                hit = None
        if hit is not None:
            W, pol = hit[0].copy(), (None if hit[1] is None else hit[1].copy())
        else:
            logc, cpow = zeta_density_constants(M)
            if backend == "fast":
                W, _, pol = dp_fast(T, ug, ea, eb, lr, v0, x2, r2, wr, table, maximize, keep,
                                    interp == "pchip", logc, cpow, float(M), parallel=_use_threads(work))
            else:
                W, _, pol = dp_kernel(T, ug, ea, eb, lr, v0, x2, r2, wr, *table, maximize, keep,
                                      interp == "pchip", logc, cpow, float(M))
            if not keep:
                pol = None
            with _SOLVES_LOCK:
                _SOLVES[key] = (W.copy(), None if pol is None else pol.copy())
                while len(_SOLVES) > SOLVE_CACHE:
                    _SOLVES.popitem(last=False)
    else:
        W = dp_numpy(T, ug, lr, v0, x2, r2, wr, table, maximize, cubic=interp == "pchip", M=M,
                     ea=ea, eb=eb)
        pol = None
        policy = False
    p = float(W[(n_u - 1) // 2, -1])          # u = 1, ρ = 1 (V_0 = x_0²)
    return WorstCase(M=M, eps=eps, T=T, columns=columns, cx=cx, x0=x0, p=p,
                     grid={"n_u": n_u, "n_v": len(lr), "n_x": n_x, "n_small": n_small, "delta_min": delta_min,
                           "interp": interp}, ugrid=ug, lrho=lr,
                     xgrid=np.sqrt(x2), value=W, policy=pol if policy else None)


def worst_case_refined(M, eps, T, *, columns="sphere", cx=1.0, x0=1.0, n_u=N_U, n_v=None, n_x=N_X,
               levels=3, policy=False) -> WorstCase:
    r"""``p*`` with its grid-error bar: the DP on ``levels`` nested grids (``n_u → 2n_u − 1``,
    ``n_v → 2n_v − 1`` per level, the action grid fixed), the finest value, the observed
    order ``log2(|p₁−p₂|/|p₂−p₃|)`` and ``err = |p_{L−1} − p_L|`` (see module docstring).
    ``policy`` stores the finest grid's policy."""
    M, eps, T, columns, cx, x0 = check_problem(M, eps, T, columns, cx, x0)
    levels = check_int("levels", levels, lo=2, hi=4)
    n_u = check_int("n_u", n_u, lo=3, hi=20001)
    v0 = x0 * x0 / cx
    n_v = _n_v_default(T, v0) if n_v is None else check_int("n_v", n_v, lo=1, hi=2001)
    ps = []
    res = None
    for lev in range(levels):
        nu_l = (n_u - 1) * 2 ** lev + 1
        nv_l = (n_v - 1) * 2 ** lev + 1
        res = worst_case_value(M, eps, T, columns=columns, cx=cx, x0=x0, n_u=nu_l, n_v=nv_l,
                               n_x=n_x, policy=policy and lev == levels - 1)
        ps.append(res.p)
    d1 = abs(ps[-3] - ps[-2]) if levels >= 3 else math.nan
    d2 = abs(ps[-2] - ps[-1])
    order = math.log2(d1 / d2) if (levels >= 3 and d2 > 0 and d1 > 0) else math.nan
    res.err = d2
    res.order = order
    res.levels = tuple(ps)
    return res


def worst_case_min_dim(eps, delta, T, *, columns="sphere", cx=1.0, x0=1.0, n_u=N_U, n_v=None,
                       n_x=N_X, M_lo=3, M_hi=None, conservative=True):
    r"""``M*_worst(ε, δ, T)``: smallest ``M`` with ``p*(M) ≤ δ``, by bisection on integer ``M``.

    Bisection assumes ``p*`` nonincreasing in ``M`` (the band is reached by ever smaller
    steps as ``M`` grows; checked on the bracketing values, which are returned).
    ``conservative`` uses ``p* + err`` (two-level grid error) so that the returned ``M``
    is an upper estimate of the grid-exact one.  Returns ``(M, info)`` with the
    evaluations ``{M: (p, err)}``.
    """
    eps = check_real("eps", eps, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    delta = check_real("delta", delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    T = check_int("T", T, lo=1, hi=T_MAX)
    M_lo = check_int("M_lo", M_lo, lo=3, hi=M_MAX)
    conservative = check_bool("conservative", conservative)
    if M_hi is None:
        from .bounds import sequential_jl_min_dim
        M_hi = int(min(M_MAX, sequential_jl_min_dim(eps, delta, T, cx=cx, x0=x0)))
    M_hi = check_int("M_hi", M_hi, lo=M_lo, hi=M_MAX)
    evals = {}

    def p_at(M):
        if M not in evals:
            if conservative:
                r = worst_case_refined(M, eps, T, columns=columns, cx=cx, x0=x0, n_u=n_u, n_v=n_v,
                               n_x=n_x, levels=2)
                evals[M] = (r.p, r.err)
            else:
                r = worst_case_value(M, eps, T, columns=columns, cx=cx, x0=x0, n_u=n_u, n_v=n_v,
                                     n_x=n_x)
                evals[M] = (r.p, 0.0)
        p, e = evals[M]
        return p + e

    if p_at(M_hi) > delta:
        return None, {"evals": evals, "censored": f"p*(M_hi={M_hi}) > δ"}
    lo, hi = M_lo, M_hi
    if p_at(lo) <= delta:
        return lo, {"evals": evals}
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if p_at(mid) <= delta:
            hi = mid
        else:
            lo = mid
    ms = sorted(evals)
    vals = [evals[m][0] for m in ms]
    monotone = all(vals[i] >= vals[i + 1] - 1e-12 for i in range(len(vals) - 1))
    return hi, {"evals": evals, "monotone": monotone}


# --------------------------------------------------------------------------
# the worst case as a bracket (issue 21 §11; theory #worst-case, "bracket")
# --------------------------------------------------------------------------

#: grids of the bracket: the grid pair (n_u, n_v) → (2n_u − 1, 2n_v − 1) of the upper estimate,
#: the action grids refined in turn, and the grid whose policy is replayed
BRACKET_GRID = {"n_u": 25, "n_v": 3}
BRACKET_ACTIONS = (16, 32, 64)
BRACKET_ACTION_TOL = 2e-4


def worst_case_upper(M, eps, T, *, columns="sphere", n_u=BRACKET_GRID["n_u"],
                     n_v=BRACKET_GRID["n_v"], actions=BRACKET_ACTIONS, tol=BRACKET_ACTION_TOL):
    r"""Upper **estimate** of ``p*``: ``U = max_j p(n_x^{(j)}) + err_grid + err_actions``.

    ``err_grid = |p(n_u, n_v) − p(2n_u − 1, 2n_v − 1)|`` (the grid-refinement bar of
    :func:`worst_case_refined`, action grid ``actions[0]``); the action grid is refined
    through ``actions`` (each contains the previous one) on the finer grid until the value
    moves by at most ``tol``, and ``err_actions`` is the last move.  Not a proved bound: the
    DP interpolates between nodes and restricts actions to a grid; ``U`` adds the observed
    effect of refining both (theory ``#worst-case``, "bracket"; the max-of-neighbours
    interpolation that would be an upper bound for a quasi-convex value ratchets to 1, see
    there).  Returns ``(U, info)``."""
    M, eps, T, columns, _, _ = check_problem(M, eps, T, columns, 1.0, 1.0)
    if not actions or any(not isinstance(a, int) or a < 1 for a in actions):
        raise ValueError(f"actions must be a nonempty tuple of positive ints, got {shown(actions)}")
    tol = check_real("tol", tol, lo=0.0)
    _prefetch(M, eps, T, columns, [(n_u, n_v, actions[0]), (2 * n_u - 1, 2 * n_v - 1, actions[0])]
              + [(2 * n_u - 1, 2 * n_v - 1, nx) for nx in actions[1:2]])
    r = worst_case_refined(M, eps, T, columns=columns, n_u=n_u, n_v=n_v, n_x=actions[0], levels=2)
    fine = {"n_u": 2 * n_u - 1, "n_v": 2 * n_v - 1}
    p_act = {actions[0]: r.p}
    for prev, nx in zip(actions, actions[1:]):
        p_act[nx] = worst_case_value(M, eps, T, columns=columns, n_x=nx, **fine).p
        if abs(p_act[nx] - p_act[prev]) <= tol:
            break
    done = list(p_act)
    e_act = abs(p_act[done[-1]] - p_act[done[-2]]) if len(done) > 1 else math.nan
    U = min(1.0, max(p_act.values()) + r.err + (0.0 if math.isnan(e_act) else e_act))
    return U, {"p_grid": list(r.levels), "err_grid": r.err, "p_actions": {str(k): v for k, v in p_act.items()},
               "err_actions": e_act, "grid": fine}


def _prefetch(M, eps, T, columns, grids):
    """Solve the grids ``[(n_u, n_v, n_x), …]`` that :func:`worst_case_upper` is certain to need
    concurrently (serial kernels, one per thread, as many threads as cores), so that its own calls
    find them in the memo (:data:`SOLVE_CACHE`).  The solves are independent — no per-step
    synchronisation, unlike a ``prange`` — so this parallelism survives a loaded machine.  Calls
    :func:`worst_case_value` by its module name (a mutation of it reaches the prefetch too)."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    workers = min(len(grids), os.cpu_count() or 1, SOLVE_CACHE - 1)
    if workers < 2:
        return

    def one(g):
        _LOCAL.serial = True
        try:
            worst_case_value(M, eps, T, columns=columns, cx=1.0, x0=1.0, n_u=g[0], n_v=g[1], n_x=g[2])
        finally:
            _LOCAL.serial = False

    # the largest first: the slowest solve starts at once
    order = sorted(grids, key=lambda g: -g[0] * g[1] * g[2])
    with ThreadPoolExecutor(max_workers=workers) as ex:
        list(ex.map(one, order))


def brute_force_markov_value(M, eps, T, *, columns="sphere", cx=1.0, x0=1.0, n_u=5, n_v=2, n_x=2):
    r"""``max`` over **every** deterministic Markov policy of the discretised chain's failure
    probability, by enumeration and *forward* evaluation (independent of the backward DP).

    The discretised chain: from node ``(u_i, V_k)`` with action ``x``, exit with the exact
    probability, else move to the ``u`` nodes with the hat-function weights of
    :func:`seqproj.worst_case_kernel.transition_row` and to the two ``V`` nodes bracketing
    ``log(V + x²)`` with linear weights.  Feasible only for tiny grids:
    ``(n_x + 1)^(1 + (T−1) n_u n_v)`` policies (at most 2·10⁶).
    """
    M, eps, T, columns, cx, x0 = check_problem(M, eps, T, columns, cx, x0)
    n_u = check_int("n_u", n_u, lo=3, hi=15)
    n_v = check_int("n_v", n_v, lo=1, hi=4)
    n_x = check_int("n_x", n_x, lo=1, hi=4)
    if n_u % 2 == 0:
        raise ValueError(f"n_u must be odd, got {n_u}")
    na = n_x + 1
    n_pol = na ** (1 + (T - 1) * n_u * n_v)
    if n_pol > 2_000_000:
        raise ValueError(f"brute force over {n_pol} policies is too large (> 2e6); shrink T or the grid")
    ug, lr, x2 = worst_case_grids(eps, T, x0=x0, cx=cx, n_u=n_u, n_v=n_v, n_x=n_x, n_small=0)
    v0 = x0 * x0 / cx
    table = zeta_table(M)
    r2, wr = radius_nodes(M, columns)
    nv = len(lr)
    S = n_u * nv

    def rho_weights(lv):
        wv = np.zeros(nv)
        if nv == 1 or lv <= lr[0]:
            wv[0] = 1.0
        elif lv >= lr[-1]:
            wv[-1] = 1.0
        else:
            m = int(np.searchsorted(lr, lv) - 1)
            th = (lv - lr[m]) / (lr[m + 1] - lr[m])
            wv[m], wv[m + 1] = 1 - th, th
        return wv

    # transitions of step t: P[t][a] (S × S) and exit ex[t][a] (S); state s = i·nv + k
    P = np.zeros((T + 1, na, S, S))
    ex = np.zeros((T + 1, na, S))
    for t in range(1, T + 1):
        Dp, Dn = v0 + t - 1.0, v0 + float(t)
        for ai in range(na):
            for i in range(n_u):
                for k in range(nv):
                    s = i * nv + k
                    V = math.exp(lr[k]) * Dp
                    wv = rho_weights(math.log((V + x2[ai]) / Dn))
                    if ai == 0:
                        wt = np.zeros(n_u)
                        wt[i] = 1.0
                        e = 0.0
                    else:
                        e, wt = transition_row(ug[i], x2[ai] / V, ug, r2, wr, table, 1.0 - eps, 1.0 + eps)
                    P[t, ai, s] = np.outer(wt, wv).ravel()
                    ex[t, ai, s] = e
    s0 = ((n_u - 1) // 2) * nv + nv - 1
    # enumerate policies: the action at t = 1 (one state), then one action per state for t = 2..T
    n_free = (T - 1) * S
    best = -1.0
    chunk = max(1, 200_000 // max(1, S * S))
    total = na ** n_free
    for a1 in range(na):
        for start in range(0, total, chunk):
            idx = np.arange(start, min(total, start + chunk))
            digits = np.zeros((idx.size, max(n_free, 1)), dtype=np.int64)
            rem = idx.copy()
            for d in range(n_free):
                digits[:, d] = rem % na
                rem //= na
            dist = np.tile(P[1, a1, s0], (idx.size, 1))
            fail = np.full(idx.size, ex[1, a1, s0])
            for t in range(2, T + 1):
                acts = digits[:, (t - 2) * S:(t - 1) * S]             # (n_pol, S)
                fail = fail + np.einsum("ps,ps->p", dist, ex[t][acts, np.arange(S)])
                dist = np.einsum("ps,pst->pt", dist, P[t][acts, np.arange(S)])
            best = max(best, float(fail.max()))
    return best
