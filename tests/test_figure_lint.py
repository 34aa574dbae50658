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


# ---------------------------------------------------------------------------
# rules added after the second figure review (shared/reviews/figures-and-friction-2.md): each
# planted in a small figure the way the reviewed figure had it, and its fix passing
# ---------------------------------------------------------------------------

#: The five figures the second review scored 3/5, rebuilt after it.
REVIEW2 = ("ensemble_tracking_vs_d_T", "mismatch_estimators", "mismatch_horizon", "seqproj_worst_case_policy",
           "seqproj_worst_case_ratio")


def _tracking_like(zoom: bool):
    """ensemble_tracking_vs_d_T before/after: medians ≈ 0.8–1.1 with a 0.71 line, y from 0 or zoomed."""
    with style():
        fig, ax = new_figure()
        x = np.array([5, 10, 20, 40])
        med = np.array([1.07, 0.88, 0.83, 0.83])
        ax.errorbar(x, med, yerr=0.08, marker="o", color="C0", label="median, IQR")
        ref_line(ax, y=0.707, label="bound")
        ax.set_xscale("log")
        ax.set_ylim((0.65, 1.2) if zoom else (0.0, 1.3))
        fig.legend(loc="outside lower center", ncol=2)
    return fig


def test_planted_empty_axis_range_fails_and_zoom_passes():
    found = lint.lint_figure(_tracking_like(zoom=False))
    assert [f.code for f in found] == ["empty-axis-range"], found
    assert "below" in found[0].message
    assert _codes(_tracking_like(zoom=True)) == set()


def test_empty_axis_range_spares_bars_and_in_axes_legends():
    with style():
        fig, ax = new_figure()
        ax.bar([1, 2, 3], [8.0, 9.0, 10.0], label="count")       # bars start at 0 by design
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    assert "empty-axis-range" not in _codes(fig)
    fig, _ = _clean()                  # its top band holds the legend: not wasted
    assert "empty-axis-range" not in _codes(fig)


def _horizon_like(one_legend: bool):
    """mismatch_horizon before/after: the same styles keyed in a legend under each panel."""
    with style():
        fig, (a, b) = new_figure(ncols=2, height=2.6)
        T = np.geomspace(4, 4096, 12)
        for ax, k in ((a, 1.0), (b, 2.0)):
            ax.loglog(T, 1e-4 * T ** k, "o-", color="C0", ms=3, label=f"|Error|: slope {k:g}")
            ax.loglog(T, 1e-3 * T ** 2, "--", color="C3", label=f"classical bound ({'a' if k == 1 else 'b'})")
        if one_legend:
            fig.legend(*a.get_legend_handles_labels(), loc="outside lower center", ncol=2)
        else:
            for ax in (a, b):
                ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25))
    return fig


def test_planted_duplicate_legend_fails_and_one_legend_passes():
    found = lint.lint_figure(_horizon_like(one_legend=False))
    assert "duplicate-legend" in {f.code for f in found}, found
    assert "duplicate-legend" not in _codes(_horizon_like(one_legend=True))


def test_planted_coinciding_series_fails_and_separated_passes():
    with style():
        fig, ax = new_figure()
        s = np.geomspace(0.02, 1, 10)
        ax.plot(s, 1.0 + 0.001 * s, color="C0", lw=4, label="naive")          # a thick line ...
        ax.plot(s, 1.0 + 0.001 * s ** 2, color="C1", lw=1, label="token TIS")  # ... and one on top of it
        ax.plot(s, 2.0 + 4 * s ** 3, color="C2", ls="-.", label="sequence IS")
        ax.set_xscale("log")
        ax.legend(loc="upper left")
    found = lint.lint_figure(fig)
    hit = [f for f in found if f.code == "coinciding-series"]
    assert len(hit) == 1 and "'naive'" in hit[0].message and "'token TIS'" in hit[0].message, found
    assert "hidden-series" not in {f.code for f in found}      # both visible: a different defect
    fig.axes[0].lines[1].set_ydata(0.7 + 0.001 * s)               # separated by a third of the axis
    assert "coinciding-series" not in _codes(fig)


def _policy_like(interior: bool, bad_colour: bool):
    """seqproj_worst_case_policy before/after: a map that is mostly the top colour, with NaN holes."""
    with style():
        fig, ax = new_figure()
        t = np.arange(1, 41)
        d = np.geomspace(1e-7, 0.5, 30 if interior else 12)
        x = np.minimum(1.0, np.outer(d, 1 + t / 40) * 10)             # saturates away from the edge
        if interior:
            x = np.vstack([x, np.ones((40, t.size))])                   # the flat band interior
        x[2, 5] = np.nan                                                # a pause cell
        cmap = matplotlib.colormaps["viridis"]
        if bad_colour:
            cmap = cmap.with_extremes(bad="0.8")
        from matplotlib.colors import LogNorm
        m = ax.pcolormesh(t, np.arange(x.shape[0]), x, norm=LogNorm(1e-6, 1.0), cmap=cmap, shading="nearest")
        fig.colorbar(m, ax=ax)
    return fig


def test_planted_saturated_map_and_white_holes_fail_and_the_zoomed_keyed_map_passes():
    found = _codes(_policy_like(interior=True, bad_colour=False))
    assert {"image-saturated", "image-holes"} <= found, found
    assert _codes(_policy_like(interior=False, bad_colour=True)) & {"image-saturated", "image-holes"} == set()


def _ratio_like(floating: bool, legend_gap: float):
    """seqproj_worst_case_ratio before/after: floating range bars beside solid bars, a far legend."""
    with style():
        fig, ax = new_figure(width="page", height=2.6)
        x = np.arange(4.0)
        if floating:
            ax.bar(x - 0.18, [0.7, 1.0, 1.5, 2.1], bottom=[8.3, 8.3, 8.5, 9.2], width=0.36, color="C3",
                   label="range over the bracket")
            ax.bar(x + 0.18, [10.3, 10.3, 10.5, 0], width=0.36, color="C0", label="constant design")
        else:
            ax.errorbar(x - 0.14, [8.65, 8.8, 9.25, 10.3], yerr=[0.35, 0.5, 0.75, 1.1], fmt="none", capsize=4,
                        color="C3", label="range over the bracket")
            ax.plot(x[:3] + 0.3, [10.3, 10.3, 10.5], "D", color="C0", label="constant design")
        ax.set_ylim(0, 14)
        ax.set_xticks(x, [f"T = {T}" for T in (100, 300, 1000, 10000)])
        if legend_gap:
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -legend_gap), ncol=2, frameon=False)
        else:
            fig.legend(loc="outside lower center", ncol=2, frameon=False)
    return fig


def test_planted_mixed_bars_and_empty_band_fail_and_one_encoding_passes():
    found = _codes(_ratio_like(floating=True, legend_gap=0.3))   # as the reviewed figure had it
    assert {"mixed-bars", "empty-canvas-band"} <= found, found
    assert _codes(_ratio_like(floating=False, legend_gap=0.0)) & {"mixed-bars", "empty-canvas-band"} == set()


@pytest.mark.slow
@pytest.mark.parametrize("name", REVIEW2)
def test_review2_figures_pass_every_rule(name):
    """The five rebuilt figures (quick builds: the same drawing code as the full build) lint clean."""
    _lint_real(name)
