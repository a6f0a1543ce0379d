"""Step 00: pretokenization with the GPT-2 pattern, special tokens, pretoken counts."""

from __future__ import annotations

from collections import Counter

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref.pretokenize import (
    DEFAULT_SPECIAL_TOKENS,
    GPT2_PATTERN,
    count_pretokens,
    pretokenize,
    split_keeping_special_tokens,
    split_on_special_tokens,
    validate_special_tokens,
)

PROPERTY = settings(derandomize=True, deadline=None, database=None, max_examples=150)

# GPT-2's pattern written out, so that an edit of the module's copy fails this test.
DESIGN_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

EOT = "<|endoftext|>"
SPECIAL_POOL = [EOT, "<|pad|>", "<s>", "[SEP]", "<|endoftext|><|endoftext|>"]
# Characters and short strings: any Unicode scalar value (no lone surrogates), and the ones the
# GPT-2 pattern treats specially: spaces, newlines, contractions, digits, emoji, combining marks.
ATOMS = st.one_of(
    st.characters(codec="utf-8"),
    st.sampled_from(list(" \n\t\r'sdmtlvre0123456789.,!?<|>") + ["😀", "👍🏽", "e\u0301", "\u0300", "한", "字", "\u00a0"]),
)


def texts_with_specials():
    """Text with special tokens from SPECIAL_POOL dropped in anywhere."""
    return st.lists(st.one_of(ATOMS, ATOMS, ATOMS, st.sampled_from(SPECIAL_POOL)), max_size=40).map("".join)


def test_pattern_is_the_design_pattern():
    assert GPT2_PATTERN == DESIGN_PATTERN


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello world!", ["Hello", " world", "!"]),
        ("It's 42.", ["It", "'s", " 42", "."]),
        ("we'll they've you're I'd", ["we", "'ll", " they", "'ve", " you", "'re", " I", "'d"]),
        ("a  b", ["a", " ", " b"]),  # the last space of a run goes with the word after it
        ("a\n\nb", ["a", "\n", "\n", "b"]),  # \s+(?!\S) backs off one character before "b"
        ("a \n b", ["a", " \n", " b"]),
        ("end   ", ["end", "   "]),
        ("x ... y", ["x", " ...", " y"]),
        ("café 日本語", ["café", " 日本語"]),
        ("", []),
    ],
)
def test_pretokenize_examples(text, expected):
    assert pretokenize(text) == expected


def test_special_tokens_are_cut_out_before_the_pattern():
    text = f"Hello world!{EOT}It's 42."
    assert pretokenize(text, special_tokens=[EOT]) == ["Hello", " world", "!", "It", "'s", " 42", "."]
    # Without the special token it is ordinary punctuation and letters.
    assert pretokenize(text) == ["Hello", " world", "!<|", "endoftext", "|>", "It", "'s", " 42", "."]


def test_words_on_both_sides_of_a_special_token_stay_apart():
    # "a" and "b" would be one pretoken "ab" if the special token were merely deleted.
    assert count_pretokens(f"a{EOT}b", [EOT]) == {b"a": 1, b"b": 1}
    assert count_pretokens(f"x {EOT} y", [EOT]) == {b"x": 1, b" ": 1, b" y": 1}


def test_longest_special_token_wins_where_they_overlap():
    double = EOT + EOT
    pieces = list(split_keeping_special_tokens(f"a{double}b{EOT}c", [EOT, double]))
    assert pieces == [("a", False), (double, True), ("b", False), (EOT, True), ("c", False)]
    assert split_on_special_tokens(f"a{double}b", [EOT, double]) == ["a", "b"]


def test_count_pretokens_example_and_default_special_token():
    assert count_pretokens("low low low lower", special_tokens=()) == {b"low": 1, b" low": 2, b" lower": 1}
    assert DEFAULT_SPECIAL_TOKENS == (EOT,)
    assert count_pretokens(f"hi{EOT}hi") == {b"hi": 2}


def test_count_pretokens_returns_utf8_bytes():
    assert count_pretokens("naïve 😀", special_tokens=()) == {"naïve".encode(): 1, " 😀".encode(): 1}


@PROPERTY
@given(texts_with_specials(), st.lists(st.sampled_from(SPECIAL_POOL), unique=True, max_size=3))
def test_pretokens_partition_the_text_between_special_tokens(text, special_tokens):
    """The pretokens of each piece concatenate back to the piece: nothing lost, nothing added."""
    pieces = split_on_special_tokens(text, special_tokens)
    tokens = pretokenize(text, special_tokens)
    assert "".join(tokens) == "".join(pieces)
    for piece in pieces:
        assert "".join(regex.findall(DESIGN_PATTERN, piece)) == piece
        for special in special_tokens:
            assert special not in piece
    # Special tokens are cut out, in order, and nothing else is.
    kept = list(split_keeping_special_tokens(text, special_tokens))
    assert "".join(piece for piece, _ in kept) == text
    assert all(piece in special_tokens for piece, is_special in kept if is_special)
    assert all(piece for piece, _ in kept)


@PROPERTY
@given(texts_with_specials(), st.lists(st.sampled_from(SPECIAL_POOL), unique=True, max_size=3))
def test_count_pretokens_counts_the_pretokens(text, special_tokens):
    expected = Counter(token.encode("utf-8") for token in pretokenize(text, special_tokens))
    assert count_pretokens(text, special_tokens) == dict(expected)


def test_validate_special_tokens_accepts_sequences_in_order():
    assert validate_special_tokens(None) == ()
    assert validate_special_tokens([]) == ()
    assert validate_special_tokens(["<b>", "<a>"]) == ("<b>", "<a>")
    assert validate_special_tokens(("<a>",)) == ("<a>",)


@pytest.mark.parametrize("bad", [EOT, EOT.encode()])
def test_bare_string_as_special_tokens_is_a_type_error(bad):
    with pytest.raises(TypeError, match=r"special_tokens must be a sequence of strings"):
        validate_special_tokens(bad)
    with pytest.raises(TypeError, match=r"special_tokens must be a sequence"):
        count_pretokens("text", bad)


def test_special_token_errors():
    with pytest.raises(TypeError, match=r"special tokens must be str"):
        validate_special_tokens([b"<a>"])
    with pytest.raises(ValueError, match=r"empty string"):
        validate_special_tokens([""])
    with pytest.raises(ValueError, match=r"more than once.*<a>"):
        validate_special_tokens(["<a>", "<b>", "<a>"])
    with pytest.raises(ValueError, match=r"lone surrogate U\+D800"):
        validate_special_tokens(["<\ud800>"])


def test_lone_surrogate_in_text_is_a_value_error():
    with pytest.raises(ValueError, match=r"lone surrogate U\+DC00 at index 3"):
        count_pretokens("abc\udc00", special_tokens=())
