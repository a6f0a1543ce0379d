"""V2, incremental pair counts: count every pair once, then after each merge update only the
counts of the words that contained the merged pair.

The functions are lab 02's tasks, with the lab's names and signatures; words, pairs and the
helpers are V1's (:mod:`bpe_ref.train.step01_naive`). Merging (A, B) changes only pairs inside
words that hold A B: for each such word, subtract its old pairs and add its new ones (weighted by
the word's frequency). Finding those words still scans all W words (two ``in`` tests per word,
run in C), and choosing the best pair still scans all P pair counts, so the complexity class stays
O(m * (W * L + P)). What falls is the Python-level work: most words are only tested, not recounted
or rewritten. On the course's runs V2 is about five times faster than V1, and the two scans take
most of its time (page 02, section 5, has the profile).
Theory: ``theory/02-incremental-updates.md``.

>>> train({b"low": 5, b"lower": 2, b"newest": 6, b"widest": 3}, 3)
[(b's', b't'), (b'e', b'st'), (b'o', b'w')]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .common import Pair, Word
from .driver import MergeStep, run_merges
from .step01_naive import best_pair, count_pairs, merge_word, split_into_bytes

__all__ = ["add_windows", "merge_and_update", "merge_steps", "pair_count_changes", "train"]


def pair_count_changes(word: Word, pair: Pair, frequency: int) -> dict[Pair, int]:
    """How the pair counts change when ``pair`` merges in ``word`` (which occurs ``frequency``
    times): the merged word's pairs minus the word's pairs, nonzero changes only.

    They are what :func:`merge_and_update` does to counts that start at zero.

    >>> pair_count_changes((b"a", b"a", b"a", b"a"), (b"a", b"a"), 2)
    {(b'a', b'a'): -6, (b'aa', b'aa'): 2}
    """
    changes: dict[Pair, int] = {}
    merged = merge_word(word, pair)
    if len(merged) < len(word):  # else the word does not hold the pair: nothing changes
        add_windows(changes, word, -frequency)
        add_windows(changes, merged, frequency)
    return changes


def merge_and_update(word: Word, pair: Pair, frequency: int, pair_counts: dict[Pair, int]) -> Word:
    """Merge ``pair`` in ``word`` and return the merged word; update ``pair_counts`` in place by
    the word's :func:`pair_count_changes`, deleting the counts that reach 0 (so that
    ``pair_counts`` holds exactly the pairs that occur).

    This is page 02's update rule, per word and not per occurrence, so that runs such as
    ``a a a a`` come out right: subtract ``frequency`` for every window of the word, add it for
    every window of the merged word. Windows far from the pair are taken away and put back: a
    little wasted work for a rule with no special case. (A count may touch 0 and come back within
    one call; only the end result counts.)

    >>> pair_counts = {(b"a", b"b"): 5, (b"b", b"c"): 2, (b"c", b"a"): 1}
    >>> merge_and_update((b"a", b"b", b"c"), (b"a", b"b"), 2, pair_counts)
    (b'ab', b'c')
    >>> pair_counts
    {(b'a', b'b'): 3, (b'c', b'a'): 1, (b'ab', b'c'): 2}
    """
    merged = merge_word(word, pair)
    if len(merged) < len(word):  # else the word does not hold the pair: nothing changes
        add_windows(pair_counts, word, -frequency)
        add_windows(pair_counts, merged, frequency)
    return merged


def add_windows(pair_counts: dict[Pair, int], word: Word, amount: int) -> None:
    """Add ``amount`` to the count of every window of ``word``; delete the counts that reach 0."""
    for window in zip(word, word[1:]):
        count = pair_counts.get(window, 0) + amount
        if count:
            pair_counts[window] = count
        else:
            del pair_counts[window]


def merge_steps(pretoken_counts: Mapping[bytes, int]) -> Iterator[MergeStep]:
    """V2's merges, one per iteration, until no pair is left (:func:`train` decides how many)."""
    word_counts = {split_into_bytes(pretoken): frequency for pretoken, frequency in pretoken_counts.items()}
    pair_counts = count_pairs(word_counts)  # once, before the loop
    words, frequencies = list(word_counts), list(word_counts.values())  # lists: replace a word in place
    while pair_counts:
        pair = best_pair(pair_counts)  # a scan of all P pair counts
        count = pair_counts[pair]
        left, right = pair
        rewritten = 0
        for i, word in enumerate(words):
            if left not in word or right not in word:
                continue  # a cheap test in C skips most words
            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)
            if len(words[i]) < len(word):
                rewritten += 1
        yield MergeStep(pair=pair, count=count, affected_words=rewritten)


def train(pretoken_counts: Mapping[bytes, int], num_merges: int) -> list[Pair]:
    """Learn up to ``num_merges`` merges from pretoken counts; fewer when no pair is left."""
    return run_merges(merge_steps(pretoken_counts), num_merges)
