"""The course's notebooks and its nbgrader course folder: normalize, release, check.

``solutions/<lab>/<lab>.ipynb`` is the nbgrader source; ``labs/<lab>/`` is the release, generated
from it by ``nbgrader generate_assignment`` and committed. After editing a source notebook::

    python -m bpe_ref.course.notebooks normalize        # stable cell ids, no outputs, canonical metadata
    python -m bpe_ref.course.notebooks release          # regenerate labs/ from solutions/
    python -m bpe_ref.course.notebooks check            # what the tests check: exit 1 on any problem

Normal form of a source notebook: nbformat 4.5; a cell with nbgrader metadata has its ``grade_id``
as its id, other cells a readable id; no outputs or execution counts; cell metadata reduced to
``nbgrader`` and ``tags``, notebook metadata to the Python 3 kernel.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import os
import re
import shutil
import importlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .trusted import cells as trusted_cells
from .trusted.cells import nbgrader_of, source_of as cell_source

REPO_ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS_DIR = REPO_ROOT / "solutions"
LABS_DIR = REPO_ROOT / "labs"
NBGRADER_CONFIG = REPO_ROOT / "nbgrader_config.py"

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
CELL_ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
NBGRADER_KEYS = ("grade", "grade_id", "locked", "points", "schema_version", "solution", "task")


def lab_names(folder: Path | None = None) -> list[str]:
    """The labs with a source notebook, ``solutions/<lab>/<lab>.ipynb``, in course order (or those
    with a notebook in ``folder``, e.g. ``labs/`` in a learner's handout, which has no solutions)."""
    folder = folder or SOLUTIONS_DIR
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / f"{p.name}.ipynb").is_file())


def source_notebook(lab: str) -> Path:
    return SOLUTIONS_DIR / lab / f"{lab}.ipynb"


def release_notebook(lab: str) -> Path:
    return LABS_DIR / lab / f"{lab}.ipynb"


# Normal form

def _slug(text: str) -> str:
    words = re.findall(r"[a-zA-Z0-9]+", text.lower())[:6]
    return "-".join(words)[:40] or "cell"


