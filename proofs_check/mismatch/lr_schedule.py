r"""The learning-rate schedule toy of theory ``mismatch.md#lr-schedule`` (issue 23, part 1).

`beyond-precision` (abstract, **CONFIRMED**): gradient noise and the training–inference
mismatch escalate together; shrinking the update size suppresses the mismatch; an LR scheduler
that *decays when response length surges* fixes it better than a pre-defined schedule.  The
paper's trigger rule is not public to us (**OPEN**): :class:`Trigger` exposes one rule of that
shape with its parameters as keyword arguments (**RECONSTRUCTED** defaults).

The toy has what the statement needs and nothing more:

* **Variable-length responses.**  Tokens ``{0, …, V−1}`` plus an end token ``EOS = V``; a
  response stops at its first EOS or at the horizon cap ``H`` (truncated).  The trainer's logits
  at position ``t`` are ``θ[t // w]`` (``G = H / w`` position buckets, ``θ ∈ R^{G×(V+1)}``), so
  the policy is a product of per-position categoricals: length is learnable (the EOS logits),
  and sequence-level quantities are exact sums over positions.  *Why*: the trigger watches the
  length, and the mismatch of a sequence grows with its length.
* **A sampler that differs from the trainer** by a state-dependent logit error and a
  low-precision rounding: ``z̃_t = bf16(θ[t // w] − κ (t / H) e_EOS)`` (:func:`sampler_logits`).
  The error grows with the position (an inference kernel that under-weights stopping deep into a
  long context), the rounding keeps 8 significant bits (bfloat16, :func:`.staleness.bf16_round`),
  so its size grows with ``|θ|`` (sharper policies are rounded more coarsely).  *Why*: a
  mismatch that is a fixed precision error at the start but grows as training moves the policy
  (longer responses, larger logits): the paper's "optimisation problem, not a static error".
* **Sequence-level policy gradient.**  Each step draws ``B`` responses from the sampler and
  updates ``θ ← θ + η_s ĝ``, ``ĝ = (1/B) Σ_i A_i ∇_θ log π_θ(y_i)``, with the trainer's own
  log-probabilities (no correction for the mismatch, as a trainer that ignores it).  For this
  policy ``∇_{θ_g} log π(y) = n_g(y) − m_g(y) π_g`` with ``n_g`` the token counts and ``m_g``
  the number of positions of ``y`` in bucket ``g``.  *Why*: the update size is ``η_s ĝ``; the
  schedule changes only ``η_s``.  ``A_i = r_i`` (REINFORCE without baseline, the default): then
  ``E_μ ĝ = ∇J + E_μ[r] Σ_t P(alive at t)(μ_t − π_t) + …`` carries a term proportional to the
  mismatch that pulls the trainer toward the sampler, whose EOS is lower, so the mismatch feeds
  the length drift that feeds the mismatch (the instability the schedule must tame).  With the
  batch baseline (``baseline="batch"``, ``A_i = r_i − r̄``) this first-order pull cancels in this
  product-form toy and the run is stable (no instability to schedule against).
* **A reward that makes length drift.**  ``r(y) = min(c(y), c*) / c*`` if ``y`` ends with EOS
  before the cap, ``0`` if truncated, with ``c(y)`` the number of tokens ``0`` in ``y``.  At the
  start (mean length ``≈ 1/p_EOS = 16``, a quarter of the tokens are ``0``) longer responses earn
  more, so length drifts upward; past ``c*`` only truncation limits it.  *Why*: the length surge
  the trigger watches; the truncations are where the mismatch costs reward (the sampler stops
  later than the trainer intends).

Monitored per step (:func:`run_schedule`):

* mismatch ``D_s = KL(π_θ ‖ μ)`` over whole sequences, the expectation on the trainer's own
  samples, exact: ``D = Σ_{t<H} P_π(alive at t) KL(π_t ‖ μ_t)``, ``P_π(alive at t) =
  Π_{u<t} (1 − π_u(EOS))`` (:func:`sequence_kl`; the chain rule of KL for a product of
  per-position categoricals that stops at EOS);
* gradient noise ``N_s = tr Ĉov(g_i) / B``, the trace of the covariance of the batch-mean
  gradient, estimated from the ``B`` per-sequence gradients ``g_i = A_i ∇ log π(y_i)``;
* mean sampled length and mean reward of the batch, and ``η_s``.

Schedules (:func:`lr_at` / :class:`Trigger`): constant; length-triggered decay (:class:`Trigger`:
``η ← f·η`` when the mean length over the last ``W`` steps exceeds ``(1 + ρ)`` times the mean over
the ``W`` steps before, then no firing for ``C`` steps); pre-defined cosine from ``η₀`` to
``η₀ · d`` with ``d`` the total decay the triggered run reached on the same seed.

The sampling is vectorised NumPy (inverse-CDF draws on uniforms drawn from a per-run generator,
so runs of different schedules on one seed share their random numbers); one run of ``S = 300``
steps at ``B = 32``, ``H = 256`` takes well under a second.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .staleness import bf16_round

__all__ = ["LRToy", "Trigger", "RunTrace", "TOY_LR", "TRIGGER", "init_theta", "sampler_logits", "softmax",
           "sequence_kl", "sequence_kl_mc", "sample_responses", "reward", "policy_gradients", "surge_fires",
           "run_schedule", "cosine_lr", "lr_schedule_trials", "sensitivity_trials", "TAU_FACTOR", "REWARD_TOL",
           "comovement_rho", "comovement_excess", "final_mismatch_difference", "below_failures", "early_failures",
           "predefined_not_worse", "spearman_rows", "SENSITIVITY_GRID", "sensitivity_table"]


@dataclass(frozen=True)
class LRToy:
    """Parameters of the toy (all RECONSTRUCTED: chosen for the mechanism, not read in the paper).

    ``V`` content tokens, cap ``H``, bucket width ``w`` (``G = H / w`` buckets), initial EOS
    probability ``p_eos0``, error slope ``kappa`` (the sampler's EOS logit is lowered by
    ``kappa · t / H`` at position ``t``), reward saturation ``c_star``, batch ``B``, steps
    ``steps``, base step ``eta``, ``bf16`` rounding of the sampler's logits on/off.
    """

    V: int = 4
    H: int = 256
    w: int = 16
    p_eos0: float = 1 / 16
    kappa: float = 2.0
    c_star: int = 32
    B: int = 32
    steps: int = 300
    eta: float = 0.15
    bf16: bool = True
    baseline: str = "none"

    def __post_init__(self):
        for name, lo in (("V", 2), ("H", 2), ("w", 1), ("c_star", 1), ("B", 2), ("steps", 1)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ValueError(f"LRToy: {name} must be an integer ≥ {lo}, got {v!r}")
        if self.H % self.w:
            raise ValueError(f"LRToy: w must divide H, got w={self.w!r}, H={self.H!r}")
        if not 0.0 < float(self.p_eos0) < 1.0:
            raise ValueError(f"LRToy: p_eos0 must lie in (0, 1), got {self.p_eos0!r}")
        if not (math.isfinite(self.kappa) and self.kappa >= 0):
            raise ValueError(f"LRToy: kappa must be finite and ≥ 0, got {self.kappa!r}")
        if not (math.isfinite(self.eta) and self.eta > 0):
            raise ValueError(f"LRToy: eta must be finite and > 0, got {self.eta!r}")
        if self.baseline not in ("none", "batch"):
            raise ValueError(f"LRToy: baseline must be 'none' or 'batch', got {self.baseline!r}")

    @property
    def G(self) -> int:
        return self.H // self.w


@dataclass(frozen=True)
class Trigger:
    """The length-surge trigger (the rule is **OPEN**; these defaults are **RECONSTRUCTED**).

    At step ``s`` (after the update of step ``s``), with ``L̄_a`` the mean sampled length over
    steps ``s−W+1 … s`` and ``L̄_b`` over ``s−2W+1 … s−W``: fire if ``L̄_a > (1 + rho) L̄_b`` and
    no firing happened in the last ``cooldown`` steps; a firing multiplies the step by ``decay``.
    ``signal="length"`` is the rule; ``signal="random"`` feeds it i.i.d. Gaussian noise with the
    step-0 mean and sampling spread (``sd/√B``) of the batch-mean length but no trend: what the
    trigger would see if the length did not surge (the mutation of
    ``tests/mismatch/test_lr_schedule.py``).
    """

    window: int = 10
    rho: float = 0.2
    decay: float = 0.6
    cooldown: int = 20
    signal: str = "length"

    def __post_init__(self):
        if isinstance(self.window, bool) or not isinstance(self.window, (int, np.integer)) or self.window < 1:
            raise ValueError(f"Trigger: window must be an integer ≥ 1, got {self.window!r}")
        if not (math.isfinite(self.rho) and self.rho > 0):
            raise ValueError(f"Trigger: rho must be finite and > 0, got {self.rho!r}")
        if not 0.0 < float(self.decay) < 1.0:
            raise ValueError(f"Trigger: decay must lie in (0, 1), got {self.decay!r}")
        if isinstance(self.cooldown, bool) or not isinstance(self.cooldown, (int, np.integer)) or self.cooldown < 0:
            raise ValueError(f"Trigger: cooldown must be an integer ≥ 0, got {self.cooldown!r}")
        if self.signal not in ("length", "random"):
            raise ValueError(f"Trigger: signal must be 'length' or 'random', got {self.signal!r}")


#: The mismatch threshold ``τ = TAU_FACTOR · D₀`` (``D₀`` the step-0 mismatch), fixed before the claims
#: ran; RECONSTRUCTED from a pilot of two seeds (1, 2; not among the claims' seeds), where constant
#: ``η`` reached ``≈ 30 D₀`` and the triggered decay ``≈ 8–10 D₀`` by step 300.
TAU_FACTOR = 12.0
#: Reward tolerance of "no worse" / "worse" (rewards lie in [0, 1]), fixed in advance.
REWARD_TOL = 0.05
#: The toy's defaults (shown in the claims' params).
TOY_LR = LRToy()
#: The trigger's defaults.
TRIGGER = Trigger()


def init_theta(toy: LRToy) -> np.ndarray:
    """``θ₀``: content logits 0, EOS logit ``log(V p / (1 − p))`` so that ``π(EOS) = p_eos0`` everywhere."""
    th = np.zeros((toy.G, toy.V + 1))
    th[:, toy.V] = math.log(toy.V * toy.p_eos0 / (1 - toy.p_eos0))
    return th


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax (max-shifted)."""
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def trainer_logits(theta: np.ndarray, toy: LRToy) -> np.ndarray:
    """The trainer's logits at every position, ``(H, V+1)``: ``θ[t // w]`` (float64)."""
    return np.repeat(theta, toy.w, axis=0)


