"""Figures and tables of theory page 02, ``theory/02-incremental-updates.md``: merge 2 of page 01's
corpus done incrementally, the self-overlap pitfall on small words and on real corpora
(:func:`overlap_bug_run`), the words each merge rewrites, and V2's speed-up over V1."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...data_files import CORPUS_EN, TINYSTORIES_SAMPLE, TINYSTORIES_VALID
from ...measure import median
from ...pretokenize import DEFAULT_SPECIAL_TOKENS
from ...train import num_merges_for
from ...train.driver import collector_paused
from ...train.step01_naive import best_pair, count_pairs, merge_word
from ...train.step02_incremental import merge_and_update, pair_count_changes
from ...train.step04_inverted_index import merge_indexed_words
from .common import (
    Laps, Pair, TRAIN_BENCHMARK, Word, as_words, benchmark_times, corpus_counts, machine_line, markdown_table, name_axes, page_snippets,
    panels, refuse_unless, repeats_argument, ReplayedBest, rolling_median, save_png, show_pair, show_word, signed,
    speedup_sentence, thousands,
)
from .inverted_index import start_v4
from .naive_bpe import DEFAULT_NUM_MERGES, HandStep, TrainingRun, training_run, worked_example_trace

PAGE = "02-incremental-updates.md"

WORKED_EXAMPLE_MERGE = 2  # merge 2 of page 01's trace: (e, st)


def pairs_of(word: Sequence[bytes]) -> dict[Pair, int]:
    """Every adjacent window of ``word`` (a window that occurs twice counts twice)."""
    return count_pairs({tuple(word): 1})


def word_delta(word: Sequence[bytes], pair: Pair) -> tuple[Word, Counter[Pair], Counter[Pair]]:
    """The merged word and the pairs it lost and gained, per occurrence: V2's update of each word
    (``pair_count_changes``), split by sign."""
    changes = net_change(word, pair)
    lost = Counter({p: -change for p, change in changes.items() if change < 0})
    gained = Counter({p: change for p, change in changes.items() if change > 0})
    return merge_word(tuple(word), pair), lost, gained


def net_change(word: Sequence[bytes], pair: Pair) -> dict[Pair, int]:
    """``new pairs - old pairs`` of one occurrence of ``word``, zero changes left out."""
    return pair_count_changes(tuple(word), pair, 1)


def local_rule_change(word: Sequence[bytes], pair: Pair, overlapping: bool, rewritten: bool = False) -> dict[Pair, int]:
    """The pitfall's *wrong* shortcut: :func:`_update_around` each occurrence (every one when ``overlapping``,
    else those the merge replaces) on its own, with ``x`` and ``y`` read from the word *before* the merge.
    With ``rewritten``, the word is rewritten as the scan goes (:func:`sequential_rule_change`)."""
    a, b = pair
    current = list(word)
    change: Counter[Pair] = Counter()
    i = 0
    while i < len(current) - 1:
        if current[i] == a and current[i + 1] == b:
            _update_around(change, current, i, pair)
            if rewritten:
                current[i : i + 2] = [a + b]
            i += 1 if overlapping or rewritten else 2
        else:
            i += 1
    return {p: c for p, c in change.items() if c}


def _update_around(change: Counter[Pair], word: Sequence[bytes], i: int, pair: Pair) -> None:
    """The per-occurrence update at ``word[i:i + 2] == pair``, ``x A B y`` with ``x`` and ``y`` read from
    ``word``: ``(A, B)``, ``(x, A)``, ``(B, y)`` lose one, ``(x, AB)`` and ``(AB, y)`` gain one."""
    a, b = pair
    change[(a, b)] -= 1
    if i > 0:
        change[(word[i - 1], a)] -= 1
        change[(word[i - 1], a + b)] += 1
    if i + 2 < len(word):
        change[(b, word[i + 2])] -= 1
        change[(a + b, word[i + 2])] += 1


def sequential_rule_change(word: Sequence[bytes], pair: Pair) -> dict[Pair, int]:
    """The per-occurrence update done right, as step 05's linked list does it: left to right on the word *as
    it is rewritten* (``x`` may be the ``AB`` just made). Equals :func:`net_change` on every word."""
    return local_rule_change(word, pair, overlapping=False, rewritten=True)


def _show_change(change: dict[Pair, int]) -> str:
    if not change:
        return "none"
    return ", ".join(f"{show_pair(p)} {signed(c)}" for p, c in sorted(change.items(), key=lambda pc: (pc[1], pc[0])))


# Snippets of the worked example

def delta_snippet(step: HandStep | None = None) -> str:
    """Merge ``step`` done incrementally: the words it rewrites, and the pair counts that change."""
    step = step or worked_example_trace()[WORKED_EXAMPLE_MERGE - 1]
    before = dict(step.pair_counts)
    rows = []
    totals: Counter[Pair] = Counter()
    untouched = []
    for tokens, frequency in step.words_before:
        merged, lost, gained = word_delta(tokens, step.chosen)
        if tuple(merged) == tuple(tokens):
            untouched.append(f"{show_word(tokens)} ×{frequency}")
            continue
        lost_text = ", ".join(f"{show_pair(p)} {signed(-frequency * c)}" for p, c in lost.items())
        gained_text = ", ".join(f"{show_pair(p)} {signed(frequency * c)}" for p, c in gained.items())
        rows.append((f"{show_word(tokens)} ×{frequency}", show_word(merged), lost_text, gained_text))
        totals.update({p: frequency * c for p, c in net_change(tokens, step.chosen).items()})
    words = markdown_table(["word × count", "after the merge", "loses", "gains"], rows)
    changed = sorted(totals, key=lambda p: (-before.get(p, 0), p))
    change_rows = [
        (show_pair(p), before.get(p, 0), signed(totals[p]), before.get(p, 0) + totals[p] or "0 (deleted)")
        for p in changed
    ]
    counts = markdown_table(["pair", "count before", "change", "count after"], change_rows, align="lrrr")
    return (
        f"Merge {step.rank + 1} chooses {show_pair(step.chosen)} (count {step.count}). "
        f"Words that do not contain it, {' and '.join(untouched)}, keep every pair and are not rewritten.\n\n"
        + words
        + "\nAdded up, only these pair counts change; every other count stays as it was:\n\n"
        + counts
    )


ONE_WORD_EXAMPLE: tuple[Word, int, Pair] = ((b" ", b"t", b"e", b"s", b"t", b"s"), 3, (b"e", b"s"))


def one_word_snippet() -> str:
    word, frequency, pair = ONE_WORD_EXAMPLE
    merged, lost, gained = word_delta(word, pair)
    rows = [(show_pair(p), "before", "loses" if p in lost else "kept", signed(-frequency * lost[p])) for p in pairs_of(word)]
    rows += [(show_pair(p), "after", "gains", signed(frequency * gained[p])) for p in pairs_of(merged) if p in gained]
    return (
        f"The word {show_word(word)} occurs {frequency} times; merging {show_pair(pair)} turns it into "
        f"{show_word(merged)}.\n\n"
        + markdown_table(["pair", "window", "what happens", "count change"], rows, align="lllr")
    )


OVERLAP_EXAMPLES: tuple[tuple[Word, Pair], ...] = (
    ((b"a", b"a", b"a"), (b"a", b"a")),
    ((b"a", b"a", b"a", b"a"), (b"a", b"a")),
    ((b"a", b"b", b"a", b"b"), (b"a", b"b")),
)


def overlap_snippet() -> str:
    rows = [(f"{show_word(word)}, merge {show_pair(pair)}", show_word(merge_word(word, pair)),
             _show_change(net_change(word, pair)), _show_change(local_rule_change(word, pair, overlapping=True)),
             _show_change(local_rule_change(word, pair, overlapping=False))) for word, pair in OVERLAP_EXAMPLES]
    headers = ["word, merge", "after the merge", "right: new pairs − old pairs", "wrong: around every occurrence",
               "wrong: around each replaced occurrence"]
    return markdown_table(headers, rows)


# The per-occurrence bug on real corpora

@dataclass(frozen=True)
class OverlapBugRun:
    """A training run whose pair counts are updated by the wrong per-occurrence rule (``None``: never)."""

    corpus: str
    merges: int
    wrong_at: int | None  # the first merge after which the kept counts differ from a recount
    wrong_pair: Pair | None
    wrong_word: Word | None  # as it was split into tokens before that merge
    diverges_at: int | None  # the first merge the buggy trainer chooses differently
    right_pair: Pair | None
    buggy_pair: Pair | None
    right_count: int | None


@lru_cache(maxsize=4)
def overlap_bug_run(path: Path, max_merges: int) -> OverlapBugRun:
    """:func:`overlap_bug_on_counts` on the pretoken counts of the corpus at ``path``."""
    return overlap_bug_on_counts(corpus_counts(Path(path)), max_merges, corpus=Path(path).name)


def overlap_bug_on_counts(word_counts: Mapping[bytes, int], max_merges: int, overlapping: bool = False,
                          corpus: str = "") -> OverlapBugRun:
    """Train with correct counts and, alongside, counts kept by :func:`local_rule_change`, until the buggy
    counts choose differently or ``max_merges``. Lab 02's stretch self-check compares a learner's hunt with it."""
    # the right counts are V4's, kept by its own loop over the words that hold the pair
    words, frequencies, right, index = start_v4(word_counts)
    buggy = Counter(right)
    best, best_buggy = ReplayedBest(right), ReplayedBest(buggy)  # the course's one tie-break rule (best_pair's)
    wrong: tuple[int, Pair, Word] | None = None
    for merge in range(1, max_merges + 1):
        if not right:
            break
        pair = best.best()
        picked = best_buggy.best()
        if picked != pair:
            return OverlapBugRun(corpus, max_merges, *wrong or (None, None, None), merge, pair, picked, right[pair])
        before = {i: words[i] for i in index[pair]}
        rewritten, grown = merge_indexed_words(pair, words, frequencies, index, right)
        best.grew(grown)
        first_wrong_word = None
        for i in sorted(rewritten):
            local = local_rule_change(before[i], pair, overlapping)
            for p, c in local.items():
                buggy[p] += c * frequencies[i]
                if not buggy[p]:
                    del buggy[p]
            best_buggy.grew(p for p, c in local.items() if c > 0)
            if first_wrong_word is None and local != net_change(before[i], pair):
                first_wrong_word = before[i]
        if wrong is None and buggy != right:
            wrong = (merge, pair, first_wrong_word)
    return OverlapBugRun(corpus, max_merges, *wrong or (None, None, None), None, None, None, None)


# (label on the page, corpus): CS336's corpus.en and the shipped TinyStories sample
OVERLAP_BUG_CORPORA: tuple[tuple[str, Path], ...] = (("corpus.en", CORPUS_EN), ("TinyStories sample", TINYSTORIES_SAMPLE))


def overlap_bug_snippet(runs: Sequence[OverlapBugRun], labels: Sequence[str]) -> str:
    rows = []
    for label, run in zip(labels, runs, strict=True):
        refuse_unless(None not in (run.wrong_at, run.wrong_word, run.wrong_pair),
                      f"the bug never shows on {run.corpus} in {run.merges} merges", "02", "claim that it does")
        diverges = (
            f"merge {run.diverges_at}: {show_pair(run.buggy_pair)} instead of {show_pair(run.right_pair)} (count {run.right_count})"
            if run.diverges_at and run.buggy_pair and run.right_pair
            else f"not within {run.merges} merges"
        )
        rows.append((label, f"merge {run.wrong_at}: {show_pair(run.wrong_pair)}", show_word(run.wrong_word), diverges))
    return markdown_table(["corpus", "counts first wrong after", "in the word", "merges first differ at"], rows)


# V2 against V1 in the course's training benchmark

def v2_speedups(path: Path = TRAIN_BENCHMARK) -> list[tuple[str, float]]:
    """``(run, how many times faster than naive)`` for the ``incremental`` rows of the benchmark page."""
    return list(benchmark_times("incremental", path, 2, r"([\d.]+)x faster").items())  # the third cell: "vs naive"


# Page 02 says, around the snippet and in its recap, that V2 is "a few times" faster than V1: a claim
# that must hold for any run of the benchmark, not a band of one run (single runs of V1 and V2 vary).
V2_FEW_TIMES = (2.0, 10.0)


def v2_speedup_snippet(speedups: Sequence[tuple[str, float]]) -> str:
    """The measured V2/V1 ratios; refuses a run where page 02's "a few times faster" is false."""
    ratios = [r for _, r in speedups]
    low, high = V2_FEW_TIMES
    refuse_unless(all(low <= r <= high for r in ratios), f"the training benchmark has V2 {min(ratios):.1f}× to "
                  f"{max(ratios):.1f}× faster than V1, outside {low:g}× to {high:g}×", "02", "'a few times faster'")
    return speedup_sentence("V2", "V1", ratios, "; ".join(f"{run}: {ratio:.1f}×" for run, ratio in speedups))


