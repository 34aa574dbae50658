"""Figures are byte-stable with their data beside them; notebooks execute in fast mode."""
import hashlib
import os
import pathlib

import pytest

import paper_figs

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


def _digest(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_engine_figures_rebuild_to_identical_bytes(tmp_path):
    a = paper_figs.build(tmp_path / "a", quick=True, seed=1, pattern="engine_evalue*")
    b = paper_figs.build(tmp_path / "b", quick=True, seed=1, pattern="engine_evalue*")
    assert [p.suffix for p in a] == [".pdf", ".png", ".json"]
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")


@pytest.mark.slow        # 75 s: each topic's quick figure tests build their own figures in the default run
def test_every_registered_figure_builds_quickly(tmp_path):
    names = list(paper_figs.figures())
    assert "engine_operating_characteristic" in names
    paths = paper_figs.build(tmp_path, quick=True, seed=0)
    assert len(paths) == 3 * len(names)
    for p in paths:
        assert p.stat().st_size > 0


#: The notebook that runs in the default test run (the quickest, 4 s); the others (5–11 s each, a
#: Jupyter kernel in a subprocess) run in CI's slow stage with the other subprocess suites.
DEFAULT_NOTEBOOK = "optimal_token_baseline.py"


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name, marks=[] if p.name == DEFAULT_NOTEBOOK
                                               else [pytest.mark.slow, pytest.mark.hostile])
                                  for p in NOTEBOOKS])
def test_notebook_executes_in_fast_mode(path, tmp_path, monkeypatch):
    import jupytext
    from nbclient import NotebookClient

    monkeypatch.setenv("THEORYCHECK_FAST", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    nb = jupytext.read(path)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors


def test_every_topic_has_a_notebook():
    names = {p.name for p in NOTEBOOKS}
    assert {"sequential_jl.py", "ensemble_pp.py", "trust_region_masking.py",
            "optimal_token_baseline.py", "verification_engine.py"} <= names
