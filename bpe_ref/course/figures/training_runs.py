"""One training run on the shipped TinyStories sample, measured merge by merge (pages 01 and 02).

:func:`measure_merges` replays a trainer's merges with V2's bookkeeping and records, before each
merge, what the naive loop (V1) and the incremental loop (V2) would have to touch. It re-chooses
every pair with the course tie-break and checks that the choice, its count and the number of
words it rewrites agree with the trainer's own trace, so the figures can never drift from the
trainers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...data_files import TINYSTORIES_SAMPLE
from ...pretokenize import DEFAULT_SPECIAL_TOKENS
from ...train import MergeStep, train_on_counts
from ...train.step01_naive import best_pair, count_pairs
from ...train.step02_incremental import merge_and_update
from .common import as_words, corpus_counts

DEFAULT_NUM_MERGES = 1000


@dataclass(frozen=True, slots=True)
class MergeWork:
    """What one merge costs, counted before the merge is applied.

    ``windows``: adjacent-pair windows in all distinct words (what V1 recounts, and about what it
    rewrites); ``distinct_pairs``: P, the pairs with a nonzero count (what both V1 and V2 scan to
    find the best); ``affected_words``: distinct words holding the pair (what V2 rewrites);
    ``updated_windows``: windows V2 subtracts and adds back in those words.
    """

    rank: int
    left: bytes
    right: bytes
    count: int
    affected_words: int
    windows: int
    distinct_pairs: int
    updated_windows: int
    word_tokens: int
    corpus_tokens: int


def measure_merges(pretoken_counts: Mapping[bytes, int], trace: Sequence[MergeStep]) -> list[MergeWork]:
    """Replay ``trace`` (from any trainer) on ``pretoken_counts``, measuring each merge's work."""
    word_counts = as_words(pretoken_counts)
    pair_counts = count_pairs(word_counts)
    words, frequencies = list(word_counts), list(word_counts.values())
    windows = sum(max(len(w) - 1, 0) for w in words)
    word_tokens = sum(len(w) for w in words)
    corpus_tokens = sum(len(w) * f for w, f in zip(words, frequencies))
    measured: list[MergeWork] = []
    for rank, step in enumerate(trace):
        pair = best_pair(pair_counts)
        if pair != step.pair or pair_counts[pair] != step.count:
            raise AssertionError(f"replay chose {pair} where the trainer chose {step}")
        distinct_pairs = len(pair_counts)
        old_words = {i: word for i, word in enumerate(words) if pair[0] in word and pair[1] in word}
        for i, word in old_words.items():
            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)
        changed = [i for i, word in old_words.items() if len(words[i]) < len(word)]
        if len(changed) != step.affected_words:
            raise AssertionError(f"replay rewrote {len(changed)} words where the trainer reported {step}")
        shrink = sum(len(old_words[i]) - len(words[i]) for i in changed)
        updated = sum(len(old_words[i]) - 1 + len(words[i]) - 1 for i in changed)
        measured.append(MergeWork(rank, pair[0], pair[1], step.count, len(changed), windows, distinct_pairs, updated,
                                  word_tokens, corpus_tokens))
        windows -= shrink
        word_tokens -= shrink
        corpus_tokens -= sum((len(old_words[i]) - len(words[i])) * frequencies[i] for i in changed)
    return measured


@dataclass(frozen=True)
class TrainingRun:
    path: Path
    num_merges: int
    pretoken_counts: dict[bytes, int]
    trace: list[MergeStep]
    work: list[MergeWork]

    @property
    def distinct_words(self) -> int:
        return len(self.pretoken_counts)


@lru_cache(maxsize=4)
def training_run(path: Path = TINYSTORIES_SAMPLE, num_merges: int = DEFAULT_NUM_MERGES) -> TrainingRun:
    """Train ``num_merges`` merges on ``path`` (V2, special token ``<|endoftext|>``) and measure them."""
    pretoken_counts = corpus_counts(Path(path))
    trace: list[MergeStep] = []
    vocab_size = 256 + len(DEFAULT_SPECIAL_TOKENS) + num_merges
    train_on_counts(pretoken_counts, vocab_size, DEFAULT_SPECIAL_TOKENS, method="incremental", trace=trace)
    return TrainingRun(Path(path), num_merges, pretoken_counts, trace, measure_merges(pretoken_counts, trace))
