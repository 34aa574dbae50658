"""The pytest plugin: claims become tests; the verdict gates the test; failures are readable."""
import textwrap

import pytest

from proofs_check.engine import registry

pytest_plugins = ["pytester"]

CLAIMS = '''
import numpy as np
import proofs_check as pc


def rare(rng, n):
    return rng.random(n) < 0.01


def often(rng, n):
    return rng.random(n) < 0.2


def lhs(a, b):
    return a * b


def rhs(a, b):
    return 0.5 + 0.0 * a


pc.probability("plug.rare", rare, delta=0.05, quick_budget=20_000)
pc.probability("plug.often", often, delta=0.05, quick_budget=20_000)
pc.inequality("plug.product", lhs, rhs, domain=pc.Box(a=(0.0, 2.0), b=(0.0, 2.0)), quick_budget=400)
'''


@pytest.fixture(autouse=True)
def _isolated_registry():
    with registry.isolated():
        yield


def test_collected_claim_file_passes_true_claims_and_explains_false_ones(pytester):
    pytester.makeini("[pytest]\ntheorycheck_files = claims_*.py\n")
    pytester.makepyfile(claims_mine=CLAIMS)
    res = pytester.runpytest("--theorycheck-budget=quick", "-p", "no:cacheprovider")
    res.assert_outcomes(passed=1, failed=2)
    out = res.stdout.str()
    assert "claim plug.often: verdict refuted, expected holds" in out
    assert "interval (0.99): [" in out and "seed 0" in out
    assert "claim plug.product: verdict refuted, expected holds" in out
    assert "counterexample (shrunk): {" in out and "reproduce: theorycheck reproduce" in out


def test_marker_on_a_test_returning_a_claim(pytester):
    pytester.makepyfile(test_marked=textwrap.dedent('''
        import pytest
        import proofs_check as pc


        def events(rng, n):
            return rng.random(n) < 0.2


        @pytest.mark.theorycheck_claim(expect="refuted")
        def test_false_bound_is_refuted():
            return pc.probability("plug.m1", events, delta=0.05, quick_budget=20_000)


        @pytest.mark.theorycheck_claim
        def test_true_bound_holds():
            return pc.probability("plug.m2", events, delta=0.5, quick_budget=20_000)


        @pytest.mark.theorycheck_claim("selftest.logit_energy_identity")
        def test_a_registered_claim_by_id():
            pass


        @pytest.mark.theorycheck_claim
        def test_too_small_a_budget_is_inconclusive():
            return pc.probability("plug.m3", events, delta=0.21, quick_budget=1_000, chunk_size=1_000)
    '''))
    res = pytester.runpytest("--theorycheck-budget=quick", "-p", "no:cacheprovider")
    res.assert_outcomes(passed=3, failed=1)
    assert "claim plug.m3: verdict inconclusive, expected holds" in res.stdout.str()
    res = pytester.runpytest("--theorycheck-budget=quick", "--theorycheck-inconclusive=xfail",
                             "-p", "no:cacheprovider")
    res.assert_outcomes(passed=3, xfailed=1)


def test_a_session_without_claims_is_untouched(pytester):
    pytester.makepyfile(test_plain="def test_x():\n    assert 1 + 1 == 2\n")
    res = pytester.runpytest("-p", "no:cacheprovider")
    res.assert_outcomes(passed=1)


def test_bad_options_are_usage_errors(pytester):
    pytester.makepyfile(test_plain="def test_x():\n    pass\n")
    res = pytester.runpytest("--theorycheck-alpha=2", "-p", "no:cacheprovider")
    assert res.ret != 0 and "--theorycheck-alpha must lie in (0, 1)" in res.stderr.str() + res.stdout.str()
