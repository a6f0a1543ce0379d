"""The environment files agree, and the package's docstring examples run."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

import bpe_ref

REPO_ROOT = Path(__file__).resolve().parent.parent
CONDA_ONLY = {"python", "pip"}  # environment.yml needs these to exist at all; pip installs the rest


def normalize(name: str) -> str:
    """PEP 503: case-insensitive, runs of -, _ and . are equal."""
    return re.sub(r"[-_.]+", "-", name).lower()


def split_requirement(requirement: str) -> tuple[str, str]:
    """``"tiktoken >= 0.7"`` -> ``("tiktoken", ">=0.7")``; extras and markers are not used here."""
    match = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*?)\s*", requirement)
    assert match, f"cannot read the requirement {requirement!r}"
    return normalize(match.group(1)), match.group(2).replace(" ", "")


def load_pyproject() -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10: tomllib is new in 3.11; the dev extra installs tomli there
        import tomli as tomllib
    with open(REPO_ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)


def supported_pythons() -> list[str]:
    """``["3.10", ...]`` from pyproject's classifiers (tests/test_python_versions.py ties them to the README)."""
    prefix = "Programming Language :: Python :: "
    versions = [c[len(prefix) :] for c in load_pyproject()["project"]["classifiers"] if c.startswith(prefix)]
    return sorted((v for v in versions if v.count(".") == 1), key=lambda v: tuple(map(int, v.split("."))))


def pyproject_dev_requirements(python: str | None = None) -> dict[str, str]:
    """The dev extra as pip sees it on Python ``python`` ("3.10"; default: the oldest supported).

    Environment markers (``; python_version < '3.11'``) are evaluated for that version, so a
    package may be listed once per range of Pythons, and each version gets exactly one line.
    """
    python = python or supported_pythons()[0]
    environment = {"python_version": python, "python_full_version": f"{python}.0"}
    requirements: dict[str, str] = {}
    for line in load_pyproject()["project"]["optional-dependencies"]["dev"]:
        requirement = Requirement(line)
        if requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        name = normalize(requirement.name)
        assert name not in requirements, f"the dev extra lists {name} twice for Python {python}"
        requirements[name] = str(requirement.specifier).replace(" ", "")
    return requirements


def dev_requirements_by_python() -> dict[str, dict[str, str]]:
    """``{python: {name: specifier}}`` for every supported Python."""
    return {python: pyproject_dev_requirements(python) for python in supported_pythons()}


def parse_environment_yml(text: str) -> tuple[list[str], list[str]]:
    """(conda dependencies, pip dependencies) of a simple environment.yml, without PyYAML.

    Reads the top-level ``dependencies:`` list; a ``- pip:`` item opens the nested pip list.
    """
    conda: list[str] = []
    pip: list[str] = []
    section = None
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            section = "conda" if line.strip() == "dependencies:" else None
            continue
        if section is None:
            continue
        item = line.strip()
        assert item.startswith("- "), f"environment.yml: unexpected line {raw!r}"
        value = item[2:].strip().strip("\"'")
        if value == "pip:":
            section, pip_indent = "pip", indent
            continue
        if section == "pip" and indent <= pip_indent:
            section = "conda"
        (pip if section == "pip" else conda).append(value)
    return conda, pip


@pytest.fixture(scope="module")
def environment_yml() -> tuple[list[str], list[str]]:
    return parse_environment_yml((REPO_ROOT / "environment.yml").read_text(encoding="utf-8"))


def test_parse_environment_yml_reads_nested_pip_lists():
    text = ("name: x\nchannels:\n  - conda-forge\ndependencies:\n  - python>=3.10\n  - pip\n  - numpy>=1.24  # note\n"
            "  - pip:\n      - -e .\n")
    assert parse_environment_yml(text) == (["python>=3.10", "pip", "numpy>=1.24"], ["-e ."])


def test_the_dev_extra_reads_its_markers_per_python():
    by_python = dev_requirements_by_python()
    assert by_python["3.10"]["nbgrader"] == ">=0.9.5"  # nbgrader 0.9.6 requires Python 3.11
    assert by_python["3.11"]["nbgrader"] == ">=0.9.6"
    assert by_python["3.10"]["jupyterlab"] == "<4.3,>=4.2"  # what nbgrader 0.9.5's lab extension needs
    assert "tomli" in by_python["3.10"] and "tomli" not in by_python["3.11"]


def listed(environment_yml) -> dict[str, str]:
    """{name: specifier} of environment.yml: its conda packages, and the packages of its pip list
    (a package conda-forge may lack is installed from PyPI there); ``-e .`` left out."""
    conda, pip = environment_yml
    return dict(split_requirement(r) for r in [*conda, *(r for r in pip if not r.startswith("-"))])


