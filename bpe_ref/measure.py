"""Measuring like an engineer (step 09): the course's small measuring harness.

Timings on a shared machine are noisy, so the course never trusts one number. It times the
contenders of a comparison in **interleaved rounds** (every contender once per round, the starting
contender rotating), so that a burst of load from elsewhere slows every contender of that round;
it reports **medians** and a **spread**, and compares contenders by the **median of their per-round
ratios**, measured in one run, rather than by absolute seconds. How time grows with the input is a
**fitted exponent** (the slope on a log-log scale), and where one method overtakes another is a
**crossover**, found by linear interpolation between the two measured points that bracket it.
Memory is measured with :mod:`tracemalloc` (Python's own allocations; a process's resident set size
is something else, page 09 compares the two).

Everything here is the standard library, so a lab can ask for the same functions (lab 09), and the
course's benchmarks (:mod:`bpe_ref.course.bench`) and figures use these ones.

>>> fake = iter([0.0, 2.0, 2.0, 3.0, 3.0, 5.0, 5.0, 5.5])   # a clock that reads recorded times
>>> times = interleaved({"v4": lambda: None, "v5": lambda: None}, rounds=2, clock=lambda: next(fake))
>>> times                                                    # round 2 starts with v5
{'v4': [2.0, 0.5], 'v5': [1.0, 2.0]}
>>> paired_ratio(times, "v4", "v5")                          # median of 2.0 and 0.25
1.125
>>> round(fit_exponent([1000, 2000, 4000], [0.1, 0.4, 1.6]), 6)  # time ~ size^2
2.0
>>> crossover([1000, 2000, 3000], [1.0, 2.0, 3.0], [1.5, 1.5, 1.5])   # a and b meet at 1,500
1500.0
"""

from __future__ import annotations

import math
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from .train.driver import collector_paused

T = TypeVar("T")
Clock = Callable[[], float]


def timed(fn: Callable[[], object], *, clock: Clock = time.perf_counter) -> float:
    """Seconds (as ``clock`` counts them) for one call of ``fn``, with the garbage collector paused.

    A collection that starts during a timed call would be charged to whichever contender happened
    to allocate last; ``timeit`` pauses the collector for the same reason. It is restored as it was
    after the call, and collects then, between the timed calls, if it must.
    """
    with collector_paused():
        start = clock()
        fn()
        return clock() - start


def interleaved(contenders: Mapping[str, Callable[[], object]], rounds: int, *,
                clock: Clock = time.perf_counter) -> dict[str, list[float]]:
    """Time every contender once per round, for ``rounds`` rounds: ``{label: [seconds per round]}``.

    Round ``r`` starts with the contender at position ``r % n`` of ``contenders`` and goes on in
    order, wrapping around, so no contender always runs first (or last, after the others warmed a
    cache or heated the CPU). ``clock`` is any function that returns seconds: ``time.perf_counter``
    (wall time), ``time.process_time`` (this process's CPU time), or a fake one in tests. Each call
    is timed by :func:`timed` (the collector paused during the call, restored after).

    >>> calls = []
    >>> times = interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b"),
    ...                      "c": lambda: calls.append("c")}, rounds=3)
    >>> "".join(calls)
    'abcbcacab'
    """
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    if not contenders:
        raise ValueError("no contenders to time: give at least one {label: function}")
    labels = list(contenders)
    times: dict[str, list[float]] = {label: [] for label in labels}
    for r in range(rounds):
        first = r % len(labels)
        for label in labels[first:] + labels[:first]:
            times[label].append(timed(contenders[label], clock=clock))
    return times


def median(values: Sequence[float]) -> float:
    """The middle value (the mean of the two middle ones for an even count).

    A median ignores a few runs slowed by a burst of load, where a mean absorbs them.

    >>> median([0.31, 0.30, 0.95])
    0.31
    """
    if len(values) == 0:
        raise ValueError("median of no values: time at least one round")
    return statistics.median(values)


