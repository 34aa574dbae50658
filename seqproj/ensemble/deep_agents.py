r"""Tabular value-learning agents for DeepSea, vectorised over a batch of instances.

Every agent sees one-hot (tabular) features of the cell ``s = (h, c)`` (the row
``h`` is the time step) and the raw action ``a ∈ {0, 1}``, never the hidden
action mapping; all keep the same sufficient statistics of the data, per
instance ``b`` and pair ``(s, a)``:

* ``n[s, a]`` visits, ``R[s, a]`` the reward sum,
* ``C[s, a, k]`` the visits whose next column was ``c + k − 1`` (``k ∈ {0, 1, 2}``).

With them the Bellman targets of all visits of ``(s, a)`` sum to
:math:`R_{sa} + \sum_k C_{sak}\,V_{h+1}(c + k − 1)` for any next-row value
``V_{h+1}`` (targets recomputed with today's values, as a replay buffer would).
The Gaussian model of every agent: targets ``y ~ N(Q(s, a), σ²)``
(``noise_sd`` σ), prior ``Q(s, a) ~ N(0, s₀)`` (``prior_var`` s₀), so the
posterior precision of a pair is :math:`p_{sa} = 1/s_0 + n_{sa}/\sigma^2`.

Agents (each acts greedily with respect to its episode's Q̃; ties have
probability 0 except for the ε-greedy mean, where they are broken uniformly):

* :class:`RLSVI` — exact randomized least-squares value iteration (Osband,
  Van Roy & Wen, "Generalization and Exploration via Randomized Value
  Functions", ICML 2016, Alg. 1; Osband, Van Roy, Russo & Wen, JMLR 2019):
  for ``h = N−1, …, 0``,

  .. math::

      \tilde Q_h(s, a) \sim N\Big(\frac{\sum_i y_i/\sigma^2}{p_{sa}},\ \frac1{p_{sa}}\Big),\qquad
      y_i = r_i + \max_{a'}\tilde Q_{h+1}(s'_i, a'),

  the exact Bayesian linear regression posterior on one-hot features of the
  targets built from the sample of the next row — the Thompson-sampling
  reference, one fresh sample per episode.
* :class:`HyperAgent` — the linear hypermodel :math:`Q(s, a; \xi) = \mu_{sa} +
  a_{sa}^\top\xi`, ``ξ ~ N(0, I_M)`` (HyperAgent, Li et al., ICML 2024,
  arXiv 2402.10228; HyperDQN, Li et al., ICLR 2022) on the symmetrised loss of
  ``ensemble.md#hypermodel`` with Bellman targets that use the **same index**:

  .. math::

      L = \mathbb E_\xi\Big[\sum_i \frac{(r_i + \sigma z_i^\top\xi + \max_{a'}Q(s'_i, a'; \xi)
          - Q(s_i, a_i; \xi))^2}{\sigma^2}\Big] + \mathbb E_\xi\frac{(Q(s, a; \xi) - Q_0(s, a; \xi))^2}{s_0},

  with one fresh perturbation ``z_i ~ N(0, I_M/M)`` stored per transition and
  the frozen prior :math:`Q_0(s, a; \xi) = \sqrt{s_0}\,B_{sa}^\top\xi`, rows
  ``B_{sa} ~ N(0, I_M/M)``.  ``update="closed_form"``: the exact minimiser,
  row by row backwards (DERIVED, ``ensemble.md#deep-sea-agents``)

  .. math::

      \mu_{sa} = \frac{R_{sa} + \sum_k C_{sak}\,m_{h+1}}{\sigma^2 p_{sa}},\quad
      a_{sa} = \frac{\sqrt{s_0}B_{sa}/s_0 + Z_{sa}/\sigma + \sum_k C_{sak}\,g_{h+1}/\sigma^2}{p_{sa}},

  with :math:`Z_{sa} = \sum_i z_i`, :math:`m(s') = \mathbb E_\xi\max_{a'}Q(s', a'; \xi)` and
  :math:`g(s') = \mathbb E_\xi[\xi\max_{a'}Q(s', a'; \xi)]` in closed form for two
  actions (:func:`clark_max`, Clark 1961 and Stein's lemma).  ``update="sgd"``:
  per episode one backward sweep of ``sgd_steps`` preconditioned gradient
  steps per row on the same loss with ``n_indices`` sampled indices and their
  mirrors (the expectation over ξ sampled, as in HyperAgent's code).  A sample
  is one forward pass :math:`\mu_{sa} + a_{sa}^\top\xi_e` at the visited cell,
  with one fresh ``ξ_e`` per episode.
* :class:`BootstrappedEnsemble` — ``K`` tabular members with randomized prior
  functions (bootstrapped DQN, Osband, Blundell, Pritzel & Van Roy, NeurIPS
  2016; priors: Osband, Aslanides & Cassirer, NeurIPS 2018): member ``k`` has
  its own prior value :math:`q_{0,k}(s, a) \sim N(0, s_0)` and double-or-nothing
  bootstrap weights :math:`w_{ik} \in \{0, 2\}` (probability ½ each) on every
  transition; its Q is the weighted ridge fit
  :math:`(q_{0,k}/s_0 + \sum_i w_{ik}y_{ik}/\sigma^2)/(1/s_0 + \sum_i w_{ik}/\sigma^2)`
  with targets from its own next-row values; one member, drawn uniformly,
  acts per episode.
* :class:`EpsilonGreedy` — the posterior-mean fit (RLSVI without noise,
  certainty equivalence) played ε-greedily: the negative control.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

from proofs_check.engine import as_generator, check_finite_array, check_int, check_real, shown

from ._limits import check_cells, check_choice
from .deep_kernels import hyper_backward, hyper_sgd_sweep, ridge_backward

__all__ = ["clark_max", "RLSVI", "HyperAgent", "BootstrappedEnsemble", "EpsilonGreedy",
           "DEEP_AGENTS", "rlsvi_row_posterior", "hyper_closed_form"]

_SQRT_2PI = math.sqrt(2.0 * math.pi)


def clark_max(mu1, mu2, a1, a2):
    r"""Mean and index-moment of the larger of two affine functions of ``ξ ~ N(0, I_M)``.

    For :math:`X_j = \mu_j + a_j^\top\xi` with :math:`\theta = \|a_1 - a_2\|` and
    :math:`\alpha = (\mu_1 - \mu_2)/\theta` (Clark, "The greatest of a finite set
    of random variables", Oper. Res. 1961; Stein's lemma for the second):

    .. math::

        \mathbb E\max(X_1, X_2) = \mu_2 + (\mu_1 - \mu_2)\Phi(\alpha) + \theta\varphi(\alpha),\qquad
        \mathbb E[\xi\max(X_1, X_2)] = \Phi(\alpha)a_1 + \Phi(-\alpha)a_2.

    ``mu1``, ``mu2``: arrays of one shape; ``a1``, ``a2``: that shape plus the
    index axis ``M``.  At :math:`\theta = 0` the max is the larger mean.
    Returns ``(m, g)``.
    """
    mu1 = check_finite_array("mu1", mu1)
    mu2 = check_finite_array("mu2", mu2)
    a1 = check_finite_array("a1", a1)
    a2 = check_finite_array("a2", a2)
    if mu1.shape != mu2.shape:
        raise ValueError(f"mu1 and mu2 must have one shape, got {mu1.shape} and {mu2.shape}")
    if a1.shape != a2.shape or a1.shape[:-1] != mu1.shape or a1.ndim < 1 or a1.shape[-1] < 1:
        raise ValueError(f"a1 and a2 must have shape mu1.shape + (M,) = {mu1.shape} + (M,), got "
                         f"{a1.shape} and {a2.shape}")
    return _clark(mu1, mu2, a1, a2)


def _clark(mu1, mu2, a1, a2):
    d = a1 - a2
    theta = np.sqrt(np.einsum("...m,...m->...", d, d))
    dm = mu1 - mu2
    tiny = theta <= 1e-300
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        alpha = np.where(tiny, np.where(dm >= 0, np.inf, -np.inf), dm / np.where(tiny, 1.0, theta))
    P = ndtr(alpha)
    phi = np.where(np.isfinite(alpha), np.exp(-0.5 * np.minimum(alpha * alpha, 1e300)) / _SQRT_2PI,
                   0.0)
    m = mu2 + dm * P + theta * phi
    g = P[..., None] * a1 + (1.0 - P)[..., None] * a2
    return m, g


def _shift(N):
    """Index arrays ``clip(c + k − 1)`` for k = 0, 1, 2 (next column of a transition)."""
    c = np.arange(N)
    return [np.clip(c + k - 1, 0, N - 1) for k in range(3)]


def _target_sum(C_h, V_next, idx):
    r""":math:`\sum_k C_{h,c,a,k}\,V_{h+1}(c + k − 1)` for every cell and action:
    ``C_h`` ``(B, N, 2, 3)``, ``V_next`` ``(B, N)`` or ``(B, N, M)``."""
    if V_next.ndim == 2:
        out = C_h[..., 0] * V_next[:, idx[0], None]
        for k in (1, 2):
            out += C_h[..., k] * V_next[:, idx[k], None]
        return out
    out = C_h[..., 0, None] * V_next[:, idx[0], None, :]
    for k in (1, 2):
        out += C_h[..., k, None] * V_next[:, idx[k], None, :]
    return out


def rlsvi_row_posterior(n_h, T_h, *, prior_var=1.0, noise_sd=1.0, prior_mean=0.0):
    r"""Posterior of one-hot Bayesian linear regression, per pair:
    precision :math:`p = 1/s_0 + n/\sigma^2`, mean :math:`(\mu_0/s_0 + T/\sigma^2)/p`
    where ``T`` is the sum of the targets of the pair's ``n`` visits.  Returns ``(mean, var)``."""
    n_h = check_finite_array("n_h", n_h)
    T_h = check_finite_array("T_h", T_h)
    if n_h.shape != T_h.shape:
        raise ValueError(f"n_h and T_h must have one shape, got {n_h.shape} and {T_h.shape}")
    if np.any(n_h < 0):
        raise ValueError("n_h (visit counts) must be ≥ 0")
    # s0 ≥ 1e-150, σ ≥ 1e-75: a subnormal prior_var (or σ²) made 1/s0 = inf and the mean inf/inf = NaN
    s0 = check_real("prior_var", prior_var, lo=1e-150, hi=1e150)
    sig = check_real("noise_sd", noise_sd, lo=1e-75, hi=1e75)
    mu0 = check_real("prior_mean", prior_mean, lo=-1e150, hi=1e150)
    p = 1.0 / s0 + n_h / sig**2
    return (mu0 / s0 + T_h / sig**2) / p, 1.0 / p


class _TabularAgent:
    """Shared data statistics and the episode interface (``begin_episode``,
    ``act(h, col)``, ``observe(h, col, a, r, next_col)``)."""

    label = "?"

    def __init__(self, N, *, batch, rng, prior_var=1.0, noise_sd=1.0):
        self.N = check_int("N", N, lo=2, hi=1000)
        self.B = check_int("batch", batch, lo=1, hi=1_000_000)
        check_cells("the batch × N × N × 2 statistics", self.B, self.N, self.N, 6)
        self.rng = as_generator(rng)
        self.prior_var = check_real("prior_var", prior_var, lo=0.0, lo_open=True, hi=1e6)
        self.noise_sd = check_real("noise_sd", noise_sd, lo=1e-6, hi=1e6)
        shape = (self.B, self.N, self.N, 2)
        self.n = np.zeros(shape)
        self.R = np.zeros(shape)
        self.C = np.zeros(shape + (3,))
        self._b = np.arange(self.B)
        self._idx = _shift(self.N)
        self._zeros = np.zeros(shape)

    def _record(self, h, col, a, r, nxt, w=1.0):
        b = self._b
        self.n[b, h, col, a] += w
        self.R[b, h, col, a] += w * r
        self.C[b, h, col, a, nxt - col + 1] += w

    # Public per-step methods check their arguments (issue 26: a wrong-shape ``col`` was an
    # IndexError, an out-of-range ``nxt`` updated the wrong statistic) and call the unchecked
    # ``_observe``/``_act``/``_greedy`` that subclasses define; the DeepSea loop
    # (:func:`~seqproj.ensemble.deep_exploration.run_deep_sea`) calls the unchecked ones directly,
    # its arguments coming from a validated :class:`~seqproj.ensemble.deepsea.DeepSea`.

    def _index_array(self, name, value, lo, hi):
        """``value`` as a ``(batch,)`` int64 array with entries in ``[lo, hi]``."""
        v = np.asarray(value) if not isinstance(value, np.ndarray) else value
        if v.dtype.kind not in "iu" or v.shape != (self.B,):
            raise TypeError(f"{name} must be an integer array of shape (batch,) = ({self.B},), got {shown(value)}")
        if v.size and (int(v.min()) < lo or int(v.max()) > hi):
            raise ValueError(f"{name} must lie in [{lo}, {hi}], got {shown(value)}")
        return v.astype(np.int64, copy=False)

    def _check_cell(self, h, col):
        h = check_int("h", h, lo=0, hi=self.N - 1)
        return h, self._index_array("col", col, 0, self.N - 1)

    def observe(self, h, col, a, r, nxt):
        """Record the transition ``(h, col) --a, r--> (h + 1, nxt)`` of every instance: ``h`` the
        row in ``[0, N − 1]``; ``col``, ``a``, ``nxt`` integer arrays of shape ``(batch,)`` with
        ``col, nxt ∈ [0, N − 1]``, ``a ∈ {0, 1}``, ``|nxt − col| ≤ 1`` (a DeepSea move);
        ``r`` a finite ``(batch,)`` array."""
        h, col = self._check_cell(h, col)
        a = self._index_array("a", a, 0, 1)
        r = check_finite_array("r", r, ndim=1)
        if r.shape != (self.B,):
            raise ValueError(f"r must have shape (batch,) = ({self.B},), got {r.shape}")
        nxt = self._index_array("nxt", nxt, 0, self.N - 1)
        if np.any(np.abs(nxt - col) > 1):
            b = int(np.argmax(np.abs(nxt - col) > 1))
            raise ValueError(f"nxt must be col − 1, col or col + 1 (a DeepSea move), got nxt[{b}] = "
                             f"{int(nxt[b])} for col[{b}] = {int(col[b])}")
        self._observe(h, col, a, r, nxt)

    def _observe(self, h, col, a, r, nxt):
        self._record(h, col, a, r, nxt)

    def begin_episode(self):
        """Draw the episode's value estimate (each agent defines how)."""
        raise NotImplementedError(f"{type(self).__name__} must define begin_episode")

    def act(self, h, col):
        """The action (``(batch,)`` in {0, 1}) in cell ``(h, col[b])`` of every instance; ``h`` in
        ``[0, N − 1]``, ``col`` an integer ``(batch,)`` array in ``[0, N − 1]``.  Call
        ``begin_episode`` first."""
        h, col = self._check_cell(h, col)
        self._require_episode()
        return self._act(h, col)

    def _require_episode(self):
        if not hasattr(self, "Q") and not hasattr(self, "xi"):
            raise RuntimeError(f"{type(self).__name__}: call begin_episode() before act()")

    def _act(self, h, col):
        q = self.Q[self._b, h, col]                 # (B, 2)
        return (q[:, 1] > q[:, 0]).astype(np.int64)


class RLSVI(_TabularAgent):
    """Exact tabular RLSVI: one posterior sample of the whole Q table per episode
    (module docstring; Osband, Van Roy & Wen 2016, Alg. 1)."""

    label = "RLSVI (exact)"

    def begin_episode(self):
        G = self.rng.standard_normal(self.n.shape)
        self.Q = ridge_backward(self.n, self.R, self.C, self._zeros, G, self.prior_var,
                                self.noise_sd, np.empty_like(self.n))


def hyper_closed_form(n, R, C, Z, A0, *, prior_var=1.0, noise_sd=1.0):
    r"""The closed-form minimiser ``(μ, A)`` of HyperAgent's tabular loss, fitted
    backwards row by row (module docstring).  Shapes: ``n``, ``R`` ``(B, N, N, 2)``,
    ``C`` ``(B, N, N, 2, 3)``, ``Z`` and ``A0`` ``(B, N, N, 2, M)`` (``A0`` the prior
    factor :math:`\sqrt{s_0}B`)."""
    n = check_finite_array("n", n, ndim=4)
    N = n.shape[1]
    if n.shape[1:] != (N, N, 2):
        raise ValueError(f"n must have shape (B, N, N, 2), got {n.shape}")
    R = check_finite_array("R", R, ndim=4)
    C = check_finite_array("C", C, ndim=5)
    Z = check_finite_array("Z", Z, ndim=5)
    A0 = check_finite_array("A0", A0, ndim=5)
    if R.shape != n.shape or C.shape != n.shape + (3,) or A0.shape[:4] != n.shape \
            or Z.shape != A0.shape or A0.shape[-1] < 1:
        raise ValueError(f"R, C, Z, A0 must have shapes {n.shape}, {n.shape + (3,)}, and "
                         f"{n.shape} + (M,); got {R.shape}, {C.shape}, {Z.shape}, {A0.shape}")
    s0 = check_real("prior_var", prior_var, lo=0.0, lo_open=True, hi=1e6)
    sig = check_real("noise_sd", noise_sd, lo=1e-6, hi=1e6)
    return _hyper_fit(n, R, C, Z, A0, s0, sig, _shift(N))


def _hyper_fit(n, R, C, Z, A0, s0, sig, idx):
    N = n.shape[1]
    B_, M = n.shape[0], A0.shape[-1]
    mu = np.empty_like(n)
    A = np.empty_like(A0)
    m = np.zeros((B_, N))
    g = np.zeros((B_, N, M))
    for h in range(N - 1, -1, -1):
        p = 1.0 / s0 + n[:, h] / sig**2
        Tm = R[:, h] + (_target_sum(C[:, h], m, idx) if h < N - 1 else 0.0)
        Ta = A0[:, h] / s0 + Z[:, h] / sig
        if h < N - 1:
            Ta = Ta + _target_sum(C[:, h], g, idx) / sig**2
        mu[:, h] = Tm / sig**2 / p
        A[:, h] = Ta / p[..., None]
        m, g = _clark(mu[:, h, :, 0], mu[:, h, :, 1], A[:, h, :, 0], A[:, h, :, 1])
    return mu, A


class HyperAgent(_TabularAgent):
    """The linear hypermodel on one-hot features with index dimension ``M``
    (module docstring); ``update`` ∈ {"closed_form", "sgd"}.

    ``index_scale`` multiplies the acting index ξ_e: **1 is the algorithm**;
    0 makes the agent greedy with respect to μ (the mutation check)."""

    def __init__(self, N, M, *, batch, rng, prior_var=1.0, noise_sd=1.0, update="closed_form",
                 n_indices=8, sgd_steps=2, lr=0.5, index_scale=1.0):
        super().__init__(N, batch=batch, rng=rng, prior_var=prior_var, noise_sd=noise_sd)
        self.M = check_int("M", M, lo=1, hi=10_000)
        check_cells("the batch × N × N × 2 × M factors", self.B, self.N, self.N, 6 * self.M)
        self.update = check_choice("update", update, ("closed_form", "sgd"))
        self.n_indices = check_int("n_indices", n_indices, lo=1, hi=10_000)
        self.sgd_steps = check_int("sgd_steps", sgd_steps, lo=1, hi=10_000)
        self.lr = check_real("lr", lr, lo=0.0, lo_open=True, hi=1.0)
        self.index_scale = check_real("index_scale", index_scale, lo=0.0, hi=1e6)
        shape = (self.B, self.N, self.N, 2, self.M)
        self.A0 = math.sqrt(self.prior_var) * self.rng.standard_normal(shape) / math.sqrt(self.M)
        self.Z = np.zeros(shape)
        self.Pz = self.A0 / self.prior_var            # A0/s0 + Z/σ, kept incrementally
        self.mu = np.zeros(shape[:-1])
        self.A = self.A0.copy()
        self.label = f"HyperAgent[M={self.M}{', SGD' if self.update == 'sgd' else ''}]"

    def _observe(self, h, col, a, r, nxt):
        self._record(h, col, a, r, nxt)
        # a fresh perturbation z ~ N(0, I_M/M), drawn after the action was taken
        z = self.rng.standard_normal((self.B, self.M)) / math.sqrt(self.M)
        self.Z[self._b, h, col, a] += z
        self.Pz[self._b, h, col, a] += z / self.noise_sd

    def fit(self):
        r"""Update (μ, A) on all data: the closed form, or one SGD sweep — per row
        (backwards) ``sgd_steps`` steps of the gradient of the loss in the row's
        parameters, preconditioned by the curvature ``p``:
        :math:`G(\xi) = p\,Q(\xi) - Q_0(\xi)/s_0 - Y(\xi)/\sigma^2` with
        :math:`Y(\xi) = R + \sum_k C_k\max_{a'}Q_{h+1}(\cdot; \xi) + \sigma Z^\top\xi`,
        :math:`\nabla_\mu = \hat{\mathbb E} G`, :math:`\nabla_a = \hat{\mathbb E}[G\xi]`
        over ``n_indices`` Gaussian ξ and their mirrors (kernel
        :func:`~seqproj.ensemble.deep_kernels.hyper_sgd_sweep`)."""
        if self.update == "closed_form":
            hyper_backward(self.n, self.R, self.C, self.Pz, self.prior_var, self.noise_sd,
                           self.mu, self.A)
        else:
            half = self.rng.standard_normal((self.N, self.sgd_steps, self.B, self.n_indices,
                                             self.M))
            Xi = np.concatenate([half, -half], axis=3)
            hyper_sgd_sweep(self.n, self.R, self.C, self.Z, self.A0, self.prior_var,
                            self.noise_sd, self.lr, Xi, self.mu, self.A)

    def begin_episode(self):
        self.fit()
        self.xi = self.index_scale * self.rng.standard_normal((self.B, self.M))

    def _act(self, h, col):
        b = self._b
        # one forward pass at the visited cell: Q(s, ·; ξ_e) = μ_s + A_s ξ_e
        q = self.mu[b, h, col] + np.einsum("bam,bm->ba", self.A[b, h, col], self.xi)
        return (q[:, 1] > q[:, 0]).astype(np.int64)


class BootstrappedEnsemble(_TabularAgent):
    """``K`` bootstrapped tabular members with randomized priors (module docstring)."""

    def __init__(self, N, K=10, *, batch, rng, prior_var=1.0, noise_sd=1.0):
        super().__init__(N, batch=batch, rng=rng, prior_var=prior_var, noise_sd=noise_sd)
        self.K = check_int("K", K, lo=1, hi=1000)
        check_cells("the batch × K × N × N × 2 statistics", self.B, self.K, self.N, self.N, 10)
        shape = (self.B, self.K, self.N, self.N, 2)
        self.q0 = math.sqrt(self.prior_var) * self.rng.standard_normal(shape)
        self.nk = np.zeros(shape)
        self.Rk = np.zeros(shape)
        self.Ck = np.zeros(shape + (3,))
        self.label = f"bootstrap[K={self.K}]"

    def _observe(self, h, col, a, r, nxt):
        self._record(h, col, a, r, nxt)
        w = 2.0 * self.rng.integers(0, 2, size=(self.B, self.K))       # double-or-nothing
        b = self._b[:, None]
        kk = np.arange(self.K)[None, :]
        c, aa, dn = col[:, None], a[:, None], (nxt - col + 1)[:, None]
        self.nk[b, kk, h, c, aa] += w
        self.Rk[b, kk, h, c, aa] += w * r[:, None]
        self.Ck[b, kk, h, c, aa, dn] += w

    def begin_episode(self):
        k = self.rng.integers(0, self.K, size=self.B)
        b = self._b
        self.Q = ridge_backward(self.nk[b, k], self.Rk[b, k], self.Ck[b, k], self.q0[b, k],
                                self._zeros, self.prior_var, self.noise_sd, np.empty_like(self.n))

class EpsilonGreedy(_TabularAgent):
    """Certainty-equivalent (posterior-mean) values played ε-greedily; ties
    broken uniformly at random.  The negative control: its "found" indicator is
    scored on the greedy policy (ε = 0), which is generous to it."""

    evaluate_greedy = True

    def __init__(self, N, eps=0.1, *, batch, rng, prior_var=1.0, noise_sd=1.0):
        super().__init__(N, batch=batch, rng=rng, prior_var=prior_var, noise_sd=noise_sd)
        self.eps = check_real("eps", eps, lo=0.0, hi=1.0)
        self.label = f"ε-greedy[ε={self.eps:g}]"

    def begin_episode(self):
        self.Q = ridge_backward(self.n, self.R, self.C, self._zeros, self._zeros, self.prior_var,
                                self.noise_sd, np.empty_like(self.n))

    def greedy(self, h, col):
        """The greedy action (ties uniform) in cell ``(h, col[b])``; arguments as for ``act``."""
        h, col = self._check_cell(h, col)
        self._require_episode()
        return self._greedy(h, col)

    def _greedy(self, h, col):
        q = self.Q[self._b, h, col]
        tie = q[:, 1] == q[:, 0]
        a = (q[:, 1] > q[:, 0]).astype(np.int64)
        return np.where(tie, self.rng.integers(0, 2, size=self.B), a)

    def _act(self, h, col):
        a = self._greedy(h, col)
        explore = self.rng.random(self.B) < self.eps
        return np.where(explore, self.rng.integers(0, 2, size=self.B), a)


#: Agent classes of the study.
DEEP_AGENTS = (RLSVI, HyperAgent, BootstrappedEnsemble, EpsilonGreedy)
