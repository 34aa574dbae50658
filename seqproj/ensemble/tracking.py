r"""Tracking error: how far :math:`A_tA_t^\top` is from :math:`\Sigma_t` (theory ``ensemble.md#tracking``).

The tracking error of a factor is
:math:`\|\Sigma^{-1/2}AA^\top\Sigma^{-1/2} - I\|_{op}`; under adaptive play its
supremum over :math:`t \le T` is what the sequential Johnson–Lindenstrauss
argument bounds (form DERIVED: about :math:`2\sqrt{d/M}` for Gaussian
families at a random start; constants OPEN).

* :func:`tracking_error` — the error of one ``(Σ, A)``;
* :func:`sup_tracking_error` — its supremum along one adaptive run, with the
  failure-mode switches of theory ``ensemble.md#failure-modes``;
* :func:`sup_error_trials` — replicates over a grid of M, d or T, in the
  engine's chunk signature ``f(rng, n, *, ...)``; :func:`tracking_experiment` makes
  it an experiment.  The ``ensemble.tracking.*`` claims reduce the experiments of
  :mod:`.experiments` (:func:`sup_errors`, :func:`haar_minus_random`) that the
  tracking figures plot.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from proofs_check.engine import single_threaded_blas
from proofs_check.engine import Experiment
from proofs_check.engine import (as_generator, check_bool, check_finite_array,
                                          check_instance, check_int, shown)
from ._limits import check_choice

from ._limits import (MAX_D, MAX_K, MAX_M, MAX_N, MAX_T, check_cells, check_int_sequence,
                      check_mapping)

from .index_families import sample_perturbation
from .posterior_factor import LinearEnsemblePP
from .whitening import check_pair, whitened_eigs

__all__ = ["tracking_error", "sup_tracking_error", "sup_error_trials", "tracking_experiment",
           "sup_errors", "haar_minus_random"]


def tracking_error(Sigma, A) -> float:
    r""":math:`\|\Sigma^{-1/2}AA^\top\Sigma^{-1/2} - I\|_{op}` (theory ``ensemble.md#tracking``),
    computed as :math:`\|L^{-1}AA^\top L^{-\top} - I\|` with :math:`LL^\top = \Sigma` (a
    similar matrix; same eigenvalues).  ``Sigma`` must be a symmetric positive-definite
    ``d × d`` array (else ``ValueError``), ``A`` a finite ``d × M`` array."""
    Sigma, A = check_pair(Sigma, A)
    _, ev = whitened_eigs(Sigma, A)
    return float(max(abs(ev[0] - 1.0), abs(ev[-1] - 1.0)))


def sup_tracking_error(d, M, T, rng, *, K=100, index="gaussian", perturbation="gaussian",
                       init="random", prior_var=1.0, noise_sd=1.0, play="agent",
                       reuse_z=False, perturbation_scale=1.0, every=1):
    r"""``sup_{t ≤ T} ‖Σ_t^{-1/2} A_t A_tᵀ Σ_t^{-1/2} − I‖_op`` along one run (t = 0 included).

    Set-up of the reference runs (theory ``ensemble.md#tracking``): K arms uniform on the unit
    sphere (fixed), θ* ~ N(0, prior_var·I), σ = ``noise_sd``, and actions
    chosen adaptively by the Ensemble++ agent itself (``play="agent"``:
    :math:`x_t = \arg\max_x x^\top(\mu_{t-1} + A_{t-1}\zeta_t)`, predictable).

    Failure-mode switches (theory ``ensemble.md#failure-modes``): ``play="lookahead"`` draws
    :math:`z_t` *before* choosing :math:`x_t` and picks the arm maximising
    :math:`x^\top P_{t-1}z_t` (:math:`P = \Sigma^{-1}A`), breaking
    predictability; ``reuse_z=True`` reuses the first perturbation for every
    update; ``perturbation_scale`` rescales z and B (√M = "N(0, I) instead of
    N(0, I/M)").  ``every`` evaluates the error every ``every`` rounds (1 =
    exact sup).  Returns a float.
    """
    d = check_int("d", d, lo=1, hi=MAX_D)
    M = check_int("M", M, lo=1, hi=MAX_M)
    T = check_int("T", T, lo=0, hi=MAX_T)
    K = check_int("K", K, lo=1, hi=MAX_K)
    check_cells("the d × M factor", d, M)
    check_cells("the K × d arms", K, d)
    every = check_int("every", every, lo=1, hi=MAX_T)
    check_choice("play", play, ("agent", "lookahead"))
    reuse_z = check_bool("reuse_z", reuse_z)
    rng = as_generator(rng)
    with single_threaded_blas():
        return _sup_tracking_error(d, M, T, rng, K, index, perturbation, init, prior_var, noise_sd,
                                   play, reuse_z, perturbation_scale, every)


def _sup_tracking_error(d, M, T, rng, K, index, perturbation, init, prior_var, noise_sd, play,
                        reuse_z, perturbation_scale, every):
    ens = LinearEnsemblePP(d, M, prior_var=prior_var, noise_sd=noise_sd, index=index,
                           perturbation=perturbation, init=init, rng=rng,
                           perturbation_scale=perturbation_scale)
    arms = rng.standard_normal((K, d))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    theta = math.sqrt(prior_var) * rng.standard_normal(d)
    sup = tracking_error(ens.cov, ens.factor)
    z_fixed = None
    for t in range(1, T + 1):
        z = None
        if play == "lookahead":
            z = sample_perturbation(perturbation, M, rng)
            P = np.linalg.solve(ens.cov, ens.factor)
            x = arms[int(np.argmax(arms @ (P @ z)))]
        else:
            x = arms[int(np.argmax(arms @ ens.sample(rng)))]
        if reuse_z:
            if z_fixed is None:
                z_fixed = sample_perturbation(perturbation, M, rng)
            z = z_fixed
            ens._seen_z.clear()  # deliberate misuse for the failure-mode demonstration
        y = float(x @ theta) + noise_sd * float(rng.standard_normal())
        ens.update(x, y, z=z)
        if t % every == 0 or t == T:
            sup = max(sup, tracking_error(ens.cov, ens.factor))
    return sup



# ---------------------------------------------------------------------------
# the tracking experiments: read by the ensemble.tracking.* claims and the figures
# ---------------------------------------------------------------------------

_SIZE_LIMITS = {"M": MAX_M, "T": MAX_T, "d": MAX_D}
_FIXED_KEYS = {"d", "M", "T", "M_per_d", "K", "index", "perturbation", "prior_var", "noise_sd", "play",
               "reuse_z", "perturbation_scale", "every"}


def _check_design(vary, grid, fixed, starts):
    """Validated ``(vary, grid, fixed, starts)`` of the tracking experiments."""
    check_choice("vary", vary, ("M", "T", "d"))
    grid = check_int_sequence("grid", grid, lo=0 if vary == "T" else 1, hi=_SIZE_LIMITS[vary],
                              max_len=1000)
    check_instance("fixed", fixed, dict)
    unknown = sorted(set(map(str, fixed)) - _FIXED_KEYS)
    if unknown:
        raise ValueError(f"fixed has unknown entries {unknown}; allowed: {sorted(_FIXED_KEYS)}")
    need = {"T", "M_per_d"} if vary == "d" else ({"d", "M", "T"} - {vary})
    missing = sorted(need - set(fixed))
    if missing:
        raise ValueError(f"fixed lacks {missing} (vary={vary!r})")
    if vary == "d":
        check_int("fixed['M_per_d']", fixed["M_per_d"], lo=1, hi=MAX_M)
        if max(grid) * int(fixed["M_per_d"]) > MAX_M:
            raise ValueError(f"fixed['M_per_d'] × max(grid) must be at most {MAX_M}")
    if isinstance(starts, str) or not hasattr(starts, "__iter__"):
        raise TypeError(f"starts must be a sequence of 'random'/'haar', got {shown(starts)}")
    starts = tuple(starts)
    if not starts:
        raise ValueError("starts must not be empty")
    for start in starts:
        check_choice("starts", start, ("random", "haar"))
    return vary, grid, dict(fixed), starts


def sup_error_trials(rng, n, *, vary: str, grid, fixed, starts=("random",)) -> dict:
    """``n`` independent replicates of :func:`sup_tracking_error` over a grid.

    Per replicate one seed is drawn from ``rng``; every grid value and every start
    in ``starts`` (``"random"``, ``"haar"``) runs with that seed (common random
    numbers for the arms, θ* and the indices).  ``vary`` names the grid's variable:
    ``"M"``, ``"T"`` or ``"d"`` (then ``M = fixed["M_per_d"]·d``); ``fixed`` holds
    the other arguments of :func:`sup_tracking_error`.  Returns one statistic per
    start, shape ``(n, len(grid))``.
    """
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=MAX_N)
    vary, grid, fixed, starts = _check_design(vary, grid, fixed, starts)
    check_cells("n × len(grid) × len(starts) statistics", n, len(grid), len(starts))
    out = {start: np.empty((n, len(grid))) for start in starts}
    for r in range(n):
        seed = int(rng.integers(0, 2**63))
        for j, v in enumerate(grid):
            kw = dict(fixed)
            if vary == "d":
                kw["d"] = int(v)
                kw["M"] = int(fixed["M_per_d"] * v)
            else:
                kw[vary] = int(v)
            kw.pop("M_per_d", None)
            d, M, T = kw.pop("d"), kw.pop("M"), kw.pop("T")
            for start in starts:
                out[start][r, j] = sup_tracking_error(d, M, T, np.random.default_rng(seed),
                                                      init=start, **kw)
    return out


def tracking_experiment(vary: str, grid, fixed, *, starts=("random",), name: str | None = None,
                        chunk_size: int = 1) -> Experiment:
    """:func:`sup_error_trials` as an experiment, id ``ensemble.tracking.vs_<vary>`` (or
    ``ensemble.tracking.<name>``)."""
    vary, grid, fixed, starts = _check_design(vary, grid, fixed, starts)
    if name is not None:
        check_instance("name", name, str)
        if not name or not name.replace("_", "").replace(".", "").isalnum():
            raise ValueError(f"name must be a non-empty identifier, got {shown(name)}")
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=MAX_N)
    return Experiment(id=f"ensemble.tracking.{name or 'vs_' + vary}",
                      fn=functools.partial(sup_error_trials, vary=vary, grid=grid, fixed=fixed,
                                           starts=starts),
                      chunk_size=chunk_size,
                      params={"vary": vary, vary: list(grid), **fixed, "starts": list(starts)})


def sup_errors(stats, *, start: str = "random") -> np.ndarray:
    """The ``(n, len(grid))`` sup errors of one start (a claim's ``reduce``)."""
    check_choice("start", start, ("random", "haar"))
    stats = check_mapping("stats", stats, (start,))
    return check_finite_array(f"stats[{start!r}]", stats[start], ndim=2)


def haar_minus_random(stats, *, column: int) -> np.ndarray:
    """Per replicate sup error (Haar start) − sup error (random start) at grid ``column``
    (paired: the same seed for both starts)."""
    stats = check_mapping("stats", stats, ("haar", "random"))
    haar = check_finite_array("stats['haar']", stats["haar"], ndim=2)
    rand = check_finite_array("stats['random']", stats["random"], ndim=2)
    if haar.shape != rand.shape:
        raise ValueError(f"stats['haar'] and stats['random'] must have one shape, got {haar.shape} "
                         f"and {rand.shape}")
    column = check_int("column", column, lo=-haar.shape[1], hi=haar.shape[1] - 1)
    with np.errstate(over="ignore"):
        out = haar[:, column] - rand[:, column]
    if not np.all(np.isfinite(out)):
        raise ValueError("stats entries are too large: their difference overflows float64")
    return out
