"""The one registry of claims.

Claim modules call :func:`register` at import time.  The engine names no
topic: :func:`claims` imports every module declared in the entry-point group
``theorycheck.claims`` (this project's own topics in ``pyproject.toml``, and
any installed package's) and returns the registered claims sorted by id.
A third-party claims module that fails to import is skipped with a one-line
:class:`ClaimModuleWarning` while the others load (this distribution's own
modules still raise); ``THEORYCHECK_NO_PLUGINS=1`` skips every entry point
that the ``theorycheck`` distribution does not ship.

A user's own claims come in through :func:`load_user_claims` — a ``.py``
file path or a dotted module name (``theorycheck verify my_claims.py``,
``theorycheck verify -m mypkg.claims``).  A module loaded from a path is
named ``theorycheck_user.<stem>``; to run its claims on worker processes
(``processes``/``dask``), :func:`portable_task` wraps a chunk task so that a
worker first loads the same file under the same name.
"""
from __future__ import annotations

import fnmatch
import importlib
import importlib.util
import os
import pickle
import shlex
import sys
import types
from importlib.metadata import entry_points
from pathlib import Path

from .claims import Claim
from .errors import ClaimDeclarationError, UserClaimsError

__all__ = ["ENTRY_POINT_GROUP", "NO_PLUGINS_ENV", "claim_modules", "claim_entry_points", "register", "claims",
           "get_claim", "select", "matches", "registered_ids", "claims_registered_by", "import_claims_module",
           "load_errors", "load_user_claims", "UserClaimsError", "ClaimModuleWarning"]

#: The entry-point group whose values are modules that register claims.
ENTRY_POINT_GROUP = "theorycheck.claims"


#: The distribution that ships this project's own claim modules (its topics).
DISTRIBUTION = "theorycheck"
#: Environment switch: ``THEORYCHECK_NO_PLUGINS=1`` loads only the claim modules
#: that :data:`DISTRIBUTION` ships, skipping every third-party entry point.
NO_PLUGINS_ENV = "THEORYCHECK_NO_PLUGINS"


class ClaimModuleWarning(UserWarning):
    """A third-party claims module failed to import and was skipped."""


def _entry_points() -> list:
    """Every entry point of the ``theorycheck.claims`` group, as installed (the one
    place that reads them: tests replace it)."""
    return list(entry_points(group=ENTRY_POINT_GROUP))


def _normalised(name: str) -> str:
    return "".join("-" if ch in "_." else ch for ch in name.lower())


def is_own_entry_point(ep) -> bool:
    """Whether entry point ``ep`` is declared by :data:`DISTRIBUTION` itself (a
    shipped topic), not by a third-party package."""
    dist = getattr(ep, "dist", None)
    name = getattr(dist, "name", None) if dist is not None else None
    return name is not None and _normalised(name) == _normalised(DISTRIBUTION)


def plugins_disabled() -> bool:
    """Whether :data:`NO_PLUGINS_ENV` asks to skip third-party claim modules."""
    import os

    return os.environ.get(NO_PLUGINS_ENV, "").strip().lower() not in ("", "0", "false", "no")


def claim_entry_points() -> list:
    """The ``theorycheck.claims`` entry points in use, sorted by name then module:
    all of them, or only this distribution's own when ``THEORYCHECK_NO_PLUGINS=1``."""
    eps = _entry_points()
    if plugins_disabled():
        eps = [ep for ep in eps if is_own_entry_point(ep)]
    return sorted(eps, key=lambda ep: (ep.name, ep.value))


def entry_point_names(module: str) -> list[str]:
    """The names under which ``module`` is declared in the ``theorycheck.claims``
    entry points (installed, whether or not plugins are switched off)."""
    return sorted({ep.name for ep in _entry_points() if ep.value == module})


def claim_modules() -> list[str]:
    """The claim modules declared in the ``theorycheck.claims`` entry points
    (only this distribution's own when ``THEORYCHECK_NO_PLUGINS=1``)."""
    return sorted({ep.value for ep in claim_entry_points()})


