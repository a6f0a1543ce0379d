"""Exact token counting (bpe_ref.fast.exact_counts, bpe_ref.encode.step08_prefix_counts): every prefix, interval
and append sequence of generated texts counts as ``len(encode(...))`` and as tiktoken counts, on
GPT-2 and on vocabularies trained on each shipped corpus; the hard-boundary rule itself."""

from __future__ import annotations

from functools import lru_cache

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref import ENCODE_METHODS, Tokenizer, train_bpe_on_text
from bpe_ref.fast.exact_counts import Appender, hard_boundaries, iter_hard_boundaries
from bpe_ref.course.interop import to_tiktoken
from bpe_ref.data_files import (
    CHINESE_NOVEL,
    CORPUS_EN,
    CS336_FIXTURES,
    RUSSIAN_STORIES,
    SPANISH_NOVEL,
    TINYSTORIES_SAMPLE,
)
from bpe_ref.encode.step08_prefix_counts import AppendableEncoder, prefix_token_counts
from bpe_ref.pretokenize import PRETOKEN_RE, split_keeping_special_tokens

SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=25)
SPECIALS = ("<|endoftext|>", "<|pad|>")
CORPORA = {
    "gpt2": None,
    "corpus.en": CORPUS_EN,
    "tinystories": TINYSTORIES_SAMPLE,
    "spanish": SPANISH_NOVEL,
    "russian": RUSSIAN_STORIES,
    "chinese": CHINESE_NOVEL,
    "german": CS336_FIXTURES / "german.txt",
}
TRAIN_CHARS = 20_000
VOCAB_SIZE = 600


@lru_cache(maxsize=None)
def tokenizer(name: str) -> Tokenizer:
    """GPT-2, or a vocabulary trained on the start of a shipped corpus (once per session)."""
    if name == "gpt2":
        return Tokenizer.gpt2(special_tokens=SPECIALS)
    text = CORPORA[name].read_text(encoding="utf-8")[:TRAIN_CHARS]
    vocab, merges = train_bpe_on_text(text, VOCAB_SIZE, special_tokens=list(SPECIALS))
    return Tokenizer(vocab, merges, SPECIALS)


@lru_cache(maxsize=None)
def tiktoken_of(name: str):
    return to_tiktoken(tokenizer(name), name)


def tiktoken_count(name: str, text: str) -> int:
    return len(tiktoken_of(name).encode(text, allowed_special="all"))


# Characters of 1 to 4 UTF-8 bytes from every class of the GPT-2 pattern, contractions, runs of
# whitespace, and special tokens whole and cut.
PIECES = [
    "a", "b", "e", "o", "the", " the", " out", "side", "don", "'", "'s", "'ll", "'ve", "s", "t", "l",
    " ", "  ", "\n", "\n\n", "\t", " \n", "1", "23", " 4", ",", ".", "!", "--", "é", "ñ", "ß", "Ж",
    "мы", "中", "文字", "。", "€", "😀", "🙂", "\u00a0", "<|endoftext|>", "<|pad|>", "<|", "|>",
    "<|endo", "ftext|>", "<|pad", "|",
]
texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)
names = st.sampled_from(list(CORPORA))


def encode(name: str, text: str) -> list[int]:
    return tokenizer(name).encode(text)


def pretoken_split(text: str) -> list[str]:
    return [p for piece, special in split_keeping_special_tokens(text, SPECIALS)
            for p in ([piece] if special else PRETOKEN_RE.findall(piece))]


any_text = st.text(max_size=24)  # any code point but surrogates: combining marks, other scripts, controls


@SETTINGS
@given(text=texts | any_text)
def test_a_hard_boundary_cuts_pretokens_and_encodings(text):
    for cut in hard_boundaries(text, SPECIALS):
        assert pretoken_split(text) == pretoken_split(text[:cut]) + pretoken_split(text[cut:]), (text, cut)
        for name in CORPORA:
            assert encode(name, text) == encode(name, text[:cut]) + encode(name, text[cut:]), (name, text, cut)


