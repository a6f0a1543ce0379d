"""The code is clean by the linter's rules (``[tool.ruff]`` in pyproject.toml): unused names,
undefined names, bugbear's likely bugs and over-long lines fail the suite, not a later review."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is not installed: pip install -e '.[dev]'"
    result = subprocess.run([ruff, "check", "--no-cache", "."], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
