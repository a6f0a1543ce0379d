"""A class of dishonest and broken submissions, autograded in one batch per lab, as an instructor would.

Next to an honest solution and a blank release, each submission tries a way to earn points its
functions do not earn, or to change someone else's grade, or breaks in a way that must not cost
more than the broken part. The oracle is honest work: an attack built on the blank release must
score 0; a submission whose last function hangs, dies or lost its test cells must score exactly
what the same notebook scores when that function simply raises; hard-coding the visible cases
earns at most a third. Then ``grade --class`` must flag what needs review, nbgrader's feedback and
export must work, and the package on disk must be unchanged. Every lab runs this (the attack set is
built from each lab's own notebooks); one submission is also graded through ``python -m bpe_ref
grade`` to show the self-study path is the same.

Each lab's batch is graded once per session (a module-scoped fixture): lab 00's class alone, the
other labs' together in one course with one ``nbgrader autograde "*"`` (see ``GROUPS``). The
attacks on the sandbox itself (hooks, patched imports, killing the grader, editing the package,
cells that hang or exit) do not depend on the lab: they run on the first lab's batch, built from its
own notebooks, and those whose outcome depends on the lab's policy (a child process, killing the
grader) run on lab 03's too, whose code may start processes. The attacks that do depend on a lab's
functions run on the sampled labs of ``tests/sampling.py`` (those built on the blank release on one
lab per grading path, the hard-coded visible answers on labs 00 and 01 (``TABLE_LABS``); those built
on the complete notebook on lab 00), and every lab's batch holds its honest solution, its blank release and an
unreadable file; a few labs'
batches hold a submission that breaks in a way only that lab shows (``ONE_LAB``; lab 00's holds
tests/test_review_flags.py's class too, whose flags from behaviour are checked here, and the students of
tests/test_grading_redteam.py's sections 25 and 35, escape codes and nbgrader metadata); where that is the
complete solution changed in a way that must cost nothing, it is the lab's honest work, so that each
solution is graded once (``HONEST_VARIANTS``); the labs whose wrong method makes its calls for show
(``METHOD_FOR_SHOW``) hold that student too. nbgrader's feedback is rendered for a sample of each
class (``FEEDBACK``). Members of lab 00's class are graded again by ``python -m bpe_ref autograde
--jobs 2``, which must give them what the batch's one ``nbgrader autograde`` gave (``graded_in_two_jobs``).
``BPE_EXHAUSTIVE=1`` sends every attack to every lab, grades the plain solution beside those variants and renders
every submission's feedback (maintainers run it before a release, see CONTRIBUTING.md).
"""

from __future__ import annotations

import copy
import csv
import hashlib
import importlib
import inspect
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from bpe_ref.course.grade import class_report, grades_from_course, group_by_task
from bpe_ref.course.notebooks import (
    REPO_ROOT,
    lab_names,
    nbgrader_environment,
    read_notebook_json,
    release_notebook,
    run_nbgrader,
    source_notebook,
    temporary_course,
)
from bpe_ref.course.trusted import cells as test_cells
from sampling import COMPLETE_NOTEBOOK_LABS, EXHAUSTIVE, SAMPLED_LABS, sampled

pytestmark = pytest.mark.slow
LABS = lab_names()
PACKAGE = REPO_ROOT / "bpe_ref"
# Short limits, so that the cells and calls that hang cost little (the call limit: call_limit).
# A call or cell that waits (last_hangs sleeps) is stopped after as many seconds of waiting as its limit of CPU time (not
# 4 times: the batches would take minutes longer); waiting for a CPU of a busy machine is not waiting.
BATCH_OPTIONS = ["--TrustedExecute.cell_timeout=5", "--TrustedExecute.wall_factor=1"]


# ---- building the submissions -------------------------------------------------------------------


