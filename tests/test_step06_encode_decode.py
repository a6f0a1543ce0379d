"""Step 06's functions (lab 06's language): merge ranks, encoding a pretoken and a text on bytes
tokens, the arena and decoding from it; they agree with the Tokenizer and with tiktoken."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref import Tokenizer, train_bpe_on_text
from bpe_ref.decode import ArenaDecoder, build_arena, decode_with_arena
from bpe_ref.encode.step06_naive import encode_pretoken, encode_text, merge_ranks

SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=40)
SPECIALS = ["<|endoftext|>", "<|end|>"]


def test_merge_ranks_keeps_the_first_rank():
    assert merge_ranks([(b"a", b"b"), (b"ab", b"c"), (b"a", b"b")]) == {(b"a", b"b"): 0, (b"ab", b"c"): 1}
    assert merge_ranks([]) == {}


def test_the_order_of_the_merges_decides():
    # The same three merges; only their ranks differ, and so does the encoding of " work".
    one = merge_ranks([(b"w", b"o"), (b"wo", b"r"), (b"o", b"r")])
    other = merge_ranks([(b"o", b"r"), (b"wo", b"r"), (b"w", b"o")])
    assert encode_pretoken(b"work", one) == [b"wor", b"k"]
    assert encode_pretoken(b"work", other) == [b"w", b"or", b"k"]


def test_encode_pretoken_self_overlap_and_empty():
    ranks = merge_ranks([(b"a", b"a")])
    assert encode_pretoken(b"aaa", ranks) == [b"aa", b"a"]
    assert encode_pretoken(b"aaaa", ranks) == [b"aa", b"aa"]
    assert encode_pretoken(b"", ranks) == []


def test_encode_text_special_tokens_leftmost_then_longest():
    assert encode_text("x<|end|><|endoftext|>y", {}, SPECIALS) == [b"x", b"<|end|>", b"<|endoftext|>", b"y"]
    assert encode_text("<|a|><|a|>", {}, ["<|a|>", "<|a|><|a|>"]) == [b"<|a|><|a|>"]
    assert encode_text("<|end|>", {}, []) == [b"<", b"|", b"e", b"n", b"d", b"|", b">"]  # not special: bytes
    with pytest.raises(TypeError, match="single str"):
        encode_text("a", {}, "<|end|>")


@pytest.fixture(scope="module")
def trained():
    corpus = "the cat sat on the mat. the cats sat. <|endoftext|> a hat, that hat! 42 4242" * 3
    vocab, merges = train_bpe_on_text(corpus, 300, special_tokens=SPECIALS)
    return Tokenizer(vocab, merges, SPECIALS)


@SETTINGS
@given(text=st.text(alphabet="the cats a<|endoftx>!4 \n\u00e9\u4e2d", max_size=80))
def test_encode_text_is_the_tokenizers_encode_on_bytes(trained, text):
    tokens = encode_text(text, merge_ranks(trained.merges), SPECIALS)
    ids = trained.encode(text, method="naive")
    assert tokens == [trained.token_bytes(i) for i in ids]
    assert b"".join(tokens) == text.encode("utf-8")


def test_encode_text_on_gpt2_is_tiktoken(gpt2_tokenizer, gpt2_tiktoken):
    ranks = merge_ranks(gpt2_tokenizer.merges)
    ids_of = {token: token_id for token_id, token in gpt2_tokenizer.vocab.items()}
    text = "Hello world<|endoftext|> It's 2026: naïve café, 中文, 🙂 and   spaces\n\n"
    ids = [ids_of[token] for token in encode_text(text, ranks, ["<|endoftext|>"])]
    assert ids == gpt2_tiktoken.encode(text, allowed_special="all")


def test_build_arena_and_decode():
    buffer, offsets = build_arena({0: b"a", 2: b"bc"})
    assert (buffer, offsets) == (b"abc", [0, 1, 1, 3])
    assert decode_with_arena([2, 0, 2], buffer, offsets) == b"bcabc"
    for bad in (1, 3, -1, -3):
        with pytest.raises(ValueError, match=rf"token id {bad}\b"):
            decode_with_arena([0, bad], buffer, offsets)
    with pytest.raises(ValueError, match="empty"):
        build_arena({0: b""})
    with pytest.raises(ValueError, match="non-negative"):
        build_arena({-1: b"a"})
    assert build_arena({}) == (b"", [0])


def test_the_arena_of_gpt2_decodes_like_tiktoken(gpt2_tokenizer, gpt2_tiktoken):
    buffer, offsets = build_arena(dict(gpt2_tokenizer.vocab))
    assert len(offsets) == 50258 and len(buffer) == sum(map(len, gpt2_tokenizer.vocab.values()))
    ids = gpt2_tiktoken.encode("Hello world, 🙂 naïve", allowed_special="all")
    assert decode_with_arena(ids, buffer, offsets) == gpt2_tiktoken.decode_bytes(ids)


def test_arena_decoder_sparse_ids_and_cache():
    decoder = ArenaDecoder({i: bytes([i]) for i in range(256)} | {10**12: b"ab"})
    assert decoder.position is not None and len(decoder.offsets) == 258
    assert decoder.decode_bytes([10**12, 99, 10**12]) == b"abcab"
    with pytest.raises(ValueError, match="token id 300"):
        decoder.decode_bytes([97, 300])
    assert 10**12 in decoder and 300 not in decoder and "a" not in decoder
