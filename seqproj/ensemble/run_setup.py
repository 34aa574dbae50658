"""The set-up shared by the linear-bandit simulators: validated arguments and one repetition's streams.

The lock-step simulator (:mod:`.bandits`) and the fused single-agent simulators
(:func:`.fused_round.simulate_fused`, :func:`.cholesky_update.simulate_ts_fused`) draw the
same instance from the same random streams, so that their regrets agree.  This module
is that common ground:

* :func:`check_run` — the validated ``(env, agents, T, rng)`` of a simulator call, its
  memory bounded first; :func:`as_agents` — one agent spec or a sequence of them as a
  list; :func:`check_finite_run` — the same for one agent on finite arms;
* :func:`rep_streams` — one repetition's seeds: environment, noise, contexts and one
  stream per agent; :func:`agent_prior` — an agent's prior variance and noise σ (the
  environment's unless the agent sets them); :func:`epp_start` — an Ensemble++ agent's
  start A₀ and its generators of ζ and z; :data:`BLOCK` — rounds per block of pre-drawn
  indices and perturbations;
* :func:`draw_finite_repetition` — the instance of one repetition on finite arms, as the
  fused simulators need it.
"""
from __future__ import annotations

import math

import numpy as np

from proofs_check.engine import as_generator, check_int, check_real

from ._limits import MAX_T, check_cells
from .agents import AGENTS, EnsemblePP, ExactTS, LinUCB
from .environments import ENVIRONMENTS
from .index_families import sample_rows
from .posterior_factor import haar_rows

__all__ = ["BLOCK", "agent_prior", "epp_start", "rep_streams", "as_agents", "check_run",
           "check_finite_run", "draw_finite_repetition"]

#: Rounds per block of pre-drawn indices/perturbations (part of the stream layout).
BLOCK = 250


def agent_prior(agent, env):
    """``(s0, σ)``: the agent's ``prior_var`` and ``noise_sd``, or the environment's θ* variance
    and noise where the agent leaves them ``None``."""
    s0 = env.theta_var if agent.prior_var is None else check_real("prior_var", agent.prior_var,
                                                                    lo=0.0, lo_open=True)
    sig = env.noise_sd if agent.noise_sd is None else check_real("noise_sd", agent.noise_sd,
                                                                  lo=0.0, lo_open=True)
    return s0, sig


def epp_start(agent: EnsemblePP, d: int, s0: float, ss: np.random.SeedSequence):
    """A_0 and the generators of ζ and z, in the stream layout shared with the reference."""
    b_ss, zeta_ss, z_ss = ss.spawn(3)
    rb = np.random.default_rng(b_ss)
    B = haar_rows(d, agent.M, rb) if agent.init == "haar" else \
        sample_rows(agent.perturbation, d, agent.M, rb, s=agent.s)
    return math.sqrt(s0) * B, np.random.default_rng(zeta_ss), np.random.default_rng(z_ss)


def rep_streams(rng, n_agents):
    """One repetition's ``(env, noise, contexts, [agent, …])`` SeedSequences, spawned from one
    root seed drawn from ``rng``."""
    root = np.random.SeedSequence(int(as_generator(rng).integers(0, 2**63)))
    env_ss, noise_ss, ctx_ss, *agent_ss = root.spawn(3 + n_agents)
    return env_ss, noise_ss, ctx_ss, agent_ss


def as_agents(agent, name="agent"):
    """One agent spec, or a sequence of them with distinct labels, as a list."""
    if isinstance(agent, AGENTS):
        return [agent]
    if isinstance(agent, (str, bytes, dict)) or not hasattr(agent, "__iter__") or (
            isinstance(agent, np.ndarray) and agent.ndim != 1):
        raise TypeError(f"{name} must be an agent spec or a sequence of them, got "
                        f"{type(agent).__name__}")
    agents = list(agent)
    if not agents:
        raise ValueError(f"{name}: need at least one agent")
    if len(agents) > 10_000:
        raise ValueError(f"{name} must hold at most 10000 agents, got {len(agents)}")
    for a in agents:
        if not isinstance(a, AGENTS):
            raise TypeError(f"{name} entries must be one of {[c.__name__ for c in AGENTS]}, "
                            f"got {type(a).__name__}")
    labels = [a.label for a in agents]
    if len(set(labels)) != len(labels):
        raise ValueError(f"agent labels must be distinct, got {labels}")
    return agents


def check_run(env, agents, T, rng, *, n=1, name="agents"):
    """Validated ``(env, agents, T, rng)`` of the simulators; the memory of one call
    (``n × n_agents × T`` regrets, Σ and the factors of every agent) is bounded first."""
    if not isinstance(env, ENVIRONMENTS):
        raise TypeError(f"env must be one of {[c.__name__ for c in ENVIRONMENTS]}, got "
                        f"{type(env).__name__}")
    agents = as_agents(agents, name)
    T = check_int("T", T, lo=1, hi=MAX_T)
    rng = as_generator(rng)
    C, d = len(agents), env.d
    check_cells("n × agents × T regrets", n, C, T)
    check_cells("the agents' d × d covariances", C, d, d)
    check_cells("the Ensemble++ factors", d, sum(a.M for a in agents if isinstance(a, EnsemblePP)) + 1)
    check_cells("the pre-drawn indices and perturbations", 2 * BLOCK,
                sum(a.M for a in agents if isinstance(a, EnsemblePP)) + 1)
    check_cells("the TS noise", T, d, sum(isinstance(a, ExactTS) for a in agents) + 1)
    if env.kind == "sphere" and any(isinstance(a, LinUCB) for a in agents):
        raise ValueError("LinUCB is implemented for finite action sets only (the optimistic "
                         "action on the sphere has no closed form); use FiniteArmEnv or "
                         "ChangingContextEnv (argument env)")
    return env, agents, T, rng


def check_finite_run(env, agent, T, rng, *, caller: str):
    """:func:`check_run` for the single ``agent`` of a fused simulator (named ``caller`` in the
    message), which runs finite-arm environments only; returns ``(env, agent, T, rng)``."""
    env, (agent,), T, rng = check_run(env, [agent], T, rng, name="agent")
    if env.kind != "finite":
        raise ValueError(f"{caller} runs finite-arm environments (FiniteArmEnv), got {env!r} "
                         "(argument env)")
    return env, agent, T, rng


def draw_finite_repetition(env, agent, T, rng):
    """One repetition of one agent on finite arms, drawn in the stream layout of the lock-step
    simulator: ``(X, Xθ*, max Xθ*, η, s0, σ, ss)`` with ``X`` the C-ordered arms, ``η`` the ``T``
    standard normal reward noises, ``(s0, σ)`` from :func:`agent_prior` and ``ss`` the agent's
    SeedSequence."""
    env_ss, noise_ss, _ctx_ss, agent_ss = rep_streams(rng, 1)
    theta_star, X = env.draw(np.random.default_rng(env_ss))
    X = np.ascontiguousarray(X, dtype=float)
    eta = np.random.default_rng(noise_ss).standard_normal(T)
    s0, sig = agent_prior(agent, env)
    Xth = X @ theta_star
    return X, Xth, float(Xth.max()), eta, s0, sig, agent_ss[0]
