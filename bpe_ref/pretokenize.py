"""Step 00 and 03: from raw text to pretokens and their counts.

BPE never merges across a *pretoken* boundary. The GPT-2 pattern cuts text into words with their
leading space, numbers, runs of punctuation and runs of whitespace. Special tokens such as
``<|endoftext|>`` are cut out *before* the pattern runs, so no merge can touch them.

>>> pretokenize("Hello world!<|endoftext|>It's 42.", special_tokens=["<|endoftext|>"])
['Hello', ' world', '!', 'It', "'s", ' 42', '.']

Training needs only how often each pretoken occurs (:func:`count_pretokens`). Step 03 counts a
file in several processes (:func:`count_pretokens_in_file`): the file is cut at special tokens
(:func:`find_chunk_boundaries`), so each chunk pretokenizes exactly as it would in the whole text,
and the per-chunk counts add up to the serial count.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import BinaryIO

import regex

from .corpus import StrPath, decode_utf8, encode_utf8, read_corpus

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
PRETOKEN_RE = regex.compile(GPT2_PATTERN)

DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = ("<|endoftext|>",)


def validate_special_tokens(special_tokens: Iterable[str] | None) -> tuple[str, ...]:
    """Special tokens as a tuple, in the order given; rejects the mistakes that corrupt training."""
    if special_tokens is None:
        return ()
    if isinstance(special_tokens, (str, bytes)):
        raise TypeError(
            f"special_tokens must be a sequence of strings, not a single {type(special_tokens).__name__}: "
            f"write special_tokens=[{special_tokens!r}]"
        )
    tokens = tuple(special_tokens)
    for token in tokens:
        if not isinstance(token, str):
            raise TypeError(f"special tokens must be str, got {token!r} ({type(token).__name__})")
        if not token:
            raise ValueError("a special token cannot be the empty string")
        encode_utf8(token)
    duplicates = sorted({t for t in tokens if tokens.count(t) > 1})
    if duplicates:
        raise ValueError(f"special tokens listed more than once: {duplicates}")
    return tokens


def special_token_regex(special_tokens: Sequence[str]) -> regex.Pattern | None:
    """A pattern matching any special token, the longest first where they overlap."""
    if not special_tokens:
        return None
    ordered = sorted(special_tokens, key=len, reverse=True)
    return regex.compile("|".join(regex.escape(token) for token in ordered))


def split_on_special_tokens(text: str, special_tokens: Sequence[str]) -> list[str]:
    """The pieces of ``text`` between special tokens (the special tokens themselves dropped).

    >>> split_on_special_tokens("a<|eot|>b<|eot|>", ["<|eot|>"])
    ['a', 'b', '']
    """
    pattern = special_token_regex(special_tokens)
    return [text] if pattern is None else pattern.split(text)


def split_keeping_special_tokens(text: str, special_tokens: Sequence[str]) -> Iterator[tuple[str, bool]]:
    """``(piece, is_special)`` in text order: what an encoder walks. Empty pieces are skipped.

    >>> list(split_keeping_special_tokens("a<|eot|>b", ["<|eot|>"]))
    [('a', False), ('<|eot|>', True), ('b', False)]
    """
    pattern = special_token_regex(special_tokens)
    if pattern is None:
        if text:
            yield text, False
        return
    start = 0
    for match in pattern.finditer(text):
        if match.start() > start:
            yield text[start : match.start()], False
        yield match.group(), True
        start = match.end()
    if start < len(text):
        yield text[start:], False


def pretokenize(text: str, special_tokens: Sequence[str] = ()) -> list[str]:
    """The pretokens of ``text`` in order, special tokens removed."""
    findall = PRETOKEN_RE.findall
    return [pretoken for piece in split_on_special_tokens(text, special_tokens) for pretoken in findall(piece)]


def _count_str_pretokens(text: str, special_tokens: Sequence[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    findall = PRETOKEN_RE.findall
    for piece in split_on_special_tokens(text, special_tokens):
        counts.update(findall(piece))  # Counter.update over a list runs in C
    return counts


def _to_bytes(counts: Counter[str]) -> dict[bytes, int]:
    return {encode_utf8(pretoken): count for pretoken, count in counts.items()}


def count_pretokens(text: str, special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS) -> dict[bytes, int]:
    """How often each pretoken (as UTF-8 bytes) occurs in ``text``: the input of every trainer.

    >>> count_pretokens("low low low lower", special_tokens=())
    {b'low': 1, b' low': 2, b' lower': 1}
    """
    special_tokens = validate_special_tokens(special_tokens)
    try:
        return _to_bytes(_count_str_pretokens(text, special_tokens))
    except ValueError:
        encode_utf8(text)  # a lone surrogate: report its index in ``text``, not in its pretoken
        raise


def find_chunk_boundaries(
    file: BinaryIO, desired_num_chunks: int, split_tokens: bytes | Sequence[bytes], buffer_size: int = 4096
) -> list[int]:
    """Byte offsets that cut ``file`` into about ``desired_num_chunks`` chunks at special tokens.

    Each inner boundary is the start of the first occurrence of any of ``split_tokens`` at or
    after an evenly spaced guess, so no chunk splits a special token or a pretoken. Where special
    tokens can overlap (``["ab", "bc"]``, or ``"aa"`` in ``"aaa"``), an occurrence that another
    occurrence straddles is skipped: the whole text might be split at the other one. The result is
    sorted with no duplicates, starts at 0 and ends at the file size; it may hold fewer chunks than
    asked for (a file with few special tokens). The search reads ``buffer_size`` bytes at a time
    and keeps ``len(token) - 1`` bytes of overlap, so a token straddling two reads is still found.
    """
    if desired_num_chunks < 1:
        raise ValueError(f"desired_num_chunks must be at least 1, got {desired_num_chunks}")
    tokens = [split_tokens] if isinstance(split_tokens, bytes) else list(split_tokens)
    if not tokens or any(not t for t in tokens):
        raise ValueError("find_chunk_boundaries needs at least one non-empty split token")
    if buffer_size < 1:
        raise ValueError(f"buffer_size must be positive, got {buffer_size}")
    file.seek(0, os.SEEK_END)
    file_size = file.tell()
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
        window = file.read(buffer_size + overlap)
        found = [i for i in (window.find(t) for t in tokens) if i != -1]
        if found:
            candidate = position + min(found)
            if not _straddled(file, candidate, tokens, overlap):
                return candidate
            position = candidate + 1
            continue
        if len(window) <= overlap:
            break
        position += buffer_size
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


def _count_chunk(job: tuple[str, int, int, tuple[str, ...]]) -> Counter[str]:
    """Worker: count the pretokens of bytes ``[start, end)`` of a file (top level, so it pickles)."""
    path, start, end, special_tokens = job
    with open(path, "rb") as file:
        file.seek(start)
        data = file.read(end - start)
    return _count_str_pretokens(decode_utf8(data, path, offset=start), special_tokens)


def worker_context() -> multiprocessing.context.BaseContext:
    """How the counting pool starts its workers: never by a bare ``fork()``.

    Forking a process that runs threads (a Jupyter kernel, tqdm's monitor) can deadlock the child,
    and Python 3.12+ warns about it; 3.14 stops forking by default. This is 3.14's choice on every
    version: ``forkserver`` on Linux and the other Unixes, ``spawn`` on macOS and Windows.
    """
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
) -> dict[bytes, int]:
    """Pretoken counts of a UTF-8 file, counted in ``num_workers`` processes (step 03).

    The file is cut at special tokens, each chunk counted in a worker process, and the counters
    added up (map, then reduce). With no special tokens there is no safe place to cut, so the
    file is counted whole. The result equals ``count_pretokens(read_corpus(path), ...)``.
    Workers are not forked from the caller (:func:`worker_context`): each one imports the main
    script, so a script calls this under ``if __name__ == "__main__":``, as on macOS and Windows.
    """
    special_tokens = validate_special_tokens(special_tokens)
    if num_workers < 1:
        raise ValueError(f"num_workers must be at least 1, got {num_workers}")
    if num_workers == 1 or not special_tokens:
        return _to_bytes(_count_str_pretokens(read_corpus(path), special_tokens))
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"corpus file not found: {path}")
    with open(path, "rb") as file:
        boundaries = find_chunk_boundaries(
            file, num_workers * chunks_per_worker, [t.encode("utf-8") for t in special_tokens]
        )
    jobs = [(path, start, end, special_tokens) for start, end in zip(boundaries, boundaries[1:])]
    if len(jobs) <= 1:
        return _to_bytes(_count_str_pretokens(read_corpus(path), special_tokens))
    total: Counter[str] = Counter()
    with ProcessPoolExecutor(max_workers=min(num_workers, len(jobs)), mp_context=worker_context()) as pool:
        for counts in pool.map(_count_chunk, jobs):
            total.update(counts)
    return _to_bytes(total)
