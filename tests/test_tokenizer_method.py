"""``Tokenizer(..., method=M)``: encode, encode_iterable and the four counting functions all use
encoder M (and ``encode(text, method=)`` still overrides it per call)."""

from __future__ import annotations

import pytest

from bpe_ref import ENCODE_METHODS, Tokenizer
from bpe_ref.course.interop import gpt2_tiktoken

TEXT = "Hello world, it's 2026!<|endoftext|> Once upon a time 中文字 😀"


@pytest.fixture(scope="module")
def gpt2_files():
    tok = Tokenizer.gpt2()
    return dict(tok.vocab), tok.merges


def spy(tok: Tokenizer, method: str | None) -> list[bytes]:
    """Record what reaches encoder ``method`` (None: the default path) from now on."""
    calls: list = []
    target = tok._fast_encoder() if method is None else tok._encoder(method)
    for name in ("encode", "count"):
        original = getattr(target, name, None)
        if original is not None:

            def wrapped(data, _original=original, _name=name):
                calls.append((_name, data))
                return _original(data)

            setattr(target, name, wrapped)
    return calls


def every_path(tok: Tokenizer, text: str = TEXT) -> list[int]:
    """Each path once (on a fresh tokenizer: its counting cache must not hide the encoder)."""
    counter = tok.interval_counter(text)
    appender = tok.appender()
    appender.append(text[:7])
    appender.append(text[7:])
    return [
        len(tok.encode(text)),
        len(list(tok.encode_iterable([text[:5], text[5:]]))),
        tok.count(text),
        tok.count_tokens(text),
        len(tok.split_at(text, 9)[0]),
        counter.count(0, len(text)),
        counter.count(3, 17),
        appender.count,
    ]


@pytest.fixture(scope="module")
def expected(gpt2_files) -> list[int]:
    """What every path gives on the default tokenizer."""
    vocab, merges = gpt2_files
    return every_path(Tokenizer(vocab, merges, ["<|endoftext|>"]))


@pytest.mark.parametrize("method", ENCODE_METHODS)
def test_the_chosen_encoder_serves_every_path(gpt2_files, expected, method):
    vocab, merges = gpt2_files
    tok = Tokenizer(vocab, merges, ["<|endoftext|>"], method=method)
    assert tok.method == method and f"method={method!r}" in repr(tok)
    chosen = spy(tok, method)
    assert every_path(tok) == expected
    assert chosen, f"encoder {method} was never called"
    # No other encoder, and not the default path, was ever built: nothing else could have run.
    assert tok._fast is None, f"the default path ran for method={method!r}"
    assert set(tok._encoders) == {method}, f"encoders built for method={method!r}: {sorted(tok._encoders)}"


def test_the_default_is_the_fast_path(gpt2_files, expected):
    vocab, merges = gpt2_files
    tok = Tokenizer(vocab, merges, ["<|endoftext|>"])
    assert tok.method is None and "method" not in repr(tok)
    default = spy(tok, None)
    assert every_path(tok) == expected
    assert default
    assert not tok._encoders  # the step-08 table encoder is built only for a long growing pretoken


def test_a_call_still_overrides_the_method(gpt2_files):
    vocab, merges = gpt2_files
    tok = Tokenizer(vocab, merges, ["<|endoftext|>"], method="naive")
    heap = spy(tok, "heap")
    naive = spy(tok, "naive")
    ids = tok.encode(TEXT, method="heap")
    assert heap and not naive
    assert ids == gpt2_tiktoken().encode(TEXT, allowed_special="all")
    assert tok.count(TEXT, method="heap") == len(ids)


def test_an_unknown_method_is_refused_at_once(gpt2_files):
    vocab, merges = gpt2_files
    with pytest.raises(ValueError, match="unknown encode method 'fast'; choose one of naive, heap, backtrack, table"):
        Tokenizer(vocab, merges, method="fast")
    with pytest.raises(ValueError, match="unknown encode method"):
        Tokenizer.gpt2(method="Heap")


def test_from_files_and_gpt2_pass_the_method():
    assert Tokenizer.gpt2(method="backtrack").method == "backtrack"


def test_gpt2_reads_its_files_once_a_process_and_each_tokenizer_has_its_own(monkeypatch):
    import bpe_ref.tokenizer as tokenizer_module

    plain = Tokenizer.gpt2()  # read here, or earlier in this process

    def read(*paths):
        raise AssertionError(f"GPT-2's files read again: {paths}")

    monkeypatch.setattr(tokenizer_module, "load_vocab_and_merges", read)
    extra = Tokenizer.gpt2(["<|endoftext|>", "<|x|>"])
    assert extra.special_token_ids["<|x|>"] == 50257 and extra.encode("<|x|>") == [50257]
    again = Tokenizer.gpt2()  # the special token added to one tokenizer is in no other
    assert len(again.vocab) == len(plain.vocab) == 50257 and again.encode("<|x|>") == plain.encode("<|x|>") != [50257]
    assert again.merges == plain.merges and again.merges is not plain.merges


def test_table_and_backtrack_need_unique_bytes():
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc", 259: b"abc"}
    merges = [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c"), (b"a", b"bc")]
    for method in ("naive", "heap", None):
        tok = Tokenizer(vocab, merges, method=method)
        appender = tok.appender()
        appender.append("abc" * 30)
        assert appender.count == tok.count("abc" * 30) == len(Tokenizer(vocab, merges).encode("abc" * 30))
    tok = Tokenizer(vocab, merges, method="table")  # built lazily: the error comes on first use
    with pytest.raises(ValueError, match="unique"):
        tok.count("abc")
