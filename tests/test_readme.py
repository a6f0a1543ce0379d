"""The README's set-up commands are the ones CI runs, and its links point at real files."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def quickstart_commands() -> list[str]:
    section = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_quickstart_has_one_command_to_open_the_course_and_one_to_test() -> None:
    commands = quickstart_commands()
    assert any("jupyter lab" in c and "pip install" in c for c in commands), commands
    assert any(c.endswith("-m pytest") and "pip install" in c for c in commands), commands


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = next(c for c in quickstart_commands() if c.endswith("-m pytest"))
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines, f".ci/run must run {test_command!r} verbatim"
    assert ci_lines[-1] == test_command, "the test command must be the last thing .ci/run does"


def test_relative_links_point_at_existing_files() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_the_open_command_points_jupyterlab_at_the_course_settings() -> None:
    import json

    open_command = next(c for c in quickstart_commands() if "jupyter lab" in c)
    settings_dir = open_command.split("--LabApp.app_settings_dir=", 1)[1].split()[0]
    overrides = json.loads((ROOT / settings_dir / "overrides.json").read_text(encoding="utf-8"))
    viewers = overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["markdown"] == "Markdown Preview"  # theory pages open rendered


def test_running_as_root_is_explained_right_after_the_quickstart_commands() -> None:
    section = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    after_commands = section.split("-m pytest\n```\n", 1)[1].lstrip().split("\n\n", 1)[0]
    assert "--allow-root" in after_commands and "root" in after_commands
    assert all("--allow-root" not in c for c in quickstart_commands())  # the commands stay as they are


def test_api_section_names_the_bytes_decoder() -> None:
    from bpe_ref import Tokenizer

    assert "decode_bytes" in README.split("## The reference package", 1)[1]
    assert callable(Tokenizer.decode_bytes)
