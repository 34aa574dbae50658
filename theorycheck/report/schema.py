"""The typed loader behind ``theorycheck report --from``: ``results.jsonl`` and
``report.json`` are untrusted input (a file mailed with a paper, edited by hand,
damaged on disk), so every field is checked against a schema before anything is
rendered, and a bad one is refused with one line naming the file, the line (of a
JSON-lines file) and the field.

What is checked:

* the file: a regular file of at most :data:`MAX_FILE_BYTES` bytes (``/dev/zero``
  or a multi-gigabyte file is refused before it is read), UTF-8 text (a BOM is
  allowed), each line (``results.jsonl``) or the whole file (``report.json``)
  valid JSON;
* a result: every field of its kind's result class present (or defaulted), of
  the type its annotation names (``int``, ``float`` — or the strings ``"nan"``,
  ``"inf"``, ``"-inf"`` that :func:`proofs_check.engine.claims.to_jsonable`
  writes for non-finite numbers —, ``str``, ``bool``, ``tuple[float, float]``,
  ``X | None``, ...), and in range: the verdict, expected verdict, role, label
  and guarantee among the engine's words; ``0 < alpha < 1``; counts and the seed
  integers ``≥ 0``; times finite and ``≥ 0``; an interval's ends ordered;
  ``events ≤ trials``; ``as_expected`` consistent with the verdict; a claim id a
  string with no whitespace or control character; one result per claim;
* a failed-claim line (a claim whose own code failed: no verdict), written by
  ``theorycheck report`` and ``verify --json``: exactly the keys
  :data:`FAILURE_KEYS` — ``claim`` a claim id, ``error`` one non-empty line,
  ``where`` ``"file:line"`` or ``null``; :func:`load_results` collects it
  apart from the results (one line per claim across both);
* ``report.json``: only the keys :func:`~theorycheck.report.write_report`
  writes (``seed``, ``alpha``, ``quick``, ``elapsed_s``, ``provenance``,
  ``claims``, ``figures``, ``built_figures``), each typed as above; a figure
  name a plain file name (no folder part, no ``..``, not absolute): figures are
  read from the report's ``figures/`` folder only (:func:`figure_png` also
  refuses a PNG whose resolved path — symbolic links followed — leaves it).

Nothing here unpickles or evaluates input: JSON is parsed by :mod:`json` and
turned into result objects field by field.  A key added to what
``write_report`` records must be added to :data:`META_KEYS` (the report tests
re-render a fresh report, so a forgotten key fails them).
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import stat
from pathlib import Path

__all__ = ["ReportInputError", "MAX_FILE_BYTES", "load_results", "load_meta", "check_figure_name",
           "plain_figure_name", "figure_png", "META_KEYS", "FAILURE_KEYS", "ClaimFailureRecord"]

#: The largest ``results.jsonl`` / ``report.json`` read (bytes).
MAX_FILE_BYTES = 256 * 2 ** 20

#: Top-level keys of ``report.json``.
META_KEYS = ("seed", "alpha", "quick", "elapsed_s", "provenance", "claims", "figures", "built_figures")

_CLAIM_META_KEYS = ("version", "fingerprint", "source", "quick_budget", "default_budget", "chunk_size",
                    "coordinates", "from_current_code", "origin")
_SOURCE_KEYS = ("text", "papers", "where", "theory", "note")
_FIGURE_KEYS = ("caption", "claims", "width")
_NONFINITE = ("nan", "inf", "-inf")
#: Integers beyond this many digits are refused (no count or seed is that large).
_MAX_DIGITS = 60

#: Keys of a failed-claim line of ``results.jsonl`` / ``verify --json`` (a claim whose own code
#: failed: no verdict): ``{"claim": id, "error": "...", "where": "file:line" or null}``.
FAILURE_KEYS = ("claim", "error", "where")
#: The longest ``error``/``where`` text kept (one line; longer is refused).
_MAX_FAILURE_TEXT = 4000


@dataclasses.dataclass(frozen=True)
class ClaimFailureRecord:
    """A claim whose own code failed when it was run (a failed-claim line): no verdict."""

    claim: str
    error: str
    where: str | None = None

    def to_dict(self) -> dict:
        return {"claim": self.claim, "error": self.error, "where": self.where}


class ReportInputError(ValueError):
    """A ``report --from`` input that is not what ``theorycheck report`` writes (one line:
    file, line, field, what is wrong)."""


def _shown(value) -> str:
    from proofs_check.engine.validate import shown

    return shown(value)


# ---------------------------------------------------------------------------
# reading the file


def read_text(path, what: str) -> str:
    """The text of ``path`` (``what`` names it in errors): a regular file of at most
    :data:`MAX_FILE_BYTES` bytes, UTF-8 (a leading BOM is dropped)."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError as exc:
        raise ReportInputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ReportInputError(f"{path}: the {what} must be a regular file, not a device, pipe or folder")
    if st.st_size > MAX_FILE_BYTES:
        raise ReportInputError(f"{path}: the {what} is {st.st_size / 2 ** 20:.0f} MB, more than the "
                               f"{MAX_FILE_BYTES // 2 ** 20} MB a {what} may have")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ReportInputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ReportInputError(f"{path}: the {what} is more than the {MAX_FILE_BYTES // 2 ** 20} MB "
                               f"a {what} may have")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ReportInputError(f"{path}: line {line} is not UTF-8 text (byte 0x{data[exc.start]:02x} at "
                               f"column {col}); theorycheck writes its {what} in UTF-8") from None


