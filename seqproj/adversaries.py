r"""Adversaries (coefficient rules) for the sequential projection protocol.

At step ``t`` an adversary picks ``x_t``.  A **predictable** adversary sees
only the past ``(x_0, z_0, …, x_{t−1}, z_{t−1})`` (``docs/theory/seqproj.md#protocol``: ``x_t`` is
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
own independent randomness), so the exact reduced simulation (theory ``#reduced``) serves it.

The rules themselves — what the kernels execute at each step — are
:func:`choose_x` (numba, one trial) and :func:`choose_x_np` (NumPy, a block of
trials), which agree bit for bit.

Theory: ``docs/theory/seqproj.md#protocol``, label DERIVED.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from numba import njit
from scipy import special

from proofs_check.engine import check_choice, check_int, check_real, shown

#: The numba kernels ``choose_x``/``exit_margins`` are internal building blocks of the simulation
#: loops (they check nothing; the validated drivers in :mod:`seqproj.simulate` call them) and stay
#: out of ``__all__`` (issue 26); ``choose_x_np`` is their NumPy reference.
__all__ = ["ADVERSARIES", "PREDICTABLE", "Adversary", "adversary", "require_predictable", "choose_x_np"]

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
    if not isinstance(name, str):
        raise TypeError(f"name (the adversary) must be one of {list(ADVERSARIES)} or an Adversary, "
                        f"got {shown(name)}")
    check_choice("adversary", name, ADVERSARIES)
    level = check_real("level", level, lo=0.0, hi=1.0, lo_open=True)
    lo = check_real("lo", lo, lo=0.0, hi=1.0, hi_open=True)
    hi = check_real("hi", hi, lo=0.0, hi=1.0, lo_open=True)
    frac = check_real("frac", frac, lo=0.0, hi=1.0)
    n_grid = check_int("n_grid", n_grid, lo=1, hi=4096)
    if name == "constant":
        return Adversary(name, 0, (level, 0.0, 0.0, 0.0), True, True, False,
                         f"constant design x_t = {level:g}·√c_x")
    if name == "random":
        return Adversary(name, 1, (lo, 0.0, 0.0, 0.0), True, True, True,
                         f"x_t = √c_x·U({lo:g}, 1), independent of the columns")
    if name == "stopping":
        return Adversary(name, 2, (level, 0.0, 0.0, 0.0), True, True, False,
                         f"x_t = {level:g}·√c_x until the first exit from the band, then 0")
    if name == "magnitude":
        return Adversary(name, 3, (hi, lo, frac, 0.0), True, True, False,
                         f"x_t = {hi:g}·√c_x when |ratio − 1| ≥ {frac:g}·ε, else {lo:g}·√c_x")
    if name == "pushing":
        return Adversary(name, 4, (float(n_grid), 0.0, 0.0, 0.0), True, True, False,
                         f"x_t on a {n_grid}-point grid maximising P(exit | ‖S‖², V)")
    if name == "coordinate":
        return Adversary(name, 5, (lo, 0.0, 0.0, 0.0), True, False, False,
                         f"x_t = √c_x if S_(t−1)[0] > 0 else {lo:g}·√c_x (reads a coordinate)")
    return Adversary(name, -1, (0.0, 0.0, 0.0, 0.0), False, False, False,
                     "look-ahead: x_(1:T) in the null space of (z_1 … z_T); NOT predictable "
                     "(negative control)")


def require_predictable(adv, argname: str = "adversary") -> Adversary:
    """``adv`` as an :class:`Adversary`; ``ValueError`` if it is not predictable."""
    if not isinstance(argname, str):
        raise TypeError(f"argname must be a string, got {shown(argname)}")
    if isinstance(adv, str):
        check_choice(argname, adv, ADVERSARIES)
    a = adversary(adv) if isinstance(adv, str) else adv
    if not isinstance(a, Adversary):
        raise TypeError(f"{argname} (adv) must be an adversary name or Adversary, got {shown(adv)}")
    if not a.predictable:
        raise ValueError(f"{argname}={a.name!r} is not predictable (it sees future columns: a negative "
                         f"control); a predictable adversary is required here, one of {list(PREDICTABLE)}")
    return a


# --------------------------------------------------------------------------
# the rules as the kernels execute them (numba: one trial; NumPy: a block)
# --------------------------------------------------------------------------
#
# Arguments: rule ``code`` and ``prm`` (:meth:`Adversary.params_array`), the past
# ``s2 = ‖S_{t−1}‖²`` and ``v = V_{t−1}``, the adversary's own uniform ``u``, ε, M,
# ``sqcx = √c_x``, ``exited`` (the band was left at some s ≤ t−1) and ``coord``
# (the first coordinate of ``S_{t−1}``).  Nothing of ``z_t`` is an argument: the
# rules are predictable by construction.

@njit(cache=True, nogil=True)
def exit_margins(s2, v, x, r, eps, M):
    """The pushing rule's normal approximation: playing ``x`` from ``(‖S‖² = s2 = r², V = v)``,
    ``‖S_t‖² ≈ s2 + x² + 2x r g/√M`` with ``g ~ N(0, 1)``; returns the margins to the upper
    and lower band edges in units of ``√2 ×`` the step's standard deviation, so that
    ``P(exit) ≈ ½ erfc(up) + ½ erfc(down)``.  Scalars in numba; arrays through ``.py_func``."""
    w = v + x * x
    a = (1.0 + eps) * w - s2 - x * x
    b = (1.0 - eps) * w - s2 - x * x
    scale = math.sqrt(M / 2.0) / (2.0 * x * r)
    return a * scale, -b * scale


@njit(cache=True, nogil=True)
def choose_x(code, prm, s2, v, u, eps, M, sqcx, exited, coord):
    """``x_t`` of rule ``code`` from the past only (one trial)."""
    if code == 0:
        return prm[0] * sqcx
    if code == 1:
        return sqcx * (prm[0] + (1.0 - prm[0]) * u)
    if code == 2:
        if exited:
            return 0.0
        return prm[0] * sqcx
    if code == 3:
        if abs(s2 / v - 1.0) >= prm[2] * eps:
            return prm[0] * sqcx
        return prm[1] * sqcx
    if code == 4:
        n = int(prm[0])
        r = math.sqrt(s2)
        if r == 0.0:
            return sqcx
        best = -1.0
        bx = sqcx
        for k in range(1, n + 1):
            x = (k * sqcx) / n
            up, down = exit_margins(s2, v, x, r, eps, M)
            p = 0.5 * math.erfc(up) + 0.5 * math.erfc(down)
            if p > best:
                best = p
                bx = x
        return bx
    if code == 5:
        if coord > 0.0:
            return sqcx
        return prm[0] * sqcx
    return math.nan


def choose_x_np(code, prm, s2, v, u, eps, M, sqcx, exited, coord):
    """``x_t`` of rule ``code`` for a block of trials (arrays ``s2``, ``v``, ``u``, ``exited``, ``coord``)."""
    n = s2.shape[0]
    if code == 0:
        return np.full(n, prm[0] * sqcx)
    if code == 1:
        return sqcx * (prm[0] + (1.0 - prm[0]) * u)
    if code == 2:
        return np.where(exited, 0.0, prm[0] * sqcx)
    if code == 3:
        return np.where(np.abs(s2 / v - 1.0) >= prm[2] * eps, prm[0] * sqcx, prm[1] * sqcx)
    if code == 4:
        ng = int(prm[0])
        r = np.sqrt(s2)
        best = np.full(n, -1.0)
        bx = np.full(n, sqcx)
        with np.errstate(divide="ignore", invalid="ignore"):
            for k in range(1, ng + 1):
                x = (k * sqcx) / ng
                up, down = exit_margins.py_func(s2, v, x, r, eps, M)
                p = 0.5 * special.erfc(up) + 0.5 * special.erfc(down)
                better = p > best
                best = np.where(better, p, best)
                bx = np.where(better, x, bx)
        return np.where(r == 0.0, sqcx, bx)
    if code == 5:
        return np.where(coord > 0.0, sqcx, prm[0] * sqcx)
    raise ValueError(f"adversary code {code} has no kernel rule")
