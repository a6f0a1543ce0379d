"""encode_iterable: the same ids as encode on the joined text, with memory that does not grow."""

from __future__ import annotations

import tracemalloc
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref import Tokenizer
from bpe_ref.data_files import TINYSTORIES_2MIB, TINYSTORIES_SAMPLE
from bpe_ref import tokenizer as tokenizer_module
from bpe_ref.tokenizer import STREAM_BLOCK

from sampling import EXHAUSTIVE

SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=150)
ONE_MB = 1_000_000
# What the memory tests stream: the first MiB of TinyStories by default, all 2 MiB under
# BPE_EXHAUSTIVE=1. Either is far above the limit: a stream that kept its input (a byte per
# character at least) would grow by a MiB more than the bounded ~0.6 MB it grows by.
STREAMED_CHARS = 2 << 20 if EXHAUSTIVE else 1 << 20


@pytest.fixture(scope="module")
def gpt2_tokenizer() -> Tokenizer:
    return Tokenizer.gpt2()


@pytest.fixture(scope="module")
def streamed_file(tmp_path_factory):
    """A file of the first STREAMED_CHARS characters of the 2 MiB TinyStories head."""
    path = tmp_path_factory.mktemp("stream") / "tinystories_head.txt"
    path.write_text(TINYSTORIES_2MIB.read_text(encoding="utf-8")[:STREAMED_CHARS], encoding="utf-8")
    return path


def test_a_file_streams_to_the_ids_of_its_whole_text(gpt2_tokenizer):
    with open(TINYSTORIES_SAMPLE, encoding="utf-8") as f:
        streamed = list(gpt2_tokenizer.encode_iterable(f))
    assert streamed == gpt2_tokenizer.encode(TINYSTORIES_SAMPLE.read_text(encoding="utf-8"))


def test_lazy_it_yields_before_the_input_ends(gpt2_tokenizer):
    def lines():
        yield "Hello world.\n" * (STREAM_BLOCK // 10)  # a block's worth of text
        yield "Second line\n"
        raise AssertionError("read too far: the first ids were available after the first block")

    ids = gpt2_tokenizer.encode_iterable(lines())
    assert next(ids) == 15496


# Chunks cut anywhere: inside whitespace runs ("\n\n" is one GPT-2 token), inside words, inside
# special tokens, and with overlapping special tokens that only the next chunk decides.
CHUNK_ALPHABET = ["a", "b", " ", "  ", "\n", "\n\n", "\t", "'s", "é", "😀", "<|", "|>", "<|endoftext|>", "<|end", "<<",
                  "end", "end of", " of", "\ntext", "end of\ntext"]


@settings(SETTINGS, max_examples=150 if EXHAUSTIVE else 75)  # each streams the text 4 times
@given(
    pieces=st.lists(st.sampled_from(CHUNK_ALPHABET), max_size=30),
    cuts=st.lists(st.integers(0, 200), max_size=8),
)
def test_chunks_cut_anywhere_give_the_same_ids(pieces, cuts):
    text = "".join(pieces)
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    chunks = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    for block in (1, 7):  # tiny blocks, so that every chunk boundary is a place to look for a cut
        with mock.patch.object(tokenizer_module, "STREAM_BLOCK", block):
            for tok in _tokenizers():
                assert list(tok.encode_iterable(chunks)) == tok.encode(text), (block, tok.special_tokens, chunks)


_TOKENIZERS: list[Tokenizer] = []


def _tokenizers() -> list[Tokenizer]:
    if not _TOKENIZERS:
        # Overlapping special tokens: the longer must win even when it arrives in two chunks; and
        # one with whitespace inside, which a cut at whitespace could split.
        specials = ["<|endoftext|>", "<|endoftext|><|endoftext|>", "<<", "end of\ntext"]
        _TOKENIZERS.extend([Tokenizer.gpt2(), Tokenizer.gpt2(specials)])
    return _TOKENIZERS


def test_overlapping_special_tokens_longest_first(gpt2_tokenizer):
    tok = _tokenizers()[1]
    double = tok.special_token_ids["<|endoftext|><|endoftext|>"]
    assert tok.encode("a<|endoftext|><|endoftext|>b")[1:2] == [double]
    with mock.patch.object(tokenizer_module, "STREAM_BLOCK", 1):
        streamed = list(tok.encode_iterable(["a <|endoftext|>", "<|endoftext|>b"]))
    assert streamed == tok.encode("a <|endoftext|><|endoftext|>b")


def _peak_growth(run) -> int:
    """Peak bytes allocated (tracemalloc) while ``run()`` executes, above what was live before."""
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before


@pytest.mark.slow
def test_memory_does_not_grow_with_the_input(streamed_file):
    # A small cache, so that the tokenizer's own (bounded) memory is well under the limit too,
    # and the check covers a cold start: nothing is warmed up but the tables built on first use.
    tok = Tokenizer.gpt2(cache_size=1024)
    tok.encode("warm")
    count = 0

    def stream():
        nonlocal count
        with open(streamed_file, encoding="utf-8") as f:
            for _ in tok.encode_iterable(f):
                count += 1

    growth = _peak_growth(stream)
    assert growth < ONE_MB, f"encode_iterable over {STREAMED_CHARS:,} characters grew memory by {growth:,} bytes"
    assert count == len(tok.encode(streamed_file.read_text(encoding="utf-8")))

    # The check is real: handing encode_iterable the whole text at once (what reading the
    # whole input amounts to) blows through the same limit, even with a quarter of the text.
    def whole():
        with open(streamed_file, encoding="utf-8") as f:
            for _ in tok.encode_iterable([f.read(STREAMED_CHARS // 4)]):
                pass

    assert _peak_growth(whole) > ONE_MB


@pytest.mark.slow
def test_memory_with_the_default_cache_once_warm(gpt2_tokenizer, streamed_file):
    # The default cache holds up to 65 536 segments (its own, bounded memory: a few MB once
    # full). After one pass has filled it with this text's segments, a second pass adds nothing.
    def stream():
        with open(streamed_file, encoding="utf-8") as f:
            for _ in gpt2_tokenizer.encode_iterable(f):
                pass

    stream()
    growth = _peak_growth(stream)
    assert growth < ONE_MB, f"a warm pass grew memory by {growth:,} bytes"
