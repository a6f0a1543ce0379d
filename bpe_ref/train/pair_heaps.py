"""Step 05's two heaps of pairs behind one interface, so that a merge loop picks one once.

A merge loop asks three things of a heap of the pairs in ``pair_counts`` (:class:`PairHeap`):
the pair to merge next (``pop_best``), to take note of the pairs whose counts changed in a merge
(``refresh``: those that grew and those that shrank), and its size, for the trace. Two heaps answer:

- ``"lazy"``: V5's :class:`~bpe_ref.train.step05_heap.LazyPairHeap`, ``heapq`` with lazy deletion
  and compaction. A pair that grew gets a fresh entry; a pair that shrank keeps its old entry,
  which ``pop_best`` finds stale when it surfaces, so it ignores ``shrunk``.
- ``"indexed"``: :class:`IndexedPairHeap`, an :class:`~bpe_ref.train.indexed_heap.IndexedMinHeap`
  that moves each changed pair to its new place (increase-key, decrease-key, insert, remove) and
  never holds a stale entry: the design of the linked-list post.

Both give the same merges (``tests/test_heap_structures.py``); :func:`pair_heap` makes one by name.

>>> counts = {(b"a", b"b"): 3, (b"b", b"c"): 5}
>>> [pair_heap(kind, counts).pop_best(counts) for kind in HEAPS]
[((b'b', b'c'), 0), ((b'b', b'c'), 0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from ..tiebreak import SortKeys
from .common import Pair
from .indexed_heap import IndexedMinHeap
from .step05_heap import LazyPairHeap

__all__ = ["HEAPS", "IndexedPairHeap", "PairHeap", "pair_heap"]


class PairHeap(Protocol):
    """What a merge loop needs of a heap of the pairs of ``pair_counts``, best pair on top."""

    def __len__(self) -> int:
        """How many entries the heap holds (the trace's ``heap_size``)."""

    def pop_best(self, pair_counts: Mapping[Pair, int]) -> tuple[Pair, int]:
        """The pair to merge next (``pair_counts`` must not be empty), and how many stale entries
        were popped on the way."""

    def refresh(self, grown: Iterable[Pair], pair_counts: Mapping[Pair, int], shrunk: Iterable[Pair] = ()) -> None:
        """Take note of a merge's changes: the pairs whose counts grew, and those that shrank
        (or vanished), with ``pair_counts`` already updated."""


class IndexedPairHeap:
    """The pairs of ``pair_counts`` in an :class:`IndexedMinHeap`, keyed by the tie-break: a
    :class:`PairHeap` with no stale entries."""

    def __init__(self, pair_counts: Mapping[Pair, int]) -> None:
        self.keys = SortKeys()
        self.heap = IndexedMinHeap()
        for pair, count in pair_counts.items():
            self.heap.push(pair, self.keys.rank_key(count, pair))

    def __len__(self) -> int:
        return len(self.heap)

    def pop_best(self, pair_counts: Mapping[Pair, int]) -> tuple[Pair, int]:
        """The pair to merge next, and 0: an indexed heap never holds a stale entry."""
        pair, _ = self.heap.pop()
        return pair, 0

    def refresh(self, grown: Iterable[Pair], pair_counts: Mapping[Pair, int], shrunk: Iterable[Pair] = ()) -> None:
        """Move each changed pair to its new place: increase-key, decrease-key, insert or remove."""
        heap, rank_key = self.heap, self.keys.rank_key
        for changed in (grown, shrunk):
            for pair in changed:
                count = pair_counts.get(pair, 0)
                if not count:
                    if pair in heap:
                        heap.remove(pair)
                elif pair in heap:
                    heap.update(pair, rank_key(count, pair))
                else:
                    heap.push(pair, rank_key(count, pair))


_HEAPS: dict[str, type] = {"lazy": LazyPairHeap, "indexed": IndexedPairHeap}
HEAPS: tuple[str, ...] = tuple(_HEAPS)


def pair_heap(kind: str, pair_counts: Mapping[Pair, int]) -> PairHeap:
    """A heap of ``kind`` (one of :data:`HEAPS`) holding the pairs of ``pair_counts``; the lazy
    one compacts at V5's default threshold."""
    if kind not in _HEAPS:
        raise ValueError(f"heap must be one of {', '.join(HEAPS)}, got {kind!r}")
    return _HEAPS[kind](pair_counts)
