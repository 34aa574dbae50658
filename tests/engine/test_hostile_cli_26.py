"""Issue 26, items 2 and 15: arguments and environments a hostile user tries.

* ``reproduce`` refuses a point outside the claim's domain (it "confirmed" a violation of a
  true claim at ``a = 5`` on ``Box(a=(0, 1))``);
* ``calibrate`` applies the engine's α rule and refuses an unknown ``--kind``;
* the pytest plugin refuses α and budgets the engine would refuse later, and an unknown
  claim id in a marker fails in one line naming it and its close matches;
* a closed stderr (``2>&-``) and an ASCII-only output encoding neither crash nor silence
  the CLI;
* the public API refuses ``quick='no'`` / ``resume='no'`` (truthy strings);
* a claims file may import a module beside it;
* ``--out`` that climbs with ``..`` works; a read-only folder or a full disk is one line
  saying so, and leaves no empty or temporary file behind.
"""
from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from proofs_check.engine import registry
from theorycheck.cli import main

pytest_plugins = ["pytester"]

#: Subprocess suites (each test starts the CLI): the slow tier, run first in CI's slow stage
#: (``.ci/run``), so that the default run stays under 10 minutes on 2 cores.
pytestmark = [pytest.mark.slow, pytest.mark.hostile]

BOX_CLAIMS = '''
import proofs_check as pc
from proofs_check.declare import Box, Simplex

pc.inequality("h26.box_sq", lambda a, n: a * a, lambda a, n: a, domain=Box(a=(0, 1), n=(1, 5), integer=["n"]),
              lhs_mp=lambda a, n: a * a, rhs_mp=lambda a, n: a, statement="a^2 <= a on [0, 1]")
pc.inequality("h26.simplex", lambda p: float(p.max()), lambda p: 1.0, domain=Simplex(3), statement="max p <= 1")
'''


@pytest.fixture(autouse=True)
def _isolated_registry():
    with registry.isolated():
        yield


def _one_line(err: str, *parts):
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for p in parts:
        assert p in err, f"{p!r} not in {err!r}"


# -- item 2: reproduce -------------------------------------------------------------------

def test_reproduce_refuses_a_point_outside_the_domain(tmp_path, capsys):
    f = tmp_path / "box_claims.py"
    f.write_text(BOX_CLAIMS)
    # old: "h26.box_sq: lhs = 25.0, rhs = 5.0 …: violated; confirmed in mpmath (50 digits)", exit 0
    for point, named in (('{"a": 5}', "a = 5.0"), ('[-3, 1]', "a = -3.0"), ('{"n": 2.5}', "n = 2.5"),
                         ('{"n": 9}', "n = 9.0")):
        assert main(["reproduce", str(f), "h26.box_sq", "--point", point]) == 2, point
        err = capsys.readouterr().err
        _one_line(err, "h26.box_sq", named, "outside the domain", "∈ [" if "n = 2.5" not in named else "integer")
    assert main(["reproduce", str(f), "h26.simplex", "--point", '{"p[0]": 0.9}']) == 2
    _one_line(capsys.readouterr().err, "p[0] = 0.9", "Simplex", "summing to 1")
    # a point inside is evaluated as before
    assert main(["reproduce", str(f), "h26.box_sq", "--point", '{"a": 0.5, "n": 2}']) == 0
    assert "holds at this point" in capsys.readouterr().out
    from proofs_check.declare import reproduce

    with pytest.raises(ValueError, match=r"a = 5\.0 lies outside the domain of claim h26\.box_sq: a ∈ \[0\.0, 1\.0\]"):
        reproduce("h26.box_sq", {"a": 5})


# -- item 15: calibrate ------------------------------------------------------------------

def test_calibrate_applies_the_engines_alpha_rule_and_refuses_unknown_kinds(capsys):
    # old: --alpha 1e-300 passed the parser's 0 < α < 1 and failed in the first cell (traceback)
    assert main(["calibrate", "--alpha", "1e-300", "--quick", "--reps", "1"]) == 2
    err = capsys.readouterr().err
    assert "--alpha must be at least 1e-12" in err and "Traceback" not in err
    # old: zzz was silently ignored and the probability cells ran
    assert main(["calibrate", "--kind", "probability", "--kind", "zzz", "--quick", "--reps", "1"]) == 2
    err = capsys.readouterr().err
    assert "--kind must be one of comparison, identity, inequality, probability, scaling, got 'zzz'" in err


# -- item 15: the pytest plugin ------------------------------------------------------------

