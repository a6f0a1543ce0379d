"""Figures and tables of theory page 04, ``theory/04-inverted-index.md``: four words traced with V4's
append-only index (:func:`index_trace`), a whole run replayed with V4's functions and checked against
a trainer's (:func:`indexed_run`), V4's work per merge and its speed-up over V2.

Timings change from run to run, so they are not snippets: ``python -m bpe_ref.course.figures.inverted_index``
prints where V4's loop spends its time (:func:`loop_time_shares`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from functools import lru_cache
from pathlib import Path

from ...data_files import TINYSTORIES_SAMPLE
from ...measure import median
from ...pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens
from ...train import MergeStep, train_on_counts
from ...train.driver import collector_paused
from ...train.step01_naive import best_pair, count_pairs, merge_word
from ...train.step02_incremental import merge_and_update
from ...train.step04_inverted_index import index_words, merge_indexed_words, pairs_with
from .common import (
    Laps, Pair, Word, as_words, benchmark_times, best_first, code_token, corpus_counts, machine_line, markdown_table,
    name_axes, page_snippets, panels, refuse_unless, repeats_argument, ReplayedBest, rolling_median, save_png, show_pair, show_word,
    speedup_sentence, thousands,
)
from .naive_bpe import merges_list, tie_break_text

PAGE = "04-inverted-index.md"

# The worked example: four words; merge 1 takes (h, a) out of ␣that, and merge 2 merges (h, a).
WORKED_EXAMPLE_TEXT = " cat" * 4 + " at" * 3 + " that" * 5 + " has" * 6


# The worked example, traced with the index

@dataclass(frozen=True)
class IndexStep:
    """One merge of V4 on a small table: ``index_before`` the append-only index (pair -> sorted ids),
    ``exact_before`` an exact one's, ``visited`` the ids V4 pops, ``stale`` those no longer holding the pair."""

    rank: int
    pair: Pair
    count: int
    tied: list[Pair]  # the pairs that share the highest count, the chosen one first
    pair_counts: dict[Pair, int]  # before the merge
    words_before: list[Word]
    words_after: list[Word]
    index_before: dict[Pair, list[int]]
    exact_before: dict[Pair, list[int]]
    visited: list[int]
    stale: list[int]

    @property
    def rewritten(self) -> list[int]:
        return [i for i in self.visited if i not in self.stale]


def start_v4(pretoken_counts: Mapping[bytes, int]) -> tuple[list[Word], list[int], dict[Pair, int], defaultdict]:
    """V4's state before its first merge: the words, their counts, the pair counts and the index."""
    word_counts = as_words(pretoken_counts)
    words = list(word_counts)
    return words, list(word_counts.values()), count_pairs(word_counts), index_words(words)


def index_trace(pretoken_counts: Mapping[bytes, int]) -> list[IndexStep]:
    """V4's loop (its ``merge_steps``, with its functions) until no pair is left, recording the index and the ids
    it visits at every merge."""
    words, frequencies, pair_counts, index = start_v4(pretoken_counts)
    steps: list[IndexStep] = []
    while pair_counts:
        pair = best_pair(pair_counts)
        count = pair_counts[pair]
        tied = [p for p in best_first(pair_counts) if pair_counts[p] == count]
        before, counts_before = list(words), dict(pair_counts)
        snapshot = {p: sorted(ids) for p, ids in index.items()}
        visited = snapshot[pair]
        rewritten, _ = merge_indexed_words(pair, words, frequencies, index, pair_counts)
        stale = sorted(set(visited) - set(rewritten))
        exact = {p: sorted(ids) for p, ids in index_words(before).items()}  # the words that hold each pair now
        steps.append(IndexStep(len(steps), pair, count, tied, counts_before, before, list(words), snapshot, exact,
                               visited, stale))
    return steps


def worked_example_counts() -> dict[bytes, int]:
    return count_pretokens(WORKED_EXAMPLE_TEXT, special_tokens=())


