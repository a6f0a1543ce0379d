"""What a lab's graders declare: a task's function (:class:`Task`), its inputs (:class:`Case`,
:class:`CorpusFile`), and the lab as a whole (:class:`TaskGraders`, :class:`Lab`), from which the lab
module's ``check_*`` functions are derived (:meth:`Lab.install`). Plain data: comparing is
:mod:`.compare`, calling the learner's code :mod:`.running`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


def runs_remotely(learner: Any) -> bool:
    """Whether ``learner`` is a function of a graded notebook run in the grading process (a
    :class:`~bpe_ref.course.trusted.sandbox.RemoteFunction`), not an object of this process."""
    return getattr(learner, "runs_remotely", False) is True and callable(getattr(learner, "invoke", None))


@dataclass(frozen=True)
class Task:
    """What a grader needs to know about the function it grades.

    ``params`` name the arguments (for messages). ``observe(args, result)`` turns a call into the
    value that is compared: by default the return value; a task that updates an argument in place
    observes that argument too.
    """

    name: str
    params: tuple[str, ...]
    observe: Callable[[tuple, Any], Any] | None = None
    what: str = ""  # what the function returns, for type errors ("a tuple of bytes tokens")
    item: str = "item"  # what a returned list holds, in messages: "merge 198" reads better than "item 197"
    first: int = 0  # the number of the first item in messages (merges are numbered from 1, as on the pages)
    hint: Callable[[tuple, Any, Any], str | None] | None = None  # (args, expected, got) -> a pointed hint
    # Modules of bpe_ref the learner may call (an earlier lab's functions, given in the setup cell),
    # relative to the package: ("train.step01_naive",). Everything else of bpe_ref is refused.
    provided: tuple[str, ...] = ()
    # The reference's functions bound in place of the learner's earlier tasks' (same names) while
    # this task's function runs, so that a bug in an earlier task costs that task's points only.
    # See bpe_ref.course.trusted.stand_ins.
    stand_ins: tuple[Callable, ...] = ()
    # Earlier tasks' functions that stay the learner's while this task runs (no stand-in can take
    # their place: lab 03's workers import count_chunk from the learner's own module).
    kept: tuple[str, ...] = ()
    # CPU seconds a call may take in the learner's kernel before the visible test stops it and says so, with a
    # backstop for waiting (running.time_limit; None: no limit). The grading process has its own (call_timeout).
    kernel_time_limit: float | None = None
    # (args, the learner's exception) -> a pointed hint for an error this task's code commonly raises;
    # when it gives one, it replaces the generic hints for errors (which guess from the arguments).
    error_hint: Callable[[tuple, BaseException], str | None] | None = None
    # For a function whose arguments cannot be plain data (lab 09's harness takes functions and a
    # clock): a reference function ``driver(function, *args)`` that builds those objects from the
    # plain ``args`` (fake clocks, contenders that advance them), calls ``function`` with them and
    # returns plain data (what came back, what the objects saw). The learner's function and the
    # reference are both called through it; in the grading worker it runs as source, like a stand-in.
    driver: Callable[..., Any] | None = None
    # When the graded callable is a read-only helper of the notebook that calls the learner's
    # function (lab 10's tree_shape calls tree_reduce), that function's name: a skeleton is named
    # by it ("tree_reduce is not written yet"), not by the helper's.
    written_in: str = ""
    # Positions of the arguments the task says to leave as they are (lab 03's merge_counts must not
    # add into the first dict it was given): after each call they are compared with what was sent,
    # on the trusted side (the worker returns the arguments after the call, as data).
    unchanged: tuple[int, ...] = ()
    # The module the function must be written in (a %%writefile cell), for a function that worker
    # processes started by spawn import by name (lab 03's count_chunk): one defined in a notebook cell
    # (its module is __main__) is refused before any case, in the learner's kernel.
    in_module: str = ""

    def observed(self, args: tuple, result: Any) -> Any:
        return result if self.observe is None else self.observe(args, result)


@dataclass
class Case:
    """One input of a task; ``labels`` replace argument reprs that would be too long to read."""

    args: tuple
    labels: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Later:
    """A case (or a list of them) built when the test runs, not when the graders load (GPT-2's vocabulary, a corpus read
    from disk); listed with the fixed cases, it is not among a grader's ``cases`` attribute (tests
    that copy the visible answers into a table leave such cases out)."""

    build: Callable[[], Case | list[Case]]


@dataclass(frozen=True)
class CorpusFile:
    """An argument that is the path of a file holding ``data`` (lab 03 reads files). The file is
    written just before each call, where the learner's code can read it (:func:`materialized`):
    in grading, a folder of the trusted side's that the worker may read but not change (see
    ``Sandbox.write_input``); in the learner's kernel, a temporary folder."""

    data: bytes

    def __repr__(self) -> str:
        shown = self.data if len(self.data) <= 40 else self.data[:32] + b"..."
        return f"<path of a file of {len(self.data)} bytes: {shown!r}>"