def spread(values: Sequence[float]) -> float:
    """The interquartile range relative to the median: ``(q3 - q1) / median``.

    The quartiles are interpolated linearly in the sorted values: the quartile at fraction ``p``
    sits at position ``p * (n - 1)`` (counting from 0), as ``statistics.quantiles(values, n=4,
    method="inclusive")`` computes it. Relative, so that a spread of 0.05 reads "the middle half of
    the runs lie within 5% of the median", whatever the unit.

    >>> spread([10, 11, 12, 13, 30])      # q1 = 11, q3 = 13, median 12: the outlier does not count
    0.16666666666666666
    """
    if len(values) < 2:
        raise ValueError(f"a spread needs at least two values, got {len(values)}")
    middle = median(values)
    if middle <= 0:
        raise ValueError(f"a spread is relative to the median, which is {middle}: times must be positive")
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return (q3 - q1) / middle


def paired_ratio(times: Mapping[str, Sequence[float]], a: str, b: str) -> float:
    """The median over rounds of ``times[a][r] / times[b][r]``: how many times as long ``a`` takes as ``b``.

    Both were timed in the same round, so load that slowed the round slowed both; the ratio of
    one round cancels it, and the median ignores the rounds where it did not.

    >>> paired_ratio({"naive": [2.0, 4.0, 2.2], "heap": [0.1, 0.2, 0.1]}, "naive", "heap")
    20.0
    """
    for label in (a, b):
        if label not in times:
            raise KeyError(f"no times for {label!r}; timed: {', '.join(map(repr, times))}")
    if len(times[a]) != len(times[b]):
        raise ValueError(f"{a!r} has {len(times[a])} rounds and {b!r} {len(times[b])}: pair them round by round")
    if not times[a]:
        raise ValueError("no rounds to compare")
    return median([x / y for x, y in zip(times[a], times[b])])


def fit_exponent(sizes: Sequence[float], seconds: Sequence[float]) -> float:
    """The least-squares slope of ``log(seconds)`` against ``log(sizes)``: ``k`` in time ~ size^k.

    ``k`` near 1 is linear, near 2 quadratic. It is the slope over the sizes measured: fixed costs
    lower it at small sizes, so fit over sizes large enough for the growth to dominate.

    >>> round(fit_exponent([10, 20, 40], [3.0, 6.0, 12.0]), 6)
    1.0
    """
    if len(sizes) != len(seconds):
        raise ValueError(f"{len(sizes)} sizes but {len(seconds)} times")
    if len(sizes) < 2:
        raise ValueError(f"a slope needs at least two points, got {len(sizes)}")
    if any(s <= 0 for s in sizes) or any(t <= 0 for t in seconds):
        raise ValueError("sizes and times must be positive to take their logarithms")
    if min(sizes) == max(sizes):  # the sizes themselves: the mean of equal logarithms can round off them
        raise ValueError("every size is the same: no slope to fit")
    xs = [math.log(s) for s in sizes]
    ys = [math.log(t) for t in seconds]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread_x = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / spread_x


def crossover(xs: Sequence[float], ys_a: Sequence[float], ys_b: Sequence[float]) -> float | None:
    """The first ``x`` where the curves ``a`` and ``b`` meet, by linear interpolation; ``None`` if never.

    With ``d[i] = ys_a[i] - ys_b[i]``: the first ``xs[i]`` where ``d[i] == 0``, or, the first time
    ``d`` changes sign between ``i`` and ``i + 1``, the ``x`` where the straight line between the
    two points crosses zero: ``xs[i] + (xs[i + 1] - xs[i]) * d[i] / (d[i] - d[i + 1])``.
    Noisy curves can cross several times: this is the first crossing (page 09, and lab 09's
    stretch task, discuss which one to report).

    >>> crossover([500, 1000, 2000], [1.0, 2.0, 4.0], [2.0, 2.5, 3.0])   # d: -1, -0.5, 1
    1333.3333333333333
    >>> crossover([1, 2], [1.0, 1.0], [2.0, 3.0]) is None
    True
    """
    if not len(xs) == len(ys_a) == len(ys_b):
        raise ValueError(f"{len(xs)} xs, {len(ys_a)} values of a and {len(ys_b)} of b: one of each per x")
    if len(xs) < 2:
        raise ValueError(f"a curve needs at least two points, got {len(xs)}")
    if any(left >= right for left, right in zip(xs, xs[1:])):
        raise ValueError("xs must increase strictly")
    d = [a - b for a, b in zip(ys_a, ys_b)]
    for i in range(len(d)):
        if d[i] == 0:
            return float(xs[i])
        if i + 1 < len(d) and d[i] * d[i + 1] < 0:
            return xs[i] + (xs[i + 1] - xs[i]) * d[i] / (d[i] - d[i + 1])
    return None


