"""Where chunks run: ``auto`` (the default), ``serial``, ``threads``, ``processes`` or ``dask``.

Every executor exposes ``imap(func, tasks, window)``: it runs
``func(*args)`` for each ``(index, args)`` in ``tasks`` with at most
``window`` in flight and yields ``(index, result)`` as they finish, in any
order.  Closing the generator early cancels what has not started.  Because a
chunk's result depends only on its index (see :mod:`.runner`), the order of
completion never changes a run's totals.

* ``auto`` (what ``executor=None`` means) uses every core: ``threads`` with
  :func:`default_workers` workers (or ``workers``), ``serial`` when that is one.
  Results are bitwise the same on every executor and worker count (:mod:`.runner`),
  so the default changes only the time.
* ``threads`` suits ``nogil`` numba kernels and NumPy's bulk random draws,
  which release the GIL.
* ``processes`` uses a ``forkserver`` pool (fork is unsafe after threads exist).
* Every executor runs OpenBLAS single-threaded while chunks run (:mod:`.blas`):
  parallelism comes from chunks, not from BLAS, and a multi-threaded BLAS
  would sum in a different order, changing results in the last bits.
* ``dask`` uses ``distributed``: a local cluster with ``workers`` single-threaded
  worker processes by default, or the scheduler at ``scheduler`` to scale out.
"""
from __future__ import annotations

import abc
import concurrent.futures as cf
import multiprocessing as mp
import os
from typing import Callable, Iterable, Iterator

from .blas import limit_blas_threads, single_threaded_blas

__all__ = ["EXECUTORS", "Executor", "SerialExecutor", "PoolExecutor", "DaskExecutor",
           "make_executor", "default_workers", "executor_kind"]

EXECUTORS = ("auto", "serial", "threads", "processes", "dask")


#: The most workers an executor accepts.
MAX_WORKERS = 512


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


class Executor(abc.ABC):
    """Base class; subclasses implement :meth:`imap`.  Use as a context manager."""

    name = "base"
    workers = 1

    @abc.abstractmethod
    def imap(self, func: Callable, tasks: Iterable[tuple[int, tuple]], window: int
             ) -> Iterator[tuple[int, object]]:
        """Yield ``(index, func(*args))`` for ``(index, args)`` in ``tasks``."""

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(workers={self.workers})"


class SerialExecutor(Executor):
    """Runs chunks one after another in this thread."""

    name = "serial"

    def imap(self, func, tasks, window):
        with single_threaded_blas():   # same BLAS summation order as every other executor
            for idx, args in tasks:
                yield idx, func(*args)


class PoolExecutor(Executor):
    """A ``concurrent.futures`` thread or process pool."""

    def __init__(self, kind: str, workers: int):
        self.name = kind
        self.workers = workers
        self._blas = None
        if kind == "threads":
            self._blas = single_threaded_blas().__enter__()
            self._pool = cf.ThreadPoolExecutor(max_workers=workers)
        else:
            method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
            self._pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context(method),
                                                initializer=limit_blas_threads)

    def imap(self, func, tasks, window):
        it = iter(tasks)
        pending: dict = {}

        def fill():
            while len(pending) < window:
                try:
                    idx, args = next(it)
                except StopIteration:
                    return
                pending[self._pool.submit(func, *args)] = idx

        fill()
        try:
            while pending:
                done, _ = cf.wait(list(pending), return_when=cf.FIRST_COMPLETED)
                for fut in sorted(done, key=pending.get):
                    idx = pending.pop(fut)
                    yield idx, fut.result()
                fill()
        finally:
            for fut in pending:
                fut.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._blas is not None:
            self._blas.__exit__(None, None, None)
            self._blas = None


