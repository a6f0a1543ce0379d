"""Checks of *how* a trainer works, measured from outside the learner's code: the CPU time its
process spends, read from the kernel (:mod:`..trusted.measure_worker`), not reported by the code.

A merge loop that visits only the words a merge changes (V4) or picks each pair from a heap (V5) spends almost nothing
per merge once its structures are built; one that still scans every word or every pair spends a pass over the corpus
per merge. So the trainer runs twice on a corpus built for it, with 1 merge and with many, and the CPU time of the
extra merges is compared with the first run's: a growth ratio, free of the machine's speed. CPU time, not wall time,
so that load does not make honest code look slow; each run's fastest of two tries or more (load only makes a run
slower), so that a burst neither fails honest code nor, by slowing the short run, passes a slow method; a run past
:func:`stop_at` the most that could pass is stopped there. The learner's code can pad its short run: so both runs are
also bounded by the reference's CPU time on a corpus of the same shape, run meanwhile in this process (a slack plus a
factor, :data:`MERGE_FACTOR`). The merges of both runs must be the reference's (a quick wrong answer measures
nothing), on a corpus drawn from the grading's secret seed (:func:`measured_random`), unknown in advance.

Every measured call gets an input it has never seen: the checks declare a builder, ``build(index)``, and each
measured call of this process (each try, each run, of every check) gets its own index (:data:`FRESH`): a learner's
cache of answers would otherwise pay for a wrong method on the first try only.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import hashlib
import itertools
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from dataclasses import dataclass, replace

from ..trusted.measure_worker import cpu_seconds, tree_cpu_seconds
from ..trusted.verdicts import CheckFailed, CpuLimitReached, GradingStopped, LearnerError, current_seed
from .compare import WrongType, bounded_hint, error_name, plain, same
from .running import Outcome, TookTooLong, call_learner, check_cases, check_fixed_cases, passed
from .spec import Task, TaskGraders, runs_remotely

TRIES = 5  # at most this many tries of the pair of runs: the later ones run only while a ratio sits above its limit
# (three docked an honest lab-04 V4 under a burst of load in CI; a wrong method's ratio stays above it)
PASS_AFTER = 2  # tries before a check may pass: one slow short run (a burst of load) must not shrink a slow method's
# ratio; each run's cost is its fastest over the tries (load makes runs slower, never faster)
CLEAR_RATIO, CLEAR_COST = 0.5, 2 / 3  # but a first try passes alone with its ratio at most half the limit and each run
# at most 2/3 of the bound. Lab 04's narrowest slow method measured 0.84-0.89 for 0.7 and 4.8-5.9 times the reference
# for 3 on 250 merges (13 for 2.5 and 10 times on 1,500); its V4 0.00-0.24 and 1.2-2.0 times (about 0.5 and 1.1 on
# 1,500): honest work mostly passes so, saving a try (about 8 s of lab 04's grading)
FRESH = itertools.count()  # the index of the next measured call's input in this process: no two calls share one
SCALES = itertools.count()  # the index of the next drawn scale of a measured check's sizes (its spread)
COST_SPREAD = 1.5  # the spread of the MeasuredCost checks' sizes: their measured size unknown in advance, at most 1.5x
STOP_MARGIN, STOP_SLACK = 1.5, 0.5  # a measured call is stopped past 1.5 times the most CPU time that could pass, plus 0.5 s
MERGE_FACTOR, MERGE_SLACK = 3.0, 0.15  # a trainer's measured runs may cost 0.15 s (the worker decoding the corpus) + 3
# times the reference's. Fastest of 2-3 tries over the reference's, load 10-16: honest work 1.0 to 2.4 (lab 04's V4
# 1.2-1.7, lab 05's V5 1.2-1.5), lab 04's V4 visiting every word 4.2-4.9 on 250 merges (padded to a floor under the
# bound, it passed: lab 04 measures 1,500 merges since, where it spends 5 to 10 times the reference's), lab 02's V1 9.5-13

def stop_at(most: float) -> float:
    """The CPU seconds after which a measured call that may spend at most ``most`` is stopped, and its check fails at
    once: far enough past ``most`` that an honest call slowed by load (CPU time, so little) never gets there, so that a
    wrong method costs this rather than its whole timeout at every grading."""
    return STOP_MARGIN * most + STOP_SLACK


def worker_cpu_seconds(learner: Callable) -> Callable[[], float | None]:
    """A reader of the CPU seconds spent so far by the grading worker and every process it started (its keeper's tree,
    :func:`~..trusted.measure_worker.tree_cpu_seconds`, the processes that ended included), or by the worker alone where
    there is no keeper. The worker's own time alone missed a method run in a child process: lab 03's boundary search
    that kept its whole window, run in a pool of one process, measured 0.00 s (walk58's red team)."""
    pid, keeper = learner.sandbox.worker_pid, keeper_id(learner)
    if keeper is None or tree_cpu_seconds(keeper) is None:
        return lambda: cpu_seconds(pid, children=False)

    def tree() -> float | None:
        seconds = tree_cpu_seconds(keeper, learner.sandbox.ended_cpu())
        return None if seconds is None else seconds[0]

    return tree


def cpu_of_call(task: Task, learner: Callable, args: tuple, cpu_limit: float | None = None) -> tuple[Outcome, float]:
    """Call ``learner(*args)`` as the graders do and return its outcome and the CPU seconds spent meanwhile: by the
    grading worker and the processes it started (:func:`worker_cpu_seconds`), read from ``/proc`` by this process; in a
    notebook, the calling thread's (``time.thread_time``): the learner's code and this call's bookkeeping, not what
    other threads of the process do meanwhile (a kernel's, or a test process's left-over workers). Past ``cpu_limit``
    CPU seconds the call is stopped: :class:`CpuLimitReached`."""
    if runs_remotely(learner):
        spent = worker_cpu_seconds(learner)
        before = spent()
        outcome = Outcome()
        try:  # as call_learner does, without the arguments sent back: their encoding would be measured too
            outcome.value = replace(learner, cpu_limit=cpu_limit).invoke(args, stand_ins=tuple(task.stand_ins), driver=task.driver,
                                                                         return_args=False)
        except LearnerError as error:
            outcome.error = error
        after = spent() if learner.sandbox.alive else None
        if after is None and before is not None and outcome.error is None:  # measurable when it began: its process
            # ended with its reply, so as to be measured not at all ("not measurable on this system" passed the check)
            raise CheckFailed(f"{task.name}(...): the process running your code ended as this measured call returned, so "
                              "its CPU time could not be measured from outside your code (a function must leave it running)")
        if before is None or after is None:
            return outcome, float("nan")
        return outcome, after - before
    collecting = gc.isenabled()
    gc.disable()  # a collection of the whole process's objects is not the learner's cost
    try:
        start = time.thread_time()
        outcome = call_learner(learner, args, task.provided, task.stand_ins, task.kernel_time_limit, task.driver, cpu_limit)
        return outcome, time.thread_time() - start
    finally:
        if collecting:
            gc.enable()


@dataclass
class Growth:
    """One try: CPU seconds with one merge (``base``) and with ``merges`` merges (``full``), and the reference's
    fastest run of ``merges`` merges on a corpus of the same shape (``reference``), whose cost bounds the runs': at most
    ``bound`` seconds (a slack plus a factor times the reference's)."""

    base: float
    full: float
    merges: int
    reference: float = float("nan")
    bound: float = float("inf")

    @property
    def ratio(self) -> float:
        """The extra merges' CPU time, relative to the one-merge run's (at least one clock tick of it)."""
        return max(0.0, self.full - self.base) / max(self.base, 0.02)

    def within(self, limit: float) -> bool:
        """Whether this try passes: the extra merges cost at most ``limit`` times the one-merge run, and neither run
        more than :attr:`bound` (the one-merge run, padded, would make any growth look small)."""
        return self.ratio <= limit and max(self.base, self.full) <= self.bound


def measured_random(name: str) -> random.Random:
    """A random generator for the measured corpus of ``name``: from the grading's secret seed when graded
    (:func:`~bpe_ref.course.trusted.verdicts.hidden_seed`), from a fixed one in the learner's kernel."""
    seed = current_seed()
    return random.Random(hashlib.sha256(f"{seed}:measured:{name}".encode()).digest())


def measured_call(task: Task, learner: Callable, args: tuple, describe: str, too_slow: str, stopped_note: str = "",
                  most: tuple[float, str] | None = None) -> tuple[object, float]:
    """``(result, CPU seconds)`` of one measured call (seconds ``nan`` where they cannot be read); fails at once
    when the call does not finish or raises. ``stopped_note`` follows a process stopped by the grading's deadline;
    ``most``: the most CPU seconds the call may spend to pass, and what that is, said when it is stopped past
    :func:`stop_at` them."""
    try:
        outcome, seconds = cpu_of_call(task, learner, args, stop_at(most[0]) if most else None)
    except CpuLimitReached as stopped:
        raise CheckFailed(f"{task.name}({describe}) took more than {stopped.seconds:.2f} s of CPU time, {most[1]} (stopped "
                          f"there, measured from outside your code): {too_slow}") from None
    except GradingStopped as stopped:
        raise CheckFailed(f"{task.name}({describe}) did not finish: {stopped}{stopped_note or ';'} {too_slow}") from None
    if outcome.error is not None:
        if isinstance(outcome.error, TookTooLong):  # in a kernel: its CPU time, or its backstop's wait
            raise CheckFailed(f"{task.name}({describe}) {str(outcome.error).partition(' (')[0]}: {too_slow}")
        raise CheckFailed(f"{task.name}({describe}) raised {error_name(outcome.error)}: {outcome.error}"
                          + error_hint_line(task, args, outcome.error))
    return outcome.value[1], seconds


def error_hint_line(task: Task, args: tuple, error: BaseException) -> str:
    """The task's hint for an error its code commonly raises (:attr:`Task.error_hint`), as a message line, told as in an
    ordinary call of the task; ``""`` when it has none (a hint that fails on the measured input gives none)."""
    if task.error_hint is None:
        return ""
    hint = bounded_hint(task.error_hint, args, error)  # it reads the measured input, which may not be the shape it expects
    return f"\n  hint: {hint}" if hint else ""


def answers_right(expected: object, got: object) -> bool:
    """Whether a measured call gave the reference's answer (same plain value, same types)."""
    try:
        return same(plain(expected), plain(got))
    except WrongType:
        return False


def fastest_of_tries(task: Task, run_pair: Callable[[], list[float]], growth: Callable[[float, float], Any], limit: float,
                     far: float, what: str) -> tuple[Any, int, bool]:
    """Run ``run_pair()`` (the CPU seconds of a short and a long run) up to :data:`TRIES` times and keep each run's
    fastest; ``(growth of the fastest, tries, passed)``: passed once it is within ``limit`` (``growth.within``) after
    :data:`PASS_AFTER` tries (or after the first, clear of both limits: :data:`CLEAR_RATIO`), stopped early past ``far``
    times the limit. ``(None, tries, False)`` where CPU time cannot be read, said in the output (``what`` is not checked)."""
    fastest = [float("inf"), float("inf")]
    for attempt in range(1, TRIES + 1):
        runs = run_pair()
        if any(seconds != seconds for seconds in runs):  # nan: not measurable here
            print(f"{task.name}: its CPU time could not be measured on this system; {what} is not checked.")
            return None, attempt, False
        fastest = [min(fastest[0], runs[0]), min(fastest[1], runs[1])]
        best = growth(fastest[0], fastest[1])
        if best.within(limit) and (attempt >= PASS_AFTER or replace(best, bound=CLEAR_COST * best.bound).within(
                CLEAR_RATIO * limit)):
            return best, attempt, True
        if best.ratio > far * limit:  # far past the limit: no burst of load explains it, no need to try again
            break
    return best, attempt, False


def with_timeout(task: Task, learner: Callable, timeout: float | None) -> tuple[Task, Callable]:
    """``task`` and ``learner`` with their calls limited to ``timeout`` seconds of CPU time, with a backstop for waiting
    (in a notebook, :func:`.running.time_limit`; in the worker, :meth:`~..trusted.sandbox.Sandbox.request`)."""
    if timeout is None:
        return task, learner
    return replace(task, kernel_time_limit=timeout), replace(learner, timeout=timeout) if runs_remotely(learner) else learner


@contextlib.contextmanager
def cases_explain_a_failure(task: Task, learner: Callable, reference: Callable, cases: Callable[[], Sequence]) -> Iterator[None]:
    """Run a measured check under it: when the check fails, the task's fixed ``cases()`` run first, as a wrong answer is
    better told by their hints than by a cost; then the check's own failure is raised. A call that was stopped or timed
    out is not called again (the cases stop there)."""
    try:
        yield
    except CheckFailed:
        with contextlib.suppress(GradingStopped):
            check_cases(task, learner, reference, cases())
        raise


@contextlib.contextmanager
def fixed_cases_explain_a_failure(graded: TaskGraders, learner: Callable) -> Iterator[None]:
    """:func:`cases_explain_a_failure` with the fixed cases of the declaration ``graded``, judged as its visible test
    judges them (:func:`.running.check_fixed_cases`)."""
    try:
        yield
    except CheckFailed:
        with contextlib.suppress(GradingStopped):
            check_fixed_cases(graded, learner)
        raise


@dataclass(frozen=True, kw_only=True)
class Measured:
    """A lab's measured check, declared: the fields say what is measured and how it is told; :meth:`verify` runs it
    (the reference's warm-up, the measure, the fixed cases that explain a failure, the pass line). The subclasses say
    what is measured: one call against the reference's (:class:`MeasuredCost`), the growth from a short input to a long
    one (:class:`MeasuredGrowth`), the cost of many merges against one (:class:`MeasuredMerges`). Every measured call
    gets a fresh input, built by index (:data:`FRESH`)."""

    task: Task
    reference: Callable
    factor: float  # each measured call may cost ``slack`` seconds plus ``factor`` times the reference's
    slack: float
    timeout: float | None  # seconds a measured call may take (a method far too slow fails then); None: no limit of its own
    too_slow: str  # what a failure says the cost means, and what to do instead
    said: Callable[[Any, str], str]  # the pass line, from the passing measure and the task's name
    cases: Callable[[], Sequence] | None = None  # run first when the check fails: their hints tell a wrong answer better
    cases_of: tuple[Task, Callable] | None = None  # the cases' task and reference, where not the measured ones
    # or the declaration whose fixed cases explain a failure, judged as its visible test judges them (a judged task's)
    explained_by: Callable[[], TaskGraders] | None = None
    warm_up: int = 0  # the reference's runs on the first input before the check (its fastest of these, and more)
    wrong_answer: str = ""  # what a wrong answer on the measured input most likely means, where the cases pass

    def verify(self, learner: Callable, name: str | None = None) -> None:
        """Run the check on ``learner`` (the task renamed ``name``, where given), and print its pass line."""
        task = replace(self.task, name=name) if name else self.task
        self.warm()
        cases_task, cases_reference = self.cases_of or (task, self.reference)
        with (cases_explain_a_failure(cases_task, learner, cases_reference, self.cases) if self.cases is not None
              else fixed_cases_explain_a_failure(self.explained_by(), learner) if self.explained_by is not None
              else contextlib.nullcontext()):
            result = self.measure(task, learner)
        if result is not None:  # None: CPU time cannot be read here (said in the output)
            passed(self.said(result, task.name))

    def warm(self) -> None:
        """The reference's runs before the check, so that one run slowed by load raises no bar."""

    def measure(self, task: Task, learner: Callable) -> Any:
        """The measure that passed, or ``None`` where CPU time cannot be read (said in the output); a failure raises
        :class:`CheckFailed`."""
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class MeasuredMerges(Measured):
    """``merges`` merges of a trainer cost at most ``limit`` times the CPU time of one merge's run, and neither run
    more than ``slack`` seconds plus ``factor`` times the CPU time of the reference's ``merges`` merges on the long run's
    corpus (its fastest so far in this process), each run's fastest of :data:`TRIES` tries (two at least, or one clear of
    both limits). ``corpus(index)`` builds the pretoken counts of a run (a fresh corpus of the same shape for each run)
    and ``expected(count)``, the reference's merges of a run of ``count`` merges on it, which the run must return (the
    long run's are the reference's run's, timed). ``shape`` names the corpus in messages, ``too_slow`` says what a scan
    per merge means in this lab."""

    corpus: Callable[[int], tuple[dict, Callable[[int], list]]]
    merges: int
    limit: float
    shape: str
    factor: float = MERGE_FACTOR
    slack: float = MERGE_SLACK

    def measure(self, task: Task, learner: Callable) -> Growth | None:
        task, learner = with_timeout(task, learner, self.timeout)
        merges, limit, slack, factor, describe, too_slow = (self.merges, self.limit, self.slack, self.factor, self.shape,
                                                            self.too_slow)
        fastest_reference = [float("inf")]

        def bound() -> float:
            return slack + factor * fastest_reference[0]

        def run_pair() -> list[float]:
            (short_counts, expected), (long_counts, _) = self.corpus(next(FRESH)), self.corpus(next(FRESH))
            fastest_reference[0], long_expected = reference_cost(self.reference, (long_counts, merges), f"{describe}, {merges}")
            than_reference = (f"the reference's {merges} merges of a corpus of this shape {fastest_reference[0]:.2f} s: "
                              f"more than {slack:g} s + {factor:g} times that")
            runs = []
            for count, counts, right in ((1, short_counts, expected(1)), (merges, long_counts, long_expected)):
                most = (bound(), than_reference)
                if runs and runs[0] + limit * max(runs[0], 0.02) < most[0]:  # the long run's, once the short one's is known
                    most = (runs[0] + limit * max(runs[0], 0.02), f"{task.name}(..., 1) {runs[0]:.2f} s: the {merges - 1} "
                            f"extra merges may cost {limit:g} times that")
                got, seconds = measured_call(task, learner, (counts, count), f"{describe}, {count}", too_slow, most=most)
                verify_merges(task, describe, count, right, got)
                runs.append(seconds)
            return runs

        best, attempt, done = fastest_of_tries(
            task, run_pair, lambda base, full: Growth(base, full, merges, fastest_reference[0], bound()), limit, 3,
            "the cost per merge")
        if best is None or done:
            return best
        if best.ratio <= limit:  # the ratio passes, a run costs too much: the one-merge run's own, or the whole trainer's
            count, seconds = (1, best.base) if best.base > best.full else (merges, best.full)
            raise CheckFailed(
                f"{task.name}({describe}, {count}) took {seconds:.2f} s of CPU time, the reference {best.reference:.2f} s for "
                f"{merges} merges of a corpus of this shape: more than {slack:g} s + {factor:g} times the reference's (each "
                f"run's fastest of {attempt} tries, measured from outside your code). Each merge of this corpus changes a "
                f"few words, so {merges} merges should cost about what the reference's do: {too_slow}")
        raise CheckFailed(
            f"{task.name}({describe}, {merges}) took {best.full:.2f} s of CPU time, {task.name}(..., 1) took "
            f"{best.base:.2f} s: the {merges - 1} extra merges cost {best.ratio:.2f} times the whole first run, more than "
            f"{limit:g} (each run's fastest of {attempt} tries, measured from outside your code). Each merge of this corpus changes a "
            f"few words, so it should cost next to nothing: {too_slow}")


def verify_merges(task: Task, describe: str, count: int, expected: list, got: object) -> None:
    """The merges of a measured run must be the reference's: a quick wrong answer measures nothing."""
    if answers_right(expected, got):
        return
    if not isinstance(got, list):
        where = f"it returned a {type(got).__name__}"
    else:
        first = next((i for i, (e, g) in enumerate(zip(expected, got)) if e != g), None)
        where = (f"merge {first + 1} is {got[first]!r}, the reference's {expected[first]!r}" if first is not None
                 else f"it returned {len(got)} merges, the reference {len(expected)}")
    raise CheckFailed(f"{task.name}({describe}, {count}) did not learn the reference's merges on the corpus its time "
                      f"is measured on: {where}")


def process_id(learner: Callable) -> int:
    """The process the learner's code runs in: the grading worker, or (in a notebook) this kernel."""
    return learner.sandbox.worker_pid if runs_remotely(learner) else os.getpid()


def keeper_id(learner: Callable) -> int | None:
    """The grading worker's keeper, whose descendants are every process the worker started (see
    :func:`~bpe_ref.course.trusted.measure_worker.tree_read_chars`); ``None`` in a notebook, or without a keeper."""
    if not runs_remotely(learner) or learner.sandbox.process is None:
        return None
    keeper = learner.sandbox.process.pid
    return keeper if learner.sandbox.worker_pid != keeper else None


def mapped_bytes(learner: Callable) -> int | None:
    """Bytes the grading worker's processes have mapped of grader inputs (or of files they can write) so far,
    counted by its keeper (:meth:`~bpe_ref.course.trusted.sandbox.Sandbox.mapped_bytes`); ``None`` in a notebook."""
    return learner.sandbox.mapped_bytes() if runs_remotely(learner) else None


# ---- one call against the reference's CPU time: a method that cannot keep up on a long input ---------

LETTERS = b"abeinrst"  # long measured pretokens are drawn from these (GPT-2 has hundreds of merges of them)


_ALPHABET_RANKS: dict[tuple[int, int, bytes], dict] = {}


def alphabet_ranks(ranks: dict, alphabet: bytes = LETTERS) -> dict:
    """The merges of ``ranks`` made only of ``alphabet``'s bytes: on a text of those bytes, they encode
    as all of ``ranks`` does. (Kept for the ranks a lab caches: the same object, the same size.)"""
    key = (id(ranks), len(ranks), alphabet)
    if key not in _ALPHABET_RANKS:
        allowed = set(alphabet)
        _ALPHABET_RANKS[key] = {pair: rank for pair, rank in ranks.items() if set(pair[0] + pair[1]) <= allowed}
    return _ALPHABET_RANKS[key]


def long_letters(name: str, length: int, alphabet: bytes = LETTERS) -> bytes:
    """A pretoken of ``length`` bytes of ``alphabet``, drawn from the grading's seed (:func:`measured_random`)."""
    table = bytes.maketrans(bytes(range(256)), bytes(alphabet[b % len(alphabet)] for b in range(256)))
    return measured_random(name).randbytes(length).translate(table)


_FASTEST: dict[tuple[str, str], float] = {}  # the reference's fastest run of a measured call in this process
_RUNS: dict[tuple[str, str], int] = {}  # and how many runs that fastest is of


def reference_cost(reference: Callable, args: tuple, shape: str) -> tuple[float, object]:
    """``(CPU seconds, result)`` of ``reference(*args)`` here: the fastest run so far in this process of a call on
    an input of this ``shape`` (its description: inputs of a shape cost the same; a burst of load or a cold cache
    makes a run slower, never faster), with one more run."""
    key = (getattr(reference, "__qualname__", repr(reference)), shape)
    start = time.thread_time()
    result = reference(*copy.deepcopy(args))
    seconds = min(time.thread_time() - start, _FASTEST.get(key, float("inf")))
    _FASTEST[key] = seconds
    _RUNS[key] = _RUNS.get(key, 0) + 1
    return seconds, result


def reference_runs(reference: Callable, args: tuple, shape: str, runs: int) -> None:
    """Run ``reference(*args)`` (:func:`reference_cost`) until this process has ``runs`` runs of this ``shape``, so that
    the reference's cost a check then reads is the fastest of those and more: one run slowed by a burst of load does not
    raise the bar. Runs made earlier in the process count (a check run again, the hidden test after the visible one or
    the next notebook of a class, runs none: its fastest is of these already, its own try adds one)."""
    key = (getattr(reference, "__qualname__", repr(reference)), shape)
    while _RUNS.get(key, 0) < runs:
        reference_cost(reference, args, shape)


@dataclass
class CallCost:
    """The learner's CPU seconds for one call (its process, from outside), and the reference's for the same call."""

    learner: float
    reference: float

    def said(self, before: str, after: str = "") -> str:
        """A measured check's pass line: ``before``, the learner's CPU time, ``after``, then the reference's."""
        return (f"{before}{self.learner:.2f} s of CPU time{after} (the reference: {self.reference:.2f} s; measured from "
                "outside your code).")


@dataclass(frozen=True, kw_only=True)
class MeasuredCost(Measured):
    """One call on ``build(index)`` returns the reference's answer at a CPU cost of at most ``slack`` seconds plus
    ``factor`` times the reference's on the same input, run meanwhile in this process (so the machine's speed and load
    cancel out), in one of two tries, each on a fresh input (of the shape ``shape`` names); a call that does not finish
    within ``timeout`` seconds fails at once. For inputs on which the wrong method costs tens of times the right one.
    With ``spread`` above 1, ``build`` takes ``(index, scale)``, one scale per check drawn from the grading's secret seed
    as :class:`MeasuredGrowth`'s (so that the measured size is not known in advance), and ``shape`` names the size's
    range; the reference then warms up on the drawn size."""

    build: Callable[..., tuple]
    shape: str
    spread: float = 1.0

    def _scaled(self) -> tuple:
        return (self.spread ** measured_random(f"{self.task.name}:cost scale:{next(SCALES)}").random(),) \
            if self.spread > 1 else ()

    def warm(self) -> None:
        if self.warm_up and self.spread <= 1:  # else on the drawn size, in measure
            reference_runs(self.reference, self.build(0), self.shape, self.warm_up)

    def measure(self, task: Task, learner: Callable) -> CallCost | None:
        task, learner = with_timeout(task, learner, self.timeout)
        factor, slack, describe = self.factor, self.slack, self.shape
        scaled = self._scaled()
        key = f"{describe} (x{scaled[0]:.6f})" if scaled else describe  # the reference's fastest: one per drawn size
        if scaled and self.warm_up:
            reference_runs(self.reference, self.build(0, *scaled), key, self.warm_up)
        costs = []
        for _ in range(2):
            args = self.build(next(FRESH), *scaled)
            reference_seconds, expected = reference_cost(self.reference, args, key)
            got, seconds = measured_call(task, learner, args, describe, self.too_slow,
                                         f" (the reference takes {reference_seconds:.2f} s of CPU time):",
                                         (slack + factor * reference_seconds, f"the reference {reference_seconds:.2f} s: "
                                          f"more than {slack:g} s + {factor:g} times the reference's"))
            if not answers_right(expected, got):
                raise CheckFailed(f"{task.name}({describe}) did not return the reference's answer on the input its time is "
                                  f"measured on{': ' + self.wrong_answer if self.wrong_answer else ''}")
            if seconds != seconds:
                print(f"{task.name}: its CPU time could not be measured on this system; its cost is not checked.")
                return None
            cost = CallCost(seconds, reference_seconds)
            if seconds <= slack + factor * reference_seconds:
                return cost
            costs.append(cost)
        best = min(costs, key=lambda cost: cost.learner - factor * cost.reference)
        raise CheckFailed(
            f"{task.name}({describe}) took {best.learner:.2f} s of CPU time, the reference {best.reference:.2f} s: more than "
            f"{slack:g} s + {factor:g} times the reference's (the best of {len(costs)} tries, measured from outside your "
            f"code): {self.too_slow}")


# ---- growth with the input's length: a method whose cost grows faster than linearly ---------------


@dataclass
class CallGrowth:
    """The learner's CPU seconds for one call on a short input (``small``) and on one ``times`` as long (``large``)."""

    small: float
    large: float
    times: int
    reference: float = float("nan")  # the reference's fastest call on an input as long as the long one, in this process
    bound: float = float("inf")  # the most either call may take: a slack plus a factor times the reference's

    @property
    def ratio(self) -> float:
        """How many times the short call's CPU time the long one took (the short one counted as at least 0.05 s:
        a few clock ticks, so that their rounding cannot make a quick method look as if it grew)."""
        return self.large / max(self.small, 0.05)

    def within(self, limit: float) -> bool:
        """Whether this try passes: the long call costs at most ``limit`` times the short one, and neither more than
        :attr:`bound` (the short call, padded, would make any growth look small)."""
        return self.ratio <= limit and max(self.small, self.large) <= self.bound


@dataclass(frozen=True, kw_only=True)
class MeasuredGrowth(Measured):
    """A call on ``large(index)``, an input ``times`` as long as ``small(index)``'s, costs at most ``limit`` times the
    CPU time of a call on the short one (its process's, read from outside it), and neither call more than ``slack``
    seconds plus ``factor`` times the reference's on the long input (run meanwhile in this process for the expected
    answer, its fastest so far), each call's fastest of :data:`TRIES` tries (two at least, or one clear of both limits;
    each on fresh inputs), both calls returning the reference's answer; a call that does not finish within ``timeout``
    seconds fails at once. A method linear in the input grows about ``times`` times, a quadratic one about ``times``
    squared; the reference's cost bounds what a padded short call can hide. ``describe(args)`` names an input in
    messages. The reference warms up on the long input.

    With ``spread`` above 1 the builders take ``(index, scale)``: each check draws one ``scale`` from the grading's
    secret seed, log-uniform between 1 and ``spread``, and both inputs of every try grow by it, so that the measured
    sizes are not known in advance. Of fixed sizes, a crafted submission kept a quadratic method and answered the two
    measured sizes (``len(ids) in (20_000, 200_000)``) another way (the red team of walk55's checks). Drawn once per check,
    not per try, so that each call's fastest try is of one size. The reference then warms up on no input: its cost is
    the fastest of its runs on the drawn sizes."""

    small: Callable[..., tuple]
    large: Callable[..., tuple]
    times: int
    describe: Callable[[tuple], str]
    limit: float
    warm_up: int = 2
    spread: float = 1.0

    def warm(self) -> None:
        if self.spread > 1:  # the measured sizes are drawn when measured: a run on another size would set no bar
            return
        long_input = self.large(0)
        reference_runs(self.reference, long_input, self.describe(long_input), self.warm_up)

    def measure(self, task: Task, learner: Callable) -> CallGrowth | None:
        task, learner = with_timeout(task, learner, self.timeout)
        limit, factor, slack, times, too_slow = self.limit, self.factor, self.slack, self.times, self.too_slow
        scaled: tuple = ()
        if self.spread > 1:
            scaled = (self.spread ** measured_random(f"{task.name}:scale:{next(SCALES)}").random(),)
        shown = {}  # each size's input as messages name it (every try's inputs have the same shapes)
        fastest_reference = [float("inf")]

        def bound() -> float:
            return slack + factor * fastest_reference[0]

        def run_pair() -> list[float]:
            inputs = {"small": self.small(next(FRESH), *scaled), "large": self.large(next(FRESH), *scaled)}
            shown.update((size, self.describe(args)) for size, args in inputs.items())
            expected = {"small": reference_cost(self.reference, inputs["small"], shown["small"])[1]}
            fastest_reference[0], expected["large"] = reference_cost(self.reference, inputs["large"], shown["large"])
            than_reference = (f"the reference {fastest_reference[0]:.2f} s on {shown['large']}: more than {slack:g} s + "
                              f"{factor:g} times that")
            seconds = []
            for size, args in inputs.items():
                most = (bound(), than_reference)
                if seconds and limit * max(seconds[0], 0.05) < most[0]:  # the long call's, once the short one's is known
                    most = (limit * max(seconds[0], 0.05), f"{task.name}({shown['small']}) {seconds[0]:.2f} s: more than "
                            f"{limit:g} times as long for an input {times} times as long")
                got, spent = measured_call(task, learner, args, shown[size], too_slow, most=most)
                if not answers_right(expected[size], got):
                    raise CheckFailed(f"{task.name}({shown[size]}) did not return the reference's answer on an input its "
                                      "time is measured on")
                seconds.append(spent)
            return seconds

        best, attempt, done = fastest_of_tries(
            task, run_pair, lambda small_s, large_s: CallGrowth(small_s, large_s, times, fastest_reference[0], bound()),
            limit, 2, "its growth")
        if best is None or done:
            return best
        if best.ratio <= limit:  # the ratio passes, a call costs too much: the short one's own, or the long one's
            size, seconds = ("small", best.small) if best.small > best.large else ("large", best.large)
            raise CheckFailed(
                f"{task.name}({shown[size]}) took {seconds:.2f} s of CPU time, the "
                f"reference {best.reference:.2f} s on {shown['large']}: more than {slack:g} s + {factor:g} times the "
                f"reference's (each call's fastest of {attempt} tries, measured from outside your code). {too_slow}")
        raise CheckFailed(
            f"{task.name}({shown['large']}) took {best.large:.2f} s of CPU time, {task.name}({shown['small']}) "
            f"{best.small:.2f} s: {best.ratio:.1f} times as long for an input {times} times as long, more than {limit:g} "
            f"(each call's fastest of {attempt} tries, measured from outside your code); a method linear in the input grows "
            f"about {times} times. {too_slow}")
