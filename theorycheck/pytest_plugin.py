"""The theorycheck pytest plugin: a claim becomes a test that gates CI on its verdict.

Installed with theorycheck (entry point ``pytest11``); it adds nothing to a
session that does not use it, and imports nothing beyond pytest and the
standard library until a claim test runs.

Two ways to make a claim a test:

* **a marker** on a test function that returns a claim (declared with
  ``register=False`` or not), a function decorated into one, or that names
  a registered claim in the marker::

      @pytest.mark.theorycheck_claim(expect="holds")
      def test_pinsker():
          return pc.inequality("mine.pinsker", tv, pinsker_rhs, domain=pc.Simplex(3, names=("p", "q")))

      @pytest.mark.theorycheck_claim("example.tail")      # a claim of an installed package
      def test_tail():
          pass

      @pytest.mark.theorycheck_claim("mine.bound", file="claims_mine.py")   # a claims file beside the test
      def test_mine():
          pass

  Claims declared inside the test are registered only while it runs.  A claim
  named by id that is not registered is looked for, before the test runs, in
  the marker's ``file=`` (relative to the test file) and in the files matching
  ``theorycheck_files`` in the test's folder and in the rootdir — so
  ``pytest test_one.py`` finds the claims of a file it does not collect; the
  failure for an unknown id names the folders searched and the files loaded.
* **collection of claim files**: the ini option ``theorycheck_files`` (glob
  patterns, e.g. ``claims_*.py``) makes pytest load each matching file and
  collect one test item per claim it declares.

A test passes when the verdict equals the expectation: the marker's
``expect``, else the claim's ``expected``, else ``"holds"``.  Otherwise it
fails with the verdict, the evidence, the interval, the seed and the worst
point (a shrunk counterexample with its reproduce line for an inequality).
An *inconclusive* verdict fails, or xfails with
``--theorycheck-inconclusive=xfail`` (ini ``theorycheck_inconclusive``).

Options (command line, or ini ``theorycheck_<name>``):
``--theorycheck-budget`` (an integer, ``quick`` or ``default``; default
``default``: each claim's default budget), ``--theorycheck-alpha`` (default
0.01), ``--theorycheck-seed`` (default 0: seeds are fixed, so a test's
outcome is reproducible, and printed on failure), ``--theorycheck-inconclusive``.

**Flakiness bound.** A claim test fails *spuriously* — its verdict is the
wrong decisive one although the statement is as expected — with probability
at most α per claim over the choice of seed, for the verdicts whose
guarantee is ``exact`` or ``anytime-valid`` (≈ α for ``asymptotic`` ones;
an inequality is refuted only by a confirmed counterexample, so a true
inequality never fails spuriously, while a false one may be missed).  For a
suite of k claim tests, ``--theorycheck-alpha`` = α/k bounds the chance that
*any* fails spuriously by α (Bonferroni).  An inconclusive verdict is not a
statistical error but too small a budget: raise the budget, or xfail it.
"""
from __future__ import annotations

import fnmatch

import pytest

INCONCLUSIVE = ("fail", "xfail")


def pytest_addoption(parser):
    group = parser.getgroup("theorycheck", "theorycheck claims as tests")
    group.addoption("--theorycheck-budget", default=None, metavar="N",
                    help="units of work per claim: an integer, 'quick' or 'default' (each claim's own)")
    group.addoption("--theorycheck-alpha", default=None, metavar="ALPHA",
                    help="error level of each claim's verdict (default 0.01; use α/k for k claims)")
    group.addoption("--theorycheck-seed", default=None, metavar="SEED", help="root seed (default 0, fixed)")
    group.addoption("--theorycheck-inconclusive", default=None, choices=INCONCLUSIVE,
                    help="what an inconclusive verdict does: fail (default) or xfail")
    parser.addini("theorycheck_files", type="args", default=[],
                  help="glob patterns of claim files collected as tests (e.g. claims_*.py)")
    parser.addini("theorycheck_budget", default="default", help="see --theorycheck-budget")
    parser.addini("theorycheck_alpha", default="0.01", help="see --theorycheck-alpha")
    parser.addini("theorycheck_seed", default="0", help="see --theorycheck-seed")
    parser.addini("theorycheck_inconclusive", default="fail", help="see --theorycheck-inconclusive")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "theorycheck_claim(claim=None, *, expect=None): the test returns a claim (or names one "
                   "by id); it passes when the claim's verdict equals expect (default: the claim's "
                   "expected verdict, else 'holds')")
    _settings(config)                         # bad options are usage errors at once


def _setting(config, name):
    value = config.getoption(f"--theorycheck-{name}")
    return value if value is not None else config.getini(f"theorycheck_{name}")


