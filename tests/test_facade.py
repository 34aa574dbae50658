"""``import theorycheck``: the facade re-exports the public API, lazily, with the version."""
import subprocess
import sys

import theorycheck as tc


def test_every_exported_name_resolves():
    missing = [n for n in tc.__all__ if not hasattr(tc, n)]
    assert missing == []
    assert tc.__version__ and tc.__version__ != "0+unknown"


def test_import_is_cheap():
    code = ("import sys, theorycheck; "
            "print([m for m in ('scipy', 'sympy', 'numba', 'matplotlib') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_bound_declared_through_the_facade_is_decided():
    from proofs_check.engine import registry

    with registry.isolated():                 # the session's registry keeps only the shipped claims
        box = tc.Box(x=(0.0, 1.0))
        tc.inequality("facade.square_below_identity", lambda x: x * x, lambda x: x, domain=box)
        tc.inequality("facade.identity_below_square", lambda x: x, lambda x: x * x, domain=box)
        assert tc.verify("facade.square_below_identity", quick=True).verdict == "holds"
        assert tc.verify("facade.identity_below_square", quick=True).verdict == "refuted"
