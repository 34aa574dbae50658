r"""Column families for sequential random projection, normalised so that ``E‖z‖² = 1``.

Every family is generated from one block of ``M`` i.i.d. standard normals
``g`` per column by a deterministic map — :func:`columns_from_normals` in
NumPy, :func:`fill_column` in numba (used by the full kernel of
:mod:`seqproj.kernels`), bit for bit the same — so both consume the same
random stream:

==============  ===================================  ========  =====  ==================
family          ``z`` from ``g``                     unit norm  c_0    assumptions
==============  ===================================  ========  =====  ==================
``sphere``      ``g / ‖g‖``                          yes        1      yes
``gaussian``    ``g / √M``                           no         1      relaxed
``rademacher``  ``sign(g) / √M``                     yes        1      yes
``onehot``      ``sign(g_i) e_i``, i = argmax |g|    yes        ≈ M    no (flagged)
``sparse``      ``sign(g_j)/√s`` on the s largest |g|  yes      ≥ 1    only if c_0 ≤ c0_max
==============  ===================================  ========  =====  ==================

The argmax / top-s sets of i.i.d. continuous draws are uniform and independent
of the signs, so these maps give exactly the intended laws.

``c_0`` is the conditional sub-Gaussian factor: ``E exp(λ⟨u, z⟩) ≤
exp(λ² c_0 ‖u‖²/(2M))``.  For sparse and one-hot columns it is computed at
the coordinate direction ``u = e_1`` (DERIVED; for these families a
coordinate is the worst direction):
``c_0 = sup_λ 2M log(1 − s/M + (s/M) cosh(λ/√s)) / λ²``.

See Li, "Probability Tools for Sequential Random Projection" (arXiv 2402.14026);
``docs/theory/seqproj.md#columns`` (DERIVED).
"""
from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass

import numpy as np
from numba import njit
from scipy import optimize

from proofs_check.engine import (as_generator, check_choice, check_finite_array,
                                          check_instance, check_int, check_real, shown)

from .limits import M_MAX, MEM_MAX, N_MAX

#: ``fill_column`` (numba, checks nothing) is an internal building block of :mod:`seqproj.kernels`
#: and stays out of ``__all__`` (issue 26); ``columns_from_normals`` is its NumPy reference.
__all__ = ["FAMILIES", "FAMILY_CODES", "ColumnFamily", "column_family", "columns_from_normals",
           "sample_columns", "sparse_c0"]

FAMILIES = ("sphere", "gaussian", "rademacher", "onehot", "sparse")
FAMILY_CODES = {name: k for k, name in enumerate(FAMILIES)}


@functools.lru_cache(maxsize=256)
def sparse_c0(s: int, M: int) -> float:
    """Sub-Gaussian factor ``c_0`` of ``s``-sparse signed columns in ``R^M`` (coordinate direction).

    ``sup_λ 2M log(1 − p + p cosh(λ/√s)) / λ²`` with ``p = s/M``; equals 1 for
    ``s = M`` (Rademacher) and grows as ``s`` shrinks (≈ M/log M for one-hot).
    """
    s = check_int("s", s, lo=1)
    M = check_int("M", M, lo=1, hi=M_MAX)
    if s > M:
        raise ValueError(f"s must lie in [1, M={M}], got {s}")
    p = s / M

    def neg(loglam):
        lam = math.exp(loglam)
        x = lam / math.sqrt(s)
        # log cosh(x) computed stably
        lc = abs(x) + math.log1p(math.exp(-2 * abs(x))) - math.log(2.0)
        val = math.log(p) + lc
        inner = np.logaddexp(math.log1p(-p) if p < 1 else -np.inf, val)
        return -(2.0 * M * inner / (lam * lam))

    grid = np.linspace(-6.0, 8.0, 141)
    vals = [neg(g) for g in grid]
    k = int(np.argmin(vals))
    lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
    res = optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded",
                                   options={"xatol": 1e-10})
    return float(max(1.0, -min(res.fun, vals[k])))


@dataclass(frozen=True)
class ColumnFamily:
    """A column family at dimension ``M`` and whether it meets the theorem's assumptions.

    ``assumptions`` is ``"yes"`` (unit norm and ``c_0 ≤ c0_max``), ``"relaxed"``
    (Gaussian: covered only by the non-unit-norm corollary (theory ``#nonunit``), with larger
    constants) or ``"no"`` (outside; results are flagged).
    """

    name: str
    M: int
    s: int
    unit_norm: bool
    c0: float
    assumptions: str

    @property
    def code(self) -> int:
        return FAMILY_CODES[self.name]

    @property
    def satisfies_assumptions(self) -> bool:
        """True when the sequential JL theorem (or its non-unit-norm relaxation) covers the family."""
        return self.assumptions != "no"

    @property
    def reduced_ok(self) -> bool:
        """True when the exact reduced simulation (theory ``#reduced``) can serve the family."""
        return self.name in ("sphere", "gaussian")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["satisfies_assumptions"] = self.satisfies_assumptions
        return d


