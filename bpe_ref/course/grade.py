"""``python -m bpe_ref grade``: the grade a class would give, for one notebook or for a class.

``python -m bpe_ref grade labs/01_naive_bpe/01_naive_bpe.ipynb`` autogrades the notebook in a
temporary nbgrader course made from the lab's release, hidden tests included, as a class would, and
prints a row per task. Exit 0 when every task passed, 1 when some did not, 2 when the notebook could
not be read or graded at all (*not* a score of 0, and the message says so).

``python -m bpe_ref grade --class 01_naive_bpe``, after ``nbgrader autograde LAB``, lists every
submission: graded with its score, could not be read, or not graded (nbgrader records 0 for those,
like a real zero), and under each what needs a person's review (:mod:`.trusted.review`, gradebook
scores that differ from the trusted record, manual scores). Exit 0 when all were graded and none
needs review, else 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import sys
import textwrap
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from .printable import shown
from .trusted.cells import nbgrader_of

STUDENT = "self"  # the student id of a self-graded notebook inside the temporary course
HIDDEN_SUFFIX = "_hidden"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


# Right-to-left characters (Hebrew, Arabic letters, Arabic-Indic digits): letters, which shown() keeps, but a terminal
# that lays text out by Unicode's bidirectional algorithm (VTE's, Konsole's) reverses the run they start, the numbers and
# spaces after them included: a student id of Hebrew letters showed its row's "50 / 100" as "100 / 50"
# (tests/test_grading_redteam.py, section 57).
RIGHT_TO_LEFT = frozenset(("R", "AL", "AN"))


def printed(line: str) -> str:
    """One line of a report as it is printed: :func:`~.printable.shown`, and every right-to-left character written as an
    escape too, so that no part of the line is laid out in another order than it is written."""
    return "".join(ascii(char)[1:-1] if unicodedata.bidirectional(char) in RIGHT_TO_LEFT else char for char in shown(line))


# A line of a report that quotes a submission's text (a cell's id or grade_id, a name, what its code was seen to do)
# holds at most these many characters as printed: a grade_id of 1,000,000 characters was a flag of grade --class of as
# many (tests/test_grading_redteam.py, section 97).
MAX_REPORT_LINE = 2_000


def bounded(line: str, limit: int = MAX_REPORT_LINE) -> str:
    """``line`` cut to at most ``limit`` characters, saying how long it was."""
    if len(line) <= limit:
        return line
    tail = f" ... ({len(line):,} characters in all)"
    return line[:limit - len(tail)] + tail


def printed_lines(text: str) -> str:
    """:func:`printed` for each line of a text made of several (the table): its line breaks kept."""
    return "\n".join(printed(line) for line in text.split("\n"))


class NotGradable(ValueError):
    """The notebook could not be read or autograded: no score, not a score of 0 (the command line says so, exit 2)."""


# Results

@dataclass
class CellResult:
    """One graded test cell of one submission."""

    grade_id: str
    earned: float
    possible: float
    failure: str | None = None  # first line of what went wrong; None when it passed
    hint: str | None = None  # the failure's first hint line (the grader's advice), if it has one


@dataclass
class TaskResult:
    """The test cells of one task (visible and hidden), added up."""

    name: str
    cells: list[CellResult] = field(default_factory=list)

    @property
    def earned(self) -> float:
        return sum(cell.earned for cell in self.cells)

    @property
    def possible(self) -> float:
        return sum(cell.possible for cell in self.cells)

    @property
    def passed(self) -> bool:
        return self.earned >= self.possible

    @property
    def first_failure(self) -> str:
        for cell in self.cells:
            if cell.earned < cell.possible:
                part = "hidden" if cell.grade_id.endswith(HIDDEN_SUFFIX) else "visible"
                return f"{part}: {cell.failure or 'no points, and no message from the grader'}"
        return ""

    @property
    def first_hint(self) -> str:
        """The hint of the failure :attr:`first_failure` shows, or ``""``."""
        failed = next((cell for cell in self.cells if cell.earned < cell.possible), None)
        return (failed.hint or "") if failed is not None else ""


def task_name(grade_id: str) -> str:
    """``task3_merge_word_hidden`` -> ``task3_merge_word``: the task a test cell belongs to."""
    return grade_id[: -len(HIDDEN_SUFFIX)] if grade_id.endswith(HIDDEN_SUFFIX) else grade_id


def group_by_task(cells: list[CellResult]) -> list[TaskResult]:
    tasks: dict[str, TaskResult] = {}
    for cell in cells:
        tasks.setdefault(task_name(cell.grade_id), TaskResult(task_name(cell.grade_id))).cells.append(cell)
    return list(tasks.values())


def _first_line(text: str) -> str:
    lines = [line for line in _ANSI.sub("", text).strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else ""


def failure_of(cell: dict) -> str | None:
    """The first line of what went wrong in an autograded code cell, or ``None`` without an error."""
    errors = [out for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    if not errors:
        return None
    note = ""
    source = "".join(cell.get("source", ""))
    if source.startswith("# This cell (id:"):
        note = " (this test cell was missing from the notebook; nbgrader put it back)"
    if any(error.get("ename") == "CellTimeoutError" for error in errors):
        return "timed out: no reply from the kernel before the time limit (an infinite loop?)" + note
    error = errors[0]
    message = _first_line(error.get("evalue", ""))
    if not message:  # no message: the last traceback line is usually "Name: text"
        message = _first_line((error.get("traceback") or [""])[-1])
        return (message or error.get("ename", "error")) + note
    return f"{error.get('ename', 'Error')}: {message}{note}"


def hint_of(cell: dict) -> str | None:
    """The first ``hint:`` line of a failed test cell's message (the grader's advice for the common mistake it saw), or
    ``None``: the table's first line of a failure is often a long call, cut before its hint (walk53)."""
    for error in (out for out in cell.get("outputs", []) if out.get("output_type") == "error"):
        for line in _ANSI.sub("", error.get("evalue", "")).splitlines():
            if line.strip().startswith("hint:"):
                return line.strip()
    return None


