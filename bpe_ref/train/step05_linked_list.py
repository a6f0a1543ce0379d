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
from collections.abc import Mapping

from ..tiebreak import pair_rank_key
from .common import MergeStep, Pair, TokenTable, merge_progress, words_and_frequencies
from .indexed_heap import IndexedMinHeap

_UNLINKED = -1  # the token of a node removed from the list


def train(
    word_counts: Mapping[bytes, int],
    num_merges: int,
    *,
    trace: list[MergeStep] | None = None,
    progress: bool = False,
) -> list[tuple[bytes, bytes]]:
    """Learn up to ``num_merges`` merges from pretoken counts; fewer when no pair is left."""
    words, frequencies = words_and_frequencies(word_counts)
    tokens = TokenTable()
    keys = tokens.sort_keys

    # The linked list: one node per byte of every distinct word.
    token: list[int] = []
    prev: list[int] = []
    next_: list[int] = []
    node_word: list[int] = []  # the word each node belongs to (for its frequency, and the trace)
    occurrences: dict[Pair, list[int]] = defaultdict(list)
    counts: dict[Pair, int] = defaultdict(int)
    for word_id, (word, frequency) in enumerate(zip(words, frequencies)):
        start = len(token)
        for offset, byte in enumerate(word):
            node = start + offset
            token.append(byte)
            prev.append(node - 1 if offset else -1)
            next_.append(node + 1 if offset + 1 < len(word) else -1)
            node_word.append(word_id)
            if offset:
                pair = (word[offset - 1], byte)
                counts[pair] += frequency
                occurrences[pair].append(node - 1)

    heap = IndexedMinHeap()
    for pair, count in counts.items():
        heap.push(pair, pair_rank_key(count, keys[pair[0]], keys[pair[1]]))

    def add(pair: Pair, delta: int) -> None:
        count = counts.get(pair, 0) + delta
        if count > 0:
            counts[pair] = count
            priority = pair_rank_key(count, keys[pair[0]], keys[pair[1]])
            if pair in heap:
                heap.update(pair, priority)  # increase-key or decrease-key, in place
            else:
                heap.push(pair, priority)
        else:
            counts.pop(pair, None)
            if pair in heap:
                heap.remove(pair)

    merges: list[tuple[bytes, bytes]] = []
    with merge_progress(num_merges, progress, "linked_list") as bar:
        for rank in range(num_merges):
            if not heap:
                break
            pair, _ = heap.pop()
            count = counts.pop(pair)
            left, right = pair
            new_id = tokens.add_merge(left, right)
            touched_words = set()
            # Left to right within each word (node ids grow along a word): the rule's order.
            for node in sorted(occurrences.pop(pair)):
                follower = next_[node]
                if token[node] != left or follower == -1 or token[follower] != right:
                    continue  # stale: this node no longer starts (left, right)
                frequency = frequencies[node_word[node]]
                before, after = prev[node], next_[follower]
                if before != -1:
                    old = (token[before], left)
                    if old != pair:
                        add(old, -frequency)
                    created = (token[before], new_id)
                    add(created, frequency)
                    occurrences[created].append(before)
                if after != -1:
                    old = (right, token[after])
                    if old != pair:  # self-overlap: (a, a) followed by a
                        add(old, -frequency)
                    created = (new_id, token[after])
                    add(created, frequency)
                    occurrences[created].append(node)
                token[node] = new_id
                token[follower] = _UNLINKED
                next_[node] = after
                if after != -1:
                    prev[after] = node
                touched_words.add(node_word[node])
            merges.append(tokens.as_bytes(pair))
            if trace is not None:
                trace.append(MergeStep(rank, *tokens.as_bytes(pair), count, len(touched_words), len(heap), 0))
            bar.update()
    return merges

