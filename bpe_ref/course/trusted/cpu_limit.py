"""A limit on this process's CPU time for one call of the trusted side's own code that reads what the learner's code
made: a cell's text turned into Python (:func:`.autograde.python_source`), a failure's hints and a task's observe of a
reply (:mod:`bpe_ref.course.checks.compare`), and a case's whole check of what came back, a judge's or a comparison with
the reference's answer (:func:`bpe_ref.course.checks.running.checked`). Such reading runs outside every limit of the
notebook's (its budget is read before a request to the worker, not while the trusted side decides), so input built
against it could stall a class's grading (tests/test_grading_redteam.py, sections 35 and 105-110).

Limits nest: one set inside another ends at its own time or at the other's, whichever comes first, and the time a check
spends waiting for a call of the learner's code it makes (:func:`outside_the_limit`) counts against none of them."""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class OutOfCpuTime(BaseException):
    """Past the CPU seconds of :func:`within_cpu`: a ``BaseException``, so that no ``except Exception`` on its way keeps
    it (it landed in hypothesis's gc callback once, and a cell's text cost the grader 25.8 s)."""


class _Expired(BaseException):
    """What the timer raises: a limit's time is past, the innermost's or an enclosing one's. Each limit lets one of an
    enclosing limit through (no ``except OutOfCpuTime`` of the code it ran stops that limit's end) and turns its own
    into :class:`OutOfCpuTime`."""


# The process's CPU time (time.process_time) by which each limit running in the main thread ends, the outermost first.
_DEADLINES: list[float] = []
_INTERVAL = 0.1  # the timer fires again this often past a deadline, as one raise can be lost (a finaliser, a gc callback)


def _limited() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _stop(signum, frame) -> None:
    # A firing a little early (the timer's and the clock's accounting differ by a tick) waits for the next one.
    if _DEADLINES and time.process_time() >= min(_DEADLINES) - 0.005:
        raise _Expired


def _arm() -> None:
    """The profiling timer set to fire at the nearest deadline (at once when it is past)."""
    signal.setitimer(signal.ITIMER_PROF, max(min(_DEADLINES) - time.process_time(), 0.001), _INTERVAL)


def within_cpu(seconds: float, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, stopped by :class:`OutOfCpuTime` once it has spent ``seconds`` of this process's CPU time,
    told by a profiling timer that fires again every 0.1 s, as one raise can be lost (in a finaliser, a gc callback);
    inside another limit, at the end of either. Unbounded outside the main thread or under a profiling timer armed by
    other code (a measured call's in a kernel)."""
    if not _limited() or (not _DEADLINES and signal.getitimer(signal.ITIMER_PROF) != (0.0, 0.0)):
        return function(*args)
    depth, outermost = len(_DEADLINES), not _DEADLINES
    hook = sys.unraisablehook

    def keep_lost_raises_quiet(unraisable) -> None:
        if not isinstance(unraisable.exc_value, (_Expired, OutOfCpuTime)):
            hook(unraisable)

    previous = signal.signal(signal.SIGPROF, _stop) if outermost else None
    try:
        if outermost:
            sys.unraisablehook = keep_lost_raises_quiet
        _DEADLINES.append(time.process_time() + seconds)
        _arm()
        return function(*args)
    except _Expired:
        if depth and time.process_time() >= min(_DEADLINES[:depth]) - 0.005:
            raise  # an enclosing limit's end: on to it, past whatever the code run here does with its own
        raise OutOfCpuTime from None
    finally:
        while True:  # the timer may fire before this limit is gone: its raise must not leave the limit or the timer set
            try:
                del _DEADLINES[depth:]
                if outermost:
                    signal.setitimer(signal.ITIMER_PROF, 0)
                    signal.signal(signal.SIGPROF, previous)
                    sys.unraisablehook = hook
                else:  # the enclosing limit's time again (past it, its raise comes at once)
                    _arm()
                break
            except (_Expired, OutOfCpuTime):
                continue


@contextmanager
def outside_the_limit() -> Iterator[None]:
    """The CPU time this process spends in the block counts against no limit of :func:`within_cpu` running: a check's
    call of the learner's function, which runs under that call's own limits (the worker's, or the kernel's); the limits
    go on after it with the time they had left."""
    if not _DEADLINES or not _limited():
        yield
        return
    signal.setitimer(signal.ITIMER_PROF, 0)
    saved, start = list(_DEADLINES), time.process_time()
    _DEADLINES.clear()  # no firing in the block raises, nor does a limit set in it end at these
    try:
        yield
    finally:
        spent = time.process_time() - start
        _DEADLINES[:] = [deadline + spent for deadline in saved]
        _arm()
