"""The course's nbgrader launcher (bpe_ref/course/nbgrader_main.py) is nbgrader's command line,
without jsonschema's IRI format checks (whose grammar library costs a second per process)."""

from __future__ import annotations

import subprocess
import sys


def test_the_launcher_runs_nbgrader_without_the_iri_grammars():
    code = ("import runpy, sys; sys.argv = ['nbgrader', '--version']\n"
            "try:\n    runpy.run_module('bpe_ref.course.nbgrader_main', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print('loaded' if sys.modules.get('rfc3987_syntax') else 'skipped', 'nbformat' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "nbgrader version" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "skipped True"
