import json

import pytest

import matplotlib

matplotlib.use("Agg")

from paper_figs import figures, save_figure  # noqa: E402


@pytest.mark.slow        # 13 s: every ensemble figure twice
def test_quick_figures_build_and_are_byte_stable(tmp_path):
    figs = figures("ensemble")
    assert set(figs) == {"ensemble_tracking_vs_m", "ensemble_tracking_vs_d_T",
                         "ensemble_regret_vs_m", "ensemble_regret_curves"}
    for name, fn in figs.items():
        outs = []
        for k in range(2):
            fig, data = fn(quick=True, seed=0)
            paths = save_figure(fig, name, data, tmp_path / str(k))
            outs.append([p.read_bytes() for p in paths])
        assert outs[0] == outs[1], name
        json.loads(outs[0][2])
