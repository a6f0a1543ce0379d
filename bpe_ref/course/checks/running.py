"""Running the learner's function and deciding: one call on a copy of its arguments, with the
reference trapped (:mod:`.trap`), stand-ins bound and a time limit (:func:`call_learner`); one case
against the reference (:func:`verdict`); fixed cases (:func:`check_cases`, the visible tests) and
hypothesis-generated ones (:func:`check_property`, the hidden tests: bounded, derandomized in the
learner's kernel, drawn from the grading's secret seed when graded, shrunk to the smallest failing
input); and the graders a task declaration derives (:func:`graders_of`).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import io
import random
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..trusted import measure_worker
from ..trusted.cpu_limit import outside_the_limit
from ..trusted.verdicts import (CheckFailed, CpuLimitReached, GradingStopped, LearnerError, current_seed,
                                grading_a_class, timed_out)
from .compare import (
    CARRIED, OBSERVE_CPU_SECONDS, SHORT_REPR_CHARS, OutOfCpuTime, WrongType, bounded_hint, call_repr, carried,
    changed_argument, difference, error_name, first_differing_item, hints, in_order_of, plain, repr_within, same,
    short_repr, stand_in_note, window_repr, within_cpu,
)
from .kept import CHANGED, called_twice, holds_a_container, kept_hint, without_the_change
from .spec import Case, CorpusFile, Later, Task, TaskGraders, runs_remotely
from .trap import reference_trapped, refuse_reference_use

_LOCAL_FILES: list[Path] = []  # the kernel's temporary folder for CorpusFile arguments, made once


def _files_folder() -> Path:
    if not _LOCAL_FILES:
        import atexit
        import shutil
        import tempfile

        _LOCAL_FILES.append(Path(tempfile.mkdtemp(prefix="bpe_ref_check_files_")))
        atexit.register(shutil.rmtree, _LOCAL_FILES[0], True)
    return _LOCAL_FILES[0]


def _holds_file(value: Any) -> bool:
    return isinstance(value, CorpusFile) or (
        isinstance(value, (list, tuple)) and any(_holds_file(item) for item in value))


def materialized(args: tuple, learner: Any) -> tuple:
    """``args`` with each :class:`CorpusFile` written to disk (again, every call: a call of the
    learner's cannot change what the next one reads) and replaced by its path, a ``str``; also
    inside lists and tuples (lab 10's lists of files, and of ``(path, start, end)`` ranges)."""
    if not any(_holds_file(arg) for arg in args):
        return args

    def real(value: Any) -> Any:
        if isinstance(value, CorpusFile):
            if runs_remotely(learner):  # the trusted side's own folder, which the worker can only read
                return learner.sandbox.write_input(value.data)
            path = _files_folder() / f"corpus_{hashlib.sha256(value.data).hexdigest()[:16]}.txt"
            path.write_bytes(value.data)
            return str(path)
        if isinstance(value, (list, tuple)) and _holds_file(value):
            return type(value)(real(item) for item in value)
        return value

    return tuple(real(arg) for arg in args)


@dataclass
class Outcome:
    """What one call of the learner's function did."""

    value: Any = None
    error: BaseException | None = None
    reference_calls: list[str] = field(default_factory=list)

    def fail_on_error(self, call: str) -> None:
        """Raise :class:`CheckFailed` naming ``call`` when the learner's code raised."""
        if self.error is not None:
            raise CheckFailed(f"{call} raised {error_name(self.error)}: {self.error}")


@contextmanager
def standing_in(learner: Callable, stand_ins: Sequence[Callable]) -> Iterator[None]:
    """Bind each of ``stand_ins`` under its name in ``learner``'s globals (the notebook's), then
    put back what was there (or nothing). In a notebook only: the worker does it remotely."""
    namespace = getattr(learner, "__globals__", None)
    if not stand_ins or not isinstance(namespace, dict):
        yield
        return
    missing = object()
    saved = {function.__name__: namespace.get(function.__name__, missing) for function in stand_ins}
    namespace.update({function.__name__: function for function in stand_ins})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value


class TookTooLong(BaseException):
    """A learner's call in the kernel ran past its task's ``kernel_time_limit``. A ``BaseException``,
    as ``KeyboardInterrupt`` is: a learner's ``except Exception`` inside a loop must not swallow it."""


WALL_FACTOR = 5.0  # a call in the kernel that waits (a sleep, a lock, a pipe) is stopped after this many times its CPU limit


def _cpu_below() -> float:
    """CPU seconds of every process below this one, live, a zombie or reaped (Linux's ``/proc``; elsewhere 0)."""
    below = measure_worker.tree_cpu_seconds(os.getpid()) if measure_worker.available() else None
    return below[0] if below else 0.0


def _waited() -> float:
    """Wall seconds so far in which this thread neither ran nor waited for a CPU (``/proc/thread-self/schedstat``:
    its time on a CPU and in a run queue; elsewhere, the wall time less its CPU time)."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as file:
            ran, queued = (int(field) for field in file.read().split()[:2])
        return time.monotonic() - (ran + queued) / 1e9
    except (OSError, ValueError):
        return time.monotonic() - time.thread_time()


LOOK_EVERY = 0.25  # seconds between two looks of a limit's timer: one raise can be lost (a learner's bare ``except:``, a
# finaliser running when the signal arrives), the next ones stop the call

# The kernel's time limits in force in the main thread, the outermost first: each firing of a timer looks at every one,
# the outermost first (its end is the one to tell), and an inner limit's exit re-arms the timers for those left.
_LIMITS: list[_Limit] = []


def time_limit(seconds: float | None, cpu_seconds: float | None = None) -> _Limit:
    """Raise :class:`TookTooLong` in the code run under it (a ``with`` block) once it has spent ``seconds`` of CPU time,
    this process's and its children's (so that a busy machine, which slows a call, brings it no nearer its limit), or has
    waited :data:`WALL_FACTOR` times ``seconds`` without running, nor any process below it (a sleep, a lock, a pipe nobody
    writes, a child that never answers): looked at by a timer signal from ``seconds`` of wall time on, every
    :data:`LOOK_EVERY` seconds (only in the main thread, on systems that have one; elsewhere, and with ``None``, no
    limit). With ``cpu_seconds``, raise :class:`CpuLimitReached` once this process has spent that much CPU time in it (a
    measured call). Limits nest: an outer one's end is told inside the inner block too, and stays in force after it.

    No raise of a limit ever comes after its block: a firing while a limit is being set or left (its ``__enter__`` or
    ``__exit__`` running: a raise there would leave its timers armed for whatever runs next, as a generator's context
    manager did when the raise came before its ``finally``) raises nothing and is noted, and a block left normally past
    its limit then ends in that limit's error (section 120 of ``tests/test_grading_redteam.py``)."""
    return _Limit(seconds, cpu_seconds)


class _Limit:
    """One block of :func:`time_limit`."""

    def __init__(self, seconds: float | None, cpu_seconds: float | None) -> None:
        self.seconds, self.cpu_seconds = seconds, cpu_seconds
        self.owed: BaseException | None = None  # the error of a firing noted while a limit was being set or left
        self.taken: list[tuple[int, int, Any]] = []  # its signals: (signal, timer, handler before, or _look's own)
        self.hook: Any = None  # sys.unraisablehook before the outermost limit
        self.active = False  # in force: a limit of None seconds, or outside the main thread, is none

    def __enter__(self) -> _Limit:
        if self.seconds is None or not hasattr(signal, "setitimer") or \
                threading.current_thread() is not threading.main_thread():
            return self
        self.active = True
        below, idle = _cpu_below(), _waited()
        self.start, self.last, self.waited = time.process_time() + below, [below, idle], 0.0
        self.first_look = time.monotonic() + self.seconds
        self.cpu_end = None if self.cpu_seconds is None else time.process_time() + self.cpu_seconds
        try:
            if not _LIMITS:  # a raise lost in a finaliser or a gc callback (hypothesis has one) goes to
                # sys.unraisablehook, which pytest turns into an error of its own: it is no error, as the timer fires
                # again, so the hook does not hear of it
                self.hook = sys.unraisablehook
                sys.unraisablehook = _keep_lost_raises_quiet
            _LIMITS.append(self)
            taken = [(signal.SIGALRM, signal.ITIMER_REAL)] + (
                [(signal.SIGPROF, signal.ITIMER_PROF)] if self.cpu_seconds is not None else [])
            for signum, timer in taken:
                self.taken.append((signum, timer, _look if signal.getsignal(signum) is _look else
                                   signal.signal(signum, _look)))
                _arm(timer)
        except BaseException:  # a raise of other code's (a KeyboardInterrupt) while the limit was being set
            self._leave()
            raise
        return self

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> bool:
        if not self.active:
            return False
        for attempt in range(3):  # none of this module's raises comes in here (a look only notes them): others' may
            try:
                self._leave()
                break
            except BaseException:
                if attempt == 2:
                    raise
        owed, self.owed = self.owed, None
        if owed is not None and kind is None:  # past its limit as it was left: told here, inside its own block
            raise owed
        return False

    def _leave(self) -> None:
        """This limit, and any set inside it and not left (none: every one is left by its ``__exit__``), no longer in
        force; the timers re-armed for the limits left, else disarmed and their signals' handlers put back."""
        if self in _LIMITS:
            del _LIMITS[_LIMITS.index(self):]
        for signum, timer, previous in self.taken:
            if any(limit.cpu_end is not None for limit in _LIMITS) if timer == signal.ITIMER_PROF else _LIMITS:
                _arm(timer)  # an enclosing limit's next look (at once, when it is past)
                continue
            signal.setitimer(timer, 0)  # before the handler: a firing under a default handler ends the process
            signal.signal(signum, previous)
            rearm = getattr(previous, "rearm", None)  # another copy's limit, outside this one: in force again
            if callable(rearm):
                rearm(timer)
        if not _LIMITS and self.hook is not None:
            sys.unraisablehook = self.hook

    def due(self, signum: int) -> BaseException | None:
        """The error this limit's look at a firing of ``signum`` finds, or ``None``."""
        if signum != signal.SIGALRM:
            if self.cpu_end is not None and time.process_time() >= self.cpu_end - 0.02:
                return CpuLimitReached(self.cpu_seconds)
            return None
        below, idle = _cpu_below(), _waited()
        spent = time.process_time() + below - self.start
        if below == self.last[0]:  # no process below ran since the last look: this thread's idle time was a wait
            self.waited += idle - self.last[1]
        self.last[:] = below, idle
        if spent > self.seconds:
            return TookTooLong(f"did not finish within {self.seconds:g} s of CPU time (a loop that never ends?)")
        if self.waited > WALL_FACTOR * self.seconds:
            return TookTooLong(f"did not finish within {self.seconds:g} s: it waited {WALL_FACTOR * self.seconds:g} s "
                               f"without running and used {spent:.2f} s of CPU time (a sleep, a lock, a pipe or a process "
                               "that never answers?)")
        return None


def _arm(timer: int) -> None:
    """``timer`` set to fire at the nearest look of the limits in force (at once when it is past), then every
    :data:`LOOK_EVERY` seconds."""
    if timer == signal.ITIMER_PROF:
        ends = [limit.cpu_end for limit in _LIMITS if limit.cpu_end is not None]
        after = min(ends) - time.process_time() if ends else None
    else:
        after = min(limit.first_look for limit in _LIMITS) - time.monotonic() if _LIMITS else None
    if after is not None:
        signal.setitimer(timer, max(after, 0.001), LOOK_EVERY)


def _in_passage(frame: Any) -> bool:
    """Whether ``frame`` runs inside a limit's ``__enter__`` or ``__exit__`` (or a look, interrupted by another)."""
    while frame is not None:
        if frame.f_code in _PASSAGES:
            return True
        frame = frame.f_back
    return False


def _look(signum: int, frame: Any) -> None:
    """The handler of the limits' timer signals: the first limit in force, the outermost first, that is past its time
    raises its error here, unless a limit is being set or left (the error is then noted, :meth:`_Limit.__exit__`)."""
    for limit in list(_LIMITS):
        error = limit.due(signum)
        if error is None:
            continue
        error.limit = limit  # whose: call_learner lets an enclosing limit's through
        if _in_passage(frame):
            limit.owed = limit.owed or error
            return
        limit.owed = None
        raise error


_look.rearm = _arm  # a limit of another copy of this module, set inside one of these, re-arms it as it is left
_PASSAGES = {_Limit.__enter__.__code__, _Limit.__exit__.__code__, _Limit._leave.__code__, _look.__code__, _arm.__code__}


def _keep_lost_raises_quiet(unraisable: Any) -> None:
    if not isinstance(unraisable.exc_value, (TookTooLong, CpuLimitReached)):
        hook = next((limit.hook for limit in _LIMITS if limit.hook is not None), None) or sys.__unraisablehook__
        hook(unraisable)


def call_learner(learner: Callable, args: tuple, provided: tuple[str, ...] = (),
                 stand_ins: Sequence[Callable] = (), time_limit_seconds: float | None = None,
                 driver: Callable[..., Any] | None = None, cpu_limit: float | None = None) -> Outcome:
    """Call ``learner(*args)`` on a deep copy of ``args`` with the reference trapped, and the
    ``stand_ins`` (reference helpers, :attr:`Task.stand_ins`) bound in place of the learner's.
    With a ``driver`` (:attr:`Task.driver`), call ``driver(learner, *args)`` instead.

    ``Outcome.value`` is ``(args_copy, result)``: the copy the learner received (a task may update
    it in place) and what it returned. Exceptions of the learner's code are captured, not raised;
    ``KeyboardInterrupt`` (the autograder's timeout), ``SystemExit`` and :class:`CpuLimitReached` (past
    ``cpu_limit`` CPU seconds, see :func:`time_limit`) pass through.
    """
    outcome = Outcome()
    if runs_remotely(learner):  # in the grading process: no reference to trap, only data back
        try:  # its wait for the worker counts against no check's limit (CHECK_CPU_SECONDS): RemoteFunction.invoke
            outcome.value = learner.invoke(args, stand_ins=tuple(stand_ins), driver=driver)
        except LearnerError as error:
            outcome.error = error
        return outcome
    learner_args = copy.deepcopy(args)
    # The stand-ins and the driver are the graders' private copy of the reference: the trap leaves them alone.
    with outside_the_limit(), standing_in(learner, stand_ins), reference_trapped(provided) as calls:
        limit = time_limit(time_limit_seconds, cpu_limit)
        try:
            with limit:
                result = learner(*learner_args) if driver is None else driver(learner, *learner_args)
                outcome.value = (learner_args, result)
        except (Exception, TookTooLong) as error:  # the learner's bug, reported as such
            if getattr(error, "limit", limit) is not limit:  # an enclosing call's limit: its call's to report
                raise
            outcome.error = error
    outcome.reference_calls = list(calls)
    return outcome


def call_task(task: Task, learner: Callable, args: tuple, driver: Callable[..., Any] | None = None) -> Outcome:
    """:func:`call_learner` as ``task`` says: its file arguments written (:func:`materialized`), its provided modules,
    stand-ins, kernel time limit and driver (``driver``, when given, in place of the task's). A call the grading
    worker's time limit stopped (:func:`~..trusted.verdicts.timed_out`) stops the check with the task's hint for a call
    that never returns, as the kernel's limit (:class:`TookTooLong`) gets it (its ``error_hint``)."""
    args = materialized(args, learner)
    try:
        return call_learner(learner, args, task.provided, task.stand_ins, task.kernel_time_limit, driver or task.driver)
    except GradingStopped as stopped:
        hint = task.error_hint and getattr(stopped, "timed_out", False) and type(stopped) is GradingStopped and \
            bounded_hint(task.error_hint, args, TookTooLong(str(stopped)))
        if not hint:
            raise
        raise timed_out(GradingStopped(f"{stopped}\n  hint: {hint}")) from None

def call_watching(learner: Callable, args: tuple, names: Sequence[str], provided: tuple[str, ...] = (),
                  stand_ins: Sequence[Callable] = ()) -> tuple[Outcome, dict[str, list[int]]]:
    """Call ``learner(*args)`` while the learner's functions ``names`` are watched: the outcome,
    and for each name the length of its first argument at every call (-1 when it has none).

    In the grading process the worker does the watching; in a notebook the names are wrapped in
    the function's own globals for the length of the call, then put back.
    """
    if runs_remotely(learner):
        outcome = Outcome()
        try:
            with outside_the_limit():
                reply = learner.invoke_raw(args, spy=tuple(names), stand_ins=tuple(stand_ins))
        except Exception as problem:  # the arguments could not be sent: the grader's fault
            raise RuntimeError(f"could not call {learner.__name__}: {problem}") from None
        if not reply.get("ok"):
            outcome.error = LearnerError.from_data(reply.get("error") or {})
        spied = reply.get("spy") or {}
        return outcome, {name: [int(n) for n in spied.get(name, []) if type(n) is int] for name in names}
    namespace = getattr(learner, "__globals__", None)
    if not isinstance(namespace, dict):
        raise CheckFailed(f"{getattr(learner, '__name__', 'the function')} must be a function defined in the notebook")
    lengths: dict[str, list[int]] = {name: [] for name in names}
    with standing_in(learner, stand_ins):  # watched through the stand-ins, as in the worker
        originals = {name: namespace[name] for name in names if callable(namespace.get(name))}
        namespace.update({name: watched(name, function, lengths) for name, function in originals.items()})
        try:
            outcome = call_learner(learner, args, provided)
        finally:
            namespace.update(originals)
    return outcome, lengths


def watched(name: str, function: Callable, lengths: dict[str, list[int]]) -> Callable:
    """``function``, appending the length of its first argument (-1 without one) to ``lengths[name]``."""

    def call(*call_args, **kwargs):
        first = call_args[0] if call_args else next(iter(kwargs.values()), None)
        try:
            lengths[name].append(len(first))
        except TypeError:
            lengths[name].append(-1)
        return function(*call_args, **kwargs)

    return call


def expected_result(task: Task, reference: Callable, args: tuple) -> Any:
    """What the reference gives for ``args`` (on a copy; through the task's driver if it has one), as a plain value."""
    reference_args = copy.deepcopy(args)
    result = reference(*reference_args) if task.driver is None else task.driver(reference, *reference_args)
    return plain(task.observed(reference_args, result))


def _first_line_of(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{error_name(error)}: {text[0]}" if text else error_name(error)


_UNKNOWN: Any = object()  # an answer of the reference not computed yet
# Each task's last answer compared, and whose (the grading worker of a notebook; None in a kernel): one kept from call to
# call has a hint (compare.carried). A class is graded in one process: another notebook's answer is no call before. The
# call's arguments too: the same call again giving the same wrong answer is no answer kept (hypothesis calls the smallest
# failing input once more for its message, and a pair's change given where none is due was told CARRIED: walk54a).
_ANSWERED: dict[str, tuple[Any, Any, Any]] = {}


def _same_call_again(kept: tuple, args: tuple, got: Any) -> bool:
    """Whether ``args`` are the kept call's (the trusted side's own inputs) and ``got`` its answer again."""
    try:
        return bool(kept[2] == args and same(kept[1], got))
    except Exception:  # noqa: BLE001  (arguments that do not compare: another call)
        return False


def verdict(task: Task, learner: Callable, reference: Callable, case: Case, expected: Any = _UNKNOWN) -> str | None:
    """``None`` when the learner agrees with the reference on ``case``; else the failure message. ``expected``:
    the reference's answer when it is known already (a class's hidden inputs are answered once). What came back is
    read and compared under :data:`CHECK_CPU_SECONDS` (:func:`checked`)."""
    args = materialized(case.args, learner)
    if expected is _UNKNOWN:
        expected = expected_result(task, reference, args)
    call = call_repr(task, case)
    outcome = call_task(task, learner, args)
    return checked(call, _compared, task, learner, call, args, expected, outcome)


# CPU seconds of the grading process for one case's check of what the learner's code returned: its comparison with the
# reference's answer and the failure's words (verdict), or a judge's reading (TaskGraders.judge: lab 05's order of heap
# entries, lab 10's sealed trees), the learner's calls it makes aside (their waits for the worker, or their run in a
# kernel: cpu_limit.outside_the_limit), each under its own limits. What a case reads is linear in a reply, but a reply
# nests 100 deep and a tuple's comparison asks equality down the whole chain at each level: lab 05's heap_entry padding
# its entries with a million empty lists in 95 tuples cost the judge 1.2 s of CPU time a comparison of two tied entries,
# 39 s for a group of ten, outside every limit of the notebook's (its budget is read before a request, not while the
# grader decides): sections 108-110 of tests/test_grading_redteam.py. Past it the case fails (a step in C, such as one
# comparison, runs to its end before the limit's raise: about 1.2 s there, a reply being 4 MiB). The slowest honest check
# of every lab's solution, self-graded, spends 0.07 s (lab 06's build_arena on GPT-2's 50,257 tokens; lab 05's judge
# 0.009 s, lab 10's 0.015 s): a margin of 70 times, and CPU time, which a busy machine hardly changes.
CHECK_CPU_SECONDS = 5.0


def checked(call: str, check: Callable[..., str | None], *args: Any) -> str | None:
    """``check(*args)``, a case's failure message or ``None``, run under :data:`CHECK_CPU_SECONDS` of this process's
    CPU time (the learner's calls it makes aside, :func:`call_learner`): past them, the case fails, named by ``call``.
    The observe and the hints inside it keep their own limits, ending sooner."""
    try:
        return within_cpu(CHECK_CPU_SECONDS, check, *args)
    except OutOfCpuTime:
        return (f"{call}: the grader's check of your result ran out of its {CHECK_CPU_SECONDS:g} s of CPU time (the "
                "grading process's reading of what came back, not your code's run): is a value of it nested far deeper, "
                "or built far larger, than its input needs?")


def judged(graded: TaskGraders, learner: Callable, args: tuple, memo: dict) -> str | None:
    """The verdict of ``graded.judge`` on one input, :func:`checked` as any case's comparison is."""
    shown = short_repr(args[0] if len(args) == 1 else args, 120)
    return checked(f"{graded.task.name} on the {graded.noun} {shown}", graded.judge, learner, args, memo)


def _compared(task: Task, learner: Callable, call: str, args: tuple, expected: Any, outcome: Outcome) -> str | None:
    """:func:`verdict`'s reading of ``outcome``, the call of ``learner`` on ``args``, against ``expected``."""
    owner = getattr(learner, "sandbox", None) if runs_remotely(learner) else None
    if outcome.reference_calls:
        return (
            f"{task.name} calls the reference solution ({outcome.reference_calls[0]}) in {call}. "
            "The graders compare your code with bpe_ref, so calling it proves nothing: write it yourself."
        )
    if outcome.error is not None:
        if error_name(outcome.error) == "NotImplementedError":
            if owner is not None:  # graded: its hidden test calls it before measuring it (_hidden)
                owner.unwritten.add(learner.name)
            return (f"{task.written_in or task.name} is not written yet: it still raises NotImplementedError (write your "
                    "code in place of the skeleton's raise)")
        return "\n".join([f"{call} raised {_first_line_of(outcome.error)}", f"  expected: {short_repr(expected, 300)}",
                          *hints(task, args, expected, error=outcome.error), *stand_in_note(task)])
    learner_args, result = outcome.value
    changed = changed_argument(task, args, learner_args)
    if changed:
        return "\n".join([f"{call} {changed}", *stand_in_note(task)])
    try:  # what it observes is read from the worker's reply: bounded (compare.OBSERVE_CPU_SECONDS, section 107)
        got = plain(within_cpu(OBSERVE_CPU_SECONDS, task.observed, learner_args, result), f"what {task.name} returned")
    except OutOfCpuTime:
        return (f"{call}: what it returned (with its arguments after the call) took the grader more than "
                f"{OBSERVE_CPU_SECONDS:g} s of CPU time to read: is a list or a dict of it built far larger than its input "
                f"needs (linked nodes read from many starts)?\n  expected: {short_repr(expected, 300)}")
    except WrongType as wrong:
        what = f" ({task.what})" if task.what else ""
        return f"{call} returned the wrong type: {wrong}\n  expected: {short_repr(expected, 300)}{what}"
    kept, _ANSWERED[task.name] = _ANSWERED.get(task.name), (owner, got, args)
    before = kept[1] if kept is not None and kept[0] is owner and not _same_call_again(kept, args, got) else None
    if same(expected, got):
        return None
    where = difference(expected, got, item=task.item, first=task.first)
    shown = in_order_of(expected, got)
    if len(repr(expected)) <= SHORT_REPR_CHARS and repr_within(got, SHORT_REPR_CHARS) is not None:
        lines = [f"{call}: expected {expected!r}, got {shown!r}", f"  where they differ: {where}"]
    else:  # too long to read whole: the first line says where they differ
        lines = [f"{call}: {where}"]
        index = first_differing_item(expected, got)
        if index is not None and len(repr(expected)) > SHORT_REPR_CHARS and len(expected) > 7:
            # A long list: show the items around the first difference, not its (identical) start (a tuple of a few
            # results, e.g. (buffer, offsets), shows each abbreviated below).
            label = f"{task.item} {index + task.first}"
            lines += [f"  expected, around {label}: {window_repr(expected, index, first=task.first)}",
                      f"  got, around {label}:      {window_repr(got, index, first=task.first)}"]
        else:
            lines += [f"  expected: {short_repr(expected, 300)}", f"  got:      {short_repr(shown, 300)}"]
    lines += [f"  hint: {CARRIED}"] if carried(before, expected, got) else hints(task, args, expected, got)
    lines += stand_in_note(task)
    return "\n".join(lines)


def refuse(task: Task, learner: Callable) -> None:
    """Fail before any case when ``learner`` is not a function of the learner's own, uses the reference
    (:func:`.trap.refuse_reference_use`), or is defined in a notebook cell where the task wants a module
    (:attr:`Task.in_module`; in the learner's kernel only: the grading worker imports it from its module)."""
    refuse_reference_use(task, learner)
    if task.in_module and getattr(learner, "__module__", None) == "__main__":
        raise CheckFailed(
            f"{task.name} is defined in a notebook cell (its module is __main__): a worker started by spawn or "
            f"forkserver cannot import it, so the tasks that start workers fail with it.\n  hint: write it in the cell "
            f"that starts with %%writefile {task.in_module}.py, run that cell, then the read-only import cell after it")


def built(cases: Sequence[Case | Later | tuple]) -> list[Case]:
    """``cases`` as :class:`Case` objects, each :class:`Later` one built now (one case, or a list of them)."""
    found: list[Case] = []
    for case in cases:
        case = case.build() if isinstance(case, Later) else case
        found += case if isinstance(case, list) else [case if isinstance(case, Case) else Case(tuple(case))]
    return found


def check_cases(task: Task, learner: Callable, reference: Callable, cases: Sequence[Case | Later | tuple]) -> int:
    """Run fixed cases in order; raise :class:`CheckFailed` at the first disagreement. Returns the count."""
    refuse(task, learner)
    cases = built(cases)
    for case in cases:
        message = verdict(task, learner, reference, case)
        if message:
            raise CheckFailed(message)
    return len(cases)


def hypothesis_randomness(name: str) -> tuple[dict, Callable[[Callable], Callable]]:
    """``(settings keywords, decorator)`` that make a hypothesis test draw as
    :func:`~bpe_ref.course.trusted.verdicts.hidden_seed` says: derandomized without a seed, else seeded
    from it and ``name`` (every task its own inputs, the same for the whole class and at a regrade)."""
    seed = current_seed()
    from hypothesis import seed as seeded

    drawn = None if seed is None else int.from_bytes(hashlib.sha256(f"{seed}:{name}".encode()).digest()[:8], "big")

    def decorate(test: Callable) -> Callable:
        if drawn is not None:
            test = seeded(drawn)(test)

        @functools.wraps(test)
        def run(*args, **kwargs):
            with _without_local_constants():
                return test(*args, **kwargs)

        return run

    return {"derandomize": drawn is None}, decorate


@contextmanager
def _without_local_constants() -> Iterator[None]:
    """Hypothesis (6.13x on) mixes into its draws constants read from the source of the *local* modules loaded
    so far (those outside site-packages: ``bpe_ref`` run from a checkout). Which are loaded changes as a class is
    graded (a grader imports what it needs when it first runs), so the same seed could draw other inputs for a
    later notebook or a regrade; derandomized, the learner's kernel would draw other inputs as it imports more (and
    the course's tests, in whichever order a worker ran them); and reading them costs about half a CPU-second per
    process. While a property test runs, the pool of local constants is empty: the inputs depend on the seed (or
    the derandomized sequence) alone. A no-op on versions without it."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - an older hypothesis: no local constants
        yield
        return
    local_constants = getattr(providers, "_get_local_constants", None)
    constants_class = getattr(providers, "Constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if local_constants is None or constants_class is None or not hasattr(cache, "clear"):
        yield
        return
    none = constants_class()
    providers._get_local_constants = lambda: none
    cache.clear()  # it holds the constants allowed per kind of draw, local ones included
    try:
        yield
    finally:
        providers._get_local_constants = local_constants
        cache.clear()


# ---- a class's hidden inputs, drawn once ------------------------------------------------------
# Graded, a property test draws from the class's secret seed and the task's name: every notebook of the class
# gets the same inputs in the same order (all of them when it passes; those up to its first failure when not).
# So they are drawn, and the reference's answers computed, once per class: a dry run of hypothesis with no learner
# in it, kept in this (the trusted) process's memory, never on disk; each notebook's calls then replay them in
# order. Only a notebook that fails one runs hypothesis again, to shrink: that run draws the same inputs, so it
# skips the ones the replay just passed and takes the replay's failure as its own at the failing one, and the
# learner's code sees exactly the calls a run without the kept inputs makes. Only while a whole class is graded
# (:func:`~bpe_ref.course.trusted.verdicts.grading_a_class`): a self-grade's one notebook draws as it goes.

MAX_KEPT_TESTS = 256  # property tests kept at once (a strategy built anew at every call gets an entry each time)


@dataclass
class Drawn:
    """The inputs one property test draws from the class's seed, in order, each with the reference's answer
    (:data:`_UNKNOWN` for a judged task, or one with file arguments: their paths are each worker's own)."""

    inputs: list[tuple]
    expected: list[Any]


_KEPT: dict[Any, Any] = {"seed": None, "tests": {}}


SHRINK = True  # off only in tests that ask whether a function fails, not with which input (they skip most of the work)


def _settings(strategy: Any, max_examples: int, name: str) -> Callable[[Callable], Callable]:
    """How every property test runs hypothesis: ``given(strategy)`` within its bounds, from the seed (or
    derandomized), no deadline, no example database, shrinking on (:data:`SHRINK`)."""
    from hypothesis import HealthCheck, Phase, given, settings

    randomness, seeded = hypothesis_randomness(name)

    def decorate(test: Callable) -> Callable:
        return seeded(settings(
            max_examples=max_examples,
            **randomness,
            deadline=None,
            database=None,
            print_blob=False,
            report_multiple_bugs=False,
            phases=(Phase.explicit, Phase.generate) + ((Phase.shrink,) if SHRINK else ()),
            suppress_health_check=list(HealthCheck),
        )(given(strategy)(test)))

    return decorate


def class_inputs(task: Task, reference: Callable | None, strategy: Any, max_examples: int, judged: bool) -> Drawn | None:
    """The inputs of this property test under the current seed, and the reference's answers: drawn by a dry
    run of hypothesis the first time, kept for the rest of the class (``None``: not kept, drawn afresh)."""
    seed = current_seed()
    if _KEPT["seed"] != seed:
        _KEPT.update(seed=seed, tests={})
    tests = _KEPT["tests"]
    # The objects themselves are the key, held by it: no other strategy can take a forgotten one's id.
    key = (task, reference, strategy, max_examples, judged)
    try:
        hash(key)
    except TypeError:  # a task declared with an unhashable field: drawn afresh, as in a self-grade
        return None
    if key not in tests:
        drawn = Drawn([], [])

        @_settings(strategy, max_examples, task.name)
        def dry_run(args: tuple) -> None:
            args = tuple(args)
            answer = _UNKNOWN if judged or any(_holds_file(arg) for arg in args) else expected_result(task, reference, args)
            drawn.inputs.append(copy.deepcopy(args))
            drawn.expected.append(answer)

        dry_run()
        if len(tests) >= MAX_KEPT_TESTS:
            tests.pop(next(iter(tests)))
        tests[key] = drawn
    return tests[key]


def _same_input(kept: Any, drawn: Any) -> bool:
    """Whether hypothesis drew exactly the kept input again: the same types, values and dict order."""
    if type(kept) is not type(drawn):
        return False
    if isinstance(kept, dict):
        return len(kept) == len(drawn) and all(_same_input(k, d) for k, d in zip(kept.items(), drawn.items()))
    if isinstance(kept, (list, tuple)):
        return len(kept) == len(drawn) and all(_same_input(k, d) for k, d in zip(kept, drawn))
    return bool(kept == drawn)


def check_property(
    task: Task,
    learner: Callable,
    reference: Callable,
    strategy: Any,
    *,
    max_examples: int = 100,
    min_examples: int | None = None,
    judge: Callable[[tuple], str | None] | None = None,
    noun: str = "input",
) -> int:
    """Compare ``learner`` with ``reference`` on inputs drawn from ``strategy`` (tuples of arguments).

    Hypothesis runs derandomized in the learner's kernel (the same inputs every run) and from the
    grading's secret seed when graded (:func:`~bpe_ref.course.trusted.verdicts.hidden_seed`), with no deadline, no example
    database and at most ``max_examples`` inputs; on a disagreement it shrinks the input, and the
    message reports that smallest failing input. Returns how many inputs were tried. Fewer than
    ``min_examples`` (default: a quarter of ``max_examples``, at least 1) compared inputs is a
    failure, never a pass: the count is kept here, where the learner's code does not run. A ``judge(args)``
    replaces the comparison with the reference where the answer is not one value (lab 05's heap entries must
    sort in the rule's order); ``noun`` names an input in the messages. Graded in the worker, a class's inputs
    are drawn once (:func:`class_inputs`) and replayed; the verdict and its message are the same as drawn afresh.
    """
    minimum = max(1, max_examples // 4) if min_examples is None else min_examples
    refuse(task, learner)

    def one(args: tuple, expected: Any = _UNKNOWN) -> str | None:
        return verdict(task, learner, reference, Case(args), expected) if judge is None else judge(args)

    passed_before, failed_before, kept = 0, None, None
    if grading_a_class() and runs_remotely(learner):
        kept = class_inputs(task, reference, strategy, max_examples, judge is not None)
    if kept is not None:
        for args, expected in zip(kept.inputs, kept.expected):
            failed_before = one(copy.deepcopy(args), expected if expected is _UNKNOWN else copy.deepcopy(expected))
            if failed_before:
                break
            passed_before += 1
        else:
            return _enough(task, passed_before, minimum, noun)
    return _enough(task, _run_hypothesis(task, strategy, max_examples, one, noun, kept, passed_before, failed_before),
                   minimum, noun)


def _run_hypothesis(task: Task, strategy: Any, max_examples: int, one: Callable[..., str | None], noun: str,
                    kept: Drawn | None, passed_before: int, failed_before: str | None) -> int:
    """Hypothesis's run of a property test, shrinking a failure: the count of inputs tried. After a replay of the
    class's inputs that failed (``kept``), the first ``passed_before`` inputs it draws pass without a call (the
    replay passed them), and the next fails with the replay's ``failed_before``: the learner's code is called as
    in a run that draws them afresh."""
    tried = [0]
    failures: list[str] = []
    skipping = [kept is not None]  # still on the inputs the replay called

    @_settings(strategy, max_examples, task.name)
    def agrees_with_reference(args: tuple) -> None:
        index = tried[0]
        tried[0] += 1
        args = tuple(args)
        if skipping[0] and kept is not None and index <= passed_before:
            # Never seen: the seed draws one sequence. Should it differ, the learner's code is called from here on.
            skipping[0] = index < len(kept.inputs) and _same_input(kept.inputs[index], args)
        if skipping[0]:
            if index < passed_before:
                return
            skipping[0] = False
            message = failed_before
        else:
            message = one(args)
        if message:  # one line raises every failure: hypothesis tells failures apart by where they were raised
            failures.append(message)
            raise CheckFailed(message)

    try:
        agrees_with_reference()
    except CheckFailed:
        # Hypothesis re-raises the failure of the smallest input last: that is the one to show.
        raise CheckFailed(
            f"{failures[-1]}\n  (the smallest failing {noun} hypothesis found, among {tried[0]} generated {noun}s)"
        ) from None
    except Exception:
        if not failures:  # a problem of the grader itself: let it show
            raise
        # Hypothesis's "flaky" error: the same input failed once and passed when run again.
        raise CheckFailed(
            f"{failures[-1]}\n  (this {noun} failed once but not when run again: does {task.name} depend on "
            "anything besides its arguments, such as a global variable it changes?)"
        ) from None
    if failed_before:  # the replay's failure stands, though this run drew other inputs (never seen)
        raise CheckFailed(f"{failed_before}\n  (a failing {noun} among {passed_before + 1} generated {noun}s)")
    return tried[0]


def _enough(task: Task, tried: int, minimum: int, noun: str) -> int:
    """``tried``, or :class:`CheckFailed` when fewer than ``minimum`` inputs were compared."""
    if tried < minimum:  # hypothesis switched off or patched, or a strategy that ran dry
        raise CheckFailed(
            f"only {tried} generated {noun}s were compared for {task.name}, fewer than the {minimum} required: "
            "the property test did not really run"
        )
    return tried


def _one_short_failure(function: Callable) -> Callable:
    """``function``, whose failure surfaces as one short :class:`CheckFailed` traceback (the cell,
    then this line), not the grading machinery's inner frames."""

    @functools.wraps(function)
    def entry_point(*args, **kwargs):
        __tracebackhide__ = True  # pytest leaves this frame out of its tracebacks
        try:
            return function(*args, **kwargs)
        except CheckFailed as failure:
            message = str(failure)
        raise CheckFailed(message) from None

    return entry_point


def grader(function: Callable) -> Callable:
    """Decorate a grader's entry point, the one call of a graded test cell (see
    :func:`_one_short_failure` for how it fails)."""
    entry_point = _one_short_failure(function)
    entry_point.is_grader = True  # what tests and tools list as a lab's graders
    return entry_point


def advisory(function: Callable) -> Callable:
    """Decorate the self-check of a stretch task: it fails like a grader, with the call, what was
    expected, what came back, the smallest failing input and a hint, but it is advice only. No
    graded test cell calls it, the trusted grader never runs it (it is not ``is_grader``), and it
    carries no points: a stretch cell calls it in the learner's kernel, skipped under the autograder."""
    entry_point = _one_short_failure(function)
    entry_point.is_advisory = True  # what tests list as a lab's stretch self-checks
    return entry_point


def advice(check: Callable[[Callable], None]) -> Callable[[Callable], None]:
    """``check`` as advice, no points: in the learner's kernel a failure of it is printed as a hint, and when graded it
    is not run. For checks that rest on what the learner's process reports about itself (calls of its helpers,
    counted there), which a submission can forge: a task's points rest on what the trusted side measures."""

    def advise(learner: Callable) -> None:
        if runs_remotely(learner):
            return
        try:
            check(learner)
        except CheckFailed as failure:
            print(f"advice (no points, your code's own calls counted): {failure}")

    return advise


def passed(message: str) -> None:
    """Tell the learner a check passed (graded cells print one line when they pass)."""
    print(message)


def check_fixed_cases(graded: TaskGraders, learner: Callable) -> int:
    """The fixed cases of one declaration in order, judged (``graded.judge``) or against the reference; raise
    :class:`CheckFailed` at the first disagreement. Returns the count."""
    if graded.judge is None:
        return check_cases(graded.task, learner, graded.reference, graded.cases)
    refuse(graded.task, learner)
    memo: dict = {}
    cases = built(graded.cases)
    for case in cases:
        message = judged(graded, learner, case.args, memo)
        if message:
            raise CheckFailed(message)
    return len(cases)


def _visible(graded: TaskGraders, learner: Callable) -> int:
    """The visible test's fixed cases of one declaration (judged, or against the reference), then its how-checks."""
    count = check_fixed_cases(graded, learner)
    for verify in graded.verify:
        _measure(verify, learner, visible=True, task=graded.task)
    return count


# CPU seconds of the grading process for one check of *how* a function works, outside the cases (a TaskGraders' verify,
# hidden_verify, visible_then and hidden_then: the measured growth of labs 02, 04 and 05, lab 05's and 07's observes of
# the heap, lab 08's calls compared with a replay...): what it builds and the reference's runs it times count, the
# learner's calls it makes do not (their waits for the worker, or their run in a kernel: cpu_limit.outside_the_limit).
# Each case of it keeps its own CHECK_CPU_SECONDS (checked), and each observe and hint its own. Before, such a check
# read the worker's replies with no limit at all, the only reading of the trusted side left so (section 122 of
# tests/test_grading_redteam.py). The slowest honest how-checks of the solutions, graded in the worker (fix54, one
# grading of each lab): lab 04's verify_merge_cost 1.57 s (the reference's timed runs), lab 03's verify_worker_processes
# 1.21 s, lab 08's replay checks 0.88 s, lab 05's verify_push_cost 0.81 s, every other one under 0.7 s. CPU time, which a
# busy machine hardly changes; a measured check tries again under load (up to measured.TRIES, its reference runs again
# each time): 20 s is 13 times the slowest and more than its five tries. A crafted reply cost lab 10's check of a range
# that starts inside a character 1.2 s (section 122); a check whose reading is slower, as long as the reply makes it.
HOW_CPU_SECONDS = 20.0


def how_checked(check: Callable[[Callable], None], learner: Callable, task: Task | None) -> None:
    """``check(learner)``, a how-check of ``task``, under :data:`HOW_CPU_SECONDS` of this process's CPU time (the
    learner's calls aside): past them, :class:`CheckFailed` naming the check."""
    try:
        within_cpu(HOW_CPU_SECONDS, check, learner)
    except OutOfCpuTime:
        name = getattr(check, "__name__", "its check")
        name = "a check" if name == "<lambda>" else name
        function = task.name if task is not None else getattr(learner, "__name__", "your function")
        raise CheckFailed(
            f"{function}: the grader's check of how it works ({name}) ran out of its {HOW_CPU_SECONDS:g} s of CPU time "
            "(the grading process's own work and its reading of what your code returned, not your code's run): is a "
            "value your code returned nested far deeper, or built far larger, than its input needs?") from None


def _measure(verify: Callable[[Callable], None], learner: Callable, visible: bool, task: Task | None = None) -> None:
    """Run the how-check ``verify`` (a measured cost, the same in a task's visible and hidden test) on ``learner``. When
    graded, a check that passed in the visible test is not measured again in the hidden one: the measure is the trusted
    side's own, on inputs drawn from the same secret seed, and it costs the most of a lab's grading (lab 04's two runs of
    its merge cost about 30 s of CPU time). A failure is measured again, so that an honest call slowed by a burst of
    load in the visible test still gets its hidden points."""
    passes = getattr(getattr(learner, "sandbox", None), "measured_passes", None) if runs_remotely(learner) else None
    if passes is None:
        how_checked(verify, learner, task)
        return
    key = (getattr(verify, "__module__", "").rsplit(".", 1)[-1], verify.__qualname__, learner.name)
    if not visible and key in passes:
        print(f"{passes[key]} (as measured in the visible test)")
        return
    said = io.StringIO()
    with redirect_stdout(_Tee(sys.stdout, said)):
        how_checked(verify, learner, task)
    passes[key] = said.getvalue().strip() or f"{learner.name}: its measured check passed"


class _Tee(io.TextIOBase):
    """Writes to two streams: what a check prints reaches the cell and is kept."""

    def __init__(self, *streams) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)


def varied(graded: TaskGraders) -> list[Case]:
    """The fixed hidden cases of ``graded`` as they are, then each again through its ``hidden_vary`` with a generator
    drawn from the grading's secret seed and the case's place (without a vary, or without a seed, as in the learner's
    kernel: as they are only). The cases are in the graders' source, so a table of their answers kept their points
    while they were graded as they are alone; they stay graded as they are too, since some catch a mistake at the
    text's very edge (a leading byte order mark, a stripped space) that words around them would hide."""
    cases = built(graded.hidden_cases)
    seed = current_seed()
    if graded.hidden_vary is None or seed is None:
        return cases
    # A copy's labels say it is one: "<path of the TinyStories sample>" no longer names what the copy holds.
    return cases + [replace(case, args=graded.hidden_vary(case.args, random.Random(
        hashlib.sha256(f"{seed}:{graded.task.name}:fixed:{index}".encode()).digest())),
        labels={place: f"{label}, varied by the grading's seed" for place, label in case.labels.items()})
        for index, case in enumerate(cases)]


def _hidden(graded: TaskGraders, learner: Callable) -> int:
    """The hidden test of one declaration: its how-checks first (else the answers alone could pass), then its
    fixed hidden cases and generated inputs. When graded, a function that raised NotImplementedError earlier in the
    notebook (the release's skeleton, or code not all written) is measured last: it fails at its first call, not after
    the reference's costly runs a measured check makes first. Each must pass, so the test's verdict is the same."""
    for verify in graded.hidden_verify:
        how_checked(verify, learner, graded.task)

    def measure() -> None:
        for verify in graded.verify:
            _measure(verify, learner, visible=False, task=graded.task)

    unwritten = runs_remotely(learner) and learner.name in getattr(getattr(learner, "sandbox", None), "unwritten", ())
    if not unwritten:
        measure()
    count = check_cases(graded.task, learner, graded.reference, varied(graded)) if graded.hidden_cases else 0
    if graded.strategy is not None:
        memo: dict = {}
        judge = None if graded.judge is None else (lambda args: judged(graded, learner, args, memo))
        count += check_property(graded.task, learner, graded.reference, graded.strategy, max_examples=graded.max_examples,
                                min_examples=graded.min_examples, judge=judge, noun=graded.noun)
    if unwritten:
        measure()
    return count


def kept_case(graded: TaskGraders) -> Case | None:
    """The case :func:`check_answers_not_kept` calls ``graded``'s function on: its first visible case whose answer holds a
    list, dict or set, and a later one with another answer (else the same again); ``None`` where no case applies: a task
    with a driver (its answers are what it makes of them), or no such answer. A task's observe applies to each of the two
    answers (walk58: lab 07's first heaps, kept and handed back, had no such call). A task whose arguments are files
    (lab 03's boundaries, lab 10's plans) takes its first case and the next one on other arguments: their answers are
    read only by the call itself, on the files written for it (walk58: cuts kept by the path, handed back)."""
    task = graded.task
    if task.driver is not None or task.in_module or graded.reference is None:
        return None
    cases = [case if isinstance(case, Case) else Case(tuple(case)) for case in graded.cases if not isinstance(case, Later)]
    if any(_holds_file(case.args) for case in cases):
        return next((Case((cases[0].args, later.args)) for later in cases[1:] if later.args != cases[0].args), None)
    answers = [expected_result(task, graded.reference, case.args) for case in cases]
    for index, (case, answer) in enumerate(zip(cases, answers)):
        if holds_a_container(answer):
            other = next((later for later, its in zip(cases[index + 1:], answers[index + 1:]) if its != answer), case)
            return Case((case.args, other.args))
    return None


def check_answers_not_kept(graded: TaskGraders, learner: Callable) -> int:
    """The hidden test's last case, after its declarations' cases and before its ``hidden_then``: ``graded``'s function
    called through :func:`.kept.called_twice` on
    :func:`kept_case`'s inputs, its first answer changed in place before the same input again, then another input. A
    cache that hands back the object it keeps, or one object filled again at each call, fails it. Returns the count."""
    case = kept_case(graded)
    if case is None:
        return 0
    own = graded.task.hint

    def hint(args: tuple, expected: Any, got: Any) -> str | None:
        """:func:`.kept.kept_hint`, else the task's own hint on the first answer that differs (with its arguments)."""
        found = kept_hint(args, expected, got)
        if found is None and own is not None and isinstance(got, list) and len(got) == len(expected) == len(args):
            found = next((own(called, wanted, answer) for called, wanted, answer in zip(args, expected, got)
                          if wanted != answer), None)
        return found

    observe = graded.task.observe

    def each_observed(args: tuple, answers: Any) -> Any:
        """The task's observe of each answer, with its call's arguments (what the driver returned, where not two). An
        answer that holds the caller's change is observed without it, and the observed dict says it was there: the
        observe of a list with a str in it returned the list, told "expected a dict, got a list" (walk58's red team)."""
        if not (isinstance(answers, list) and len(answers) == 2):
            return answers
        observed = []
        for called, answer in zip(args, answers):
            kept, changed = without_the_change(answer)
            seen = observe(called, kept)
            observed.append({**seen, CHANGED: True} if changed and isinstance(seen, dict) else
                            seen if not changed else observe(called, answer))
        return observed

    task = replace(graded.task, params=("the first call's arguments", "the other call's arguments"), driver=called_twice,
                   unchanged=(), what="a list of the two answers", hint=hint, error_hint=None, item="answer", first=1,
                   observe=each_observed if observe is not None else None)
    message = verdict(task, learner, graded.reference, case)
    if message:
        raise CheckFailed(message)
    return 1


def graders_of(graded: TaskGraders) -> tuple[Callable[..., None], ...]:
    """The graders of a task declaration: ``check_<name>`` (the visible test cell) and, with generated inputs,
    ``check_<name>_properties`` (the hidden one), each over ``graded.then`` too (see :class:`TaskGraders`).
    ``visible_then`` and ``hidden_then`` run last, after the pass line."""
    task, then = graded.task, graded.then
    same = then is not None and then.task.name == task.name  # a second declaration of the same function
    other = then is not None and not same  # another function, the visible grader's second argument

    def visible(learner: Callable) -> None:
        count = _visible(graded, learner) + (_visible(then, learner) if same else 0)
        passed(f"{task.name}: all {count} visible cases pass.")
        if graded.visible_then is not None:
            how_checked(graded.visible_then, learner, task)

    if other:
        def check(learner: Callable, second: Callable) -> None:
            visible(learner)
            passed(f"{then.task.name}: all {_visible(then, second)} visible cases pass.")
    else:
        check = visible
    check = grader(check)
    check.task, check.reference = task, graded.reference
    if graded.judge is None and not other:  # one function against one reference: answers a table could copy
        check.cases = [case for case in graded.cases if isinstance(case, Case)]
    check.__name__ = check.__qualname__ = f"check_{task.name}"
    check.__doc__ = f"Visible test of {task.name}: its fixed cases, compared with the reference."
    derived: tuple[Callable, ...] = (check,)
    if graded.strategy is not None or (same and then.strategy is not None):

        @grader
        def check_properties(learner: Callable) -> None:
            count = _hidden(graded, learner) + (_hidden(then, learner) if same else 0)
            count += check_answers_not_kept(graded, learner)  # after every case: a wrong answer is told by them first
            fixed = "fixed and " if graded.hidden_cases else ""
            passed(f"{task.name}: agrees with the reference on {count} {fixed}generated inputs.")
            if graded.hidden_then is not None:
                how_checked(graded.hidden_then, learner, task)

        check_properties.task, check_properties.reference = task, graded.reference
        check_properties.__name__ = check_properties.__qualname__ = f"check_{task.name}_properties"
        check_properties.__doc__ = f"Hidden test of {task.name}: generated inputs, compared with the reference."
        derived += (check_properties,)
    if other:
        derived += graders_of(then)[1:]  # its hidden test; its visible one is part of check
    return derived


def stretch(name: str, graded: TaskGraders) -> Callable[..., None]:
    """A stretch task's self-check, ``check_stretch_<name>`` (:func:`advisory`, no points): the declaration's
    visible and hidden tests in one call; ``graded.then``'s function, when it is another, as its second argument."""
    visible, *hidden = graders_of(graded)

    def self_check(learner: Callable, *others: Callable) -> None:
        visible(learner, *others)
        for test in hidden:
            test(learner if test.task.name == graded.task.name else others[0])

    self_check.__name__ = self_check.__qualname__ = f"check_stretch_{name}"
    self_check.__doc__ = f"Stretch self-check: {graded.task.name}'s fixed and generated cases, against the reference."
    return advisory(self_check)
