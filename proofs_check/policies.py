r"""Tabular autoregressive policies and exact enumeration over all ``V**T`` responses.

Layout (spec README, "Shared conventions"): a policy over a vocabulary of ``V``
tokens and horizon ``T`` stores, for each depth ``t = 0..T-1``, a logit table of
shape ``(V**t, V)``.  Row ``r`` of depth ``t`` is the prefix ``(y_1..y_t)`` whose
base-``V`` number, with ``y_1`` the most significant digit, is ``r``; extending
prefix ``r`` by token ``v`` gives prefix ``r*V + v`` of depth ``t+1``.  A full
sequence is indexed the same way in ``range(V**T)``; a reward is an array of
shape ``(V**T,)``.

Everything is computed in log space and vectorised over all prefixes of a depth
(a loop over the ``T`` depths, never over sequences).  Symbols (spec
``mismatch.md`` §1): ``μ`` the sampler, ``π`` the trainer;
``TV(c) = ½ Σ_v |π(v|c) − μ(v|c)|``, ``KL(c) = KL(μ(·|c) ‖ π(·|c))``,
``χ²(c) = Σ_v π(v|c)²/μ(v|c) − 1``; ``d_t^μ`` the distribution of the context
``c_{t+1} = y_{≤t}`` (code depth ``t`` = context of spec position ``t+1``).

Public API (stable; used by :mod:`proofs_check.mismatch` and the baselines
helper):

* :class:`TabularPolicy` — ``TabularPolicy(logits)``, ``.V``, ``.T``,
  ``.logits``, ``.log_probs(t)``, ``.probs(t)``, ``.flat_logits()``,
  ``TabularPolicy.from_flat(x, V, T)``, ``TabularPolicy.random(V, T, rng)``,
  ``TabularPolicy.uniform(V, T)``, ``TabularPolicy.iid(token_probs, T)``.
* enumeration: :func:`prefix_log_probs`, :func:`sequence_log_probs`,
  :func:`context_distributions`, :func:`expected_return` (``J``),
  :func:`token_log_ratio_tables`, :func:`expand_to_sequences`.
* divergences: :func:`per_context_tv`, :func:`per_context_kl`,
  :func:`per_context_chi2`, :func:`sequence_kl`, :func:`sequence_kl_chain`,
  :func:`sequence_tv`, :func:`sequence_chi2`, :func:`divergence_summary`.
* mismatch generators (return ``(mu, pi)``): :func:`uniform_mismatch`,
  :func:`sparse_mismatch`, :func:`low_probability_mismatch`,
  :func:`iid_tilt_pair`, and :func:`random_pair` dispatching on
  :data:`GENERATORS`.
* sampling: :func:`sample_responses`, :func:`token_log_probs`,
  :func:`sequence_index`.
* :class:`LinearSoftmaxPolicy` — shared parameters ``θ ∈ R^d``, logits
  ``z(c, v) = φ(c, v)·θ``; ``.tabular()``, ``.score_tables()``.
* memory guard: :func:`check_enumerable` (refuses up front, quoting the bytes).

References: spec ``mismatch.md`` §1–§2 (CONFIRMED setting; generators as in
the spec); "Trust Region Masking for Long-Horizon LLM RL" (arXiv 2512.23075).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.special import logsumexp

from .engine.validate import as_generator, check_choice, check_finite_array, check_int, check_real

__all__ = [
    "DEFAULT_MAX_BYTES",
    "GENERATORS",
    "TabularPolicy",
    "LinearSoftmaxPolicy",
    "check_enumerable",
    "check_pair",
    "check_reward",
    "prefix_log_probs",
    "sequence_log_probs",
    "sequence_probs",
    "context_distributions",
    "expected_return",
    "token_log_ratio_tables",
    "expand_to_sequences",
    "per_context_tv",
    "per_context_kl",
    "per_context_chi2",
    "sequence_kl",
    "sequence_kl_chain",
    "sequence_tv",
    "sequence_chi2",
    "DivergenceSummary",
    "divergence_summary",
    "uniform_mismatch",
    "sparse_mismatch",
    "low_probability_mismatch",
    "iid_tilt_pair",
    "random_pair",
    "sample_responses",
    "token_log_probs",
    "sequence_index",
    "kl_terms",
]

#: Default memory ceiling for one enumeration (bytes).  Override per call.
DEFAULT_MAX_BYTES = 2 * 1024 ** 3

#: Names of the mismatch generators of spec §2.
GENERATORS = ("uniform", "sparse", "low_prob", "iid_tilt")


# --------------------------------------------------------------------------
# memory guard
# --------------------------------------------------------------------------

def check_enumerable(V: int, T: int, *, n_arrays: int = 6, max_bytes: int = DEFAULT_MAX_BYTES) -> int:
    """Refuse, before allocating anything, an enumeration needing more than ``max_bytes``.

    The estimate is ``n_arrays × 8 bytes × V**T`` (float64 arrays over all
    sequences) plus the logit tables (``≈ V**T · V/(V−1)`` floats each).
    Returns ``V**T``; otherwise raises ``ValueError`` quoting the size needed.
    """
    V = check_int("V", V, lo=2)
    T = check_int("T", T, lo=1)
    n_seq = V ** T
    need = 8 * n_seq * (n_arrays + 2 * V / (V - 1))
    if need > max_bytes:
        raise ValueError(
            f"enumeration over V**T = {V}**{T} = {n_seq:.4g} sequences would need about "
            f"{need / 2**30:.3g} GiB ({n_arrays} float64 arrays over sequences plus logit tables); "
            f"the limit is max_bytes={max_bytes} ({max_bytes / 2**30:.3g} GiB). "
            f"Use a smaller T, the i.i.d.-tilt closed form, or Monte Carlo.")
    return n_seq


def _log_softmax(z: np.ndarray) -> np.ndarray:
    return z - logsumexp(z, axis=-1, keepdims=True)


# --------------------------------------------------------------------------
# the tabular policy
# --------------------------------------------------------------------------

class TabularPolicy:
    """An autoregressive policy with one logit row per prefix.

    Parameters
    ----------
    logits : sequence of ``T`` arrays
        ``logits[t]`` has shape ``(V**t, V)``; finite.

    The log-probabilities ``log π(·|c)`` are computed once (log-softmax per
    row) and stored read-only.  ``V ≥ 2``, ``T ≥ 1``.
    """

    __slots__ = ("_logits", "_logp", "V", "T", "_cache")

    def __init__(self, logits: Sequence[np.ndarray]):
        if isinstance(logits, np.ndarray) or not isinstance(logits, (list, tuple)):
            raise TypeError("logits must be a list of T arrays, depth t of shape (V**t, V); "
                            f"got {type(logits).__name__}")
        T = len(logits)
        if T < 1:
            raise ValueError(f"T = len(logits) must be ≥ 1, got {T}")
        first = check_finite_array("logits[0]", logits[0], ndim=2)
        if first.shape[0] != 1:
            raise ValueError(f"logits[0] must have shape (1, V), got {first.shape}")
        V = first.shape[1]
        if V < 2:
            raise ValueError(f"vocabulary size V must be ≥ 2, got V = {V}")
        tabs, logp = [], []
        for t, z in enumerate(logits):
            z = check_finite_array(f"logits[{t}]", z, ndim=2)
            if z.shape != (V ** t, V):
                raise ValueError(f"logits[{t}] must have shape (V**t, V) = ({V ** t}, {V}), got {z.shape}")
            z = np.array(z, dtype=float)
            lp = _log_softmax(z)
            z.setflags(write=False)
            lp.setflags(write=False)
            tabs.append(z)
            logp.append(lp)
        self._logits = tuple(tabs)
        self._logp = tuple(logp)
        self.V = int(V)
        self.T = int(T)
        self._cache = {}

    # --- accessors -------------------------------------------------------
    @property
    def logits(self) -> tuple:
        """The logit tables (read-only arrays)."""
        return self._logits

    def log_probs(self, t: int) -> np.ndarray:
        """``log π(v | c)`` for every prefix ``c`` of depth ``t``: shape ``(V**t, V)``."""
        t = check_int("t", t, lo=0, hi=self.T - 1)
        return self._logp[t]

    def probs(self, t: int) -> np.ndarray:
        """``π(v | c)`` at depth ``t``: shape ``(V**t, V)`` (cached, read-only)."""
        key = ("probs", t)
        got = self._cache.get(key)
        if got is None:
            got = np.exp(self.log_probs(t))
            got.setflags(write=False)
            self._cache[key] = got
        return got

    @property
    def n_params(self) -> int:
        """Number of logits ``Σ_t V**t · V``."""
        return sum(z.size for z in self._logits)

    def flat_logits(self) -> np.ndarray:
        """All logits concatenated depth by depth (row-major)."""
        return np.concatenate([z.ravel() for z in self._logits])

    @classmethod
    def from_flat(cls, x, V: int, T: int) -> "TabularPolicy":
        """Inverse of :meth:`flat_logits`."""
        V = check_int("V", V, lo=2)
        T = check_int("T", T, lo=1)
        x = check_finite_array("x", x, ndim=1)
        n = sum(V ** t * V for t in range(T))
        if x.size != n:
            raise ValueError(f"x must have Σ_t V**t·V = {n} entries for V={V}, T={T}, got {x.size}")
        out, k = [], 0
        for t in range(T):
            m = V ** t * V
            out.append(x[k:k + m].reshape(V ** t, V))
            k += m
        return cls(out)

    @classmethod
    def random(cls, V: int, T: int, rng, *, scale: float = 1.0,
               max_bytes: int = DEFAULT_MAX_BYTES) -> "TabularPolicy":
        """Logits i.i.d. ``N(0, scale²)``."""
        check_enumerable(V, T, n_arrays=1, max_bytes=max_bytes)
        scale = check_real("scale", scale, lo=0.0)
        g = as_generator(rng)
        return cls([scale * g.standard_normal((V ** t, V)) for t in range(T)])

    @classmethod
    def uniform(cls, V: int, T: int, *, max_bytes: int = DEFAULT_MAX_BYTES) -> "TabularPolicy":
        """The uniform policy (all logits 0)."""
        check_enumerable(V, T, n_arrays=1, max_bytes=max_bytes)
        return cls([np.zeros((V ** t, V)) for t in range(T)])

    @classmethod
    def iid(cls, token_probs, T: int, *, max_bytes: int = DEFAULT_MAX_BYTES) -> "TabularPolicy":
        """The same token distribution ``p`` at every prefix (an i.i.d. policy)."""
        p = _check_prob_vector("token_probs", token_probs)
        V = p.size
        check_enumerable(V, T, n_arrays=1, max_bytes=max_bytes)
        z = np.log(p)
        return cls([np.broadcast_to(z, (V ** t, V)).copy() for t in range(T)])

    def with_logits(self, t: int, rows, new_rows) -> "TabularPolicy":
        """A copy with ``logits[t][rows] = new_rows``."""
        tabs = [np.array(z) for z in self._logits]
        tabs[t][rows] = new_rows
        return TabularPolicy(tabs)

    def __repr__(self) -> str:
        return f"TabularPolicy(V={self.V}, T={self.T})"

    def __reduce__(self):
        return (TabularPolicy, (list(self._logits),))


def _check_prob_vector(name: str, p) -> np.ndarray:
    p = check_finite_array(name, p, ndim=1)
    if p.size < 2:
        raise ValueError(f"{name} must have V ≥ 2 entries, got {p.size}")
    if np.any(p <= 0) or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must be a strictly positive probability vector summing to 1, got {p}")
    return p / p.sum()


def check_pair(mu, pi) -> tuple[int, int]:
    """``mu`` and ``pi`` are TabularPolicies with the same ``(V, T)``; returns it."""
    for name, p in (("mu", mu), ("pi", pi)):
        if not isinstance(p, TabularPolicy):
            raise TypeError(f"{name} must be a TabularPolicy, got {type(p).__name__}")
    if (mu.V, mu.T) != (pi.V, pi.T):
        raise ValueError(f"mu and pi must share (V, T); got mu (V={mu.V}, T={mu.T}), pi (V={pi.V}, T={pi.T})")
    return mu.V, mu.T


def check_reward(reward, V: int, T: int, *, unit: bool = False, purpose: str = "") -> np.ndarray:
    """A reward array of shape ``(V**T,)``; with ``unit=True`` it must lie in ``[0, 1]``."""
    r = check_finite_array("reward", reward, ndim=1)
    if r.shape != (V ** T,):
        raise ValueError(f"reward must have shape (V**T,) = ({V ** T},), got {r.shape}")
    if unit and (r.min() < 0.0 or r.max() > 1.0):
        why = f" ({purpose})" if purpose else ""
        raise ValueError(f"reward must lie in [0, 1]{why}; got values in [{r.min():.6g}, {r.max():.6g}]")
    return r


# --------------------------------------------------------------------------
# enumeration
# --------------------------------------------------------------------------

def prefix_log_probs(policy: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> list:
    """``log P^π(y_{≤t})`` for ``t = 0..T``: a list of ``T+1`` arrays, entry ``t`` of shape ``(V**t,)``.

    Entry ``T`` is the sequence log-probability.  Cached on the policy.
    """
    if not isinstance(policy, TabularPolicy):
        raise TypeError(f"policy must be a TabularPolicy, got {type(policy).__name__}")
    got = policy._cache.get("prefix")
    if got is not None:
        return got
    check_enumerable(policy.V, policy.T, n_arrays=2, max_bytes=max_bytes)
    out = [np.zeros(1)]
    for t in range(policy.T):
        out.append((out[-1][:, None] + policy.log_probs(t)).ravel())
    for a in out:
        a.setflags(write=False)
    policy._cache["prefix"] = out
    return out


def sequence_log_probs(policy: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> np.ndarray:
    """``log P^π(y)`` for all ``V**T`` sequences, shape ``(V**T,)``."""
    return prefix_log_probs(policy, max_bytes=max_bytes)[-1]


def context_distributions(policy: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> list:
    """``d_t(c) = P(y_{≤t} = c)`` for depth ``t = 0..T−1`` (spec position ``t+1``; cached)."""
    got = policy._cache.get("ctx")
    if got is None:
        got = [np.exp(a) for a in prefix_log_probs(policy, max_bytes=max_bytes)[:-1]]
        for a in got:
            a.setflags(write=False)
        policy._cache["ctx"] = got
    return got


def sequence_probs(policy: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> np.ndarray:
    """``P^π(y)`` for all sequences (``exp`` of :func:`sequence_log_probs`; cached)."""
    got = policy._cache.get("seqp")
    if got is None:
        got = np.exp(sequence_log_probs(policy, max_bytes=max_bytes))
        got.setflags(write=False)
        policy._cache["seqp"] = got
    return got


def expected_return(policy: TabularPolicy, reward, *, max_bytes: int = DEFAULT_MAX_BYTES) -> float:
    """``J(π) = Σ_y P^π(y) R(y)`` (exact)."""
    r = check_reward(reward, policy.V, policy.T)
    return float(sequence_probs(policy, max_bytes=max_bytes) @ r)


def token_log_ratio_tables(mu: TabularPolicy, pi: TabularPolicy) -> list:
    """``log ρ(v|c) = log π(v|c) − log μ(v|c)`` per depth: list of ``(V**t, V)`` arrays."""
    check_pair(mu, pi)
    return [pi.log_probs(t) - mu.log_probs(t) for t in range(mu.T)]


def expand_to_sequences(table: np.ndarray, t: int, V: int, T: int) -> np.ndarray:
    """View a per-(prefix, token) table of depth ``t`` as a per-sequence array.

    ``table`` has ``V**(t+1)`` entries (shape ``(V**t, V)`` or flat); the result
    has shape ``(V**(t+1), V**(T−t−1))`` (a broadcast view, no copy): entry
    ``[s // V**(T−t−1), s % ...]`` is the value at the depth-``t`` token of
    sequence ``s``.  ``.reshape(-1)`` after a broadcast op gives ``(V**T,)``.
    """
    a = np.asarray(table).reshape(-1)
    if a.size != V ** (t + 1):
        raise ValueError(f"table at depth t={t} must have V**(t+1) = {V ** (t + 1)} entries, got {a.size}")
    return np.broadcast_to(a[:, None], (V ** (t + 1), V ** (T - t - 1)))


def kl_terms(log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """Elementwise ``p log(p/q)`` written as ``p (e^{Δ} − 1 − Δ)`` with ``Δ = log q − log p``.

    Summed over a full distribution (where ``Σ p = Σ q = 1``) this is
    ``KL(p ‖ q)``; each term is ``≥ 0`` and accurate for small ``Δ`` (no
    cancellation), falling back to ``q − p − pΔ`` where ``|Δ| ≥ 1``.
    """
    d = log_q - log_p
    p = np.exp(log_p)
    big = np.abs(d) >= 1.0
    if not big.any():
        return p * (np.expm1(d) - d)
    out = p * (np.expm1(np.where(big, 0.0, d)) - np.where(big, 0.0, d))
    out[big] = np.exp(log_q[big]) - p[big] - p[big] * d[big]
    return out


def per_context_tv(mu: TabularPolicy, pi: TabularPolicy) -> list:
    """``TV(c) = ½ Σ_v |π(v|c) − μ(v|c)|`` per depth: list of ``(V**t,)`` arrays."""
    check_pair(mu, pi)
    return [0.5 * np.abs(pi.probs(t) - mu.probs(t)).sum(axis=1) for t in range(mu.T)]


def per_context_kl(mu: TabularPolicy, pi: TabularPolicy) -> list:
    """``KL(c) = KL(μ(·|c) ‖ π(·|c))`` per depth (accurate for tiny mismatch)."""
    check_pair(mu, pi)
    return [np.maximum(kl_terms(mu.log_probs(t), pi.log_probs(t)).sum(axis=1), 0.0) for t in range(mu.T)]


def _chi2_terms(log_mu, log_pi):
    d = log_pi - log_mu
    m = np.exp(log_mu)
    big = np.abs(d) >= 1.0
    if not big.any():
        return m * np.expm1(d) ** 2
    out = m * np.expm1(np.where(big, 0.0, d)) ** 2
    with np.errstate(over="ignore"):
        out[big] = np.exp(2.0 * log_pi[big] - log_mu[big]) - 2.0 * np.exp(log_pi[big]) + m[big]
    return out


def per_context_chi2(mu: TabularPolicy, pi: TabularPolicy) -> list:
    """``χ²(c) = Σ_v π(v|c)²/μ(v|c) − 1 = Σ_v (π − μ)²/μ`` per depth."""
    check_pair(mu, pi)
    return [np.maximum(_chi2_terms(mu.log_probs(t), pi.log_probs(t)).sum(axis=1), 0.0) for t in range(mu.T)]


def sequence_kl(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> float:
    """``D_KL^seq = KL(P^μ ‖ P^π)`` computed directly over all sequences."""
    check_pair(mu, pi)
    return float(max(kl_terms(sequence_log_probs(mu, max_bytes=max_bytes),
                              sequence_log_probs(pi, max_bytes=max_bytes)).sum(), 0.0))


def sequence_kl_chain(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> float:
    """``Σ_t E_{c∼d_t^μ} KL(c)`` — the chain-rule form of ``D_KL^seq``."""
    d = context_distributions(mu, max_bytes=max_bytes)
    return float(sum(dt @ kt for dt, kt in zip(d, per_context_kl(mu, pi))))


def sequence_tv(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> float:
    """``D_TV^seq = ½ Σ_y |P^π(y) − P^μ(y)|``."""
    check_pair(mu, pi)
    return float(0.5 * np.abs(sequence_probs(pi, max_bytes=max_bytes)
                              - sequence_probs(mu, max_bytes=max_bytes)).sum())


def sequence_chi2(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> float:
    """``χ²_seq = E_μ[ρ²] − 1 = Σ_y (P^π − P^μ)²/P^μ``."""
    check_pair(mu, pi)
    return float(max(_chi2_terms(sequence_log_probs(mu, max_bytes=max_bytes),
                                 sequence_log_probs(pi, max_bytes=max_bytes)).sum(), 0.0))


@dataclass(frozen=True)
class DivergenceSummary:
    """Every divergence of spec §1 for a pair, exact.

    ``eps = max_{t,c} TV(c)``, ``delta = max_{t,c} KL(c)`` (over all contexts,
    reachable or not — all are reachable since logits are finite),
    ``chi2_max = max χ²(c)``, ``dbar[t] = E_{d_t^μ} TV(c)`` (depth ``t``),
    ``kl_bar[t] = E_{d_t^μ} KL(c)``, and the sequence-level quantities.
    """

    V: int
    T: int
    eps: float
    delta: float
    chi2_max: float
    d_kl_seq: float
    d_kl_seq_chain: float
    d_tv_seq: float
    chi2_seq: float
    dbar: tuple
    kl_bar: tuple

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def divergence_summary(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> DivergenceSummary:
    """All divergences of spec §1 in one pass (see :class:`DivergenceSummary`)."""
    V, T = check_pair(mu, pi)
    hit = mu._cache.get("summary")
    if hit is not None and hit[0] is pi:
        return hit[1]
    check_enumerable(V, T, n_arrays=6, max_bytes=max_bytes)
    tv = per_context_tv(mu, pi)
    kl = per_context_kl(mu, pi)
    c2 = per_context_chi2(mu, pi)
    d = context_distributions(mu, max_bytes=max_bytes)
    kl_bar = tuple(float(a @ b) for a, b in zip(d, kl))
    out = DivergenceSummary(
        V=V, T=T,
        eps=float(max(a.max() for a in tv)),
        delta=float(max(a.max() for a in kl)),
        chi2_max=float(max(a.max() for a in c2)),
        d_kl_seq=sequence_kl(mu, pi, max_bytes=max_bytes),
        d_kl_seq_chain=float(sum(kl_bar)),
        d_tv_seq=sequence_tv(mu, pi, max_bytes=max_bytes),
        chi2_seq=sequence_chi2(mu, pi, max_bytes=max_bytes),
        dbar=tuple(float(a @ b) for a, b in zip(d, tv)),
        kl_bar=kl_bar,
    )
    mu._cache["summary"] = (pi, out)      # keyed by identity of pi (held, so the id cannot be reused)
    return out


# --------------------------------------------------------------------------
# mismatch generators (spec §2)
# --------------------------------------------------------------------------

def uniform_mismatch(mu: TabularPolicy, rng, *, sigma: float = 0.1) -> tuple:
    """``π`` = ``μ`` with Gaussian noise ``N(0, σ²)`` on every logit.  Returns ``(mu, pi)``."""
    sigma = check_real("sigma", sigma, lo=0.0)
    g = as_generator(rng)
    return mu, TabularPolicy([z + sigma * g.standard_normal(z.shape) for z in mu.logits])


def _set_prob(logp_row: np.ndarray, v: int, p: float) -> np.ndarray:
    """Log-probabilities with token ``v`` set to ``p`` and the others rescaled."""
    others = np.delete(np.arange(logp_row.size), v)
    out = np.empty_like(logp_row)
    rest = logsumexp(logp_row[others])
    out[others] = logp_row[others] - rest + math.log1p(-p)
    out[v] = math.log(p)
    return out


def sparse_mismatch(mu: TabularPolicy, rng, *, n_flips: int = 2, p_mu: float = 0.9,
                    p_pi: float = 0.001, sigma: float = 0.0) -> tuple:
    """"MoE flip": at ``n_flips`` random prefixes set ``μ(v|c) = p_mu`` and ``π(v|c) = p_pi``.

    Elsewhere ``π = μ`` (plus optional Gaussian logit noise ``sigma``).  The
    prefixes are drawn uniformly over all ``(depth, row)`` pairs weighted by
    depth uniformly (so shallow, frequently visited prefixes are hit too).
    Returns ``(mu', pi)`` — both are modified at the flipped prefixes.
    """
    n_flips = check_int("n_flips", n_flips, lo=0)
    p_mu = check_real("p_mu", p_mu, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    p_pi = check_real("p_pi", p_pi, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    sigma = check_real("sigma", sigma, lo=0.0)
    g = as_generator(rng)
    mu_tabs = [np.array(z) for z in mu.logits]
    pi_tabs = [z + sigma * g.standard_normal(z.shape) if sigma > 0 else np.array(z) for z in mu.logits]
    V = mu.V
    for _ in range(n_flips):
        t = int(g.integers(mu.T))
        r = int(g.integers(V ** t))
        v = int(g.integers(V))
        base = _log_softmax(mu_tabs[t][r])
        mu_tabs[t][r] = _set_prob(base, v, p_mu)
        pi_tabs[t][r] = _set_prob(base, v, p_pi)
    return TabularPolicy(mu_tabs), TabularPolicy(pi_tabs)


def low_probability_mismatch(mu: TabularPolicy, rng, *, tau: float = 0.1, sigma: float = 0.5,
                             shift: float = 1.0) -> tuple:
    """Perturb only tokens with ``μ(v|c) < τ``: ``z_π = z_μ + σ·N(0,1) − shift`` there.

    ``shift > 0`` makes ``π ≪ μ`` on the rare tokens, where the blog finds the
    real mismatch.  Returns ``(mu, pi)``.
    """
    tau = check_real("tau", tau, lo=0.0, hi=1.0, lo_open=True)
    sigma = check_real("sigma", sigma, lo=0.0)
    shift = check_real("shift", shift)
    g = as_generator(rng)
    out = []
    for t in range(mu.T):
        z = mu.logits[t]
        low = mu.probs(t) < tau
        out.append(z + low * (sigma * g.standard_normal(z.shape) - shift))
    return mu, TabularPolicy(out)


def iid_tilt_pair(mu_token, pi_token, T: int, *, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple:
    """The same per-token pair ``(μ, π)`` at every prefix; returns tabular ``(mu, pi)``.

    For long ``T`` use the closed forms in :mod:`proofs_check.mismatch`
    (counts are multinomial) instead of enumeration.
    """
    m = _check_prob_vector("mu_token", mu_token)
    p = _check_prob_vector("pi_token", pi_token)
    if m.size != p.size:
        raise ValueError(f"mu_token and pi_token must have the same length V, got {m.size} and {p.size}")
    return TabularPolicy.iid(m, T, max_bytes=max_bytes), TabularPolicy.iid(p, T, max_bytes=max_bytes)


def random_pair(generator: str, V: int, T: int, rng, *, scale: float = 1.0, **kw) -> tuple:
    """A random policy pair from one of :data:`GENERATORS`.

    The base ``μ`` has logits ``N(0, scale²)``; keyword arguments go to the
    generator (``uniform``: ``sigma``; ``sparse``: ``n_flips, p_mu, p_pi,
    sigma``; ``low_prob``: ``tau, sigma, shift``; ``iid_tilt``: ``sigma``,
    the logit-noise scale between the token distributions, and
    ``alpha`` the Dirichlet concentration of ``μ``'s token distribution).
    """
    check_choice("generator", generator, GENERATORS)
    g = as_generator(rng)
    if generator == "iid_tilt":
        sigma = check_real("sigma", kw.pop("sigma", 0.3), lo=0.0)
        alpha = check_real("alpha", kw.pop("alpha", 2.0), lo=0.0, lo_open=True)
        if kw:
            raise TypeError(f"unexpected keyword arguments for iid_tilt: {sorted(kw)}")
        m = g.dirichlet(np.full(V, alpha))
        m = np.clip(m, 1e-12, None)
        m /= m.sum()
        z = np.log(m) + sigma * g.standard_normal(V)
        p = np.exp(_log_softmax(z))
        return iid_tilt_pair(m, p, T)
    mu = TabularPolicy.random(V, T, g, scale=scale)
    if generator == "uniform":
        return uniform_mismatch(mu, g, **kw)
    if generator == "sparse":
        return sparse_mismatch(mu, g, **kw)
    return low_probability_mismatch(mu, g, **kw)


# --------------------------------------------------------------------------
# sampling
# --------------------------------------------------------------------------

def sample_responses(policy: TabularPolicy, n: int, rng) -> np.ndarray:
    """``n`` responses ``y ∼ π``: integer array ``(n, T)`` (vectorised over ``n``)."""
    if not isinstance(policy, TabularPolicy):
        raise TypeError(f"policy must be a TabularPolicy, got {type(policy).__name__}")
    n = check_int("n", n, lo=1)
    g = as_generator(rng)
    V, T = policy.V, policy.T
    y = np.empty((n, T), dtype=np.int64)
    row = np.zeros(n, dtype=np.int64)
    for t in range(T):
        cdf = np.cumsum(np.exp(policy.log_probs(t)[row]), axis=1)
        u = g.random(n) * cdf[:, -1]
        tok = (u[:, None] >= cdf).sum(axis=1)
        tok = np.minimum(tok, V - 1)
        y[:, t] = tok
        row = row * V + tok
    return y


def sequence_index(tokens, V: int) -> np.ndarray:
    """Base-``V`` index of each row of ``tokens`` (``y_1`` most significant)."""
    y = np.asarray(tokens)
    if y.ndim != 2 or y.dtype.kind not in "iu":
        raise ValueError(f"tokens must be a 2-D integer array (n, T), got shape {y.shape} dtype {y.dtype}")
    V = check_int("V", V, lo=2)
    if y.size and (y.min() < 0 or y.max() >= V):
        raise ValueError(f"tokens must lie in [0, V-1] = [0, {V - 1}]")
    idx = np.zeros(y.shape[0], dtype=np.int64)
    for t in range(y.shape[1]):
        idx = idx * V + y[:, t]
    return idx


def token_log_probs(policy: TabularPolicy, tokens) -> tuple:
    """Per-token log-probs along given responses.

    Returns ``(logp, logp_full)``: ``logp[i, t] = log π(y_t | c_t)`` of shape
    ``(n, T)`` and ``logp_full[i, t, :] = log π(· | c_t)`` of shape ``(n, T, V)``
    (the full-vocabulary log-probs, as a sampler would store logits).
    """
    y = np.asarray(tokens)
    V, T = policy.V, policy.T
    if y.ndim != 2 or y.shape[1] != T or y.dtype.kind not in "iu":
        raise ValueError(f"tokens must be an integer array (n, T={T}), got shape {y.shape}")
    if y.size and (y.min() < 0 or y.max() >= V):
        raise ValueError(f"tokens must lie in [0, V-1] = [0, {V - 1}]")
    n = y.shape[0]
    full = np.empty((n, T, V))
    row = np.zeros(n, dtype=np.int64)
    for t in range(T):
        full[:, t] = policy.log_probs(t)[row]
        row = row * V + y[:, t]
    lp = np.take_along_axis(full, y[:, :, None], axis=2)[:, :, 0]
    return lp, full


# --------------------------------------------------------------------------
# shared-parameter linear softmax policy
# --------------------------------------------------------------------------

class LinearSoftmaxPolicy:
    r"""Shared parameters: ``z(c, v) = φ(c, v)·θ``, ``π(v|c) = softmax_v z(c, ·)``.

    Parameters
    ----------
    theta : array ``(d,)``
    features : list of ``T`` arrays, depth ``t`` of shape ``(V**t, V, d)``.

    The score is ``∇_θ log π(v|c) = φ(c, v) − Σ_w π(w|c) φ(c, w)``
    (:meth:`score_tables`).  Unlike a tabular policy, one parameter moves many
    contexts at once, which is what makes gradient estimators' biases visible.
    """

    def __init__(self, theta, features):
        theta = check_finite_array("theta", theta, ndim=1)
        if not isinstance(features, (list, tuple)) or len(features) < 1:
            raise TypeError("features must be a non-empty list of T arrays of shape (V**t, V, d)")
        f0 = check_finite_array("features[0]", features[0], ndim=3)
        V, d = f0.shape[1], f0.shape[2]
        if V < 2:
            raise ValueError(f"vocabulary size V must be ≥ 2, got {V}")
        if d != theta.size:
            raise ValueError(f"features' last axis d={d} must equal theta's length {theta.size}")
        feats = []
        for t, f in enumerate(features):
            f = check_finite_array(f"features[{t}]", f, ndim=3)
            if f.shape != (V ** t, V, d):
                raise ValueError(f"features[{t}] must have shape ({V ** t}, {V}, {d}), got {f.shape}")
            feats.append(f)
        self.theta = theta
        self.features = tuple(feats)
        self.V, self.T, self.d = V, len(feats), d
        self._tab = TabularPolicy([f @ theta for f in feats])

    @classmethod
    def random(cls, V: int, T: int, d: int, rng, *, scale: float = 1.0,
               max_bytes: int = DEFAULT_MAX_BYTES) -> "LinearSoftmaxPolicy":
        """Features ``φ(c, v) = G[last token of c (or BOS), v]`` with ``G ∼ N(0,1)``,
        shared across depths; ``θ ∼ N(0, scale²/d)``."""
        d = check_int("d", d, lo=1)
        check_enumerable(V, T, n_arrays=d, max_bytes=max_bytes)
        g = as_generator(rng)
        G = g.standard_normal((V + 1, V, d))
        feats = [G[V][None].copy()]
        for t in range(1, T):
            last = np.arange(V ** t) % V
            feats.append(G[last])
        theta = scale * g.standard_normal(d) / math.sqrt(d)
        return cls(theta, feats)

    def with_theta(self, theta) -> "LinearSoftmaxPolicy":
        return LinearSoftmaxPolicy(theta, list(self.features))

    def tabular(self) -> TabularPolicy:
        """The induced :class:`TabularPolicy`."""
        return self._tab

    def score_tables(self) -> list:
        """``∇_θ log π(v|c)`` per depth: list of ``(V**t, V, d)`` arrays."""
        out = []
        for t, f in enumerate(self.features):
            p = self._tab.probs(t)
            out.append(f - np.einsum("rv,rvd->rd", p, f)[:, None, :])
        return out

    def __repr__(self) -> str:
        return f"LinearSoftmaxPolicy(V={self.V}, T={self.T}, d={self.d})"
