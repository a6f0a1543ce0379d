"""``python -m bpe_ref handout DIR``: the folder a class receives, without the lab solutions.

A learner gets the labs, the theory pages, the data, the package and the install files, and grades
their work with ``python -m bpe_ref grade``. ``solutions/``, ``tests/``, CI and the git history (which
holds solutions too) stay with the instructor; the graders' logic is in the package, as self-grading
needs, and their inputs are generated, so reading it hard-codes no answer.

Only files git tracks are copied (no gradebook, submission or feedback can slip in). The README's
sentences about what the handout lacks are rewritten (a README edit that breaks a rewrite stops the
build), and its test command runs ``tests/test_handout.py``, written here.
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

# The course README's sentences about what the handout lacks, and what the handout says instead.
README_REWRITES: tuple[tuple[str, str], ...] = (
    ("(each is [checked](.ci/check-python-versions))", "(each is checked by the course's CI)"),
    ("and one command installs everything and runs the tests (this is what CI runs):",
     "and one command installs everything and runs this handout's checks (`tests/test_handout.py`: the package,\n"
     "the data and the labs are in place; the course's own test suite stays with the course):"),
    ("The repository root is an nbgrader course ([`nbgrader_config.py`](nbgrader_config.py)):\n"
     "`solutions/` holds the source notebooks with solutions and hidden tests, and `labs/` the release\nlearners work in.",
     "This folder is an nbgrader course ([`nbgrader_config.py`](nbgrader_config.py)): `labs/` holds the\n"
     "release learners work in (the source notebooks, with solutions and hidden tests, stay with the instructor)."),
    ("Instructors hand out `python -m bpe_ref handout DIR` (everything but the solutions), then release,\n"
     "collect, autograde, export grades and return feedback with the standard nbgrader commands;\n"
     "`python -m bpe_ref grade --class 01_naive_bpe` then shows which submissions were really graded and\n"
     "which need review; `python -m bpe_ref classroom up` runs the course for a class on a JupyterHub on\n"
     "this machine. The exact commands: [the instructor guide](solutions/README.md).",
     "This folder is a learner handout, made by the course's instructors with `python -m bpe_ref handout DIR`:\n"
     "everything but the solutions. Hand in your lab notebook under its own name (`01_naive_bpe.ipynb`),\n"
     "or submit it from the Assignment List on your class's JupyterHub."),
    ("| `solutions/` | the nbgrader source notebooks (lab solutions and hidden tests) and the instructor guide |\n", ""),
    ("| `tests/` | pytest + hypothesis tests of the package, the theory pages, the labs and the grading |",
     "| `tests/` | this handout's checks (the course's own tests stay with the course) |"),
)

# The handout's tests: cheap checks that the install works and the handout is whole.
HANDOUT_TESTS = '''"""Checks of this handout (written by ``python -m bpe_ref handout``): the install works, and
the package, the data and the labs are in place. The course's own test suite stays with the course."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LABS = sorted(p for p in (ROOT / "labs").glob("*/*.ipynb") if p.parent.name == p.stem)


def test_gpt2_encodes_as_tiktoken_does():
    from bpe_ref import Tokenizer

    tok = Tokenizer.gpt2()
    assert tok.encode("Hello world") == [15496, 995]
    assert tok.decode(tok.encode("Tokenizers turn text into integers.")) == "Tokenizers turn text into integers."


def test_training_on_the_shipped_sample_round_trips():
    from bpe_ref import Tokenizer, train_bpe
    from bpe_ref import data_files

    vocab, merges = train_bpe(data_files.data_file(data_files.CORPUS_EN), vocab_size=300, special_tokens=["<|endoftext|>"])
    assert len(vocab) == 300 and len(merges) == 300 - 256 - 1
    tok = Tokenizer(vocab, merges, special_tokens=["<|endoftext|>"])
    text = "the quick brown fox<|endoftext|>jumps"
    assert tok.decode(tok.encode(text)) == text


def test_every_lab_is_a_release_notebook():
    assert LABS, "no lab notebooks in labs/"
    for path in LABS:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        assert notebook["nbformat"] == 4
        assert "### BEGIN SOLUTION" not in path.read_text(encoding="utf-8"), path


@pytest.mark.parametrize("name", ["nbgrader", "jupyterlab", "hypothesis"])
def test_the_course_tools_are_installed(name):
    __import__(name)
'''


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
    if "README.md" in copied:
        readme = target / "README.md"
        readme.write_text(handout_readme(readme.read_text(encoding="utf-8")), encoding="utf-8")
    (target / "tests").mkdir(exist_ok=True)
    (target / "tests" / "test_handout.py").write_text(HANDOUT_TESTS, encoding="utf-8")
    copied.append("tests/test_handout.py")
    return copied


def handout_readme(text: str) -> str:
    """The course README, rewritten where it speaks of what the handout leaves out."""
    for old, new in README_REWRITES:
        if old not in text:
            raise ValueError(f"README.md no longer says {old[:70]!r}: update README_REWRITES in {__file__}")
        text = text.replace(old, new)
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", type=Path, help="a new folder to write the handout into")


def run(args: argparse.Namespace) -> int:
    copied = build_handout(args.directory)
    labs = sorted({name.split("/")[1] for name in copied if name.startswith("labs/") and name.endswith(".ipynb")})
    print(f"Wrote the learner handout to {args.directory}: {len(copied)} files; labs {', '.join(labs)}.")
    print(f"Left out: {', '.join(KEPT_BACK)} (the lab solutions, the hidden test cells, the course's own tests); "
          "README.md is rewritten for the handout, and tests/test_handout.py checks an install.")
    print("Learners install it with the README's first command and grade themselves with python -m bpe_ref grade.")
    return 0