_REGISTRY: dict[str, Claim] = {}
#: claim id -> the module whose code registered it
_ORIGIN: dict[str, str] = {}
#: module name -> file path, for user modules loaded from a path
_PATH_MODULES: dict[str, str] = {}
#: module name -> how a user named it (path or dotted name), for reproduce lines
_USER_SPECS: dict[str, str] = {}
_loaded = False

#: The package under which claim files loaded from a path are named.
USER_PACKAGE = "theorycheck_user"


def _registering_module() -> str:
    """The first module up the stack that is not the engine or the declaration API."""
    f = sys._getframe(2)
    while f is not None:
        name = f.f_globals.get("__name__", "")
        if not (name.startswith("proofs_check.engine") or name == "proofs_check.declare"):
            return name
        f = f.f_back
    return "__main__"


def register(claim: Claim) -> Claim:
    """Add ``claim`` to the registry; ids are unique."""
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a Claim, got {type(claim).__name__}")
    old = _REGISTRY.get(claim.id)
    if old is not None and old is not claim:
        where = _ORIGIN.get(claim.id)
        raise ValueError(f"duplicate claim id {claim.id!r}"
                         + (f" (already declared in {module_origin(where)})" if where else "")
                         + ": give each claim a unique id")
    _REGISTRY[claim.id] = claim
    _ORIGIN.setdefault(claim.id, _registering_module())
    return claim


def shown_path(path) -> str:
    """``path`` as printed in reports and reproduce lines: relative to the current folder
    when it lies inside it, else ``~/…`` under the home folder, else as it is (no machine
    paths such as ``/home/alice/…`` in a report that is shared)."""
    p = Path(path)
    try:
        return os.path.relpath(p, Path.cwd()) if p.resolve().is_relative_to(Path.cwd().resolve()) else \
            ("~/" + str(p.resolve().relative_to(Path.home().resolve()))
             if p.resolve().is_relative_to(Path.home().resolve()) and Path.home() != Path("/") else str(p))
    except (OSError, ValueError, RuntimeError):
        return str(p)


def module_origin(module: str) -> str:
    """How a user names ``module``: its file path if it was loaded from one (shown by
    :func:`shown_path`)."""
    return shown_path(_PATH_MODULES[module]) if module in _PATH_MODULES else module


def claim_origin(claim_id: str) -> str:
    """The CLI words that load the claim's module, for a reproduce line: the
    claims file (:func:`shown_path`, shell-quoted; also the file of a module imported
    some other way, e.g. by a test), ``-m module`` for a module named on the command
    line, or ``""`` for an entry-point module (loaded anyway)."""
    mod = _ORIGIN.get(claim_id)
    if mod is None:
        return ""
    if mod in _PATH_MODULES:
        return shlex.quote(shown_path(_PATH_MODULES[mod]))
    entry = set(claim_modules())
    if any(mod == m or mod.startswith(m + ".") for m in entry):
        return ""
    if any(mod == m or mod.startswith(m + ".") for m in _USER_SPECS):
        return f"-m {mod}"
    # a module imported some other way (a test's `import mybound`, a script): its file, so that
    # the reproduce line loads the claim in a fresh process
    file = getattr(sys.modules.get(mod), "__file__", None)
    if file and file.endswith(".py") and os.path.isfile(file):
        return shlex.quote(shown_path(file))
    return ""


def is_shipped(claim: Claim, entry_modules=None) -> bool:
    """Whether a fresh process finds this very claim by id: registered by an
    entry-point module (not a user's file or ``-m`` module) and not replaced since."""
    if _REGISTRY.get(claim.id) is not claim:
        return False
    mod = _ORIGIN.get(claim.id)
    entry = set(claim_modules() if entry_modules is None else entry_modules)
    return mod is not None and mod not in _PATH_MODULES and mod not in _USER_SPECS and \
        any(mod == m or mod.startswith(m + ".") for m in entry)


