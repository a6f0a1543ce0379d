"""Step 10: counting the pretokens of a corpus larger than one machine, on a Dask cluster.

Training needs one thing from the corpus: how often each pretoken occurs. Step 03 counted the
chunks of one file in the processes of one machine; here the chunks are the byte ranges of many
files and the processes run on a cluster of machines (or, by default, on this one). It is the same
map and reduce, with step 03's functions doing the work:

1. :func:`plan_ranges` cuts each file at special tokens into byte ranges, ``(path, start, end)``
   (step 03's :func:`~bpe_ref.train.step03_parallel.find_chunk_boundaries`). No range spans two
   files, so no pretoken does: several files count as if a special token separated them.
2. :func:`count_range` (the map) runs on a worker, which reads its own range from the file and
   counts its pretokens (step 03's :func:`~bpe_ref.train.step03_parallel.count_chunk`).
3. :func:`merge_two` (the reduce) adds two count dicts; :func:`tree_reduce` schedules it in
   pairwise rounds, ``ceil(log2(n))`` deep, so the merges of a round run in parallel.

:func:`count_ranges` is the whole count, written once: called plainly it runs here, one range
after another; with ``as_task=dask.delayed`` the same lines build a Dask task graph.
:func:`count_pretokens` plans the ranges, starts or joins a cluster (:func:`connect`) and runs it.

**What crosses the network.** Out to the workers: ranges, three small values each, never the
text (the workers read the files themselves, so every worker must see them at the same path, on
a shared filesystem). Back: one count dict per range, merged on the workers, then one dict to the
caller. A count dict holds each distinct pretoken once, so it is small next to the text it
counts (the 1.4 MB TinyStories sample holds 5,322 distinct pretokens). How it is sent matters
too: Dask sends a plain dict that a task returns entry by entry, one frame per key
(:class:`Packed` says what that costs); the tasks here return their counts :class:`Packed`, so
that each dict crosses the network as one pickle.

**Why the merge loop stays here.** Each merge needs the best pair over the whole corpus, and
changes the counts the next merge compares. Spreading the pair counts over the workers would cost
a round trip to every worker on every merge: thousands of rounds, each waiting for the slowest
worker. The pretoken counts are all the loop needs, they fit in one machine's memory long after
the corpus does not, and any trainer of steps 01-05 takes them:
``train_on_counts(count_pretokens(paths, tokens), vocab_size, tokens)``.

Dask pickles the functions it sends: these are top-level functions of an importable module, so a
worker imports ``bpe_ref`` (it must be installed on every machine of a real cluster) and finds
them. A script that starts a local cluster does so under ``if __name__ == "__main__":``, because
each worker process imports the script.

>>> tree_reduce([1, 2, 3, 4, 5], lambda left, right: left + right)  # ((1+2) + (3+4)) + 5
15
>>> merge_two({b"low": 2, b" low": 1}, {b" low": 3})
{b'low': 2, b' low': 4}
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

from .corpus import StrPath, read_corpus
from .pretokenize import count_pretokens as count_text_pretokens
from .pretokenize import validate_special_tokens
from .train.step03_parallel import count_chunk, default_num_workers, find_chunk_boundaries, merge_counts

if TYPE_CHECKING:  # dask is imported only when a cluster is used: the rest needs only the stdlib
    from distributed import Client

__all__ = [
    "CONNECT_TIMEOUT", "ClusterLost", "FileRange", "NotAScheduler", "WORKERLESS_SECONDS", "check_scheduler_answers",
    "cluster_threads", "wait_for_tasks", "MAX_RANGE_BYTES", "RANGES_PER_WORKER", "check_paths", "connect", "corpus_paths",
    "Packed", "count_pretokens", "count_pretokens_with", "count_range", "count_ranges", "merge_two", "plan_ranges",
    "plan_ranges_by_size", "range_bytes_for", "serial_count", "tree_reduce", "worker_error",
]

FileRange = tuple[str, int, int]
"""``(path, start, end)``: the bytes ``[start, end)`` of one file, cut at special tokens."""

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a scheduler given by address before saying it cannot be reached."""

