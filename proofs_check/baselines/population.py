r"""The exact population model: every response of a small policy, enumerated.

For a tabular or linear-softmax policy over ``V**T`` responses ``y`` with an
outcome reward ``R(y)`` (so the reward-to-go is ``G_t = R``):

* :class:`ExactModel` / :func:`exact_model` — sequence probabilities ``P``,
  per-token scores ``s_t(y) = ∇_θ log π(y_t|c_t)`` (structured for tabular
  policies, dense for linear-softmax), the logit-gradient proxy
  ``w_t = 1 − 2π(y_t|c_t) + Σ_v π(v|c_t)²`` and the true energy ``‖s_t‖²``;
* :func:`population_baselines` — the per-position constant baselines
  ``b_t`` of each kind in :data:`POPULATION_KINDS`;
* :func:`population_variances` — ``E‖ĝ − g‖²`` of
  ``ĝ = Σ_t s_t (R − b_t)`` for each, exactly (all unbiased: variance = MSE);
* :func:`compare_population_baselines` — both in one call;
* :func:`population_variance_trials` — a chunk function: exact variances on
  random instances over a range of horizons.

A 50-digit mpmath version from explicit score vectors lives beside it in
:mod:`.population_mp`.  Theory page ``docs/theory/baselines.md#population-variance``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from proofs_check.engine import check_finite_array, check_instance, check_int, check_real

from ._args import choice as _choice
from ._args import MAX_SEQ, chunk_args, enum_size, int_list
from proofs_check.policies import LinearSoftmaxPolicy, TabularPolicy, check_reward, sequence_log_probs

__all__ = ["ExactModel", "exact_model", "population_baselines", "population_variances",
           "PopulationComparison", "compare_population_baselines", "POPULATION_KINDS",
           "population_variance_trials"]

#: The per-position constant baselines of :func:`population_baselines`.
POPULATION_KINDS = ("none", "mean", "global_bstar", "otb", "per_token")


@dataclass(frozen=True, eq=False)
class ExactModel:
    """Everything needed for exact moments of score-function estimators.

    ``P`` (n,) sequence probabilities; ``R`` (n,) outcome rewards (``G_t = R``);
    ``tokens`` (n, T); ``proxy`` (n, T) the logit-gradient proxy
    ``1 − 2π(y_t|c_t) + Σ_v π(v|c_t)²``; ``energy`` (n, T) the true
    ``‖s_t(y)‖²``; ``self_gram`` (n, T, T) ``⟨s_t(y), s_u(y)⟩``; ``scores``
    (n, T, d) dense scores (linear-softmax) or ``None`` (tabular: structured).
    """

    kind: str
    V: int
    T: int
    P: np.ndarray
    R: np.ndarray
    tokens: np.ndarray
    proxy: np.ndarray
    energy: np.ndarray
    self_gram: np.ndarray
    scores: np.ndarray | None
    row_probs: tuple  # per depth (V**t, V) probabilities

    @property
    def n_seq(self) -> int:
        return self.P.size

    def prefix_index(self, t: int) -> np.ndarray:
        """Row of the depth-``t`` prefix ``(y_1..y_t)`` for every sequence (``0 ≤ t ≤ T``)."""
        t = check_int("t", t, lo=0, hi=self.T)
        return np.arange(self.n_seq) // self.V ** (self.T - t)

    def mean_gradient(self, a: np.ndarray) -> np.ndarray | list:
        """``E[Σ_t s_t a_t(y)]`` — dense vector (linear) or list of per-depth ``(V**t, V)`` tables
        (``a``: finite per-sequence, per-position weights of shape ``(V**T, T)``)."""
        a = check_finite_array("a", a, ndim=2)
        if a.shape != (self.n_seq, self.T):
            raise ValueError(f"a must have shape (V**T, T) = ({self.n_seq}, {self.T}), got {a.shape}")
        w = self.P[:, None] * a
        if self.scores is not None:
            return np.einsum("nt,ntd->d", w, self.scores)
        out = []
        for t in range(self.T):
            c = w[:, t].reshape(self.V ** t, self.V, -1).sum(axis=2)  # (rows, next token)
            out.append(c - self.row_probs[t] * c.sum(axis=1, keepdims=True))
        return out

    def sq_norm(self, g) -> float:
        """``‖g‖²`` of a mean-gradient object (a vector, or a list of per-depth tables)."""
        if isinstance(g, list):
            return float(sum(np.sum(x * x) for x in (check_finite_array(f"g[{i}]", v) for i, v in enumerate(g))))
        g = check_finite_array("g", g, ndim=1)
        return float(g @ g)

    def inner_with(self, g) -> np.ndarray:
        """``h[y, t] = ⟨s_t(y), g⟩`` for a mean-gradient object ``g`` (the shape
        :meth:`mean_gradient` returns)."""
        if self.scores is not None:
            g = check_finite_array("g", g, ndim=1)
            if g.shape != self.scores.shape[-1:]:
                raise ValueError(f"g must have shape {self.scores.shape[-1:]} (the parameter dimension), got {g.shape}")
            return self.scores @ g
        if not isinstance(g, (list, tuple)) or len(g) != self.T:
            raise TypeError(f"g must be a list of T = {self.T} per-depth tables (as mean_gradient returns), "
                            f"got {type(g).__name__}")
        g = [check_finite_array(f"g[{t}]", gt, ndim=2) for t, gt in enumerate(g)]
        for t, gt in enumerate(g):
            if gt.shape != (self.V ** t, self.V):
                raise ValueError(f"g[{t}] must have shape (V**t, V) = ({self.V ** t}, {self.V}), got {gt.shape}")
        h = np.empty((self.n_seq, self.T))
        for t in range(self.T):
            rows = self.prefix_index(t)
            tok = self.tokens[:, t]
            gt = g[t]
            p = self.row_probs[t][rows]
            h[:, t] = gt[rows, tok] - np.sum(p * gt[rows], axis=1)
        return h

    def gram(self) -> np.ndarray:
        """Full Gram tensor ``K[y, t, y', u] = ⟨s_t(y), s_u(y')⟩`` (small models only)."""
        n, T = self.n_seq, self.T
        if self.scores is not None:
            S = self.scores.reshape(n * T, -1)
            return (S @ S.T).reshape(n, T, n, T)
        K = np.zeros((n, T, n, T))
        for t in range(T):
            rows = self.prefix_index(t)
            tok = self.tokens[:, t]
            p = self.row_probs[t][rows]  # (n, V)
            s2 = np.sum(p * p, axis=1)
            same = rows[:, None] == rows[None, :]
            pa = p[np.arange(n), tok]
            pab = p[np.arange(n)[:, None], tok[None, :]]  # p at row of y, token of y'
            val = (tok[:, None] == tok[None, :]) - pa[:, None] - pab + s2[:, None]
            K[:, t, :, t] = np.where(same, val, 0.0)
        return K


def exact_model(policy, reward, *, max_seq: int = 1 << 16) -> ExactModel:
    """Enumerate every response of a :class:`~proofs_check.policies.TabularPolicy` or
    :class:`~proofs_check.policies.LinearSoftmaxPolicy` with outcome reward ``R``.

    For a tabular policy (its own logits per prefix) scores of different
    positions live on disjoint coordinates: ``self_gram`` is diagonal and the
    proxy equals the true energy (``baselines.md#proxy``, CONFIRMED).  For a linear-softmax
    policy ``s_t = φ(c_t, y_t) − E_π φ(c_t, ·)`` (dense, shared θ).
    """
    if isinstance(policy, LinearSoftmaxPolicy):
        tab = policy.tabular()
        kind = "linear"
    elif isinstance(policy, TabularPolicy):
        tab = policy
        kind = "tabular"
    else:
        raise TypeError(f"policy must be a TabularPolicy or LinearSoftmaxPolicy, got {type(policy).__name__}")
    max_seq = check_int("max_seq", max_seq, lo=1, hi=MAX_SEQ * 16)
    V, T = tab.V, tab.T
    n = V ** T
    if n > max_seq:
        raise ValueError(f"V**T = {n} sequences exceeds max_seq = {max_seq}; use a smaller horizon")
    R = check_reward(reward, V, T)
    P = np.exp(sequence_log_probs(tab))
    idx = np.arange(n)
    tokens = np.stack([(idx // V ** (T - 1 - t)) % V for t in range(T)], axis=1)
    row_probs = tuple(tab.probs(t) for t in range(T))
    proxy = np.empty((n, T))
    for t in range(T):
        rows = idx // V ** (T - t)
        p = row_probs[t][rows]
        pa = p[idx, tokens[:, t]]
        proxy[:, t] = (1.0 - pa) ** 2 + np.sum(p * p, axis=1) - pa * pa
    if kind == "tabular":
        scores = None
        energy = proxy.copy()
        self_gram = np.zeros((n, T, T))
        self_gram[:, np.arange(T), np.arange(T)] = energy
    else:
        tables = policy.score_tables()
        scores = np.empty((n, T, policy.d))
        for t in range(T):
            rows = idx // V ** (T - t)
            scores[:, t] = tables[t][rows, tokens[:, t]]
        self_gram = np.einsum("ntd,nud->ntu", scores, scores)
        energy = np.einsum("ntt->nt", self_gram).copy()
    return ExactModel(kind=kind, V=V, T=T, P=P, R=R, tokens=tokens, proxy=proxy, energy=energy,
                      self_gram=self_gram, scores=scores, row_probs=row_probs)


def population_baselines(model: ExactModel, *, weights: str = "proxy") -> dict:
    r"""Per-position constant baselines ``b_t`` (arrays of shape ``(T,)``) for each kind.

    * ``none``: 0;  ``mean``: ``E R``;
    * ``global_bstar``: ``E[‖S‖² R] / E‖S‖²``, ``S = Σ_t s_t`` (CONFIRMED);
    * ``otb``: ``B_t = E[G_t W_t] / E W_t``, ``W_t = Σ_{j≤t} w_j`` with ``w`` the
      logit proxy (``weights="proxy"``) or the true ``‖s_j‖²`` (``"true"``)
      (CONFIRMED form);
    * ``per_token``: ``b_k = E⟨s_k, Σ_t s_t G_t⟩ / E‖s_k‖²``, the minimiser of the
      variance over per-position constants (DERIVED; in the
      tabular case ``E[‖s_k‖² G_k] / E‖s_k‖²``).
    """
    check_instance("model", model, ExactModel)
    _choice("weights", weights, ("proxy", "true"))
    P, R, T = model.P, model.R, model.T
    w = model.proxy if weights == "proxy" else model.energy
    W = np.cumsum(w, axis=1)
    S2 = model.self_gram.sum(axis=(1, 2))  # ‖Σ_t s_t‖²
    out = {
        "none": np.zeros(T),
        "mean": np.full(T, P @ R),
        "global_bstar": np.full(T, (P @ (S2 * R)) / (P @ S2)),
        "otb": (P @ (W * R[:, None])) / (P @ W),
        # Σ_t ⟨s_k, s_t⟩ G_t with G_t = R for every t
        "per_token": (P @ (model.self_gram.sum(axis=2) * R[:, None])) / (P @ model.energy),
    }
    return out


def population_variances(model: ExactModel, baselines: dict | None = None) -> dict:
    """Exact ``E‖ĝ − g‖²`` (trace of the covariance) of ``ĝ = Σ_t s_t (R − b_t)``
    for each per-position constant baseline; all are unbiased, so this is also the MSE."""
    check_instance("model", model, ExactModel)
    if baselines is None:
        baselines = population_baselines(model)
    check_instance("baselines", baselines, dict)
    baselines = {k: np.broadcast_to(check_finite_array(f"baselines[{k!r}]", b), (model.T,))
                 if np.ndim(b) == 0 or np.shape(b) == (model.T,) else _bad_baseline(k, b, model.T)
                 for k, b in baselines.items()}
    g = model.mean_gradient(np.repeat(model.R[:, None], model.T, axis=1))
    g2 = model.sq_norm(g)
    out = {}
    for name, b in baselines.items():
        a = model.R[:, None] - np.asarray(b, dtype=float)[None, :]
        second = float(model.P @ np.einsum("nt,ntu,nu->n", a, model.self_gram, a))
        out[name] = second - g2
    return out


def _bad_baseline(key, b, T):
    raise ValueError(f"baselines[{key!r}] must be a scalar or have shape ({T},), got shape {np.shape(b)}")


@dataclass(frozen=True)
class PopulationComparison:
    """Exact population variances per baseline, and ``‖g‖``."""

    variances: dict
    baselines: dict
    grad_norm: float
    V: int
    T: int
    kind: str

    def to_dict(self) -> dict:
        d = asdict(self)
        d["baselines"] = {k: np.asarray(v).tolist() for k, v in self.baselines.items()}
        return d


def compare_population_baselines(policy, reward, *, weights: str = "proxy") -> PopulationComparison:
    """:func:`population_baselines` and :func:`population_variances` in one call."""
    model = exact_model(policy, reward)
    b = population_baselines(model, weights=weights)
    v = population_variances(model, b)
    g = model.mean_gradient(np.repeat(model.R[:, None], model.T, axis=1))
    return PopulationComparison(variances=v, baselines=b, grad_norm=float(np.sqrt(model.sq_norm(g))),
                                V=model.V, T=model.T, kind=model.kind)


# ---------------------------------------------------------------------------
# an experiment on random tabular instances (chunk function)
# ---------------------------------------------------------------------------

def population_variance_trials(rng, n, *, V: int, Ts, reward_prob: float, scale: float) -> dict:
    """``n`` trials; trial ``i`` draws, for each horizon ``T`` of ``Ts`` in turn, a random tabular
    policy (logit scale ``scale``) with a sparse outcome reward ``R(y) ∼ Bernoulli(reward_prob)`` (at
    least one rewarded response) and returns the exact population variance of every kind in
    :data:`POPULATION_KINDS`: ``{kind: (n, len(Ts))}``."""
    rng, n = chunk_args(rng, n, hi=10_000)
    V = check_int("V", V, lo=2, hi=64)
    Ts = int_list("Ts", Ts, lo=1, hi=64)
    for T in Ts:
        enum_size(V, T, max_seq=4096)
    reward_prob = check_real("reward_prob", reward_prob, lo=0.0, hi=1.0)
    scale = check_real("scale", scale, lo=0.0, hi=1e6)
    out = {kind: np.empty((n, len(Ts))) for kind in POPULATION_KINDS}
    for i in range(n):
        for j, T in enumerate(Ts):
            pol = TabularPolicy.random(V, T, rng, scale=scale)
            R = (rng.random(V ** T) < reward_prob).astype(float)
            if R.sum() == 0:
                R[rng.integers(V ** T)] = 1.0
            m = exact_model(pol, R)
            v = population_variances(m, population_baselines(m))
            for kind in POPULATION_KINDS:
                out[kind][i, j] = v[kind]
    return out
