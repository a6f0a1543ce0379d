"""Graders of lab 02, incremental updates: after a merge, change only the counts of the pairs that
changed, in the words that changed.

Theory: ``theory/02-incremental-updates.md``. Reference: :mod:`bpe_ref.train.step02_incremental`.
Words are tuples of ``bytes`` tokens, as in lab 01.

===========================  ======================================  ==================================================
task                         visible test                            hidden test
===========================  ======================================  ==================================================
1 ``pair_count_changes``     :func:`check_pair_count_changes`        :func:`check_pair_count_changes_properties`
2 ``merge_and_update``       :func:`check_merge_and_update`          :func:`check_merge_and_update_properties`
3 ``train``                  :func:`check_train` (cases,              :func:`check_train_properties` (generated
                             and the updates are incremental)        corpora, and the updates are incremental)
4 the CS336 test             :func:`check_train_on_corpus_en`         :func:`check_train_on_other_corpus`
===========================  ======================================  ==================================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hypothesis import strategies as st

from ...train.step01_naive import count_pairs, merge_word, train as train_naive
from ..figures.incremental_updates import local_rule_change, overlap_bug_on_counts
from ...train.step02_incremental import merge_and_update, pair_count_changes, train
from .core import (
    Case, CheckFailed, Task, advisory, call_watching, check_cases, check_property, error_name, grader, passed, task_graders,
)
from .lab01_naive_bpe import ON_CORPUS_EN, ON_OTHER_CORPUS, corpus_en_case, other_corpus_case, pretoken_count_dicts, verify_trainer

# Lab 02 builds on lab 01: its setup cell imports V1's functions from bpe_ref, and its code may call
# them, in the learner's kernel and in the grading process (where only these modules are copied).
PROVIDED = ("train.step01_naive", "tiebreak", "train.common", "train.driver")
GRADING_POLICY = {"provided": PROVIDED}

REFERENCES = (count_pairs, merge_word, pair_count_changes, merge_and_update, train, train_naive, local_rule_change,
              overlap_bug_on_counts)

Word = tuple[bytes, ...]
Pair = tuple[bytes, bytes]

# ---- reference: the lab's tasks are the functions of bpe_ref.train.step02_incremental ---------

reference_pair_count_changes = pair_count_changes
reference_merge_and_update = merge_and_update


def observe_word_and_counts(args: tuple, result: Word) -> tuple:
    """What ``merge_and_update`` did: the word it returned and the counts it left behind."""
    return {"returned word": result, "pair_counts after the call": args[3]}


# ---- strategies ------------------------------------------------------------------------------

TOKENS = [b"a", b"b", b"c", b"ab"]
word_strategy = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=8).map(tuple)


@st.composite
def word_and_pair(draw) -> tuple[Word, Pair]:
    """A word and a pair that, most of the time, occurs in it (else nothing would change)."""
    word = draw(word_strategy)
    if len(word) >= 2 and draw(st.integers(0, 3)) > 0:
        i = draw(st.integers(0, len(word) - 2))
        return word, (word[i], word[i + 1])
    return word, (draw(st.sampled_from(TOKENS)), draw(st.sampled_from(TOKENS)))


@st.composite
def merge_and_update_inputs(draw) -> tuple[Word, Pair, int, dict[Pair, int]]:
    """A word of a small corpus, a pair, the word's frequency and the corpus's pair counts."""
    word, pair = draw(word_and_pair())
    frequency = draw(st.integers(1, 5))
    others = draw(st.dictionaries(word_strategy, st.integers(1, 5), max_size=4))
    others.pop(word, None)
    corpus = {word: frequency, **others}
    return word, pair, frequency, count_pairs(corpus)


changes_inputs = st.tuples(word_and_pair(), st.integers(1, 5)).map(lambda t: (t[0][0], t[0][1], t[1]))

# ---- tasks -----------------------------------------------------------------------------------

def per_occurrence_hint(args: tuple, expected: object, got: object) -> str | None:
    """The learner updated around each occurrence of the pair: wrong where occurrences touch."""
    word, pair, frequency = args
    for overlapping in (False, True):
        rule = {p: c * frequency for p, c in local_rule_change(word, pair, overlapping).items() if c}
        if got == rule and rule != expected:
            return ("these are the changes around each occurrence of the pair on its own, which count the windows "
                    "between two touching occurrences twice (theory, section 4); reason per word instead: what "
                    "are all the pairs of the word before the merge, and all the pairs after?")
    return None


check_pair_count_changes, check_pair_count_changes_properties = task_graders(
    Task("pair_count_changes", ("word", "pair", "frequency"), what="a dict mapping pairs to nonzero int changes", provided=PROVIDED,
         hint=per_occurrence_hint),
    reference_pair_count_changes,
    [
        ((b"a", b"b", b"c"), (b"a", b"b"), 1),
        ((b"x", b"a", b"b", b"y", b"a", b"b"), (b"a", b"b"), 3),
        ((b"a", b"a", b"a", b"a"), (b"a", b"a"), 2),  # (a, a) x3 -> (aa, aa) x1
        ((b"a", b"a", b"a"), (b"a", b"a"), 1),
        ((b"l", b"o", b"w"), (b"o", b"x"), 4),  # the pair is not in the word: nothing changes
        ((b"a", b"b"), (b"a", b"b"), 5),  # one token left: no pairs at all
        ((b"a", b"a", b"a", b"b"), (b"a", b"a"), 1),  # (a, b) is untouched: a change of 0 is left out
    ],
    changes_inputs,
    max_examples=150,
)

check_merge_and_update, check_merge_and_update_properties = task_graders(
    Task(
        "merge_and_update",
        ("word", "pair", "frequency", "pair_counts"),
        observe=observe_word_and_counts,
        what="the merged word (a tuple of bytes), with pair_counts updated in place",
        provided=PROVIDED,
        stand_ins=(pair_count_changes,),
    ),
    reference_merge_and_update,
    [
        ((b"a", b"b", b"c"), (b"a", b"b"), 1, {(b"a", b"b"): 1, (b"b", b"c"): 1}),
        ((b"a", b"b", b"c"), (b"a", b"b"), 2, {(b"a", b"b"): 5, (b"b", b"c"): 2, (b"c", b"a"): 1}),
        ((b"a", b"a", b"a"), (b"a", b"a"), 1, {(b"a", b"a"): 2}),
        ((b"l", b"o", b"w"), (b"o", b"x"), 4, {(b"l", b"o"): 4, (b"o", b"w"): 4}),  # unchanged
    ],
    merge_and_update_inputs(),
    max_examples=150,
)

def repeated_merge_hint(args: tuple, expected: object, got: object) -> str | None:
    """The same pair merged twice in a row: its count was never taken down, so no word was updated."""
    if isinstance(got, list) and any(a == b for a, b in zip(got, got[1:])):
        return ("the same pair is merged twice in a row, so the counts did not change after a merge: does every word "
                "that holds the pair go through merge_and_update? (pair in word asks whether the pair tuple is one "
                "token of the word; pair[0] in word and pair[1] in word asks about its tokens)")
    return None


TRAIN_INCREMENTAL_TASK = Task(
    "train", ("pretoken_counts", "num_merges"), what="a list of (bytes, bytes) merges", item="merge", first=1,
    provided=PROVIDED, hint=repeated_merge_hint, stand_ins=(pair_count_changes, merge_and_update),
)


reference_train = train


TRAIN_INCREMENTAL_CASES = [
    ({b"low": 5, b"lower": 2, b"newest": 6, b"widest": 3}, 6),
    ({b"ab": 1}, 5),
    ({b"aaaa": 1}, 2),
    ({b"aaaaa": 2, b"ba": 1}, 4),
    ({b" the": 3, b" cat": 2, b" hat": 2}, 4),
    ({}, 3),
]

def check_train_merges(train: Callable) -> None:
    """The merges of ``train`` against the reference's on generated corpora (not a grader on its
    own: the hidden test of task 3, :func:`check_train_properties`, also checks the work)."""
    count = check_property(TRAIN_INCREMENTAL_TASK, train, reference_train, st.tuples(pretoken_count_dicts, st.integers(0, 20)),
                           max_examples=80)
    passed(f"train: agrees with the reference on {count} generated inputs.")


INCREMENTAL_CHECK_MERGES = 40  # merges of corpus.en watched by the incrementality check


def incremental_call_bounds(word_counts: dict[bytes, int], merges: list[Pair]) -> tuple[int, int]:
    """``(needed, allowed)`` calls of ``merge_and_update`` while learning ``merges``: every word that
    holds a merged pair must be updated (needed); no word without both of its tokens may be
    (allowed: the words that pass the cheap test ``left in word and right in word``)."""
    words = [tuple(bytes([b]) for b in pretoken) for pretoken in word_counts if pretoken]
    needed = allowed = 0
    for left, right in merges:
        for i, word in enumerate(words):
            if left in word and right in word:
                allowed += 1
                merged = merge_word(word, (left, right))
                if merged != word:
                    needed += 1
                    words[i] = merged
    return needed, allowed


def verify_incremental_updates(train: Callable, name: str = "train") -> None:
    """Task 3 asks for V2: count the pairs once, then update only the words that hold the merged
    pair, with the learner's ``merge_and_update``. A trainer that recounts (V1) learns the same
    merges, so the merges alone cannot tell; this watches the calls instead. For the length of one
    run, the names ``count_pairs`` and ``merge_and_update`` in the learner's notebook are wrapped
    by counters, then put back. ``name`` is the trainer's name in the notebook, for messages."""
    case, reference_merges = corpus_en_case()
    word_counts = case.args[0]
    merges = reference_merges[:INCREMENTAL_CHECK_MERGES]
    outcome, first_lengths = call_watching(train, (word_counts, len(merges)), ("count_pairs", "merge_and_update"), PROVIDED,
                                           TRAIN_INCREMENTAL_TASK.stand_ins)
    # count_pairs of one word (inside pair_count_changes, say) is an update, not a recount: only
    # calls over more than one word count as counting the corpus again.
    calls = {
        "count_pairs": sum(1 for length in first_lengths["count_pairs"] if length != 1 and length != 0),
        "merge_and_update": len(first_lengths["merge_and_update"]),
    }
    call = f"{name}(<the pretoken counts of corpus.en>, {len(merges)})"
    if outcome.error is not None:
        raise CheckFailed(f"{call} raised {error_name(outcome.error)}: {outcome.error}")
    needed, allowed = incremental_call_bounds(word_counts, merges)
    if calls["count_pairs"] > 1:
        raise CheckFailed(
            f"{call} counted the pairs of many words with count_pairs {calls['count_pairs']} times: V2 counts "
            "the corpus once, before the loop, and then only updates the counts (with merge_and_update)"
        )
    if calls["merge_and_update"] < needed:
        raise CheckFailed(
            f"{call} called merge_and_update {calls['merge_and_update']} times, but {needed} times a word "
            "held the pair being merged: update each such word with your merge_and_update (task 2)"
        )
    if calls["merge_and_update"] > allowed:
        raise CheckFailed(
            f"{call} called merge_and_update {calls['merge_and_update']} times, but only {allowed} times "
            "did a word hold both tokens of the pair being merged: skip the words that cannot change "
            "(for example with pair[0] in word and pair[1] in word)"
        )
    passed(f"{name} updates incrementally: {calls['merge_and_update']} word updates in "
           f"{len(merges)} merges of corpus.en ({len(word_counts)} words), the pairs counted once.")


