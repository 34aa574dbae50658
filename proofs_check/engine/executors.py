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
import concurrent.futures.process  # noqa: F401  (cf.process.BrokenProcessPool is looked up in an except clause)
import functools
import math
import multiprocessing as mp
import os
import sys
import threading
import time
import traceback
from typing import Callable, Iterable, Iterator

from .blas import limit_blas_threads, single_threaded_blas

__all__ = ["EXECUTORS", "Executor", "SerialExecutor", "PoolExecutor", "DaskExecutor",
           "make_executor", "default_workers", "executor_kind", "ClaimCodeError", "ExecutorLostError",
           "claim_failure", "guarded_call", "process_worker_init", "worker_cap", "DASK_DEADLINE_S"]

EXECUTORS = ("auto", "serial", "threads", "processes", "dask")


#: The most workers an executor accepts.
MAX_WORKERS = 512


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def worker_cap(kind: str) -> int:
    """The most workers worth starting here for executor ``kind``.

    ``processes`` (and ``auto``, which may run whole claims in processes) and a
    local ``dask`` cluster: one per core.  Each is a full Python process with its
    own NumPy/numba (about 90 MB measured: 64 process workers on 2 cores summed
    5.9 GB, issue 26 item 11) and chunks are CPU-bound, so more processes than
    cores only add memory and switching.  ``threads``: 4 per core (a thread costs
    a stack, not a process; chunks that release the GIL while waiting may use a
    few more than the cores).  Results are bitwise the same for every worker
    count (:mod:`.runner`), so a cap changes the time only."""
    cores = default_workers()
    return 4 * cores if kind == "threads" else cores


# ---------------------------------------------------------------------------
# Claim code cannot take over the caller's control flow (issue 26, items 3, 14).
#
# Every chunk runs through :func:`guarded_call`: ``sys.exit`` and ``os._exit``
# inside claim code become :class:`ClaimCodeError` (the worker survives); any
# other exception is re-raised unchanged but carries where it happened (the
# innermost frame in claim code, the chunk, the formatted traceback) so that a
# caller can report it in one line (:func:`claim_failure`).  In worker
# processes the claim's ``print`` goes to stderr, never to the caller's stdout.

class ClaimCodeError(RuntimeError):
    """Claim code failed where the engine ran it: it called ``sys.exit`` or
    ``os._exit``, raised, or its worker process died.  ``str()`` is one line
    naming the claim (once known), what happened, the chunk and the
    ``file:line`` of the innermost frame in claim code; ``trace`` is the full
    traceback text as formatted where it happened (maybe another process)."""

    def __init__(self, what: str, where: str = "", trace: str = "", chunk=None, claim=None):
        super().__init__(what, where, trace, chunk, claim)
        self.what, self.where, self.trace, self.chunk, self.claim = what, where, trace, chunk, claim

    def for_claim(self, claim: str) -> "ClaimCodeError":
        return ClaimCodeError(self.what, self.where, self.trace, self.chunk, claim)

    def __str__(self) -> str:
        who = f"claim {self.claim}" if self.claim else "claim code"
        ck = f" in chunk {self.chunk}" if self.chunk is not None else ""
        at = f" at {self.where}" if self.where else ""
        return f"{who} failed{ck}: {self.what}{at}"


class ExecutorLostError(RuntimeError):
    """The executor itself is gone (a Dask scheduler with no workers past the
    deadline, or lost mid-run).  Chunks that finished are in the store."""


@functools.lru_cache(maxsize=1)
def _not_claim_code() -> tuple:
    """Folders whose frames are not claim code: the engine, the standard library
    and installed third-party packages (the project's own topic packages count as
    claim code wherever they are installed)."""
    import sysconfig

    engine = os.path.dirname(os.path.abspath(__file__))
    dirs = [engine]
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            dirs.append(os.path.realpath(sysconfig.get_path(key)))
        except (KeyError, TypeError):  # pragma: no cover - unusual interpreters
            pass
    root = os.path.dirname(os.path.dirname(engine))
    ours = tuple(os.path.join(root, pkg) + os.sep for pkg in ("proofs_check", "seqproj", "paper_figs"))
    pkg = os.path.dirname(engine)                 # the declarations' and the domains' own checks
    declare, domains = os.path.join(pkg, "declare.py"), os.path.join(pkg, "domains.py")
    return tuple(d.rstrip(os.sep) + os.sep for d in dirs if d), ours, (engine + os.sep, declare, domains)


