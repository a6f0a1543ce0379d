"""``python -m bpe_ref train``: trains on the shipped sample with no arguments, saves GPT-2 files,
and turns bad input into one clear line and a non-zero exit code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bpe_ref.serialization import load_vocab_and_merges


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpe_ref", *args], capture_output=True, text=True, timeout=300)


def test_train_with_no_arguments_uses_the_shipped_sample_and_prints_a_summary() -> None:
    result = run_cli("train", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert "tinystoriesV2_gpt4_train_head_10000lines.txt" in result.stderr
    assert "743 merges, vocabulary of 1,000 tokens" in result.stdout  # 1000 - 256 - 1 special
    assert "bytes per token" in result.stdout
    assert "first 10 merges:" in result.stdout


def test_train_saves_files_that_load_back(tmp_path: Path) -> None:
    result = run_cli("train", "data/cs336_fixtures/corpus.en", "--vocab-size", "300", "--method", "linked_list",
                     "--out", str(tmp_path), "--no-progress")
    assert result.returncode == 0, result.stderr
    vocab, merges = load_vocab_and_merges(tmp_path / "vocab.json", tmp_path / "merges.txt")
    assert len(vocab) == 300 and len(merges) == 300 - 257


def test_train_reports_bad_input_in_one_line() -> None:
    missing = run_cli("train", "no/such/file.txt", "--no-progress")
    assert missing.returncode == 2
    assert "error: corpus file not found: no/such/file.txt" in missing.stderr
    assert "Traceback" not in missing.stderr
    too_small = run_cli("train", "--vocab-size", "100", "--no-progress")
    assert too_small.returncode == 2
    assert "vocab_size 100 is smaller than the base vocabulary of 257" in too_small.stderr


def test_bad_input_is_refused_before_anything_is_printed(tmp_path: Path, capsys) -> None:
    from bpe_ref.course.cli import main

    cases = {
        "no/such/file.txt": "error: corpus file not found: no/such/file.txt",
        str(tmp_path): f"error: {tmp_path} is a folder, not a corpus file: pass a UTF-8 text file",
    }
    for path, message in cases.items():
        assert main(["train", path, "--no-progress"]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.splitlines() == [message]  # no "training on ... (0 bytes)"
    assert main(["train", "--vocab-size", "100", "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.splitlines() == [
        "error: vocab_size 100 is smaller than the base vocabulary of 257 (256 byte tokens + 1 special token)"
    ]


def test_an_out_path_that_cannot_be_written_is_refused_before_training(tmp_path: Path, capsys) -> None:
    """``--out`` is a folder: a file there, or a file above it, fails in one line before the corpus is
    read (it used to fail with a traceback after the whole training run)."""
    from bpe_ref.course.cli import main

    a_file = tmp_path / "taken"
    a_file.write_text("not a folder", encoding="utf-8")
    cases = {
        str(a_file): f"error: --out {a_file}: a file is there, and this writes a folder (give a folder path)",
        str(a_file / "model"): f"error: --out {a_file / 'model'}: {a_file} is a file, not a folder",
    }
    for out, message in cases.items():
        assert main(["train", "data/cs336_fixtures/corpus.en", "--vocab-size", "300", "--out", out, "--no-progress"]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.splitlines() == [message]  # not "training on ...": no work done
    assert a_file.read_text(encoding="utf-8") == "not a folder"


def test_train_counts_in_the_singular_for_one(tmp_path: Path, capsys) -> None:
    from bpe_ref.course.cli import main

    corpus = tmp_path / "one.txt"
    corpus.write_text("ab", encoding="utf-8")  # one pretoken, one pair: one merge, then one token
    assert main(["train", str(corpus), "--vocab-size", "300", "--no-special-tokens", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert f"training on {corpus} (2 bytes)" in captured.err
    out = captured.out.splitlines()
    assert out[0].endswith("1 merge, vocabulary of 257 tokens (stopped early: no pair left to merge)")
    assert out[1] == "compression on the training text: 2 bytes -> 1 token = 2.00 bytes per token"
    assert out[2] == "first merge:"
    assert out[3] == "    1  b'a' + b'b' -> b'ab'"  # numbered from 1, as on the pages


def test_plural() -> None:
    from bpe_ref.course.commands import plural

    assert [plural(n, "byte") for n in (0, 1, 2, 4096)] == ["0 bytes", "1 byte", "2 bytes", "4,096 bytes"]
    assert plural(1, "special token") == "1 special token" and plural(3, "index", "indices") == "3 indices"