def sampler_logits(theta: np.ndarray, toy: LRToy) -> np.ndarray:
    """The sampler's logits ``bf16(θ[t // w] − κ (t / H) e_EOS)``, ``(H, V+1)``."""
    z = trainer_logits(theta, toy).copy()
    z[:, toy.V] -= toy.kappa * np.arange(toy.H) / toy.H
    return bf16_round(z) if toy.bf16 else z


def sequence_kl(pi: np.ndarray, mu: np.ndarray, eos: int) -> float:
    """``KL(P_π ‖ P_μ)`` over responses that stop at the first ``eos`` or after ``H`` tokens, exact:
    ``Σ_t P_π(alive at t) KL(π_t ‖ μ_t)`` with ``P_π(alive at t) = Π_{u<t}(1 − π_u(eos))`` (the chain
    rule of KL; ``pi``, ``mu`` are ``(H, K)`` per-position distributions)."""
    kl_t = np.sum(pi * (np.log(pi) - np.log(mu)), axis=1)
    alive = np.concatenate(([1.0], np.cumprod(1.0 - pi[:-1, eos])))
    return float(np.sum(alive * kl_t))


def sample_responses(p: np.ndarray, u: np.ndarray, eos: int):
    """Draw responses by inverse CDF: ``p`` ``(H, K)`` per-position distributions, ``u`` ``(B, H)``
    uniforms.  Returns ``tokens (B, H)`` (int), ``lengths (B,)`` (number of tokens including the
    EOS, ``H`` if truncated) and ``finished (B,)``."""
    cdf = np.cumsum(p, axis=1)
    cdf[:, -1] = 1.0
    # token at (i, t) = number of CDF entries ≤ u  (a searchsorted over the K − 1 inner edges)
    tokens = np.zeros(u.shape, dtype=np.int64)
    for k in range(p.shape[1] - 1):
        tokens += u >= cdf[None, :, k]
    is_eos = tokens == eos
    finished = is_eos.any(axis=1)
    first = np.where(finished, is_eos.argmax(axis=1) + 1, p.shape[0])
    return tokens, first, finished


