"""A limit on this process's CPU time for one call of the trusted side's own code that reads what the learner's code
made: a cell's text turned into Python (:func:`.autograde.python_source`), a failure's hints and a task's observe of a
reply (:mod:`bpe_ref.course.checks.compare`). Such reading runs outside every limit of the notebook's (its budget is
read before a request to the worker, not while the trusted side decides), so input built against it could stall a
class's grading (tests/test_grading_redteam.py, sections 35 and 105-107)."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from typing import Any


class OutOfCpuTime(BaseException):
    """Past the CPU seconds of :func:`within_cpu`: a ``BaseException``, so that no ``except Exception`` on its way keeps
    it (it landed in hypothesis's gc callback once, and a cell's text cost the grader 25.8 s)."""


def within_cpu(seconds: float, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, stopped by :class:`OutOfCpuTime` once it has spent ``seconds`` of this process's CPU time,
    told by a profiling timer that fires again every 0.1 s, as one raise can be lost (in a finaliser, a gc callback).
    Unbounded outside the main thread or under a profiling timer already armed (a measured call's in a kernel)."""
    limited = (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
               and signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0))
    armed = [limited]

    def stop(signum, frame) -> None:
        if armed[0]:
            raise OutOfCpuTime

    hook = sys.unraisablehook

    def keep_lost_raises_quiet(unraisable) -> None:
        if not isinstance(unraisable.exc_value, OutOfCpuTime):
            hook(unraisable)

    previous = signal.signal(signal.SIGPROF, stop) if limited else None
    try:
        if limited:
            sys.unraisablehook = keep_lost_raises_quiet
            signal.setitimer(signal.ITIMER_PROF, seconds, 0.1)
        return function(*args)
    finally:
        while True:  # the timer may fire before ``armed`` is cleared: its raise must not leave it set
            try:
                armed[0] = False
                if limited:
                    signal.setitimer(signal.ITIMER_PROF, 0)
                    signal.signal(signal.SIGPROF, previous)
                    sys.unraisablehook = hook
                break
            except OutOfCpuTime:
                continue
