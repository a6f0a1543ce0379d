"""Every trainer against fixed answers: the CS336 reference run and examples checked by hand.

The naive trainer recounts every pair at each merge: by default it runs the reference's first
NAIVE_MERGES merges (BPE is greedy: they are the first of the whole run), the other trainers all 243;
BPE_EXHAUSTIVE=1 runs the naive one to 500 too.
"""

from __future__ import annotations

import pytest

from bpe_ref import TRAIN_METHODS, train_bpe, train_bpe_on_text

from sampling import EXHAUSTIVE

EOT = "<|endoftext|>"
NAIVE_MERGES = 243 if EXHAUSTIVE else 100  # a third of the run's CPU time; every merge of it under BPE_EXHAUSTIVE=1


def test_the_six_methods():
    assert TRAIN_METHODS == ("naive", "incremental", "parallel", "inverted_index", "heap", "linked_list")


# --- the CS336 reference: corpus.en, vocab 500, special token <|endoftext|> -------------------


@pytest.fixture(scope="module")
def corpus_en_runs(corpus_en_path):
    """One training run per method, shared by the tests below (computed on first use): vocab 500, or the first
    NAIVE_MERGES merges of it for the naive trainer."""
    runs: dict[str, tuple[dict[int, bytes], list[tuple[bytes, bytes]]]] = {}

    def run(method: str):
        if method not in runs:
            runs[method] = train_bpe(corpus_en_path, 257 + merges_run(method), special_tokens=[EOT], method=method)
        return runs[method]

    return run


def merges_run(method: str) -> int:
    return NAIVE_MERGES if method == "naive" else 243  # 500 - 256 bytes - 1 special token


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_reference_merges_on_corpus_en(method, corpus_en_runs, reference_merges):
    _, merges = corpus_en_runs(method)
    assert len(reference_merges) == 243 and len(merges) == merges_run(method)
    reference_merges = reference_merges[: len(merges)]
    first_difference = next((i for i, (a, b) in enumerate(zip(merges, reference_merges)) if a != b), None)
    assert first_difference is None, (
        f"merge {first_difference}: got {merges[first_difference]!r}, expected {reference_merges[first_difference]!r}"
    )
    assert merges == reference_merges


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_reference_vocab_on_corpus_en(method, corpus_en_runs, reference_vocab):
    vocab, merges = corpus_en_runs(method)
    # The reference file numbers <|endoftext|> 0: compare the tokens, not their ids.
    assert len(reference_vocab) == 500 and len(vocab) == 257 + merges_run(method)
    # its ids: <|endoftext|> 0, the bytes, then the merges in order (those of the run: its first ids)
    assert set(vocab.values()) == {reference_vocab[i] for i in range(len(vocab))}


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_vocab_layout_on_corpus_en(method, corpus_en_runs):
    """Ids 0..255 are the bytes, 256 the special token, then one id per merge in training order."""
    vocab, merges = corpus_en_runs(method)
    assert sorted(vocab) == list(range(257 + merges_run(method)))
    assert all(vocab[b] == bytes([b]) for b in range(256))
    assert vocab[256] == EOT.encode()
    assert [vocab[257 + i] for i in range(len(merges))] == [left + right for left, right in merges]


# Every trainer but "parallel" counts through the same count_pretokens_in_file (and each trainer's
# merges on corpus.en are checked above): "heap" stands for them, "parallel" counts its own way.
@pytest.mark.parametrize("method", ["heap", "parallel"])
def test_corpus_en_with_pretokenization_in_two_processes(method, corpus_en_path, reference_merges):
    """corpus.en has no <|endoftext|>: nowhere to cut, and the result must not change."""
    _, merges = train_bpe(corpus_en_path, 500, special_tokens=[EOT], method=method, num_workers=2)
    assert merges == reference_merges


# --- examples checked by hand ------------------------------------------------------------------

# Sennrich's example, as in the CS336 handout: {low: 5, lower: 2, widest: 3, newest: 6}.
# Words are separated by <|endoftext|> so no word gets a leading space.
LOW_LOWER = EOT.join(["low"] * 5 + ["lower"] * 2 + ["widest"] * 3 + ["newest"] * 6)

