"""First-day friction (issue 24, items 2–5), each where a new user meets it.

* provenance survives ``pip install .``: ``setup.py`` records the commit at build time
  and the report reads it (the wheel build itself: ``-m slow``, it needs the build
  backend from the package index);
* no machine paths in reports of a user's own claims; reproduce lines name the
  claims file, also when a test imported it;
* ``notebooks/own_bound.py`` runs as a script without pytest (``-m slow``);
* ``--resume`` with a larger ``--budget`` says what it did;
* NumPy ufuncs as sides, half-infinite domains, the rounding-artefact warning.
"""
from __future__ import annotations

import json
import math
import os
import runpy
import shlex
import subprocess
import sys
import tarfile
import textwrap
import types
import zipfile
from pathlib import Path

import mpmath
import numpy as np
import pytest

import theorycheck as tc
from proofs_check.engine import verify_claim

#: Subprocess suites (each test starts the CLI): the slow tier, run first in CI's slow stage
#: (``.ci/run``), so that the default run stays under 10 minutes on 2 cores.
pytestmark = [pytest.mark.slow, pytest.mark.hostile]

ROOT = Path(__file__).resolve().parents[1]


def _cli(args, cwd, **kw):
    return subprocess.run([sys.executable, "-m", "theorycheck", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, **kw)


# --- 2. provenance after `pip install .` ------------------------------------------------------------

def _git_repo(path: Path) -> str:
    def git(*a):
        return subprocess.run(["git", *a], cwd=path, capture_output=True, text=True, check=True).stdout.strip()
    git("init", "-q")
    git("add", "-A")
    git("-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "snapshot")
    return git("rev-parse", "HEAD")


def test_build_hook_records_the_commit_and_provenance_reads_it(tmp_path, monkeypatch):
    hook = runpy.run_path(str(ROOT / "setup.py"), run_name="setup_hook")     # not "__main__": no build
    repo = tmp_path / "clone"
    (repo / "theorycheck").mkdir(parents=True)
    (repo / "theorycheck" / "x.py").write_text("x = 1\n")
    head = _git_repo(repo)
    info = hook["read_git"](str(repo))
    assert info["commit"] == head and info["dirty"] is False and info["built"].endswith("Z")
    (repo / "theorycheck" / "x.py").write_text("x = 2\n")
    assert hook["read_git"](str(repo))["dirty"] is True
    nogit = tmp_path / "archive"
    nogit.mkdir()
    assert hook["read_git"](str(nogit))["commit"] is None and "not" in hook["read_git"](str(nogit))["reason"]

    build = tmp_path / "build"
    path = hook["write_build_info"](str(build), info)
    ns = runpy.run_path(path)
    assert ns["BUILD"]["commit"] == head

    # what an installed wheel sees: no checkout around it, the record inside the package
    from theorycheck.report import provenance

    monkeypatch.setattr(provenance, "git_commit", lambda package_dir=None: None)
    monkeypatch.setitem(sys.modules, "theorycheck._build_info",
                        types.SimpleNamespace(BUILD={"commit": head, "dirty": True, "built": "2026-01-02T03:04:05Z"}))
    prov = provenance.collect_provenance(seed=0, alpha=0.01, quick=True)
    assert prov["commit"] == head and prov["dirty"] is True
    assert provenance.commit_text(prov) == head[:10] + " + uncommitted changes"
    assert "recorded when the package was built on 2026-01-02T03:04:05Z" in provenance.commit_text(prov, short=False)

    monkeypatch.setitem(sys.modules, "theorycheck._build_info",
                        types.SimpleNamespace(BUILD={"commit": None, "reason": "git was not installed"}))
    prov = provenance.collect_provenance(seed=0, alpha=0.01, quick=True)
    assert prov["commit"] is None
    assert provenance.commit_text(prov) == "unknown (git was not installed)"


@pytest.mark.slow
def test_a_wheel_built_from_a_clone_carries_its_commit(tmp_path):
    """``pip wheel .`` of a git checkout of this tree: the wheel holds
    ``theorycheck/_build_info.py`` with the checkout's commit.  Needs the build backend
    (setuptools ≥ 77) from the package index: skipped when it cannot be fetched."""
    clone = tmp_path / "clone"
    clone.mkdir()
    skip = {".git", "build", "dist", "site", "__pycache__", ".hypothesis"}
    with tarfile.open(tmp_path / "tree.tar", "w") as tar:
        for p in ROOT.iterdir():
            if p.name not in skip and not p.name.endswith(".egg-info") and not p.name.startswith("theorycheck-"):
                tar.add(p, arcname=p.name, filter=lambda ti: None if "__pycache__" in ti.name else ti)
    with tarfile.open(tmp_path / "tree.tar") as tar:
        tar.extractall(clone)
    head = _git_repo(clone)
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "w"), "."],
                         cwd=clone, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        if any(w in out.stderr for w in ("No matching distribution", "Could not find a version",
                                         "NewConnectionError", "Network is unreachable", "ProxyError")):
            pytest.skip("the build backend could not be fetched from the package index")
        raise AssertionError(out.stderr[-3000:])
    wheel = next((tmp_path / "w").glob("theorycheck-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        text = z.read("theorycheck/_build_info.py").decode()
    build = {}
    exec(text, build)
    assert build["BUILD"]["commit"] == head and build["BUILD"]["dirty"] is False
    assert not (clone / "theorycheck" / "_build_info.py").exists()      # never written into the source tree


# --- 2 and 5. paths: relative in reports, the claims file in reproduce lines --------------------------

MYBOUND = textwrap.dedent('''
    import numpy as np
    import theorycheck as tc

    def log1p(x):
        return float(np.log1p(x))


    tc.inequality("mine.log1p_quad3", lambda x: x - x * x / 3, log1p, domain=tc.Box(x=(0, 10)),
                  statement="x − x²/3 ≤ log(1+x) for x in [0, 10]", expected="holds")
''')


def test_reproduce_line_names_the_file_a_test_imported(tmp_path):
    (tmp_path / "mybound.py").write_text(MYBOUND)
    (tmp_path / "test_mine.py").write_text(textwrap.dedent('''
        import pytest
        import mybound  # noqa: F401


        @pytest.mark.theorycheck_claim("mine.log1p_quad3")
        def test_quad3():
            pass
    '''))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir",
                          str(tmp_path), "--theorycheck-budget", "quick", "test_mine.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    line = next((x.split("reproduce: ", 1)[1] for x in run.stdout.splitlines() if "reproduce: " in x), None)
    assert line is not None, run.stdout[-3000:]
    assert line.startswith("theorycheck reproduce mybound.py mine.log1p_quad3 --point "), line
    again = _cli(shlex.split(line)[1:], tmp_path)
    assert again.returncode == 0 and "violated" in again.stdout, again.stderr


def test_report_of_own_claims_prints_no_machine_paths(tmp_path):
    (tmp_path / "mybound.py").write_text(MYBOUND)
    run = _cli(["report", "mybound.py", "--quick", "--out", "rep"], tmp_path)
    assert run.returncode == 0, run.stderr
    listed = _cli(["list", "mybound.py", "--format", "plain"], tmp_path)
    for text in ((tmp_path / "rep" / "report.md").read_text(), (tmp_path / "rep" / "report.html").read_text(),
                 run.stdout, listed.stdout):
        assert str(tmp_path) not in text and str(tmp_path.resolve()) not in text
    assert "declared in mybound.py" in listed.stdout


# --- 3. the own-bound notebook as a script, without pytest ------------------------------------------

@pytest.mark.slow
def test_own_bound_runs_as_a_script_without_pytest(tmp_path):
    shadow = tmp_path / "no_pytest"
    shadow.mkdir()
    (shadow / "pytest.py").write_text('raise ModuleNotFoundError("No module named \'pytest\'", name="pytest")\n')
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(shadow), "THEORYCHECK_FAST": "1", "MPLBACKEND": "Agg"}
    run = subprocess.run([sys.executable, str(ROOT / "notebooks" / "own_bound.py")], cwd=work, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-3000:])
    assert "pytest is not installed" in run.stdout and "gating with the command line instead" in run.stdout
    assert "ci.median_variance" in run.stdout and "figure saved to" in run.stdout
    assert list(work.iterdir()) == []                      # nothing left in the working folder