def _is_claim_code(filename: str) -> bool:
    if not filename or filename.startswith("<"):
        return False
    theirs, ours, engine = _not_claim_code()
    path = os.path.realpath(filename) if os.path.isabs(filename) else filename
    if path.startswith(engine):
        return False
    if path.startswith(ours):
        return True
    return not path.startswith(theirs)


def _where(tb) -> str:
    """``file:line`` of the innermost frame of ``tb`` in claim code (else the innermost)."""
    frames = traceback.extract_tb(tb) if tb is not None else []
    for fr in reversed(frames):
        if _is_claim_code(fr.filename):
            return f"{fr.filename}:{fr.lineno}"
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""


def _what(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    text = text if len(text) <= 300 else text[:300] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_GUARD = threading.local()


class _ClaimExit(BaseException):
    """``os._exit`` called by claim code inside :func:`guarded_call` (caught there)."""

    def __init__(self, code, where):
        super().__init__(code, where)
        self.code, self.where = code, where


def _guarded_exit(code=0):
    """``os._exit`` while claim code may run in this process: inside a guarded
    chunk on this thread (and not in a child the claim forked) it unwinds to
    :func:`guarded_call`; anywhere else it is the real ``os._exit``."""
    if getattr(_GUARD, "pid", None) == os.getpid():
        f = sys._getframe(1)
        raise _ClaimExit(code, f"{f.f_code.co_filename}:{f.f_lineno}")
    _REAL_EXIT(code)


_REAL_EXIT = getattr(os._exit, "_theorycheck_real_exit", os._exit)
_guarded_exit._theorycheck_real_exit = _REAL_EXIT


def guarded_call(func: Callable, args: tuple = (), *, chunk=None, exits_only: bool = False):
    """``func(*args)`` with claim code's exits contained.

    ``SystemExit`` (``sys.exit``, any code) and ``os._exit`` raised inside become
    :class:`ClaimCodeError` naming the call and ``file:line``; ``KeyboardInterrupt``
    passes through; any other exception is re-raised unchanged, annotated for
    :func:`claim_failure` (unless ``exits_only``)."""
    if os._exit is not _guarded_exit:
        os._exit = _guarded_exit
    outer = getattr(_GUARD, "pid", None)
    _GUARD.pid = os.getpid()
    try:
        return func(*args)
    except _ClaimExit as exc:
        raise ClaimCodeError(f"called os._exit({exc.code!r})", exc.where, "", chunk) from None
    except SystemExit as exc:
        trace = "".join(traceback.format_exception(exc))
        raise ClaimCodeError(f"called sys.exit({exc.code!r})", _where(exc.__traceback__), trace,
                             chunk) from None
    except ClaimCodeError:
        raise
    except Exception as exc:
        if not exits_only and not hasattr(exc, "_theorycheck_failure"):
            try:
                exc._theorycheck_failure = (_what(exc), _where(exc.__traceback__),
                                            "".join(traceback.format_exception(exc)), chunk)
            except (AttributeError, TypeError):      # exceptions without a __dict__
                pass
        raise
    finally:
        _GUARD.pid = outer


def claim_failure(exc: BaseException, claim: str | None = None) -> "ClaimCodeError | None":
    """The :class:`ClaimCodeError` an exception from running a claim stands for (an
    exit, or an exception raised by claim code inside a chunk), or ``None`` when it
    is not a failure of claim code (a usage error, the store, the engine)."""
    if isinstance(exc, ClaimCodeError):
        return exc if claim is None or exc.claim else exc.for_claim(claim)
    info = getattr(exc, "_theorycheck_failure", None)
    if isinstance(info, tuple) and len(info) == 4:
        return ClaimCodeError(*info, claim=claim if claim is not None else getattr(exc, "_theorycheck_claim", None))
    return None


def _chunk_call(func, owner: int, idx, *args):
    """What every executor runs for one chunk: ``func(*args)`` under
    :func:`guarded_call`; in a process other than ``owner`` (a worker) the
    claim's prints go to stderr."""
    if owner != os.getpid() and sys.stdout is not sys.stderr:
        sys.stdout = sys.stderr
    return guarded_call(func, args, chunk=idx)


def _owner_of_this_worker() -> int:
    """The pid that owns this worker process: its parent, or the parent's parent
    when the parent is a multiprocessing forkserver (Linux ``/proc``)."""
    ppid = os.getppid()
    try:
        with open(f"/proc/{ppid}/cmdline", "rb") as fh:
            cmd = fh.read()
        if b"multiprocessing.forkserver" in cmd:
            with open(f"/proc/{ppid}/stat", "rb") as fh:
                stat = fh.read()
            return int(stat[stat.rindex(b")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return ppid


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie (dead, not yet reaped by its parent) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:        # the pid now belongs to another user: ours is gone
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        return stat[stat.rindex(b")") + 2:][:1] not in (b"Z", b"X")
    except (OSError, ValueError):
        return True                # no /proc: os.kill said it exists


def _watch_owner(owner: int, period: float) -> None:
    ppid = os.getppid()
    while True:
        time.sleep(period)
        if not _alive(owner) or os.getppid() != ppid:
            _REAL_EXIT(1)


def process_worker_init(owner: int | None = None, period: float = 0.5) -> None:
    """What a worker process does first: one BLAS thread (:mod:`.blas`); stdout
    sent to stderr (a claim's print never lands in the caller's ``--json``);
    SIGINT ignored (Ctrl-C reaches the whole process group: the owner shuts the
    pool down); and a daemon thread that ends this worker within ``period`` s
    once its owner (``owner``, by default the parent or, under a forkserver, the
    forkserver's parent) is gone — a ``kill -9`` of the owner leaves no worker,
    and with the workers gone the forkserver and the resource tracker exit too
    (they live while a worker holds their pipes)."""
    import signal

    limit_blas_threads()
    try:
        sys.stdout.flush()
        os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):
        pass
    sys.stdout = sys.stderr
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # pragma: no cover - not the main thread
        pass
    owner = _owner_of_this_worker() if owner is None else int(owner)
    threading.Thread(target=_watch_owner, args=(owner, period), daemon=True,
                     name="theorycheck-owner-watch").start()


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
        owner = os.getpid()
        with single_threaded_blas():   # same BLAS summation order as every other executor
            for idx, args in tasks:
                yield idx, _chunk_call(func, owner, idx, *args)


class PoolExecutor(Executor):
    """A ``concurrent.futures`` thread or process pool."""

    def __init__(self, kind: str, workers: int):
        self.name = kind
        self.workers = workers
        self._blas = None
        self._procs: dict = {}          # pid -> Process of the current process pool
        self._abandoned = False         # a chunk was left running (an error or an interrupt)
        if kind == "threads":
            self._blas = single_threaded_blas().__enter__()
            self._pool = cf.ThreadPoolExecutor(max_workers=workers)
        else:
            self._pool = self._process_pool()

    def _process_pool(self):
        method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        return cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=mp.get_context(method),
                                      initializer=process_worker_init, initargs=(os.getpid(),))

    def _died(self, idx):
        """A worker process died under chunk ``idx`` (``BrokenProcessPool``): a fresh
        pool for the chunks that follow, and the error naming how it died."""
        codes = sorted({p.exitcode for p in self._procs.values() if p.exitcode not in (None, 0)})
        how = ", ".join(f"signal {-c}" if c < 0 else f"exit code {c}" for c in codes)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._procs = {}
        self._pool = self._process_pool()
        return ClaimCodeError(f"its worker process died abruptly{f' ({how})' if how else ''}: a crash, "
                              f"a signal or running out of memory", "", "", idx)

    def imap(self, func, tasks, window):
        it = iter(tasks)
        pending: dict = {}
        owner = os.getpid()

        def fill():
            while len(pending) < window:
                try:
                    idx, args = next(it)
                except StopIteration:
                    return
                pending[self._pool.submit(_chunk_call, func, owner, idx, *args)] = idx
                if self.name == "processes":
                    self._procs.update(getattr(self._pool, "_processes", None) or {})

        fill()
        try:
            while pending:
                done, _ = cf.wait(list(pending), return_when=cf.FIRST_COMPLETED)
                for fut in sorted(done, key=pending.get):
                    idx = pending.pop(fut)
                    try:
                        res = fut.result()
                    except cf.process.BrokenProcessPool:
                        raise self._died(idx) from None
                    yield idx, res
                fill()
        except KeyboardInterrupt:                  # Ctrl-C, or SIGTERM in the CLI
            self._abandoned = True
            raise
        finally:
            for fut in pending:
                fut.cancel()

    def close(self) -> None:
        interrupted = self._abandoned or isinstance(sys.exc_info()[1], KeyboardInterrupt)
        if self.name == "processes" and interrupted:
            # Ctrl-C or SIGTERM: end the workers now rather than wait for their chunks
            # (they hold no state the run needs; finished chunks are in the store).
            # SIGPIPE is ignored meanwhile: the pool's threads may still write to a
            # dead worker's pipe (EPIPE is handled; the signal would end this process).
            import signal

            main = threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGPIPE")
            old = signal.signal(signal.SIGPIPE, signal.SIG_IGN) if main else None
            try:
                for p in list(self._procs.values()):
                    try:
                        p.terminate()
                    except (OSError, AttributeError):
                        pass
                self._pool.shutdown(wait=True, cancel_futures=True)
            finally:
                if old is not None:
                    signal.signal(signal.SIGPIPE, old)
        else:
            self._pool.shutdown(wait=True, cancel_futures=True)
        if self._blas is not None:
            self._blas.__exit__(None, None, None)
            self._blas = None


#: Seconds a Dask run waits while the scheduler has no worker (none joined, or all
#: were lost) before failing; ``THEORYCHECK_DASK_DEADLINE`` overrides it.
DASK_DEADLINE_S = 60.0


def _dask_deadline(deadline=None) -> float:
    """The no-worker deadline: ``deadline`` if given, else ``THEORYCHECK_DASK_DEADLINE``,
    else :data:`DASK_DEADLINE_S`; a finite number of seconds > 0."""
    name, value = "deadline", deadline
    if deadline is None:
        text = os.environ.get("THEORYCHECK_DASK_DEADLINE")
        if text is None or not text.strip():
            return DASK_DEADLINE_S
        name = "THEORYCHECK_DASK_DEADLINE"
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{name} must be a number of seconds > 0, got {text!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number of seconds > 0, got {value!r}")
    return float(value)


class DaskExecutor(Executor):
    """Chunks as ``distributed`` tasks; a local cluster unless ``scheduler`` is given.

    A run never waits forever: while the scheduler has no worker for ``deadline``
    seconds (default :data:`DASK_DEADLINE_S`, or ``THEORYCHECK_DASK_DEADLINE``),
    or after the connection to the scheduler is lost, :meth:`imap` raises
    :class:`ExecutorLostError` in one line naming the scheduler's address.  The
    chunks that finished are already in the store, so ``--resume`` continues."""

    name = "dask"
    poll_s = 1.0

    def __init__(self, workers: int, scheduler: str | None = None, *, processes: bool = True,
                 timeout: float = 3.0, deadline: float | None = None):
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - dask is a declared dependency of [dask]
            raise ValueError("executor 'dask' needs the optional dependency: pip install 'theorycheck[dask]'") from exc
        self.deadline = _dask_deadline(deadline)
        self._cluster = None
        self._quiet = None
        if scheduler:
            _probe_dask_scheduler(scheduler, timeout)
            # a lost scheduler is reported in one line (:meth:`_lost`), not by the client's
            # own logged reconnect tracebacks; restored by close()
            import logging

            logs = [logging.getLogger(n) for n in ("distributed", "distributed.client", "distributed.core",
                                                   "distributed.comm", "distributed.utils")]
            self._quiet = [(log, log.level) for log in logs]
            for log in logs:
                log.setLevel(logging.CRITICAL)
            self._client = _connect_with_deadline(Client, scheduler, timeout)
            self.workers = max(1, len(self._client.scheduler_info().get("workers", {})))
            self.address = scheduler
        else:
            self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                         dashboard_address=None, silence_logs=50)
            self._client = Client(self._cluster)
            self.workers = workers
            self.address = self._cluster.scheduler_address

    def _n_workers(self) -> int | None:
        """Workers the scheduler knows now; ``None`` if it cannot be asked."""
        if self._client.status != "running":
            return None
        try:
            return len(self._client.scheduler_info().get("workers", {}))
        except Exception:                      # the connection is going: the caller decides
            return None

    def _lost(self, why: str) -> ExecutorLostError:
        return ExecutorLostError(f"lost the Dask scheduler {self.address} mid-run ({why}); the chunks that "
                                 f"finished are kept in the result store: rerun with --resume")

    def _result(self, fut, idx):
        try:
            return fut.result()
        except ClaimCodeError:
            raise
        except Exception as exc:
            name = type(exc).__name__
            if name == "KilledWorker":
                raise ClaimCodeError("its Dask worker died each time it ran this chunk (KilledWorker: a crash, "
                                     "a signal or running out of memory)", "", "", idx) from None
            if name in ("CancelledError", "FutureCancelledError") or fut.status == "cancelled":
                raise self._lost(f"{name}: {str(exc).splitlines()[0] if str(exc) else 'cancelled'}") from None
            if hasattr(exc, "_theorycheck_failure") or not name.startswith(("Comm", "Stream")):
                raise
            raise self._lost(f"{name}: {exc}") from None

    def imap(self, func, tasks, window):
        from distributed import wait

        it = iter(tasks)
        pending: dict = {}
        owner = os.getpid()

        def fill():
            while len(pending) < max(1, window):
                try:
                    idx, args = next(it)
                except StopIteration:
                    return
                pending[self._client.submit(_chunk_call, func, owner, idx, *args, pure=False)] = idx

        fill()
        no_workers_since = unreachable_since = None
        try:
            while pending:
                try:
                    done, _ = wait(list(pending), timeout=self.poll_s, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    done = set()
                except Exception as exc:   # the client lost its scheduler while waiting
                    raise self._lost(f"{type(exc).__name__}") from None
                if done:
                    no_workers_since = unreachable_since = None
                    for fut in sorted(done, key=pending.get):
                        idx = pending.pop(fut)
                        yield idx, self._result(fut, idx)
                    fill()
                    continue
                now = time.monotonic()
                n = self._n_workers()
                if n is None:
                    unreachable_since = unreachable_since or now
                    if now - unreachable_since >= min(self.deadline, 10.0):
                        raise self._lost(f"no answer for {now - unreachable_since:.0f} s")
                elif n == 0:
                    unreachable_since = None
                    no_workers_since = no_workers_since or now
                    if now - no_workers_since >= self.deadline:
                        raise ExecutorLostError(
                            f"Dask scheduler {self.address} has had no worker for {self.deadline:g} s (none "
                            f"joined, or all were lost); the chunks that finished are kept in the result "
                            f"store: start workers and rerun with --resume (THEORYCHECK_DASK_DEADLINE=SECONDS "
                            f"sets this wait)")
                else:
                    no_workers_since = unreachable_since = None
        finally:
            if pending and self._client.status == "running":
                try:
                    self._client.cancel(list(pending))
                except Exception:  # pragma: no cover - a closing client
                    pass

    def close(self) -> None:
        lost = self._client.status != "running"
        try:
            self._client.close(timeout=2 if lost else 10)
        except Exception:          # a scheduler that is gone: nothing left to close
            pass
        if self._cluster is not None:
            self._cluster.close()
        for log, level in self._quiet or ():
            log.setLevel(level)
        self._quiet = None


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
    if executor in ("threads", "processes") or (executor == "dask" and not scheduler):
        cap = worker_cap(executor)
        if workers > cap:
            import warnings

            warnings.warn(f"workers={workers} is more than this machine runs usefully for executor "
                          f"{executor!r} ({default_workers()} cores); using {cap}", RuntimeWarning, stacklevel=2)
            workers = cap
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
