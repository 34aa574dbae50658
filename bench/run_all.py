"""Run every benchmark comparison interleaved and print a MET / NOT MET / UNSETTLED line per target.

    python -m bench [--quick] [--rounds N] [--json FILE] [PATTERN ...]
    python bench/run_all.py ...

1. prints the load average and the machine's roofline numbers, measured now
   (:mod:`bench.roofline`: normal draws per core in numba and NumPy, χ² draws,
   ``np.copy`` bandwidth);
2. imports every module of ``bench/`` that defines
   ``comparisons(quick: bool) -> list[Comparison]`` and measures each comparison
   whose name (or module name) matches one of the ``PATTERN`` s (a substring, or a glob
   with ``*``/``?``; none: all) with :func:`bench.harness.measure`;
3. prints one line per comparison — the median ratio over rounds, its interval and
   range, the target and the verdict MET / NOT MET / UNSETTLED
   (:mod:`bench.harness`) — then the counts and the load average at the end.

A comparison that raises (or a module whose import or ``comparisons()`` raises) prints
``FAILED`` with its traceback and the others still run; the exit status is then 1 (0 when
every selected comparison reported a verdict — NOT MET is a measurement, not a failure).
CI runs ``python -m bench --quick`` as a smoke run on this rule (``.ci/run``).

A module's bench function may read the roofline numbers through
:func:`roofline` (measured once per run).
"""
from __future__ import annotations

import argparse
import fnmatch
import importlib
import json
import os
import pkgutil
import sys
import time
import traceback

if __package__ in (None, ""):                       # python bench/run_all.py
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.harness import format_result, measure  # noqa: E402

__all__ = ["main", "bench_modules", "roofline", "select"]

_NOT_BENCHES = {"harness", "run_all", "roofline", "__main__"}
_ROOF: dict = {}


def roofline(quick: bool = False) -> dict:
    """The roofline numbers of this run (:func:`bench.roofline.measure_roofline`, measured once)."""
    if not _ROOF:
        from bench.roofline import measure_roofline

        _ROOF.update(measure_roofline(quick))
    return dict(_ROOF)


def bench_modules() -> list[str]:
    """Names of the modules in ``bench/`` that may hold comparisons."""
    import bench

    return sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name not in _NOT_BENCHES)


def select(pattern: str | None, module: str, name: str) -> bool:
    """Does ``pattern`` (substring, or glob if it has ``*``/``?``/``[``) match the module or comparison name?"""
    if not pattern:
        return True
    hay = (module.lower(), name.lower(), f"{module}: {name}".lower())
    p = pattern.lower()
    if any(ch in p for ch in "*?["):
        return any(fnmatch.fnmatchcase(h, p) for h in hay)
    return any(p in h for h in hay)


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    ap.add_argument("pattern", nargs="*", help="only comparisons/modules matching one of these")
    ap.add_argument("--quick", action="store_true", help="smaller work per call, shorter roofline timing")
    ap.add_argument("--rounds", type=int, default=None,
                    help="rounds per comparison (default 9: a 96%% interval for the median; 3 with --quick)")
    ap.add_argument("--json", default=None, help="also write every result as JSON lines to this file")
    a = ap.parse_args(argv)
    rounds = a.rounds if a.rounds is not None else (3 if a.quick else 9)
    if rounds < 1:
        ap.error(f"--rounds must be >= 1, got {rounds}")
    t_start = time.time()
    print(f"bench: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"load average at start {_load()}; rounds {rounds}{' (quick)' if a.quick else ''}", flush=True)
    roofline(a.quick)
    print(_format_roof(), flush=True)
    results = []
    failed = []                                        # what raised: "module" or "module: name"
    for mod in bench_modules():
        try:
            m = importlib.import_module(f"bench.{mod}")
        except Exception:                              # a broken module must not hide the others
            print(f"[{mod}] import FAILED:\n{traceback.format_exc()}", flush=True)
            failed.append(mod)
            continue
        if not hasattr(m, "comparisons"):
            continue
        try:
            cmps = [c for c in m.comparisons(a.quick)
                    if not a.pattern or any(select(p, mod, c.name) for p in a.pattern)]
        except Exception:
            print(f"[{mod}] comparisons() FAILED:\n{traceback.format_exc()}", flush=True)
            failed.append(mod)
            continue
        for c in cmps:
            try:
                res = measure(c, rounds)
            except Exception:
                print(f"[{mod}] {c.name}: FAILED\n{traceback.format_exc()}", flush=True)
                failed.append(f"{mod}: {c.name}")
                continue
            res["module"] = mod
            results.append(res)
            work = f"  ({c.work})" if c.work else ""
            print(f"[{mod}] {format_result(res)}{work}", flush=True)
    count = {v: sum(r["verdict"] == v for r in results) for v in ("MET", "NOT MET", "UNSETTLED")}
    print(f"{count['MET']}/{len(results)} targets MET, {count['NOT MET']} NOT MET, {count['UNSETTLED']} "
          f"UNSETTLED{f', {len(failed)} FAILED' if failed else ''}; load average at end {_load()}; "
          f"{time.time() - t_start:.0f} s", flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            fh.write(json.dumps({"roofline": roofline(a.quick), "load_end": _load()}) + "\n")
            for r in results:
                fh.write(json.dumps(r) + "\n")
    return 1 if failed else 0


def _format_roof() -> str:
    from bench.roofline import format_roofline

    return format_roofline(roofline())


if __name__ == "__main__":
    raise SystemExit(main())
