"""Running tasks on a Dask cluster: connecting to it, sending results back, waiting for the tasks.

What step 10's count (:mod:`bpe_ref.distributed.pretoken_counts`) and the encoding of a corpus
(:mod:`bpe_ref.distributed.corpus_encoding`) both need, and none of their own work:

- :func:`connect` gives a client of a new local cluster, or of a running one by address, and
  says in one error what is wrong with an address (:func:`check_scheduler_answers`);
- :class:`Packed` wraps a task's result so that Dask sends it as one pickle, and :func:`submitting`
  makes each call of a function a task at once, with its result packed;
- :func:`wait_for_tasks` waits for the tasks and turns what Dask cannot recover from (a task's own
  error, :func:`worker_error`; a cluster left without workers, :class:`ClusterLost`) into one
  exception that names the address.

Dask is imported inside the functions: importing this module needs only the standard library.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..train.step03_parallel import default_num_workers

if TYPE_CHECKING:
    from distributed import Client

__all__ = [
    "CONNECT_TIMEOUT", "FIRST_WORKER_TIMEOUT", "ClusterLost", "NotAScheduler", "Packed", "WORKERLESS_SECONDS",
    "check_scheduler_answers",
    "cluster_threads", "connect", "packed_call", "submitting", "wait_for_tasks", "worker_error",
]

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a scheduler given by address before saying it cannot be reached."""

FIRST_WORKER_TIMEOUT = 5.0
"""Seconds a cluster that answers may take to have its first worker before saying it has none."""

def worker_error(error: BaseException) -> BaseException:
    """The exception a task raised on a worker, made to say so: a missing or unreadable file
    (``OSError``) is one that the worker, maybe on another machine, could not open at that path.
    Other errors come back as they were (a range that is not UTF-8 already names the file)."""
    if isinstance(error, OSError) and error.filename is not None:
        reason = error.strerror or type(error).__name__
        return type(error)(f"on a worker of the Dask cluster: {reason}: {error.filename!r}. Every worker opens the "
                           "corpus files itself, at the path it was given: each file must be at that same absolute "
                           "path on every worker's machine (a shared filesystem)")
    return error