def sequence_kl_mc(pi: np.ndarray, mu: np.ndarray, eos: int, u: np.ndarray) -> float:
    """Monte Carlo twin of :func:`sequence_kl`: ``mean_i [log P_π(y_i) − log P_μ(y_i)]`` on responses
    ``y_i ∼ π`` drawn with the uniforms ``u`` (the tests compare the two)."""
    tokens, lengths, _ = sample_responses(pi, u, eos)
    H = pi.shape[0]
    alive = np.arange(H)[None, :] < lengths[:, None]
    lr = np.log(pi[np.arange(H)[None, :], tokens]) - np.log(mu[np.arange(H)[None, :], tokens])
    return float(np.mean(np.sum(np.where(alive, lr, 0.0), axis=1)))


def reward(tokens: np.ndarray, lengths: np.ndarray, finished: np.ndarray, toy: LRToy) -> np.ndarray:
    """``r = min(c, c*)/c*`` if finished, else 0; ``c`` = number of tokens ``0`` among the content tokens."""
    alive = np.arange(toy.H)[None, :] < (lengths[:, None] - finished[:, None])
    c = np.sum((tokens == 0) & alive, axis=1)
    return np.where(finished, np.minimum(c, toy.c_star) / toy.c_star, 0.0)


def policy_gradients(tokens, lengths, adv, pi_g, toy: LRToy) -> np.ndarray:
    """Per-sequence gradients ``g_i = A_i ∇_θ log π(y_i)``, ``(B, G, V+1)``:
    ``∇_{θ_g} log π(y) = n_g(y) − m_g(y) π_g`` (token counts ``n_g``, positions ``m_g`` in bucket ``g``)."""
    B, H = tokens.shape
    K = toy.V + 1
    alive = np.arange(H)[None, :] < lengths[:, None]
    cell = (np.arange(B)[:, None] * toy.G + np.arange(H)[None, :] // toy.w) * K + tokens
    n = np.bincount(cell[alive], minlength=B * toy.G * K).reshape(B, toy.G, K).astype(float)
    m = n.sum(axis=2)
    return adv[:, None, None] * (n - m[:, :, None] * pi_g[None, :, :])


def surge_fires(lengths_so_far: np.ndarray, s: int, trig: Trigger, last_fire: int) -> bool:
    """Whether the trigger fires at step ``s`` given the monitored signal up to step ``s``."""
    W = trig.window
    if s + 1 < 2 * W or (last_fire >= 0 and s - last_fire < trig.cooldown):
        return False
    a = lengths_so_far[s - W + 1:s + 1].mean()
    b = lengths_so_far[s - 2 * W + 1:s - W + 1].mean()
    return bool(a > (1.0 + trig.rho) * b)


def cosine_lr(eta0: float, total_decay: float, steps: int) -> np.ndarray:
    """``η_s = η₀ [d + (1 − d)(1 + cos(π s / (S − 1)))/2]``: from ``η₀`` to ``d·η₀`` at the last step."""
    s = np.arange(steps)
    return eta0 * (total_decay + (1.0 - total_decay) * 0.5 * (1.0 + np.cos(np.pi * s / max(steps - 1, 1))))


@dataclass
class RunTrace:
    """One run: per-step ``mismatch``, ``noise``, ``length``, ``reward``, ``lr`` (arrays of length
    ``steps``), the steps where the trigger fired (``fires``) and, for a monitor-only trigger on an
    undecayed run, where it would have fired first (``first_alarm``, −1 if never)."""

    mismatch: np.ndarray
    noise: np.ndarray
    length: np.ndarray
    reward: np.ndarray
    lr: np.ndarray
    fires: list = field(default_factory=list)
    first_alarm: int = -1


def run_schedule(toy: LRToy, seed: int, *, schedule: str = "constant", trigger: Trigger = TRIGGER,
                 eta: float | None = None, lr_path=None) -> RunTrace:
    """Train the toy ``steps`` steps under one schedule.

    ``schedule``: ``"constant"`` (``η_s = η``; the trigger runs as a monitor only and records its
    first alarm), ``"triggered"`` (:class:`Trigger` decays the step), ``"path"`` (``η_s =
    lr_path[s]``, e.g. :func:`cosine_lr`).  ``eta`` overrides ``toy.eta``.  ``seed`` seeds the
    uniforms of the sampler (shared by every schedule on that seed: common random numbers).
    """
    if schedule not in ("constant", "triggered", "path"):
        raise ValueError(f"run_schedule: schedule must be 'constant', 'triggered' or 'path', got {schedule!r}")
    eta0 = toy.eta if eta is None else float(eta)
    if not (math.isfinite(eta0) and eta0 > 0):
        raise ValueError(f"run_schedule: eta must be finite and > 0, got {eta!r}")
    if schedule == "path":
        lr_path = np.asarray(lr_path, dtype=float)
        if lr_path.shape != (toy.steps,) or not np.all(np.isfinite(lr_path)) or np.any(lr_path <= 0):
            raise ValueError(f"run_schedule: lr_path must be {toy.steps} finite steps > 0")
    rng = np.random.default_rng(seed)
    sig_rng = np.random.default_rng([seed, 1])          # the mutation's random signal only
    th = init_theta(toy)
    S, eos = toy.steps, toy.V
    out = {k: np.empty(S) for k in ("mismatch", "noise", "length", "reward", "lr")}
    signal = np.empty(S)
    lr, fires, last_fire, first_alarm = eta0, [], -1, -1
    for s in range(S):
        if schedule == "path":
            lr = float(lr_path[s])
        pi_g = softmax(th)
        pi = np.repeat(pi_g, toy.w, axis=0)
        mu = softmax(sampler_logits(th, toy))
        out["mismatch"][s] = sequence_kl(pi, mu, eos)
        tokens, lengths, finished = sample_responses(mu, rng.random((toy.B, toy.H)), eos)
        r = reward(tokens, lengths, finished, toy)
        adv = r - r.mean() if toy.baseline == "batch" else r
        g = policy_gradients(tokens, lengths, adv, pi_g, toy)
        gbar = g.mean(axis=0)
        out["noise"][s] = float(np.sum((g - gbar) ** 2)) / (toy.B - 1) / toy.B
        out["length"][s] = lengths.mean()
        out["reward"][s] = r.mean()
        out["lr"][s] = lr
        th = th + lr * gbar
        # the trigger sees the length (or, mutated, a random walk of the same scale)
        if trigger.signal == "length":
            signal[s] = lengths.mean()
        else:   # the mutation: the step-0 level and sampling spread of the batch-mean length, no trend
            if s == 0:
                level, spread = lengths.mean(), lengths.std() / math.sqrt(toy.B)
            signal[s] = level + spread * sig_rng.standard_normal()
        if surge_fires(signal, s, trigger, last_fire):
            last_fire = s
            if first_alarm < 0:
                first_alarm = s
            if schedule == "triggered":
                lr *= trigger.decay
                fires.append(s)
    return RunTrace(**out, fires=fires, first_alarm=first_alarm)


def _crossing(x: np.ndarray, tau: float) -> int:
    """First index with ``x > tau`` (−1 if never)."""
    idx = np.flatnonzero(x > tau)
    return int(idx[0]) if idx.size else -1


def lr_schedule_trials(rng, n, *, toy: LRToy = TOY_LR, trigger: Trigger = TRIGGER, small_eta_factor: float = 0.25,
                       tau_factor: float = TAU_FACTOR, last: int = 30):
    """``n`` seeds; on each, four runs on common random numbers: constant ``η``, constant
    ``small_eta_factor · η``, length-triggered decay, and the cosine of the same total decay.

    The mismatch threshold is fixed in advance as ``τ = tau_factor · D₀`` with ``D₀`` the step-0
    mismatch (the same for every run: it depends on ``θ₀`` only).  Returns per-trial series
    ``"<quantity>[<schedule>]"`` ``(n, steps)`` for quantity in mismatch, noise, length, reward,
    lr and schedule in constant, small, triggered, cosine, plus scalars per trial: ``tau``,
    ``alarm`` (the trigger's first alarm on the constant run), ``cross`` (first step the constant
    run's mismatch exceeds ``τ``), ``fires`` (number of firings of the triggered run) and the
    final rewards (mean of the last ``last`` steps) ``final_reward[<schedule>]``."""
    names = ("constant", "small", "triggered", "cosine")
    out = {f"{q}[{k}]": np.empty((n, toy.steps)) for q in ("mismatch", "noise", "length", "reward", "lr")
           for k in names}
    for k in ("tau", "alarm", "cross", "fires", *(f"final_reward[{k}]" for k in names),
              *(f"max_mismatch[{k}]" for k in names)):
        out[k] = np.empty(n)
    for i in range(n):
        seed = int(rng.integers(2 ** 31))
        runs = {"constant": run_schedule(toy, seed, schedule="constant", trigger=trigger),
                "small": run_schedule(toy, seed, schedule="constant", trigger=trigger,
                                      eta=small_eta_factor * toy.eta),
                "triggered": run_schedule(toy, seed, schedule="triggered", trigger=trigger)}
        d = runs["triggered"].lr[-1] / toy.eta
        runs["cosine"] = run_schedule(toy, seed, schedule="path", trigger=trigger,
                                      lr_path=cosine_lr(toy.eta, d, toy.steps))
        for k, tr in runs.items():
            for q in ("mismatch", "noise", "length", "reward", "lr"):
                out[f"{q}[{k}]"][i] = getattr(tr, q)
            out[f"final_reward[{k}]"][i] = tr.reward[-last:].mean()
            out[f"max_mismatch[{k}]"][i] = tr.mismatch.max()
        tau = tau_factor * runs["constant"].mismatch[0]
        out["tau"][i] = tau
        out["alarm"][i] = runs["constant"].first_alarm
        out["cross"][i] = _crossing(runs["constant"].mismatch, tau)
        out["fires"][i] = len(runs["triggered"].fires)
    return out


def sensitivity_trials(rng, n, *, toy: LRToy = TOY_LR, trigger: Trigger = TRIGGER, tau_factor: float = TAU_FACTOR,
                       last: int = 30):
    """The summaries of one trigger setting on ``n`` seeds (constant vs triggered, common random
    numbers): per trial ``below`` (triggered max mismatch ≤ τ < constant max), ``reward_diff``
    (final reward triggered − constant), ``early`` (first alarm on the constant run strictly before
    its crossing of τ), ``fires``, ``max_mismatch[triggered]``."""
    out = {k: np.empty(n) for k in ("below", "reward_diff", "early", "fires", "max_mismatch[triggered]",
                                    "max_mismatch[constant]")}
    for i in range(n):
        seed = int(rng.integers(2 ** 31))
        c = run_schedule(toy, seed, schedule="constant", trigger=trigger)
        t = run_schedule(toy, seed, schedule="triggered", trigger=trigger)
        tau = tau_factor * c.mismatch[0]
        cross = _crossing(c.mismatch, tau)
        out["below"][i] = float(t.mismatch.max() <= tau < c.mismatch.max())
        out["reward_diff"][i] = t.reward[-last:].mean() - c.reward[-last:].mean()
        out["early"][i] = float(cross >= 0 and 0 <= c.first_alarm < cross)
        out["fires"][i] = len(t.fires)
        out["max_mismatch[triggered]"][i] = t.mismatch.max()
        out["max_mismatch[constant]"][i] = c.mismatch.max()
    return out


# --- reductions of the claims (one statistic per trial) ----------------------------------------

def spearman_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman rank correlation of each row of ``a`` with the same row of ``b`` (ties by order)."""
    ra = np.argsort(np.argsort(a, axis=1), axis=1).astype(float)
    rb = np.argsort(np.argsort(b, axis=1), axis=1).astype(float)
    ra -= ra.mean(axis=1, keepdims=True)
    rb -= rb.mean(axis=1, keepdims=True)
    return np.sum(ra * rb, axis=1) / np.sqrt(np.sum(ra ** 2, axis=1) * np.sum(rb ** 2, axis=1))


def comovement_rho(stats) -> np.ndarray:
    """Per seed, Spearman ``ρ`` between the mismatch ``D_s`` and the gradient noise ``N_s`` over the
    steps of the constant-``η`` run; ``ρ ∈ [−1, 1]``."""
    return spearman_rows(stats["mismatch[constant]"], stats["noise[constant]"])


def comovement_excess(stats, *, level: float = 0.5) -> np.ndarray:
    """Per seed, ``ρ − level`` (:func:`comovement_rho`): positive when the co-movement exceeds ``level``."""
    return comovement_rho(stats) - level


def final_mismatch_difference(stats) -> np.ndarray:
    """Per seed, ``D_S(small η) − D_S(η)``: the mismatch at the last step, paired on the seed."""
    return stats["mismatch[small]"][:, -1] - stats["mismatch[constant]"][:, -1]


def below_failures(stats, *, tol: float = REWARD_TOL) -> int:
    """Seeds where the triggered decay does NOT keep ``max_s D_s ≤ τ < max_s D_s(constant)`` at a
    final reward no lower than the constant run's minus ``tol``."""
    tau = stats["tau"]
    ok = (stats["max_mismatch[triggered]"] <= tau) & (stats["max_mismatch[constant]"] > tau) & \
        (stats["final_reward[triggered]"] >= stats["final_reward[constant]"] - tol)
    return int(np.sum(~ok))


def early_failures(stats) -> int:
    """Seeds where the trigger (a monitor on the constant run) does NOT fire strictly before the
    constant run's mismatch first exceeds ``τ`` (a run that never fires or never crosses counts as
    a failure)."""
    alarm, cross = stats["alarm"], stats["cross"]
    ok = (alarm >= 0) & (cross >= 0) & (alarm < cross)
    return int(np.sum(~ok))


def predefined_not_worse(stats, *, tol: float = REWARD_TOL) -> int:
    """Seeds where the cosine schedule of the same total decay is NOT worse than the triggered decay
    on either count: its max mismatch stays ``≤ τ`` AND its final reward is not lower by more than
    ``tol``."""
    worse = (stats["max_mismatch[cosine]"] > stats["tau"]) | \
        (stats["final_reward[cosine]"] < stats["final_reward[triggered]"] - tol)
    return int(np.sum(~worse))


#: The one-at-a-time grid of the sensitivity table (``docs/theory/mismatch.md#lr-schedule``).
SENSITIVITY_GRID = (("default", {}),
                    ("window 5", {"window": 5}), ("window 20", {"window": 20}),
                    ("rho 0.1", {"rho": 0.1}), ("rho 0.4", {"rho": 0.4}),
                    ("decay 0.4", {"decay": 0.4}), ("decay 0.8", {"decay": 0.8}),
                    ("cooldown 10", {"cooldown": 10}), ("cooldown 40", {"cooldown": 40}))


def sensitivity_table(n: int = 30, seed: int = 2026, *, toy: LRToy = TOY_LR, grid=SENSITIVITY_GRID) -> list[dict]:
    """One row per trigger setting of ``grid`` (changes from :data:`TRIGGER`), each on the same ``n``
    seeds (``default_rng(seed)``): the fraction of seeds where the triggered run stays ``≤ τ`` while
    constant ``η`` exceeds it (``below``), the fraction where it does so at no worse final reward
    (``below_and_reward``), the early-warning fraction (``early``), each with its exact 95 %
    Clopper–Pearson interval, and the mean final-reward difference (triggered − constant) with a 95 %
    Student interval, the median number of firings and the median max mismatch in units of ``τ``."""
    from scipy import stats as sst

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"sensitivity_table: n must be an integer ≥ 2, got {n!r}")

    def cp(k):
        lo = 0.0 if k == 0 else float(sst.beta.ppf(0.025, k, n - k + 1))
        hi = 1.0 if k == n else float(sst.beta.ppf(0.975, k + 1, n - k))
        return k / n, lo, hi

    rows = []
    for name, change in grid:
        trig = Trigger(**{**TRIGGER.__dict__, **change})
        st = sensitivity_trials(np.random.default_rng(seed), n, toy=toy, trigger=trig)
        ok_r = st["reward_diff"] >= -REWARD_TOL
        d = st["reward_diff"]
        half = float(sst.t.ppf(0.975, n - 1) * d.std(ddof=1) / math.sqrt(n))
        tau = TAU_FACTOR * run_schedule(toy, 0, schedule="constant").mismatch[0]
        rows.append({"setting": name, "n": n, "seed": seed,
                     "below": cp(int(st["below"].sum())),
                     "below_and_reward": cp(int(np.sum((st["below"] > 0) & ok_r))),
                     "early": cp(int(st["early"].sum())),
                     "reward_diff": (float(d.mean()), float(d.mean()) - half, float(d.mean()) + half),
                     "fires_median": float(np.median(st["fires"])),
                     "max_mismatch_over_tau": float(np.median(st["max_mismatch[triggered]"]) / tau)})
    return rows
