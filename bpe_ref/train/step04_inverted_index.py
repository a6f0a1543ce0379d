"""V4, the inverted index: for every pair, the ids of the words that contain it.

V2 scans all W words on every merge to find the few that hold the merged pair. V4 keeps
``index[pair] = {word ids}``, so a merge visits only its own words: the work per merge becomes
proportional to the words it really changes, which shrink fast after the first merges.

The index is *append-only*: when a word stops holding a pair we leave its id in that pair's set
(removing it would cost a set operation per pair per changed word). Merging checks each listed
word and skips the ones that no longer hold the pair. The pair to merge is still found by a
linear scan of all pair counts, O(P) per merge: step 05 replaces that scan with a heap.
Theory: ``theory/04-inverted-index.md``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from .common import (
    MergeStep,
    Pair,
    TokenTable,
    Word,
    merge_progress,
    merge_word,
    remove_word_pairs,
    words_and_frequencies,
)


def build_counts_and_index(
    words: list[Word], frequencies: list[int]
) -> tuple[dict[Pair, int], dict[Pair, set[int]]]:
    """Pair counts (weighted by word frequency) and the inverted index pair -> word ids."""
    pair_counts: dict[Pair, int] = defaultdict(int)
    index: dict[Pair, set[int]] = defaultdict(set)
    for word_id, (word, frequency) in enumerate(zip(words, frequencies)):
        for pair in zip(word, word[1:]):
            pair_counts[pair] += frequency
            index[pair].add(word_id)
    return dict(pair_counts), index


def merge_indexed_words(
    words: list[Word],
    frequencies: list[int],
    pair_counts: dict[Pair, int],
    index: dict[Pair, set[int]],
    pair: Pair,
    new_id: int,
) -> tuple[int, set[Pair]]:
    """Merge ``pair`` into ``new_id`` in the words the index lists for it; update counts and index.

    Returns the number of words changed and the pairs that hold ``new_id`` (the only pairs whose
    count can have *grown*; every other pair can only have lost count). Counts that reach zero
    are deleted, so ``pair_counts`` holds exactly the pairs that still occur.
    """
    left, right = pair
    created: set[Pair] = set()
    affected = 0
    for word_id in index.pop(pair, ()):
        word = words[word_id]
        merged = merge_word(word, left, right, new_id)
        if len(merged) == len(word):
            continue  # a stale entry of the append-only index
        affected += 1
        words[word_id] = merged
        frequency = frequencies[word_id]
        remove_word_pairs(pair_counts, word, frequency)
        for position, token in enumerate(merged):
            if position:
                new_pair = (merged[position - 1], token)
                pair_counts[new_pair] = pair_counts.get(new_pair, 0) + frequency
                if token == new_id or new_pair[0] == new_id:
                    index[new_pair].add(word_id)
                    created.add(new_pair)
    return affected, created


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
    pair_counts, index = build_counts_and_index(words, frequencies)
    merges: list[tuple[bytes, bytes]] = []
    with merge_progress(num_merges, progress, "inverted_index") as bar:
        for rank in range(num_merges):
            if not pair_counts:
                break
            pair = tokens.best(pair_counts)  # O(P): the scan step 05 removes
            count = pair_counts[pair]
            new_id = tokens.add_merge(*pair)
            affected, _ = merge_indexed_words(words, frequencies, pair_counts, index, pair, new_id)
            merges.append(tokens.as_bytes(pair))
            if trace is not None:
                trace.append(MergeStep(rank, *tokens.as_bytes(pair), count, affected))
            bar.update()
    return merges
