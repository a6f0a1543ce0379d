"""CONTRIBUTING.md, "Bad input", training half: every bad input gets a clear error, nothing half-done."""

from __future__ import annotations

import re

import pytest

from bpe_ref import TRAIN_METHODS, train_bpe, train_bpe_on_text, train_on_counts
from bpe_ref.corpus import read_corpus
from bpe_ref.train.step03_parallel import count_pretokens_in_file

EOT = "<|endoftext|>"
BASE_VOCAB = {b: bytes([b]) for b in range(256)}


# --- vocab_size < 256 + len(special_tokens): ValueError naming both numbers ---------------------


@pytest.mark.parametrize("method", TRAIN_METHODS)
@pytest.mark.parametrize(
    ("vocab_size", "special_tokens", "base"),
    [(255, [], 256), (256, [EOT], 257), (0, [EOT], 257), (258, ["<a>", "<b>", "<c>"], 259), (-1, [], 256)],
)
def test_vocab_size_below_the_base_vocabulary(method, vocab_size, special_tokens, base, write_corpus):
    tokens = "special token" if len(special_tokens) == 1 else "special tokens"
    message = (rf"vocab_size {vocab_size} is smaller than the base vocabulary of {base} "
               rf"\(256 byte tokens \+ {len(special_tokens)} {tokens}\)")
    with pytest.raises(ValueError, match=message):
        train_bpe_on_text("some text", vocab_size, special_tokens=special_tokens, method=method)
    with pytest.raises(ValueError, match=message):
        train_bpe(write_corpus("some text"), vocab_size, special_tokens=special_tokens, method=method)
    with pytest.raises(ValueError, match=message):
        train_on_counts({b"some": 1}, vocab_size, special_tokens=special_tokens, method=method)


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_vocab_size_is_checked_before_the_file_is_read(method, tmp_path):
    # A bad size and a missing file: the size is the first thing wrong, and costs nothing to check.
    with pytest.raises(ValueError, match=r"vocab_size 100 .* 257"):
        train_bpe(tmp_path / "missing.txt", 100, special_tokens=[EOT], method=method)


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_vocab_size_equal_to_the_base_gives_no_merges(method):
    vocab, merges = train_bpe_on_text("aaaa bbbb", 257, special_tokens=[EOT], method=method)
    assert merges == []
    assert vocab == {**BASE_VOCAB, 256: EOT.encode()}


@pytest.mark.parametrize("bad", [300.0, "300", None, True])
def test_vocab_size_must_be_an_int(bad):
    with pytest.raises(TypeError, match=r"vocab_size must be an int"):
        train_bpe_on_text("text", bad, special_tokens=[])


# --- missing file: FileNotFoundError with the path ----------------------------------------------


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_missing_file(method, tmp_path):
    path = tmp_path / "no_such_corpus.txt"
    with pytest.raises(FileNotFoundError, match=re.escape(str(path))):
        train_bpe(path, 300, special_tokens=[EOT], method=method)


def test_missing_file_with_parallel_counting(tmp_path):
    path = tmp_path / "no_such_corpus.txt"
    with pytest.raises(FileNotFoundError, match=re.escape(str(path))):
        count_pretokens_in_file(path, [EOT], num_workers=2)
    with pytest.raises(FileNotFoundError, match=re.escape(str(path))):
        train_bpe(path, 300, special_tokens=[EOT], method="parallel", num_workers=2)


def test_directory_instead_of_a_file(tmp_path):
    with pytest.raises(IsADirectoryError, match=re.escape(str(tmp_path))):
        read_corpus(tmp_path)


# --- not UTF-8: ValueError with the path and the byte offset ------------------------------------

# (bytes, offset of the first bad byte)
NOT_UTF8 = [
    (b"\xff", 0),
    (b"hello \xff world", 6),
    ("naïve café ".encode() + b"\xc3(", len("naïve café ".encode())),  # bad continuation byte
    (b"abc\xe2\x82", 3),  # truncated 3-byte sequence at the end
    (b"\xed\xa0\x80", 0),  # an encoded surrogate is not UTF-8
]


@pytest.mark.parametrize("method", TRAIN_METHODS)
@pytest.mark.parametrize(("data", "offset"), NOT_UTF8)
def test_file_that_is_not_utf8(method, data, offset, write_corpus):
    path = write_corpus(data)
    with pytest.raises(ValueError, match=rf"{re.escape(str(path))} is not valid UTF-8: byte offset {offset}\b"):
        train_bpe(path, 300, special_tokens=[EOT], method=method)