@lru_cache(maxsize=1)
def worked_example_trace() -> list[IndexStep]:
    return index_trace(worked_example_counts())


def _ids(ids: Sequence[int]) -> str:
    return "{" + ", ".join(map(str, ids)) + "}"


def words_snippet(steps: Sequence[IndexStep]) -> str:
    """The word table of the worked example, with each word's id."""
    counts = worked_example_counts()
    rows = [(i, code_token(b"".join(word)), counts[b"".join(word)], show_word(word), len(word) - 1)
            for i, word in enumerate(steps[0].words_before)]
    return markdown_table(["id", "word", "count", "tokens", "pairs in it"], rows, align="rlrlr")


def index_before_snippet(steps: Sequence[IndexStep]) -> str:
    """The index and the pair counts before merge 1, best pair first."""
    first = steps[0]
    rows = []
    for pair in best_first(first.pair_counts):
        ids = first.index_before[pair]
        held = ", ".join(f"{i} {code_token(b''.join(first.words_before[i]))}" for i in ids)
        count = first.pair_counts[pair]
        rows.append((show_pair(pair), f"**{count}**" if pair == first.pair else count, _ids(ids), held))
    return markdown_table(["pair", "count", "`index[pair]`", "the words"], rows, align="lrll")


def merge_snippet(steps: Sequence[IndexStep], rank: int = 0) -> str:
    """Merge ``rank`` done with the index: the ids it visits, and for every entry that changes, V4's
    append-only entry after it beside an exact index's, and the pair's count after it."""
    step, following = steps[rank], steps[rank + 1] if rank + 1 < len(steps) else None
    after_counts = following.pair_counts if following else {}
    after_index = following.index_before if following else {}
    after_exact = following.exact_before if following else {}
    visits = []
    for i in step.visited:
        old, new = step.words_before[i], step.words_after[i]
        if i in step.stale:
            visits.append(f"id {i}: {show_word(old)} does not hold {show_pair(step.pair)} any more, "
                          "`merge_and_update` returns it unchanged: **stale, skipped**")
        else:
            gained = pairs_with(new, step.pair[0] + step.pair[1])
            visits.append(f"id {i}: {show_word(old)} → {show_word(new)}, added under "
                          + ", ".join(show_pair(p) for p in gained))
    changed = sorted(
        {p for p in set(step.index_before) | set(after_index) if step.index_before.get(p) != after_index.get(p)}
        | {p for p in set(step.exact_before) | set(after_exact) if step.exact_before.get(p) != after_exact.get(p)},
        key=lambda p: (-after_counts.get(p, 0), tuple(-b for b in p[0]), p),
    )
    rows = [(show_pair(pair), _ids(step.index_before.get(pair, [])),
             "popped" if pair == step.pair else _ids(after_index.get(pair, [])),
             "removed" if pair not in after_exact and pair in step.exact_before else _ids(after_exact.get(pair, [])),
             after_counts.get(pair, 0)) for pair in changed]
    table = markdown_table(["pair", "before", "after: V4 (append-only)", "after: exact", "count after"], rows, align="llllr")
    return (
        f"Merge {step.rank + 1} chooses {show_pair(step.pair)} (count {step.count}; {tie_break_text(step.pair, step.tied)}). "
        f"V4 pops `index[{show_pair(step.pair)[1:-1]}]` = {_ids(step.visited)} and visits those ids only:\n\n"
        + "".join(f"- {v}\n" for v in visits)
        + "\nThe index entries that change:\n\n" + table
    )


def merges_snippet(steps: Sequence[IndexStep]) -> str:
    """Every merge of the worked example: the pair, the ids visited, the stale ones, the words rewritten."""
    rows = [(step.rank + 1, step.count, show_pair(step.pair), _ids(step.visited), _ids(step.stale) if step.stale else "none",
             len(step.rewritten), " ".join(show_word(step.words_after[i]) for i in step.rewritten)) for step in steps]
    total_rewritten = sum(len(s.rewritten) for s in steps)
    bound = sum(len(w) - 1 for w in steps[0].words_before)
    return (
        markdown_table(["merge", "count", "pair", "ids visited", "stale", "rewritten", "rewritten into"], rows,
                       align="rrlllrl")
        + f"\n{len(steps)} merges, until no pair is left; {sum(len(s.visited) for s in steps)} ids visited, "
        f"{sum(len(s.stale) for s in steps)} of them stale; {total_rewritten} words rewritten in all, "
        f"against the bound $\\sum_w (|w| - 1)$ = {bound}."
    )


