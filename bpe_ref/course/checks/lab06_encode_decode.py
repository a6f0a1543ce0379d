"""Graders of lab 06, encoding and decoding: merges by rank, one pretoken, a whole text with special
tokens, then the arena decoder.

Theory: ``theory/06-encode-decode.md``. Reference: :mod:`bpe_ref.encode.step06_naive` (tasks 1-3)
and :mod:`bpe_ref.decode` (tasks 4-5).

The learner works on ``bytes`` tokens, as in labs 01-05. GPT-2's ranks hold 50,000 merges; a case
sends only those whose bytes occur in its text (a merge whose result is not in the text can never
apply, and the ranks keep their values), so the answer is the one the full table gives.
"""

from __future__ import annotations

import codecs
import itertools
import random
import unicodedata
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache

import regex
from hypothesis import strategies as st

from ...corpus import read_corpus
from ...data_files import GPT2_MERGES, GPT2_VOCAB, REFERENCE_MERGES, TINYSTORIES_VALID, data_file
from ...decode import build_arena, decode_with_arena
from ...encode.step06_naive import encode_pretoken, encode_text, merge_ranks
from ...pretokenize import PRETOKEN_RE
from ...serialization import load_merges, load_vocab, load_vocab_and_merges
from ...tokenizer import Tokenizer
from ..trusted.verdicts import current_seed
from ...train.step01_naive import merge_word, train
from . import measured
from .compare import KEPT_PATTERN, SURROGATE_RANGES, refused_lone_surrogate
from .core import (
    Case, CheckFailed, Lab, Later, Task, TaskGraders, call_learner, check_property, error_name, passed, short_repr,
    stretch,
)

# The learner's code may use lab 01's functions (split_into_bytes, merge_word: the setup cell's).
PROVIDED = ("train.step01_naive", "tiebreak", "train.common", "train.driver")

Pair = tuple[bytes, bytes]
EOT = "<|endoftext|>"


@lru_cache(maxsize=1)
def gpt2_merges() -> list[Pair]:
    """GPT-2's merges, read once per grading process: all that labs 07 and 08 need (its vocabulary: 0.12 s of CPU more)."""
    return load_merges(data_file(GPT2_MERGES))


@lru_cache(maxsize=1)
def gpt2_files() -> tuple[dict[int, bytes], list[Pair]]:
    """GPT-2's vocabulary and merges, read from the shipped files once per grading process."""
    return load_vocab(data_file(GPT2_VOCAB)), gpt2_merges()


@lru_cache(maxsize=1)
def gpt2_ids() -> dict[bytes, int]:
    """GPT-2's ``{token bytes: id}`` (the stretch's ids: no ``Tokenizer``, 0.6 s of CPU, is built)."""
    return {token: token_id for token_id, token in gpt2_files()[0].items()}


@lru_cache(maxsize=1)
def gpt2_ranks() -> dict[Pair, int]:
    return merge_ranks(gpt2_merges())


@lru_cache(maxsize=1)
def corpus_en_ranks() -> dict[Pair, int]:
    return merge_ranks(load_merges(data_file(REFERENCE_MERGES)))


def ranks_for(text: str | bytes, ranks: dict[Pair, int]) -> dict[Pair, int]:
    """The part of ``ranks`` that can apply to ``text``: merges whose result occurs in it (in rank
    order, the ranks unchanged). Encoding with it gives what encoding with all of ``ranks`` gives."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    by_result, longest = merges_by_result(tuple(ranks.items()) if len(ranks) < 1000 else id(ranks), ranks)
    found = {}
    for start in range(len(data)):
        for end in range(start + 2, min(len(data), start + longest) + 1):
            for pair in by_result.get(data[start:end], ()):
                found[pair] = ranks[pair]
    return dict(sorted(found.items(), key=lambda item: item[1]))


_BY_RESULT: dict = {}


def merges_by_result(key: object, ranks: dict[Pair, int]) -> tuple[dict[bytes, list[Pair]], int]:
    """``{left + right: [pairs]}`` of ``ranks`` and the longest result (kept per table: GPT-2's is
    made once)."""
    if key not in _BY_RESULT:
        by_result: dict[bytes, list[Pair]] = {}
        for pair in ranks:
            by_result.setdefault(pair[0] + pair[1], []).append(pair)
        _BY_RESULT[key] = (by_result, max(map(len, by_result), default=0), ranks)  # ranks: keeps id(ranks) alive
    return _BY_RESULT[key][:2]


def gpt2_label(ranks: dict[Pair, int]) -> str:
    return f"<GPT-2's ranks: the {len(ranks)} of its 50000 merges that occur in this text>"


# ---- task 1: merge ranks -------------------------------------------------------------------------


FIRST_RANK = ("keep its first rank (dict.setdefault), the earliest merge; a later copy can never apply, since training never "
              "makes a pair that is already merged")


def ranks_hint(args: tuple, expected: object, got: object) -> str | None:
    merges = args[0]
    if not (isinstance(expected, dict) and isinstance(got, dict)) or set(expected) != set(got):
        return None
    if all(got[pair] == expected[pair] + 1 for pair in expected):
        return "ranks count from 0: the first merge learned has rank 0 (it becomes token 256 + rank)"
    repeated = [pair for pair in expected if merges.count(pair) > 1]
    if repeated:
        return f"{repeated[0]!r} is listed twice: {FIRST_RANK}"
    return None


def repeated_merge_error_hint(args: tuple, error: BaseException) -> str | None:
    merges = args[0] if args and isinstance(args[0], list) else []
    if error_name(error) == "ValueError" and len(set(map(tuple, merges))) < len(merges):
        return f"a merge listed twice is no error: {FIRST_RANK}"
    return None


RANKS_TASK = Task("merge_ranks", ("merges",), what="a dict mapping (bytes, bytes) pairs to int ranks", hint=ranks_hint,
                  provided=PROVIDED, error_hint=repeated_merge_error_hint)

RANKS_CASES = [
    ([(b"s", b"t"), (b"e", b"st"), (b"o", b"w")],),
    ([],),
    ([(b"a", b"a"), (b"aa", b"a"), (b"a", b"a")],),  # a pair listed twice keeps its first rank
    ([(b"\xc3", b"\xa9"), (b" ", b"\xc3\xa9")],),
]

pair_tokens = st.sampled_from([b"a", b"b", b"ab", b"ba", b" ", b" a", b"\xc3", b"\xa9", b"aa"])
merge_lists = st.lists(st.tuples(pair_tokens, pair_tokens), max_size=12)

# The ranks' cost: one pass over the merges, a dict entry each. Each rank found by merges.index(pair) (the first
# position: the right ranks, even of a pair listed twice) scans the list again for every merge, O(M^2): 0.5 s of CPU on
# 10,000 merges and some 13 s on GPT-2's 50,000, and it kept the hidden point, whose generated lists hold 12 merges at
# most. Measured from outside the learner's code on RANKS_MEASURED merges drawn from the grading's seed (a few repeated):
# the reference takes about 0.01 s, merges.index about 0.75 s (load 7), where 0.16 s passes. (20,000 merges cost a
# grading 0.3 s more of CPU, most of it the list and the ranks sent to the worker and back.)
RANKS_MEASURED, RANKS_REPEATED = 12_000, 300
RANKS_FACTOR, RANKS_SLACK, RANKS_SECONDS = 5.0, 0.1, 4.0


def many_merges(index: int, scale: float = 1.0) -> tuple[list[Pair]]:
    """:data:`RANKS_MEASURED` distinct merges of 1- to 3-byte tokens and :data:`RANKS_REPEATED` copies of earlier ones,
    both times ``scale`` (drawn: :data:`.measured.COST_SPREAD`), drawn from the grading's seed (each measured call its
    own: ``index``)."""
    rng = measured.measured_random(f"06_encode_decode:merge_ranks:{index}")
    distinct = dict.fromkeys((rng.randbytes(rng.randint(1, 3)), rng.randbytes(rng.randint(1, 3)))
                             for _ in range(round(RANKS_MEASURED * scale)))
    merges = list(distinct)
    for _ in range(round(RANKS_REPEATED * scale)):
        merges.insert(rng.randrange(1, len(merges) + 1), merges[rng.randrange(len(merges))])
    return (merges,)


RANKS_COST = measured.MeasuredCost(
    task=RANKS_TASK, reference=merge_ranks, build=many_merges, spread=measured.COST_SPREAD,
    shape=f"<{RANKS_MEASURED:,} to {measured.COST_SPREAD * RANKS_MEASURED:,.0f} merges (drawn), a few listed twice>",
    factor=RANKS_FACTOR, slack=RANKS_SLACK, timeout=RANKS_SECONDS,
    too_slow="does it search the list for each merge (merges.index(pair), or a count or a loop over the merges before "
             "it)? That costs O(M) per merge, O(M^2) in all: one pass with enumerate, keeping a pair's first rank "
             "(dict.setdefault), costs O(M)",
    said=lambda cost, name: cost.said(f"{name}: {RANKS_MEASURED:,} to {measured.COST_SPREAD * RANKS_MEASURED:,.0f} "
                                      "merges (drawn) in "))


def verify_ranks_cost(learner: Callable) -> None:
    """``merge_ranks`` makes one pass over the merges (CPU time, measured from outside the learner's code): a rank found
    by searching the list for each merge (merges.index) costs O(M) per merge."""
    RANKS_COST.verify(learner)


# Measured last in the hidden test (not a verify, which the hidden test runs first): wrong ranks fail on the generated
# lists first, with their hints and the smallest failing input, not on a list of 20,000 merges. Not in the visible test:
# in a grading, a then-hook measures again where a verify's pass would stand for both (about 0.3 s of CPU each).
MERGE_RANKS = TaskGraders(RANKS_TASK, merge_ranks, RANKS_CASES, merge_lists.map(lambda merges: (merges,)), max_examples=40,
                          hidden_then=verify_ranks_cost)

# ---- task 2: one pretoken ------------------------------------------------------------------------

def _variant(pretoken: bytes, ranks: dict[Pair, int], pick: Callable[[list[Pair]], Pair | None]) -> list[bytes]:
    """A common wrong encoder, for hints: ``pick`` chooses the pair to merge among the merges present."""
    word = tuple(pretoken[i : i + 1] for i in range(len(pretoken)))
    while True:
        present = [pair for pair in zip(word, word[1:]) if pair in ranks]
        choice = pick(present) if present else None
        if choice is None:
            return list(word)
        word = merge_word(word, choice)


def _stops_at_the_last(pretoken: bytes, ranks: dict[Pair, int], got: list) -> bool:
    """Whether ``got`` is what an encoder gives whose stand-in rank for a pair that is no merge is the last rank (the
    largest), so that a merge of that rank is taken for none."""
    last = max(ranks.values(), default=None)

    def pick(present: list[Pair]) -> Pair | None:
        lowest = min(present, key=ranks.__getitem__)
        return None if ranks[lowest] == last else lowest

    return last is not None and got == _variant(pretoken, ranks, pick)


def _default_rank_zero(pretoken: bytes, ranks: dict[Pair, int]) -> list[bytes]:
    """A common wrong encoder, for hints: a pair that is no merge ranked 0 (ranks.get(pair, 0)), so that min picks it
    before the merges of rank 0 listed after it, or of any rank, and the loop stops."""
    word = tuple(pretoken[i : i + 1] for i in range(len(pretoken)))
    while len(word) > 1:
        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, 0))
        if best not in ranks:
            break
        word = merge_word(word, best)
    return list(word)


def _turned_round(pretoken: bytes, ranks: dict[Pair, int]) -> list[bytes]:
    """A common wrong encoder, for hints: each pair of neighbours taken turned round, (right, left), and merged as it is
    found in ranks (zip(word[1:], word), a slip of the windows)."""
    word = tuple(pretoken[i : i + 1] for i in range(len(pretoken)))
    while len(word) > 1:
        best = min(zip(word[1:], word), key=lambda pair: ranks.get(pair, float("inf")))
        if best not in ranks:
            break
        merged = merge_word(word, best)
        if merged == word:  # not a pair of this word as it reads: it never ends
            break
        word = merged
    return list(word)


def _in_dict_order(pretoken: bytes, ranks: dict[Pair, int]) -> list[bytes]:
    """A common wrong encoder, for hints: each merge once, everywhere, in the order the dict lists them (page 06's
    pitfall "one pass per round, merge by merge, in the list's order", with the dict's order taken for the list's)."""
    word = tuple(pretoken[i : i + 1] for i in range(len(pretoken)))
    for pair in ranks:
        word = merge_word(word, pair)
    return list(word)


def _in_rank_order(pretoken: bytes, ranks: dict[Pair, int]) -> list[bytes]:
    """A common wrong encoder, for hints: each merge once, everywhere, in rank order (page 06's "apply every merge in
    training order, one pass each"), which is BPE only when no merge's result takes part in a merge of lower rank."""
    word = tuple(pretoken[i : i + 1] for i in range(len(pretoken)))
    for pair in sorted(ranks, key=ranks.__getitem__):
        word = merge_word(word, pair)
    return list(word)


def _one_round(pretoken: bytes, ranks: dict[Pair, int]) -> list[bytes]:
    """A common wrong encoder, for hints: the pair of lowest rank merged everywhere once, no second look."""
    word = tuple(pretoken[i : i + 1] for i in range(len(pretoken)))
    present = [pair for pair in zip(word, word[1:]) if pair in ranks]
    return list(merge_word(word, min(present, key=ranks.__getitem__)) if present else word)


def _one_at_a_time(pretoken: bytes, ranks: dict[Pair, int]) -> list[bytes]:
    """A common wrong encoder, for hints: the pair of lowest rank merged where it first occurs only, then a new look
    (lab 07's heap order, one merge at a time), where task 2 merges it everywhere in one pass (merge_word)."""
    word = [pretoken[i : i + 1] for i in range(len(pretoken))]
    while True:
        present = [(ranks[pair], i) for i, pair in enumerate(zip(word, word[1:])) if pair in ranks]
        if not present:
            return word
        _, i = min(present)
        word[i : i + 2] = [word[i] + word[i + 1]]


def _from_characters(pretoken: bytes, ranks: dict[Pair, int]) -> list[bytes] | None:
    """A common wrong encoder, for hints: the rounds started from the pretoken's characters (their UTF-8 bytes, one
    part each) instead of its single bytes; ``None`` for a pretoken of ASCII only, or not UTF-8."""
    try:
        characters = pretoken.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if characters.isascii():
        return None
    word = tuple(character.encode("utf-8") for character in characters)
    while len(word) > 1:
        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float("inf")))
        if best not in ranks:
            break
        word = merge_word(word, best)
    return list(word)


