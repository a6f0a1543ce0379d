"""The course's nbgrader launcher (bpe_ref/course/nbgrader_main.py) is nbgrader's command line,
without jsonschema's IRI format checks (whose grammar library costs a second per process), and
stamps a new gradebook with its migrations' head revision without starting ``alembic heads``."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def launched(tmp_path_factory):
    """One run of the launcher, as ``python -m`` runs it (``runpy``), adding a student to a new gradebook
    with a PATH without ``alembic`` (the launcher must not need the command); it prints, at its exit,
    whether the IRI grammars were loaded, whether nbformat (which checks notebooks with jsonschema) was, whether
    pkg_resources was (setuptools: nbgrader.utils imports it for zip collection only), whether nbgrader.utils was and
    whether alembic was (the head revision is read from the scripts)."""
    folder = tmp_path_factory.mktemp("launcher")
    code = ("import runpy, sys; sys.argv = ['nbgrader', 'db', 'student', 'add', 'ada']\n"
            "try:\n    runpy.run_module('bpe_ref.course.nbgrader_main', run_name='__main__')\n"
            "except SystemExit as stop:\n    assert not stop.code, stop.code\n"
            "print('loaded' if sys.modules.get('rfc3987_syntax') else 'skipped', 'nbformat' in sys.modules,\n"
            "      'pkg_resources' in sys.modules, 'nbgrader.utils' in sys.modules, 'alembic' in sys.modules)")
    env = {"PATH": "/nonexistent", "HOME": str(folder), **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
    result = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    return folder, result


def test_the_launcher_runs_nbgrader_without_the_iri_grammars(launched):
    _, result = launched
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1] == "skipped True False True False", result.stdout


def test_nbgrader_unzips_with_setuptools_imported_when_needed(tmp_path):
    # The launcher leaves setuptools (and pkg_resources, 0.26 s of CPU) unimported, above; nbgrader's zip collection
    # still unpacks with it, imported on its first call.
    import zipfile

    from nbgrader.utils import unzip

    with zipfile.ZipFile(tmp_path / "submissions.zip", "w") as archive:
        archive.writestr("ada/lab.ipynb", "{}")
    (tmp_path / "out").mkdir()
    unzip(str(tmp_path / "submissions.zip"), str(tmp_path / "out"), zip_ext=[".zip"])
    assert (tmp_path / "out" / "ada" / "lab.ipynb").read_text() == "{}"


def test_a_new_gradebook_holds_the_newest_migration_without_running_alembic(launched):
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    (head,) = ScriptDirectory(ALEMBIC_DIR).get_heads()  # alembic's own reading of the scripts (the launcher's imports no alembic)
    folder, result = launched
    assert result.returncode == 0, result.stdout + result.stderr
    with sqlite3.connect(folder / "gradebook.db") as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head,)]
        assert db.execute("SELECT id FROM student").fetchall() == [("ada",)]


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


def test_hypothesis_keeps_its_files_in_the_callers_folder_not_the_course(tmp_path):
    # The course's config imports hypothesis, which takes the folder current then for its files (its Unicode table:
    # 0.24 s of CPU to build): a grading's temporary course is deleted with it, so every `grade` built it again.
    course, caller = tmp_path / "course", tmp_path / "caller"
    course.mkdir(), caller.mkdir()
    (course / "nbgrader_config.py").write_text(  # as grading does: imported by the config, the table built in the command
        "from hypothesis.internal.charmap import charmap\ncharmap()\nc = get_config()\n", encoding="utf-8")
    script = ("import sys; from pathlib import Path; from bpe_ref.course.nbgrader_main import run_in_process\n"
              "assert 'hypothesis' not in sys.modules\n"
              f"print(run_in_process(['db', 'student', 'list'], Path({str(course)!r}))[0])")
    environment = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    result = subprocess.run([sys.executable, "-c", script], cwd=caller, capture_output=True, text=True, env=environment)
    assert result.returncode == 0 and result.stdout.split() == ["0"], result.stdout + result.stderr
    assert list((caller / ".hypothesis" / "unicode_data").glob("*/charmap.json.gz")), "not kept in the caller's folder"
    assert not (course / ".hypothesis").exists()



@pytest.mark.parametrize("program", ["jupyterhub", "jupyterhub-singleuser"])
def test_the_launcher_starts_the_classrooms_hub_and_servers_without_the_iri_grammars(program, tmp_path):
    # `python -m bpe_ref classroom` starts its hub and every user's server with the launcher: jupyter_server and
    # JupyterHub load jsonschema's formats too (about 3 s of CPU a process), and the instructor's server makes the
    # gradebook (no `alembic heads` there either). The program's main is a stand-in that reports what it was started
    # with (tests/test_instructor_guide.py runs the real hub and servers so).
    module = {"jupyterhub": "jupyterhub.app", "jupyterhub-singleuser": "jupyterhub.singleuser"}[program]
    code = ("import runpy, sys, types\n"
            "def main():\n    api = sys.modules.get('nbgrader.api')\n"
            "    print(sys.argv[1:], 'loaded' if sys.modules.get('rfc3987_syntax') else 'skipped',\n"
            "          api and api.get_alembic_version.__name__)\n"
            f"sys.modules[{module!r}] = types.SimpleNamespace(main=main)\n"
            f"sys.argv = ['launcher', {program!r}, '-f', 'config.py']\n"
            "try:\n    runpy.run_module('bpe_ref.course.nbgrader_main', run_name='__main__')\n"
            "except SystemExit as stop:\n    assert not stop.code, stop.code\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    made_gradebooks = "head_revision" if program == "jupyterhub-singleuser" else "None"
    assert result.stdout.split() == ["['-f',", "'config.py']", "skipped", made_gradebooks], result.stdout


def test_nbgrader_checks_each_cells_metadata_and_its_own_schema_once(monkeypatch):
    """nbgrader checked its schema again with every cell it checked (``jsonschema.validate``, 1.2 ms of CPU a cell):
    with the launcher, once per process; a cell's metadata is still checked, with jsonschema's own error."""
    import jsonschema
    import nbgrader.nbgraderformat.common as common
    from nbformat.notebooknode import from_dict
    from nbgrader.nbgraderformat import MetadataValidator

    from bpe_ref.course.nbgrader_main import schema_checked_once

    monkeypatch.setattr(common, "jsonschema", common.jsonschema)  # put back after the test
    validator = MetadataValidator()
    kind = jsonschema.validators.validator_for(validator.schema)
    checks = []
    check_schema = kind.check_schema
    monkeypatch.setattr(kind, "check_schema", classmethod(lambda cls, schema: checks.append(1) or check_schema(schema)))
    schema_checked_once()
    meta = {"grade": True, "grade_id": "task1", "locked": True, "points": 2, "schema_version": validator.schema_version,
            "solution": False, "task": False}
    for _ in range(30):
        validator.validate_cell(from_dict({"cell_type": "code", "metadata": {"nbgrader": meta}}))
    assert checks == [1]
    wrong = {**meta, "points": "two"}
    with pytest.raises(jsonschema.ValidationError) as raised:
        validator.validate_cell(from_dict({"cell_type": "code", "metadata": {"nbgrader": wrong}}))
    with pytest.raises(jsonschema.ValidationError) as expected:
        jsonschema.validate(wrong, validator.schema)
    assert str(raised.value) == str(expected.value)
