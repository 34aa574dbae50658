"""Frozen results: the fields every verdict carries, and the words that explain one.

:class:`Result` is the base of the result class of each kind (defined in the
kind's module under :mod:`.kinds` as ``class XResult(Result, kind="x")``,
which registers it: :func:`result_class`).  A result turns into plain JSON
(:meth:`Result.to_dict`) and back (:meth:`Result.from_dict`, e.g. for
``theorycheck report --from``), and explains itself in words for tables and
the report: :meth:`~Result.summary`, :meth:`~Result.headline`,
:meth:`~Result.interval`, :meth:`~Result.slack`,
:meth:`~Result.budget_to_settle` and :meth:`~Result.settle_advice`
(``docs/theory/engine.md`` §5).
"""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from .claims import to_jsonable

__all__ = ["VERDICTS", "GUARANTEES", "GUARANTEE_SCOPE", "guarantees_markdown",
           "Result", "result_class", "fmt", "summary_number", "fmt_against",
           "counted"]

VERDICTS = ("holds", "refuted", "inconclusive")

#: What a verdict guarantees (printed with every result):
GUARANTEES = {
    "exact": "exact: an exact interval at a fixed budget (wrong with probability ≤ α), "
             "a symbolic proof, or a counterexample confirmed in high precision",
    "anytime-valid": "anytime-valid: wrong with probability ≤ α at any stopping time, "
                     "for any distribution the claim's assumptions allow — if its premises hold: a declared "
                     "variance bound is printed with the verdict (\"anytime-valid if Var(D) ≤ σ² (declared)\") "
                     "and a bound the data refute withholds it; trials are independent unless cluster=m "
                     "declares runs of dependent ones",
    "asymptotic": "asymptotic: error ≈ α for large samples only; no finite-sample guarantee",
    "search": "search: no violation found in the evaluations made — not a proof",
    "deterministic": "deterministic: an exact computation on a finite grid; no sampling error, "
                     "the verdict says what the grid shows",
    "estimate": "estimate: a deterministic numerical approximation of the stated quantity (e.g. a "
                "dynamic program on a grid) whose error is estimated, not bounded; the verdict reads the "
                "approximation and is not settled (--fail-on counts it as inconclusive)",
    "proved": "proved: lhs ≤ rhs (+ the declared allowance, printed with the statement proved) at every "
              "point of the declared domain, certified in ball arithmetic (branch-and-bound with outward "
              "rounding, or a symbolic identity); the statement proved, the allowance, box count, smallest "
              "box width and time in the certificate",
}


#: Where each guarantee arises (the "when" column of the one table of guarantees, shown in the
#: README and on the docs site: :func:`guarantees_markdown`).
GUARANTEE_SCOPE = {
    "anytime-valid": "probability claims (default), comparisons with declared `bounds` (betting confidence "
                     "sequence) or a declared `variance_bound` (Catoni-style confidence sequence)",
    "exact": "`--fixed` probability claims (Clopper–Pearson), identities with a symbolic proof, "
             "counterexamples confirmed in 50-digit mpmath or in ball arithmetic",
    "proved": "inequalities and identities with SymPy sides on a closed bounded box, certified in ball "
              "arithmetic (python-flint)",
    "asymptotic": "comparisons with neither bounds nor a variance bound (Hall's skewness-corrected t), "
                  "scaling laws with random replicates; always warned, never counted as settled by `--fail-on`",
    "search": "inequalities and identities that hold without a certificate",
    "deterministic": "scaling laws of exactly computed quantities (a second evaluation under another seed "
                     "must agree bit for bit)",
    "estimate": "one-point inequalities whose sides are numerical approximations (`basis=(\"estimate\", why)`: "
                "the worst-case DP claims); warned every time",
}


