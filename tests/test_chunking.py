"""Step 03: cutting a file at special tokens and counting pretokens in worker processes.

The chunking properties are checked in-process with hypothesis (cheap); worker processes are
started by a few small tests only (process start-up is the expensive part on 2 cores).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bpe_ref import data_files
from bpe_ref.pretokenize import count_pretokens
from bpe_ref.train.step03_parallel import count_pretokens_in_file, find_chunk_boundaries

from sampling import EXHAUSTIVE


def boundaries_of(data: bytes, desired_num_chunks: int, split_tokens, buffer_size: int = 4096) -> list[int]:
    """:func:`find_chunk_boundaries` of a file holding ``data``."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "corpus.txt"
        path.write_bytes(data)
        return find_chunk_boundaries(path, desired_num_chunks, split_tokens, buffer_size=buffer_size)


# 100 files per property by default, 200 under BPE_EXHAUSTIVE=1 (each writes a file and cuts it).
PROPERTY = settings(derandomize=True, deadline=None, database=None, max_examples=200 if EXHAUSTIVE else 100)

EOT = "<|endoftext|>"
# Special token sets a corpus may use; the later ones overlap each other (a suffix of one is a
# prefix of another, or one contains the other), where a careless cut changes the counts.
TOKEN_SETS = [
    [EOT],
    [EOT, "<|pad|>"],
    ["<s>", "</s>"],
    [EOT, EOT + EOT],
    ["<s>", "a<s>b"],
    ["ab", "bc"],
    ["aa"],
]
ATOMS = st.one_of(
    st.sampled_from(list("ab c\n<>|s/") + ["é", "字", "😀", "e\u0301", "  ", "\n\n"]),
    st.characters(codec="utf-8"),
)


@st.composite
def corpora(draw, token_sets=TOKEN_SETS):
    """(text, special_tokens): text with the special tokens dropped in anywhere, often."""
    tokens = draw(st.sampled_from(token_sets))
    parts = draw(st.lists(st.one_of(ATOMS, ATOMS, st.sampled_from(tokens)), max_size=60))
    return "".join(parts), tokens


def brute_force_boundaries(data: bytes, desired_num_chunks: int, tokens: list[bytes]) -> list[int]:
    """What the docstring promises, computed on the whole byte string at once (no buffering).

    Guesses are evenly spaced at ``i * (size // n)``; each inner boundary is the first offset at or
    after its guess (and at or after the previous boundary) where a token occurs and which no
    occurrence straddles, or the file size.
    """
    size = len(data)
    chunk_size = size // desired_num_chunks
    boundaries = [0]
    for i in range(1, desired_num_chunks):
        start = max(i * chunk_size, boundaries[-1])
        safe = (p for p in range(start, size) if is_token_start(data, p, tokens) and not straddled(data, p, tokens))
        boundaries.append(next(safe, size))
    boundaries.append(size)
    return sorted(set(boundaries))


def is_token_start(data: bytes, offset: int, tokens: list[bytes]) -> bool:
    return any(data.startswith(t, offset) for t in tokens)


def straddled(data: bytes, offset: int, tokens: list[bytes]) -> bool:
    """Whether some occurrence of a token starts before ``offset`` and ends after it."""
    return any(data.startswith(t, s) for t in tokens for s in range(max(0, offset - len(t) + 1), offset))


def assert_boundary_properties(boundaries: list[int], data: bytes, tokens: list[bytes]) -> None:
    assert boundaries[0] == 0
    assert boundaries[-1] == len(data)
    assert boundaries == sorted(set(boundaries)), "sorted, no duplicates"
    for b in boundaries[1:-1]:
        assert is_token_start(data, b, tokens), f"inner boundary {b} is not at a special token"
        assert not straddled(data, b, tokens), f"inner boundary {b} cuts through a special token"


@PROPERTY
@given(corpora(), st.integers(1, 8), st.integers(1, 16))
@example(("x" * 20 + EOT + "y" * 20, [EOT]), 2, 1)  # token straddles many 1-byte reads
@example(("x" * 7 + EOT + "y", [EOT]), 2, 8)  # token starts just before a buffer edge
@example(("a<s>", ["<s>", "a<s>b"]), 5, 1)  # a short window at the end of the file still holds "<s>"
@example(("aaa<s>b", ["<s>", "a<s>b"]), 4, 1)  # "<s>" is in the window, "a<s>b" (earlier) is cut off by it
@example(("", [EOT]), 3, 4)  # empty file
@example((EOT * 5, [EOT]), 8, 3)  # more chunks asked for than tokens
def test_boundaries_properties_with_small_read_buffers(corpus, desired_num_chunks, buffer_size):
    text, special_tokens = corpus
    data = text.encode("utf-8")
    tokens = [t.encode("utf-8") for t in special_tokens]
    boundaries = boundaries_of(data, desired_num_chunks, tokens, buffer_size=buffer_size)
    assert_boundary_properties(boundaries, data, tokens)
    assert len(boundaries) - 1 <= desired_num_chunks
    # The buffered search finds exactly what a search of the whole file at once finds.
    assert boundaries == brute_force_boundaries(data, desired_num_chunks, tokens)
    whole = boundaries_of(data, desired_num_chunks, tokens, buffer_size=len(data) + 64)
    assert boundaries == whole


