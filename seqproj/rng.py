r"""Counter-based random numbers: the same variates in numba kernels and in NumPy.

Every variate is a pure function of ``(key, stream, j)``: word ``j`` of
sub-stream ``stream`` of a trial with 64-bit ``key`` is SplitMix64's finaliser
applied to ``key + (256·stream + j + 1)·γ (mod 2^64)``, ``γ = 0x9E3779B97F4A7C15``.
On top of the words:

* a standard normal from its own sub-stream by NumPy's 256-layer ziggurat
  (Marsaglia & Tsang 2000) — :func:`counter_normal`;
* a chi-square with ``2(d + 1/3)`` degrees of freedom, ``2·Gamma(d + 1/3)`` by
  Marsaglia–Tsang's gamma method (shape ≥ 1) — :func:`counter_chisq`;
* a uniform on ``[0, 1)`` from the top 53 bits of a word — :func:`counter_uniform`.

Because nothing depends on the order in which variates are produced, the
numba kernels (sequential, fused) and the NumPy references (vectorised: the
first ziggurat attempt for every variate at once, the rare retries — about
1 % — through the numba scalar) produce the same numbers bit for bit.  A
sub-stream holds 256 words; a single normal needs more than 256 words with
probability < 1e-200.

The reproducibility contract of the simulators: a chunk's generator draws one
64-bit key per trial (:func:`draw_keys`) and nothing else; the adversary's
uniform at step ``t`` is sub-stream :data:`U_STREAM` ``+ t``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

#: The numba generators (counter_*, *_first_attempt, adversary_uniform, fill_normals) check nothing
#: and are internal building blocks of :mod:`seqproj.kernels`: out of ``__all__`` (issue 26).  Their
#: NumPy references ``normals_np``/``chisq_np``/``adversary_uniforms_np`` stay public.
__all__ = ["U_STREAM", "draw_keys", "normals_np", "chisq_np", "adversary_uniforms_np"]

#: sub-stream offset of the adversary's uniforms (step t uses stream U_STREAM + t)
U_STREAM = 1 << 40

_G = 0x9E3779B97F4A7C15
_MASK52 = (1 << 52) - 1
_TO_UNIT = 1.0 / 9007199254740992.0          # 2^-53
_ZIG_R = 3.6541528853610088
_ZIG_INV_R = 0.27366123732975828
_ZIG_V = 0.00492867323399


def _ziggurat_tables():
    """NumPy's 256-layer ziggurat tables (``ki`` integer thresholds, ``wi`` widths, ``fi`` heights)."""
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


# -- numba (scalar) ------------------------------------------------------------------

