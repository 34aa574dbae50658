"""Griffe extensions for the documentation build (``mkdocs.yml``).

:class:`LazyFacades` makes lazy facades visible; :class:`ReadableDocstrings`
renders the reST bits of docstrings (roles, ``::``) for the Markdown renderer.

``theorycheck`` and ``proofs_check.engine`` re-export their public names
lazily (PEP 562): a module-level ``_WHERE = {name: module}`` map that
``__getattr__`` reads.  Static analysis sees none of those names.  For a module
that has a ``_WHERE``, this extension imports the facade (cheap by design),
resolves every public name the way ``__getattr__`` does, and adds an alias to
the place where the object is defined (its ``__module__`` and ``__qualname__``;
for a constant, the module ``_WHERE`` names).  The facade's runtime ``__all__``
becomes its export list.

A facade that cannot be imported or resolved is reported as a Griffe warning,
which ``mkdocs build --strict`` turns into a failed build.
"""
from __future__ import annotations

import importlib
import inspect
import re
import sys
import types
from pathlib import Path

import griffe

logger = griffe.get_logger("theorycheck.docs.lazy_facades")

#: The repository root: the facades are imported from the same source that Griffe reads.
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)


def _defined_at(obj, fallback_module: str, name: str) -> str:
    """The dotted path where ``obj`` is defined (classes and functions), else
    ``fallback_module.name``."""
    if inspect.isclass(obj) or inspect.isfunction(obj) or hasattr(obj, "py_func"):
        module = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", None)
        if module and qualname and "<" not in qualname:
            return f"{module}.{qualname}"
    return f"{fallback_module}.{name}"


def _where_module(facade: types.ModuleType, where: str) -> str:
    """``_WHERE`` values are submodules of the facade (``"kinds"``) or absolute module paths."""
    relative = f"{facade.__name__}.{where}"
    try:
        importlib.import_module(relative)
        return relative
    except ImportError:
        return where


class LazyFacades(griffe.Extension):
    """Add an alias for every name of a facade's ``_WHERE`` map."""

    def on_module_members(self, *, mod: griffe.Module, **kwargs) -> None:
        if "_WHERE" not in mod.members:
            return
        try:
            runtime = importlib.import_module(mod.path)
            where_map = dict(runtime._WHERE)
            exports = [str(n) for n in getattr(runtime, "__all__", where_map)]
        except Exception as exc:  # noqa: BLE001 - reported, and fatal under --strict
            logger.warning("%s: cannot import the facade to read its lazy names (%s: %s)",
                           mod.path, type(exc).__name__, exc)
            return
        mod.exports = exports
        for name, where in where_map.items():
            if name in mod.members:
                continue
            try:
                obj = getattr(runtime, name)
            except Exception as exc:  # noqa: BLE001
                logger.warning("%s.%s: the lazy name does not resolve (%s: %s)",
                               mod.path, name, type(exc).__name__, exc)
                continue
            target = _defined_at(obj, _where_module(runtime, str(where)), name)
            mod.set_member(name, griffe.Alias(name, target, parent=mod))


_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|obj|exc|const):`(~?)\.?([^`<]+?)(?:\s*<[^>]*>)?`")


def _role_name(m: re.Match) -> str:
    """The name a role shows: the last component after ``~`` (as Sphinx does)."""
    name = m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2)
    return f"``{name}``"


#: A paragraph ending in reST's literal-block marker ``::`` (not a directive such as ``.. math::``).
_LITERAL_MARK = re.compile(r"(?m)^(?![ \t]*\.\.)(.*\S)::[ \t]*$")


class ReadableDocstrings(griffe.Extension):
    """Render reST in docstrings for the Markdown renderer: roles (``:func:`name```)
    as plain code spans, and ``text::`` before a literal block as ``text:``.  Only
    the rendered pages change; the docstrings in the code stay as they are."""

    def on_instance(self, *, obj, **kwargs) -> None:
        doc = getattr(obj, "docstring", None)
        if doc is None:
            return
        value = _ROLE.sub(_role_name, doc.value) if ":`" in doc.value else doc.value
        doc.value = _LITERAL_MARK.sub(r"\1:", value) if "::" in value else value
