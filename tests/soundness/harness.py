"""Run one case at one seed, and judge the outcome (the rule is in the package docstring).

``python -m tests.soundness.harness [--seeds N] [--only id-or-class,...] [--fast]`` prints one
line per case (the outcomes over the seeds), then the failures by kind, and the file of the
``proofs_check`` it imported (run it with ``PYTHONPATH=<tree>`` to test another tree).
"""
from __future__ import annotations

import argparse
import collections
import math
import time
import warnings
from dataclasses import dataclass, field
from fractions import Fraction

#: The failure kinds, as the report names them.
FALSE_PROOF = "false proof"
OUT_OF_DOMAIN = "refuted outside the domain"
REFUTED_TRUE = "refuted true control"
ERROR = "error"


@dataclass
class Outcome:
    """What one run gave: ``status`` is ``"refused"`` (ValueError/TypeError at declaration),
    ``"error"`` (any other exception) or ``"ran"`` (then ``verdict``/``guarantee``)."""

    case: str
    seed: int
    status: str
    verdict: str = ""
    guarantee: str = ""
    points: list = field(default_factory=list)
    message: str = ""
    seconds: float = 0.0

    def short(self) -> str:
        if self.status != "ran":
            return f"{self.status}: {self.message[:100]}"
        return f"{self.verdict}/{self.guarantee}"


def _exact(v) -> Fraction | None:
    try:
        if isinstance(v, str):
            return Fraction(v)
        f = float(v)
        return Fraction(f) if math.isfinite(f) else None
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def _ends(v) -> tuple[Fraction, Fraction]:
    """A box end as the binary double and as its shortest decimal (either reading is the
    declared domain: issue 31 lets a tree choose one, documented)."""
    a, b = Fraction(float(v)), Fraction(repr(float(v)))
    return min(a, b), max(a, b)


def in_domain(case, point: dict) -> tuple[bool, str]:
    """Whether ``point`` (``{name: value}``, values floats or exact strings) lies in the case's
    declared domain; the reason when it does not."""
    for name, (lo, hi) in case.box.items():
        if name not in point:
            continue
        v = _exact(point[name])
        if v is None:
            return False, f"{name} = {point[name]!r} is not a number"
        if v < _ends(lo)[0] or v > _ends(hi)[1]:
            return False, f"{name} = {point[name]} lies outside [{lo}, {hi}]"
        if name in case.integer and v.denominator != 1:
            return False, f"{name} = {point[name]} is not an integer"
    return True, ""


def _points(result) -> list[dict]:
    """Every point the result offers as its counterexample."""
    pts = []
    wp = getattr(result, "worst_point", None)
    if isinstance(wp, dict) and wp:
        pts.append(dict(wp))
    cert = getattr(result, "certificate", None) or {}
    if isinstance(cert, dict):
        for key in ("counterexample_exact", "counterexample"):
            if isinstance(cert.get(key), dict):
                pts.append(dict(cert[key]))
    return pts


def run_case(case, seed: int = 0, *, budget: int | None = None) -> Outcome:
    """Declare the case's claim and verify it at ``seed`` (serial executor)."""
    from proofs_check.engine import verify_claim

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            claim = case.build(case.domain(), cid=f"soundness.{case.id}")
        except (ValueError, TypeError) as exc:
            return Outcome(case.id, seed, "refused", message=f"{type(exc).__name__}: {exc}",
                           seconds=time.perf_counter() - t0)
        except Exception as exc:                                 # noqa: BLE001 - reported as a failure
            return Outcome(case.id, seed, "error", message=f"at declaration {type(exc).__name__}: {exc}",
                           seconds=time.perf_counter() - t0)
        try:
            r = verify_claim(claim, executor="serial", seed=seed, budget=budget)
        except Exception as exc:                                 # noqa: BLE001
            return Outcome(case.id, seed, "error", message=f"in verify_claim {type(exc).__name__}: {exc}",
                           seconds=time.perf_counter() - t0)
    return Outcome(case.id, seed, "ran", verdict=r.verdict, guarantee=r.guarantee, points=_points(r),
                   seconds=time.perf_counter() - t0)


def judge(case, out: Outcome) -> list[tuple[str, str]]:
    """The failures of one outcome: ``[(kind, detail)]`` (empty: the case passed)."""
    if out.status == "refused":
        missing = [w for w in case.refusal_names if w.lower() not in out.message.lower()]
        return [(ERROR, f"refused without naming {missing}: {out.message[:200]}")] if missing else []
    if out.status == "error":
        return [(ERROR, out.message[:300])]
    fails = []
    if case.expect == "false" and out.guarantee == "proved":
        fails.append((FALSE_PROOF, f"{out.verdict}/{out.guarantee}"))
    if out.verdict == "refuted":
        for p in out.points:
            ok, why = in_domain(case, p)
            if not ok:
                fails.append((OUT_OF_DOMAIN, why))
                break
        if case.expect == "true":
            fails.append((REFUTED_TRUE, f"{out.verdict}/{out.guarantee} at {out.points[:1]}"))
    return fails


def seeds_for(case, slow: bool) -> list[int]:
    """3 seeds by default; 30 in the slow tier for a case whose verdict depends on the seed."""
    return list(range(30 if (slow and case.seeded) else 3))


def main(argv=None) -> int:
    import proofs_check

    from .cases import CASES

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=None, help="seeds per case (default: 3, or 30 if --slow "
                                                            "and the case is seeded)")
    ap.add_argument("--slow", action="store_true")
    ap.add_argument("--fast", action="store_true", help="the default subset only")
    ap.add_argument("--only", default="", help="comma-separated case ids or classes (prefix match)")
    args = ap.parse_args(argv)
    print("tree:", proofs_check.__file__, flush=True)
    only = [o for o in args.only.split(",") if o]
    chosen = [c for c in CASES if (not args.fast or c.fast)
              and (not only or any(c.id.startswith(o) or c.cls == o for o in only))]
    failures = collections.defaultdict(list)
    t_all = time.perf_counter()
    for c in chosen:
        seeds = list(range(args.seeds)) if args.seeds else seeds_for(c, args.slow)
        counts = collections.Counter()
        t0 = time.perf_counter()
        for s in seeds:
            out = run_case(c, s)
            counts[out.short()] += 1
            for kind, detail in judge(c, out):
                failures[kind].append((c.id, s, detail))
            if out.status == "refused":          # a refusal does not depend on the seed
                break
        print(f"{c.id:28s} {c.cls:13s} {c.expect:5s} | {dict(counts)} | {time.perf_counter() - t0:.1f} s",
              flush=True)
    print(f"\n{len(chosen)} cases in {time.perf_counter() - t_all:.0f} s; tree {proofs_check.__file__}")
    for kind in (FALSE_PROOF, OUT_OF_DOMAIN, REFUTED_TRUE, ERROR):
        rows = failures.get(kind, [])
        ids = sorted({r[0] for r in rows})
        print(f"{kind}: {len(ids)} cases {ids}")
        for cid in ids:
            seeds = [r[1] for r in rows if r[0] == cid]
            print(f"    {cid}: seeds {seeds[:10]}{' …' if len(seeds) > 10 else ''}: "
                  f"{next(r[2] for r in rows if r[0] == cid)[:160]}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