@dataclass(frozen=True)
class TaskGraders:
    """One graded task: its function (``task``), the reference it must agree with, and its tests, from which
    :func:`.running.graders_of` derives ``check_<name>`` and ``check_<name>_properties``.

    ``cases`` are the visible test's fixed inputs; ``hidden_cases`` and ``strategy`` the hidden test's (fixed
    inputs the notebook never shows, then at most ``max_examples`` generated ones, at least ``min_examples``;
    without a strategy the task has a visible grader only). The fixed hidden cases are in the graders' source, which
    learners have: when graded, each is graded as it is and again through ``hidden_vary(args, rng)``, ``rng`` drawn
    from the grading's secret seed, which must keep what the case is there to catch (words around a text, counts
    scaled), so that a table of their answers misses the varied copies. ``verify`` are the task's checks of *how* its
    function works (measured from outside the learner's code, or forced by inputs), which both tests run
    (the visible one after its cases, the hidden one first; when graded, the hidden one takes a pass of the visible
    one's rather than measuring again: ``running._measure``); ``hidden_verify`` those the hidden test alone runs,
    first; ``visible_then`` and ``hidden_then`` what each runs last.

    A ``judge(learner, args, memo)`` replaces the comparison with the reference where the answer is an order
    rather than a value (lab 05's heap entries): a message or ``None`` per input, ``memo`` a dict kept for one
    test; ``noun`` names an input in its messages. ``then`` is a second declaration checked by the same graders:
    of the same function (another driver, another reference, more inputs), its cases and generated inputs
    run after these; of another function (lab 10's ``task_graph``), the visible grader takes that function as
    its second argument, and its hidden test is that declaration's own ``check_<name>_properties``."""

    task: Task
    reference: Callable | None
    cases: Sequence[Case | Later | tuple]
    strategy: Any = None
    max_examples: int = 100
    min_examples: int | None = None
    hidden_cases: Sequence[Case | Later | tuple] = ()
    hidden_vary: Callable[[tuple, random.Random], tuple] | None = None
    verify: tuple[Callable[[Callable], None], ...] = ()
    hidden_verify: tuple[Callable[[Callable], None], ...] = ()
    visible_then: Callable[[Callable], None] | None = None
    hidden_then: Callable[[Callable], None] | None = None
    judge: Callable[[Callable, tuple, dict], str | None] | None = None
    noun: str = "input"
    then: TaskGraders | None = None

    def __post_init__(self) -> None:  # cases given as plain tuples of arguments become Cases
        for name in ("cases", "hidden_cases"):
            object.__setattr__(self, name, [c if isinstance(c, (Case, Later)) else Case(tuple(c)) for c in getattr(self, name)])


@dataclass(frozen=True)
class Lab:
    """A lab's graders, declared once: its graded tasks in the notebook's order (:class:`TaskGraders`), the
    graders whose names are not a task's (``graders``: the trainers' corpus tests, ``check_train_on_corpus_en``
    and ``check_train_on_other_corpus``), the reference functions the graders compare with
    (:mod:`.fresh` checks they come from the private copy) and the grading policy: what the confined worker
    may do (``provided`` modules of bpe_ref, ``allow_processes``, ``call_timeout``... the fields of
    :class:`~bpe_ref.course.trusted.sandbox.Policy`). Its :meth:`install` defines the lab module's graders."""

    name: str
    tasks: tuple[TaskGraders, ...]
    graders: tuple[Callable, ...] = ()
    references: tuple[Callable, ...] = ()
    policy: dict = field(default_factory=dict)

    def install(self, namespace: dict) -> None:
        """Define, in a lab module's ``namespace``, each task's ``check_<name>`` (and ``check_<name>_properties``),
        ``REFERENCES``, ``GRADING_POLICY`` and ``LAB``: what the test cells and the trusted grader look up; and
        ``check_cases`` and ``check_property``, which the graders' tests call on a lab module to run one task's
        cases with the same private copy as its graders."""
        from .running import check_cases, check_property, graders_of

        for graded in self.tasks:
            namespace.update({check.__name__: check for check in graders_of(graded)})
        namespace.update({check.__name__: check for check in self.graders})
        namespace.update(REFERENCES=self.references, GRADING_POLICY=dict(self.policy), LAB=self, check_cases=check_cases,
                         check_property=check_property)
