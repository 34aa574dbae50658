"""Every public function answers hostile input with a result or a clear refusal.

The functions come from the ``__all__`` of each package and of the library
modules behind the curated facades (a new public function is fuzzed
automatically).  Hypothesis draws each argument from a pool of
hostile and extreme values (``None``, bools, strings, complex numbers,
``Decimal``, negative/zero/huge integers, ``nan``/``±inf``, subnormals, empty
and non-finite arrays, generators).  An outcome is acceptable when the call

* returns a result without NaN, or
* raises ``ValueError``/``TypeError`` whose message names one of the
  function's parameters (or says what is wrong with "argument"/"must");

anything else — ``IndexError``, ``ZeroDivisionError``, ``OverflowError``,
``MemoryError``, ``AttributeError``, a NaN result, a call that runs past 10 s
— fails the test.  30 inputs per function in the default run; 300 under
``-m slow``.
"""
from __future__ import annotations

import decimal
import importlib
import inspect
import math
import signal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

PACKAGES = ("proofs_check", "proofs_check.engine", "proofs_check.policies", "proofs_check.logits", "proofs_check.symbolic",
            "proofs_check.mismatch", "proofs_check.baselines", "seqproj", "seqproj.ensemble",
            "proofs_check.strategies")

#: The library modules behind the curated facades of ``seqproj.ensemble`` and
#: ``proofs_check.baselines``: their ``__all__`` (the claims' chunk functions, case generators and
#: reductions, which the facades do not export) is fuzzed too.
MODULES = (*(f"seqproj.ensemble.{m}" for m in (
               "posterior_factor", "batch_posterior", "hypermodel", "tracking", "diagnosis", "index_families",
               "equivalences", "failure_modes", "environments", "agents", "cholesky_update", "bandits",
               "regret_sweep", "deepsea", "deep_agents", "deep_exploration")),
           *(f"proofs_check.baselines.{m}" for m in (
               "otb", "group", "population", "population_mp", "moments", "proxy", "logit_dynamics",
               "instances", "ragged", "dapo", "toy", "toy_sweeps", "experiments")))

#: Not fuzzed: a lazy generator (checks its arguments when iterated; its items are
#: ``verify_claim``, fuzzed), a function that starts worker pools (tested in
#: tests/engine/test_executors.py and the CLI table), and one without arguments.
SKIP = {"proofs_check.engine.verify_claims", "proofs_check.engine.make_executor",
        "proofs_check.engine.clear_measurements"}

HOSTILE = [None, True, False, "1", "x", 1 + 1j, decimal.Decimal("0.5"), -1, 0, 1, 2, 3, 7, 10 ** 400,
           -(10 ** 30), math.nan, math.inf, -math.inf, 1e-320, 0.5, 0.99, 1e300, np.float64(0.1),
           np.int64(4), np.array([]), np.array([math.nan, 1.0]), np.array([[0.2, 0.8], [0.5, 0.5]]),
           np.array([0.1, 0.9]), [0.5, 0.5], (1, 2), np.random.default_rng(0), object()]


def _public_functions():
    out, seen = [], set()
    for pkg in PACKAGES + MODULES:
        mod = importlib.import_module(pkg)
        for name in getattr(mod, "__all__", ()):
            fn = getattr(mod, name, None)
            full = f"{pkg}.{name}"
            if inspect.isfunction(fn) and full not in SKIP and not (pkg in MODULES and fn in seen):
                seen.add(fn)
                out.append(pytest.param(fn, id=full))
    return out


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _names(fn) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _has_nan(x, depth=0) -> bool:
    if depth > 3:
        return False
    if isinstance(x, float):
        return math.isnan(x)
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return bool(np.isnan(x).any())
    if isinstance(x, (list, tuple)) and len(x) < 10_000:
        return any(_has_nan(v, depth + 1) for v in x)
    return False


def _check_call(fn, args: dict):
    params = inspect.signature(fn).parameters
    required = [n for n, p in params.items() if p.default is p.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    kwargs = {n: v for n, v in args.items() if n in params}
    missing = [n for n in required if n not in kwargs]
    assert not missing
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(10)
    try:
        result = fn(**kwargs)
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        named = any(n in msg for n in params) or "argument" in msg or "must" in msg
        assert named, f"{fn.__qualname__}({kwargs!r}) raised {type(exc).__name__} naming no argument: {msg!r}"
        return
    except _Timeout:
        pytest.fail(f"{fn.__qualname__}({kwargs!r}) ran past 10 s")
    except Exception as exc:          # anything else is a defect
        pytest.fail(f"{fn.__qualname__}({kwargs!r}) raised {type(exc).__name__}: {exc}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert not _has_nan(result), f"{fn.__qualname__}({kwargs!r}) returned NaN"


def _fuzz(fn, examples: int):
    names = [n for n, p in inspect.signature(fn).parameters.items()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    optional = {n for n, p in inspect.signature(fn).parameters.items() if p.default is not p.empty}
    value = st.sampled_from(HOSTILE)
    strat = st.fixed_dictionaries({n: value for n in names if n not in optional},
                                  optional={n: value for n in names if n in optional})

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strat)
    def run(args):
        _check_call(fn, args)

    run()


@pytest.mark.parametrize("fn", _public_functions())
def test_public_function_refuses_hostile_input_clearly(fn):
    _fuzz(fn, 30)


@pytest.mark.slow
@pytest.mark.parametrize("fn", _public_functions())
def test_public_function_refuses_hostile_input_clearly_300(fn):
    _fuzz(fn, 300)
