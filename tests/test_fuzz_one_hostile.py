"""One hostile argument at a time, the others valid, the result checked against a reference.

The all-hostile fuzzer (``tests/test_fuzz_public_api.py``) draws every argument from
one hostile pool, so nearly every call stops at the first validator, and any finite
result passes.  Here each entry of :data:`VALID` builds a *valid* call (from a seeded
generator); then exactly one argument is replaced by a twist of its valid value
(:func:`_twists`) and the outcome must be one of

* a ``ValueError``/``TypeError`` whose message names **that** argument, or
* for a twist that keeps the value real (float32, int64, big-endian, non-contiguous,
  read-only, Fortran order, a list, a NumPy scalar, a complex array with zero imaginary
  part): a result equal (``rtol=1e-12``) to the float64 reference — the same call on
  ``np.asarray(twisted, dtype=float64)``; if that reference call is refused, the twisted
  call must be refused too;
* for NaN/±inf, ±1e308, a 400-digit integer, a wrong shape or an empty array: a result
  with no NaN (unless the valid result has NaN) — and for the group advantages an exact
  rational reference (:mod:`fractions`) on small batches up to ±1e308;

never a complex input silently truncated, a NaN, another exception, a hang (10 s) or a
crash: the numba-kernel wrappers of :mod:`seqproj.ensemble.cholesky_update` run their
cases in a subprocess, so a segfault is a reported failure, not a dead test run.

Coverage: functions, class constructors, methods (on a valid instance) and the checked
wrappers of numba kernels, from the ``__all__`` of the public packages;
:func:`test_no_raw_numba_dispatcher_in_a_public_all` keeps raw numba dispatchers out of
every ``__all__`` it does not list.  Default tier: one valid seed, every argument ×
every twist; ``-m slow``: Hypothesis draws 20 more seeds per entry (5 for a numba-kernel entry).
"""
from __future__ import annotations

import copy
import importlib
import inspect
import json
import math
import pkgutil
import signal
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import proofs_check.baselines as B
import proofs_check.mismatch as MM
import proofs_check.policies as P
import seqproj.ensemble as E
from seqproj.ensemble import cholesky_update as CU
from tests.exact_advantages import exact_advantages

# ----------------------------------------------------------------------------- valid calls


def _padded(g, N=3, T=4):
    """Left-aligned response mask, log-probabilities ≤ 0 (valid positions), a per-token KL ≥ 0."""
    lens = g.integers(1, T + 1, size=N)
    lens[0] = T
    mask = np.arange(T)[None, :] < lens[:, None]
    lp = np.log(g.uniform(0.05, 1.0, (N, T)))
    lm = np.log(g.uniform(0.05, 1.0, (N, T)))
    kl = g.uniform(0.0, 0.2, (N, T))
    return mask, lp, lm, kl


def _batch(g, N=4, L=3):
    r = g.normal(size=(N, L))
    m = (np.arange(L)[None, :] < g.integers(1, L + 1, size=N)[:, None]).astype(float)
    m[0] = 1.0
    gid = np.array([0, 0, 1, 1])[:N]
    lp = np.log(g.uniform(0.1, 1.0, (N, L)))
    spp = g.uniform(0.3, 1.0, (N, L))
    return r, m, gid, lp, spp


def _factor(g, d=3):
    A = g.normal(size=(d, d))
    return np.linalg.cholesky(A @ A.T + d * np.eye(d))


def _spd(g, d=3):
    A = g.normal(size=(d, d))
    return A @ A.T + d * np.eye(d)


def _mask_args(g):
    mask, lp, lm, kl = _padded(g)
    return dict(logp_pi=lp, logp_mu=lm, response_mask=mask)


def _verl_args(g):
    mask, lp, lm, kl = _padded(g)
    return dict(old_log_prob=lp, rollout_log_prob=lm, response_mask=mask)


def _group_args(g):
    r, m, gid, lp, spp = _batch(g)
    return dict(token_rewards=r, response_mask=m, group_ids=gid)


def _otb_args(g):
    r, m, gid, lp, spp = _batch(g)
    return dict(token_rewards=r, response_mask=m, group_ids=gid, log_probs=lp, sum_pi_squared=spp)