def _merged_before_the_check(pretoken: bytes, ranks: dict[Pair, int]) -> list[bytes]:
    """A common wrong encoder, for hints (walk55): the lowest pair merged before the check that it is a merge, so the
    last round merges a pair that is none (min returns a pair even when no neighbour is a merge), then stops."""
    word = tuple(pretoken[i : i + 1] for i in range(len(pretoken)))
    while len(word) > 1:
        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float("inf")))
        word = merge_word(word, best)
        if best not in ranks:
            break
    return list(word)


CHARACTERS_HINT = ("you started from the pretoken's characters, not its bytes: a character of 2 to 4 bytes was one part "
                   "from the start. BPE starts from single bytes (split_into_bytes(pretoken)), and merges decide which "
                   "bytes of a character end up together, if any")


def encode_hint(args: tuple, expected: object, got: object) -> str | None:
    """A merge left undone, the leftmost pair taken first, the highest rank taken first, the merges taken in the
    order the dict lists them, one occurrence merged at a time, or a token that no merge makes."""
    pretoken, ranks = args
    if not isinstance(got, list) or not all(type(token) is bytes for token in got):
        return None
    if b"".join(got) != pretoken and b"".join(got) == pretoken.decode("utf-8", errors="replace").encode("utf-8"):
        return ("you started from the pretoken's characters (its bytes decoded as text), not its bytes: these bytes are "
                "no UTF-8 text, and decoding replaced them; start from its single bytes (split_into_bytes)")
    if b"".join(got) != pretoken:
        return ("your tokens do not join back into the pretoken: each merge replaces two neighbouring tokens by their "
                "concatenation, and nothing is lost or repeated")
    if got != expected and got == _from_characters(pretoken, ranks):
        return CHARACTERS_HINT
    made = {left + right for left, right in ranks}
    unmade = [token for token in got if len(token) > 1 and token not in made]
    if unmade and got == _merged_before_the_check(pretoken, ranks):  # walk55: told to start from single bytes
        return (f"your tokens hold {unmade[0]!r}, made by merging a pair that is no merge: min gives a pair even when no "
                "neighbouring pair is a merge, so check that the pair it gives is in ranks before you merge it, and stop "
                "there if it is not. (Or else, if you keep answers from one call for the next: key them by the ranks too, "
                "the same bytes encode otherwise with other ranks)")
    if unmade:
        return (f"your tokens hold {unmade[0]!r}, which is neither a single byte nor made by a merge of these ranks: "
                "start from the pretoken's single bytes (split_into_bytes, not its characters), and if you keep answers "
                "from one call for the next, key them by the ranks too (the same bytes encode otherwise with other ranks)")
    if got != expected and got == _in_rank_order(pretoken, ranks) and got not in (_in_dict_order(pretoken, ranks),
                                                                                 _one_round(pretoken, ranks)):
        return ("you applied each merge once, everywhere, in rank order (one pass per merge): that is BPE only when every "
                "merge's two parts are made by merges of lower rank (trained ranks); here a merge's result takes part in "
                "a merge of lower rank, learned before it in this order. Take the pair of lowest rank among the "
                "neighbours each time, and look again after each merge (it also skips the merges that cannot apply: "
                "one pass per merge is 50,000 passes per pretoken with GPT-2's ranks)")
    # walk53: the pairs looked up as their joined bytes (no merge ever found) or turned round (zip(word[1:], word)) were
    # told to keep merging, or that a stand-in rank was the last rank
    present = sorted((ranks[pair], pair) for pair in zip(got, got[1:]) if pair in ranks)
    if got != expected and present and all(len(token) == 1 for token in got):
        rank, pair = present[0]
        causes = []
        if _stops_at_the_last(pretoken, ranks, got):
            causes.append(f"{pair!r} is of the last rank, {rank}: it is a merge too, and a stand-in rank for the pairs "
                          "that are no merge must be above every rank (float('inf'), or len(ranks)), not the largest one")
        elif got == _default_rank_zero(pretoken, ranks):
            causes.append("a pair that is no merge must rank after every merge, its stand-in rank above every rank "
                          "(ranks.get(pair, float('inf'))): a lower one (0, or a rank some merge has) lets min pick a pair "
                          "that is no merge, and the loop stops")
        causes.append("each pair is looked up as ranks keys it, the tuple (left, right) of zip(word, word[1:]) (not the "
                      "joined bytes left + right, not the pair turned round)")
        if rank == 0:
            causes.append("rank 0 is a merge too (test pair in ranks, not the rank's truth)")
        return (f"no merge was applied, though {pair!r}, rank {rank}, is a pair of neighbouring tokens: "
                + "; or ".join(causes))
    listed_first = {pair: position for position, pair in enumerate(ranks)}
    if got != expected and got == _turned_round(pretoken, ranks) and got not in (  # not another mistake's tokens too
            _variant(pretoken, ranks, lambda present: present[0]),
            _variant(pretoken, ranks, lambda present: max(present, key=ranks.__getitem__)),
            _variant(pretoken, ranks, lambda present: min(present, key=listed_first.__getitem__)),
            _in_dict_order(pretoken, ranks), _in_rank_order(pretoken, ranks), _one_at_a_time(pretoken, ranks)):
        return ("your pairs are turned round: zip(word[1:], word) gives (right, left); the pairs of neighbouring "
                "tokens, as ranks keys them, are zip(word, word[1:])")
    undone = sorted((ranks[pair], pair) for pair in zip(got, got[1:]) if pair in ranks)
    if undone:
        rank, pair = undone[0]
        last = max(ranks.values())

        def stops_at_the_last(present: list[Pair]) -> Pair | None:  # the last rank taken as "no merge"
            lowest = min(present, key=ranks.__getitem__)
            return None if ranks[lowest] == last else lowest

        if rank == last and got == _variant(pretoken, ranks, stops_at_the_last):
            return (f"your tokens still hold the pair {pair!r}, of the last rank, {rank}: it is a merge too; a stand-in "
                    "rank for the pairs that are no merge must be above every rank (float('inf'), or len(ranks)), not "
                    "the largest one")
        return (f"your tokens still hold the pair {pair!r}, rank {rank}: keep merging until no two neighbouring tokens "
                "form a merge (a merge makes new pairs, which later merges join)")
    leftmost = got == _variant(pretoken, ranks, lambda present: present[0])
    highest = got == _variant(pretoken, ranks, lambda present: max(present, key=ranks.__getitem__))
    lowest_first = "BPE merges the pair of lowest rank (the earliest learned) first, wherever it is, then looks again"
    # walk51a: the first pair in the dict's order taken for the lowest rank (next(pair for pair in ranks if ...)), told
    # "the leftmost pair" alone
    listed = {pair: position for position, pair in enumerate(ranks)}
    dict_order = ("a dict lists its keys in the order they were added, not by rank (its values): take the pair whose "
                  "rank, ranks.get(pair), is lowest")
    first_listed = list(ranks) != sorted(ranks, key=ranks.__getitem__) and got == _variant(
        pretoken, ranks, lambda present: min(present, key=listed.__getitem__))
    also_listed = f" (or, if you took the pair the dict ranks lists first: {dict_order})" if first_listed else ""
    as_text = got != expected and got == _variant(pretoken, ranks, lambda present: min(present, key=lambda pair: str(
        ranks[pair])))
    if as_text:  # walk57: told only "the leftmost pair, or the highest rank", which its tokens matched by chance
        others = [way for way, fits in (("the leftmost pair that is a merge", leftmost),
                                        ("the pair of highest rank", highest)) if fits]
        return ("you compared the ranks as text (str(rank), or a key that makes one): '173' < '8' as strings, so the "
                "pair that wins is not the one of lowest rank; compare the ranks as numbers, ranks.get(pair, "
                "float('inf'))" + (f" (or else you merged {' or '.join(others)} first: {lowest_first})" if others
                                   else ""))
    if leftmost and highest:
        return (f"you merged the leftmost pair that is a merge first, or you merged the pair of highest rank first (here "
                f"both give your tokens): {lowest_first}{also_listed}")
    if leftmost:
        return (f"you merged the leftmost pair that is a merge first: {lowest_first} (the leftmost only breaks ties)"
                f"{also_listed}")
    if highest:
        return f"you merged the pair of highest rank first: {lowest_first}{also_listed}"
    if first_listed:
        return f"you merged the pair the dict ranks lists first among the neighbours: {dict_order}, then look again"
    if got != expected and got == _one_at_a_time(pretoken, ranks):
        return ("you merged the pair of lowest rank where it first occurs, then looked again: task 2 merges it everywhere "
                "in the word in one pass (merge_word), then looks again. The two part ways when a merge's result takes "
                "part in a merge of lower rank (merges reordered by hand, as here): one merge at a time is lab 07's heap "
                "encoder, not this task")
    if got != expected and got == _in_dict_order(pretoken, ranks):
        return ("you applied each merge once, in the order the dict ranks lists them: a dict's order is not the rank "
                "order (the ranks are its values, and a dict can list them in any order). Take the pair of lowest rank "
                "among the neighbours each time, ranks.get(pair), wherever the dict lists it")
    return None


# ranks unchanged (the statement says so): a merge popped from the caller's dict once applied gives the right tokens
# of this pretoken, and encode_text, which passes the same dict for every pretoken, never applies it again (novel50).
def endless_encode_hint(args: tuple, error: BaseException) -> str | None:
    """walk53: merge_word's result dropped (merge_word(word, best), not word = ...) loops for ever: the visible test never
    returned in a learner's kernel."""
    if error_name(error) == "TookTooLong":
        return ("encode_pretoken did not return: does each round keep merge_word's result (word = merge_word(word, best))? "
                "merge_word returns a new tuple and leaves its argument as it is, so a loop that drops the result finds "
                "the same pair again for ever. And does it stop when no neighbouring pair is a merge?")
    return None


# A loop that never ends is stopped after PRETOKEN_SECONDS of CPU time in a learner's kernel (the solution takes well under
# a second on the visible cases, GPT-2's ranks included); the grading worker's own call limit stops it there.
PRETOKEN_SECONDS = 10.0
ENCODE_PRETOKEN_TASK = Task("encode_pretoken", ("pretoken", "ranks"), what="a list of bytes tokens", hint=encode_hint,
                            provided=PROVIDED, unchanged=(1,), kernel_time_limit=PRETOKEN_SECONDS,
                            error_hint=endless_encode_hint)


def encode_pretoken_cases() -> list[Case]:
    # The worked example of page 06: the merges of " work" (I, he, work, worked, works), in the
    # course's training order, then the same merges in another order.
    trained = merge_ranks([(b"w", b"o"), (b"wo", b"r"), (b"wor", b"k"), (b" ", b"work"), (b"h", b"e"), (b"e", b"d"),
                          (b" work", b"ed"), (b" work", b"s")])
    other_order = merge_ranks([(b"e", b"d"), (b"k", b"ed"), (b"w", b"o"), (b"wo", b"r"), (b" ", b"wor")])
    cases = [
        Case((b" worked", trained)),
        Case((b" worked", other_order)),  # same text, other ranks: (k, ed) is learned before (wor, k) exists
        Case((b"aaa", {(b"a", b"a"): 0})),  # left to right, no overlap: (aa, a)
        Case((b"aaaaa", {(b"a", b"a"): 0, (b"aa", b"a"): 1})),
        Case((b"abc", {(b"a", b"b"): 1, (b"b", b"c"): 0})),  # (b, c) has the lower rank: a, bc
        Case((b"", {(b"a", b"b"): 0})),
        Case((b"xyz", {})),
    ]
    corpus_en = corpus_en_ranks()
    for pretoken in (b" Tokenizers", b" once", b"\xc3\xa9t\xc3\xa9"):
        ranks = ranks_for(pretoken, corpus_en)
        cases.append(Case((pretoken, ranks), labels={1: f"<the corpus.en ranks that occur here: {len(ranks)} merges>"}))
    for pretoken in (b" Hello", b" tokenization", b" \xf0\x9f\x99\x82"):
        ranks = ranks_for(pretoken, gpt2_ranks())
        cases.append(Case((pretoken, ranks), labels={1: gpt2_label(ranks)}))
    return cases


@st.composite
def pretoken_and_ranks(draw) -> tuple[bytes, dict[Pair, int]]:
    """Ranks learned by the reference on a small corpus of similar words, and a word (often one of
    the corpus's); or a GPT-2 word with GPT-2's ranks."""
    if draw(st.integers(0, 3)) == 0:
        word = draw(st.sampled_from(GPT2_WORDS) | st.text(alphabet="abeinrst éü中", min_size=1, max_size=10))
        pretoken = word.encode("utf-8")
        return pretoken, listed_in_any_order(draw, ranks_for(pretoken, gpt2_ranks()))
    corpus = draw(st.dictionaries(st.text(alphabet="abcé ", min_size=1, max_size=8).map(str.encode), st.integers(1, 6),
                                  min_size=1, max_size=6))
    ranks = merge_ranks(train(corpus, draw(st.integers(0, 14))))
    pretoken = draw(st.sampled_from(sorted(corpus)) | st.text(alphabet="abcé ", max_size=9).map(str.encode))
    kind = draw(st.integers(0, 5))
    if kind < 2:  # a third: bytes that are no UTF-8 text (an é cut), which going through text changes
        cut = draw(st.integers(0, len(pretoken)))
        pretoken = pretoken[:cut] + draw(st.sampled_from([b"\xc3", b"\xa9", b"\xa9\xc3"])) + pretoken[cut:]
    elif kind == 2:  # a sixth: the empty pretoken, no tokens
        pretoken = b""
    return pretoken, listed_in_any_order(draw, ranks)


