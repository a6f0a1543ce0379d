"""V3: V2's merge loop, fed by pretoken counts computed in parallel worker processes.

On real corpora pretokenization (running the GPT-2 regex over every byte) costs as much as the
merge loop or more, and it is embarrassingly parallel once the file is cut where cutting changes
nothing: at special tokens. Step 03 is map and reduce:

1. :func:`find_chunk_boundaries` cuts the file into byte ranges that start at a special token;
2. :func:`count_chunk` (the map, in a worker process) reads its own range and counts its pretokens;
3. :func:`merge_counts` (the reduce) adds the counts up.

:func:`count_pretokens_in_file` does all three and returns exactly what the serial
:func:`~bpe_ref.pretokenize.count_pretokens` returns on the whole text. The merge loop is V2's,
unchanged: :func:`merge_steps` and :func:`train` *are* V2's functions. Theory:
``theory/03-parallel-pretokenization.md``.

>>> merge_counts([{b"low": 2, b" low": 1}, {b" low": 3}])
{b'low': 2, b' low': 4}
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import BinaryIO

from ..corpus import StrPath, decode_utf8, read_corpus
from ..main_guard import workers_can_start
from ..pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens, validate_special_tokens
from .step02_incremental import merge_steps, train

__all__ = [
    "count_chunk", "count_pretokens_in_file", "count_pretokens_in_parallel", "default_num_workers",
    "find_chunk_boundaries", "merge_counts", "merge_steps", "train", "worker_context",
]


def find_chunk_boundaries(
    path: StrPath, desired_num_chunks: int, split_tokens: bytes | Sequence[bytes], buffer_size: int = 4096
) -> list[int]:
    """Byte offsets that cut the file at ``path`` into about ``desired_num_chunks`` chunks at special tokens.

    Each inner boundary is the start of the first occurrence of any of ``split_tokens`` at or
    after an evenly spaced guess, so no chunk splits a special token, a pretoken or a character.
    The result is sorted with no duplicates, starts at 0 and ends at the file size; it may hold
    fewer chunks than asked for (a file with few special tokens). The search reads
    ``buffer_size`` bytes at a time and keeps ``len(token) - 1`` bytes of overlap, so a token
    straddling two reads is still found. Where special tokens can overlap (``["ab", "bc"]``, or
    ``"aa"`` in ``"aaa"``), an occurrence that another occurrence straddles is skipped: the whole
    text might be split at the other one.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".txt", delete=False) as file:
    ...     _ = file.write(b"one<|eot|>two<|eot|>three")
    >>> find_chunk_boundaries(file.name, 3, [b"<|eot|>"])  # guesses 8 and 16: both move to 13, or to the end
    [0, 13, 25]
    >>> find_chunk_boundaries(file.name, 8, [b"<|eot|>"])
    [0, 3, 13, 25]
    """
    if desired_num_chunks < 1:
        raise ValueError(f"desired_num_chunks must be at least 1, got {desired_num_chunks}")
    tokens = [split_tokens] if isinstance(split_tokens, bytes) else list(split_tokens)
    if not tokens or any(not isinstance(t, bytes) or not t for t in tokens):
        raise ValueError(f"find_chunk_boundaries needs one or more non-empty bytes split tokens, got {split_tokens!r}")
    if buffer_size < 1:
        raise ValueError(f"buffer_size must be positive, got {buffer_size}")
    with open(path, "rb") as file:
        file_size = file.seek(0, os.SEEK_END)
        overlap = max(len(t) for t in tokens) - 1
        chunk_size = file_size // desired_num_chunks
        boundaries = [0]
        for i in range(1, desired_num_chunks):
            guess = max(i * chunk_size, boundaries[-1])
            boundaries.append(_next_token_start(file, guess, tokens, file_size, buffer_size, overlap))
    boundaries.append(file_size)
    return sorted(set(boundaries))


def _next_token_start(
    file: BinaryIO, position: int, tokens: list[bytes], file_size: int, buffer_size: int, overlap: int
) -> int:
    """Offset of the first safe cut at or after ``position``, else the file size.

    A safe cut is the start of an occurrence of a token that no occurrence of any token
    straddles (starts before it and ends after it). At a safe cut, splitting the whole text at
    special tokens (leftmost match first) also splits there, so both sides count as in the whole.
    """
    while position < file_size:
        file.seek(position)
        window = file.read(buffer_size + overlap)  # the overlap: a token cut by the read's end
        # Only tokens that start in the first buffer_size bytes surely lie whole in the window: a
        # short token found further on could hide a longer one that starts before it, cut off.
        found = [i for i in (window.find(t, 0, buffer_size + len(t) - 1) for t in tokens) if i != -1]
        if found:
            candidate = position + min(found)
            if not _straddled(file, candidate, tokens, overlap):
                return candidate
            position = candidate + 1
            continue
        position += buffer_size  # no token starts in [position, position + buffer_size)
    return file_size


def _straddled(file: BinaryIO, offset: int, tokens: list[bytes], overlap: int) -> bool:
    """Whether an occurrence of a token starts before ``offset`` and ends after it."""
    start = max(0, offset - overlap)
    file.seek(start)
    window = file.read(offset - start + overlap)
    for token in tokens:
        i = window.find(token)
        while i != -1 and start + i < offset:
            if start + i + len(token) > offset:
                return True
            i = window.find(token, i + 1)
    return False


def count_chunk(path: StrPath, start: int, end: int, special_tokens: Sequence[str]) -> dict[bytes, int]:
    """The map: the pretoken counts of bytes ``[start, end)`` of the file at ``path``.

    A worker reads its own range: what crosses between processes is four small arguments, not
    the text. Top level in an importable module, so a ``spawn`` or ``forkserver`` worker finds it.
    """
    with open(path, "rb") as file:
        file.seek(start)
        data = file.read(end - start)
    return count_pretokens(decode_utf8(data, os.fspath(path), offset=start), special_tokens)


def merge_counts(counts: Iterable[Mapping[bytes, int]]) -> dict[bytes, int]:
    """The reduce: the counts of each chunk added up."""
    total: Counter[bytes] = Counter()
    for chunk_counts in counts:
        total.update(chunk_counts)
    return dict(total)


def worker_context(start_method: str | None = None) -> multiprocessing.context.BaseContext:
    """How the counting pool starts its workers: ``start_method``, or by default never a bare ``fork()``.

    Forking a process that runs threads (a Jupyter kernel, tqdm's monitor) can deadlock the child,
    and Python 3.12+ warns about it; 3.14 stops forking by default. The default is 3.14's choice on
    every version: ``forkserver`` on Linux and the other Unixes, ``spawn`` on macOS and Windows.
    """
    if start_method is not None:
        if start_method not in multiprocessing.get_all_start_methods():
            raise ValueError(f"start_method must be one of {multiprocessing.get_all_start_methods()}, got {start_method!r}")
        return multiprocessing.get_context(start_method)
    if sys.platform == "darwin" or "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # The server imports this module once and forks each worker from it ready to count, as fast
    # as a plain fork (a worker importing bpe_ref itself costs about 0.1 s). The list is the
    # process's own (CPython's default ['__main__'] only spares workers re-importing a script's
    # imports) and is read when its fork server first starts.
    context.set_forkserver_preload([__name__])
    return context


def count_pretokens_in_file(
    path: StrPath,
    special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
    num_workers: int = 1,
    chunks_per_worker: int = 1,
    start_method: str | None = None,
) -> dict[bytes, int]:
    """Pretoken counts of a UTF-8 file, counted in ``num_workers`` processes.

    The file is cut at special tokens into ``num_workers * chunks_per_worker`` chunks (or fewer),
    each chunk counted in a worker process, and the counts added up (map, then reduce). With no
    special tokens there is no safe place to cut, so the file is counted whole, here. The result
    equals ``count_pretokens(read_corpus(path), special_tokens)``. Workers start by
    ``start_method`` (default :func:`worker_context`'s choice, never a bare fork): each one
    imports the main script, so a script calls this under ``if __name__ == "__main__":``.
    """
    special_tokens = validate_special_tokens(special_tokens)
    if num_workers < 1:
        raise ValueError(f"num_workers must be at least 1, got {num_workers}")
    if chunks_per_worker < 1:
        raise ValueError(f"chunks_per_worker must be at least 1, got {chunks_per_worker}")
    context = worker_context(start_method)  # a bad start method fails before any work
    if num_workers == 1 or not special_tokens or not workers_can_start(context, f"counting in this process, not in {num_workers}"):
        return count_pretokens(read_corpus(path), special_tokens)
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"corpus file not found: {path}")
    boundaries = find_chunk_boundaries(path, num_workers * chunks_per_worker, [t.encode("utf-8") for t in special_tokens])
    ranges = list(zip(boundaries, boundaries[1:]))
    if len(ranges) <= 1:
        return count_pretokens(read_corpus(path), special_tokens)
    with ProcessPoolExecutor(max_workers=min(num_workers, len(ranges)), mp_context=context) as pool:
        chunk_counts = pool.map(count_chunk, [path] * len(ranges), [start for start, _ in ranges],
                                [end for _, end in ranges], [special_tokens] * len(ranges))
        return merge_counts(chunk_counts)


def default_num_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS
        return os.cpu_count() or 1


def count_pretokens_in_parallel(
    path: StrPath, special_tokens: Sequence[str], num_workers: int | None = None
) -> dict[bytes, int]:
    """The pretoken counts of the file at ``path``, in ``num_workers`` processes (default: all cores)."""
    return count_pretokens_in_file(path, special_tokens, num_workers or default_num_workers())
