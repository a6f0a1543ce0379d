"""With GPT-2's files, every encoder returns exactly tiktoken's ids (tiktoken built offline)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref import ENCODE_METHODS, Tokenizer
from bpe_ref.data_files import CHINESE_NOVEL, CS336_FIXTURES, RUSSIAN_STORIES, SPANISH_NOVEL, TINYSTORIES_SAMPLE

from sampling import EXHAUSTIVE

METHODS = [None, *ENCODE_METHODS]  # None: the default (cached) path
SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=150)
# The default run encodes the head of each shipped corpus with each encoder (the default path gets
# the whole TinyStories sample), and every third GPT-2 token alone; BPE_EXHAUSTIVE=1 encodes whole
# corpora with every encoder and every token.
HEAD_CHARS = None if EXHAUSTIVE else 150_000  # over twice BULK_TEXT: the default path goes in bulk
TOKEN_STRIDE = 1 if EXHAUSTIVE else 3


def expected(encoding, text: str) -> list[int]:
    return encoding.encode(text, allowed_special="all")


def test_hello_world(gpt2_tokenizer, gpt2_tiktoken):
    assert gpt2_tiktoken.encode("Hello world") == [15496, 995]
    for method in METHODS:
        assert gpt2_tokenizer.encode("Hello world", method=method) == [15496, 995]


FIXED = {
    "empty": "",
    "one character": "s",
    "one space": " ",
    "emoji": "🙃",
    "emoji in text": "Hello, 🙃! How are you 👋🏽?",
    "special token inside": "Héllò hôw <|endoftext|><|endoftext|> are ü? 🙃<|endoftext|>",
    "special token alone": "<|endoftext|>",
    "contractions": "I'll say it's what they've done, we're sure he'd do it'S",
    "whitespace runs": "a  b   c\n\n\nd \n e\t\t f  \n",
    "numbers": "In 1984, 3.14159 and 1,000,000 x 42nd",
}


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", FIXED)
def test_fixed_cases(gpt2_tokenizer, gpt2_tiktoken, name, method):
    text = FIXED[name]
    assert gpt2_tokenizer.encode(text, method=method) == expected(gpt2_tiktoken, text)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("fixture", ["address.txt", "german.txt", "tinystories_sample.txt"])
def test_cs336_fixtures(gpt2_tokenizer, gpt2_tiktoken, fixture, method):
    text = (CS336_FIXTURES / fixture).read_text(encoding="utf-8")
    ids = gpt2_tokenizer.encode(text, method=method)
    assert ids == expected(gpt2_tiktoken, text)
    assert gpt2_tokenizer.decode(ids) == text


def test_shipped_tinystories_default_path(gpt2_tokenizer, gpt2_tiktoken):
    text = TINYSTORIES_SAMPLE.read_text(encoding="utf-8")  # 1.4 MB with <|endoftext|> between stories
    ids = gpt2_tokenizer.encode(text)
    assert ids == expected(gpt2_tiktoken, text)
    assert gpt2_tokenizer.decode(ids) == text
    assert gpt2_tokenizer.count_tokens(text) == len(ids)


@pytest.mark.parametrize("corpus", [SPANISH_NOVEL, RUSSIAN_STORIES, CHINESE_NOVEL], ids=["es", "ru", "zh"])
def test_shipped_other_languages_default_path(gpt2_tiktoken, corpus):
    # A fresh tokenizer (every cache cold, the pattern of pieces built on the way), then warm.
    tok = Tokenizer.gpt2()
    text = corpus.read_text(encoding="utf-8")[:HEAD_CHARS]
    want = expected(gpt2_tiktoken, text)
    assert tok.encode(text) == want
    assert tok.encode(text) == want


@pytest.mark.parametrize("method", ENCODE_METHODS)
def test_shipped_tinystories_each_encoder(gpt2_tokenizer, gpt2_tiktoken, method):
    # The whole 1.4 MB sample (its head by default), uncached: about a second per encoder in Python.
    text = TINYSTORIES_SAMPLE.read_text(encoding="utf-8")[:HEAD_CHARS]
    assert gpt2_tokenizer.encode(text, method=method) == expected(gpt2_tiktoken, text)


@pytest.mark.parametrize("method", ENCODE_METHODS)
def test_every_gpt2_token_encodes_to_itself(gpt2_tokenizer, method):
    encoder = gpt2_tokenizer._encoder(method)
    for token_id in range(0, 50256, TOKEN_STRIDE):  # all but <|endoftext|>, which is a special token
        assert encoder.encode(gpt2_tokenizer.token_bytes(token_id)) == [token_id]


def test_without_special_tokens_the_text_is_ordinary(gpt2_tiktoken):
    tok = Tokenizer.gpt2(special_tokens=None)
    text = "a<|endoftext|>b"
    assert tok.encode(text) == gpt2_tiktoken.encode_ordinary(text)
    assert 50256 not in tok.encode(text)


@pytest.mark.parametrize("method", [None, "heap", "backtrack", "table"])
def test_one_long_piece(gpt2_tokenizer, gpt2_tiktoken, method):
    # One pretoken of 3000 letters: the worst case of the benchmark, small.
    import random

    rng = random.Random(7)
    text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(3000))
    assert gpt2_tokenizer.encode(text, method=method) == expected(gpt2_tiktoken, text)
    cjk = "".join(chr(rng.randrange(0x4E00, 0xA000)) for _ in range(1000))
    assert gpt2_tokenizer.encode(cjk, method=method) == expected(gpt2_tiktoken, cjk)


# ---------------------------------------------------------------- generated text

WHITESPACE = " \t\n\r\x0b\x0c\x85\xa0\u1680\u2000\u2028\u3000\x1c"
MIXED = list("abcxyzABC019 ,.!?'-_<|>\n") + ["é", "ß", "ж", "Ω", "中", "文", "ع", "ह", "😀", "👍🏽", "\u0301", "٣", "²"]

any_unicode = st.text(max_size=60)  # any code point but lone surrogates
long_runs = st.builds(lambda c, n: c * n, st.characters(), st.integers(1, 400))
whitespace_runs = st.lists(
    st.one_of(st.text(alphabet=WHITESPACE, min_size=1, max_size=8), st.sampled_from(["a", "b", "1", "!", "'s"])),
    max_size=20,
).map("".join)
mixed_scripts = st.lists(st.sampled_from(MIXED), max_size=60).map("".join)
with_special = st.lists(st.one_of(mixed_scripts, st.just("<|endoftext|>"), st.just("<|endoftext")), max_size=5).map("".join)
generated_text = st.one_of(any_unicode, long_runs, whitespace_runs, mixed_scripts, with_special)


@SETTINGS
@given(text=generated_text)
def test_generated_text_matches_tiktoken(gpt2_tokenizer, gpt2_tiktoken, text):
    want = expected(gpt2_tiktoken, text)
    for method in METHODS:
        assert gpt2_tokenizer.encode(text, method=method) == want, (method, text)
    assert gpt2_tokenizer.decode(want) == text