def peak_memory(fn: Callable[[], T]) -> tuple[T, int]:
    """Call ``fn``; return its result and the peak of Python's allocations during the call, in bytes,
    above what was allocated when it started (:mod:`tracemalloc`).

    If tracing was off, it is started and stopped again (even when ``fn`` raises); if it was on
    (an outer measurement), it stays on, and its peak is reset to measure this call alone.
    tracemalloc sees only memory that Python allocates: a library's own buffers (HF
    ``tokenizers``' Rust code, numpy's arrays) are invisible to it, and it slows allocations down,
    so never time a run that it traces.

    >>> result, peak = peak_memory(lambda: len(bytearray(1_000_000)))
    >>> result, 1_000_000 <= peak < 1_010_000
    (1000000, True)
    """
    was_tracing = tracemalloc.is_tracing()
    if was_tracing:
        tracemalloc.reset_peak()
    else:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return result, peak - before



def load_warning(times: Mapping[str, Sequence[float]] | None = None, *, workers: int = 1, max_spread: float = 0.25,
                 load: float | None | str = "now", cores: int | None = None) -> str | None:
    """Why a verdict drawn from a timing cannot be trusted, in one sentence, or ``None``.

    Two signs are checked. **Load:** with ``load="now"`` the 1-minute load average is read
    (``os.getloadavg``; skipped where it does not exist); call it *before* measuring, so that it
    counts the other processes, and say how many processes (``workers``) the measurement runs (0
    when it has already run, so the load counts it): more runnable processes than cores means they
    queue, and a parallel timing can show the opposite of what a quiet machine shows. ``load=None``
    skips this sign. **Spread:** for each list of repeated ``times`` (two or more), the
    interquartile range relative to the median (:func:`spread`); above ``max_spread`` the repeats
    disagree too much for a ranking.

    >>> load_warning(load=3.5, cores=2, workers=1).startswith(
    ...     "the machine is busy: a 1-minute load of 3.5 on 2 cores, and this measurement adds 1 process"
    ... )
    True
    >>> load_warning({"V4": [1.0, 1.0, 1.01], "V5": [0.5, 0.9, 0.6]}, load=None).startswith(
    ...     "the repeats disagree: V5 spread 33% (more than 25%) around its median")
    True
    >>> load_warning({"V4": [1.0, 1.02, 1.01]}, load=0.2, cores=2) is None
    True
    """
    if workers < 0:
        raise ValueError(f"workers must be at least 0, got {workers}")
    reasons = []
    if load == "now":
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # Windows has no load average
            load = None
    if cores is None:  # the cores this process may run on, where the system says
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if load is not None and float(load) + workers > cores + 0.5:
        reasons.append(f"the machine is busy: a 1-minute load of {float(load):.1f} on {cores} cores, and this measurement "
                       f"adds {workers} process{'es' if workers > 1 else ''}")
    for label, values in (times or {}).items():
        if len(values) >= 2 and min(values) > 0 and spread(values) > max_spread:
            reasons.append(f"the repeats disagree: {label} spread {spread(values):.0%} (more than {max_spread:.0%}) "
                           "around its median")
    if not reasons:
        return None
    return "; ".join(reasons) + "; rerun it on a quieter machine before trusting the verdict"


def load_note(runs: Mapping[str, Sequence[float]] | None = None, *, load: float | None | str = "now",
              cores: int | None = None) -> str:
    """:func:`load_warning` as one line to print under a timing that has already run (so the load
    average counts the measurement itself): a warning, or that the verdict can be trusted."""
    why = load_warning(runs, workers=0, load=load, cores=cores)
    if why:
        return f"WARNING: {why}."
    return "The machine was quiet enough to trust this verdict (load below the cores, repeats within 25%)."


__all__ = [
    "crossover", "fit_exponent", "interleaved", "load_note", "load_warning", "median", "paired_ratio", "peak_memory",
    "spread", "timed",
]
