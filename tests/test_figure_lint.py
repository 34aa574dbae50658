"""The figure lint (paper_figs.lint) passes on the paper figures and fails on each planted defect.

Default run: every planted defect on small synthetic figures, a planted overlap on a real
figure, the registry metadata (captions, claims, widths), and the lint on a cheap subset of
the real figures (quick builds).  ``-m slow``: the lint on every registered figure.
"""
from __future__ import annotations

import fnmatch

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import paper_figs  # noqa: E402
from paper_figs import lint  # noqa: E402
from paper_figs.registry import figure, figure_info  # noqa: E402
from paper_figs.style import MIN_FONT_PT, WATERMARK_GID, WIDTHS, new_figure, ref_line, style  # noqa: E402

#: Quick builds cheap enough for the default run (measured: build + lint ≈ 1–6 s each on 2 busy
#: cores); four of the six figures issue 11 named.
CHEAP = ("engine_evalue_paths", "baselines_dapo_accumulation", "mismatch_estimators",
         "ensemble_tracking_vs_d_T", "ensemble_regret_curves", "baselines_logit_update_norm")


def _codes(fig, **kw):
    return {f.code for f in lint.lint_figure(fig, **kw)}


def _clean(width="column"):
    """A small figure the lint accepts: two distinct series, legend in an empty corner."""
    with style():
        fig, ax = new_figure(width=width)
        x = np.linspace(1, 10, 20)
        ax.plot(x, x, label="linear", color="C0", ls="-", marker="o")
        ax.plot(x, 0.2 * x ** 1.2, label="power", color="C1", ls="--", marker="s")
        ax.set_ylim(-1, 25)
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.set_title("clean")
        ax.legend(loc="upper left")
    return fig, ax


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_clean_synthetic_figure_passes():
    fig, _ = _clean()
    assert lint.lint_figure(fig, name="clean") == []


def test_planted_text_overlap_fails():
    fig, ax = _clean()
    ax.text(0.5, 0.5, "planted", transform=ax.transAxes, fontsize=8)
    ax.text(0.52, 0.5, "overlap", transform=ax.transAxes, fontsize=8)
    assert "text-overlap" in _codes(fig)


def test_planted_overlap_on_a_real_figure_fails():
    fig, data = paper_figs.figures("engine_evalue_paths")["engine_evalue_paths"](quick=True, seed=0)
    assert lint.lint_figure(fig, name="engine_evalue_paths") == []
    ax = fig.axes[0]
    title = ax.title if ax.get_title() else ax._left_title
    ax.annotate("planted note", xy=(0.5, 1.0), xycoords=title, ha="center", va="top", fontsize=8)
    found = lint.lint_figure(fig, name="engine_evalue_paths")
    assert [f.code for f in found] == ["text-overlap"], found
    assert "planted note" in found[0].message


def test_legend_box_over_a_tick_label_fails():
    fig, ax = _clean()
    ax.get_legend().remove()
    ax.legend(loc="upper left", bbox_to_anchor=(-0.25, 1.0))
    assert "text-overlap" in _codes(fig)


def test_planted_text_outside_canvas_fails():
    fig, ax = _clean()
    ax.set_title("a title much too long to fit in one column of a two-column paper, running off")
    assert "text-outside" in _codes(fig)


def test_planted_legend_over_data_fails():
    fig, ax = _clean()
    ax.get_legend().remove()
    ax.legend(loc="center", bbox_to_anchor=(5.5, 5.5), bbox_transform=ax.transData)   # on the line y = x
    assert "legend-covers-data" in _codes(fig)


def test_legend_over_a_reference_line_only_passes():
    fig, ax = _clean()
    ref_line(ax, y=22.0, label="bound")       # passes under the upper-left legend
    ax.get_legend().remove()
    ax.legend(loc="upper left")
    assert "legend-covers-data" not in _codes(fig)


def test_planted_log_span_fails():
    with style():
        fig, ax = new_figure()
        ax.semilogy([1, 2, 3], [0.1, 0.5, 1.0], label="data")
        ax.set_ylim(1e-300, 10)
        ax.legend(loc="lower left")
    assert "log-span" in _codes(fig)


def test_planted_float_zero_fails():
    with style():
        fig, ax = new_figure()
        ax.semilogy([1, 2, 3, 4], [0.3, 1e-17, 0.5, 1.0], marker="o", label="bias")
        ax.legend(loc="lower right")
    assert "float-zero" in _codes(fig)


