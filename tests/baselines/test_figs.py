import json

import pytest

from paper_figs import build, figures

NAMES = ["baselines_variance_vs_horizon", "baselines_group_size_sweep", "baselines_group_size_sweep_eos",
         "baselines_logit_update_norm",
         "baselines_approx_error", "baselines_dapo_accumulation"]


def test_figures_registered():
    assert set(NAMES) <= set(figures("baselines"))


@pytest.mark.slow        # 9–14 s: every baselines figure, and the shared-θ claim's own search
def test_quick_build_and_data(tmp_path):
    paths = build(tmp_path, quick=True, seed=0, pattern="baselines*")
    names = {p.stem for p in paths}
    assert set(NAMES) <= names
    dapo = json.loads((tmp_path / "baselines_dapo_accumulation.json").read_text())
    assert dapo["transcribed"] == [426.0, 760.0, 600.0, 1000.0]
    assert dapo["correct"] == dapo["reward_to_go"] == [156.0, 310.0, 600.0, 1000.0]
    sweep = json.loads((tmp_path / "baselines_group_size_sweep.json").read_text())
    assert "otb4_minus_mean32_diff_lo_hi" in sweep and sweep["seed"] == 0
    var = json.loads((tmp_path / "baselines_variance_vs_horizon.json").read_text())
    # panel (c): OTB ≤ b* on every tabular instance (DERIVED), far above with shared parameters
    assert max(var["otb_over_bstar_random"]["tabular"]) <= 1 + 1e-9
    assert var["otb_over_bstar_search_worst"]["ratio"] > 10 and var["otb_over_bstar_search_worst"]["verdict"] == "refuted"


@pytest.mark.parametrize("name", ["baselines_dapo_accumulation", "baselines_logit_update_norm"])
def test_byte_stable(tmp_path, name):
    a = build(tmp_path / "a", quick=True, seed=3, pattern=name)
    b = build(tmp_path / "b", quick=True, seed=3, pattern=name)
    for pa, pb in zip(a, b):
        assert pa.read_bytes() == pb.read_bytes(), pa.name