@SETTINGS
@given(text=texts, more=texts)
def test_a_hard_boundary_of_a_prefix_stays_one_whatever_follows(text, more):
    """``complete=False`` (the appender's rule): a boundary of ``text`` is one of ``text + more``."""
    whole = text + more
    for cut in iter_hard_boundaries(text, SPECIALS, complete=False):
        assert pretoken_split(whole) == pretoken_split(whole[:cut]) + pretoken_split(whole[cut:]), (text, more, cut)


RUNS = regex.compile(r"(?P<S>\s+)|(?P<L>\p{L}+)|(?P<N>\p{N}+)|(?P<P>[^\s\p{L}\p{N}]+)")


def rule_as_stated(text: str) -> list[int]:
    """Condition 1 of bpe_ref.fast.exact_counts, word for word: class changes after a non-whitespace
    character, except an apostrophe before a letter (special tokens: none)."""
    runs = list(RUNS.finditer(text))
    return [
        b.start()
        for a, b in zip(runs, runs[1:])
        if a.lastgroup != "S" and not (text[b.start() - 1] == "'" and b.lastgroup == "L")
    ]


@settings(derandomize=True, deadline=None, database=None, max_examples=300)
@given(text=texts | st.text(alphabet="ab'sl 1\n.,中😀\u00a0", max_size=30) | st.text(max_size=30))
def test_the_block_pattern_finds_the_boundaries_of_the_rule(text):
    assert hard_boundaries(text) == rule_as_stated(text)
    for start in range(len(text) + 1):
        assert list(iter_hard_boundaries(text, (), start)) == [i for i in rule_as_stated(text) if i >= start]


def test_the_rule_on_examples():
    assert hard_boundaries("it's 42!") == [2, 4, 7]  # not inside "'s", not before " 42"
    assert hard_boundaries("x  y") == [1]  # the space before y joins it: no boundary after "x "
    assert hard_boundaries("a<|pad|>b", SPECIALS) == [1, 8]  # "<|" + "pad" is inside the special token
    assert hard_boundaries("a<|pad|>b") == [1, 3, 6, 8]
    assert hard_boundaries("") == [] and hard_boundaries("a") == []


@SETTINGS
@given(name=names, text=texts | any_text)
def test_every_encoder_equals_tiktoken(name, text):
    """The counts above rest on the ids: every encoder (and the default path) gives tiktoken's ids,
    on GPT-2 and on each trained vocabulary, and decoding gives the text back."""
    tok = tokenizer(name)
    expected = tiktoken_of(name).encode(text, allowed_special="all")
    for method in (None, *ENCODE_METHODS):
        assert tok.encode(text, method=method) == expected, (name, method, text)
    assert tok.decode(expected) == text


@pytest.mark.parametrize("name", [name for name in CORPORA if name != "gpt2"])
def test_every_encoder_equals_tiktoken_on_unseen_text_of_its_corpus(name):
    text = CORPORA[name].read_text(encoding="utf-8")[TRAIN_CHARS : TRAIN_CHARS + 4_000]
    expected = tiktoken_of(name).encode(text, allowed_special="all")
    for method in (None, *ENCODE_METHODS):
        assert tokenizer(name).encode(text, method=method) == expected, (name, method)


@SETTINGS
@given(name=names, text=texts | any_text)
def test_every_interval_counts_as_its_own_text(name, text):
    tok = tokenizer(name)
    counter = tok.interval_counter(text)
    assert counter.total == len(tok.encode(text))
    for start in range(len(text) + 1):
        for end in range(start, len(text) + 1):
            expected = len(tok.encode(text[start:end]))
            assert counter.count(start, end) == expected, (name, text, start, end)
    # and tiktoken agrees on every prefix and suffix
    for i in range(len(text) + 1):
        assert counter.count(0, i) == tiktoken_count(name, text[:i]), (name, text, i)
        assert counter.count(i, len(text)) == tiktoken_count(name, text[i:]), (name, text, i)