def test_environment_yml_lists_the_dev_packages(environment_yml):
    in_conda = listed(environment_yml)
    dev = {name for requirements in dev_requirements_by_python().values() for name in requirements}
    assert set(in_conda) - CONDA_ONLY == dev, (
        f"only in environment.yml: {sorted(set(in_conda) - CONDA_ONLY - dev)}; "
        f"only in pyproject.toml's dev extra: {sorted(dev - set(in_conda))}"
    )


def test_environment_yml_and_pyproject_pin_the_same_versions(environment_yml):
    """Each package has the dev extra's constraint; where it differs by Python, the loosest one.

    conda has no per-Python markers, and its solver pairs versions from conda-forge's own
    metadata, so environment.yml must allow whatever pip may install on any supported Python:
    it has the line that admits every version the other lines admit (checked at the versions
    they name), e.g. ``nbgrader>=0.9.5`` and ``jupyterlab>=4.0``.
    """
    in_conda = listed(environment_yml)
    lines: dict[str, set[str]] = {}
    for requirements in dev_requirements_by_python().values():
        for name, specifier in requirements.items():
            lines.setdefault(name, set()).add(specifier)
    for name, specifiers in sorted(lines.items()):
        assert in_conda.get(name) in specifiers, f"environment.yml has {name}{in_conda.get(name)}, the dev extra {sorted(specifiers)}"
        conda_set = SpecifierSet(in_conda[name])
        named = {spec.version for specifier in specifiers for spec in SpecifierSet(specifier)}
        too_narrow = sorted(v for v in named for s in specifiers
                            if SpecifierSet(s).contains(v, prereleases=True) and not conda_set.contains(v, prereleases=True))
        assert not too_narrow, f"environment.yml's {name}{in_conda[name]} excludes {too_narrow}, which the dev extra allows on some Python"


def test_environment_yml_ends_by_installing_the_repository(environment_yml):
    conda, pip = environment_yml
    assert "pip" in conda
    assert pip, "environment.yml has no pip section"
    assert re.fullmatch(r"-e\s+\.(\[dev\])?", pip[-1]), f"the last pip item is {pip[-1]!r}, not '-e .'"


@pytest.mark.parametrize("python", supported_pythons())
def test_runtime_dependencies_are_in_the_dev_extra(python):
    runtime = dict(split_requirement(r) for r in load_pyproject()["project"]["dependencies"])
    dev = pyproject_dev_requirements(python)
    assert {name: dev.get(name) for name in runtime} == runtime


# --- doctests --------------------------------------------------------------------------------------


def package_modules() -> list[str]:
    """bpe_ref and every module under it that exists on disk (``__main__`` would run the CLI)."""
    names = ["bpe_ref"]
    for info in pkgutil.walk_packages(bpe_ref.__path__, prefix="bpe_ref."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            names.append(info.name)
    return sorted(names)


# Modules whose docstrings teach by example: they must keep at least one.
MODULES_WITH_EXAMPLES = [
    "bpe_ref",
    "bpe_ref.fast.exact_counts",
    "bpe_ref.encode.step08_prefix_counts",
    "bpe_ref.pretokenize",
    "bpe_ref.serialization",
    "bpe_ref.tiebreak",
    "bpe_ref.train",
]


@pytest.mark.parametrize("module_name", package_modules())
def test_doctests(module_name, request, monkeypatch):
    module = importlib.import_module(module_name)  # an existing module that cannot be imported is a bug
    if "Tokenizer.gpt2()" in (module.__doc__ or "") + "".join(test.docstring or "" for test in doctest.DocTestFinder().find(module)):
        # Twelve examples build GPT-2's tokenizer from the shipped files, about a second each: they get the
        # one the test process builds (conftest.py's gpt2_tokenizer, checked against tiktoken by
        # tests/test_encode_gpt2.py) and only read it. Any other call than Tokenizer.gpt2() fails.
        built = request.getfixturevalue("gpt2_tokenizer")
        monkeypatch.setattr(bpe_ref.Tokenizer, "gpt2", classmethod(lambda cls: built))
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {module_name} fail (run it with doctest -v)"
    if module_name in MODULES_WITH_EXAMPLES:
        assert result.attempted > 0, f"{module_name} lost its docstring examples"


def test_the_module_list_is_complete():
    names = package_modules()
    for name in MODULES_WITH_EXAMPLES + ["bpe_ref.train.step01_naive", "bpe_ref.train.common", "bpe_ref.corpus"]:
        assert name in names
