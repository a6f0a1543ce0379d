"""V5, a max-heap with lazy deletion and compaction, on top of V4's inverted index.

V4 still scans all P pair counts to find the best pair. V5 keeps the pairs in a heap ordered by
:func:`bpe_ref.tiebreak.pair_rank_key`, so the best pair is at the top. Counts change after every
merge, and a binary heap cannot cheaply find an entry to update, so we never update in place:

- when a pair's count *grows* (only pairs holding the new token can), push a fresh entry;
- when it *shrinks*, do nothing: its old entry now claims too high a count;
- on pop, compare the entry's count with the true one. Equal: it is the best pair. Otherwise the
  entry is *stale*: drop it, and if the pair still occurs with a smaller count, push it again
  with that count (it may still be among the best).

Stale entries pile up, so when the heap holds more than ``compaction_threshold`` times as many
entries as there are live pairs, it is rebuilt from the counts (O(P) with ``heapify``), which
bounds memory. Theory: ``theory/05-heap.md``.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

from ..tiebreak import pair_rank_key
from .common import MergeStep, TokenTable, merge_progress, words_and_frequencies
from .step04_inverted_index import build_counts_and_index, merge_indexed_words

DEFAULT_COMPACTION_THRESHOLD = 2.0
_MIN_HEAP_TO_COMPACT = 1024  # rebuilding a tiny heap costs more than it saves


def train(
    word_counts: Mapping[bytes, int],
    num_merges: int,
    *,
    trace: list[MergeStep] | None = None,
    progress: bool = False,
    compaction_threshold: float | None = DEFAULT_COMPACTION_THRESHOLD,
) -> list[tuple[bytes, bytes]]:
    """Learn up to ``num_merges`` merges from pretoken counts; fewer when no pair is left.

    ``compaction_threshold=None`` disables compaction (to measure what it saves).
    """
    if compaction_threshold is not None and compaction_threshold <= 1:
        raise ValueError(f"compaction_threshold must be greater than 1 (or None), got {compaction_threshold}")
    words, frequencies = words_and_frequencies(word_counts)
    tokens = TokenTable()
    keys = tokens.sort_keys
    pair_counts, index = build_counts_and_index(words, frequencies)

    # Entry: (pair_rank_key..., pair). Smallest first = highest count, then the tie-break.
    def entry(pair, count):
        return (*pair_rank_key(count, keys[pair[0]], keys[pair[1]]), pair)

    heap = [entry(pair, count) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    heappop, heappush = heapq.heappop, heapq.heappush

    merges: list[tuple[bytes, bytes]] = []
    with merge_progress(num_merges, progress, "heap") as bar:
        for rank in range(num_merges):
            stale_pops = 0
            while heap:
                negative_count, left_key, right_key, pair = heappop(heap)
                count = pair_counts.get(pair, 0)
                if count == -negative_count:
                    break
                stale_pops += 1
                if 0 < count < -negative_count:  # the pair lost count since this entry was pushed
                    heappush(heap, (-count, left_key, right_key, pair))
            else:
                break  # heap empty: no pair occurs any more
            new_id = tokens.add_merge(*pair)
            affected, created = merge_indexed_words(words, frequencies, pair_counts, index, pair, new_id)
            for new_pair in created:
                if new_pair in pair_counts:
                    heappush(heap, entry(new_pair, pair_counts[new_pair]))
            if (
                compaction_threshold is not None
                and len(heap) > _MIN_HEAP_TO_COMPACT
                and len(heap) > compaction_threshold * len(pair_counts)
            ):
                heap = [entry(p, c) for p, c in pair_counts.items()]
                heapq.heapify(heap)
            merges.append(tokens.as_bytes(pair))
            if trace is not None:
                trace.append(MergeStep(rank, *tokens.as_bytes(pair), count, affected, len(heap), stale_pops))
            bar.update()
    return merges
