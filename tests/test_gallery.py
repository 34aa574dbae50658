"""The README's gallery is generated from the figure registry and is up to date.

The table between ``<!-- gallery:start -->`` and ``<!-- gallery:end -->`` in ``README.md`` is
:func:`paper_figs.registry.gallery_markdown` (one row per figure this distribution ships: its
committed PNG and the first sentence of its caption); ``python -m paper_figs.gallery``
rewrites it, as ``python -m theorycheck.catalogue`` does ``docs/claims.md``.
"""
from pathlib import Path

import pytest

import paper_figs
from paper_figs.gallery import README, main, with_gallery
from paper_figs.registry import (BUILT, DISTRIBUTION, FIGURES, GALLERY_END, GALLERY_START, _first_sentence,
                                 figure_info, figure_modules, gallery_markdown)

ROOT = Path(__file__).resolve().parents[1]


def _shipped() -> set[str]:
    modules = set(figure_modules(DISTRIBUTION))
    return {n for n in paper_figs.figures() if FIGURES[n].__module__ in modules}


def test_the_readme_gallery_is_up_to_date():
    text = (ROOT / README).read_text(encoding="utf-8")
    assert with_gallery(text) == text, "README.md's gallery is stale: run `python -m paper_figs.gallery`"
    assert main(["--check", "--root", str(ROOT)]) == 0


def test_one_row_per_shipped_figure_with_its_committed_png():
    table = gallery_markdown()
    rows = table.splitlines()[2:]
    shipped = _shipped()
    assert shipped and len(rows) == len(shipped)
    for name in shipped:
        assert f"**`{name}`**" in table
        assert (ROOT / BUILT / f"{name}.png").exists(), f"{name}: no committed {BUILT}/{name}.png"


def test_a_stale_gallery_is_caught(tmp_path):
    text = (ROOT / README).read_text(encoding="utf-8")
    row = gallery_markdown().splitlines()[2]
    assert with_gallery(text.replace(row + "\n", "")) == text                  # a dropped row comes back
    info = {n: m for n, m in figure_info().items() if n in _shipped()}
    name = sorted(info)[0]
    info[name] = {**info[name], "caption": "A changed caption. Its second sentence."}
    changed = gallery_markdown(info)
    assert "A changed caption. |" in changed and with_gallery(text, changed) != text
    (tmp_path / README).write_text(text.replace(row + "\n", ""), encoding="utf-8")
    assert main(["--check", "--root", str(tmp_path)]) == 1
    assert main(["--root", str(tmp_path)]) == 0 and (tmp_path / README).read_text(encoding="utf-8") == text


def test_the_gallery_needs_its_markers():
    with pytest.raises(ValueError, match="gallery:start"):
        with_gallery("# a README without a gallery\n")
    with pytest.raises(ValueError, match="gallery:start"):
        with_gallery(f"{GALLERY_END}\n{GALLERY_START}\n")


@pytest.mark.parametrize("caption,first", [
    ("One sentence only.", "One sentence only."),
    ("Error against η for V = 4, 32: (a) this, (b) that. More.", "Error against η for V = 4, 32"),
    ("(a) Variance of baselines.variance.*. (b) MSE.", "(a) Variance of baselines.variance.*."),
    ("Bound ± 1 s.e. over seeds, as in [1]. Supports x.y.", "Bound ± 1 s.e. over seeds, as in [1]."),
    ("A  caption\n   over lines. Second.", "A caption over lines."),
    ("No full stop at all", "No full stop at all"),
])
def test_first_sentence(caption, first):
    assert _first_sentence(caption) == first
