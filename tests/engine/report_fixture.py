"""A real report folder for the report tests: the selftest claims at quick budgets and one
registered figure (``draw(ax)``) with a caption and the claims it supports; the figure is
unregistered again afterwards."""
import sys

import pytest


def write_selftest_report(tmp_path_factory, name, draw, caption, figsize=(3, 2)):
    import matplotlib.pyplot as plt

    import paper_figs
    from paper_figs.registry import FIGURES, figure
    from proofs_check.engine import claims
    from theorycheck.report import write_report

    @figure(name)
    def _fake(*, quick, seed):
        fig, ax = plt.subplots(figsize=figsize)
        return fig, draw(ax)

    info = {name: {"caption": caption, "claims": ["selftest.dg_tail*"], "width": 3.3}}
    mp = pytest.MonkeyPatch()
    mp.setattr(paper_figs, "figure_info", lambda: info, raising=False)
    out = tmp_path_factory.mktemp("report")
    try:
        write_report(claims("selftest"), out, quick=True, figures=[name])
    finally:
        mp.undo()
        FIGURES.pop(name, None)
        getattr(sys.modules["paper_figs.registry"], "_INFO", {}).pop(name, None)
    return out
