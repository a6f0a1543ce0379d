"""Step 07's functions (lab 07's language): the first heap, the pop loop with stale entries, the
heap encoder on bytes tokens; they agree with step 06's encoder, the Tokenizer and tiktoken."""

from __future__ import annotations

import heapq

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref import Tokenizer, train_bpe_on_text
from bpe_ref.course.interop import to_tiktoken
from bpe_ref.encode.step06_naive import encode_pretoken, merge_ranks
from bpe_ref.encode.step07_heap import first_heap, heap_encode, merge_all
from bpe_ref.pretokenize import PRETOKEN_RE

SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=60)


def test_first_heap_is_a_heap_of_rank_and_position():
    ranks = merge_ranks([(b"b", b"c"), (b"a", b"b")])
    heap = first_heap([b"a", b"b", b"c", b"a", b"b"], ranks)
    assert sorted(heap) == [(0, 1), (1, 0), (1, 3)]
    assert heap[0] == (0, 1)
    assert first_heap([], ranks) == [] and first_heap([b"a"], ranks) == []


def test_merge_all_self_overlap_and_leftmost_on_equal_rank():
    ranks = merge_ranks([(b"a", b"a")])
    for n, expected in [(3, [b"aa", b"a"]), (4, [b"aa", b"aa"]), (5, [b"aa", b"aa", b"a"])]:
        parts = [b"a"] * n
        assert merge_all(parts, ranks, first_heap(parts, ranks)) == expected


def test_merge_all_skips_stale_entries_and_empties_the_heap():
    ranks = merge_ranks([(b"a", b"b"), (b"b", b"c")])
    parts = [b"a", b"b", b"c"]
    heap = first_heap(parts, ranks) * 2  # every entry twice: the copies are stale once used
    heapq.heapify(heap)
    assert merge_all(parts, ranks, heap) == [b"ab", b"c"]
    assert heap == [] and parts == [b"a", b"b", b"c"]  # the heap is consumed, the parts are not touched


def test_heap_encode_examples():
    ranks = merge_ranks([(b"o", b"r"), (b"w", b"or"), (b"or", b"k")])
    assert heap_encode(b"work", ranks) == [b"wor", b"k"]
    assert heap_encode(b"", ranks) == [] and heap_encode(b"x", ranks) == [b"x"]
    # A merge made late can join tokens made early: (aa, aa) after (a, a)
    ranks = merge_ranks([(b"a", b"a"), (b"aa", b"aa"), (b"aa", b"a")])
    assert heap_encode(b"aaaaaaa", ranks) == [b"aaaa", b"aaa"]


@st.composite
def corpora_and_texts(draw):
    alphabet = draw(st.sampled_from(["ab", "abc", "ab c", "aé b"]))
    corpus = draw(st.text(alphabet=alphabet, min_size=1, max_size=60))
    vocab_size = 256 + draw(st.integers(0, 25))
    text = draw(st.text(alphabet=alphabet, max_size=40))
    return corpus, vocab_size, text


@SETTINGS
@given(corpora_and_texts())
def test_heap_encode_equals_step06_and_the_tokenizer(case):
    corpus, vocab_size, text = case
    vocab, merges = train_bpe_on_text(corpus, vocab_size, special_tokens=[])
    ranks = merge_ranks(merges)
    tokenizer = Tokenizer(vocab, merges)
    ids_of = {token: i for i, token in vocab.items()}
    for pretoken in PRETOKEN_RE.findall(text):
        data = pretoken.encode()
        tokens = heap_encode(data, ranks)
        assert tokens == encode_pretoken(data, ranks)
        assert [ids_of[t] for t in tokens] == tokenizer.encode(pretoken, method="heap")


def test_heap_encode_equals_tiktoken_on_long_gpt2_pieces():
    tokenizer = Tokenizer.gpt2()
    encoding = to_tiktoken(tokenizer, name="gpt2")
    vocab = {i: tokenizer.token_bytes(i) for i in range(50257)}
    ranks = merge_ranks(tokenizer.merges)
    ids_of = {token: i for i, token in vocab.items()}
    for piece in ["a" * 257, "1234567890" * 40, " " + "supercalifragilistic" * 12]:
        tokens = heap_encode(piece.encode(), ranks)
        assert [ids_of[t] for t in tokens] == encoding.encode_ordinary(piece)