def _gradient_args(g):
    mask, lp, lm, kl = _padded(g)
    return dict(accept=np.array([True, False, True]), reward=g.normal(size=3), logp_pi=lp, logp_mu=lm,
                score=g.normal(size=(3, 4, 2)), response_mask=mask, baseline=0.25)


def _ens(g):
    return E.LinearEnsemblePP(3, 4, rng=np.random.default_rng(int(g.integers(1 << 30))))


def _hyper(g):
    return E.LinearHypermodel(3, 4, prior_factor=g.normal(size=(3, 4)))


#: name → (callable, valid-kwargs factory(g), options).  Options: ``sub`` runs the cases in a
#: subprocess (numba kernels behind the call); ``exact`` is an exact reference for huge values.
VALID = {
    # mismatch: masks and monitoring (complex refused, log-probabilities ≤ 0)
    "mismatch.trm_max_mask": (MM.trm_max_mask, lambda g: dict(kl=_padded(g)[3], response_mask=_padded(g)[0],
                                                               delta=0.1), {}),
    "mismatch.trm_avg_mask": (MM.trm_avg_mask, lambda g: dict(kl=_padded(g)[3], response_mask=_padded(g)[0],
                                                               delta_avg=0.1), {}),
    "mismatch.k2_max_mask": (MM.k2_max_mask, lambda g: dict(_mask_args(g), delta=0.3), {}),
    "mismatch.k3_mean_mask": (MM.k3_mean_mask, lambda g: dict(_mask_args(g), delta_avg=0.3), {}),
    "mismatch.sequence_mis_mask": (MM.sequence_mis_mask, lambda g: dict(_mask_args(g), C=2.0), {}),
    "mismatch.geometric_mask": (MM.geometric_mask, lambda g: dict(_mask_args(g), C_lo=0.5, C_hi=2.0), {}),
    "mismatch.length_neutral_mask": (MM.length_neutral_mask,
                                     lambda g: dict(_mask_args(g), eps=0.1, delta=0.2, delta_w=0.5), {}),
    "mismatch.length_neutral_weights": (MM.length_neutral_weights, lambda g: dict(T=5, eps=0.1, delta=0.2), {}),
    "mismatch.masked_gradient": (MM.masked_gradient, _gradient_args, {}),
    "mismatch.monitoring_statistics": (MM.monitoring_statistics, _mask_args, {}),
    "mismatch.verl_statistics": (MM.verl_statistics, lambda g: dict(_verl_args(g), clamp=20.0), {}),
    "mismatch.verl_is_weights[token]": (MM.verl_is_weights, lambda g: dict(_verl_args(g), level="token",
                                                                           mode="truncate", upper=2.0), {}),
    "mismatch.verl_is_weights[sequence]": (MM.verl_is_weights,
                                           lambda g: dict(_verl_args(g), level="sequence", mode="lo_hi",
                                                          upper=3.0, lower=0.5), {}),
    "mismatch.verl_rejection_mask": (MM.verl_rejection_mask,
                                     lambda g: dict(_verl_args(g), criteria={"seq_max_k2": 1.0}), {}),
    "mismatch.trm_acceptance": (MM.trm_acceptance, lambda g: dict(p=0.3, T=4), {}),
    "mismatch.proxy_acceptance": (MM.proxy_acceptance,
                                  lambda g: dict(mu=P.TabularPolicy.random(2, 3, np.random.default_rng(1)),
                                                 pi=P.TabularPolicy.random(2, 3, np.random.default_rng(2)),
                                                 delta=0.05),
                                  {"nan_ok": "false_accept_given_violation is NaN when no sequence violates "
                                             "(documented in ProxyAcceptance)"}),
    # baselines: group estimators (exact at ±1e308), OTB
    "baselines.group_mean_advantage": (B.group_mean_advantage, _group_args, {"exact": "mean"}),
    "baselines.rloo_advantage": (B.rloo_advantage, _group_args, {"exact": "rloo"}),
    "baselines.global_bstar_advantage": (B.global_bstar_advantage, lambda g: dict(_otb_args(g), eps=1e-8),
                                         {"exact": "bstar"}),
    "baselines.optimal_token_baseline_advantage": (B.optimal_token_baseline_advantage, _otb_args, {"sub": True}),
    "baselines.otb_advantage_numpy": (B.otb_advantage_numpy, _otb_args, {}),
    # policies (class constructor and methods)
    "policies.TabularPolicy": (P.TabularPolicy, lambda g: dict(logits=[g.normal(size=(1, 2)), g.normal(size=(2, 2))]),
                               {}),
    "policies.TabularPolicy.from_flat": (P.TabularPolicy.from_flat, lambda g: dict(x=g.normal(size=6), V=2, T=2), {}),
    "policies.TabularPolicy.log_probs": (lambda t: P.TabularPolicy.random(2, 3, np.random.default_rng(0)).log_probs(t),
                                         lambda g: dict(t=1), {}),
    "policies.TabularPolicy.with_logits": (
        lambda t, rows, new_rows: P.TabularPolicy.random(2, 2, np.random.default_rng(0)).with_logits(t, rows, new_rows),
        lambda g: dict(t=1, rows=np.array([0, 1]), new_rows=g.normal(size=(2, 2))), {}),
    # ensemble: the checked numba-kernel wrappers and their references (subprocess: a gap is a crash)
    "ensemble.chol_rank1_update": (CU.chol_rank1_update, lambda g: dict(L=_factor(g), x=g.normal(size=3)),
                                   {"sub": True, "inplace": "L"}),
    "ensemble.chol_rank1_update_ref": (CU.chol_rank1_update_ref, lambda g: dict(L=_factor(g), x=g.normal(size=3)),
                                       {}),
    "ensemble.solve_upper_t": (CU.solve_upper_t, lambda g: dict(L=_factor(g), g=g.normal(size=3)), {"sub": True}),
    "ensemble.solve_upper_t_ref": (CU.solve_upper_t_ref, lambda g: dict(L=_factor(g), g=g.normal(size=3)), {}),
    # ensemble: functions
    "ensemble.ridge_posterior": (E.ridge_posterior, lambda g: dict(X=g.normal(size=(5, 3)), y=g.normal(size=5),
                                                                   prior_var=2.0, noise_sd=0.5), {}),
    "ensemble.tracking_error": (E.tracking_error, lambda g: dict(Sigma=_spd(g), A=g.normal(size=(3, 4))), {}),
    "ensemble.checked_cholesky": (E.checked_cholesky, lambda g: dict(matrix=_spd(g)), {}),
    "ensemble.diagnose_factor": (E.diagnose_factor, lambda g: dict(Sigma=_spd(g), A=g.normal(size=(3, 6))), {}),
    "ensemble.fit_exponent": (E.fit_exponent, lambda g: dict(Ns=(4, 6, 8, 10), episodes=np.round(
        g.uniform(1, 50, (3, 4)) * np.array([1, 2, 4, 8]))), {}),
    "ensemble.isotonic_nonincreasing": (E.isotonic_nonincreasing, lambda g: dict(y=g.normal(size=6)), {}),
    "ensemble.clark_max": (E.clark_max, lambda g: dict(mu1=g.normal(size=3), mu2=g.normal(size=3),
                                                       a1=g.normal(size=(3, 4)), a2=g.normal(size=(3, 4))), {}),
    "ensemble.rlsvi_row_posterior": (E.rlsvi_row_posterior,
                                     lambda g: dict(n_h=np.array([1.0, 3.0]), T_h=np.array([0.5, -1.0])), {}),
    # ensemble: classes and their methods (on a valid instance)
    "ensemble.LinearEnsemblePP": (E.LinearEnsemblePP, lambda g: dict(d=3, M=4, prior_var=2.0, noise_sd=0.5,
                                                                      rng=np.random.default_rng(3)), {}),
    "ensemble.LinearEnsemblePP.update": (lambda x, y: _upd(_ens(np.random.default_rng(5)), x, y),
                                         lambda g: dict(x=g.normal(size=3), y=float(g.normal())), {}),
    "ensemble.LinearEnsemblePP.sample": (lambda zeta: _ens(np.random.default_rng(5)).sample(zeta=zeta),
                                         lambda g: dict(zeta=g.normal(size=4)), {}),
    "ensemble.LinearHypermodel": (E.LinearHypermodel, lambda g: dict(d=3, M=4, prior_factor=g.normal(size=(3, 4))),
                                  {}),
    "ensemble.LinearHypermodel.add": (lambda x, y, z: _add(_hyper(np.random.default_rng(5)), x, y, z),
                                      lambda g: dict(x=g.normal(size=3), y=float(g.normal()), z=g.normal(size=4)),
                                      {}),
    "ensemble.FiniteArmEnv": (E.FiniteArmEnv, lambda g: dict(d=3, K=5, theta_var=2.0, noise_sd=0.5), {}),
    "ensemble.FiniteArmEnv.draw": (lambda rng: E.FiniteArmEnv(3, 5).draw(rng),
                                   lambda g: dict(rng=np.random.default_rng(4)), {}),
    "ensemble.DeepSea": (E.DeepSea, lambda g: dict(N=4, batch=2, rng=np.random.default_rng(4)), {}),
    "ensemble.DeepSea.step": (lambda action: _step(action), lambda g: dict(action=np.array([0, 1])), {}),
}


