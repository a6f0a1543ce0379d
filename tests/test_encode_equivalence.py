"""On vocabularies trained by bpe_ref: the four encoders agree, tokens encode to themselves, and
decode(encode(s)) == s; plus the pieces the encoders are built from."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_ref.encode
from bpe_ref import ENCODE_METHODS, Tokenizer, train_bpe_on_text
from bpe_ref.data_files import CORPUS_EN, TINYSTORIES_SAMPLE
from bpe_ref.encode import make_encoder
from bpe_ref.encode.common import MergeTables
from bpe_ref.encode.step08_valid_tokens import ValidTokens, prefix_trie, suffix_trie
from bpe_ref.fast.encoder import (
    SEPARATOR,
    ValidOnDemand,
    ascii_pretoken_pattern,
    joining_byte_pairs,
    piece_encoder,
    piece_pattern,
    segment_pattern,
    whitespace_chars,
)
from bpe_ref.pretokenize import PRETOKEN_RE

SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=60)
SPECIALS = ["<|endoftext|>", "<|pad|>"]
METHODS = [None, *ENCODE_METHODS]

# Corpora with a small alphabet, so training makes long tokens and tokens overlap a lot.
corpus_words = st.lists(st.text(alphabet="abcab \n", min_size=1, max_size=12), min_size=1, max_size=40)
corpus = st.one_of(
    corpus_words.map(" ".join),
    st.text(alphabet="aab", min_size=1, max_size=300),  # long runs: one long pretoken
    st.text(alphabet="ab ,.\n\u00e9\u4e2d😀", max_size=200),  # multi-byte characters
)


def tokenizer_for(corpus_text: str, vocab_size: int = 330) -> Tokenizer:
    vocab, merges = train_bpe_on_text(corpus_text, vocab_size, special_tokens=SPECIALS)
    return Tokenizer(vocab, merges, SPECIALS)


def unique_bytes(tok: Tokenizer) -> bool:
    return not tok._tables.duplicate_bytes()


@SETTINGS
@given(training=corpus, text=st.text(alphabet="abc \n\u00e9\u4e2d😀<|endoftx>", max_size=120))
def test_encoders_agree_on_trained_vocabularies(training, text):
    tok = tokenizer_for(training)
    reference = tok.encode(text, method="heap")
    for method in METHODS:
        if method in ("backtrack", "table") and not unique_bytes(tok):
            with pytest.raises(ValueError, match="unique"):
                tok.encode(text, method=method)
            continue
        assert tok.encode(text, method=method) == reference, (method, training, text)
    assert tok.decode(reference) == text


@SETTINGS
@given(training=corpus)
def test_every_token_encodes_to_itself(training):
    tok = tokenizer_for(training)
    if not unique_bytes(tok):
        return  # a token whose bytes another token also has cannot be "the" encoding of them
    for token_id in range(256 + len(SPECIALS), len(tok)):
        token = tok.token_bytes(token_id)
        for method in ENCODE_METHODS:
            # Through the encoder directly: a merged token need not be a whole pretoken.
            assert tok._encoder(method).encode(token) == [token_id], (method, token)


@SETTINGS
@given(text=st.text(max_size=200))
def test_round_trip_any_text(text):
    tok = _english_tokenizer()
    for method in (None, "heap", "backtrack"):
        assert tok.decode(tok.encode(text, method=method)) == text


_ENGLISH: list[Tokenizer] = []


def _english_tokenizer() -> Tokenizer:
    if not _ENGLISH:
        _ENGLISH.append(tokenizer_for(CORPUS_EN.read_text(encoding="utf-8"), 800))
    return _ENGLISH[0]


def test_trained_on_tinystories_all_encoders_agree():
    text = TINYSTORIES_SAMPLE.read_text(encoding="utf-8")[:200_000]
    vocab, merges = train_bpe_on_text(text, 1000, special_tokens=["<|endoftext|>"])
    tok = Tokenizer(vocab, merges, ["<|endoftext|>"])
    sample = text[:20_000]
    reference = tok.encode(sample)
    for method in ENCODE_METHODS:
        assert tok.encode(sample, method=method) == reference, method
    assert tok.decode(reference) == sample


# ---------------------------------------------------------------- a vocabulary with repeated bytes

def duplicate_vocab() -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Two merges make b"abc": (a, bc) and (ab, c); BPE can do this, on different words."""
    vocab = {i: bytes([i]) for i in range(256)}
    merges = [(b"b", b"c"), (b"a", b"bc"), (b"a", b"b"), (b"ab", b"c"), (b"abc", b"d")]
    for i, (left, right) in enumerate(merges):
        vocab[256 + i] = left + right
    return vocab, merges