# Worked by hand (count; pairs tied on that count, the winner first):
#  1. s t      9   tie (e,s)=(s,t)=9: (b"s", b"t") > (b"e", b"s")
#  2. e st     9   widest, newest
#  3. o w      7   tie (l,o)=(o,w)=7: b"o" > b"l"
#  4. l ow     7   low, lower
#  5. w est    6   tie (n,e)=(e,w)=(w,est)=6: b"w" > b"n" > b"e"
#  6. n e      6   tie (n,e)=(e,west)=6: b"n" > b"e"
#  7. ne west  6
#  8. w i      3   tie (w,i)=(i,d)=(d,est)=3: b"w" is greatest
#  9. wi d     3   tie (wi,d)=(d,est)=3
# 10. wid est  3
# 11. low e    2   tie (low,e)=(e,r)=2: b"low" > b"e"
# 12. lowe r   2
# Then every word is one token: training stops early with 12 merges.
LOW_LOWER_MERGES = [
    (b"s", b"t"),
    (b"e", b"st"),
    (b"o", b"w"),
    (b"l", b"ow"),
    (b"w", b"est"),
    (b"n", b"e"),
    (b"ne", b"west"),
    (b"w", b"i"),
    (b"wi", b"d"),
    (b"wid", b"est"),
    (b"low", b"e"),
    (b"lowe", b"r"),
]
LOW_LOWER_COUNTS = [9, 9, 7, 7, 6, 6, 6, 3, 3, 3, 2, 2]
# Distinct words each merge rewrites: st and est are in widest and newest; ow and low in low and lower.
LOW_LOWER_AFFECTED = [2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1]


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_low_lower_widest_newest(method):
    trace: list = []
    vocab, merges = train_bpe_on_text(LOW_LOWER, 1000, special_tokens=[EOT], method=method, trace=trace)
    assert merges == LOW_LOWER_MERGES
    assert [step.count for step in trace] == LOW_LOWER_COUNTS
    assert [step.affected_words for step in trace] == LOW_LOWER_AFFECTED
    assert [step.pair for step in trace] == LOW_LOWER_MERGES  # row i of the trace is merge i
    assert [(step.left, step.right) for step in trace] == LOW_LOWER_MERGES
    # vocab_size 1000 cannot be filled: 256 bytes + 1 special token + 12 merges.
    assert len(vocab) == 269
    assert vocab[256] == EOT.encode()
    assert vocab[268] == b"lower"


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_vocab_size_limits_the_merges(method):
    vocab, merges = train_bpe_on_text(LOW_LOWER, 257 + 5, special_tokens=[EOT], method=method)
    assert merges == LOW_LOWER_MERGES[:5]
    assert len(vocab) == 262