@SETTINGS
@given(name=names, pieces=st.lists(texts, max_size=8))
def test_every_append_sequence_counts_the_whole_text(name, pieces):
    tok = tokenizer(name)
    appender = tok.appender()
    so_far = ""
    assert appender.count == 0
    for piece in pieces:
        appender.append(piece)
        so_far += piece
        assert appender.count == len(tok.encode(so_far)) == tiktoken_count(name, so_far), (name, pieces)
    assert len(appender) == len(so_far)


@SETTINGS
@given(name=names, text=texts)
def test_appending_one_character_at_a_time_counts_every_prefix(name, text):
    tok = tokenizer(name)
    appender = tok.appender()
    for end in range(1, len(text) + 1):
        appender.append(text[end - 1])
        assert appender.count == len(tok.encode(text[:end])), (name, text, end)


LONG_RUNS = [
    "中文字" * 40 + "。" + "文" * 90,  # letters of 3 bytes, one pretoken
    "a" * 150 + "b" * 70,
    "1234567890" * 15,
    "-" * 80 + "!" * 80,
    " " + "ab" * 100 + "'s" + "x" * 70,
    "мы" * 70 + " " + "😀" * 70,
    "a" * 70 + "<|pad|>" + "b" * 70 + "<|" + "c" * 70,
]


@pytest.mark.parametrize("text", LONG_RUNS, ids=range(len(LONG_RUNS)))
@pytest.mark.parametrize("name", ["gpt2", "chinese", "corpus.en"])
def test_long_pretokens_are_counted_byte_by_byte_exactly(name, text):
    tok = tokenizer(name)
    appender = tok.appender()
    for end in range(1, len(text) + 1):
        appender.append(text[end - 1])
        if end % 7 == 0 or end == len(text):
            assert appender.count == len(tok.encode(text[:end])), (name, text[:end])


def test_the_appendable_encoder_is_used_on_a_long_run():
    appender = tokenizer("gpt2").appender()
    appender.append("中" * 100)
    assert appender._run is not None
    appender.append("文")
    assert appender._run is not None and appender.count == len(tokenizer("gpt2").encode("中" * 100 + "文"))


@SETTINGS
@given(name=names, text=texts)
def test_split_at_takes_the_longest_prefix_that_fits(name, text):
    tok = tokenizer(name)
    counts = [len(tok.encode(text[:k])) for k in range(len(text) + 1)]
    for max_tokens in range(counts[-1] + 2):
        head, rest = tok.split_at(text, max_tokens)
        assert head + rest == text
        expected = max(k for k, c in enumerate(counts) if c <= max_tokens)
        assert len(head) == expected, (name, text, max_tokens)


@SETTINGS
@given(data=st.binary(max_size=40) | texts.map(str.encode))
def test_prefix_counts_and_the_appendable_encoder_count_every_byte_prefix(data):
    for name in ("gpt2", "chinese"):
        tok = tokenizer(name)
        table = tok._encoder("table")
        last = table.last_tokens(data)
        counts = prefix_token_counts([None] + [table.valid.tables.token_bytes[t] for t in last[1:]])
        appendable = AppendableEncoder(encoder=table)
        for end in range(len(data) + 1):
            expected = len(table.encode(data[:end]))
            assert counts[end] == expected, (name, data, end)
            if end:
                appendable.append(data[end - 1 : end])
                assert appendable.count == expected, (name, data, end)
        assert len(appendable) == len(data)


def test_the_appendable_encoder_keeps_a_window_only():
    table = tokenizer("gpt2")._encoder("table")
    appendable = AppendableEncoder(encoder=table)
    data = "中文".encode() * 2000
    for i in range(0, len(data), 3):
        appendable.append(data[i : i + 3])
    assert appendable.count == len(table.encode(data))
    assert len(appendable._last) <= 4 * table.valid.max_token_length + 1