def _upd(ens, x, y):
    ens.update(x, y)
    return ens.mean.copy() if hasattr(ens, "mean") else ens.sample(zeta=np.ones(ens.M))


def _add(h, x, y, z):
    h.add(x, y, z)
    return h.sample(np.random.default_rng(0))


def _step(action):
    env = E.DeepSea(4, batch=2, rng=np.random.default_rng(4))
    env.reset()
    return env.step(action)


# ----------------------------------------------------------------------------- twists

#: twists whose value is real and equal after ``np.asarray(·, dtype=float64)``: result = reference
EQUIV = {"float32", "int64", "big_endian", "non_contiguous", "read_only", "fortran", "list", "complex_real",
         "np_float32", "np_int64", "bool_array", "array0d"}
#: twists that must be refused: a complex value is never truncated, a string/None is no number
REFUSE = {"complex", "str", "none", "complex_scalar", "vector", "bad_choice", "str_array", "int", "float",
          "negative"}


def _twists(value, default):
    """``(twist name, hostile value)`` for a valid ``value`` (one argument)."""
    out = []
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        x = np.asarray(value)
        fl = x.astype(float)
        out += [("int64", x.astype(np.int64)), ("big_endian", x.astype(x.dtype.newbyteorder(">"))),
                ("read_only", _ro(x)), ("fortran", np.asfortranarray(x)), ("list", x.tolist()),
                ("empty", x[:0]), ("wrong_shape", x[..., None]), ("bigint", _obj(x, 10 ** 400))]
        if x.ndim:
            out.append(("non_contiguous", np.repeat(x, 2, axis=-1)[..., ::2]))
            out.append(("drop_last", x[:-1]))
        if x.dtype.kind == "f":
            out += [("float32", x.astype(np.float32)), ("complex", x + 1j), ("complex_real", x.astype(complex)),
                    ("nan", _put(fl, math.nan)), ("inf", _put(fl, math.inf)), ("-inf", _put(fl, -math.inf)),
                    ("huge", _put(fl, 1e308)), ("-huge", _put(fl, -1e308))]
        if x.dtype.kind == "b":
            out.append(("bool_array", x))
    elif isinstance(value, (float, int)) and not isinstance(value, bool):
        out += [("nan", math.nan), ("inf", math.inf), ("huge", 1e308), ("-huge", -1e308), ("bigint", 10 ** 400),
                ("complex_scalar", complex(value, 1.0)), ("np_float32", np.float32(value)), ("str", "0.5"),
                ("array0d", np.array(value)), ("vector", np.array([value, value]))]
        if isinstance(value, int) or float(value).is_integer():
            out.append(("np_int64", np.int64(value)))
    elif isinstance(value, str):
        out += [("bad_choice", value + "_x"), ("str_array", np.array([value])), ("int", 1)]
    elif isinstance(value, np.random.Generator):
        out += [("float", 1.5), ("str", "x"), ("negative", -1)]
    else:
        out += [("str", "x"), ("int", 3)]
    if default is not None and not isinstance(value, np.random.Generator):
        out.append(("none", None))
    return out


