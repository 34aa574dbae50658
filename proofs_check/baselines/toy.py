r"""The headline claim in a toy: REINFORCE with each baseline at group sizes
``N ∈ {2, 4, 8, 16, 32}`` under a fixed budget of sampled tokens.

Task (ours; the paper's setting is Qwen models on maths — CONFIRMED only as the
abstract's claim that OTB at ``N = 4`` matches ``N = 32``; theory
``baselines.md#toy-headline``):

* ``n_prompts`` prompts; prompt ``k`` asks for token ``k``. A response is
  ``T`` tokens from a vocabulary of ``V``; the reward is sparse and terminal,
  ``R = 1{#{t : y_t = k} ≥ threshold}``.
* Policy: shared-parameter softmax with one-hot features of the state
  ``(prompt, previous token or BOS)``: ``π(v | c_t) = softmax(θ[s_t])_v``.
  All ``T`` positions share the same ``V + 1`` rows of ``θ`` per prompt, so the
  logit-gradient proxy is exact per token but not for the cumulative energy.
* Every step samples ``batch`` responses: ``batch / N`` prompts (drawn
  uniformly) with ``N`` responses each, so every ``N`` spends exactly
  ``batch · T`` tokens per step and ``steps · batch · T`` in all.  Update:
  ``θ ← θ + η ĝ``, ``ĝ = (1/batch) Σ_i Σ_t A^i_t ∇ log π(y^i_t|c^i_t)``.
* Variable length (``eos=True``): token ``V − 1`` ends the response (it is
  its last token); positions after it are masked, so responses of a group
  have different lengths and OTB's per-position baseline sees drop-outs.
  ``eos_logit`` sets the initial EOS logit.
* The expected return ``J(θ)`` (mean over prompts) is computed exactly by a
  dynamic programme over ``(previous token, count)``, so learning curves have
  no evaluation noise; the intervals are over training seeds.

Baselines: ``none``, ``mean`` (GRPO without std normalisation), ``rloo``,
``global_bstar`` (group estimate of ``b*`` with the proxy energy) and ``otb``
(:func:`proofs_check.baselines.optimal_token_baseline_advantage` fed the
sampler's ``log π`` and ``Σπ²``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ._args import choice as _choice
from proofs_check.engine import (as_generator, check_finite_array, check_instance, check_int,
                                          check_real, shown)

from .group import global_bstar_advantage, group_mean_advantage, rloo_advantage
from .otb import optimal_token_baseline_advantage

__all__ = ["CountTask", "TOY_KINDS", "exact_return", "sample_batch", "advantages", "policy_gradient",
           "TrainResult", "checkpoints", "train", "batch_gradients", "gradient_variance", "gradient_variance_estimate"]

TOY_KINDS = ("none", "mean", "rloo", "global_bstar", "otb")


@dataclass(frozen=True)
class CountTask:
    """Prompt ``k`` rewards responses with at least ``threshold`` copies of token ``k``."""

    V: int = 3
    T: int = 32
    n_prompts: int = 3
    threshold: int = 14
    eos: bool = False
    eos_logit: float = 0.0

    def __post_init__(self):
        check_int("V", self.V, lo=2, hi=64)
        check_int("T", self.T, lo=1, hi=4096)
        check_int("n_prompts", self.n_prompts, lo=1, hi=self.V - 1 if self.eos else self.V)
        check_int("threshold", self.threshold, lo=0, hi=self.T)
        check_real("eos_logit", self.eos_logit)
        if self.eos_logit != 0.0 and not self.eos:
            raise ValueError(f"eos_logit={self.eos_logit!r} needs eos=True")

    @property
    def eos_token(self) -> int:
        """Token ``V − 1`` ends the response when ``eos`` (it is part of the response); −1 otherwise."""
        return self.V - 1 if self.eos else -1

    def initial_theta(self) -> np.ndarray:
        """All logits 0, except ``eos_logit`` on the EOS token."""
        theta = np.zeros((self.n_states, self.V))
        if self.eos:
            theta[:, self.V - 1] = self.eos_logit
        return theta

    @property
    def n_states(self) -> int:
        return self.n_prompts * (self.V + 1)

    def state(self, prompt, prev):
        """Row of θ for ``(prompt, previous token)``; ``prev = V`` is BOS (integers or integer arrays
        of one shape: ``0 ≤ prompt < n_prompts``, ``0 ≤ prev ≤ V``)."""
        out = []
        for name, v, hi in (("prompt", prompt, self.n_prompts - 1), ("prev", prev, self.V)):
            a = np.asarray(v)
            if a.dtype.kind not in "iu" or isinstance(v, bool):
                raise TypeError(f"{name} must be an integer or an integer array, got {shown(v)}")
            if a.size and (int(a.min()) < 0 or int(a.max()) > hi):
                raise ValueError(f"{name} must lie in [0, {hi}], got {shown(v)}")
            out.append(a if a.ndim else int(a))
        if np.shape(out[0]) != np.shape(out[1]):
            raise ValueError(f"prompt and prev must have one shape, got {np.shape(out[0])} and {np.shape(out[1])}")
        return out[0] * (self.V + 1) + out[1]

    def to_dict(self) -> dict:
        return asdict(self)


def _softmax_rows(theta):
    z = theta - theta.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _theta(theta, task):
    """``θ`` of ``task``: a finite ``(n_states, V)`` array."""
    check_instance("task", task, CountTask)
    th = check_finite_array("theta", theta, ndim=2)
    if th.shape != (task.n_states, task.V):
        raise ValueError(f"theta must have shape (n_states, V) = {(task.n_states, task.V)}, got {th.shape}")
    return th


def _batch_dict(batch):
    check_instance("batch", batch, dict)
    need = ("tokens", "states", "log_probs", "sum_pi_squared", "probs", "reward")
    missing = [k for k in need if k not in batch]
    if missing:
        raise ValueError(f"batch must be a dict from sample_batch; missing {missing}")
    return batch


def exact_return(theta, task: CountTask) -> float:
    """``J(θ) = (1/n_prompts) Σ_k P_θ(#{y_t = k} ≥ threshold | prompt k)`` exactly (DP)."""
    theta = _theta(theta, task)
    V, T = task.V, task.T
    P = _softmax_rows(theta)
    total = 0.0
    eos = task.eos_token
    for k in range(task.n_prompts):
        rows = P[k * (V + 1):(k + 1) * (V + 1)]
        # dist[prev, count] over responses still running; ended[count] over finished ones
        dist = np.zeros((V + 1, T + 1))
        dist[V, 0] = 1.0
        ended = np.zeros(T + 1)
        for _ in range(T):
            new = np.zeros_like(dist)
            for prev in range(V + 1):
                row = dist[prev]
                if not row.any():
                    continue
                for v in range(V):
                    pv = rows[prev, v]
                    if v == eos:
                        ended += pv * row
                    elif v == k:
                        new[v, 1:] += pv * row[:-1]
                    else:
                        new[v] += pv * row
            dist = new
        total += dist[:, task.threshold:].sum() + ended[task.threshold:].sum()
    return float(total / task.n_prompts)


def sample_batch(theta, task: CountTask, prompts, rng):
    """Sample one response per entry of ``prompts``.

    Returns a dict with ``tokens`` (n, T), ``states`` (n, T), ``log_probs``
    (n, T) of the sampled tokens, ``sum_pi_squared`` (n, T), ``probs``
    (n, T, V) and the terminal ``reward`` (n,).
    """
    g = as_generator(rng)
    theta = _theta(theta, task)
    pr = check_finite_array("prompts", prompts, ndim=1)
    if pr.size > 1 << 20 or np.any(pr != np.round(pr)) or np.any(pr < 0) or np.any(pr >= task.n_prompts):
        raise ValueError(f"prompts must be at most {1 << 20} integers in [0, {task.n_prompts - 1}]")
    prompts = pr.astype(np.int64)
    n, V, T = prompts.size, task.V, task.T
    P = _softmax_rows(theta)
    tokens = np.empty((n, T), dtype=np.int64)
    states = np.empty((n, T), dtype=np.int64)
    prev = np.full(n, V, dtype=np.int64)
    u = g.random((n, T))
    for t in range(T):
        s = prompts * (V + 1) + prev
        states[:, t] = s
        cdf = np.cumsum(P[s], axis=1)
        tok = np.minimum((u[:, t, None] * cdf[:, -1:] >= cdf).sum(axis=1), V - 1)
        tokens[:, t] = tok
        prev = tok
    probs = P[states]
    p_tok = np.take_along_axis(probs, tokens[:, :, None], axis=2)[:, :, 0]
    if task.eos:
        is_eos = tokens == task.eos_token
        # valid up to and including the first EOS
        mask = (np.cumsum(is_eos, axis=1) - is_eos) == 0
    else:
        mask = np.ones((n, T), dtype=bool)
    count = ((tokens == prompts[:, None]) & mask).sum(axis=1)
    mask = mask.astype(float)
    return {"tokens": tokens, "states": states, "log_probs": np.log(p_tok),
            "sum_pi_squared": np.sum(probs * probs, axis=2), "probs": probs, "mask": mask,
            "lengths": mask.sum(axis=1).astype(np.int64),
            "reward": (count >= task.threshold).astype(float), "prompts": prompts}


def advantages(kind: str, batch: dict, group_ids) -> np.ndarray:
    """Per-token advantages ``(n, T)`` for a sampled batch under baseline ``kind``."""
    _choice("kind", kind, TOY_KINDS)
    batch = _batch_dict(batch)
    n, T = batch["tokens"].shape
    mask = batch.get("mask", np.ones((n, T)))
    lengths = mask.sum(axis=1).astype(np.int64)
    r = np.zeros((n, T))
    r[np.arange(n), np.maximum(lengths - 1, 0)] = batch["reward"]  # terminal reward on the last token
    if kind == "none":
        return batch["reward"][:, None] * mask
    if kind == "mean":
        return group_mean_advantage(r, mask, group_ids)[0]
    if kind == "rloo":
        return rloo_advantage(r, mask, group_ids)[0]
    if kind == "global_bstar":
        return global_bstar_advantage(r, mask, group_ids, batch["log_probs"], batch["sum_pi_squared"])[0]
    return optimal_token_baseline_advantage(r, mask, group_ids, batch["log_probs"], batch["sum_pi_squared"])[0]


def policy_gradient(batch: dict, A: np.ndarray, n_states: int) -> np.ndarray:
    """``(1/n) Σ_i Σ_t A^i_t (e_{y_t} − π(·|s_t))`` accumulated into the rows of θ."""
    batch = _batch_dict(batch)
    n, T, V = batch["probs"].shape
    A = check_finite_array("A", A, ndim=2)
    if A.shape != (n, T):
        raise ValueError(f"A must have the batch's shape {(n, T)}, got {A.shape}")
    n_states = check_int("n_states", n_states, lo=int(np.max(batch["states"])) + 1, hi=1 << 20)
    score = -batch["probs"] * A[:, :, None]
    score[np.arange(n)[:, None], np.arange(T)[None, :], batch["tokens"]] += A
    grad = np.zeros((n_states, V))
    np.add.at(grad, batch["states"].ravel(), score.reshape(n * T, V))
    return grad / n


@dataclass(frozen=True)
class TrainResult:
    """One training run: exact returns at checkpoints and per-step gradient norms."""

    kind: str
    N: int
    seed: int
    steps: np.ndarray = field(repr=False)
    tokens: np.ndarray = field(repr=False)
    returns: np.ndarray = field(repr=False)
    grad_norms: np.ndarray = field(repr=False)

    @property
    def final_return(self) -> float:
        return float(self.returns[-1])

    def to_dict(self) -> dict:
        return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in asdict(self).items()}