def listed_in_any_order(draw, ranks: dict[Pair, int]) -> dict[Pair, int]:
    """``ranks``, the same values, listed in an order drawn (half the time): a dict's order is not its rank order, so an
    encoder that applies the merges in the order the dict lists them (one pass over ``ranks``) gives other tokens."""
    if len(ranks) < 2 or draw(st.booleans()):
        return ranks
    return dict(draw(st.permutations(list(ranks.items()))))


GPT2_WORDS = [" the", " tokenizer", "Hello", " world", " naïve", " café", " 中文", " 🙂", " encoding", " decoded",
              " aaaaaaa", " mississippi", "'s", " 2026", "!!!", "\n\n", " antidisestablishmentarianism"]

# Hidden fixed cases: merges reordered by hand, where a merge's result takes part in a merge of lower rank, so that
# merging the best pair where it first occurs, then looking again (lab 07's heap order), gives other tokens than
# merging it everywhere (merge_word); trained ranks never tell the two apart, and the visible cases do not either.
HIDDEN_PRETOKEN_CASES = [
    Case((b"abab", {(b"ab", b"a"): 0, (b"a", b"b"): 1})),  # everywhere: ab ab; one at a time: aba b
    Case((b"aaaa", {(b"aa", b"a"): 0, (b"a", b"a"): 1})),  # everywhere: aa aa; one at a time: aaa a
    # The same pretoken, one call after the other, with ranks of the same pairs in another order: an encoder that keeps
    # its answers by the pretoken and the ranks' size or pairs (not their ranks) gives the first answer twice.
    Case((b"abc", {(b"a", b"b"): 0, (b"b", b"c"): 1})),  # ab c
    Case((b"abc", {(b"b", b"c"): 0, (b"a", b"b"): 1})),  # a bc
    # (a, a) makes aa, which takes part in (aa, a) of the lower rank: every merge once in rank order (each pass of
    # merge_word, (aa, a) before any aa exists) gives xy aa aa a; BPE gives xy aa aaa, one round xy a a a a a. Listed
    # (a, a) before (aa, a), so that the merges in the dict's order give BPE's tokens here. The seventeenth learner round
    # (novel44): that encoder kept the hidden points under one secret seed of eight (the merges reordered by hand,
    # reordered_inputs, drew none there).
    Case((b"xyaaaaa", {(b"x", b"y"): 0, (b"a", b"a"): 2, (b"aa", b"a"): 1})),
]

def renamed_bytes(args: tuple, rng: random.Random) -> tuple:
    """A fixed hidden case of an encoder (a pretoken and ranks, maybe ranks after) with every byte renamed by one
    permutation drawn from the grading's secret seed (``hidden_vary``): the pairs, their ranks and so the merges keep
    their shape, but a table of the public cases' answers no longer finds them. One permutation for every case of a
    grading (not one per case, ``rng`` unused), so that two cases of one pretoken under other ranks stay one pretoken."""
    table = list(range(256))
    random.Random(f"{current_seed()}:renamed bytes").shuffle(table)
    permutation = bytes(table)

    def renamed(value: object) -> object:
        if isinstance(value, bytes):
            return value.translate(permutation)
        if isinstance(value, tuple):
            return tuple(renamed(item) for item in value)
        if isinstance(value, dict):
            return {renamed(key): item for key, item in value.items()}  # the ranks' keys; their ranks kept
        return value

    return tuple(renamed(arg) for arg in args)


# An encoder that keeps what it computed for a ranks dict by id(ranks) (a dict is unhashable: "the same object, the same
# answers") gives a later call the answers of an earlier dict whenever the object at that id is another, or the same one
# changed: the next call's ranks often lands where the last one's was freed, so it lost points under some seeds only.
# The caller's dict, changed in place between two calls, makes it happen every time (lab 07's task 3 and lab 08's tasks 2 and 3 too).


def same_ranks_changed(function: Callable, pretoken: bytes, before: dict, after: dict) -> list:
    """Call ``function(pretoken, ranks)`` twice on one ``ranks`` dict, holding ``before``, then changed in place to hold
    ``after`` (a driver): what the two calls returned."""
    ranks = dict(before)
    first = function(pretoken, ranks)
    ranks.clear()
    ranks.update(after)
    return [first, function(pretoken, ranks)]


def same_merges_note(before: object, after: object) -> str:
    """A sentence for two ranks dicts of the same merges in another order, which a key made of the pairs alone
    (frozenset(ranks)) takes for one vocabulary; empty otherwise."""
    if isinstance(before, dict) and isinstance(after, dict) and before != after and before.keys() == after.keys():
        return (" The two hold the same merges in another order: a key made of the pairs alone (frozenset(ranks)) is "
                "the same for both, and BPE applies the lowest rank first; key by the items, ranks too.")
    return ""


def same_ranks_hint(args: tuple, expected: object, got: object) -> str | None:
    if isinstance(expected, list) and isinstance(got, list) and len(got) == 2 and got[0] == expected[0]:
        pretoken, before, after = args
        if (type(pretoken) is bytes and isinstance(after, dict) and len(expected) == 2 and got[1] != expected[1]
                and all(type(rank) is int for rank in after.values())
                and got[1] == _variant(pretoken, after, lambda present: min(present, key=lambda pair: str(after[pair])))):
            # walk57: ranks compared as text, right by chance on the first call's ranks, told of a cache by id(ranks)
            return ("the second call's tokens are those of ranks compared as text (str(rank)): '173' < '8' as strings; "
                    "compare the ranks as numbers, ranks.get(pair, float('inf'))")
        # the same pairs in the same order with other ranks: a function that numbers the pairs by their place in the
        # dict (enumerate(ranks)) gives the first call's tokens again too, with nothing kept (walk49)
        in_order = (" (Or else: your function takes a pair's rank from its place in the dict, not from its value "
                    "ranks[pair]: the second dict holds the same pairs in the same order, with other ranks.)"
                    if list(before) == list(after) else "")
        return ("the second call gave other tokens than its ranks give: the caller changed its ranks dict in place "
                "after the first call. Whatever you keep from call to call (answers, valid tokens) must be keyed by "
                "what ranks holds, not by the dict's id: or keep nothing" + same_merges_note(before, after) + in_order)
    return None


@st.composite
def same_ranks_changed_inputs(draw) -> tuple[bytes, dict, dict]:
    """A pretoken and its ranks, then other ranks (of another word, or the same merges in another order)."""
    pretoken, before = draw(pretoken_and_ranks())
    after = draw(st.just(dict(zip(before, reversed(before.values())))) | pretoken_and_ranks().map(lambda case: case[1]))
    return pretoken, before, after


def changed_between_calls(task: Task, reference: Callable, cases: list, strategy) -> TaskGraders:
    """The second declaration of an encoder ``task`` (a pretoken, ranks): one ranks dict changed between two calls,
    its fixed cases visible and hidden, then a few drawn from ``strategy`` (a pretoken, ranks before, ranks after)."""
    return TaskGraders(replace(task, params=("pretoken", "ranks before", "ranks after, the same dict changed in place"),
                               driver=same_ranks_changed, hint=same_ranks_hint, what="a list of the two calls' results",
                               error_hint=task.error_hint and (lambda args, error: task.error_hint((args[0], args[2]), error))),
                       # the task's own error hint reads (pretoken, ranks): given the second call's
                       reference, cases, strategy, max_examples=10, hidden_cases=cases, hidden_vary=renamed_bytes)


@st.composite
def reordered_inputs(draw) -> tuple[bytes, dict[Pair, int]]:
    """A pretoken of 4 to 16 letters around x y x y, and the merges the reference learns from it with (x y, x) moved
    to rank 0, before the merge (x, y) that makes x y: the merges reordered by hand of the fixed hidden cases
    (HIDDEN_PRETOKEN_CASES), drawn, where a merge's result takes part in a merge of lower rank, so that merging the
    best pair where it first occurs gives other tokens than merging it everywhere (most of them); a quarter of them 4
    bytes long (lab 07's heap_encode keeps those where its heap and lab 06's rounds differ)."""
    x, y = draw(st.sampled_from(b"abxy")), draw(st.sampled_from(b"abxy"))
    flank = st.just(b"") | st.lists(st.sampled_from(b"abxy"), max_size=6).map(bytes)
    pretoken = draw(flank) + bytes([x, y, x, y]) + draw(flank)
    moved, first = (bytes([x, y]), bytes([x])), (bytes([x]), bytes([y]))
    trained = [merge for merge in train({pretoken: 1}, draw(st.integers(1, 12))) if merge != moved]
    return pretoken, merge_ranks([moved, *trained, *([] if first in trained else [first])])


SAME_RANKS_CASES = [Case((b"abc", {(b"a", b"b"): 0, (b"b", b"c"): 1}, {(b"b", b"c"): 0, (b"a", b"b"): 1}))]

# The pretokens' cost: each step looks at the pretoken's pairs (ranks.get for each), O(L) a step, whatever the number
# of merges. A step that sorts the ranks to find the first merge learned among the pairs (sorted(ranks, key=ranks.get),
# then the first present: the right tokens) costs O(M log M) a step, and kept the hidden points, whose ranks hold a few
# dozen merges (novel50). One long pretoken (8233a9b) measured too few steps against the ranks sent once: 0.46 s against
# a bound of 0.45 s in the worker. So the measured call encodes ENCODE_MEASURED_PRETOKENS short pretokens with one ranks
# dict, as task 3 does (a driver in the worker): the ranks are sent, decoded and copied once, and every step of every
# pretoken pays the sort. Pretokens of ENCODE_MEASURED_BYTES letters of four, drawn from the grading's seed, with every
# merge of two letters and of two such pairs (272) among ENCODE_MEASURED_MERGES merges of other bytes, the ranks
# shuffled. In the grading worker at load 10 on 2 cores, the bound 0.2 s + 5 times the reference's 0.02 s (with the copy
# of its arguments) = 0.3 s: the course's solution 0.04 to 0.06 s, written with plain loops 0.05 s, with a copy of the
# ranks at each call and of the word at each step 0.06 to 0.10 s (the worker decodes the ranks once: 0.03 s); a sort per
# step stopped past 1.0 s (2.1 s in process), a scan of the ranks per step 0.89 s, a sort once per call 0.62 s.
ENCODE_MEASURED_PRETOKENS, ENCODE_MEASURED_BYTES, ENCODE_MEASURED_MERGES = 500, 10, 10_000
ENCODE_FACTOR, ENCODE_SLACK, ENCODE_SECONDS = 5.0, 0.2, 4.0


def each_pretoken(function: Callable, pretokens: list, ranks: dict) -> list:
    """``function(pretoken, ranks)`` for each pretoken, one ranks dict for all (a driver, as task 3 calls it)."""
    return [function(pretoken, ranks) for pretoken in pretokens]


def encode_each_pretoken(pretokens: list[bytes], ranks: dict[Pair, int]) -> list[list[bytes]]:
    """The reference's tokens of each pretoken: what the measured call must return."""
    return each_pretoken(encode_pretoken, pretokens, ranks)


def letters_among_merges(label: str, count: int, lengths: tuple[int, int], merges: int) -> tuple[list[bytes], dict]:
    """``count`` pretokens of ``lengths`` letters of ``abcd`` and ranks of every merge of two letters and of two such
    pairs, among about ``merges`` merges of bytes the pretokens never hold, in a shuffled rank order, drawn from the
    grading's seed under ``label`` (each measured call its own)."""
    rng = measured.measured_random(f"06_encode_decode:encode_pretoken:{label}")
    letters = [bytes([byte]) for byte in b"abcd"]
    pairs = [x + y for x in letters for y in letters]
    ranked = [(x, y) for x in letters for y in letters] + [(x, y) for x in pairs for y in pairs]
    other = dict.fromkeys((rng.randbytes(rng.randint(1, 3)), rng.randbytes(rng.randint(1, 3))) for _ in range(merges))
    ranked += [pair for pair in other if not any(byte in b"abcd" for byte in pair[0] + pair[1])]
    rng.shuffle(ranked)
    return [bytes(rng.choices(b"abcd", k=rng.randint(*lengths))) for _ in range(count)], merge_ranks(ranked)


def short_pretokens_many_merges(index: int, scale: float = 1.0) -> tuple[list[bytes], dict[Pair, int]]:
    """:data:`ENCODE_MEASURED_PRETOKENS` pretokens of :data:`ENCODE_MEASURED_BYTES` letters among
    :data:`ENCODE_MEASURED_MERGES` merges (:func:`letters_among_merges`; ``index``: the measured call's)."""
    return letters_among_merges(str(index), round(ENCODE_MEASURED_PRETOKENS * scale), (ENCODE_MEASURED_BYTES,) * 2,
                                round(ENCODE_MEASURED_MERGES * scale))


ENCODE_COST = measured.MeasuredCost(
    task=replace(ENCODE_PRETOKEN_TASK, params=("pretokens", "ranks"), driver=each_pretoken,
                 what="a list of the tokens of each pretoken"),
    reference=encode_each_pretoken, build=short_pretokens_many_merges,
    spread=measured.COST_SPREAD,
    shape=f"<each of {ENCODE_MEASURED_PRETOKENS} or more pretokens of {ENCODE_MEASURED_BYTES} bytes>, <{ENCODE_MEASURED_MERGES:,} or more "
          "merges, 272 of them of their bytes>",
    factor=ENCODE_FACTOR, slack=ENCODE_SLACK, timeout=ENCODE_SECONDS,
    too_slow="does each step sort or scan all the merges (sorted(ranks, key=ranks.get), a loop over ranks) to find the "
             "first one present? That costs O(M log M) a step, for M merges, at every step of every pretoken of a text; "
             "the pretoken's own pairs are few: take min(pairs, key=lambda pair: ranks.get(pair, inf)), O(L) a step",
    said=lambda cost, name: cost.said(f"{name}: {ENCODE_MEASURED_PRETOKENS} or more pretokens of {ENCODE_MEASURED_BYTES} "
                                      f"bytes with {ENCODE_MEASURED_MERGES:,} or more merges (drawn) in "))