@grader
def check_train(train: Callable) -> None:
    """Visible test of task 3: the fixed cases, and the updates really are incremental."""
    count = check_cases(TRAIN_INCREMENTAL_TASK, train, reference_train, TRAIN_INCREMENTAL_CASES)
    verify_incremental_updates(train)  # prints its own line when it passes
    passed(f"train: all {count} visible cases pass.")


@grader
def check_train_properties(train: Callable) -> None:
    """Hidden test of task 3: the updates are incremental (else ``train = train_naive`` would earn
    these points), and the merges are the reference's on generated corpora."""
    verify_incremental_updates(train)
    check_train_merges(train)


@grader
def check_train_on_corpus_en(train: Callable) -> None:
    """Visible test of task 4: the CS336 reference merges on ``corpus.en``, vocabulary 500."""
    verify_trainer(TRAIN_INCREMENTAL_TASK, train, corpus_en_case, ON_CORPUS_EN)


@grader
def check_train_on_other_corpus(train: Callable) -> None:
    """Hidden test of task 4: a TinyStories sample and 180 merges, against the reference."""
    verify_trainer(TRAIN_INCREMENTAL_TASK, train, other_corpus_case, ON_OTHER_CORPUS)


# ---- stretch (ungraded): hunt the overlap bug -------------------------------------------------
# Advice for the learner's kernel only (core.advisory): no test cell runs it, it earns no points.
# The wrong rule is page 02's (section 4), computed where the page's tables are.


