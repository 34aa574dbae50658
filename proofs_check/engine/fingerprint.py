"""Fingerprints of what a claim actually computes.

A result file may only be resumed by the computation that wrote it.  The
fingerprint therefore hashes the *effective* arguments of every user callable
— for a :func:`functools.partial` its function, positional and keyword
arguments; for a function its module, qualified name, defaults and source
text — plus the claim's declared fields and its ``version``.

What a function *reads* is part of it (issue 26 item 1: a module constant
``P0 = 0.3000 → 0.3015`` read by the claim was invisible).  For a function
whose code lies in the project or the user's files (its file is not under the
standard library or ``site-packages``, :func:`is_library_file`) the
description also holds

* its closure (the values of its free variables),
* every global it reads — the names its bytecode (and that of its nested
  functions, lambdas and comprehensions) loads with ``LOAD_GLOBAL``/``LOAD_NAME``,
  followed through attribute loads into project/user modules
  (``helper.P0`` is the value of ``P0`` in ``helper``) — described recursively:
  a project/user function by this same description (so a helper's constants
  are seen), a project/user class by its source and members, any other value
  by :func:`canonical`; library modules, functions and classes by name only;
* where the bytecode cannot say what is read — a project/user module used as
  a value (``getattr(helper, name)``, passed along) — the hash of that
  module's file.

What stays invisible: library code (by name only), state reached through
arguments at call time, and values mutated while chunks run; the resume spot
check (:func:`.runner.spot_check`) recomputes a random sample of stored chunks
to catch those.  Changing this scheme changes every stored fingerprint, so
stores written before it are refused on ``--resume`` ("the code ... changed")
and must be run afresh; verdicts are unaffected.

Memory addresses never enter a fingerprint (``repr`` texts are scrubbed of
``at 0x…``), so fingerprints are stable across processes and machines.
"""
from __future__ import annotations

import dataclasses
import dis
import enum
import functools
import hashlib
import inspect
import math
import os
import re
import sys
import sysconfig
import types
from typing import Any

import numpy as np

__all__ = ["canonical", "describe_callable", "global_reads", "is_library_file", "nondeterministic_reads"]

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


_SOURCE_HASHES: dict[types.CodeType, str] = {}


def _source_hash(fn) -> str | None:
    """sha256 of ``fn``'s source text (of its bytecode when there is no source),
    cached per code object: a code object's text is fixed once compiled, and
    the source lookup is the slow part of a fingerprint."""
    code = getattr(fn, "__code__", None)
    if isinstance(code, types.CodeType) and code in _SOURCE_HASHES:
        return _SOURCE_HASHES[code]
    try:
        h = hashlib.sha256(inspect.getsource(fn).encode()).hexdigest()[:16]
    except (OSError, TypeError):
        if not isinstance(code, types.CodeType):
            return None
        h = hashlib.sha256(code.co_code).hexdigest()[:16]
    if isinstance(code, types.CodeType):
        if len(_SOURCE_HASHES) > 16384:
            _SOURCE_HASHES.clear()
        _SOURCE_HASHES[code] = h
    return h


@functools.lru_cache(maxsize=1)
def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(k)}
    for prefix in {sys.base_prefix, sys.base_exec_prefix}:
        roots.add(os.path.realpath(os.path.join(prefix, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}")))
    return tuple(sorted(roots))


@functools.lru_cache(maxsize=8192)
def is_library_file(path: str | None) -> bool:
    """True when ``path`` is code of the standard library or an installed
    package (under ``site-packages``/``dist-packages`` or the interpreter's
    library folders), False for the project's and the user's own files
    (including code with no real file, e.g. typed at a prompt)."""
    if not path or not isinstance(path, str):
        return True                               # built-in / frozen: not code a user edits
    if path.startswith("<"):
        return path.startswith("<frozen")        # "<stdin>", "<ipython-input…>": the user's
    real = os.path.realpath(path)
    parts = real.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return True
    return any(real == r or real.startswith(r + os.sep) for r in _library_roots())


def _is_user_module(mod: types.ModuleType) -> bool:
    f = getattr(mod, "__file__", None)
    if f is None:
        return mod.__name__ == "__main__"
    return not is_library_file(f)


def _is_user_function(fn) -> bool:
    return isinstance(fn, types.FunctionType) and not is_library_file(fn.__code__.co_filename)


def _is_user_class(cls: type) -> bool:
    mod = sys.modules.get(getattr(cls, "__module__", None) or "")
    return mod is not None and _is_user_module(mod)


_FILE_HASHES: dict[tuple, str] = {}


def _file_hash(path: str | None) -> str | None:
    """sha256 of a file's bytes (cached by path, size and mtime)."""
    if not path:
        return None
    try:
        st = os.stat(path)
        key = (path, st.st_size, st.st_mtime_ns)
        if key not in _FILE_HASHES:
            with open(path, "rb") as fh:
                _FILE_HASHES[key] = hashlib.sha256(fh.read()).hexdigest()[:16]
        return _FILE_HASHES[key]
    except OSError:
        return None


_ATTR_OPS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})
_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})


