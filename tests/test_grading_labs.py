"""Self-grading with ``python -m bpe_ref grade``: the full autograder, hidden tests included, in a
temporary course. Each solution notebook gets full marks and exit code 0; a notebook that cannot be
read or graded says so instead of reporting a score of 0; a failing one exits 1. One lab autogrades
in well under 60 s.

Each sampled lab's solution (``tests/sampling.py``) is graded once per test session (a
module-scoped fixture); every lab's solution gets full marks through the same autograde in its
class batch (tests/test_grading_adversarial.py), and ``BPE_EXHAUSTIVE=1`` grades every lab here
too. That each release
scores zero, every task saying it is not written yet, is checked on the blank submission of each
lab's class batch (tests/test_grading_adversarial.py), graded the same way, by nbgrader autograde.
"""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bpe_ref.course.grade import _why_autograde_failed, failure_of, group_by_task, CellResult
from sampling import skip_unless_sampled

from bpe_ref.course.notebooks import REPO_ROOT, lab_names, nbgrader_environment, release_notebook, source_notebook

LABS = lab_names()
AUTOGRADE_SECONDS_LIMIT = 60


def _children_cpu_seconds() -> float:
    """CPU time of this process's finished children and their children, user and system."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Graded:
    """One run of the grade command: exit code, output, time, and the autograded notebook."""

    def __init__(self, notebook: Path, keep: Path, *extra: str) -> None:
        start, spent_before = time.perf_counter(), _children_cpu_seconds()
        result = subprocess.run(
            [sys.executable, "-m", "bpe_ref", "grade", str(notebook), "--keep", str(keep), *extra],
            cwd=REPO_ROOT,
            env=nbgrader_environment(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        self.seconds = time.perf_counter() - start
        # The command's processes (grade, nbgrader, the confined worker) all end before run returns.
        self.cpu_seconds = _children_cpu_seconds() - spent_before
        self.returncode = result.returncode
        self.stdout, self.stderr = result.stdout, result.stderr
        kept = list(keep.glob("*.autograded.ipynb"))
        self.autograded = json.loads(kept[0].read_text(encoding="utf-8")) if kept else None

    def rows(self) -> dict[str, tuple[str, str, str]]:
        """task -> (points, result, failure) from the printed table."""
        rows = {}
        for line in self.stdout.splitlines():
            match = re.match(r"^(task\d+_\w+|total)\s+(\d+ / \d+)\s+(passed|FAILED)\s*(.*)$", line)
            if match:
                rows[match.group(1)] = (match.group(2), match.group(3), match.group(4))
        return rows


@pytest.fixture(scope="module", params=LABS)
def graded_lab(request, tmp_path_factory):
    lab = request.param
    skip_unless_sampled(lab, "self-grading the solution with python -m bpe_ref grade")
    return lab, Graded(source_notebook(lab), tmp_path_factory.mktemp(f"{lab}_solution"))


def points_of(lab: str) -> int:
    notebook = json.loads(source_notebook(lab).read_text(encoding="utf-8"))
    return int(sum(c["metadata"].get("nbgrader", {}).get("points", 0) for c in notebook["cells"]))


def test_solution_gets_full_marks_and_exit_code_0(graded_lab):
    lab, solution = graded_lab
    assert solution.returncode == 0, solution.stdout + solution.stderr
    total = points_of(lab)
    rows = solution.rows()
    assert rows["total"] == (f"{total} / {total}", "passed", "")
    assert all(result == "passed" for _, result, _ in rows.values())
    assert f"All tasks passed: {total} / {total} points" in solution.stdout


def test_hidden_tests_ran_in_the_self_grade(graded_lab):
    lab, solution = graded_lab
    hidden = [c for c in solution.autograded["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id", "").endswith("_hidden")]
    assert hidden
    for cell in hidden:
        text = "".join("".join(out.get("text", "")) for out in cell["outputs"])
        assert "agrees with the reference on" in text or "a corpus it has not seen" in text, cell["metadata"]["nbgrader"]["grade_id"]


def test_exploration_is_skipped_by_the_autograder(graded_lab):
    _, solution = graded_lab
    free = [c for c in solution.autograded["cells"] if c["cell_type"] == "code" and not c["metadata"].get("nbgrader")]
    assert [c["id"] for c in free][-1] == "your_grade"
    for cell in free:
        printed = "".join("".join(o.get("text", "")) for o in cell["outputs"])
        if cell["id"] == "your_grade":  # it would start a grading of its own: skipped, silently, without error
            assert cell["outputs"] == [], cell["outputs"]
        elif cell["id"].startswith("stretch_"):  # a stretch task's self-check or measurement
            assert "skipped under the autograder." in printed, cell["id"]
        else:
            assert "Exploration skipped under the autograder." in printed


def test_one_lab_autogrades_in_under_a_minute(graded_lab):
    lab, solution = graded_lab
    # The whole command: a temporary course, nbgrader generate_assignment, then autograde. Its CPU
    # time is what a quiet machine's wall time would be; the suite's own wall time depends on the
    # load of the machine it shares (the test processes run side by side), so it is only printed.
    print(f"{lab}: grade command {solution.cpu_seconds:.1f} s CPU, {solution.seconds:.1f} s wall (solution)")
    assert solution.cpu_seconds < AUTOGRADE_SECONDS_LIMIT, f"{solution.cpu_seconds:.1f} s of CPU"


def test_the_table_names_each_task_once(graded_lab):
    lab, solution = graded_lab
    notebook = json.loads(source_notebook(lab).read_text(encoding="utf-8"))
    tasks = {
        c["metadata"]["nbgrader"]["grade_id"].removesuffix("_hidden")
        for c in notebook["cells"]
        if c["metadata"].get("nbgrader", {}).get("grade")
    }
    assert set(solution.rows()) == tasks | {"total"}


# ---- notebooks that cannot be graded ----------------------------------------------------------


def grade(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bpe_ref", "grade", *arguments],
        cwd=REPO_ROOT,
        env=nbgrader_environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize(
    ("content", "name", "says"),
    [
        (None, "missing.ipynb", "does not exist"),
        ('{"cells": [', "01_naive_bpe.ipynb", "is not valid notebook JSON (line 1, column 12"),
        ("[1, 2]", "01_naive_bpe.ipynb", "is JSON but not a notebook"),
        ("# notes", "notes.md", "is not a notebook (expected a .ipynb file)"),
        (b"\xff\xfe{", "01_naive_bpe.ipynb", "is not UTF-8 text"),
    ],
)
def test_unreadable_notebook_is_not_a_zero(tmp_path, content, name, says):
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    elif isinstance(content, bytes):
        path.write_bytes(content)
    result = grade(str(path))
    assert result.returncode == 2
    assert f"could not be read: {path} {says}" in result.stderr
    assert "this is not a score of 0" in result.stderr
    assert result.stdout == ""


def test_a_folder_or_no_argument_is_a_clear_error(tmp_path):
    assert "is a folder, not a notebook" in grade(str(tmp_path)).stderr
    result = grade()
    assert result.returncode == 2 and "give a notebook to grade" in result.stderr


def test_a_cell_that_kills_its_process_costs_only_what_it_defines(tmp_path):
    # The worker dies in task 2's solution cell; a fresh one replays the cells that ran, and the
    # rest of the notebook is graded: task 2 earns nothing, everything else its points.
    notebook = json.loads(source_notebook("00_pretokenization").read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["id"] == "task2_split_on_special_tokens_solution":
            cell["source"] = "import os\nos._exit(1)\n"
    path = tmp_path / "00_pretokenization.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    result = grade(str(path), "--keep", str(tmp_path / "kept"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r"^task2_split_on_special_tokens\s+0 / 3\s+FAILED", result.stdout, re.M), result.stdout
    assert re.search(r"^task1_utf8_bytes\s+3 / 3\s+passed", result.stdout, re.M), result.stdout
    kept = json.loads(next((tmp_path / "kept").glob("*.ipynb")).read_text(encoding="utf-8"))
    dying = next(c for c in kept["cells"] if c["id"] == "task2_split_on_special_tokens_solution")
    assert "the process running your code stopped" in dying["outputs"][-1]["evalue"]


def test_a_broken_or_unfinished_stretch_task_costs_nothing(tmp_path):
    # Stretch tasks are ungraded: a half-written stretch cell that fails when it runs, and self-check
    # and measuring cells a learner ran by hand (their outputs saved), leave the full marks alone.
    notebook = json.loads(source_notebook("02_incremental").read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["id"] == "stretch_overlap_bug_solution":
            cell["source"] = "def per_occurrence_changes(word, pair, frequency):\n    return {}\n\nfirst_wrong_merge(None, 3)\n"
        if cell["id"] == "stretch_cheaper_filter_check":
            cell["outputs"] = [{"output_type": "error", "ename": "CheckFailed", "evalue": "not yet", "traceback": []}]
    path = tmp_path / "02_incremental.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    result = grade(str(path), "--keep", str(tmp_path / "kept"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All tasks passed: 14 / 14 points" in result.stdout
    kept = json.loads(next((tmp_path / "kept").glob("*.ipynb")).read_text(encoding="utf-8"))
    broken = next(c for c in kept["cells"] if c["id"] == "stretch_overlap_bug_solution")
    assert broken["outputs"][-1]["ename"] == "NameError"  # reported in the feedback, and nothing more


def test_deleted_test_cells_come_back_even_after_a_read_only_cell(tmp_path):
    # nbgrader puts a deleted test cell back after the source cell before it; its own lookup failed
    # when that cell was read-only (lab 10's task_graph, task 3's tree_shape), and autograde gave up
    # on the learner. Every test cell of lab 10 deleted: each comes back, and the grade is full.
    notebook = json.loads(source_notebook("10_distributed").read_text(encoding="utf-8"))
    tests = [c["id"] for c in notebook["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    notebook["cells"] = [c for c in notebook["cells"] if c["id"] not in tests]
    path = tmp_path / "10_distributed.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    result = grade(str(path), "--keep", str(tmp_path / "kept"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"All tasks passed: {points_of('10_distributed')} / {points_of('10_distributed')} points" in result.stdout
    kept = json.loads(next((tmp_path / "kept").glob("*.ipynb")).read_text(encoding="utf-8"))
    order = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id", c["id"]) for c in kept["cells"]]  # new cell ids
    source_order = [c["id"] for c in json.loads(source_notebook("10_distributed").read_text(encoding="utf-8"))["cells"]]
    assert [i for i in order if i in tests] == [i for i in source_order if i in tests]
    for test in ("task3_tree_reduce", "task5_count_ranges"):  # right after the read-only cell they follow
        assert order[order.index(test) - 1] == source_order[source_order.index(test) - 1], test


def test_lab_is_found_from_the_notebook_contents_when_renamed(tmp_path):
    from bpe_ref.course.grade import detect_lab, read_notebook

    path = tmp_path / "my copy.ipynb"
    path.write_bytes(release_notebook("01_naive_bpe").read_bytes())
    assert detect_lab(path, read_notebook(path)) == "01_naive_bpe"


# ---- the pieces of the report -----------------------------------------------------------------


def test_failure_lines_from_autograded_cells():
    timeout = {"outputs": [{"output_type": "error", "ename": "KeyboardInterrupt", "evalue": ""},
                           {"output_type": "error", "ename": "CellTimeoutError", "evalue": "", "traceback": []}]}
    assert failure_of(timeout).startswith("timed out")
    name_error = {"outputs": [{"output_type": "error", "ename": "NameError", "evalue": "name 'train' is not defined"}]}
    assert failure_of(name_error) == "NameError: name 'train' is not defined"
    restored = dict(name_error, source="# This cell (id:task1_x) was missing from the submission. ...")
    assert failure_of(restored).endswith("(this test cell was missing from the notebook; nbgrader put it back)")
    assert failure_of({"outputs": [{"output_type": "stream", "text": "fine"}]}) is None


def test_reasons_autograde_gives_up():
    assert "kernel died" in _why_autograde_failed("[AutogradeApp | ERROR] Kernel died while waiting for execute reply.")
    assert "stopped responding" in _why_autograde_failed("CellTimeoutError: Timeout waiting for IOPub output")


def test_cells_group_into_tasks():
    tasks = group_by_task([CellResult("task1_a", 1, 1), CellResult("task1_a_hidden", 0, 2, "CheckFailed: x"), CellResult("task2_b", 3, 3)])
    assert [(t.name, t.earned, t.possible, t.passed) for t in tasks] == [("task1_a", 1, 3, False), ("task2_b", 3, 3, True)]
    assert tasks[0].first_failure == "hidden: CheckFailed: x"
