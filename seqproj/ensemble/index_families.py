r"""Index (reference) and perturbation distributions of linear Ensemble++.

An Ensemble++ sample is :math:`\tilde\theta = \mu + A\zeta` with an *index*
:math:`\zeta\in\mathbb R^M` normalised by :math:`\mathbb E[\zeta\zeta^\top] = I_M`;
each update adds a *perturbation* :math:`z\in\mathbb R^M` normalised by
:math:`\mathbb E[zz^\top] = I_M/M` (so :math:`\mathbb E\|z\|^2 = 1`).

=================  ==============================  ===============================
family             index ζ                         perturbation z
=================  ==============================  ===============================
``gaussian``       N(0, I_M)                       N(0, I_M/M)
``sphere``         √M · Unif(S^{M−1})              Unif(S^{M−1})
``cube``           Unif{±1}^M                      Unif{±1}^M / √M
``signed_coord``   ±√M e_i                         ±e_i
``one_hot``        √M e_i (classic ensemble        — (no perturbation law; classic
                   sampling: pick one member)      ensemble sampling uses Gaussian)
``sparse``         s coordinates, ±1, ·√(M/s)      same support law, ·1/√s
=================  ==============================  ===============================

See "Scalable Exploration via Ensemble++" (arXiv 2407.13195, key ``ensemblepp``)
and the authors' code; theory ``ensemble.md#families`` (CONFIRMED from code).  The second
moments are exact (DERIVED): e.g. for ``sparse`` a coordinate is in the
support with probability s/M and then has square M/s (index) or 1/s
(perturbation); distinct coordinates have independent signs.

The ``sparse`` family uses ``s = min(s, M)`` nonzeros (``s = 2`` by default);
with ``M < s`` it coincides with ``cube``.
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import as_generator, check_int
from ._limits import check_choice

from ._limits import MAX_D, MAX_M, MAX_N, check_cells

__all__ = ["INDEX_FAMILIES", "PERTURBATION_FAMILIES", "sample_index", "sample_perturbation",
           "sample_rows"]

#: Families accepted for the index ζ.
INDEX_FAMILIES = ("gaussian", "sphere", "cube", "signed_coord", "one_hot", "sparse")
#: Families accepted for the perturbation z (one-hot has none: theory ``ensemble.md#families``).
PERTURBATION_FAMILIES = ("gaussian", "sphere", "cube", "signed_coord", "sparse")


def _unit_law(family: str, M: int, n: int, rng: np.random.Generator, s: int) -> np.ndarray:
    """``n`` draws with ``E[zz^T] = I_M/M`` (the perturbation normalisation)."""
    if family == "gaussian":
        return rng.standard_normal((n, M)) / np.sqrt(M)
    if family == "sphere":
        g = rng.standard_normal((n, M))
        norms = np.linalg.norm(g, axis=1, keepdims=True)
        # A zero Gaussian vector has probability 0; guard anyway.
        norms[norms == 0.0] = 1.0
        return g / norms
    if family == "cube":
        return (2.0 * rng.integers(0, 2, size=(n, M)) - 1.0) / np.sqrt(M)
    if family in ("signed_coord", "one_hot"):
        out = np.zeros((n, M))
        idx = rng.integers(0, M, size=n)
        sign = 1.0 if family == "one_hot" else (2.0 * rng.integers(0, 2, size=n) - 1.0)
        out[np.arange(n), idx] = sign
        return out
    if family == "sparse":
        s_eff = min(s, M)
        out = np.zeros((n, M))
        # s distinct coordinates per row: the first s of a random permutation.
        keys = rng.random((n, M))
        support = np.argpartition(keys, s_eff - 1, axis=1)[:, :s_eff] if s_eff < M else \
            np.broadcast_to(np.arange(M), (n, M))
        signs = 2.0 * rng.integers(0, 2, size=(n, s_eff)) - 1.0
        np.put_along_axis(out, support, signs / np.sqrt(s_eff), axis=1)
        return out
    raise AssertionError(family)  # pragma: no cover - validated by callers


def _check_draw(M, rng, size, s):
    """Validated ``(M, s, generator, number of draws)``; sizes bounded before allocating."""
    M = check_int("M", M, lo=1, hi=MAX_M)
    s = check_int("s", s, lo=1, hi=MAX_M)
    rng = as_generator(rng)
    n = 1 if size is None else check_int("size", size, lo=0, hi=MAX_N)
    check_cells("size × M draws", n, M)
    return M, s, rng, n


def sample_index(family: str, M: int, rng, size: int | None = None, *, s: int = 2) -> np.ndarray:
    r"""Draw index vectors ζ with :math:`\mathbb E[\zeta\zeta^\top] = I_M`.

    Parameters
    ----------
    family : one of :data:`INDEX_FAMILIES`.
    M : ensemble size (``M ≥ 1``), the dimension of ζ.
    rng : Generator, SeedSequence or int seed.
    size : number of draws; ``None`` returns one vector of shape ``(M,)``,
        otherwise an array ``(size, M)``.
    s : nonzeros of the ``sparse`` family (keyword-only, default 2).
    """
    check_choice("family", family, INDEX_FAMILIES)
    M, s, rng, n = _check_draw(M, rng, size, s)
    out = np.sqrt(M) * _unit_law(family, M, n, rng, s)
    return out[0] if size is None else out


def sample_perturbation(family: str, M: int, rng, size: int | None = None, *, s: int = 2) -> np.ndarray:
    r"""Draw perturbations z with :math:`\mathbb E[zz^\top] = I_M/M`.

    Same arguments as :func:`sample_index`; ``family`` is one of
    :data:`PERTURBATION_FAMILIES` (``one_hot`` has no perturbation law —
    classic ensemble sampling pairs a one-hot index with ``gaussian``).
    """
    if family == "one_hot":
        raise ValueError("perturbation family 'one_hot' is not defined (theory ensemble.md#families: "
                         "classic ensemble sampling uses a one-hot index with Gaussian "
                         f"perturbations); choose one of {sorted(PERTURBATION_FAMILIES)}")
    check_choice("family", family, PERTURBATION_FAMILIES)
    M, s, rng, n = _check_draw(M, rng, size, s)
    out = _unit_law(family, M, n, rng, s)
    return out[0] if size is None else out


def sample_rows(family: str, d: int, M: int, rng, *, s: int = 2) -> np.ndarray:
    r"""A ``d × M`` matrix B whose rows follow the perturbation law, so
    :math:`\mathbb E[BB^\top] = I_d` (the random start of theory ``ensemble.md#update``)."""
    d = check_int("d", d, lo=1, hi=MAX_D)
    return sample_perturbation(family, M, rng, size=d, s=s)