def _settings(config) -> dict:
    budget = str(_setting(config, "budget")).strip()
    out = {"budget": None, "quick": False}
    if budget == "quick":
        out["quick"] = True
    elif budget != "default":
        from proofs_check.engine.validate import check_budget

        try:
            out["budget"] = int(budget)
        except ValueError:
            raise pytest.UsageError(f"--theorycheck-budget must be an integer, 'quick' or 'default', "
                                    f"got {budget!r}") from None
        try:                                  # the engine's rule, checked here rather than in every test
            check_budget(out["budget"])
        except ValueError as exc:
            raise pytest.UsageError(f"--theorycheck-{exc} (or 'quick' / 'default')") from None
    from proofs_check.engine.validate import check_alpha

    text = str(_setting(config, "alpha")).strip()
    try:
        alpha = float(text)
    except ValueError:
        raise pytest.UsageError(f"--theorycheck-alpha must be a number in (0, 1), got {text!r}") from None
    if not 0.0 < alpha < 1.0:
        raise pytest.UsageError(f"--theorycheck-alpha must lie in (0, 1), got {alpha}")
    try:                                      # the engine's floor (MIN_ALPHA), here rather than in every test
        out["alpha"] = check_alpha(alpha)
    except ValueError as exc:
        raise pytest.UsageError(f"--theorycheck-{exc}") from None
    text = str(_setting(config, "seed")).strip()
    try:
        out["seed"] = int(text)
    except ValueError:
        raise pytest.UsageError(f"--theorycheck-seed must be an integer ≥ 0, got {text!r}") from None
    if out["seed"] < 0:
        raise pytest.UsageError(f"--theorycheck-seed must be ≥ 0, got {out['seed']}")
    out["inconclusive"] = str(_setting(config, "inconclusive"))
    if out["inconclusive"] not in INCONCLUSIVE:
        raise pytest.UsageError(f"theorycheck_inconclusive must be one of {INCONCLUSIVE}, "
                                f"got {out['inconclusive']!r}")
    return out


def failure_message(r, expect: str) -> str:
    """The verdict, evidence, interval, seed and worst point of result ``r`` — what a failing
    claim test prints."""
    lines = [f"claim {r.claim}: verdict {r.verdict}, expected {expect} "
             f"(guarantee {r.guarantee or '-'}, alpha {r.alpha:g}, seed {r.seed})",
             f"  statement: {r.statement}",
             f"  evidence: {r.summary()}"]
    for name in ("ci", "exponent_ci"):
        ci = getattr(r, name, None)
        if ci is not None:
            lines.append(f"  interval ({1 - r.alpha:.4g}): [{ci[0]:.6g}, {ci[1]:.6g}]")
    wp = getattr(r, "worst_point", None)
    if isinstance(wp, dict) and "counterexample" in wp:
        lines.append(f"  counterexample (shrunk): {wp['counterexample']}  lhs={wp['lhs']:.6g} rhs={wp['rhs']:.6g} "
                     f"({wp['confirmed_by']})")
        lines.append(f"  reproduce: {wp['reproduce']}")
    elif wp is not None:
        lines.append(f"  worst point: {wp}")
    lines += [f"  warning: {w}" for w in r.warnings]
    lines.append(f"  seed {r.seed} is fixed: the same run gives this verdict again "
                 f"(--theorycheck-seed N tries another)")
    return "\n".join(lines)


def check_claim(config, claim, expect: str | None = None):
    """Verify ``claim`` under the session's settings and pass, fail or xfail."""
    __tracebackhide__ = True
    from proofs_check.engine.claims import Claim
    from proofs_check.engine.verify import verify_claim

    if not isinstance(claim, Claim):
        pytest.fail(f"theorycheck_claim: the test must return a claim (or the marker name one by id), "
                    f"got {type(claim).__name__}", pytrace=False)
    expect = expect or claim.expected or "holds"
    if expect not in ("holds", "refuted", "inconclusive"):
        pytest.fail(f"theorycheck_claim: expect must be holds, refuted or inconclusive, got {expect!r}",
                    pytrace=False)
    s = _settings(config)
    try:
        r = verify_claim(claim, budget=s["budget"], quick=s["quick"], seed=s["seed"], alpha=s["alpha"])
    except Exception as exc:                   # the claim's own code failed: one line, not the engine's stack
        from proofs_check.engine.executors import claim_failure

        failure = claim_failure(exc, claim.id)
        if failure is None:
            raise
    else:
        failure = None
    if failure is not None:                   # outside the except: no "During handling …" chain
        import os

        trace = f"\n{failure.trace.rstrip()}" if os.environ.get("THEORYCHECK_DEBUG") and failure.trace else \
            " (THEORYCHECK_DEBUG=1 shows the traceback)"
        pytest.fail(f"theorycheck_claim: {failure}; no verdict{trace}", pytrace=False)
    if r.verdict == expect:
        return r
    msg = failure_message(r, expect)
    if r.verdict == "inconclusive" and s["inconclusive"] == "xfail":
        pytest.xfail(msg)
    pytest.fail(msg, pytrace=False)


def _target(marker, returned):
    return marker.args[0] if marker.args else marker.kwargs.get("claim", returned)


