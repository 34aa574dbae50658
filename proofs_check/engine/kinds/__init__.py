"""The kinds of claim, one module each (``docs/theory/engine.md`` §1).

A kind's module ``kinds/<kind>.py`` holds everything the kind means:

* ``<Kind>Claim``, a :class:`~..claims.Claim` with ``kind = "<kind>"``: its
  fields, the user functions it takes, and the hooks the engine calls — its
  chunk statistics (``stats_function``; what a stored chunk may hold,
  ``check_stats``), its decision (``decide``, ``decision_method``) and, where
  it applies, an early stop, a plan of chunks or a last step
  (``early_stop``, ``planned_chunks``, ``finish``);
* ``<Kind>Result``, a :class:`~..results.Result` declared with
  ``kind="<kind>"``: its fields and the words that explain it (``summary``,
  ``headline``, ``interval``, ``slack``, ``budget_to_settle``,
  ``settle_advice``, ``unit``).

Both classes register themselves as they are defined.  Importing this package
imports every module in it, so a new kind is a new module here (plus, for
users, its ``declare`` constructor); nothing else in the engine names a kind.
:data:`KINDS` lists the kinds, and the classes are importable from here.
"""
from __future__ import annotations

import importlib
import pkgutil

from ..claims import claim_class, claim_kinds
from ..results import Result, result_class


def _import_kinds() -> tuple[str, ...]:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    return claim_kinds()


#: Every kind of claim, in the order their modules are read (alphabetical).
KINDS: tuple[str, ...] = _import_kinds()

for _kind in KINDS:
    for _cls in (claim_class(_kind), result_class(_kind)):
        globals()[_cls.__name__] = _cls
del _kind, _cls

#: ``Result`` comes from here for :meth:`~..results.Result.from_dict`: with every kind loaded.
__all__ = ["KINDS", "Result",
           *(cls.__name__ for kind in KINDS for cls in (claim_class(kind), result_class(kind)))]
