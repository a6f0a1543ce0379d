"""``python -m bpe_ref autograde LAB --jobs N`` (bpe_ref/course/commands/autograde.py): a class graded by N
``nbgrader autograde`` processes at once gets the grades, records and autograded notebooks one ``nbgrader
autograde`` gives it, a submission that hangs holds up no other (both checked on lab 00's adversarial class, whose
one ``nbgrader autograde`` tests/test_grading_adversarial.py runs already: ``graded_in_two_jobs``), and a gradebook
locked by another process ("database is locked", which makes nbgrader give up on its whole run) loses no grade."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bpe_ref.course.commands.autograde import dealt
from bpe_ref.course.grade import class_report, grades_from_course
from bpe_ref.course.notebooks import REPO_ROOT, nbgrader_environment, run_nbgrader, temporary_course
from bpe_ref.course.trusted.autograde import RECORDS_DIR, GradingRecord
from test_grading_adversarial import blank, complete

pytestmark = pytest.mark.slow
LAB = "00_pretokenization"  # the cheapest lab to grade honestly
SEED = "4242424242\n"


def class_course(course: Path, submissions: dict[str, dict | str]) -> Path:
    """``course`` with ``LAB`` released, the submissions in ``submitted/`` and a known seed. (The limits are
    nbgrader_config.py's, but for the backstop of a call that waits: 1 times its limit, so the hanging submission
    costs 30 s, not 120; a call that waits for a CPU of a busy machine is not waiting, so no honest call fails by it.)"""
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write("c.TrustedExecute.wall_factor = 1\n")
    assert run_nbgrader(["generate_assignment", LAB, "--force"], course, timeout=600).returncode == 0
    (course / RECORDS_DIR).mkdir()
    (course / RECORDS_DIR / "hidden_seed").write_text(SEED, encoding="utf-8")
    for student, notebook in submissions.items():
        folder = course / "submitted" / student / LAB
        folder.mkdir(parents=True)
        (folder / f"{LAB}.ipynb").write_text(notebook if isinstance(notebook, str) else json.dumps(notebook), encoding="utf-8")
    return course


def in_jobs(course: Path, jobs: int = 2, lab: str = LAB, **options) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bpe_ref", "autograde", lab, "--jobs", str(jobs), "--course", str(course)],
                            cwd=REPO_ROOT, env=nbgrader_environment(), text=True, **options)


def outcome(course: Path, lab: str = LAB, students=None) -> dict:
    """What a class's grading left: per student (of ``students``, or all), the report's status, score and review
    lines, the gradebook's scores and failures per cell, the trusted record's verdicts and review lines, the
    autograded notebook."""
    result = {}
    for status in class_report(course, lab):
        student = status.student
        if students is not None and student not in students:
            continue
        record = GradingRecord.load(course, student, lab, lab)
        autograded = course / "autograded" / student / lab / f"{lab}.ipynb"
        result[student] = {
            "report": (status.status, status.earned, status.detail.replace(str(course), "COURSE"), status.review),
            "cells": grades_from_course(course, lab, student, lab) if status.status == "graded" else None,
            "record": record and (record.verdicts, record.behaviour, record.isolation, record.seed),
            "autograded": json.loads(autograded.read_text(encoding="utf-8")) if autograded.exists() else None,
        }
    return result


def test_a_locked_gradebook_loses_no_grade():
    """Another process holds the gradebook locked past SQLite's wait while the jobs start: the jobs that give
    up leave their students ungraded, and the command grades those again once the lock is gone."""
    with temporary_course((LAB,)) as course:
        class_course(course, {"ann": complete(LAB), "ben": blank(LAB)})
        lock = sqlite3.connect(course / "gradebook.db", isolation_level=None, check_same_thread=False)
        lock.execute("BEGIN EXCLUSIVE")
        released = threading.Event()

        def release() -> None:
            if not released.is_set():
                released.set()
                lock.execute("ROLLBACK")
                lock.close()

        safety = threading.Timer(600, release)  # should the jobs never meet the lock
        safety.start()
        job = in_jobs(course, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        lines = []
        for line in job.stdout:
            lines.append(line)
            if "database is locked" in line:
                release()
        job.wait(timeout=1800)
        safety.cancel()
        release()
        log = "".join(lines)
        assert "database is locked" in log, log[-3000:]
        assert "graded again alone" in log, log[-3000:]
        assert job.returncode == 0, log[-3000:]
        report = {status.student: (status.status, status.earned, status.review) for status in class_report(course, LAB)}
        assert report == {"ann": ("graded", 13.0, []), "ben": ("graded", 0.0, [])}, log[-3000:]


def test_students_are_dealt_to_the_jobs_once_each():
    students = [f"s{i}" for i in range(7)]
    assert dealt(students, 2) == [["s0", "s2", "s4", "s6"], ["s1", "s3", "s5"]]
    assert dealt(students[:1], 4) == [["s0"]]
    assert sorted(sum(dealt(students, 3), [])) == students