# TinyStories

def affected_snippet(run: TrainingRun) -> str:
    work = run.work
    W = run.distinct_words
    affected = [w.affected_words for w in work]
    peak = affected.index(max(affected))
    total_affected = sum(affected)
    v1_windows = sum(w.windows for w in work)
    v2_windows = sum(w.updated_windows for w in work)
    first_100 = affected[:100]
    after_100 = affected[100:]
    mW = W * len(work)
    scanned_pairs = sum(w.distinct_pairs for w in work)
    rows = [
        ("words looked at (V1 merges each, V2 checks each for the pair)", thousands(mW), thousands(mW), "1×"),
        ("words run through `merge_word` (V1) or rewritten by it (V2)", thousands(mW), thousands(total_affected),
         f"{mW / total_affected:,.0f}×"),
        ("pair windows counted (V1) or subtracted and re-added (V2)", thousands(v1_windows), thousands(v2_windows),
         f"{v1_windows / v2_windows:,.0f}×"),
        ("pair counts compared to find the best ($P$ per merge)", thousands(scanned_pairs), thousands(scanned_pairs), "1×"),
    ]
    table = markdown_table([f"over {len(work)} merges", "V1 (naive)", "V2 (incremental)", "V1 / V2"], rows, align="lrrr")
    return (
        f"On the shipped TinyStories sample ($W$ = {thousands(W)} distinct words, {len(work)} merges), a merge "
        f"rewrites a median of {median(affected):g} words and at most {thousands(affected[peak])} "
        f"({100 * affected[peak] / W:.0f}% of $W$, at merge {peak + 1}: {show_pair(work[peak].pair)}). "
        f"The first 100 merges rewrite {sum(first_100) / len(first_100):.0f} words on average, "
        f"the remaining {len(after_100)} only {sum(after_100) / max(1, len(after_100)):.1f}.\n\n" + table
    )


