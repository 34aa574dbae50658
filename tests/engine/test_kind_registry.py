"""One claim kind, one module: every kind registers its claim class, its result
class and the words that explain a result; results of every kind survive the
trip through JSON with their words intact; and the kind-independent code names
no kind (a new kind touches its module in ``proofs_check/engine/kinds/``, its
``declare`` constructor, its calibration cell and its tests — nothing else)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import proofs_check.engine as engine
from proofs_check.engine import KINDS, Claim, Result, verify_claim
from proofs_check.engine.claims import claim_class
from proofs_check.engine.results import result_class

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "proofs_check" / "engine"

#: The hooks every kind fills in, and the words every result class says.
CLAIM_HOOKS = ("check_stats", "decision_method", "decide")
WORDS = ("summary", "headline", "slack", "settle_advice")


# -- one small claim of each kind (add one here with a new kind) ---------------

def _events(rng, n):
    return int((rng.random(n) < 0.01).sum())


def _same(rng, n):
    x = rng.random(n)
    return x, x.copy()


def _point(rng):
    return rng.random(1)


def _x_below_square(theta):
    return float(theta[0]), float(theta[0]) ** 2          # x ≤ x² fails on (0, 1)


def _power(rng, n):
    x = np.array([1.0, 2.0, 4.0, 8.0])
    return x ** 1.5 * np.exp(0.01 * rng.standard_normal((n, x.size)))


def _differences(rng, n):
    return rng.uniform(-1.0, 0.5, n)


def _example(kind: str) -> Claim:
    common = dict(id=f"test.kinds.{kind}", statement=kind, source="test", label="DERIVED")
    examples = {
        "probability": lambda: engine.ProbabilityClaim(**common, fn=_events, delta=0.05, chunk_size=500,
                                                       quick_budget=1000),
        "identity": lambda: engine.IdentityClaim(**common, fn=_same, tol=1e-12),
        "inequality": lambda: engine.InequalityClaim(**common, sample=_point, evaluate=_x_below_square,
                                                     default_point=[0.0], coordinates=["x"]),
        "scaling": lambda: engine.ScalingClaim(**common, fn=_power, x=[1.0, 2.0, 4.0, 8.0],
                                               exponent_lo=1.4, exponent_hi=1.6),
        "comparison": lambda: engine.ComparisonClaim(**common, fn=_differences, bounds=(-1.0, 1.0)),
    }
    assert kind in examples, f"add an example claim of the new kind {kind!r} to this test"
    return examples[kind]()


# -- the registries --------------------------------------------------------------

def test_the_kinds_are_the_modules_of_the_kinds_package():
    modules = sorted(p.stem for p in (ENGINE / "kinds").glob("*.py") if not p.stem.startswith("_"))
    assert sorted(KINDS) == modules and len(KINDS) >= 5


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_registers_its_claim_class_result_class_and_words(kind):
    claim_cls, result_cls = claim_class(kind), result_class(kind)
    assert claim_cls is not None and issubclass(claim_cls, Claim) and claim_cls.kind == kind
    assert result_cls is not None and issubclass(result_cls, Result)
    assert claim_cls.__module__ == result_cls.__module__ == f"proofs_check.engine.kinds.{kind}"
    for hook in CLAIM_HOOKS:
        assert getattr(claim_cls, hook) is not getattr(Claim, hook), f"{claim_cls.__name__} lacks {hook}"
    for word in WORDS:
        assert getattr(result_cls, word) is not getattr(Result, word), f"{result_cls.__name__} lacks {word}"
    assert result_cls.unit != Result.unit
    # the facade exports both under the names it derives from the module's name
    camel = "".join(part.capitalize() for part in kind.split("_"))
    assert getattr(engine, f"{camel}Claim") is claim_cls and getattr(engine, f"{camel}Result") is result_cls
    assert {f"{camel}Claim", f"{camel}Result"} <= set(engine.__all__)


@pytest.mark.parametrize("kind", KINDS)
def test_a_result_of_every_kind_round_trips_through_json_with_its_words(kind):
    r = verify_claim(_example(kind), quick=True, seed=3, executor="serial")
    assert type(r) is result_class(kind) and r.kind == kind
    back = Result.from_dict(json.loads(json.dumps(r.to_dict())))
    assert type(back) is type(r) and back.to_dict() == r.to_dict()
    for word in ("summary", "headline", "slack", "budget_to_settle", "settle_advice"):
        assert getattr(back, word)() == getattr(r, word)(), word
    assert back.interval("99 %") == r.interval("99 %")
    assert isinstance(r.headline(), str) and r.headline()


def test_an_unknown_kind_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown result kind 'nope'.*probability"):
        Result.from_dict({"kind": "nope"})


# -- the kind-independent code names no kind -------------------------------------

def _kind_pattern() -> re.Pattern:
    names = []
    for kind in KINDS:
        camel = "".join(part.capitalize() for part in kind.split("_"))
        names += [f"[\"']{kind}[\"']", f"{camel}Claim", f"{camel}Result", rf"\b_?{kind}_stats\b"]
    # a branch on the kind: `r.kind == ...`, `claim.kind != ...` (not NumPy's `dtype.kind`)
    names.append(r"\b(?!dtype\b)\w+\.kind\s*[!=]=")
    return re.compile("|".join(names))


def _kind_independent_files() -> list[Path]:
    engine_files = [p for p in ENGINE.rglob("*.py") if "kinds" not in p.relative_to(ENGINE).parts]
    return sorted(engine_files) + sorted((ROOT / "theorycheck" / "report").glob("*.py"))


def test_the_pattern_catches_a_branch_on_a_kind():
    pat = _kind_pattern()
    assert pat.search('    if r.kind == "scaling":') and pat.search("isinstance(c, ScalingClaim)")
    assert pat.search("_probability_stats(events, n)") and not pat.search("the probability of an event")
    assert pat.search("if claim.kind != kind:")
    assert not pat.search('if arr.dtype.kind == "f"') and not pat.search('np.dtype(x).kind != "b"')


@pytest.mark.parametrize("path", _kind_independent_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_kind_independent_code_names_no_kind(path):
    pat = _kind_pattern()
    hits = [f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pat.search(line)]
    assert not hits, "say it in the kind's module (a method of its claim or result class):\n" + "\n".join(hits)


def test_decide_and_the_report_evidence_are_among_the_checked_files():
    checked = {p.relative_to(ROOT).as_posix() for p in _kind_independent_files()}
    assert {"proofs_check/engine/decide.py", "theorycheck/report/evidence.py"} <= checked