# A whole run, replayed and measured

@dataclass(frozen=True, slots=True)
class IndexedMerge:
    """What one merge of V4 does (counts before the merge unless said)."""

    rank: int
    pair: Pair
    count: int
    visited: int  # ids popped from index[pair]
    rewritten: int  # of them, the words the merge changed (the rest are stale)
    shrink: int  # tokens the merge removed from those words
    updated_windows: int  # windows merge_and_update subtracted and added back in them
    visited_tokens: int  # tokens of every visited word (merge_and_update reads each one)
    distinct_pairs: int  # P, the pair counts best_pair compares
    added: int  # ids added to the index after the merge
    exact_removals: int  # ids an exact index would remove (pairs a rewritten word lost, the merged pair aside)
    windows: int  # adjacent-pair windows of all distinct words
    corpus_tokens: int  # tokens of the corpus (each word times its count)

    @property
    def stale(self) -> int:
        return self.visited - self.rewritten

    # pages 01 and 02 read the merged pair's halves and, as the trainers' MergeStep names it, ``rewritten``
    left = property(lambda self: self.pair[0])
    right = property(lambda self: self.pair[1])
    affected_words = property(lambda self: self.rewritten)


@dataclass(frozen=True)
class IndexedRun:
    distinct_words: int  # W
    total_windows: int  # sum over words of (len - 1), before the first merge
    initial_entries: int  # (pair, id) entries of the index before the first merge
    merges: list[IndexedMerge]


def replay(pretoken_counts: Mapping[bytes, int], trace: Sequence[MergeStep]) -> IndexedRun:
    """Replay ``trace`` with V4's functions, measuring each merge and checking its pair is the best one and its
    count and words rewritten are the trainer's, so no page's numbers drift from the trainers (pages 01 and 02 too)."""
    words, frequencies, pair_counts, index = start_v4(pretoken_counts)
    initial = list(words)
    initial_entries = sum(len(ids) for ids in index.values())
    word_tokens = sum(map(len, words))
    corpus_tokens = sum(len(word) * frequency for word, frequency in zip(words, frequencies))
    merges = []
    best = ReplayedBest(pair_counts)
    for rank, step in enumerate(trace):
        pair = step.pair
        if pair_counts.get(pair) != step.count or best.best() != pair:
            raise AssertionError(f"merge {rank + 1}: the trainer chose {step}, the replay's counts say otherwise")
        distinct_pairs = len(pair_counts)
        token = pair[0] + pair[1]
        visited = list(index[pair])
        before = {i: words[i] for i in visited}
        # what merge_indexed_words will do to each word, worked out before it runs: the words it
        # rewrites, and the (pair, id) entries it adds to the index (an id may be listed already)
        after = {i: merge_word(word, pair) for i, word in before.items()}
        after = {i: merged for i, merged in after.items() if len(merged) < len(before[i])}
        added = len({(p, i) for i, merged in after.items() for p in pairs_with(merged, token) if i not in index.get(p, ())})
        rewritten, grown = merge_indexed_words(pair, words, frequencies, index, pair_counts)
        best.grew(grown)
        if sorted(rewritten) != sorted(after) or any(words[i] != merged for i, merged in after.items()):
            raise AssertionError(f"merge {rank + 1}: V4 rewrote other words than merge_word says")
        if len(rewritten) != step.affected_words:
            raise AssertionError(f"merge {rank + 1}: replay rewrote {len(rewritten)} words, the trainer {step.affected_words}")
        shrink = sum(len(before[i]) - len(merged) for i, merged in after.items())
        merges.append(IndexedMerge(
            rank, pair, step.count, len(visited), len(rewritten), shrink,
            updated_windows=sum(len(before[i]) - 1 + len(merged) - 1 for i, merged in after.items()),
            visited_tokens=sum(len(word) for word in before.values()),
            distinct_pairs=distinct_pairs, added=added,
            # the pairs a rewritten word no longer holds, the merged pair aside (its entry is popped)
            exact_removals=sum(len(set(zip(before[i], before[i][1:])) - set(zip(m, m[1:])) - {pair})
                               for i, m in after.items()),
            windows=word_tokens - len(words), corpus_tokens=corpus_tokens,
        ))
        word_tokens -= shrink
        corpus_tokens -= sum((len(before[i]) - len(merged)) * frequencies[i] for i, merged in after.items())
    if pair_counts and len(trace) == 0:
        raise AssertionError("empty trace")
    return IndexedRun(len(words), sum(len(w) - 1 for w in initial), initial_entries, merges)