def solution_sources(lab: str) -> dict[str, str]:
    """Solution cells of the source notebook, as a learner would write them (no markers)."""
    sources = {}
    for cell in read_notebook_json(source_notebook(lab))["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            lines = cell["source"].splitlines()
            sources[cell["id"]] = "\n".join(line for line in lines if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
    return sources


def blank(lab: str) -> dict:
    return read_notebook_json(release_notebook(lab))


def complete(lab: str, *only: str) -> dict:
    """The release with its solution cells written as the source has them (only the cells ``only`` names, if any: the
    other tasks' skeletons fail at once, a cheap notebook that earns some points)."""
    notebook = blank(lab)
    sources = solution_sources(lab)
    for cell in notebook["cells"]:
        if cell["id"] in sources and (not only or cell["id"] in only):
            cell["source"] = sources[cell["id"]]
    return notebook


def code_cell(cell_id: str, source: str) -> dict:
    return {"cell_type": "code", "id": cell_id, "metadata": {}, "source": source, "execution_count": None, "outputs": []}


def with_cell_after_setup(notebook: dict, cell_id: str, source: str) -> dict:
    notebook = copy.deepcopy(notebook)
    at = next((i for i, c in enumerate(notebook["cells"]) if c["id"] == "setup"), 0)
    notebook["cells"].insert(at + 1, code_cell(cell_id, source))
    return notebook


def last_task_function(lab: str) -> tuple[str, str]:
    """``(solution cell id, function name)`` of the lab's last task with a solution cell: usually
    the one no other task builds on, so breaking it costs its own points only."""
    sources = solution_sources(lab)
    last = [cell for cell in test_cells.load(lab) if cell.grade_id + "_solution" in sources][-1]
    return last.grade_id + "_solution", last.functions[0]


def with_last_function(lab: str, body: str) -> dict:
    """The complete notebook, with the last task's function replaced by one whose body is ``body``."""
    notebook = complete(lab)
    cell_id, name = last_task_function(lab)
    for cell in notebook["cells"]:
        if cell["id"] == cell_id:
            cell["source"] = f"def {name}(*args, **kwargs):\n" + "\n".join("    " + line for line in body.splitlines())
    return notebook


NOISY = '''\
# A correct notebook that warns and logs: none of it may cost a point.
import functools, logging, sys, warnings

def _noisy(function):
    calls = [0]

    @functools.wraps(function)
    def call(*args, **kwargs):
        calls[0] += 1
        if calls[0] <= 3:  # the first calls only: the helpers are called a million times by train
            warnings.warn("just so you know")
            print("debugging output on stderr", file=sys.stderr)
            logging.getLogger("mine").warning("a log line")
        return function(*args, **kwargs)
    return call

for _name, _value in list(globals().items()):
    if callable(_value) and getattr(_value, "__module__", "") == "__main__" and not _name.startswith("_") \
and not hasattr(_value, "__wrapped__"):
        globals()[_name] = _noisy(_value)
'''

HOOKS = '''\
# Make every test cell run nothing, and hide every error.
ip = get_ipython()
ip.input_transformers_post.append(lambda lines: ["pass\\n"] if any("graders" in line for line in lines) else lines)
ip.set_custom_exc((BaseException,), lambda shell, etype, evalue, tb, tb_offset=None: None)
ip.events.register("post_run_cell", lambda result: None)
import sys
sys.excepthook = lambda *args: None
'''

PATCHED_IMPORTS = '''\
# The test cells call run_module(...)["graders"](lab).check_...(f): make that a grader that passes.
import builtins, importlib, runpy, sys, types

class PassEverything:
    def __getattr__(self, name):
        return lambda *args, **kwargs: print(f"{name}: all cases pass.")

runpy.run_module = lambda *args, **kwargs: {"graders": lambda lab: PassEverything()}
fake = types.ModuleType("bpe_ref.course.checks.fresh")
fake.graders = lambda lab: PassEverything()
sys.modules["bpe_ref.course.checks.fresh"] = fake
_real_import = builtins.__import__
builtins.__import__ = lambda name, *args, **kwargs: fake if name == "runpy" else _real_import(name, *args, **kwargs)
builtins.AssertionError = type("AssertionError", (Exception,), {})
'''

PATCHED_HYPOTHESIS = '''\
# Properties run once, on nothing, and never fail.
import hypothesis
hypothesis.given = lambda *args, **kwargs: (lambda test: (lambda *a, **k: None))
hypothesis.settings.register_profile("lazy", max_examples=1)
hypothesis.settings.load_profile("lazy")
'''

REFERENCE_IMPORT = '''\
# Answer with the reference: every function of bpe_ref's step modules, under the names the lab asks for.
import importlib
for name in ["bpe_ref.pretokenize", "bpe_ref.train.step01_naive", "bpe_ref.train.step02_incremental", "bpe_ref.train.step03_parallel",
             "bpe_ref.train.step04_inverted_index", "bpe_ref.encode.step06_naive", "bpe_ref.decode"]:
    for attribute, value in vars(importlib.import_module(name)).items():
        if callable(value) and not attribute.startswith("_"):
            globals().setdefault(attribute, value)
'''

REFERENCE_FROM_DISK = f'''\
# Read the reference's source from disk and run it here, under another name.
namespace = {{}}
for path in ["{PACKAGE}/pretokenize.py", "{PACKAGE}/train/step01_naive.py", "{PACKAGE}/train/step02_incremental.py", \
"{PACKAGE}/train/step03_parallel.py",
             "{PACKAGE}/train/step04_inverted_index.py", "{PACKAGE}/encode/step06_naive.py", "{PACKAGE}/decode.py"]:
    exec(compile(open(path).read(), path, "exec"), namespace)
'''

REFERENCE_PRIVATE_COPY = '''\
# The graders keep a private copy of bpe_ref in sys.modules: borrow its functions.
import sys
copies = [m for name, m in list(sys.modules.items()) if name.startswith("_bpe_ref_private_")]
assert copies, "no private copy of the reference in this process"
'''

REFERENCE_SUBPROCESS = f'''\
# Run the reference in a child process and keep what it prints.
import subprocess, sys
answer = subprocess.run([sys.executable, "-c", "import bpe_ref; print(bpe_ref.__file__)"],
                        capture_output=True, text=True, cwd="{REPO_ROOT}", check=True).stdout
'''

KILLS_GRADER = '''\
# Take the grader down with me: then nothing gets graded after this notebook.
import os, signal
os.kill(os.getppid(), signal.SIGKILL)
'''


def writes_gradebook(course: Path) -> str:
    return f'''\
# Full marks for me, zero for the honest student.
import sqlite3
db = sqlite3.connect("{course}/gradebook.db")
db.execute("UPDATE grade SET manual_score = 100")
db.execute("UPDATE grade SET auto_score = 0")
db.commit()
'''


def edits_package(course: Path) -> str:
    return f'''\
# Make every comparison succeed, for every student graded after me.
with open("{PACKAGE}/course/checks/core.py", "a") as f:
    f.write("\\ndef same(expected, got):\\n    return True\\n")
with open("{course}/nbgrader_config.py", "a") as f:
    f.write("\\nc.Autograde.autograde_preprocessors = ['nbgrader.preprocessors.Execute', 'nbgrader.preprocessors.SaveAutoGrades']\\n")
'''


def _table_key(args):
    """The arguments as a table key, a file's path by its name only (its folder differs per run)."""
    return repr(tuple(arg.rsplit("/", 1)[-1] if isinstance(arg, str) and arg.endswith(".txt") else arg for arg in args))


def hardcoded(lab: str) -> dict:
    """The release, each function answering its visible cases from a table and nothing else."""
    from bpe_ref.course.checks import fresh

    graders = fresh.graders(lab)
    core = importlib.import_module(graders.__name__.rsplit(".", 1)[0] + ".core")  # the same private copy
    answers: dict[str, dict[str, object]] = {}
    for spec in test_cells.load(lab):
        check = getattr(graders, spec.grader)
        if spec.grade_id.endswith("_hidden") or not hasattr(check, "cases"):
            continue
        driver = getattr(getattr(check, "task", None), "driver", None)
        if driver is not None and not getattr(driver, "passes_arguments", False):
            continue  # the function gets objects the driver builds (lab 09's fake clocks), not these arguments
        table = answers.setdefault(spec.functions[0], {})
        for case in check.cases:
            # A file argument (lab 03) reaches the learner as a path whose name is the file's hash:
            # the table is keyed by that name.
            args = copy.deepcopy(core.materialized(case.args, None))
            try:
                result = check.reference(*args)
            except (ValueError, KeyError):  # a case of bad input (lab 09): no answer to copy
                continue
            table[_table_key(args)] = (result, args)
    # A trainer that replays the published CS336 merges when asked for 243 of them.
    published = None
    if any(spec.grader.endswith("on_corpus_en") for spec in test_cells.load(lab)):
        from bpe_ref.data_files import REFERENCE_MERGES
        from bpe_ref.serialization import load_merges

        published = load_merges(REFERENCE_MERGES)
    notebook = blank(lab)
    code = ["# Only the visible cases, from a table.", inspect.getsource(_table_key)]
    for name, table in answers.items():
        code.append(f"_{name}_table = {table!r}")
        code.append(
            f"def {name}(*args):\n"
            f"    if {published is not None} and len(args) == 2 and args[1] == 243:\n"
            f"        return {published!r}\n"
            f"    result, after = _{name}_table.get(_table_key(args), (None, args))\n"
            f"    for arg, new in zip(args, after):\n"
            f"        if isinstance(arg, dict):\n"
            f"            arg.clear(); arg.update(new)\n"
            f"    return result\n"
        )
    for name in {f for spec in test_cells.load(lab) for f in spec.functions} - set(answers):
        code.append(f"def {name}(*args):\n    return {published!r} if len(args) == 2 and args[1] == 243 else None\n")
    for cell in notebook["cells"]:  # every solution cell defines them all (the skeletons are gone)
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            cell["source"] = "\n".join(code)
    return notebook


def noisy(lab: str) -> dict:
    """The complete notebook, every solution cell ending with :data:`NOISY` (its functions warn)."""
    notebook = complete(lab)
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            cell["source"] += "\n\n" + NOISY
    return notebook


def helper_and_user(lab: str) -> tuple[str, str]:
    """The lab's first helper (a function a later task calls) and the first later task that calls
    it, read from the graders: while the later one is graded, the reference's helper stands in for
    the learner's (Task.stand_ins). E.g. ``("count_pairs", "train")`` for lab 01."""
    from test_stand_ins import lab_tasks

    order = list(dict.fromkeys(cell.functions[0] for cell in test_cells.load(lab)))  # task order
    tasks = {task.name: task for task in lab_tasks(lab)}
    pairs = [(order.index(helper.__name__), order.index(user), helper.__name__, user)
             for user in order if user in tasks for helper in tasks[user].stand_ins if helper.__name__ in order]
    assert pairs, f"no task of {lab} calls an earlier task's function"
    return min(pairs)[2:]


def solution_cell_of(lab: str, function: str) -> str:
    return next(spec.grade_id for spec in test_cells.load(lab) if spec.functions[0] == function) + "_solution"


def with_function(notebook: dict, lab: str, function: str, body: str) -> dict:
    """``notebook`` with ``function``'s solution cell replaced by one whose body is ``body``."""
    notebook = copy.deepcopy(notebook)
    for cell in notebook["cells"]:
        if cell["id"] == solution_cell_of(lab, function):
            cell["source"] = f"def {function}(*args, **kwargs):\n" + "\n".join("    " + line for line in body.splitlines())
    return notebook


def helper_raises(lab: str) -> dict:
    """Complete but for the first helper, which raises: later tasks must not pay for it."""
    return with_function(complete(lab), lab, helper_and_user(lab)[0], 'raise ValueError("not done yet")')


def keeps_a_stand_in(lab: str) -> dict:
    """Complete, but the first helper answers with a stand-in that its user caught while it was
    graded: since tasks are graded in order, the helper is graded before there is one to catch."""
    helper, user = helper_and_user(lab)
    notebook = with_function(complete(lab), lab, helper, "return CAUGHT[0](*args, **kwargs)")
    catcher = code_cell("catch", f"CAUGHT = []\n_{user} = {user}\n\ndef {user}(*args, **kwargs):\n"
                                 f"    CAUGHT.append(globals()[{helper!r}])\n    return _{user}(*args, **kwargs)\n")
    at = next(i for i, c in enumerate(notebook["cells"]) if c["id"] == solution_cell_of(lab, user))
    notebook["cells"].insert(at + 1, catcher)
    return notebook


def delete_last_tests(notebook: dict, lab: str) -> dict:
    notebook = copy.deepcopy(notebook)
    task = last_task_function(lab)[0].removesuffix("_solution")
    notebook["cells"] = [c for c in notebook["cells"] if c["id"] not in (task, task + "_hidden")]
    return notebook


def class_of(lab: str, course: Path) -> dict[str, dict | str]:
    """student id -> notebook (JSON) or raw text. Ids with '_' on purpose (zip_collect). Only the
    submissions the batch keeps are built (building the rest, e.g. a table of a lab's visible answers,
    costs seconds)."""
    kept = graded_by_default(lab)
    return {student: build() for student, build in submission_builders(lab, course).items() if student in kept}


def graded_by_default(lab: str) -> set[str]:
    """The students of :func:`submission_builders` that ``lab``'s class holds (every one on the every-attack lab,
    and under BPE_EXHAUSTIVE=1): their names only, nothing is built (tests/test_sampling.py checks that each
    attack is graded on some lab)."""
    names = set(submission_builders(lab, Path("course")))
    if attacks_on(lab):
        return names
    return names & (EVERY_LAB | (ON_THE_RELEASE if sampled(lab) else set()) | (TABLE if sampled(lab, TABLE_LABS) else set())
                    | (ON_THE_SOLUTION if sampled(lab, COMPLETE_NOTEBOOK_LABS) else set())
                    | (POLICY_DEPENDENT if lab in PROCESS_LABS else set()))


def submissions_of(lab: str, course: Path) -> dict[str, dict | str]:
    """The class of ``lab``'s batch: :func:`class_of` and the submissions only this lab holds,
    whose honest work is graded once (see :data:`HONEST_VARIANTS`)."""
    everyone = {**class_of(lab, course), **{student: build() for student, build in ONE_LAB.get(lab, {}).items()}}
    if lab in METHOD_FOR_SHOW and sampled(lab):  # a wrong method whose calls look right (below): graded in the lab's class
        everyone["method_for_show"] = method_for_show(lab)
    if lab in HONEST_VARIANTS and not EXHAUSTIVE:
        del everyone["honest"]
    return everyone


def honest_of(batch) -> str:
    """The student whose honest work stands for ``batch``'s solution: ``honest``, or its variant."""
    return "honest" if "honest" in batch["report"] else HONEST_VARIANTS[batch["lab"]]


def every_submission(lab: str, course: Path) -> dict[str, dict | str]:
    return {student: build() for student, build in submission_builders(lab, course).items()}


def submission_builders(lab: str, course: Path) -> dict[str, Callable[[], dict | str]]:
    """student id -> a function that builds the submission (see :func:`every_submission`)."""
    def after_setup(build: Callable[[str], dict], cell_id: str, source: str) -> Callable[[], dict]:
        return lambda: with_cell_after_setup(build(lab), cell_id, source)

    return {
        # edits the package before anyone else is graded (students are graded in sorted order)
        "aaa_edits_package": after_setup(blank, "attack", edits_package(course)),
        "honest": lambda: complete(lab),
        "blank": lambda: blank(lab),
        "noisy_but_correct": lambda: noisy(lab),
        "error_in_extra_cell": after_setup(complete, "typo", 'raise RuntimeError("a typo in my own cell")'),
        "loop_in_extra_cell": after_setup(complete, "loop", "while True:\n    pass"),
        "exit_in_extra_cell": after_setup(complete, "bye", "import os\nos._exit(0)"),
        "last_raises": lambda: with_last_function(lab, 'raise ValueError("not done yet")'),
        # Sleeps rather than spins: the worker is killed at the call's deadline either way (the sandbox
        # interrupts nothing), and the loop of loop_in_extra_cell already burns a core to its deadline.
        "last_hangs": lambda: with_last_function(lab, "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                                                      "while True:\n    time.sleep(1)"),
        "last_dies": lambda: with_last_function(lab, "import os\nos._exit(3)"),
        "last_tests_deleted": lambda: delete_last_tests(with_last_function(lab, 'raise ValueError("not done yet")'), lab),
        "invalid_json": lambda: json.dumps(complete(lab))[:3000],
        "hooks_ipython": after_setup(blank, "attack", HOOKS),
        "patches_imports": after_setup(blank, "attack", PATCHED_IMPORTS),
        "patches_hypothesis": after_setup(blank, "attack", PATCHED_HYPOTHESIS),
        "reference_import": after_setup(blank, "attack", REFERENCE_IMPORT),
        "reference_from_disk": after_setup(blank, "attack", REFERENCE_FROM_DISK),
        "reference_private_copy": after_setup(blank, "attack", REFERENCE_PRIVATE_COPY),
        "reference_subprocess": after_setup(blank, "attack", REFERENCE_SUBPROCESS),
        "writes_gradebook": after_setup(blank, "attack", writes_gradebook(course)),
        "kills_grader": after_setup(blank, "attack", KILLS_GRADER),
        "hardcoded": lambda: hardcoded(lab),
        **({"helper_raises": lambda: helper_raises(lab), "keeps_a_stand_in": lambda: keeps_a_stand_in(lab)}
           if has_helpers(lab) else {}),
    }


def solution_cell_exits() -> dict:
    """Lab 00, complete but for task 2's solution cell, which ends its process when it runs."""
    lab = "00_pretokenization"
    notebook = complete(lab)
    for cell in notebook["cells"]:
        if cell["id"] == "task2_split_on_special_tokens_solution":
            cell["source"] = "import os\nos._exit(1)\n"
    return notebook


def broken_stretch() -> dict:
    """Lab 02, complete, with a half-written stretch cell that fails when it runs and a stretch
    self-check whose failure the learner saved (ungraded: neither may cost a point)."""
    notebook = complete("02_incremental")
    for cell in notebook["cells"]:
        if cell["id"] == "stretch_overlap_bug_solution":
            cell["source"] = "def per_occurrence_changes(word, pair, frequency):\n    return {}\n\nfirst_wrong_merge(None, 3)\n"
        if cell["id"] == "stretch_cheaper_filter_check":
            cell["outputs"] = [{"output_type": "error", "ename": "CheckFailed", "evalue": "not yet", "traceback": []}]
    return notebook


def every_test_cell_deleted() -> dict:
    """Lab 10, complete, without any test cell (two of them follow a read-only cell)."""
    notebook = complete("10_distributed")
    notebook["cells"] = [c for c in notebook["cells"] if not c["metadata"].get("nbgrader", {}).get("grade")]
    return notebook


def reorders_and_tampers() -> dict:
    from test_trust_boundary import reordered_and_tampered

    return reordered_and_tampered()


def honest_with_docstrings() -> dict:
    from test_trust_boundary import honest_with_docstrings as build

    return build()


def built_in(module: str, name: str, student: str | None = None):
    """A builder of a submission another test module defines and checks here, in lab 00's batch rather than in a class
    of its own (one nbgrader run, one ``grade --class``): ``module.name()``, or its ``student`` if it builds several."""
    def build() -> dict:
        built = getattr(importlib.import_module(module), name)()
        return built if student is None else built[student]
    return build


# Submissions that one lab's batch holds: each tests what a lab of its kind needs (one grade each).
METADATA_STUDENTS = ("ann", "cat", "dan", "eve", "fay", "gus")  # tests/test_grading_redteam.py's metadata_notebooks
ONE_LAB = {
    "00_pretokenization": {"solution_cell_exits": solution_cell_exits,
                           # tests/test_review_flags.py's class: refused calls and opens, tampering, honest work
                           **{name: built_in("test_review_flags", name)
                              for name in ("honest_with_a_docstring", "opens_a_socket", "tampers")},
                           # tests/test_grading_redteam.py's sections 25 (escape codes in what the reports print) and 35
                           # (nbgrader metadata changed: ann is graded before blank, whose grading it once stopped)
                           "hides_by_path": built_in("test_grading_redteam", "hides_by_path"),
                           **{name: built_in("test_grading_redteam", "metadata_notebooks", name) for name in METADATA_STUDENTS}},
    # tests/test_trust_boundary.py's attacks on the order of grading, through nbgrader and grade --class
    "01_naive_bpe": {"reorders_and_tampers": reorders_and_tampers, "honest_with_docstrings": honest_with_docstrings},
    "02_incremental": {"broken_stretch": broken_stretch},
    # tests/test_review_flags.py's probe of a unix socket outside the sandbox, in a lab whose code may start processes
    "03_parallel": {"probes_unix_sockets": built_in("test_review_flags", "probes_unix_sockets")},
    "10_distributed": {"test_cells_deleted": every_test_cell_deleted},
}


# The submissions of ONE_LAB that are the complete solution with a change that must cost nothing
# (docstrings naming bpe_ref, a half-written stretch task, a refused unix socket, deleted test cells): each is the lab's
# solution graded once more. By default each stands for its lab's honest work, graded once: every
# check of "honest" (full marks, the hidden tests ran, the exploration skipped, the gradebook and
# the export) holds for it too. Lab 01's plain solution gets full marks through nbgrader in
# tests/test_instructor_guide.py as well, lab 00's in its hub round; BPE_EXHAUSTIVE=1 grades the
# plain solution beside them.
HONEST_VARIANTS = {"00_pretokenization": "honest_with_a_docstring", "01_naive_bpe": "honest_with_docstrings",
                   "02_incremental": "broken_stretch", "03_parallel": "probes_unix_sockets",
                   "10_distributed": "test_cells_deleted"}


def has_helpers(lab: str) -> bool:
    """Whether a task of ``lab`` calls an earlier task's function (lab 09's do not)."""
    from test_stand_ins import NO_HELPERS

    return lab not in NO_HELPERS


# Each lab's solution and release (graded once each), and a file nbgrader cannot read: every lab's batch holds these.
EVERY_LAB = {"honest", "blank", "invalid_json"}
# Built from each lab's own functions on its blank release (cheap, but a submission each): on the sampled labs,
# one per grading path (what the worker may import and read decides their outcome).
ON_THE_RELEASE = {"reference_import", "reference_from_disk"}
# A table of the visible answers (seconds to build, and graded like a lab's work): its outcome does not depend on the
# grading path but on the hidden tests going beyond the visible cases, which every lab's hidden variant of each task
# must (tests/test_labs_notebooks.py checks it, and that the visible tests earn a third at most). By default on the
# every-attack lab and on lab 01, whose trainer graded on CS336's corpus.en a table replays the published merges for;
# on every lab under BPE_EXHAUSTIVE=1.
TABLE = {"hardcoded"}
TABLE_LABS = ("00_pretokenization", "01_naive_bpe")
# Built from each lab's complete notebook, one function broken (each grades nearly the whole lab
# again): on fewer labs (sampling.COMPLETE_NOTEBOOK_LABS).
ON_THE_SOLUTION = {"last_raises", "helper_raises", "keeps_a_stand_in"}
LAB_DEPENDENT = EVERY_LAB | ON_THE_RELEASE | TABLE | ON_THE_SOLUTION
# The attacks on the sandbox itself run on one lab: they do not depend on its functions.
EVERY_ATTACK_LABS = {"00_pretokenization"}
# Except those whose outcome depends on the lab's policy: a lab whose code may start processes
# (lab 03) lets a child process run, so starting one and killing the grader are tried there too.
PROCESS_LABS = {"03_parallel"}
POLICY_DEPENDENT = {"reference_subprocess", "kills_grader"}


def attacks_on(lab: str) -> bool:
    """Whether ``lab``'s batch holds the lab-independent attacks too."""
    return lab in EVERY_ATTACK_LABS or EXHAUSTIVE


def summarized(lab: str) -> bool:
    """Whether ``lab``'s batch runs ``grade --class`` (the labs holding attacks it must flag or score)."""
    return attacks_on(lab) or lab == "01_naive_bpe" or (lab in METHOD_FOR_SHOW and sampled(lab))


def needs(batch, *students: str) -> None:
    """Skip, saying why, a check of students that this lab's batch leaves out."""
    missing = set(student for student in students if student not in batch["report"])
    if missing:
        where = (EVERY_ATTACK_LABS if missing - LAB_DEPENDENT else COMPLETE_NOTEBOOK_LABS if missing & ON_THE_SOLUTION
                 else TABLE_LABS if missing & TABLE else SAMPLED_LABS)
        pytest.skip(f"{batch['lab']}: {', '.join(sorted(missing))} run on the labs {', '.join(sorted(where))} "
                    "(BPE_EXHAUSTIVE=1 runs them on every lab)")


BLANK_BASED = {"aaa_edits_package", "blank", "hooks_ipython", "patches_imports", "patches_hypothesis", "reference_import",
               "reference_from_disk", "reference_private_copy", "reference_subprocess", "writes_gradebook", "kills_grader"}
FULL_MARKS = {"honest", "noisy_but_correct", "error_in_extra_cell", "loop_in_extra_cell", "exit_in_extra_cell",
              "broken_stretch", "test_cells_deleted", "honest_with_docstrings", "honest_with_a_docstring", "opens_a_socket",
              "tampers", "hides_by_path", "probes_unix_sockets"}
LIKE_LAST_RAISES = {"last_hangs", "last_dies", "last_tests_deleted"}
# The attack cell of these must show that the sandbox refused it (not merely that it was buggy).
REFUSED = {
    "aaa_edits_package": "PermissionError",
    "reference_import": "ModuleNotFoundError",
    "reference_from_disk": "PermissionError",
    # PermissionError where processes are refused; where a lab lets its code start them (lab 03), the
    # child inherits Landlock, cannot read bpe_ref, and exits with an error: CalledProcessError.
    "reference_subprocess": ("PermissionError", "CalledProcessError"),
    "writes_gradebook": "OperationalError",
    "kills_grader": "PermissionError",
    "patches_hypothesis": "ModuleNotFoundError",
}


# nbgrader's feedback, rendered for a sample of each class: each lab's honest work (its notebook's text and cells that
# pass), the release on the every-attack lab (cells that fail saying why: what a failing cell shows is the grader's
# message, the same path in every lab; the other labs' releases, about 0.7 s of CPU each, under BPE_EXHAUSTIVE=1), and
# where they are graded (lab 00), notebooks the grader changed: test and read-only cells nbgrader restored, a cell that
# timed out, a worker that died, an attack on IPython's hooks. How a notebook renders does not depend on the rest of
# the class: BPE_EXHAUSTIVE=1 renders every submission's (about half a second of CPU each).
FEEDBACK = {"honest", "blank", *HONEST_VARIANTS.values(), "tampers", "loop_in_extra_cell", "last_hangs", "solution_cell_exits",
            "hooks_ipython"}


def given_feedback(lab: str, students) -> set[str]:
    """Who of ``students`` of ``lab`` gets nbgrader's feedback in a batch (see :data:`FEEDBACK`)."""
    return set(students) if EXHAUSTIVE else set(students) & (FEEDBACK if attacks_on(lab) else FEEDBACK - {"blank"})


def package_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


# The labs graded together: one course, one ``nbgrader autograde "*"`` (nbgrader's assignment
# argument is a pattern), one feedback and one export for all of them, so that nbgrader starts
# and builds a gradebook once per group rather than once per lab. Lab 00, whose every-attack class
# has a function that hangs until its call limit, is graded with the short limit, alone; under
# BPE_EXHAUSTIVE=1 every lab is a group of its own (the groups run side by side under xdist).
GROUPS = ({lab: (lab,) for lab in LABS} if EXHAUSTIVE else
          {"lab00": ("00_pretokenization",), "labs01-10": tuple(lab for lab in LABS if lab != "00_pretokenization")})


def group_of(lab: str) -> str:
    return next(name for name, labs in GROUPS.items() if lab in labs)


def call_limit(group: str) -> str:
    """A call may spend 20 s of CPU time (an honest lab-01 train on corpus.en spends some 5 s), except
    on the every-attack lab, whose hanging function waits its whole limit and whose honest calls
    take milliseconds."""
    short = all(lab in EVERY_ATTACK_LABS for lab in GROUPS[group])
    return f"--TrustedExecute.call_timeout={5 if short else 20}"


def only_on(*labs: str):
    """Run a test on the batches of ``labs`` only (a submission that only their classes hold)."""
    def mark(test):
        test.only_on = labs
        return test
    return mark


def pytest_generate_tests(metafunc):
    # Each test that takes ``batch`` runs once per lab; the labs of a group share one graded class
    # (a module-scoped parameter, which tests/conftest.py keeps on one xdist worker).
    if "graded_class" in metafunc.fixturenames:
        only = getattr(metafunc.function, "only_on", LABS)
        labs = [lab for lab in LABS if lab in only]
        metafunc.parametrize(("graded_class", "lab"), [(group_of(lab), lab) for lab in labs], indirect=["graded_class"],
                             ids=labs, scope="module")


@pytest.fixture(scope="module")
def graded_class(request):
    """Every lab of the group ``request.param`` autograded as one class: lab -> its batch."""
    group = request.param
    labs = GROUPS[group]
    before = package_fingerprint()
    with temporary_course(labs) as course:
        if run_nbgrader(["generate_assignment", "*", "--force"], course, timeout=600).returncode != 0:
            raise RuntimeError(f"nbgrader generate_assignment failed for {', '.join(labs)}")
        config_before = (course / "nbgrader_config.py").read_text()
        students = {}
        for lab in labs:
            students[lab] = submissions_of(lab, course)
            for student, notebook in students[lab].items():
                folder = course / "submitted" / student / lab
                folder.mkdir(parents=True)
                text = notebook if isinstance(notebook, str) else json.dumps(notebook, indent=1)
                (folder / f"{lab}.ipynb").write_text(text, encoding="utf-8")
        start = time.perf_counter()
        autograde = run_nbgrader(["autograde", "*", *BATCH_OPTIONS, call_limit(group)], course, timeout=1800)
        seconds = time.perf_counter() - start
        # The class summary is checked where there are attacks to flag; feedback and export on every lab.
        summaries = {lab: subprocess.run(
            [sys.executable, "-m", "bpe_ref", "grade", "--class", lab, "--course", str(course)],
            cwd=REPO_ROOT, env=nbgrader_environment(), capture_output=True, text=True, timeout=300,
        ) for lab in labs if summarized(lab)}
        sampled_feedback = set().union(*(given_feedback(lab, students[lab]) for lab in labs))
        without = sorted(set().union(*students.values()) - sampled_feedback)
        run_nbgrader(["generate_feedback", "*", f"--CourseDirectory.student_id_exclude={','.join(without)}"], course)
        export = run_nbgrader(["export", "--to", str(course / "grades.csv")], course)
        grades_csv = list(csv.DictReader((course / "grades.csv").open())) if (course / "grades.csv").exists() else []
        package_unchanged = package_fingerprint() == before
        config_unchanged = (course / "nbgrader_config.py").read_text() == config_before
        seed = (course / "trusted_grades" / "hidden_seed").read_text() if (course / "trusted_grades" / "hidden_seed").exists() else None
        batches = {}
        for lab in labs:
            report = {s.student: s for s in class_report(course, lab)}
            batches[lab] = {
                "lab": lab,
                "group": labs,
                "course": course,
                "autograde": autograde,
                "seconds": seconds,
                "report": report,
                "details": {s: group_by_task(grades_from_course(course, lab, s, lab)) for s, r in report.items() if r.status == "graded"},
                "summary": summaries.get(lab),
                "feedback_files": {p.parts[-3] for p in (course / "feedback").glob(f"*/{lab}/{lab}.html")},
                "given_feedback": set(students[lab]) & sampled_feedback,  # a student left out is left out of every lab
                "export": export,
                "grades_csv": [row for row in grades_csv if row["assignment"] == lab],
                "autograded": {p.parts[-3]: json.loads(p.read_text()) for p in (course / "autograded").glob(f"*/{lab}/{lab}.ipynb")},
                "package_unchanged": package_unchanged,
                "config_unchanged": config_unchanged,
                "full": sum(cell.points for cell in test_cells.load(lab)),
                "seed": seed,
            }
        if TWO_JOBS_LAB in batches:  # what the members graded again in two jobs got here (before a test changes the gradebook)
            from test_grading_parallel import outcome

            batches[TWO_JOBS_LAB]["in_one_job"] = outcome(course, TWO_JOBS_LAB, two_jobs_class(batches[TWO_JOBS_LAB]))
        yield batches


@pytest.fixture
def batch(graded_class, lab):
    """One lab's part of its group's class (see :func:`graded_class`)."""
    return graded_class[lab]


def score(batch, student: str) -> float:
    status = batch["report"][student]
    assert status.status == "graded", f"{student}: {status}"
    return status.earned


def test_the_batch_grades_everyone_but_the_unreadable(batch):
    log = batch["autograde"].stdout + batch["autograde"].stderr
    assert batch["autograde"].returncode == 1, log[-3000:]  # invalid_json could not be processed
    assert f"There was an error processing assignment '{batch['lab']}' for student 'invalid_json'" in log
    not_graded = {s: r for s, r in batch["report"].items() if r.status != "graded"}
    assert set(not_graded) == {"invalid_json"}, not_graded
    assert not_graded["invalid_json"].status == "could not be read"
    print(f"{', '.join(batch['group'])}: {len(batch['report'])} submissions of {batch['lab']} autograded, "
          f"the whole group in {batch['seconds']:.0f} s")


def test_honest_work_gets_full_marks_whatever_it_prints(batch):
    for student in sorted(FULL_MARKS & set(batch["report"])):
        assert score(batch, student) == batch["full"], (student, batch["details"].get(student))


def test_honest_work_opens_no_file_the_sandbox_refuses(batch):
    """No honest notebook is flagged for a file it opened: what the graders run in the worker (a driver, a stand-in) must
    open nothing the sandbox refuses either. Lab 06's arena driver imported hashlib, whose OpenSSL read
    /etc/ssl/openssl.cnf, and the class report flagged every honest lab 06 for it."""
    review = batch["report"][honest_of(batch)].review
    assert not [line for line in review if "files the sandbox refused" in line], review


def test_the_release_scores_zero_each_task_saying_it_is_not_written_yet(batch):
    # "blank" is the committed release, as a learner receives it: graded, not a crash, and no points.
    tasks = batch["details"]["blank"]
    assert score(batch, "blank") == 0 and tasks
    assert all(not task.passed and "is not written yet" in task.first_failure for task in tasks), \
        [(task.name, task.first_failure) for task in tasks if "is not written yet" not in task.first_failure]


@pytest.mark.parametrize("student", sorted(BLANK_BASED))
def test_an_attack_on_a_blank_notebook_earns_nothing(batch, student):
    needs(batch, student)
    assert score(batch, student) == 0, [(t.name, t.earned, t.first_failure) for t in batch["details"][student] if t.earned]


def test_a_broken_function_costs_what_the_function_is_worth(batch):
    needs(batch, "last_raises")
    honest_partial = score(batch, "last_raises")
    assert 0 < honest_partial < batch["full"]
    for student in sorted(LIKE_LAST_RAISES & set(batch["report"])):
        assert score(batch, student) == honest_partial, (student, [(t.name, t.earned) for t in batch["details"][student]])


def test_a_broken_helper_costs_its_own_task_only(batch):
    if not has_helpers(batch["lab"]):
        pytest.skip(f"{batch['lab']}: no task calls an earlier task's function, so no helper can break another task")
    needs(batch, "helper_raises", "keeps_a_stand_in")
    helper = helper_and_user(batch["lab"])[0]
    worth = sum(cell.points for cell in test_cells.load(batch["lab"]) if cell.functions[0] == helper)
    for student in ("helper_raises", "keeps_a_stand_in"):
        assert score(batch, student) == batch["full"] - worth, (student, [(t.name, t.earned) for t in batch["details"][student]])


def test_hard_coding_the_visible_cases_earns_at_most_a_third(batch):
    needs(batch, "hardcoded")
    assert score(batch, "hardcoded") <= batch["full"] / 3, [(t.name, t.earned) for t in batch["details"]["hardcoded"]]


def attack_outputs(batch, student: str, cell_id: str = "attack") -> list[dict]:
    cell = next(c for c in batch["autograded"][student]["cells"] if c.get("id") == cell_id)
    return cell["outputs"]


@pytest.mark.parametrize("student", sorted(REFUSED))
def test_the_sandbox_refused_the_attack(batch, student):
    needs(batch, student)
    errors = [out for out in attack_outputs(batch, student) if out["output_type"] == "error"]
    refused = REFUSED[student] if isinstance(REFUSED[student], tuple) else (REFUSED[student],)
    assert errors and errors[0]["ename"] in refused, errors


def test_nothing_on_disk_changed(batch):
    assert batch["package_unchanged"], "a submission changed bpe_ref on disk"
    assert batch["config_unchanged"], "a submission changed the course's nbgrader_config.py"


def test_test_cells_show_the_graders_verdict(batch):
    needs(batch, "hooks_ipython", "loop_in_extra_cell")
    cells = batch["autograded"]["hooks_ipython"]["cells"]
    test_cells_with_errors = [c for c in cells if c.get("metadata", {}).get("nbgrader", {}).get("grade") and c["outputs"]]
    assert test_cells_with_errors and all(c["outputs"][0]["ename"] == "CheckFailed" for c in test_cells_with_errors)
    hung = next(c for c in batch["autograded"]["loop_in_extra_cell"]["cells"] if c.get("id") == "loop")
    assert "did not finish within 5 s" in hung["outputs"][-1]["evalue"]


def test_class_report_flags_what_needs_review(batch):
    needs(batch, "noisy_but_correct", "writes_gradebook", "patches_imports", "hooks_ipython", "reference_subprocess")
    report = batch["report"]
    assert not report[honest_of(batch)].review and not report["blank"].review and not report["noisy_but_correct"].review
    flags = {student: " ".join(status.review) for student, status in report.items()}
    assert "imports sqlite3" in flags["writes_gradebook"]
    assert "imports runpy" in flags["patches_imports"] and "imports importlib" in flags["patches_imports"]
    assert "IPython's shell (get_ipython)" in flags["hooks_ipython"]
    assert "imports subprocess" in flags["reference_subprocess"]
    assert "imports importlib" in flags["reference_import"] and "mentions 'bpe_ref.train.step02_incremental'" in flags["reference_import"]
    summary = batch["summary"].stdout
    assert batch["summary"].returncode == 1
    assert re.search(r"^writes_gradebook .* graded; NEEDS REVIEW$", summary, re.M), summary
    assert "could not be read: " in summary


def test_a_gradebook_written_behind_the_graders_back_is_flagged(batch, tmp_path):
    # The sandbox stops a cell from writing the gradebook; anyone else who does is caught here.
    import sqlite3

    from bpe_ref.course.grade import gradebook_disagreements

    course, lab = batch["course"], batch["lab"]
    with sqlite3.connect(course / "gradebook.db") as db:
        db.execute("UPDATE grade SET manual_score = 100 WHERE id IN (SELECT grade.id FROM grade "
                   "JOIN submitted_notebook ON grade.notebook_id = submitted_notebook.id "
                   "JOIN submitted_assignment ON submitted_notebook.assignment_id = submitted_assignment.id "
                   "JOIN assignment ON submitted_assignment.assignment_id = assignment.id "
                   "JOIN student ON submitted_assignment.student_id = student.id "
                   "WHERE student.id = 'blank' AND assignment.name = ?)", (lab,))
    problems = gradebook_disagreements(course, lab, "blank", lab)
    assert problems and all("manual score" in p for p in problems)
    assert gradebook_disagreements(course, lab, honest_of(batch), lab) == []


def test_feedback_and_export_work_for_the_class(batch):
    graded = {s for s, r in batch["report"].items() if r.status == "graded"}
    assert honest_of(batch) in batch["given_feedback"]
    assert ("blank" in batch["given_feedback"]) == attacks_on(batch["lab"]), batch["given_feedback"]
    assert batch["feedback_files"] == graded & batch["given_feedback"], batch["given_feedback"]
    assert batch["export"].returncode == 0
    scores = {row["student_id"]: float(row["raw_score"]) for row in batch["grades_csv"]}
    assert scores[honest_of(batch)] == batch["full"] and scores["blank"] == 0 and scores.get("writes_gradebook", 0) == 0


def test_self_grading_takes_the_same_path(batch, tmp_path):
    needs(batch, "patches_imports")  # the same attack, through python -m bpe_ref grade
    lab = batch["lab"]
    path = tmp_path / f"{lab}.ipynb"
    path.write_text(json.dumps(with_cell_after_setup(blank(lab), "attack", PATCHED_IMPORTS)), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "bpe_ref", "grade", str(path)], cwd=REPO_ROOT,
                            env=nbgrader_environment(), capture_output=True, text=True, timeout=600)
    assert result.returncode == 1
    assert re.search(rf"^total\s+0 / {batch['full']:g}\s+FAILED", result.stdout, re.M), result.stdout
    assert "Your code ran in a separate, locked-down process" in result.stdout and "Limits: " in result.stdout


# ---- what the autograder wrote into the honest notebook -----------------------------------------


def test_the_hidden_tests_ran_on_the_honest_notebook(batch):
    cells = batch["autograded"][honest_of(batch)]["cells"]
    grade_ids = [c["metadata"].get("nbgrader", {}).get("grade_id", "") for c in cells]
    hidden = {grade_id: cell for grade_id, cell in zip(grade_ids, cells) if grade_id.endswith("_hidden")}
    assert hidden
    for grade_id, cell in hidden.items():
        text = "".join("".join(out.get("text", "")) for out in cell["outputs"])
        assert "agrees with the reference on" in text or "a corpus it has not seen" in text, (grade_id, text)


def test_the_autograder_skips_the_exploration_and_the_stretch_checks(batch):
    lab_cells = {cell["id"] for cell in blank(batch["lab"])["cells"]}  # not a cell the learner added (a variant's probe)
    free = [c for c in batch["autograded"][honest_of(batch)]["cells"]
            if c["cell_type"] == "code" and not c["metadata"].get("nbgrader") and c["id"] in lab_cells]
    assert [c["id"] for c in free][-1] == "your_grade"
    for cell in free:
        printed = "".join("".join(o.get("text", "")) for o in cell["outputs"])
        if cell["id"] == "your_grade":  # it would start a grading of its own: skipped, silently, without error
            assert cell["outputs"] == [], cell["outputs"]
        elif cell["id"].startswith("stretch_"):  # a stretch task's self-check or measurement
            assert "skipped under the autograder." in printed, cell["id"]
        else:
            assert "Exploration skipped under the autograder." in printed, cell["id"]


# ---- submissions one lab's batch holds (ONE_LAB) -------------------------------------------------


def cell_of(batch, student: str, cell_id: str) -> dict:
    return next(c for c in batch["autograded"][student]["cells"] if c.get("id") == cell_id)


@only_on("00_pretokenization")
def test_a_cell_that_kills_its_process_costs_only_what_it_defines(batch):
    # The worker dies in task 2's solution cell; a fresh one replays the cells that ran, and the
    # rest of the notebook is graded: task 2 earns nothing, everything else its points.
    tasks = {task.name: task for task in batch["details"]["solution_cell_exits"]}
    assert tasks["task2_split_on_special_tokens"].earned == 0
    assert all(task.passed for name, task in tasks.items() if name != "task2_split_on_special_tokens"), tasks
    dying = cell_of(batch, "solution_cell_exits", "task2_split_on_special_tokens_solution")
    assert "the process running your code stopped" in dying["outputs"][-1]["evalue"]


@only_on("02_incremental")
def test_a_broken_or_unfinished_stretch_task_costs_nothing(batch):
    # Stretch tasks are ungraded: the broken stretch cell is reported in the feedback, and nothing more.
    assert score(batch, "broken_stretch") == batch["full"]
    assert cell_of(batch, "broken_stretch", "stretch_overlap_bug_solution")["outputs"][-1]["ename"] == "NameError"


@only_on("10_distributed")
def test_deleted_test_cells_come_back_even_after_a_read_only_cell(batch):
    # nbgrader puts a deleted test cell back after the source cell before it; its own lookup failed
    # when that cell was read-only (lab 10's task_graph, task 3's tree_shape), and autograde gave up
    # on the learner. Every test cell of lab 10 deleted: each comes back, and the grade is full.
    assert score(batch, "test_cells_deleted") == batch["full"]
    source = read_notebook_json(source_notebook("10_distributed"))["cells"]
    tests = [c["id"] for c in source if c["metadata"].get("nbgrader", {}).get("grade")]
    graded = batch["autograded"]["test_cells_deleted"]["cells"]
    order = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id", c.get("id")) for c in graded]
    source_order = [c["id"] for c in source]
    assert [i for i in order if i in tests] == [i for i in source_order if i in tests]
    for test in ("task3_tree_reduce", "task5_count_ranges"):  # right after the read-only cell they follow
        assert order[order.index(test) - 1] == source_order[source_order.index(test) - 1], test


@only_on("03_parallel")
def test_a_unix_socket_probe_is_flagged_and_costs_lab_03_nothing(batch):
    # tests/test_review_flags.py's probe of a unix socket outside the sandbox (there with a listener, which nobody
    # reached), graded: refused three ways, flagged by what the keeper counted, and the lab's processes (forkserver,
    # whose connect() the keeper makes to the scratch folder) still earn full marks (test_honest_work_gets_full_marks...).
    from test_review_flags import NOWHERE

    from bpe_ref.course.trusted.autograde import GradingRecord

    student, lab = "probes_unix_sockets", batch["lab"]
    assert score(batch, student) == batch["full"], batch["details"][student]
    printed = "".join("".join(out.get("text", "")) for out in cell_of(batch, student, "probe")["outputs"])
    assert printed.split() == ["path", "EACCES", "link", "EACCES", "datagram", "EACCES"], printed
    record = GradingRecord.load(batch["course"], student, lab, lab)
    assert record.refused.get(f"connect(unix socket {NOWHERE})") == 1, record.refused
    assert any("connect() made by the keeper" in line for line in record.isolation), record.isolation
    review = batch["report"][student].review
    assert any(f"connect(unix socket {NOWHERE}) x1" in line for line in review), review


@only_on("01_naive_bpe")
def test_autograde_grades_in_the_sources_order_and_flags_the_tampering(batch):
    # tests/test_trust_boundary.py's reordering attack, with a deleted test cell and an edited
    # read-only one, in a class: graded in the source's order, and grade --class says what was done.
    report, full = batch["report"], batch["full"]
    worth = sum(c.points for c in test_cells.load("01_naive_bpe") if c.functions == ("count_pairs",))
    assert report["reorders_and_tampers"].earned <= full - worth, report["reorders_and_tampers"]
    assert not report["honest_with_docstrings"].review, report["honest_with_docstrings"]  # it only mentions bpe_ref
    flags = " | ".join(report["reorders_and_tampers"].review)
    assert "deleted the test cell task2_best_pair" in flags and "edited the test cell task3_merge_word" in flags, flags
    assert "moved the cell task1_count_pairs" in flags, flags
    summary = batch["summary"].stdout
    assert re.search(r"^reorders_and_tampers .*NEEDS REVIEW", summary, re.M), summary
    assert "deleted the test cell task2_best_pair" in summary, summary
    assert batch["seed"], "no hidden seed kept with the gradebook"


@only_on("00_pretokenization")
def test_grade_class_flags_the_refused_call_by_name_and_leaves_the_score(batch):
    # tests/test_review_flags.py's class: a refused socket and a refused file, counted from outside.
    from test_review_flags import FLAGS

    report, summary = batch["report"], batch["summary"].stdout
    honest, flagged = report["honest_with_a_docstring"], report["opens_a_socket"]
    assert honest.status == flagged.status == "graded"
    assert honest.earned == flagged.earned == honest.possible, (honest, flagged)  # the flag changes no score
    assert honest.review == [], honest.review  # it only mentions bpe_ref in a docstring
    assert flagged.review[:2] == FLAGS, flagged.review  # what it did first; hints from its text after
    assert re.search(r"^opens_a_socket .* graded; NEEDS REVIEW$", summary, re.M), summary
    assert all(f"- {flag}" in summary for flag in FLAGS), summary
    assert not re.search(r"^honest_with_a_docstring .*NEEDS REVIEW", summary, re.M), summary


@only_on("00_pretokenization")
def test_grade_class_flags_the_tampering_nbgrader_restored(batch):
    report, summary = batch["report"], batch["summary"].stdout
    tampered = report["tampers"]
    assert tampered.status == "graded" and tampered.earned == tampered.possible, tampered
    flags = " | ".join(tampered.review)
    assert re.search(r"deleted the test cell \w+ \(nbgrader put it back\)", flags), flags
    assert re.search(r"edited the read-only cell \w+ \(its source was restored\)", flags), flags
    # points raised in a test cell's metadata: put back from the gradebook (the score is the lab's), and said
    assert re.search(r"changed the nbgrader metadata of the test cell \w+ \(points [0-9.]+ -> [0-9.]+; nbgrader put it back\)",
                     flags), flags
    assert re.search(r"^tampers .* graded; NEEDS REVIEW$", summary, re.M), summary


@only_on("00_pretokenization")
def test_escape_codes_in_a_path_cannot_erase_the_flags_of_a_class_report(batch):
    """tests/test_grading_redteam.py's section 25, in a class: ``grade --class`` printed each review line as it came: a
    refused open of a path of escape codes (what the keeper saw) erased the flagged student's row and the line before
    on the instructor's terminal and wrote a clean row ("13 / 13  graded") in their place: the flag was in the report,
    and no one saw it. And ``nbgrader autograde``'s log printed the escape codes of a cell's unknown grade_id (twice: a
    warning, a traceback). Safe: the rows and their review lines are printed with every control and format character
    written as an escape, so the student's row shows NEEDS REVIEW and its flag, on one line each; nbgrader's console log
    handler does the same (:class:`bpe_ref.course.printable.PrintableStreamHandler`, set in ``nbgrader_config.py``). The
    cell of an unknown grade_id is a plain cell (section 35): its notebook (both attacks) is graded, full marks, its
    warning escaped in the log."""
    from test_grading_redteam import CONTROL

    out, log = batch["summary"].stdout, batch["autograde"].stdout + batch["autograde"].stderr
    assert batch["summary"].returncode == 1, out + log[-2000:]
    assert not CONTROL.search(out), repr(out)
    assert not CONTROL.search(log) and "Cell 'zz\\r\\x1b[2K" in log, repr(log[-3000:])
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("hides_")}
    assert list(rows) == ["hides_by_path"] and "13 / 13  graded; NEEDS REVIEW" in rows["hides_by_path"], out  # full marks
    assert "its code opened files the sandbox refused: write /etc/\\r\\x1b[2K" in out, out


@only_on("00_pretokenization")
def test_nbgrader_metadata_of_the_learner_s_stops_neither_the_class_s_grading_nor_its_own(batch):
    """tests/test_grading_redteam.py's section 35: nbgrader's ``CheckCellMetadata`` raises ``SchemaTooOldError``
    (``SchemaTooNewError``) for a cell whose nbgrader metadata has another ``schema_version`` than its own, and
    ``nbgrader autograde`` gives up on the whole run at that error, not on that notebook alone: a submission whose
    solution cell said ``schema_version: 1`` left every student graded after it ungraded (``python -m bpe_ref
    autograde`` grades those again in one run with it, which it stops again). And a cell copied in Jupyter, its nbgrader
    metadata with it (``DeduplicateIds`` empties the first copy's), or one with a grade_id the gradebook does not know
    (``OverwriteCells`` deletes it) failed the notebook itself on a ``KeyError`` in nbgrader: "not graded", whatever it
    earned; so did a test cell made a solution cell, or no grade cell (nbgrader puts back its source, not those flags,
    and its checksum then differs: a ``RuntimeError``). Safe: the sanitizing ``RestoringOverwriteCells`` puts the
    version and the flags back as it puts back points (each flagged on a test cell, as a test cell made markdown is),
    and a cell whose grade_id is gone is a plain cell: every notebook is graded. A graded cell of the learner's (worth
    100 points, that runs: nbgrader scores such a cell in full) earned nothing, a plain cell, but was not flagged, and
    one with no grade_id failed the notebook (a ``KeyError`` in nbgrader's ``DeduplicateIds``): ``NamedDeduplicateIds``
    makes it a plain cell too, and both are flagged."""
    from test_grading_redteam import _nbgrader_cell

    index = _nbgrader_cell(blank("00_pretokenization"), True)[0]
    report, log = batch["report"], batch["autograde"].stdout + batch["autograde"].stderr
    # nbgrader gave up on no one but the batch's unreadable file (its exit code 1): the run went on after ann
    assert set(re.findall(r"error processing assignment '\S+' for student '(\w+)'", log)) == {"invalid_json"}, log[-3000:]
    students = ("ann", "blank", *METADATA_STUDENTS[1:])  # graded in this order (by name), ann's versions before the release
    assert {student: (report[student].status, report[student].earned) for student in students} == dict.fromkeys(
        students, ("graded", 0.0)), log[-3000:]
    assert any("schema_version 3.0 -> 99.0" in line for line in report["ann"].review), report["ann"].review
    assert sorted(report["eve"].review) == [
        "changed the nbgrader metadata of the test cell task1_utf8_bytes (solution False -> True; nbgrader put it back)",
        "changed the nbgrader metadata of the test cell task1_utf8_bytes_hidden (grade True -> False; nbgrader put it back)",
        "made the test cell task2_split_on_special_tokens a markdown cell (nbgrader put it back)"], report["eve"].review
    assert report["fay"].review == ["added a graded cell bonus (100.0 points; not graded: autograde made it a plain cell)"]
    assert report["gus"].review == [f"added a graded cell (cell {index}, no grade_id) (100.0 points; not graded: autograde "
                                    "made it a plain cell)"], report["gus"].review
    assert not report["blank"].review


# ---- the class graded by two nbgrader processes at once (python -m bpe_ref autograde --jobs 2) ------------
#
# tests/test_grading_parallel.py's subject, checked on lab 00's batch rather than on a class of its own graded twice:
# members of the batch, graded again in a course of their own by ``python -m bpe_ref autograde --jobs 2`` with the
# batch's seed and limits, must get what the batch's one ``nbgrader autograde`` gave them (report, gradebook, trusted
# record, autograded notebook): honest work, the release, one whose last function hangs until the call's limit, the
# unreadable file. The grading again costs nbgrader processes of its own (16-31 s of CPU with six members, 14-15 s
# with these four, on a loaded machine): BPE_EXHAUSTIVE=1 adds honest work a second time and a notebook failing
# hidden tests whose failing input is shrunk (the table of visible answers; the replayed inputs' shrinking is
# tests/test_grading_class_inputs.py's in every run).
TWO_JOBS_LAB = "00_pretokenization"
IN_TWO_JOBS = {"blank", "last_hangs", "invalid_json"} | ({"noisy_but_correct", "hardcoded"} if EXHAUSTIVE else set())


def two_jobs_class(batch) -> set[str]:
    return IN_TWO_JOBS | {honest_of(batch)}


@pytest.fixture(scope="module")
def graded_in_two_jobs(graded_class):
    from test_grading_parallel import in_jobs, outcome

    batch = graded_class[TWO_JOBS_LAB]
    with temporary_course((TWO_JOBS_LAB,)) as course:
        assert run_nbgrader(["generate_assignment", TWO_JOBS_LAB, "--force"], course, timeout=600).returncode == 0
        # The batch's limits, in the course's configuration (the command passes no option on to nbgrader), and seed.
        options = [*BATCH_OPTIONS, call_limit(group_of(TWO_JOBS_LAB))]
        with (course / "nbgrader_config.py").open("a", encoding="utf-8") as config:
            config.writelines(f"\nc.{option.removeprefix('--').replace('=', ' = ')}\n" for option in options)
        (course / "trusted_grades").mkdir()
        (course / "trusted_grades" / "hidden_seed").write_text(batch["seed"], encoding="utf-8")
        for student in two_jobs_class(batch):
            shutil.copytree(batch["course"] / "submitted" / student, course / "submitted" / student)
        job = in_jobs(course, lab=TWO_JOBS_LAB, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        log = job.communicate(timeout=1800)[0]
        yield {"one job": (batch["autograde"].returncode, batch["in_one_job"]),
               "two jobs": (job.returncode, outcome(course, TWO_JOBS_LAB, two_jobs_class(batch))), "log": log}


@only_on(TWO_JOBS_LAB)
def test_two_jobs_grade_a_class_as_one_nbgrader_autograde(batch, graded_in_two_jobs):
    serial_code, serial = graded_in_two_jobs["one job"]
    parallel_code, parallel = graded_in_two_jobs["two jobs"]
    log = graded_in_two_jobs["log"]
    assert "in 2 nbgrader processes at once" in log, log[-3000:]
    assert serial_code == parallel_code == 1, log[-3000:]  # invalid_json could not be processed, either way
    assert sorted(parallel) == sorted(serial) == sorted(two_jobs_class(batch))
    for student in serial:
        assert parallel[student] == serial[student], student
    assert serial[honest_of(batch)]["report"][:2] == ("graded", batch["full"])
    assert serial["invalid_json"]["report"][0] == "could not be read"


@only_on(TWO_JOBS_LAB)
def test_a_submission_that_hangs_holds_up_no_other(batch, graded_in_two_jobs):
    _, parallel = graded_in_two_jobs["two jobs"]
    status, earned, _, _ = parallel["last_hangs"]["report"]
    assert status == "graded" and 0 < earned < batch["full"]
    # (lab 00's call limit, call_limit)
    assert any("waited 5 s without running (its backstop)" in verdict.message for verdict in parallel["last_hangs"]["record"][0])
    assert all(parallel[student]["report"][0] == "graded" for student in parallel if student != "invalid_json")


# ---- a wrong method whose calls look right: the how is measured from outside, or forced by inputs ---------
#
# Three tasks once told the taught method from another by the calls of the learner's helpers, counted in the
# learner's own process: lab 04's V4 (index_words, count_pairs, merge_and_update), lab 05's V5 (pop_best,
# heap_entry) and lab 07's heap encoder (first_heap, merge_all, on short pretokens). Each submission below is
# the release with that task's function written the wrong way, and its calls made for show (lab 04, lab 07) or
# the worker's count forged (lab 05): the task's visible point and its hidden points must be lost to what the
# trusted side measures (CPU time, lab 04 and 05) or to inputs the wrong method answers wrongly (lab 07's merges
# reordered by hand), in an instructor's class (autograde, grade --class) and in a self-grade.

# Lab 02's scan of every word on each merge; index_words called once for show, merge_and_update only on the
# words that hold the pair: the calls of an exact index.
LAB04_SCAN_WITH_CALLS = '''\
def train(pretoken_counts, num_merges):
    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]
    frequencies = list(pretoken_counts.values())
    pair_counts = count_pairs(dict(zip(words, frequencies)))
    index_words(words)  # built for show: the loop below never reads it
    merges = []
    for _ in range(num_merges):
        if not pair_counts:
            break
        pair = best_pair(pair_counts)
        merges.append(pair)
        for i, word in enumerate(words):  # every word, on every merge
            if pair[0] in word and pair in zip(word, word[1:]):
                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)
    return merges
'''

# V4's scan of the pair counts on each merge, with the grading worker's watch replaced: it reports one
# pop_best per merge and no heap entries, what V5 would have called.
LAB05_SCAN_WITH_FORGED_COUNT = '''\
import sys

_worker = sys.modules["__main__"]  # the worker loop's module once (the notebook's now: redteam section 19)
_reported = {}


def _not_watching(function, calls):  # in place of the worker's _spy: keep the list, wrap nothing
    _reported[function.__name__] = calls
    return function


if hasattr(_worker, "_spy"):
    _worker._spy = _not_watching


def train(pretoken_counts, num_merges):
    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]
    frequencies = list(pretoken_counts.values())
    pair_counts = count_pairs(dict(zip(words, frequencies)))
    index = index_words(words)
    merges = []
    while len(merges) < num_merges and pair_counts:
        pair = max(pair_counts.items(), key=lambda item: (item[1], item[0]))[0]  # V4's scan, on every merge
        merges.append(pair)
        token = pair[0] + pair[1]
        for i in index.pop(pair, ()):
            word = words[i]
            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)
            if len(words[i]) < len(word):
                for new_pair in pairs_with(words[i], token):
                    index[new_pair].add(i)
    if "pop_best" in _reported:
        _reported["pop_best"].extend([len(pair_counts)] * len(merges))  # a pop per merge, reported
    _reported.clear()
    return merges
'''

# Lab 06's rounds up to 16 bytes, first_heap and merge_all called there for show; the heap on longer pretokens
# (which the cost check measures).
LAB07_ROUNDS_WHEN_SHORT = '''\
def heap_encode(pretoken, ranks):
    parts = list(split_into_bytes(pretoken))
    if len(pretoken) <= 16:  # quicker on short pieces
        merge_all(parts[:2], ranks, first_heap(parts[:2], ranks))  # called once each, for show
        return encode_pretoken(pretoken, ranks)
    return merge_all(parts, ranks, first_heap(parts, ranks))
'''

# lab -> (the task, its wrong method)
METHOD_FOR_SHOW = {
    "04_inverted_index": ("task3_train", LAB04_SCAN_WITH_CALLS),
    "05_heap": ("task3_train", LAB05_SCAN_WITH_FORGED_COUNT),
    "07_heap_encoding": ("task3_heap_encode", LAB07_ROUNDS_WHEN_SHORT),
}
# What a failure may say: measured from outside (CPU time, or a call stopped by its limit), or the tokens of an
# input the wrong method answers wrongly (its first line, then its hint). Never a count of calls.
FIRST_LINES = ("of CPU time", "did not finish", "expected [b'aba', b'b'], got [b'ab', b'ab']")
MEASURED_OR_FORCED = ("measured from outside your code", "did not finish", "these are lab 06's tokens")
COUNTED = re.compile(r"\bcalled \w+ \d+ times|\b\d+ (pops|calls)\b")


def method_for_show(lab: str) -> dict:
    """The release of ``lab``, with :data:`METHOD_FOR_SHOW`'s wrong method in its task's solution cell."""
    task, source = METHOD_FOR_SHOW[lab]
    notebook = blank(lab)
    for cell in notebook["cells"]:
        if cell["id"] == task + "_solution":
            cell["source"] = source
    return notebook


def points_left(lab: str) -> float:
    """What :func:`method_for_show` of ``lab`` may still earn: the other test cells of its function (lab 04's
    task 4, the merges on corpora, asks for no method; a call that ran past its limit earlier in the notebook
    is not made again, so on a loaded machine it earns nothing either); the release's functions earn nothing."""
    task = METHOD_FOR_SHOW[lab][0]
    name = next(cell.functions[0] for cell in test_cells.load(lab) if cell.grade_id == task)
    return sum(cell.points for cell in test_cells.load(lab) if cell.functions[0] == name and not cell.grade_id.startswith(task))


def failure_text(cells: list[dict], grade_id: str) -> str:
    """The whole message of the failure an autograded test cell shows."""
    cell = next(c for c in cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id)
    return " ".join(out.get("evalue", "") for out in cell["outputs"] if out["output_type"] == "error")


@only_on(*METHOD_FOR_SHOW)
def test_a_wrong_method_with_its_calls_for_show_loses_its_points_in_a_class(batch):
    # The lab's class holds the student (submissions_of); the sampled labs only by default (lab 07: labs 04 and
    # 05 would add a whole lab's grading each, about 15 s of CPU), all three with BPE_EXHAUSTIVE=1.
    lab = batch["lab"]
    if "method_for_show" not in batch["report"]:
        pytest.skip(f"{lab}: the wrong methods are graded in the classes of the sampled labs ({', '.join(SAMPLED_LABS)}); "
                    "BPE_EXHAUSTIVE=1 grades every one")
    tasks = {task.name: task for task in batch["details"]["method_for_show"]}
    cells = batch["autograded"]["method_for_show"]["cells"]
    task, _ = METHOD_FOR_SHOW[lab]
    result = tasks[task]
    assert result.earned == 0 and len(result.cells) == 2, [(cell.grade_id, cell.earned) for cell in result.cells]
    assert result.first_failure.startswith("visible: "), result.first_failure
    assert any(words in result.first_failure for words in FIRST_LINES), result.first_failure
    for grade_id in (task, task + "_hidden"):  # the visible point and the hidden ones, lost to the same kind of check
        message = failure_text(cells, grade_id)
        assert any(why in message for why in MEASURED_OR_FORCED) and not COUNTED.search(message), (grade_id, message)
    status = batch["report"]["method_for_show"]
    assert status.status == "graded" and status.earned == sum(t.earned for t in tasks.values()) <= points_left(lab)
    summary = batch["summary"].stdout
    assert re.search(rf"^method_for_show\s+{status.earned:g} / {status.possible:g}\s+graded", summary, re.M), summary


@pytest.mark.parametrize("lab", sorted(METHOD_FOR_SHOW))
def test_a_wrong_method_with_its_calls_for_show_loses_its_points_in_a_self_grade(lab, tmp_path):
    # On demand only (BPE_EXHAUSTIVE=1, all three): the same notebook is graded in its lab's class every run (lab 07's,
    # a sampled lab, above: its verdict an input's tokens, whatever the seed), by the same nbgrader autograde a self-grade
    # runs; the self-grade's own path (a temporary course, a seed of its own, its report) is graded every run on lab
    # 00's solution (tests/test_grading_labs.py) and on an attack (test_self_grading_takes_the_same_path). 9 s of CPU.
    if not EXHAUSTIVE:
        pytest.skip(f"{lab}: a wrong method's self-grade runs under BPE_EXHAUSTIVE=1 only (the same notebook is graded in "
                    "its lab's class: lab 07's every run)")
    task, _ = METHOD_FOR_SHOW[lab]
    path = tmp_path / f"{lab}.ipynb"
    path.write_text(json.dumps(method_for_show(lab)), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "bpe_ref", "grade", str(path)], cwd=REPO_ROOT,
                            env=nbgrader_environment(), capture_output=True, text=True, timeout=900)
    assert result.returncode == 1, result.stdout + result.stderr
    line = next((line for line in result.stdout.splitlines() if line.startswith(task + " ")), "")
    assert re.match(rf"{task}\s+0 / \d+\s+FAILED\s+visible: ", line) and any(words in line for words in FIRST_LINES), result.stdout
    total = re.search(r"^total\s+(\S+) / \d+\s+FAILED", result.stdout, re.M)
    assert total and float(total.group(1)) <= points_left(lab), result.stdout
