"""The names a lab's grader module uses, in one import: the mechanics of :mod:`.spec`, :mod:`.compare`,
:mod:`.trap` and :mod:`.running` (see :mod:`bpe_ref.course.checks`), and what crosses the trust boundary
(:mod:`bpe_ref.course.trusted.verdicts`). Nothing here imports ``bpe_ref`` by absolute name: the graders load
it as part of a private copy of the package.
"""

from __future__ import annotations

from ..trusted.verdicts import CheckFailed, GradingStopped, LearnerError, current_seed, hidden_seed
from .compare import (
    SHORT_REPR_CHARS, WrongType, call_repr, changed_argument, difference, error_name, first_differing_item, hints,
    in_order_of, plain, same, short_repr, stand_in_note, window_repr,
)
from .running import (
    Outcome, TookTooLong, _files_folder, advice, advisory, built, call_learner, call_task, call_watching, check_cases, check_property,
    expected_result, grader, graders_of, hypothesis_randomness, materialized, passed, refuse, standing_in, stretch,
    time_limit, verdict, watched,
)
from .spec import Case, CorpusFile, Lab, Later, Task, TaskGraders, runs_remotely
from .trap import PACKAGE_DIR, PACKAGE_NAME, ReferenceSolverCalled, reference_trapped, reference_use, refuse_reference_use

__all__ = [
    "PACKAGE_DIR", "PACKAGE_NAME", "SHORT_REPR_CHARS", "Case", "CheckFailed", "CorpusFile", "GradingStopped", "Lab",
    "Later", "LearnerError", "Outcome", "ReferenceSolverCalled", "Task", "TaskGraders", "TookTooLong", "WrongType",
    "_files_folder", "advice", "advisory", "built", "call_learner", "call_repr", "call_task", "call_watching",
    "changed_argument", "check_cases", "check_property", "current_seed", "difference", "error_name", "expected_result",
    "first_differing_item", "grader", "graders_of", "hidden_seed", "hints", "hypothesis_randomness", "in_order_of",
    "materialized", "passed", "plain", "reference_trapped", "reference_use", "refuse", "refuse_reference_use",
    "runs_remotely", "same", "short_repr", "stand_in_note", "standing_in", "stretch", "time_limit", "verdict",
    "watched", "window_repr",
]