RANGES_PER_WORKER = 4
"""How many ranges :func:`count_pretokens` plans per worker thread: more than one, so a worker
that finishes early takes another range instead of waiting for the slowest."""

MAX_RANGE_BYTES = 64 * 2**20
"""The most text :func:`count_pretokens` puts in one range (64 MiB; fewer where a file is smaller or
has no special token to cut at). A large corpus then gives many more ranges than workers: a slow or
failed worker holds up one range of seconds, not a share of minutes, and a range's counts stay small
next to its text. (10 TB on 1,000 cores would otherwise make 4,000 ranges of 2.5 GB.)"""

T = TypeVar("T")


def check_paths(paths: StrPath | Iterable[StrPath]) -> list[str]:
    """The corpus files as a list of ``str``; a missing one is named before any work starts.

    A single path is accepted too. ``FileNotFoundError`` lists every missing path (a typo in one of
    a thousand files should not be found after an hour of counting), ``IsADirectoryError`` a folder.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(path) for path in paths]
    missing = [path for path in paths if not os.path.exists(path)]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise FileNotFoundError(f"{len(missing)} of {len(paths)} corpus files not found: {shown}")
    folders = [path for path in paths if os.path.isdir(path)]
    if folders:
        raise IsADirectoryError(f"corpus paths must be files, not directories: {', '.join(folders[:5])}")
    return paths


def corpus_paths(paths: StrPath | Iterable[StrPath]) -> list[str]:
    """:func:`check_paths`, and at least one: an empty list is more likely a glob that matched nothing."""
    paths = check_paths(paths)
    if not paths:
        raise ValueError("no corpus files to count: paths is empty (did a glob pattern match nothing?)")
    return paths


def plan_ranges(paths: StrPath | Iterable[StrPath], special_tokens: Sequence[str], ranges_per_file: int) -> list[FileRange]:
    """About ``ranges_per_file`` byte ranges per file, each starting at a special token or a file's start.

    Each file is cut by step 03's ``find_chunk_boundaries``, so a file with few special tokens
    gives fewer ranges, and a file with none (or no special tokens at all) gives one. Empty files
    give none. Reads only a few KiB near each cut, not the files.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".txt", delete=False) as file:
    ...     _ = file.write(b"one<|eot|>two<|eot|>three")
    >>> plan_ranges([file.name], ["<|eot|>"], 3) == [(file.name, 0, 13), (file.name, 13, 25)]
    True
    """
    if not isinstance(ranges_per_file, int) or ranges_per_file < 1:
        raise ValueError(f"ranges_per_file must be a positive int, got {ranges_per_file!r}")
    special_tokens = validate_special_tokens(special_tokens)
    split_tokens = [token.encode("utf-8") for token in special_tokens]
    ranges: list[FileRange] = []
    for path in check_paths(paths):
        if split_tokens and ranges_per_file > 1:
            boundaries = find_chunk_boundaries(path, ranges_per_file, split_tokens)
        else:  # no special token: no safe cut inside the file
            boundaries = [0, os.path.getsize(path)]
        ranges.extend((path, start, end) for start, end in zip(boundaries, boundaries[1:]) if end > start)
    return ranges


def count_range(path: str, start: int, end: int, special_tokens: Sequence[str]) -> dict[bytes, int]:
    """The map, on a worker: the pretoken counts of bytes ``[start, end)`` of the file at ``path``.

    Step 03's ``count_chunk``: the worker opens the file and reads only its range. A range that is
    not UTF-8 raises ``ValueError`` with the path and the byte offset in the file.
    """
    return count_chunk(path, start, end, special_tokens)


def merge_two(left: dict[bytes, int], right: dict[bytes, int]) -> dict[bytes, int]:
    """The reduce: the counts of ``left`` and ``right`` added up, in a new dict (neither is changed:
    on a cluster either may be the input of another task too)."""
    return merge_counts([left, right])


def tree_reduce(parts: Sequence[T], combine: Callable[[T, T], T]) -> T:
    """Combine ``parts`` in pairwise rounds: ``[a, b, c, d, e]`` -> ``[ab, cd, e]`` -> ``[abcd, e]`` -> ``abcde``.

    ``ceil(log2(n))`` rounds, each combining neighbours, so the order of the parts is kept (what
    matters for a combine that is associative but not commutative). With plain values the combines
    run here, one after another; with ``dask.delayed`` values and ``combine=dask.delayed(merge_two)``
    it builds a task graph, whose combines of one round run in parallel on the workers.

    >>> tree_reduce(["a", "b", "c", "d", "e"], lambda left, right: f"({left}{right})")
    '(((ab)(cd))e)'
    """
    level = list(parts)
    if not level:
        raise ValueError("tree_reduce needs at least one part")
    while len(level) > 1:
        paired = [combine(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])  # the odd one out waits for the next round
        level = paired
    return level[0]


def count_ranges(ranges: Sequence[FileRange], special_tokens: Sequence[str],
                 as_task: Callable[[Callable], Callable] | None = None) -> object:
    """The whole count: :func:`count_range` on each range, then :func:`tree_reduce` with :func:`merge_two`.

    ``as_task`` says where the calls run. ``None`` calls them here, one after another, and returns
    the counts (the same result as the cluster's: a way to test a map and a reduce without one).
    ``dask.delayed`` makes each call a task and returns a graph to compute on a cluster
    (``client.compute(graph).result()``); :func:`count_pretokens_with` passes one that submits
    each call at once. No ranges: ``{}``.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".txt", delete=False) as file:
    ...     _ = file.write(b"low low<|eot|>lower")
    >>> count_ranges([(file.name, 0, 7), (file.name, 7, 19)], ["<|eot|>"])
    {b'low': 1, b' low': 1, b'lower': 1}
    """
    task = as_task or (lambda function: function)
    parts = [task(count_range)(path, start, end, special_tokens) for path, start, end in ranges]
    return tree_reduce(parts, task(merge_two)) if parts else {}


def plan_ranges_by_size(paths: StrPath | Iterable[StrPath], special_tokens: Sequence[str],
                        range_bytes: int) -> list[FileRange]:
    """:func:`plan_ranges` with ranges of about ``range_bytes`` each, however the files' sizes differ.

    A file of ``size`` bytes is cut into ``ceil(size / range_bytes)`` ranges (at least one), so a
    large file is spread over many workers and a small one is not cut into slivers.
    :func:`count_pretokens` plans this way with :func:`range_bytes_for` the corpus and the cluster.
    """
    if not isinstance(range_bytes, int) or range_bytes < 1:
        raise ValueError(f"range_bytes must be a positive int, got {range_bytes!r}")
    return [piece for path in check_paths(paths)
            for piece in plan_ranges([path], special_tokens, max(1, -(-os.path.getsize(path) // range_bytes)))]


def range_bytes_for(total_bytes: int, threads: int) -> int:
    """The range size :func:`count_pretokens` plans with: :data:`RANGES_PER_WORKER` ranges per worker
    thread, but none over :data:`MAX_RANGE_BYTES`.

    >>> range_bytes_for(4_000_000, 2)  # a small corpus: 8 ranges of 500 kB
    500000
    >>> range_bytes_for(10**13, 1000) == MAX_RANGE_BYTES  # 10 TB: 64 MiB ranges, not 2.5 GB ones
    True
    """
    if not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive int, got {threads!r}")
    return max(1, min(MAX_RANGE_BYTES, math.ceil(total_bytes / (RANGES_PER_WORKER * threads))))


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


def serial_count(paths: StrPath | Iterable[StrPath], special_tokens: Sequence[str]) -> dict[bytes, int]:
    """What :func:`count_pretokens` returns, counted here, one file after another: the reference."""
    special_tokens = validate_special_tokens(special_tokens)
    return merge_counts(count_text_pretokens(read_corpus(path), special_tokens) for path in check_paths(paths))


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

        from .main_guard import main_module_problem, warn_from_caller

        processes = True
        problem = main_module_problem(dask.config.get("distributed.worker.multiprocessing-method", "spawn"))
        if problem is not None:  # worker processes could not start (bpe_ref.main_guard): threads of this one can
            warn_from_caller(f"the local Dask cluster runs its workers as threads of this process: {problem}")
            processes = False
        with LocalCluster(n_workers=num_workers or default_num_workers(), threads_per_worker=1, processes=processes,
                          dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
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
    wait ``timeout`` seconds (default :data:`CONNECT_TIMEOUT`) for its first. ``ClusterLost``
    (naming the address and what to start) if none comes."""
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
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


