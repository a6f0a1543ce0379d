"""The names a lab's grader module uses, in one import: the mechanics of :mod:`.spec`, :mod:`.compare`,
:mod:`.trap` and :mod:`.running` (see :mod:`bpe_ref.course.checks`), and what crosses the trust boundary
(:mod:`bpe_ref.course.trusted.verdicts`). Nothing here imports ``bpe_ref`` by absolute name: the graders load
it as part of a private copy of the package.
"""

from __future__ import annotations

from ..trusted.verdicts import CheckFailed, GradingStopped, LearnerError, current_seed, hidden_seed
from .compare import WrongType, difference, error_name, hints, plain, same, short_repr
from .running import (
    Outcome, TookTooLong, advice, advisory, built, call_learner, call_task, call_watching, check_cases, check_property,
    expected_result, grader, graders_of, materialized, passed, refuse, stretch, time_limit, verdict, watched,
)
from .spec import Case, CorpusFile, Lab, Later, Task, TaskGraders, runs_remotely
from .trap import PACKAGE_DIR, ReferenceSolverCalled, reference_trapped

__all__ = [
    "PACKAGE_DIR", "Case", "CheckFailed", "CorpusFile", "GradingStopped", "Lab", "Later", "LearnerError", "Outcome",
    "ReferenceSolverCalled", "Task", "TaskGraders", "TookTooLong", "WrongType", "advice", "advisory", "built",
    "call_learner", "call_task", "call_watching", "check_cases", "check_property", "current_seed", "difference",
    "error_name", "expected_result", "grader", "graders_of", "hidden_seed", "hints", "materialized", "passed", "plain",
    "reference_trapped", "refuse", "runs_remotely", "same", "short_repr", "stretch", "time_limit", "verdict", "watched",
]