@functools.lru_cache(maxsize=4096)
def _global_chains(code: types.CodeType) -> tuple[tuple[str, ...], ...]:
    """The globals ``code`` loads, each with the attribute names loaded right
    after it (``np.random.random`` → ``("np", "random", "random")``), over the
    code and every code object nested in it (functions, lambdas, comprehensions)."""
    chains: set[tuple[str, ...]] = set()
    stack = [code]
    while stack:
        co = stack.pop()
        ins = list(dis.get_instructions(co))
        i = 0
        while i < len(ins):
            if ins[i].opname in _GLOBAL_OPS and isinstance(ins[i].argval, str):
                chain = [ins[i].argval]
                j = i + 1
                while j < len(ins) and ins[j].opname in _ATTR_OPS and isinstance(ins[j].argval, str):
                    chain.append(ins[j].argval)
                    j += 1
                chains.add(tuple(chain))
                i = j
            else:
                i += 1
        stack.extend(c for c in co.co_consts if isinstance(c, types.CodeType))
    return tuple(sorted(chains))


def _resolve(fn_globals: dict, chain: tuple[str, ...]):
    """``(dotted name, value)`` a global chain reaches, following attributes
    only through project/user modules; ``None`` for a builtin or unknown name."""
    name = chain[0]
    if name not in fn_globals:
        return None                               # a builtin (len, range) or a NameError at run time
    value, path = fn_globals[name], [name]
    for attr in chain[1:]:
        if not (isinstance(value, types.ModuleType) and _is_user_module(value)) or not hasattr(value, attr):
            break
        value = getattr(value, attr)
        path.append(attr)
    return ".".join(path), value


def global_reads(fn) -> dict[str, Any]:
    """The globals a project/user function reads, resolved: ``{dotted name: value}``
    (empty for library code).  See the module docstring."""
    target = fn.__func__ if inspect.ismethod(fn) else fn
    if not _is_user_function(target):
        return {}
    out = {}
    for chain in _global_chains(target.__code__):
        hit = _resolve(target.__globals__, chain)
        if hit is not None:
            out[hit[0]] = hit[1]
    return out


#: id -> (object, description): mutable globals as first described in this process.
_SNAPSHOTS: dict[int, tuple[Any, Any]] = {}


def _is_mutable_state(value) -> bool:
    """Containers and objects whose contents can change while chunks run (a
    call counter, a memo dict, a buffer array) — as opposed to numbers,
    strings, tuples, functions, classes and modules."""
    if isinstance(value, (dict, list, set, bytearray, np.ndarray)):
        return True
    return (not callable(value) and not isinstance(value, (type, types.ModuleType))
            and isinstance(getattr(value, "__dict__", None), dict))


def _describe_value(value, depth: int, seen: dict) -> Any:
    """A global's description: library modules, functions and classes by name,
    the project's and the user's recursively, other values by :func:`canonical`.

    A mutable container or object is described as it was the first time this
    process described it (before any chunk of the claim ran): a memo dict or a
    call counter the claim fills while it runs must not change its fingerprint
    between the run and a resume in the same process.  An edit of such a
    global in the file shows in the next process; a change made at run time
    to one is left to the resume spot check."""
    if _is_mutable_state(value):
        hit = _SNAPSHOTS.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        _SNAPSHOTS[id(value)] = (value, {"snapshot": type(value).__qualname__})   # a cycle back to it
        desc = canonical(value, depth + 1, _seen={})          # context-free: the same from any claim
        _SNAPSHOTS[id(value)] = (value, desc)                  # kept alive, so the id is not reused
        return desc
    if isinstance(value, types.ModuleType):
        if _is_user_module(value):
            return {"module": value.__name__, "file": _file_hash(getattr(value, "__file__", None))}
        return {"module": value.__name__}
    if isinstance(value, type):
        return _describe_class(value, depth + 1, seen)
    if isinstance(value, types.FunctionType) and not _is_user_function(value):
        return {"function": f"{value.__module__}.{value.__qualname__}"}
    return canonical(value, depth + 1, _seen=seen)


_CLASS_SOURCES: dict[int, tuple[type, str | None]] = {}     # id -> (class kept alive, hash)