def indexed_run(path: Path = TINYSTORIES_SAMPLE, method: str = "heap") -> IndexedRun:
    """V4 on the corpus at ``path`` (special token ``<|endoftext|>``) until no pair is left: the merges of
    ``method``'s trainer replayed with V4's functions, each checked to be the rule's best pair with the
    trainer's count and words rewritten. Every trainer learns the same merges; V5's heap finds them in a
    fraction of V4's scans (0.5 s against 14 s on the TinyStories sample, where the replay takes 2 s of CPU)."""
    return _indexed_run(Path(path), method)  # one cached run per file, however it is named


@lru_cache(maxsize=2)
def _indexed_run(path: Path, method: str) -> IndexedRun:
    pretoken_counts = corpus_counts(path)
    trace: list[MergeStep] = []
    whole_run = 256 + len(DEFAULT_SPECIAL_TOKENS) + sum(len(p) - 1 for p in pretoken_counts)  # more than enough
    train_on_counts(pretoken_counts, whole_run, DEFAULT_SPECIAL_TOKENS, method=method, trace=trace)
    return replay(pretoken_counts, trace)


def merge_steps_exact(pretoken_counts: Mapping[bytes, int]) -> Iterator[MergeStep]:
    """V4 with an *exact* index (a rewritten word's id leaves the entries of the pairs it lost): the same
    merges; not the course's trainer, the page compares it with V4's append-only index."""
    words, frequencies, pair_counts, index = start_v4(pretoken_counts)
    while pair_counts:
        pair = best_pair(pair_counts)
        count = pair_counts[pair]
        rewritten = _exact_update(pair, words, frequencies, index, pair_counts)
        yield MergeStep(pair=pair, count=count, affected_words=len(rewritten))


def _exact_update(pair: Pair, words: list[Word], frequencies: list[int], index: dict[Pair, set[int]],
                  pair_counts: dict[Pair, int]) -> set[int]:
    """Merge ``pair`` in the words ``index`` lists for it (``merge_indexed_words``' arguments), keeping the index
    exact; return their ids."""
    ids = index.pop(pair)
    for i in ids:  # every id here holds the pair
        word = words[i]
        merged = words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)
        old_pairs, new_pairs = set(zip(word, word[1:])), set(zip(merged, merged[1:]))
        for lost in old_pairs - new_pairs:
            if lost != pair:  # its entry is popped already
                entry = index[lost]
                entry.discard(i)
                if not entry:
                    del index[lost]
        for gained in new_pairs - old_pairs:
            index[gained].add(i)
    return ids


# The seed's "Typical A" table (seed 000, section "Version 4: Inverted Index"): merge ranges and
# the share of W it gives for each.
SEED_TYPICAL_A: tuple[tuple[int, int, str, float], ...] = (
    (1, 100, "50,000", 0.50),
    (100, 1000, "10,000", 0.10),
    (1000, 5000, "1,000", 0.01),
    (5000, 10000, "100", 0.001),
)


