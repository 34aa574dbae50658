r"""Linear bandits: environments, agents and a seeded, executor-independent runner.

Setting (spec ``ensemble.md`` §1, CONFIRMED): round t, action set
:math:`X_t\subset\mathbb R^d`, play :math:`x_t`, observe
:math:`y_t = x_t^\top\theta^* + \eta_t`, :math:`\eta_t\sim N(0,\sigma^2)`;
regret :math:`\sum_t \max_{x\in X_t}x^\top\theta^* - x_t^\top\theta^*`.

Environments (the authors' scripts): :class:`FiniteArmEnv` ("Russo": K fixed
arms i.i.d. Unif[−1/√5, 1/√5]^d), :class:`SphereEnv` (the unit sphere; play
θ̃/‖θ̃‖) and :class:`ChangingContextEnv` (K fresh arms N(0, I)/‖·‖ each
round); θ* ~ N(0, 10 I), σ = 1 by default.

Agents (all share the Gaussian posterior N(μ_t, Σ_t) with prior N(0, s_0 I)):

* :class:`ExactTS` — Thompson sampling, exact sample
  :math:`\mu_t + L_t^{-\top}g`, with :math:`L_tL_t^\top = \Sigma_t^{-1}` the
  Cholesky factor of the *precision* kept by rank-one updates (O(d²) per round);
* :class:`EnsemblePP` — linear Ensemble++ (:mod:`seqproj.ensemble`), any index
  / perturbation family; :func:`EnsembleSampling` = one-hot index + Gaussian
  perturbations (Lu & Van Roy 2017);
* :class:`LinUCB` — optimism with the self-normalised radius of Abbasi-Yadkori,
  Pál, Szepesvári (2011), Thm 2, written in posterior units (DERIVED);
* :class:`Greedy` — plays the posterior mean.

:func:`run_bandit` runs any list of agents in lock-step on common random
numbers (same θ*, arms and noise per repetition) through
:func:`proofs_check.engine.runner.map_chunks`: repetition blocks are chunks,
so results are identical on every executor.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from proofs_check.engine.validate import as_generator, check_choice, check_int, check_real

from proofs_check.engine.blas import single_threaded_blas

from seqproj.ensemble import haar_rows
from seqproj.ensemble.index_families import (INDEX_FAMILIES, PERTURBATION_FAMILIES, sample_index,
                             sample_perturbation, sample_rows)

__all__ = ["FiniteArmEnv", "SphereEnv", "ChangingContextEnv", "ExactTS", "EnsemblePP",
           "EnsembleSampling", "LinUCB", "Greedy", "BanditResult", "run_bandit",
           "simulate_repetition", "simulate_reference", "chol_rank1_update",
           "chol_rank1_update_ref", "BLOCK", "SWEEP_FAMILIES", "sweep_ms",
           "sweep_agents", "family_label", "SmallestM", "smallest_m_within"]

#: Rounds per block of pre-drawn indices/perturbations (part of the stream layout).
BLOCK = 250


# ---------------------------------------------------------------------------
# environments
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class FiniteArmEnv:
    """K fixed arms, features i.i.d. Unif[−h, h]^d with h = 1/√5; θ* ~ N(0, theta_var·I)."""

    d: int
    K: int
    theta_var: float = 10.0
    noise_sd: float = 1.0
    half_width: float = 1.0 / math.sqrt(5.0)
    kind = "finite"

    def __post_init__(self):
        check_int("d", self.d, lo=1)
        check_int("K", self.K, lo=1)
        check_real("theta_var", self.theta_var, lo=0.0, lo_open=True)
        check_real("noise_sd", self.noise_sd, lo=0.0, lo_open=True)
        check_real("half_width", self.half_width, lo=0.0, lo_open=True)

    def draw(self, rng):
        theta = math.sqrt(self.theta_var) * rng.standard_normal(self.d)
        X = rng.uniform(-self.half_width, self.half_width, size=(self.K, self.d))
        return theta, X


@dataclass(frozen=True)
class SphereEnv:
    """The unit sphere as action set (compact); the best action is θ*/‖θ*‖."""

    d: int
    theta_var: float = 10.0
    noise_sd: float = 1.0
    kind = "sphere"

    def __post_init__(self):
        check_int("d", self.d, lo=1)
        check_real("theta_var", self.theta_var, lo=0.0, lo_open=True)
        check_real("noise_sd", self.noise_sd, lo=0.0, lo_open=True)

    def draw(self, rng):
        return math.sqrt(self.theta_var) * rng.standard_normal(self.d), None


@dataclass(frozen=True)
class ChangingContextEnv:
    """K fresh arms N(0, I_d)/‖·‖ every round."""

    d: int
    K: int
    theta_var: float = 10.0
    noise_sd: float = 1.0
    kind = "contexts"

    def __post_init__(self):
        check_int("d", self.d, lo=1)
        check_int("K", self.K, lo=1)
        check_real("theta_var", self.theta_var, lo=0.0, lo_open=True)
        check_real("noise_sd", self.noise_sd, lo=0.0, lo_open=True)

    def draw(self, rng):
        return math.sqrt(self.theta_var) * rng.standard_normal(self.d), None

    def contexts(self, rng):
        X = rng.standard_normal((self.K, self.d))
        return X / np.linalg.norm(X, axis=1, keepdims=True)


_ENVS = (FiniteArmEnv, SphereEnv, ChangingContextEnv)


# ---------------------------------------------------------------------------
# agents (specifications; state lives in the simulator)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ExactTS:
    """Exact Thompson sampling with a maintained Cholesky factor of the precision."""

    prior_var: float | None = None
    noise_sd: float | None = None

    @property
    def label(self) -> str:
        return "TS"


@dataclass(frozen=True)
class EnsemblePP:
    """Linear Ensemble++ with ensemble size ``M`` and the given families."""

    M: int
    index: str = "gaussian"
    perturbation: str = "gaussian"
    init: str = "random"
    s: int = 2
    prior_var: float | None = None
    noise_sd: float | None = None

    def __post_init__(self):
        check_int("M", self.M, lo=1)
        check_choice("index", self.index, INDEX_FAMILIES)
        check_choice("perturbation", self.perturbation, PERTURBATION_FAMILIES)
        check_choice("init", self.init, ("random", "haar"))
        check_int("s", self.s, lo=1)

    @property
    def label(self) -> str:
        if self.index == "one_hot" and self.perturbation == "gaussian":
            fam = "ES"
        elif self.index == self.perturbation:
            fam = self.index
        else:
            fam = f"{self.index}/{self.perturbation}"
        return f"{fam}[M={self.M}{',haar' if self.init == 'haar' else ''}]"


def EnsembleSampling(M: int, **kw) -> EnsemblePP:
    """Classic ensemble sampling (Lu & Van Roy 2017) = one-hot index, Gaussian perturbations."""
    return EnsemblePP(M, index="one_hot", perturbation="gaussian", **kw)


@dataclass(frozen=True)
class LinUCB:
    r"""Score :math:`x^\top\mu_t + \beta_t\sqrt{x^\top\Sigma_tx}` with
    :math:`\beta_t = \sqrt{2\log(1/\delta) + \log\det(\Sigma_0\Sigma_t^{-1})} + r_0`,
    Abbasi-Yadkori et al. (2011) Thm 2 in posterior units; :math:`r_0` bounds
    :math:`\|\theta^*-\mu_0\|/\sqrt{s_0}` (default √d, its typical size under the
    prior: an OPEN choice).  A fixed ``beta`` overrides the radius."""

    delta: float = 0.01
    beta: float | None = None
    prior_radius: float | None = None
    prior_var: float | None = None
    noise_sd: float | None = None

    def __post_init__(self):
        check_real("delta", self.delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        if self.beta is not None:
            check_real("beta", self.beta, lo=0.0)

    @property
    def label(self) -> str:
        return "LinUCB"


@dataclass(frozen=True)
class Greedy:
    """Plays the posterior mean (no exploration)."""

    prior_var: float | None = None
    noise_sd: float | None = None

    @property
    def label(self) -> str:
        return "Greedy"


_AGENTS = (ExactTS, EnsemblePP, LinUCB, Greedy)


# ---------------------------------------------------------------------------
# kernels (numba) with NumPy references
# ---------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def chol_rank1_update(L, x):
    """In place: lower ``L`` becomes the Cholesky factor of ``L Lᵀ + x xᵀ`` (O(d²))."""
    n = x.shape[0]
    w = x.copy()
    for k in range(n):
        lkk = L[k, k]
        r = math.sqrt(lkk * lkk + w[k] * w[k])
        c = r / lkk
        s = w[k] / lkk
        L[k, k] = r
        for i in range(k + 1, n):
            L[i, k] = (L[i, k] + s * w[i]) / c
            w[i] = c * w[i] - s * L[i, k]


def chol_rank1_update_ref(L, x):
    """NumPy reference of :func:`chol_rank1_update` (returns a new factor)."""
    L = np.array(L, dtype=float)
    w = np.array(x, dtype=float)
    n = w.size
    for k in range(n):
        r = math.hypot(L[k, k], w[k])
        c, s = r / L[k, k], w[k] / L[k, k]
        L[k, k] = r
        L[k + 1:, k] = (L[k + 1:, k] + s * w[k + 1:]) / c
        w[k + 1:] = c * w[k + 1:] - s * L[k + 1:, k]
    return L


@njit(cache=True, nogil=True)
def _solve_upper_t(L, g):
    """Solve ``Lᵀ u = g`` for lower-triangular ``L`` (back substitution)."""
    n = g.shape[0]
    u = np.empty(n)
    for i in range(n - 1, -1, -1):
        acc = g[i]
        for j in range(i + 1, n):
            acc -= L[j, i] * u[j]
        u[i] = acc / L[i, i]
    return u


# ---------------------------------------------------------------------------
# the lock-step simulator
# ---------------------------------------------------------------------------

def _agent_prior(agent, env):
    s0 = env.theta_var if agent.prior_var is None else check_real("prior_var", agent.prior_var,
                                                                    lo=0.0, lo_open=True)
    sig = env.noise_sd if agent.noise_sd is None else check_real("noise_sd", agent.noise_sd,
                                                                  lo=0.0, lo_open=True)
    return s0, sig


def _epp_start(agent: EnsemblePP, d: int, s0: float, ss: np.random.SeedSequence):
    """A_0 and the generators of ζ and z, in the stream layout shared with the reference."""
    b_ss, zeta_ss, z_ss = ss.spawn(3)
    rb = np.random.default_rng(b_ss)
    B = haar_rows(d, agent.M, rb) if agent.init == "haar" else \
        sample_rows(agent.perturbation, d, agent.M, rb, s=agent.s)
    return math.sqrt(s0) * B, np.random.default_rng(zeta_ss), np.random.default_rng(z_ss)


def _rep_streams(rng, n_agents):
    root = np.random.SeedSequence(int(as_generator(rng).integers(0, 2**63)))
    env_ss, noise_ss, ctx_ss, *agent_ss = root.spawn(3 + n_agents)
    return env_ss, noise_ss, ctx_ss, agent_ss


def _arms(env, inst_X, ctx_rng, t):
    if env.kind == "finite":
        return inst_X
    if env.kind == "contexts":
        return env.contexts(ctx_rng)
    return None


def simulate_repetition(env, agents, T, rng) -> np.ndarray:
    """One repetition of every agent in lock-step; returns the ``(n_agents, T)``
    instantaneous regrets.  Vectorised over agents (batched Sherman–Morrison,
    one GEMM for the scores of all agents)."""
    agents = list(agents)
    d = env.d
    C = len(agents)
    env_ss, noise_ss, ctx_ss, agent_ss = _rep_streams(rng, C)
    theta, X = env.draw(np.random.default_rng(env_ss))
    eta = np.random.default_rng(noise_ss).standard_normal(T)
    ctx_rng = np.random.default_rng(ctx_ss)
    s0 = np.empty(C)
    sig = np.empty(C)
    for i, a in enumerate(agents):
        s0[i], sig[i] = _agent_prior(a, env)
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
            A[j], rz, rp = _epp_start(agents[i], d, s0[i], agent_ss[i])
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
            chol_rank1_update(ts_L[i], xs[i] / sig[i])
        for i in ucb:
            ucb_logdet[i] += math.log(c[i] / sig[i] ** 2)
            if env.kind == "finite":
                ucb_v[i] -= (X @ g[i]) ** 2 / c[i]
    return regret


def simulate_reference(env, agent, T, rng) -> np.ndarray:
    """Plain per-agent reference of :func:`simulate_repetition` for a single
    Ensemble++ or TS agent (class :class:`~seqproj.ensemble.LinearEnsemblePP`
    / an explicit Cholesky), with the same random streams; used by the tests."""
    from seqproj.ensemble import LinearEnsemblePP

    d = env.d
    env_ss, noise_ss, ctx_ss, agent_ss = _rep_streams(rng, 1)
    theta, X = env.draw(np.random.default_rng(env_ss))
    eta = np.random.default_rng(noise_ss).standard_normal(T)
    ctx_rng = np.random.default_rng(ctx_ss)
    s0, sig = _agent_prior(agent, env)
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


def _bandit_chunk(env, agents, T, rng, n):
    """``n`` repetitions: cumulative regret, shape ``(n, n_agents, T)``."""
    out = np.empty((n, len(agents), T))
    with single_threaded_blas():
        for r in range(n):
            out[r] = np.cumsum(simulate_repetition(env, agents, T, rng), axis=1)
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


def _as_agents(agent):
    if isinstance(agent, _AGENTS):
        return [agent]
    try:
        agents = list(agent)
    except TypeError:
        raise TypeError(f"agent must be an agent spec or a sequence of them, got {type(agent).__name__}") from None
    if not agents:
        raise ValueError("agent: need at least one agent")
    for a in agents:
        if not isinstance(a, _AGENTS):
            raise TypeError(f"agent entries must be one of {[c.__name__ for c in _AGENTS]}, "
                            f"got {type(a).__name__}")
    labels = [a.label for a in agents]
    if len(set(labels)) != len(labels):
        raise ValueError(f"agent labels must be distinct, got {labels}")
    return agents


def run_bandit(env, agent, T, n_reps, seed, executor=None, *, chunk_size: int = 5,
               workers: int | None = None, level: float = 0.95) -> BanditResult:
    """Run ``agent`` (one spec or a sequence, played in lock-step on common
    random numbers) for ``T`` rounds and ``n_reps`` repetitions.

    Repetitions are grouped in chunks of ``chunk_size`` and run by
    :func:`proofs_check.engine.runner.map_chunks` with root ``seed``, so the
    result depends only on ``(env, agents, T, n_reps, seed, chunk_size)`` —
    not on the executor (``"serial"``, ``"threads"``, ``"processes"``,
    ``"dask"``) or the number of workers.
    """
    from proofs_check.engine.runner import map_chunks

    if not isinstance(env, _ENVS):
        raise TypeError(f"env must be one of {[c.__name__ for c in _ENVS]}, got {type(env).__name__}")
    agents = _as_agents(agent)
    T = check_int("T", T, lo=1)
    n_reps = check_int("n_reps", n_reps, lo=1)
    chunk_size = check_int("chunk_size", chunk_size, lo=1)
    level = check_real("level", level, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    task = functools.partial(_bandit_chunk, env, tuple(agents), T)
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


# ---------------------------------------------------------------------------
# the finite-arm regret sweep (spec §4 item 2)
# ---------------------------------------------------------------------------

#: (index, perturbation) pairs of the sweep: matched families + classic ensemble sampling.
SWEEP_FAMILIES = (("gaussian", "gaussian"), ("sphere", "sphere"), ("cube", "cube"),
                  ("signed_coord", "signed_coord"), ("sparse", "sparse"), ("one_hot", "gaussian"))


def sweep_ms(d: int) -> tuple:
    """Ensemble sizes of the sweep: powers of two and d, 2d, 4d, 8d, up to 8d."""
    d = check_int("d", d, lo=1)
    ms = {2**k for k in range(0, 20) if 2**k <= 8 * d} | {d, 2 * d, 4 * d, 8 * d}
    return tuple(sorted(ms))


def sweep_agents(d: int, *, families=SWEEP_FAMILIES, ms=None) -> tuple:
    """TS, LinUCB, Greedy, then Ensemble++ for every family and M (lock-step set)."""
    ms = sweep_ms(d) if ms is None else tuple(ms)
    return (ExactTS(), LinUCB(), Greedy()) + tuple(EnsemblePP(M, i, p) for i, p in families
                                                    for M in ms)


def family_label(index: str, perturbation: str) -> str:
    """Family part of an :class:`EnsemblePP` label (``"gaussian"``, ``"ES"`` …)."""
    return EnsemblePP(1, index, perturbation).label.split("[")[0]


@dataclass(frozen=True)
class SmallestM:
    """Smallest M on the grid from which on (this M and every larger one on the
    grid) the mean final regret is ≤ (1 + margin)·TS — "from which on" guards
    against a single lucky crossing at small M.

    ``m`` is the point estimate (``None`` if no M on the grid qualifies);
    ``ci`` the percentile-bootstrap interval over repetitions (paired
    resampling, ``n_boot`` resamples, seed ``seed``), ``None`` entries meaning
    "beyond the grid"; ``ratio`` the mean-regret ratio to TS per M.
    """

    family: str
    margin: float
    rule: str
    m: int | None
    ci: tuple
    level: float
    ms: tuple
    ratio: tuple
    n_boot: int
    seed: int

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def smallest_m_within(result: BanditResult, index: str, perturbation: str, *, margin: float = 0.10,
                      level: float = 0.90, n_boot: int = 2000, seed: int = 0,
                      rule: str = "from_which_on") -> SmallestM:
    """:class:`SmallestM` from a sweep result (needs the agents of :func:`sweep_agents`).

    ``rule="from_which_on"`` (default): the smallest grid M such that it and every
    larger grid M are within the margin; ``rule="first"``: the first grid M within
    the margin (optimistic: one lucky crossing suffices).
    """
    margin = check_real("margin", margin, lo=0.0)
    check_choice("rule", rule, ("from_which_on", "first"))
    fam = family_label(index, perturbation)
    pairs = [(int(lab.split("M=")[1].split("]")[0].split(",")[0]), i)
             for i, lab in enumerate(result.labels)
             if lab.startswith(fam + "[") and ",haar" not in lab]
    if not pairs:
        raise ValueError(f"no agent of family {fam!r} in the result")
    pairs.sort()
    ms = tuple(m for m, _ in pairs)
    F = result.final[[i for _, i in pairs]]          # (n_M, n_reps)
    ts = result.final[result.index("TS")]             # (n_reps,)

    def first(mean_f, mean_ts):
        if rule == "first":
            ok = np.nonzero(mean_f <= (1.0 + margin) * mean_ts)[0]
            return ms[ok[0]] if ok.size else None
        bad = np.nonzero(mean_f > (1.0 + margin) * mean_ts)[0]
        k = 0 if bad.size == 0 else int(bad[-1]) + 1
        return ms[k] if k < len(ms) else None

    m_hat = first(F.mean(axis=1), ts.mean())
    g = np.random.default_rng(seed)
    n = ts.size
    big = 10 * max(ms)
    boots = []
    for _ in range(n_boot):
        r = g.integers(0, n, size=n)
        v = first(F[:, r].mean(axis=1), ts[r].mean())
        boots.append(big if v is None else v)
    lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf")
    ci = (None if lo == big else int(lo), None if hi == big else int(hi))
    return SmallestM(family=fam, margin=margin, rule=rule, m=m_hat, ci=ci, level=level, ms=ms,
                     ratio=tuple(float(x) for x in F.mean(axis=1) / ts.mean()), n_boot=n_boot,
                     seed=seed)
