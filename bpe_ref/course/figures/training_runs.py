"""One training run on the shipped TinyStories sample, measured merge by merge (pages 01 and 02).

:func:`measure_merges` replays a trainer's merges (page 04's replay, the same merges whichever
trainer made them) and records, before each merge, what the naive loop (V1) and the incremental
loop (V2) would have to touch. It re-chooses every pair with the course tie-break and checks that
the choice, its count and the number of words it rewrites agree with the trainer's own trace, so
the figures can never drift from the trainers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...data_files import TINYSTORIES_SAMPLE
from ...pretokenize import DEFAULT_SPECIAL_TOKENS
from ...train import MergeStep, train_on_counts
from .common import corpus_counts

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
    """Replay ``trace`` (from any trainer) on ``pretoken_counts``, measuring each merge's work: V4's
    replay (:func:`.inverted_index.replay`), which checks every merge against the trace."""
    from .inverted_index import replay  # not at the top: page 04's module imports page 01's, which imports this one

    return [MergeWork(m.rank, *m.pair, m.count, m.rewritten, m.windows, m.distinct_pairs, m.updated_windows,
                      m.word_tokens, m.corpus_tokens) for m in replay(pretoken_counts, trace).merges]


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
