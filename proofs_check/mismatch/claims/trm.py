"""``mismatch.trm.*`` — trust region masking and its sample-based proxies, as probability claims.

The three claims reduce the same trials, :data:`proofs_check.mismatch.experiments.TRM_PATHS` (also
plotted by ``mismatch_trm_acceptance``): every trial draws a fresh ``low_prob`` policy pair and one
response (so the trials are independent); the oracle ``max_t KL(c_t)`` is recomputed from the raw
logits by :func:`proofs_check.mismatch.trm_oracle.exact_path_kl`.  TRM acceptance ``(1 − p)^T`` is
``mismatch.identity.trm_acceptance``.
"""
from __future__ import annotations

import functools

from proofs_check.engine import ProbabilityClaim, register
from proofs_check.mismatch.experiments import TRM_PATHS
from proofs_check.mismatch.trm_oracle import proxy_false_accepts, wrong_decisions

from ._common import paper

register(ProbabilityClaim(
    id="mismatch.trm.exact_never_false_accepts",
    statement="TRM-Max (library exact per-context KL + trm_max_mask) accepts a response iff its exact "
              "max_t KL(c_t) ≤ δ: P(decision differs from the exact rule) ≤ 1e-3",
    source=paper("trm", "trm"), label="CONFIRMED",
    params={"delta": 0.02, "V": 2, "T": 6, "generator": "low_prob, fresh pair per trial"},
    experiment=TRM_PATHS, reduce=functools.partial(wrong_decisions, delta=0.02), delta=1e-3,
    chunk_size=500, default_budget=10_000, quick_budget=6_000, role="statement", expected="holds", version=2,
    notes="false accepts and false rejects both count; the oracle max-KL is recomputed from the raw logits "
          "(exact_path_kl), not by the library.  The level 1e-3 is fixed in advance: a mask that is "
          "wrong on any systematic class of contexts errs at rates far above it."))
for _p in ("k2_max", "k3_mean"):
    register(ProbabilityClaim(
        id=f"mismatch.trm.proxy_{_p}_false_accept",
        statement=f"the {_p} proxy mask accepts a response whose exact max_t KL(c_t) exceeds δ with probability ≤ 1%",
        source=paper("trm", "trm", note="the paper's sample-based proxies; the rigorous guarantee needs the exact KL"),
        label="CONFIRMED",
        params={"delta": 0.02, "V": 2, "T": 6, "generator": "low_prob, fresh pair per trial"},
        experiment=TRM_PATHS, reduce=functools.partial(proxy_false_accepts, proxy=_p, delta=0.02), delta=0.01,
        chunk_size=500, default_budget=4_000, quick_budget=2_000, role="statement", expected="refuted",
        version=2,
        notes="the proxies see only sampled-token log-probs, so they cannot bound the exact KL: the "
              "statement is the naive belief and is refuted; p̂ measures how often the proxy admits a "
              "violating response (1% fixed in advance as 'rare')"))