def normalized(notebook: dict[str, Any]) -> dict[str, Any]:
    """``notebook`` (parsed JSON) in the course's normal form (see the module docstring)."""
    cells = []
    used: set[str] = set()
    for cell in notebook["cells"]:
        source = cell_source(cell)
        metadata = cell.get("metadata", {})
        clean: dict[str, Any] = {}
        nbgrader = metadata.get("nbgrader")
        if nbgrader:
            clean["nbgrader"] = {k: nbgrader[k] for k in NBGRADER_KEYS if k in nbgrader}
            clean["nbgrader"]["schema_version"] = 3
            clean["nbgrader"].setdefault("task", False)
            if not clean["nbgrader"].get("grade"):
                clean["nbgrader"].pop("points", None)
        if metadata.get("tags"):
            clean["tags"] = list(metadata["tags"])
        if nbgrader and nbgrader.get("grade_id"):
            cell_id = nbgrader["grade_id"]
        else:
            cell_id = cell.get("id", "")
            if not CELL_ID_PATTERN.match(cell_id) or cell_id in used or re.fullmatch(r"[0-9a-f]{8}", cell_id):
                cell_id = f"cell-{_slug(source.splitlines()[0] if source else '')}"
        base, n = cell_id, 2
        while cell_id in used:
            cell_id, n = f"{base}-{n}", n + 1
        used.add(cell_id)
        new = {"cell_type": cell["cell_type"], "id": cell_id, "metadata": clean, "source": source}
        if cell["cell_type"] == "code":
            new["execution_count"] = None
            new["outputs"] = []
        cells.append(new)
    return {
        "cells": cells,
        "metadata": {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def write_notebook(notebook: dict[str, Any], path: Path) -> None:
    """Write through nbformat (validated, the same JSON layout as nbgrader and JupyterLab write)."""
    import nbformat

    node = nbformat.from_dict(notebook)
    nbformat.validate(node)
    nbformat.write(node, str(path))


def read_notebook_json(path: Path) -> dict[str, Any]:
    """A notebook's JSON with each cell's source joined into one string (as nbformat reads it)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook.get("cells", []):
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    return notebook


def normalize_file(path: Path) -> bool:
    """Rewrite ``path`` in normal form; returns whether it changed."""
    original = read_notebook_json(path)
    result = normalized(original)
    if result == original:
        return False
    write_notebook(result, path)
    return True


def notebook_problems(path: Path, *, release: bool) -> list[str]:
    """What is wrong with one notebook: format, ids, outputs, and (for a release) leftovers."""
    import nbformat

    problems = []
    try:
        notebook = read_notebook_json(path)
        nbformat.validate(nbformat.from_dict(notebook))
    except (ValueError, nbformat.ValidationError) as err:
        return [f"{path}: not a valid notebook: {str(err).splitlines()[0]}"]
    if (notebook.get("nbformat"), notebook.get("nbformat_minor")) != (4, 5):
        problems.append(f"{path}: nbformat {notebook.get('nbformat')}.{notebook.get('nbformat_minor')}, expected 4.5")
    ids = [cell.get("id") for cell in notebook["cells"]]
    if len(set(ids)) != len(ids) or not all(isinstance(i, str) and CELL_ID_PATTERN.match(i) for i in ids):
        problems.append(f"{path}: cell ids missing, invalid or repeated: {ids}")
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count") is not None):
            problems.append(f"{path}: cell {cell.get('id')} has outputs or an execution count")
        text = cell_source(cell)
        if release and ("BEGIN SOLUTION" in text or "BEGIN HIDDEN TESTS" in text or "_properties(" in text):
            problems.append(f"{path}: cell {cell.get('id')} still holds a solution or hidden test")
    if not release and normalized(notebook) != notebook:
        problems.append(f"{path}: not in normal form (run python -m bpe_ref.course.notebooks normalize)")
    problems += [f"{path}: {problem}" for problem in stretch_problems(notebook["cells"])]
    return problems


# Stretch tasks (CONTRIBUTING.md): ungraded design decisions, at least one per lab, each a run of five
# cells after the last graded task and before the exploration:
#
#   stretch_<name>_statement  markdown, read-only, headed "## Stretch (ungraded) · <title>"
#   stretch_<name>_solution   the function(s) to write: an nbgrader solution cell, no points, that
#                             only defines functions (it runs in the grading worker)
#   stretch_<name>_check      the self-check: an advisory check of the lab's graders module
#                             (core.advisory), skipped under the autograder
#   stretch_<name>_measure    the measurement, skipped under the autograder
#   stretch_<name>_decision   markdown, not nbgrader's: the learner's decision and numbers (the
#                             model answers are in the instructor guide, solutions/README.md)

STRETCH_HEADING = "## Stretch (ungraded) · "
STRETCH_PARTS = ("statement", "solution", "check", "measure", "decision")
SKIPPED_UNDER_AUTOGRADER = 'if os.environ.get("NBGRADER_EXECUTION"):'


def stretch_tasks(cells: list[dict]) -> dict[str, list[dict]]:
    """The stretch tasks of a notebook's cells: ``{name: its cells, in notebook order}``."""
    tasks: dict[str, list[dict]] = {}
    for cell in cells:
        match = re.fullmatch(r"stretch_(\w+?)_(" + "|".join(STRETCH_PARTS) + ")", str(cell.get("id", "")))
        if match:
            tasks.setdefault(match.group(1), []).append(cell)
    return tasks


def stretch_problems(cells: list[dict]) -> list[str]:
    """What breaks the stretch-task convention above in a notebook's cells (source or release)."""
    tasks = stretch_tasks(cells)
    if not tasks:
        return ["no stretch task (cells stretch_<name>_statement ... _decision)"]
    problems = []
    index = {id(cell): i for i, cell in enumerate(cells)}
    graded = [i for i, cell in enumerate(cells) if nbgrader_of(cell).get("grade")
              and not str(cell.get("id", "")).startswith("stretch_")]
    exploration = [i for i, cell in enumerate(cells) if cell_source(cell).startswith("## Exploration (ungraded)")]
    for name, parts in tasks.items():
        ids = [cell["id"] for cell in parts]
        positions = [index[id(cell)] for cell in parts]
        if ids != [f"stretch_{name}_{part}" for part in STRETCH_PARTS] or positions != list(range(positions[0], positions[0] + 5)):
            problems.append(f"stretch task {name}: cells {ids}, expected {', '.join(STRETCH_PARTS)} one after the other")
            continue
        if (graded and positions[0] < max(graded)) or (exploration and positions[-1] > exploration[0]):
            problems.append(f"stretch task {name}: not between the last graded task and the exploration")
        statement, solution, check, measure, decision = parts
        if not cell_source(statement).startswith(STRETCH_HEADING) or statement["cell_type"] != "markdown":
            problems.append(f"stretch task {name}: the statement must start with {STRETCH_HEADING!r}<title>")
        for cell in parts:
            meta = nbgrader_of(cell)
            if meta.get("grade") or meta.get("points"):
                problems.append(f"{cell['id']}: a stretch cell carries no grade or points")
        if not nbgrader_of(solution).get("solution") or solution["cell_type"] != "code":
            problems.append(f"{solution['id']}: must be an nbgrader solution cell")
        for cell in (check, measure):
            if nbgrader_of(cell) or SKIPPED_UNDER_AUTOGRADER not in cell_source(cell):
                problems.append(f"{cell['id']}: a plain code cell, skipped with {SKIPPED_UNDER_AUTOGRADER}")
        if "graders.check_stretch_" not in cell_source(check):
            problems.append(f"{check['id']}: must call the lab's advisory self-check, graders.check_stretch_...")
        if decision["cell_type"] != "markdown" or nbgrader_of(decision):
            problems.append(f"{decision['id']}: a plain markdown cell the learner writes in")
    return problems


def solution_namespace(lab: str) -> dict[str, Any]:
    """The functions a source notebook defines: its read-only setup cells and solution cells, run in
    order in a fresh namespace (the tests check the graders against it)."""
    namespace: dict[str, Any] = {"__name__": f"solutions_{lab}"}
    notebook = read_notebook_json(source_notebook(lab))
    for cell in notebook["cells"]:
        meta = nbgrader_of(cell)
        if cell["cell_type"] == "code" and (meta.get("solution") or (meta.get("locked") and not meta.get("grade"))):
            module = written_module(cell["source"])
            if module is not None:  # %%writefile NAME.py: a module of the learner's (lab 03's workers)
                _write_solution_module(lab, *module)
                continue
            exec(compile(cell["source"], f"<{lab}:{cell['id']}>", "exec"), namespace)
    return namespace


WRITEFILE = re.compile(r"%%writefile ([A-Za-z_][A-Za-z0-9_]*\.py)\n")


def written_module(source: str) -> tuple[str, str] | None:
    """``(file name, code)`` of a cell that writes a module with ``%%writefile NAME.py``, else ``None``."""
    match = WRITEFILE.match(source)
    return None if match is None else (match.group(1), source[match.end():])


_SOLUTION_MODULES: list[Path] = []  # this process's folder of solution modules, made on first use


def _solution_modules_folder() -> Path:
    """This process's folder for the solutions' modules, removed at exit by the process that made it
    (a forked child inherits the exit handler, not the folder)."""
    if not _SOLUTION_MODULES:
        folder = Path(tempfile.mkdtemp(prefix="bpe_ref_solution_modules_"))

        def remove(owner: int = os.getpid()) -> None:
            if os.getpid() == owner:
                shutil.rmtree(folder, ignore_errors=True)

        atexit.register(remove)
        _SOLUTION_MODULES.append(folder)
    return _SOLUTION_MODULES[0]


def _write_solution_module(lab: str, name: str, code: str) -> None:
    """Write a solution's module where this process and the worker processes it starts import it
    from (a folder put first on ``sys.path``, which spawned workers inherit)."""
    folder = _solution_modules_folder() / lab
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(code, encoding="utf-8")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    importlib.invalidate_caches()


# Temporary nbgrader courses

def nbgrader_environment() -> dict[str, str]:
    """The environment for nbgrader subprocesses: this interpreter's scripts first on PATH (nbgrader runs
    ``alembic`` from there to create a gradebook, also from a virtual environment not activated)."""
    env = dict(os.environ)
    scripts = str(Path(sys.executable).parent)
    env["PATH"] = scripts + os.pathsep + env.get("PATH", "")
    env.pop("NBGRADER_EXECUTION", None)
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # silences a debugger warning per kernel
    return env


def run_nbgrader(arguments: Sequence[str], course_dir: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
    """``python -m nbgrader ARGUMENTS`` in ``course_dir``, output captured (text)."""
    return subprocess.run(
        [sys.executable, "-m", "bpe_ref.course.nbgrader_main", *arguments],  # nbgrader, started faster
        cwd=course_dir,
        env=nbgrader_environment(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@contextlib.contextmanager
def temporary_course(labs: Sequence[str] = (), *, from_release: bool = False) -> Iterator[Path]:
    """A throw-away course folder (deleted on exit): ``nbgrader_config.py`` and, as each lab's source,
    ``solutions/<lab>`` or, ``from_release``, ``labs/<lab>`` (enough for a trusted grading, which
    looks test cells up in the manifest, so a handout grades the same)."""
    with tempfile.TemporaryDirectory(prefix="bpe_course_") as tmp:
        course = Path(tmp)
        shutil.copy(NBGRADER_CONFIG, course / "nbgrader_config.py")
        for lab in labs:
            origin = LABS_DIR / lab if from_release else SOLUTIONS_DIR / lab
            shutil.copytree(origin, course / "solutions" / lab, ignore=shutil.ignore_patterns(".*", "__pycache__"))
        yield course


def generate_release(lab: str, course: Path) -> Path:
    """Run ``nbgrader generate_assignment LAB`` in ``course`` (without a gradebook); ``course/labs/LAB``."""
    result = run_nbgrader(["generate_assignment", lab, "--force", "--no-db"], course, timeout=300)
    released = course / "labs" / lab
    if result.returncode != 0 or not released.is_dir():
        raise RuntimeError(f"nbgrader generate_assignment {lab} failed:\n{result.stdout}\n{result.stderr}")
    return released


def _files_under(folder: Path) -> dict[str, Path]:
    """Files under ``folder`` by relative path, but hidden ones (JupyterLab's ``.ipynb_checkpoints/``)."""
    return {
        str(p.relative_to(folder)): p
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    }


def release_differences(lab: str) -> list[str]:
    """How the committed ``labs/LAB`` differs from a fresh ``nbgrader generate_assignment`` (empty: none)."""
    with temporary_course([lab]) as course:
        generated = _files_under(generate_release(lab, course))
        committed = _files_under(LABS_DIR / lab) if (LABS_DIR / lab).is_dir() else {}
        problems = [f"labs/{lab}/{name} is not generated from solutions/" for name in sorted(committed.keys() - generated.keys())]
        problems += [f"labs/{lab}/{name} is missing" for name in sorted(generated.keys() - committed.keys())]
        for name in sorted(generated.keys() & committed.keys()):
            new, old = generated[name].read_bytes(), committed[name].read_bytes()
            if name.endswith(".ipynb"):
                same = json.loads(new) == json.loads(old)
            else:
                same = new == old
            if not same:
                problems.append(f"labs/{lab}/{name} differs from what nbgrader generates")
        return problems


def release(lab: str) -> list[str]:
    """Regenerate ``labs/LAB`` from ``solutions/LAB``; returns the files written."""
    with temporary_course([lab]) as course:
        generated = _files_under(generate_release(lab, course))
        target = LABS_DIR / lab
        if target.exists():
            shutil.rmtree(target)
        for name, path in generated.items():
            destination = target / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)  # copyfile: not nbgrader's read-only permissions
        return [f"labs/{lab}/{name}" for name in generated]


# What each test cell checks (for the trusted grader)

def test_cells_manifest() -> str:
    """The text of ``bpe_ref/course/checks/cells.json`` for the source notebooks as they are now."""
    notebooks = {lab: read_notebook_json(source_notebook(lab)) for lab in lab_names()}
    return json.dumps(trusted_cells.manifest(notebooks), indent=1) + "\n"


def write_test_cells_manifest() -> Path:
    trusted_cells.MANIFEST.write_text(test_cells_manifest(), encoding="utf-8")
    return trusted_cells.MANIFEST


def test_cells_manifest_problems() -> list[str]:
    current = trusted_cells.MANIFEST.read_text(encoding="utf-8") if trusted_cells.MANIFEST.exists() else ""
    if current != test_cells_manifest():
        return [f"{trusted_cells.MANIFEST.relative_to(REPO_ROOT)} is stale: run python -m bpe_ref.course.notebooks release"]
    return []


# Command line

def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe_ref.course.notebooks", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["normalize", "release", "check"])
    parser.add_argument("labs", nargs="*", help="lab names, e.g. 01_naive_bpe (default: every lab in solutions/)")
    args = parser.parse_args(argv)
    labs = args.labs or lab_names()
    unknown = [lab for lab in labs if not source_notebook(lab).is_file()]
    if unknown:
        print(f"error: no source notebook for {unknown} (expected solutions/<lab>/<lab>.ipynb)", file=sys.stderr)
        return 2
    if args.action == "normalize":
        for lab in labs:
            changed = normalize_file(source_notebook(lab))
            print(f"{source_notebook(lab).relative_to(REPO_ROOT)}: {'normalized' if changed else 'already normal'}")
        return 0
    if args.action == "release":
        for lab in labs:
            for name in release(lab):
                print(f"wrote {name}")
        print(f"wrote {write_test_cells_manifest().relative_to(REPO_ROOT)}")
        return 0
    problems = []
    for lab in labs:
        problems += notebook_problems(source_notebook(lab), release=False)
        if release_notebook(lab).is_file():
            problems += notebook_problems(release_notebook(lab), release=True)
        problems += release_differences(lab)
    problems += test_cells_manifest_problems()
    for problem in problems:
        print(problem)
    print(f"{len(labs)} labs checked: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