def draw_affected_words(run: TrainingRun, path: Path) -> Path:
    fig, (left, right) = panels(2)
    ranks = [w.rank + 1 for w in run.work]
    W = run.distinct_words
    left.semilogy(ranks, [w.affected_words for w in run.work], ".", markersize=2, color="#4c72b0",
                  label="words V2 rewrites (holding the pair)")
    left.axhline(W, color="#c44e52", linestyle="--", label=f"words V1 rewrites: all W = {thousands(W)}")
    left.semilogy(ranks, rolling_median([w.affected_words for w in run.work]), color="#2f2f2f", linewidth=1,
                  label="median of the last 50 merges")
    left.set_ylim(0.7, W * 30)
    name_axes(left, "merge", "distinct words per merge (log scale)", "Few words hold the merged pair", "upper right")
    right.semilogy(ranks, [w.windows for w in run.work], color="#c44e52", label="V1: windows recounted")
    right.semilogy(ranks, [max(w.updated_windows, 1) for w in run.work], ".", markersize=2, color="#4c72b0",
                   label="V2: windows subtracted and re-added")
    right.semilogy(ranks, [w.distinct_pairs for w in run.work], color="#dd8452", label="both: pairs scanned for the best (P)")
    right.set_ylim(0.7, run.work[0].windows * 30)
    name_axes(right, "merge", "per merge (log scale)", "Pair-count updates per merge", "upper right")
    return save_png(fig, path)