def _ro(x):
    y = x.copy()
    y.setflags(write=False)
    return y


def _obj(x, v):
    y = x.astype(object)
    if y.size:
        y.flat[0] = v
    return y


def _put(x, v):
    y = x.copy()
    if y.size:
        y.flat[0] = v
    return y


def _copied(kw):
    """Fresh copies of the valid arguments (arrays are mutated in place, generators consumed)."""
    return copy.deepcopy(kw)


def _as_ref(v, like):
    """The reference input of an equivalent twist: ``v`` converted to the valid value's kind — float64
    for real data, int64 for integer (index) data, bool for masks — C-contiguous and writeable."""
    kind = np.asarray(like).dtype.kind
    if kind in "iu":
        if np.ndim(v) == 0 and not isinstance(like, np.ndarray):
            return int(v)
        return np.array(np.asarray(v).real, np.int64)
    if kind == "b":
        return np.array(np.asarray(v), dtype=bool)
    if np.ndim(v) == 0 and not isinstance(like, np.ndarray):
        return float(np.real(v))
    return np.ascontiguousarray(np.asarray(v).real, dtype=np.float64)


# ----------------------------------------------------------------------------- checks

class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


#: Seconds one call may take; a child running numba-kernel cases allows for a first compilation of a
#: new type signature (read-only, big-endian and Fortran arrays each compile once).
TIMEOUT = [10]


