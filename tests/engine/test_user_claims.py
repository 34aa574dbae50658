"""Users' own claims: declared with ``proofs_check.declare``, loaded from a file or a
module, run through ``theorycheck verify/list/report/reproduce``; bad ones refused in
one line with exit 2 and nothing written."""
import json
import sys
import textwrap

import numpy as np
import pytest

import proofs_check as pc
from theorycheck.cli import main
from proofs_check.engine import registry
from proofs_check.engine import verify_claim

GOOD = '''
import numpy as np
import proofs_check as pc


def rare(rng, n):
    return rng.random(n) < 0.01


def tv(p, q):
    return 0.5 * float(np.abs(p - q).sum())


def pinsker(p, q):
    return float(np.sqrt(0.5 * np.sum(p * np.log(p / q))))


def gap(rng, n):
    return rng.uniform(-1.0, 0.5, n)


def mean_abs(rng, x):
    return float(np.abs(rng.standard_normal(int(x))).sum())


def sq(a, b):
    return (a + b) ** 2


def expand(a, b):
    return a * a + 2 * a * b + b * b


pc.probability("mine.rare", rare, delta=0.05, expected="holds", budget=20_000, quick_budget=20_000)
pc.inequality("mine.pinsker", tv, pinsker, domain=pc.Simplex(3, names=("p", "q"), min_prob=1e-6),
              expected="holds")
pc.comparison("mine.gap", gap, threshold=0.0, bounds=(-1.0, 0.5), expected="holds")
pc.scaling("mine.sum_abs", mean_abs, x=[256, 1024, 4096, 16384], exponent=(0.9, 1.1), expected="holds",
           quick_budget=6)
pc.identity("mine.square", sq, expand, domain=pc.Box(a=(-3, 3), b=(-3, 3)), expected="holds")
'''

BAD = {
    "lambda": ('''
import proofs_check as pc
pc.probability("bad.lambda", lambda rng, n: rng.random(n) < 0.01, delta=0.05)
''', ["--executor", "processes", "--workers", "2"], ["bad.lambda", "lambda", "def", "--executor serial"]),
    "shape": ('''
import proofs_check as pc
def events(rng, n):
    return rng.random((n, 2)) < 0.01
pc.probability("bad.shape", events, delta=0.05)
''', [], ["bad.shape", "shape (8, 2)", "booleans"]),
    "nan": ('''
import numpy as np
import proofs_check as pc
def lhs(a):
    return np.log(a - 0.5)
def rhs(a):
    return 1.0
pc.inequality("bad.nan", lhs, rhs, domain=pc.Box(a=(0.0, 1.0)))
''', [], ["bad.nan", "lhs returned nan", "finite"]),
    "import": ('''
import proofs_check as pc
import not_a_real_package_xyz
''', [], ["bad_import.py", "not_a_real_package_xyz", "fix"]),
}


@pytest.fixture(autouse=True)
def _isolated_registry():
    """User claims registered by a test are gone afterwards (the registry-wide tests see only ours)."""
    with registry.isolated():
        yield


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_user_claim_is_one_line_exit_2_and_nothing_written(case, tmp_path, capsys):
    text, opts, words = BAD[case]
    path = _write(tmp_path, f"bad_{case}.py", text)
    out = tmp_path / "results"
    code = main(["verify", str(path), "--quick", "--out", str(out), *opts])
    err = capsys.readouterr().err
    assert code == 2
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("theorycheck: error: ")
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not out.exists()


