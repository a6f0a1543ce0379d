"""Figures and tables of theory page 05, ``theory/05-heap.md``: V5's lazy heap traced on page 01's
corpus, a key with only ``__lt__``, stale entries and compaction, the V4/V5 crossover (measured by
:mod:`.heap_timings`), V5 against the linked list as words get longer, the self-overlap ``a a a``."""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ...data_files import REPO_ROOT, TINYSTORIES_SAMPLE
from ...pretokenize import count_pretokens
from ...tiebreak import SortKeys
from ...train.step04_inverted_index import merge_indexed_words
from ...train.step05_heap import _MIN_HEAP_TO_COMPACT as MIN_HEAP_TO_COMPACT  # V5 rebuilds no smaller heap
from ...train.step05_heap import DEFAULT_COMPACTION_THRESHOLD
from ...train.step05_heap import merge_steps as v5_merge_steps
from ...train.step05_heap import train as v5_train
from ...train.step05_linked_list import merge_occurrences
from ..bench.train import LANGUAGES
from .common import (
    TRAIN_BENCHMARK, benchmark_seconds, code, corpus_counts, distinct_pairs, markdown_table, mean_length, name_axes, page_snippets,
    Pair, panels, read_json, refuse_unless, save_png, show_pair, show_token, show_word, thousands,
)
from .heap_timings import CROSSOVER_JSON, WORD_LENGTH_JSON
from .inverted_index import indexed_run, start_v4, totals
from .naive_bpe import worked_example_counts

PAGE = "05-heap.md"

Key = Callable[[int, Pair], tuple]

WORKED_EXAMPLE_MERGES = 4  # the page traces V5's first four merges of page 01's corpus


# V5's loop, instrumented: what is in the heap, what is popped and pushed

@dataclass(frozen=True)
class HeapStep:
    """One merge of V5, seen from the heap; ``heap_size`` and ``live_pairs`` after the merge."""

    pair: Pair
    count: int
    stale: list[tuple[int, Pair, int]]  # (count in the entry, pair, live count) of each stale entry popped
    pushed: list[tuple[int, Pair]]  # (count, pair) of the fresh entries pushed after the merge
    heap_size: int
    live_pairs: int
    heap_before: list[tuple[int, Pair]] = field(default_factory=list)  # every entry in pop order, when recorded
    live_before: dict[Pair, int] = field(default_factory=dict)
    rebuilt: bool = False


def course_key() -> Key:
    """The course's heap key (:meth:`bpe_ref.tiebreak.SortKeys.rank_key`): a total order."""
    return SortKeys().rank_key


class LessThanOnly:
    """Seed 000's ``ReversedBytes`` idea, written again to show its flaw: reverse the order of
    bytes by defining ``__lt__`` and nothing else.

    ``==`` is then Python's default, identity, and two wrappers of the same bytes are *not* equal.
    Comparing tuples, Python looks for the first position whose items are not ``==`` and decides
    on that position with ``<``: for ``(-3, (W(b" ca"), W(b"t")))`` against
    ``(-3, (W(b" ca"), W(b"r")))`` it stops at the left tokens, finds neither ``<`` the other,
    and never looks at the right tokens.
    """

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __lt__(self, other: LessThanOnly) -> bool:
        return self.data > other.data


def less_than_only_key(count: int, pair: Pair) -> tuple:
    """The seed's entry layout, ``(-count, (wrapper(left), wrapper(right)))``."""
    return (-count, (LessThanOnly(pair[0]), LessThanOnly(pair[1])))


