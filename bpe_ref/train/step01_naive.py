"""V1, the Sennrich loop: recount every pair and rewrite every word, once per merge.

The functions are lab 01's tasks, with the lab's names and signatures. Tokens are ``bytes`` and a
word is a tuple of them (:mod:`bpe_ref.train.common`). Cost: O(m * W * L) for m merges over W
distinct words of length L. Simple, obviously right, and the yardstick every faster trainer is
tested against. Theory: ``theory/01-naive-bpe.md``.

>>> train({b"low": 5, b"lower": 2, b"newest": 6, b"widest": 3}, 3)
[(b's', b't'), (b'e', b'st'), (b'o', b'w')]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping

from ..tiebreak import best_pair  # the tie-break rule lives in one place; lab 01's task 2
from .common import Pair, Word
from .driver import MergeStep, run_merges

__all__ = ["best_pair", "count_pairs", "merge_steps", "merge_word", "split_into_bytes", "train"]


def split_into_bytes(pretoken: bytes) -> Word:
    """A pretoken as a word of one-byte tokens.

    >>> split_into_bytes(b"low")
    (b'l', b'o', b'w')
    """
    return tuple([_ONE_BYTE[byte] for byte in pretoken])


_ONE_BYTE = [bytes([byte]) for byte in range(256)]  # made once: splitting is then a lookup per byte


def count_pairs(word_counts: Mapping[Word, int]) -> dict[Pair, int]:
    """How often each adjacent pair occurs: every window counts, weighted by the word's frequency.

    >>> count_pairs({(b"a", b"a", b"a"): 2})  # two windows, twice each
    {(b'a', b'a'): 4}
    """
    counts: dict[Pair, int] = defaultdict(int)
    for word, frequency in word_counts.items():
        for pair in zip(word, word[1:]):
            counts[pair] += frequency
    return dict(counts)


def merge_word(word: Word, pair: Pair) -> Word:
    """``word`` with each ``pair`` replaced by one token: one pass left to right, no overlaps.

    >>> merge_word((b"a", b"a", b"a"), (b"a", b"a"))  # "aaa" -> ["aa", "a"]
    (b'aa', b'a')
    """
    left, right = pair
    if left not in word:
        return word  # a quick test in C; trainers often ask about words that cannot change
    token = left + right
    merged: list[bytes] = []
    i = 0
    last = len(word) - 1
    while i <= last:
        if i < last and word[i] == left and word[i + 1] == right:
            merged.append(token)
            i += 2
        else:
            merged.append(word[i])
            i += 1
    return tuple(merged)


def merge_steps(pretoken_counts: Mapping[bytes, int]) -> Iterator[MergeStep]:
    """V1's merges, one per iteration, until no pair is left (:func:`train` decides how many)."""
    word_counts = {split_into_bytes(pretoken): frequency for pretoken, frequency in pretoken_counts.items()}
    while True:
        pair_counts = count_pairs(word_counts)  # from scratch, on every merge
        if not pair_counts:
            return  # every word is a single token
        pair = best_pair(pair_counts)  # a scan of all P pair counts
        count = pair_counts[pair]
        merged = {merge_word(word, pair): frequency for word, frequency in word_counts.items()}
        rewritten = len(word_counts.keys() - merged.keys())  # a word that changed has a new key
        word_counts = merged
        yield MergeStep(pair=pair, count=count, affected_words=rewritten)


def train(pretoken_counts: Mapping[bytes, int], num_merges: int) -> list[Pair]:
    """Learn up to ``num_merges`` merges from pretoken counts; fewer when no pair is left."""
    return run_merges(merge_steps(pretoken_counts), num_merges)