@pytest.mark.parametrize("option, says", [("--theorycheck-alpha=1e-300", "alpha must be at least 1e-12"),
                                          ("--theorycheck-budget=10000000000000000", "budget must be an integer in [1, 1000000000000000]"),
                                          ("--theorycheck-alpha=abc", "alpha must be a number in (0, 1)")])
def test_plugin_options_the_engine_would_refuse_are_usage_errors(pytester, option, says):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    res = pytester.runpytest(option, "-p", "no:cacheprovider")
    assert res.ret == pytest.ExitCode.USAGE_ERROR, res.stdout.str() + res.stderr.str()
    assert says in res.stderr.str()


def test_plugin_unknown_claim_id_in_a_marker_is_one_line_with_close_matches(pytester):
    pytester.makepyfile(test_marked=textwrap.dedent('''
        import pytest

        @pytest.mark.theorycheck_claim("selftest.dg_tial")
        def test_typo():
            pass
    '''))
    res = pytester.runpytest("-p", "no:cacheprovider", "--theorycheck-budget=quick")
    res.assert_outcomes(failed=1)
    out = res.stdout.str()
    assert "theorycheck_claim: unknown claim_id 'selftest.dg_tial'; similar: selftest.dg_tail" in out
    assert "registry.py" not in out and "Traceback" not in out      # old: the get_claim traceback


# -- item 15: closed stderr, ASCII output ----------------------------------------------------

def _cli(args, tmp_path, *, env=None, close_stderr=False):
    run_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "theorycheck", *args], cwd=tmp_path, env=run_env,
                          stdout=subprocess.PIPE, stderr=None if close_stderr else subprocess.PIPE,
                          preexec_fn=(lambda: os.close(2)) if close_stderr else None, timeout=300)


def test_a_closed_stderr_neither_crashes_nor_silences(tmp_path):
    # old: exit 1 and no output at all (sys.stderr is None; .isatty() raised)
    res = _cli(["verify", "selftest.dg_tail", "--quick", "--out", str(tmp_path / "o")], tmp_path,
               close_stderr=True)
    assert res.returncode == 0 and b"selftest.dg_tail" in res.stdout and b"holds" in res.stdout
    res = _cli(["verify", "selftest.no_such_claim", "--out", str(tmp_path / "o")], tmp_path, close_stderr=True)
    assert res.returncode == 2 and b"matches no claim" in res.stdout      # the error is not silent


def test_an_ascii_output_encoding_prints_every_verdict(tmp_path):
    # old: the run finished, then "theorycheck: error: 'ascii' codec can't encode character" (exit 2)
    res = _cli(["verify", "selftest.dg_tail", "--quick", "--out", str(tmp_path / "o")], tmp_path,
               env={"PYTHONIOENCODING": "ascii"})
    assert res.returncode == 0, res.stderr
    assert b"selftest.dg_tail" in res.stdout and b"holds" in res.stdout and b"\\u0302" in res.stdout
    assert b"codec" not in res.stderr


# -- item 15: booleans in the public API ---------------------------------------------------

@pytest.mark.parametrize("kw", [{"quick": "no"}, {"quick": "yes"}, {"resume": "no"}, {"quick": 1}])
def test_truthy_strings_are_not_booleans(tmp_path, kw):
    import proofs_check as pc
    from proofs_check.engine import get_claim, verify_claims

    name = next(iter(kw))
    # old: quick='no' ran at the quick budget, resume='no' resumed
    with pytest.raises(TypeError, match=f"{name} must be True or False, got {kw[name]!r}"):
        pc.verify("selftest.dg_tail", out=tmp_path / "o", **kw)
    with pytest.raises(TypeError, match=f"{name} must be True or False"):
        list(verify_claims([get_claim("selftest.dg_tail")], out=tmp_path / "o", **kw))


# -- item 15: a claims file importing a module beside it ----------------------------------------

def test_a_claims_file_can_import_a_sibling_module(tmp_path, capsys):
    folder = tmp_path / "myclaims"
    folder.mkdir()
    (folder / "h26_helper_mod.py").write_text("P0 = 0.01\n")
    (folder / "uses_helper.py").write_text(textwrap.dedent('''
        import proofs_check as pc
        from h26_helper_mod import P0

        def ev(rng, n):
            return rng.random(n) < P0

        pc.probability("h26.sibling", ev, delta=0.05, budget=4000, quick_budget=4000, chunk_size=1000)
    '''))
    # old: "cannot load claims from …: ModuleNotFoundError: No module named 'h26_helper_mod'"
    assert main(["verify", str(folder / "uses_helper.py"), "--quick", "--out", str(tmp_path / "o")]) == 0
    assert "h26.sibling" in capsys.readouterr().out


