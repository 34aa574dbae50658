"""Identity claims: ``lhs(θ) = rhs(θ)`` to a tolerance (``docs/theory/engine.md`` §1–2).

* user function: ``fn(rng, n) -> (lhs, rhs)`` arrays over ``n`` random cases
  (``(lhs, rhs, scale)`` with ``tol_mode="scale"``; ``(lhs, rhs[, terms])``
  with ``tol_mode="terms"``); optional ``fn_mp(rng, n)``, the same cases in
  mpmath (high precision); optional ``proof()``, a symbolic proof;
* chunk statistics: ``[cases, max_abs, max_scaled, violations, unchecked,
  confirmed, artefacts, mp_nonfinite, max_scaled_mp]`` (:func:`identity_chunk`);
* decision (:meth:`IdentityClaim.decide`): a float64 disagreement beyond
  ``tol`` is *not* a refutation by itself — cancellation makes true
  identities disagree in float64 (``cosh²x − sinh²x`` at ``x = 20``).
  Refuted (guarantee ``"exact"``) only when the same case disagrees beyond
  ``tol`` at 50 digits *and* the disagreement is reproduced at 100 digits
  (:func:`_stable`): a residual at the rounding level of the evaluation — the
  relative error of two zeros, ``sin²x + cos²x − 1`` against ``0``, is 1 at
  every precision — shrinks with the precision and is an artefact, never a
  counterexample (issue 31, N2).  A claim with a certifier (SymPy sides on a
  box) tries it before a refutation is returned (:meth:`IdentityClaim.finish`):
  a proof on the whole box outranks evaluated cases.  Without a high-precision twin, a tolerance mode the
  claim *chose* (:data:`DECLARED_MODES`: ``"scale"``, ``"absolute"``,
  ``"relative"``, ``"mixed"``) is its declaration that ``tol`` in that mode
  bounds the rounding error; an error beyond it is then a real discrepancy
  (for sums: Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd
  ed. 2002, §4.2, ``|fl(Σxᵢ) − Σxᵢ| ≤ (m−1)u Σ|xᵢ| + O(u²)``), so it is
  refuted with guarantee ``"search"`` and a "float64 only" warning — as good
  as the declaration.  The default ``"terms"`` declares nothing (a value
  that cancels is its own "term"): inconclusive, warned "float64 only: give
  lhs_mp/rhs_mp".  A non-finite value (float64
  or high precision) is never an artefact: inconclusive unless another case
  is confirmed.  Else holds (guarantee ``"exact"`` with a successful proof,
  else ``"search"``), or inconclusive when the proof fails although every
  case agreed.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, ClassVar

import numpy as np

from ..claims import Claim
from ..results import Result, fmt, summary_number
from ..search import MP_LOCK

__all__ = ["IdentityClaim", "IdentityResult", "identity_stats", "identity_chunk", "scaled_errors"]

TOL_MODES = ("terms", "absolute", "relative", "mixed", "scale")

#: Modes a claim chooses, declaring that ``tol`` in that mode bounds the rounding error (a float64-only
#: refutation is decisive there, guarantee "search", warned); the default ``"terms"`` is not one.
DECLARED_MODES = ("scale", "absolute", "relative", "mixed")

#: Digits of the high-precision confirmation (as for inequalities, :func:`..search.confirm_mp`).
MP_DPS = 50


def _sides_terms(side):
    """``(values, magnitudes)`` of one side: a 1-D array of values, or a 2-D
    ``(n, m)`` array of terms summed along the last axis (``math.fsum``,
    correctly rounded), the magnitude being the largest ``|term|``."""
    arr = np.asarray(side, dtype=float)
    if arr.ndim <= 1:
        arr = arr.ravel()
        return arr, np.abs(arr)
    if arr.ndim != 2:
        raise ValueError(f"identity evaluator returned a side of shape {arr.shape}; give (n,) values "
                         f"or (n, m) terms")
    with np.errstate(invalid="ignore"):
        vals = np.array([math.fsum(row) if np.all(np.isfinite(row)) else float(np.sum(row)) for row in arr])
        return vals, np.max(np.abs(arr), axis=1, initial=0.0)


def _unpack(tol_mode, out):
    """``(lhs, rhs, scale-or-None)`` from what ``fn(rng, n)`` returned (``tol_mode`` decides
    what a third element means: the declared scale, or the terms' magnitude)."""
    if tol_mode == "scale":
        if not (isinstance(out, tuple) and len(out) == 3):
            raise ValueError("identity evaluator with tol_mode='scale' must return (lhs, rhs, scale)")
        return out
    if tol_mode == "terms" and isinstance(out, tuple) and len(out) == 3:
        return out
    if not (isinstance(out, tuple) and len(out) == 2):
        raise ValueError(f"identity evaluator with tol_mode={tol_mode!r} must return (lhs, rhs)"
                         + (" or (lhs, rhs, terms_magnitude)" if tol_mode == "terms" else ""))
    return out[0], out[1], None


def scaled_errors(tol_mode, out):
    """``(err, scaled)`` per case, float64: ``err = |lhs − rhs|`` and the error the
    tolerance is compared with (``inf`` where a value is not finite)."""
    lhs, rhs, third = _unpack(tol_mode, out)
    lhs, lmag = _sides_terms(lhs)
    rhs, rmag = _sides_terms(rhs)
    if lhs.shape != rhs.shape:
        raise ValueError(f"identity evaluator returned lhs {lhs.shape} and rhs {rhs.shape}")
    finite = np.isfinite(lhs) & np.isfinite(rhs)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(finite, np.abs(lhs - rhs), math.inf)
        mag = np.maximum(np.abs(lhs), np.abs(rhs))
        if tol_mode == "absolute":
            scaled = err
        elif tol_mode == "relative":
            scaled = err / np.maximum(mag, np.finfo(float).tiny)
        elif tol_mode == "scale":
            scale = np.broadcast_to(np.asarray(third, dtype=float).ravel(), lhs.shape)
            if not np.all(np.isfinite(scale) & (scale > 0)):
                raise ValueError("identity evaluator returned a scale that is not finite and > 0")
            scaled = err / scale
        elif tol_mode == "terms":
            terms = np.maximum(lmag, rmag)
            if third is not None:
                terms = np.maximum(terms, np.abs(np.broadcast_to(np.asarray(third, dtype=float).ravel(),
                                                                 lhs.shape)))
            scaled = err / np.maximum(np.maximum(mag, terms), np.finfo(float).tiny)
        else:  # mixed
            scaled = err / np.maximum(1.0, mag)
        scaled = np.where(finite & np.isfinite(scaled), scaled, math.inf)
    return err, scaled


def identity_stats(tol_mode, tol, out, n):
    """The chunk statistics of :func:`identity_chunk` from float64 output alone
    (no high-precision check: every violation is ``unchecked``)."""
    err, scaled = scaled_errors(tol_mode, out)
    violations = int((~(scaled <= tol)).sum())
    return [int(err.size), float(err.max(initial=0.0)), float(scaled.max(initial=0.0)), violations,
            violations, 0, 0, 0, 0.0]


def _mp_scaled(tol_mode, out):
    """Per case ``(scaled error, finite, |lhs − rhs|)`` of a high-precision output, as mpmath
    numbers."""
    import mpmath

    lhs, rhs, third = _unpack(tol_mode, out)

    def side(v):
        if isinstance(v, (list, tuple)) or (isinstance(v, np.ndarray) and v.ndim > 0):
            terms = [mpmath.mpmathify(t) for t in v]
            return mpmath.fsum(terms), max((abs(t) for t in terms), default=mpmath.mpf(0)), terms
        v = mpmath.mpmathify(v)
        return v, abs(v), [v]

    lhs, rhs = list(lhs), list(rhs)
    if len(lhs) != len(rhs):
        raise ValueError(f"identity high-precision evaluator returned {len(lhs)} lhs and {len(rhs)} rhs values")
    thirds = [None] * len(lhs) if third is None else list(np.broadcast_to(np.asarray(third, dtype=object),
                                                                          (len(lhs),)))
    res = []
    for l_, r_, t_ in zip(lhs, rhs, thirds):
        (lv, lm, lt), (rv, rm, rt) = side(l_), side(r_)
        vals = [*lt, *rt, lv, rv]
        if not all(isinstance(v, mpmath.mpf) and mpmath.isfinite(v) for v in vals):
            res.append((None, False, None))
            continue
        err = abs(lv - rv)
        mag = max(abs(lv), abs(rv))
        if tol_mode == "absolute":
            sc = err
        elif tol_mode == "relative":
            sc = err / mag if mag > 0 else (mpmath.inf if err > 0 else mpmath.mpf(0))
        elif tol_mode == "scale":
            sc = err / mpmath.mpf(float(t_))
        elif tol_mode == "terms":
            m = max(mag, lm, rm, abs(mpmath.mpmathify(t_)) if t_ is not None else mpmath.mpf(0))
            sc = err / m if m > 0 else mpmath.mpf(0)
        else:
            sc = err / max(mpmath.mpf(1), mag)
        res.append((sc, True, err))
    return res


#: A residual is reproduced at ``2·MP_DPS`` digits when the two absolute errors agree to
#: this relative difference; one that is not is a rounding residual of the evaluation.
STABLE_RTOL = 1e-3


def _stable(lo_err, hi_err) -> bool:
    """Whether a disagreement seen at :data:`MP_DPS` digits (``lo_err = |lhs − rhs|``) is
    the same at ``2·MP_DPS`` digits (``hi_err``).  The value of a formula evaluated with
    working precision ``u`` carries an error ``O(u·Σ|intermediate|)`` (the standard model of
    floating-point arithmetic, Higham 2002, ch. 2–3; ``docs/theory/engine.md`` §2): a true discrepancy ``d ≠ 0`` is reproduced at both precisions
    (``|hi − lo| ≤ STABLE_RTOL·lo`` once ``u·Σ ≪ d``), while a rounding residual of an exact
    identity (both sides 0: the relative error of two zeros is 1 at every precision) shrinks
    by about ``10^MP_DPS`` when the precision doubles."""
    return lo_err > 0 and abs(hi_err - lo_err) <= STABLE_RTOL * lo_err


def identity_chunk(fn, fn_mp, tol_mode, tol, rng, n):
    """One chunk: ``n`` cases in float64; when some exceed ``tol`` (or are not
    finite) and ``fn_mp`` is given, the *same* cases again at :data:`MP_DPS`
    digits (``fn_mp`` is called with a generator in the state ``fn`` started from).

    Returns ``[cases, max_abs, max_scaled, violations, unchecked, confirmed,
    artefacts, mp_nonfinite, max_scaled_mp]``: ``violations`` float64 cases
    beyond ``tol``; ``unchecked`` those without a high-precision check;
    ``confirmed`` cases beyond ``tol`` at 50 digits; ``artefacts`` float64
    violations whose 50-digit value is within ``tol``; ``mp_nonfinite`` cases
    whose 50-digit value is NaN/inf/complex; ``max_scaled_mp`` the largest
    50-digit scaled error (0 when not checked)."""
    state = rng.bit_generator.state if fn_mp is not None else None
    out = fn(rng, n)
    if fn_mp is None:
        return identity_stats(tol_mode, tol, out, n)
    err, scaled = scaled_errors(tol_mode, out)
    bad = ~(scaled <= tol)
    violations = int(bad.sum())
    base = [int(err.size), float(err.max(initial=0.0)), float(scaled.max(initial=0.0)), violations]
    if violations == 0:
        return base + [0, 0, 0, 0, 0.0]
    import mpmath

    def again(dps):
        bg = type(rng.bit_generator)()
        bg.state = state
        with mpmath.workdps(dps):
            out = _mp_scaled(tol_mode, fn_mp(np.random.Generator(bg), n))
        if len(out) != err.size:
            raise ValueError(f"fn_mp returned {len(out)} cases, fn {err.size}: it must draw the same cases")
        return out

    with MP_LOCK:                                    # see search.MP_LOCK: dps is process-wide
        res = again(MP_DPS)
        tol_mp = mpmath.mpf(tol)
        over = [ok and sc > tol_mp for sc, ok, _ in res]
        if any(over):
            # a disagreement is confirmed only when it is reproduced at twice the digits
            # (:func:`_stable`): a residual at the rounding level of the evaluation is not one
            res2 = again(2 * MP_DPS)
            over = [o and ok2 and sc2 > tol_mp and _stable(e, e2)
                    for o, (_, _, e), (sc2, ok2, e2) in zip(over, res, res2)]
        confirmed = sum(over)
        artefacts = sum(1 for (sc, ok, _), b, o in zip(res, bad, over) if b and ok and not o)
        nonfinite = sum(1 for _, ok, _ in res if not ok)
        top = max((float(sc) for (sc, ok, _), o in zip(res, over) if ok and (o or not sc > tol_mp)), default=0.0)
    return base + [0, int(confirmed), int(artefacts), int(nonfinite), min(top, float(np.finfo(float).max))]


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(x)


@dataclass(frozen=True, kw_only=True)
class IdentityClaim(Claim):
    """``lhs(θ) = rhs(θ)`` on a domain, to a tolerance.

    ``fn(rng, n)`` evaluates ``n`` random cases and returns ``(lhs, rhs)``
    arrays.  The error of a case is ``|lhs − rhs|`` scaled according to
    ``tol_mode``:

    * ``"terms"`` (default): divided by the magnitude of the terms,
      ``max(|lhs|, |rhs|, max|term|)``.  A side may be an ``(n, m)`` array of
      terms (summed with ``math.fsum``), or ``fn`` may return
      ``(lhs, rhs, terms_magnitude)``; with plain values it is relative.
      Relative at every magnitude: a 10⁻⁶ relative error at magnitude 10⁻⁸
      exceeds ``tol = 1e-12``;
    * ``"absolute"`` (unscaled), ``"relative"`` (divided by
      ``max(|lhs|, |rhs|)``), ``"mixed"`` (divided by ``max(1, |lhs|, |rhs|)``:
      absolute below magnitude 1);
    * ``"scale"``: ``fn`` returns ``(lhs, rhs, scale)`` and the error is
      divided by ``scale`` — for identities accumulated over ``m`` terms use
      ``scale = m·max|term|`` (floating-point summation error is at most
      ``(m − 1)·u·Σ|term|``, Higham 2002 §4.2), so a tolerance of a few ``u`` holds
      at every size.  The declared scale is the rounding-error bound.

    ``fn_mp(rng, n)`` evaluates the *same* cases (drawing them from ``rng``
    exactly as ``fn`` does) as mpmath numbers, in the same output form;
    it is called at 50 digits on a chunk where some float64 case exceeds
    ``tol``.  Without it a float64 disagreement is inconclusive ("float64
    only") except in a mode the claim chose (:data:`DECLARED_MODES`, see the module doc).
    ``proof`` is an optional zero-argument callable returning ``True`` when a
    symbolic (sympy) proof of the identity succeeds; guarantee ``"exact"``.
    """

    kind: ClassVar[str] = "identity"
    _callables: ClassVar[tuple[str, ...]] = ("fn", "fn_mp")
    fn: Callable[[np.random.Generator, int], tuple] | None = None
    fn_mp: Callable[[np.random.Generator, int], tuple] | None = None
    tol: float = 1e-12
    tol_mode: str = "terms"
    proof: Callable[[], bool] | None = None
    #: ``certifier() -> Certificate`` (:class:`..certify.Certifier`, SymPy sides on a box):
    #: after a "holds" verdict, symbolic simplification then ball arithmetic upgrade it to
    #: ``proved``, refute it, or name the uncertified region (:func:`..certify.upgrade`).
    certifier: Callable[[], object] | None = None
    chunk_size: int = 100
    default_budget: int = 1_000
    quick_budget: int = 200

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.tol_mode not in TOL_MODES:
            raise ValueError(f"claim {self.id}: tol_mode must be one of {'/'.join(TOL_MODES)}, "
                             f"got {self.tol_mode!r}")
        if not self.tol > 0:
            raise ValueError(f"claim {self.id}: tol must be > 0, got {self.tol!r}")

    def _fingerprint_extra(self) -> dict:
        return {"tol": self.tol, "tol_mode": self.tol_mode, "stats": 2}

    def stats_function(self):
        return functools.partial(identity_stats, self.tol_mode, float(self.tol))

    def chunk_task(self):
        if self.experiment is not None:         # experiment-reading: float64 only (no fn_mp)
            return super().chunk_task()
        return functools.partial(identity_chunk, self.fn, self.fn_mp, self.tol_mode, float(self.tol))

    @staticmethod
    def check_stats(stats, chunk_size):
        if len(stats) != 9 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                      for v in (stats[0], *stats[3:8])) or stats[0] < 1 \
                or not all(_number(v) and v >= 0 for v in (stats[1], stats[2], stats[8])) \
                or stats[4] > stats[3] or stats[6] > stats[3]:
            return ("identity statistics are [cases ≥ 1, max_abs ≥ 0, max_scaled ≥ 0, violations, "
                    "unchecked ≤ violations, confirmed, artefacts ≤ violations, mp_nonfinite, max_scaled_mp ≥ 0]")
        return None

    def decision_method(self, method):
        return "search"

    def decide(self, prefix, alpha, method, n_chunks, common):
        """Refuted only with a theorem behind it (see the module doc): a case confirmed beyond
        ``tol`` at 50 digits (``exact``), or, in a declared mode, a float64 error beyond
        ``tol`` × the declared rounding scale (``search``, warned)."""
        cases = int(sum(s[0] for s in prefix))
        max_abs = max(float(s[1]) for s in prefix)
        max_scaled = max(float(s[2]) for s in prefix)
        violations, unchecked, confirmed, artefacts, mp_nonfinite = (int(sum(s[i] for s in prefix))
                                                                     for i in range(3, 8))
        max_mp = max(float(s[8]) for s in prefix)
        proved = None if self.proof is None else bool(self.proof())
        warnings = []
        guarantee = "exact" if proved else "search"
        if confirmed:
            verdict, guarantee = "refuted", "exact"
            warnings.append(f"{confirmed} case(s) exceed the tolerance at {MP_DPS} digits (largest "
                            f"{self.tol_mode} error {max_mp:.3g} vs tol {self.tol:g}): a confirmed counterexample")
        elif unchecked and self.tol_mode in DECLARED_MODES:
            verdict, guarantee = "refuted", "search"
            allowance = ("tol × the declared scale" if self.tol_mode == "scale"
                         else f"the declared {self.tol_mode} tolerance")
            warnings.append(f"float64 only: {unchecked} case(s) exceed {allowance}; a refutation only if it "
                            "bounds the rounding error (Higham 2002, §4.2) — give fn_mp for a 50-digit "
                            "confirmation")
        elif unchecked:
            verdict = "inconclusive"
            warnings.append(f"float64 only: give lhs_mp/rhs_mp (or fn_mp) — {unchecked} case(s) exceed the "
                            f"tolerance in float64, which cancellation also causes in true identities; "
                            f"no high-precision check confirmed them")
        elif mp_nonfinite:
            verdict = "inconclusive"
            warnings.append(f"{mp_nonfinite} case(s) are NaN/inf at {MP_DPS} digits: neither a counterexample "
                            "nor a rounding artefact; restrict the domain")
        elif proved is False:
            verdict = "inconclusive"
            warnings.append("the symbolic proof failed although every numerical case agreed")
        else:
            verdict = "holds"
        if artefacts and not confirmed:
            warnings.append(f"{artefacts} float64 disagreement(s) were rejected at {MP_DPS} digits as "
                            "rounding artefacts")
        return IdentityResult(**common, verdict=verdict, elapsed_s=0.0, guarantee=guarantee,
                              warnings=tuple(warnings), cases=cases, max_abs_error=max_abs,
                              max_scaled_error=max_scaled, tol=self.tol, tol_mode=self.tol_mode,
                              proved=proved, violations=violations, unchecked=unchecked,
                              confirmed=confirmed, artefacts=artefacts, nonfinite_mp=mp_nonfinite,
                              max_scaled_error_mp=max_mp)

    def finish(self, result, prefix, seed):
        """A "holds" verdict certified (:func:`..certify.upgrade`) when the claim has a certifier.

        A "refuted" verdict of a claim with a certifier (SymPy sides on a box) is returned only
        after the certification was tried: a proof on the whole box — symbolic, or
        ``|lhs − rhs| ≤ tol·scale`` in ball arithmetic, each with its premises established —
        outranks a case evaluated at 50 digits (which can only be an artefact of that
        evaluation, e.g. a residual at its rounding level), so the verdict becomes "holds",
        guarantee "proved", with a warning naming the cases it overrules; a certified
        counterexample or an undecided certification keeps the refutation (the certificate
        attached)."""
        if self.certifier is None:
            return result
        from ..certify import upgrade

        if result.verdict == "holds" and result.guarantee == "search":
            return upgrade(result, self.certifier)
        if result.verdict != "refuted":
            return result
        import dataclasses

        trial = upgrade(dataclasses.replace(result, verdict="holds", guarantee="search", warnings=()),
                        self.certifier)
        cert = getattr(trial, "certificate", None)
        if trial.verdict == "holds" and trial.guarantee == "proved":
            how = (cert or {}).get("method", "the certifier")
            return dataclasses.replace(trial, warnings=tuple(result.warnings) + (
                f"overruled by a proof on the whole box ({how}): the {result.confirmed or result.unchecked} "
                f"case(s) that disagreed beyond tol are artefacts of their evaluation, not counterexamples",))
        return dataclasses.replace(result, certificate=cert) if cert is not None else result