def _class_source_hash(cls: type) -> str | None:
    """sha256 of a class's source (its file's hash when the source cannot be
    found), cached per class object — the class as loaded, like a function's
    code object; ``inspect.getsource`` parses the whole file for a class."""
    hit = _CLASS_SOURCES.get(id(cls))
    if hit is not None and hit[0] is cls:
        return hit[1]
    try:
        h = hashlib.sha256(inspect.getsource(cls).encode()).hexdigest()[:16]
    except (OSError, TypeError):
        h = _file_hash(getattr(sys.modules.get(cls.__module__), "__file__", None))
    _CLASS_SOURCES[id(cls)] = (cls, h)
    return h


def _describe_global(fn, value, depth: int, seen: dict) -> Any:
    """:func:`_describe_value` of a global ``fn`` reads; a value that cannot be
    described (its ``repr`` or attributes raise) is replaced by the hash of the
    file of ``fn``'s module — what cannot be known is covered by the file."""
    try:
        return _describe_value(value, depth, seen)
    except Exception:                                 # noqa: BLE001 - any failure of user objects
        return {"undescribed": f"{type(value).__module__}.{type(value).__qualname__}",
                "file": _file_hash(fn.__code__.co_filename)}


def _describe_class(cls: type, depth: int, seen: dict) -> Any:
    """A class: by name if it is library code, else its source and members."""
    name = f"{cls.__module__}.{cls.__qualname__}"
    if not _is_user_class(cls):
        return name
    if depth > 20:
        return "<deep>"
    if id(cls) in seen:
        return {"class": name, "seen": True}
    seen[id(cls)] = cls
    src = _class_source_hash(cls)
    members = {}
    for key, member in sorted(vars(cls).items()):
        if key.startswith("__") and key.endswith("__") and key not in ("__init__", "__call__"):
            continue
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if isinstance(member, property):
            member = member.fget
        if member is None:
            continue
        members[key] = _describe_value(member, depth, seen)
    return {"class": name, "source": src, "members": members,
            "bases": [_describe_class(b, depth + 1, seen) for b in cls.__bases__ if b is not object]}