def _user_module_name(path: Path) -> str:
    stem = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in path.stem) or "claims"
    if stem[0].isdigit():
        stem = "_" + stem
    name, k = f"{USER_PACKAGE}.{stem}", 2
    while name in _PATH_MODULES and _PATH_MODULES[name] != str(path):
        name, k = f"{USER_PACKAGE}.{stem}_{k}", k + 1
    return name


def _load_path_module(name: str, path: str):
    """Execute the file at ``path`` as module ``name`` (once per process)."""
    mod = sys.modules.get(name)
    if mod is not None:
        return mod
    if USER_PACKAGE not in sys.modules:
        pkg = types.ModuleType(USER_PACKAGE, "claim files loaded by path (theorycheck)")
        pkg.__path__ = []
        sys.modules[USER_PACKAGE] = pkg
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserClaimsError(f"cannot load claims from {path}: not a Python file")
    mod = importlib.util.module_from_spec(spec)
    _PATH_MODULES[name] = path
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(name, None)
        _PATH_MODULES.pop(name, None)
        raise
    return mod


def _one_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load_user_claims(spec: str) -> list[Claim]:
    """Import a user's claims — ``spec`` is a ``.py`` file path or a dotted
    module name — and return the claims it registered (sorted by id).

    Loading is idempotent (a module already loaded is not run again).
    Errors are :class:`UserClaimsError` (a ``ValueError``) with one line naming
    the module, the claim if one is at fault, and what to fix."""
    if not isinstance(spec, str) or not spec.strip():
        raise TypeError(f"spec must be a .py file path or a dotted module name, got {spec!r}")
    _load_all()                                         # the built-in claims first: ids stay unique
    is_path = spec.endswith(".py") or "/" in spec or "\\" in spec
    if is_path:
        path = Path(spec).expanduser()
        if not path.is_file():
            raise UserClaimsError(f"claims file {spec!r} does not exist (give a .py file, or -m a.dotted.module)")
        path = path.resolve()
        name = next((m for m, p in _PATH_MODULES.items() if p == str(path)), None) or _user_module_name(path)
        label = spec
    else:
        name, label = spec, spec

    try:
        if is_path:
            # the file may import a module beside it, as `python file.py` allows: its folder goes
            # on sys.path (at the end: a sibling never shadows an installed module) and stays
            # there, for claim code that imports later and for worker processes
            if str(path.parent) not in sys.path:
                sys.path.append(str(path.parent))
            _load_path_module(name, str(path))
        else:
            importlib.import_module(name)
    except ClaimDeclarationError as exc:
        raise UserClaimsError(f"{label}: {exc}") from None
    except ModuleNotFoundError as exc:
        if not is_path and exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            raise UserClaimsError(f"cannot import claims module {name!r}: no module named {exc.name!r} "
                                  f"(install its package or put it on PYTHONPATH; a file is given as "
                                  f"path/to/file.py)") from None
        raise UserClaimsError(f"cannot load claims from {label}: {_one_line(exc)} — fix the import "
                              f"in the module") from None
    except SyntaxError as exc:
        raise UserClaimsError(f"cannot load claims from {label}: SyntaxError at line {exc.lineno}: "
                              f"{exc.msg}") from None
    except Exception as exc:
        tb, line = exc.__traceback__, None
        while tb is not None:
            if tb.tb_frame.f_globals.get("__name__") == name:
                line = tb.tb_lineno
            tb = tb.tb_next
        where = f" (line {line})" if line else ""
        raise UserClaimsError(f"cannot load claims from {label}: {_one_line(exc)}{where} — fix the "
                              f"module so that it imports") from None
    _USER_SPECS[name] = label
    found = claims_registered_by(name)
    if not found:
        raise UserClaimsError(f"{label} registers no claim: declare claims in it (e.g. "
                              f"proofs_check.inequality(...)) or register(...) engine claims")
    return found