def count_pretokens_with(client: Client, paths: StrPath | Iterable[StrPath], special_tokens: Sequence[str], *,
                         progress: bool = False) -> dict[bytes, int]:
    """:func:`count_pretokens` on the cluster of ``client`` (from :func:`connect`, or your own).

    The paths are made absolute here, before they travel: a worker started in another folder
    reads the same files. Ranges: :func:`range_bytes_for` the corpus and the cluster's threads."""
    from distributed import as_completed

    special_tokens = validate_special_tokens(special_tokens)
    paths = [os.path.abspath(path) for path in corpus_paths(paths)]
    threads = cluster_threads(client)
    total_bytes = sum(os.path.getsize(path) for path in paths)
    ranges = plan_ranges_by_size(paths, special_tokens, range_bytes_for(total_bytes, threads))
    if not ranges:
        return {}
    submitted: list = []
    total = count_ranges(ranges, special_tokens, as_task=_submitting(client, submitted))
    waiting = as_completed(submitted, raise_errors=False)
    submitted.clear()  # only the scheduler holds the partial counts now: each is freed once merged
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=waiting.count(), desc=f"counting {len(ranges)} ranges", unit="task", leave=False)
    try:
        wait_for_tasks(client, waiting, None if bar is None else bar.update)
    finally:
        if bar is not None:
            bar.close()
    return total.result().value


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


