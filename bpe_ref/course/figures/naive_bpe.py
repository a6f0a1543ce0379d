"""Figures and tables of theory page 01, ``theory/01-naive-bpe.md``: the worked example traced with
every pair count and the tie-break spelled out (:func:`hand_trace`), seed 001's example re-worked under
the course's rules, what deduplicating words saves, and the first merges on the TinyStories sample
(:func:`training_run`, measured merge by merge, which page 02 reads too)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ...corpus import read_corpus
from ...data_files import TINYSTORIES_SAMPLE, data_file
from ...pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens
from ...train import MergeStep, train_on_counts
from ...train.step01_naive import best_pair, count_pairs, merge_word
from .common import (
    as_words, best_first, code, code_token, corpus_counts, markdown_table, name_axes, page_snippets, panels, save_png, show_pair,
    Pair, show_token, show_word, thousands,
)

if TYPE_CHECKING:
    from .inverted_index import IndexedMerge

PAGE = "01-naive-bpe.md"
DEFAULT_NUM_MERGES = 1000  # the merges of the TinyStories run pages 01 and 02 measure

# The worked example: the text, its pretoken counts, and how many merges the page traces.
WORKED_EXAMPLE_TEXT = " nest" * 4 + " net" * 4 + " ten" * 2 + " test" * 5
WORKED_EXAMPLE_NUM_MERGES = 8

# The second example: the five short sentences of a source document's hand trace (seed 001), as a
# text whose GPT-2 pretokens are its words. Training stops by itself after 8 merges.
SEED_EXAMPLE_TEXT = "I work\nI work\nI worked\nhe works\nhe worked"
SEED_EXAMPLE_NUM_MERGES = 8


# One training run on the shipped TinyStories sample, measured merge by merge (pages 01 and 02)

def measure_merges(pretoken_counts: Mapping[bytes, int], trace: Sequence[MergeStep]) -> list[IndexedMerge]:
    """Replay ``trace`` (from any trainer, checked merge by merge) with V4's :func:`.inverted_index.replay`:
    its ``windows`` are what V1 recounts, ``distinct_pairs`` what V1 and V2 scan, ``affected_words`` what V2
    rewrites and ``updated_windows`` the windows V2 subtracts and adds back in them."""
    from .inverted_index import replay  # not at the top: page 04's module imports this one

    return replay(pretoken_counts, trace).merges


@dataclass(frozen=True)
class TrainingRun:
    num_merges: int
    pretoken_counts: dict[bytes, int]
    trace: list[MergeStep]
    work: list[IndexedMerge]

    @property
    def distinct_words(self) -> int:
        return len(self.pretoken_counts)


@lru_cache(maxsize=4)
def training_run(path: Path = TINYSTORIES_SAMPLE, num_merges: int = DEFAULT_NUM_MERGES) -> TrainingRun:
    """Train ``num_merges`` merges on ``path`` (special token ``<|endoftext|>``) and measure them. Every trainer
    learns the same merges, which :func:`measure_merges` checks one by one: V5's heap finds them (V2's scans cost
    about 3.5 s of CPU more on the TinyStories sample, the page's run)."""
    pretoken_counts = corpus_counts(Path(path))
    trace: list[MergeStep] = []
    vocab_size = 256 + len(DEFAULT_SPECIAL_TOKENS) + num_merges
    train_on_counts(pretoken_counts, vocab_size, DEFAULT_SPECIAL_TOKENS, method="heap", trace=trace)
    return TrainingRun(num_merges, pretoken_counts, trace, measure_merges(pretoken_counts, trace))


@dataclass(frozen=True)
class HandStep:
    """One merge of a hand trace, with everything a learner writes down for it."""

    rank: int
    new_id: int
    words_before: list[tuple[list[bytes], int]]  # each word as its tokens, and its count
    pair_counts: list[tuple[Pair, int]]  # every pair, best first (course tie-break order)
    chosen: Pair
    count: int
    words_after: list[tuple[list[bytes], int]]

    @property
    def tied(self) -> list[Pair]:
        """The pairs that share the highest count (the chosen one first)."""
        return [pair for pair, count in self.pair_counts if count == self.count]