@dataclass(frozen=True, kw_only=True, repr=False)
class IdentityResult(Result, kind="identity"):
    """``lhs = rhs``: worst errors over the cases, and the symbolic proof."""

    unit: ClassVar[str] = "cases"

    cases: int
    max_abs_error: float
    max_scaled_error: float
    tol: float
    tol_mode: str
    proved: bool | None

    violations: int = 0
    unchecked: int = 0
    confirmed: int = 0
    artefacts: int = 0
    nonfinite_mp: int = 0
    max_scaled_error_mp: float = 0.0

    def summary(self) -> str:
        n = summary_number
        proof = {True: ", sympy proof ok", False: ", sympy proof FAILED", None: ""}[self.proved]
        err = f"max err {n(self.max_abs_error)} ({self.tol_mode} {n(self.max_scaled_error)} vs tol {self.tol:g})"
        if self.verdict == "holds" and not self.proved:
            return f"no violation found in {self.cases} cases; {err}"
        return f"{err} over {self.cases} cases{proof}"

    def headline(self) -> str:
        return (f"max error = {fmt(self.max_abs_error)} ({self.tol_mode} {fmt(self.max_scaled_error)} vs tol "
                f"{fmt(self.tol)}) over {self.cases} cases")

    def slack(self):
        return [f"max error / tolerance = {fmt(self.max_scaled_error / self.tol, 3)}"
                + {True: "; sympy proof succeeded", False: "; sympy proof FAILED", None: ""}[self.proved]]

    def settle_advice(self):
        if self.verdict != "inconclusive":
            return None
        if self.unchecked:
            return ("method, not budget: the float64 disagreement may be cancellation; give the claim a "
                    "high-precision twin (lhs_mp/rhs_mp in theorycheck's identity(), fn_mp for an "
                    "IdentityClaim) so that it is confirmed or rejected at 50 digits")
        if self.nonfinite_mp:
            return ("method, not budget: some cases are not finite in high precision; restrict the domain "
                    "to where both sides are defined")
        return ("method, not budget: every numerical case agreed but the symbolic (sympy) proof failed; "
                "inspect the proof — a simplification sympy cannot do, or a discrepancy outside the "
                "sampled domain")
