"""Self-grading with ``python -m bpe_ref grade``: the full autograder, hidden tests included, in a
temporary course. Each solution notebook gets full marks and exit code 0; a notebook that cannot be
read or graded says so instead of reporting a score of 0; a failing one exits 1. One lab autogrades
in well under 60 s.

Lab 00's solution goes through the command once per test session (a module-scoped fixture), with a
cell that tries a network socket and a file of the system's (tests/test_review_flags.py) and the
escape codes of tests/test_grading_redteam.py's section 25 (a path opened, a grade_id): changes that
must cost nothing, so the one grade checks the solution's full marks, the flags the command prints
and that they are printed escaped. ``BPE_EXHAUSTIVE=1`` sends every lab's plain solution too. Every
lab's solution gets full marks through the same autograde in its class batch
(tests/test_grading_adversarial.py), which also checks that the hidden tests ran and the exploration
was skipped, that each release scores zero with every task saying it is not written yet, and the
notebooks that break in one place (a solution cell that ends its process, a broken stretch task,
deleted test cells).
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
from sampling import EXHAUSTIVE

from bpe_ref.course.notebooks import REPO_ROOT, lab_names, nbgrader_environment, release_notebook, source_notebook

LABS = lab_names()
# The command is the same for every lab (a temporary course, then nbgrader autograde, whose work
# every lab's class batch checks): one lab's solution goes through it by default, as the notebook
# that also shows the review flags (graded once for both: test_self_grading_shows_the_flags_too).
# (lab, what is graded): "solution" is the source notebook; "opens_a_socket" lab 00's solution with
# tests/test_review_flags.py's probe cell.
FLAGGED = ("00_pretokenization", "opens_a_socket")
SELF_GRADED = [*((lab, "solution") for lab in LABS), FLAGGED] if EXHAUSTIVE else [FLAGGED]
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


@pytest.fixture(scope="module", params=SELF_GRADED, ids=lambda param: "-".join(param))
def graded_lab(request, tmp_path_factory):
    lab, what = request.param
    notebook = source_notebook(lab)
    if what == "opens_a_socket":
        from test_grading_redteam import hiding_notebook
        from test_review_flags import opens_a_socket

        notebook = tmp_path_factory.mktemp(what) / f"{lab}.ipynb"
        notebook.write_text(json.dumps(hiding_notebook(opens_a_socket())), encoding="utf-8")
    graded = Graded(notebook, tmp_path_factory.mktemp(f"{lab}_{what}"))
    graded.what = what
    return lab, graded


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


def test_one_lab_autogrades_in_under_a_minute(graded_lab):
    lab, solution = graded_lab
    # The whole command: a temporary course, nbgrader generate_assignment, then autograde. Its CPU
    # time is what a quiet machine's wall time would be; the suite's own wall time depends on the
    # load of the machine it shares (the test processes run side by side), so it is only printed.
    print(f"{lab}: grade command {solution.cpu_seconds:.1f} s CPU, {solution.seconds:.1f} s wall ({solution.what})")
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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux only")
def test_self_grading_shows_the_flags_too(graded_lab):
    # tests/test_review_flags.py's probe: a refused socket and a refused file, full marks, and the
    # flags a class report would show (the class: tests/test_grading_adversarial.py, lab 00's batch).
    from test_review_flags import FLAGS

    lab, result = graded_lab
    if result.what != "opens_a_socket":
        pytest.skip(f"{lab}: the plain solution, no probe cell to flag")
    # the mechanisms in force (the keeper's counts of refused calls and opens) are the record's, no longer printed to a
    # learner (fix54: its limits in plain words instead); the flags below are those counts
    assert "locked-down process" in result.stdout and "Limits: 30 s of CPU time" in result.stdout, result.stdout
    lines = result.stdout.splitlines()
    at = lines.index("A class report would flag this notebook for review (no score changed):")
    # the refused opens on one line: the probe's, then the escape codes' of tests/test_grading_redteam.py's section 25
    assert lines[at + 1] == f"  - {FLAGS[0]}" and lines[at + 2].startswith(f"  - {FLAGS[1]}, write /etc/"), result.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux only")
def test_escape_codes_in_a_path_or_a_grade_id_cannot_erase_the_flag_from_a_self_grade(graded_lab):
    """tests/test_grading_redteam.py's section 25: ``python -m bpe_ref grade`` printed the flag of a refused open (``its
    code opened files the sandbox refused: write PATH``) with the path as the worker's code wrote it: a path of
    cursor-up and erase-line codes wiped the flag and the line announcing it from the terminal, and the notebook read
    as a clean 13 / 13. And (the self-grade's twin of nbgrader's log in a class) nbgrader, run inside the command, gave
    up on a notebook whose cell has a grade_id it does not know, and the command said why from nbgrader's log, codes
    and all. Safe: every line a report prints has its control and format characters written as escapes
    (:func:`bpe_ref.course.printable.shown`); since section 35 the cell of an unknown grade_id is a plain cell, and the
    notebook is graded (full marks: test_solution_gets_full_marks_and_exit_code_0). (The probe's notebook holds both
    attacks: one grading; either escape undone puts a control character in the command's output.)"""
    from test_grading_redteam import CONTROL

    lab, result = graded_lab
    if result.what != "opens_a_socket":
        pytest.skip(f"{lab}: the plain solution, no escape codes")
    assert not CONTROL.search(result.stdout + result.stderr), repr((result.stdout + result.stderr)[-600:])
    assert "A class report would flag this notebook for review" in result.stdout
    assert "opened files the sandbox refused: read /etc/hostname x1, write /etc/\\r\\x1b[2K" in result.stdout, \
        result.stdout[-600:]


def test_the_your_grade_cell_runs_this_command_on_the_saved_copy(tmp_path, monkeypatch, capsys):
    # A lab's last cell calls grade_this_lab: it must find the notebook JupyterLab saved and run the
    # command the tests above run end to end (running it again from a notebook would grade twice).
    from bpe_ref.course import grade as grade_module

    saved = tmp_path / "work" / "my copy.ipynb"
    saved.parent.mkdir()
    saved.write_bytes(release_notebook("01_naive_bpe").read_bytes())
    ran = []

    def run(command, **kwargs):
        ran.append(command)
        return subprocess.CompletedProcess(command, 0, "table\n", "")

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JPY_SESSION_NAME", str(saved))
    assert grade_module.grade_this_lab("01_naive_bpe") == 0
    assert ran == [[sys.executable, "-m", "bpe_ref", "grade", str(saved), "--lab", "01_naive_bpe"]]
    assert "table" in capsys.readouterr().out
    monkeypatch.delenv("JPY_SESSION_NAME")
    assert grade_module.grade_this_lab("01_naive_bpe") == 2 and len(ran) == 1  # nothing saved here: no grading
    assert "Could not find the saved notebook" in capsys.readouterr().out


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


def test_a_self_grades_table_shows_each_failures_hint_under_its_first_line():
    """walk53: the table showed a failure's first line alone, often a long call cut before anything useful (lab 05's
    merge_occurrences: the lists it was called with), so the grader's hint, the line that points the right way, was never
    in the self-grade: now it is, under the failure it belongs to."""
    from bpe_ref.course.grade import format_table, hint_of

    message = ("merge_occurrences(pair=(b'a', b'b'), token=[...]): 4 wrong values in all\n  expected: ...\n"
               "  hint: an unlinked node (token b\"\") is still in a word along next_\n  note: ...")
    cell = {"outputs": [{"output_type": "error", "ename": "CheckFailed", "evalue": message}]}
    assert hint_of(cell) == 'hint: an unlinked node (token b"") is still in a word along next_'
    assert hint_of({"outputs": [{"output_type": "error", "ename": "CheckFailed", "evalue": "no hint here"}]}) is None
    tasks = group_by_task([CellResult("task1_a", 0, 1, failure_of(cell), hint_of(cell)), CellResult("task1_a_hidden", 0, 2),
                           CellResult("task2_b", 3, 3)])
    table = format_table(tasks).splitlines()
    row = next(i for i, line in enumerate(table) if line.startswith("task1_a "))
    assert table[row + 1].strip() == 'hint: an unlinked node (token b"") is still in a word along next_', table
    assert not any("hint:" in line for line in table[row + 2:]), table  # a passed task has none


def test_a_self_grades_table_prints_a_long_hint_whole_wrapped_under_its_failure():
    """walk54: the table cut a hint at 240 characters, and a hint's end is often what to do: now it is wrapped, whole, on
    lines under its failure that fit the table's width (a hint longer than any the graders write is still cut)."""
    from bpe_ref.course.grade import HINT_CHARACTERS, format_table

    hint = "hint: " + " ".join(f"step{i}" for i in range(60)) + " so do THIS LAST"
    assert 240 < len(hint) < HINT_CHARACTERS
    tasks = group_by_task([CellResult("task1_a", 0, 1, "CheckFailed: x", hint), CellResult("task2_b", 3, 3)])
    table = format_table(tasks, width=100).splitlines()
    row = next(i for i, line in enumerate(table) if line.startswith("task1_a "))
    under = [line for line in table[row + 1:table.index("-" * 100, row)] if line.startswith(" ")]
    assert " ".join(line.strip() for line in under) == hint, under
    assert len(under) > 1 and all(len(line) <= 100 and line.startswith(" " * 26) for line in under), under
    cut = format_table(group_by_task([CellResult("task1_a", 0, 1, "CheckFailed: x", "hint: " + "y " * HINT_CHARACTERS)]))
    assert cut.count("y") < HINT_CHARACTERS and "..." in cut


def test_reasons_autograde_gives_up():
    assert "kernel died" in _why_autograde_failed("[AutogradeApp | ERROR] Kernel died while waiting for execute reply.")
    assert "stopped responding" in _why_autograde_failed("CellTimeoutError: Timeout waiting for IOPub output")


def test_cells_group_into_tasks():
    tasks = group_by_task([CellResult("task1_a", 1, 1), CellResult("task1_a_hidden", 0, 2, "CheckFailed: x"), CellResult("task2_b", 3, 3)])
    assert [(t.name, t.earned, t.possible, t.passed) for t in tasks] == [("task1_a", 1, 3, False), ("task2_b", 3, 3, True)]
    assert tasks[0].first_failure == "hidden: CheckFailed: x"


def test_a_self_grade_tells_the_tampering_and_text_hints_a_class_report_flags(tmp_path, monkeypatch, capsys):
    """walk49: ``python -m bpe_ref grade`` printed only what the worker was seen to do, so a notebook whose hidden test
    cell's points were raised to 100 and whose solution cell imports the reference read as unflagged there, while
    ``grade --class`` flagged both (same score in both paths: the points put back, the import refused). The self-grade
    now lists the same tampering and text hints. (The grading itself is not what this tests: it is stubbed.)"""
    from bpe_ref.course import grade as grade_module

    lab = "07_heap_encoding"
    notebook = json.loads(release_notebook(lab).read_text(encoding="utf-8"))
    hidden = next(c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "task1_first_heap_hidden")
    hidden["metadata"]["nbgrader"]["points"] = 100
    solution = next(c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "task2_merge_all_solution")
    solution["source"] = "from bpe_ref.encode.step07_heap import merge_all\n"
    path = tmp_path / f"{lab}.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    monkeypatch.setattr(grade_module, "autograde_notebook", lambda *args, **kwargs: [])
    grade_module.grade_one(path, lab, timeout=None, keep=None)
    out = capsys.readouterr().out
    assert "A class report would flag this notebook for review" in out, out
    assert "changed the nbgrader metadata of the test cell task1_first_heap_hidden (points 2.0 -> 100" in out, out
    assert "hint from its text: cell task2_merge_all_solution: imports bpe_ref" in out, out


def test_a_self_grades_review_reads_a_source_notebook_against_itself_and_a_learners_against_the_release():
    """A maintainer's self-grade of ``solutions/<lab>`` flagged every hidden test cell as edited (the release leaves the
    hidden tests out): its review now reads it against the source; a learner's copy of the release flags nothing, and
    the source's cells with their points changed are still flagged."""
    from bpe_ref.course.grade import text_review

    lab = "00_pretokenization"
    source = json.loads(source_notebook(lab).read_text(encoding="utf-8"))
    assert text_review(source, lab) == []
    assert text_review(json.loads(release_notebook(lab).read_text(encoding="utf-8")), lab) == []
    hidden = next(cell for cell in source["cells"] if cell["metadata"].get("nbgrader", {}).get("grade_id", "").endswith("_hidden"))
    hidden["metadata"]["nbgrader"]["points"] = 100
    assert any("points 2.0 -> 100.0" in line for line in text_review(source, lab)), text_review(source, lab)