def test_readme_names_the_pytest_extra_and_python_m_pytest():
    readme = (ROOT / "README.md").read_text()
    assert 'pip install ".[pytest]"' in readme and "python -m pytest" in readme
    assert 'pytest = ["pytest' in (ROOT / "pyproject.toml").read_text()


# --- 4. --resume with a larger --budget ---------------------------------------------------------------

def test_resume_with_a_larger_budget_says_what_it_did(tmp_path):
    out = ["--out", "r", "--format", "plain"]
    assert _cli(["verify", "selftest.dg_tail_doubled", "--budget", "1000", *out], tmp_path).returncode == 0
    ext = _cli(["verify", "selftest.dg_tail_doubled", "--budget", "30000", "--resume", *out], tmp_path)
    assert ext.returncode == 0, ext.stderr
    assert "--resume selftest.dg_tail_doubled: extended from n = 1,000 to n = " in ext.stderr, ext.stderr
    again = _cli(["verify", "selftest.dg_tail_doubled", "--budget", "2000000", "--resume", "--json",
                  "--out", "r"], tmp_path)
    assert again.returncode == 0
    assert "nothing to extend: already decided (refuted)" in again.stderr, again.stderr
    assert "(n = 2,000,000)" in again.stderr
    assert all(json.loads(x)["claim"] for x in again.stdout.splitlines())       # stdout stays JSON