def _packed_call(function: Callable, *args: object) -> Packed:
    """Run ``function`` on a worker, on its arguments unwrapped, and wrap its result."""
    return Packed(function(*(arg.value if isinstance(arg, Packed) else arg for arg in args)))


def _submitting(client: Client, submitted: list) -> Callable[[Callable], Callable]:
    """An ``as_task`` for :func:`count_ranges` that runs each call on the cluster at once (a
    future of a :class:`Packed` result), and keeps the futures in ``submitted`` for a progress bar."""

    def as_task(function: Callable) -> Callable:
        def submit(*args):
            submitted.append(client.submit(_packed_call, function, *args, pure=False))
            return submitted[-1]

        return submit

    return as_task


def count_pretokens(paths: StrPath | Iterable[StrPath], special_tokens: Sequence[str], *, scheduler: str | None = None,
                    num_workers: int | None = None, progress: bool = False) -> dict[bytes, int]:
    """How often each pretoken occurs in the files at ``paths``, counted on a Dask cluster.

    Equals :func:`serial_count` (each file's serial count, added up). ``scheduler=None`` starts a
    local cluster of ``num_workers`` processes for the call; an address uses a running cluster,
    whose workers must read the files at the same absolute paths (relative paths are made absolute
    here; a file a worker cannot open is an ``OSError`` that says it happened on a worker). The
    corpus is cut into :data:`RANGES_PER_WORKER` ranges per worker thread, each of at most
    :data:`MAX_RANGE_BYTES` (64 MiB). Missing files, bad special tokens and an unreachable scheduler
    fail before any counting; ``progress`` shows a bar of the tasks.
    """
    special_tokens = validate_special_tokens(special_tokens)
    paths = corpus_paths(paths)
    with connect(scheduler, num_workers) as client:
        return count_pretokens_with(client, paths, special_tokens, progress=progress)


