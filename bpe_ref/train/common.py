"""Mechanics every trainer shares: the token table, words as id tuples, one merge applied to a
word, pair counting, the trace record and the progress bar.

A trainer's input is the pretoken counts (``{b" the": 1200, ...}``); each pretoken becomes a
*word*, a tuple of token ids that starts as its bytes (id = byte value) and shrinks as merges are
applied. Inside a trainer, merge number ``k`` creates token id ``256 + k``; special tokens never
reach the trainers (they were cut out of the text), and get their ids when the vocabulary is built.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tqdm.auto import tqdm

from ..tiebreak import best_pair, pair_rank_key, token_sort_key

Pair = tuple[int, int]
Word = tuple[int, ...]


@dataclass(slots=True)
class MergeStep:
    """One row of a training trace: what one merge did.

    ``affected_words`` counts the distinct words (pretoken types) the merge rewrote;
    ``heap_size`` and ``stale_pops`` are filled in by the trainers that keep a heap.
    """

    rank: int
    left: bytes
    right: bytes
    count: int
    affected_words: int
    heap_size: int | None = None
    stale_pops: int | None = None


class TokenTable:
    """The bytes of every token id, and each token's tie-break key, growing by one per merge."""

    def __init__(self) -> None:
        self.token_bytes: list[bytes] = [bytes([b]) for b in range(256)]
        self.sort_keys: list[str] = [token_sort_key(t) for t in self.token_bytes]

    def add_merge(self, left: int, right: int) -> int:
        """Create the token ``left + right``; return its id."""
        merged = self.token_bytes[left] + self.token_bytes[right]
        self.token_bytes.append(merged)
        self.sort_keys.append(token_sort_key(merged))
        return len(self.token_bytes) - 1

    def rank_key(self, count: int, pair: Pair) -> tuple[int, str, str]:
        """:func:`~bpe_ref.tiebreak.pair_rank_key` of ``pair`` with ``count``: smallest merges first."""
        return pair_rank_key(count, self.sort_keys[pair[0]], self.sort_keys[pair[1]])

    def best(self, pair_counts: Mapping[Pair, int]) -> Pair:
        """The pair to merge next, by a linear scan of ``pair_counts``."""
        return best_pair(pair_counts, self.sort_keys)

    def as_bytes(self, pair: Pair) -> tuple[bytes, bytes]:
        return self.token_bytes[pair[0]], self.token_bytes[pair[1]]


def words_and_frequencies(word_counts: Mapping[bytes, int]) -> tuple[list[Word], list[int]]:
    """Each pretoken as a tuple of byte ids, and how often it occurs (empty pretokens dropped)."""
    words: list[Word] = []
    frequencies: list[int] = []
    for pretoken, count in word_counts.items():
        if pretoken and count > 0:
            words.append(tuple(pretoken))
            frequencies.append(count)
    return words, frequencies


def merge_word(word: Word, left: int, right: int, new_id: int) -> Word:
    """Replace each ``(left, right)`` in ``word`` by ``new_id``: one left-to-right pass, no overlaps.

    >>> merge_word((97, 97, 97), 97, 97, 256)   # "aaa" -> ["aa", "a"]
    (256, 97)
    """
    merged: list[int] = []
    i = 0
    last = len(word) - 1
    while i <= last:
        if i < last and word[i] == left and word[i + 1] == right:
            merged.append(new_id)
            i += 2
        else:
            merged.append(word[i])
            i += 1
    return tuple(merged)


def count_pairs(words: Sequence[Word], frequencies: Sequence[int]) -> dict[Pair, int]:
    """Every adjacent pair's count, weighted by word frequency (``aaa`` holds ``(a, a)`` twice)."""
    counts: dict[Pair, int] = defaultdict(int)
    for word, frequency in zip(words, frequencies):
        for pair in zip(word, word[1:]):
            counts[pair] += frequency
    return dict(counts)


def remove_word_pairs(pair_counts: dict[Pair, int], word: Word, frequency: int) -> None:
    """Take a word's pairs (weighted by ``frequency``) out of ``pair_counts``, deleting the counts
    that reach zero, so ``pair_counts`` keeps holding exactly the pairs that occur."""
    for pair in zip(word, word[1:]):
        remaining = pair_counts[pair] - frequency
        if remaining:
            pair_counts[pair] = remaining
        else:
            del pair_counts[pair]


def merge_progress(num_merges: int, enabled: bool, method: str):
    """A tqdm bar over the merges (a no-op object when ``enabled`` is false)."""
    return tqdm(total=num_merges, desc=f"merges ({method})", unit="merge", disable=not enabled, leave=False)
