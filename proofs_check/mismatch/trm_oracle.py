r"""The oracle of the TRM claims and the events they count (theory ``mismatch.md#trm``).

:func:`exact_path_kl` recomputes ``KL(μ(·|c_t) ‖ π(·|c_t))`` along sampled
responses from the raw logit tables, independently of the library's
divergences and masks.  The experiment :data:`~.experiments.TRM_PATHS`
(:func:`trm_path_trials`) draws a fresh policy pair and one response per trial
and records what each mask sees and the oracle's KL; the claims and the figure
reduce the same trials:

* :func:`wrong_decisions` — the library's TRM-Max decision
  (:func:`~proofs_check.policies.per_context_kl` +
  :func:`~proofs_check.mismatch.masks.trm_max_mask`) differs from the exact
  rule ``max_t KL(c_t) ≤ δ``;
* :func:`proxy_false_accepts` — a sample-based proxy mask (k2-max, k3-mean)
  accepts a response whose exact ``max_t KL(c_t) > δ``;
* :func:`acceptance_given_violation` — ``P̂(accept | violation)`` against δ.
"""
from __future__ import annotations

import numpy as np

from ..policies import TabularPolicy, per_context_kl, sample_responses, token_log_probs
from . import masks
from .pairs import draw_pair

__all__ = ["exact_path_kl", "trm_path_trials", "MASKS", "mask_decisions", "violations",
           "wrong_decisions", "proxy_false_accepts", "acceptance_given_violation"]


def exact_path_kl(mu: TabularPolicy, pi: TabularPolicy, y: np.ndarray) -> np.ndarray:
    """``KL(μ(·|c_t) ‖ π(·|c_t))`` at every context visited by the responses ``y`` (shape ``(N, T)``).

    The oracle of the TRM claims, computed here from the raw logit tables
    (``log_softmax`` by a max-shifted log-sum-exp, then ``Σ_v μ_v (log μ_v − log π_v)``),
    independently of :func:`proofs_check.policies.per_context_kl` and of the masks under test
    (it reads only the raw logits: no library function).
    Context of depth ``t`` along ``y``: row ``Σ_{j<t} y_j V^{t−1−j}`` of table ``t``.
    """
    y = np.asarray(y)
    N, T = y.shape
    V = mu.V
    out = np.empty((N, T))
    row = np.zeros(N, dtype=np.int64)
    for t in range(T):
        zm = np.asarray(mu.logits[t], dtype=float)[row]
        zp = np.asarray(pi.logits[t], dtype=float)[row]
        lm = zm - zm.max(axis=1, keepdims=True)
        lm -= np.log(np.exp(lm).sum(axis=1, keepdims=True))
        lp = zp - zp.max(axis=1, keepdims=True)
        lp -= np.log(np.exp(lp).sum(axis=1, keepdims=True))
        out[:, t] = (np.exp(lm) * (lm - lp)).sum(axis=1)
        row = row * V + y[:, t]
    return out


def _path_rows(y: np.ndarray, V: int) -> list:
    """Row index of the context at each depth along each response (table layout of TabularPolicy)."""
    rows, row = [], np.zeros(y.shape[0], dtype=np.int64)
    for t in range(y.shape[1]):
        rows.append(row)
        row = row * V + y[:, t]
    return rows


def trm_path_trials(rng, n, *, V=2, T=6):
    """``n`` independent trials: a **fresh** random ``low_prob`` pair (:func:`~.pairs.draw_pair`) and
    one response ``y ∼ μ`` per trial.

    Per-trial statistics, each of shape ``(n, T)`` along ``y``: ``logp_mu``, ``logp_pi`` (the sampled
    tokens' log-probs, :func:`proofs_check.policies.token_log_probs` — all a proxy mask sees),
    ``kl_library`` (the library's exact per-context KL, :func:`proofs_check.policies.per_context_kl`,
    gathered along ``y`` — what TRM-Max is fed) and ``kl_exact`` (the oracle :func:`exact_path_kl`).
    The decisions are reductions of these (:func:`wrong_decisions`, :func:`proxy_false_accepts`,
    :func:`acceptance_given_violation`), so every threshold δ reads the same trials.
    """
    out = {k: np.empty((n, T)) for k in ("logp_mu", "logp_pi", "kl_library", "kl_exact")}
    for i in range(n):
        mu, pi = draw_pair(rng, "low_prob", V, T)
        y = sample_responses(mu, 1, rng)
        kl_lib = per_context_kl(mu, pi)
        out["kl_library"][i] = [kl_lib[t][r[0]] for t, r in enumerate(_path_rows(y, V))]
        out["logp_mu"][i] = token_log_probs(mu, y)[0][0]
        out["logp_pi"][i] = token_log_probs(pi, y)[0][0]
        out["kl_exact"][i] = exact_path_kl(mu, pi, y)[0]
    return out


#: The masks a reduction can apply: the library's TRM-Max / TRM-Avg on its exact per-context KL, and
#: the sample-based proxies on the sampled tokens' log-probs (threshold δ, or δ_avg = δ).
MASKS = ("trm_max", "trm_avg", "k2_max", "k3_mean")


def mask_decisions(stats, mask: str, delta: float) -> np.ndarray:
    """Accept (``True``) / reject per trial by the library's ``mask`` at threshold ``delta``."""
    m = np.ones(stats["kl_library"].shape, dtype=bool)
    if mask == "trm_max":
        return masks.trm_max_mask(stats["kl_library"], m, delta)
    if mask == "trm_avg":
        return masks.trm_avg_mask(stats["kl_library"], m, delta)
    if mask == "k2_max":
        return masks.k2_max_mask(stats["logp_pi"], stats["logp_mu"], m, delta)
    if mask == "k3_mean":
        return masks.k3_mean_mask(stats["logp_pi"], stats["logp_mu"], m, delta)
    raise ValueError(f"mask must be one of {MASKS}, got {mask!r}")


def violations(stats, delta: float) -> np.ndarray:
    """The exact rule: ``max_t KL(c_t) > δ`` by the oracle."""
    return np.asarray(stats["kl_exact"]).max(axis=1) > delta


def wrong_decisions(stats, *, delta):
    """Events "the library's TRM-Max decision differs from the exact rule ``max_t KL(c_t) ≤ δ``":
    false accepts and false rejects both count."""
    return int(np.sum(mask_decisions(stats, "trm_max", delta) != ~violations(stats, delta)))


def proxy_false_accepts(stats, *, proxy, delta):
    """Events "the ``proxy`` mask (``k2_max`` or ``k3_mean``) accepts a response whose exact
    ``max_t KL(c_t) > δ``"."""
    if proxy not in ("k2_max", "k3_mean"):
        raise ValueError(f"proxy must be 'k2_max' or 'k3_mean', got {proxy!r}")
    return int(np.sum(mask_decisions(stats, proxy, delta) & violations(stats, delta)))


def acceptance_given_violation(stats, deltas, *, mask) -> np.ndarray:
    """``P̂(mask accepts | exact max KL > δ)`` for each δ (NaN where no trial violates)."""
    out = []
    for d in deltas:
        v = violations(stats, float(d))
        a = mask_decisions(stats, mask, float(d))
        out.append(float((a & v).sum() / v.sum()) if v.any() else float("nan"))
    return np.array(out)