def test_claims_file_verify_list_json_and_resume(tmp_path, capsys):
    path = _write(tmp_path, "my_claims.py", GOOD)
    assert main(["list", str(path), "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["claim"] for r in rows] == ["mine.gap", "mine.pinsker", "mine.rare", "mine.square", "mine.sum_abs"]
    out = tmp_path / "res"
    assert main(["verify", str(path), "mine.p*", "--json", "--quick", "--out", str(out), "--executor", "serial"]) == 0
    got = {r["claim"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert set(got) == {"mine.pinsker"} and got["mine.pinsker"]["verdict"] == "holds"
    assert main(["verify", str(path), "--json", "--quick", "--out", str(out), "--resume",
                 "--executor", "serial"]) == 0
    got = {r["claim"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert {k: v["verdict"] for k, v in got.items()} == {k: "holds" for k in
                                                        ("mine.gap", "mine.pinsker", "mine.rare",
                                                         "mine.square", "mine.sum_abs")}


def test_claims_module_by_dotted_name(tmp_path, capsys, monkeypatch):
    pkg = tmp_path / "mypkg_user_claims"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    _write(pkg, "claims.py", GOOD)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert main(["list", "-m", "mypkg_user_claims.claims", "mine.rare", "--json"]) == 0
        rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        assert [r["claim"] for r in rows] == ["mine.rare"]
        assert "declared in mypkg_user_claims.claims" in rows[0]["source"]
    finally:
        for m in [m for m in sys.modules if m.startswith("mypkg_user_claims")]:
            del sys.modules[m]
    assert main(["list", "-m", "no_such_module_xyz.claims"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no module named 'no_such_module_xyz'" in err


def test_report_on_a_claims_file(tmp_path, capsys):
    path = _write(tmp_path, "my_claims.py", GOOD)
    out = tmp_path / "rep"
    assert main(["report", str(path), "mine.square", "--quick", "--out", str(out), "--executor", "serial"]) == 0
    text = (out / "report.md").read_text()
    assert "mine.square" in text and "mine.rare" not in text


def test_path_module_claims_run_on_worker_processes_identically(tmp_path):
    path = _write(tmp_path, "my_claims.py", GOOD)
    claims = {c.id: c for c in pc.load_claims(str(path))}
    a = verify_claim(claims["mine.rare"], budget=20_000, seed=3, executor="serial")
    b = verify_claim(claims["mine.rare"], budget=20_000, seed=3, executor="processes", workers=2)
    assert (a.events, a.trials) == (b.events, b.trials)


def test_declaration_errors_name_the_claim_and_the_fix():
    def ev(rng, n):
        return rng.random(n) < 0.1

    pc.probability("mine.once", ev, delta=0.5, register=True)
    with pytest.raises(ValueError, match=r"duplicate claim id 'mine.once'.*unique"):
        pc.probability("mine.once", ev, delta=0.5)
    with pytest.raises(TypeError, match="events must be a function"):
        pc.probability("mine.x", 3, delta=0.5)
    with pytest.raises(ValueError, match="delta must lie in"):
        pc.probability("mine.x", ev, delta=1.5)

    def vec(a):
        return np.array([a, a])

    with pytest.raises(ValueError, match=r"'mine.vec': lhs must return one number, got an array of shape \(2,\)"):
        pc.inequality("mine.vec", vec, vec, domain=pc.Box(a=(0, 1)))

    def not_positive(rng, x):
        return -1.0

    with pytest.raises(ValueError, match=r"'mine.neg'.*finite and > 0"):
        pc.scaling("mine.neg", not_positive, x=[1, 2, 4], exponent=(0, 1))

    def boom(rng, n):
        raise KeyError("oops")

    with pytest.raises(ValueError, match=r"'mine.boom': probe call failed with KeyError"):
        pc.comparison("mine.boom", boom)


def test_decorator_form_keeps_the_function():
    @pc.probability("mine.deco", delta=0.2, quick_budget=10_000)
    def events(rng, n):
        return rng.random(n) < 0.05

    assert callable(events) and events.claim.id == "mine.deco"
    assert verify_claim(events.claim, quick=True, seed=0).verdict == "holds"


def test_box_and_simplex_domains():
    box = pc.Box(a=(1, 5), x=(-1, 1, 3), integer=("a",))
    assert box.names == ("a", "x[0]", "x[1]", "x[2]") and box.default.tolist() == [1, 0, 0, 0]
    t = box.sample(np.random.default_rng(0))
    assert t[0] == round(t[0]) and np.all(np.abs(t[1:]) <= 1)
    kw = box.unpack(t)
    assert isinstance(kw["a"], float) and kw["x"].shape == (3,)
    s = pc.Simplex(4, names=("p", "q"))
    t = s.sample(np.random.default_rng(1))
    assert np.allclose(t.reshape(2, 4).sum(axis=1), 1.0)
    simpler = [c.reshape(2, 4) for c in s.simplify(t)]
    assert any(np.all(c[0] == 0.25) for c in simpler)                      # p reset to uniform
    assert any(np.all(c[1] == np.round(c[1], 1)) for c in simpler)        # q rounded to 1 decimal
    assert sum(any(np.all(c[:, j] == 0) for c in simpler) for j in range(4)) == 4   # each outcome removed
    assert all(np.allclose(c.sum(axis=1), 1.0) for c in simpler)
    with pytest.raises(ValueError, match="coordinate b: need lo < hi"):
        pc.Box(b=(2, 1))


@pytest.mark.slow
def test_path_module_claims_run_on_a_local_dask_cluster(tmp_path):
    pytest.importorskip("distributed")
    path = _write(tmp_path, "my_claims.py", GOOD)
    claims = {c.id: c for c in pc.load_claims(str(path))}
    a = verify_claim(claims["mine.rare"], budget=20_000, seed=5, executor="serial")
    b = verify_claim(claims["mine.rare"], budget=20_000, seed=5, executor="dask", workers=2)
    assert (a.events, a.trials) == (b.events, b.trials)
