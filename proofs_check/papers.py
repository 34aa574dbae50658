"""The papers the claims cite: one registry, keyed by a short name.

A claim's structured source (:class:`proofs_check.engine.Source`) names a key
of :data:`PAPERS` (or several) and *where* in the paper the statement is
("Thm 2", "eq. (12)", "§3"), plus the section of this repository's theory
page that restates it (``docs/theory/<topic>.md``).  ``theorycheck list
--paper KEY`` selects the claims that cite a paper; ``tests/test_sources.py``
checks that every key and every theory anchor resolves.

A source that is the team's own derivation cites no paper: it points to the
theory page only, where the derivation is written out.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Paper", "PAPERS", "paper"]


@dataclass(frozen=True)
class Paper:
    """A cited work: ``url`` is where a reader finds it (arXiv abstract page,
    proceedings page or the authors' post)."""

    key: str
    title: str
    authors: str
    year: int
    url: str
    arxiv: str | None = None
    venue: str = ""

    def cite(self) -> str:
        """``Authors (year), "Title", venue/arXiv``."""
        where = f"arXiv {self.arxiv}" if self.arxiv else self.venue
        return f"{self.authors} ({self.year}), “{self.title}”" + (f", {where}" if where else "")


def _arxiv(key, title, authors, year, arxiv, venue=""):
    return Paper(key, title, authors, year, f"https://arxiv.org/abs/{arxiv}", arxiv, venue)


PAPERS: dict[str, Paper] = {p.key: p for p in (
    _arxiv("seqjl", "Probability Tools for Sequential Random Projection", "Li", 2024, "2402.14026"),
    _arxiv("ensemblepp", "Scalable Exploration via Ensemble++", "Li, Xu, Wang, Luo",
           2024, "2407.13195", "NeurIPS 2025"),
    _arxiv("hyperagent", "Q-Star Meets Scalable Posterior Sampling: Bridging Theory and Practice via "
           "HyperAgent", "Li, Xu, Han, Luo", 2024, "2402.10228", "ICML 2024"),
    Paper("hyperdqn", "HyperDQN: A Randomized Exploration Method for Deep Reinforcement Learning",
          "Z. Li, Y. Li, Y. Zhang, T. Zhang, Z.-Q. Luo", 2022, "https://openreview.net/forum?id=X0nrKAXu7g-",
          None, "ICLR 2022"),
    _arxiv("rlsvi", "Generalization and Exploration via Randomized Value Functions",
           "I. Osband, B. Van Roy, Z. Wen", 2016, "1402.0635", "ICML 2016"),
    _arxiv("bootstrapped-dqn", "Deep Exploration via Bootstrapped DQN",
           "I. Osband, C. Blundell, A. Pritzel, B. Van Roy", 2016, "1602.04621", "NeurIPS 2016"),
    _arxiv("bsuite", "Behaviour Suite for Reinforcement Learning",
           "I. Osband et al.", 2020, "1908.03568", "ICLR 2020"),
    Paper("ensemble-sampling", "Ensemble Sampling", "X. Lu, B. Van Roy", 2017,
          "https://arxiv.org/abs/1705.07347", "1705.07347", "NeurIPS 2017"),
    Paper("dasgupta-gupta", "An elementary proof of a theorem of Johnson and Lindenstrauss",
          "S. Dasgupta, A. Gupta", 2003, "https://doi.org/10.1002/rsa.10073", None,
          "Random Structures & Algorithms 22(1)"),
    _arxiv("howard2021", "Time-uniform, nonparametric, nonasymptotic confidence sequences",
           "S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon", 2021, "1810.08240",
           "Annals of Statistics 49(2)"),
    Paper("speed-kills", "When Speed Kills Stability: Demystifying RL Collapse from the "
          "Training-Inference Mismatch", "J. Liu, Y. Li, Y. Fu, J. Wang, Q. Liu, Y. Shen", 2025,
          "https://yingru.notion.site/When-Speed-Kills-Stability-Demystifying-RL-Collapse-from-the-"
          "Training-Inference-Mismatch-271211a558b7808d8b12d403fd15edda", None, "blog series, parts 1–3"),
    _arxiv("trm", "Trust Region Masking for Long-Horizon LLM Reinforcement Learning",
           "Li, Liu, Xu, Tong, Li, Wang", 2025, "2512.23075", "ICML 2026"),
    _arxiv("beyond-precision", "Beyond Precision: Training-Inference Mismatch is an Optimization "
           "Problem and Simple LR Scheduling Fixes It",
           "Y. Zhang, Y. Li, J. Liu, J. Xu, Z. Li, Q. Liu, H. Li", 2026, "2602.01826"),
    _arxiv("otb", "The Optimal Token Baseline: Variance Reduction for Long-Horizon LLM-RL",
           "Y. Li, J. Xu, Z. Li, J. Liu, W. Liu, Y. Tong, L. Zheng, Z. Xue, Y. Zhang, T. Cai, G. Zhang, "
           "Q. Liu, B. Wang", 2026, "2602.07078", "ICML 2026"),
    _arxiv("logit-dynamics", "Logit Dynamics in Softmax Policy Gradient Methods", "Y. Li", 2025,
           "2506.12912"),
    Paper("dapo-div", "Divergence-Augmented Policy Optimization", "Q. Wang, Y. Li, J. Xiong, T. Zhang",
          2019, "https://papers.nips.cc/paper/8842-divergence-augmented-policy-optimization", None,
          "NeurIPS 2019"),
    Paper("verl", "veRL: Volcano Engine Reinforcement Learning for LLMs (source code)",
          "ByteDance Seed team", 2025, "https://github.com/volcengine/verl", None, "software"),
    _arxiv("betting", "Estimating means of bounded random variables by betting",
           "I. Waudby-Smith, A. Ramdas", 2024, "2010.09686", "JRSS-B 86(1)"),
)}


def paper(key: str) -> Paper:
    """The paper with this key; ``ValueError`` listing the keys if unknown."""
    try:
        return PAPERS[key]
    except KeyError:
        raise ValueError(f"unknown paper key {key!r}; known: {', '.join(sorted(PAPERS))}") from None
