"""Bad input to the commands other than ``train`` and ``encode-corpus`` (``handout``, ``grade``,
``encode``): one line on standard error naming the problem and the file, exit code 2, before any work."""

from __future__ import annotations

import os
import subprocess
import sys
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


def test_encode_of_standard_input_that_is_not_utf8_names_it(tmp_path: Path) -> None:
    """Under a C locale Python reads bad bytes as lone surrogates; the error was about a surrogate."""
    result = subprocess.run([sys.executable, "-m", "bpe_ref", "encode", "-"], input=b"hello \xd3\xff world",
                            capture_output=True, timeout=60, env={**os.environ, "LC_ALL": "C", "PYTHONIOENCODING": ""})
    assert result.returncode == 2
    assert result.stderr.decode().splitlines() == [
        "error: standard input is not valid UTF-8: byte offset 6 (b'\\xd3\\xff w'...: invalid continuation byte)"]


def test_encode_with_a_binary_vocab_json_names_the_file(tmp_path: Path, capsys) -> None:
    (tmp_path / "vocab.json").write_bytes(b'{"\xd3": 0}')
    (tmp_path / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    assert main(["encode", "--model", str(tmp_path), "hi"]) == 2
    [line] = error_lines(capsys)
    assert line.startswith(f"error: {tmp_path / 'vocab.json'} is not valid UTF-8: byte offset 2")


@pytest.mark.parametrize("timeout, message", [
    ("-1", "argument --timeout: -1 is not a timeout: give seconds per cell, 1 or more"),
    ("0", "argument --timeout: 0 is not a timeout: give seconds per cell, 1 or more"),
    ("2.5", "argument --timeout: '2.5' is not a whole number of seconds"),
])
def test_grade_checks_its_timeout_when_parsing(timeout: str, message: str, tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["grade", str(tmp_path / "never_read.ipynb"), "--timeout", timeout])
    assert exit_.value.code == 2
    assert error_lines(capsys)[-1] == f"python -m bpe_ref grade: error: {message}"


@pytest.mark.parametrize("extra, named", [
    (["labs/01_naive_bpe/01_naive_bpe.ipynb"], "the notebook labs/01_naive_bpe/01_naive_bpe.ipynb"),
    (["--timeout", "5"], "--timeout"),
    (["--lab", "01_naive_bpe", "--keep", "kept"], "--lab and --keep"),
])
def test_grade_class_with_a_notebooks_options_is_refused(extra: list[str], named: str, tmp_path: Path, capsys) -> None:
    """--class used to grade the class and silently ignore the notebook given beside it."""
    assert main(["grade", "--class", "01_naive_bpe", "--course", str(tmp_path), *extra]) == 2
    assert error_lines(capsys) == [f"error: --class 01_naive_bpe reports on a whole class: leave out {named} "
                                   "(those grade one notebook, without --class)"]


def test_a_bug_is_a_traceback_not_a_bad_input_line(monkeypatch) -> None:
    # One line and exit 2 are for bad input; a TypeError from inside a command is a bug, and its
    # traceback is what a maintainer needs.
    from bpe_ref.course.commands import handout

    def broken(args):
        return len(None)

    monkeypatch.setattr(handout, "run", broken)
    with pytest.raises(TypeError):
        main(["handout", "somewhere"])


def test_a_command_imports_only_its_own_module() -> None:
    # --help and each command load the module of the command run, not every command's.
    code = ("import sys; from bpe_ref.course.cli import main\n"
            "try:\n    main(['handout', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('bpe_ref.course.commands.') or m.startswith('bpe_ref.course.bench.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    assert loaded == "['bpe_ref.course.commands.handout']", loaded


@pytest.mark.parametrize("command", [
    ["bench", "parallel", "--repeats"], ["bench", "distributed", "--repeats"], ["bench", "encode", "--rounds"],
    ["autograde", "01_naive_bpe", "--jobs"], ["train", "--workers"],
    ["encode-corpus", "corpus.txt", "--model", "model", "--out", "ids.npy", "--engine", "dask", "--workers"],
])
@pytest.mark.parametrize("count", ["0", "-3"])
def test_a_count_option_refuses_less_than_one_when_parsing(command: list[str], count: str, capsys) -> None:
    # `bench encode --rounds 0` used to run the default 7 rounds and `train --method parallel --workers 0`
    # to train on every core (0 read as "not given"); `train --workers 0` failed in step 03, after its plan.
    with pytest.raises(SystemExit) as exit_:
        main([*command, count])
    assert exit_.value.code == 2
    assert error_lines(capsys)[-1].endswith(f"error: argument {command[-1]}: must be at least 1, got {count}")


@pytest.mark.parametrize("module, option", [
    ("benchmark_runs", "--rounds"), ("heap_timings", "--repeats"), ("long_pieces", "--repeats"),
])
def test_a_page_measurement_refuses_no_runs_when_parsing(module: str, option: str, capsys) -> None:
    # heap_timings and long_pieces took 0 and failed later, on the median of no runs.
    from importlib import import_module

    with pytest.raises(SystemExit) as exit_:
        import_module(f"bpe_ref.course.figures.{module}").main([option, "0"])
    assert exit_.value.code == 2
    assert error_lines(capsys)[-1].endswith(f"error: argument {option}: must be at least 1, got 0")


@pytest.mark.parametrize("module", ["incremental_updates", "inverted_index", "encode_decode"])
@pytest.mark.parametrize("count", ["0", "-3", "x"])
def test_a_printed_page_measurement_refuses_no_runs_when_parsing(module: str, count: str, capsys) -> None:
    # `python -m bpe_ref.course.figures.MODULE [REPEATS]` read sys.argv by hand: 0 printed the machine line,
    # then failed on the median of no runs; "x" was a ValueError traceback. One parser now (figures.common).
    from importlib import import_module

    with pytest.raises(SystemExit) as exit_:
        import_module(f"bpe_ref.course.figures.{module}").main([count])
    lines = error_lines(capsys)
    assert exit_.value.code == 2 and f"usage: python -m bpe_ref.course.figures.{module} " in lines[0]
    assert lines[-1].startswith(f"python -m bpe_ref.course.figures.{module}: error: argument REPEATS: ")