# A call's cost: task 3 calls encode_pretoken once per pretoken, with GPT-2's 50,000 merges, so nothing per call may look
# at every merge. A default rank computed as max(ranks.values()) + 1 at each call (the hint's "a default rank larger than
# any merge"), a copy of the ranks or a set of their pairs made at each call, give the right tokens at O(M) a call: in
# process, 1,601 words with GPT-2's ranks 1.24 s against 0.008 s (walk58); ENCODE_COST's 500 pretokens with 10,000 merges
# took them for 0.06 to 0.10 s, within its bound. So the hidden test also encodes PER_CALL_PRETOKENS pretokens of 1 to 3
# bytes with PER_CALL_MERGES merges (a driver calls it for each, in the worker): in process, a max() of the ranks at each
# call 1.9 s, a copy of them 0.55 s, a set of their pairs 2.7 s, the reference 0.02 s (the worker decodes the ranks once,
# about 0.1 s: the slack).
PER_CALL_PRETOKENS, PER_CALL_MERGES = 8_000, 50_000
PER_CALL_FACTOR, PER_CALL_SLACK, PER_CALL_SECONDS = 4.0, 0.3, 4.0


def very_short_pretokens_many_merges(index: int, scale: float = 1.0) -> tuple[list[bytes], dict[Pair, int]]:
    """:data:`PER_CALL_PRETOKENS` pretokens of 1 to 3 letters among :data:`PER_CALL_MERGES` merges
    (:func:`letters_among_merges`; ``index``: the measured call's)."""
    return letters_among_merges(f"per call:{index}", round(PER_CALL_PRETOKENS * scale), (1, 3),
                                round(PER_CALL_MERGES * scale))


def per_call_cost(task: Task, driver: Callable, reference: Callable, too_slow: str) -> measured.MeasuredCost:
    """``task``'s function called by ``driver`` on each of :data:`PER_CALL_PRETOKENS` very short pretokens with one ranks
    dict of :data:`PER_CALL_MERGES` merges, in one measured call: at most :data:`PER_CALL_SLACK` plus
    :data:`PER_CALL_FACTOR` times the reference's (``reference(pretokens, ranks)``), CPU time read from outside. Lab 07's
    first_heap and heap_encode are measured so too."""
    return measured.MeasuredCost(
        task=replace(task, params=("pretokens", "ranks"), driver=driver, observe=None,
                     what="a list of the answers for each pretoken"),
        reference=reference, build=very_short_pretokens_many_merges, spread=measured.COST_SPREAD,
        shape=f"<each of {PER_CALL_PRETOKENS:,} or more pretokens of 1 to 3 bytes>, <{PER_CALL_MERGES:,} or more merges, "
              "272 of them of their bytes>",
        factor=PER_CALL_FACTOR, slack=PER_CALL_SLACK, timeout=PER_CALL_SECONDS, too_slow=too_slow,
        said=lambda cost, name: cost.said(f"{name}: {PER_CALL_PRETOKENS:,} or more pretokens of 1 to 3 bytes with "
                                          f"{PER_CALL_MERGES:,} or more merges (drawn) in "))


PER_CALL_COST = per_call_cost(
    ENCODE_PRETOKEN_TASK, each_pretoken, encode_each_pretoken,
    too_slow="does each call look at every merge: a default rank of max(ranks.values()) + 1, a copy of ranks, a set of "
             "its pairs? encode_text calls encode_pretoken once per pretoken, with 50,000 merges: O(M) a call. A default "
             "of float('inf') (or len(ranks)) is larger than any rank at no cost; ranks.get(pair, default) reads the "
             "dict as it is")


def verify_encode_cost(learner: Callable) -> None:
    """``encode_pretoken`` looks at the pretoken's pairs at each step (CPU time, measured from outside the learner's code,
    over many short pretokens with one large ranks dict): a step that sorts or scans the ranks costs O(M log M); and
    nothing at each call looks at every merge (very short pretokens, many merges)."""
    ENCODE_COST.verify(learner)
    PER_CALL_COST.verify(learner)


# Trained ranks two times out of three, merges reordered by hand the third (what the fixed hidden cases hold, drawn).
# The cost measured last in the hidden test (as task 1's): a wrong encoding fails on the cases first, with its hint.
ENCODE_PRETOKEN = TaskGraders(ENCODE_PRETOKEN_TASK, encode_pretoken, encode_pretoken_cases(),
                              st.one_of(pretoken_and_ranks(), pretoken_and_ranks(), reordered_inputs()),
                              max_examples=60, hidden_cases=HIDDEN_PRETOKEN_CASES, hidden_vary=renamed_bytes,
                              then=changed_between_calls(ENCODE_PRETOKEN_TASK, encode_pretoken, SAME_RANKS_CASES,
                                                         same_ranks_changed_inputs()),
                              hidden_then=verify_encode_cost)

# ---- task 3: a text, special tokens first --------------------------------------------------------


def tokens_otherwise(text: str, ranks: dict[Pair, int], special_tokens: list[str], *, escaped: bool = True,
                     empties_dropped: bool = False, specials_encoded_too: bool = False) -> list[bytes] | None:
    """What ``encode_text`` gives when the special tokens go into the alternation unescaped (``|`` then splits
    ``<|endoftext|>`` into three alternatives), when the split's empty pieces are dropped before its special tokens
    are told by their odd places, or when a special token, appended whole, is then encoded as text too (no
    ``continue``); ``None`` when that pattern does not compile."""
    if not special_tokens:
        return None
    tokens_first = sorted(special_tokens, key=len, reverse=True)
    try:
        pieces = regex.split("(" + "|".join(map(regex.escape, tokens_first) if escaped else tokens_first) + ")", text)
    except regex.error:
        return None
    tokens: list[bytes] = []
    for i, piece in enumerate(piece for piece in pieces if piece or not empties_dropped):
        if i % 2 == 1:
            tokens.append((piece or "").encode("utf-8"))
        if i % 2 == 0 or specials_encoded_too:
            for pretoken in PRETOKEN_RE.findall(piece or ""):
                tokens += encode_pretoken(pretoken.encode("utf-8"), ranks)
    return tokens


ESCAPED_WHOLE = ("regex.escape of the joined alternation escapes its '|' too, so the pattern matches only all the tokens "
                 "written one after the other with '|' between them: escape each token, then join them with '|'")


def split_one_after_another(text: str, ranks: dict[Pair, int], special_tokens: list[str]) -> list[bytes]:
    """What ``encode_text`` gives when it cuts at one special token after another, the longest first, each in the pieces
    of text the ones before left (walk53): a shorter token that starts first loses to a longer one that starts later."""
    pieces = [text]
    for special in sorted(special_tokens, key=len, reverse=True):
        cut: list[str] = []
        for i, piece in enumerate(pieces):
            if i % 2:
                cut.append(piece)
            else:
                cut += regex.split("(" + regex.escape(special) + ")", piece)
                if len(cut) % 2 == 0:
                    cut.append("")
        pieces = cut
    tokens: list[bytes] = []
    for i, piece in enumerate(pieces):
        if i % 2:
            tokens.append(piece.encode("utf-8"))
        else:
            for pretoken in PRETOKEN_RE.findall(piece):
                tokens += encode_pretoken(pretoken.encode("utf-8"), ranks)
    return tokens


def text_hint(args: tuple, expected: object, got: object) -> str | None:
    text, ranks, special_tokens = args
    if isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected) and any(
            type(token) is str and isinstance(wanted, bytes) and token.encode("utf-8") == wanted
            for token, wanted in zip(got, expected)):  # walk53: told nothing
        token = next(token for token in got if type(token) is str)
        return (f"your tokens hold the str {token!r}: every token is bytes, a special token too: append its UTF-8 "
                f"bytes, {token.encode('utf-8')!r} (piece.encode('utf-8'))")
    if not isinstance(got, list) or not all(type(token) is bytes for token in got):
        return None
    if b"" in got:
        if not special_tokens:
            return ("your tokens include b'' (empty tokens): with no special tokens, skip the split; the empty alternation "
                    "'()' matches at every position, and each of its empty matches became a token")
        return ("your tokens include b'' (empty tokens): every token has at least one byte; drop the empty pieces the "
                "split leaves (a text that starts or ends with a special token gives one)")
    if got != expected and got == tokens_otherwise(text, ranks, special_tokens, empties_dropped=True):
        return ("the split leaves an empty piece before a special token that starts the text, between two adjacent ones "
                "and after one that ends it; the special tokens are the pieces at the odd places only when those "
                "empty pieces stay: drop them after telling the pieces apart, not before")
    if got != expected and got == tokens_otherwise(text, ranks, special_tokens, specials_encoded_too=True):
        return ("each special token is there twice: whole, then again as text, pretoken by pretoken: once it is "
                "appended, go on to the next piece (continue), as the separators at the odd places are not text")
    if got != expected and got == tokens_otherwise(text, ranks, special_tokens, escaped=False):
        return ("a special token came out in pieces: regex.escape each token before joining them with '|' "
                "(inside a token, '|' is alternation, so '<|endoftext|>' became '<', 'endoftext' and '>')")
    # walk53: the joined alternation escaped whole was told that no special token was cut out (where the tokens joined
    # by '|' occur in the text: else it says so too); one special token cut out after another was told about the tokens
    # of other calls
    joined = "|".join(sorted(special_tokens, key=len, reverse=True))
    if got != expected and len(special_tokens) > 1 and joined in text and got == encode_text(text, ranks, [joined]):
        return ESCAPED_WHOLE
    if got != expected and len(special_tokens) > 1 and got == split_one_after_another(text, ranks, special_tokens):
        return ("you cut at one special token after another, the longest first: a shorter one that starts earlier then "
                "loses to a longer one that starts later (the leftmost match wins, and among matches at the same place "
                "the longest). Cut at all of them at once, with one alternation of the escaped tokens sorted longest "
                "first: a regular expression tries each position from the left, and at each the alternatives in order")
    specials = {token.encode("utf-8") for token in special_tokens}
    # walk55: the same bytes appended for every special token (EOT's, or the first listed) was told that the tokens
    # overlap, or that the special tokens were gone
    at_specials = [i for i, token in enumerate(expected) if token in specials]  # type: ignore[arg-type]
    if (got != expected and len(got) == len(expected) and at_specials
            and all(got[i] == expected[i] for i in range(len(got)) if i not in at_specials)
            and len({got[i] for i in at_specials}) == 1 < len({expected[i] for i in at_specials})):  # type: ignore[index]
        fixed = got[at_specials[0]]
        return (f"every special token became {fixed!r}: a special token is one token of its own bytes, the one the split "
                "matched (the separator at an odd position: piece.encode('utf-8')), not one fixed token for all of them")
    for token in got:
        if token not in specials and token.decode("latin-1") in special_tokens:
            return ("a special token's bytes are its UTF-8 encoding, token.encode('utf-8'), as for all text: "
                    f"{token.decode('latin-1')!r} is {token.decode('latin-1').encode('utf-8')!r}, not {token!r}")
        folded = token.decode("utf-8", "replace").casefold()
        if token not in specials and any(folded == special.casefold() for special in special_tokens):
            return (f"your tokens hold {token!r}, a special token in another case: a special token matches as it is "
                    "written, case included (no IGNORECASE), as tiktoken's does; other text is ordinary text")
    if (got != expected and any(special in text for special in special_tokens)
            and got == encode_text(text, ranks, [])):
        # walk51a: special tokens looked up among the pretokens were told "the tokens of other special tokens" (a call
        # before's, which do not occur in this text either)
        escaped = f" If you escape the pattern: {ESCAPED_WHOLE}." if len(special_tokens) > 1 else ""
        return ("no special token was cut out: these are the text's tokens with no special tokens at all. Cut them out "
                "of the text first, whole, and pretokenize only the pieces between them: no pretoken is ever a special "
                "token (the GPT-2 pattern cuts '<|endoftext|>' into '<|', 'endoftext' and '|>'). If you build the "
                f"pattern once: {KEPT_PATTERN}.{escaped}")
    for case in [*ENCODE_TEXT.cases, *ENCODE_TEXT.hidden_cases]:
        tokens = case.args[2] if isinstance(case, Case) else case[2] if isinstance(case, tuple) else []
        if tokens and not set(tokens) <= set(special_tokens) and got == encode_text(text, ranks, list(tokens)):
            return (f"these are the tokens of other special tokens ({tokens!r}) than this call's: {KEPT_PATTERN}. Or, if a "
                    "special token came out as ordinary text: split at every occurrence of each (no maxsplit)")
    got_specials = [token for token in got if token in specials]
    expected_specials = [token for token in expected if token in specials]  # type: ignore[union-attr]
    if got_specials != expected_specials and got_specials == expected_specials[:len(got_specials)]:
        if b"".join(got) != text.encode("utf-8"):
            return ("the special tokens are gone from your tokens: regex.split drops what its pattern matches unless "
                    "the pattern is one capturing group, regex.split(f'({pattern})', text), which keeps them")
        return ("a special token came out as ordinary text: split at every special token, every occurrence of it "
                "(no maxsplit), before pretokenizing. regex.split's third argument is maxsplit: a flag passed there "
                "(regex.MULTILINE is 8) caps the cuts; pass flags by name, flags=..., and this split needs none")
    if got_specials != expected_specials:
        if len(set(special_tokens)) > 1 and any(a != b and a in b for a in special_tokens for b in special_tokens):
            return ("special tokens overlap here: at each place the leftmost match wins, and among matches at the same "
                    "place the longest; an alternation of the tokens sorted longest first does both "
                    "(regex.escape each token: '|' is a metacharacter)")
        return ("a special token is whole, one token with its own bytes: find them before pretokenizing (split with a "
                "capturing group, regex.split(f'({pattern})', text), keeps them)")
    if b"".join(got) != text.encode("utf-8"):
        for form in ("NFC", "NFKC", "NFD", "NFKD"):
            if b"".join(got) == unicodedata.normalize(form, text).encode("utf-8"):
                return (f"your tokens are those of the text normalized to {form} (unicodedata.normalize): encode the text "
                        "as it is given, its exact UTF-8 bytes, as tiktoken does; 'e' followed by a combining accent is "
                        "two characters, and stays two")
        return "your tokens do not join back into the text: the pieces between special tokens must all be encoded"
    made = {left + right for left, right in ranks} | specials
    unmade = [token for token in got if len(token) > 1 and token not in made]
    if unmade:
        return (f"your tokens hold {unmade[0]!r}, which is neither a single byte, a special token nor made by a merge of "
                "these ranks: if you keep answers from one call for the next, key them by the ranks too (the same text "
                "encodes otherwise with other ranks)")
    return ("the pieces between special tokens are cut into pretokens by the GPT-2 pattern (regex.findall), and each "
            "pretoken's UTF-8 bytes are encoded alone by encode_pretoken: merges never cross a pretoken")