def reference_per_occurrence_changes(word: Word, pair: Pair, frequency: int) -> dict[Pair, int]:
    """The tempting rule: around each occurrence that the merge replaces, neighbours read from the
    word before the merge."""
    return {p: change * frequency for p, change in local_rule_change(word, pair, overlapping=False).items()}


def reference_first_wrong_merge(pretoken_counts: dict[bytes, int], num_merges: int) -> tuple[int, Pair] | None:
    """The first merge after which counts kept by the tempting rule differ from a recount."""
    run = overlap_bug_on_counts(pretoken_counts, num_merges)
    return None if run.wrong_at is None else (run.wrong_at, run.wrong_pair)


def per_occurrence_hint(args: tuple, expected: object, got: object) -> str | None:
    word, pair, frequency = args
    if got == pair_count_changes(word, pair, frequency):
        return ("these are the right changes (task 1's rule): this stretch asks for the tempting rule, around each "
                "occurrence with x and y read from the original word, to find where it goes wrong")
    every = {p: change * frequency for p, change in local_rule_change(word, pair, overlapping=True).items()}
    if got == every:
        return ("you went around every occurrence, overlapping ones too: take those merge_word replaces, found left "
                "to right without overlaps (a a a holds one)")
    return None


def first_wrong_hint(args: tuple, expected: object, got: object) -> str | None:
    if isinstance(expected, tuple) and isinstance(got, tuple) and len(got) == 2 and got[1] == expected[1]:
        return ("the right pair, another number: number the merges from 1, and compare after the merge has been "
                "applied to every word")
    if isinstance(expected, tuple) and got is None:
        return ("compare after every merge, with count_pairs of the words as they are now (not as they were "
                "at the start), and update the counts with per_occurrence_changes")
    if expected is None and isinstance(got, tuple):
        return ("the rule is right on every word of this corpus, so the counts stay right: do you store each merged "
                "word back, and recount the words as they are after the merge?")
    return None


