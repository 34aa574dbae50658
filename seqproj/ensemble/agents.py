r"""Agent specifications for linear bandits (state lives in the simulator, :mod:`.bandits`).

All agents share the Gaussian posterior N(μ_t, Σ_t) with prior N(0, s₀ I)
(:class:`AgentSpec`: the keywords ``prior_var``/``noise_sd`` default to the environment's θ*
variance and σ):

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

from dataclasses import dataclass, field
from typing import ClassVar

from proofs_check.engine import check_int, check_real
from ._limits import check_choice

from ._limits import MAX_M
from .index_families import INDEX_FAMILIES, PERTURBATION_FAMILIES

__all__ = ["AgentSpec", "ExactTS", "EnsemblePP", "EnsembleSampling", "LinUCB", "Greedy", "AGENTS"]


@dataclass(frozen=True)
class AgentSpec:
    """What every agent shares: the prior ``N(0, prior_var·I)`` and the noise σ = ``noise_sd`` of
    its Gaussian model, keyword-only; ``None`` (the default) takes the environment's θ* variance
    and σ, a value must be a positive real.  ``label`` names the agent in results."""

    prior_var: float | None = field(default=None, kw_only=True)
    noise_sd: float | None = field(default=None, kw_only=True)

    #: The label of an agent whose label does not depend on its fields.
    LABEL: ClassVar[str] = ""

    def __post_init__(self):
        for name in ("prior_var", "noise_sd"):
            if getattr(self, name) is not None:
                check_real(name, getattr(self, name), lo=0.0, lo_open=True, hi=1e150)

    @property
    def label(self) -> str:
        return self.LABEL


@dataclass(frozen=True)
class ExactTS(AgentSpec):
    """Exact Thompson sampling with a maintained Cholesky factor of the precision."""

    LABEL: ClassVar[str] = "TS"


@dataclass(frozen=True)
class EnsemblePP(AgentSpec):
    """Linear Ensemble++ with ensemble size ``M`` and the given families."""

    M: int
    index: str = "gaussian"
    perturbation: str = "gaussian"
    init: str = "random"
    s: int = 2

    def __post_init__(self):
        check_int("M", self.M, lo=1, hi=MAX_M)
        check_choice("index", self.index, INDEX_FAMILIES)
        check_choice("perturbation", self.perturbation, PERTURBATION_FAMILIES)
        check_choice("init", self.init, ("random", "haar"))
        check_int("s", self.s, lo=1, hi=MAX_M)
        super().__post_init__()

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
class LinUCB(AgentSpec):
    r"""Score :math:`x^\top\mu_t + \beta_t\sqrt{x^\top\Sigma_tx}` with
    :math:`\beta_t = \sqrt{2\log(1/\delta) + \log\det(\Sigma_0\Sigma_t^{-1})} + r_0`,
    Abbasi-Yadkori et al. (2011) Thm 2 in posterior units; :math:`r_0` bounds
    :math:`\|\theta^*-\mu_0\|/\sqrt{s_0}` (default √d, its typical size under the
    prior: an OPEN choice).  A fixed ``beta`` overrides the radius."""

    delta: float = 0.01
    beta: float | None = None
    prior_radius: float | None = None

    LABEL: ClassVar[str] = "LinUCB"

    def __post_init__(self):
        check_real("delta", self.delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        if self.beta is not None:
            check_real("beta", self.beta, lo=0.0)
        if self.prior_radius is not None:
            check_real("prior_radius", self.prior_radius, lo=0.0)
        super().__post_init__()


@dataclass(frozen=True)
class Greedy(AgentSpec):
    """Plays the posterior mean (no exploration)."""

    LABEL: ClassVar[str] = "Greedy"


#: The agent classes :func:`~seqproj.ensemble.run_bandit` accepts.
AGENTS = (ExactTS, EnsemblePP, LinUCB, Greedy)
