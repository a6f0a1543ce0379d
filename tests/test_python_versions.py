"""The Python versions the README names: pyproject, environment.yml and the check all agree.

``.ci/check-python-versions`` installs the course on each of them from a fresh clone; the slow test
at the end runs it when ``BPE_CHECK_PYTHONS`` is set (it takes minutes, so not by default).
"""

from __future__ import annotations

import doctest
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from test_environment import load_pyproject, parse_environment_yml, split_requirement, supported_pythons

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "check-python-versions"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def load_script() -> ModuleType:
    """The check script as a module (its file name has no .py, so it needs an explicit loader)."""
    loader = importlib.machinery.SourceFileLoader("check_python_versions", str(SCRIPT))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # dataclasses look their module up while the class is built
    loader.exec_module(module)
    return module


check = load_script()
PROMISED = check.promised_versions(README)


def next_minor(version: str) -> str:
    major, minor = version.split(".")
    return f"{major}.{int(minor) + 1}"


def test_the_readme_promises_the_classifier_versions():
    assert PROMISED == supported_pythons()
    assert len(PROMISED) >= 1


def test_requires_python_starts_at_the_oldest_promised_version():
    assert load_pyproject()["project"]["requires-python"] == f">={PROMISED[0]}"


def test_environment_yml_installs_a_promised_python():
    conda, _ = parse_environment_yml((ROOT / "environment.yml").read_text(encoding="utf-8"))
    python = dict(split_requirement(r) for r in conda)["python"]
    assert python == f">={PROMISED[0]},<{next_minor(PROMISED[-1])}"


def test_the_install_command_is_what_both_quickstart_commands_start_with():
    install = check.install_command(README)
    assert install == 'python3 -m venv .venv && .venv/bin/pip install uv && .venv/bin/uv pip install -p .venv -e ".[dev]"'
    setup = [c for c in check.quickstart_commands(README) if "pip install" in c]
    assert len(setup) == 2 and all(c.startswith(install + " && ") for c in setup), setup


def test_the_script_reads_other_wordings_or_refuses():
    assert check.promised_versions("## Quickstart\nYou need Python 3.12.\n") == ["3.12"]
    assert check.promised_versions("## Quickstart\nYou need Python 3.10, 3.11 and 3.12.\n") == ["3.10", "3.11", "3.12"]
    with pytest.raises(ValueError, match="You need Python"):
        check.promised_versions("## Quickstart\nAny recent Python will do.\n")


def test_the_script_docstring_examples():
    result = doctest.testmod(check, verbose=False, report=False)
    assert result.failed == 0 and result.attempted > 0


def test_the_smoke_subset_names_existing_tests():
    for node in check.SMOKE_TESTS:
        path, _, name = node.partition("::")
        assert (ROOT / path).is_file(), node
        if name:
            assert f"def {name.split('[')[0]}(" in (ROOT / path).read_text(encoding="utf-8"), node
    assert (ROOT / check.SMOKE_LAB).is_file()


def test_pyenv_candidates_are_exact_versions_newest_first(tmp_path, monkeypatch):
    for name in ["3.10.2", "3.10.13", "3.10-dev", "3.100.1", "3.10.4t", "3.11.7"]:
        (tmp_path / "versions" / name / "bin").mkdir(parents=True)
        (tmp_path / "versions" / name / "bin" / "python3").touch()
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    found = check.candidates("3.10")
    assert found == [str(tmp_path / "versions" / v / "bin" / "python3") for v in ["3.10.13", "3.10.2"]]


def test_an_interpreter_of_another_version_is_not_taken():
    other = "2.7" if sys.version_info[:2] != (2, 7) else "3.0"
    assert check.find_interpreter(other, {other: sys.executable}) == (None, [sys.executable])
    here = "%d.%d" % sys.version_info[:2]
    assert check.find_interpreter(here, {here: sys.executable})[0] == sys.executable


def test_every_promised_version_is_reported_even_when_none_is_checked(capsys):
    """No version is skipped silently: unfound and unasked versions get a row, and exit code 2."""
    code = check.main(["--versions", PROMISED[0], "--python", f"{PROMISED[0]}={ROOT / 'no-such-python'}"])
    out = capsys.readouterr().out
    assert code == 2
    table = out.split("Python  install s", 1)[1]
    for version in PROMISED:
        assert f"\n{version} " in table, out
    assert "not found" in table and ("not asked" in table or len(PROMISED) == 1)
    assert f"None of Python {PROMISED[0]} was found" in out


def test_oldest_asks_for_the_oldest_promised_version_only(capsys):
    code = check.main(["--oldest", "--python", f"{PROMISED[0]}={ROOT / 'no-such-python'}"])
    out = capsys.readouterr().out
    assert code == 2
    assert f"checking {PROMISED[0]} at commit" in out
    assert out.count("not asked") == len(PROMISED) - 1


def test_a_version_the_readme_does_not_name_is_an_error(capsys):
    assert check.main(["--versions", "2.7"]) == 3
    assert "not among the README's versions" in capsys.readouterr().err


@pytest.mark.slow
def test_every_promised_python_installs_and_passes_the_smoke_subset():
    wanted = os.environ.get("BPE_CHECK_PYTHONS", "")
    if not wanted:
        pytest.skip(
            "installs the course once per Python the README names (1-2 minutes each): run it with "
            "BPE_CHECK_PYTHONS=1 python -m pytest tests/test_python_versions.py, or "
            "BPE_CHECK_PYTHONS=3.10,3.13 for some of them; or run .ci/check-python-versions"
        )
    arguments = [] if wanted == "1" else ["--versions", wanted]
    done = subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=4 * 3600)
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
