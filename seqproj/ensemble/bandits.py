r"""The lock-step linear-bandit simulator and its seeded, executor-independent runner.

:func:`simulate_repetition` runs any list of agents (:mod:`.agents`) in
lock-step on common random numbers — the same θ*, arms and noise per
repetition — vectorised over agents (batched Sherman–Morrison, one GEMM scores
every agent); :func:`simulate_reference` is the plain per-agent loop through
:class:`~seqproj.ensemble.LinearEnsemblePP` it is tested against.
:func:`cumulative_regrets` is the chunk function (``f(rng, n, *, env, agents,
T)``) and :func:`run_bandit` runs it through
:func:`proofs_check.engine.runner.map_chunks`: repetition blocks are chunks,
so results are identical on every executor.

Random streams of one repetition: one root seed drawn from the chunk
generator, spawned into environment, noise, contexts and one stream per agent
(an Ensemble++ agent spawns its start B, its indices ζ and its perturbations
z; indices and perturbations are pre-drawn in blocks of :data:`~.run_setup.BLOCK` rounds);
the set-up shared with the fused simulators is :mod:`.run_setup`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from proofs_check.engine import single_threaded_blas
from proofs_check.engine import check_bool, check_instance, check_int, check_real

from ._limits import MAX_N, MAX_T

from .agents import EnsemblePP, ExactTS, LinUCB
# the raw kernels (no checks) in the round loop: the factors are created and kept valid here.
# Private names (issue 35, C6): a public name of this module must never reach an unchecked kernel
# (a mismatched shape there reads out of bounds); the checked ones are
# seqproj.ensemble.cholesky_update.chol_rank1_update / solve_upper_t.
from .cholesky_update import chol_rank1_update_kernel as _chol_rank1_update
from .cholesky_update import solve_upper_t_kernel as _solve_upper_t
from .environments import ENVIRONMENTS
from .fused_round import agent_regret
from .index_families import sample_index, sample_perturbation
from .posterior_factor import LinearEnsemblePP
from .run_setup import BLOCK, agent_prior, as_agents, check_run, epp_start, rep_streams

__all__ = ["simulate_repetition", "simulate_reference", "cumulative_regrets", "BanditResult",
           "run_bandit"]


def _arms(env, inst_X, ctx_rng, t):
    if env.kind == "finite":
        return inst_X
    if env.kind == "contexts":
        return env.contexts(ctx_rng)
    return None


def simulate_repetition(env, agents, T, rng, *, fused=None) -> np.ndarray:
    """One repetition of every agent in lock-step; returns the ``(n_agents, T)``
    instantaneous regrets.  Vectorised over agents (batched Sherman–Morrison,
    one GEMM for the scores of all agents); on finite arm sets the Ensemble++
    agents run through the fused kernel (``fused``: default
    :data:`FUSED`; ``False`` forces the batched path — same regrets)."""
    env, agents, T, rng = check_run(env, agents, T, rng)
    if fused is not None:
        fused = check_bool("fused", fused)
    return _simulate_repetition(env, agents, T, rng, fused)


#: Run the finite-arm Ensemble++ agents of the lock-step simulator through the fused kernel
#: (:mod:`.fused_round`): the same algebra and random streams, so the same regrets (tested bitwise
#: against the batched path, ``fused=False``); the kernel releases the GIL, so thread pools scale.
#: TS, LinUCB and greedy stay on the batched path (few agents; the fused TS kernel,
#: :func:`.cholesky_update.ts_rounds`, is used by the bench).
FUSED = True


def _simulate_repetition(env, agents, T, rng, fused=None) -> np.ndarray:
    C = len(agents)
    env_ss, noise_ss, ctx_ss, agent_ss = rep_streams(rng, C)
    theta, X = env.draw(np.random.default_rng(env_ss))
    eta = np.random.default_rng(noise_ss).standard_normal(T)
    ctx_rng = np.random.default_rng(ctx_ss)
    if (FUSED if fused is None else fused) and env.kind == "finite":
        X = np.ascontiguousarray(X, dtype=float)
        Xth = X @ theta
        best = float(Xth.max())
        regret = np.empty((C, T))
        rest = []
        for i, a in enumerate(agents):
            if isinstance(a, EnsemblePP):
                s0_i, sig_i = agent_prior(a, env)
                regret[i] = agent_regret(X, Xth, best, eta, a, s0_i, sig_i, agent_ss[i],
                                         index_sampler=sample_index,
                                         perturbation_sampler=sample_perturbation)[0]
            else:
                rest.append(i)
        if rest:
            regret[rest] = _lockstep(env, [agents[i] for i in rest], T, theta, X, eta, ctx_rng,
                                     [agent_ss[i] for i in rest])
        return regret
    return _lockstep(env, agents, T, theta, X, eta, ctx_rng, agent_ss)


def _lockstep(env, agents, T, theta, X, eta, ctx_rng, agent_ss) -> np.ndarray:
    """The batched lock-step rounds of ``agents`` on one drawn instance (θ*, arms, noise)."""
    d = env.d
    C = len(agents)
    s0 = np.empty(C)
    sig = np.empty(C)
    for i, a in enumerate(agents):
        s0[i], sig[i] = agent_prior(a, env)
    Sigma = s0[:, None, None] * np.eye(d)[None]
    mu = np.zeros((C, d))
    # --- Ensemble++ groups (same M and family -> contiguous batched arrays)
    groups: dict = {}
    for i, a in enumerate(agents):
        if isinstance(a, EnsemblePP):
            groups.setdefault((a.M,), []).append(i)
    epp = []
    for (M,), idx in groups.items():
        A = np.empty((len(idx), d, M))
        gens = []
        for j, i in enumerate(idx):
            A[j], rz, rp = epp_start(agents[i], d, s0[i], agent_ss[i])
            gens.append((rz, rp))
        epp.append({"idx": np.array(idx), "M": M, "A": A, "gens": gens,
                    "zeta": np.empty((len(idx), BLOCK, M)), "z": np.empty((len(idx), BLOCK, M)),
                    "sig": sig[idx]})
    ts = [i for i, a in enumerate(agents) if isinstance(a, ExactTS)]
    ts_L = {i: np.eye(d) / math.sqrt(s0[i]) for i in ts}
    ts_g = {i: np.random.default_rng(agent_ss[i]).standard_normal((T, d)) for i in ts}
    ucb = [i for i, a in enumerate(agents) if isinstance(a, LinUCB)]
    if ucb and env.kind == "sphere":
        raise ValueError("LinUCB is implemented for finite action sets only (the optimistic "
                         "action on the sphere has no closed form); use FiniteArmEnv or "
                         "ChangingContextEnv")
    ucb_logdet = {i: 0.0 for i in ucb}
    ucb_v = {i: s0[i] * np.einsum("kd,kd->k", X, X) for i in ucb} if env.kind == "finite" else {}
    regret = np.empty((C, T))
    th = np.empty((C, d))
    Xtheta = X @ theta if X is not None else None
    best_fixed = float(Xtheta.max()) if X is not None else float(np.linalg.norm(theta))
    for t in range(T):
        b = t % BLOCK
        if b == 0:
            n_b = min(BLOCK, T - t)
            for grp in epp:
                for j, i in enumerate(grp["idx"]):
                    a = agents[i]
                    rz, rp = grp["gens"][j]
                    grp["zeta"][j, :n_b] = sample_index(a.index, a.M, rz, size=n_b, s=a.s)
                    grp["z"][j, :n_b] = sample_perturbation(a.perturbation, a.M, rp, size=n_b, s=a.s)
        th[:] = mu
        for grp in epp:
            th[grp["idx"]] += np.matmul(grp["A"], grp["zeta"][:, b, :, None])[:, :, 0]
        for i in ts:
            th[i] += _solve_upper_t(ts_L[i], ts_g[i][t])
        Xt = _arms(env, X, ctx_rng, t)
        if Xt is None:  # sphere
            nrm = np.linalg.norm(th, axis=1, keepdims=True)
            xs = np.where(nrm > 0, th / np.where(nrm > 0, nrm, 1.0), np.eye(d)[0][None, :])
            mean_r = xs @ theta
            best = best_fixed
        else:
            scores = th @ Xt.T
            if ucb:
                if env.kind == "finite":
                    V = {i: ucb_v[i] for i in ucb}
                else:
                    V = {i: np.einsum("kd,de,ke->k", Xt, Sigma[i], Xt) for i in ucb}
                for i in ucb:
                    a = agents[i]
                    if a.beta is not None:
                        beta = a.beta
                    else:
                        r0 = math.sqrt(d) if a.prior_radius is None else a.prior_radius
                        beta = math.sqrt(2.0 * math.log(1.0 / a.delta) + ucb_logdet[i]) + r0
                    scores[i] = Xt @ mu[i] + beta * np.sqrt(np.maximum(V[i], 0.0))
            choice = np.argmax(scores, axis=1)
            xs = Xt[choice]
            if Xt is X:
                mean_r = Xtheta[choice]
                best = best_fixed
            else:
                xt_theta = Xt @ theta
                mean_r = xt_theta[choice]
                best = float(xt_theta.max())
        regret[:, t] = best - mean_r
        y = mean_r + sig * eta[t]
        # --- batched Sherman–Morrison on Σ and the mean
        g = np.matmul(Sigma, xs[:, :, None])[:, :, 0]
        q = np.einsum("cd,cd->c", xs, g)
        if not np.all(np.isfinite(q)) or np.any(q < 0):
            bad = int(np.argmin(np.where(np.isfinite(q), q, -np.inf)))
            raise RuntimeError(f"Σ_t of agent {agents[bad].label} lost positive definiteness at "
                               f"round {t + 1} (xᵀΣx = {q[bad]!r}); refusing to continue")
        c = sig * sig + q
        gc = g / c[:, None]
        Sigma -= gc[:, :, None] * g[:, None, :]
        mu += gc * (y - np.einsum("cd,cd->c", xs, mu))[:, None]
        for grp in epp:
            ix = grp["idx"]
            A = grp["A"]
            xA = np.matmul(xs[ix][:, None, :], A)[:, 0, :]
            A += gc[ix][:, :, None] * (grp["sig"][:, None] * grp["z"][:, b, :] - xA)[:, None, :]
        for i in ts:
            _chol_rank1_update(ts_L[i], xs[i] / sig[i])
        for i in ucb:
            ucb_logdet[i] += math.log(c[i] / sig[i] ** 2)
            if env.kind == "finite":
                ucb_v[i] -= (X @ g[i]) ** 2 / c[i]
    return regret


def simulate_reference(env, agent, T, rng) -> np.ndarray:
    """Plain per-agent reference of :func:`simulate_repetition` for a single
    Ensemble++ or TS agent (class :class:`~seqproj.ensemble.LinearEnsemblePP`
    / an explicit Cholesky), with the same random streams; used by the tests."""
    check_instance("agent", agent, (EnsemblePP, ExactTS))
    env, (agent,), T, rng = check_run(env, [agent], T, rng, name="agent")
    d = env.d
    env_ss, noise_ss, ctx_ss, agent_ss = rep_streams(rng, 1)
    theta, X = env.draw(np.random.default_rng(env_ss))
    eta = np.random.default_rng(noise_ss).standard_normal(T)
    ctx_rng = np.random.default_rng(ctx_ss)
    s0, sig = agent_prior(agent, env)
    out = np.empty(T)
    if isinstance(agent, EnsemblePP):
        b_ss, zeta_ss, z_ss = agent_ss[0].spawn(3)
        ens = LinearEnsemblePP(d, agent.M, prior_var=s0, noise_sd=sig, index=agent.index,
                               perturbation=agent.perturbation, init=agent.init,
                               rng=np.random.default_rng(b_ss), s=agent.s)
        rz, rp = np.random.default_rng(zeta_ss), np.random.default_rng(z_ss)
    elif isinstance(agent, ExactTS):
        G = np.random.default_rng(agent_ss[0]).standard_normal((T, d))
        prec = np.eye(d) / s0
        b_vec = np.zeros(d)
    else:
        raise TypeError("simulate_reference supports EnsemblePP and ExactTS agents")
    for t in range(T):
        if isinstance(agent, EnsemblePP):
            if t % BLOCK == 0:
                n_b = min(BLOCK, T - t)
                Zeta = sample_index(agent.index, agent.M, rz, size=n_b, s=agent.s)
                Zp = sample_perturbation(agent.perturbation, agent.M, rp, size=n_b, s=agent.s)
            th = ens.sample(zeta=Zeta[t % BLOCK])
        else:
            Lp = np.linalg.cholesky(prec)
            mean = np.linalg.solve(prec, b_vec)
            th = mean + np.linalg.solve(Lp.T, G[t])
        Xt = _arms(env, X, ctx_rng, t)
        if Xt is None:
            x = th / np.linalg.norm(th)
            best = float(np.linalg.norm(theta))
        else:
            x = Xt[int(np.argmax(Xt @ th))]
            best = float((Xt @ theta).max())
        mr = float(x @ theta)
        out[t] = best - mr
        y = mr + sig * eta[t]
        if isinstance(agent, EnsemblePP):
            ens.update(x, y, z=Zp[t % BLOCK])
        else:
            prec = prec + np.outer(x, x) / sig**2
            b_vec = b_vec + y * x / sig**2
    return out


# ---------------------------------------------------------------------------
# runner and result
# ---------------------------------------------------------------------------


def cumulative_regrets(rng, n, *, env, agents, T) -> np.ndarray:
    """``n`` independent repetitions of the lock-step simulator: cumulative regret
    of every agent, shape ``(n, n_agents, T)`` (one root seed per repetition
    drawn from ``rng``)."""
    n = check_int("n", n, lo=0, hi=MAX_N)
    env, agents, T, rng = check_run(env, agents, T, rng, n=n)
    out = np.empty((n, len(agents), T))
    with single_threaded_blas():
        for r in range(n):
            out[r] = np.cumsum(_simulate_repetition(env, agents, T, rng), axis=1)
    return out


@dataclass(frozen=True)
class BanditResult:
    """Cumulative-regret curves of several agents on common random numbers.

    ``mean[i, t]`` is the mean cumulative regret of agent ``i`` after round
    ``t+1``, ``lo``/``hi`` its ``level`` t-interval over repetitions,
    ``final[i, r]`` the final regret of agent ``i`` in repetition ``r``.
    """

    labels: tuple
    T: int
    n_reps: int
    seed: int
    level: float
    mean: np.ndarray = field(repr=False)
    lo: np.ndarray = field(repr=False)
    hi: np.ndarray = field(repr=False)
    final: np.ndarray = field(repr=False)
    env: str = ""

    def index(self, label: str) -> int:
        try:
            return self.labels.index(label)
        except ValueError:
            raise ValueError(f"unknown agent label {label!r}; have {list(self.labels)}") from None

    def final_mean_ci(self, label: str):
        """Mean final regret of ``label`` and its ``level`` t-interval."""
        from scipy import stats as st

        f = self.final[self.index(label)]
        m = float(f.mean())
        h = float(st.t.ppf(0.5 + self.level / 2, max(f.size - 1, 1)) * f.std(ddof=1) / math.sqrt(f.size)) \
            if f.size > 1 else math.inf
        return m, (m - h, m + h)

    def to_dict(self) -> dict:
        return {"labels": list(self.labels), "T": self.T, "n_reps": self.n_reps, "seed": self.seed,
                "level": self.level, "env": self.env,
                "final_mean": self.final.mean(axis=1).tolist(),
                "final": self.final.tolist()}


def default_executor(n_reps: int, chunk_size: int, workers: int | None = None):
    """``(executor, workers)`` that :func:`run_bandit` uses when ``executor`` is ``None``: a thread
    pool on all cores (at most one worker per chunk) when there are ≥ 2 chunks and ≥ 2 cores,
    serial otherwise — the engine's ``auto`` rule.  Threads, not processes: a process pool
    re-imports the caller's ``__main__`` (forkserver), which breaks scripts without an
    ``if __name__ == "__main__"`` guard (measured: ``BrokenProcessPool``); the lock-step chunks
    spend most of their time in NumPy/BLAS and numba calls that release the GIL (measured 1.1–1.3×
    over serial on 2 cores at load ≈ 12).  Results do not depend on the choice (chunks carry
    their own seeds)."""
    from proofs_check.engine import default_workers

    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=MAX_N)
    n_chunks = -(-check_int("n_reps", n_reps, lo=1, hi=MAX_N) // chunk_size)
    w = default_workers() if workers is None else check_int("workers", workers, lo=1, hi=512)
    if n_chunks < 2 or w < 2:
        return "serial", None
    return "threads", min(w, n_chunks)


def run_bandit(env, agent, T, n_reps, seed, executor=None, *, chunk_size: int = 5,
               workers: int | None = None, level: float = 0.95) -> BanditResult:
    """Run ``agent`` (one spec or a sequence, played in lock-step on common
    random numbers) for ``T`` rounds and ``n_reps`` repetitions.

    Repetitions are grouped in chunks of ``chunk_size`` and run by
    :func:`proofs_check.engine.runner.map_chunks` with root ``seed``, so the
    result depends only on ``(env, agents, T, n_reps, seed, chunk_size)`` —
    not on the executor (``"serial"``, ``"threads"``, ``"processes"``,
    ``"dask"``) or the number of workers.  ``executor=None`` uses all cores
    (:func:`default_executor`: threads, one per chunk at most; serial for a
    single chunk or a single core).
    """
    from proofs_check.engine import map_chunks

    if not isinstance(env, ENVIRONMENTS):
        raise TypeError(f"env must be one of {[c.__name__ for c in ENVIRONMENTS]}, got {type(env).__name__}")
    agents = as_agents(agent)
    T = check_int("T", T, lo=1, hi=MAX_T)
    n_reps = check_int("n_reps", n_reps, lo=1, hi=MAX_N)
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=MAX_N)
    seed = check_int("seed", seed, lo=0)
    check_run(env, agents, T, 0, n=n_reps)
    level = check_real("level", level, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    task = functools.partial(cumulative_regrets, env=env, agents=tuple(agents), T=T)
    if executor is None:
        executor, auto_workers = default_executor(n_reps, chunk_size, workers)
        workers = auto_workers if auto_workers is not None else workers
    chunks = map_chunks(task, n_reps, chunk_size=chunk_size, seed=seed, executor=executor,
                        workers=workers)
    cum = np.concatenate([np.asarray(c) for c in chunks], axis=0)  # (n_reps, C, T)
    from scipy import stats as st

    mean = cum.mean(axis=0)
    if n_reps > 1:
        h = st.t.ppf(0.5 + level / 2, n_reps - 1) * cum.std(axis=0, ddof=1) / math.sqrt(n_reps)
    else:
        h = np.full_like(mean, np.inf)
    return BanditResult(labels=tuple(a.label for a in agents), T=T, n_reps=n_reps, seed=int(seed),
                        level=level, mean=mean, lo=mean - h, hi=mean + h,
                        final=np.ascontiguousarray(cum[:, :, -1].T), env=repr(env))