def lazy_heap_run(pretoken_counts: Mapping[bytes, int], num_merges: int | None = None, key: Key | None = None,
                  record: bool = False, compaction_threshold: float | None = None) -> list[HeapStep]:
    """V5's merge loop (``step05_heap.merge_steps``, with V4's words and index) with the heap in view;
    ``record`` keeps each merge's heap contents and counts, ``compaction_threshold`` follows V5's rule.

    Fresh entries are pushed in a fixed order (affected words by id, new pairs left to right), so a key
    that leaves ties to the heap's layout (:func:`less_than_only_key`) gives the same answer on every run.
    """
    key = key or course_key()
    words, frequencies, pair_counts, index = start_v4(pretoken_counts)
    entries = [(*key(count, pair), pair) for pair, count in pair_counts.items()]
    heapq.heapify(entries)
    steps: list[HeapStep] = []
    while pair_counts and (num_merges is None or len(steps) < num_merges):
        before = [(-entry[0], entry[-1]) for entry in sorted(entries)] if record else []
        live_before = dict(pair_counts) if record else {}
        stale = []
        while True:
            entry = heapq.heappop(entries)
            pair, claimed = entry[-1], -entry[0]
            live = pair_counts.get(pair, 0)
            if live == claimed:
                break
            stale.append((claimed, pair, live))
            if 0 < live < claimed:  # it lost count since: its place is lower down
                heapq.heappush(entries, (*key(live, pair), pair))
            # live > claimed: a fresher entry was pushed when it grew; live 0: it is gone
        count = pair_counts[pair]
        _, grown = merge_indexed_words(pair, words, frequencies, index, pair_counts)
        pushed = []
        for new_pair in grown:
            if new_pair in pair_counts:
                heapq.heappush(entries, (*key(pair_counts[new_pair], new_pair), new_pair))
                pushed.append((pair_counts[new_pair], new_pair))
        rebuilt = compaction_threshold is not None and len(entries) > max(
            MIN_HEAP_TO_COMPACT, compaction_threshold * len(pair_counts))
        if rebuilt:
            entries = [(*key(c, p), p) for p, c in pair_counts.items()]
            heapq.heapify(entries)
        steps.append(HeapStep(pair, count, stale, pushed, len(entries), len(pair_counts), before, live_before, rebuilt))
    return steps


def heap_merges(pretoken_counts: Mapping[bytes, int], key: Key | None = None) -> list[Pair]:
    return [step.pair for step in lazy_heap_run(pretoken_counts, key=key)]


# The worked example

def worked_example_steps() -> list[HeapStep]:
    return lazy_heap_run(worked_example_counts(), WORKED_EXAMPLE_MERGES, record=True)


def worked_example_snippet() -> str:
    """Each traced merge: the heap's entries in pop order (top first) and what the merge does."""
    parts = []
    for rank, step in enumerate(worked_example_steps(), 1):
        rows = []
        popped = len(step.stale) + 1
        for position, (claimed, pair) in enumerate(step.heap_before, 1):
            if position > max(popped, 4):
                break
            now = step.live_before.get(pair, 0)
            status = "fresh" if now == claimed else "stale: gone" if now == 0 else f"stale: now {now}"
            action = ("" if position > popped else "popped: merged" if now == claimed
                      else "popped: pushed again" if 0 < now < claimed else "popped: dropped")
            rows.append((position, claimed, show_pair(pair), status, action))
        rest = len(step.heap_before) - len(rows)
        table = markdown_table(["#", "count in entry", "pair", "entry is", "this merge"], rows, align="rrlll")
        pushed = ", ".join(f"{show_pair(p)} {c}" for c, p in step.pushed) or "none"
        parts.append(
            f"**Merge {rank}.** The heap holds {len(step.heap_before)} entries; the top {len(rows)} in pop order "
            f"({rest} more below):\n\n{table}\n"
            f"Merged {show_pair(step.pair)} (count {step.count}) after {len(step.stale)} stale "
            f"pop{'s' if len(step.stale) != 1 else ''}. Pushed: {pushed}. "
            f"Heap size after: {step.heap_size} entries for {step.live_pairs} live pairs.\n"
        )
    return "\n".join(parts)


# The pitfall: a key with only __lt__

# (label, pretoken counts): texts on which the wrapper key goes wrong, or right by luck
WRAPPER_CASES: tuple[tuple[str, str], ...] = (
    ("` dat cog`", " dat cog"),
    ("` cat` ×3 + ` car` ×3", " cat" * 3 + " car" * 3),
    ("` car` ×3 + ` cat` ×3", " car" * 3 + " cat" * 3),
)


@dataclass(frozen=True)
class WrapperCase:
    label: str
    right: list[Pair]
    wrong: list[Pair]

    @property
    def first_difference(self) -> int | None:
        """The first merge (from 1) the wrapper key gets wrong, ``None`` when all agree."""
        for rank, (a, b) in enumerate(zip(self.right, self.wrong), 1):
            if a != b:
                return rank
        return None if len(self.right) == len(self.wrong) else min(len(self.right), len(self.wrong)) + 1


def wrapper_case(label: str, text: str) -> WrapperCase:
    counts = count_pretokens(text, special_tokens=())
    return WrapperCase(label, v5_train(counts, 10**6), heap_merges(counts, less_than_only_key))


