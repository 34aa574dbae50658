r"""The headline claim in a toy: REINFORCE with each baseline at group sizes
``N ∈ {2, 4, 8, 16, 32}`` under a fixed budget of sampled tokens.

Task (ours; the paper's setting is Qwen models on maths — CONFIRMED only as the
abstract's claim that OTB at ``N = 4`` matches ``N = 32``, spec §3):

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

from proofs_check.baselines import (global_bstar_advantage, group_mean_advantage, optimal_token_baseline_advantage,
                        rloo_advantage)
from proofs_check.engine.validate import as_generator, check_choice, check_int, check_real

__all__ = ["CountTask", "TOY_KINDS", "exact_return", "sample_batch", "advantages", "policy_gradient",
           "TrainResult", "train", "gradient_variance", "SweepResult", "group_size_sweep",
           "mean_interval", "diff_interval", "best_lr_comparison", "learning_auc"]

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
        """Row of θ for ``(prompt, previous token)``; ``prev = V`` is BOS."""
        return prompt * (self.V + 1) + prev

    def to_dict(self) -> dict:
        return asdict(self)


def _softmax_rows(theta):
    z = theta - theta.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def exact_return(theta, task: CountTask) -> float:
    """``J(θ) = (1/n_prompts) Σ_k P_θ(#{y_t = k} ≥ threshold | prompt k)`` exactly (DP)."""
    theta = np.asarray(theta, dtype=float)
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
    prompts = np.asarray(prompts, dtype=np.int64)
    n, V, T = prompts.size, task.V, task.T
    P = _softmax_rows(np.asarray(theta, dtype=float))
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
    check_choice("kind", kind, TOY_KINDS)
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
    n, T, V = batch["probs"].shape
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
    if batch_size % N:
        raise ValueError(f"batch={batch_size} must be a multiple of the group size N={N}")
    return batch_size // N


def train(task: CountTask, kind: str, N: int, *, steps: int, batch: int = 32, lr: float = 0.5,
          seed: int = 0, eval_every: int = 10, theta0=None) -> TrainResult:
    """REINFORCE with baseline ``kind`` and group size ``N`` for ``steps`` updates of ``batch`` responses."""
    check_choice("kind", kind, TOY_KINDS)
    N = check_int("N", N, lo=1)
    steps = check_int("steps", steps, lo=1)
    batch = check_int("batch", batch, lo=1)
    lr = check_real("lr", lr, lo=0.0, lo_open=True)
    eval_every = check_int("eval_every", eval_every, lo=1)
    n_groups = _group_plan(batch, N)
    rng = np.random.default_rng(np.random.SeedSequence(check_int("seed", seed, lo=0)))
    theta = task.initial_theta() if theta0 is None else np.array(theta0, dtype=float)
    group_ids = np.repeat(np.arange(n_groups), N)
    ck, rets, norms = [0], [exact_return(theta, task)], []
    for step in range(1, steps + 1):
        prompts = np.repeat(rng.integers(0, task.n_prompts, n_groups), N)
        b = sample_batch(theta, task, prompts, rng)
        grad = policy_gradient(b, advantages(kind, b, group_ids), task.n_states)
        norms.append(float(np.sqrt(np.sum(grad * grad))))
        theta = theta + lr * grad
        if step % eval_every == 0 or step == steps:
            ck.append(step)
            rets.append(exact_return(theta, task))
    ck = np.array(ck)
    return TrainResult(kind=kind, N=N, seed=seed, steps=ck, tokens=ck * batch * task.T,
                       returns=np.array(rets), grad_norms=np.array(norms))


def gradient_variance(theta, task: CountTask, kind: str, N: int, *, batch: int = 32, reps: int = 200,
                      rng=0) -> tuple:
    """Unbiased estimate of ``E‖ĝ − E ĝ‖²`` (one step's estimator at fixed θ) and its standard error.

    ``reps`` independent batches; ``Σ_j ‖ĝ_j − ḡ‖²/(reps − 1)``; the standard
    error is from the spread of ``‖ĝ_j − ḡ‖²``.
    """
    g = as_generator(rng)
    reps = check_int("reps", reps, lo=2)
    n_groups = _group_plan(batch, N)
    group_ids = np.repeat(np.arange(n_groups), N)
    G = np.empty((reps, task.n_states * task.V))
    for j in range(reps):
        prompts = np.repeat(g.integers(0, task.n_prompts, n_groups), N)
        b = sample_batch(theta, task, prompts, g)
        G[j] = policy_gradient(b, advantages(kind, b, group_ids), task.n_states).ravel()
    d = np.sum((G - G.mean(axis=0)) ** 2, axis=1) * reps / (reps - 1)
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(reps))


