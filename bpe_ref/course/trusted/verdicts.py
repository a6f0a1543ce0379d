"""What the trusted side and the graders share: the verdicts that cross the trust boundary, and the seed.

The graders import these from here; nothing of :mod:`bpe_ref.course.trusted` imports the graders
(``tests/test_trust_boundary.py`` checks the import graph), so the boundary reads on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class CheckFailed(AssertionError):
    """A grader's verdict: the learner's function is wrong. The message says how, in a few lines."""

    def _render_traceback_(self) -> list[str]:
        """How IPython (the notebook) shows a failed check: the message alone. A traceback through
        the grading machinery would only bury it; the test cell holds a single call anyway."""
        lines = str(self).splitlines() or [""]
        return [f"\x1b[0;31m{type(self).__name__}\x1b[0m: {lines[0]}", *lines[1:]]


# What an exception of the learner's brings back, at most: its class name, its message, and its traceback's last lines
# of so many characters each, as a cell's error is written (:meth:`.sandbox.CellRun.outputs`). The worker cuts them so,
# but it is the learner's process: a class named with 3,000,000 characters (``type("E" * 3_000_000, (Exception,), {})``,
# whose name no cut of the worker's bounded) made each failed check's message, and the trusted record, of megabytes
# (tests/test_grading_redteam.py, section 93). They are cut here, as the reply is read, before a grader quotes them.
MAX_ENAME_CHARS, MAX_EVALUE_CHARS, MAX_TRACEBACK_LINES, MAX_TRACEBACK_LINE_CHARS = 200, 2_000, 30, 2_000


def _cut(text: object, limit: int) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text):,} characters in all)"


class LearnerError(Exception):
    """An exception the learner's code raised in the grading process, brought back as data."""

    def __init__(self, ename: str, evalue: str, traceback: list[str] | None = None, value_error: bool = False) -> None:
        super().__init__(evalue)
        self.ename, self.evalue, self.traceback = ename, evalue, list(traceback or [])
        self.value_error = value_error  # a ValueError, as the worker saw it (its class's own name aside)

    @classmethod
    def from_data(cls, data: dict) -> LearnerError:
        """The error of a reply (what the worker sent), each part cut to its bound above."""
        data = data if isinstance(data, dict) else {}
        lines = data.get("traceback", [])
        return cls(_cut(data.get("ename", "Error"), MAX_ENAME_CHARS), _cut(data.get("evalue", ""), MAX_EVALUE_CHARS),
                   [_cut(line, MAX_TRACEBACK_LINE_CHARS) for line in lines[-MAX_TRACEBACK_LINES:]]
                   if isinstance(lines, list) else [], data.get("value_error") is True)


class GradingStopped(BaseException):
    """The learner's code timed out or its process died: the check stops here and fails.

    A ``BaseException``, like ``KeyboardInterrupt``, so that no ``except Exception`` on the way
    (hypothesis's included) swallows it or retries a call that already took its whole time."""


def timed_out(stopped: GradingStopped) -> GradingStopped:
    """``stopped``, marked as a call of the learner's stopped by its own time limit (its CPU time, or its backstop's
    wait), not by the notebook's: a loop that never ends, most often, which the task's hint for a call that never
    returns in a kernel explains (:func:`bpe_ref.course.checks.running.call_task`). An attribute, not a class: the
    graders may be another copy of the package than the sandbox that raised it."""
    stopped.timed_out = True
    return stopped


class CpuLimitReached(GradingStopped):
    """A measured call was stopped once its process had spent more CPU time than could still pass
    (:meth:`~.sandbox.Sandbox.request`'s ``cpu_limit``): ``seconds``, what it had spent by then."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"stopped after {seconds:.2f} s of CPU time")
        self.seconds = seconds


_HIDDEN_SEED: list[int | None] = [None]  # the grading's secret seed; None in the learner's kernel
_WHOLE_CLASS = [False]  # whether that seed grades a whole class (nbgrader autograde), not one notebook


@contextmanager
def hidden_seed(seed: int | None, *, whole_class: bool = False) -> Iterator[None]:
    """While active, the graders draw hidden inputs from ``seed`` (and the task's name), a seed the
    learner cannot know, instead of hypothesis's derandomized sequence (unset in the learner's kernel,
    so advice is the same at every run). ``whole_class``: every notebook of a class draws the same
    inputs, so they may be drawn once and replayed (:func:`grading_a_class`)."""
    saved = _HIDDEN_SEED[0], _WHOLE_CLASS[0]
    _HIDDEN_SEED[0], _WHOLE_CLASS[0] = seed, whole_class and seed is not None
    try:
        yield
    finally:
        _HIDDEN_SEED[0], _WHOLE_CLASS[0] = saved


def current_seed() -> int | None:
    """The seed :func:`hidden_seed` set, or ``None`` (in the learner's kernel)."""
    return _HIDDEN_SEED[0]


def grading_a_class() -> bool:
    """Whether :func:`hidden_seed` set the seed of a whole class (its notebooks all draw the same inputs)."""
    return _WHOLE_CLASS[0]