def _claims_files_near(item, marker) -> tuple[list, list]:
    """The claims files a test may name claims from, nearest first, and the folders searched:
    the marker's ``file=`` (relative to the test file), then the files matching the ini option
    ``theorycheck_files`` in the test file's folder, then in the rootdir (not recursive).
    ``pytest one_test.py`` collects no claims file, so these are loaded on demand."""
    from pathlib import Path

    here = Path(str(item.path)).parent
    files, folders = [], []
    given = marker.kwargs.get("file")
    if given is not None:
        if not isinstance(given, (str, Path)):
            pytest.fail(f"theorycheck_claim: file= must be a path to a claims file, got {given!r}", pytrace=False)
        p = Path(given)
        files.append(p if p.is_absolute() else here / p)
    patterns = item.config.getini("theorycheck_files")
    for folder in dict.fromkeys([here, Path(str(item.config.rootpath))]):
        folders.append(folder)
        for pat in patterns:
            files += sorted(folder.glob(pat))
    return list(dict.fromkeys(f for f in files if f.suffix == ".py")), folders


def _load_claims_file(path) -> str | None:
    """Load one claims file (:func:`proofs_check.engine.registry.load_user_claims`); the one-line
    reason when it fails, or exits, while it is imported (``None`` when it loaded)."""
    from proofs_check.engine.registry import load_user_claims

    try:
        load_user_claims(str(path))
    except ValueError as exc:
        return str(exc)
    except SystemExit as exc:
        return (f"claims file {path} called sys.exit({exc.code!r}) while it was imported; a claims file "
                f"only declares claims")
    return None


def _load_for(item, marker) -> None:
    """Before a test that names a claim by id that is not registered: load the claims files
    near it (:func:`_claims_files_near`), nearest first, until the claim is registered —
    outside the test's isolation, as collection would.  A file that cannot be loaded is noted
    (``item._theorycheck_load_problems``) and named if the claim stays unknown."""
    from proofs_check.engine.registry import registered_ids

    item._theorycheck_load_problems = []
    target = _target(marker, None)
    if not isinstance(target, str) or target in registered_ids():
        return
    files, _ = _claims_files_near(item, marker)
    for f in files:
        problem = _load_claims_file(f)
        if problem is not None:
            item._theorycheck_load_problems.append(problem)
        if target in registered_ids():
            return


def _resolve(marker, returned, item=None):
    from proofs_check.engine.claims import Claim
    from proofs_check.engine.registry import get_claim

    target = _target(marker, returned)
    if isinstance(target, str):
        try:
            return get_claim(target)
        except ValueError as exc:             # one line naming the id, the close matches and where we looked
            unknown = str(exc)
        # outside the except: no "During handling …" chain
        where = ""
        if item is not None:
            files, folders = _claims_files_near(item, marker)
            pats = item.config.getini("theorycheck_files")
            looked = (f"tried {', '.join(str(f) for f in files)}" if files else "found no claims file")
            problems = getattr(item, "_theorycheck_load_problems", None) or []
            if problems:
                looked += f"; could not load: {'; '.join(problems)}"
            where = (f"; looked for claims files matching theorycheck_files = {pats or '(not set)'} in "
                     f"{' and '.join(str(d) for d in folders)} ({looked}): name the file with "
                     f"@pytest.mark.theorycheck_claim({target!r}, file='my_claims.py') or set the ini "
                     f"option theorycheck_files = my_claims.py")
        pytest.fail(f"theorycheck_claim: {unknown}{where}", pytrace=False)
    if not isinstance(target, Claim) and isinstance(getattr(target, "claim", None), Claim):
        return target.claim                     # a function decorated into a claim
    return target


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    marker = pyfuncitem.get_closest_marker("theorycheck_claim")
    if marker is None:
        return None
    __tracebackhide__ = True
    from proofs_check.engine.registry import isolated

    _load_for(pyfuncitem, marker)
    args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    with isolated():                            # claims declared in the test do not outlive it
        returned = pyfuncitem.obj(**args)
        check_claim(pyfuncitem.config, _resolve(marker, returned, pyfuncitem), marker.kwargs.get("expect"))
    return True


def pytest_collect_file(file_path, parent):
    patterns = parent.config.getini("theorycheck_files")
    if patterns and file_path.suffix == ".py" and any(fnmatch.fnmatch(file_path.name, p) for p in patterns):
        return ClaimFile.from_parent(parent, path=file_path)
    return None


class ClaimLoadError(Exception):
    """A claim file that cannot be loaded (the message is one line)."""


class ClaimFile(pytest.File):
    """A file of claim declarations: one test item per claim."""

    def collect(self):
        from proofs_check.engine.registry import load_user_claims

        try:
            found = load_user_claims(str(self.path))
        except ValueError as exc:
            raise ClaimLoadError(str(exc)) from None
        except SystemExit as exc:             # not pytest's INTERNALERROR: a collection error naming the file
            raise ClaimLoadError(f"claims file {self.path} called sys.exit({exc.code!r}) while it was imported; "
                                 f"a claims file only declares claims (no claim of it was collected)") from None
        for claim in found:
            yield ClaimItem.from_parent(self, name=claim.id, claim=claim)

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(ClaimLoadError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class ClaimItem(pytest.Item):
    """One claim, verified when the test runs."""

    def __init__(self, *, claim, **kw):
        super().__init__(**kw)
        self.claim = claim

    def runtest(self):
        check_claim(self.config, self.claim)

    def reportinfo(self):
        return self.path, None, f"claim {self.claim.id}"