def test_resume_of_a_fixed_sample_run_on_more_data_is_refused_naming_seed(tmp_path):
    out = ["--out", "r", "--format", "plain", "--fixed"]
    assert _cli(["verify", "selftest.dg_tail", "--budget", "1000", *out], tmp_path).returncode == 0
    bad = _cli(["verify", "selftest.dg_tail", "--budget", "5000", "--resume", *out], tmp_path)
    assert bad.returncode == 2 and "optional stopping" in bad.stderr and "--seed" in bad.stderr


# --- 5. sides, domains, the artefact warning --------------------------------------------------------------

def test_numpy_ufuncs_and_positional_builtins_are_sides():
    c = tc.inequality("f.ufunc", lambda x: x - x * x / 2, np.log1p, domain=tc.Box(x=(0, 10)),
                      lhs_mp=lambda x: x - x * x / 2, rhs_mp=mpmath.log1p, register=False)
    assert verify_claim(c, quick=True).verdict == "holds"
    c = tc.inequality("f.builtin", math.sqrt, lambda x: math.sqrt(x) + 1, domain=tc.Box(x=(0, 4)), register=False)
    assert verify_claim(c, quick=True).verdict == "holds"
    assert "declared in" in str(c.source) and "numpy" not in str(c.source)
    def own(*args, **kw):                       # a def of one's own with **kw still gets keywords
        return kw["x"]

    c = tc.inequality("f.own", own, lambda x: x + 1, domain=tc.Box(x=(0, 1)), register=False)
    assert verify_claim(c, quick=True).verdict == "holds"
    with pytest.raises(tc.ClaimDeclarationError, match=r"hypot takes 2 positional argument\(s\), but the domain "
                                                        r"has 1 .*keyword arguments, rhs\(x=…\)"):
        tc.inequality("f.arity", np.log1p, np.hypot, domain=tc.Box(x=(0, 1)), register=False)
    with pytest.raises(tc.ClaimDeclarationError, match=r"unexpected keyword argument 'x'; sides are called with "
                                                        r"the domain's coordinates as keyword arguments, lhs\(x=…\)"):
        tc.inequality("f.names", lambda t: t, np.log1p, domain=tc.Box(x=(0, 1)), register=False)


def test_a_half_line_is_searched_at_every_scale_and_never_certified():
    half = tc.Box(x=(0, np.inf))
    xs = np.array([half.sample(np.random.default_rng(s))[0] for s in range(4000)])
    assert xs.min() >= 0 and (xs < 1e-3).mean() > 0.1 and (xs > 1e3).mean() > 0.1 and (xs > 1e7).mean() > 0.01
    assert tc.Box(x=(-np.inf, -1)).default.tolist() == [-1.0] and tc.Box(x=(-np.inf, np.inf)).default.tolist() == [0.0]
    quad2 = tc.inequality("f.q2", lambda x: x - x * x / 2, np.log1p, domain=half, lhs_mp=lambda x: x - x * x / 2,
                          rhs_mp=mpmath.log1p, register=False)
    assert verify_claim(quad2, quick=True).verdict == "holds"
    far = tc.inequality("f.far", np.log1p, lambda x: 12.0, domain=half, register=False)   # fails for x > e¹² − 1
    assert verify_claim(far, quick=True).verdict == "refuted"
    quad3 = tc.inequality("f.q3", lambda x: x - x * x / 3, np.log1p, domain=half, lhs_mp=lambda x: x - x * x / 3,
                          rhs_mp=mpmath.log1p, register=False)
    r = verify_claim(quad3, quick=True)
    assert r.verdict == "refuted" and r.guarantee == "exact" and r.worst_point["counterexample"]["x"] < 0.5
    import sympy

    x = sympy.Symbol("x")
    sym = tc.inequality("f.sym", x - x ** 2 / 2, sympy.log(1 + x), domain=half, register=False)
    assert sym.certifier is None and "not certified" in sym.notes
    with pytest.raises(ValueError, match="infinite range"):
        tc.inequality("f.sym2", x - x ** 2 / 2, sympy.log(1 + x), domain=half, certify={"max_boxes": 10},
                      register=False)
    with pytest.raises(ValueError, match=r"need lo < hi \(an end may be infinite"):
        tc.Box(x=(np.inf, np.inf))


def test_float64_only_refutation_names_the_fix_and_its_size():
    c = tc.inequality("f.noeval", lambda x: x - x * x / 3, lambda x: float(np.log1p(x)), domain=tc.Box(x=(0, 1)),
                      register=False)
    r = verify_claim(c, quick=True)
    assert r.verdict == "refuted" and r.guarantee == "search"
    w = next(w for w in r.warnings if "float64 only" in w)
    assert "lhs_mp= and rhs_mp=" in w and "far above float64 rounding" in w
