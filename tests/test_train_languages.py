"""Held-out corpora in other languages: the fast trainers agree merge for merge.

The generated corpora of test_train_equivalence.py are small; these are real text where words are
long (Chinese: a pretoken is a whole run of 3-byte characters) or letters take two bytes
(Russian). Each test trains on the head of a shipped corpus and compares every trainer whose cost
allows it with V5, and V5 with the independent recount of test_train_equivalence.py on a
smaller head.
"""

from __future__ import annotations

import pytest

from bpe_ref.data_files import CHINESE_NOVEL, RUSSIAN_STORIES, SPANISH_NOVEL
from bpe_ref.pretokenize import count_pretokens
from bpe_ref.train import train_on_counts

from test_train_equivalence import reference_training

LANGUAGES = {"chinese": CHINESE_NOVEL, "spanish": SPANISH_NOVEL, "russian": RUSSIAN_STORIES}


def head(path, size: int) -> str:
    """The first ``size`` bytes of a UTF-8 file, less a character cut in half at the end."""
    return path.read_bytes()[:size].decode("utf-8", errors="ignore")


@pytest.mark.parametrize("language", LANGUAGES)
def test_fast_trainers_agree_on_other_languages(language: str) -> None:
    counts = count_pretokens(head(LANGUAGES[language], 400_000), ["<|endoftext|>"])
    vocab_size = 256 + 1 + 1500
    _, expected = train_on_counts(counts, vocab_size, method="heap")
    assert len(expected) == 1500
    for method, options in [("linked_list", {"heap": "lazy"}), ("linked_list", {"heap": "indexed"}),
                            ("heap", {"compaction_threshold": None})]:
        _, got = train_on_counts(counts, vocab_size, method=method, **options)
        first_difference = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), None)
        assert got == expected, f"{method} {options}: first differs at merge #{first_difference}"
    # V4 scans every pair per merge: fewer merges.
    _, inverted_index = train_on_counts(counts, 256 + 1 + 200, method="inverted_index")
    assert inverted_index == expected[:200]


@pytest.mark.parametrize("language", LANGUAGES)
def test_v5_agrees_with_a_recount_from_scratch_on_other_languages(language: str) -> None:
    counts = count_pretokens(head(LANGUAGES[language], 30_000), ["<|endoftext|>"])
    merges, _, _ = reference_training(counts, 150)
    assert train_on_counts(counts, 256 + 1 + 150, method="linked_list")[1] == merges