def wrapper_snippet() -> str:
    rows = []
    for case in (wrapper_case(label, text) for label, text in WRAPPER_CASES):
        rank = case.first_difference
        rows.append((case.label, "all agree", "", "") if rank is None else
                    (case.label, f"merge {rank}", show_pair(case.right[rank - 1]), show_pair(case.wrong[rank - 1])))
    return markdown_table(["text", "first wrong merge", "the course's rule (V5)", "key with `__lt__` only"], rows)


# Stale entries and compaction over a whole run

LOW_THRESHOLD = 1.5  # a threshold low enough that compaction happens on the sample


@dataclass(frozen=True)
class HeapSizeRun:
    live_pairs: list[int]  # after each merge
    sizes: dict[str, list[int]]  # label -> heap size after each merge, from the trainer's trace
    stale_pops: dict[str, int]
    compactions: dict[str, list[int]]  # label -> merges after which the heap was rebuilt
    pushes: dict[str, int]  # fresh entries pushed for pairs that grew
    repushes: dict[str, int]  # stale entries pushed again with a smaller count
    initial_entries: int  # P before merge 1, the entries heapify starts with


@lru_cache(maxsize=2)
def heap_size_run(path: Path = TINYSTORIES_SAMPLE) -> HeapSizeRun:
    """Train the whole of ``path`` with V5 three ways (default compaction, none, a low threshold). A threshold that the
    run without compaction never crosses makes that very run (V5 rebuilds only past it): it is not made again."""
    counts = corpus_counts(Path(path))
    sizes, stale, compactions, pushes, repushes = {}, {}, {}, {}, {}
    live: list[int] = []
    uncompacted = lazy_heap_run(counts)
    for label, threshold in ((f"threshold {DEFAULT_COMPACTION_THRESHOLD:g} (default)", DEFAULT_COMPACTION_THRESHOLD),
                             ("no compaction", None), (f"threshold {LOW_THRESHOLD:g}", LOW_THRESHOLD)):
        crossed = threshold is not None and any(
            step.heap_size > max(MIN_HEAP_TO_COMPACT, threshold * step.live_pairs) for step in uncompacted)
        steps = lazy_heap_run(counts, compaction_threshold=threshold) if crossed else uncompacted
        live = [step.live_pairs for step in steps]
        sizes[label] = [step.heap_size for step in steps]
        stale[label] = sum(len(step.stale) for step in steps)
        compactions[label] = [rank for rank, step in enumerate(steps, 1) if step.rebuilt]
        pushes[label] = sum(len(step.pushed) for step in steps)
        repushes[label] = sum(1 for step in steps for claimed, _, now in step.stale if 0 < now < claimed)
    return HeapSizeRun(live, sizes, stale, compactions, pushes, repushes, distinct_pairs(counts))


def compaction_snippet() -> str:
    run = heap_size_run()
    merges = len(run.live_pairs)
    size = run.sizes["no compaction"]
    ratio = [s / max(p, 1) for s, p in zip(size, run.live_pairs)]
    peak = max(range(merges), key=lambda i: size[i])
    big = [i for i in range(merges) if size[i] >= MIN_HEAP_TO_COMPACT]  # V5 never rebuilds a smaller heap
    worst = max(big, key=lambda i: ratio[i])
    rows = [
        (label, thousands(max(sizes)), thousands(run.pushes[label]), thousands(run.repushes[label]),
         thousands(run.stale_pops[label]), ", ".join(f"{thousands(m)}" for m in run.compactions[label]) or "never")
        for label, sizes in run.sizes.items()
    ]
    return (
        f"The shipped TinyStories sample trained to the end: {thousands(merges)} merges, "
        f"$P$ = {thousands(run.initial_entries)} pairs before merge 1 (the entries `heapify` starts with). "
        "Without compaction the heap peaks at "
        f"{thousands(size[peak])} entries (merge {peak + 1}, {run.live_pairs[peak]:,} live pairs); while it holds at least "
        f"{thousands(MIN_HEAP_TO_COMPACT)} entries (V5 never rebuilds a smaller one) it holds at most "
        f"{ratio[worst]:.2f} entries per live pair (merge {worst + 1}).\n\n"
        + markdown_table(["compaction", "largest heap", "fresh entries pushed", "pushed again", "stale entries popped",
                          "rebuilt after merge"], rows, align="lrrrrl")
    )