def text_error_hint(args: tuple, error: BaseException) -> str | None:
    """A TypeError that names str: a pretoken handed to encode_pretoken as regex.findall gives it, not its bytes. An
    error on None with several special tokens: one capturing group for each token (walk55, told that a return was
    missing)."""
    special_tokens = args[2] if len(args) == 3 and isinstance(args[2], list) else []
    if error_name(error) in ("TypeError", "AttributeError") and "NoneType" in str(error) and len(special_tokens) > 1:
        return ("a piece of your split is None: with a capturing group for each special token, regex.split gives at each "
                "cut what every group matched, None for the groups that did not; put the whole alternation in one "
                "group, '(' + '|'.join(escaped tokens) + ')', so that the pieces alternate text, token, text")
    if error_name(error) == "TypeError" and "str" in str(error):
        return ("a TypeError on a str: regex.findall gives the pretokens as str, and encode_pretoken takes a pretoken's "
                "bytes: pass pretoken.encode('utf-8')")
    return None


# special_tokens unchanged (the statement says so, as lab 00's do): sorted in place, the caller's list is reordered.
ENCODE_TEXT_TASK = Task("encode_text", ("text", "ranks", "special_tokens"), what="a list of bytes tokens", hint=text_hint,
                        provided=PROVIDED, stand_ins=(encode_pretoken,), unchanged=(2,), error_hint=text_error_hint)


def text_case(text: str, special_tokens: list[str], ranks: dict[Pair, int] | None = None) -> Case:
    """``text`` with GPT-2's ranks that can apply to it (or ``ranks``)."""
    if ranks is None:
        ranks = ranks_for(text, gpt2_ranks())
        return Case((text, ranks, special_tokens), labels={1: gpt2_label(ranks)})
    return Case((text, ranks, special_tokens))


ENCODE_TEXT_CASES = [
    text_case("Hello world", []),
    text_case(f"Hello world{EOT}It's 42!", [EOT]),
    text_case(f"x{EOT}y", []),  # not a special token here: ordinary text
    text_case("hello<|end|><|end|><|endoftext|>", ["<|end|>", "<|end|><|end|>", EOT]),  # longest where they overlap
    text_case("a<|abc|>", ["<|abc|>", "a<|"]),  # leftmost first, though the other is longer
    text_case("  two spaces,\n\nnew lines\t ", []),
    text_case("naïve café 中文 🙂", []),
    text_case("", [EOT]),
]


TEXT_PIECES = ["the", " cat", " sat", "Hello", " world", "'s", " 42", "!", " ", "  ", "\n", "\n\n", "é", " café", "中文",
               "🙂", "<|eot|>", "<s>", "<|eot|><s>", "<|", "s>", EOT, "aaaa", " ab", "ba", "a<|eot|>"]
# Special tokens that overlap: longest wins where two start at the same place, but the leftmost start
# wins first ("a<|" before "<|eot|>" in "a<|eot|>"): splitting on one token at a time, longest first,
# gets that wrong, and only a list where a shorter token starts earlier shows it.
SPECIAL_LISTS = [[], [EOT], ["<|eot|>"], ["<|eot|>", "<|eot|><s>"], ["<s>", "<|eot|><s>", EOT], ["s>", "<|eot|>"],
                 ["a<|", "<|eot|>"], ["a<|", "<|eot|>", "<|eot|><s>"]]


@lru_cache(maxsize=1)
def small_trained_ranks() -> dict[Pair, int]:
    """300 merges learned by the reference on the start of a TinyStories sample: by step 05's heap, the merges of step
    01's (every trainer gives the same, tests/test_train_equivalence.py), about 0.05 s of CPU where step 01's took 0.6 s
    in every grading of lab 06."""
    from ...pretokenize import count_pretokens
    from ...train.step05_heap import train as heap_train

    counts = count_pretokens(read_corpus(data_file(TINYSTORIES_VALID))[:30_000], [EOT])
    return merge_ranks(heap_train(counts, 300))


# Every code point but lone surrogates: st.text()'s default alphabet (characters(codec="utf-8")), the same draws from the
# same seed, without hypothesis encoding every code point first to find the codec's (about 2 s of CPU per grading process).
ANY_CHARACTER = st.characters(exclude_categories=("Cs",))
# What the fixed hidden cases of task 3 hold (HIDDEN_TEXT_CASES), drawn: special tokens where a shorter one starts first
# or two start together, <|endoftext|> unlisted, characters that normalization changes (e + U+0301, the Angstrom sign,
# the ligature ﬁ), Windows line ends and blank lines at the text's end; with GPT-2's ranks and one of the lists of
# overlapping tokens. And a few short texts again and again under GPT-2's ranks or none: the same text with other ranks.
EDGE_TEXT_PIECES = [" a<|eot|>", "<|eot|><s>", "ba<|eot|><s>", "x<s>", EOT, "cafe\u0301", " \u212b", " \ufb01ne", "\r\n",
                    "Two  \r\n\r\n", " the"]
EDGE_SPECIAL_LISTS = [["<|eot|>", "a<|", "<|eot|><s>"], ["<|eot|><s>", "a<|", "<s>"], ["<|eot|>", "<s>", "<|eot|><s>"]]


# A blank line before a word (as a fixed hidden case holds): the pattern cuts "\n\n" into two pretokens there, and GPT-2's
# merge of "\n\n" across them tells a piece taken as one pretoken, with GPT-2's ranks or that merge alone (two ranks for
# one text, which also tell answers kept by the text alone).
BLANK_LINE_TEXTS = ["Hi!\n\nThe", "x\n\ny<|eot|>"]
# Two special tokens that start at the same place, listed in either order: the longer wins whatever the list's order
# (an alternation in the given order took the shorter when it came first, and the edge texts drew that too seldom: under
# secret seeds 1, 3 and 6 of 0 to 7 only a fixed hidden case caught it). <|endoftext|> in them is not listed: ordinary
# text.
SAME_START_TEXTS = ["Once<|eot|><s> upon<|endoftext|>", "<|eot|><s>", "a b<|eot|>c<|endoftext|><|eot|><s>\n"]


@st.composite
def text_inputs(draw) -> tuple[str, dict[Pair, int], list[str]]:
    if draw(st.integers(0, 5)) == 0:  # a sixth of them: a blank line before a word
        text = draw(st.sampled_from(BLANK_LINE_TEXTS))
        ranks = ranks_for(text, gpt2_ranks()) if draw(st.booleans()) else {(b"\n", b"\n"): gpt2_ranks()[b"\n", b"\n"]}
        return text, ranks, draw(st.sampled_from([[], ["<|eot|>"]]))
    if draw(st.integers(0, 9)) == 0:  # a tenth of the rest: two special tokens that start together
        text = draw(st.sampled_from(SAME_START_TEXTS))
        return text, ranks_for(text, gpt2_ranks()), list(draw(st.permutations(["<|eot|>", "<|eot|><s>"])))
    if draw(st.integers(0, 2)) == 0:  # a third of the rest: the fixed hidden cases' kind of text
        if draw(st.integers(0, 2)) == 0:
            text = draw(st.sampled_from(["the cat sat", " a<|eot|><s>", "cafe\u0301\r\n"]))
            return text, ranks_for(text, gpt2_ranks()) if draw(st.booleans()) else {}, []
        text = draw(st.lists(st.sampled_from(EDGE_TEXT_PIECES), min_size=2, max_size=8).map("".join))
        text += draw(st.sampled_from(["", "\n", "\n\n", "\r\n"]))
        special_tokens = draw(st.sampled_from(EDGE_SPECIAL_LISTS).flatmap(st.permutations))
        return text, ranks_for(text, gpt2_ranks()), list(special_tokens)
    text = draw(st.lists(st.sampled_from(TEXT_PIECES), max_size=10).map("".join) | st.text(ANY_CHARACTER, max_size=16))
    special_tokens = draw(st.sampled_from(SPECIAL_LISTS).flatmap(st.permutations))
    ranks = ranks_for(text, gpt2_ranks() if draw(st.booleans()) else small_trained_ranks())
    return text, ranks, list(special_tokens)


# Hidden fixed cases of overlapping special tokens, not the visible ones': a shorter token that starts
# first wins (split on one token at a time, longest first, loses it), and the longest where two
# start together (one at a time in the given order loses that); and a special token of GPT-2's not listed.
HIDDEN_TEXT_CASES = [
    text_case("Once a<|eot|> upon<|eot|><s>a time", ["<|eot|>", "a<|", "<|eot|><s>"]),
    text_case("ba<|eot|><s>", ["<|eot|><s>", "a<|", "<s>"]),
    text_case("x<s><|eot|><s>y", ["<|eot|>", "<s>", "<|eot|><s>"]),
    # <|endoftext|> not listed, another token listed: ordinary text (an encoder that always takes GPT-2's token as special,
    # or the visible case's only, kept the hidden points under the seeds whose texts never held it unlisted).
    text_case(f"Once<|eot|> upon{EOT} a time", ["<|eot|>"]),
    # Characters that Unicode normalization changes: e and a combining accent (NFC makes one é), the Angstrom sign
    # (NFC makes Å) and the ligature ﬁ (NFKC makes f i). An encoder that normalizes the text first kept the points:
    # the generated texts seldom hold such characters.
    text_case("cafe\u0301 \u212b \ufb01ne", []),
    # The same text with other ranks: an encoder that keeps its answers by text alone gives one of them twice.
    text_case("the cat sat", [], ranks={}),
    text_case("the cat sat", []),
    # The text as it is, to its last byte: Windows line ends and blank lines at the end (an encoder that normalizes
    # line ends, strips the text or cuts it into lines first kept the points: the generated texts seldom end so).
    text_case("One.\r\nTwo  \r\n\r\nthree\n\n", []),
    # A blank line before a word: the pattern cuts "\n\n" into two pretokens there, which GPT-2's merge of "\n\n" must not
    # cross (an encoder that takes a piece between special tokens as one pretoken kept the points under some seeds).
    text_case("The end.\n\nOnce upon a time", []),
    # 300 special tokens: a flag passed where regex.split takes maxsplit (regex.MULTILINE, 8; ASCII, 128) leaves the
    # ones past the cap to the pattern, as ordinary text (walk55: the texts of the tests held fewer than 9)
    text_case("".join(f" w{i}<s>" for i in range(300)), ["<s>"]),
    # five special tokens, each the start of the next, each in the text: only the longest first cuts every one whole (a
    # set of the tokens, in the order of their hashes, kept the points in one grading of three, walk55)
    text_case("x<a>!!!! y<a>!!! z<a>!! w<a>! v<a> u", ["<a>!!", "<a>", "<a>!!!!", "<a>!", "<a>!!!"]),
]


def tiktoken_tokens(text: str, ranks: dict[Pair, int], special_tokens: list[str]) -> list[bytes]:
    """tiktoken's tokens of ``text`` with GPT-2's vocabulary and ``special_tokens`` (GPT-2 has only
    ``<|endoftext|>``; the grader's cases use no other with GPT-2)."""
    encoding = gpt2_tiktoken()
    ids = encoding.encode(text, allowed_special=set(special_tokens), disallowed_special=())
    return [encoding.decode_single_token_bytes(token_id) for token_id in ids]


@lru_cache(maxsize=1)
def gpt2_tiktoken():
    """tiktoken's GPT-2 encoding from the vocabulary the arena case reads too (no ``Tokenizer``: 0.6 s of CPU less)."""
    from ...course.interop import gpt2_vocab_tiktoken

    return gpt2_vocab_tiktoken(gpt2_files()[0])


@st.composite
def gpt2_texts(draw) -> tuple[str, dict[Pair, int], list[str]]:
    text = draw(st.lists(st.sampled_from(TEXT_PIECES + GPT2_WORDS), max_size=12).map("".join)
                | st.text(ANY_CHARACTER, max_size=20))
    special_tokens = draw(st.sampled_from([[], [EOT]]))
    return text, ranks_for(text, gpt2_ranks()), special_tokens


# Special tokens matched as written: one past ASCII (its bytes are its UTF-8, not Latin-1's), and texts that hold them in
# another case too ("<|EOT|>" is ordinary text), which the texts above seldom hold (apart, so that their draws stay).
AS_WRITTEN_PIECES = ["<|eot|>", "<|EOT|>", "<s>", "<S>", "\u00abs\u00bb", "\u00abS\u00bb", " x", "y "]