def _group_plan(batch_size, N):
    batch_size = check_int("batch", batch_size, lo=1, hi=1 << 20)
    N = check_int("N", N, lo=1, hi=batch_size)
    if batch_size % N:
        raise ValueError(f"batch={batch_size} must be a multiple of the group size N={N}")
    return batch_size // N


def checkpoints(steps: int, eval_every: int) -> np.ndarray:
    """The steps at which :func:`train` evaluates ``J``: 0, every ``eval_every``-th step, and the last."""
    steps = check_int("steps", steps, lo=1, hi=1_000_000)
    eval_every = check_int("eval_every", eval_every, lo=1)
    return np.array([0] + [s for s in range(1, steps + 1) if s % eval_every == 0 or s == steps])


def train(task: CountTask, kind: str, N: int, *, steps: int, batch: int = 32, lr: float = 0.5,
          seed: int = 0, eval_every: int = 10, theta0=None) -> TrainResult:
    """REINFORCE with baseline ``kind`` and group size ``N`` for ``steps`` updates of ``batch`` responses."""
    check_instance("task", task, CountTask)
    _choice("kind", kind, TOY_KINDS)
    N = check_int("N", N, lo=1)
    steps = check_int("steps", steps, lo=1, hi=1_000_000)
    batch = check_int("batch", batch, lo=1)
    lr = check_real("lr", lr, lo=0.0, lo_open=True)
    eval_every = check_int("eval_every", eval_every, lo=1)
    n_groups = _group_plan(batch, N)
    rng = np.random.default_rng(np.random.SeedSequence(check_int("seed", seed, lo=0)))
    theta = task.initial_theta() if theta0 is None else _theta(theta0, task).copy()
    group_ids = np.repeat(np.arange(n_groups), N)
    rets, norms = [exact_return(theta, task)], []
    for step in range(1, steps + 1):
        prompts = np.repeat(rng.integers(0, task.n_prompts, n_groups), N)
        b = sample_batch(theta, task, prompts, rng)
        grad = policy_gradient(b, advantages(kind, b, group_ids), task.n_states)
        norms.append(float(np.sqrt(np.sum(grad * grad))))
        theta = theta + lr * grad
        if step % eval_every == 0 or step == steps:
            rets.append(exact_return(theta, task))
    ck = checkpoints(steps, eval_every)
    return TrainResult(kind=kind, N=N, seed=seed, steps=ck, tokens=ck * batch * task.T,
                       returns=np.array(rets), grad_norms=np.array(norms))


