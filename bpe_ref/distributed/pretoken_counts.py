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
:func:`count_pretokens_on_cluster` plans the ranges, starts or joins a cluster
(:func:`~bpe_ref.distributed.cluster.connect`) and runs it.

**What crosses the network.** Out to the workers: ranges, three small values each, never the
text (the workers read the files themselves, so every worker must see them at the same path, on
a shared filesystem). Back: one count dict per range, merged on the workers, then one dict to the
caller. A count dict holds each distinct pretoken once, so it is small next to the text it
counts (the 1.4 MB TinyStories sample holds 5,322 distinct pretokens). How it is sent matters
too: Dask sends a plain dict that a task returns entry by entry, one frame per key
(:class:`~bpe_ref.distributed.cluster.Packed` says what that costs); the tasks here return their
counts packed, so that each dict crosses the network as one pickle. Connecting to a cluster, sending results and
waiting for tasks is :mod:`bpe_ref.distributed.cluster`, which corpus encoding
(:mod:`bpe_ref.distributed.corpus_encoding`) shares.

**Why the merge loop stays here.** Each merge needs the best pair over the whole corpus, and
changes the counts the next merge compares. Spreading the pair counts over the workers would cost
a round trip to every worker on every merge: thousands of rounds, each waiting for the slowest
worker. The pretoken counts are all the loop needs, they fit in one machine's memory long after
the corpus does not, and any trainer of steps 01-05 takes them:
``train_on_counts(count_pretokens_on_cluster(paths, tokens), vocab_size, tokens)``.

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

import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from ..corpus import StrPath, read_corpus
from ..pretokenize import count_pretokens as count_text_pretokens
from ..pretokenize import validate_special_tokens
from ..train.step03_parallel import count_chunk, find_chunk_boundaries, merge_counts
from .cluster import cluster_threads, connect, submitting, wait_for_tasks

if TYPE_CHECKING:  # dask is imported only when a cluster is used: the rest needs only the stdlib
    from distributed import Client

__all__ = [
    "FileRange", "MAX_RANGE_BYTES", "RANGES_PER_WORKER", "check_paths", "corpus_paths", "count_pretokens_on_cluster",
    "count_pretokens_with", "count_range", "count_ranges", "merge_two", "plan_ranges", "plan_ranges_by_size",
    "range_bytes_for", "serial_count", "tree_reduce",
]

FileRange = tuple[str, int, int]
"""``(path, start, end)``: the bytes ``[start, end)`` of one file, cut at special tokens."""

RANGES_PER_WORKER = 4
"""How many ranges :func:`count_pretokens_on_cluster` plans per worker thread: more than one, so a worker
that finishes early takes another range instead of waiting for the slowest."""

MAX_RANGE_BYTES = 64 * 2**20
"""The most text :func:`count_pretokens_on_cluster` puts in one range (64 MiB; fewer where a file is smaller or
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
    :func:`count_pretokens_on_cluster` plans this way with :func:`range_bytes_for` the corpus and the cluster.
    """
    if not isinstance(range_bytes, int) or range_bytes < 1:
        raise ValueError(f"range_bytes must be a positive int, got {range_bytes!r}")
    return [piece for path in check_paths(paths)
            for piece in plan_ranges([path], special_tokens, max(1, -(-os.path.getsize(path) // range_bytes)))]


def range_bytes_for(total_bytes: int, threads: int) -> int:
    """The range size :func:`count_pretokens_on_cluster` plans with: :data:`RANGES_PER_WORKER` ranges per worker
    thread, but none over :data:`MAX_RANGE_BYTES`.

    >>> range_bytes_for(4_000_000, 2)  # a small corpus: 8 ranges of 500 kB
    500000
    >>> range_bytes_for(10**13, 1000) == MAX_RANGE_BYTES  # 10 TB: 64 MiB ranges, not 2.5 GB ones
    True
    """
    if not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive int, got {threads!r}")
    return max(1, min(MAX_RANGE_BYTES, math.ceil(total_bytes / (RANGES_PER_WORKER * threads))))


def serial_count(paths: StrPath | Iterable[StrPath], special_tokens: Sequence[str]) -> dict[bytes, int]:
    """What :func:`count_pretokens_on_cluster` returns, counted here, one file after another: the reference."""
    special_tokens = validate_special_tokens(special_tokens)
    return merge_counts(count_text_pretokens(read_corpus(path), special_tokens) for path in check_paths(paths))


def count_pretokens_with(client: Client, paths: StrPath | Iterable[StrPath], special_tokens: Sequence[str], *,
                         progress: bool = False) -> dict[bytes, int]:
    """:func:`count_pretokens_on_cluster` on the cluster of ``client`` (from :func:`connect`, or your own).

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
    total = count_ranges(ranges, special_tokens, as_task=submitting(client, submitted))
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


def count_pretokens_on_cluster(paths: StrPath | Iterable[StrPath], special_tokens: Sequence[str], *,
                               scheduler: str | None = None, num_workers: int | None = None,
                               progress: bool = False) -> dict[bytes, int]:
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