def typical_a_snippet(run: IndexedRun) -> str:
    """The seed's typical A per range of merges against the words each merge of ``run`` rewrites."""
    W = run.distinct_words
    rows = []
    for first, last, seed_a, seed_share in SEED_TYPICAL_A:
        # the seed's ranges share their ends (1-100, 100-1000): here each merge is in one range
        start = first if first == 1 else first + 1
        chosen = run.merges[start - 1 : last]
        if not chosen:
            rows.append((f"{first}-{last}", seed_a, f"{100 * seed_share:g}%", "no such merges (the run has "
                         f"{len(run.merges):,})", "", ""))
            continue
        affected = [m.rewritten for m in chosen]
        mean = sum(affected) / len(affected)
        rows.append((
            f"{first}-{last}" if len(chosen) == last - start + 1 else f"{first}-{start + len(chosen) - 1}",
            seed_a, f"{100 * seed_share:g}%",
            f"{mean:,.1f} ({100 * mean / W:.2g}%)", f"{median(affected):g}",
            f"{max(affected):,} ({100 * max(affected) / W:.2g}%)",
        ))
    largest = max(run.merges, key=lambda m: m.rewritten)
    return markdown_table(
        ["merges", "blog post: typical A", "blog post: % of W", "measured: mean A (% of W)", "median A", "largest A (% of W)"],
        rows, align="lrrrrr",
    ) + (
        f"\nThe largest merge of the whole run, merge {largest.rank + 1}: {show_pair(largest.pair)}, rewrites "
        f"{thousands(largest.rewritten)} words, {100 * largest.rewritten / W:.0f}% of $W$. On this sample, the blog post's "
        f"0.1% of $W$ would be {0.001 * W:.1f} words per merge."
    )


def decline_snippet(run: IndexedRun, shown: int = 3) -> str:
    """Which merges rewrite the most words, and how few the later merges rewrite."""
    largest = sorted(run.merges, key=lambda m: (-m.rewritten, m.rank))[:shown]
    named = ", ".join(f"{show_pair(m.pair)} (merge {m.rank + 1}, {thousands(m.rewritten)} words)" for m in largest)
    middle = run.merges[1000:5000]
    late = run.merges[5000:]
    text = f"The merges that rewrite the most words are early ones: {named}."
    if middle:
        at_most_five = sum(m.rewritten <= 5 for m in middle) / len(middle)
        text += f" Of merges 1,001 to {1000 + len(middle):,}, {at_most_five:.0%} rewrite at most five words"
        if late:
            one = sum(m.rewritten == 1 for m in late) / len(late)
            text += (f"; of the {len(late):,} merges after that, {one:.0%} rewrite a single word and none more "
                     f"than {max(m.rewritten for m in late)}")
        text += "."
    most_stale = max(run.merges, key=lambda m: (m.stale, -m.rank))
    return text + (f" The most stale ids one merge visits is {most_stale.stale}, at merge {most_stale.rank + 1}, "
                   f"{show_pair(most_stale.pair)}.")


def totals(merges: Sequence[IndexedMerge], *fields: str) -> list[int]:
    """Each of ``fields`` (names of :class:`IndexedMerge` counts) summed over ``merges``."""
    return [sum(getattr(m, field) for m in merges) for field in fields]


def first_and_whole(run: IndexedRun, first: int) -> tuple[tuple[str, list[IndexedMerge]], ...]:
    """The two spans the page's tables compare: the first ``first`` merges, and the whole run."""
    return ((f"first {first:,} merges", run.merges[:first]), (f"whole run ({len(run.merges):,} merges)", run.merges))


