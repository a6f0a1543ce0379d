"""V4, the inverted index: for every pair, the ids (list positions) of the words that contain it.

V2 scans all W words on every merge to find the few that hold the merged pair. V4 keeps
``index[pair] = {word ids}``, so a merge visits only its own words (:func:`merge_indexed_words`,
which step 05 calls too): the work per merge becomes
proportional to the words it really changes, which shrink fast after the first merges. Everything
else is V2's: the same words, counts and :func:`~bpe_ref.train.step02_incremental.merge_and_update`.

The index is *append-only*: when a word stops holding a pair we leave its id in that pair's set
(removing it would cost a set operation per pair per changed word). Such a *stale* id costs one
``merge_and_update`` that changes nothing. A rewritten word can only *gain* pairs that hold the
new token, so only those are added. The pair to merge is still found by a linear scan of all
pair counts, O(P) per merge: step 05 replaces that scan with a heap.
Theory: ``theory/04-inverted-index.md``.

>>> train({b"low": 5, b"lower": 2, b"newest": 6, b"widest": 3}, 3)
[(b's', b't'), (b'e', b'st'), (b'o', b'w')]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence

from .common import Pair, Word
from .driver import MergeStep, run_merges
from .step01_naive import best_pair, count_pairs, split_into_bytes
from .step02_incremental import merge_and_update

__all__ = ["index_words", "merge_indexed_words", "merge_steps", "pairs_with", "train"]


def index_words(words: Sequence[Word]) -> defaultdict[Pair, set[int]]:
    """The inverted index: each pair -> the positions in ``words`` of the words holding it.

    >>> dict(index_words([(b"a", b"b"), (b"b", b"a", b"b")]))
    {(b'a', b'b'): {0, 1}, (b'b', b'a'): {1}}
    """
    index: defaultdict[Pair, set[int]] = defaultdict(set)
    for i, word in enumerate(words):
        for pair in zip(word, word[1:]):
            index[pair].add(i)
    return index


def pairs_with(word: Word, token: bytes) -> list[Pair]:
    """The pairs of ``word`` that hold ``token``: after a merge, the only pairs a word can gain.

    >>> pairs_with((b"x", b"ab", b"ab"), b"ab")
    [(b'x', b'ab'), (b'ab', b'ab')]
    """
    return [pair for pair in zip(word, word[1:]) if token in pair]


def merge_indexed_words(pair: Pair, words: list[Word], frequencies: list[int], index: defaultdict[Pair, set[int]],
                        pair_counts: dict[Pair, int]) -> tuple[list[int], dict[Pair, None]]:
    """Merge ``pair`` in the words that ``index`` lists for it: V4's loop over words, one merge.

    Takes the pair's ids out of ``index``, rewrites each word with :func:`merge_and_update`
    (``words`` and ``pair_counts`` change in place; a stale id leaves its word as it is), and
    lists the id of each rewritten word under the pairs it gains (:func:`pairs_with`). Returns
    the ids of the rewritten words and the pairs they gained, in the order found (step 05's heap
    needs those: only they can have grown).

    >>> words, frequencies = [(b"a", b"b", b"c"), (b"x", b"y")], [2, 1]
    >>> index, pair_counts = index_words(words), {(b"a", b"b"): 2, (b"b", b"c"): 2, (b"x", b"y"): 1}
    >>> merge_indexed_words((b"a", b"b"), words, frequencies, index, pair_counts)
    ([0], {(b'ab', b'c'): None})
    >>> words[0], pair_counts
    ((b'ab', b'c'), {(b'x', b'y'): 1, (b'ab', b'c'): 2})
    """
    token = pair[0] + pair[1]
    rewritten: list[int] = []
    gained: dict[Pair, None] = {}  # a dict, not a set: the order found, the same on every run
    for i in index.pop(pair):  # the words that hold the pair, and stale ids of some that no longer do
        word = words[i]
        words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)
        if len(words[i]) < len(word):
            rewritten.append(i)
            for new_pair in pairs_with(words[i], token):
                index[new_pair].add(i)
                gained[new_pair] = None
    return rewritten, gained


def merge_steps(pretoken_counts: Mapping[bytes, int]) -> Iterator[MergeStep]:
    """V4's merges, one per iteration, until no pair is left (:func:`train` decides how many)."""
    word_counts = {split_into_bytes(pretoken): frequency for pretoken, frequency in pretoken_counts.items()}
    pair_counts = count_pairs(word_counts)  # once, before the loop
    words, frequencies = list(word_counts), list(word_counts.values())  # lists: replace a word in place
    index = index_words(words)  # pair -> ids of the words that hold it
    while pair_counts:
        pair = best_pair(pair_counts)  # a scan of all P pair counts
        count = pair_counts[pair]
        rewritten, _ = merge_indexed_words(pair, words, frequencies, index, pair_counts)  # no word scan
        yield MergeStep(pair=pair, count=count, affected_words=len(rewritten))


def train(pretoken_counts: Mapping[bytes, int], num_merges: int) -> list[Pair]:
    """Learn up to ``num_merges`` merges from pretoken counts; fewer when no pair is left."""
    return run_merges(merge_steps(pretoken_counts), num_merges)
