"""Mutation checks: break the code under test and every claim family must change its verdict.

For each family of ``seqproj.*`` and ``seed.*`` claims (claims sharing one
function under test) a plausibly broken version of the simulator, the column
law, the adversary, the boundary or the sampler is monkeypatched **where the
claim's code looks it up at call time**, and the claim, run through the
engine (serial executor, ``out=None``, seed 0, α = 0.01) at a small budget,
must leave its expected verdict.

The numba kernels cannot be patched from Python (an already-compiled caller
keeps its compiled callee), so the mutations enter at the Python level:
``seqproj.reduced.chisq_constants`` (the law of the column's χ² part, read
before each reduced-kernel call), ``SimSetup.kernel_args`` (the scalars the
kernels receive), the NumPy reference backends (which call
``columns_from_normals`` at run time in :mod:`seqproj.kernels` and
:mod:`seqproj.inner_product`) and the Python-level ``null_vector`` of the
look-ahead control.

Validate once: a claim's experiment builds its frozen
:class:`~seqproj.protocol.SimSetup` when the claim is declared, so a mutation of
what :func:`seqproj.protocol.make_setup` looks up (``column_family``,
``make_adversary``) is seen by the claim's experiment rebuilt under the mutation
(:func:`_rebuilt`, as a process that declares the claims after the mutation would
build it); so is a run on the NumPy reference (``backend="numpy"``).

The claims read engine experiments, whose chunks the engine memoises per
process by the experiment's fingerprint (which cannot see a monkeypatch):
the autouse fixture ``fresh_measurements`` of ``conftest.py`` forgets them
around every test.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import proofs_check.selftest.samplers as seed_mod
import seqproj.inner_product as ip_mod
import seqproj.kernels as kernels_mod
import seqproj.lookahead as lookahead_mod
import seqproj.protocol as protocol_mod
import seqproj.reduced as reduced_mod
from proofs_check.engine import claims, get_claim, replace, verify_claim
from seqproj.events import path_experiment

ALPHA = 0.01


def _rebuilt(claim_id, **options):
    """The claim ``claim_id`` with its path experiment built anew from its configuration (now,
    under the test's mutation); ``options`` are further keywords of
    :func:`~seqproj.events.path_experiment` (``backend="numpy"``)."""
    c = get_claim(claim_id)
    exp = c.experiment
    return replace(c, experiment=path_experiment(**exp.params, chunk_size=exp.chunk_size, **options))


def _run(claim_id, budget=None, *, rebuild=None):
    """Verdict of ``claim_id`` at ``budget`` (default: one chunk), seed 0, serial, in memory;
    with ``rebuild`` (a dict of options) its experiment is rebuilt first (:func:`_rebuilt`)."""
    c = get_claim(claim_id) if rebuild is None else _rebuilt(claim_id, **rebuild)
    return verify_claim(c, budget=budget or c.chunk_size, seed=0, alpha=ALPHA, executor="serial",
                        out=None)


def _ids(prefix, **params):
    return sorted(c.id for c in claims(prefix)
                  if all(c.params.get(k) == v for k, v in params.items()))


# -- mutations ---------------------------------------------------------------

@pytest.fixture
def chi2_wrong_dof(monkeypatch):
    """Reduced simulator: the squared norm of the column's part orthogonal to ``S_{t−1}``
    drawn as χ²_2 instead of χ²_{M−1} — the column law of dimension 3, not M (a sphere
    column far too aligned with the sketch; a Gaussian column with ‖z‖² ≈ 3/M, not 1)."""
    orig = reduced_mod.chisq_constants
    monkeypatch.setattr(reduced_mod, "chisq_constants", lambda M: orig(3))


@pytest.fixture
def unnormalised_columns(monkeypatch):
    """Full simulator (NumPy reference, which calls ``columns_from_normals`` at run time; the
    claim runs on it with ``rebuild=NUMPY``): columns scaled by √M, i.e. ``E‖z‖² = M`` instead
    of 1 (theory seqproj.md#pitfalls: N(0, I) instead of N(0, I/M))."""
    orig = kernels_mod.columns_from_normals
    monkeypatch.setattr(kernels_mod, "columns_from_normals",
                        lambda g, fam: orig(g, fam) * math.sqrt(fam.M))


#: Rebuild a claim's experiment on the NumPy reference backend.
NUMPY = {"backend": "numpy"}


def _family_swap(monkeypatch, swap):
    """Full kernel: ``make_setup`` builds the column family through ``column_family``;
    ``swap(name, M)`` returns the (wrong) family actually used (a path claim sees it with
    ``rebuild={}``)."""
    orig = protocol_mod.column_family

    def broken(name, M, *, s=None, **kw):
        return swap(orig, name, M) or orig(name, M, s=s, **kw)

    monkeypatch.setattr(protocol_mod, "column_family", broken)


@pytest.fixture
def heavy_tailed_columns(monkeypatch):
    """Rademacher and sparse columns built by a map that keeps only the largest
    coordinate (one-hot: heavy tails, outside the theorem's assumptions)."""
    _family_swap(monkeypatch, lambda orig, name, M:
                 orig("sparse", M, s=1) if name in ("rademacher", "sparse") else None)


@pytest.fixture
def spread_onehot(monkeypatch):
    """One-hot columns built by a map that spreads the sign over all M coordinates."""
    _family_swap(monkeypatch, lambda orig, name, M:
                 orig("sparse", M, s=M) if name == "onehot" else None)


@pytest.fixture
def event_only_at_T(monkeypatch):
    """The time-uniform event checked only at ``t = T`` (theory seqproj.md#pitfalls)."""
    monkeypatch.setattr(protocol_mod.PathStats, "failed", property(lambda self: self.out_at_T))


def _kernel_arg(monkeypatch, index, f):
    orig = protocol_mod.SimSetup.kernel_args

    def broken(self):
        args = list(orig(self))
        args[index] = f(args[index])
        return tuple(args)

    monkeypatch.setattr(protocol_mod.SimSetup, "kernel_args", broken)


# -- A. coverage at the theorem's M, efficiency ------------------------------

REDUCED_HOLDS = _ids("seqproj.coverage", simulator="reduced", M=836) + ["seqproj.efficiency.M_theorem_div5"]
FULL_COVERAGE = _ids("seqproj.coverage", simulator="full")
REFUTED_CONTROLS = ["seqproj.coverage.sphere.constant.M32", "seqproj.efficiency.M_theorem_div20"]
FAST_FULL = {"seqproj.coverage.rademacher.constant"}   # the others: ~3-15 s each, slow


#: The worst-case claims compute at every run (issue 21 §10).  Mutations of the DP enter through
#: ``seqproj.worst_case.worst_case_value`` (looked up at call time by the upper estimate, the
#: replayed policy and the coarse theorem check): a wrong dimension in the transition law
#: (``M → M // 2``), and the DP's max over actions replaced by a min (the policy becomes the *best*
#: adversary).  Each claim must leave "holds" under at least one of them.
WORST_CASE = sorted(c.id for c in claims("seqproj.worst_case"))
WC_UPPER = [c for c in WORST_CASE if c.endswith(".upper")]
WC_LOWER = [c for c in WORST_CASE if c.endswith(".lower")] + [c for c in WORST_CASE if ".gap." in c]


def _dp_mutant(monkeypatch, kind):
    import seqproj.worst_case as wc

    real = wc.worst_case_value
    if kind == "half_dimension":
        monkeypatch.setattr(wc, "worst_case_value", lambda M, *a, **k: real(max(3, M // 2), *a, **k))
    elif kind == "min_for_max":
        monkeypatch.setattr(wc, "worst_case_value", lambda *a, **k: real(*a, **{**k, "maximize": False}))
    else:
        raise ValueError(kind)


def _wc_verdict(cid):
    return verify_claim(get_claim(cid), executor="serial", seed=0, out=None).verdict


@pytest.mark.slow
@pytest.mark.parametrize("cid", WC_UPPER)
def test_worst_case_upper_refuted_by_a_wrong_transition(cid, monkeypatch):
    """The upper estimate at M_hi: a DP whose ζ law has half the dimension overestimates p*."""
    assert get_claim(cid).expected == "holds"
    _dp_mutant(monkeypatch, "half_dimension")
    assert _wc_verdict(cid) == "refuted"


@pytest.mark.slow
@pytest.mark.parametrize("cid", WC_LOWER)
def test_worst_case_lower_and_gap_refuted_by_min_for_max(cid, monkeypatch):
    """The replayed policy of a DP that minimises fails rarely: the lower end and the gap fail."""
    assert get_claim(cid).expected == "holds"
    _dp_mutant(monkeypatch, "min_for_max")
    assert _wc_verdict(cid) == "refuted"


def test_worst_case_claims_are_split_into_the_two_mutation_groups():
    assert "seqproj.worst_case.theorem_M" in WORST_CASE
    assert set(WORST_CASE) == set(WC_UPPER) | set(WC_LOWER) | {"seqproj.worst_case.theorem_M"}
    assert WC_UPPER and WC_LOWER


def test_worst_case_claims_compute_rather_than_read(monkeypatch):
    """No worst-case claim reads a stored value as its verdict: with every DP call broken
    (an exception), evaluating any of them fails."""
    import seqproj.worst_case as wc

    def broken(*a, **k):
        raise RuntimeError("DP called")

    monkeypatch.setattr(wc, "worst_case_value", broken)
    for cid in WORST_CASE:
        with pytest.raises(RuntimeError, match="DP called"):
            get_claim(cid).evaluate(np.zeros(1))


def test_families_are_all_covered():
    """Every seqproj (non-ensemble) and seed claim is exercised by a mutation below."""
    covered = (set(REDUCED_HOLDS) | set(FULL_COVERAGE) | set(REFUTED_CONTROLS)
               | set(_ids("seqproj.fixed_time")) | {"seqproj.negative_control.lookahead"}
               | set(_ids("seqproj.mixture")) | set(_ids("seqproj.tails"))
               | set(_ids("seqproj.anytime")) | {"seqproj.inner_product.sphere.pushing"}
               | {c.id for c in claims("selftest")} | set(WORST_CASE)
               | set(TIME_UNIFORM_CONTROLS)
               # proved formulas: their mutants are refuted in tests/engine/test_proved_claims.py
               | set(_ids("seqproj.formula")))
    mine = {c.id for c in claims("seqproj") if not c.id.startswith("seqproj.ensemble")}
    mine |= {c.id for c in claims("selftest")}
    # the parametrised mutations below select something, each claim once (no pinned count)
    assert REDUCED_HOLDS and FULL_COVERAGE and not set(REDUCED_HOLDS) & set(FULL_COVERAGE)
    assert len(set(REDUCED_HOLDS)) == len(REDUCED_HOLDS)
    assert mine == covered


@pytest.mark.parametrize("cid", REDUCED_HOLDS)
def test_coverage_reduced_refuted_by_wrong_column_law(cid, chi2_wrong_dof):
    assert get_claim(cid).expected == "holds"
    r = _run(cid)
    assert r.verdict == "refuted", (r.events, r.trials)


@pytest.mark.parametrize("cid", [pytest.param(c, marks=() if c in FAST_FULL else pytest.mark.slow)
                                 for c in FULL_COVERAGE])
def test_coverage_full_refuted_by_unnormalised_columns(cid, unnormalised_columns):
    before = get_claim(cid).expected
    assert before in ("holds", None)          # onehot.constant: a measurement that holds
    r = _run(cid, rebuild=NUMPY)
    assert r.verdict == "refuted" and r.events == r.trials


@pytest.mark.parametrize("cid", REFUTED_CONTROLS)
def test_small_M_controls_need_the_time_uniform_event(cid, event_only_at_T):
    """Checking the band only at t = T (p ≈ 0.04 at M = 32, 0.02 at M = 42) must not refute."""
    assert get_claim(cid).expected == "refuted"
    r = _run(cid, budget=4 * get_claim(cid).chunk_size)
    assert r.verdict != "refuted", (r.events, r.trials)


#: controls of the time-uniform event: hold as they stand, refuted when only t = T is checked
TIME_UNIFORM_CONTROLS = ["seqproj.coverage.sphere.constant.M32_survival"]


@pytest.mark.parametrize("cid", TIME_UNIFORM_CONTROLS)
def test_time_uniform_control_refuted_when_only_t_eq_T_is_checked(cid, event_only_at_T):
    """Survival to T at M = 32 is ≈ 0.52 time-uniformly, ≈ 0.96 at t = T only: at the claim's
    default budget the mutation must refute it (so ``--fail-on unexpected`` goes red)."""
    c = get_claim(cid)
    assert c.role == "control" and c.expected == "holds"
    r = _run(cid, budget=c.default_budget)
    assert r.verdict == "refuted", (r.events, r.trials)


# -- B. fixed-time JL ----------------------------------------------------------

@pytest.mark.parametrize("cid", ["seqproj.fixed_time.stopping.gaussian",
                                 "seqproj.fixed_time.stopping.sphere"])
def test_fixed_time_needs_a_stopping_adversary(cid, monkeypatch):
    """A 'stopping' adversary that never stops (the exit test lost) plays a fixed design:
    the fixed-vector bound then holds and the control is no longer refuted."""
    orig = protocol_mod.make_adversary
    monkeypatch.setattr(protocol_mod, "make_adversary",
                        lambda name, **kw: orig("constant" if name == "stopping" else name, **kw))
    assert get_claim(cid).expected == "refuted"
    r = _run(cid, rebuild={})
    assert r.verdict == "holds", (r.events, r.trials)


def test_fixed_time_positive_control_refuted_by_wrong_column_law(chi2_wrong_dof):
    cid = "seqproj.fixed_time.constant.gaussian"
    assert get_claim(cid).expected == "holds"
    assert _run(cid).verdict == "refuted"


# -- C. look-ahead control --------------------------------------------------------

def test_lookahead_control_needs_the_null_vector(monkeypatch):
    """A look-ahead adversary that forgets to project onto the null space of the columns
    plays a random bounded design: the control is no longer refuted."""
    monkeypatch.setattr(lookahead_mod, "null_vector", lambda Z, h: h.copy())
    cid = "seqproj.negative_control.lookahead"
    assert get_claim(cid).expected == "refuted"
    r = _run(cid, budget=get_claim(cid).default_budget)
    assert r.verdict != "refuted" and r.events == 0


# -- D. mixture boundary ----------------------------------------------------------

@pytest.mark.parametrize("cid", _ids("seqproj.mixture"))
def test_mixture_refuted_by_halved_boundary_level(cid, monkeypatch):
    """The boundary's ``2 log(1/α)`` written as ``log(1/α)`` (crossing rate ≈ 0.09 > α = 0.05)."""
    _kernel_arg(monkeypatch, 7, lambda mix_l: mix_l / 2)
    assert get_claim(cid).expected == "holds"
    r = _run(cid, budget=get_claim(cid).quick_budget)
    assert r.verdict == "refuted", (r.events, r.trials)


# -- E. tails ---------------------------------------------------------------------

@pytest.mark.parametrize("cid", ["seqproj.tails.sphere", "seqproj.tails.gaussian"])
def test_tails_reduced_refuted_by_wrong_column_law(cid, chi2_wrong_dof):
    assert get_claim(cid).expected == "holds"
    assert _run(cid).verdict == "refuted"


@pytest.mark.parametrize("cid", ["seqproj.tails.rademacher", "seqproj.tails.sparse"])
def test_tails_full_refuted_by_heavy_tailed_columns(cid, heavy_tailed_columns):
    """One-hot columns in place of Rademacher/sparse: rate ≈ 0.034 > 0.0102."""
    assert get_claim(cid).expected == "holds"
    r = _run(cid, budget=get_claim(cid).quick_budget, rebuild={})
    assert r.verdict == "refuted", (r.events, r.trials)


def test_tails_onehot_control_needs_heavy_tails(spread_onehot):
    """One-hot columns that are really spread (rate ≈ 0.006 < 0.0102): not refuted."""
    cid = "seqproj.tails.onehot"
    assert get_claim(cid).expected == "refuted"
    r = _run(cid, rebuild={})
    assert r.verdict != "refuted", (r.events, r.trials)


def test_tails_onehot_vs_sphere_needs_heavy_tails(spread_onehot):
    cid = "seqproj.tails.onehot_vs_sphere"
    assert get_claim(cid).expected == "holds"
    r = _run(cid)
    assert r.verdict != "holds"


# -- F. any-time band, inner products -------------------------------------------------

@pytest.mark.parametrize("cid", _ids("seqproj.anytime"))
def test_anytime_refuted_by_band_without_its_constant(cid, monkeypatch):
    """The any-time band with ``c_0`` in place of ``16 c_0`` (exit rate 0.55–0.71 > 0.05)."""
    _kernel_arg(monkeypatch, 8, lambda K: K / 16.0)
    assert get_claim(cid).expected == "holds"
    assert _run(cid).verdict == "refuted"


def test_inner_product_refuted_by_unnormalised_columns(monkeypatch):
    orig = ip_mod.columns_from_normals
    monkeypatch.setattr(ip_mod, "columns_from_normals",
                        lambda g, fam: orig(g, fam) * math.sqrt(fam.M))
    cid = "seqproj.inner_product.sphere.pushing"
    assert get_claim(cid).expected == "holds"
    assert _run(cid).verdict == "refuted"


# -- seed claims ------------------------------------------------------------------

def test_seed_dg_tail_refuted_by_unscaled_projection(monkeypatch):
    """Π with N(0, 1) entries instead of N(0, 1/M): ‖Πu‖²/‖u‖² ≈ M."""
    monkeypatch.setattr(seed_mod, "projected_sq_norm_ratio",
                        lambda M, rng, n: rng.chisquare(M, size=n))
    assert get_claim("selftest.dg_tail").expected == "holds"
    assert _run("selftest.dg_tail").verdict == "refuted"


def test_seed_dg_tail_doubled_needs_the_right_dimension(monkeypatch):
    """A sampler of dimension 4M (rate ≈ 1e-8 < the doubled bound 0.0020): not refuted."""
    monkeypatch.setattr(seed_mod, "projected_sq_norm_ratio",
                        lambda M, rng, n: rng.chisquare(4 * M, size=n) / (4 * M))
    cid = "selftest.dg_tail_doubled"
    assert get_claim(cid).expected == "refuted"
    r = _run(cid, budget=get_claim(cid).quick_budget)
    assert r.verdict != "refuted"


def test_seed_energy_identity_refuted_by_wrong_energy(monkeypatch):
    """An energy that counts p_a² twice: ``(1 − p_a)² + Σ_b p_b²``."""
    def broken(logits, actions):
        z = np.asarray(logits, dtype=float)
        p = np.exp(z - z.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        pa = np.take_along_axis(p, np.asarray(actions)[..., None], -1)[..., 0]
        return (1 - pa) ** 2 + (p * p).sum(-1)

    monkeypatch.setattr(seed_mod, "logit_gradient_energy", broken)
    assert get_claim("selftest.logit_energy_identity").expected == "holds"
    assert _run("selftest.logit_energy_identity").verdict == "refuted"


def test_seed_energy_identity_proof_can_fail(monkeypatch):
    """A proof of a wrong closed form (1 − p_a + Σ p²) fails: the verdict is no longer 'holds'."""
    import sympy as sp

    def wrong_proof(V):
        z = sp.symbols(f"z0:{V}", real=True)
        Z = sum(sp.exp(zi) for zi in z)
        p = [sp.exp(zi) / Z for zi in z]
        lhs = sum(((1 if b == 0 else 0) - p[b]) ** 2 for b in range(V))
        return sp.simplify(lhs - (1 - p[0] + sum(pb ** 2 for pb in p))) == 0

    monkeypatch.setattr(seed_mod, "prove_logit_energy_identity", wrong_proof)
    r = _run("selftest.logit_energy_identity")
    assert r.verdict == "inconclusive" and r.proved is False