def test_repeated_bytes_work_with_naive_and_heap_and_are_refused_by_the_others():
    tok = Tokenizer(*duplicate_vocab())
    assert tok.encode("abc") == [257]  # (b, c) first, then (a, bc): the first b"abc"
    for text in ["abcd", "abc abcd xabcd", "ababcbc"]:
        assert tok.encode(text, method="naive") == tok.encode(text, method="heap") == tok.encode(text)
    for method in ("backtrack", "table"):
        with pytest.raises(ValueError, match=r"unique.*b'abc'.*method='heap'"):
            tok.encode("abc", method=method)
    assert tok.decode([257, 259]) == "abcabc"


# ---------------------------------------------------------------- the building blocks


def test_segments_pretokenize_like_the_whole_text():
    # Why the default path may cache segments: their pretokens are the text's pretokens.
    @SETTINGS
    @given(st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x85\xa0\u3000ab1'!é中😀", max_size=80) | st.text(max_size=80))
    def check(text):
        pieces = [p for segment in segment_pattern().findall(text) for p in PRETOKEN_RE.findall(segment)]
        assert pieces == PRETOKEN_RE.findall(text)
        assert "".join(segment_pattern().findall(text)) == text

    check()


def test_ascii_pattern_pretokenizes_ascii_like_the_gpt2_pattern():
    # The default path splits ASCII segments with a copy of the GPT-2 pattern that `re` runs.
    every_ascii = "".join(map(chr, range(128)))
    findall = ascii_pretoken_pattern().findall

    @SETTINGS
    @given(st.text(alphabet=every_ascii, max_size=80) | st.text(alphabet=" \t\n\x0b\x1cab1'!", max_size=40))
    def check(text):
        assert findall(text) == PRETOKEN_RE.findall(text)

    check()
    assert findall(every_ascii * 2) == PRETOKEN_RE.findall(every_ascii * 2)


def test_an_ascii_pretoken_is_its_own_only_pretoken():
    # The default path caches ASCII pretokens with the segments, computed as segments: a
    # pretoken must split into just itself, or its ids would be those of its parts.
    findall = ascii_pretoken_pattern().findall

    @SETTINGS
    @given(st.text(alphabet="".join(map(chr, range(128))), max_size=80) | st.text(alphabet=" \n'sdlvert!?a1", max_size=40))
    def check(text):
        for pretoken in findall(text):
            assert findall(pretoken) == [pretoken], (text, pretoken)

    check()


def test_short_pretokens_that_are_not_ascii_wait_for_the_piece_pattern():
    tok = Tokenizer.gpt2()
    fast = tok._fast_encoder()
    short = "He said “yes” — twice’ and “no”.\n"  # no pretoken longer than SHORT_PRETOKEN characters
    assert tok.encode(short) == tok.encode(short, method="heap")
    assert fast._cut is None  # English with a few quotes never builds the pattern
    longer = short + " Когда-то жил-был кот. 中文的句子"
    assert tok.encode(longer) == tok.encode(longer, method="heap")
    assert fast._cut is not None
    assert tok.encode(short) == tok.encode(short, method="heap")  # now cut, the same ids


def test_whitespace_chars_are_the_patterns_whitespace():
    import regex

    chars = whitespace_chars()
    assert " " in chars and "\n" in chars and "\u3000" in chars
    assert "\x1c" not in chars  # str.isspace() says yes; the GPT-2 pattern's \s says no
    assert all(PRETOKEN_RE.fullmatch(c * 3) for c in chars)
    every_char = "".join(map(chr, range(0x110000)))
    assert chars == "".join(regex.findall(r"\s", every_char))  # written out, asked of regex here


# Corpora of many scripts, so that training makes tokens that span two characters.
SCRIPTS = "ab \u00e9\u00df\u0436\u4e2d\u6587\u570b\U0001f600,"
many_scripts = st.text(alphabet=SCRIPTS, min_size=1, max_size=300)


@SETTINGS
@given(training=many_scripts, text=st.text(alphabet=SCRIPTS + "x\u0301", max_size=80))
def test_pieces_encode_like_their_pretoken(training, text):
    # Why the default path may cut a pretoken where no token holds the two bytes that meet.
    tok = tokenizer_for(training)
    encode = tok._encoder("heap").encode
    cut = piece_pattern(tok.merges).findall
    pairs = joining_byte_pairs(tok.merges)
    assert pairs == {p for token in tok._tables.token_bytes for p in zip(token, token[1:])}
    pretokens = PRETOKEN_RE.findall(text)
    if not pretokens:
        return
    pieces = cut(SEPARATOR.join(p.encode() for p in pretokens))
    assert b"".join(pieces) == "".join(pretokens).encode()
    assert all(SEPARATOR not in piece for piece in pieces)
    at = 0
    for pretoken in pretokens:
        data, own = pretoken.encode(), []
        while len(b"".join(own)) < len(data):
            own.append(pieces[at])
            at += 1
        assert b"".join(own) == data  # no piece crosses a pretoken boundary
        for left, right in zip(own, own[1:]):
            assert (left[-1], right[0]) not in pairs  # each cut is where no token spans
        assert [i for piece in own for i in encode(piece)] == encode(data), (training, pretoken, own)


@SETTINGS
@given(training=corpus, data=st.binary(max_size=60) | st.text(alphabet="ab", max_size=60).map(str.encode))
def test_piece_encoder_is_the_heap_encoder(training, data):
    # Short pieces go through a flat list (tiktoken's loop), long ones through the heap.
    tok = tokenizer_for(training)
    assert list(piece_encoder(tok._tables)(data)) == tok._encoder("heap").encode(data)


@SETTINGS
@given(training=corpus, data=st.data())
def test_piece_encoder_on_whole_tokens_is_the_heap_encoder(training, data):
    # A piece that is a token's bytes takes the valid-token shortcut when the token is valid.
    tok = tokenizer_for(training)
    tables = tok._tables
    for token in data.draw(st.lists(st.integers(0, tables.num_tokens - 1), max_size=20)):
        piece = tables.token_bytes[token]
        assert list(piece_encoder(tables)(piece)) == tok._encoder("heap").encode(piece), piece


@SETTINGS
@given(training=corpus, order=st.randoms(use_true_random=False))
def test_valid_on_demand_decides_as_valid_tokens(training, order):
    # Asked one token at a time, in any order, it decides each as ValidTokens does all at once.
    tables = tokenizer_for(training)._tables
    on_demand = ValidOnDemand(tables)
    tokens = list(range(tables.num_tokens))
    order.shuffle(tokens)
    if not tables.unique_bytes():
        assert all(on_demand.token_with_bytes(tables.token_bytes[t]) is None for t in tokens)
        return
    valid = ValidTokens(tables).valid
    for token in tokens:
        assert on_demand.is_valid(token) == valid[token], (tables.token_bytes[token], valid[token])
        expected = token if valid[token] else None
        assert on_demand.token_with_bytes(tables.token_bytes[token]) == expected
    # Many at once (a first call's new pieces): a few, then all, decided as one walk each.
    together = ValidOnDemand(tables)
    together.decide(tokens[:5])
    assert all(together.known[t] == valid[t] for t in tokens[:5])
    together.decide(tokens)
    assert together.known == [bool(v) for v in valid]


def test_valid_on_demand_on_gpt2_and_on_a_deep_merge_tree():
    tables = Tokenizer.gpt2()._tables
    on_demand, valid = ValidOnDemand(tables), ValidTokens(tables).valid
    assert [on_demand.is_valid(t) for t in reversed(range(tables.num_tokens))] == valid[::-1]
    # "a" * 3000, one merge per length: a tree 3000 deep is decided without recursion (BPE
    # encodes "aaaa" as "aa" + "aa", so only the first two are valid)
    merges = [(b"a" * n, b"a") for n in range(1, 3000)]
    deep = MergeTables.from_ranks({pair: rank for rank, pair in enumerate(merges)})
    assert ValidOnDemand(deep).token_with_bytes(b"a" * 3000) is None
    assert [ValidOnDemand(deep).is_valid(t) for t in range(256, 260)] == ValidTokens(deep).valid[256:260] \
        == [True, True, False, False]
    together = ValidOnDemand(deep)
    together.decide([deep.num_tokens - 1])  # the whole tree below it, without recursion
    assert together.known[256:] == ValidTokens(deep).valid[256:]
    together = ValidOnDemand(tables)
    together.decide(range(tables.num_tokens))
    assert together.known == valid


@pytest.mark.parametrize("method", METHODS)
def test_a_token_that_does_not_encode_to_itself_is_not_a_shortcut(method):
    # (b, c) comes before (a, b), so "abc" is a + bc: the token "abc" that (ab, c) makes is in the
    # vocabulary but not valid, and the default path must not answer it for the word "abc".
    merges = [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")]
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"bc", 257: b"ab", 258: b"abc"}
    tok = Tokenizer(vocab, merges, method=method)
    assert tok.encode("abc abc") == [ord("a"), 256, ord(" "), ord("a"), 256]
    assert tok.count("abc") == 2


@lru_cache(maxsize=None)
def gpt2_with(special_tokens: tuple[str, ...]) -> Tokenizer:
    return Tokenizer.gpt2(special_tokens=special_tokens)


# Special tokens next to whitespace, inside words, overlapping; with and without whitespace in them
# (the default path cuts a whole text into segments first only when no special token holds any).
special_text = st.lists(st.sampled_from(["a", "b", "ab", " ", "  ", "\n", "\n\n", "é", "!", "<|eot|>", "<|a b|>",
                                         "<|a\nb|>", "<|eot|><|eot|>", "<|", "|>", "<|eot", "eot|>"]),
                        max_size=30).map("".join)


@SETTINGS
@given(text=special_text, special_tokens=st.sampled_from([("<|eot|>",), ("<|eot|>", "<|eot|><|eot|>"),
                                                          ("<|eot|>", "<|a b|>"), ("<|a\nb|>",), ()]))
def test_the_default_path_cuts_special_tokens_as_every_encoder(text, special_tokens):
    tok = gpt2_with(special_tokens)
    expected = tok.encode(text, method="heap")
    tok.clear_cache()
    assert tok.encode(text) == expected  # cold: a segment holding a special token is met first here
    assert tok.encode(text) == expected and tok.count(text) == len(expected)  # warm


def small_tables() -> MergeTables:
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc", 259: b"cd"}
    return MergeTables(vocab, [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c"), (b"c", b"d")])


def test_merge_tables_number_tokens_by_rank():
    tables = small_tables()
    a, b, c, d = map(ord, "abcd")
    assert tables.pair_to_token == {(a, b): 256, (b, c): 257, (256, c): 258, (c, d): 259}
    assert tables.token_ids[256:] == [256, 257, 258, 259]
    assert tables.merge_parts == [(a, b), (b, c), (256, c), (c, d)]


def test_compatibility_of_token_pairs():
    valid = ValidTokens(small_tables())
    a, b, c, d = map(ord, "abcd")
    ab, bc, abc, cd = 256, 257, 258, 259
    assert valid.compatible(abc, d)  # "abcd" -> [ab, c, d] -> [abc, d]: (ab, c) has rank 2 < 3 of (c, d)
    assert not valid.compatible(a, b)  # (a, b) would merge
    assert not valid.compatible(a, bc)  # "abc": (a, b) is merged before (b, c)
    assert not valid.compatible(ab, cd)  # "abcd": after (a, b), (ab, c) of rank 2 beats (c, d) of rank 3
    assert all(valid.valid)


def test_tries():
    assert prefix_trie({b"a": 1, b"abc": 2}) == {b"a": 1, b"ab": 1, b"abc": 2}
    assert suffix_trie({b"c": 1, b"abc": 2}) == {b"c": 1, b"bc": -1, b"abc": 2}


@pytest.mark.parametrize("module", ["common", "step06_naive", "step07_heap"])
def test_steps_06_and_07_do_not_depend_on_step_08(module):
    source = (Path(bpe_ref.encode.__file__).parent / f"{module}.py").read_text(encoding="utf-8")
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert not [name for name in imported if "step08" in name]


@pytest.mark.parametrize("method", ENCODE_METHODS)
def test_encoders_on_a_tiny_vocabulary(method):
    tables = small_tables()
    encoder = make_encoder(method, tables)
    assert encoder.encode(b"") == []
    assert encoder.encode(b"abcd") == [258, ord("d")]
    assert encoder.encode(b"bcd") == [257, ord("d")]
    assert encoder.encode(b"cdab") == [259, 256]
    assert encoder.encode(b"abcbcd") == [258, 257, ord("d")]