def column_family(name: str, M: int, *, s: int | None = None, c0_max: float = 1.5) -> ColumnFamily:
    """Describe family ``name`` at dimension ``M``.

    ``s`` is the number of nonzeros of ``"sparse"`` columns (default ``max(1, M // 8)``);
    ``c0_max`` is the largest ``c_0`` counted as inside the assumptions.
    """
    if not isinstance(name, str):
        raise TypeError(f"name (the column family) must be one of {list(FAMILIES)}, got {shown(name)}")
    check_choice("columns", name, FAMILIES)
    M = check_int("M", M, lo=1, hi=M_MAX)
    c0_max = check_real("c0_max", c0_max, lo=1.0)
    if name == "sparse":
        s = max(1, M // 8) if s is None else check_int("s", s, lo=1, hi=M)
    elif s is not None:
        raise ValueError(f"s is only used by the 'sparse' family, got s={s!r} for columns={name!r}")
    if name == "sphere":
        return ColumnFamily(name, M, M, True, 1.0, "yes")
    if name == "rademacher":
        return ColumnFamily(name, M, M, True, 1.0, "yes")
    if name == "gaussian":
        return ColumnFamily(name, M, M, False, 1.0, "relaxed")
    if name == "onehot":
        c0 = sparse_c0(1, M)
        return ColumnFamily(name, M, 1, True, c0, "yes" if c0 <= c0_max else "no")
    c0 = sparse_c0(s, M)
    return ColumnFamily(name, M, s, True, c0, "yes" if c0 <= c0_max else "no")


def columns_from_normals(g: np.ndarray, family: ColumnFamily) -> np.ndarray:
    """Map standard normals ``g`` (shape ``(..., M)``) to columns of ``family``.

    Sums run sequentially over the last axis (``np.cumsum``) so that the result
    is bit-identical to the numba kernel's loops.
    """
    check_instance("family", family, ColumnFamily)
    g = check_finite_array("g", g)
    if g.ndim == 0:
        raise ValueError(f"g must have at least one dimension (..., M), got a scalar {shown(g)}")
    M = g.shape[-1]
    if M != family.M:
        raise ValueError(f"g has last dimension {M}, family has M={family.M}")
    name = family.name
    if name == "sphere":
        nrm = np.sqrt(np.cumsum(g * g, axis=-1)[..., -1:])
        return g / nrm
    if name == "gaussian":
        return g / math.sqrt(M)
    if name == "rademacher":
        return np.where(g >= 0.0, 1.0, -1.0) / math.sqrt(M)
    a = np.abs(g)
    s = family.s
    kth = np.partition(a, M - s, axis=-1)[..., M - s:M - s + 1]
    return np.where(a >= kth, np.where(g >= 0.0, 1.0, -1.0) / math.sqrt(s), 0.0)


@njit(cache=True, nogil=True)
def fill_column(g, fam, s, sqM, z):
    """numba twin of :func:`columns_from_normals` for one column: ``z`` ← the column of
    family code ``fam`` (:data:`FAMILY_CODES`, ``s`` nonzeros for sparse/one-hot) from ``g``."""
    M = g.shape[0]
    if fam == 0:
        acc = 0.0
        for j in range(M):
            acc += g[j] * g[j]
        nrm = math.sqrt(acc)
        for j in range(M):
            z[j] = g[j] / nrm
    elif fam == 1:
        for j in range(M):
            z[j] = g[j] / sqM
    elif fam == 2:
        for j in range(M):
            z[j] = (1.0 if g[j] >= 0.0 else -1.0) / sqM
    else:
        a = np.abs(g)
        thr = np.partition(a, M - s)[M - s]
        sqs = math.sqrt(s)
        for j in range(M):
            if a[j] >= thr:
                z[j] = (1.0 if g[j] >= 0.0 else -1.0) / sqs
            else:
                z[j] = 0.0


def sample_columns(columns: str, M: int, size: int, rng, *, s: int | None = None) -> np.ndarray:
    """``size`` i.i.d. columns of family ``columns`` in ``R^M``: array ``(size, M)``."""
    fam = column_family(columns, M, s=s)
    size = check_int("size", size, lo=0, hi=N_MAX)
    check_memory(f"size={size} columns of dimension M={fam.M}", size * fam.M, "size and M")
    rng = as_generator(rng)
    return columns_from_normals(rng.standard_normal((size, fam.M)), fam)


def check_memory(what: str, n_doubles: int, names: str) -> None:
    """``ValueError`` naming ``names`` when an array of ``n_doubles`` doubles exceeds
    :data:`seqproj.limits.MEM_MAX`."""
    if 8 * n_doubles > MEM_MAX:
        raise ValueError(f"{names} too large: {what} needs {8 * n_doubles / 2 ** 30:.3g} GiB, "
                         f"more than the {MEM_MAX / 2 ** 30:g} GiB limit of one array")
