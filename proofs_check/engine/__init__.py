"""The verification engine: claims, chunked Monte Carlo, statistics, search,
executors, result files and verdicts.  It knows nothing of any paper.

This facade is the engine's contract with users, topics, figures, notebooks
and benchmarks: import engine names from ``proofs_check.engine``, not from its
submodules.  Its public API (``__all__``; every function in it refuses hostile
input with a message naming the argument), by group:

* claims and their kinds — ``Claim``, one ``<Kind>Claim`` per module
  ``kinds/<kind>.py`` of :mod:`.kinds`, ``KINDS``, ``LABELS``, ``ROLES``,
  ``EXPECTED``, ``Source``, ``replace``;
* the registry — ``register``, ``claims``, ``get_claim``, ``select``;
* verdicts — ``verify_claim``, ``verify_claims``, ``Result`` and one
  ``<Kind>Result`` per kind, ``VERDICTS``, ``GUARANTEES``;
* running chunks — ``map_chunks``, ``chunk_rng``, ``make_executor``, ``EXECUTORS``;
* experiments shared by claims and figures — ``Experiment``, ``measure``,
  ``Measurement``, ``clear_measurements``;
* errors — ``ResultFileError``, ``ClaimDeclarationError``, ``UserClaimsError``.

The building blocks of topics and figures are importable from here too
(:data:`KIT`, not in ``__all__``: they trust their caller, as the functions
inside a chunk do):

* argument checks (:mod:`.validate`) — ``as_generator``, ``check_int``,
  ``check_real``, ``check_open_unit``, ``check_finite_array``,
  ``check_choice``, ``check_bool``, ``check_instance``, ``shown``, and the
  three arguments of every run, ``check_alpha``, ``check_budget``, ``check_seed``;
* statistics — ``clopper_pearson``, ``log_e_below``, ``log_e_above``;
* worst-case search and shrinking — ``violates``, ``confirm_mp``, ``shrink``,
  ``complexity``, ``reproduce_line``;
* chunks and workers — ``as_arrays``, ``to_jsonable``, ``default_workers``,
  ``MAX_WORKERS``, ``single_threaded_blas``;
* the sign-comparison statistic ``sign_of`` (a majority stated with ``bounds=(-1, 1)``).

Names are imported lazily (PEP 562) so that ``theorycheck --help`` and other
light users of one submodule do not pay for SciPy and the statistics.  The
design is in ``docs/theory/engine.md``.
"""
from __future__ import annotations

import importlib

from ..kind_names import kind_class_names


#: public name -> submodule to import it from
_WHERE = {
    # claims and their kinds (a kind's classes come from its module in kinds/)
    **dict.fromkeys(["EXPECTED", "LABELS", "ROLES", "Claim", "replace", "to_jsonable"], "claims"),
    **dict.fromkeys(["KINDS", "Result", *kind_class_names()], "kinds"),
    "Source": "source",
    "sign_of": "kinds.comparison",
    # headline findings: sentence templates bound to claims, declared by topics
    **dict.fromkeys(["Finding", "NotSettled", "register_finding", "registered_findings", "get_finding"],
                    "findings"),
    # the registry
    **dict.fromkeys(["claims", "get_claim", "register", "select"], "registry"),
    # verdicts
    "verify_claim": "verify",
    "verify_claims": "across_claims",
    **dict.fromkeys(["VERDICTS", "GUARANTEES", "fmt_against"], "results"),
    # running chunks
    **dict.fromkeys(["chunk_rng", "map_chunks"], "runner"),
    **dict.fromkeys(["EXECUTORS", "MAX_WORKERS", "default_workers", "make_executor"], "executors"),
    "single_threaded_blas": "blas",
    # experiments shared by claims and figures
    "Experiment": "experiment",
    **dict.fromkeys(["Measurement", "clear_measurements", "measure"], "measure"),
    "as_arrays": "chunkstats",
    # statistics
    **dict.fromkeys(["clopper_pearson", "log_e_above", "log_e_below"], "stats"),
    # worst-case search and shrinking
    **dict.fromkeys(["confirm_mp", "violates"], "search"),
    **dict.fromkeys(["complexity", "reproduce_line", "shrink"], "shrink"),
    # argument checks
    **dict.fromkeys(["as_generator", "check_alpha", "check_bool", "check_budget", "check_choice",
                     "check_finite_array", "check_instance", "check_int", "check_open_unit", "check_real",
                     "check_seed", "shown"], "validate"),
    # errors
    **dict.fromkeys(["ClaimDeclarationError", "ResultFileError", "UserClaimsError"], "errors"),
}

#: The building blocks of topics and figures: importable from here, not in ``__all__``.
KIT = ("as_generator", "check_int", "check_real", "check_open_unit", "check_finite_array", "check_choice",
       "check_bool", "check_instance", "shown", "check_alpha", "check_budget", "check_seed",
       "clopper_pearson", "log_e_below", "log_e_above",
       "violates", "confirm_mp", "shrink", "complexity", "reproduce_line",
       "as_arrays", "to_jsonable", "default_workers", "MAX_WORKERS", "single_threaded_blas", "sign_of")

__all__ = [name for name in _WHERE if name not in KIT]


# ``claims``, ``measure`` and ``shrink`` are both submodules and functions: bind the
# functions eagerly (their modules are light: NumPy, SQLite, no SciPy), so that
# importing a submodule later cannot shadow them.
from .measure import measure  # noqa: E402
from .registry import claims  # noqa: E402
from .shrink import shrink  # noqa: E402


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value              # later lookups skip __getattr__
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