PER_OCCURRENCE_TASK = Task(
    "per_occurrence_changes", ("word", "pair", "frequency"), what="a dict mapping pairs to nonzero int changes",
    provided=PROVIDED, hint=per_occurrence_hint,
)
FIRST_WRONG_TASK = Task(
    "first_wrong_merge", ("pretoken_counts", "num_merges"), what="None, or a tuple (merge number, pair)",
    provided=PROVIDED, hint=first_wrong_hint,
)
PER_OCCURRENCE_CASES = [
    ((b"x", b"a", b"b", b"y"), (b"a", b"b"), 2),  # isolated: the rule is right here
    ((b"a", b"a", b"a"), (b"a", b"a"), 1),  # one replaced occurrence: right too
    ((b"a", b"a", b"a", b"a"), (b"a", b"a"), 1),  # two touching ones: wrong
    ((b"a", b"b", b"a", b"b"), (b"a", b"b"), 3),
    ((b"l", b"o", b"w"), (b"o", b"x"), 4),
]
FIRST_WRONG_CASES = [
    ({b"abab": 1}, 3),
    ({b"low": 5, b"lower": 2}, 3),
    ({b"aaaa": 2, b"ba": 1}, 4),
    ({b"aaa": 1}, 2),
]


def corpus_en_first_wrong_case() -> Case:
    case, _ = corpus_en_case()
    return case  # the pretoken counts of corpus.en and 243 merges, as in task 4


# Corpora whose words often hold a pair back to back (a b a b, a a a a), among random ones.
bug_corpora = st.one_of(
    pretoken_count_dicts,
    st.dictionaries(st.sampled_from([b"abab", b"aaaa", b"aaa", b"abcab", b" abab", b"baba", b"ab", b"aab", b"abb"]),
                    st.integers(1, 9), min_size=1, max_size=5),
)


@advisory
def check_stretch_overlap_bug(per_occurrence_changes: Callable, first_wrong_merge: Callable) -> None:
    """Stretch self-check of lab 02 (a): the tempting per-occurrence rule, and the first merge after
    which it leaves wrong counts, on small corpora and on corpus.en, against the checker's own hunt."""
    count = check_cases(PER_OCCURRENCE_TASK, per_occurrence_changes, reference_per_occurrence_changes, PER_OCCURRENCE_CASES)
    count += check_property(PER_OCCURRENCE_TASK, per_occurrence_changes, reference_per_occurrence_changes,
                            changes_inputs, max_examples=150)
    cases = [*FIRST_WRONG_CASES, corpus_en_first_wrong_case()]
    hunts = check_cases(FIRST_WRONG_TASK, first_wrong_merge, reference_first_wrong_merge, cases)
    hunts += check_property(FIRST_WRONG_TASK, first_wrong_merge, reference_first_wrong_merge,
                            st.tuples(bug_corpora, st.integers(0, 12)), max_examples=100)
    passed(f"per_occurrence_changes is the tempting rule on {count} words, and first_wrong_merge finds the first "
           f"wrong merge as the checker does on {hunts} corpora, corpus.en included.")


# ---- stretch (ungraded): a cheaper filter ----------------------------------------------------

TRAIN_FASTER_TASK = replace(TRAIN_INCREMENTAL_TASK, name="train_faster")


@advisory
def check_stretch_cheaper_filter(train_faster: Callable) -> None:
    """Stretch self-check of lab 02 (b): the merges of the reference on fixed and generated corpora,
    and the same incremental work as task 3's visible test asks for."""
    count = check_cases(TRAIN_FASTER_TASK, train_faster, reference_train, TRAIN_INCREMENTAL_CASES)
    count += check_property(TRAIN_FASTER_TASK, train_faster, reference_train,
                            st.tuples(pretoken_count_dicts, st.integers(0, 20)), max_examples=80)
    verify_incremental_updates(train_faster, TRAIN_FASTER_TASK.name)  # prints its own line when it passes
    passed(f"train_faster: the reference's merges on {count} corpora.")