def draw_heap_size(run: HeapSizeRun, path: Path) -> Path:
    fig, (left, right) = panels(2)
    merges = list(range(1, len(run.live_pairs) + 1))
    for (label, sizes), colour, style in zip(run.sizes.items(), ["#4c72b0", "#c44e52", "#55a868"], ["-", "--", "-"]):
        left.plot(merges, sizes, style, color=colour, linewidth=1, label=f"heap entries, {label}")
        right.plot(merges, [s / p if p else float("nan") for s, p in zip(sizes, run.live_pairs)], style,
                   color=colour, linewidth=1, label=label)
    left.plot(merges, run.live_pairs, color="#2f2f2f", linewidth=1, label="live pairs P")
    left.plot(merges, [DEFAULT_COMPACTION_THRESHOLD * p for p in run.live_pairs], ":", color="#4c72b0", linewidth=1,
              label=f"{DEFAULT_COMPACTION_THRESHOLD:g} P (default rebuild line)")
    name_axes(left, "merge", "entries", "Heap size over a whole run, TinyStories sample", "upper right", 7)
    right.axhline(DEFAULT_COMPACTION_THRESHOLD, color="#4c72b0", linestyle=":", linewidth=1)
    right.axhline(LOW_THRESHOLD, color="#55a868", linestyle=":", linewidth=1)
    right.set_ylim(0.9, 2.6)
    name_axes(right, "merge", "heap entries / live pairs", "Entries per live pair (dotted: the thresholds)", "upper left", 7)
    return save_png(fig, path)


# The V4/V5 crossover, from the committed measurement

def crossover_data(path: Path = CROSSOVER_JSON) -> dict:
    return read_json(path)


def first_lasting_lead(merges: Sequence[int], v4: Sequence[float], v5: Sequence[float]) -> int | None:
    """The first recorded merge from which V5's cumulative time stays below V4's."""
    lead = None
    for merge, a, b in zip(merges, v4, v5):
        lead = (lead or merge) if b < a else None
    return lead


@dataclass(frozen=True)
class SeedEstimate:
    """Seed 000's per-merge crossover, ``A < P / (L (log2 P - 1))``, with a corpus's own numbers."""

    pairs: int  # P before merge 1
    length: float  # L, bytes per distinct pretoken
    bound: float  # the A (words a merge rewrites) below which the formula says V5 wins a merge
    merges: int
    above: int  # how many of the first ``merges`` merges rewrite more words


@lru_cache(maxsize=4)
def seed_estimate(path: Path, merges: int) -> SeedEstimate:
    counts = corpus_counts(Path(path))
    pairs, length = distinct_pairs(counts), mean_length(counts)
    bound = pairs / (length * (math.log2(pairs) - 1))
    trace = [step for _, step in zip(range(merges), v5_merge_steps(counts))]
    return SeedEstimate(pairs, length, bound, len(trace), sum(step.affected_words > bound for step in trace))


def crossover_snippet() -> str:
    data = crossover_data()
    rows = []
    for corpus in data["corpora"]:
        v4, v5 = corpus["seconds"].values()
        merges = corpus["merges"]
        at = {m: (a, b) for m, a, b in zip(merges, v4, v5)}
        lead = first_lasting_lead(merges, v4, v5)
        last = merges[-1]
        seed = seed_estimate(REPO_ROOT / corpus["file"], last)
        rows.append((corpus["label"], thousands(seed.pairs), f"{seed.length:.1f}", f"{seed.bound:.0f}",
                     f"{seed.above} of {thousands(seed.merges)}",
                     f"merge {lead}" if lead else "never", *(f"{at[m][0]:.2f} s / {at[m][1]:.2f} s" for m in (100, 1000, last))))
    table = markdown_table(
        ["corpus", "$P$", "$L$", "bound on $A$", "merges above it", "V5 ahead for good from",
         "V4 / V5 after 100 merges", "after 1,000", f"after {thousands(last)}"], rows, align="lrrrrlrrr")
    return (
        f"Measured with `{data['command']}` on {data['date']} ({data['machine']}); median of {data['repeats']} runs of "
        f"each trainer's merge loop, set-up included (file [`benchmarks/heap/crossover.json`](benchmarks/heap/crossover.json)). "
        "$P$: distinct pairs before merge 1; $L$: bytes per distinct pretoken; the bound on $A$ is the blog post's "
        "$P / (L (\\log_2 P - 1))$ with these values, and the next column counts the merges whose $A$, the words "
        "V5 rewrites, exceeds it.\n\n"
        + table
    )


