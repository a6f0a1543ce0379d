"""All six trainers return identical vocabularies and merges, and every merge is the right one.

"The right one" is established independently of the package: the test pretokenizes with the
design's pattern, recounts every pair from scratch after every merge, and picks the winner by the
design's rule (highest count; ties: the lexicographically greatest ``(left_bytes, right_bytes)``)
with plain Python comparisons, without the package's tie-break helpers.
"""

from __future__ import annotations

import string
from collections import Counter

import pytest
import regex
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bpe_ref import TRAIN_METHODS, train_bpe, train_bpe_on_text, train_on_counts

from sampling import EXHAUSTIVE

# 100 generated corpora per property by default (each trained by all six trainers and recounted);
# BPE_EXHAUSTIVE=1 draws 200, and recounts all 243 merges of corpus.en rather than the first 80.
PROPERTY = settings(derandomize=True, deadline=None, database=None, max_examples=200 if EXHAUSTIVE else 100)
CORPUS_EN_MERGES = 243 if EXHAUSTIVE else 80

EOT = "<|endoftext|>"
DESIGN_PATTERN = regex.compile(r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")

# --- an independent reference: pretokenize, recount from scratch, pick by the design's rule ----


def reference_pretoken_counts(text: str, special_tokens: list[str]) -> Counter[bytes]:
    pieces = [text]
    # Longest special token first where they overlap, as the design says.
    if special_tokens:
        alternatives = "|".join(regex.escape(t) for t in sorted(special_tokens, key=len, reverse=True))
        pieces = regex.split(alternatives, text)
    return Counter(token.encode("utf-8") for piece in pieces for token in DESIGN_PATTERN.findall(piece))


def recount(words: dict[tuple[bytes, ...], int]) -> Counter[tuple[bytes, bytes]]:
    """Every adjacent pair, every window, weighted by the word's frequency."""
    counts: Counter[tuple[bytes, bytes]] = Counter()
    for word, frequency in words.items():
        for i in range(len(word) - 1):
            counts[(word[i], word[i + 1])] += frequency
    return counts


def apply_merge(word: tuple[bytes, ...], pair: tuple[bytes, bytes]) -> tuple[bytes, ...]:
    """Left to right, non-overlapping: ("a", "a", "a") with ("a", "a") -> ("aa", "a")."""
    out: list[bytes] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def reference_training(word_counts: dict[bytes, int], num_merges: int):
    """(merges, steps): steps are (count, affected_words) per merge, from a full recount each time."""
    words: dict[tuple[bytes, ...], int] = {}
    for pretoken, frequency in word_counts.items():
        word = tuple(bytes([b]) for b in pretoken)
        words[word] = words.get(word, 0) + frequency
    merges, steps = [], []
    for _ in range(num_merges):
        counts = recount(words)
        if not counts:
            break
        best = max(counts, key=lambda pair: (counts[pair], pair[0], pair[1]))
        new_words: dict[tuple[bytes, ...], int] = {}
        affected = 0
        for word, frequency in words.items():
            merged = apply_merge(word, best)
            affected += merged != word
            new_words[merged] = new_words.get(merged, 0) + frequency
        words = new_words
        merges.append(best)
        steps.append((counts[best], affected))
    return merges, steps, words


def expected_vocab(merges, special_tokens) -> dict[int, bytes]:
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    for left, right in merges:
        vocab[len(vocab)] = left + right
    return vocab


def check_all_trainers(text: str, vocab_size: int, special_tokens: list[str]) -> None:
    """Every trainer on ``text`` agrees with the independent reference, merge by merge."""
    num_merges = vocab_size - 256 - len(special_tokens)
    word_counts = reference_pretoken_counts(text, special_tokens)
    merges, steps, final_words = reference_training(word_counts, num_merges)
    if len(merges) < num_merges:  # stopped early: only because no pair is left
        assert all(len(word) == 1 for word in final_words)
    for method in TRAIN_METHODS:
        trace: list = []
        vocab, got = train_bpe_on_text(text, vocab_size, special_tokens=special_tokens, method=method, trace=trace)
        assert_same_training(method, got, trace, vocab, merges, steps, special_tokens)


def assert_same_training(method, got, trace, vocab, merges, steps, special_tokens) -> None:
    for rank, (pair, step) in enumerate(zip(got, trace)):
        expected_pair = merges[rank] if rank < len(merges) else None
        assert pair == expected_pair, (
            f"{method}: merge {rank} is {pair!r}; a recount from scratch says {expected_pair!r} "
            f"(merges before it: {got[:rank]!r})"
        )
        assert step.pair == (step.left, step.right) == pair, f"{method}: trace row {rank}: {step}"
        assert (step.count, step.affected_words) == steps[rank], (
            f"{method}: merge {rank} {pair!r}: trace says count {step.count}, {step.affected_words} words; "
            f"a recount says count {steps[rank][0]}, {steps[rank][1]} words"
        )
        for field in (step.heap_size, step.stale_pops):
            assert field is None or (isinstance(field, int) and field >= 0), f"{method}: trace row {rank}: {step}"
    assert got == merges, f"{method}: {len(got)} merges, the recount gives {len(merges)}"
    assert len(trace) == len(merges)
    assert vocab == expected_vocab(merges, special_tokens), f"{method}: vocabulary differs"


# --- generated corpora ---------------------------------------------------------------------------

ASCII = st.text(alphabet=string.printable, max_size=300)
# Any Unicode scalar value, plus emoji (with skin tone and ZWJ sequences) and combining marks.
UNICODE_ATOMS = st.one_of(
    st.characters(codec="utf-8"),
    st.sampled_from(["😀", "👍🏽", "👩\u200d💻", "e\u0301", "\u0300\u0301", "한국어", "字", "\u00a0", " ", "\n", "'s"]),
)
UNICODE = st.lists(UNICODE_ATOMS, max_size=80).map("".join)
# Long runs of one character ("aaaa..."), separated or not.
RUNS = st.lists(
    st.tuples(st.sampled_from(["a", "b", " ", "\n", "é", "😀", "ab"]), st.integers(1, 40)), min_size=1, max_size=6
).map(lambda runs: "".join(c * n for c, n in runs))
SPECIAL_POOL = [EOT, "<|pad|>", "<s>", "ab", EOT + EOT]


def extra_merges():
    """How many merges to ask for: few, some, or far more than the corpus can fill."""
    return st.one_of(st.integers(0, 5), st.integers(0, 60), st.just(1000))


@PROPERTY
@given(ASCII, extra_merges())
@example("", 1000)
@example("a", 1000)
@example("hello hello world", 0)
def test_ascii_corpora(text, num_merges):
    check_all_trainers(text, 257 + num_merges, [EOT])


@PROPERTY
@given(UNICODE, extra_merges())
@example("👩\u200d💻 e\u0301e\u0301 😀😀😀", 1000)
def test_unicode_corpora(text, num_merges):
    check_all_trainers(text, 256 + num_merges, [])


@PROPERTY
@given(RUNS, extra_merges())
@example("a" * 40, 1000)
@example("aaa", 1000)
@example("ab" * 20, 1000)
def test_runs_of_one_character(text, num_merges):
    check_all_trainers(text, 256 + num_merges, [])


@st.composite
def corpora_with_special_tokens(draw):
    special_tokens = draw(st.lists(st.sampled_from(SPECIAL_POOL), unique=True, min_size=1, max_size=3))
    parts = draw(
        st.lists(st.one_of(st.text(string.ascii_lowercase + " <|>\n", max_size=10), st.sampled_from(SPECIAL_POOL)), max_size=20)
    )
    return "".join(parts), special_tokens


@PROPERTY
@given(corpora_with_special_tokens(), extra_merges())
@example((f"{EOT}a{EOT}{EOT}b{EOT}", [EOT]), 1000)
@example((f"x{EOT}{EOT}y", [EOT, EOT + EOT]), 1000)
def test_special_tokens_anywhere(corpus, num_merges):
    text, special_tokens = corpus
    check_all_trainers(text, 256 + len(special_tokens) + num_merges, special_tokens)
    for method in ("naive", "heap"):
        _, merges = train_bpe_on_text(text, 256 + len(special_tokens) + num_merges, special_tokens, method=method)
        for left, right in merges:  # special tokens never take part in a merge
            assert not any(t.encode() in left + right for t in special_tokens)


@PROPERTY
@given(st.text(max_size=1), st.sampled_from([0, 1, 1000]))
@example("", 0)
@example("", 1000)
@example("x", 1000)
@example("😀", 1000)
def test_empty_and_one_character_corpora(text, num_merges):
    check_all_trainers(text, 257 + num_merges, [EOT])


# Many short words over a tiny alphabet: long merge chains, many ties, pairs that come and go.
WORD_SOUP = st.lists(st.text("abc", min_size=1, max_size=7), min_size=1, max_size=300).map(" ".join)


@PROPERTY
@given(WORD_SOUP, extra_merges())
def test_many_words_over_a_tiny_alphabet(text, num_merges):
    check_all_trainers(text, 257 + num_merges, [EOT])


@PROPERTY
@given(
    st.dictionaries(st.binary(min_size=1, max_size=8), st.integers(1, 10**6), max_size=25),
    st.sampled_from([0, 3, 30, 1000]),
)
@example({b"\xff\xfe\xff\xfe": 3, b"\xfe\xff": 5}, 1000)  # not UTF-8: trainers work on bytes
def test_weighted_pretoken_counts(word_counts, num_merges):
    """train_on_counts on arbitrary byte pretokens with large frequencies (many ties broken by bytes)."""
    merges, steps, _ = reference_training(word_counts, num_merges)
    for method in TRAIN_METHODS:
        trace: list = []
        vocab, got = train_on_counts(word_counts, 256 + num_merges, special_tokens=[], method=method, trace=trace)
        assert_same_training(method, got, trace, vocab, merges, steps, [])


# --- a real corpus: the whole trace, and the heap's compaction ----------------------------------


@pytest.fixture(scope="module")
def corpus_en_reference(corpus_en_path):
    text = corpus_en_path.read_text(encoding="utf-8")
    return reference_training(reference_pretoken_counts(text, [EOT]), CORPUS_EN_MERGES)


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_corpus_en_trace_matches_a_recount(method, corpus_en_path, corpus_en_reference, reference_merges):
    # The whole 243 merges of every trainer are CS336's (test_train_reference.py); here each trace
    # row of the first CORPUS_EN_MERGES (count, words affected) is the recount's.
    merges, steps, _ = corpus_en_reference
    assert merges == reference_merges[:CORPUS_EN_MERGES]  # the independent recount reproduces CS336's reference too
    trace: list = []
    vocab, got = train_bpe(corpus_en_path, 257 + CORPUS_EN_MERGES, special_tokens=[EOT], method=method, trace=trace)
    assert_same_training(method, got, trace, vocab, merges, steps, [EOT])


@pytest.mark.parametrize("compaction_threshold", [None, 1.01, 1.5, 2.0])
def test_heap_compaction_does_not_change_the_merges(compaction_threshold, corpus_en_path, reference_merges):
    _, merges = train_bpe(corpus_en_path, 500, special_tokens=[EOT], method="heap", compaction_threshold=compaction_threshold)
    assert merges == reference_merges