def _parse_json(text: str, where: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno} column {exc.colno}" if "line" not in where else f"column {exc.colno}"
        raise ReportInputError(f"{where}: not valid JSON ({exc.msg} at {at})") from None
    except RecursionError:
        raise ReportInputError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:            # an integer of more than 4300 digits
        raise ReportInputError(f"{where}: not valid JSON ({str(exc).splitlines()[0][:120]})") from None


# ---------------------------------------------------------------------------
# field checks: each returns the value to use or raises _Bad(problem)


_UNSET = object()


class _Bad(Exception):
    """A field's problem: ``msg``, where inside the field (``sub``: ``[0]``, ``['name']``)
    and the offending value there."""

    def __init__(self, msg, sub="", value=_UNSET):
        super().__init__(msg)
        self.msg, self.sub, self.value = msg, sub, value


def _inside(sub, x, check):
    """``check(x)`` for the part ``sub`` of a field (its problem located there)."""
    try:
        return check(x)
    except _Bad as bad:
        raise _Bad(bad.msg, sub + bad.sub, x if bad.value is _UNSET else bad.value) from None


def _field_error(where, name, bad, value):
    shown_value = value if bad.value is _UNSET else bad.value
    return ReportInputError(f"{where}: field {name + bad.sub!r} {bad.msg}, got {_shown(shown_value)}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int(v, lo=0):
    if not _is_int(v):
        raise _Bad(f"must be an integer{f' ≥ {lo}' if lo is not None else ''}")
    if len(str(abs(v))) > _MAX_DIGITS or (lo is not None and v < lo):
        raise _Bad(f"must be an integer{f' ≥ {lo}' if lo is not None else ''} of at most {_MAX_DIGITS} digits")
    return v


def _float(v, *, finite=False, lo=None, hi=None, open_lo=False, open_hi=False):
    if isinstance(v, str) and v in _NONFINITE:
        x = float(v)
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            x = float(v)
        except OverflowError:
            raise _Bad("must be a number within the float range") from None
    else:
        raise _Bad("must be a number (or \"nan\", \"inf\", \"-inf\")" if not finite else "must be a finite number")
    if finite and not math.isfinite(x):
        raise _Bad("must be a finite number")
    if not math.isnan(x):
        if lo is not None and (x < lo or (open_lo and x == lo)):
            raise _Bad(f"must be {'>' if open_lo else '≥'} {lo:g}")
        if hi is not None and (x > hi or (open_hi and x == hi)):
            raise _Bad(f"must be {'<' if open_hi else '≤'} {hi:g}")
    return x


def _str(v):
    if not isinstance(v, str):
        raise _Bad("must be a string")
    return v


def _bool(v):
    if not isinstance(v, bool):
        raise _Bad("must be true or false")
    return v


def _one_of(choices):
    def check(v):
        if v not in choices or (v is not None and not isinstance(v, str)):
            raise _Bad(f"must be one of {', '.join(json.dumps(c) for c in choices)}")
        return v
    return check


def _claim_id(v):
    if not isinstance(v, str) or not v:
        raise _Bad("must be a non-empty string (a claim id)")
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in v):
        raise _Bad("must be a claim id: no spaces or control characters")
    if len(v) > 300:
        raise _Bad("must be a claim id of at most 300 characters")
    return v


