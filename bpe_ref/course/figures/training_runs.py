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

from ...corpus import read_corpus
from ...data_files import TINYSTORIES_SAMPLE, data_file
from ...pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens
from ...train import train_on_counts
from ...train.common import MergeStep, TokenTable, count_pairs, words_and_frequencies
from ...train.step02_incremental import apply_merge_and_update_counts, contains_pair

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


def measure_merges(word_counts: Mapping[bytes, int], trace: Sequence[MergeStep]) -> list[MergeWork]:
    """Replay ``trace`` (from any trainer) on ``word_counts``, measuring each merge's work."""
    words, frequencies = words_and_frequencies(word_counts)
    tokens = TokenTable()
    pair_counts = count_pairs(words, frequencies)
    windows = sum(len(w) - 1 for w in words)
    word_tokens = sum(len(w) for w in words)
    corpus_tokens = sum(len(w) * f for w, f in zip(words, frequencies))
    measured: list[MergeWork] = []
    for step in trace:
        pair = tokens.best(pair_counts)
        if tokens.as_bytes(pair) != (step.left, step.right) or pair_counts[pair] != step.count:
            raise AssertionError(f"replay chose {tokens.as_bytes(pair)} where the trainer chose {step}")
        distinct_pairs = len(pair_counts)
        containing = [i for i, word in enumerate(words) if contains_pair(word, *pair)]
        old_lengths = [len(words[i]) for i in containing]
        new_id = tokens.add_merge(*pair)
        affected = apply_merge_and_update_counts(words, frequencies, pair_counts, containing, pair, new_id)
        if affected != step.affected_words:
            raise AssertionError(f"replay rewrote {affected} words where the trainer reported {step}")
        shrink = sum(old - len(words[i]) for i, old in zip(containing, old_lengths))
        updated = sum(old - 1 + len(words[i]) - 1 for i, old in zip(containing, old_lengths))
        measured.append(
            MergeWork(
                step.rank,
                step.left,
                step.right,
                step.count,
                affected,
                windows,
                distinct_pairs,
                updated,
                word_tokens,
                corpus_tokens,
            )
        )
        windows -= shrink
        word_tokens -= shrink
        corpus_tokens -= sum((old - len(words[i])) * frequencies[i] for i, old in zip(containing, old_lengths))
    return measured


@dataclass(frozen=True)
class TrainingRun:
    path: Path
    num_merges: int
    word_counts: dict[bytes, int]
    trace: list[MergeStep]
    work: list[MergeWork]

    @property
    def distinct_words(self) -> int:
        return len(self.word_counts)


@lru_cache(maxsize=4)
def training_run(path: Path = TINYSTORIES_SAMPLE, num_merges: int = DEFAULT_NUM_MERGES) -> TrainingRun:
    """Train ``num_merges`` merges on ``path`` (V2, special token ``<|endoftext|>``) and measure them."""
    text = read_corpus(data_file(Path(path)))
    word_counts = count_pretokens(text, DEFAULT_SPECIAL_TOKENS)
    trace: list[MergeStep] = []
    vocab_size = 256 + len(DEFAULT_SPECIAL_TOKENS) + num_merges
    train_on_counts(word_counts, vocab_size, DEFAULT_SPECIAL_TOKENS, method="incremental", trace=trace)
    return TrainingRun(Path(path), num_merges, word_counts, trace, measure_merges(word_counts, trace))