def draw_crossover(data: dict, path: Path) -> Path:
    corpora = data["corpora"]
    fig, axes = panels(len(corpora), sharey=True)
    for ax, corpus in zip(axes, corpora):
        (v4_label, v4), (v5_label, v5) = corpus["seconds"].items()
        ax.plot(corpus["merges"], v4, color="#c44e52", label=v4_label + ": scan all P pairs")
        ax.plot(corpus["merges"], v5, color="#4c72b0", label=v5_label + ": lazy heap")
        name_axes(ax, "merges done", "cumulative seconds of the merge loop" if ax is axes[0] else "",
                  f"{corpus['label']} (W = {thousands(corpus['distinct_words'])})", "upper left")
    fig.suptitle(f"V4 against V5, merge by merge ({data['machine'].split(',')[0]}, median of {data['repeats']})", fontsize=9)
    return save_png(fig, path)


# Whole-word rewrite (V5) against the linked list, as words get longer

@dataclass(frozen=True)
class LanguageRow:
    language: str
    heading: str
    distinct_words: int
    mean_length: float  # bytes of a distinct pretoken, on average
    heap_seconds: float
    linked_list_seconds: float

    @property
    def ratio(self) -> float:
        return self.heap_seconds / self.linked_list_seconds


@lru_cache(maxsize=1)
def language_rows(path: Path = TRAIN_BENCHMARK) -> tuple[LanguageRow, ...]:
    times = benchmark_seconds(path)
    rows = []
    for label, corpus in LANGUAGES:  # the training benchmark's: "English (TinyStories 2 MiB)", its corpus file
        language = label.split(" (")[0]
        heading = next((h for h in times if h.startswith(label)), None)
        if heading is None or not {"heap", "linked_list"} <= times[heading].keys():
            raise ValueError(f"no heap and linked_list times for {language} in {path}: has its format changed?")
        counts = corpus_counts(corpus)
        rows.append(LanguageRow(language, heading, len(counts), mean_length(counts), times[heading]["heap"], times[heading]["linked_list"]))
    return tuple(rows)


def word_length_data(path: Path = WORD_LENGTH_JSON) -> dict:
    return read_json(path)


def _ratio(row: dict) -> float:
    return row["seconds"]["V5 (heap)"] / row["seconds"]["linked list"]


def word_length_claims(rows: Sequence[LanguageRow], glued: dict) -> list[str]:
    """Page 05's claims about the four languages that these measurements contradict (none, when the page
    is right): claims that hold for any run; the ratios, which move from run to run, are only quoted."""
    false = []
    if not all(r.ratio > 1 for r in rows):
        false.append("the linked list wins in every run")
    shortest = min(rows, key=lambda r: r.mean_length)
    if shortest.language != "English" or any(r.ratio <= shortest.ratio for r in rows if r is not shortest):
        false.append("its lead is smallest on English, whose pretokens are the shortest")
    if max(_ratio(row) for row in glued["rows"]) <= max(r.ratio for r in rows):
        false.append("it wins by more still on the glued text than on any language")
    return false


