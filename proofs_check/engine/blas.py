"""Single-threaded BLAS for Monte Carlo chunks.

The toolkit's matrices are small; OpenBLAS's worker threads only spin, and on
a loaded machine they slow a chunk down 10–50× (measured on the 2-core CI
box: one Ensemble++ repetition 14 s instead of 1.5 s).  Chunks are
parallelised by the executor instead, so the ``threads`` and ``processes``
executors run every loaded OpenBLAS single-threaded (Dask's nanny already
sets ``OPENBLAS_NUM_THREADS=1`` in its workers).
"""
from __future__ import annotations

import functools

__all__ = ["single_threaded_blas", "limit_blas_threads"]


@functools.lru_cache(maxsize=1)
def _openblas_handles():
    """(get, set) thread-count functions of every OpenBLAS loaded in this process
    (NumPy and SciPy each bundle their own).  Cached: scanning the process's
    memory map costs about 1.5 ms; both libraries are loaded before the first
    scan (see :class:`single_threaded_blas`)."""
    import ctypes

    try:
        with open("/proc/self/maps") as fh:
            paths = {ln.split()[-1] for ln in fh if "openblas" in ln.lower() and ".so" in ln}
    except OSError:
        return []
    out = []
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        found = None
        for suffix in ("64_", "", "_64"):
            for stem in ("scipy_openblas_", "openblas_"):
                try:
                    get = getattr(lib, f"{stem}get_num_threads{suffix}")
                    set_ = getattr(lib, f"{stem}set_num_threads{suffix}")
                except AttributeError:
                    continue
                get.restype = ctypes.c_int
                set_.argtypes = [ctypes.c_int]
                found = (get, set_)
                break
            if found:
                break
        if found:
            out.append(found)
    return out


class single_threaded_blas:
    """Context manager: every loaded OpenBLAS runs single-threaded inside (restored on
    exit); a no-op where OpenBLAS is not found (other BLAS, other OS)."""

    def __enter__(self):
        import scipy.linalg  # noqa: F401  (load SciPy's own OpenBLAS before scanning)

        self._saved = []
        for get, set_ in _openblas_handles():
            old = int(get())
            if old != 1:
                set_(1)
            self._saved.append((set_, old))
        return self

    def __exit__(self, *exc):
        for set_, old in self._saved:
            if old != 1:
                set_(old)
        return False


def limit_blas_threads() -> None:
    """Set every loaded OpenBLAS to one thread for the rest of the process
    (the ``processes`` executor's worker initializer)."""
    single_threaded_blas().__enter__()
