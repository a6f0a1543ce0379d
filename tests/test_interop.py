"""GPT-2's tiktoken encoding built from the shipped vocabulary alone (:func:`bpe_ref.course.interop.gpt2_tiktoken`) is
``to_tiktoken(Tokenizer.gpt2())``, without building the ``Tokenizer``. Lab 06's grader builds its reference the same way
(tests/test_checks_labs.py, with lab 06's tests)."""

from __future__ import annotations

import pytest


def test_gpt2_tiktoken_is_to_tiktoken_of_gpt2_without_a_tokenizer(gpt2_tokenizer, monkeypatch):
    import bpe_ref.tokenizer
    from bpe_ref.corpus import read_corpus
    from bpe_ref.course import interop
    from bpe_ref.data_files import TINYSTORIES_VALID, data_file

    want = interop.to_tiktoken(gpt2_tokenizer, name="gpt2")

    def no_tokenizer(*args, **kwargs):
        raise AssertionError("a GPT-2 Tokenizer was built for tiktoken")

    monkeypatch.setattr(bpe_ref.tokenizer.Tokenizer, "__init__", no_tokenizer)
    interop.gpt2_tiktoken.cache_clear()
    got = interop.gpt2_tiktoken()
    assert (got.name, got._pat_str, got._special_tokens) == (want.name, want._pat_str, want._special_tokens)
    assert got._mergeable_ranks == want._mergeable_ranks
    text = read_corpus(data_file(TINYSTORIES_VALID))[:20_000] + "<|endoftext|> naïve 中文 🙂"
    assert got.encode(text, allowed_special="all") == want.encode(text, allowed_special="all") == gpt2_tokenizer.encode(text)
    with pytest.raises(KeyError):  # a special token that is not in the vocabulary has no id to keep
        interop.gpt2_vocab_tiktoken({0: b"a"}, ["<|endoftext|>"])
