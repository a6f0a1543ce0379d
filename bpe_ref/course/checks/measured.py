"""Checks of *how* a trainer works, measured from outside the learner's code: the CPU time its
process spends, read from the kernel (:mod:`..trusted.measure_worker`), not reported by the code.

A merge loop that visits only the words a merge changes (V4) or picks each pair from a heap (V5)
spends almost nothing per merge once its structures are built; one that still scans every word or
every pair spends a pass over the corpus per merge. So the trainer runs twice on a corpus built for
it, with 1 merge and with many (merges that each touch a few words), and the CPU time of the extra
merges is compared with the time of the first run (reading the input, the counts, the index...):
a growth ratio, free of the machine's speed. CPU time, not wall time, so a loaded machine does not
make honest code look slow; and the best of three tries, so a burst on a busy machine does not fail
it either (a try far past the limit fails at once: a scan per merge costs several times more on
every try).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..trusted.measure_worker import cpu_seconds
from .core import CheckFailed, Outcome, Task, call_learner, error_name, runs_remotely

TRIES = 3  # a check passes when one try of the pair of runs does


def cpu_of_call(task: Task, learner: Callable, args: tuple) -> tuple[Outcome, float]:
    """Call ``learner(*args)`` as the graders do and return its outcome and the CPU seconds its process
    spent meanwhile: the grading worker's, read from ``/proc`` by this process; in a notebook, the
    kernel's own (``time.process_time``), the learner's code and this call's bookkeeping."""
    if runs_remotely(learner):
        pid = learner.sandbox.worker_pid
        before = cpu_seconds(pid, children=False)
        outcome = call_learner(learner, args, task.provided, task.stand_ins, task.kernel_time_limit, task.driver)
        after = cpu_seconds(pid, children=False) if learner.sandbox.alive else None
        if before is None or after is None:
            return outcome, float("nan")
        return outcome, after - before
    start = time.process_time()
    outcome = call_learner(learner, args, task.provided, task.stand_ins, task.kernel_time_limit, task.driver)
    return outcome, time.process_time() - start


@dataclass
class Growth:
    """One try: CPU seconds with one merge (``base``) and with ``merges`` merges (``full``)."""

    base: float
    full: float
    merges: int

    @property
    def ratio(self) -> float:
        """The extra merges' CPU time, relative to the one-merge run's (at least one clock tick of it)."""
        return max(0.0, self.full - self.base) / max(self.base, 0.02)


def verify_merge_cost(task: Task, learner: Callable, pretoken_counts: dict, merges: int, limit: float,
                      describe: str, too_slow: str) -> Growth | None:
    """Fail unless ``merges`` merges of ``learner`` (a trainer) on ``pretoken_counts`` cost at most
    ``limit`` times the CPU time of one merge's run, in one of :data:`TRIES` tries. ``describe`` names
    the corpus in messages, ``too_slow`` says what a scan per merge means in this lab. Returns the
    passing try, or ``None`` where CPU time cannot be read (said in the output)."""
    tries: list[Growth] = []
    for _ in range(TRIES):
        runs = []
        for count in (1, merges):
            outcome, seconds = cpu_of_call(task, learner, (pretoken_counts, count))
            if outcome.error is not None:
                raise CheckFailed(f"{task.name}({describe}, {count}) raised {error_name(outcome.error)}: {outcome.error}")
            runs.append(seconds)
        if any(seconds != seconds for seconds in runs):  # nan: not measurable here
            print(f"{task.name}: its CPU time could not be measured on this system; the cost per merge is not checked.")
            return None
        growth = Growth(runs[0], runs[1], merges)
        if growth.ratio <= limit:
            return growth
        tries.append(growth)
        if growth.ratio > 3 * limit:  # far past the limit: no burst of load explains it, no need to try again
            break
    best = min(tries, key=lambda growth: growth.ratio)
    raise CheckFailed(
        f"{task.name}({describe}, {merges}) took {best.full:.2f} s of CPU time, {task.name}(..., 1) took "
        f"{best.base:.2f} s: the {merges - 1} extra merges cost {best.ratio:.2f} times the whole first run, more than "
        f"{limit:g} (the best of {len(tries)} tries, measured from outside your code). Each merge of this corpus changes a "
        f"few words, so it should cost next to nothing: {too_slow}")


def process_id(learner: Callable) -> int:
    """The process the learner's code runs in: the grading worker, or (in a notebook) this kernel."""
    return learner.sandbox.worker_pid if runs_remotely(learner) else os.getpid()