def guarantees_markdown() -> str:
    """The one table of guarantees (README between ``<!-- guarantees:start -->`` and
    ``<!-- guarantees:end -->``, and the docs site): a row per key of :data:`GUARANTEES`, with
    where it arises (:data:`GUARANTEE_SCOPE`) and what it promises (the text after "kind: ")."""
    rows = ["| guarantee | when | what it promises |", "|---|---|---|"]
    for kind, text in GUARANTEES.items():
        promise = text.split(":", 1)[1].strip() if text.startswith(kind + ":") else text
        rows.append(f"| `{kind}` | {GUARANTEE_SCOPE.get(kind, '')} | {promise.replace('|', '∣')} |")
    return "\n".join(rows) + "\n"


@dataclass(frozen=True, kw_only=True, repr=False)
class Result:
    """Fields every verdict carries.

    A kind's result class subclasses it with ``kind="<name>"`` in the class
    statement (registering it for :meth:`from_dict`), adds its fields and
    fills in the words: :meth:`summary`, :meth:`headline`, :attr:`unit` and,
    where they apply, :meth:`interval`, :meth:`slack`,
    :meth:`budget_to_settle` and :meth:`settle_advice`.
    """

    #: The unit of the kind's budget, for sentences (``"trials"``, ``"cases"``, ...).
    unit: ClassVar[str] = "units"

    def __init_subclass__(cls, kind: str | None = None, **kw) -> None:
        super().__init_subclass__(**kw)
        if kind is not None:
            old = _RESULT_CLASSES.get(kind)
            if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
                raise TypeError(f"result kind {kind!r} is defined twice: by {old.__module__}."
                                f"{old.__qualname__} and {cls.__module__}.{cls.__qualname__}")
            _RESULT_CLASSES[kind] = cls

    claim: str
    kind: str
    verdict: str
    statement: str
    source: str
    label: str
    seed: int
    alpha: float
    budget: int
    chunks: int
    elapsed_s: float
    params: Mapping[str, Any]
    notes: str = ""
    guarantee: str = ""
    warnings: tuple = ()
    role: str = "statement"
    expected: str | None = None
    #: The ball-arithmetic certification (:mod:`.certify`), when the claim has one: status
    #: (proved/refuted/undecided), boxes, smallest width, seconds, and the uncertified region.
    certificate: Mapping[str, Any] | None = None

    @property
    def as_expected(self) -> bool | None:
        """``True``/``False`` when the claim has an expected verdict, else ``None``."""
        return None if self.expected is None else self.verdict == self.expected

    def to_dict(self) -> dict:
        """Plain-JSON dict (``claim``, ``kind``, ``verdict``, ... first)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["as_expected"] = self.as_expected
        return to_jsonable(d)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=False)

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> "Result":
        """The result a :meth:`to_dict` produced (e.g. a line of ``results.jsonl``),
        of the class its ``kind`` names; unknown keys are refused.  The kinds are
        those defined so far: every built-in one once :mod:`.kinds` is imported
        (``proofs_check.engine.Result`` comes through it)."""
        if not isinstance(d, Mapping) or "kind" not in d:
            raise ValueError("a result dict needs a 'kind'")
        cls = _RESULT_CLASSES.get(d["kind"])
        if cls is None:
            raise ValueError(f"unknown result kind {d['kind']!r} (known: {', '.join(_RESULT_CLASSES)})")
        names = {f.name: f for f in dataclasses.fields(cls)}
        extra = set(d) - set(names) - {"as_expected"}
        if extra:
            raise ValueError(f"unknown fields for a {d['kind']} result: {sorted(extra)}")
        kw = {}
        for name, value in d.items():
            if name == "as_expected":
                continue
            if isinstance(value, str) and value in ("nan", "inf", "-inf"):
                value = float(value)
            if isinstance(value, list) and name not in ("worst_point",):
                value = tuple(float(v) if isinstance(v, str) and v in ("nan", "inf", "-inf") else v
                              for v in value)
            kw[name] = value
        return cls(**kw)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.claim}: {self.verdict}; {self.summary()}; seed={self.seed})"

    def certificate_sentence(self) -> str:
        """The certification in words (``""`` without one): see :mod:`.certify`."""
        c = self.certificate
        if not c:
            return ""
        boxes = c.get("boxes")
        base = (f"{counted(boxes, 'box', 'boxes') if isinstance(boxes, int) else f'{boxes} boxes'}, "
                f"smallest width {fmt(c.get('min_width'), 3)}, {fmt(c.get('seconds'), 3)} s")
        if c.get("status") == "proved":
            how = c.get("method", "ball arithmetic")
            stmt = str(c.get("proved_statement") or "").strip()
            allowance = str(c.get("allowance", "0") or "0").strip()
            what = f"proved: {stmt}" if stmt else "proved"
            if allowance not in ("", "0"):
                what += f" (declared allowance {allowance} included)"
            what += " at every point of the declared domain"
            if not boxes:
                return f"{what} ({how}, {fmt(c.get('seconds'), 3)} s)"
            return f"{what} ({how}; {base})"
        if c.get("status") == "refuted":
            return (f"counterexample certified in ball arithmetic at {c.get('counterexample_exact')} "
                    f"({base})")
        where = "; ".join(", ".join(f"{k} ∈ [{fmt(a, 6)}, {fmt(b, 6)}]" for k, (a, b) in bx.items())
                          for bx in (c.get("uncertified_boxes") or [])[:3])
        return (f"certification undecided ({c.get('reason', '')}): {fmt(c.get('uncertified_fraction'), 3)} "
                f"of the box volume uncertified after {base}" + (f"; e.g. {where}" if where else ""))

    # -- the evidence for a run's multiplicity statement (..multiplicity) ------

    def e_values(self) -> tuple[float | None, float | None, str]:
        """``(log_e_refute, log_e_holds, how)``: the log e-values against and for the claim
        at the stopping time (each a test supermartingale's value, so ``E e ≤ 1`` under its
        null), and where they come from; ``(None, None, why)`` when the result carries none.
        A kind whose verdict rests on an e-process overrides this."""
        lr, lh = getattr(self, "log_e_refute", None), getattr(self, "log_e_holds", None)
        if _real(lr) and _real(lh):
            return float(lr), float(lh), "stored e-value"
        if self.guarantee == "exact":
            return None, None, "exact proof or confirmed counterexample: not a sampling statement"
        return None, None, f"{self.guarantee} verdict that stores no e-value (log_e_refute/log_e_holds)"

    # -- the words: what a table and the report say about the result ----------

    def summary(self) -> str:
        """The headline number with its uncertainty, for tables."""
        return ""

    def headline(self) -> str:
        """The one number the verdict rests on, named (the report's headline)."""
        return self.summary()

    def interval(self, level: str) -> str | None:
        """``"<level> <what> [a, b] for <quantity>"`` for kinds with an interval, else ``None``."""
        return None

    def slack(self) -> list[str]:
        """How far the verdict is from the other side, in the claim's own terms."""
        return []

    def budget_to_settle(self) -> int | None:
        """The total budget at which the current estimate would be decided if it
        stayed where it is, in whole chunks; ``None`` when no budget would (the
        estimate on the threshold, an infinite interval) or the kind has no interval."""
        return None

    def settle_advice(self) -> str | None:
        """For an inconclusive verdict: the budget or the method that would settle it."""
        if self.verdict != "inconclusive":
            return None
        return self.budget_advice(self.budget_to_settle())

    # -- helpers of the words -------------------------------------------------

    @property
    def chunk_size(self) -> int:
        """Units per chunk of the run (budget / chunks)."""
        return max(1, self.budget // max(1, self.chunks))

    def whole_chunks(self, n: float) -> int:
        """``n`` units rounded up to whole chunks of this run."""
        return int(math.ceil(n / self.chunk_size) * self.chunk_size)

    def budget_advice(self, need: int | None, *, extendable: bool = False, options: str = "",
                      rule: str | None = None) -> str:
        """The words for settling by budget: ``need`` units in total (``None``: no
        budget would).  ``extendable``: the interval is anytime-valid, so the run
        may be continued (``--resume``); otherwise a fresh run with a new seed
        and the command-line ``options`` of its method.  ``rule`` names how
        ``need`` was estimated (default: a half-width shrinking like ``1/√n``)."""
        unit, n_now = self.unit, self.budget
        if need is None:
            return (f"no budget settles it if the estimate stays where it is (it sits on the threshold); "
                    f"{n_now} {unit} so far")
        if extendable:
            how = (f"continue the run (anytime-valid, so extending is allowed): `theorycheck verify "
                   f"{self.claim} --out DIR --resume --budget {need}`")
        else:
            how = (f"a fresh run with a new seed (same seed = same data): `theorycheck verify {self.claim} "
                   f"--seed {self.seed + 1}{options} --budget {need}` (or any seed not used before; a "
                   f"fixed-sample interval must not be extended after its verdict was seen, and its verdict "
                   f"must be kept: stopping at the first decisive of k fresh runs is wrong with "
                   f"probability up to about k·α)")
        if rule is None:
            rule = "interval half-width ∝ 1/√n" + ("; a lower estimate for an anytime-valid sequence"
                                                   if extendable else "")
        return (f"≈ {need} {unit} in total ({need / max(n_now, 1):.2g}× the {n_now} {unit} run so far), if "
                f"the estimate stays where it is ({rule}); {how}")


#: kind name -> result class, filled as the kinds' result classes are defined
_RESULT_CLASSES: dict[str, type] = {}


def result_class(kind: str) -> type | None:
    """The result class of ``kind`` (``None`` if no such kind is defined)."""
    return _RESULT_CLASSES.get(kind)


def _real(x) -> bool:
    """A real number that is not NaN (±inf allowed: an e-value may be infinite)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(float(x))


def summary_number(x: float) -> str:
    """A number in a one-line summary: 4 significant digits, ``nan`` for a missing one."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:.4g}"


def fmt(x, digits: int = 4) -> str:
    """A number in the report's words: ``digits`` significant digits, integers
    whole, ``nan``, ``∞`` and the minus sign spelt out (``—`` for none)."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x)
    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    text = f"{x:.{digits}g}"
    return text.replace("-", "−") if text.startswith("-") else text


def counted(n: int, one: str, many: str | None = None) -> str:
    """``"1 box"``, ``"3 boxes"``: a count with its noun in the right number (``many``
    defaults to ``one + "s"``)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"n must be an int count, got {type(n).__name__} {n!r}")
    return f"{n} {one if n == 1 else (many or one + 's')}"


def shown_value(x, width: int = 60) -> str:
    """``repr(x)`` cut to ``width`` characters (for error messages)."""
    r = repr(x)
    return r if len(r) <= width else r[:width - 1] + "…"


def fmt_against(value, bound, digits: int = 4) -> str:
    """``value`` printed beside ``bound`` so that the inequality between them stays visible.

    Rule (*design*, ``docs/theory/engine.md`` §5, "Readings"): the fewest significant digits
    ``d ≥ digits`` (at most 17) at which ``value`` and ``bound``, both rounded to ``d`` digits and
    read back, are ordered as ``value`` and ``bound`` are (strictly, when they differ); ``value`` is
    printed with ``d`` digits.  The rule is symmetric, so ``fmt_against(bound, value)`` prints the
    bound with the same ``d`` when the bound is itself a computed number.  So 0.49999555 against
    0.5 prints ``0.499996``, never ``0.5``; a value equal to the bound, or a non-finite one, prints
    as :func:`fmt` does."""
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 17:
        raise ValueError(f"digits must be an int in [1, 17], got {digits!r}")
    for name, x in (("value", value), ("bound", bound)):
        if isinstance(x, bool) or not isinstance(x, (int, float)) and not hasattr(x, "__float__"):
            raise TypeError(f"{name} must be a real number, got {type(x).__name__} {shown_value(x)}")
    try:
        v, b = float(value), float(bound)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"value and bound must be real numbers representable as floats (|x| ≤ 1.8e308), "
                         f"got {shown_value(value)} and {shown_value(bound)}") from None
    if not (math.isfinite(v) and math.isfinite(b)) or v == b:
        return fmt(v, digits)
    side = 1 if v > b else -1
    for d in range(digits, 18):
        if (float(f"{v:.{d}g}") - float(f"{b:.{d}g}")) * side > 0:
            return fmt(v, d)
    return fmt(v, 17)
