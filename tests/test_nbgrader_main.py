"""The course's nbgrader launcher (bpe_ref/course/nbgrader_main.py) is nbgrader's command line,
without jsonschema's IRI format checks (whose grammar library costs a second per process), and
stamps a new gradebook with its migrations' head revision without starting ``alembic heads``."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path


def test_the_launcher_runs_nbgrader_without_the_iri_grammars():
    code = ("import runpy, sys; sys.argv = ['nbgrader', '--version']\n"
            "try:\n    runpy.run_module('bpe_ref.course.nbgrader_main', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print('loaded' if sys.modules.get('rfc3987_syntax') else 'skipped', 'nbformat' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "nbgrader version" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "skipped True"


def test_a_new_gradebook_holds_the_newest_migration_without_running_alembic(tmp_path):
    from nbgrader.dbutil import ALEMBIC_DIR

    # The head, read here from the scripts: the one revision that no other names as its parent.
    revisions, parents = set(), set()
    for script in Path(ALEMBIC_DIR, "versions").glob("*.py"):
        text = script.read_text(encoding="utf-8")
        revisions.add(re.search(r"^revision = ['\"](\w+)['\"]", text, re.M).group(1))
        parents.update(re.findall(r"['\"](\w+)['\"]", re.search(r"^down_revision = (.*)$", text, re.M).group(1)))
    (head,) = revisions - parents
    # A PATH without alembic: the launcher must not need the command.
    env = {"PATH": "/nonexistent", "HOME": str(tmp_path), **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
    result = subprocess.run([sys.executable, "-m", "bpe_ref.course.nbgrader_main", "db", "student", "add", "ada"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    with sqlite3.connect(tmp_path / "gradebook.db") as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head,)]


def test_nbgrader_in_this_process_restores_the_folder_path_and_environment(tmp_path, monkeypatch):
    # `python -m bpe_ref grade` runs nbgrader's two commands in its own process: each must leave the
    # caller as it found it, report nbgrader's failures as an exit code, and catch its log.
    from bpe_ref.course.nbgrader_main import run_in_process

    monkeypatch.setenv("PATH", "/nonexistent")  # and no `alembic heads` either
    folder, path, environment = os.getcwd(), list(sys.path), dict(os.environ)
    code, log = run_in_process(["db", "student", "add", "ada"], tmp_path)
    assert code == 0, log
    with sqlite3.connect(tmp_path / "gradebook.db") as db:
        assert db.execute("SELECT id FROM student").fetchall() == [("ada",)]
    code, log = run_in_process(["autograde", "no_such_lab", "--student", "ada"], tmp_path)
    assert code != 0 and "no_such_lab" in log
    assert (os.getcwd(), sys.path, dict(os.environ)) == (folder, path, environment)