def test_cells_in_order(notebook: dict) -> list[tuple[str, float]]:
    """``(grade_id, points)`` of the graded cells of a source notebook, in notebook order."""
    cells = []
    for cell in notebook["cells"]:
        meta = nbgrader_of(cell)
        if meta.get("grade"):
            cells.append((meta["grade_id"], float(meta.get("points", 0))))
    return cells


def as_nbgrader_reads(notebook: object, path: Path) -> dict:
    """``notebook`` (the file's JSON) as nbgrader's autograde reads it, nbformat's ``read(..., as_version=4)``: each
    version's reader, the conversion to version 4 and the validation that repairs cell ids, its warnings and log
    silenced. A version-3 notebook's cells are its ``worksheets``' (a ``cells`` key beside them is not read): the review
    read a decoy list of cells there while autograde ran the worksheets' code (tests/test_grading_redteam.py, section
    65). What nbformat will not read (an unknown version, ``nbformat_minor`` ``"4.0"``), autograde cannot grade:
    :class:`NotGradable`. A notebook of more cells than any submission may have is left as it is: nbformat's reading
    costs some 20 microseconds a cell (4.5 s of CPU time for 200,000), and autograde refuses it unrun (section 47)."""
    import warnings

    from nbformat import NBFormatError, ValidationError, convert, validate, versions

    if not isinstance(notebook, dict):
        return notebook
    from .trusted.autograde import MAX_CELLS

    sheets = notebook.get("worksheets")  # versions 2 and 3 hold their cells there: those nbformat reads, and counts
    read = [sheet.get("cells") for sheet in sheets if isinstance(sheet, dict)] if notebook.get("nbformat") in (2, 3) and \
        isinstance(sheets, list) else [notebook.get("cells")]
    if sum(len(cells) for cells in read if isinstance(cells, list)) > MAX_CELLS:
        return notebook
    major = notebook.get("nbformat", 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if major not in versions:
                raise NBFormatError(f"Unsupported nbformat version {major!r}")
            read = versions[major].to_notebook_json(notebook, minor=notebook.get("nbformat_minor") or 0)
            read = convert(read, 4)
            with contextlib.suppress(ValidationError):
                validate(read)
    except Exception as err:  # noqa: BLE001 - whatever nbformat raises, nbgrader cannot read: a notebook with no
        # "nbformat" key, or of version 1 or true, is read as version 1, whose reader raises UnboundLocalError on version-4
        # cells; let through, it ended grade --class for the whole class (tests/test_grading_redteam.py, section 88)
        raise NotGradable(f"could not be read: {path} is JSON that nbformat (so nbgrader) will not read as a notebook "
                          f"({type(err).__name__}: {str(err)[:100]})") from None
    return read


def read_notebook(path: Path) -> dict:
    """The notebook at ``path`` as JSON, or :class:`NotGradable` saying why it cannot be read."""
    if not path.exists():
        raise NotGradable(f"could not be read: {path} does not exist")
    if path.is_dir():
        raise NotGradable(f"could not be read: {path} is a folder, not a notebook")
    if path.suffix != ".ipynb":
        raise NotGradable(f"could not be read: {path} is not a notebook (expected a .ipynb file)")
    from .trusted.autograde import too_many_containers

    try:
        text = path.read_text(encoding="utf-8")
        why = too_many_containers(text)  # before parsing: nbformat's reading costs per node (section 94)
        if why:
            raise NotGradable(f"could not be read: {path}: {why}")
        notebook = json.loads(text)
    except NotGradable:
        raise
    except UnicodeDecodeError as err:
        raise NotGradable(f"could not be read: {path} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    except json.JSONDecodeError as err:
        where = f"line {err.lineno}, column {err.colno}: {err.msg}"
        raise NotGradable(f"could not be read: {path} is not valid notebook JSON ({where})") from None
    except (ValueError, RecursionError) as err:  # JSON Python will not read: a number of more than 4,300 digits, nesting
        # past the interpreter's recursion limit (each ended grade --class for the whole class: redteam section 58)
        why = "nested too deeply" if isinstance(err, RecursionError) else str(err).split(":")[0]
        raise NotGradable(f"could not be read: {path} is JSON that Python will not read ({why})") from None
    notebook = as_nbgrader_reads(notebook, path)
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotGradable(f"could not be read: {path} is JSON but not a notebook (no list of cells)")
    for index, cell in enumerate(notebook["cells"]):  # as the reports read them (one malformed cell ended grade --class)
        meta = cell.get("metadata", {}) if isinstance(cell, dict) else None
        nbgrader = meta.get("nbgrader", {}) if isinstance(meta, dict) else None
        source = cell.get("source", "") if isinstance(cell, dict) else None
        if not (isinstance(nbgrader, dict) and isinstance(nbgrader.get("grade_id", ""), str)
                and isinstance(cell.get("id", ""), str)  # a list or a dict is no key of the review's (section 58)
                and (isinstance(source, str) or isinstance(source, list) and all(isinstance(line, str) for line in source))):
            raise NotGradable(f"could not be read: {path} is JSON but not a notebook (cell {index} is not a cell as "
                              "Jupyter writes it: its id, metadata, nbgrader metadata, grade_id or source)")
    return notebook


def open_gradebook(course: Path, gradebook=None) -> contextlib.AbstractContextManager:
    """The course's gradebook, or ``gradebook`` when open already (each opening costs nbgrader's table checks)."""
    from nbgrader.api import Gradebook

    return contextlib.nullcontext(gradebook) if gradebook is not None else Gradebook(f"sqlite:///{course / 'gradebook.db'}")


def grades_from_course(course: Path, lab: str, student: str, notebook_name: str, gradebook=None) -> list[CellResult]:
    """The graded cells of one autograded notebook: scores from the gradebook, failures from the
    autograded notebook's outputs; :class:`NotGradable` when autograde produced no notebook."""
    autograded = course / "autograded" / student / lab / f"{notebook_name}.ipynb"
    if not autograded.exists():
        raise NotGradable("not graded: autograde failed on this notebook")
    cells_by_id = {}
    for cell in json.loads(autograded.read_text(encoding="utf-8"))["cells"]:
        grade_id = nbgrader_of(cell).get("grade_id")
        if grade_id:
            cells_by_id[grade_id] = cell
    source = json.loads((course / "solutions" / lab / f"{notebook_name}.ipynb").read_text(encoding="utf-8"))
    with open_gradebook(course, gradebook) as opened:
        submission = opened.find_submission_notebook(notebook_name, lab, student)
        scores = {grade.name: (grade.score, grade.max_score) for grade in submission.grades}
    results = []
    for grade_id, points in test_cells_in_order(source):
        earned, possible = scores.get(grade_id, (0.0, points))
        cell = cells_by_id.get(grade_id)
        failure = failure_of(cell) if cell else "this test cell is missing from the autograded notebook"
        results.append(CellResult(grade_id, float(earned or 0.0), float(possible or points), failure,
                                  hint_of(cell) if cell else None))
    return results


# One notebook

def detect_lab(path: Path, notebook: dict) -> str:
    """The lab a notebook belongs to: its file name, its folder, or the grade ids it holds."""
    from .notebooks import LABS_DIR, lab_names
    from .trusted import cells

    labs = lab_names(LABS_DIR)
    for candidate in (path.stem, path.parent.name):
        if candidate in labs:
            return candidate
    ids = {nbgrader_of(c).get("grade_id") for c in notebook["cells"]} - {None}
    best, overlap = None, 0
    for lab in labs:
        common = len(ids & {cell.grade_id for cell in cells.load(lab)})
        if common > overlap:
            best, overlap = lab, common
    if best is None:
        raise NotGradable(f"could not tell which lab {path} belongs to: name it after the lab, or pass --lab ({', '.join(labs)})")
    return best


def _why_autograde_failed(log: str) -> str:
    if "Kernel died" in log or "DeadKernelError" in log:
        return "the kernel died while running the notebook (the process crashed or exited, e.g. os._exit, a segfault, out of memory)"
    if "Timeout waiting for IOPub output" in log or "UnresponsiveKernelError" in log or "CellTimeoutError" in log:
        return "the kernel stopped responding and could not be interrupted after the time limit"
    if "NotJSONError" in log or "JSONDecodeError" in log:
        return "nbgrader could not read the notebook"
    refused = [line.split("Error: not graded: ", 1)[1] for line in log.splitlines() if "Error: not graded: " in line]
    if refused:  # a bound of the course's (BoundedNotebookExporter, BoundedSubmission): the reason it says
        return refused[0].strip()
    errors = [line for line in log.splitlines() if "| ERROR]" in line]
    return errors[0].split("| ERROR]", 1)[1].strip() if errors else "see nbgrader's log"


def autograde_notebook(path: Path, lab: str, *, timeout: int | None = None, keep: Path | None = None,
                       isolation: list[str] | None = None, behaviour: list[str] | None = None,
                       limits: dict[str, float] | None = None) -> list[CellResult]:
    """Autograde one notebook in a temporary course made from the lab's release (a handout has it too),
    hidden tests included; its graded cells. ``isolation`` receives how its code was confined, ``limits`` the limits
    it ran under (:attr:`~.trusted.autograde.GradingRecord.limits`), ``behaviour`` what a review would flag of what
    its code did."""
    from .nbgrader_main import run_in_process
    from .notebooks import temporary_course
    from .trusted.autograde import GradingRecord

    with temporary_course([lab], from_release=True) as course:
        submitted = course / "submitted" / STUDENT / lab
        submitted.mkdir(parents=True)
        shutil.copyfile(path, submitted / f"{lab}.ipynb")
        arguments = ["autograde", lab, "--student", STUDENT, "--TrustedExecute.whole_class=False"]  # one notebook: drawn as it goes
        if timeout:
            arguments += [f"--TrustedExecute.cell_timeout={timeout}", f"--TrustedExecute.call_timeout={timeout}"]
        # nbgrader runs in this process (the trusted side, as nbgrader's own process is for a class): the
        # gradebook of the release, then autograde. Two subprocesses cost ~4 s of interpreter starts and imports.
        with gradebook_unsynced():
            code, log = run_in_process(["generate_assignment", lab, "--force"], course)
            if code or not (course / "labs" / lab).is_dir():
                raise RuntimeError(f"nbgrader generate_assignment {lab} failed:\n{log}")
            _, log = run_in_process(arguments, course)
        autograded = course / "autograded" / STUDENT / lab / f"{lab}.ipynb"
        if keep and autograded.exists():
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(autograded, keep / f"{lab}.autograded.ipynb")
        if not autograded.exists():
            raise NotGradable(f"not graded: {_why_autograde_failed(log)}. Nothing could be scored; a class autograde would record 0.")
        record = GradingRecord.load(course, STUDENT, lab, lab)
        if isolation is not None and record is not None:
            isolation.extend(record.isolation)
        if behaviour is not None and record is not None:
            behaviour.extend(record.behaviour)
        if limits is not None and record is not None:
            limits.update(record.limits)
        return grades_from_course(course, lab, STUDENT, lab)


@contextlib.contextmanager
def gradebook_unsynced() -> contextlib.AbstractContextManager:
    """SQLite commits that do not wait for the disk, for a self-grade's throw-away gradebook (its ~90 commits
    cost 0.1 to 2 s). A class's gradebook is never opened so."""
    import sqlite3

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    def unsynced(connection, record) -> None:
        if isinstance(connection, sqlite3.Connection):
            connection.execute("PRAGMA synchronous=OFF")

    event.listen(Engine, "connect", unsynced)
    try:
        yield
    finally:
        event.remove(Engine, "connect", unsynced)


def isolation_summary(isolation: list[str], limits: dict[str, float] | None = None) -> str:
    """Plain sentences for a learner: how the notebook's code ran, then the limits it ran under (``limits``, the grading
    record's), in seconds of CPU time and MB. The mechanisms' names and settings (``isolation``, the sandbox's lines) are
    the instructor's to read, in the trusted record and nbgrader's log: the self-grade printed them ("In force: rlimits:
    ...; Landlock ABI 7: ...; seccomp: ... fds 1022 and 1023 ..."), which told a learner nothing (fix54)."""
    text = " ".join(isolation)
    confined = "Landlock ABI" in text and "seccomp: no network" in text
    processes = "no other processes" if "no new processes" in text else "worker processes of its own only"
    plain = (f"Your code ran in a separate, locked-down process (no reference solution, no network, {processes}, "
             "no files outside its own folder)." if confined else
             "Your code ran in a separate process, but NOT locked down on this machine (this system cannot confine it: "
             "it could read and write your files and use the network).")
    limits = limits or {}
    if not all(key in limits for key in ("call_seconds", "cell_seconds", "notebook_seconds", "memory_mb")):
        return plain  # an older record: no limits kept
    call, cell = f"{limits['call_seconds']:g} s", f"{limits['cell_seconds']:g} s"
    each = (f"{call} of CPU time for each call of one of your functions and for each of your cells" if call == cell else
            f"{call} of CPU time for each call of one of your functions, {cell} for each of your cells")
    return (f"{plain} Limits: {each}, {limits['notebook_seconds']:g} s for the whole notebook; "
            f"{limits['memory_mb']:g} MB of memory a process.")


# A hint is printed whole (wrapped), up to this many characters: the graders' advice runs to about 400, and its end is
# often what to do (walk54's learners lost it when the table cut hints at 240).
HINT_CHARACTERS = 800


def format_table(tasks: list[TaskResult], width: int = 100) -> str:
    """The per-task table and the total, as text."""
    name_width = max([len("task")] + [len(t.name) for t in tasks])
    lines = [f"{'task':<{name_width}}  {'points':>9}  {'result':<6}  first line of the failure (and its hint)", "-" * width]
    for task in tasks:
        failure = task.first_failure.replace("CheckFailed: ", "", 1)
        if len(failure) > 240:
            failure = failure[:237] + "..."
        points = f"{task.earned:g} / {task.possible:g}"
        lines.append(f"{task.name:<{name_width}}  {points:>9}  {'passed' if task.passed else 'FAILED':<6}  {failure}".rstrip())
        hint = task.first_hint if not task.passed else ""
        if hint:  # the advice, whole, wrapped under its failure's first line (which a long call often fills)
            if len(hint) > HINT_CHARACTERS:  # a hint may quote the learner's values
                hint = hint[:HINT_CHARACTERS - 3] + "..."
            indent = name_width + 19
            lines.extend(f"{'':<{indent}}{part}" for part in textwrap.wrap(hint, max(40, width - indent)))
    earned, possible = sum(t.earned for t in tasks), sum(t.possible for t in tasks)
    lines.append("-" * width)
    lines.append(f"{'total':<{name_width}}  {f'{earned:g} / {possible:g}':>9}  {'passed' if earned >= possible else 'FAILED'}")
    return "\n".join(lines)


def text_review(notebook: dict, lab: str) -> list[str]:
    """The tampering and the text hints ``grade --class`` flags in ``notebook``, against the course's release of ``lab``,
    or against its source notebook where that is what was graded (a maintainer's self-grade of ``solutions/``, whose
    hidden tests the release leaves out: fewer flags than against the release)."""
    from .notebooks import release_notebook, source_notebook
    from .trusted.review import answer_branches, answer_tables, notebook_flags, tampering

    try:
        release = json.loads(release_notebook(lab).read_text(encoding="utf-8"))
        with contextlib.suppress(OSError, ValueError):  # a handout has no solutions/
            source = json.loads(source_notebook(lab).read_text(encoding="utf-8"))
            if len(tampering(notebook, source)) < len(tampering(notebook, release)):
                release = source
        policy = lab_grading_policy(lab)
        allowed = {"allow_processes": bool(policy.get("allow_processes")), "allow_files": bool(policy.get("allow_files")),
                   "provided": tuple(policy.get("provided", ()))}
        inputs = visible_inputs(lab)
        return tampering(notebook, release) + [f"hint from its text: {flag}" for flag in notebook_flags(notebook, release,
                                                                                                        **allowed)
                                               + answer_tables(notebook, release, inputs)
                                               + answer_branches(notebook, release, inputs)]
    except Exception as error:  # noqa: BLE001 - the grade is printed already; the review is advice
        return [f"its cells could not be reviewed ({type(error).__name__}: {str(error)[:100]}): read them yourself"]


def visible_inputs(lab: str) -> list[tuple]:
    """The arguments of the fixed cases of ``lab``'s visible tests (:func:`.trusted.review.answer_tables` and
    :func:`.trusted.review.answer_branches` look for them in the learner's cells); none where its graders cannot be read."""
    from .trusted.autograde import load_graders

    try:
        tasks = load_graders(lab).LAB.tasks
    except Exception:  # noqa: BLE001 - a review is advice: without the cases, no table is looked for
        return []
    return [case.args for task in tasks for case in task.cases if isinstance(getattr(case, "args", None), tuple)]


def grade_one(path: Path, lab: str | None, timeout: int | None, keep: Path | None) -> int:
    start = time.perf_counter()
    try:
        notebook = read_notebook(path)
        lab = lab or detect_lab(path, notebook)
        # the path as any line naming it is printed: a file named with escape codes or a line break rewrote the terminal
        # or wrote a line of its own here (tests/test_grading_redteam.py, section 100)
        print(printed(f"Grading {path} as lab {lab}, hidden tests included (20-60 s on an idle machine, more on a busy "
                      "one)..."), flush=True)
        isolation: list[str] = []
        behaviour: list[str] = []
        limits: dict[str, float] = {}
        cells = autograde_notebook(path, lab, timeout=timeout, keep=keep, isolation=isolation, behaviour=behaviour,
                                   limits=limits)
    except NotGradable as problem:
        print(bounded(printed(f"{path}: {problem}")), file=sys.stderr)
        print("Nothing was graded: this is not a score of 0. Fix the problem above and grade again.", file=sys.stderr)
        return 2
    tasks = group_by_task(cells)
    print(printed_lines(format_table(tasks)))
    print(printed_lines(isolation_summary(isolation, limits)))
    # what grade --class would show an instructor about this notebook: what its code was seen to do, then what autograde
    # put right and what its text suggests, as the class report reads them (walk49: only the first was printed here)
    review = [f"its code {line}" for line in behaviour] + repeated_keys(path) + text_review(notebook, lab)
    if review:
        print("A class report would flag this notebook for review (no score changed):")
        print("\n".join(bounded(printed(f"  - {line}")) for line in review))
    earned, possible = sum(t.earned for t in tasks), sum(t.possible for t in tasks)
    seconds = time.perf_counter() - start
    if earned >= possible:
        print(f"All tasks passed: {earned:g} / {possible:g} points ({seconds:.0f} s).")
        return 0
    failed = sum(not t.passed for t in tasks)
    print(f"{failed} of {len(tasks)} tasks not passed: {earned:g} / {possible:g} points ({seconds:.0f} s).")
    if keep:
        print(printed(f"The autograded notebook, with every output, is in {keep}."))
    else:
        print("For the whole message of a failure, run that task's visible test cell in your notebook. A failure only the\n"
              "hidden tests find (the visible cell passes) is shown in full in the graded copy: add --keep DIR and open it.")
    return 1


def grade_this_lab(lab: str) -> int:
    """From a lab's last cell: grade the *saved* notebook (found from the kernel's session, or in the
    current folder) with ``python -m bpe_ref grade`` in a separate process, and show its table."""
    import os
    import subprocess

    candidates = [os.environ.get("JPY_SESSION_NAME", ""), f"{lab}.ipynb", f"labs/{lab}/{lab}.ipynb"]
    path = next((Path(c) for c in candidates if c and Path(c).suffix == ".ipynb" and Path(c).is_file()), None)
    if path is None:
        print(f"Could not find the saved notebook {lab}.ipynb from {Path.cwd()}: run, at the repository root,\n"
              f"    python -m bpe_ref grade labs/{lab}/{lab}.ipynb")
        return 2
    print(printed(f"Grading the saved copy of {path} (save first: unsaved changes are not graded)."), flush=True)
    result = subprocess.run([sys.executable, "-m", "bpe_ref", "grade", str(path), "--lab", lab],
                            capture_output=True, text=True)
    print(result.stdout + result.stderr)
    return result.returncode


# A class

@dataclass
class SubmissionStatus:
    student: str
    status: str  # "graded", "could not be read", "not graded", "missing"
    earned: float = 0.0
    possible: float = 0.0
    detail: str = ""
    review: list[str] = field(default_factory=list)  # why a person should look at it


def gradebook_disagreements(course: Path, lab: str, student: str, notebook: str, gradebook=None) -> list[str]:
    """Where the gradebook's scores of a notebook differ from the trusted grader's record, and every
    manual score (the formgrader's, or anyone's who could write the gradebook file)."""
    from .trusted.autograde import GradingRecord

    record = GradingRecord.load(course, student, lab, notebook)
    if record is None:
        return [f"{notebook}: no trusted grading record (not autograded with the course's nbgrader_config.py?)"]
    decided = {verdict.grade_id: (verdict.points if verdict.passed else 0.0) for verdict in record.verdicts}
    problems = []
    with open_gradebook(course, gradebook) as opened:
        submission = opened.find_submission_notebook(notebook, lab, student)
        for grade in submission.grades:
            if grade.manual_score is not None:
                problems.append(f"{grade.name}: manual score {grade.manual_score:g} (trusted grader: {decided.get(grade.name, 0):g})")
            elif grade.name in decided and (grade.auto_score or 0) != decided[grade.name]:
                problems.append(f"{grade.name}: gradebook {grade.auto_score:g}, trusted grader {decided[grade.name]:g}")
    return problems


def lab_grading_policy(lab: str) -> dict:
    """What ``lab``'s graders let its code do (``GRADING_POLICY``: processes, modules of bpe_ref)."""
    from .checks import fresh

    try:
        graders = fresh.graders(lab)
    except ValueError:  # a lab of another course, without graders here
        return {}
    return dict(getattr(graders, "GRADING_POLICY", {}))


def id_as_read(student: str) -> str:
    """What a person reads of a student id in a report: its compatibility normal form (NFKC: an NFD "é" and an NFC one, a
    fullwidth "ａ" and an "a" are one), case folded, the characters no terminal shows (format characters, which
    :func:`printed` writes as escapes anyway) left out, and trailing dots and spaces off (a column of ids shows
    "ann " as "ann")."""
    text = unicodedata.normalize("NFKC", student).casefold()
    return "".join(char for char in text if unicodedata.category(char) != "Cf").rstrip(". ")


# Scripts of letters drawn as another's (Latin "a", Cyrillic "а", Greek "α"-like shapes; Armenian "օ", Cherokee "Ꭺ"): an id
# that mixes two of them can copy a classmate's id letter for letter on the screen.
LOOK_ALIKE_SCRIPTS = frozenset(("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE"))


def scripts_of(student: str) -> set[str]:
    """The writing systems of a student id's letters, by the first word of their Unicode names (LATIN, CYRILLIC, ...)."""
    return {unicodedata.name(char, "UNKNOWN").split()[0] for char in unicodedata.normalize("NFKC", student) if char.isalpha()}


# Letters of the other look-alike scripts drawn as a Latin one, and that letter: a small part of Unicode's confusables
# (https://www.unicode.org/Public/security/latest/confusables.txt, Unicode Technical Standard #39, whose "skeleton"
# maps each character so), the letters of these four scripts it lists as the Latin letter alone, capitals and small.
LATIN_LOOK_ALIKES = {
    **dict(zip("АВЕЅІЈКМНОРСТХУԚԜ", "ABESIJKMHOPCTXYQW")),  # Cyrillic capitals
    **dict(zip("аеѕіјоросхуһԁԛԝӏ", "aesijopocxyhdqwl")),  # Cyrillic small letters
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX")),  # Greek capitals
    **dict(zip("αιονρυγ", "aiovpuy")),  # Greek small letters
    **dict(zip("ՕՍՏԼօսցհոզ", "OUSLoughnq")),  # Armenian capitals and small letters
    # Cherokee capitals; its small letters (U+AB70-ABBF) case-fold to these, and id_skeleton looks them up so
    **dict(zip("ᎪᏴᏟᎬᎻᎫᏦᏞᎷᏢᏚᎢᏙᎳᏃᎠᏀᎡ", "ABCEHJKLMPSTVWZDGR")),
}


def id_skeleton(student: str) -> str:
    """What a person reads of a student id (:func:`id_as_read`) once each Cyrillic, Greek, Armenian or Cherokee letter drawn
    as a Latin one is that Latin letter (:data:`LATIN_LOOK_ALIKES`, a letter looked up as it is, then case-folded): a
    whole id in another script (Cyrillic "асе", Armenian "հսցօ") reads as a classmate's ("ace", "hugo")."""
    return id_as_read("".join(LATIN_LOOK_ALIKES.get(char) or LATIN_LOOK_ALIKES.get(char.casefold(), char)
                              for char in unicodedata.normalize("NFKC", student)))


def look_alike_ids(students: list[str]) -> dict[str, list[str]]:
    """The review lines of each id that a person cannot tell from another's in a report: two ids read the same
    (:func:`id_as_read`: NFC and NFD, case, fullwidth forms, a trailing dot or space), or an id whose letters come from
    several scripts (a Cyrillic "а" in "аnn", the shape of a classmate's Latin "ann"), or whose letters of another script
    are drawn as a classmate's id (:func:`id_skeleton`: a Cyrillic "асе" beside "ace"; section 91). nbgrader keeps each id's files,
    grades and feedback apart (they are other strings), so no score moves; but a row, a mail or a grade copied by hand
    could go to the other student (tests/test_grading_redteam.py, section 88). Each id named as Python writes it, ASCII
    only, so the two are told apart."""
    read: dict[str, list[str]] = {}
    skeletons: dict[str, list[str]] = {}
    for student in students:
        read.setdefault(id_as_read(student), []).append(student)
        skeletons.setdefault(id_skeleton(student), []).append(student)
    flags: dict[str, list[str]] = {student: [] for student in students}
    for student in students:
        others = [other for other in read[id_as_read(student)] if other != student]
        if others:
            flags[student].append(f"its id {ascii(student)} reads as {', '.join(ascii(other) for other in others)} (another "
                                  "submission's, once Unicode-normalised and case-folded): check which student handed in which")
        drawn = [other for other in skeletons[id_skeleton(student)] if other != student and other not in others]
        if drawn:
            flags[student].append(f"its id {ascii(student)} looks like {', '.join(ascii(other) for other in drawn)} (another "
                                  "submission's, once letters of other scripts drawn as Latin ones read as those): check "
                                  "which student handed in which")
        scripts = scripts_of(student) & LOOK_ALIKE_SCRIPTS  # Japanese names mix kana and kanji, honestly
        if len(scripts) > 1:
            flags[student].append(f"its id {ascii(student)} mixes letters of {len(scripts)} scripts ({', '.join(sorted(scripts))}): "
                                  "it may be made to look like another's")
    return flags


def repeated_keys(path: Path) -> list[str]:
    """A review line when the notebook's JSON repeats a key in one object, which no Jupyter writes: Python's json and
    nbformat (so nbgrader and the review) keep the last, while another reader (a viewer, an editor, a script that keeps
    the first) shows the cells, sources or points before it, another notebook than the one graded
    (tests/test_grading_redteam.py, section 88). Read after :func:`read_notebook` accepted the file."""
    repeated: dict[str, int] = {}

    def pairs(items: list[tuple[str, object]]) -> dict:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                repeated[key] = repeated.get(key, 0) + 1
            seen.add(key)
        return dict(items)

    try:
        json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=pairs)
    except (ValueError, RecursionError, OSError):  # read_notebook says why it cannot be read
        return []
    if not repeated:
        return []
    keys = ", ".join(f"{ascii(key)} x{count}" for key, count in sorted(repeated.items())[:5])
    return [f"its JSON repeats keys in one object ({keys}{' ...' if len(repeated) > 5 else ''}), which no Jupyter writes: "
            "nbgrader read the last of each; a reader that keeps the first shows another notebook"]


def folder_flags(folder: Path, notebook_names: list[str]) -> list[str]:
    """Review lines about a submission's folder (``submitted/<id>/<lab>``): a graded notebook that is a symbolic link
    (read where it points, a classmate's notebook perhaps: no exchange of the course makes one), and notebooks beside
    it that nbgrader does not grade ("Skipping unknown notebook"), such as the learner's work saved as
    ``00_pretokenization (1).ipynb`` or a copy named like the lab's but for a space or a case: each may be the
    notebook the learner meant (tests/test_grading_redteam.py, section 88). Only the folder's own entries are listed."""
    flags = [f"its {name}.ipynb is a symbolic link (graded where it points): check whose work it is"
             for name in notebook_names if (folder / f"{name}.ipynb").is_symlink()]
    try:
        others = sorted(path.name for path in folder.iterdir()
                        if path.name.lower().endswith(".ipynb") and path.name not in {f"{name}.ipynb" for name in notebook_names})
    except OSError:
        return flags
    if others:
        shown_names = ", ".join(ascii(name) for name in others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        flags.append(f"its folder also holds notebooks nbgrader does not grade ({shown_names}): the learner's work may be "
                     "in one of them")
    return flags


def class_report(course: Path, lab: str) -> list[SubmissionStatus]:
    """Every submission of ``lab`` in ``course``: its score or why it has none, and what needs review."""
    from .commands.autograde import students_of
    from .trusted.autograde import GradingRecord
    from .trusted.review import answer_branches, answer_tables, notebook_flags, tampering

    solutions = course / "solutions" / lab
    if not solutions.is_dir():
        raise NotGradable(f"{course} has no solutions/{lab}: run this in the course folder (or pass --course)")
    notebook_names = sorted(p.stem for p in solutions.glob("*.ipynb"))
    possible = sum(points for name in notebook_names
                   for _, points in test_cells_in_order(json.loads((solutions / f"{name}.ipynb").read_text(encoding="utf-8"))))
    releases = {name: course / "labs" / lab / f"{name}.ipynb" for name in notebook_names}
    policy = lab_grading_policy(lab)
    allowed = {"allow_processes": bool(policy.get("allow_processes")), "allow_files": bool(policy.get("allow_files")),
               "provided": tuple(policy.get("provided", ()))}
    students = students_of(course, lab)
    inputs = visible_inputs(lab)
    release_cells = {name: json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"cells": []}
                     for name, path in releases.items()}
    report = []
    # The gradebook is opened once for the class (when there is one: opening creates it).
    with open_gradebook(course) if (course / "gradebook.db").exists() else contextlib.nullcontext() as gradebook:
        for student in students:
            status = SubmissionStatus(student, "graded", 0.0, possible)
            for name in notebook_names:
                submitted = course / "submitted" / student / lab / f"{name}.ipynb"
                if not submitted.exists():
                    status.status, status.detail = "missing", f"no {name}.ipynb in the submission"
                    break
                try:
                    notebook = read_notebook(submitted)
                except NotGradable as problem:
                    status.status, status.detail = "could not be read", str(problem).replace("could not be read: ", "")
                    break
                release = release_cells[name]
                # What its code was seen to do (the sandbox refused, the keeper saw), what autograde put
                # right, then what its text suggests: a hint where behaviour cannot be seen (an import of
                # the reference that failed, hooks), never a finding.
                record = GradingRecord.load(course, student, lab, name)
                status.review += repeated_keys(submitted)
                status.review += [f"its code {line}" for line in (record.behaviour if record else [])]
                try:
                    status.review += tampering(notebook, release)
                    status.review += [f"hint from its text: {flag}" for flag in notebook_flags(notebook, release, **allowed)
                                      + answer_tables(notebook, release, inputs) + answer_branches(notebook, release, inputs)]
                except Exception as error:  # noqa: BLE001 - one submission's cells end no one else's report (section 58)
                    status.review.append(f"its cells could not be reviewed ({type(error).__name__}: {str(error)[:100]}): "
                                         "read them yourself")
                try:
                    status.earned += sum(c.earned for c in grades_from_course(course, lab, student, name, gradebook))
                except NotGradable:
                    status.status = "not graded"
                    status.detail = "autograde failed on it or has not run yet"
                    break
                status.review += [f"gradebook: {problem}" for problem in gradebook_disagreements(course, lab, student, name, gradebook)]
            if status.status != "graded":
                status.earned = 0.0
            report.append(status)
    look_alike = look_alike_ids([status.student for status in report])
    for status in report:
        status.review += folder_flags(course / "submitted" / status.student / lab, notebook_names) + look_alike[status.student]
        status.review = [bounded(line) for line in status.review]  # a flag quotes the learner's text (section 97)
        status.detail = bounded(status.detail)
    return report


def print_class_report(report: list[SubmissionStatus], lab: str) -> int:
    if not report:
        print(f"No submissions of {lab} in submitted/.")
        return 1
    ids = {s.student: printed(s.student) for s in report}  # escaped before the column is laid out, so that it lines up
    width = max(len("student"), *(len(student) for student in ids.values()))
    print(f"{'student':<{width}}  {'score':>9}  status")
    for s in report:
        score = f"{s.earned:g} / {s.possible:g}" if s.status == "graded" else "-"
        detail = f": {s.detail}" if s.detail else ""
        review = "; NEEDS REVIEW" if s.review else ""
        print(f"{ids[s.student]:<{width}}  {score:>9}  {bounded(printed(f'{s.status}{detail}{review}'))}")
        for line in s.review:  # each flag one line, whatever its text holds, of MAX_REPORT_LINE characters at most
            print(f"{'':<{width}}  {'':>9}    - {bounded(printed(line))}")
    counts = {kind: sum(s.status == kind for s in report) for kind in ("graded", "could not be read", "not graded", "missing")}
    flagged = sum(bool(s.review) for s in report)
    print(", ".join(f"{n} {kind}" for kind, n in counts.items() if n) + f" ({len(report)} submissions)"
          + (f"; {flagged} need review." if flagged else "."))
    if flagged:
        print("Review flags change no score: they say where a person should look (what the code was seen to do: "
              "system calls the sandbox refused, processes, files; restored tampering; gradebook scores that differ "
              "from the trusted grader's, manual scores; hints from the text of the learner's cells).")
    if counts["graded"] < len(report):
        print("nbgrader's gradebook shows 0 for the submissions that were not graded; they have no real score.")
        return 1
    return 1 if flagged else 0


# The command

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("notebook", nargs="?", type=Path, help="the lab notebook to grade, e.g. labs/01_naive_bpe/01_naive_bpe.ipynb")
    parser.add_argument("--lab", help="the lab it belongs to (default: from its file name, folder or contents)")
    parser.add_argument("--timeout", type=positive_seconds,
                        help="CPU seconds per cell and per call before it counts as hung (default: nbgrader_config.py's 30)")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="copy the autograded notebook, with all outputs, into DIR")
    parser.add_argument("--class", dest="class_lab", metavar="LAB",
                        help="instead: report on a class after `nbgrader autograde LAB` (graded, could not be read, not graded)")
    parser.add_argument("--course", type=Path, default=Path("."), help="the course folder for --class (default: the current folder)")


