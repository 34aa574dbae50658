r"""Tabular autoregressive policies and exact enumeration over all ``V**T`` responses.

The shared substrate of the policy topics (training–inference mismatch,
baselines): it imports only the engine, never a topic.  Modules, by object:

* :mod:`.tabular` — :class:`TabularPolicy` (one logit row per prefix; layout of
  ``docs/theory/mismatch.md#enumeration``), the memory guard :func:`check_enumerable`, argument checks.
* :mod:`.sequences` — exact enumeration (``log P^π(y)``, ``d_t^π``, ``J(π)``,
  log-ratio tables) and sampling (responses, per-token log-probs).
* :mod:`.divergences` — per-context TV / KL(μ‖π) / χ², the sequence-level
  divergences and :func:`divergence_summary`.
* :mod:`.generators` — the four mismatch generators of theory ``mismatch.md#enumeration``
  and :func:`random_pair`.
* :mod:`.linear` — :class:`LinearSoftmaxPolicy`, shared parameters
  ``z(c, v) = φ(c, v)·θ`` and its score tables.

Every public name is re-exported here: ``from proofs_check.policies import
TabularPolicy, divergence_summary, random_pair, ...``.  The mathematics is
restated in ``docs/theory/mismatch.md`` (§ setting and § enumeration harness).
"""
from .divergences import (DivergenceSummary, divergence_summary, kl_terms, per_context_chi2, per_context_kl,
                          per_context_tv, sequence_chi2, sequence_kl, sequence_kl_chain, sequence_tv)
from .generators import (GENERATORS, iid_tilt_pair, low_probability_mismatch, random_pair, sparse_mismatch,
                         uniform_mismatch)
from .linear import LinearSoftmaxPolicy
from .sequences import (context_distributions, expand_to_sequences, expected_return, prefix_log_probs,
                        sample_responses, sequence_index, sequence_log_probs, sequence_probs, token_log_probs,
                        token_log_ratio_tables)
from .tabular import DEFAULT_MAX_BYTES, TabularPolicy, check_enumerable, check_pair, check_reward

__all__ = [
    "DEFAULT_MAX_BYTES",
    "GENERATORS",
    "TabularPolicy",
    "LinearSoftmaxPolicy",
    "check_enumerable",
    "check_pair",
    "check_reward",
    "prefix_log_probs",
    "sequence_log_probs",
    "sequence_probs",
    "context_distributions",
    "expected_return",
    "token_log_ratio_tables",
    "expand_to_sequences",
    "per_context_tv",
    "per_context_kl",
    "per_context_chi2",
    "sequence_kl",
    "sequence_kl_chain",
    "sequence_tv",
    "sequence_chi2",
    "DivergenceSummary",
    "divergence_summary",
    "uniform_mismatch",
    "sparse_mismatch",
    "low_probability_mismatch",
    "iid_tilt_pair",
    "random_pair",
    "sample_responses",
    "token_log_probs",
    "sequence_index",
    "kl_terms",
]