def test_boundaries_of_a_real_file():
    path = data_files.data_file(data_files.TINYSTORIES_SAMPLE)
    data = path.read_bytes()
    token = EOT.encode()
    boundaries = find_chunk_boundaries(path, 16, token)
    assert_boundary_properties(boundaries, data, [token])
    assert len(boundaries) == 17  # 1,727 separators: every guess finds its own
    assert boundaries == brute_force_boundaries(data, 16, [token])


def test_single_bytes_token_is_accepted():
    data = b"aaXbbXcc"
    assert boundaries_of(data, 3, b"X", buffer_size=1) == [0, 2, 5, 8]


def test_chunking_argument_errors():
    with pytest.raises(ValueError, match=r"desired_num_chunks must be at least 1, got 0"):
        boundaries_of(b"abc", 0, [b"X"])
    with pytest.raises(ValueError, match=r"non-empty bytes split tokens"):
        boundaries_of(b"abc", 2, [])
    with pytest.raises(ValueError, match=r"non-empty bytes split tokens"):
        boundaries_of(b"abc", 2, [b""])
    with pytest.raises(ValueError, match=r"buffer_size must be positive, got 0"):
        boundaries_of(b"abc", 2, [b"X"], buffer_size=0)


@PROPERTY
@given(corpora(), st.integers(1, 8), st.integers(1, 16))
@example(("xxxa<s>by", ["<s>", "a<s>b"]), 2, 4)  # a cut at the guess "<s>" would split "a<s>b"
@example(("xabcd", ["ab", "bc"]), 2, 4)  # the whole text splits at "ab"; a cut at "bc" would not
@example(("xaaay", ["aa"]), 2, 4)  # a self-overlapping token: serial matches at 1, not at 2
def test_chunk_counts_add_up_to_the_serial_count(corpus, desired_num_chunks, buffer_size):
    """Map-reduce in one process: counting each chunk and adding up equals counting the whole text.

    This is what makes step 03 correct: a cut never changes how the text around it is split into
    special tokens and pretokens.
    """
    text, special_tokens = corpus
    data = text.encode("utf-8")
    tokens = [t.encode("utf-8") for t in special_tokens]
    boundaries = boundaries_of(data, desired_num_chunks, tokens, buffer_size=buffer_size)
    total: Counter[bytes] = Counter()
    for start, end in zip(boundaries, boundaries[1:]):
        total.update(count_pretokens(data[start:end].decode("utf-8"), special_tokens))
    assert dict(total) == count_pretokens(text, special_tokens)


# --- worker processes: few and small --------------------------------------------------------

SMALL_CORPUS = "".join(
    f"Story {i}: it's {i * 7} o'clock, naïve café 😀 {'a' * (i % 5)}\n{EOT}" + ("\n" if i % 3 else "")
    for i in range(40)
)


@pytest.mark.parametrize("num_workers", [1, 2, 3, 4])
def test_parallel_counts_equal_serial_counts(write_corpus, num_workers):
    path = write_corpus(SMALL_CORPUS)
    expected = count_pretokens(path.read_text(encoding="utf-8"), [EOT])
    assert count_pretokens_in_file(path, [EOT], num_workers=num_workers) == expected


def test_parallel_counts_with_several_chunks_per_worker_on_a_real_file():
    path = data_files.data_file(data_files.TINYSTORIES_SAMPLE)
    expected = count_pretokens(path.read_text(encoding="utf-8"), [EOT])
    assert count_pretokens_in_file(path, [EOT], num_workers=2, chunks_per_worker=4) == expected


def test_parallel_counting_without_special_tokens_or_separators(write_corpus):
    # No special token: nowhere safe to cut, so the file is counted whole.
    path = write_corpus("no separators here, just words words words\n")
    expected = count_pretokens(path.read_text(encoding="utf-8"), [])
    assert count_pretokens_in_file(path, [], num_workers=2) == expected
    assert count_pretokens_in_file(path, [EOT], num_workers=2) == expected
    # An empty file: no pretokens.
    assert count_pretokens_in_file(write_corpus(""), [EOT], num_workers=2) == {}


def test_num_workers_must_be_positive(write_corpus):
    with pytest.raises(ValueError, match=r"num_workers must be at least 1, got 0"):
        count_pretokens_in_file(write_corpus("abc"), [EOT], num_workers=0)
