"""Held-out corpora in other languages: the fast trainers agree merge for merge.

The generated corpora of test_train_equivalence.py are small; these are real text where words are
long (Chinese: a pretoken is a whole run of 3-byte characters) or letters take two bytes
(Russian). Each test trains on the head of a shipped corpus and compares every trainer whose cost
allows it with V5, and V5 with the independent recount of test_train_equivalence.py on a
smaller head. The default run trains on heads that still give hundreds of merges of multi-byte
characters and of tied counts (checked below); ``BPE_EXHAUSTIVE=1`` trains on the larger heads.
"""

from __future__ import annotations

import pytest

from bpe_ref.data_files import CHINESE_NOVEL, RUSSIAN_STORIES, SPANISH_NOVEL
from bpe_ref.pretokenize import count_pretokens
from bpe_ref.train import train_on_counts

from sampling import EXHAUSTIVE
from test_train_equivalence import reference_training

LANGUAGES = {"chinese": CHINESE_NOVEL, "spanish": SPANISH_NOVEL, "russian": RUSSIAN_STORIES}
# (head in bytes, merges, merges of V4, which scans every pair per merge) for the fast trainers, and
# (head in bytes, merges) for the recount from scratch.
FAST = (400_000, 1500, 200) if EXHAUSTIVE else (100_000, 800, 120)
RECOUNT = (30_000, 150) if EXHAUSTIVE else (12_000, 100)


def head(path, size: int) -> str:
    """The first ``size`` bytes of a UTF-8 file, less a character cut in half at the end."""
    return path.read_bytes()[:size].decode("utf-8", errors="ignore")


@pytest.mark.parametrize("language", LANGUAGES)
def test_fast_trainers_agree_on_other_languages(language: str) -> None:
    size, num_merges, v4_merges = FAST
    counts = count_pretokens(head(LANGUAGES[language], size), ["<|endoftext|>"])
    vocab_size = 256 + 1 + num_merges
    trace: list = []
    _, expected = train_on_counts(counts, vocab_size, method="heap", trace=trace)
    assert len(expected) == num_merges
    # The head is still what the test is about: merges of the bytes of multi-byte characters (about
    # a tenth of Spanish's, nearly all of the others'), and many merges whose count equals the one
    # before (pairs of equal counts: the tie-break orders them).
    assert sum(max(left + right) >= 0x80 for left, right in expected) >= 50
    assert sum(a.count == b.count for a, b in zip(trace, trace[1:])) >= num_merges // 2
    for method, options in [("linked_list", {"heap": "lazy"}), ("linked_list", {"heap": "indexed"}),
                            ("heap", {"compaction_threshold": None})]:
        _, got = train_on_counts(counts, vocab_size, method=method, **options)
        first_difference = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), None)
        assert got == expected, f"{method} {options}: first differs at merge #{first_difference}"
    _, inverted_index = train_on_counts(counts, 256 + 1 + v4_merges, method="inverted_index")
    assert inverted_index == expected[:v4_merges]


@pytest.mark.parametrize("language", LANGUAGES)
def test_v5_agrees_with_a_recount_from_scratch_on_other_languages(language: str) -> None:
    size, num_merges = RECOUNT
    counts = count_pretokens(head(LANGUAGES[language], size), ["<|endoftext|>"])
    merges, _, _ = reference_training(counts, num_merges)
    assert len(merges) == num_merges
    assert train_on_counts(counts, 256 + 1 + num_merges, method="linked_list")[1] == merges