def positive_seconds(text: str) -> int:
    """``--timeout``'s type: a whole number of seconds, at least 1 (argparse says so at parse time)."""
    try:
        seconds = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of seconds") from None
    if seconds < 1:
        raise argparse.ArgumentTypeError(f"{seconds} is not a timeout: give seconds per cell, 1 or more")
    return seconds


def run(args: argparse.Namespace) -> int:
    from .nbgrader_main import skip_unused_schema_formats

    if args.class_lab:
        # --class reports on a whole class: a notebook or one notebook's options beside it would be ignored.
        alone = [name for name, given in ((f"the notebook {args.notebook}", args.notebook is not None),
                                          ("--lab", args.lab is not None),
                                          ("--timeout", args.timeout is not None), ("--keep", args.keep is not None))
                 if given]
        if alone:
            raise ValueError(f"--class {args.class_lab} reports on a whole class: leave out {' and '.join(alone)} "
                             "(those grade one notebook, without --class)")
    skip_unused_schema_formats()  # this process reads the gradebook with nbgrader's API
    if args.class_lab:
        return print_class_report(class_report(args.course, args.class_lab), args.class_lab)  # NotGradable: exit 2
    if args.notebook is None:
        raise ValueError("give a notebook to grade, e.g. labs/01_naive_bpe/01_naive_bpe.ipynb (or --class LAB)")
    return grade_one(args.notebook, args.lab, args.timeout, args.keep)