class DaskExecutor(Executor):
    """Chunks as ``distributed`` tasks; a local cluster unless ``scheduler`` is given."""

    name = "dask"

    def __init__(self, workers: int, scheduler: str | None = None, *, processes: bool = True,
                 timeout: float = 3.0):
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - dask is a declared dependency of [dask]
            raise ValueError("executor 'dask' needs the optional dependency: pip install 'theorycheck[dask]'") from exc
        self._cluster = None
        if scheduler:
            _probe_dask_scheduler(scheduler, timeout)
            self._client = _connect_with_deadline(Client, scheduler, timeout)
            self.workers = max(1, len(self._client.scheduler_info().get("workers", {})))
        else:
            self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                         dashboard_address=None, silence_logs=40)
            self._client = Client(self._cluster)
            self.workers = workers

    def imap(self, func, tasks, window):
        from distributed import as_completed

        it = iter(tasks)
        index = {}
        ac = as_completed()

        def submit_one() -> bool:
            try:
                idx, args = next(it)
            except StopIteration:
                return False
            fut = self._client.submit(func, *args, pure=False)
            index[fut.key] = idx
            ac.add(fut)
            return True

        inflight = 0
        while inflight < window and submit_one():
            inflight += 1
        try:
            for fut in ac:
                idx = index.pop(fut.key)
                yield idx, fut.result()
                if not submit_one():
                    continue
        finally:
            left = [f for f in ac.futures] if hasattr(ac, "futures") else []
            if left:
                self._client.cancel(left)

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def _probe_dask_scheduler(address: str, timeout: float) -> None:
    """Refuse, in one line and within ``timeout``, an address that is not a Dask
    scheduler: one that refuses the connection, accepts it but stays silent, or
    answers something other than a Dask handshake frame (whose first 8 bytes
    are its little-endian length; a real one is a few hundred bytes)."""
    import socket
    import struct

    if not isinstance(address, str) or not address:
        raise ValueError(f"--scheduler must be an address like tcp://host:8786, got {address!r}")
    if not address.startswith("tcp://"):
        return                                        # other transports: left to distributed
    hostport = address[len("tcp://"):]
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--scheduler must be tcp://host:port with a port in [1, 65535], got {address!r}")
    host = host.strip("[]")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as sock:
            sock.settimeout(timeout)
            head = b""
            while len(head) < 8:
                part = sock.recv(8 - len(head))
                if not part:
                    raise ValueError(f"cannot reach Dask scheduler {address!r}: it closed the connection "
                                     f"without a Dask handshake")
                head += part
    except socket.timeout:
        raise ValueError(f"cannot reach Dask scheduler {address!r}: it accepted the connection but sent "
                         f"no Dask handshake within {timeout:g} s") from None
    except OSError as exc:
        raise ValueError(f"cannot reach Dask scheduler {address!r}: {exc.strerror or exc}") from None
    (nbytes,) = struct.unpack("<Q", head)
    if not 0 < nbytes < 1 << 20:
        raise ValueError(f"cannot reach Dask scheduler {address!r}: it answered, but not with a Dask "
                         f"handshake (first frame of {nbytes} bytes)")


def _connect_with_deadline(client_cls, address: str, timeout: float):
    """``Client(address)`` in a helper thread with a hard deadline (a peer that
    completes the handshake and then stalls cannot hang the caller)."""
    import threading

    box: dict = {}

    def connect():
        try:
            box["client"] = client_cls(address, timeout=timeout)
        except BaseException as exc:          # handed to the caller below
            box["error"] = exc

    t = threading.Thread(target=connect, daemon=True, name="theorycheck-dask-connect")
    t.start()
    t.join(timeout + 2.0)
    if t.is_alive():
        raise ValueError(f"cannot reach Dask scheduler {address!r}: no connection within {timeout + 2:g} s")
    if "error" in box:
        exc = box["error"]
        raise ValueError(f"cannot reach Dask scheduler {address!r}: {type(exc).__name__}: {exc}") from None
    return box["client"]


def make_executor(executor: str | Executor | None = None, workers: int | None = None,
                  scheduler: str | None = None) -> Executor:
    """An :class:`Executor` from a name (or pass one through).

    ``executor=None`` is ``"auto"``: threads on all cores (``workers`` of them if given),
    serial if that is one core; ``workers`` defaults to all cores; ``scheduler`` (a Dask
    address) implies ``dask``.
    """
    if isinstance(executor, Executor):
        return executor
    if executor is None:
        executor = "dask" if scheduler else "auto"
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {list(EXECUTORS)}, got {executor!r}")
    if workers is None:
        workers = default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be an integer in [1, {MAX_WORKERS}], got {workers!r}")
    if scheduler and executor != "dask":
        raise ValueError(f"--scheduler needs executor 'dask', got {executor!r}")
    if executor == "auto":
        executor = "threads" if workers > 1 else "serial"
    if executor == "serial":
        return SerialExecutor()
    if executor in ("threads", "processes"):
        return PoolExecutor(executor, workers)
    return DaskExecutor(workers, scheduler)


def executor_kind(executor: str | Executor | None, scheduler: str | None = None) -> str:
    """The name of the executor ``make_executor(executor, …, scheduler)`` would make,
    before it is made (``"auto"`` never ships tasks to processes)."""
    if isinstance(executor, Executor):
        return executor.name
    if executor is None:
        return "dask" if scheduler else "auto"
    return str(executor)
