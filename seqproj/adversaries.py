r"""Adversaries (coefficient rules) for the sequential projection protocol.

At step ``t`` an adversary picks ``x_t``.  A **predictable** adversary sees
only the past ``(x_0, z_0, …, x_{t−1}, z_{t−1})`` (spec §1: ``x_t`` is
``F_{t−1}``-measurable), never ``z_t`` or later columns.  All rules below
respect ``x_t² ≤ c_x``.

==================  ====  ===========================================================  ========
name                code  rule                                                         reduced
==================  ====  ===========================================================  ========
``constant``        0     ``x_t = level·√c_x`` (constant design)                         yes
``random``          1     ``x_t = √c_x (lo + (1−lo) U_t)``, ``U_t`` uniform, independent   yes
                          of the columns
``stopping``        2     ``x_t = level·√c_x`` until the ratio first leaves the band,       yes
                          then ``x_t = 0`` forever (check B)
``magnitude``       3     ``x_t = hi·√c_x`` if ``|‖S‖²/V − 1| ≥ frac·ε``, else ``lo·√c_x``    yes
``pushing``         4     ``x_t`` on the grid ``k√c_x/n_grid`` maximising the (normal-      yes
                          approximation) conditional probability of leaving the band
                          given ``(‖S_{t−1}‖², V_{t−1})``
``coordinate``      5     ``x_t = √c_x`` if the first coordinate of ``S_{t−1}`` is > 0,   no
                          else ``lo·√c_x`` (reads a coordinate of ``S``: full only)
``lookahead``       —     sees every column and picks ``x_{1:T}`` in the null space of   no
                          ``(z_1 … z_T)`` (check C).  **Not predictable: a negative
                          control**, refused wherever a predictable adversary is required.
==================  ====  ===========================================================  ========

"reduced" = depends on the past only through ``(‖S_s‖², V_s)_{s<t}`` (and its
own independent randomness), so the exact reduced simulation (§7) serves it.

Spec ``seqproj.md`` §6 (adversaries to provide), label DERIVED.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from proofs_check.engine.validate import check_choice, check_int, check_real

__all__ = ["ADVERSARIES", "PREDICTABLE", "Adversary", "adversary", "require_predictable"]

ADVERSARIES = ("constant", "random", "stopping", "magnitude", "pushing", "coordinate", "lookahead")
#: The predictable adversaries (every one but the look-ahead negative control).
PREDICTABLE = ADVERSARIES[:-1]

_CODES = {"constant": 0, "random": 1, "stopping": 2, "magnitude": 3, "pushing": 4, "coordinate": 5,
          "lookahead": -1}


@dataclass(frozen=True)
class Adversary:
    """A coefficient rule.  ``params`` (4 floats) are read by the simulation kernels.

    Fields: ``name``, ``code`` (kernel dispatch), ``params``, ``predictable``,
    ``reduced_ok`` (depends only on ``(‖S_s‖², V_s)``), ``needs_uniforms``
    (draws its own independent uniforms), ``description``.
    """

    name: str
    code: int
    params: tuple
    predictable: bool
    reduced_ok: bool
    needs_uniforms: bool
    description: str

    def params_array(self) -> np.ndarray:
        return np.asarray(self.params, dtype=np.float64)

    def to_dict(self) -> dict:
        return asdict(self)


def adversary(name: str = "constant", *, level: float = 1.0, lo: float = 0.1, hi: float = 1.0,
              frac: float = 0.5, n_grid: int = 16) -> Adversary:
    """Build adversary ``name`` (see the module table for the rules).

    Keyword parameters (each used by some rules): ``level`` ∈ (0, 1] (constant,
    stopping), ``lo`` ∈ [0, 1) (random, magnitude, coordinate), ``hi`` ∈ (0, 1]
    (magnitude), ``frac`` ∈ [0, 1] (magnitude: how close to an edge counts as
    "near"), ``n_grid`` ≥ 1 (pushing).  Magnitudes are in units of ``√c_x``.
    """
    if isinstance(name, Adversary):
        return name
    check_choice("adversary", name, ADVERSARIES)
    level = check_real("level", level, lo=0.0, hi=1.0, lo_open=True)
    lo = check_real("lo", lo, lo=0.0, hi=1.0, hi_open=True)
    hi = check_real("hi", hi, lo=0.0, hi=1.0, lo_open=True)
    frac = check_real("frac", frac, lo=0.0, hi=1.0)
    n_grid = check_int("n_grid", n_grid, lo=1, hi=4096)
    if name == "constant":
        return Adversary(name, 0, (level, 0.0, 0.0, 0.0), True, True, False,
                         f"constant design x_t = {level:g}·sqrt(cx)")
    if name == "random":
        return Adversary(name, 1, (lo, 0.0, 0.0, 0.0), True, True, True,
                         f"x_t = sqrt(cx)·U({lo:g}, 1), independent of the columns")
    if name == "stopping":
        return Adversary(name, 2, (level, 0.0, 0.0, 0.0), True, True, False,
                         f"x_t = {level:g}·sqrt(cx) until the first exit from the band, then 0")
    if name == "magnitude":
        return Adversary(name, 3, (hi, lo, frac, 0.0), True, True, False,
                         f"x_t = {hi:g}·sqrt(cx) when |ratio-1| >= {frac:g}·eps, else {lo:g}·sqrt(cx)")
    if name == "pushing":
        return Adversary(name, 4, (float(n_grid), 0.0, 0.0, 0.0), True, True, False,
                         f"x_t on a {n_grid}-point grid maximising P(exit | ||S||^2, V)")
    if name == "coordinate":
        return Adversary(name, 5, (lo, 0.0, 0.0, 0.0), True, False, False,
                         f"x_t = sqrt(cx) if S_(t-1)[0] > 0 else {lo:g}·sqrt(cx) (reads a coordinate)")
    return Adversary(name, -1, (0.0, 0.0, 0.0, 0.0), False, False, False,
                     "look-ahead: x_(1:T) in the null space of (z_1..z_T); NOT predictable "
                     "(negative control)")


def require_predictable(adv, argname: str = "adversary") -> Adversary:
    """``adv`` as an :class:`Adversary`; ``ValueError`` if it is not predictable."""
    a = adversary(adv) if isinstance(adv, str) else adv
    if not isinstance(a, Adversary):
        raise TypeError(f"{argname} must be an adversary name or Adversary, got {type(adv).__name__}")
    if not a.predictable:
        raise ValueError(f"{argname}={a.name!r} is not predictable (it sees future columns: a negative "
                         f"control); a predictable adversary is required here, one of {list(PREDICTABLE)}")
    return a