def word_length_snippet(rows: Sequence[LanguageRow] | None = None, glued: dict | None = None) -> str:
    rows = rows or language_rows()
    glued = glued or word_length_data()
    false = word_length_claims(rows, glued)
    refuse_unless(not false, "the training benchmark's four languages contradict page 05 ('" + "'; '".join(false) + "')",
                  "05", "claims (and word_length_claims)")
    languages = markdown_table(
        ["benchmark run", "$W$", "bytes per distinct pretoken", "V5 (heap) s", "linked list s", "V5 / linked list"],
        [(r.heading, thousands(r.distinct_words), f"{r.mean_length:.1f}", f"{r.heap_seconds:.2f}",
          f"{r.linked_list_seconds:.2f}", f"{r.ratio:.2f}×") for r in rows],
        align="lrrrrr",
    )
    same_text = markdown_table(
        ["pretokens per word ($n$)", "$W$", "bytes per distinct word", "V5 (heap) s", "linked list s", "V5 / linked list"],
        [(row["group"], thousands(row["distinct_words"]), f"{row['bytes_per_distinct_word']:.1f}",
          f"{row['seconds']['V5 (heap)']:.2f}", f"{row['seconds']['linked list']:.2f}", f"{_ratio(row):.2f}×")
         for row in glued["rows"]],
        align="rrrrrr",
    )
    return (
        "Four languages, times from the course's [training benchmark](benchmarks/train/README.md) (median of a fresh "
        "process each, pretokenization included); lengths computed from the corpora in `data/`.\n\n" + languages
        + f"\nOne text, longer and longer words: the first {glued['characters']:,} characters of `{glued['file']}`, "
        "pretokenized, with every $n$ consecutive pretokens of a document glued into one word; "
        f"{glued['merges']:,} merges, each trainer's merge loop with its set-up, median of {glued['repeats']} runs. "
        f"Measured with `{glued['command']}` on {glued['date']} ({glued['machine']}; file "
        "[`benchmarks/heap/word_length.json`](benchmarks/heap/word_length.json)).\n\n"
        + same_text
    )


def draw_word_length(rows: Sequence[LanguageRow], glued: dict, path: Path) -> Path:
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    fig, (left, right) = panels(2)
    x = [row["bytes_per_distinct_word"] for row in glued["rows"]]
    heap = [row["seconds"]["V5 (heap)"] for row in glued["rows"]]
    glued_ratios, language_ratios = [_ratio(row) for row in glued["rows"]], [r.ratio for r in rows]
    left.plot(x, heap, "o-", color="#c44e52", label="V5: rewrite each affected word whole")
    left.plot(x, [row["seconds"]["linked list"] for row in glued["rows"]], "s-", color="#4c72b0",
              label="linked list: O(1) per occurrence")
    for row, length, seconds in zip(glued["rows"], x, heap):
        left.annotate(f"{row['group']} per word", (length, seconds), textcoords="offset points", xytext=(4, 4), fontsize=7)
    left.set_yscale("log")
    left.set_ylim(top=max(heap) * 2.5)
    name_axes(left, "bytes per distinct word (log scale)", f"seconds for {glued['merges']:,} merges (log scale)",
              "One text, pretokens glued into longer words", "upper left", 7, grid="both")
    right.plot(x, glued_ratios, "o-", color="#2f2f2f", label="one text, glued pretokens")
    right.plot([r.mean_length for r in rows], language_ratios, "D--", color="#dd8452",
               label="four languages, vocab 10,000 (benchmark)")
    for r in rows:
        right.annotate(r.language, (r.mean_length, r.ratio), textcoords="offset points", xytext=(4, -10), fontsize=7)
    right.axhline(1, color="#888888", linestyle="--", linewidth=1)
    for ax in (left, right):  # word lengths in bytes on a log axis, labelled with plain numbers
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(FixedLocator([4, 8, 16, 32, 64]))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlim(4, 100)
    right.set_ylim(0, max(glued_ratios + language_ratios) * 1.15)
    name_axes(right, "bytes per distinct word (log scale)", "V5 time / linked-list time", "How much the linked list saves",
              "upper left", 7, grid="both")
    return save_png(fig, path)


# The linked list: self-overlap traced on the arrays

UNLINKED = b""


@dataclass(frozen=True)
class ListState:
    """The arrays of the linked list after some event: ``token``, ``prev``, ``next_``."""

    event: str
    token: tuple[bytes, ...]
    prev: tuple[int, ...]
    next_: tuple[int, ...]


def link(words: Sequence[Sequence[bytes]]) -> tuple[list[bytes], list[int], list[int], defaultdict[Pair, list[int]]]:
    """One node per token of each word, words one after another; -1 at a word's ends."""
    token: list[bytes] = []
    prev: list[int] = []
    next_: list[int] = []
    occurrences: defaultdict[Pair, list[int]] = defaultdict(list)
    for word in words:
        start = len(token)
        for i, t in enumerate(word):
            token.append(t)
            prev.append(start + i - 1 if i else -1)
            next_.append(start + i + 1 if i + 1 < len(word) else -1)
            if i:
                occurrences[(word[i - 1], t)].append(start + i - 1)
    return token, prev, next_, occurrences