def _json_value(v, depth=0):
    """Any plain JSON value (bounded nesting), returned unchanged."""
    if depth > 40:
        raise _Bad("is nested too deeply")
    if isinstance(v, dict):
        for k, x in v.items():
            _json_value(x, depth + 1)
    elif isinstance(v, list):
        for x in v:
            _json_value(x, depth + 1)
    elif _is_int(v) and len(str(abs(v))) > 4000:
        raise _Bad("holds an integer too large to print")
    return v


def _mapping(v):
    if not isinstance(v, dict):
        raise _Bad("must be a JSON object")
    return _json_value(v)


def _list_of(item, n=None):
    def check(v):
        if not isinstance(v, list) or (n is not None and len(v) != n):
            raise _Bad(f"must be a list of {n} entries" if n else "must be a list")
        return [_inside(f"[{i}]", x, item) for i, x in enumerate(v)]
    return check


def _pair(v):
    if not isinstance(v, list) or len(v) != 2:
        raise _Bad("must be a list of two numbers [low, high]")
    lo, hi = _list_of(_float)(v)
    if lo > hi:
        raise _Bad("must be an interval [low, high] with low ≤ high")
    return v


def _optional(check):
    def opt(v):
        return None if v is None else check(v)
    return opt


def _from_annotation(ann: str):
    """The check for a result field's type annotation (as written in the class)."""
    alts = [a.strip() for a in str(ann).split("|")]
    if "None" in alts and len(alts) > 1:
        rest = " | ".join(a for a in alts if a != "None")
        return _optional(_from_annotation(rest))
    return {"int": _int, "float": _float, "str": _str, "bool": _bool, "tuple[float, float]": _pair,
            "tuple": _list_of(_json_value), "Mapping[str, Any]": _mapping}.get(ann, _json_value)


def _result_checks():
    from proofs_check.engine.claims import EXPECTED, LABELS, ROLES
    from proofs_check.engine.results import GUARANTEES, VERDICTS

    return {
        "claim": _claim_id, "verdict": _one_of(VERDICTS), "statement": _str, "source": _str,
        "label": _one_of(LABELS), "seed": _int, "budget": _int, "chunks": _int,
        "alpha": lambda v: _float(v, finite=True, lo=0.0, hi=1.0, open_lo=True, open_hi=True),
        "elapsed_s": lambda v: _float(v, finite=True, lo=0.0),
        "params": _mapping, "notes": _str, "guarantee": _one_of(tuple(GUARANTEES)),
        "warnings": _list_of(_str), "role": _one_of(ROLES), "expected": _one_of(EXPECTED),
        "certificate": _optional(_mapping), "as_expected": _optional(_bool),
        # kind fields whose range the annotation does not say
        "p_hat": lambda v: _float(v, lo=0.0, hi=1.0),
        "delta": lambda v: _float(v, lo=0.0),
        "alternative": _str, "tol": lambda v: _float(v, lo=0.0),
        "x": _list_of(_float), "y_mean": _list_of(_float), "y_se": _list_of(_float),
        "local_exponents": _list_of(_json_value), "bounds": _optional(_list_of(_json_value)),
    }