@njit(cache=True, nogil=True)
def counter_word(key, stream, j):
    """Word ``j`` of sub-stream ``stream`` (all ``np.uint64``): SplitMix64's finaliser."""
    z = key + (stream * np.uint64(256) + j + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def counter_uniform(key, stream, j):
    """Uniform on ``[0, 1)`` from the top 53 bits of :func:`counter_word`."""
    return float(counter_word(key, stream, j) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def counter_normal(key, stream, j):
    """(standard normal, next word index) from sub-stream ``stream`` starting at word ``j``."""
    while True:
        r = counter_word(key, stream, j)
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
                u1 = counter_uniform(key, stream, j)
                u2 = counter_uniform(key, stream, j + np.uint64(1))
                j += np.uint64(2)
                xx = -_ZIG_INV_R * math.log1p(-u1)
                yy = -math.log1p(-u2)
                if yy + yy > xx * xx:
                    if ((rabs >> np.uint64(8)) & np.uint64(1)) != np.uint64(0):
                        return -(_ZIG_R + xx), j
                    return _ZIG_R + xx, j
        else:
            u = counter_uniform(key, stream, j)
            j += np.uint64(1)
            if (_FI[idx - np.uint64(1)] - _FI[idx]) * u + _FI[idx] < math.exp(-0.5 * x * x):
                return x, j


@njit(cache=True, nogil=True)
def counter_chisq(key, stream, d, c):
    """χ² with ``2(d + 1/3)`` degrees of freedom: ``2·Gamma(d + 1/3)`` by Marsaglia–Tsang
    (``c = 1/√(9d)``, shape ≥ 1), from sub-stream ``stream``."""
    j = np.uint64(0)
    while True:
        x, j = counter_normal(key, stream, j)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = counter_uniform(key, stream, j)
        j += np.uint64(1)
        if u < 1.0 - 0.0331 * (x * x) * (x * x):
            return 2.0 * (d * v)
        if math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
            return 2.0 * (d * v)


@njit(inline="always", nogil=True)
def normal_first_attempt(key, stream):
    """``(x, accepted)``: the first ziggurat attempt of ``counter_normal(key, stream, 0)`` — word 0
    only, no loop, no branch on the data.  Where ``accepted``, ``x`` *is* that normal (bit for
    bit); elsewhere (≈ 1.2 % of draws: the wedges and the tail) call :func:`counter_normal`.
    Branch-free so that a loop over many keys compiles to SIMD instructions."""
    r = counter_word(key, stream, np.uint64(0))
    idx = r & np.uint64(0xFF)
    r = r >> np.uint64(8)
    rabs = (r >> np.uint64(1)) & np.uint64(0x000FFFFFFFFFFFFF)
    x = float(rabs) * _WI[idx]
    x = -x if (r & np.uint64(1)) != np.uint64(0) else x
    return x, rabs < _KI[idx]


@njit(inline="always", nogil=True)
def chisq_first_attempt(key, stream, d, c):
    """``(q, accepted)``: the first Marsaglia–Tsang attempt of ``counter_chisq(key, stream, d, c)``
    with its first ziggurat attempt and the squeeze test ``u < 1 − 0.0331 x⁴`` only.  Where
    ``accepted``, ``q`` *is* that χ² (bit for bit); elsewhere (≈ 2 % at d ≥ 31) call
    :func:`counter_chisq`.  Branch-free, as :func:`normal_first_attempt`."""
    x, ok = normal_first_attempt(key, stream)
    v = 1.0 + c * x
    v3 = v * v * v
    u = float(counter_word(key, stream, np.uint64(1)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    return 2.0 * (d * v3), ok & (v > 0.0) & (u < 1.0 - 0.0331 * (x * x) * (x * x))


@njit(cache=True, nogil=True)
def adversary_uniform(key, t):
    """The adversary's own uniform at step ``t`` (sub-stream ``U_STREAM + t``)."""
    return counter_uniform(key, np.uint64(1 << 40) + np.uint64(t), np.uint64(0))


@njit(cache=True, nogil=True)
def fill_normals(keys, T, M, out):
    """``out[i, t, m]`` = the normal of sub-stream ``t·M + m`` of trial ``i`` (the full
    simulator's column normals, for tests)."""
    for i in range(keys.shape[0]):
        for t in range(T):
            for m in range(M):
                out[i, t, m] = counter_normal(keys[i], np.uint64(t * M + m), np.uint64(0))[0]


# -- NumPy (vectorised) ---------------------------------------------------------------

def _word_np(key, stream, j):
    with np.errstate(over="ignore"):
        z = key + (stream * np.uint64(256) + j + np.uint64(1)) * np.uint64(_G)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _normal_first_np(key, stream):
    """Vectorised first ziggurat attempt: ``(x, accepted)``; ``x`` valid where accepted."""
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
        x[a, b] = counter_normal(keys[a], streams[b], np.uint64(0))[0]
    return x


def adversary_uniforms_np(keys, T):
    """``(len(keys), T)`` uniforms of the adversary (column ``t − 1`` is step ``t``)."""
    keys = np.asarray(keys, dtype=np.uint64)
    st = np.uint64(U_STREAM) + np.arange(1, T + 1, dtype=np.uint64)
    w = _word_np(keys[:, None], st[None, :], np.uint64(0))
    return (w >> np.uint64(11)).astype(np.float64) * _TO_UNIT


def chisq_np(keys, streams, d, c):
    """χ² variates of :func:`counter_chisq` for arrays of keys and streams (same shape)."""
    keys = np.asarray(keys, dtype=np.uint64)
    streams = np.asarray(streams, dtype=np.uint64)
    x, ok = _normal_first_np(keys, streams)
    v = 1.0 + c * x
    v3 = v * v * v
    u = (_word_np(keys, streams, np.uint64(1)) >> np.uint64(11)).astype(np.float64) * _TO_UNIT
    fast = ok & (v > 0.0) & (u < 1.0 - 0.0331 * (x * x) * (x * x))
    out = np.where(fast, 2.0 * (d * v3), 0.0)
    for idx in zip(*np.nonzero(~fast)):
        out[idx] = counter_chisq(keys[idx], streams[idx], d, c)
    return out


def draw_keys(rng, n):
    """One 64-bit key per trial from the chunk's generator (its only draw)."""
    return rng.integers(0, np.iinfo(np.uint64).max, size=n, dtype=np.uint64, endpoint=True)
