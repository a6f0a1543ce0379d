"""The linked-list trainer: the token stream as a doubly linked list, pair -> list of the nodes
where it starts, and an indexed heap whose keys change priority in place.

Every distinct word's tokens are nodes of one array-backed list (``token``, ``prev``, ``next``;
``prev``/``next`` are -1 at a word's ends). Merging (A, B) at node n turns n into AB and unlinks
its right neighbour m: O(1) per occurrence, no word is copied. Around the occurrence:

- the left neighbour x loses (x, A) and gains (x, AB);
- the right neighbour y loses (B, y) and gains (AB, y).

The occurrence lists are append-only and checked lazily: a listed node that no longer starts
(A, B) (its token changed, or it was unlinked) is skipped. Counts live in an
:class:`~bpe_ref.train.indexed_heap.IndexedMinHeap`, updated in place with increase-key and
decrease-key, so unlike V5 the heap never holds a stale entry.

Pitfall, self-overlap: in ``a a a`` merging (a, a), the first occurrence's right neighbour forms
(a, a) again, the very pair being merged. Its count was already taken off the heap, so a naive
update would decrement a pair that no longer exists. Occurrences are processed left to right
and updates to the merged pair itself are skipped: ``a a a`` becomes ``aa a``, as the rule says.
Theory: ``theory/05-heap.md``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping

from ..tiebreak import SortKeys
from .common import Pair
from .driver import MergeStep, run_merges
from .indexed_heap import IndexedMinHeap
from .step01_naive import count_pairs, split_into_bytes

__all__ = ["merge_steps", "train"]

_UNLINKED = b""  # the token of a node removed from the list (no real token is empty)


def merge_steps(pretoken_counts: Mapping[bytes, int]) -> Iterator[MergeStep]:
    """The linked list's merges, one per iteration, until no pair is left (:func:`train` decides how many)."""
    word_counts = {split_into_bytes(pretoken): frequency for pretoken, frequency in pretoken_counts.items()}
    counts = count_pairs(word_counts)
    keys = SortKeys()

    # The linked list: one node per byte of every distinct word.
    token: list[bytes] = []
    prev: list[int] = []
    next_: list[int] = []
    node_frequency: list[int] = []  # the frequency of the word each node belongs to
    node_word: list[int] = []  # the word each node belongs to (for the trace's word count)
    occurrences: dict[Pair, list[int]] = defaultdict(list)  # pair -> the nodes where it starts
    for word_id, (word, frequency) in enumerate(word_counts.items()):
        start = len(token)
        for offset, byte in enumerate(word):
            node = start + offset
            token.append(byte)
            prev.append(node - 1 if offset else -1)
            next_.append(node + 1 if offset + 1 < len(word) else -1)
            node_frequency.append(frequency)
            node_word.append(word_id)
            if offset:
                occurrences[(word[offset - 1], byte)].append(node - 1)

    heap = IndexedMinHeap()
    for pair, count in counts.items():
        heap.push(pair, keys.rank_key(count, pair))

    def add(pair: Pair, delta: int) -> None:
        count = counts.get(pair, 0) + delta
        if count > 0:
            counts[pair] = count
            if pair in heap:
                heap.update(pair, keys.rank_key(count, pair))  # increase-key or decrease-key, in place
            else:
                heap.push(pair, keys.rank_key(count, pair))
        else:
            counts.pop(pair, None)
            if pair in heap:
                heap.remove(pair)

    while heap:
        pair, _ = heap.pop()
        count = counts.pop(pair)
        left, right = pair
        merged = left + right
        touched_words = set()
        # Left to right within each word (node ids grow along a word): the rule's order.
        for node in sorted(occurrences.pop(pair)):
            follower = next_[node]
            if token[node] != left or follower == -1 or token[follower] != right:
                continue  # stale: this node no longer starts (left, right)
            frequency = node_frequency[node]
            before, after = prev[node], next_[follower]
            if before != -1:
                old = (token[before], left)
                if old != pair:
                    add(old, -frequency)
                created = (token[before], merged)
                add(created, frequency)
                occurrences[created].append(before)
            if after != -1:
                old = (right, token[after])
                if old != pair:  # self-overlap: (a, a) followed by a
                    add(old, -frequency)
                created = (merged, token[after])
                add(created, frequency)
                occurrences[created].append(node)
            token[node] = merged
            token[follower] = _UNLINKED
            next_[node] = after
            if after != -1:
                prev[after] = node
            touched_words.add(node_word[node])
        yield MergeStep(pair=pair, count=count, affected_words=len(touched_words), heap_size=len(heap), stale_pops=0)


def train(pretoken_counts: Mapping[bytes, int], num_merges: int) -> list[Pair]:
    """Learn up to ``num_merges`` merges from pretoken counts; fewer when no pair is left."""
    return run_merges(merge_steps(pretoken_counts), num_merges)