def stale_snippet(run: IndexedRun, first: int = 1000) -> str:
    """How many of the ids V4 visits are stale, over the first ``first`` merges and the whole run,
    against the removals an exact index would make."""
    rows, ratios = [], []
    for label, chosen in first_and_whole(run, first):
        visited, stale, removals = totals(chosen, "visited", "stale", "exact_removals")
        rows.append((label, thousands(visited), thousands(visited - stale),
                     f"{thousands(stale)} ({100 * stale / max(1, visited):.0f}%)", thousands(removals)))
        ratios.append(removals / max(1, stale))
    went_stale, never = removals, removals - stale  # the whole run's, the last span
    return (
        f"V4 on the shipped TinyStories sample ($W$ = {thousands(run.distinct_words)} distinct words), "
        "with the special token `<|endoftext|>`, until no pair is left:\n\n"
        + markdown_table(["merges", "ids visited", "words rewritten", "stale ids skipped",
                          "ids an exact index removes instead"], rows, align="lrrrr")
        + f"\nAn exact index would remove {ratios[0]:.1f} times as many ids as V4 skips stale ones over the "
        f"first {first:,} merges, and {ratios[1]:.1f} times as many over the whole run. The ids an exact index "
        f"removes are the ids that go stale in V4: of the {thousands(went_stale)} that do over the whole run, V4 "
        f"visits {thousands(went_stale - never)} and never visits {thousands(never)} ({100 * never / went_stale:.0f}%)."
    )


def bound_snippet(run: IndexedRun, first: int = 1000) -> str:
    """The words rewritten over the whole run, against the bound ``sum over words of (len - 1)``."""
    (early,) = totals(run.merges[:first], "rewritten")
    rewritten, shrink, visited, added = totals(run.merges, "rewritten", "shrink", "visited", "added")
    entries = run.initial_entries + added
    return (
        f"Over the whole run ({len(run.merges):,} merges on the TinyStories sample), V4 rewrites "
        f"{thousands(rewritten)} words in all; the bound $\\sum_w (|w| - 1)$ is {thousands(run.total_windows)} "
        f"({rewritten / run.total_windows:.1%} of it is used). The merges remove exactly "
        f"{thousands(shrink)} tokens, the bound itself, because the run ends with every word a single token. "
        f"The index receives {thousands(run.initial_entries)} ids when it is built and {thousands(added)} more "
        f"during the run, {thousands(entries)} in all (at most 3 × {thousands(run.total_windows)}); "
        f"V4 visits {thousands(visited)} of them. The first {first:,} merges alone rewrite "
        f"{thousands(early)} words, {early / run.total_windows:.0%} of the bound."
    )


def scan_work_snippet(run: IndexedRun, first: int = 1000) -> str:
    """Deterministic counts of V4's work: pair counts compared by ``best_pair`` against ids visited,
    tokens read and windows updated by the rest of the loop."""
    rows = []
    for label, chosen in first_and_whole(run, first):
        compared, visited, tokens, windows = totals(chosen, "distinct_pairs", "visited", "visited_tokens", "updated_windows")
        rows.append((label, thousands(compared), thousands(visited), thousands(tokens), thousands(windows),
                     f"{compared / (tokens + windows):.1f}×"))
    P = [m.distinct_pairs for m in run.merges]
    return (
        f"$P$ starts at {thousands(P[0])}, peaks at {thousands(max(P))} (merge {P.index(max(P)) + 1}) and is "
        f"{thousands(P[min(first, len(P)) - 1])} at merge {min(first, len(P)):,}.\n\n"
        + markdown_table(["on the TinyStories sample", "pair counts compared ($P$ per merge)", "ids visited",
                          "tokens of the visited words", "windows updated", "compared / (tokens + windows)"],
                         rows, align="lrrrrr")
    )


# V4 against V2 in the course's training benchmark

# Page 04 says that V4 is faster than V2, but only by a small constant factor: the O(P) scan for the
# best pair, which V4 keeps, takes a third or more of V2's loop (page 02's profile), so removing the
# word scan can at best about triple the speed. The claim must hold for any run, not a band of one.
V4_SMALL_FACTOR = 4.0


