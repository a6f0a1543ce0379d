"""Step 08's functions (lab 08's language): compatible pairs, the backtracking encoder, the table of
last tokens and the prefix counts, on bytes tokens and lab 06's ranks; they agree with step 06's
encoder (the definition), with ValidTokens' tree walk, with the Tokenizer and with tiktoken."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref.encode.common import MergeTables
from bpe_ref.encode.step06_naive import encode_pretoken, merge_ranks
from bpe_ref.encode.step08_backtrack import backtrack_encode
from bpe_ref.encode.step08_prefix_counts import prefix_token_counts
from bpe_ref.encode.step08_table import last_tokens
from bpe_ref.encode.step08_valid_tokens import ValidTokens, compatible
from bpe_ref.train.step01_naive import train

SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=40)


@pytest.fixture(scope="module")
def gpt2_ranks(gpt2_tokenizer):
    return merge_ranks(gpt2_tokenizer.merges)


@st.composite
def word_and_ranks(draw):
    corpus = draw(st.dictionaries(st.text(alphabet="abcé ", min_size=1, max_size=8).map(str.encode),
                                  st.integers(1, 6), min_size=1, max_size=6))
    ranks = merge_ranks(train(corpus, draw(st.integers(0, 14))))
    word = draw(st.sampled_from(sorted(corpus)) | st.text(alphabet="abcé ", max_size=12).map(str.encode))
    return word, ranks


def test_compatible_is_the_tree_walk_of_valid_tokens():
    ranks = merge_ranks([(b"a", b"a"), (b"b", b"c"), (b"a", b"bc"), (b"aa", b"a"), (b"abc", b"a"), (b"c", b"a")])
    tables = MergeTables.from_ranks(ranks)
    valid = ValidTokens(tables)
    tokens = sorted(valid.token_of, key=valid.token_of.__getitem__)
    for left in tokens:
        for right in tokens:
            assert compatible(left, right, ranks) == valid.compatible(valid.token_of[left], valid.token_of[right]), (
                left, right)


def test_a_token_that_does_not_encode_to_itself():
    # (b, c) is learned before (a, b): "abc" encodes to a + bc, so the token "ab" + "c" is never made
    ranks = merge_ranks([(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")])
    assert encode_pretoken(b"abc", ranks) == [b"a", b"bc"]
    assert not compatible(b"ab", b"c", ranks)
    assert backtrack_encode(b"abc", ranks) == [b"a", b"bc"]
    assert last_tokens(b"abc", ranks) == [None, b"a", b"ab", b"bc"]


@given(word_and_ranks())
@SETTINGS
def test_backtrack_and_table_equal_the_definition(case):
    word, ranks = case
    expected = encode_pretoken(word, ranks)
    assert backtrack_encode(word, ranks) == expected
    last = last_tokens(word, ranks)
    assert len(last) == len(word) + 1 and last[0] is None
    counts = prefix_token_counts(last)
    for end in range(1, len(word) + 1):
        prefix = encode_pretoken(word[:end], ranks)
        assert last[end] == prefix[-1]
        assert counts[end] == len(prefix)


@pytest.mark.parametrize("piece", [b" antidisestablishmentarianism", b"a" * 200, b"1234567890" * 20,
                                   " naïve".encode(), " \U0001f642".encode()])
def test_gpt2_pieces_against_tiktoken(piece, gpt2_tokenizer, gpt2_tiktoken, gpt2_ranks):
    from bpe_ref.course.checks.lab06_encode_decode import ranks_for

    expected = [gpt2_tokenizer.vocab[i] for i in gpt2_tiktoken._encode_single_piece(piece)]
    ranks = ranks_for(piece, gpt2_ranks)  # the merges that can apply here: the same tokens as all 50,000
    tokens = backtrack_encode(piece, ranks)
    assert tokens == expected == encode_pretoken(piece, ranks)
    assert prefix_token_counts(last_tokens(piece, ranks))[-1] == len(tokens)
