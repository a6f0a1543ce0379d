"""``python -m bpe_ref autograde LAB --jobs N``: ``nbgrader autograde LAB`` on N cores, the same grades.

The submissions (``submitted/<student>/LAB``) are dealt, in the order of their ids, to N ``nbgrader
autograde LAB`` processes run at once, each told to leave out the others' students
(``--CourseDirectory.student_id_exclude``). Each grades its share exactly as one ``nbgrader autograde``
grades the class: the course's configuration, trusted grader, seed (``trusted_grades/hidden_seed``, made
here before they start) and gradebook (SQLite, which lets one process write at a time and makes the others
wait). A job that stops (nbgrader gives up on the whole run at "database is locked") leaves its remaining
students ungraded: afterwards every submission without an autograded notebook, or whose gradebook scores
differ from the trusted record, is graded again, in one ``nbgrader autograde`` of those alone.
Exit 0 when every submission was graded, 1 otherwise, as ``nbgrader autograde``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from ..printable import shown
from . import at_least_one


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("lab", help="the lab to autograde, e.g. 01_naive_bpe (released with nbgrader generate_assignment)")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    parser.add_argument("--jobs", type=at_least_one, default=cores, help="nbgrader processes at once (default: this machine's cores)")
    parser.add_argument("--force", action="store_true", help="grade again the submissions graded already (nbgrader's --force)")
    parser.add_argument("--course", type=Path, default=Path("."), help="the course folder (default: the current folder)")


def students_of(course: Path, lab: str) -> list[str]:
    """The ids of the students who submitted ``lab``, sorted (``submitted/<id>/<lab>/``, as nbgrader finds them)."""
    return sorted(path.parent.name for path in (course / "submitted").glob(f"*/{lab}") if path.is_dir())


def dealt(students: list[str], jobs: int) -> list[list[str]]:
    """``students`` dealt round-robin to at most ``jobs`` groups, none empty."""
    return [group for group in (students[job::jobs] for job in range(max(1, jobs))) if group]


def excluded_value(others: list[str]) -> str:
    """``others`` as the value of ``--CourseDirectory.student_id_exclude``, read back by nbgrader as these ids exactly.

    traitlets reads a string given on the command line through ``Unicode.from_string``, which expands a leading ``~``
    and takes off one pair of quotes around the whole: ids the exchange lets a learner choose (``nbgrader submit
    --student``) such as ``"ann`` and ``zed"``, or ``~nobody``, were read as ``ann``, ``zed`` and ``/nonexistent``, left
    in a classmate's job and graded by two jobs at once. The value starts with an id no student has (the empty one),
    so neither applies; what traitlets reads is checked all the same, a later version's parsing refused, not obeyed."""
    from traitlets import Unicode

    if not others:
        return ""
    value = "," + ",".join(others)
    if Unicode().from_string(value) != value:
        raise ValueError(f"traitlets reads the ids to leave out otherwise than given: {shown(value)}; "
                         "run nbgrader autograde instead")
    return value


def job_command(lab: str, group: list[str], everyone: list[str], force: bool) -> list[str]:
    """The ``nbgrader autograde LAB`` that grades ``group`` alone of ``everyone``."""
    others = excluded_value([student for student in everyone if student not in set(group)])
    return [sys.executable, "-m", "bpe_ref.course.nbgrader_main", "autograde", lab,
            f"--CourseDirectory.student_id_exclude={others}", *(["--force"] if force else [])]


def autograde_jobs(course: Path, lab: str, groups: list[list[str]], everyone: list[str], force: bool) -> list[int]:
    """One ``nbgrader autograde LAB`` per group, all at once, each leaving out everyone else; their exit codes.
    Their log goes to this process's output, as it comes."""
    from ..notebooks import nbgrader_environment

    commands = [job_command(lab, group, everyone, force) for group in groups]  # all checked before any starts
    jobs = [subprocess.Popen(command, cwd=course, env=nbgrader_environment()) for command in commands]
    return [job.wait() for job in jobs]


def ungraded(course: Path, lab: str, students: list[str]) -> list[str]:
    """Those of ``students`` whose notebooks are not all autograded with the trusted record's scores in the gradebook."""
    from ..grade import gradebook_disagreements, open_gradebook

    notebooks = sorted(path.stem for path in (course / "solutions" / lab).glob("*.ipynb"))

    def graded(student: str, name: str, gradebook) -> bool:
        if not (course / "autograded" / student / lab / f"{name}.ipynb").exists():
            return False
        try:
            problems = gradebook_disagreements(course, lab, student, name, gradebook)
        except Exception:  # noqa: BLE001 - the submission is not in the gradebook (nbgrader's MissingEntry)
            return False
        return all(": manual score " in problem for problem in problems)  # a manual score is no grading's

    with open_gradebook(course) as gradebook:
        return [student for student in students if not all(graded(student, name, gradebook) for name in notebooks)]


def run(args: argparse.Namespace) -> int:
    from ..nbgrader_main import skip_unused_schema_formats

    skip_unused_schema_formats()  # before nbgrader is imported (for the seed, then the gradebook)
    from ..trusted.autograde import course_seed

    course, lab = args.course, args.lab
    if not (course / "gradebook.db").exists() or not (course / "solutions" / lab).is_dir():
        raise FileNotFoundError(f"{course.resolve()} has no gradebook.db or no solutions/{lab}: run this in the course folder "
                                f"(or pass --course), after nbgrader generate_assignment {lab}")
    students = students_of(course, lab)
    if not students:
        print(f"No submissions of {lab} in {course / 'submitted'}.")
        return 1
    if any("," in student for student in students):
        raise ValueError("a student id holds a comma, which nbgrader cannot leave out of a job: run nbgrader autograde instead")
    course_seed(course)  # made once, before the jobs: none of them races another to make it
    groups = dealt(students, args.jobs)
    print(f"Autograding {len(students)} submissions of {lab} in {len(groups)} nbgrader processes at once.", flush=True)
    codes = autograde_jobs(course, lab, groups, students, args.force)
    again = ungraded(course, lab, students)
    if again:
        print(shown(f"Not graded by their job (exit codes {codes}), graded again alone: {', '.join(again)}"), flush=True)
        autograde_jobs(course, lab, [again], students, True)
        again = ungraded(course, lab, again)
    print(shown(f"{len(students) - len(again)} of {len(students)} submissions graded"
                + (f"; not graded: {', '.join(again)}" if again else "")
                + f". Next: python -m bpe_ref grade --class {lab}"), flush=True)
    return 1 if again else 0
