"""V1, the Sennrich loop: recount every pair and rewrite every word, once per merge.

Cost: O(m * W * L) for m merges over W distinct words of length L. Simple, obviously right, and
the yardstick every faster trainer is tested against. Theory: ``theory/01-naive-bpe.md``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .common import MergeStep, TokenTable, count_pairs, merge_progress, merge_word, words_and_frequencies


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
    merges: list[tuple[bytes, bytes]] = []
    with merge_progress(num_merges, progress, "naive") as bar:
        for rank in range(num_merges):
            pair_counts = count_pairs(words, frequencies)  # from scratch, every time
            if not pair_counts:
                break
            pair = tokens.best(pair_counts)
            new_id = tokens.add_merge(*pair)
            affected = 0
            for i, word in enumerate(words):
                merged = merge_word(word, pair[0], pair[1], new_id)
                if len(merged) != len(word):
                    words[i] = merged
                    affected += 1
            merges.append(tokens.as_bytes(pair))
            if trace is not None:
                trace.append(MergeStep(rank, *tokens.as_bytes(pair), pair_counts[pair], affected))
            bar.update()
    return merges
