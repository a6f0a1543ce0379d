"""The default path with vocabularies trained on each language (issue 24): pieces cut between
characters no token spans (``CharJoins``), and step 08's search for valid tokens on each piece,
give the ids of the heap encoder and of tiktoken, on generated text and on each shipped corpus's
unseen text."""

from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref import Tokenizer, train_bpe_on_text
from bpe_ref.course.interop import to_tiktoken
from bpe_ref.data_files import CHINESE_NOVEL, RUSSIAN_STORIES, SPANISH_NOVEL, TINYSTORIES_SAMPLE
from bpe_ref.fast.encoder import (BULK_PIECES, BULK_TEXT, CUT_MARKS, LONG_SEGMENT, MAX_BULK_PIECE, MAX_CACHED_SEGMENT,
                                 NOT_AFTER_A_CUT, CharJoins, ValidOnDemand, _uncut, ascii_pretoken_pattern, bulk_merger,
                                 char_cutter, longest_valid_encoder, space_is_a_cut)
from bpe_ref.pretokenize import PRETOKEN_RE

from sampling import EXHAUSTIVE

SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=60)
SPECIALS = ["<|endoftext|>"]
# Many scripts, so that training makes tokens that span characters, and parts of characters.
SCRIPTS = "ab \u00e9\u00df\u0436\u0430\u4e2d\u6587\u570b\u4e86\U0001f600,\u3002"
many_scripts = st.text(alphabet=SCRIPTS, min_size=1, max_size=300)


def tokenizer_for(corpus_text: str, vocab_size: int = 330) -> Tokenizer:
    vocab, merges = train_bpe_on_text(corpus_text, vocab_size, special_tokens=SPECIALS)
    return Tokenizer(vocab, merges, SPECIALS)