def v4_speedup_snippet(v2: Mapping[str, float], v4: Mapping[str, float]) -> str:
    """V2's and V4's times in each run; refuses a run where page 04's claim is false."""
    runs = [run for run in v4 if run in v2]
    if not runs:
        raise ValueError("no run of the training benchmark times both V2 and V4: has its format changed?")
    ratios = {run: v2[run] / v4[run] for run in runs}
    refuse_unless(all(1.0 < r < V4_SMALL_FACTOR for r in ratios.values()),
                  f"the training benchmark has V4 {min(ratios.values()):.1f}× to {max(ratios.values()):.1f}× as fast as "
                  f"V2, not faster by less than {V4_SMALL_FACTOR:g}× in every run", "04",
                  "'faster, but only by a small constant factor'")
    listed = "; ".join(f"{run}: {v2[run]:.2f} s → {v4[run]:.2f} s, {ratios[run]:.1f}×" for run in runs)
    return speedup_sentence("V4", "V2", list(ratios.values()), listed)


# Where the time goes (measured, not a snippet)

def loop_time_shares(pretoken_counts: Mapping[bytes, int], num_merges: int | None = None,
                     exact: bool = False) -> dict[str, float]:
    """Seconds of V4's merge loop (with ``exact``, :func:`merge_steps_exact`'s) in ``best_pair`` and in the rest."""
    laps = Laps(("setup", "best_pair", "rest"))
    update = _exact_update if exact else merge_indexed_words
    words, frequencies, pair_counts, index = start_v4(pretoken_counts)
    laps.lap("setup")
    merges = 0
    while pair_counts and (num_merges is None or merges < num_merges):
        pair = best_pair(pair_counts)
        laps.lap("best_pair")
        update(pair, words, frequencies, index, pair_counts)
        laps.lap("rest")
        merges += 1
    return {"merges": merges, **laps.seconds}


def main(argv: Sequence[str] | None = None) -> None:  # pragma: no cover - a measurement, printed
    """Print where V4's loop spends its time on the TinyStories sample (medians of ``repeats`` runs)."""
    repeats = repeats_argument(argv, 5, __spec__.name, main.__doc__)
    pretoken_counts = corpus_counts(TINYSTORIES_SAMPLE)
    print(machine_line(repeats))
    with collector_paused():
        for num_merges in (1000, None):
            runs = [loop_time_shares(pretoken_counts, num_merges) for _ in range(repeats)]
            loop = [r["best_pair"] + r["rest"] for r in runs]
            share = [r["best_pair"] / (r["best_pair"] + r["rest"]) for r in runs]
            print(f"{runs[0]['merges']} merges: loop {median(loop):.2f} s, best_pair {median(share):.0%} of it, "
                  f"setup {median([r['setup'] for r in runs]):.2f} s")
        for num_merges in (1000, None):  # outside best_pair (finding the words, updating counts and index), in alternating order
            rest: dict[bool, list[float]] = {False: [], True: []}
            for repeat in range(repeats):
                for exact in ((False, True) if repeat % 2 == 0 else (True, False)):
                    rest[exact].append(loop_time_shares(pretoken_counts, num_merges, exact=exact)["rest"])
            print(f"{num_merges or 'all'} merges, outside best_pair: append-only index {median(rest[False]):.3f} s, "
                  f"exact index {median(rest[True]):.3f} s")


# Figures