@st.composite
def as_written_texts(draw) -> tuple[str, dict[Pair, int], list[str]]:
    pieces = draw(st.lists(st.sampled_from(AS_WRITTEN_PIECES), max_size=4))  # and in every text: one past ASCII, one
    pieces += ["\u00abs\u00bb", draw(st.sampled_from(["<|EOT|>", "<S>", "\u00abS\u00bb"]))]  # in another case
    text = "".join(draw(st.permutations(pieces)))
    return text, ranks_for(text, gpt2_ranks()), list(draw(st.permutations(["<|eot|>", "<s>", "\u00abs\u00bb"])))


# ---- task 3's cost: the tokens gathered in time linear in the text ------------------------------------------------------
# An encode_text that gathers the tokens with tokens = tokens + encode_pretoken(...) returns the right list, copying
# all it holds so far at each pretoken: time quadratic in the text, which no answer shows (the other texts are short).
# In process: 5,000 pretokens of 1 to 4 letters (2.7 tokens each) took 0.084 s, 40,000 took 11.2 s, the reference 0.022
# and 0.14 s. So the hidden test ends by measuring, from outside the learner's code, how its CPU time grows from
# TEXT_PRETOKENS pretokens or more (up to SIZE_SPREAD times as many, drawn: measured.MeasuredGrowth's spread) to TEXT_TIMES
# times as many: words of four letters drawn, <|endoftext|> after 1 to 15 of them, with the 16 merges of two of those
# letters among up to 100 merges of others (encode_pretoken is the reference's while task 3 is graded). Of fixed sizes and
# shapes, a crafted encode_text kept tokens = tokens + ... and took another way where len(ranks) == 16 (walk55's red team).
# A half to two thirds of the words run without a special token: a piece's tokens gathered by sum(lists, []),
# quadratic in one piece, cost nothing in pieces of 15 words and kept every point (walk60); 20,000 lists of 3 take 2 s
# so, and in the worker a run of 17,870 words 1.05 s against 0.04 s on 5,130 words (21 times: a run of a third to a
# half was too short).
TEXT_PRETOKENS, TEXT_TIMES, SIZE_SPREAD = 5_000, 8, 1.5
TEXT_LIMIT, TEXT_FACTOR, TEXT_SLACK, TEXT_SECONDS = 16.0, 8.0, 0.1, 5.0