class _ShippedTask:
    """A chunk task whose claims come from files loaded by path: a worker
    process loads those files under the same module names, then unpickles
    the task (pickled by the parent)."""

    def __init__(self, modules: tuple, payload: bytes):
        self.modules = modules
        self.payload = payload
        self._task = None

    def __getstate__(self):
        return {"modules": self.modules, "payload": self.payload}

    def __setstate__(self, state):
        self.modules, self.payload, self._task = state["modules"], state["payload"], None

    def __call__(self, rng, n):
        if self._task is None:
            for name, path in self.modules:
                _load_path_module(name, path)
            self._task = pickle.loads(self.payload)
        return self._task(rng, n)


def portable_task(task):
    """``task`` ready for worker processes: unchanged unless claim files were
    loaded by path in this process (then a :class:`_ShippedTask`)."""
    if not _PATH_MODULES:
        return task
    return _ShippedTask(tuple(sorted(_PATH_MODULES.items())), pickle.dumps(task))


class isolated:
    """Context manager: claims registered inside are removed on exit (tests, the pytest plugin)."""

    def __enter__(self):
        _load_all()                    # the built-in claims stay: only what is added here goes
        self._saved = (dict(_REGISTRY), dict(_ORIGIN), dict(_USER_SPECS), dict(_PATH_MODULES))
        self._modules = set(sys.modules)
        return self

    def __exit__(self, *exc):
        added = set(_PATH_MODULES) | set(_USER_SPECS)
        for store, saved in zip((_REGISTRY, _ORIGIN, _USER_SPECS, _PATH_MODULES), self._saved):
            store.clear()
            store.update(saved)
        for name in added - set(_PATH_MODULES) - set(_USER_SPECS):
            for m in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                if m not in self._modules:
                    del sys.modules[m]


def registered_ids() -> list[str]:
    """Ids registered so far in this process (without loading the entry-point modules)."""
    return sorted(_REGISTRY)


#: third-party claims module -> the one-line error that made :func:`_load_all` skip it
_LOAD_ERRORS: dict[str, str] = {}


def load_errors() -> dict[str, str]:
    """Third-party claim modules skipped because they failed to import: module -> error."""
    return dict(_LOAD_ERRORS)


def claims_registered_by(module: str) -> list[Claim]:
    """The claims (sorted by id) registered by the code of ``module`` or of its submodules."""
    return sorted((c for cid, c in _REGISTRY.items()
                   if _ORIGIN.get(cid) == module or _ORIGIN.get(cid, "").startswith(module + ".")),
                  key=lambda c: c.id)


def import_claims_module(module: str) -> types.ModuleType:
    """Import ``module``; if that raises, the claims it registered before failing
    are unregistered again, and the error propagates."""
    before = set(_REGISTRY)
    try:
        return importlib.import_module(module)
    except BaseException:
        for cid in set(_REGISTRY) - before:
            del _REGISTRY[cid]
            _ORIGIN.pop(cid, None)
        raise


def _load_plugin(module: str, names: list[str]) -> None:
    """Import a third-party claims module; if it fails, warn in one line and go on."""
    try:
        import_claims_module(module)
    except Exception as exc:
        _LOAD_ERRORS[module] = _one_line(exc)
        import warnings

        label = ", ".join(repr(n) for n in names)
        warnings.warn_explicit(
            f"claims module {module!r} (entry point {label} of {ENTRY_POINT_GROUP}) failed to import and "
            f"is skipped: {_LOAD_ERRORS[module]}; fix or uninstall its package, or set "
            f"{NO_PLUGINS_ENV}=1", ClaimModuleWarning, filename="theorycheck", lineno=0)


