"""The mismatch figures build quickly and deterministically."""
import json

import pytest

import paper_figs as pf


@pytest.mark.parametrize("name", ["mismatch_horizon", "mismatch_tightness", "mismatch_trm_acceptance",
                                  "mismatch_lr_schedule"])
def test_quick_figure_deterministic(name, tmp_path):
    fn = pf.figures(name)[name]
    _, d1 = fn(quick=True, seed=0)
    fig, d2 = fn(quick=True, seed=0)
    assert json.dumps(d1, sort_keys=True, default=str) == json.dumps(d2, sort_keys=True, default=str)
    paths = pf.save_figure(fig, name, d2, tmp_path)
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)


def test_horizon_slopes():
    _, d = pf.figures("mismatch_horizon")["mismatch_horizon"](quick=True, seed=0)
    assert 0.9 < d["curves"]["|Error| (i.i.d. tilt, exact)"]["slope"] < 1.1
    assert 1.4 < d["bounds"]["pm_kl"]["slope"] < 1.6
    assert 1.95 < d["bounds"]["classical"]["slope"] < 2.1
