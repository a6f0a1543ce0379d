"""Figures and tables of theory page 02, ``theory/02-incremental-updates.md``.

- the worked example: merge 2 of page 01's corpus, done incrementally (which words change, which
  pair counts go down and up);
- one word with neighbours on both sides of the merged pair;
- the self-overlap pitfall: why "update around each occurrence" goes wrong on ``aaa``, ``aaaa``
  and ``abab``, and "subtract the word's old pairs, add its new pairs" does not;
- on TinyStories: how many words each merge rewrites, against the number of words (figure);
- V2's merge loop against V1's, as a diff of the code (:mod:`.step_diffs`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from statistics import median

from ...data_files import TINYSTORIES_SAMPLE
from ...train.step01_naive import count_pairs, merge_word
from ...train.step02_incremental import pair_count_changes
from .common import WIDE, markdown_table, save_png, show_pair, show_word, signed, thousands, use_agg
from .naive_bpe import HandStep, worked_example_trace
from .step_diffs import snippets_of
from .training_runs import DEFAULT_NUM_MERGES, TrainingRun, training_run

PAGE = "02-incremental-updates.md"

WORKED_EXAMPLE_MERGE = 2  # merge 2 of page 01's trace: (e, st)

Tokens = tuple[bytes, ...]
Pair = tuple[bytes, bytes]


def pairs_of(word: Sequence[bytes]) -> dict[Pair, int]:
    """Every adjacent window of ``word`` (a window that occurs twice counts twice)."""
    return count_pairs({tuple(word): 1})


def word_delta(word: Sequence[bytes], pair: Pair) -> tuple[Tokens, Counter[Pair], Counter[Pair]]:
    """Merge ``pair`` in ``word``; return the new word and the pairs it lost and gained, per
    occurrence of the word: bpe_ref's ``pair_count_changes``, split by sign. This is the update
    V2 applies to each word."""
    changes = pair_count_changes(tuple(word), pair, 1)
    lost = Counter({p: -change for p, change in changes.items() if change < 0})
    gained = Counter({p: change for p, change in changes.items() if change > 0})
    return merge_word(tuple(word), pair), lost, gained


def net_change(word: Sequence[bytes], pair: Pair) -> dict[Pair, int]:
    """``new pairs - old pairs`` of one occurrence of ``word``, zero changes left out."""
    return pair_count_changes(tuple(word), pair, 1)


def local_rule_change(word: Sequence[bytes], pair: Pair, overlapping: bool) -> dict[Pair, int]:
    """The *wrong* shortcut of the pitfall: update around each occurrence ``x A B y`` on its own.

    For each occurrence (every one when ``overlapping``, else the left-to-right non-overlapping
    ones the merge really replaces): ``(A, B)``, ``(x, A)``, ``(B, y)`` lose one, ``(x, AB)``
    and ``(AB, y)`` gain one, with ``x`` and ``y`` read from the word *before* the merge.
    """
    a, b = pair
    ab = a + b
    positions = []
    i = 0
    while i < len(word) - 1:
        if word[i] == a and word[i + 1] == b:
            positions.append(i)
            i += 1 if overlapping else 2
        else:
            i += 1
    change: Counter[Pair] = Counter()
    for i in positions:
        change[(a, b)] -= 1
        if i > 0:
            change[(word[i - 1], a)] -= 1
            change[(word[i - 1], ab)] += 1
        if i + 2 < len(word):
            change[(b, word[i + 2])] -= 1
            change[(ab, word[i + 2])] += 1
    return {p: c for p, c in change.items() if c}


def _show_change(change: dict[Pair, int]) -> str:
    if not change:
        return "none"
    return ", ".join(f"{show_pair(p)} {signed(c)}" for p, c in sorted(change.items(), key=lambda pc: (pc[1], pc[0])))


# ---------------------------------------------------------------------------------------------
# Snippets of the worked example


def worked_example_step() -> HandStep:
    return worked_example_trace()[WORKED_EXAMPLE_MERGE - 1]


def delta_snippet(step: HandStep | None = None) -> str:
    """Merge ``step`` done incrementally: the words it rewrites, and the pair counts that change."""
    step = step or worked_example_step()
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
        for p, c in lost.items():
            totals[p] -= frequency * c
        for p, c in gained.items():
            totals[p] += frequency * c
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


ONE_WORD_EXAMPLE: tuple[Tokens, int, Pair] = ((b" ", b"t", b"e", b"s", b"t", b"s"), 3, (b"e", b"s"))


def one_word_snippet(word: Tokens = ONE_WORD_EXAMPLE[0], frequency: int = ONE_WORD_EXAMPLE[1],
                     pair: Pair = ONE_WORD_EXAMPLE[2]) -> str:
    merged, lost, gained = word_delta(word, pair)
    old, new = pairs_of(word), pairs_of(merged)
    rows = []
    for p in old:
        rows.append((show_pair(p), "before", "loses" if p in lost else "kept", signed(-frequency * lost[p])))
    for p in new:
        if p in gained:
            rows.append((show_pair(p), "after", "gains", signed(frequency * gained[p])))
    return (
        f"The word {show_word(word)} occurs {frequency} times; merging {show_pair(pair)} turns it into "
        f"{show_word(merged)}.\n\n"
        + markdown_table(["pair", "window", "what happens", "count change"], rows, align="lllr")
    )


OVERLAP_EXAMPLES: tuple[tuple[Tokens, Pair], ...] = (
    ((b"a", b"a", b"a"), (b"a", b"a")),
    ((b"a", b"a", b"a", b"a"), (b"a", b"a")),
    ((b"a", b"b", b"a", b"b"), (b"a", b"b")),
)


def overlap_snippet() -> str:
    rows = []
    for word, pair in OVERLAP_EXAMPLES:
        merged = merge_word(word, pair)
        rows.append(
            (
                f"{show_word(word)}, merge {show_pair(pair)}",
                show_word(merged),
                _show_change(net_change(word, pair)),
                _show_change(local_rule_change(word, pair, overlapping=True)),
                _show_change(local_rule_change(word, pair, overlapping=False)),
            )
        )
    headers = [
        "word, merge",
        "after the merge",
        "right: new pairs − old pairs",
        "wrong: around every occurrence",
        "wrong: around each replaced occurrence",
    ]
    return markdown_table(headers, rows)


# ---------------------------------------------------------------------------------------------
# TinyStories


def affected_snippet(run: TrainingRun) -> str:
    work = run.work
    W = run.distinct_words
    affected = [w.affected_words for w in work]
    total_affected = sum(affected)
    v1_windows = sum(w.windows for w in work)
    v2_windows = sum(w.updated_windows for w in work)
    first_100 = affected[:100]
    after_100 = affected[100:]
    mW = W * len(work)
    scanned_pairs = sum(w.distinct_pairs for w in work)
    rows = [
        ("words looked at (V1 merges each, V2 checks each for the pair)", thousands(mW), thousands(mW), "1×"),
        ("words run through `merge_word`", thousands(mW), thousands(total_affected), f"{mW / total_affected:,.0f}×"),
        ("pair windows counted (V1) or subtracted and re-added (V2)", thousands(v1_windows), thousands(v2_windows), f"{v1_windows / v2_windows:,.0f}×"),
        ("pair counts compared to find the best ($P$ per merge)", thousands(scanned_pairs), thousands(scanned_pairs), "1×"),
    ]
    table = markdown_table([f"over {len(work)} merges", "V1 (naive)", "V2 (incremental)", "V1 / V2"], rows, align="lrrr")
    return (
        f"On the shipped TinyStories sample ($W$ = {thousands(W)} distinct words, {len(work)} merges), a merge "
        f"rewrites a median of {median(affected):g} words and at most {thousands(max(affected))} "
        f"({100 * max(affected) / W:.0f}% of $W$, at merge {affected.index(max(affected)) + 1}: "
        f"{show_pair((work[affected.index(max(affected))].left, work[affected.index(max(affected))].right))}). "
        f"The first 100 merges rewrite {sum(first_100) / len(first_100):.0f} words on average, "
        f"the remaining {len(after_100)} only {sum(after_100) / max(1, len(after_100)):.1f}.\n\n" + table
    )


def draw_affected_words(run: TrainingRun, path: Path) -> Path:
    plt = use_agg()
    fig, (left, right) = plt.subplots(1, 2, figsize=WIDE, layout="constrained")
    ranks = [w.rank + 1 for w in run.work]
    W = run.distinct_words
    left.semilogy(ranks, [w.affected_words for w in run.work], ".", markersize=2, color="#4c72b0",
                  label="words V2 rewrites (holding the pair)")
    left.axhline(W, color="#c44e52", linestyle="--", label=f"words V1 rewrites: all W = {thousands(W)}")
    left.set_xlabel("merge")
    left.set_ylabel("distinct words per merge (log scale)")
    left.set_title("Few words hold the merged pair")
    window = 50
    rolling = [median(w.affected_words for w in run.work[max(0, i - window + 1) : i + 1]) for i in range(len(run.work))]
    left.semilogy(ranks, rolling, color="#2f2f2f", linewidth=1, label=f"median of the last {window} merges")
    left.set_ylim(0.7, W * 30)
    left.legend(loc="upper right")
    left.grid(True, which="major", alpha=0.3)
    right.semilogy(ranks, [w.windows for w in run.work], color="#c44e52", label="V1: windows recounted")
    right.semilogy(ranks, [max(w.updated_windows, 1) for w in run.work], ".", markersize=2, color="#4c72b0",
                   label="V2: windows subtracted and re-added")
    right.semilogy(ranks, [w.distinct_pairs for w in run.work], color="#dd8452", label="both: pairs scanned for the best (P)")
    right.set_xlabel("merge")
    right.set_ylabel("per merge (log scale)")
    right.set_title("Pair-count updates per merge")
    right.set_ylim(0.7, run.work[0].windows * 30)
    right.legend(loc="upper right")
    right.grid(True, which="major", alpha=0.3)
    return save_png(fig, path)


# ---------------------------------------------------------------------------------------------


def snippets(corpus: Path = TINYSTORIES_SAMPLE, num_merges: int = DEFAULT_NUM_MERGES) -> dict[str, str]:
    """Page 02's snippets: ``{file name: Markdown}``."""
    return {
        "02-worked-example-delta.md": delta_snippet(),
        "02-one-word.md": one_word_snippet(),
        "02-self-overlap.md": overlap_snippet(),
        "02-tinystories-affected.md": affected_snippet(training_run(Path(corpus), num_merges)),
        **snippets_of("02"),
    }


def draw_figures(out_dir: Path, corpus: Path = TINYSTORIES_SAMPLE, num_merges: int = DEFAULT_NUM_MERGES) -> list[Path]:
    """Draw page 02's figures into ``out_dir``; return their paths."""
    return [draw_affected_words(training_run(Path(corpus), num_merges), out_dir / "02-affected-words.png")]