@pytest.mark.parametrize(
    ("text", "expected_merges", "expected_counts"),
    [
        # "aaa": the pair (a, a) counts 2 (both windows); merging gives [aa, a], then (aa, a).
        ("aaa", [(b"a", b"a"), (b"aa", b"a")], [2, 1]),
        # "aaaa": (a, a) counts 3; merging left to right gives [aa, aa], then (aa, aa) once.
        ("aaaa", [(b"a", b"a"), (b"aa", b"aa")], [3, 1]),
        # "aaaaa": (a, a) counts 4; [aa, aa, a]; then (aa, aa) 1 and (aa, a) 1 tie: b"aa" + b"aa" wins
        # over b"aa" + b"a" since (b"aa", b"aa") > (b"aa", b"a"); [aaaa, a]; then (aaaa, a).
        ("aaaaa", [(b"a", b"a"), (b"aa", b"aa"), (b"aaaa", b"a")], [4, 1, 1]),
    ],
)
@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_runs_of_one_character_overlap_with_themselves(method, text, expected_merges, expected_counts):
    trace: list = []
    _, merges = train_bpe_on_text(text, 300, special_tokens=[], method=method, trace=trace)
    assert merges == expected_merges
    assert [step.count for step in trace] == expected_counts


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_three_way_tie_on_the_first_merge(method):
    # Pretokens "ab" and " cd": pairs (a,b), (" ",c), (c,d) all count 1.
    # (b"c", b"d") > (b"a", b"b") > (b" ", b"c"); after c d: (a,b) and (" ", cd), and b"a" > b" ".
    _, merges = train_bpe_on_text("ab cd", 300, special_tokens=[], method=method)
    assert merges == [(b"c", b"d"), (b"a", b"b"), (b" ", b"cd")]


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_tie_decided_by_the_right_token(method):
    # Words "xa" x 2 and "xb" x 2 (kept apart by the special token): (x, a) = (x, b) = 2.
    # Equal left bytes b"x", so the right decides: b"b" > b"a".
    _, merges = train_bpe_on_text(EOT.join(["xa", "xb", "xa", "xb"]), 260, special_tokens=[EOT], method=method)
    assert merges == [(b"x", b"b"), (b"x", b"a")]


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_extension_beats_its_prefix_in_a_tie(method):
    # Pretokens "abx", " ab", " ay". Pairs: (a,b)=2, (b,x)=1, (" ",a)=2, (a,y)=1.
    # Tie at 2: (b"a", b"b") > (b" ", b"a"). Merge 1: a b. Now "abx" = [ab, x], " ab" = [" ", ab],
    # " ay" = [" ", a, y]. Pairs: (ab,x)=1, (" ",ab)=1, (" ",a)=1, (a,y)=1.
    # Tie at 1: b"ab" > b"a" > b" " (a byte string sorts after its prefix), so (ab, x).
    _, merges = train_bpe_on_text("abx ab ay", 258, special_tokens=[], method=method)
    assert merges == [(b"a", b"b"), (b"ab", b"x")]


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_word_frequencies_weight_the_counts(method):
    # " the" x 3 beats "xyz" x 1 although "xyz" comes first; (h, e) = 3 ties (" ", t) = 3 and
    # (t, h) = 3: b"t" > b"h" > b" ", so (t, h) first.
    trace: list = []
    _, merges = train_bpe_on_text("xyz the the the", 257, special_tokens=[], method=method, trace=trace)
    assert merges == [(b"t", b"h")]
    assert trace[0].count == 3 and trace[0].affected_words == 1


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_no_merge_crosses_a_special_token_or_a_pretoken(method):
    # "a<|endoftext|>a" would merge (a, a) if the special token were just deleted.
    vocab, merges = train_bpe_on_text(f"a{EOT}a{EOT}a", 300, special_tokens=[EOT], method=method)
    assert merges == []
    assert len(vocab) == 257
    # "a a": the pretokens are "a" and " a"; (a, a) never occurs, only (" ", a).
    _, merges = train_bpe_on_text("a a a", 300, special_tokens=[], method=method)
    assert merges == [(b" ", b"a")]


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_multibyte_characters_merge_byte_by_byte(method):
    # "é" is b"\xc3\xa9": the first merge joins its two bytes; "😀" is 4 bytes: 3 merges.
    _, merges = train_bpe_on_text("é", 300, special_tokens=[], method=method)
    assert merges == [(b"\xc3", b"\xa9")]
    _, merges = train_bpe_on_text("😀", 300, special_tokens=[], method=method)
    assert b"".join(merges[-1]) == "😀".encode()
    assert len(merges) == 3


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_special_tokens_get_ids_in_the_order_given(method):
    vocab, merges = train_bpe_on_text("hi hi", 260, special_tokens=["<b>", "<a>"], method=method)
    assert vocab[256] == b"<b>" and vocab[257] == b"<a>"
    assert vocab[258] == b"".join(merges[0])


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_str_path_and_progress_bar_change_nothing(method, write_corpus, capsys):
    path = write_corpus(LOW_LOWER)
    vocab, merges = train_bpe(str(path), 1000, special_tokens=[EOT], method=method, progress=True)
    assert merges == LOW_LOWER_MERGES
    assert len(vocab) == 269
    assert capsys.readouterr().out == ""  # the progress bar goes to stderr, never into stdout