def _call(fn, kwargs):
    """``("ok", result)`` / ``("refused", exc)`` / ``("error", text)``."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT[0])
    try:
        return "ok", fn(**kwargs)
    except (ValueError, TypeError) as exc:
        return "refused", exc
    except _Timeout:
        return "error", "ran past 10 s"
    except Exception as exc:  # noqa: BLE001 - any other exception is a finding
        return "error", f"{type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _flat(x, depth=0):
    """Arrays and floats inside a result (dataclasses, dicts, tuples), for comparison."""
    if depth > 4:
        return []
    if isinstance(x, (bool, np.bool_)):
        return [np.array(bool(x))]
    if isinstance(x, (int, float, np.floating, np.integer)):
        return [np.array(float(x))]
    if isinstance(x, np.ndarray):
        return [x]
    if isinstance(x, dict):
        return [a for k in sorted(x, key=str) for a in _flat(x[k], depth + 1)]
    if isinstance(x, (list, tuple)):
        return [a for v in x for a in _flat(v, depth + 1)]
    if hasattr(x, "__dict__"):
        return [a for k, v in sorted(vars(x).items()) if not k.startswith("_") for a in _flat(v, depth + 1)]
    return []


def _has_nan(x) -> bool:
    return any(a.dtype.kind in "fc" and bool(np.isnan(a).any()) for a in _flat(x))


def _equal(a, b) -> bool:
    fa, fb = _flat(a), _flat(b)
    if len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb):
        if np.shape(x) != np.shape(y):
            return False
        if x.dtype.kind in "biuf" and y.dtype.kind in "biuf":
            if not np.allclose(np.asarray(x, float), np.asarray(y, float), rtol=1e-12, atol=1e-300, equal_nan=True):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


def _exact(kind, kw):
    """Exact rational advantages of the group estimators (as floats, correctly rounded)."""
    lp, spp = (kw.get("log_probs"), kw.get("sum_pi_squared")) if kind == "bstar" else (None, None)
    return exact_advantages(kind, np.asarray(kw["token_rewards"], dtype=float),
                            np.asarray(kw["response_mask"], dtype=float), list(np.asarray(kw["group_ids"])),
                            None if lp is None else np.asarray(lp, float),
                            None if spp is None else np.asarray(spp, float), float(kw.get("eps", 1e-8)))


def _check_case(name, arg, twist, hostile, base, base_out, opts):
    """A failure message, or None."""
    fn = VALID[name][0]
    # the float64 reference inputs are built before the call (an in-place function mutates its input)
    ref_kw = dict(_copied(base), **{arg: _as_ref(hostile, base[arg])}) if twist in EQUIV else None
    kw = dict(_copied(base), **{arg: hostile})
    status, out = _call(fn, kw)
    tag = f"{name}({arg}={twist})"
    if status == "error":
        return f"{tag}: {out}"
    if status == "refused":
        if arg not in str(out):
            return f"{tag}: {type(out).__name__} naming no {arg!r}: {out}"
        return None
    if twist in REFUSE:
        return f"{tag}: accepted (returned {type(out).__name__}) instead of refusing"
    if _has_nan(out) and not _has_nan(base_out) and "nan_ok" not in opts:
        return f"{tag}: returned NaN"
    if twist in EQUIV:
        rs, ref = _call(fn, ref_kw)
        if rs != "ok":
            return f"{tag}: accepted while the float64 reference call is refused ({ref})"
        if "inplace" in opts:
            out, ref = np.asarray(kw[opts["inplace"]], float), ref_kw[opts["inplace"]]
        if not _equal(out, ref):
            return f"{tag}: differs from the float64 reference"
    if "exact" in opts and twist in ("huge", "-huge") and arg == "token_rewards":
        want = _exact(opts["exact"], kw)
        got = out[0]
        scale = np.max(np.abs(np.asarray(kw["token_rewards"], float))) * (got.size * 8 * np.finfo(float).eps)
        if not (np.all(np.isfinite(got)) and np.allclose(got, want, rtol=0, atol=scale)):
            return f"{tag}: {got.tolist()} ≠ exact {want.tolist()}"
    return None


def run_cases(name, seed=0):
    """``(number of cases, failures)`` for one entry of :data:`VALID` at one valid seed."""
    fn, make, opts = VALID[name]
    base = make(np.random.default_rng(seed))
    bs, base_out = _call(fn, _copied(base))
    assert bs == "ok", f"{name}: the valid call fails: {base_out}"
    params = inspect.signature(fn).parameters
    n, fails = 0, []
    for arg, value in base.items():
        default = params[arg].default if arg in params else inspect.Parameter.empty
        for twist, hostile in _twists(value, None if default is None else default):
            n += 1
            msg = _check_case(name, arg, twist, hostile, base, base_out, opts)
            if msg:
                fails.append(msg)
    return n, fails


def _run(name, seed=0):
    """In-process, or in a child interpreter for numba-kernel entries (a segfault is a failure)."""
    if not VALID[name][2].get("sub"):
        return run_cases(name, seed)
    # imported as ``tests.test_fuzz_one_hostile`` from the repository root: putting ``tests`` itself on
    # sys.path would make ``tests/seqproj`` shadow the installed ``seqproj`` package
    code = ("import json; import tests.test_fuzz_one_hostile as T; T.TIMEOUT[0] = 120; "
            f"n, f = T.run_cases({name!r}, {seed}); print(json.dumps([n, f]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900,
                          cwd=_ROOT)
    if proc.returncode != 0:
        return 0, [f"{name}: child exited with {proc.returncode} (signal {-proc.returncode} if < 0): "
                   f"{proc.stderr[-500:]}"]
    n, fails = json.loads(proc.stdout.strip().splitlines()[-1])
    return n, fails


_ROOT = str(__import__("pathlib").Path(__file__).resolve().parents[1])


@pytest.mark.parametrize("name", sorted(VALID))
def test_one_hostile_argument_is_refused_by_name_or_matches_the_reference(name):
    n, fails = _run(name)
    assert n > 0
    assert not fails, f"{len(fails)} of {n} cases failed:\n" + "\n".join(fails[:20])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VALID))
def test_one_hostile_argument_many_valid_seeds(name):
    # a numba-kernel entry spawns one child per seed (~10 s): 5 seeds there, 20 elsewhere
    @settings(max_examples=5 if VALID[name][2].get("sub") else 20, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(1, 2 ** 32 - 1))
    def run(seed):
        n, fails = _run(name, seed)
        assert not fails, "\n".join(fails[:20])

    run()