# -- item 15: --out paths, read-only folders, full disks ------------------------------------------

def test_an_out_path_that_climbs_above_the_root_works(tmp_path, capsys):
    # old: "result store /../…/theorycheck.sqlite cannot be opened: unable to open database file"
    out = "/.." + str(tmp_path / "up")
    assert main(["verify", "selftest.dg_tail", "--quick", "--out", out]) == 0
    assert (tmp_path / "up" / "theorycheck.sqlite").exists()
    deep = os.path.join(*([".."] * (len(Path(tmp_path).parts) + 3))) + str(tmp_path / "up2")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["verify", "selftest.dg_tail", "--quick", "--out", deep]) == 0
    finally:
        os.chdir(old)
    assert (tmp_path / "up2" / "theorycheck.sqlite").exists()


def test_a_full_disk_during_the_export_leaves_no_temporary_file(tmp_path, monkeypatch, capsys):
    """The export writes a temporary sibling and renames it; the disk filling up mid-write
    (simulated: the temporary file is created, then ENOSPC) must not leave it behind (old: a
    0-byte ``.NAME.chunks.jsonl.PID.tmp``)."""
    real = Path.write_text

    def full(self, *a, **k):
        if self.name.endswith(".tmp"):
            real(self, "")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "write_text", full)
    assert main(["verify", "selftest.dg_tail", "--quick", "--out", str(tmp_path / "o")]) == 2
    _one_line(capsys.readouterr().err, "No space left on device")
    assert not [p for p in (tmp_path / "o").rglob("*.tmp")]


def _mount_ns_available() -> bool:
    if shutil.which("unshare") is None:
        return False
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _in_mount_ns(script: str, tmp_path) -> subprocess.CompletedProcess:
    """``script`` (sh) in a private mount namespace: its mounts vanish with it."""
    return subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, PYTHONIOENCODING="utf-8"))


def _read_only_folder(tmp_path):
    """(shell prefix that makes ``folder`` read-only, folder) or a skip."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return "", folder
    if not _mount_ns_available():
        pytest.skip("running as root without mount namespaces: no way to make a folder read-only")
    return f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && ", folder


def test_a_read_only_folder_is_named_as_such(tmp_path):
    prefix, folder = _read_only_folder(tmp_path)
    cmd = f"{sys.executable} -m theorycheck verify selftest.dg_tail --quick --out {folder}"
    res = _in_mount_ns(prefix + cmd, tmp_path) if prefix else subprocess.run(
        cmd.split(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    # old: "result store …/theorycheck.sqlite cannot be opened: unable to open database file"
    assert res.returncode == 2, res.stdout + res.stderr
    _one_line(res.stderr, str(folder))
    assert "read-only file system" in res.stderr or "not writable" in res.stderr


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tmpfs")
def test_a_full_disk_is_named_as_such_and_leaves_no_empty_file(tmp_path):
    if not _mount_ns_available():
        pytest.skip("no mount namespace to make a small disk in")
    disk = tmp_path / "disk"
    disk.mkdir()
    script = [f"mount -t tmpfs -o size=256k tmpfs {disk}"]
    for fill in (250, 200, 160, 120):                  # the store, the export or nothing fits
        script += [f"rm -rf {disk}/*", f"dd if=/dev/zero of={disk}/fill bs=1k count={fill} 2>/dev/null",
                   f"echo FILL {fill}",
                   f"{sys.executable} -m theorycheck verify selftest.dg_tail --quick --out {disk}/out "
                   f">/dev/null 2>{tmp_path}/err; echo RC $?; cat {tmp_path}/err",
                   f"echo LEFT; find {disk}/out -type f \\( -name '*.tmp' -o -empty \\) 2>/dev/null; echo END"]
    res = _in_mount_ns(" ; ".join(script), tmp_path)
    assert res.returncode == 0, res.stderr
    blocks = res.stdout.split("FILL ")[1:]
    assert len(blocks) == 4, res.stdout
    for block in blocks:
        rc = int(block.split("RC ")[1].split()[0])
        err = block.split("RC ")[1].split("\n", 1)[1].split("LEFT")[0]
        left = block.split("LEFT")[1].split("END")[0].split()
        assert not left, f"left behind: {left}\n{block}"          # old: a 0-byte theorycheck.sqlite
        if rc != 0:
            assert rc == 2, block
            _one_line(err, "full")