def test_not_utf8_offset_in_parallel_counting_is_the_offset_in_the_whole_file(write_corpus):
    # Many separators, so the file is cut into chunks; the bad byte sits deep in a later chunk.
    story = "Once upon a time, a café.\n" + EOT + "\n"
    head = (story * 200).encode()
    data = head + b"broken \x80 byte\n" + (story * 50).encode()
    offset = len(head) + len(b"broken ")
    path = write_corpus(data)
    pattern = rf"{re.escape(str(path))} is not valid UTF-8: byte offset {offset}\b"
    with pytest.raises(ValueError, match=pattern):
        count_pretokens_in_file(path, [EOT], num_workers=2, chunks_per_worker=4)
    with pytest.raises(ValueError, match=pattern):
        count_pretokens_in_file(path, [EOT], num_workers=1)
    with pytest.raises(ValueError, match=pattern):
        train_bpe(path, 300, special_tokens=[EOT], method="parallel", num_workers=2)


def test_not_utf8_reports_the_first_bad_byte_when_several_chunks_are_bad(write_corpus):
    story = ("a story " * 10 + EOT).encode()
    data = story * 10 + b"\xff" + story * 10 + b"\xfe" + story * 10
    path = write_corpus(data)
    with pytest.raises(ValueError, match=rf"byte offset {len(story) * 10}\b"):
        count_pretokens_in_file(path, [EOT], num_workers=2, chunks_per_worker=3)


# --- empty corpus: the base vocabulary, no merges, no error -------------------------------------


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_empty_corpus(method, write_corpus):
    expected = {**BASE_VOCAB, 256: EOT.encode()}
    assert train_bpe_on_text("", 1000, special_tokens=[EOT], method=method) == (expected, [])
    assert train_bpe(write_corpus(""), 1000, special_tokens=[EOT], method=method) == (expected, [])
    assert train_on_counts({}, 1000, special_tokens=[EOT], method=method) == (expected, [])


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_corpus_of_only_special_tokens_or_single_characters(method):
    expected = {**BASE_VOCAB, 256: EOT.encode()}
    assert train_bpe_on_text(EOT * 3, 1000, special_tokens=[EOT], method=method) == (expected, [])
    assert train_bpe_on_text(f"a{EOT}b{EOT}", 1000, special_tokens=[EOT], method=method) == (expected, [])


# --- text that cannot be UTF-8 encoded (lone surrogates): ValueError ----------------------------


@pytest.mark.parametrize("text", [b"low lower", bytearray(b"low"), 42, None, ["low"]])
def test_train_on_text_takes_a_str(text):
    """Bytes used to fail deep inside with AttributeError; the message says to decode them."""
    hint = "decode bytes to str first" if isinstance(text, (bytes, bytearray)) else "for a file, call train_bpe"
    with pytest.raises(TypeError, match=rf"train_bpe_on_text takes the text as a str, got {type(text).__name__}.*{hint}"):
        train_bpe_on_text(text, 300, special_tokens=[EOT])


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_lone_surrogate_in_text(method):
    with pytest.raises(ValueError, match=r"cannot be UTF-8 encoded: lone surrogate U\+D83D at index 6"):
        train_bpe_on_text("hello \ud83d world", 300, special_tokens=[EOT], method=method)


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_lone_surrogate_in_a_special_token(method):
    with pytest.raises(ValueError, match=r"lone surrogate U\+DFFF"):
        train_bpe_on_text("hello", 300, special_tokens=["<\udfff>"], method=method)


# --- special_tokens as a bare str: TypeError ----------------------------------------------------


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_special_tokens_as_a_bare_string(method, write_corpus):
    hint = re.escape("write special_tokens=['<|endoftext|>']")
    with pytest.raises(TypeError, match=rf"special_tokens must be a sequence of strings, not a single str.*{hint}"):
        train_bpe_on_text("text", 300, special_tokens=EOT, method=method)
    with pytest.raises(TypeError, match=r"special_tokens must be a sequence of strings"):
        train_bpe(write_corpus("text"), 300, special_tokens=EOT, method=method)
    with pytest.raises(TypeError, match=r"special_tokens must be a sequence of strings"):
        train_on_counts({b"text": 1}, 300, special_tokens=EOT, method=method)


def test_special_tokens_listed_twice():
    with pytest.raises(ValueError, match=r"more than once"):
        train_bpe_on_text("text", 300, special_tokens=[EOT, EOT])


# --- unknown method: ValueError listing the methods ---------------------------------------------


