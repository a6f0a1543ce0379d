"""V5, a max-heap with lazy deletion and compaction, on top of V4's inverted index.

V4 still scans all P pair counts to find the best pair. V5 keeps the pairs in a heap of
:func:`heap_entry` values, ordered by the tie-break, so the best pair is at the top. Counts change
after every merge, and a binary heap cannot cheaply find an entry to update, so V5 never updates
in place (lab 05's tasks are :func:`heap_entry`, :func:`pop_best` and :func:`train`):

- when a pair's count *grows* (only pairs holding the new token can), push a fresh entry;
- when it *shrinks*, do nothing: its old entry now claims too high a count;
- on pop (:func:`pop_best`), compare the entry's count with the true one. Equal: it is the best
  pair. Otherwise the entry is *stale*: drop it, and if the pair still occurs with a smaller
  count, push it again with that count (it may still be among the best).

Stale entries pile up, so when the heap holds more than ``compaction_threshold`` times as many
entries as there are live pairs, it is rebuilt from the counts (O(P) with ``heapify``), which
bounds memory (:class:`LazyPairHeap` keeps the entries and does this). Everything else is V4's. Theory: ``theory/05-heap.md``.

>>> train({b"low": 5, b"lower": 2, b"newest": 6, b"widest": 3}, 3)
[(b's', b't'), (b'e', b'st'), (b'o', b'w')]
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping

from ..tiebreak import SortKeys, pair_rank_key, token_sort_key
from .common import Pair
from .driver import MergeStep, run_merges
from .step01_naive import count_pairs, split_into_bytes
from .step04_inverted_index import index_words, merge_indexed_words

__all__ = ["DEFAULT_COMPACTION_THRESHOLD", "HeapEntry", "LazyPairHeap", "heap_entry", "merge_steps", "pop_best", "train"]

DEFAULT_COMPACTION_THRESHOLD = 2.0
_MIN_HEAP_TO_COMPACT = 1024  # rebuilding a tiny heap costs more than it saves


# (-count, token_sort_key(left), token_sort_key(right), pair): plain str and int, so a total order.
HeapEntry = tuple[int, str, str, Pair]


def heap_entry(count: int, pair: Pair) -> HeapEntry:
    """The entry of ``pair`` with ``count`` in a ``heapq`` heap, which pops the *smallest* entry:
    the pair to merge next must have the smallest entry (highest count; among equal counts, the
    greatest ``(left, right)`` bytes, :func:`bpe_ref.tiebreak.best_pair`'s rule).

    The first item is ``-count`` and the last is the pair (what :func:`pop_best` reads back); in
    between, each token's order-reversing key (:func:`bpe_ref.tiebreak.token_sort_key`). They are
    ``str``: tuples of builtins compare with a total order. A wrapper class that defines only
    ``__lt__`` does not (tuple comparison asks ``==`` first, which falls back to identity).

    >>> heap_entry(5, (b"a", b"b")) < heap_entry(5, (b"a", b"a")) < heap_entry(4, (b"z", b"z"))
    True
    """
    left, right = pair
    return (*pair_rank_key(count, token_sort_key(left), token_sort_key(right)), pair)


def pop_best(entries: list[HeapEntry], pair_counts: Mapping[Pair, int]) -> tuple[Pair, int]:
    """Lazy deletion: pop ``entries`` (a ``heapq`` heap of :func:`heap_entry` values) until an
    entry's count is its pair's live count in ``pair_counts`` (which must not be empty); return
    that pair and how many *stale* entries were popped on the way.

    An entry is stale when its pair's count changed after it was pushed. If the pair still occurs
    with a smaller count, it may still be among the best: push it again with its live count. If it
    no longer occurs, or its count grew (a fresher entry is in the heap), drop it.

    >>> entries = [heap_entry(5, (b"a", b"b")), heap_entry(4, (b"c", b"d"))]
    >>> pop_best(entries, {(b"a", b"b"): 3, (b"c", b"d"): 4})  # (a, b) fell from 5 to 3: stale
    ((b'c', b'd'), 1)
    >>> [(-entry[0], entry[-1]) for entry in entries]  # (a, b) was pushed again with 3
    [(3, (b'a', b'b'))]
    """
    stale_pops = 0
    while True:
        entry = heapq.heappop(entries)
        pair = entry[-1]
        count = pair_counts.get(pair, 0)
        if count == -entry[0]:
            return pair, stale_pops
        stale_pops += 1
        if 0 < count < -entry[0]:  # the pair lost count since this entry was pushed
            heapq.heappush(entries, heap_entry(count, pair))


class LazyPairHeap:
    """The pairs of ``pair_counts``, best on top, with stale entries skipped when they surface.

    Its ``entries`` are :func:`heap_entry` values; :meth:`rebuild` and :meth:`refresh` make the
    same tuples with each token's key computed once (a :class:`~bpe_ref.tiebreak.SortKeys`).
    """

    def __init__(
        self, pair_counts: Mapping[Pair, int], compaction_threshold: float | None = DEFAULT_COMPACTION_THRESHOLD
    ) -> None:
        if compaction_threshold is not None and compaction_threshold <= 1:
            raise ValueError(f"compaction_threshold must be greater than 1 (or None), got {compaction_threshold}")
        self.compaction_threshold = compaction_threshold
        self.keys = SortKeys()
        self.rebuild(pair_counts)

    def __len__(self) -> int:
        return len(self.entries)

    def rebuild(self, pair_counts: Mapping[Pair, int]) -> None:
        """One fresh entry per pair: O(P) with ``heapify``."""
        rank_key = self.keys.rank_key
        self.entries = [(*rank_key(count, pair), pair) for pair, count in pair_counts.items()]
        heapq.heapify(self.entries)

    def pop_best(self, pair_counts: Mapping[Pair, int]) -> tuple[Pair, int]:
        """The pair to merge next (``pair_counts`` must not be empty), and how many stale entries
        were popped on the way: :func:`pop_best` on this heap's entries."""
        return pop_best(self.entries, pair_counts)

    def refresh(self, grown: Iterable[Pair], pair_counts: Mapping[Pair, int], shrunk: Iterable[Pair] = ()) -> None:
        """A fresh entry for each pair whose count grew; compaction when stale entries pile up. A pair
        that shrank needs nothing (``shrunk`` is there for the interface step 05's other heap shares,
        :class:`~bpe_ref.train.pair_heaps.PairHeap`): its old entry is checked when it surfaces."""
        rank_key = self.keys.rank_key
        for pair in grown:
            if pair in pair_counts:  # a cheap guard: a pair that no longer occurs needs no entry
                heapq.heappush(self.entries, (*rank_key(pair_counts[pair], pair), pair))
        threshold = self.compaction_threshold
        if threshold is not None and len(self.entries) > max(_MIN_HEAP_TO_COMPACT, threshold * len(pair_counts)):
            self.rebuild(pair_counts)


def merge_steps(
    pretoken_counts: Mapping[bytes, int], compaction_threshold: float | None = DEFAULT_COMPACTION_THRESHOLD
) -> Iterator[MergeStep]:
    """V5's merges, one per iteration, until no pair is left (:func:`train` decides how many).

    ``compaction_threshold=None`` disables compaction (to measure what it saves).
    """
    word_counts = {split_into_bytes(pretoken): frequency for pretoken, frequency in pretoken_counts.items()}
    pair_counts = count_pairs(word_counts)  # once, before the loop
    words, frequencies = list(word_counts), list(word_counts.values())  # lists: replace a word in place
    index = index_words(words)  # pair -> ids of the words that hold it
    heap = LazyPairHeap(pair_counts, compaction_threshold)
    while pair_counts:
        pair, stale_pops = heap.pop_best(pair_counts)  # O(log P) per pop, no scan
        count = pair_counts[pair]
        rewritten, grown = merge_indexed_words(pair, words, frequencies, index, pair_counts)  # no word scan
        heap.refresh(grown, pair_counts)  # only the pairs the rewritten words gained can have grown
        yield MergeStep(pair=pair, count=count, affected_words=len(rewritten), heap_size=len(heap),
                        stale_pops=stale_pops)


def train(pretoken_counts: Mapping[bytes, int], num_merges: int) -> list[Pair]:
    """Learn up to ``num_merges`` merges from pretoken counts; fewer when no pair is left."""
    return run_merges(merge_steps(pretoken_counts), num_merges)
