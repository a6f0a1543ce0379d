"""``python -m bpe_ref handout DIR``: the folder a class receives, without the lab solutions.

A learner in a class gets the labs, the theory pages (with the drills' answers), the data, the
package and the install files, and grades their own work with ``python -m bpe_ref grade`` as in
the course repository. What stays with the instructor: ``solutions/`` (the source notebooks with
solutions and hidden test cells), ``tests/`` and CI, and the git history (which holds solutions
too). The hidden tests' *logic* is in the package (``bpe_ref/course/checks/``), as it must be for
self-grading; their inputs are generated, so reading it does not let anyone hard-code an answer.

Only files git tracks are copied, so nothing of an instructor's gradebook, submissions or
feedback can slip in.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

from ..notebooks import REPO_ROOT
from . import check_output_folder

# What a class receives: top-level files and folders of the repository.
HANDOUT = ("README.md", "LICENSE", "pyproject.toml", "environment.yml", "nbgrader_config.py",
           "bpe_ref", "labs", "theory", "data", "jupyterlab_settings")
KEPT_BACK = ("solutions", "tests", ".ci", ".git")


def tracked_files(root: Path = REPO_ROOT) -> list[str]:
    result = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=False)
    if result.returncode != 0:
        raise FileNotFoundError(f"{root} is not a git checkout: the handout is built from the course repository's tracked files")
    return [name for name in result.stdout.decode("utf-8").split("\0") if name]


def build_handout(target: Path, root: Path = REPO_ROOT) -> list[str]:
    """Copy the handout into ``target`` (which must not exist or be empty); the files copied."""
    check_output_folder(target, "handout folder")
    if target.exists() and any(target.iterdir()):
        raise ValueError(f"handout folder {target} is not empty: give a new folder for the handout")
    copied = []
    for name in tracked_files(root):
        top = name.split("/", 1)[0]
        if top not in HANDOUT:
            continue
        source = root / name
        if not source.is_file():
            continue  # deleted in the working tree
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)
        copied.append(name)
    return copied


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", type=Path, help="a new folder to write the handout into")


def run(args: argparse.Namespace) -> int:
    copied = build_handout(args.directory)
    labs = sorted({name.split("/")[1] for name in copied if name.startswith("labs/") and name.endswith(".ipynb")})
    print(f"Wrote the learner handout to {args.directory}: {len(copied)} files; labs {', '.join(labs)}.")
    print(f"Left out: {', '.join(KEPT_BACK)} (the lab solutions, the hidden test cells, the course's own tests).")
    print("Learners install it with the README's first command and grade themselves with python -m bpe_ref grade.")
    return 0