def _check_result(d: dict, where: str):
    """A result object from the dict ``d`` (a line of ``results.jsonl``; ``where`` is
    ``"FILE: line N"``)."""
    from proofs_check.engine import Result  # noqa: F401  (defines every built-in kind)
    from proofs_check.engine.results import result_class, _RESULT_CLASSES

    if not isinstance(d, dict):
        raise ReportInputError(f"{where}: a result must be a JSON object, got {type(d).__name__} "
                               f"{_shown(d)}")
    kind = d.get("kind")
    cls = result_class(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ReportInputError(f"{where}: field 'kind' must be one of {', '.join(sorted(_RESULT_CLASSES))}, "
                               f"got {_shown(kind) if 'kind' in d else 'nothing (missing)'}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    extra = sorted(set(d) - set(fields) - {"as_expected"})
    if extra:
        raise ReportInputError(f"{where}: unknown field {_shown(extra[0])} for a {kind} result "
                               f"(its fields: {', '.join(fields)})")
    missing = [n for n, f in fields.items() if n not in d and f.default is dataclasses.MISSING
               and f.default_factory is dataclasses.MISSING]
    if missing:
        raise ReportInputError(f"{where}: field {missing[0]!r} is missing (a {kind} result needs "
                               f"{', '.join(missing)})")
    checks = _result_checks()
    kw = {}
    for name, value in d.items():
        check = checks.get(name) or (_from_annotation(fields[name].type) if name in fields else _json_value)
        try:
            value = check(value)
        except _Bad as bad:
            raise _field_error(where, name, bad, value) from None
        if name == "as_expected":
            continue
        if isinstance(value, str) and value in _NONFINITE and name not in checks:
            value = float(value)
        if isinstance(value, list) and name != "worst_point":
            value = tuple(float(v) if isinstance(v, str) and v in _NONFINITE else v for v in value)
        kw[name] = value
    _consistent(d, where)
    try:
        return cls(**kw)
    except (TypeError, ValueError) as exc:
        raise ReportInputError(f"{where}: not a {kind} result ({str(exc).splitlines()[0][:200]})") from None


def _consistent(d: dict, where: str) -> None:
    """Checks across fields."""
    def bad(field, problem):
        raise ReportInputError(f"{where}: field {field!r} {problem}, got {_shown(d.get(field))}")

    if "events" in d and "trials" in d and d["events"] > d["trials"]:
        bad("events", f"must be ≤ trials ({d['trials']})")
    if "as_expected" in d:
        want = None if d.get("expected") is None else d.get("verdict") == d.get("expected")
        if d["as_expected"] != want:
            bad("as_expected", f"must be {json.dumps(want)} for verdict {d.get('verdict')!r} and expected "
                               f"{d.get('expected')!r}")
    if all(k in d for k in ("x", "y_mean", "y_se")) and not len(d["x"]) == len(d["y_mean"]) == len(d["y_se"]):
        bad("y_mean", f"must have as many entries as x ({len(d['x'])}), as must y_se")


def _probe(r, where: str) -> None:
    """Render the result's words once: a combination of fields that passes every check
    but that a kind's words cannot state is refused here, naming the line."""
    try:
        r.summary(), r.headline(), r.interval("99 %"), r.slack(), r.settle_advice()
        if getattr(r, "certificate", None):
            r.certificate_sentence()
    except (ArithmeticError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        raise ReportInputError(f"{where}: the result's fields are inconsistent "
                               f"({type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''})"
                               ) from None


def _check_failure(d: dict, where: str) -> ClaimFailureRecord:
    """A failed-claim line (:data:`FAILURE_KEYS`), every field checked."""
    extra = sorted(set(d) - set(FAILURE_KEYS))
    if extra:
        raise ReportInputError(f"{where}: a failed-claim line has only the fields {', '.join(FAILURE_KEYS)}; "
                               f"got also {_shown(extra)}")
    vals = {}
    for name, check in (("claim", _claim_id), ("error", _str), ("where", _optional(_str))):
        if name not in d and name != "where":
            raise ReportInputError(f"{where}: field {name!r} is missing (a failed-claim line)")
        v = d.get(name)
        try:
            v = check(v)
            if isinstance(v, str) and name != "claim" and (len(v) > _MAX_FAILURE_TEXT or "\n" in v):
                raise _Bad(f"must be one line of at most {_MAX_FAILURE_TEXT} characters")
        except _Bad as bad:
            raise _field_error(where, name, bad, v) from None
        vals[name] = v
    if not vals["error"]:
        raise ReportInputError(f"{where}: field 'error' must not be empty (a failed-claim line)")
    return ClaimFailureRecord(**vals)


def load_results(path, failures: list | None = None) -> list:
    """The results of a ``results.jsonl`` file, every field checked (module docstring);
    :class:`ReportInputError` naming the file, the line and the field otherwise.

    A failed-claim line (an object with an ``error`` and no ``kind``: :data:`FAILURE_KEYS`)
    is checked too and appended to ``failures`` as a :class:`ClaimFailureRecord` when a list
    is given (skipped otherwise): it has no verdict, so it is not a result."""
    path = Path(path)
    text = read_text(path, "results file")
    results, seen = [], {}
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}: line {i}"
        d = _parse_json(line, where)
        if isinstance(d, dict) and "error" in d and "kind" not in d:
            fail = _check_failure(d, where)
            if fail.claim in seen:
                raise ReportInputError(f"{where}: field 'claim' {fail.claim!r} was already given on line "
                                       f"{seen[fail.claim]} (one result per claim)")
            seen[fail.claim] = i
            if failures is not None:
                failures.append(fail)
            continue
        r = _check_result(d, where)
        if r.claim in seen:
            raise ReportInputError(f"{where}: field 'claim' {r.claim!r} was already given on line "
                                   f"{seen[r.claim]} (one result per claim)")
        seen[r.claim] = i
        _probe(r, where)
        results.append(r)
    return results


# ---------------------------------------------------------------------------
# report.json


def check_figure_name(name) -> str:
    """``name`` if it is a plain file name (the figure's files are ``figures/<name>.png``
    etc.), else :class:`_Bad`."""
    if not isinstance(name, str) or not name:
        raise _Bad("must be a non-empty string")
    if ("/" in name or "\\" in name or name in (".", "..") or name.startswith("..") or name.startswith("~")
            or os.path.isabs(name) or any(ord(c) < 32 or ord(c) == 127 for c in name) or len(name) > 200):
        raise _Bad("must be a plain file name (no folder part, '..' or absolute path: figures are read "
                   "from the report's figures/ folder only)")
    return name


def plain_figure_name(name) -> bool:
    """Whether ``name`` is a plain file name (:func:`check_figure_name`)."""
    try:
        check_figure_name(name)
    except _Bad:
        return False
    return True


def figure_png(fig_dir, name):
    """``fig_dir/<name>.png`` when it exists and, symbolic links followed, lies inside
    ``fig_dir``; ``None`` when it does not exist; :class:`ReportInputError` for a name or a
    link that leads outside."""
    try:
        check_figure_name(name)
    except _Bad as bad:
        raise ReportInputError(f"figure {_shown(name)} {bad}") from None
    fig_dir = Path(fig_dir)
    png = fig_dir / f"{name}.png"
    if not png.exists():
        return None
    root, real = fig_dir.resolve(), png.resolve()
    if not real.is_relative_to(root):
        raise ReportInputError(f"figure {name!r}: {png} leads outside the figures folder {fig_dir} "
                               f"(to {real}); a report embeds figures from its own folder only")
    if not real.is_file():
        raise ReportInputError(f"figure {name!r}: {png} is not a regular file")
    return png


def _meta_checks():
    def scalar(v):
        if v is None or isinstance(v, (str, bool, float)):
            return v
        if _is_int(v) and len(str(abs(v))) <= _MAX_DIGITS:
            return v
        raise _Bad("must be a string, number, true/false or null")

    def provenance(v):
        if not isinstance(v, dict):
            raise _Bad("must be a JSON object")
        for k, x in v.items():
            _inside(f"[{k!r}]", x, _optional(_str) if k in ("commit", "package", "version", "date", "note",
                                                               "level", "budgets", "python", "platform")
                    else scalar)
        return v

    def source(v):
        if not isinstance(v, dict):
            raise _Bad("must be a JSON object")
        for k, x in v.items():
            if k not in _SOURCE_KEYS:
                raise _Bad(f"is not one of the entries {', '.join(_SOURCE_KEYS)}", f"[{k!r}]", k)
            _inside(f"[{k!r}]", x, _list_of(_str) if k == "papers" else _str)
        return v

    def origin(v):
        if v not in ("project", "user"):
            raise _Bad("must be 'project' (this distribution's topics) or 'user'")
        return v

    def one_claim(v):
        if not isinstance(v, dict):
            raise _Bad("must be a JSON object")
        checks = {"version": _optional(lambda x: _int(x, 1)), "fingerprint": _optional(_str),
                  "source": _optional(source), "quick_budget": _optional(lambda x: _int(x, 1)),
                  "default_budget": _optional(lambda x: _int(x, 1)), "chunk_size": _optional(lambda x: _int(x, 1)),
                  "coordinates": _optional(_list_of(_str)), "from_current_code": _bool,
                  "origin": _optional(origin)}
        for k, x in v.items():
            if k not in checks:
                raise _Bad(f"is not one of the entries {', '.join(_CLAIM_META_KEYS)}", f"[{k!r}]", k)
            _inside(f"[{k!r}]", x, checks[k])
        return v

    def width(v):
        if v is None or isinstance(v, str):
            return v
        return _float(v, finite=True, lo=0.0, open_lo=True)

    def one_figure(v):
        if not isinstance(v, dict):
            raise _Bad("must be a JSON object")
        checks = {"caption": _str, "claims": _list_of(_str), "width": width}
        for k, x in v.items():
            if k not in checks:
                raise _Bad(f"is not one of the entries {', '.join(_FIGURE_KEYS)}", f"[{k!r}]", k)
            _inside(f"[{k!r}]", x, checks[k])
        return v

    def keyed(check_key, check_value):
        def check(v):
            if not isinstance(v, dict):
                raise _Bad("must be a JSON object")
            for k, x in v.items():
                try:
                    check_key(k)
                except _Bad as bad:
                    raise _Bad(f"(the name) {bad.msg}", f"[{k!r}]", k) from None
                _inside(f"[{k!r}]", x, check_value)
            return v
        return check

    return {
        "seed": _int, "alpha": lambda v: _float(v, finite=True, lo=0.0, hi=1.0, open_lo=True, open_hi=True),
        "quick": _bool, "elapsed_s": lambda v: _float(v, finite=True, lo=0.0),
        "provenance": _optional(provenance), "claims": _optional(keyed(_claim_id, one_claim)),
        "figures": _optional(keyed(check_figure_name, one_figure)),
        "built_figures": _optional(_list_of(check_figure_name)),
    }


def load_meta(path) -> dict:
    """The contents of a ``report.json``, every field checked (module docstring);
    :class:`ReportInputError` naming the file and the field otherwise."""
    path = Path(path)
    meta = _parse_json(read_text(path, "report.json"), str(path))
    if not isinstance(meta, dict):
        raise ReportInputError(f"{path}: must hold a JSON object, got {type(meta).__name__} {_shown(meta)}")
    checks = _meta_checks()
    for k, v in meta.items():
        if k not in checks:
            raise ReportInputError(f"{path}: unknown field {_shown(k)} (report.json holds "
                                   f"{', '.join(META_KEYS)})")
        try:
            checks[k](v)
        except _Bad as bad:
            raise _field_error(str(path), k, bad, v) from None
    return meta