# Where V2's time goes (measured, not a snippet)

def loop_time_shares(pretoken_counts: Mapping[bytes, int], num_merges: int) -> dict[str, float]:
    """Seconds of V2's merge loop in ``best_pair``, ``merge_and_update`` and the scan over all words, and the
    words ``merge_and_update`` rewrites or returns unchanged (they hold both tokens, but apart)."""
    word_counts = as_words(pretoken_counts)
    pair_counts = count_pairs(word_counts)
    words, frequencies = list(word_counts), list(word_counts.values())
    rewritten = unchanged = merges = 0
    laps = Laps(("best_pair", "scan", "merge_and_update"))
    while pair_counts and merges < num_merges:
        pair = best_pair(pair_counts)
        laps.lap("best_pair")
        left, right = pair
        for i, word in enumerate(words):
            if left not in word or right not in word:
                continue
            laps.lap("scan")
            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)
            laps.lap("merge_and_update")
            if len(words[i]) < len(word):
                rewritten += 1
            else:
                unchanged += 1
        laps.lap("scan")
        merges += 1
    return {"merges": merges, "loop": sum(laps.seconds.values()), **laps.seconds, "rewritten": rewritten,
            "unchanged": unchanged}


# (label, corpus, vocabulary size): the two runs page 02's profile reads
TIMED_RUNS: tuple[tuple[str, Path, int], ...] = (
    ("TinyStories valid 0.8 MB, vocab 2000", TINYSTORIES_VALID, 2000),
    ("corpus.en, vocab 500", CORPUS_EN, 500),
)


