"""A figure that says it plots a claim's chunks measures that claim's experiment.

A figure declares it with ``chunks_of=`` (claim ids or globs) in :func:`paper_figs.figure`
(:func:`paper_figs.figure_info` lists them).  For each such figure a quick build is run while
every :class:`~proofs_check.engine.Experiment` fingerprint computed is recorded (the engine
keys an experiment's chunks by its fingerprint, so ``measure`` computes it); the experiment of
every claim named must be among them — one fingerprint, the same chunks.  A figure whose
experiment keywords drift from the claim's (another chunk size, another ε) measures another
experiment and fails; ``test_a_planted_drift_is_caught`` plants two such drifts.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import paper_figs  # noqa: E402
from proofs_check.engine import Experiment, claims  # noqa: E402
from theorycheck.report.figures import matches  # noqa: E402

#: name -> the claim patterns whose chunks the figure shows
SHARING = {name: meta["chunks_of"] for name, meta in paper_figs.figure_info().items() if meta["chunks_of"]}


def _claims_of(patterns) -> list:
    return [c for c in claims() if any(matches(c.id, p) for p in patterns)]


def measured_fingerprints(name: str) -> set[str]:
    """Fingerprints of the experiments measured while figure ``name`` is built (quick, seed 0)."""
    seen: set[str] = set()
    fingerprint = Experiment.fingerprint

    def recording(self):
        fp = fingerprint(self)
        seen.add(fp)
        return fp

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Experiment, "fingerprint", recording)
        fig, _ = paper_figs.figures(name)[name](quick=True, seed=0)
    plt.close(fig)
    return seen


def drift(name: str, measured: set[str]) -> list[str]:
    """The claims named in ``chunks_of`` of figure ``name`` whose experiment it did not measure."""
    return [f"{name} does not measure the experiment of {c.id} ({c.experiment.id}, fingerprint "
            f"{c.experiment.fingerprint()})" for c in _claims_of(SHARING[name])
            if c.experiment.fingerprint() not in measured]


def test_some_figures_declare_the_chunks_they_share():
    assert {"seqproj_failure_vs_M", "seqproj_fixed_vs_uniform", "seqproj_tails"} <= set(SHARING)


@pytest.mark.parametrize("name", sorted(SHARING))
def test_chunks_of_names_claims_that_read_an_experiment(name):
    info = paper_figs.figure_info()[name]
    for pattern in info["chunks_of"]:
        named = _claims_of([pattern])
        assert named, f"{name}: chunks_of pattern {pattern!r} matches no registered claim"
        for c in named:
            assert c.experiment is not None, f"{name}: {c.id} reads no experiment, so it shares no chunks"
            assert any(matches(c.id, p) for p in info["claims"]), \
                f"{name}: {c.id} is in chunks_of but not among the claims the figure supports"


@pytest.mark.parametrize("name", sorted(SHARING))
def test_a_figure_measures_the_experiment_of_the_claims_whose_chunks_it_shows(name):
    problems = drift(name, measured_fingerprints(name))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("plant", ["chunk size", "eps"])
def test_a_planted_drift_is_caught(plant, monkeypatch):
    """The figure's experiment keywords drift from the claim's: its chunk size (read from
    ``seqproj.experiments.CHUNK`` when the figure is built) or its ε (a builder that passes its
    own keyword).  The check must then fail."""
    import paper_figs.seqproj_figs as figs
    import seqproj.experiments as experiments

    name = "seqproj_failure_vs_M"
    assert not drift(name, measured_fingerprints(name))
    if plant == "chunk size":
        monkeypatch.setattr(experiments, "CHUNK", {**experiments.CHUNK, "reduced": 500})
    else:
        band = figs.band_experiment
        monkeypatch.setattr(figs, "band_experiment", lambda *a, **kw: band(*a, **kw, eps=0.5 + 1e-12))
    problems = drift(name, measured_fingerprints(name))
    assert problems and "seqproj.coverage.sphere.constant.M32" in problems[0]
