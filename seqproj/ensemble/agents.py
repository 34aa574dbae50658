r"""Agent specifications for linear bandits (state lives in the simulator, :mod:`.bandits`).

All agents share the Gaussian posterior N(μ_t, Σ_t) with prior N(0, s₀ I)
(``prior_var``/``noise_sd`` default to the environment's θ* variance and σ):

* :class:`ExactTS` — Thompson sampling, exact sample :math:`\mu_t + L_t^{-\top}g`
  with :math:`L_tL_t^\top = \Sigma_t^{-1}` the Cholesky factor of the precision
  kept by rank-one updates (:mod:`.cholesky_update`, O(d²) per round);
* :class:`EnsemblePP` — linear Ensemble++ (:class:`~seqproj.ensemble.LinearEnsemblePP`),
  any index / perturbation family; :func:`EnsembleSampling` = one-hot index +
  Gaussian perturbations (Lu & Van Roy 2017, key ``ensemble-sampling``);
* :class:`LinUCB` — optimism with the self-normalised radius of Abbasi-Yadkori,
  Pál, Szepesvári (2011), Thm 2, written in posterior units (DERIVED);
* :class:`Greedy` — plays the posterior mean.
"""
from __future__ import annotations

from dataclasses import dataclass

from proofs_check.engine.validate import check_int, check_real
from ._limits import check_choice

from ._limits import MAX_M
from .index_families import INDEX_FAMILIES, PERTURBATION_FAMILIES


def _check_prior(agent) -> None:
    """``prior_var``/``noise_sd``: ``None`` (the environment's) or a positive real."""
    for name in ("prior_var", "noise_sd"):
        if getattr(agent, name) is not None:
            check_real(name, getattr(agent, name), lo=0.0, lo_open=True, hi=1e150)

__all__ = ["ExactTS", "EnsemblePP", "EnsembleSampling", "LinUCB", "Greedy", "AGENTS"]


@dataclass(frozen=True)
class ExactTS:
    """Exact Thompson sampling with a maintained Cholesky factor of the precision."""

    prior_var: float | None = None
    noise_sd: float | None = None

    def __post_init__(self):
        _check_prior(self)

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
        check_int("M", self.M, lo=1, hi=MAX_M)
        check_choice("index", self.index, INDEX_FAMILIES)
        check_choice("perturbation", self.perturbation, PERTURBATION_FAMILIES)
        check_choice("init", self.init, ("random", "haar"))
        check_int("s", self.s, lo=1, hi=MAX_M)
        _check_prior(self)

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
        if self.prior_radius is not None:
            check_real("prior_radius", self.prior_radius, lo=0.0)
        _check_prior(self)

    @property
    def label(self) -> str:
        return "LinUCB"


@dataclass(frozen=True)
class Greedy:
    """Plays the posterior mean (no exploration)."""

    prior_var: float | None = None
    noise_sd: float | None = None

    def __post_init__(self):
        _check_prior(self)

    @property
    def label(self) -> str:
        return "Greedy"


#: The agent classes :func:`~seqproj.ensemble.run_bandit` accepts.
AGENTS = (ExactTS, EnsemblePP, LinUCB, Greedy)