def hand_trace(pretoken_counts: Mapping[bytes, int], num_merges: int, first_id: int = 256) -> list[HandStep]:
    """The naive loop, recording each step's pair counts and words: what a hand trace shows.

    ``first_id`` is the id of the first merged token (256 plus the number of special tokens).
    """
    word_counts = as_words(pretoken_counts)

    def spelled() -> list[tuple[list[bytes], int]]:
        return [(list(word), frequency) for word, frequency in word_counts.items()]

    steps: list[HandStep] = []
    for rank in range(num_merges):
        counts = count_pairs(word_counts)
        if not counts:
            break
        ordered = [(pair, counts[pair]) for pair in best_first(counts)]
        pair = best_pair(counts)
        before = spelled()
        word_counts = {merge_word(word, pair): frequency for word, frequency in word_counts.items()}
        steps.append(HandStep(rank, first_id + rank, before, ordered, pair, counts[pair], spelled()))
    return steps


def worked_example_counts() -> dict[bytes, int]:
    return count_pretokens(WORKED_EXAMPLE_TEXT, special_tokens=())


def worked_example_trace() -> list[HandStep]:
    return hand_trace(worked_example_counts(), WORKED_EXAMPLE_NUM_MERGES)


def seed_example_counts() -> dict[bytes, int]:
    return count_pretokens(SEED_EXAMPLE_TEXT, special_tokens=())


def seed_example_trace() -> list[HandStep]:
    return hand_trace(seed_example_counts(), SEED_EXAMPLE_NUM_MERGES)


# Explaining the tie-break

def _first_difference(a: bytes, b: bytes) -> str:
    """Why ``a > b`` as byte strings (``a`` is the greater one), in words."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            if len(a) == len(b) == 1:
                return f"{code_token(a)} > {code_token(b)} (0x{x:02x} > 0x{y:02x})"
            return (f"{code_token(a)} > {code_token(b)} (byte {i + 1}: {code_token(bytes([x]))} 0x{x:02x} > "
                    f"{code_token(bytes([y]))} 0x{y:02x})")
    return f"{code_token(a)} > {code_token(b)} (a prefix is smaller than the longer string)"


def why_greater(winner: Pair, loser: Pair) -> str:
    """Why ``winner`` beats ``loser`` under the tie-break (greatest ``(left, right)`` bytes tuple)."""
    if winner <= loser:
        raise ValueError(f"{winner} is not greater than {loser}")
    if winner[0] != loser[0]:
        return "left: " + _first_difference(winner[0], loser[0])
    return "same left; right: " + _first_difference(winner[1], loser[1])


def tie_break_text(chosen: Pair, tied: list[Pair]) -> str:
    """How ``chosen`` won among ``tied`` (the pairs sharing the highest count, ``chosen`` first)."""
    if len(tied) == 1:
        return "no tie"
    return "tie: " + "; ".join(f"beats {show_pair(loser)} ({why_greater(chosen, loser)})" for loser in tied[1:])


# Snippets of the worked example

def words_table(pretoken_counts: Mapping[bytes, int]) -> str:
    rows = [(code_token(word), count, code(" ".join(map(str, word))), len(word) - 1)
            for word, count in pretoken_counts.items()]
    return markdown_table(["word", "count", "byte ids (= byte values)", "pairs in it"], rows, align="lrlr")


def first_count_snippet(steps: list[HandStep]) -> str:
    """How each pair count of the first merge adds up, word by word: the first table of a hand trace."""
    step = steps[0]
    contributions: dict[Pair, list[str]] = {pair: [] for pair, _ in step.pair_counts}
    for tokens, frequency in step.words_before:
        for pair, n in count_pairs({tuple(tokens): 1}).items():  # the word's windows of each pair
            times = "" if n == 1 else f"{n} × "
            contributions[pair].append(f"{times}{frequency} ({code_token(b''.join(tokens))})")
    rows = [(show_pair(pair), " + ".join(contributions[pair]), f"**{count}**" if pair == step.chosen else count)
            for pair, count in step.pair_counts]
    return markdown_table(["pair", "windows, weighted by the word's count", "count"], rows, align="llr")


def counts_matrix(steps: list[HandStep]) -> str:
    """Every pair that ever occurs (rows) and its count before each merge (columns)."""
    order = dict.fromkeys(pair for step in steps for pair, _ in step.pair_counts)  # first seen first
    headers = ["pair"] + [f"merge {s.rank + 1}" for s in steps]
    rows = []
    for pair in order:
        cells = [show_pair(pair)]
        for step in steps:
            count = dict(step.pair_counts).get(pair)
            if count is None:
                cells.append("·")
            elif pair == step.chosen:
                cells.append(f"**{count}**")
            elif count == step.count:
                cells.append(f"*{count}*")
            else:
                cells.append(str(count))
        rows.append(cells)
    return markdown_table(headers, rows, align="l" + "r" * len(steps))


def merges_table(steps: list[HandStep], words_after: bool = True) -> str:
    """Each merge: count, pair, how a tie was decided, the new token, and (``words_after``) the
    words after it; the second example's table leaves the words out."""
    rows = [
        (step.rank + 1, step.count, show_pair(step.chosen), tie_break_text(step.chosen, step.tied),
         f"{code_token(step.chosen[0] + step.chosen[1])} = {step.new_id}",
         *(["<br>".join(f"{show_word(tokens)} ×{count}" for tokens, count in step.words_after)] if words_after else []))
        for step in steps
    ]
    headers = ["merge", "highest count", "chosen pair", "tie-break", "new token = id"]
    headers += ["words after the merge"] if words_after else []
    return markdown_table(headers, rows, align="rrllll"[: len(headers)])


