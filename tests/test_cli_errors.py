"""Bad input to the commands other than ``train`` and ``encode-corpus`` (``handout``, ``grade``,
``encode``): one line on standard error naming the problem and the file, exit code 2, before any work."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_ref.course.cli import main


def error_lines(capsys) -> list[str]:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return captured.err.strip().splitlines()


def test_handout_into_a_file_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    a_file = tmp_path / "handout.txt"
    a_file.write_text("mine", encoding="utf-8")
    assert main(["handout", str(a_file)]) == 2
    assert error_lines(capsys) == [
        f"error: handout folder {a_file}: a file is there, and this writes a folder (give a folder path)"]
    assert main(["handout", str(a_file / "class")]) == 2
    assert error_lines(capsys) == [f"error: handout folder {a_file / 'class'}: {a_file} is a file, not a folder"]
    assert a_file.read_text(encoding="utf-8") == "mine"


def test_handout_into_a_folder_with_files_is_refused(tmp_path: Path, capsys) -> None:
    (tmp_path / "old.txt").write_text("x", encoding="utf-8")
    assert main(["handout", str(tmp_path)]) == 2
    assert error_lines(capsys) == [f"error: handout folder {tmp_path} is not empty: give a new folder for the handout"]
    assert [p.name for p in tmp_path.iterdir()] == ["old.txt"]