def mean_interval(x, level: float = 0.95) -> tuple:
    """``(mean, lo, hi)`` — a Student-t interval over seeds."""
    from scipy import stats
    x = np.asarray(x, dtype=float)
    m = float(x.mean())
    if x.size < 2:
        return m, float("nan"), float("nan")
    h = float(stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return m, m - h, m + h


def diff_interval(x, y, level: float = 0.95) -> tuple:
    """``(mean(x) − mean(y), lo, hi)`` — Welch interval (independent seeds)."""
    from scipy import stats
    x, y = np.asarray(x, float), np.asarray(y, float)
    d = float(x.mean() - y.mean())
    vx, vy = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    se = np.sqrt(vx + vy)
    if se == 0:
        return d, d, d
    df = (vx + vy) ** 2 / (vx ** 2 / (x.size - 1) + vy ** 2 / (y.size - 1))
    h = float(stats.t.ppf(0.5 + level / 2, df) * se)
    return d, d - h, d + h


@dataclass(frozen=True)
class SweepResult:
    """Final returns (per seed) and training curves for each ``(kind, N)``."""

    task: dict
    kinds: tuple
    Ns: tuple
    seeds: int
    steps: int
    batch: int
    lr: float
    root_seed: int
    final: dict  # "kind/N" -> list of final returns over seeds
    curves: dict  # "kind/N" -> mean return per checkpoint
    checkpoints: list
    grad_norm_mean: dict  # "kind/N" -> mean gradient norm per step (over seeds)

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self, kind: str, N: int) -> tuple:
        return mean_interval(self.final[f"{kind}/{N}"])


def _seed_for(root, kind_idx, N, s):
    return int(np.random.SeedSequence(root, spawn_key=(kind_idx, N, s)).generate_state(1)[0])


def group_size_sweep(task: CountTask, *, kinds=TOY_KINDS, Ns=(2, 4, 8, 16, 32), seeds: int = 8,
                     steps: int = 200, batch: int = 32, lr: float = 0.5, root_seed: int = 0,
                     eval_every: int = 10) -> SweepResult:
    """Train every ``(kind, N)`` for ``seeds`` seeds at an equal token budget ``steps·batch·T``.

    Seed ``s`` of ``N`` uses the same training seed for every baseline
    (common random numbers across baselines at equal ``N``).
    """
    final, curves, gn = {}, {}, {}
    ck = None
    for ki, kind in enumerate(kinds):
        for N in Ns:
            runs = [train(task, kind, N, steps=steps, batch=batch, lr=lr,
                          seed=_seed_for(root_seed, 0, N, s), eval_every=eval_every) for s in range(seeds)]
            key = f"{kind}/{N}"
            final[key] = [r.final_return for r in runs]
            curves[key] = np.mean([r.returns for r in runs], axis=0).tolist()
            gn[key] = np.mean([r.grad_norms for r in runs], axis=0).tolist()
            ck = runs[0].steps.tolist()
    return SweepResult(task=task.to_dict(), kinds=tuple(kinds), Ns=tuple(Ns), seeds=seeds, steps=steps,
                       batch=batch, lr=lr, root_seed=root_seed, final=final, curves=curves,
                       checkpoints=ck, grad_norm_mean=gn)


def learning_auc(result: "TrainResult") -> float:
    """Area under the exact-return curve per token, normalised to [0, 1] (trapezoid over checkpoints)."""
    x = np.asarray(result.tokens, dtype=float)
    y = np.asarray(result.returns, dtype=float)
    return float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2 / (x[-1] - x[0]))


def best_lr_comparison(task: CountTask, configs, lrs, *, seeds: int = 10, steps: int = 40, batch: int = 32,
                       root_seed: int = 0, eval_every: int = 2) -> dict:
    """Final return and learning-curve area (AUC, :func:`learning_auc`) of each ``(kind, N)`` at each
    step size in ``lrs`` (mean and 95% t-interval over seeds), and the best step size per
    configuration chosen on the mean AUC (the intervals are not corrected for that selection)."""
    out = {}
    for kind, N in configs:
        rows = {}
        for lr in lrs:
            runs = [train(task, kind, N, steps=steps, batch=batch, lr=lr,
                          seed=_seed_for(root_seed, 1, N, s), eval_every=eval_every) for s in range(seeds)]
            finals = [r.final_return for r in runs]
            aucs = [learning_auc(r) for r in runs]
            rows[float(lr)] = {"finals": finals, "aucs": aucs, "final_mean_lo_hi": mean_interval(finals),
                               "auc_mean_lo_hi": mean_interval(aucs)}
        best = max(rows, key=lambda k: rows[k]["auc_mean_lo_hi"][0])
        out[f"{kind}/{N}"] = {"by_lr": rows, "best_lr": best}
    return out