def merges_list(merges: list[Pair]) -> str:
    """The merges as the Python list ``train_bpe_on_text`` (and every trainer) returns."""
    return "```python\n" + repr(merges) + "\n```"


# What counting distinct words saves

@dataclass(frozen=True)
class DedupRow:
    """One prefix of a corpus: its bytes ``N``, distinct words ``W`` and their total length ``W L``."""

    documents: int
    corpus_bytes: int  # N: bytes of all pretokens (the special tokens are not counted)
    distinct_words: int  # W
    distinct_bytes: int  # W * L: the lengths of the distinct words, added up

    @property
    def average_length(self) -> float:  # L
        return self.distinct_bytes / self.distinct_words

    @property
    def factor(self) -> float:  # N / (W L)
        return self.corpus_bytes / self.distinct_bytes


def dedup_rows(path: Path = TINYSTORIES_SAMPLE, halvings: int = 4) -> list[DedupRow]:
    """``N``, ``W`` and ``W L`` for the first 1/16, 1/8, ... and all of the documents of ``path``."""
    (separator,) = DEFAULT_SPECIAL_TOKENS
    documents = read_corpus(data_file(Path(path))).split(separator)
    rows = []
    for n in sorted({max(1, len(documents) >> k) for k in range(halvings + 1)}):
        counts = count_pretokens(separator.join(documents[:n]), DEFAULT_SPECIAL_TOKENS)
        rows.append(DedupRow(n, sum(len(w) * c for w, c in counts.items()), len(counts), sum(len(w) for w in counts)))
    return rows


def dedup_snippet(rows: list[DedupRow]) -> str:
    table = markdown_table(
        ["stories", "bytes $N$", "distinct words $W$", "average length $L$", "$W$ × $L$", "$N$ / ($W$ × $L$)"],
        [(thousands(r.documents), thousands(r.corpus_bytes), thousands(r.distinct_words), f"{r.average_length:.1f}",
          thousands(r.distinct_bytes), f"{r.factor:.1f}") for r in rows], align="rrrrrr")
    return (
        f"The first stories of the shipped TinyStories sample, doubling up to all {thousands(rows[-1].documents)} "
        "(bytes and lengths of the pretokens, special tokens left out):\n\n" + table
    )


# TinyStories

