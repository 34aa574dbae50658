"""Issue 21 item 7: the dependence (overdispersion) check works from 2 chunks.

Anytime runs stop early, often after 1–4 chunks; the old Pearson test needed 5.
:func:`binomial_dispersion_pvalue` is now exact conditional on the total for
J = 2 (hypergeometric) and, with few chunks or few expected events, a Monte
Carlo conditional test whose p-value satisfies P(p ≤ u) ≤ u.  These tests
check the false-warning rate under independence (≤ DISPERSION_LEVEL = 1e-3)
and that clustered trials stopped after 2–4 chunks are warned.
"""
import functools

import numpy as np
import pytest
from scipy import stats as st

from proofs_check.engine import ProbabilityClaim, verify_claim
from proofs_check.engine.stats import DISPERSION_LEVEL, binomial_dispersion_pvalue, clopper_pearson


def test_two_chunks_exact_hypergeometric_pvalue():
    for a, b, n in [(3, 7, 10), (0, 4, 10), (10, 0, 10), (2, 9, 12), (40, 60, 500), (250, 250, 500)]:
        K = a + b
        x = np.arange(n + 1)
        brute = st.hypergeom.pmf(x, 2 * n, K, n)[np.abs(2 * x - K) >= abs(2 * a - K)].sum()
        assert binomial_dispersion_pvalue([a, b], n) == pytest.approx(min(1.0, brute), rel=1e-9, abs=1e-15)
    assert binomial_dispersion_pvalue([7], 10) is None                 # one chunk: nothing to compare
    assert binomial_dispersion_pvalue([0, 0], 10) is None              # no events: no variation possible
    assert binomial_dispersion_pvalue([10, 10], 10) is None


def test_two_chunks_size_of_the_exact_test_is_at_most_the_level():
    """Exact size: Σ over all (k1, k2) of P(k1)P(k2)·[p ≤ 1e-3] under Binomial(n, p)²."""
    for n, p in [(50, 0.1), (200, 0.02)]:
        pk = st.binom.pmf(np.arange(n + 1), n, p)
        keep = np.nonzero(pk > 1e-14)[0]
        size = sum(pk[i] * pk[j] for i in keep for j in keep
                   if (binomial_dispersion_pvalue([int(i), int(j)], n) or 1.0) < DISPERSION_LEVEL)
        assert size <= DISPERSION_LEVEL, (n, p, size)


@pytest.mark.parametrize("J,p", [(3, 0.1), (4, 0.002), (8, 0.005)])
def test_monte_carlo_branch_false_warning_rate(J, p):
    """Independent Binomial counts: warnings at 1e-3 over 1500 draws (seeded).
    Pass rule fixed in advance: ≤ 6 (P(Binom(1500, 1e-3) > 6) < 1e-3)."""
    rng = np.random.default_rng(21)
    hits = sum((binomial_dispersion_pvalue(rng.binomial(500, p, J), 500) or 1.0) < DISPERSION_LEVEL
               for _ in range(1500))
    assert hits <= 6, hits


def test_monte_carlo_pvalue_detects_clustering_in_three_chunks():
    assert binomial_dispersion_pvalue([30, 50, 70], 500) < DISPERSION_LEVEL   # ≈ 6σ spread at p = 0.1
    assert binomial_dispersion_pvalue([48, 50, 52], 500) > 0.5


def clustered_events(rng, n, *, p, m):
    """Trials in clusters of ``m`` sharing one outcome: events = m·Binomial(n/m, p)."""
    return int(m * rng.binomial(n // m, p))


def test_clustered_trials_stopped_after_few_chunks_are_warned():
    """Clusters of 10 at p = δ: before issue 21 a run stopped after 2–4 chunks
    was never warned (the test needed 5).  Now most wrong verdicts decided on
    2 or more chunks carry the warning (measured: see the report)."""
    claim = ProbabilityClaim(id="test.clustered", statement="P ≤ 0.1", source="test", label="DERIVED",
                             fn=functools.partial(clustered_events, p=0.1, m=10), delta=0.1, chunk_size=500)
    early = warned = 0
    for seed in range(60):
        r = verify_claim(claim, budget=20_000, seed=seed, alpha=0.05, executor="serial")
        if r.verdict != "inconclusive" and 2 <= r.chunks <= 4:
            early += 1
            warned += any("independent" in w for w in r.warnings)
    assert early >= 10, early
    assert warned >= 1, (warned, early)
