"""The instructor guide's commands, run verbatim on a copy of the repository, in the guide's order.

``solutions/README.md`` sections 1-6 hold the commands an instructor types: release, hand out,
collect (student ids with ``_`` included), autograde, check who was graded, export, feedback. This
test copies the tracked files to a new folder (what a fresh clone holds), puts two submissions where
the LMS route expects them, runs every command of those sections exactly as written (exchange-only
lines excepted: there is no exchange here), and checks the outcome. Then it grades a lab from the
learner handout, which has no ``solutions/``, as a learner would.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_ref.course.notebooks import REPO_ROOT, nbgrader_environment, read_notebook_json, release_notebook, source_notebook

pytestmark = pytest.mark.slow
GUIDE = REPO_ROOT / "solutions" / "README.md"
LAB = "01_naive_bpe"


def guide_commands() -> list[str]:
    """The shell commands of sections 1-6, in order (``nbgrader ...`` and ``python -m bpe_ref ...``)."""
    text = GUIDE.read_text(encoding="utf-8")
    start, end = text.index("## 1. Release a lab"), text.index("## Self-study")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text[start:end], flags=re.S):
        for line in block.splitlines():
            line = line.strip()
            if line.startswith(("nbgrader ", "python -m bpe_ref ")) and "exchange only" not in line:
                commands.append(re.sub(r"\s+#.*$", "", line))
    return commands


def completed(notebook: dict) -> dict:
    solutions = {c["id"]: c["source"] for c in read_notebook_json(source_notebook(LAB))["cells"]}
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            cell["source"] = "\n".join(l for l in solutions[cell["id"]].splitlines() if "### " not in l)
    return notebook


def copy_of_the_repository(target: Path) -> Path:
    """What a fresh clone holds: the tracked files as they are in the working tree, committed."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, names):
        if (REPO_ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / name, target / name)
    identity = {"GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "test",
                "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": os.environ.get("PATH", "")}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "clone"]):
        subprocess.run(command, cwd=target, check=True, capture_output=True, env=identity)
    return target


def activated_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a shell where the course's venv is activated (``nbgrader``, ``python``)."""
    env = nbgrader_environment()
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env["PATH"]
    env.update(extra or {})
    return env


@pytest.fixture(scope="module")
def instructor_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("guide")
    course = copy_of_the_repository(root / "course")
    commands = guide_commands()
    results = []
    for command in commands:
        if command.startswith("nbgrader zip_collect"):
            archive = course / "downloaded" / LAB / "archive"
            archive.mkdir(parents=True)
            (archive / f"alice_smith__{LAB}.ipynb").write_text(json.dumps(completed(read_notebook_json(release_notebook(LAB)))))
            (archive / f"bob__{LAB}.ipynb").write_text(json.dumps(read_notebook_json(release_notebook(LAB))))
        # The guide's commands use the course's own package: put this copy first on the path.
        result = subprocess.run(command, shell=True, cwd=course, capture_output=True, text=True, timeout=900,
                                env=activated_environment({"PYTHONPATH": str(course)}))
        results.append((command, result))
    return {"root": root, "course": course, "commands": commands, "results": results}


def test_the_guide_names_the_whole_route():
    commands = guide_commands()
    for needed in ("nbgrader generate_assignment", "python -m bpe_ref handout", "nbgrader zip_collect", "nbgrader autograde",
                   "python -m bpe_ref grade --class", "nbgrader export", "nbgrader generate_feedback"):
        assert any(c.startswith(needed) for c in commands), f"the guide has no {needed!r} command"


def test_every_command_succeeds(instructor_run):
    failed = [(c, r.returncode, (r.stdout + r.stderr)[-1500:]) for c, r in instructor_run["results"] if r.returncode != 0]
    assert not failed, failed


def test_collect_keeps_ids_with_underscores(instructor_run):
    submitted = sorted(p.name for p in (instructor_run["course"] / "submitted").iterdir())
    assert submitted == ["alice_smith", "bob"]


def test_grades_and_feedback_come_out(instructor_run):
    course = instructor_run["course"]
    summary = next(r.stdout for c, r in instructor_run["results"] if "grade --class" in c)
    assert re.search(r"^alice_smith\s+17 / 17\s+graded$", summary, re.M), summary
    assert re.search(r"^bob\s+0 / 17\s+graded$", summary, re.M), summary
    rows = {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader((course / "grades.csv").open())}
    assert rows == {"alice_smith": 17.0, "bob": 0.0}
    assert (course / "grades-lab01.csv").exists()
    assert sorted(p.parts[-3] for p in (course / "feedback").glob(f"*/{LAB}/{LAB}.html")) == ["alice_smith", "bob"]


def test_the_handout_has_no_solutions_and_grades_itself(instructor_run, tmp_path):
    handout = instructor_run["root"] / "fast-bpe-handout"
    assert (handout / "labs" / LAB / f"{LAB}.ipynb").exists() and (handout / "bpe_ref").is_dir()
    assert not (handout / "solutions").exists() and not (handout / "tests").exists()
    for path in handout.rglob("*.ipynb"):
        assert "### BEGIN SOLUTION" not in path.read_text(encoding="utf-8"), path
    # A learner's finished notebook, graded with the handout's own package (no solutions/ there).
    finished = handout / "labs" / LAB / "mine.ipynb"
    finished.write_text(json.dumps(completed(read_notebook_json(release_notebook(LAB)))), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "bpe_ref", "grade", str(finished), "--lab", LAB], cwd=handout,
                            capture_output=True, text=True, timeout=600, env=activated_environment({"PYTHONPATH": str(handout)}))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All tasks passed: 17 / 17 points" in result.stdout