def first_merges_snippet(run: TrainingRun, shown: int = 12) -> str:
    first = run.work[0]
    rows = [(w.rank + 1, 256 + len(DEFAULT_SPECIAL_TOKENS) + w.rank, show_pair((w.left, w.right)), code_token(w.left + w.right),
             thousands(w.count), thousands(w.affected_words)) for w in run.work[:shown]]
    intro = (
        f"On the shipped TinyStories sample ({thousands(run.distinct_words)} distinct pretokens, "
        f"{thousands(first.corpus_tokens)} bytes outside the `<|endoftext|>` separators, which are id 256), "
        f"the first {shown} merges are:\n\n"
    )
    headers = ["merge", "id", "pair", "new token", "count", "distinct words rewritten"]
    return intro + markdown_table(headers, rows, align="rrllrr")


def naive_work_snippet(run: TrainingRun) -> str:
    first, last = run.work[0], run.work[-1]
    total_windows = sum(w.windows for w in run.work)
    return (
        f"Over the {run.num_merges} merges of this run, the naive loop counts "
        f"{thousands(first.windows)} pair windows before merge 1 and still {thousands(last.windows)} before merge "
        f"{run.num_merges}: {thousands(total_windows)} windows in all, about "
        f"{total_windows / run.num_merges:,.0f} per merge. The number of distinct pairs $P$ it then scans "
        f"grows from {thousands(first.distinct_pairs)} to {thousands(last.distinct_pairs)}, while the count of "
        f"the chosen pair falls from {thousands(first.count)} to {thousands(last.count)}."
    )


def draw_merge_counts(run: TrainingRun, path: Path) -> Path:
    fig, (left, right) = panels(2)
    ranks = [w.rank + 1 for w in run.work]
    left.semilogy(ranks, [w.count for w in run.work], color="#4c72b0", linewidth=1)
    name_axes(left, "merge", "count of the chosen pair (log scale)", "Each merge is rarer than the last")
    marked = sorted({i for i in (0, 9, 99, len(run.work) - 1) if 0 <= i < len(run.work)})
    for w in (run.work[i] for i in marked):
        last = w is run.work[-1]
        left.plot([w.rank + 1], [w.count], "o", color="#c44e52", markersize=4)
        left.annotate(f"({show_token(w.left)}, {show_token(w.right)}) {thousands(w.count)}", (w.rank + 1, w.count),
                      textcoords="offset points", xytext=(-6, 8) if last else (8, 2), ha="right" if last else "left")
    right.plot(ranks, [w.windows for w in run.work], color="#4c72b0", label="windows V1 recounts: W·(L − 1)")
    right.plot(ranks, [w.distinct_pairs for w in run.work], color="#dd8452", label="distinct pairs scanned (P)")
    right.axhline(run.distinct_words, color="#55a868", linestyle="--", label=f"distinct words W = {thousands(run.distinct_words)}")
    right.set_ylim(0, run.work[0].windows * 1.1)
    name_axes(right, "merge", "per merge", "V1 recounts every word on every merge", "upper right")
    return save_png(fig, path)


def snippets(corpus: Path = TINYSTORIES_SAMPLE, num_merges: int = DEFAULT_NUM_MERGES) -> dict[str, str]:
    steps = worked_example_trace()
    run = training_run(Path(corpus), num_merges)
    return page_snippets("01", {
        "01-worked-example-words.md": words_table(worked_example_counts()),
        "01-worked-example-first-count.md": first_count_snippet(steps),
        "01-worked-example-counts.md": counts_matrix(steps),
        "01-worked-example-merges.md": merges_table(steps),
        "01-worked-example-merges-list.md": merges_list([s.chosen for s in steps]),
        "01-seed-example-words.md": words_table(seed_example_counts()),
        "01-seed-example-merges.md": merges_table(seed_example_trace(), words_after=False),
        "01-dedup-factor.md": dedup_snippet(dedup_rows(Path(corpus))),
        "01-tinystories-first-merges.md": first_merges_snippet(run),
        "01-naive-work.md": naive_work_snippet(run),
    })


def draw_figures(out_dir: Path, corpus: Path = TINYSTORIES_SAMPLE, num_merges: int = DEFAULT_NUM_MERGES) -> list[Path]:
    return [draw_merge_counts(training_run(Path(corpus), num_merges), out_dir / "01-merge-counts.png")]
