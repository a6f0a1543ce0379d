"""The one driver of every trainer: how many merges, the trace, the progress bar, the time budget.

Each step's module writes its merge loop as a generator, ``merge_steps(pretoken_counts)``, that
does one merge per iteration and yields a :class:`MergeStep` saying what that merge did, until no
pair is left. The loop itself knows nothing of ``num_merges``, traces or progress bars: this
module applies them, the same way for all six trainers, so a trainer's code holds only its idea.

>>> from bpe_ref.train.step01_naive import merge_steps
>>> trace = []
>>> run_merges(merge_steps({b"low": 5, b"lower": 2}), 2, trace=trace)
[(b'o', b'w'), (b'l', b'ow')]
>>> trace[0]
MergeStep(pair=(b'o', b'w'), count=7, affected_words=2, heap_size=None, stale_pops=None)
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import islice

from .common import Pair


@dataclass(frozen=True, slots=True, kw_only=True)
class MergeStep:
    """What one merge did: one row of a training trace.

    ``affected_words`` counts the distinct words (pretoken types) the merge rewrote. Trainers
    that keep a heap also report its size after the merge and how many stale entries they popped
    to find the pair (``None`` for the others). A trainer that does not find the words as it
    merges (the linked list works on nodes) may give a function that counts them instead:
    :func:`run_merges` calls it only for a step that goes into a trace (on the Chinese corpus,
    counting them for every merge took a tenth of the linked list's run).
    """

    pair: Pair
    count: int
    affected_words: int | Callable[[], int]
    heap_size: int | None = None
    stale_pops: int | None = None

    @property
    def left(self) -> bytes:
        return self.pair[0]

    @property
    def right(self) -> bytes:
        return self.pair[1]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause CPython's cyclic garbage collector for the block, and restore it after.

    A trainer builds millions of small tuples and lists that live for the whole run. Every time
    the collector runs a full pass it walks all of them, and the passes come more often as the
    run allocates: on the Chinese corpus (vocab 10,000) the linked-list trainer took 7.3 s with
    the collector on and 4.6-5.1 s with it paused, on the course machine. The trainers make no
    reference cycles, so the collector has nothing to reclaim; reference counting still frees
    everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_merges(
    steps: Iterable[MergeStep],
    num_merges: int,
    *,
    trace: list[MergeStep] | None = None,
    progress: bool = False,
    deadline: float | None = None,
    description: str = "merges",
) -> list[Pair]:
    """Take up to ``num_merges`` merges from ``steps``; return their pairs in training order.

    Fewer come back when ``steps`` runs out (no pair left) or when ``time.perf_counter()`` passes
    ``deadline`` (checked after each merge, so at least one merge is made). ``trace`` receives
    every :class:`MergeStep`; ``progress`` shows a tqdm bar.
    """
    merges: list[Pair] = []
    bar = None
    if progress:  # tqdm only when a bar is shown: lab 02's graded code runs V1 where tqdm is not
        from tqdm.auto import tqdm

        bar = tqdm(total=num_merges, desc=description, unit="merge", leave=False)
    try:
        with collector_paused():
            # islice asks for no merge beyond num_merges: the generator never does work nobody wants.
            for step in islice(steps, num_merges):
                merges.append(step.pair)
                if trace is not None:
                    trace.append(step if isinstance(step.affected_words, int) else
                                 replace(step, affected_words=step.affected_words()))
                if bar is not None:
                    bar.update()
                if deadline is not None and time.perf_counter() > deadline:
                    break
            # Free the trainer's data while the collector is still paused: a generator keeps its
            # locals until it is closed, and the first collection after gc.enable() would walk
            # every object they hold (about 6% of the training time on the Chinese corpus).
            close = getattr(steps, "close", None)
            if close is not None:
                close()
    finally:
        if bar is not None:
            bar.close()
    return merges