def test_planted_hidden_series_fails():
    with style():
        fig, ax = new_figure()
        x = np.linspace(0, 1, 30)
        ax.plot(x, x ** 2, color="C0", ls="-", marker="", label="first")
        ax.plot(x, x ** 2, color="C1", ls="-", marker="", label="second, drawn on top")
        ax.set_ylim(-0.05, 1.6)
        ax.legend(loc="upper left")
    found = lint.lint_figure(fig)
    assert [f.code for f in found] == ["hidden-series"], found
    assert "'first'" in found[0].message


def test_a_histogram_whose_first_bar_is_thin_is_not_hidden():
    """The legend handle of ``hist`` is its first bar only; a thin first bar must not make
    the whole (plainly visible) histogram a hidden series."""
    with style():
        fig, ax = new_figure()
        x = np.random.default_rng(0).lognormal(0.0, 1.0, 4000)
        x = np.concatenate([[-40.0], x])                 # one far outlier: a one-pixel first bar
        ax.hist(x, bins=80, color="C0", label="trials")
        ax.legend(loc="upper left")
    assert "hidden-series" not in _codes(fig)


def test_a_histogram_drawn_over_is_still_hidden():
    with style():
        fig, ax = new_figure()
        x = np.random.default_rng(0).normal(size=2000)
        ax.hist(x, bins=30, color="C0", label="under")
        ax.hist(x, bins=30, color="C1", label="over, the same bars")
        ax.legend(loc="upper left")
    found = lint.lint_figure(fig)
    assert "hidden-series" in {f.code for f in found} and any("'under'" in f.message for f in found), found


def test_dodged_series_pass_the_hidden_check():
    with style():
        fig, ax = new_figure()
        x = np.arange(1, 6, dtype=float)
        ax.plot(x - 0.08, x, color="C0", ls="-", marker="o", label="first")
        ax.plot(x + 0.08, x, color="C1", ls="--", marker="s", label="second")
        ax.set_ylim(0, 9)
        ax.legend(loc="upper left")
    assert "hidden-series" not in _codes(fig)


def test_planted_small_font_fails():
    fig, ax = _clean()
    ax.get_legend().remove()
    ax.legend(loc="upper left", fontsize=5)
    assert "small-font" in _codes(fig)


def test_planted_non_print_size_fails():
    with style():
        fig, ax = plt.subplots(figsize=(5.0, 3.4), layout="constrained")
        ax.plot([0, 1], [0, 1])
    assert _codes(fig) == {"not-print-size"}


def test_lint_rejects_bad_arguments():
    with pytest.raises(TypeError, match="fig"):
        lint.lint_figure("not a figure")
    fig, _ = _clean()
    with pytest.raises(ValueError, match="checks"):
        lint.lint_figure(fig, checks=("no-such-check",))


# ---------------------------------------------------------------------------
# the registry: captions, claims, widths, print size, watermark
# ---------------------------------------------------------------------------

def _claim_ids():
    from proofs_check.engine import claims
    return [c.id for c in claims()]


def test_every_figure_has_caption_claims_and_width():
    info = figure_info()
    assert set(info) == set(paper_figs.figures())
    ids = _claim_ids()
    for name, meta in info.items():
        assert set(meta) == {"caption", "claims", "width", "chunks_of"}, name
        assert len(meta["caption"]) >= 80, f"{name}: caption missing or too short"
        assert meta["width"] in WIDTHS, name
        assert meta["claims"], f"{name}: names no claim"
        for pat in meta["claims"]:
            assert fnmatch.filter(ids, pat), f"{name}: claim {pat!r} matches no registered claim"


def test_figure_decorator_validates_its_arguments():
    with pytest.raises(ValueError, match="width"):
        figure("tmp_fig", caption="c", width="poster")
    with pytest.raises(TypeError, match="claims"):
        figure("tmp_fig", caption="c", claims="one.claim")
    with pytest.raises(TypeError, match="caption"):
        figure("tmp_fig", caption=3)
    with pytest.raises(TypeError, match="chunks_of"):
        figure("tmp_fig", caption="c", chunks_of="one.claim")


def test_quick_build_is_watermarked_and_data_carry_the_caption():
    name = "baselines_logit_update_norm"
    fn = paper_figs.figures(name)[name]
    fig, data = fn(quick=True, seed=0)
    assert any(t.get_gid() == WATERMARK_GID for t in fig.texts)
    assert data["caption"] == figure_info()[name]["caption"] and data["width"] == "column"
    assert tuple(fig.get_size_inches())[0] == pytest.approx(WIDTHS["column"])
    plt.close(fig)
    fig, _ = fn(quick=False, seed=0)
    assert not any(t.get_gid() == WATERMARK_GID for t in fig.texts)


