"""Fingerprints of what a claim actually computes.

A result file may only be resumed by the computation that wrote it.  The
fingerprint therefore hashes the *effective* arguments of every user callable
— for a :func:`functools.partial` its function, positional and keyword
arguments; for a function its module, qualified name, defaults and source
text — plus the claim's declared fields and its ``version``.  Two claims that
would produce different chunk statistics get different fingerprints whenever
the difference is visible at this level (a change deep inside a callee is
caught only by bumping the claim's ``version``).

Memory addresses never enter a fingerprint (``repr`` texts are scrubbed of
``at 0x…``), so fingerprints are stable across processes and machines.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import inspect
import math
import re
from typing import Any

import numpy as np

__all__ = ["canonical", "describe_callable"]

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _source_hash(fn) -> str | None:
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        code = getattr(fn, "__code__", None)
        if code is None:
            return None
        return hashlib.sha256(code.co_code).hexdigest()[:16]
    return hashlib.sha256(src.encode()).hexdigest()[:16]


def describe_callable(fn, _depth: int = 0) -> Any:
    """A JSON-able description of ``fn`` that changes when its effective
    arguments, defaults or source change."""
    if _depth > 20:
        return "<deep>"
    if isinstance(fn, functools.partial):
        return {"partial": describe_callable(fn.func, _depth + 1),
                "args": [canonical(a, _depth + 1) for a in fn.args],
                "keywords": {k: canonical(v, _depth + 1) for k, v in sorted(fn.keywords.items())}}
    if inspect.isfunction(fn) or inspect.ismethod(fn):
        target = fn.__func__ if inspect.ismethod(fn) else fn
        out = {"function": f"{target.__module__}.{target.__qualname__}",
               "defaults": canonical(target.__defaults__, _depth + 1),
               "kwdefaults": canonical(target.__kwdefaults__, _depth + 1),
               "source": _source_hash(target)}
        if inspect.ismethod(fn):
            out["self"] = canonical(fn.__self__, _depth + 1)
        return out
    if inspect.isbuiltin(fn) or isinstance(fn, np.ufunc):
        return {"builtin": f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', repr(fn))}"}
    if hasattr(fn, "py_func"):                       # a numba dispatcher
        return {"numba": describe_callable(fn.py_func, _depth + 1)}
    # a callable object: its type and its state
    return {"object": f"{type(fn).__module__}.{type(fn).__qualname__}",
            "state": canonical(fn, _depth + 1, as_object=True)}


def canonical(value: Any, _depth: int = 0, *, as_object: bool = False) -> Any:
    """A deterministic JSON-able rendering of an argument value."""
    if _depth > 20:
        return "<deep>"
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
            return {"ndarray": [canonical(v, _depth + 1) for v in arr.ravel().tolist()],
                    "shape": list(arr.shape)}
        return {"ndarray": hashlib.sha256(arr.tobytes()).hexdigest()[:16],
                "shape": list(arr.shape), "dtype": str(arr.dtype)}
    if isinstance(value, dict):
        return {str(k): canonical(v, _depth + 1) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [canonical(v, _depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v, _depth + 1) for v in value), key=repr)
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    if not as_object and callable(value):
        return describe_callable(value, _depth + 1)
    if dataclasses.is_dataclass(value):
        return {"dataclass": f"{type(value).__module__}.{type(value).__qualname__}",
                "fields": {f.name: canonical(getattr(value, f.name), _depth + 1)
                           for f in dataclasses.fields(value)}}
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict) and state:
        return {"type": f"{type(value).__module__}.{type(value).__qualname__}",
                "dict": canonical({k: v for k, v in state.items() if not k.startswith("__")}, _depth + 1)}
    return _ADDRESS.sub("", repr(value))