def _load_all() -> None:
    """Import every claims module of the entry points in use.  This distribution's
    own modules raise on error; a third-party module that fails is skipped with a
    :class:`ClaimModuleWarning`, and the others still load."""
    global _loaded
    if _loaded:
        return
    eps = claim_entry_points()
    if not eps:
        raise RuntimeError(f"no claim modules found in the entry-point group {ENTRY_POINT_GROUP!r}: "
                           f"is theorycheck installed (pip install .)?")
    ours = {ep.value for ep in eps if is_own_entry_point(ep)}
    for name in sorted({ep.value for ep in eps}):
        if name in ours:
            importlib.import_module(name)
        else:
            _load_plugin(name, sorted({ep.name for ep in eps if ep.value == name}))
    _loaded = True


def claims(pattern: str | None = None) -> list[Claim]:
    """Every registered claim (sorted by id), optionally filtered by ``pattern``.

    A pattern matches a claim when it equals its id, is a dotted prefix of it
    (``"seqproj"``, ``"seqproj.coverage"``), or matches it as a shell glob
    (``"*tail*"``).
    """
    if pattern is not None and not isinstance(pattern, str):
        raise TypeError(f"pattern must be a string (an id, dotted prefix or glob), got {type(pattern).__name__}")
    _load_all()
    out = sorted(_REGISTRY.values(), key=lambda c: c.id)
    if pattern is None:
        return out
    return [c for c in out if matches(c.id, pattern)]


def matches(claim_id: str, pattern: str) -> bool:
    """Whether ``pattern`` selects ``claim_id``: equal, a dotted prefix, or a shell glob."""
    return (claim_id == pattern or claim_id.startswith(pattern.rstrip(".") + ".")
            or fnmatch.fnmatchcase(claim_id, pattern))


def get_claim(claim_id: str) -> Claim:
    """The claim with exactly this id; ``ValueError`` listing near names if unknown."""
    if not isinstance(claim_id, str):
        raise TypeError(f"claim_id must be a claim id string, got {type(claim_id).__name__}")
    _load_all()
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        import difflib

        near = difflib.get_close_matches(claim_id, list(_REGISTRY), n=5, cutoff=0.6)
        hint = f"; similar: {', '.join(near)}" if near else "; run `theorycheck list` for all ids"
        raise ValueError(f"unknown claim_id {claim_id!r}{hint}") from None


def select(pattern: str) -> list[Claim]:
    """Claims matching an id or pattern; ``ValueError`` if none match."""
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a string (an id, dotted prefix or glob), got {type(pattern).__name__}")
    found = claims(pattern)
    if not found:
        raise ValueError(f"pattern {pattern!r} matches no claim; run `theorycheck list` to see the ids")
    return found


def check_portable(claims, executor: str) -> None:
    """Refuse, before anything runs, claims whose functions cannot be sent to
    worker processes (``executor`` ``"processes"`` or ``"dask"``): one
    ``ValueError`` naming the claim, the function and the fix."""
    if executor not in ("processes", "dask"):
        return
    for c in claims:
        if c.experiment is not None:
            parts = (c.experiment.fn, c.reduce)
        else:
            parts = (c.chunk_task(),)
        for task in parts:
            try:
                pickle.dumps(portable_task(task))
            except Exception:
                raise UserClaimsError(
                    f"claim {c.id!r}: its function {_unpicklable_leaf(task)} cannot be sent to the "
                    f"{executor!r} executor (lambdas and functions defined inside other functions cannot "
                    f"be pickled): define it with `def` at the top level of its module, or run with "
                    f"--executor serial or threads") from None


def _unpicklable_leaf(fn, depth: int = 0) -> str:
    import functools

    parts = ()
    if isinstance(fn, functools.partial):
        parts = (fn.func, *fn.args, *fn.keywords.values())
    elif hasattr(fn, "__dict__") and not callable(getattr(fn, "__code__", None)) and not isinstance(fn, type):
        parts = tuple(v for v in vars(fn).values() if callable(v))
    if depth < 8:
        for part in parts:
            try:
                pickle.dumps(part)
            except Exception:
                return _unpicklable_leaf(part, depth + 1)
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    return f"{name} (a lambda)" if "<lambda>" in name else repr(name)