def batch_gradients(theta, task: CountTask, kinds, N: int, *, batch: int, rng) -> dict:
    """One step's estimator ``ĝ`` (flat) at ``θ`` under each baseline of ``kinds``, all from one batch:
    ``batch / N`` prompts drawn uniformly, ``N`` responses each (common random numbers across kinds)."""
    g = as_generator(rng)
    theta = _theta(theta, task)
    if isinstance(kinds, str) or not hasattr(kinds, "__iter__"):
        raise TypeError(f"kinds must be a sequence of baseline names, got {kinds!r:.60}")
    kinds = [_choice("kinds", k, TOY_KINDS) for k in kinds]
    n_groups = _group_plan(batch, N)
    prompts = np.repeat(g.integers(0, task.n_prompts, n_groups), N)
    b = sample_batch(theta, task, prompts, g)
    group_ids = np.repeat(np.arange(n_groups), N)
    return {kind: policy_gradient(b, advantages(kind, b, group_ids), task.n_states).ravel() for kind in kinds}


def gradient_variance_estimate(G) -> tuple:
    """``(estimate, standard error)`` of ``E‖ĝ − E ĝ‖²`` from independent draws ``G`` (reps, P).

    ``Σ_j ‖ĝ_j − ḡ‖²/(reps − 1)`` (unbiased); the standard error is from the
    spread of ``‖ĝ_j − ḡ‖² · reps/(reps − 1)``.
    """
    G = check_finite_array("G", G, ndim=2)
    reps = check_int("G.shape[0] (reps)", G.shape[0], lo=2)
    d = np.sum((G - G.mean(axis=0)) ** 2, axis=1) * reps / (reps - 1)
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(reps))


def gradient_variance(theta, task: CountTask, kind: str, N: int, *, batch: int = 32, reps: int = 200,
                      rng=0) -> tuple:
    """:func:`gradient_variance_estimate` over ``reps`` independent batches (:func:`batch_gradients`) at ``θ``."""
    g = as_generator(rng)
    _choice("kind", kind, TOY_KINDS)
    reps = check_int("reps", reps, lo=2, hi=100_000)
    _group_plan(batch, N)
    return gradient_variance_estimate([batch_gradients(theta, task, (kind,), N, batch=batch, rng=g)[kind]
                                       for _ in range(reps)])
