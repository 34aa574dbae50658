r"""The full sequential projection protocol (spec ``seqproj.md`` §1), numba kernel + NumPy reference.

Protocol (CONFIRMED): ``S_0 = x_0 z_0`` with ``z_0 = e_1`` (a fixed unit
vector, so ``‖z_0‖² = 1``), ``V_0 = x_0²``; for ``t = 1..T`` the adversary
picks ``x_t`` from the past, then a fresh column ``z_t`` is drawn and
``S_t = S_{t−1} + x_t z_t``, ``V_t = V_{t−1} + x_t²``.  The order inside the
loop — choose ``x_t``, *then* draw ``z_t`` — is what makes the adversary
predictable (spec §8: "an off-by-one that lets x_t see z_t").

Path statistics recorded for every trial (:class:`PathStats`):

* ``exit_time`` — first ``t ∈ [1, T]`` with ``‖S_t‖²/V_t ∉ [1−ε, 1+ε]``
  (checked at **every** t, not only at T), ``T + 1`` if the path never leaves;
* ``final_ratio`` — ``‖S_T‖²/V_T``; ``ratio_grid`` — the ratio at ``grid`` times;
* ``max_dev`` — ``max_{t≤T} |‖S_t‖²/V_t − 1|``;
* ``mix_cross`` — whether the martingale ``2D_t = 2Σ x_s⟨S_{s−1}, z_s⟩`` ever
  crosses the two-sided normal-mixture boundary with intrinsic time
  ``v_t = Σ 4x_s²‖S_{s−1}‖²/M`` at level ``mix_alpha`` (check D);
* ``anytime_exit`` — whether ``|ratio_t − 1|`` ever exceeds the any-time
  half-width ``ε_t(V_t)`` of :func:`seqproj.bounds.anytime_jl_eps` at this M
  (check F, §3b).

Random stream (the reproducibility contract).  The chunk's generator draws
one 64-bit key per trial (:func:`draw_keys`) and nothing else.  Every variate
of trial ``i`` is a pure function of its key and an index (a counter-based
generator: SplitMix64 words, NumPy's 256-layer ziggurat for normals,
Marsaglia–Tsang for chi-squares; see the section "counter-based random
numbers" below): the ``M`` normals ``g`` of column ``z_t`` are sub-streams
``(t−1)M .. tM−1``, and ``z_t`` is a deterministic function of ``g``
(:func:`seqproj.columns.columns_from_normals`); the adversary's uniform at
step ``t`` is sub-stream ``2^40 + t``.  The numba kernel generates them on the
fly, the NumPy reference vectorised; both do the same floating-point
operations in the same order (sums run sequentially, see ``np.cumsum``), so
they agree bit for bit.

Parallelism: the kernel is ``nogil`` and draws its own numbers from the
per-trial keys, so chunks run in parallel on threads
(:func:`proofs_check.engine.runner.map_chunks` with ``executor="threads"``),
each chunk with its own generator — never numba's global RNG.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy import special

from proofs_check.engine.validate import as_generator, check_choice, check_int, check_real

from .adversaries import Adversary, adversary as make_adversary, require_predictable
from .columns import ColumnFamily, column_family, columns_from_normals

__all__ = ["PathStats", "SimSetup", "make_setup", "simulate_full", "simulate_lookahead",
           "simulate_inner_product",
           "full_block_size", "default_mix_rho"]

_BLOCK_DOUBLES = 1 << 19  # ≈ 4 MB of normals per block


def full_block_size(T: int, M: int) -> int:
    """Trials per block of the full simulation's random stream (fixed rule)."""
    return max(1, _BLOCK_DOUBLES // (T * M))


def default_mix_rho(eps: float, M: int, x0: float = 1.0, c0: float = 1.0) -> float:
    """``ρ = 4 · c_0 (1+ε) V_0² / (2M)``: the proof's ρ (spec §2 step 5) for ``2D_t``."""
    return 4.0 * c0 * (1.0 + eps) * x0 ** 4 / (2.0 * M)


# --------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class PathStats:
    """Per-trial path statistics of a simulation (arrays of length ``n``).

    ``exit_time`` (int, ``T + 1`` = never left the band), ``final_ratio``,
    ``max_dev``, ``mix_cross`` (bool), ``anytime_exit`` (bool),
    ``ratio_grid`` ``(n, len(grid))``, and the run's ``M``, ``T``, ``eps``.
    """

    exit_time: np.ndarray
    final_ratio: np.ndarray
    max_dev: np.ndarray
    mix_cross: np.ndarray
    anytime_exit: np.ndarray
    ratio_grid: np.ndarray
    grid: np.ndarray
    M: int
    T: int
    eps: float

    @property
    def n(self) -> int:
        return int(self.exit_time.shape[0])

    @property
    def failed(self) -> np.ndarray:
        """Time-uniform failure: the ratio left ``[1−ε, 1+ε]`` at some ``t ≤ T``."""
        return self.exit_time <= self.T

    @property
    def out_at_T(self) -> np.ndarray:
        """Fixed-time failure: the ratio is outside the band at ``t = T``."""
        return np.abs(self.final_ratio - 1.0) > self.eps

    def to_dict(self) -> dict:
        return {"M": self.M, "T": self.T, "eps": self.eps, "n": self.n,
                "failures": int(self.failed.sum()), "out_at_T": int(self.out_at_T.sum()),
                "mix_crossings": int(self.mix_cross.sum()),
                "anytime_exits": int(self.anytime_exit.sum()),
                "grid": self.grid.tolist()}

    @staticmethod
    def concat(parts: list["PathStats"]) -> "PathStats":
        p0 = parts[0]
        return PathStats(np.concatenate([p.exit_time for p in parts]),
                         np.concatenate([p.final_ratio for p in parts]),
                         np.concatenate([p.max_dev for p in parts]),
                         np.concatenate([p.mix_cross for p in parts]),
                         np.concatenate([p.anytime_exit for p in parts]),
                         np.concatenate([p.ratio_grid for p in parts]),
                         p0.grid, p0.M, p0.T, p0.eps)


@dataclass(frozen=True)
class SimSetup:
    """Validated parameters shared by the full and the reduced simulators."""

    M: int
    eps: float
    T: int
    family: ColumnFamily
    adversary: Adversary
    x0: float
    cx: float
    grid: np.ndarray
    mix_rho: float
    mix_alpha: float
    anytime_delta: float
    anytime_const: float

    def kernel_args(self):
        """Scalars passed to both kernels (same order)."""
        return (self.x0, self.eps, math.sqrt(self.cx), self.adversary.code,
                self.adversary.params_array(), self.grid, self.mix_rho,
                2.0 * math.log(1.0 / self.mix_alpha), self.anytime_const * self.family.c0,
                math.log(1.0 / self.anytime_delta), self.x0 * self.x0)


def make_setup(M, eps, T, *, columns="sphere", adversary="constant", x0=1.0, cx=1.0, s=None,
               grid=None, mix_alpha=0.05, mix_rho=None, anytime_delta=0.05, anytime_const=16.0,
               allow_lookahead=False) -> SimSetup:
    """Validate the simulation parameters (see :func:`simulate_full`)."""
    M = check_int("M", M, lo=1)
    eps = check_real("eps", eps, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    T = check_int("T", T, lo=1)
    fam = columns if isinstance(columns, ColumnFamily) else column_family(columns, M, s=s)
    if fam.M != M:
        raise ValueError(f"columns has M={fam.M}, expected M={M}")
    adv = make_adversary(adversary) if isinstance(adversary, str) else adversary
    if not isinstance(adv, Adversary):
        raise TypeError(f"adversary must be a name or Adversary, got {type(adversary).__name__}")
    if not allow_lookahead:
        adv = require_predictable(adv)
    x0 = check_real("x0", x0)
    if x0 == 0.0:
        raise ValueError("x0 must be nonzero (x0 = 0 makes the mixture's rho degenerate), got 0.0")
    cx = check_real("cx", cx, lo=0.0, lo_open=True)
    if grid is None:
        grid = np.unique(np.linspace(0, T, min(T, 30) + 1).round().astype(np.int64))
    grid = np.asarray(grid)
    if grid.ndim != 1 or grid.size == 0 or grid.dtype.kind not in "iu":
        raise ValueError(f"grid must be a non-empty 1-d integer array, got {grid!r}")
    grid = np.unique(grid.astype(np.int64))
    if grid[0] < 0 or grid[-1] > T:
        raise ValueError(f"grid times must lie in [0, T={T}], got {grid.min()}..{grid.max()}")
    mix_alpha = check_real("mix_alpha", mix_alpha, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    mix_rho = default_mix_rho(eps, M, x0) if mix_rho is None else check_real(
        "mix_rho", mix_rho, lo=0.0, lo_open=True)
    anytime_delta = check_real("anytime_delta", anytime_delta, lo=0.0, hi=1.0, lo_open=True,
                               hi_open=True)
    anytime_const = check_real("anytime_const", anytime_const, lo=0.0, lo_open=True)
    return SimSetup(M, eps, T, fam, adv, x0, cx, grid, float(mix_rho), mix_alpha, anytime_delta,
                    anytime_const)


# --------------------------------------------------------------------------
# counter-based random numbers (identical in numba and in NumPy)
# --------------------------------------------------------------------------
#
# Every variate is a pure function of (key, stream, j): word j of sub-stream
# `stream` of a trial with 64-bit `key` is SplitMix64's finaliser applied to
# key + (256·stream + j + 1)·γ (mod 2^64).  A standard normal is drawn from its
# own sub-stream by NumPy's 256-layer ziggurat (Marsaglia & Tsang 2000), a
# chi-square by Marsaglia–Tsang's gamma method on top of it.  Because nothing
# depends on the order in which variates are produced, the numba kernels
# (sequential, fused) and the NumPy reference (vectorised) produce the same
# numbers bit for bit.  A sub-stream holds 256 words; a single normal needs
# more than 256 words with probability < 1e-200.

_G = 0x9E3779B97F4A7C15
_M64 = (1 << 64) - 1
_MASK52 = (1 << 52) - 1
_ZIG_R = 3.6541528853610088
_ZIG_INV_R = 0.27366123732975828
_ZIG_V = 0.00492867323399


def _ziggurat_tables():
    ki = np.zeros(256, dtype=np.uint64)
    wi = np.zeros(256)
    fi = np.zeros(256)
    dn = tn = _ZIG_R
    q = _ZIG_V / math.exp(-0.5 * dn * dn)
    ki[0] = np.uint64(int((dn / q) * 2.0 ** 52))
    ki[1] = 0
    wi[0] = q / 2.0 ** 52
    wi[255] = dn / 2.0 ** 52
    fi[0] = 1.0
    fi[255] = math.exp(-0.5 * dn * dn)
    for i in range(254, 0, -1):
        dn = math.sqrt(-2.0 * math.log(_ZIG_V / dn + math.exp(-0.5 * dn * dn)))
        ki[i + 1] = np.uint64(int((dn / tn) * 2.0 ** 52))
        tn = dn
        fi[i] = math.exp(-0.5 * dn * dn)
        wi[i] = dn / 2.0 ** 52
    return ki, wi, fi


_KI, _WI, _FI = _ziggurat_tables()


@njit(cache=True, nogil=True)
def _word(key, stream, j):
    z = key + (stream * np.uint64(256) + j + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def _unif(key, stream, j):
    return float(_word(key, stream, j) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def _normal(key, stream, j):
    """(standard normal, next word index) from sub-stream ``stream`` starting at word ``j``."""
    while True:
        r = _word(key, stream, j)
        j += np.uint64(1)
        idx = r & np.uint64(0xFF)
        r = r >> np.uint64(8)
        sign = r & np.uint64(1)
        rabs = (r >> np.uint64(1)) & np.uint64(0x000FFFFFFFFFFFFF)
        x = float(rabs) * _WI[idx]
        if sign != np.uint64(0):
            x = -x
        if rabs < _KI[idx]:
            return x, j
        if idx == np.uint64(0):
            while True:
                u1 = _unif(key, stream, j)
                u2 = _unif(key, stream, j + np.uint64(1))
                j += np.uint64(2)
                xx = -_ZIG_INV_R * math.log1p(-u1)
                yy = -math.log1p(-u2)
                if yy + yy > xx * xx:
                    if ((rabs >> np.uint64(8)) & np.uint64(1)) != np.uint64(0):
                        return -(_ZIG_R + xx), j
                    return _ZIG_R + xx, j
        else:
            u = _unif(key, stream, j)
            j += np.uint64(1)
            if (_FI[idx - np.uint64(1)] - _FI[idx]) * u + _FI[idx] < math.exp(-0.5 * x * x):
                return x, j


@njit(cache=True, nogil=True)
def _chisq(key, stream, d, c):
    """χ² with 2(d + 1/3) degrees of freedom: 2·Gamma(d + 1/3) by Marsaglia–Tsang (shape ≥ 1)."""
    j = np.uint64(0)
    while True:
        x, j = _normal(key, stream, j)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = _unif(key, stream, j)
        j += np.uint64(1)
        if u < 1.0 - 0.0331 * (x * x) * (x * x):
            return 2.0 * (d * v)
        if math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
            return 2.0 * (d * v)


@njit(cache=True, nogil=True)
def _fill_normals(keys, T, M, out):
    for i in range(keys.shape[0]):
        for t in range(T):
            for m in range(M):
                out[i, t, m] = _normal(keys[i], np.uint64(t * M + m), np.uint64(0))[0]


# ---- the same in Python / NumPy ------------------------------------------

def _word_py(key, stream, j):
    z = (key + (stream * 256 + j + 1) * _G) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _unif_py(key, stream, j):
    return float(_word_py(key, stream, j) >> 11) * (1.0 / 9007199254740992.0)


def _normal_py(key, stream, j=0):
    """Scalar Python twin of the numba ``_normal`` (used for the rare slow paths)."""
    while True:
        r = _word_py(key, stream, j)
        j += 1
        idx = r & 0xFF
        r >>= 8
        sign = r & 1
        rabs = (r >> 1) & _MASK52
        x = float(rabs) * float(_WI[idx])
        if sign:
            x = -x
        if rabs < int(_KI[idx]):
            return x, j
        if idx == 0:
            while True:
                u1 = _unif_py(key, stream, j)
                u2 = _unif_py(key, stream, j + 1)
                j += 2
                xx = -_ZIG_INV_R * math.log1p(-u1)
                yy = -math.log1p(-u2)
                if yy + yy > xx * xx:
                    return (-(_ZIG_R + xx) if (rabs >> 8) & 1 else _ZIG_R + xx), j
        else:
            u = _unif_py(key, stream, j)
            j += 1
            if (float(_FI[idx - 1]) - float(_FI[idx])) * u + float(_FI[idx]) < math.exp(-0.5 * x * x):
                return x, j


def _chisq_py(key, stream, d, c):
    j = 0
    while True:
        x, j = _normal_py(key, stream, j)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = _unif_py(key, stream, j)
        j += 1
        if u < 1.0 - 0.0331 * (x * x) * (x * x):
            return 2.0 * (d * v)
        if math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
            return 2.0 * (d * v)


def _word_np(key, stream, j):
    with np.errstate(over="ignore"):
        z = key + (stream * np.uint64(256) + j + np.uint64(1)) * np.uint64(_G)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _normal_first_np(key, stream):
    """Vectorised first ziggurat attempt: (x, j, accepted); ``x`` valid where accepted."""
    r = _word_np(key, stream, np.uint64(0))
    idx = (r & np.uint64(0xFF)).astype(np.intp)
    r = r >> np.uint64(8)
    sign = (r & np.uint64(1)).astype(bool)
    rabs = (r >> np.uint64(1)) & np.uint64(_MASK52)
    x = rabs.astype(np.float64) * _WI[idx]
    x = np.where(sign, -x, x)
    return x, rabs < _KI[idx]


def normals_np(keys, streams):
    """Standard normals of sub-streams ``streams`` (1-d) for each key: ``(len(keys), len(streams))``."""
    keys = np.asarray(keys, dtype=np.uint64)
    streams = np.asarray(streams, dtype=np.uint64)
    K = np.broadcast_to(keys[:, None], (keys.size, streams.size))
    S = np.broadcast_to(streams[None, :], (keys.size, streams.size))
    x, ok = _normal_first_np(K, S)
    for a, b in zip(*np.nonzero(~ok)):
        x[a, b] = _normal_py(int(keys[a]), int(streams[b]))[0]
    return x


#: sub-stream offset of the adversary's uniforms (step t uses stream U_STREAM + t)
U_STREAM = 1 << 40


@njit(cache=True, nogil=True)
def _adv_unif(key, t):
    return _unif(key, np.uint64(1 << 40) + np.uint64(t), np.uint64(0))


def adversary_uniforms_np(keys, T):
    """``(len(keys), T)`` uniforms of the adversary (column t−1 is step t)."""
    keys = np.asarray(keys, dtype=np.uint64)
    st = np.uint64(U_STREAM) + np.arange(1, T + 1, dtype=np.uint64)
    w = _word_np(keys[:, None], st[None, :], np.uint64(0))
    return (w >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def chisq_np(keys, streams, d, c):
    """χ² variates of :func:`_chisq` for arrays of keys and streams (NumPy reference)."""
    keys = np.asarray(keys, dtype=np.uint64)
    streams = np.asarray(streams, dtype=np.uint64)
    x, ok = _normal_first_np(keys, streams)
    v = 1.0 + c * x
    v3 = v * v * v
    u = (_word_np(keys, streams, np.uint64(1)) >> np.uint64(11)).astype(np.float64) * (
        1.0 / 9007199254740992.0)
    fast = ok & (v > 0.0) & (u < 1.0 - 0.0331 * (x * x) * (x * x))
    out = np.where(fast, 2.0 * (d * v3), 0.0)
    for idx in zip(*np.nonzero(~fast)):
        out[idx] = _chisq_py(int(keys[idx]), int(streams[idx]), d, c)
    return out


def draw_keys(rng, n):
    """One 64-bit key per trial from the chunk's generator."""
    return rng.integers(0, np.iinfo(np.uint64).max, size=n, dtype=np.uint64, endpoint=True)


# --------------------------------------------------------------------------
# numba helpers shared with the reduced kernel
# --------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _choose_x(code, prm, s2, v, u, eps, M, sqcx, exited, coord):
    """x_t from the past only (see :mod:`seqproj.adversaries`)."""
    if code == 0:
        return prm[0] * sqcx
    if code == 1:
        return sqcx * (prm[0] + (1.0 - prm[0]) * u)
    if code == 2:
        if exited:
            return 0.0
        return prm[0] * sqcx
    if code == 3:
        if abs(s2 / v - 1.0) >= prm[2] * eps:
            return prm[0] * sqcx
        return prm[1] * sqcx
    if code == 4:
        n = int(prm[0])
        r = math.sqrt(s2)
        if r == 0.0:
            return sqcx
        best = -1.0
        bx = sqcx
        for k in range(1, n + 1):
            x = (k * sqcx) / n
            w = v + x * x
            a = (1.0 + eps) * w - s2 - x * x
            b = (1.0 - eps) * w - s2 - x * x
            scale = math.sqrt(M / 2.0) / (2.0 * x * r)
            p = 0.5 * math.erfc(a * scale) + 0.5 * math.erfc(-b * scale)
            if p > best:
                best = p
                bx = x
        return bx
    if code == 5:
        if coord > 0.0:
            return sqcx
        return prm[0] * sqcx
    return math.nan


@njit(cache=True, nogil=True)
def _anytime_eps(V, M, K, ld, x0sq):
    L = ld + math.log(V / x0sq)
    kl = K * L
    return (kl + math.sqrt(kl * kl + 4.0 * M * kl)) / (2.0 * M)


@njit(cache=True, nogil=True)
def _make_column(g, fam, s, sqM, z):
    M = g.shape[0]
    if fam == 0:
        acc = 0.0
        for j in range(M):
            acc += g[j] * g[j]
        nrm = math.sqrt(acc)
        for j in range(M):
            z[j] = g[j] / nrm
    elif fam == 1:
        for j in range(M):
            z[j] = g[j] / sqM
    elif fam == 2:
        for j in range(M):
            z[j] = (1.0 if g[j] >= 0.0 else -1.0) / sqM
    else:
        a = np.abs(g)
        thr = np.partition(a, M - s)[M - s]
        sqs = math.sqrt(s)
        for j in range(M):
            if a[j] >= thr:
                z[j] = (1.0 if g[j] >= 0.0 else -1.0) / sqs
            else:
                z[j] = 0.0


@njit(cache=True, nogil=True)
def _full_kernel(keys, T, M, needs_u, fam, s, x0, eps, sqcx, code, prm, grid, rho, mix_l, K, any_ld,
                 x0sq, exit_t, final, rgrid, mix, anyx, maxdev):
    nb = keys.shape[0]
    G = grid.shape[0]
    sqM = math.sqrt(M)
    fM = float(M)
    S = np.zeros(M)
    z = np.empty(M)
    g = np.empty(M)
    eps0 = _anytime_eps(x0sq, fM, K, any_ld, x0sq)
    for i in range(nb):
        key = keys[i]
        for j in range(M):
            S[j] = 0.0
        S[0] = x0
        s2 = x0 * x0
        V = x0 * x0
        D = 0.0
        vm = 0.0
        et = T + 1
        md = 0.0
        mx = False
        ax = False
        gi = 0
        while gi < G and grid[gi] == 0:
            rgrid[i, gi] = s2 / V
            gi += 1
        for t in range(1, T + 1):
            u = _adv_unif(key, t) if needs_u else 0.0
            x = _choose_x(code, prm, s2, V, u, eps, fM, sqcx, et <= t - 1, S[0])
            base = (t - 1) * M
            dot = 0.0
            acc = 0.0
            # column z_t is drawn only now, after x_t is fixed (predictability)
            if fam == 1:
                # Gaussian: one fused pass (same operations and order as the reference)
                for j in range(M):
                    zj = _normal(key, np.uint64(base + j), np.uint64(0))[0] / sqM
                    dot += S[j] * zj
                    S[j] += x * zj
                    acc += S[j] * S[j]
            elif fam == 0:
                nn = 0.0
                for j in range(M):
                    gj = _normal(key, np.uint64(base + j), np.uint64(0))[0]
                    g[j] = gj
                    nn += gj * gj
                nrm = math.sqrt(nn)
                for j in range(M):
                    zj = g[j] / nrm
                    dot += S[j] * zj
                    S[j] += x * zj
                    acc += S[j] * S[j]
            else:
                for j in range(M):
                    g[j] = _normal(key, np.uint64(base + j), np.uint64(0))[0]
                _make_column(g, fam, s, sqM, z)
                for j in range(M):
                    dot += S[j] * z[j]
                    S[j] += x * z[j]
                    acc += S[j] * S[j]
            s2p = s2
            s2 = acc
            V += x * x
            # bookkeeping (identical in every kernel and reference)
            D += x * dot
            vm += ((4.0 * x) * x) * s2p / fM
            ratio = s2 / V
            dev = abs(ratio - 1.0)
            if dev > md:
                md = dev
            if et == T + 1 and dev > eps:
                et = t
            # exact shortcuts: log1p(.) >= 0 and eps_t >= eps_0 (monotone in floating point)
            lhs = (2.0 * D) * (2.0 * D)
            if lhs > (vm + rho) * mix_l and lhs > (vm + rho) * (math.log1p(vm / rho) + mix_l):
                mx = True
            if dev > eps0 and dev > _anytime_eps(V, fM, K, any_ld, x0sq):
                ax = True
            while gi < G and grid[gi] == t:
                rgrid[i, gi] = ratio
                gi += 1
        exit_t[i] = et
        final[i] = s2 / V
        mix[i] = mx
        anyx[i] = ax
        maxdev[i] = md


# --------------------------------------------------------------------------
# NumPy references (vectorised over the trials of a block)
# --------------------------------------------------------------------------

def _choose_x_np(code, prm, s2, v, u, eps, M, sqcx, exited, coord):
    n = s2.shape[0]
    if code == 0:
        return np.full(n, prm[0] * sqcx)
    if code == 1:
        return sqcx * (prm[0] + (1.0 - prm[0]) * u)
    if code == 2:
        return np.where(exited, 0.0, prm[0] * sqcx)
    if code == 3:
        return np.where(np.abs(s2 / v - 1.0) >= prm[2] * eps, prm[0] * sqcx, prm[1] * sqcx)
    if code == 4:
        ng = int(prm[0])
        r = np.sqrt(s2)
        best = np.full(n, -1.0)
        bx = np.full(n, sqcx)
        with np.errstate(divide="ignore", invalid="ignore"):
            for k in range(1, ng + 1):
                x = (k * sqcx) / ng
                w = v + x * x
                a = (1.0 + eps) * w - s2 - x * x
                b = (1.0 - eps) * w - s2 - x * x
                scale = math.sqrt(M / 2.0) / (2.0 * x * r)
                p = 0.5 * special.erfc(a * scale) + 0.5 * special.erfc(-b * scale)
                better = p > best
                best = np.where(better, p, best)
                bx = np.where(better, x, bx)
        return np.where(r == 0.0, sqcx, bx)
    if code == 5:
        return np.where(coord > 0.0, sqcx, prm[0] * sqcx)
    raise ValueError(f"adversary code {code} has no kernel rule")


class _Book:
    """Per-step bookkeeping of the NumPy references (mirrors the kernels exactly)."""

    def __init__(self, n, setup: SimSetup):
        self.setup = setup
        x0 = setup.x0
        self.s2 = np.full(n, x0 * x0)
        self.V = np.full(n, x0 * x0)
        self.D = np.zeros(n)
        self.vm = np.zeros(n)
        self.et = np.full(n, setup.T + 1, dtype=np.int64)
        self.md = np.zeros(n)
        self.mx = np.zeros(n, dtype=bool)
        self.ax = np.zeros(n, dtype=bool)
        self.rgrid = np.zeros((n, setup.grid.size))
        (_, _, _, _, _, _, self.rho, self.mix_l, self.K, self.any_ld, self.x0sq) = setup.kernel_args()
        self._record(0, self.s2 / self.V)

    def _record(self, t, ratio):
        hit = self.setup.grid == t
        if hit.any():
            self.rgrid[:, hit] = ratio[:, None]

    def step(self, t, x, dot, s2_new):
        fM = float(self.setup.M)
        s2p = self.s2
        self.s2 = s2_new
        self.V = self.V + x * x
        self.D = self.D + x * dot
        self.vm = self.vm + ((4.0 * x) * x) * s2p / fM
        ratio = self.s2 / self.V
        dev = np.abs(ratio - 1.0)
        self.md = np.maximum(self.md, dev)
        self.et = np.where((self.et == self.setup.T + 1) & (dev > self.setup.eps), t, self.et)
        self.mx |= (2.0 * self.D) * (2.0 * self.D) > (self.vm + self.rho) * (
            np.log1p(self.vm / self.rho) + self.mix_l)
        kl = self.K * (self.any_ld + np.log(self.V / self.x0sq))
        self.ax |= dev > (kl + np.sqrt(kl * kl + 4.0 * fM * kl)) / (2.0 * fM)
        self._record(t, ratio)

    def stats(self):
        return (self.et, self.s2 / self.V, self.rgrid, self.mx, self.ax, self.md)


def _full_block_numpy(normals, u, setup: SimSetup, exact=True):
    nb, T, M = normals.shape
    fam, adv = setup.family, setup.adversary
    sqcx = math.sqrt(setup.cx)
    prm = adv.params_array()
    S = np.zeros((nb, M))
    S[:, 0] = setup.x0
    book = _Book(nb, setup)

    def rowsum(a):
        return np.cumsum(a, axis=1)[:, -1] if exact else np.einsum("ij->i", a)

    for t in range(1, T + 1):
        x = _choose_x_np(adv.code, prm, book.s2, book.V, u[:, t - 1], setup.eps, float(M), sqcx,
                         book.et <= t - 1, S[:, 0])
        g = normals[:, t - 1, :]
        if exact or fam.name != "sphere":
            z = columns_from_normals(g, fam)
        else:
            z = g / np.sqrt(np.einsum("ij,ij->i", g, g))[:, None]
        dot = rowsum(S * z)
        S += x[:, None] * z
        book.step(t, x, dot, rowsum(S * S))
    return book.stats()


# --------------------------------------------------------------------------
# public driver
# --------------------------------------------------------------------------

def _empty_outputs(n, G):
    return (np.empty(n, dtype=np.int64), np.empty(n), np.empty((n, G)), np.empty(n, dtype=np.bool_),
            np.empty(n, dtype=np.bool_), np.empty(n))


def simulate_full(M, eps, T, n, rng, *, columns="sphere", adversary="constant", x0=1.0, cx=1.0,
                  s=None, grid=None, mix_alpha=0.05, mix_rho=None, anytime_delta=0.05,
                  anytime_const=16.0, backend="numba", exact=True) -> PathStats:
    r"""Simulate ``n`` independent runs of the protocol with explicit columns in ``R^M``.

    Parameters
    ----------
    M : sketch dimension; ``eps`` : band half-width ε ∈ (0, 1); ``T`` : horizon.
    n : number of trials; ``rng`` : Generator / SeedSequence / int.
    columns : column family (:mod:`seqproj.columns`); ``s`` for ``"sparse"``.
    adversary : a **predictable** adversary name or :class:`~seqproj.adversaries.Adversary`
        (the look-ahead control has its own :func:`simulate_lookahead`).
    x0 : ``x_0 ≠ 0``; ``cx`` : bound on ``x_t²``.
    grid : times at which the ratio path is recorded (default ≈ 30 points).
    mix_alpha, mix_rho : level and ρ of the mixture-step check (default ρ from the proof, §2 step 5).
    anytime_delta, anytime_const : δ and constant of the any-time band (§3b).
    backend : ``"numba"`` (kernel) or ``"numpy"`` (reference; ``exact=False`` uses
        pairwise sums — faster, same law, not bit-identical).

    Cost O(n·T·M).  See spec ``seqproj.md`` §1, §6.
    """
    setup = make_setup(M, eps, T, columns=columns, adversary=adversary, x0=x0, cx=cx, s=s,
                       grid=grid, mix_alpha=mix_alpha, mix_rho=mix_rho, anytime_delta=anytime_delta,
                       anytime_const=anytime_const)
    n = check_int("n", n, lo=0)
    check_choice("backend", backend, ("numba", "numpy"))
    return _simulate_full_setup(setup, n, as_generator(rng), backend, exact)


def _simulate_full_setup(setup: SimSetup, n: int, rng, backend="numba", exact=True,
                         block=None) -> PathStats:
    T, M, G = setup.T, setup.M, setup.grid.size
    out = _empty_outputs(n, G)
    args = setup.kernel_args()
    keys = draw_keys(rng, n)                    # the only draw from the chunk's generator
    if backend == "numba":
        _full_kernel(keys, T, M, setup.adversary.needs_uniforms, setup.family.code, setup.family.s,
                     *args, *out)
    else:
        nb_max = full_block_size(T, M) if block is None else int(block)
        streams = np.arange(T * M, dtype=np.uint64)
        for start in range(0, n, nb_max):
            sl = slice(start, min(n, start + nb_max))
            normals = normals_np(keys[sl], streams).reshape(-1, T, M)
            u = adversary_uniforms_np(keys[sl], T)
            res = _full_block_numpy(normals, u, setup, exact=exact)
            for o, r in zip(out, res):
                o[sl] = r
    et, fin, rg, mx, ax, md = out
    return PathStats(et, fin, md, mx, ax, rg, setup.grid, M, T, setup.eps)


@njit(cache=True, nogil=True)
def _null_vector(Z, h):
    """``h`` minus its projection onto the column space of ``Z`` (T×M, T > M).

    Modified Gram–Schmidt with one re-orthogonalisation pass, in numba (no BLAS
    threads: OpenBLAS oversubscription on a loaded machine made LAPACK's QR
    25× slower here).  The result ``x`` satisfies ``Zᵀx ≈ 0``.
    """
    T, M = Z.shape
    Q = np.ascontiguousarray(Z.T).copy()          # row k = column k of Z
    x = h.copy()
    for k in range(M):
        for _ in range(2):
            for j in range(k):
                d = 0.0
                for t in range(T):
                    d += Q[j, t] * Q[k, t]
                for t in range(T):
                    Q[k, t] -= d * Q[j, t]
        nn = 0.0
        for t in range(T):
            nn += Q[k, t] * Q[k, t]
        nrm = math.sqrt(nn)
        for t in range(T):
            Q[k, t] /= nrm
    for _ in range(2):
        for k in range(M):
            d = 0.0
            for t in range(T):
                d += Q[k, t] * x[t]
            for t in range(T):
                x[t] -= d * Q[k, t]
    return x


def simulate_lookahead(M, eps, T, n, rng, *, columns="sphere", x0=1.0, cx=1.0, grid=None,
                       mix_alpha=0.05, mix_rho=None, anytime_delta=0.05,
                       anytime_const=16.0) -> PathStats:
    r"""Negative control (check C): a **look-ahead** adversary that sees all columns.

    It draws the columns ``z_1..z_T`` first (same stream as the full simulator),
    then picks ``x_{1:T}`` in the null space of ``(z_1 … z_T)`` (possible when
    ``T > M``): the projection of a Gaussian vector onto that null space,
    scaled so that ``max_t |x_t| = √c_x``.  Then ``S_T = x_0 z_0`` while
    ``V_T = x_0² + ‖x‖²``, so the ratio at ``T`` collapses and the band is left.
    NOT predictable — it violates the theorem's only real assumption; spec §6 C.
    """
    setup = make_setup(M, eps, T, columns=columns, adversary="lookahead", x0=x0, cx=cx, grid=grid,
                       mix_alpha=mix_alpha, mix_rho=mix_rho, anytime_delta=anytime_delta,
                       anytime_const=anytime_const, allow_lookahead=True)
    if T <= M:
        raise ValueError(f"the look-ahead adversary needs T > M to find a null vector, got T={T}, M={M}")
    n = check_int("n", n, lo=0)
    rng = as_generator(rng)
    fam = setup.family
    G = setup.grid.size
    out = _empty_outputs(n, G)
    for i in range(n):
        Z = columns_from_normals(rng.standard_normal((T, M)), fam)       # row t-1 is z_t
        h = rng.standard_normal(T)
        # remove from h its projection onto range(Z) ⊂ R^T: then Z^T x = sum_t x_t z_t = 0,
        # a null vector of (z_1 ... z_T).
        x = _null_vector(Z, h)
        x *= math.sqrt(setup.cx) / np.max(np.abs(x))
        book = _Book(1, setup)
        S = np.zeros(M)
        S[0] = setup.x0
        for t in range(1, T + 1):
            z = Z[t - 1]
            dot = np.array([S @ z])
            S = S + x[t - 1] * z
            book.step(t, np.array([x[t - 1]]), dot, np.array([S @ S]))
        for o, r in zip(out, book.stats()):
            o[i] = r[0]
    et, fin, rg, mx, ax, md = out
    return PathStats(et, fin, md, mx, ax, rg, setup.grid, M, T, setup.eps)


def simulate_inner_product(M, eps, T, n, rng, *, columns="sphere", x0=1.0, y0=0.0, cx=1.0):
    r"""Inner-product corollary (spec §3c): two coefficient streams through the same columns.

    ``x_t = √c_x`` (constant design) and the predictable ``y_t = √c_x·sign(e_{t−1})``
    pushing the current error ``e_t = ⟨S_t(x), S_t(y)⟩ − Σ_{s≤t} x_s y_s``
    further (``+√c_x`` when ``e = 0``).  Returns a boolean array of length ``n``:
    whether ``|e_t| > (ε/2)(V_t(x) + V_t(y))`` at some ``t ≤ T``.

    The corollary (polarisation on ``x ± y`` with ``δ/2`` each; ``(x_t ± y_t)² ≤ 4c_x``)
    guarantees failure ≤ δ when ``M ≥ sequential_jl_min_dim(ε, δ/2, T, cx=4c_x,
    x0=min(|x_0+y_0|, |x_0−y_0|))``.  NumPy, O(n·T·M); DERIVED.
    """
    M = check_int("M", M, lo=1)
    eps = check_real("eps", eps, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    T = check_int("T", T, lo=1)
    n = check_int("n", n, lo=0)
    x0 = check_real("x0", x0)
    y0 = check_real("y0", y0)
    cx = check_real("cx", cx, lo=0.0, lo_open=True)
    if x0 + y0 == 0.0 or x0 - y0 == 0.0:
        raise ValueError(f"x0 ± y0 must be nonzero for the polarisation argument, got x0={x0}, y0={y0}")
    fam = column_family(columns, M)
    rng = as_generator(rng)
    sq = math.sqrt(cx)
    out = np.zeros(n, dtype=bool)
    nb_max = full_block_size(T, M)
    start = 0
    while start < n:
        nb = min(nb_max, n - start)
        normals = rng.standard_normal((nb, T, M))
        Sx = np.zeros((nb, M))
        Sy = np.zeros((nb, M))
        Sx[:, 0], Sy[:, 0] = x0, y0
        Vx = np.full(nb, x0 * x0)
        Vy = np.full(nb, y0 * y0)
        P = np.full(nb, x0 * y0)
        err = np.einsum("ij,ij->i", Sx, Sy) - P
        bad = np.zeros(nb, dtype=bool)
        for t in range(1, T + 1):
            x = np.full(nb, sq)
            y = np.where(err >= 0.0, sq, -sq)
            z = columns_from_normals(normals[:, t - 1, :], fam)
            Sx += x[:, None] * z
            Sy += y[:, None] * z
            Vx += x * x
            Vy += y * y
            P += x * y
            err = np.einsum("ij,ij->i", Sx, Sy) - P
            bad |= np.abs(err) > 0.5 * eps * (Vx + Vy)
        out[start:start + nb] = bad
        start += nb
    return out