def test_style_reaches_legends_and_titles():
    """Legends and titles are created inside the style context: ≥ 7 pt, the shared legend frame."""
    fig, _ = paper_figs.figures("engine_evalue_paths")["engine_evalue_paths"](quick=True, seed=0)
    leg = fig.legends[0]
    assert min(t.get_fontsize() for t in leg.get_texts()) >= MIN_FONT_PT
    assert leg.get_frame().get_edgecolor()[:3] == pytest.approx(matplotlib.colors.to_rgb("0.8"))


# ---------------------------------------------------------------------------
# the real figures
# ---------------------------------------------------------------------------

def _lint_real(name):
    fig, _ = paper_figs.figures(name)[name](quick=True, seed=0)
    found = lint.lint_figure(fig, name=name)
    plt.close(fig)
    assert found == [], "\n".join(map(str, found))


@pytest.mark.parametrize("name", CHEAP)
def test_lint_passes_on_cheap_figures(name):
    _lint_real(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(paper_figs.figures()) - set(CHEAP)))
def test_lint_passes_on_every_figure(name):
    _lint_real(name)


def test_rotated_tick_labels_overlap_only_when_their_glyph_boxes_do():
    with style():
        fig, ax = new_figure()
        names = ["constant", "random", "stopping", "magnitude", "pushing"]
        ax.plot(range(5), [1, 2, 3, 2, 1], marker="o")
        ax.set_xticks(range(5), names, rotation=45, ha="right", rotation_mode="default")
    assert "text-overlap" not in _codes(fig)        # axis-aligned boxes overlap, the labels do not
    ax.set_xlim(-1, 30)                     # the same five labels squeezed together
    ax.set_xticks(np.arange(5) * 0.4, names, rotation=45, ha="right")
    assert "text-overlap" in _codes(fig)


def test_legend_only_proxy_is_not_a_hidden_series():
    fig, ax = _clean()
    ax.plot([], [], color="k", ls=":", label="proxy entry")
    ax.legend(loc="upper left")
    assert "hidden-series" not in _codes(fig)
    ax.plot([np.nan, np.nan], [np.nan, np.nan], color="C2", label="all NaN")
    ax.legend(loc="upper left")
    assert "hidden-series" in _codes(fig)


def test_a_figure_whose_data_uses_a_reserved_key_is_refused():
    """The registry writes ``caption``, ``claims`` and ``width`` into every figure's data; a figure's
    own value under one of them was silently overwritten (engine_evalue_paths lost its per-claim
    paths that way), so the registry refuses it."""
    from paper_figs.registry import FIGURES, _INFO, figure

    name = "test_reserved_key_figure"

    @figure(name, caption="A test figure.")
    def _fig(*, quick, seed):
        fig, ax = plt.subplots()
        return fig, {"claims": {"mine": 1}}

    try:
        with pytest.raises(ValueError, match="reserved keys \\['claims'\\]"):
            FIGURES[name](quick=False, seed=0)
    finally:
        plt.close("all")
        FIGURES.pop(name, None)
        _INFO.pop(name, None)


def test_number_text_and_log_tick_labels():
    """The one formatter of typeset numbers and plain log-axis labels (paper_figs.style)."""
    from paper_figs.style import log_tick_labels, number_text

    assert [number_text(x) for x in (0.004, 2000, 2e-5, 1e-9, 2.3e4, 0)] == \
        ["0.004", "2000", "2·10⁻⁵", "10⁻⁹", "2.3·10⁴", "0"]
    fig, ax = plt.subplots()
    ax.set_yscale("log")
    ax.set_ylim(0.02, 0.12)                                  # under 1.2 decades: mantissas 2, 3, 4, 6
    log_tick_labels(ax)
    fmt = ax.yaxis.get_minor_formatter()
    assert [fmt(v, 0) for v in (0.02, 0.05, 0.06, 0.1)] == ["0.02", "", "0.06", "0.1"]
    ax.set_ylim(1e-6, 1e-3)                                  # three decades: decades only
    assert [fmt(v, 0) for v in (2e-5, 1e-5)] == ["", "10⁻⁵"]
    with pytest.raises(ValueError, match="axis must be 'x' or 'y'"):
        log_tick_labels(ax, "z")
    plt.close(fig)