def main(argv: Sequence[str] | None = None) -> None:  # pragma: no cover - a measurement, printed
    """Print where V2's merge loop spends its time on page 02's two runs (medians of ``repeats``)."""
    repeats = repeats_argument(argv, 5, __spec__.name, main.__doc__)
    print(machine_line(repeats))
    for label, path, vocab_size in TIMED_RUNS:
        pretoken_counts = corpus_counts(path)
        num_merges = num_merges_for(vocab_size, DEFAULT_SPECIAL_TOKENS)
        with collector_paused():
            runs = [loop_time_shares(pretoken_counts, num_merges) for _ in range(repeats)]
        shares = {part: median([r[part] / r["loop"] for r in runs]) for part in ("best_pair", "scan", "merge_and_update")}
        print(f"{label} ({runs[0]['merges']} merges): loop {median([r['loop'] for r in runs]):.2f} s; "
              + ", ".join(f"{part} {share:.0%}" for part, share in shares.items()))


def snippets() -> dict[str, str]:
    return page_snippets("02", {
        "02-worked-example-delta.md": delta_snippet(),
        "02-one-word.md": one_word_snippet(),
        "02-self-overlap.md": overlap_snippet(),
        "02-overlap-bug-on-corpora.md": overlap_bug_snippet(
            [overlap_bug_run(path, DEFAULT_NUM_MERGES) for _, path in OVERLAP_BUG_CORPORA],
            [label for label, _ in OVERLAP_BUG_CORPORA],
        ),
        "02-v2-speedup.md": v2_speedup_snippet(v2_speedups()),
        "02-tinystories-affected.md": affected_snippet(training_run(TINYSTORIES_SAMPLE, DEFAULT_NUM_MERGES)),  # page 01's run, cached
    })


def draw_figures(out_dir: Path, corpus: Path = TINYSTORIES_SAMPLE, num_merges: int = DEFAULT_NUM_MERGES) -> list[Path]:
    return [draw_affected_words(training_run(Path(corpus), num_merges), out_dir / "02-affected-words.png")]


if __name__ == "__main__":  # pragma: no cover
    main()