def test_overlapping_special_tokens_longest_first():
    specials = ["<|a|>", "<|a|><|b|>", "|><|"]
    tok = Tokenizer.gpt2(special_tokens=specials)
    text = "x<|a|><|b|>y<|a|>z|><|w"
    counter = tok.interval_counter(text)
    for start in range(len(text) + 1):
        for end in range(start, len(text) + 1):
            assert counter.count(start, end) == len(tok.encode(text[start:end])), (start, end)
    appender = tok.appender()
    for end in range(1, len(text) + 1):
        appender.append(text[end - 1])
        assert appender.count == len(tok.encode(text[:end])), end
    assert Appender(tok.count, specials).count == 0


def test_empty_text():
    tok = tokenizer("gpt2")
    assert tok.count("") == 0
    assert tok.split_at("", 0) == ("", "") and tok.split_at("", 5) == ("", "")
    counter = tok.interval_counter("")
    assert counter.count(0, 0) == 0 and counter.total == 0 and len(counter) == 0
    appender = tok.appender()
    appender.append("")
    assert appender.count == 0


def test_split_at_does_not_look_past_the_cut():
    calls = []
    tok = tokenizer("gpt2")

    def count_text(text: str) -> int:
        calls.append(text)
        return tok.count(text)

    from bpe_ref.fast.exact_counts import split_at

    head, rest = split_at("Hello world. " * 10_000, 3, count_text, SPECIALS)
    assert head == "Hello world." and sum(map(len, calls)) < 5_000  # one batch of blocks, of 130 000 characters


def test_clear_errors():
    tok = tokenizer("gpt2")
    with pytest.raises(ValueError, match="max_tokens must be >= 0"):
        tok.split_at("abc", -1)
    with pytest.raises(TypeError, match="max_tokens must be an int"):
        tok.split_at("abc", 1.5)
    with pytest.raises(TypeError, match="split_at takes a str.*decode bytes"):
        tok.split_at(b"abc", 1)
    with pytest.raises(TypeError, match="count takes a str"):
        tok.count(None)
    counter = tok.interval_counter("abc")
    with pytest.raises(ValueError, match=r"0 <= start <= end <= len\(text\) = 3"):
        counter.count(2, 1)
    with pytest.raises(ValueError, match="len"):
        counter.count(0, 4)
    with pytest.raises(ValueError, match="len"):
        counter.count(-1, 2)
    with pytest.raises(TypeError, match="int character offset"):
        counter.count(0, 1.0)
    with pytest.raises(TypeError, match="interval_counter takes a str"):
        tok.interval_counter(["abc"])
    appender = tok.appender()
    with pytest.raises(TypeError, match="Appender.append takes a str"):
        appender.append(b"x")
    for call in (lambda: tok.count("a\ud800"), lambda: appender.append("\ud800"), lambda: tok.interval_counter("\udfff")):
        with pytest.raises(ValueError, match="surrogate"):
            call()


def test_the_count_cache_keeps_short_texts_only():
    from bpe_ref.fast.exact_counts import MAX_CACHED_TEXT, CountCache

    cache = CountCache(len, max_size=3)
    assert cache["ab"] == 2 and cache["x" * (MAX_CACHED_TEXT + 1)] == MAX_CACHED_TEXT + 1
    assert list(cache) == ["ab"]
    for text in ("c", "d", "e"):
        cache[text]
    assert len(cache) <= 3  # emptied when full


@pytest.mark.parametrize(
    "text",
    ["\n\n" + "文" * 100, "   " + "a" * 100, "\n" * 100, "x\u3000\u3000" + "中" * 90 + "，" + " " * 80],
    ids=["newlines-then-letters", "spaces-then-letters", "newlines", "ideographic-spaces"],
)
def test_the_last_pretoken_grows_through_the_appendable_encoder(text):
    tok = tokenizer("gpt2")
    appender = tok.appender()
    used = 0
    for end in range(1, len(text) + 1):
        appender.append(text[end - 1])
        used += appender._run is not None
        assert appender.count == len(tok.encode(text[:end])), (text, end)
    assert used >= 30