# ---------------------------------------------------------------------------------------------
# Encoding a corpus on the cluster: ranges of token ids, in order
#
# (Added for ``python -m bpe_ref encode-corpus``; everything above is step 10's counting.)
# A trained tokenizer turns the corpus into the token ids a language model trains on. Encoding is
# additive where plan_ranges cuts: the tokenizer cuts special tokens out of the text before
# anything else, so at the start of a special token that no other occurrence straddles, the ids
# of the whole text are the ids of the text before it followed by those of the text from it
# (step 03 shows the same cut for counting). So each range is encoded on its own, on any worker,
# and a file's ids are its ranges' ids in order. Files are encoded one by one, never joined.

import hashlib  # noqa: E402  (this section's imports stay with it)
import pickle  # noqa: E402
from collections.abc import Mapping  # noqa: E402
from typing import NamedTuple  # noqa: E402

from .corpus import decode_utf8  # noqa: E402

__all__ += ["EncodingModel", "encode_range", "encoding_model", "model_task", "token_dtype"]

if TYPE_CHECKING:
    import numpy as np

    from .tokenizer import Tokenizer


class EncodingModel(NamedTuple):
    """What a worker needs to rebuild a tokenizer: small to send, and named by ``digest`` so that a
    worker builds each model's tokenizer once, however many ranges it encodes with it."""

    digest: str
    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    special_tokens: tuple[str, ...]


UINT16_IDS = 1 << 16  # ids 0..65,535 fit two bytes each


def encoding_model(tokenizer: Tokenizer) -> EncodingModel:
    """The :class:`EncodingModel` of ``tokenizer`` (its vocabulary, merges and special tokens)."""
    vocab = dict(tokenizer.vocab)
    digest = hashlib.sha256(pickle.dumps((sorted(vocab.items()), tokenizer.merges, tokenizer.special_tokens))).hexdigest()
    return EncodingModel(digest, vocab, list(tokenizer.merges), tuple(tokenizer.special_tokens))


def token_dtype(vocab: Mapping[int, bytes]) -> str:
    """``"uint16"`` when every id of ``vocab`` fits in two bytes (ids below 65,536), else ``"uint32"``.

    >>> token_dtype({0: b"a", 65_535: b"b"}), token_dtype({70_000: b"c"})
    ('uint16', 'uint32')
    """
    largest = max(vocab, default=0)
    if largest >= 1 << 32:
        raise ValueError(f"token id {largest:,} does not fit in 32 bits")
    return "uint16" if largest < UINT16_IDS else "uint32"


_TOKENIZERS: dict[str, Tokenizer] = {}  # digest -> tokenizer, in this process (a worker keeps it between tasks)


def _tokenizer_of(model: EncodingModel) -> Tokenizer:
    tokenizer = _TOKENIZERS.get(model.digest)
    if tokenizer is None:
        from .tokenizer import Tokenizer

        if len(_TOKENIZERS) >= 2:  # a long-running worker may see several models: keep the last ones
            _TOKENIZERS.clear()
        tokenizer = _TOKENIZERS[model.digest] = Tokenizer(model.vocab, model.merges, model.special_tokens)
    return tokenizer


def model_task(model: EncodingModel) -> EncodingModel:
    """A task that gives back ``model``: submitted with the model as its argument, its result can
    be made again by the scheduler if every worker that held it dies (scattered data could not)."""
    return model


def encode_range(path: str, start: int, end: int, model: EncodingModel, dtype: str) -> np.ndarray:
    """The token ids of bytes ``[start, end)`` of the file at ``path``, as a NumPy array of ``dtype``.

    Like :func:`count_range`, the worker reads its own range; ``model`` is sent once per worker
    (``client.scatter(..., broadcast=True)``), and its tokenizer is built once per process. A range
    that is not UTF-8 raises ``ValueError`` with the path and the byte offset in the file.
    """
    import numpy as np

    with open(path, "rb") as file:
        file.seek(start)
        data = file.read(end - start)
    text = decode_utf8(data, path, offset=start)
    return np.array(_tokenizer_of(model).encode(text), dtype=dtype)