def measured_text_input(index: int, pretokens: int) -> tuple[str, dict[Pair, int], list[str]]:
    """A text of ``pretokens`` words of 1 to 4 of four letters (each after a space), <|endoftext|> after every 1 to 15
    words but in one run of a half to two thirds of them, with the 16 merges of two of those letters and up to 100 of
    other letters in a shuffled rank order, drawn from the grading's seed (a fresh text for each measured call:
    ``index``), and the special token."""
    rng = measured.measured_random(f"06_encode_decode:encode_text:{pretokens}:{index}")
    letters = rng.sample("abcdefghijklmnopqrstuvwxyz", 4)
    others = [bytes([x]) for x in b"abcdefghijklmnopqrstuvwxyz" if chr(x) not in letters]
    merges = [(x.encode(), y.encode()) for x in letters for y in letters]
    merges += rng.sample([(x, y) for x in others for y in others], rng.randint(0, 100))
    rng.shuffle(merges)
    words = [" " + "".join(rng.choices(letters, k=rng.randint(1, 4))) for _ in range(pretokens)]
    long_run = rng.randint(pretokens // 2, 2 * pretokens // 3)  # one piece of that many words, among the short ones
    short = pretokens - long_run
    cuts = itertools.accumulate(rng.randint(1, 15) for _ in range(short))
    pieces, start = [], 0
    for end in cuts:
        if end >= short:
            break
        pieces.append("".join(words[start:end]))
        start = end
    pieces.append("".join(words[start:short]))
    pieces.insert(rng.randint(0, len(pieces)), "".join(words[short:]))
    return EOT.join(pieces), merge_ranks(merges), [EOT]


TOKENS_GATHERED_LINEARLY = measured.MeasuredGrowth(
    task=ENCODE_TEXT_TASK, reference=encode_text,
    small=lambda index, scale: measured_text_input(index, round(TEXT_PRETOKENS * scale)),
    large=lambda index, scale: measured_text_input(index, round(TEXT_PRETOKENS * scale) * TEXT_TIMES), times=TEXT_TIMES,
    spread=SIZE_SPREAD,
    describe=lambda args: f"<a text of {args[0].count(' '):,} words of four letters, <|endoftext|> now and then but "
                          f"for a run of {max(piece.count(' ') for piece in args[0].split(EOT)):,} words>, "
                          f"<{len(args[1])} merges, 16 of them of two of those letters>, {args[2]!r}",
    limit=TEXT_LIMIT, factor=TEXT_FACTOR, slack=TEXT_SLACK, timeout=TEXT_SECONDS,
    too_slow="gather the tokens into one list as you go (tokens += ..., extend, append): tokens = tokens + more copies "
             "every token gathered so far at each pretoken, time quadratic in the text; so does sum(lists, []) on one "
             "piece's lists, quadratic in the piece",
    said=lambda growth, name: f"{name}: its CPU time from {TEXT_PRETOKENS:,} to {SIZE_SPREAD * TEXT_PRETOKENS:,.0f} "
                              f"pretokens (drawn) to {TEXT_TIMES} times as many grows as a linear method's does (measured "
                              "from outside your code).")


# A lone surrogate (U+D800 to U+DFFF, half of a UTF-16 pair) has no UTF-8 bytes: str.encode("utf-8") raises
# UnicodeEncodeError, a ValueError, as the reference does, and the statement says to let it. An encode_text that encodes
# with errors="replace" (or "ignore", "surrogatepass") returns tokens of another text, which decode to another string;
# the generated texts hold no surrogate (they must encode), so it kept every point (walk58).
def verify_lone_surrogate_refused(learner: Callable) -> None:
    """Texts of drawn words holding one lone surrogate of each of SURROGATE_RANGES, with and without a special token: each
    must raise ``ValueError``."""
    rng = random.Random(f"{current_seed()}:06_encode_decode:lone surrogate")
    for special_tokens in ([], [EOT]):
        for low, high in SURROGATE_RANGES:
            words = ["".join(rng.choices("abcdefghij", k=rng.randint(1, 6))) for _ in range(rng.randint(2, 5))]
            words.insert(rng.randint(0, len(words)), chr(rng.randint(low, high)))
            text = " ".join(words) + (EOT + " end" if special_tokens else "")
            refused_lone_surrogate(
                call_learner(learner, (text, {(b"a", b"b"): 0}, special_tokens), PROVIDED),
                f"encode_text(text={text!r}, ranks={{(b'a', b'b'): 0}}, special_tokens={special_tokens!r})", "encode_text",
                "encode with pretoken.encode('utf-8') and let its UnicodeEncodeError (a ValueError) go up: "
                "errors='replace', 'ignore', 'surrogatepass' or 'surrogateescape' encodes another text, whose tokens "
                "decode to another string")
    passed("encode_text: refuses texts with a lone surrogate, with and without special tokens.")


def gives_tiktoken_tokens(learner: Callable) -> None:
    """Special tokens as written, then GPT-2's ranks against tiktoken itself, on generated texts, then a lone surrogate
    refused (:func:`verify_lone_surrogate_refused`), then the growth of its CPU time (:data:`TOKENS_GATHERED_LINEARLY`):
    the last parts of task 3's hidden test."""
    count = check_property(ENCODE_TEXT_TASK, learner, encode_text, as_written_texts(), max_examples=15)
    passed(f"encode_text: takes special tokens as written on {count} generated texts.")
    count = check_property(ENCODE_TEXT_TASK, learner, tiktoken_tokens, gpt2_texts(), max_examples=30)
    passed(f"encode_text: gives tiktoken's tokens on {count} generated texts with GPT-2's merges.")
    verify_lone_surrogate_refused(learner)
    TOKENS_GATHERED_LINEARLY.verify(learner)


# Task 3: fixed texts with GPT-2's ranks, special tokens that overlap included (visible); fixed texts whose special
# tokens overlap and generated ones (GPT-2's ranks and ranks learned on TinyStories), then tiktoken itself (hidden).


def around_text(args: tuple, rng: random.Random) -> tuple:
    """A fixed hidden case's text between two words of lowercase letters drawn from the grading's secret seed and the
    text (a space between): what the case holds is still there, but a table of the public cases' answers no longer
    finds it (``hidden_vary``: a normalizing encoder with such a table kept task 3's hidden points). The words depend on
    the text, not the case's place, so that the two cases of one text with other ranks stay one text."""
    text, ranks, special_tokens = args
    words = random.Random(f"{current_seed()}:{text}")

    def word() -> str:
        return "".join(words.choices("abcdefghijklmnopqrstuvwxyz", k=words.randint(2, 7)))

    return (f"{word()} {text} {word()}", ranks, special_tokens)


# 60 generated texts: the 50 of the other kinds there were before the blank lines (a sixth) were drawn.
def text_ranks_changed(function: Callable, text: str, before: dict, after: dict, special_tokens: list) -> list:
    """Call ``function(text, ranks, special_tokens)`` twice on one ``ranks`` dict, holding ``before``, then changed in
    place to hold ``after`` (a driver, as :func:`same_ranks_changed` is for a pretoken): what the two calls returned."""
    ranks = dict(before)
    first = function(text, ranks, special_tokens)
    ranks.clear()
    ranks.update(after)
    return [first, function(text, ranks, special_tokens)]


# One ranks dict changed in place between two calls, as task 2 is checked: an encode_text that kept its pretokens' tokens
# by (pretoken, id(ranks)) kept every point (walk57). "abc" under (a, b) alone, then (b, c) alone.
TEXT_RANKS_CASES = [Case(("abc", {(b"a", b"b"): 0}, {(b"b", b"c"): 0}, [])),
                    Case((f"I worked.{EOT}I worked.", {(b"o", b"r"): 1, (b" ", b"w"): 0}, {(b"o", b"r"): 0}, [EOT]))]
TEXT_RANKS_INPUTS = st.tuples(text_inputs(), text_inputs()).map(lambda cases: (cases[0][0], cases[0][1], cases[1][1],
                                                                               cases[0][2]))
TEXT_RANKS_TASK = replace(
    ENCODE_TEXT_TASK, params=("text", "ranks before", "ranks after, the same dict changed in place", "special_tokens"),
    driver=text_ranks_changed, hint=lambda args, expected, got: same_ranks_hint(args[:3], expected, got),
    what="a list of the two calls' results", unchanged=(3,),
    error_hint=lambda args, error: text_error_hint((args[0], args[2], args[3]), error))

ENCODE_TEXT = TaskGraders(ENCODE_TEXT_TASK, encode_text, ENCODE_TEXT_CASES, text_inputs(), max_examples=60,
                          hidden_cases=HIDDEN_TEXT_CASES, hidden_vary=around_text, hidden_then=gives_tiktoken_tokens,
                          then=TaskGraders(TEXT_RANKS_TASK, encode_text, TEXT_RANKS_CASES, TEXT_RANKS_INPUTS, max_examples=10,
                                           hidden_cases=TEXT_RANKS_CASES))


# ---- task 4: the arena ---------------------------------------------------------------------------


def arena_hint(args: tuple, expected: object, got: object) -> str | None:
    vocab = args[0]
    if not (isinstance(expected, tuple) and isinstance(got, tuple) and len(got) == 2):
        return "return a tuple of two things: (buffer, offsets), the bytes and a list of ints"
    buffer, offsets = got
    gaps = bool(vocab) and len(vocab) != max(vocab) + 1
    if gaps and isinstance(offsets, list) and len(offsets) == len(vocab) + 1 < len(expected[1]):
        return ("your offsets have one entry per token, but ids go from 0 to the largest and some have no token: "
                "give each missing id an empty range, offsets[i] == offsets[i + 1], so that id i still indexes "
                "offsets[i] (tokens in id order, and len(offsets) == max(vocab) + 2)")
    last = next(reversed(vocab), None)
    if (isinstance(last, int) and 0 <= last < max(vocab) and isinstance(offsets, list)
            and got == (expected[0][:expected[1][last + 1]], expected[1][:last + 2])):
        # walk51a: range(list(vocab)[-1] + 1) was told that offsets needs one entry more
        return (f"your arena stops at id {last}, the dict's last key: a dict lists its keys in the order they were "
                f"added, not sorted, and the largest id is {max(vocab)}: go up to max(vocab)")
    if isinstance(offsets, list) and len(offsets) == len(expected[1]) - 1:
        return ("offsets needs one entry more than there are ids: token i is buffer[offsets[i]:offsets[i + 1]], so "
                "the last token needs its end, len(buffer)")
    in_characters = [0]
    for token_id in range(len(expected[1]) - 1):
        in_characters.append(in_characters[-1] + len(vocab.get(token_id, b"").decode("utf-8", "replace")))
    if offsets == in_characters != expected[1]:
        return ("your offsets count characters: they are byte positions in the buffer, so each token adds len(token) of "
                "its bytes (a token of UTF-8 like 'é' is 2 bytes, one character once decoded)")
    ids = range(len(expected[1]) - 1)
    through_text = (b"".join(vocab.get(i, b"") for i in ids).decode("utf-8", "replace").encode("utf-8"),
                    b"".join(vocab.get(i, b"").decode("utf-8", "replace").encode("utf-8") for i in ids))
    if isinstance(buffer, bytes) and buffer != expected[0] and buffer in through_text:  # walk53: told nothing
        return ("your buffer holds U+FFFD's bytes (EF BF BD) where a token's bytes are no UTF-8 text alone: the tokens "
                "went through text (decoded with errors='replace'). A token is bytes, and can hold half a character: "
                "join the tokens' bytes as they are (b''.join)")
    in_dict_order = [0]
    for token in vocab.values():
        in_dict_order.append(in_dict_order[-1] + len(token))
    if got == (b"".join(vocab.values()), in_dict_order) and got != expected:
        return "the tokens go into the buffer in id order (0, 1, 2, ...), not in the order the dict lists them"
    if gaps:
        return ("some ids between 0 and the largest have no token: give each an empty range "
                "(offsets[i] == offsets[i + 1]), so that ids still index the offsets directly")
    return None


def arena_error_hint(args: tuple, error: BaseException) -> str | None:
    text = str(error)
    if not args[0] and error_name(error) == "ValueError" and "empty" in text and "max()" in text:
        return ('build_arena({}) must return (b"", [0]): max() of an empty dict raises, so guard it '
                "(max(vocab, default=-1))")
    return None


# vocab unchanged (the statement says so): the missing ids filled in the caller's dict (vocab.setdefault) give the right
# arena, and a vocabulary that now holds empty tokens.
ARENA_TASK = Task("build_arena", ("vocab",), what="a tuple (bytes buffer, list of int offsets)", hint=arena_hint,
                  provided=PROVIDED, error_hint=arena_error_hint, unchanged=(0,))

BYTES = {i: bytes([i]) for i in range(256)}


ARENA_CASES = [
    Case(({0: b"h", 1: b"i", 2: b"hi"},)),
    Case(({2: b"hi", 0: b"h", 1: b"i"},)),  # listed out of order
    Case(({1: b"b", 0: b"a", 2: b"ab"},)),  # listed out of order, and the buffer shows it
    Case(({0: b"a", 3: b"<|eot|>"},)),  # ids 1 and 2 have no token
    Case(({0: b"a", 1: "é".encode(), 2: "aé".encode()},)),  # tokens of 2 and 3 bytes, 1 and 2 characters
    Case(({},)),
    # The tokens of page 06's worked example, "hug pug pun bun hugs", by rank.
    Case((BYTES | {256: b"ug", 257: b"un", 258: b"hug", 259: b" p", 260: b"hugs", 261: b"bun"},),
         labels={0: "<256 bytes + the first 6 tokens of 'hug pug pun bun hugs'>"}),
]


def gpt2_arena_case() -> Case:
    """GPT-2's whole vocabulary: checked by the visible test, apart from the cases a table could copy
    (50,257 tokens would make such a table megabytes long)."""
    return Case((dict(gpt2_files()[0]),), labels={0: "<GPT-2's vocabulary: 50257 tokens>"})


token_bytes = st.binary(min_size=1, max_size=4) | st.sampled_from([b"<|endoftext|>", b"\xf0\x9f", b" the"])
vocabs = st.dictionaries(st.integers(0, 24), token_bytes, max_size=14)

# ---- task 4's cost: the buffer joined in time linear in the vocabulary -------------------------------------------------
# A build_arena that grows its buffer with buffer += token (bytes: each += copies every byte so far) returns the right
# arena in time quadratic in the tokens, which no answer shows: in process, GPT-2's 50,257 tokens took 0.21 s against the
# reference's 0.017 s (the visible test passes), 400,000 tokens of 7 bytes 15 s against 0.15 s (walk57). So the hidden test
# ends by measuring, from outside the learner's code, how its CPU time grows from ARENA_TOKENS tokens of 1 to 12 bytes
# (ids missing now and then), or up to SIZE_SPREAD times as many (drawn), to ARENA_TIMES times as many, each call at most
# ARENA_SLACK plus ARENA_FACTOR times the reference's. The arena comes back as its lengths and digests (arena_digest): of
# 100,000 tokens, a reply of 1.6 MB (base64), and 200,000 went past a reply's 4 MiB; at 100,000 tokens the += took 1.07
# to 1.84 s in the worker, the reference 0.11 to 0.25 s, the solution 0.38 to 0.58 s (the worker decodes the vocabulary):
# too close. From 20,000 (drawn: 28,000) to 10 times as many, the solution took 0.04 to 0.09 s then 0.81 to 1.1 s (a
# growth of 10 to 18: the worker decodes the vocabulary), under bounds of 1.9 to 2.9 s; the += was stopped past 4.7 s.
ARENA_TOKENS, ARENA_TIMES = 20_000, 10
ARENA_LIMIT, ARENA_FACTOR, ARENA_SLACK, ARENA_SECONDS = 40.0, 4.0, 0.1, 6.0


def arena_digest(function: Callable, vocab: dict[int, bytes]) -> list:
    """``function(vocab)``'s buffer and offsets as their lengths and BLAKE2b digests (a driver: the measured arenas are too
    large for a reply). Code that faked them would have to make the right arena first. CPython's own BLAKE2b, not
    hashlib's: importing hashlib loads OpenSSL, which reads its configuration file (/etc/ssl/openssl.cnf), a read the
    grading worker refuses and the class report flagged on every honest lab 06."""
    from _blake2 import blake2b

    buffer, offsets = function(vocab)
    return [len(buffer), blake2b(bytes(buffer)).hexdigest(), len(offsets), blake2b(repr(list(offsets)).encode()).hexdigest()]


def reference_arena_digest(vocab: dict[int, bytes]) -> list:
    """The reference arena's lengths and digests (:func:`arena_digest`): what the measured calls must return."""
    return arena_digest(build_arena, vocab)


def measured_arena_input(index: int, count: int) -> tuple[dict[int, bytes]]:
    """A vocabulary of about ``count`` ids, one in 50 without a token, of 1 to 12 bytes drawn from the grading's seed (a
    fresh vocabulary for each measured call: ``index``), listed out of id order."""
    rng = measured.measured_random(f"06_encode_decode:build_arena:{count}:{index}")
    ids = [i for i in range(count) if rng.random() >= 0.02]
    rng.shuffle(ids)
    return ({i: rng.randbytes(rng.randint(1, 12)) for i in ids},)


ARENA_BUILT_LINEARLY = measured.MeasuredGrowth(
    task=replace(ARENA_TASK, driver=arena_digest, what="the arena's lengths and digests"), reference=reference_arena_digest,
    small=lambda index, scale: measured_arena_input(index, round(ARENA_TOKENS * scale)),
    large=lambda index, scale: measured_arena_input(index, round(ARENA_TOKENS * scale) * ARENA_TIMES), times=ARENA_TIMES,
    spread=SIZE_SPREAD,
    describe=lambda args: f"<a vocabulary of {len(args[0]):,} tokens of 1 to 12 bytes, some ids without one>",
    limit=ARENA_LIMIT, factor=ARENA_FACTOR, slack=ARENA_SLACK, timeout=ARENA_SECONDS,
    too_slow="gather the tokens' bytes and join them once (a list of pieces, then b''.join, or one bytearray extended): "
             "buffer += token on bytes copies every byte gathered so far at each token, time quadratic in the tokens",
    said=lambda growth, name: f"{name}: its CPU time from {ARENA_TOKENS:,} to {SIZE_SPREAD * ARENA_TOKENS:,.0f} tokens "
                              f"(drawn) to {ARENA_TIMES} times as many grows as a linear method's does (measured from "
                              "outside your code).")


# Task 4: small vocabularies, ids missing, and GPT-2's whole vocabulary (read when the test runs); the hidden test then
# measures the cost.
BUILD_ARENA = TaskGraders(ARENA_TASK, build_arena, [*ARENA_CASES, Later(gpt2_arena_case)], vocabs.map(lambda vocab: (vocab,)),
                          max_examples=50, hidden_then=ARENA_BUILT_LINEARLY.verify)


# ---- task 5: decoding from the arena -------------------------------------------------------------


# ids unchanged (the statement says so): ids popped from the caller's list give the right bytes, and an empty list.
def decode_error_hint(args: tuple, error: BaseException) -> str | None:
    """A ValueError where every id is a token: the bound checked against the buffer (bytes), not the offsets (ids)."""
    try:
        ids, _, offsets = args
        tokens = all(0 <= i < len(offsets) - 1 and offsets[i] < offsets[i + 1] for i in ids)
    except (TypeError, ValueError, IndexError):  # arguments of another shape: no hint
        return None
    if error_name(error) == "ValueError" and tokens:
        return ("a ValueError though every id is a token: an id is a token when 0 <= id < len(offsets) - 1 and its range "
                "offsets[id]:offsets[id + 1] is not empty; len(buffer) counts the bytes, not the ids")
    if error_name(error) == "IndexError" and tokens:
        return ("an IndexError though every id is a token: token i is buffer[offsets[i]:offsets[i + 1]], offsets "
                "indexed by the id itself (offsets[0] is 0, where token 0 starts), and offsets has one entry more than "
                "there are ids")
    return None


def decode_hint(args: tuple, expected: object, got: object) -> str | None:
    """walk53: the bytes joined with b" ", or sent through text that drops (errors="ignore") or replaces what is no UTF-8
    alone, were told nothing."""
    if not (isinstance(expected, bytes) and isinstance(got, bytes)) or got == expected:
        return None
    try:
        ids, buffer, offsets = args
        pieces = [buffer[offsets[i]:offsets[i + 1]] for i in ids]
    except (TypeError, ValueError, IndexError):  # arguments of another shape: no hint
        return None
    if len(pieces) > 1 and got == b" ".join(pieces):
        return ("the tokens are joined with b' ': a token holds its own spaces (b' world'), so join their bytes with "
                "nothing between them, b''.join")
    for errors in ("ignore", "replace"):
        if got == expected.decode("utf-8", errors).encode("utf-8"):
            return (f"your bytes went through text, decoded with errors={errors!r}: decode_with_arena returns the tokens' "
                    "bytes as they are, and a token can hold half a character (bytes that are no UTF-8 alone); decoding "
                    "to text is the caller's step, once the bytes are joined")
    wrong = _other_bytes_per_id(ids, got, pieces)  # last: the mistakes above read so too
    if wrong is not None:  # walk55: a cache keyed by the id alone, kept from call to call, was told nothing
        token_id, piece = wrong
        return (f"id {token_id} gave {piece!r}, where this arena holds {pieces[ids.index(token_id)]!r} "
                f"(buffer[offsets[{token_id}]:offsets[{token_id} + 1]]): if you keep decoded tokens from one call for the "
                "next, they belong to that call's arena, and the same id names other bytes in another: key them by the "
                "arena too, or keep none; otherwise check the slice of each id")
    return None


def _other_bytes_per_id(ids: list[int], got: bytes, pieces: list[bytes], steps: int = 20_000) -> tuple[int, bytes] | None:
    """Whether ``got`` reads as each id's own bytes, the same for each occurrence of an id, one id's not its bytes
    in this arena (``pieces``): then ``(that id, the bytes it gave)``; ``None`` when it does not, or when the search would
    take more than ``steps`` steps (a hint is no place for an exponential search)."""
    if len(ids) > 40 or len(got) > 400:
        return None
    left = [steps]

    def search(k: int, at: int, given: dict[int, bytes]) -> dict[int, bytes] | None:
        left[0] -= 1
        if left[0] < 0:
            return None
        if k == len(ids):
            return dict(given) if at == len(got) else None
        if ids[k] in given:
            piece = given[ids[k]]
            return search(k + 1, at + len(piece), given) if got.startswith(piece, at) else None
        for end in range(at + 1, len(got) + 1):
            given[ids[k]] = got[at:end]
            found = search(k + 1, end, given)
            if found is not None:
                return found
        given.pop(ids[k], None)
        return None

    found = search(0, 0, {})
    if found is None:
        return None
    own = dict(zip(ids, pieces))
    return next(((token_id, piece) for token_id, piece in found.items() if piece != own[token_id]), None)


DECODE_TASK = Task("decode_with_arena", ("ids", "buffer", "offsets"), what="bytes", provided=PROVIDED, unchanged=(0,),
                   error_hint=decode_error_hint, hint=decode_hint)
HI = build_arena({0: b"h", 1: b"i", 2: b"hi", 4: b"!"})  # id 3 has no token: an empty range
EMOJI = build_arena(BYTES | {256: b"\xf0\x9f", 257: b"\x99\x82"})
DECODE_CASES = [
    Case(([2, 0, 1, 4], *HI)),
    Case(([], *HI)),
    Case(([256, 257, 33], *EMOJI), labels={1: "<the arena of 256 bytes + 2 tokens>", 2: "<its 259 offsets>"}),
]

BAD_IDS = [(-1, "a negative id: offsets[-1] counts from the end, so it would read a wrong token silently"),
           (3, "an id with an empty range (no token has it): every token has at least one byte"),
           (5, "an id past the last offset"),
           (-4, "a negative id")]


def verify_bad_ids(learner: Callable, cases: list[tuple[int, str]], buffer: bytes, offsets: list[int],
                   rng: random.Random | None = None) -> int:
    """Each bad id, among good ones, must raise ``ValueError`` naming it. With ``rng`` (the hidden test's), the good
    ids around it are drawn, and the same call with a good id in the bad one's place must decode: only a check of the
    id tells the two calls apart, not their shape (a table of the graders' fixed bad ids, or a ValueError for every
    ``[0, x, 1]``, kept the hidden points without one: tests/test_grading_redteam.py, section 29)."""
    good = [i for i in range(len(offsets) - 1) if offsets[i] < offsets[i + 1]]
    for bad, why in cases:
        ids = [0, bad, 1]
        if rng is not None:
            ids = rng.choices(good, k=rng.randint(1, 5))
            at = rng.randint(0, len(ids))
            twin = [*ids[:at], rng.choice(good), *ids[at:]]
            outcome = call_learner(learner, (twin, buffer, offsets), PROVIDED)
            if outcome.error is not None or outcome.value[1] != decode_with_arena(twin, buffer, offsets):
                got = f"raised {error_name(outcome.error)}" if outcome.error is not None else f"returned {outcome.value[1]!r}"
                raise CheckFailed(f"decode_with_arena(ids={twin!r}, buffer={buffer!r}, offsets={offsets!r}) {got}: "
                                  f"expected {decode_with_arena(twin, buffer, offsets)!r} (every id is a token)")
            ids.insert(at, bad)
        call = f"decode_with_arena(ids={ids!r}, buffer={buffer!r}, offsets={offsets!r})"
        outcome = call_learner(learner, (ids, buffer, offsets), PROVIDED)
        if outcome.reference_calls:
            raise CheckFailed(f"decode_with_arena calls the reference solution ({outcome.reference_calls[0]}): write it yourself")
        if outcome.error is None:
            returned = outcome.value[1]
            raise CheckFailed(f"{call} returned {short_repr(returned, 60)}: expected a ValueError naming {bad}, {why}")
        if error_name(outcome.error) == "NotImplementedError":
            raise CheckFailed("decode_with_arena is not written yet: it still raises NotImplementedError")
        if error_name(outcome.error) != "ValueError" or str(bad) not in str(outcome.error):
            raise CheckFailed(f"{call} raised {error_name(outcome.error)}: {str(outcome.error)[:120]}\n  expected: a "
                              f"ValueError whose message names the id {bad} ({why})")
    return len(cases)


def verify_drawn_bad_ids(learner: Callable) -> int:
    """The hidden test's bad ids, drawn from the grading's secret seed with their arena (some ids without a token): a
    negative id, one with an empty range, the first past the end (a bound off by one lets it through), one further
    past it and a negative one below ``-len(offsets)``."""
    rng = random.Random(f"{current_seed()}:06_encode_decode:bad_ids")
    size = rng.randint(6, 10)
    missing = set(rng.sample(range(2, size - 1), rng.randint(1, 2)))
    buffer, offsets = build_arena({i: rng.randbytes(rng.randint(1, 3)) for i in range(size) if i not in missing})
    cases = [(rng.randint(-size, -1), "a negative id"), (rng.choice(sorted(missing)), "an id with an empty range"),
             (size, "the first id past the end"), (rng.randint(size + 1, size + 9), "an id past the end"),
             (rng.randint(-3 * size, -size - 1), "a negative id")]
    return verify_bad_ids(learner, cases, buffer, offsets, rng)


@st.composite
def decode_inputs(draw) -> tuple[list[int], bytes, list[int]]:
    vocab = draw(vocabs.filter(bool))
    buffer, offsets = build_arena(vocab)
    ids = draw(st.lists(st.sampled_from(sorted(vocab)), max_size=12))
    return ids, buffer, offsets


# ---- task 5's cost: the bytes joined in time linear in the ids -------------------------------------------------------
# A decode_with_arena that grows its answer with out = out + piece (or out += piece: bytes are immutable, each step
# copies all the bytes so far) returns the right bytes in time quadratic in the ids, which no answer shows: in process,
# 200,000 ids of GPT-2's arena took 3.5-3.7 s of CPU (either form), the reference 0.11 s; 50,000 ids 0.25-0.28 s against
# 0.024 s (too close for a check under load: the round of novel49 left it out at that size). So the hidden test ends by
# measuring, from outside the learner's code, how its CPU time grows from DECODE_IDS ids to DECODE_TIMES times as many,
# over an arena of 2,048 to 8,192 tokens (DECODE_ARENA_TOKENS) of 1 to 12 bytes (GPT-2's average is 6.4), drawn from
# the grading's seed, as the number of ids (DECODE_IDS or more, up to SIZE_SPREAD times: measured.MeasuredGrowth's
# spread). Of fixed sizes, a crafted decoder kept out += piece and joined once where len(ids) in (20_000, 200_000), or
# where len(offsets) == 4097 (walk55's red team).
DECODE_IDS, DECODE_TIMES, DECODE_ARENA_TOKENS = 20_000, 10, (2_048, 8_192)
DECODE_LIMIT, DECODE_FACTOR, DECODE_SLACK, DECODE_SECONDS = 25.0, 8.0, 0.1, 5.0


def measured_decode_input(index: int, count: int) -> tuple[list[int], bytes, list[int]]:
    """``count`` ids drawn from an arena of :data:`DECODE_ARENA_TOKENS` tokens (every id a token), the arena and the ids
    drawn from the grading's seed (a fresh input for each measured call: ``index``)."""
    rng = measured.measured_random(f"06_encode_decode:decode_with_arena:{count}:{index}")
    size = rng.randint(*DECODE_ARENA_TOKENS)
    buffer, offsets = build_arena({i: rng.randbytes(rng.randint(1, 12)) for i in range(size)})
    return rng.choices(range(size), k=count), buffer, offsets


DECODED_LINEARLY = measured.MeasuredGrowth(
    task=DECODE_TASK, reference=decode_with_arena,
    small=lambda index, scale: measured_decode_input(index, round(DECODE_IDS * scale)),
    large=lambda index, scale: measured_decode_input(index, round(DECODE_IDS * scale) * DECODE_TIMES), times=DECODE_TIMES,
    spread=SIZE_SPREAD,
    describe=lambda args: f"<{len(args[0]):,} ids>, <an arena of {len(args[2]) - 1:,} tokens of 1 to 12 bytes: buffer>, "
                          "<its offsets>",
    limit=DECODE_LIMIT, factor=DECODE_FACTOR, slack=DECODE_SLACK, timeout=DECODE_SECONDS,
    too_slow="gather the tokens' bytes and join them once (a list of pieces, then b''.join, or one bytearray extended): "
             "out = out + piece, like out += piece on bytes, copies every byte gathered so far at each id, time "
             "quadratic in the ids",
    said=lambda growth, name: f"{name}: its CPU time from {DECODE_IDS:,} to {SIZE_SPREAD * DECODE_IDS:,.0f} ids (drawn) "
                              f"to {DECODE_TIMES} times as many grows as a linear method's does (measured from outside "
                              "your code).")


# A call's cost: a stream decodes a few ids a call (the stretch task), so nothing per call may look at every token. A set
# of the valid ids built at each call gives the right bytes at O(V) a call, which the growth above cannot see (O(V + n)
# grows linearly in n): 5,001 ids decoded one at a time with GPT-2's arena took 16 s against 0.002 s in process (walk58).
# So the hidden test also decodes PER_CALL_IDS lists of 1 to 3 ids, one call each (a driver, in the worker), from an
# arena of PER_CALL_TOKENS tokens: in process a set at each call 4 s or more, the reference 0.005 s (the worker decodes
# the arena once, a few hundredths of a second: the slack).
PER_CALL_IDS, PER_CALL_TOKENS = 3_000, 40_000


def each_ids(function: Callable, lists: list, buffer: bytes, offsets: list) -> list:
    """``function(ids, buffer, offsets)`` for each list of ids, one arena for all (a driver, as a stream calls it)."""
    return [function(ids, buffer, offsets) for ids in lists]


def decode_each_ids(lists: list[list[int]], buffer: bytes, offsets: list[int]) -> list[bytes]:
    """The reference's bytes of each list of ids: what the measured call must return."""
    return each_ids(decode_with_arena, lists, buffer, offsets)


def few_ids_large_arena(index: int, scale: float = 1.0) -> tuple[list[list[int]], bytes, list[int]]:
    """:data:`PER_CALL_IDS` lists of 1 to 3 ids of an arena of :data:`PER_CALL_TOKENS` tokens of 1 to 12 bytes, drawn
    from the grading's seed (each measured call its own: ``index``)."""
    rng = measured.measured_random(f"06_encode_decode:decode_with_arena:per call:{index}")
    size = round(PER_CALL_TOKENS * scale)
    buffer, offsets = build_arena({i: rng.randbytes(rng.randint(1, 12)) for i in range(size)})
    return [rng.choices(range(size), k=rng.randint(1, 3)) for _ in range(round(PER_CALL_IDS * scale))], buffer, offsets


DECODE_PER_CALL_COST = measured.MeasuredCost(
    task=replace(DECODE_TASK, params=("lists of ids", "buffer", "offsets"), driver=each_ids, unchanged=(),
                 what="a list of the bytes of each list of ids"),
    reference=decode_each_ids, build=few_ids_large_arena,
    spread=measured.COST_SPREAD,
    shape=f"<each of {PER_CALL_IDS:,} or more lists of 1 to 3 ids>, <an arena of {PER_CALL_TOKENS:,} or more tokens: "
          "buffer>, <its offsets>",
    factor=5.0, slack=0.3, timeout=4.0,
    too_slow="does each call look at every token (a set or list of the valid ids, a pass over offsets)? A stream "
             "decodes a few ids a call: check each id where it is used, 0 <= id < len(offsets) - 1 and a range that "
             "is not empty, O(1) an id",
    said=lambda cost, name: cost.said(f"{name}: {PER_CALL_IDS:,} or more lists of 1 to 3 ids from an arena of "
                                      f"{PER_CALL_TOKENS:,} or more tokens (drawn) in "))


def verify_decode_hidden(learner: Callable) -> None:
    """Task 5's hidden test, last: the bad ids drawn from the grading's seed (:func:`verify_drawn_bad_ids`), then the
    growth of its CPU time measured from outside the learner's code (:data:`DECODED_LINEARLY`): bytes grown with ``+``
    at each id are right and quadratic; then many calls of a few ids (:data:`DECODE_PER_CALL_COST`): nothing at each
    call may look at every token."""
    verify_drawn_bad_ids(learner)
    DECODED_LINEARLY.verify(learner)
    DECODE_PER_CALL_COST.verify(learner)


# Task 5: fixed and generated arenas and ids, then ids that are not tokens (others in the hidden test), then the cost.
DECODE = TaskGraders(
    DECODE_TASK, decode_with_arena, DECODE_CASES, decode_inputs(), max_examples=50,
    visible_then=lambda learner: verify_bad_ids(learner, BAD_IDS, *HI),
    hidden_then=verify_decode_hidden,
)

LAB = Lab(
    "06_encode_decode",
    (MERGE_RANKS, ENCODE_PRETOKEN, ENCODE_TEXT, BUILD_ARENA, DECODE),
    references=(merge_ranks, encode_pretoken, encode_text, build_arena, decode_with_arena, load_merges,
                load_vocab_and_merges, Tokenizer, train, merge_word),
    policy={"provided": PROVIDED},
)
LAB.install(globals())


# ---- stretch (ungraded): a streaming decoder that never cuts a character -------------------------


def stream_chunks(text: str, cut_every: int) -> list[list[int]]:
    """GPT-2's ids of ``text`` (the reference's tokens, numbered), in chunks of ``cut_every`` ids (as a model would emit
    them)."""
    ids = [gpt2_ids()[token] for token in encode_text(text, gpt2_ranks(), [EOT])]
    return [ids[i : i + cut_every] for i in range(0, len(ids), cut_every)]


STREAM_TEXTS = ["naïve café, 中文 and 🙂🙂🙂", "Hello 🙂 world", "plain ascii only", "🙂", ""]
HALF_SMILE = 8582  # GPT-2's id of b"\xf0\x9f", the first half of 🙂
BYTE_TEXT = "aé中🙂z"  # characters of 1 to 4 bytes, streamed one byte at a time


def reference_decode_stream(chunks: list[list[int]], buffer: bytes, offsets: list[int]) -> list[str]:
    """What ``decode_stream`` must yield, the grader's own computation: the bytes of the ids, chunk by chunk, through one
    incremental UTF-8 decoder (``errors="replace"``), which holds back the bytes of an unfinished character; then its
    flush. On a stream of whole characters the pieces join into the decoded bytes of all the ids."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return [decoder.decode(decode_with_arena(ids, buffer, offsets)) for ids in chunks] + [decoder.decode(b"", final=True)]


def stream_pieces(decode_stream: Callable, chunks: list[list[int]], buffer: bytes, offsets: list[int]) -> list:
    """The pieces the generator ``decode_stream`` yields, as a list (a driver: :attr:`.core.Task.driver`)."""
    return list(decode_stream(chunks, buffer, offsets))


def stream_hint(args: tuple, expected: object, got: object) -> str | None:
    """A character cut in two, a piece too many or too few, or the unfinished character never flushed."""
    if not (isinstance(got, list) and isinstance(expected, list) and all(type(piece) is str for piece in got)):
        return None
    if "".join(got).count("\ufffd") > "".join(expected).count("\ufffd"):
        return "a piece holds U+FFFD, a character cut in two: keep the bytes of an unfinished character until the next chunk completes it"
    if len(got) != len(expected):
        return 'one piece per chunk (possibly ""), then one after the last, as in the example ["a", "🙂", ""]'
    if "".join(got) != "".join(expected) and expected[-1]:
        return ("after the last chunk, flush the bytes still held back, decoded with errors='replace' (with an incremental "
                "decoder: decoder.decode(b'', final=True))")
    return None


def stream_cases() -> list[Case]:
    """GPT-2's ids of :data:`STREAM_TEXTS`, 1, 2 and 3 per chunk, a stream that stops in the middle of a character, and
    :data:`BYTE_TEXT` one byte per chunk."""
    buffer, offsets = build_arena(dict(gpt2_files()[0]))
    arena = {1: "<GPT-2's arena: buffer>", 2: "<offsets>"}
    return [Case((stream_chunks(text, cut_every), buffer, offsets), {0: f"<GPT-2's ids of {text!r}, {cut_every} per chunk>", **arena})
            for text in STREAM_TEXTS for cut_every in (1, 2, 3)] + [
        Case(([[HALF_SMILE]], buffer, offsets), {0: f"[[{HALF_SMILE}]] (b'\\xf0\\x9f', the first half of 🙂)", **arena}),
        # One byte per chunk (an arena of the 256 bytes): every character cut after each of its bytes, a 4-byte one
        # after 1, 2 and 3 (GPT-2's tokens above cut 🙂 after 2 only).
        Case(([[byte] for byte in BYTE_TEXT.encode()], *build_arena(BYTES)),
             {0: f"<the bytes of {BYTE_TEXT!r}, one id per chunk>", 1: "<an arena of the 256 bytes>", 2: "<its 257 offsets>"})]


STREAM_TASK = Task("decode_stream", ("chunks", "buffer", "offsets"), driver=stream_pieces, hint=stream_hint,
                   what="a list of str pieces, one per chunk and one after the last", provided=PROVIDED)
# Stretch: the pieces of 17 streams against the grader's own incremental decoding (reference_decode_stream).
check_stretch_decode_stream = stretch("decode_stream", TaskGraders(STREAM_TASK, reference_decode_stream, [Later(stream_cases)]))