@contextmanager
def connect(scheduler: str | None = None, num_workers: int | None = None,
            timeout: float | None = None) -> Iterator[Client]:
    """A Dask client for the block: of a new local cluster, or of the scheduler at ``scheduler``.

    ``scheduler=None`` starts a cluster of ``num_workers`` processes on this machine (default: one
    per core), one thread each (counting holds the GIL, so threads would not add speed), and
    stops it at the end of the block. Its logging is silenced: a task's error reaches the caller as
    the exception the task raised. An address such as ``"tcp://10.0.0.5:8786"`` connects to a
    running cluster (``dask scheduler`` and ``dask worker`` started by hand or by a cluster
    manager); ``num_workers`` must then be ``None``, and the cluster is left running. A scheduler
    that does not answer within ``timeout`` seconds (default :data:`CONNECT_TIMEOUT`) is a
    ``ConnectionError`` naming its address, and so is something else listening there (the
    dashboard's web server, say): :func:`check_scheduler_answers` asks before Dask does.
    ``client.dashboard_link`` is the address of Dask's dashboard (it needs the ``bokeh`` package).
    """
    from distributed import Client, LocalCluster

    if scheduler is None:
        if num_workers is not None and (not isinstance(num_workers, int) or num_workers < 1):
            raise ValueError(f"num_workers must be a positive int or None, got {num_workers!r}")
        import dask

        from ..main_guard import main_module_problem, warn_from_caller

        processes = True
        problem = main_module_problem(dask.config.get("distributed.worker.multiprocessing-method", "spawn"))
        if problem is not None:  # worker processes could not start (bpe_ref.main_guard): threads of this one can
            warn_from_caller(f"the local Dask cluster runs its workers as threads of this process: {problem}")
            processes = False
        with LocalCluster(n_workers=num_workers or default_num_workers(), threads_per_worker=1, processes=processes,
                          dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
            yield client
        return
    if not isinstance(scheduler, str):
        raise TypeError(f"scheduler must be an address such as 'tcp://host:8786', got {scheduler!r}")
    if num_workers is not None:
        raise ValueError(f"num_workers={num_workers} is for a local cluster: the cluster at {scheduler} has the "
                         "workers it was started with")
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    try:
        check_scheduler_answers(scheduler, timeout)
        client = Client(scheduler, timeout=timeout)
    except NotAScheduler:
        raise
    except ValueError as err:  # an address Dask cannot read
        raise ValueError(f"not a Dask scheduler address: {scheduler!r} ({err}); write it as 'tcp://host:8786'") from None
    except (OSError, TimeoutError) as err:
        raise ConnectionError(f"cannot reach the Dask scheduler at {scheduler} within {timeout:g} s ({err}): is it "
                              "running, and is the address (host and port) right?") from None
    with client:
        yield client


WORKERLESS_SECONDS = 30.0
"""How long tasks may wait on a cluster with no worker before :func:`wait_for_tasks` gives up: a
killed worker that its nanny restarts is back within a few seconds."""


class ClusterLost(ConnectionError):
    """The Dask cluster cannot run the tasks: it has no worker (none joined, or the last one died and
    none came back), its workers keep dying on a task, or its scheduler is gone."""


def cluster_threads(client: Client, timeout: float | None = None) -> int:
    """The worker threads of ``client``'s cluster, once it has a worker: a scheduler just started may
    wait ``timeout`` seconds (default :data:`FIRST_WORKER_TIMEOUT`) for its first. ``ClusterLost``
    (naming the address and what to start) if none comes."""
    timeout = FIRST_WORKER_TIMEOUT if timeout is None else timeout
    address = client.scheduler.address
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise ClusterLost(f"the Dask cluster at {address} has no workers (none joined within {timeout:g} s): start "
                          f"some with `dask worker {address}`") from None
    return sum(client.nthreads().values())


def wait_for_tasks(client: Client, waiting, on_done: Callable[[], object] | None = None) -> None:
    """Wait until the futures of ``waiting`` (a ``distributed.as_completed`` that holds them) are all
    done, calling ``on_done()`` for each, and keep no reference to one that is done.

    A worker that dies is Dask's to handle, as long as every task's inputs can be made again: the
    scheduler runs its tasks again on another worker (or on the one its nanny restarts) and
    recomputes the results it held. What it cannot handle is raised here: a task's own error
    (:func:`worker_error`), and ``ClusterLost`` naming the address when the cluster has had no
    worker for :data:`WORKERLESS_SECONDS`, when workers kept dying on a task (``KilledWorker``),
    when a task was cancelled, or when the scheduler stopped answering.
    """
    import time

    address = client.scheduler.address
    workerless_since: float | None = None
    checked = time.monotonic()
    done = None
    while not waiting.is_empty():
        batch = waiting.next_batch(block=False)
        for done in batch:
            if done.status == "error":  # the worker's exception, here: a file missing there, or not UTF-8
                error = done.exception()
                if type(error).__name__ == "KilledWorker":
                    raise ClusterLost(f"the Dask cluster at {address} lost the workers that ran a task: {error}") from None
                raise worker_error(error) from None
            if done.status == "cancelled":
                if client.status != "running":
                    raise ClusterLost(f"lost the Dask scheduler at {address} (client {client.status}): did it stop?")
                raise ClusterLost(f"a task on the Dask cluster at {address} was cancelled (was the cluster restarted "
                                  "or closed?)") from None
            if on_done is not None:
                on_done()
        batch = done = None  # hold no finished future: the scheduler frees each partial count once merged
        if waiting.has_ready():
            continue
        now = time.monotonic()
        if now - checked >= 1.0:  # once a second: is there still a worker to run the tasks?
            checked = now
            try:
                workers = len(client.nthreads())
            except Exception as err:  # noqa: BLE001  (the scheduler gone: any of Dask's connection errors)
                raise ClusterLost(f"lost the Dask scheduler at {address}: {type(err).__name__}: {err}") from None
            if workers:
                workerless_since = None
            elif workerless_since is None:
                workerless_since = now
            elif now - workerless_since >= WORKERLESS_SECONDS:
                raise ClusterLost(f"the Dask cluster at {address} has had no worker for {WORKERLESS_SECONDS:g} s "
                                  f"while tasks wait: its last worker died (start some with `dask worker {address}`)")
        time.sleep(0.05)


class NotAScheduler(ConnectionError):
    """Something answers at the address, but not a Dask scheduler."""


HANDSHAKE_BYTES = 1 << 20  # a Dask handshake is tens of bytes; a length past this is not one


def check_scheduler_answers(scheduler: str, timeout: float) -> None:
    """Open a TCP connection to ``scheduler`` and wait for the handshake a Dask scheduler sends
    first: ``NotAScheduler`` naming the address if none comes within ``timeout`` seconds or the
    bytes are not one, ``OSError`` if nothing listens.

    Dask's own client trusts the first 8 bytes it reads to be a message's length: a web server
    there (the dashboard's port, 8787, for the scheduler's, 8786) answers its greeting with
    ``HTTP/1.1 400``, read as a length of 3.07 EiB, or says nothing and the client waits for minutes.
    Addresses other than ``tcp://`` are left to Dask.
    """
    import socket
    import struct
    import time

    from distributed.comm.addressing import parse_address, parse_host_port

    scheme, location = parse_address(scheduler)
    if scheme != "tcp":
        return
    host, port = parse_host_port(location)
    deadline = time.monotonic() + timeout
    with socket.create_connection((host, port), timeout=timeout) as sock:
        header = b""
        while len(header) < 8:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                data = sock.recv(8 - len(header))
            except TimeoutError:
                data = None
            if not data:
                said = f"only {header!r}" if header else "nothing"
                why = "in" if data is None else "and closed the connection, in"
                raise NotAScheduler(
                    f"{scheduler} is not a Dask scheduler: something listens there but said {said} {why} "
                    f"{timeout:g} s, where a scheduler greets at once (is it the dashboard's port? the scheduler's "
                    "is usually 8786, its dashboard 8787)") from None
            header += data
    if struct.unpack("<Q", header)[0] > HANDSHAKE_BYTES:
        raise NotAScheduler(f"{scheduler} is not a Dask scheduler: it answered {header!r}, not a Dask handshake "
                            "(a web server? the scheduler's port is usually 8786, its dashboard 8787)")


class Packed:
    """A task's result, wrapped so that Dask sends it as one pickle.

    A worker sends a result that is a plain ``dict`` (or list, tuple, set) one element at a
    time: each value gets its own header and frame. For the count dict of the 2 MiB TinyStories
    sample (7,177 pretokens) that is 7,179 frames and 389 kB, 0.1 s to encode, where its pickle
    is 85 kB in under a millisecond (``distributed`` 2026.8; the tests check the frame count).
    Dask looks inside only those exact types, so any other object, this one included, goes as
    its pickle.
    """

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __reduce__(self) -> tuple:
        return Packed, (self.value,)


def packed_call(function: Callable, *args: object) -> Packed:
    """Run ``function`` on a worker, on its arguments unwrapped, and wrap its result."""
    return Packed(function(*(arg.value if isinstance(arg, Packed) else arg for arg in args)))


def submitting(client: Client, submitted: list) -> Callable[[Callable], Callable]:
    """An ``as_task`` for :func:`~bpe_ref.distributed.pretoken_counts.count_ranges` that runs each
    call on the cluster at once (a future of a :class:`Packed` result), and keeps the futures in
    ``submitted`` for a progress bar."""

    def as_task(function: Callable) -> Callable:
        def submit(*args):
            submitted.append(client.submit(packed_call, function, *args, pure=False))
            return submitted[-1]

        return submit

    return as_task