def describe_callable(fn, _depth: int = 0, *, _seen: dict | None = None) -> Any:
    """A JSON-able description of ``fn`` that changes when its effective
    arguments, defaults or source change — or, for project/user code, its
    closure or a global it reads (module docstring)."""
    if _depth > 20:
        return "<deep>"
    seen = {} if _seen is None else _seen
    if isinstance(fn, functools.partial):
        return {"partial": describe_callable(fn.func, _depth + 1, _seen=seen),
                "args": [canonical(a, _depth + 1, _seen=seen) for a in fn.args],
                "keywords": {k: canonical(v, _depth + 1, _seen=seen) for k, v in sorted(fn.keywords.items())}}
    if inspect.isfunction(fn) or inspect.ismethod(fn):
        target = fn.__func__ if inspect.ismethod(fn) else fn
        name = f"{target.__module__}.{target.__qualname__}"
        if id(target) in seen:                    # recursion, or reached twice: described once
            return {"function": name, "seen": True}
        seen[id(target)] = target                 # kept alive, so ids are not reused meanwhile
        out = {"function": name,
               "defaults": canonical(target.__defaults__, _depth + 1, _seen=seen),
               "kwdefaults": canonical(target.__kwdefaults__, _depth + 1, _seen=seen),
               "source": _source_hash(target)}
        if _is_user_function(target):
            if target.__closure__:
                cells = {}
                for var, cell in zip(target.__code__.co_freevars, target.__closure__):
                    try:
                        cells[var] = _describe_value(cell.cell_contents, _depth + 1, seen)
                    except ValueError:            # an empty cell
                        cells[var] = "<empty>"
                out["closure"] = cells
            out["globals"] = {k: _describe_global(target, v, _depth + 1, seen)
                              for k, v in global_reads(target).items()}
        if inspect.ismethod(fn):
            out["self"] = canonical(fn.__self__, _depth + 1, _seen=seen)
        return out
    if inspect.isbuiltin(fn) or isinstance(fn, np.ufunc):
        return {"builtin": f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', repr(fn))}"}
    if hasattr(fn, "py_func"):                       # a numba dispatcher
        return {"numba": describe_callable(fn.py_func, _depth + 1, _seen=seen)}
    # a callable object: its type and its state
    return {"object": f"{type(fn).__module__}.{type(fn).__qualname__}",
            "state": canonical(fn, _depth + 1, as_object=True, _seen=seen)}


#: Globals whose reads make a function depend on something besides its rng
#: argument (the usual causes of non-deterministic chunks).
_NONDET = (("numpy", "random"), ("random",), ("time",), ("datetime",), ("os", "urandom"),
           ("os", "getpid"), ("uuid",), ("secrets",))


def nondeterministic_reads(fn, _seen: set | None = None) -> list[str]:
    """Dotted names of global state outside the rng argument that ``fn`` (or a
    project/user function it calls, or a function bound in a partial) reads:
    module-level ``np.random``, ``random``, ``time``, ``os.urandom`` ...
    Used to name the likely cause when two evaluations of a chunk differ."""
    seen = set() if _seen is None else _seen
    if isinstance(fn, functools.partial):
        found = nondeterministic_reads(fn.func, seen)
        for a in (*fn.args, *fn.keywords.values()):
            if callable(a):
                found += nondeterministic_reads(a, seen)
        return sorted(set(found))
    if hasattr(fn, "py_func"):
        fn = fn.py_func
    target = fn.__func__ if inspect.ismethod(fn) else fn
    if not _is_user_function(target) or id(target) in seen:
        return []
    seen.add(id(target))
    found = []
    # the engine's own wrappers (guards, chunk adapters) are deterministic by design:
    # only what they wrap (closure, partial arguments) is looked into
    engine = (target.__module__ or "").startswith(__name__.rsplit(".", 1)[0] + ".")
    for chain in () if engine else _global_chains(target.__code__):
        value = target.__globals__.get(chain[0])
        if isinstance(value, types.ModuleType):
            full = (value.__name__.split(".")[0], *chain[1:])
            for pat in _NONDET:
                if full[:len(pat)] == pat and not (pat == ("numpy", "random") and len(full) > 2
                                                   and full[2] in ("default_rng", "Generator", "SeedSequence",
                                                                   "PCG64", "Philox", "SFC64", "MT19937")):
                    found.append(".".join((chain[0], *chain[1:len(pat)])) if pat != ("numpy", "random")
                                 else f"{chain[0]}.random")
        elif callable(value) and getattr(value, "__module__", None) in ("time", "random", "uuid", "secrets"):
            found.append(f"{value.__module__}.{getattr(value, '__name__', chain[0])}")
        elif _is_user_function(value) or hasattr(value, "py_func"):
            found += nondeterministic_reads(value, seen)
    if target.__closure__:
        for cell in target.__closure__:
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if callable(v):
                found += nondeterministic_reads(v, seen)
    return sorted(set(found))


def canonical(value: Any, _depth: int = 0, *, as_object: bool = False, _seen: dict | None = None) -> Any:
    """A deterministic JSON-able rendering of an argument value."""
    if _depth > 20:
        return "<deep>"
    seen = {} if _seen is None else _seen
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else repr(v)
    if isinstance(value, (complex, np.complexfloating)):
        return [canonical(value.real), canonical(value.imag)]
    if isinstance(value, enum.Enum):
        return f"{type(value).__qualname__}.{value.name}"
    if isinstance(value, np.ndarray):
        arr = np.ascontiguousarray(value)
        if arr.dtype == object:
            return {"ndarray": [canonical(v, _depth + 1, _seen=seen) for v in arr.ravel().tolist()],
                    "shape": list(arr.shape)}
        return {"ndarray": hashlib.sha256(arr.tobytes()).hexdigest()[:16],
                "shape": list(arr.shape), "dtype": str(arr.dtype)}
    if isinstance(value, dict):
        return {str(k): canonical(v, _depth + 1, _seen=seen)
                for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [canonical(v, _depth + 1, _seen=seen) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v, _depth + 1, _seen=seen) for v in value), key=repr)
    if isinstance(value, type):
        return _describe_class(value, _depth + 1, seen)
    if not as_object and callable(value):
        return describe_callable(value, _depth + 1, _seen=seen)
    # an object of a project/user class: its class's code is part of it too
    code = ({"class": _describe_class(type(value), _depth + 1, seen)}
            if _is_user_class(type(value)) else {})
    if dataclasses.is_dataclass(value):
        return {"dataclass": f"{type(value).__module__}.{type(value).__qualname__}",
                "fields": {f.name: canonical(getattr(value, f.name), _depth + 1, _seen=seen)
                           for f in dataclasses.fields(value)}, **code}
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict) and state:
        return {"type": f"{type(value).__module__}.{type(value).__qualname__}",
                "dict": canonical({k: v for k, v in state.items() if not k.startswith("__")}, _depth + 1,
                                  _seen=seen), **code}
    if code:
        return {"type": f"{type(value).__module__}.{type(value).__qualname__}",
                "repr": _ADDRESS.sub("", repr(value)), **code}
    return _ADDRESS.sub("", repr(value))