@SETTINGS
@given(training=many_scripts, text=st.text(alphabet=SCRIPTS + "x\u0301\u0431", max_size=200))
def test_char_pieces_encode_like_their_pretoken(training, text):
    # Why a pretoken may be cut where no token spans the two characters: BPE on the pieces, one
    # after the other, is BPE on the pretoken. Both paths of the cutter (short, and NumPy's).
    tok = tokenizer_for(training)
    heap = tok._encoder("heap").encode
    joins = CharJoins(tok._tables.token_bytes)
    cut = char_cutter(joins)
    pretokens = PRETOKEN_RE.findall(text)
    if not pretokens:
        return
    for segment in (text, text * (LONG_SEGMENT // max(len(text), 1) + 2)):
        found = PRETOKEN_RE.findall(segment)
        pieces = cut(segment, found)
        assert "".join(pieces) == segment
        ends, at = set(), 0
        for pretoken in found:
            at += len(pretoken)
            ends.add(at)
        at = 0
        for left, right in zip(pieces, pieces[1:]):
            at += len(left)
            if at not in ends:  # a cut inside a pretoken: no token may span it
                assert not joins.joined(left[-1], right[0]), (left, right)
        # the ids of the pieces, each alone, are the ids of the pretokens
        assert [i for p in pieces for i in heap(p.encode())] == [i for p in found for i in heap(p.encode())]


@SETTINGS
@given(training=many_scripts, data=st.binary(max_size=80) | st.text(alphabet=SCRIPTS, max_size=60).map(str.encode))
def test_longest_valid_search_is_the_heap_encoder(training, data):
    tok = tokenizer_for(training)
    tables = tok._tables
    if not tables.unique_bytes():
        return
    search = longest_valid_encoder(tables, ValidOnDemand(tables))
    want = tok._encoder("heap").encode(data)
    assert [tables.token_ids[t] for t in search(data)] == want
    assert [tables.token_ids[t] for t in search(data)] == want  # again: the suffixes remembered
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    # The search over characters (tokens of whole characters, else the bytes): the same ids.
    assert [tables.token_ids[t] for t in search.text(text)] == want
    tiny = longest_valid_encoder(tables, ValidOnDemand(tables), max_pairs=1)  # caches forgotten at once
    assert [tables.token_ids[t] for t in tiny.text(text)] == want
    assert [tables.token_ids[t] for t in tiny(data)] == want


@SETTINGS
@given(training=many_scripts, pieces=st.lists(st.binary(max_size=40) | st.text(alphabet=SCRIPTS, max_size=30).map(str.encode)))
def test_bulk_merger_is_the_heap_encoder(training, pieces):
    # All pieces merged at once, round by round (each its lowest pair, leftmost first where they
    # overlap): the ids of the heap encoder on each piece alone. Repeated pieces, empty ones, and
    # runs of one byte (the overlapping pairs of "a a a") included.
    tok = tokenizer_for(training)
    heap = tok._encoder("heap").encode
    pieces = pieces + [b"aaaaa", b"", pieces[0] if pieces else b"ab", "中中中中".encode()]
    assert bulk_merger(tok._tables)(pieces) == [tuple(heap(piece)) for piece in pieces]


def test_bulk_merger_with_repeated_token_bytes():
    # Two merges that make the same bytes ((a, bc) and (ab, c)): the merge tables' pairs decide, as
    # for every other encoder.
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"bc", 257: b"ab", 258: b"abc", 259: b"abc"}
    tok = Tokenizer(vocab, [(b"b", b"c"), (b"a", b"b"), (b"a", b"bc"), (b"ab", b"c")], [])
    pieces = [b"abc", b"abcabc", b"aabcc", b"cba"]
    heap = tok._encoder("heap").encode
    assert bulk_merger(tok._tables)(pieces) == [tuple(heap(piece)) for piece in pieces]


def test_the_bulk_path_merges_many_new_pieces_at_once():
    # Enough new words in a long text: the bulk path merges them in one call (and gets the ids of
    # the heap encoder); a text with fewer is encoded piece by piece.
    trained_tok, unseen = trained("es")
    for text, merged in ((unseen, False), ((unseen * (BULK_TEXT // len(unseen) + 2))[: BULK_TEXT + 100], True)):
        tok = Tokenizer(dict(trained_tok.vocab), list(trained_tok.merges), SPECIALS)  # every cache empty
        fast = tok._fast_encoder()
        fast._cut = _uncut  # words: pretokens are pieces
        assert tok.encode(text) == tok.encode(text, method="heap")
        assert (fast._merge_all is not None) == merged
    assert len(set(PRETOKEN_RE.findall(text))) >= BULK_PIECES
    # Chinese, cut between characters: the new pieces of the whole text are merged at once too.
    trained_tok, _ = trained("zh")
    text = CORPORA["zh"].read_text(encoding="utf-8")[TRAIN_CHARS["zh"] :][: BULK_TEXT + 5000]
    tok = Tokenizer(dict(trained_tok.vocab), list(trained_tok.merges), SPECIALS)
    assert tok.encode(text) == to_tiktoken(tok).encode(text, allowed_special="all")
    fast = tok._fast_encoder()
    assert fast._cut_pieces is fast.char_pieces and fast._merge_all is not None



def test_the_bulk_path_encodes_the_pieces_too_long_to_merge_together():
    # New pieces merged in bulk, and a few longer than MAX_BULK_PIECE among them: those are encoded
    # one by one and stored with the others; the ids are the heap encoder's either way.
    trained_tok, unseen = trained("es")
    words = unseen.split()
    longest = "".join(filter(str.isalpha, unseen[:150]))  # one pretoken of letters, over MAX_BULK_PIECE bytes (and kept)
    text = " ".join([*words, longest, longest[::-1]])
    text = (text * (BULK_TEXT // len(text) + 2))[: BULK_TEXT + 100]
    tok = Tokenizer(dict(trained_tok.vocab), list(trained_tok.merges), SPECIALS)
    fast = tok._fast_encoder()
    fast._cut = _uncut
    assert tok.encode(text) == tok.encode(text, method="heap")
    assert fast._merge_all is not None
    assert any(len(piece.encode()) > MAX_BULK_PIECE for piece in fast.char_pieces)


def test_a_new_piece_too_long_to_keep_is_encoded_once():
    # The bulk path encodes the new pieces it can keep together; one longer than the cache keeps
    # is left to the lookup, not encoded twice (once together, once when looked up).
    trained_tok, unseen = trained("es")
    tok = Tokenizer(dict(trained_tok.vocab), list(trained_tok.merges), SPECIALS)
    fast = tok._fast_encoder()
    fast._cut = _uncut
    encode_text, calls = fast._encode_piece.text, []

    def counted(piece):
        calls.append(piece)
        return encode_text(piece)

    fast._encode_piece.text = fast.char_pieces.compute = counted
    long = " " + "".join(filter(str.isalpha, unseen))[:300]  # one pretoken, too long to keep
    text = unseen + long + "\n" + unseen[: BULK_TEXT - len(unseen) + 100]  # long: the bulk path
    assert len(text) > BULK_TEXT and tok.encode(text) == tok.encode(text, method="heap")
    assert len(long) > fast.char_pieces.max_key and calls.count(long) == 1

@settings(SETTINGS, max_examples=15 if EXHAUSTIVE else 6)  # each encodes 200,000 characters with the heap encoder
@given(training=many_scripts, text=st.text(alphabet=SCRIPTS + "x\n", min_size=1, max_size=300))
def test_bulk_path_on_long_text_is_the_heap_encoder(training, text):
    # A text longer than BULK_TEXT is encoded in bulk: cut whole in NumPy once the character cut
    # is chosen, else its missing segments split into pretokens together (FastEncoder._fill).
    tok = tokenizer_for(training)
    fast = tok._fast_encoder()
    chosen = "中文國了" * 20
    fast._build_cut(chosen, PRETOKEN_RE.findall(chosen))  # chooses (characters if they cut finer)
    long = (text * (BULK_TEXT // len(text) + 2))[: BULK_TEXT + 500]
    assert tok.encode(long) == tok.encode(long, method="heap")
    # The text holds every mark the NumPy cut could use: it slices instead.
    marked = CUT_MARKS + long
    assert tok.encode(marked) == tok.encode(marked, method="heap")
    # Words, decided "no cut" (the bulk path's _fill), with special tokens between the parts.
    words = Tokenizer(dict(tok.vocab), list(tok.merges), SPECIALS)  # the same vocabulary, every cache empty
    words._fast_encoder()._cut = _uncut
    stories = "<|endoftext|>".join([long[:1000], long[1000:], "x" + long[:700]])
    assert words.encode(stories) == words.encode(stories, method="heap")


@SETTINGS
@given(training=many_scripts, text=st.text(alphabet=SCRIPTS + "x\n", max_size=300))
def test_default_path_on_trained_vocabularies_is_tiktoken(training, text):
    # Cold (a fresh tokenizer: which cut it chooses depends on this text) and warm.
    tok = tokenizer_for(training)
    want = tok.encode(text, method="heap")
    assert tok.encode(text) == want
    assert tok.encode(text * 3) == tok.encode(text * 3, method="heap")  # long segments: the NumPy cut
    if tok._tables.unique_bytes():
        assert to_tiktoken(tok).encode(text, allowed_special="all") == want


CORPORA = {"en": TINYSTORIES_SAMPLE, "es": SPANISH_NOVEL, "ru": RUSSIAN_STORIES, "zh": CHINESE_NOVEL}
TRAIN_CHARS = {"en": 150_000, "es": 150_000, "ru": 100_000, "zh": 60_000}  # about 150 kB each
UNSEEN_CHARS = 60_000


@lru_cache(maxsize=None)
def trained(corpus: str) -> tuple[Tokenizer, str]:
    """A tokenizer trained on the start of the corpus (1 500 tokens), and text it never saw."""
    text = CORPORA[corpus].read_text(encoding="utf-8")
    size = TRAIN_CHARS[corpus]
    return tokenizer_for(text[:size], 1500), text[size : size + UNSEEN_CHARS]


@pytest.mark.parametrize("corpus", list(CORPORA))
def test_shipped_corpora_with_their_own_vocabulary(corpus):
    tok, unseen = trained(corpus)
    want = to_tiktoken(tok).encode(unseen, allowed_special="all")
    assert tok.encode(unseen) == want  # first call: the cut is chosen on the way
    assert tok.encode(unseen) == want  # warm
    fast = tok._fast_encoder()
    if corpus == "zh":  # the vocabulary joins nearly every pair of bytes: cut between characters
        assert fast._cut_pieces is fast.char_pieces
    if corpus == "ru":  # words: decided by bytes, the character rule never built
        assert fast._cut is not None and fast._cut_pieces is fast.pieces
    tok.clear_cache()
    assert tok.encode(unseen) == want  # cold again, the cut already chosen


def test_both_cuts_give_the_same_ids():
    # Whichever cut the first long segment chooses, the ids are the same: force each in turn.
    tok, unseen = trained("zh")
    want = to_tiktoken(tok).encode(unseen, allowed_special="all")
    for kind in ("bytes", "chars"):
        fresh = Tokenizer(dict(tok.vocab), list(tok.merges), SPECIALS)
        fast = fresh._fast_encoder()
        segment = "中文" * 40
        fast._build_cut(segment, PRETOKEN_RE.findall(segment))
        if kind == "bytes":
            from bpe_ref.fast.encoder import SEPARATOR, piece_pattern

            by_bytes = piece_pattern(fresh.merges).findall
            fast._cut = lambda segment, found, by_bytes=by_bytes: by_bytes(SEPARATOR.join(p.encode() for p in found))
            fast._cut_pieces = fast.pieces
        else:
            fast._cut = char_cutter(CharJoins(fresh._tables.token_bytes))
            fast._cut_pieces = fast.char_pieces
        assert fresh.encode(unseen) == want, kind


def test_char_joins_of_partial_characters():
    # A token that starts inside a character (its last byte, 0xAD, then 文) and one that ends
    # inside one (中, then the lead byte of 文): the first joins any character ending in 0xAD
    # (中 is E4 B8 AD) to 文, the second 中 to any character starting with 0xE6.
    zhong, wen = "中".encode(), "文".encode()
    joins = CharJoins([zhong[-1:] + wen, zhong + wen[:1]])
    assert joins.joined("中", "文")  # both rules
    assert "文" in joins.never_before and (1, 0x2D, "文") in joins.ends_then
    assert joins.joined("中", "是")  # 是 starts with 0xE6 too
    assert not joins.joined("文", "中")
    cut = char_cutter(joins)
    long = "文中" * 40  # the NumPy path: 文 ends in 0x87, 中 starts with 0xE4: cut between 文 and 中
    assert cut(long, [long]) == ["文"] + ["中文"] * 39 + ["中"]
    assert cut("文中文中", ["文中文中"]) == ["文", "中文", "中"]  # the short path


def test_a_word_segment_is_one_pretoken():
    # The default path takes a segment of letters (perhaps after one space) as one pretoken without
    # running the pattern: every character str.isalpha accepts must be a letter to the GPT-2
    # pattern (\p{L}), whatever Unicode versions Python and regex know.
    import regex

    alpha = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and chr(c).isalpha())
    assert regex.fullmatch(r"\p{L}+", alpha)
    for word in ("señor", " señor", " Москва", "紅樓夢", " abc", "x"):
        assert PRETOKEN_RE.findall(word) == [word]


@settings(SETTINGS, max_examples=300)
@given(st.text(alphabet=SCRIPTS + "x'\"!?.,;:_-()«»\u00b2\u2163 \n\t\u3000\x85\x1c1", max_size=40)
       | st.text(alphabet="  \n\t\u3000\x85\x1cab,'é中", max_size=20))
def test_a_space_without_whitespace_on_one_side_starts_a_pretoken(text):
    # The bulk path cuts a long text at its spaces and trusts the cut before a space unless
    # whitespace stands on both sides of it (space_is_a_cut): such a cut starts a pretoken, and
    # the text between two cuts has the same pretokens alone as in the text.
    starts = {match.start() for match in PRETOKEN_RE.finditer(text)}
    cuts = [i for i in range(1, len(text)) if text[i] == " " and space_is_a_cut(text, i)]
    assert set(cuts) <= starts
    bounds = [0, *cuts, len(text)]
    assert [p for a, b in zip(bounds, bounds[1:]) for p in PRETOKEN_RE.findall(text[a:b])] == PRETOKEN_RE.findall(text)
    # The words it caches (none empty or starting with whitespace), joined by spaces, are split
    # into pretokens by one call: each word's are those of " " + word alone, the first of them
    # the only one that holds a space (FastEncoder._fill_group), with either pattern.
    words = [word for word in text.split(" ") if word[:1] not in NOT_AFTER_A_CUT]
    for findall, group in ((PRETOKEN_RE.findall, words), (ascii_pretoken_pattern().findall, list(filter(str.isascii, words)))):
        if group:
            joined = findall(" " + " ".join(group))
            assert joined == [p for word in group for p in findall(" " + word)]
            assert sum(p.startswith(" ") for p in joined) == len(group)


def test_a_space_inside_a_run_of_whitespace_is_not_a_cut():
    assert PRETOKEN_RE.findall("a   b") == ["a", "  ", " b"]
    assert [space_is_a_cut("a   b", i) for i in (1, 2, 3)] == [True, False, True]
    assert PRETOKEN_RE.findall("x\n \ny") == ["x", "\n ", "\n", "y"]
    assert not space_is_a_cut("x\n \ny", 2) and not space_is_a_cut("x\n ", 2) and space_is_a_cut("x ", 1)


WHITESPACE_WORDS = ["a", "b", "ab", "é", "中文", ",", "'s", "1", "", "\n", "\nab", "a\n", "\t", "\u3000", "\n\n", "x" * 40]


@settings(SETTINGS, max_examples=10)
@given(training=many_scripts, picks=st.lists(st.integers(0, len(WHITESPACE_WORDS) - 1), min_size=1, max_size=80),
       cache_size=st.sampled_from([1 << 17, 50]))
def test_the_bulk_path_by_words_is_the_heap_encoder(training, picks, cache_size):
    # A long text cut at its spaces (FastEncoder._by_spaces): runs of spaces, spaces next to
    # newlines, parts that start or end with spaces, empty parts between special tokens, a word
    # too long to keep, and a cache emptied while it fills; first call and warm, both cuts.
    words = [WHITESPACE_WORDS[k] for k in picks]
    block = " ".join(words) + " <|endoftext|><|endoftext|>  " + "y" * (MAX_CACHED_SEGMENT + 10) + " end \n"
    text = (block * (BULK_TEXT // len(block) + 2))[: BULK_TEXT + 300]
    # Trained on runs of whitespace too, so that tokens join whitespace across a space.
    vocab, merges = train_bpe_on_text(training + (" ".join(WHITESPACE_WORDS) + "  \n \n   \t \u3000  ") * 8, 360,
                                      special_tokens=SPECIALS)
    for cut in (None, _uncut):
        tok = Tokenizer(vocab, merges, SPECIALS, cache_size=cache_size)
        tok._fast_encoder()._cut = cut
        want = tok.encode(text, method="heap")
        assert tok.encode(text) == want
        assert tok.encode(text) == want  # warm


def test_memo_stores_many_within_its_bounds():
    from bpe_ref.fast.encoder import _Memo

    memo = _Memo(lambda key: (len(key),), max_size=4, max_key=3)
    memo.store_many(["a", "bb", "cccc"], [(1,), (2,), (4,)])
    assert dict(memo) == {"a": (1,), "bb": (2,)} and memo.chars == 3  # "cccc" is too long to keep
    memo.store_many(["x", "y", "z"], [(1,), (1,), (1,)])  # 5 keys > 4: emptied first
    assert dict(memo) == {"x": (1,), "y": (1,), "z": (1,)}
    memo.store_many(list("abcde"), [(1,)] * 5)  # more than it holds: none kept, lookups compute them
    assert dict(memo) == {} and memo["abc"] == (3,)