def test_unknown_method(write_corpus):
    listing = re.escape(", ".join(TRAIN_METHODS))
    with pytest.raises(ValueError, match=rf"unknown training method 'fast'; choose one of {listing}"):
        train_bpe_on_text("text", 300, special_tokens=[EOT], method="fast")
    with pytest.raises(ValueError, match=rf"unknown training method 'Heap'; choose one of {listing}"):
        train_bpe(write_corpus("text"), 300, special_tokens=[EOT], method="Heap")
    with pytest.raises(ValueError, match=rf"unknown training method 'common'; choose one of {listing}"):
        train_on_counts({b"text": 1}, 300, special_tokens=[EOT], method="common")  # a module, not a method


def test_heap_compaction_threshold_must_exceed_one():
    with pytest.raises(ValueError, match=r"compaction_threshold must be greater than 1 \(or None\), got 1"):
        train_bpe_on_text("text", 300, special_tokens=[], method="heap", compaction_threshold=1)


# --- a script whose workers cannot start: counted in one process, with a warning that says why ---

SCRIPT_CORPUS = EOT.join(f"Story {i}: the cat sat on the mat." for i in range(300))


def run_script(tmp_path, body: str, *, from_stdin: bool = False):
    """Run ``body`` as a script in a fresh interpreter, from a file or from standard input."""
    import subprocess
    import sys

    corpus = tmp_path / "corpus.txt"
    corpus.write_text(SCRIPT_CORPUS, encoding="utf-8")
    source = body.replace("CORPUS", repr(str(corpus)))
    script = tmp_path / "train_script.py"
    script.write_text(source, encoding="utf-8")
    command = [sys.executable, "-W", "always::RuntimeWarning", "-" if from_stdin else str(script)]
    return script, subprocess.run(command, input=source if from_stdin else None, capture_output=True, text=True,
                                  timeout=120, cwd=tmp_path)


EXPECTED_MERGES = len(train_bpe_on_text(SCRIPT_CORPUS, 300, special_tokens=[EOT])[1])
NO_GUARD = """\
from bpe_ref import train_bpe
vocab, merges = train_bpe(CORPUS, 300, method="parallel", num_workers=2)
print(len(merges))
"""


def test_a_script_without_a_main_guard_counts_in_one_process_and_says_what_to_add(tmp_path):
    """It used to die with BrokenProcessPool and a traceback per worker (each worker re-runs the
    script, which starts a pool again while the worker is starting)."""
    script, result = run_script(tmp_path, NO_GUARD)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(EXPECTED_MERGES)]
    assert "Traceback" not in result.stderr and "BrokenProcessPool" not in result.stderr
    assert (f"{script}:2: RuntimeWarning: counting in this process, not in 2: worker processes import the main "
            f"script again, and {script} makes this call at line 2, outside if __name__ == \"__main__\":, so each "
            "worker would start it again: put the script's work under if __name__ == \"__main__\":") in result.stderr


def test_a_script_read_from_standard_input_counts_in_one_process_and_says_why(tmp_path):
    _, result = run_script(tmp_path, NO_GUARD, from_stdin=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(EXPECTED_MERGES)]
    assert "Traceback" not in result.stderr
    assert ("RuntimeWarning: counting in this process, not in 2: the main script (<stdin>) was not read from a "
            "file (standard input?)") in result.stderr


GUARDED = """\
import bpe_ref.train.step03_parallel as step03
from bpe_ref import train_bpe

pools = []  # the pool must really start: count the pools made


def main():
    real_pool = step03.ProcessPoolExecutor
    step03.ProcessPoolExecutor = lambda *args, **kwargs: pools.append(1) or real_pool(*args, **kwargs)
    vocab, merges = train_bpe(CORPUS, 300, method="parallel", num_workers=2)
    print(len(merges), len(pools))


if __name__ == "__main__":
    main()
"""


def test_a_guarded_script_counts_in_worker_processes_without_a_warning(tmp_path):
    _, result = run_script(tmp_path, GUARDED)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(EXPECTED_MERGES), "1"]
    assert "Warning" not in result.stderr, result.stderr


@pytest.mark.parametrize("source, line, guarded", [
    ('if __name__ == "__main__":\n    run()\n', 2, True),
    ("if '__main__' == __name__ and True:\n    x = 1\n    run()\n", 3, True),
    ('run()\nif __name__ == "__main__":\n    pass\n', 1, False),
    ('if __name__ != "__main__":\n    run()\n', 2, False),
    ('def main():\n    run()\n\nmain()\n', 4, False),
    ('if __name__ == "__main__":\n    pass\nelse:\n    run()\n', 4, False),
])
def test_where_a_main_guard_holds_a_line(tmp_path, source, line, guarded):
    from bpe_ref.main_guard import _guarded

    script = tmp_path / "script.py"
    script.write_text(source, encoding="utf-8")
    assert _guarded(str(script), script.stat().st_mtime, line) is guarded
