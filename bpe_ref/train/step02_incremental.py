"""V2, incremental pair counts: count every pair once, then after each merge update only the
counts of the words that contained the merged pair.

Merging (A, B) changes only pairs inside words that hold A B: for each such word, subtract its
old pairs and add its new ones (weighted by the word's frequency). Finding those words still
scans all of them, and choosing the best pair still scans all pair counts, so the complexity
class stays O(m * (W * L + P)); the constant falls because most words are only looked at, not
recounted. Theory: ``theory/02-incremental-updates.md``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .common import (
    MergeStep,
    TokenTable,
    count_pairs,
    merge_progress,
    merge_word,
    remove_word_pairs,
    words_and_frequencies,
)


def contains_pair(word: tuple[int, ...], left: int, right: int) -> bool:
    """Whether ``left`` is directly followed by ``right`` somewhere in ``word``."""
    start = 0
    while True:
        try:
            i = word.index(left, start)
        except ValueError:
            return False
        if i + 1 < len(word) and word[i + 1] == right:
            return True
        start = i + 1


def apply_merge_and_update_counts(
    words: list[tuple[int, ...]],
    frequencies: list[int],
    pair_counts: dict[tuple[int, int], int],
    word_ids,
    pair: tuple[int, int],
    new_id: int,
) -> int:
    """Merge ``pair`` in the words ``word_ids`` and update ``pair_counts`` in place.

    Returns how many words changed. Shared by V2 and V3 (same loop, different pretokenization).
    """
    left, right = pair
    affected = 0
    for i in word_ids:
        word = words[i]
        merged = merge_word(word, left, right, new_id)
        if len(merged) == len(word):
            continue
        frequency = frequencies[i]
        remove_word_pairs(pair_counts, word, frequency)
        for new in zip(merged, merged[1:]):
            pair_counts[new] = pair_counts.get(new, 0) + frequency
        words[i] = merged
        affected += 1
    return affected


def train(
    word_counts: Mapping[bytes, int],
    num_merges: int,
    *,
    trace: list[MergeStep] | None = None,
    progress: bool = False,
    method_name: str = "incremental",
) -> list[tuple[bytes, bytes]]:
    """Learn up to ``num_merges`` merges from pretoken counts; fewer when no pair is left."""
    words, frequencies = words_and_frequencies(word_counts)
    tokens = TokenTable()
    pair_counts = count_pairs(words, frequencies)  # once
    merges: list[tuple[bytes, bytes]] = []
    with merge_progress(num_merges, progress, method_name) as bar:
        for rank in range(num_merges):
            if not pair_counts:
                break
            pair = tokens.best(pair_counts)
            count = pair_counts[pair]
            new_id = tokens.add_merge(*pair)
            containing = [i for i, word in enumerate(words) if contains_pair(word, *pair)]
            affected = apply_merge_and_update_counts(words, frequencies, pair_counts, containing, pair, new_id)
            merges.append(tokens.as_bytes(pair))
            if trace is not None:
                trace.append(MergeStep(rank, *tokens.as_bytes(pair), count, affected))
            bar.update()
    return merges
