"""A class of broken submissions, autograded in one batch with the course's nbgrader_config.py.

Invalid JSON, deleted test cells, an infinite loop, an exception in the first cell, a function that
calls the reference, a cell that monkeypatches the graders, a kernel that ignores interrupts, a
kernel that dies. Each gets the score it deserves (worked out by hand below), the report tells
"could not be read" and "not graded" apart from a real zero, and the rest of the class is graded.
Then the instructor's next steps run: feedback and the grade export.

The submissions are built from the lab 01 notebooks here, so they follow the notebooks as they
change. The batch runs once (module-scoped fixture); it takes about two minutes, most of it two
30-second cell timeouts.
"""

from __future__ import annotations

import copy
import csv
import json
import subprocess
import sys
import time

import pytest

from bpe_ref.course.grade import class_report, grades_from_course, group_by_task
from bpe_ref.course.notebooks import (
    REPO_ROOT,
    generate_release,
    nbgrader_environment,
    read_notebook_json,
    release_notebook,
    run_nbgrader,
    source_notebook,
    temporary_course,
)

LAB = "01_naive_bpe"
FULL = 15  # points of lab 01


def completed_notebook() -> dict:
    """The release notebook with every solution cell filled in as a learner would (no markers)."""
    notebook = read_notebook_json(release_notebook(LAB))
    solutions = {cell["id"]: cell["source"] for cell in read_notebook_json(source_notebook(LAB))["cells"]}
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            lines = solutions[cell["id"]].splitlines()
            cell["source"] = "\n".join(line for line in lines if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
    return notebook


def with_cell(notebook: dict, cell_id: str, source: str) -> dict:
    notebook = copy.deepcopy(notebook)
    next(cell for cell in notebook["cells"] if cell["id"] == cell_id)["source"] = source
    return notebook


def code_cell(cell_id: str, source: str) -> dict:
    return {"cell_type": "code", "id": cell_id, "metadata": {}, "source": source, "execution_count": None, "outputs": []}


MONKEYPATCHES = """\
# Make every test pass, whatever my functions do.
import bpe_ref.course.checks.core as core
import bpe_ref.course.checks.lab01_naive_bpe as lab01_graders
import bpe_ref.train.step01_naive as naive

for name in dir(lab01_graders):
    if name.startswith("check_"):
        setattr(lab01_graders, name, lambda *args, **kwargs: None)
core.same = lambda expected, got: True
core.verdict = lambda *args, **kwargs: None
core.check_cases = lambda *args, **kwargs: 1
naive.train = lambda word_counts, num_merges: []   # the reference now agrees with my train
check_train = check_merge_word = lambda function: None
"""


def class_of_broken_submissions() -> dict[str, str | dict]:
    """student id -> notebook (JSON) or raw text."""
    complete = completed_notebook()
    blank = read_notebook_json(release_notebook(LAB))

    deleted = with_cell(complete, "task1_count_pairs_solution", "def count_pairs(word_counts):\n    return {}\n")
    deleted["cells"] = [c for c in deleted["cells"] if c["id"] not in ("task1_count_pairs", "task1_count_pairs_hidden")]

    merge_cell = next(c["source"] for c in complete["cells"] if c["id"] == "task3_merge_word_solution")
    first_cell = copy.deepcopy(complete)
    first_cell["cells"].insert(0, code_cell("my-first-cell", 'raise RuntimeError("a typo in my first cell")'))

    patched = with_cell(blank, "task4_train_solution", "def train(word_counts, num_merges):\n    return []\n")
    setup_at = next(i for i, c in enumerate(patched["cells"]) if c["id"] == "setup")
    patched["cells"].insert(setup_at + 1, code_cell("make-tests-pass", MONKEYPATCHES))

    return {
        "complete": complete,
        "blank": blank,
        "invalid_json": json.dumps(complete)[:5000],
        "deleted_test_cells": deleted,
        "infinite_loop": with_cell(complete, "task3_merge_word_solution", "while True:\n    pass\n\n" + merge_cell),
        "exception_first_cell": first_cell,
        "calls_reference": with_cell(
            complete,
            "task4_train_solution",
            "import bpe_ref.train.step01_naive\n\ndef train(word_counts, num_merges):\n    return bpe_ref.train.step01_naive.train(word_counts, num_merges)\n",
        ),
        "monkeypatches_graders": patched,
        "hung_kernel": with_cell(
            complete,
            "task3_merge_word_solution",
            "import signal\n\ndef merge_word(word, pair):\n    signal.signal(signal.SIGINT, signal.SIG_IGN)  # no interrupting me\n"
            "    while True:\n        pass\n",
        ),
        "dead_kernel": with_cell(complete, "task2_best_pair_solution", "import os\nos._exit(1)\n"),
    }


# What each submission deserves, task by task (task1..task5 are worth 2, 3, 3, 4, 3).
EXPECTED_SCORES = {
    "complete": FULL,
    "blank": 0,
    # count_pairs is wrong and its tests were deleted: nbgrader puts them back and they fail; train
    # needs count_pairs, so tasks 4 and 5 fail too. Left: best_pair 3 + merge_word 3.
    "deleted_test_cells": 6,
    # The loop times out before merge_word is defined: tasks 3, 4 and 5 fail. Left: 2 + 3.
    "infinite_loop": 5,
    # An error in an extra first cell costs nothing else.
    "exception_first_cell": FULL,
    # train calls bpe_ref's trainer: tasks 4 and 5 refused. Left: 2 + 3 + 3.
    "calls_reference": 8,
    # The skeleton, a wrong train, and every grader patched: still nothing.
    "monkeypatches_graders": 0,
}
NOT_GRADED = {"hung_kernel", "dead_kernel"}
UNREADABLE = {"invalid_json"}


@pytest.fixture(scope="module")
def autograded_class(tmp_path_factory):
    with temporary_course([LAB]) as course:
        generate_release(LAB, course, database=True)
        for student, notebook in class_of_broken_submissions().items():
            folder = course / "submitted" / student / LAB
            folder.mkdir(parents=True)
            text = notebook if isinstance(notebook, str) else json.dumps(notebook, indent=1)
            (folder / f"{LAB}.ipynb").write_text(text, encoding="utf-8")
        start = time.perf_counter()
        autograde = run_nbgrader(["autograde", LAB], course)
        seconds = time.perf_counter() - start
        report = {s.student: s for s in class_report(course, LAB)}
        details = {
            student: group_by_task(grades_from_course(course, LAB, student, LAB))
            for student, status in report.items()
            if status.status == "graded"
        }
        summary = subprocess.run(
            [sys.executable, "-m", "bpe_ref", "grade", "--class", LAB, "--course", str(course)],
            cwd=REPO_ROOT, env=nbgrader_environment(), capture_output=True, text=True, timeout=300,
        )
        feedback = run_nbgrader(["generate_feedback", LAB], course)
        export = run_nbgrader(["export", "--to", str(course / "grades.csv")], course)
        autograded_notebooks = {
            p.parent.parent.name: json.loads(p.read_text(encoding="utf-8"))
            for p in (course / "autograded").glob(f"*/{LAB}/{LAB}.ipynb")
        }
        yield {
            "autograde": autograde,
            "seconds": seconds,
            "report": report,
            "details": details,
            "summary": summary,
            "feedback": feedback,
            "feedback_files": {p.parts[-3] for p in (course / "feedback").glob(f"*/{LAB}/{LAB}.html")},
            "export": export,
            "grades_csv": list(csv.DictReader((course / "grades.csv").open())) if (course / "grades.csv").exists() else [],
            "autograded": autograded_notebooks,
        }


def test_the_batch_finishes_and_says_some_submissions_failed(autograded_class):
    autograde = autograded_class["autograde"]
    # nbgrader exits 1 when any submission could not be processed, after grading all the others.
    assert autograde.returncode == 1
    log = autograde.stdout + autograde.stderr
    assert "There was an error processing assignment '01_naive_bpe' for student 'invalid_json'" in log
    print(f"class of {len(autograded_class['report'])} autograded in {autograded_class['seconds']:.0f} s")


@pytest.mark.parametrize("student", sorted(EXPECTED_SCORES))
def test_each_graded_submission_gets_the_score_it_deserves(autograded_class, student):
    status = autograded_class["report"][student]
    assert status.status == "graded", status
    assert (status.earned, status.possible) == (EXPECTED_SCORES[student], FULL)


def test_unreadable_and_ungradable_submissions_are_not_real_zeros(autograded_class):
    report = autograded_class["report"]
    assert {s for s, r in report.items() if r.status == "could not be read"} == UNREADABLE
    assert "not valid notebook JSON" in report["invalid_json"].detail
    assert {s for s, r in report.items() if r.status == "not graded"} == NOT_GRADED
    # Nothing after the hang or the crash was allowed to count as passed (nbgrader issue 427).
    assert set(autograded_class["autograded"]) == set(EXPECTED_SCORES)


def failures(autograded_class, student: str) -> dict[str, str]:
    return {task.name: task.first_failure for task in autograded_class["details"][student] if not task.passed}


def test_reports_say_what_went_wrong(autograded_class):
    assert failures(autograded_class, "complete") == {}
    deleted = failures(autograded_class, "deleted_test_cells")
    assert "nbgrader put it back" in deleted["task1_count_pairs"]
    assert "count_pairs(word_counts={(b'l', b'o', b'w'): 1}): expected {(b'l', b'o'): 1, (b'o', b'w'): 1}, got {}" in deleted["task1_count_pairs"]
    loop = failures(autograded_class, "infinite_loop")
    assert loop["task3_merge_word"] == "visible: NameError: name 'merge_word' is not defined"
    reference = failures(autograded_class, "calls_reference")
    assert set(reference) == {"task4_train", "task5_train_on_corpus_en"}
    assert all("uses the reference solution" in line for line in reference.values())
    patched = failures(autograded_class, "monkeypatches_graders")
    assert "task4_train" in patched and "expected" in patched["task4_train"]


def test_the_monkeypatching_cell_itself_ran(autograded_class):
    cells = autograded_class["autograded"]["monkeypatches_graders"]["cells"]
    patch = next(c for c in cells if "".join(c["source"]).startswith("# Make every test pass"))
    assert patch["outputs"] == []  # it ran without error: the graders simply did not care


def test_the_infinite_loop_timed_out_in_its_own_cell(autograded_class):
    cells = autograded_class["autograded"]["infinite_loop"]["cells"]
    loop = next(c for c in cells if c["id"] == "task3_merge_word_solution")
    assert "CellTimeoutError" in {out.get("ename") for out in loop["outputs"]}


def test_class_summary_command(autograded_class):
    summary = autograded_class["summary"]
    assert summary.returncode == 1
    lines = {line.split()[0]: line for line in summary.stdout.splitlines() if line.strip()}
    assert f"{FULL} / {FULL}  graded" in lines["complete"]
    assert "0 / 15  graded" in lines["blank"]
    assert "could not be read: " in lines["invalid_json"]
    assert "not graded: autograde failed on it" in lines["hung_kernel"]
    assert "7 graded, 1 could not be read, 2 not graded (10 submissions)." in summary.stdout
    assert "the submissions that were not graded; they have no real score" in summary.stdout
    print(summary.stdout)


def test_feedback_and_export_work_for_the_class(autograded_class):
    assert autograded_class["feedback"].returncode == 0, autograded_class["feedback"].stderr[-2000:]
    assert autograded_class["feedback_files"] == set(EXPECTED_SCORES)
    assert autograded_class["export"].returncode == 0
    scores = {row["student_id"]: float(row["raw_score"]) for row in autograded_class["grades_csv"]}
    assert scores["complete"] == FULL and scores["calls_reference"] == 8
    assert scores["invalid_json"] == 0.0 and scores["hung_kernel"] == 0.0  # why the summary command exists
