"""Lab 02's ``merge_and_update`` as page 02's update rule states it, with no shortcut: the stand-in of
task 3's measured runs (:func:`bpe_ref.course.checks.lab02_incremental.verify_incremental_updates`).

The reference (:func:`bpe_ref.train.step02_incremental.merge_and_update`) gives a word that does not hold
the pair back at once. The rule itself subtracts every window of the word and adds every window of the
merged word: on such a word, a change of nothing, at the cost of a pass over its windows. So while
task 3's time is measured, a call of ``merge_and_update`` costs what the rule costs, and a trainer that
calls it on every word (without the test that skips the words that cannot hold the pair) pays a pass over
all the words' windows per merge, where one that tests first pays a call per changed word. The answers
are the reference's: the counts come out the same, so do the merges.
"""

from __future__ import annotations

from ...train.common import Pair, Word
from ...train.step01_naive import merge_word
from ...train.step02_incremental import add_windows


def merge_and_update(word: Word, pair: Pair, frequency: int, pair_counts: dict[Pair, int]) -> Word:
    """Merge ``pair`` in ``word`` and return the merged word; take every window of ``word`` out of
    ``pair_counts`` and put every window of the merged word in (a word without the pair: the same counts)."""
    merged = merge_word(word, pair)
    add_windows(pair_counts, word, -frequency)
    add_windows(pair_counts, merged, frequency)
    return merged
