"""Step 07: lowest rank first with a priority queue over a linked list of parts (lab 07's functions).

The naive encoder (step 06) rescans the whole pretoken after each merge, though a merge only changes
the pairs next to it. Here a min-heap holds ``(rank, position)`` for every adjacent pair of parts
that is a merge, so it pops the lowest rank first and, on equal rank, the smallest position: the
leftmost, as the course's rule says. The parts form a doubly linked list (``next_`` / ``prev``
arrays indexed by a part's first byte), so applying a merge is O(1) and creates at most two new
pairs, with the left and right neighbours, pushed onto the heap. Entries made stale by earlier
merges are not removed; they are recognised when popped (the part is gone, or the pair starting
there no longer has that rank) and skipped. Each merge costs O(log L): O(L log L) per pretoken of
``L`` bytes, where the naive encoder's rounds cost up to O(L²).

The lab's functions work on ``bytes`` tokens and lab 06's ranks (``{pair: rank}``):

- :func:`first_heap`: the heap of ``(rank, position)`` of the pairs of the first parts;
- :func:`merge_all`: the pop loop over the linked list, stale entries skipped (:func:`pop_loop`, for
  any tokens);
- :func:`heap_encode`: one pretoken's tokens, the two together.

:class:`HeapEncoder` runs :func:`first_heap` and :func:`pop_loop` for the :class:`~bpe_ref.tokenizer.Tokenizer` on
tokens numbered by rank (:mod:`.common`): its "ranks" are ``pair_to_token``, whose values (the
merged token's number) sort as the ranks do, and its ``join`` looks the merged token up instead of
concatenating bytes. Theory: ``theory/07-heap-encoding.md``.

>>> ranks = merge_ranks([(b"a", b"a"), (b"aa", b"a")])
>>> heap_encode(b"aaaaa", ranks)
[b'aa', b'aaa']
>>> from bpe_ref.encode.common import MergeTables
>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa", 257: b"aaa"}
>>> HeapEncoder(MergeTables(vocab, [(b"a", b"a"), (b"aa", b"a")])).encode(b"aaaaa")
[256, 257]
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from heapq import heapify, heappop, heappush
from operator import add
from typing import TypeVar

from ..train.step01_naive import split_into_bytes
from .common import MergeTables
from .step06_naive import Pair, merge_ranks

T = TypeVar("T", bound=Hashable)  # a token: bytes in the lab, an int (its number by rank) in HeapEncoder



__all__ = ["HeapEncoder", "first_heap", "heap_encode", "merge_all", "merge_ranks", "pop_loop"]


def first_heap(parts: Sequence[T], ranks: Mapping[tuple[T, T], int]) -> list[tuple[int, int]]:
    """A min-heap (``heapq`` list) of ``(rank, position)``, one per adjacent pair ``(parts[position],
    parts[position + 1])`` that is a merge. O(L): one pass, then ``heapify``.

    >>> first_heap([b"a", b"b", b"a", b"b"], {(b"a", b"b"): 0, (b"b", b"a"): 1})
    [(0, 0), (1, 1), (0, 2)]
    """
    heap = [(rank, position) for position, pair in enumerate(zip(parts, parts[1:]))
            if (rank := ranks.get(pair)) is not None]
    heapify(heap)
    return heap


def merge_all(parts: Sequence[bytes], ranks: Mapping[Pair, int], heap: list[tuple[int, int]]) -> list[bytes]:
    """Apply merges popped from ``heap`` (lowest rank, then leftmost) until it is empty; return the
    parts left. ``heap`` holds ``(rank, position)`` for every adjacent pair of ``parts`` that is a
    merge (it may hold stale entries too: they are skipped), and is emptied. The loop is
    :func:`pop_loop`, with bytes tokens: a merged token is ``left + right``.

    >>> ranks = {(b"a", b"a"): 0}
    >>> merge_all([b"a", b"a", b"a"], ranks, first_heap([b"a", b"a", b"a"], ranks))  # (0, 1) goes stale
    [b'aa', b'a']
    """
    return pop_loop(parts, ranks, heap, add)


def pop_loop(parts: Sequence[T], ranks: Mapping[tuple[T, T], int], heap: list[tuple[int, int]],
             join: Callable[[T, T], T], trace: list[tuple] | None = None) -> list[T]:
    """:func:`merge_all` for any tokens: ``join(left, right)`` makes the merged token (bytes:
    ``left + right``; :class:`HeapEncoder`'s numbered tokens: a table lookup). A part is known by
    the position of its first byte, which it keeps all its life. ``trace``, a list, receives one
    tuple per pop, for the page's worked example: the entry, whether it merged (else it was stale),
    then the parts as ``(position, token)`` and the heap's entries, sorted (a copy, O(L) per pop).

    >>> pop_loop([1, 1, 1], {(1, 1): 7}, [(7, 0), (7, 1)], lambda left, right: 9)
    [9, 1]
    """
    parts = list(parts)  # parts[i]: the part starting at position i, None once merged into its left neighbour
    end = len(parts)
    next_ = list(range(1, end + 1))  # end: no next part
    prev = list(range(-1, end - 1))  # -1: no previous part
    rank_of = ranks.get
    while heap:
        rank, start = heappop(heap)
        left = parts[start]
        right_start = next_[start]
        # Stale: the part was merged into its left neighbour, or the pair starting here changed.
        if left is None or right_start == end or rank_of((left, parts[right_start])) != rank:
            if trace is not None:
                trace.append(((rank, start), False, _placed(parts), tuple(sorted(heap))))
            continue
        # Merge: the part at `start` becomes the merged token, its right neighbour disappears.
        merged = parts[start] = join(left, parts[right_start])
        parts[right_start] = None
        after = next_[start] = next_[right_start]
        if after != end:
            prev[after] = start
            if (new := rank_of((merged, parts[after]))) is not None:
                heappush(heap, (new, start))
        before = prev[start]
        if before != -1 and (new := rank_of((parts[before], merged))) is not None:
            heappush(heap, (new, before))
        if trace is not None:
            trace.append(((rank, start), True, _placed(parts), tuple(sorted(heap))))
    return _live(parts)


def _live(parts: list) -> list:
    return [part for part in parts if part is not None]


def _placed(parts: list) -> tuple:
    return tuple((position, part) for position, part in enumerate(parts) if part is not None)


def heap_encode(pretoken: bytes, ranks: Mapping[Pair, int]) -> list[bytes]:
    """The tokens of one pretoken: :func:`first_heap` of its bytes, then :func:`merge_all`.
    The same tokens as step 06's ``encode_pretoken``, in O(L log L) instead of up to O(L²).

    >>> heap_encode(b" lower", merge_ranks([(b"o", b"w"), (b"l", b"ow"), (b"e", b"r"), (b" ", b"low")]))
    [b' low', b'er']
    """
    parts = list(split_into_bytes(pretoken))
    return merge_all(parts, ranks, first_heap(parts, ranks))


class HeapEncoder:
    """:func:`first_heap` and :func:`pop_loop` over tokens numbered by rank: ints instead of bytes."""

    def __init__(self, tables: MergeTables) -> None:
        self.pair_to_token = tables.pair_to_token
        self.token_ids = tables.token_ids
        merged_token = self.pair_to_token.__getitem__
        self._join = lambda left, right: merged_token((left, right))

    def encode(self, data: bytes) -> list[int]:
        """The vocabulary ids of one pretoken's bytes."""
        ids = self.token_ids
        if len(data) < 2:
            return [ids[b] for b in data]
        parts = list(data)  # token number of a single byte = the byte
        # Merged tokens are numbered by rank: pair_to_token's values are ranks (plus 256).
        tokens = pop_loop(parts, self.pair_to_token, first_heap(parts, self.pair_to_token), self._join)
        return [ids[t] for t in tokens]
