"""One training run on the shipped TinyStories sample, measured merge by merge (pages 01 and 02)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ...data_files import TINYSTORIES_SAMPLE
from ...pretokenize import DEFAULT_SPECIAL_TOKENS
from ...train import MergeStep, train_on_counts
from .common import corpus_counts

if TYPE_CHECKING:
    from .inverted_index import IndexedMerge

DEFAULT_NUM_MERGES = 1000


def measure_merges(pretoken_counts: Mapping[bytes, int], trace: Sequence[MergeStep]) -> list[IndexedMerge]:
    """Replay ``trace`` (from any trainer, checked merge by merge) with V4's :func:`.inverted_index.replay`:
    its ``windows`` are what V1 recounts, ``distinct_pairs`` what V1 and V2 scan, ``affected_words`` what V2
    rewrites and ``updated_windows`` the windows V2 subtracts and adds back in them."""
    from .inverted_index import replay  # not at the top: page 04's module imports page 01's, which imports this one

    return replay(pretoken_counts, trace).merges


@dataclass(frozen=True)
class TrainingRun:
    path: Path
    num_merges: int
    pretoken_counts: dict[bytes, int]
    trace: list[MergeStep]
    work: list[IndexedMerge]

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
