"""The example's claims as pytest tests (the theorycheck plugin): the true ones pass;
``example.product_bound`` is planted false and must fail with a readable message.
The claims module also goes through theorycheck's conformance kit
(:func:`theorycheck.testing.check_claims_module`), which finds that claim and nothing else.

Run: ``pytest --theorycheck-budget quick`` (CI expects exactly one failure)."""
import pytest

import proofs_check as pc
from theorycheck.testing import check_claims_module


@pytest.mark.theorycheck_claim("example.hoeffding")
def test_hoeffding():
    pass


@pytest.mark.theorycheck_claim("example.am_gm")
def test_am_gm():
    pass


@pytest.mark.theorycheck_claim("example.random_walk_sqrt")
def test_random_walk_sqrt():
    pass


@pytest.mark.theorycheck_claim("example.product_bound")
def test_product_bound_planted_false():
    pass


def _square(x):
    return x * x


def _linear(x):
    return 2 * x - 1


@pytest.mark.theorycheck_claim(expect="holds")
def test_a_claim_declared_in_the_test():
    # x² ≥ 2x − 1, i.e. 2x − 1 ≤ x² (the tangent at 1 lies below the parabola)
    return pc.inequality("example.tangent", _linear, _square, domain=pc.Box(x=(-5.0, 5.0)), register=False)


def test_the_claims_module_passes_the_conformance_kit_but_for_its_planted_claim():
    # A package without a planted error writes just: check_claims_module("mypkg.claims")
    with pytest.raises(AssertionError) as info:
        check_claims_module("theorycheck_example.claims")      # ids, sources, verdicts, pickling, figure
    problems = [line for line in str(info.value).splitlines() if line.startswith("  - ")]
    assert len(problems) == 1, problems
    assert problems[0].startswith("  - example.product_bound: verdict refuted, expected holds"), problems