def draw_affected_words(run: IndexedRun, path: Path) -> Path:
    """Words rewritten and stale ids per merge; words rewritten so far against the bound."""
    fig, (left, right) = panels(2)
    ranks = [m.rank + 1 for m in run.merges]
    W = run.distinct_words
    left.loglog(ranks, [m.stale if m.stale else float("nan") for m in run.merges], "x", markersize=2,
                color="#dd8452", alpha=0.5, label="stale ids skipped")
    left.loglog(ranks, [m.rewritten for m in run.merges], ".", markersize=2, color="#4c72b0",
                label="words rewritten (A)")
    left.loglog(ranks, rolling_median([m.rewritten for m in run.merges]), color="#2f2f2f", linewidth=1,
                label="A, median of the last 50 merges")
    left.axhline(W, color="#c44e52", linestyle="--", label=f"all words: W = {thousands(W)}")
    left.axhline(0.02 * W, color="#55a868", linestyle=":", label="2% of W")
    seed_x = [x for first, last, _, _ in SEED_TYPICAL_A for x in (first, last)]
    seed_y = [share * W for _, _, _, share in SEED_TYPICAL_A for _ in range(2)]
    left.loglog(seed_x, seed_y, color="#8172b2", linewidth=2, alpha=0.6, label="blog post's typical A, as % of W")
    left.set_ylim(0.7, W * 30)
    name_axes(left, "merge (log scale)", "distinct words per merge (log scale)",
          "Words each merge rewrites, and stale ids it skips", "upper right", 7)
    cumulative = list(accumulate(m.rewritten for m in run.merges))
    cumulative_visited = list(accumulate(m.visited for m in run.merges))
    right.plot(ranks, cumulative, color="#4c72b0", label="words rewritten so far")
    right.plot(ranks, cumulative_visited, color="#dd8452", label="ids visited so far (rewritten + stale)")
    right.axhline(run.total_windows, color="#c44e52", linestyle="--",
                  label=f"bound on rewrites: sum of (|w| - 1) = {thousands(run.total_windows)}")
    right.set_ylim(0, max(cumulative_visited[-1], run.total_windows) * 1.15)
    name_axes(right, "merge", "total over the merges so far", "The bound on all rewrites of a run", "lower right", 7)
    return save_png(fig, path)


def draw_work_per_merge(run: IndexedRun, path: Path) -> Path:
    """Per merge, P against the tokens and windows the rest of V4's loop touches; the scan's share so far."""
    fig, (left, right) = panels(2)
    ranks = [m.rank + 1 for m in run.merges]
    compared = [m.distinct_pairs for m in run.merges]
    rest = [m.visited_tokens + m.updated_windows for m in run.merges]
    left.semilogy(ranks, compared, color="#dd8452", label="best_pair: pair counts compared (P)")
    left.semilogy(ranks, rest, ".", markersize=2, color="#4c72b0",
                  label="the rest: tokens of visited words + windows updated")
    left.set_ylim(0.7, max(max(rest), max(compared)) * 30)
    name_axes(left, "merge", "per merge (log scale)", "V4's work per merge", "upper right", 7)
    share = [100 * c / (c + r) for c, r in zip(accumulate(compared), accumulate(rest))]
    right.plot(ranks, share, color="#dd8452")
    right.set_ylim(0, 100)
    name_axes(right, "merges so far", "% of the work so far that is the scan", "The O(P) scan's share of V4's work, counted")
    return save_png(fig, path)


def snippets(corpus: Path = TINYSTORIES_SAMPLE) -> dict[str, str]:
    steps = worked_example_trace()
    run = indexed_run(Path(corpus))
    return page_snippets("04", {
        "04-worked-example-words.md": words_snippet(steps),
        "04-worked-example-index.md": index_before_snippet(steps),
        "04-worked-example-merge-1.md": merge_snippet(steps, 0),
        "04-worked-example-merge-2.md": merge_snippet(steps, 1),
        "04-worked-example-merges.md": merges_snippet(steps),
        "04-worked-example-merges-list.md": merges_list([s.pair for s in steps]),
        "04-stale-ids.md": stale_snippet(run),
        "04-affected-bound.md": bound_snippet(run),
        "04-typical-a.md": typical_a_snippet(run),
        "04-affected-decline.md": decline_snippet(run),
        "04-scan-work.md": scan_work_snippet(run),
        "04-v4-speedup.md": v4_speedup_snippet(benchmark_times("incremental"), benchmark_times("inverted_index")),
    })


def draw_figures(out_dir: Path, corpus: Path = TINYSTORIES_SAMPLE) -> list[Path]:
    run = indexed_run(Path(corpus))
    return [
        draw_affected_words(run, out_dir / "04-affected-words.png"),
        draw_work_per_merge(run, out_dir / "04-work-per-merge.png"),
    ]


if __name__ == "__main__":  # pragma: no cover
    main()