def trace_list_merge(words: Sequence[Sequence[bytes]], pair: Pair) -> tuple[list[ListState], dict[Pair, int]]:
    """Merge ``pair`` once on the linked list of ``words`` (each once), one node at a time with step 05's
    ``merge_occurrences``, recording the arrays after each node and the summed count changes (the merged pair
    itself left out)."""
    token, prev, next_, occurrences = link(words)  # not step 05's link_words: a word may be listed twice here
    states = [ListState(f"start; occurrences of {show_pair(pair)}: nodes {occurrences[pair]}", tuple(token), tuple(prev), tuple(next_))]
    changes: Counter[Pair] = Counter()
    each_once = [1] * len(token)
    for node in occurrences[pair]:  # in node order: left to right, as self-overlap needs
        follower, was = next_[node], token[node]
        neighbours = (("x", prev[node]), ("y", next_[follower] if follower != -1 else -1))
        notes = ", ".join(f"{name} = {show_token(token[n])}" for name, n in neighbours if n != -1) or "no neighbours"
        changed, merged = merge_occurrences(pair, token, prev, next_, each_once, {pair: [node]})
        changes.update(changed)
        why = "unlinked" if was == UNLINKED else "no longer starts the pair"
        event = f"node {node}: merged with node {follower} ({notes})" if merged else f"node {node}: stale ({why}), skipped"
        states.append(ListState(event, tuple(token), tuple(prev), tuple(next_)))
    return states, {p: c for p, c in changes.items() if c}


SELF_OVERLAP_WORDS: tuple[tuple[bytes, ...], ...] = ((b"a", b"a", b"a"), (b"a", b"a", b"a", b"a"))


def self_overlap_snippet(words: Sequence[Sequence[bytes]] = SELF_OVERLAP_WORDS, pair: Pair = (b"a", b"a")) -> str:
    states, changes = trace_list_merge(words, pair)
    n = len(states[0].token)
    headers = ["step", *(f"node {i}" for i in range(n))]

    def cell(state: ListState, i: int) -> str:
        if state.token[i] == UNLINKED:
            return "(unlinked)"
        return code(f"{state.prev[i]} ← {show_token(state.token[i])} → {state.next_[i]}")

    rows = [(s.event, *(cell(s, i) for i in range(n))) for s in states]
    words_text = " and ".join(show_word(w) for w in words)
    change_text = ", ".join(f"{show_pair(p)} {c:+d}".replace("-", "−") for p, c in sorted(changes.items())) or "none"
    return (
        f"The words {words_text}, each once, merging {show_pair(pair)}. Each cell is "
        f"`prev ← token → next` of a node (−1: the word's end).\n\n"
        + markdown_table(headers, rows)
        + f"\nSummed changes, the merged pair itself left out (every occurrence of it is gone): {change_text}.\n"
    )


def stale_visits_snippet(path: Path = TINYSTORIES_SAMPLE) -> str:
    """Section 6: the ids V4 and V5 (same index, same merges) visit over a whole run, stale ones
    included, the tokens those visits read, and the bound 3Q they stay under."""
    run = indexed_run(path)
    visited, stale, tokens = totals(run.merges, "visited", "stale", "visited_tokens")
    pretoken_counts = corpus_counts(Path(path))
    q = sum(len(p) ** 2 for p in pretoken_counts)
    return (
        f"On the TinyStories sample ({thousands(len(run.merges))} merges), V4 and V5 pop "
        f"{thousands(visited)} ids from the index, {thousands(stale)} of them stale "
        f"({100 * stale / visited:.0f}%); the words they visit hold {thousands(tokens)} tokens in all, "
        f"against $Q$ = {thousands(q)} ($3Q$ = {thousands(3 * q)}).\n"
    )

def snippets() -> dict[str, str]:
    return page_snippets("05", {
        "05-worked-example.md": worked_example_snippet(),
        "05-stale-visits.md": stale_visits_snippet(),
        "05-less-than-only.md": wrapper_snippet(),
        "05-compaction.md": compaction_snippet(),
        "05-crossover.md": crossover_snippet(),
        "05-word-length.md": word_length_snippet(),
        "05-self-overlap.md": self_overlap_snippet(),
    })


def draw_figures(out_dir: Path) -> list[Path]:
    return [
        draw_heap_size(heap_size_run(), out_dir / "05-heap-size.png"),
        draw_crossover(crossover_data(), out_dir / "05-crossover.png"),
        draw_word_length(language_rows(), word_length_data(), out_dir / "05-word-length.png"),
    ]
