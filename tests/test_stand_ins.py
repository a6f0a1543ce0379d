"""Stand-ins: while a task's function is graded, the earlier tasks' functions it calls are the
reference's, so that one bug costs the points of its own task only (bpe_ref.course.trusted.stand_ins).

Checked three ways: the source sent to the worker defines exactly the helpers and never the
function being graded or a trainer; in a notebook, a correct ``merge_and_update`` passes although
the notebook's ``pair_count_changes`` is wrong; in the grading worker, the same.
``test_grading_adversarial.py`` grades whole notebooks: a broken first helper costs that task's
points only, and a learner who keeps a stand-in to answer the earlier task with gets nothing.
"""

from __future__ import annotations

import types
from runpy import run_module

import pytest

from bpe_ref.course.notebooks import lab_names
from bpe_ref.course.trusted.sandbox import Policy, RemoteFunction, Sandbox, provided_closure
from bpe_ref.course.trusted.stand_ins import StandInError, stand_in_source

# Functions that must never reach a worker as a stand-in: a whole trainer, or a whole count.
NEVER_SENT = {"train", "merge_steps", "count_pretokens", "_count_str_pretokens", "run_merges"}


def lab_tasks(lab: str) -> list:
    """The lab's tasks (the graders' private copy of :class:`~bpe_ref.course.checks.core.Task`)."""
    return tasks_of(run_module("bpe_ref.course.checks.fresh")["graders"](lab))


def tasks_of(graders) -> list:
    """The tasks of a lab's loaded graders (loading them again costs a second of CPU in labs 06 to 08)."""
    task_type = graders.Task
    found = {id(v.task): v.task for v in vars(graders).values() if isinstance(getattr(v, "task", None), task_type)}
    found |= {id(v): v for v in vars(graders).values() if isinstance(v, task_type)}
    return list(found.values())


# Labs whose tasks are independent functions: no task calls an earlier task's (lab 09's harness).
NO_HELPERS = {"09_benchmarks"}


@pytest.mark.parametrize("lab", [lab for lab in lab_names() if lab not in NO_HELPERS])
def test_stand_ins_are_sent_as_their_source_and_nothing_more(lab):
    graders = run_module("bpe_ref.course.checks.fresh")["graders"](lab)
    tasks = [task for task in tasks_of(graders) if task.stand_ins]
    assert tasks, f"no task of {lab} has stand-ins: does none call an earlier task's function?"
    provided = provided_closure(tuple(getattr(graders, "GRADING_POLICY", {}).get("provided", ())))
    for task in tasks:
        namespace: dict = {}
        exec(stand_in_source(task.stand_ins, forbidden=(task.name,), provided=provided), namespace)
        # What the source defines (a provided module's function is imported from the worker's own copy).
        defined = {name for name, value in namespace.items()
                   if isinstance(value, types.FunctionType) and not (value.__module__ or "").startswith("bpe_ref.")}
        assert task.name not in defined and not defined & NEVER_SENT, (lab, task.name, defined)
        for function in task.stand_ins:  # the same code, run apart from the package
            assert namespace[function.__name__].__code__.co_code == function.__code__.co_code


def test_labs_without_helpers_have_no_stand_ins_indeed():
    for lab in NO_HELPERS:
        assert not any(task.stand_ins for task in lab_tasks(lab)), lab


def test_drivers_are_sent_as_their_source_and_nothing_more():
    """A driver (lab 09: fake clocks and contenders built in the worker) travels like a stand-in: its
    own source, never the function it drives."""
    tasks = [task for task in lab_tasks("09_benchmarks") if task.driver is not None]
    assert {task.name for task in tasks} >= {"interleaved", "peak_memory"}
    for task in tasks:
        namespace: dict = {}
        exec(stand_in_source((task.driver,), forbidden=(task.name,)), namespace)
        defined = {name for name, value in namespace.items() if isinstance(value, types.FunctionType)}
        assert defined == {task.driver.__name__}, (task.name, defined)


def test_names_of_default_values_are_sent_dunders_are_not_and_provided_modules_are_imported():
    from bpe_ref.distributed import count_range
    from bpe_ref.pretokenize import count_pretokens

    source = stand_in_source((count_pretokens,))  # special_tokens=DEFAULT_SPECIAL_TOKENS: needed at the def
    assert "DEFAULT_SPECIAL_TOKENS = " in source and "__name__ =" not in source
    namespace: dict = {}
    exec(source, namespace)
    assert namespace["count_pretokens"]("a b") == {b"a": 1, b" b": 1}

    source = stand_in_source((count_range,), provided=("corpus", "pretokenize"))
    assert "from bpe_ref.pretokenize import count_pretokens as count_pretokens" in source
    assert "def count_pretokens" not in source and "def count_chunk" in source


def test_a_stand_in_that_needs_the_graded_function_is_refused():
    def helper(x):
        return graded(x)  # noqa: F821 - a global of this test module's shape

    def graded(x):
        return x

    helper.__globals__["graded"] = graded
    with pytest.raises(StandInError, match="graded"):
        stand_in_source((helper,), forbidden=("graded",))


NOTEBOOK = '''
def pair_count_changes(word, pair, frequency):
    return {}  # wrong: task 1 fails

def merge_and_update(word, pair, frequency, pair_counts):
    for changed, change in pair_count_changes(word, pair, frequency).items():
        count = pair_counts.get(changed, 0) + change
        if count:
            pair_counts[changed] = count
        else:
            del pair_counts[changed]
    return merge_word(word, pair)
'''


def test_in_a_notebook_a_task_is_graded_with_the_reference_helpers():
    graders = run_module("bpe_ref.course.checks.fresh")["graders"]("02_incremental")
    namespace: dict = {}
    exec("from bpe_ref.train.step01_naive import merge_word\n" + NOTEBOOK, namespace)
    with pytest.raises(graders.CheckFailed, match="pair_count_changes"):
        graders.check_pair_count_changes(namespace["pair_count_changes"])
    graders.check_merge_and_update(namespace["merge_and_update"])  # passes: its own code is right
    assert namespace["pair_count_changes"].__code__.co_consts[0] is None  # the learner's is back afterwards


def test_in_the_worker_too():
    graders = run_module("bpe_ref.course.checks.fresh")["graders"]("02_incremental")
    with Sandbox(Policy(provided=graders.PROVIDED)) as box:
        assert box.run_cell("from bpe_ref.train.step01_naive import merge_word\n" + NOTEBOOK, "solution").ok
        with pytest.raises(graders.CheckFailed, match="pair_count_changes"):
            graders.check_pair_count_changes(RemoteFunction(box, "pair_count_changes"))
        graders.check_merge_and_update(RemoteFunction(box, "merge_and_update"))
        graders.check_merge_and_update_properties(RemoteFunction(box, "merge_and_update"))
        # The learner's own pair_count_changes is bound again after each call:
        assert RemoteFunction(box, "pair_count_changes")((b"a", b"b"), (b"a", b"b"), 1) == {}


def test_the_failure_message_says_the_helpers_were_the_references():
    graders = run_module("bpe_ref.course.checks.fresh")["graders"]("02_incremental")

    def merge_and_update(word, pair, frequency, pair_counts):
        return word  # forgets to merge and to update

    with pytest.raises(graders.CheckFailed, match="while merge_and_update ran, pair_count_changes was the reference's"):
        graders.check_merge_and_update(merge_and_update)
