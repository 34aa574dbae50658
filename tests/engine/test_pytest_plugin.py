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


# --------------------------------------------------------------------------- issue 32 / issue 35

ONE_TEST = '''
import pytest


@pytest.mark.theorycheck_claim("plug.rare")
def test_rare_holds():
    pass
'''


def test_one_test_file_finds_the_claims_file_beside_it(pytester):
    """`pytest test_one.py` collects no claims file: the plugin loads the theorycheck_files beside it."""
    pytester.makeini("[pytest]\ntheorycheck_files = claims_*.py\n")
    pytester.makepyfile(claims_mine=CLAIMS, test_one=ONE_TEST)
    res = pytester.runpytest("test_one.py", "--theorycheck-budget=quick", "-p", "no:cacheprovider")
    res.assert_outcomes(passed=1)


def test_an_unknown_claim_id_says_where_it_looked_and_how_to_point_at_the_file(pytester):
    pytester.makepyfile(claims_mine=CLAIMS, test_one=ONE_TEST)        # no theorycheck_files: not found
    res = pytester.runpytest("test_one.py", "--theorycheck-budget=quick", "-p", "no:cacheprovider")
    res.assert_outcomes(failed=1)
    out = res.stdout.str()
    assert "unknown claim_id 'plug.rare'" in out and "theorycheck_files = (not set)" in out
    assert "found no claims file" in out and "file='my_claims.py'" in out
    assert "During handling" not in out and "Traceback" not in out
    # the marker's file= (relative to the test file) is the direct way
    pytester.makepyfile(test_one=ONE_TEST.replace('("plug.rare")', '("plug.rare", file="claims_mine.py")'))
    res = pytester.runpytest("test_one.py", "--theorycheck-budget=quick", "-p", "no:cacheprovider")
    res.assert_outcomes(passed=1)


def test_a_claims_module_that_exits_at_import_is_a_collection_error_not_internalerror(pytester):
    pytester.makeini("[pytest]\ntheorycheck_files = claims_*.py\n")
    pytester.makepyfile(claims_exit="import sys\nsys.exit(0)\n",
                        test_plain="def test_x():\n    pass\n")
    res = pytester.runpytest("-p", "no:cacheprovider")
    out = res.stdout.str() + res.stderr.str()
    assert res.ret == 2 and "INTERNALERROR" not in out, out       # pytest's "errors during collection"
    assert "claims_exit.py called sys.exit(0) while it was imported" in out
    res.assert_outcomes(passed=0, errors=1)


def test_a_claim_failing_in_a_chunk_is_a_short_failure(pytester):
    pytester.makepyfile(test_chunk=textwrap.dedent('''
        import pytest
        import proofs_check as pc


        def boom(rng, n):
            if n > 100:                     # past the declaration's small probe: fails in a chunk
                raise ZeroDivisionError("the claim's own bug")
            return rng.random(n) < 0.01


        @pytest.mark.theorycheck_claim
        def test_boom():
            return pc.probability("plug.boom", boom, delta=0.05, quick_budget=2_000)
    '''))
    res = pytester.runpytest("--theorycheck-budget=quick", "-p", "no:cacheprovider")
    res.assert_outcomes(failed=1)
    out = res.stdout.str()
    assert "claim plug.boom failed in chunk" in out and "ZeroDivisionError" in out and "no verdict" in out
    assert "proofs_check/engine" not in out and len(out.splitlines()) < 40, out


def test_the_nearest_claims_file_wins_and_loading_stops_once_found(pytester):
    """A test in a subfolder finds the claims file beside it, not a same-named copy in the rootdir."""
    pytester.makeini("[pytest]\ntheorycheck_files = claims_*.py\n")
    pytester.makepyfile(claims_mine=CLAIMS)
    sub = pytester.mkdir("sub")
    (sub / "claims_mine.py").write_text(CLAIMS)
    (sub / "test_one.py").write_text(ONE_TEST)
    res = pytester.runpytest("sub/test_one.py", "--theorycheck-budget=quick", "-p", "no:cacheprovider")
    res.assert_outcomes(passed=1)


def test_a_claims_file_that_exits_when_loaded_for_a_test_is_named_in_its_failure(pytester):
    pytester.makeini("[pytest]\ntheorycheck_files = claims_*.py\n")
    pytester.makepyfile(claims_exit="import sys\nsys.exit(0)\n", test_one=ONE_TEST)
    res = pytester.runpytest("test_one.py", "-p", "no:cacheprovider")
    res.assert_outcomes(failed=1)
    out = res.stdout.str()
    assert "INTERNALERROR" not in out and "unknown claim_id 'plug.rare'" in out
    assert "could not load: claims file" in out and "claims_exit.py called sys.exit(0)" in out
