"""The figure code of the theory pages (bpe_ref.course.figures): it runs on small inputs, it is
deterministic, and its measurements agree with the trainers.

The checks on the committed pages and snippets themselves are in tests/test_theory_pages.py.
"""

from __future__ import annotations

import keyword
import re
import struct
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

pytest.importorskip("matplotlib")

from bpe_ref import train_bpe_on_text  # noqa: E402
from bpe_ref.data_files import CS336_FIXTURES  # noqa: E402
from bpe_ref.course.figures import PAGE_MODULES, page_module  # noqa: E402
from bpe_ref.course.figures import __main__ as figures_main  # noqa: E402
from bpe_ref.course.figures.bytes_and_pretokens import (  # noqa: E402
    PATTERN_EXAMPLE,
    PATTERN_PIECES,
    corpus_counts,
    draw_bytes_per_character,
    draw_pretoken_counts,
    pretokens_by_piece,
    script_samples,
)
from bpe_ref.course.figures.common import (  # noqa: E402
    code,
    markdown_table,
    quoted_snippets,
    ReplayedBest,
    show_token,
    signed,
    sync_snippets,
)
from bpe_ref.course.figures.incremental_updates import (  # noqa: E402
    OVERLAP_EXAMPLES,
    local_rule_change,
    net_change,
    overlap_bug_run,
    sequential_rule_change,
    v2_speedup_snippet,
    v2_speedups,
)
from bpe_ref.course.figures.inverted_index import (  # noqa: E402
    index_trace,
    indexed_run,
    merge_steps_exact,
    replay,
)
from bpe_ref.course.figures.naive_bpe import hand_trace, why_greater  # noqa: E402
from bpe_ref.course.figures.step_diffs import (  # noqa: E402
    STEP_MODULES,
    loop_lines,
    merge_loop,
    merge_loop_diff,
    source_without_docstring,
)
from bpe_ref.course.figures.naive_bpe import measure_merges, training_run  # noqa: E402
from bpe_ref.pretokenize import GPT2_PATTERN, count_pretokens, pretokenize  # noqa: E402
from sampling import EXHAUSTIVE  # noqa: E402
from bpe_ref.train import MergeStep  # noqa: E402

SMALL_CORPUS = CS336_FIXTURES / "tinystories_sample.txt"  # 4 KB of TinyStories with <|endoftext|>
SMALL_MERGES = 40


def assert_draw_deterministically(drawers, tmp_path: Path) -> None:
    """Each drawer draws a PNG without metadata chunks (a date would change its bytes on every run); under
    BPE_EXHAUSTIVE=1 each draws twice, the same bytes both times. By default one figure draws twice
    (test_page06_figure_draws_deterministically, the cheapest): every PNG is saved by one function
    (bench.common.save_png), so one figure's two draws stand for every page's."""
    for i, draw in enumerate(drawers):
        first = draw(tmp_path / f"{i}a.png")
        assert_no_metadata(first)
        if EXHAUSTIVE:
            assert first.read_bytes() == draw(tmp_path / f"{i}b.png").read_bytes(), f"{first} differs between two runs"


def assert_no_metadata(png: Path) -> None:
    assert not {b"tEXt", b"iTXt", b"zTXt", b"tIME"} & set(png_chunks(png)), f"{png} carries metadata"


def png_chunks(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    chunks, i = [], 8
    while i < len(data):
        (length,) = struct.unpack(">I", data[i : i + 4])
        chunks.append(data[i + 4 : i + 8])
        i += 12 + length
    return chunks


# --- Markdown helpers -----------------------------------------------------------------------


def test_show_token_makes_whitespace_and_broken_utf8_visible():
    assert show_token(b" the") == "\u2423the"
    assert show_token(b"\n\t") == "\\n\\t"
    assert show_token(b"\xe2\x80") == "\\xe2\\x80"  # half a character: escaped, not replaced
    assert show_token("é".encode()) == "é"


def test_code_spans_are_safe_in_table_cells():
    assert code("<|endoftext|>") == "`<\\|endoftext\\|>`"
    assert code("<|endoftext|>", in_table=False) == "`<|endoftext|>`"
    assert code("a`b") == "`` a`b ``"


def test_markdown_table_checks_its_shape():
    table = markdown_table(["a", "b"], [(1, 2)], align="lr")
    assert table == "| a | b |\n|:--|--:|\n| 1 | 2 |\n"
    with pytest.raises(ValueError):
        markdown_table(["a", "b"], [(1,)])
    with pytest.raises(ValueError):
        markdown_table(["a", "b"], [], align="l")


def test_signed_uses_a_true_minus():
    assert (signed(3), signed(-3), signed(0)) == ("+3", "\u22123", "0")


def test_sync_snippets_replaces_only_between_markers():
    page = "intro\n\n<!-- snippet: figures/x.md -->\nold\n<!-- end snippet -->\n\noutro\n"
    synced = sync_snippets(page, {"figures/x.md": "| new |\n"})
    assert synced == "intro\n\n<!-- snippet: figures/x.md -->\n\n| new |\n\n<!-- end snippet -->\n\noutro\n"
    assert quoted_snippets(synced) == {"figures/x.md": "| new |\n"}
    assert sync_snippets(synced, {"figures/x.md": "| new |\n"}) == synced  # idempotent
    with pytest.raises(KeyError):
        sync_snippets(page, {})


# --- page 00 --------------------------------------------------------------------------------


def test_pattern_pieces_are_the_gpt2_pattern():
    assert "|".join(piece for piece, _ in PATTERN_PIECES) == GPT2_PATTERN


@pytest.mark.parametrize(
    "text", [PATTERN_EXAMPLE, "a   b", "x  \n  y", "Zoë's 2 cats!!\n\n", "DON'T can’t", "猫は日なた。 🙂 \t"]
)
def test_pretokens_by_piece_agree_with_pretokenize(text):
    found = pretokens_by_piece(text)
    assert [p for p, _ in found] == pretokenize(text)
    assert all(0 <= i < len(PATTERN_PIECES) for _, i in found)


def test_pattern_example_uses_every_piece():
    assert {i for _, i in pretokens_by_piece(PATTERN_EXAMPLE)} == set(range(len(PATTERN_PIECES)))


def test_corpus_counts_are_count_pretokens():
    stats = corpus_counts(SMALL_CORPUS)
    text = SMALL_CORPUS.read_text(encoding="utf-8")
    assert stats.word_counts == count_pretokens(text)
    assert stats.utf8_bytes == len(text.encode("utf-8"))
    assert stats.special_tokens == text.count("<|endoftext|>") > 0
    ranked = stats.ranked()
    assert [c for _, c in ranked] == sorted((c for _, c in ranked), reverse=True)
    # The counts the other pages' runs read (pretokenized once a process), not a count of their own.
    from bpe_ref.course.bench.common import corpus_counts as shared_counts

    assert stats.word_counts is shared_counts(SMALL_CORPUS)


# --- pages 01 and 02 ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_run():
    return training_run(SMALL_CORPUS, SMALL_MERGES)


def test_training_run_measures_every_merge(small_run):
    assert len(small_run.work) == len(small_run.trace) == SMALL_MERGES
    for step, work in zip(small_run.trace, small_run.work):
        assert (work.left, work.right, work.count, work.affected_words) == (
            step.left,
            step.right,
            step.count,
            step.affected_words,
        )
        assert 1 <= work.affected_words <= small_run.distinct_words
        assert work.updated_windows <= 2 * work.windows
    windows = [w.windows for w in small_run.work]
    assert windows == sorted(windows, reverse=True)  # merges only ever shorten words


def test_measurements_agree_with_the_naive_trainer():
    text = SMALL_CORPUS.read_text(encoding="utf-8")
    trace: list[MergeStep] = []
    train_bpe_on_text(text, 257 + 25, method="naive", trace=trace)
    work = measure_merges(count_pretokens(text), trace)
    assert [(w.left, w.right) for w in work] == [(s.left, s.right) for s in trace]


def test_measure_merges_rejects_a_trace_it_cannot_replay():
    counts = {b" nest": 4, b" net": 4}  # (␣, n) and (n, e) tie at 8; the tie-break picks (n, e)
    assert measure_merges(counts, [MergeStep(pair=(b"n", b"e"), count=8, affected_words=2)])[0].affected_words == 2
    with pytest.raises(AssertionError):
        measure_merges(counts, [MergeStep(pair=(b" ", b"n"), count=8, affected_words=2)])  # another pair
    with pytest.raises(AssertionError):
        measure_merges(counts, [MergeStep(pair=(b"n", b"e"), count=8, affected_words=1)])  # another number of words


def test_hand_trace_is_the_trainers_trace():
    counts = {b" low": 3, b" lot": 2, b" slow": 1, b"aaaa": 2}
    steps = hand_trace(counts, 50)
    trace: list[MergeStep] = []
    text = " low" * 3 + " lot" * 2 + " slow" + "\naaaa" * 2
    assert count_pretokens(text, special_tokens=[]) == {**counts, b"\n": 2}
    vocab, merges = train_bpe_on_text(text, 256 + 50, special_tokens=[], method="naive", trace=trace)
    assert [s.chosen for s in steps] == merges
    assert [s.count for s in steps] == [t.count for t in trace]
    for step in steps:
        assert step.pair_counts[0] == (step.chosen, step.count)  # sorted best first
        assert step.tied[0] == step.chosen


def test_why_greater_explains_the_rule():
    assert "prefix" in why_greater((b"ab", b"c"), (b"a", b"bc"))
    assert "same left" in why_greater((b" n", b"et"), (b" n", b"est"))
    with pytest.raises(ValueError):
        why_greater((b"e", b"s"), (b"s", b"t"))


def test_per_word_update_is_right_and_local_rules_are_not():
    aaa, aaaa, abab = (b"a",) * 3, (b"a",) * 4, (b"a", b"b", b"a", b"b")
    aa, ab = (b"a", b"a"), (b"a", b"b")
    assert net_change(aaa, aa) == {(b"a", b"a"): -2, (b"aa", b"a"): 1}
    assert net_change(aaaa, aa) == {(b"a", b"a"): -3, (b"aa", b"aa"): 1}
    assert net_change(abab, ab) == {(b"a", b"b"): -2, (b"b", b"a"): -1, (b"ab", b"ab"): 1}
    # the claims of page 02, section 4
    assert local_rule_change(aaa, aa, overlapping=True) != net_change(aaa, aa)
    assert local_rule_change(aaa, aa, overlapping=False) == net_change(aaa, aa)
    assert local_rule_change(aaaa, aa, overlapping=False) != net_change(aaaa, aa)
    assert local_rule_change(abab, ab, overlapping=False) != net_change(abab, ab)
    # and on isolated occurrences the local rule agrees with the per-word rule
    word = (b" ", b"t", b"e", b"s", b"t", b"s")
    assert local_rule_change(word, (b"e", b"s"), overlapping=True) == net_change(word, (b"e", b"s"))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from([b"a", b"b", b"ab"]), max_size=9), st.sampled_from([b"a", b"b", b"ab"]),
       st.sampled_from([b"a", b"b", b"ab"]))
def test_per_occurrence_update_on_the_word_being_rewritten_is_right(word, left, right):
    """Page 02, section 4: left to right, x read from the rewritten part, y from the rest."""
    assert sequential_rule_change(word, (left, right)) == net_change(word, (left, right))


def test_per_occurrence_update_on_the_old_word_goes_wrong_where_the_table_says():
    for word, pair in OVERLAP_EXAMPLES:
        assert sequential_rule_change(word, pair) == net_change(word, pair)
        assert local_rule_change(word, pair, overlapping=True) != net_change(word, pair)


def test_overlap_bug_run_finds_the_first_wrong_count_and_the_first_wrong_merge(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("abab " * 3 + "ab " * 2 + "ba " * 4 + "aaaa", encoding="utf-8")
    run = overlap_bug_run(corpus, 20)
    assert run.wrong_at is not None and run.wrong_word is not None and run.wrong_pair is not None
    assert local_rule_change(run.wrong_word, run.wrong_pair, overlapping=False) != net_change(run.wrong_word, run.wrong_pair)
    assert run.diverges_at is None or run.diverges_at > run.wrong_at
    clean = tmp_path / "clean.txt"  # no pair ever repeats inside a word: the rule is never wrong
    clean.write_text("cat hat sat mat on the rug", encoding="utf-8")
    assert overlap_bug_run(clean, 30).wrong_at is None


def test_v2_speedup_comes_from_the_benchmark_page(tmp_path):
    page = tmp_path / "README.md"
    page.write_text("### corpus.en, vocab 500\n\n| naive | 1.0 | 19x | 1.0x faster |\n"
                    "| incremental | 0.5 | 9.7x | 2.0x faster | yes | 31 |\n", encoding="utf-8")
    assert v2_speedups(page) == [("corpus.en, vocab 500", 2.0)]
    assert "2.0× to 2.0×" in v2_speedup_snippet(v2_speedups(page))
    page.write_text("nothing here\n", encoding="utf-8")
    with pytest.raises(ValueError):
        v2_speedups(page)


@pytest.mark.parametrize("ratios", [(1.5, 5.0), (5.0, 12.0)])
def test_v2_speedup_snippet_refuses_a_run_where_page_02s_few_times_is_false(ratios):
    assert "3.6× to 5.9×" in v2_speedup_snippet([("a", 3.6), ("b", 5.9)])
    with pytest.raises(ValueError, match="rewrite page 02's 'a few times faster'"):
        v2_speedup_snippet([(f"run {i}", r) for i, r in enumerate(ratios)])


def test_v4_speedup_snippet_refuses_a_run_where_page_04s_small_factor_is_false():
    from bpe_ref.course.figures.inverted_index import benchmark_times, v4_speedup_snippet

    v2 = {"a": 2.0, "b": 4.0, "only V2": 9.0}
    assert "V4 is 1.3× to 2.7× faster than V2 (a: 2.00 s → 1.50 s, 1.3×; b: 4.00 s → 1.50 s, 2.7×)" in (
        v4_speedup_snippet(v2, {"a": 1.5, "b": 1.5}))
    for v4 in ({"a": 2.0, "b": 1.5}, {"a": 1.5, "b": 0.9}, {"other": 1.0}):  # not faster; 4.4×; no common run
        with pytest.raises(ValueError):
            v4_speedup_snippet(v2, v4)
    assert v4_speedup_snippet(benchmark_times("incremental"), benchmark_times("inverted_index"))  # the committed run


# --- drawing --------------------------------------------------------------------------------


def test_figures_draw_deterministically_on_small_input(tmp_path):
    """Page 00's figures; those of pages 01, 02 and 04 are drawn by test_page_modules_run_on_a_small_corpus."""
    stats = corpus_counts(SMALL_CORPUS)
    samples = script_samples(english_chars=2000)
    drawers = [
        lambda path: draw_bytes_per_character(samples, path),
        lambda path: draw_pretoken_counts(stats, path),
    ]
    assert_draw_deterministically(drawers, tmp_path)


@pytest.mark.parametrize("page", sorted(PAGE_MODULES))
def test_every_page_module_has_the_interface(page):
    module = page_module(page)
    assert module.PAGE.startswith(page + "-") and module.PAGE.endswith(".md")
    assert callable(module.snippets) and callable(module.draw_figures)


def test_page_modules_run_on_a_small_corpus(tmp_path):
    """Pages 01, 02 and 04 write their snippets and draw their figures (V1's merge counts, V2's and V4's affected
    words, V4's work per merge) on a small corpus, with no metadata (see assert_draw_deterministically). Of page 02's
    snippets, the one of the corpus: its others (the overlap bug's runs on two whole corpora, 5 s of CPU) take no
    corpus, and tests/test_theory_pages.py makes every snippet of every page."""
    from bpe_ref.course.figures.incremental_updates import affected_snippet
    from bpe_ref.course.figures.naive_bpe import training_run

    for page in ("01", "02"):
        module = page_module(page)
        snippets = module.snippets(corpus=SMALL_CORPUS, num_merges=SMALL_MERGES) if page == "01" else {
            "02-tinystories-affected.md": affected_snippet(training_run(SMALL_CORPUS, SMALL_MERGES))}
        assert snippets and all(name.startswith(page + "-") and text.strip() for name, text in snippets.items())
        assert_draw_deterministically([lambda path, module=module: module.draw_figures(
            path.with_suffix(""), corpus=SMALL_CORPUS, num_merges=SMALL_MERGES)[0]], tmp_path)
    snippets = page_module("00").snippets(corpus=SMALL_CORPUS)
    assert "00-tinystories-word-counts.md" in snippets
    snippets = page_module("04").snippets(corpus=SMALL_CORPUS)
    assert "04-stale-ids.md" in snippets and all(name.startswith("04-") for name in snippets)
    paths = page_module("04").draw_figures(tmp_path / "04", corpus=SMALL_CORPUS)
    assert [p.name for p in paths] == ["04-affected-words.png", "04-work-per-merge.png"]
    for path in paths:
        assert_no_metadata(path)


def test_command_writes_then_checks(tmp_path, capsys):
    """On page 10, whose snippets and figure cost least (a second of CPU; page 00's three)."""
    out = tmp_path / "figures"
    assert figures_main.main(["--out", str(out), "--page", "10", "--no-pages"]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert "10-heaps-law.png" in written and "10-cost-model.md" in written
    assert figures_main.main(["--out", str(out), "--page", "10", "--check"]) == 0
    (out / "10-cost-model.md").write_text("stale\n", encoding="utf-8")
    assert figures_main.main(["--out", str(out), "--page", "10", "--check"]) == 1
    assert "10-cost-model.md" in capsys.readouterr().out


# --- the diffs of pages 02-05: each step's merge loop differs from the previous one by its idea --


def _names(lines: list[str]) -> set[str]:
    """The identifiers of some code lines (comments and keywords left out)."""
    found = set()
    for line in lines:
        found |= {w for w in re.findall(r"[A-Za-z_]\w*", line.split("#")[0]) if not keyword.iskeyword(w)}
    return found


# step -> (names its merge loop adds to the previous step's, names it drops): the idea, and only it.
STEP_IDEAS = {
    "02": ({"words", "frequencies", "list", "values", "enumerate", "i", "left", "right", "merge_and_update"},
           {"merge_word", "merged", "keys"}),  # count once, then update the words that hold the pair
    "03": (set(), set()),  # the loop is V2's; V3 changes the counting
    # look the words up instead of scanning them, in a function of its own that V5 calls too
    "04": ({"index", "index_words", "pop", "token", "pairs_with", "new_pair", "add", "merge_indexed_words", "gained",
            "append", "_", "Pair", "Word", "defaultdict", "dict", "set", "tuple"},
           {"enumerate", "left", "right"}),
    "05": ({"heap", "LazyPairHeap", "compaction_threshold", "DEFAULT_COMPACTION_THRESHOLD", "float", "pop_best",
            "stale_pops", "grown", "refresh", "heap_size"},
           {"best_pair", "_"}),  # a heap instead of the scan for the best pair
}


@pytest.mark.parametrize("step", sorted(STEP_MODULES))
def test_each_step_changes_the_merge_loop_by_its_idea_only(step):
    before_module, after_module = STEP_MODULES[step]
    before, after = source_without_docstring(merge_loop(before_module)), loop_lines(after_module)
    added, dropped = STEP_IDEAS[step]
    assert (_names(after) - _names(before), _names(before) - _names(after)) == (added, dropped)


def test_the_diffs_are_generated_from_the_merge_loops():
    v2 = merge_loop_diff("02")
    assert "```diff\n--- V1: bpe_ref/train/step01_naive.py\n+++ V2: bpe_ref/train/step02_incremental.py\n" in v2
    assert "\n+            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n" in v2
    assert "\n-        pair_counts = count_pairs(word_counts)  # from scratch, on every merge\n" in v2
    assert '"""' not in v2  # docstrings are left out
    assert "```diff" not in merge_loop_diff("03") and "unchanged" in merge_loop_diff("03")
    assert "+        heap.refresh(grown, pair_counts)" in merge_loop_diff("05")
    v4 = merge_loop_diff("04")  # V4's loop over words is shown where it is written, above the loop that calls it
    assert v4.index("+def merge_indexed_words(") < v4.index(" def merge_steps(")
    assert "def merge_indexed_words" not in merge_loop_diff("05")  # V5 calls it, unchanged: not in its diff


# --- page 04: the index ----------------------------------------------------------------------


def test_indexed_run_agrees_with_the_trainer_and_its_bounds():
    run = indexed_run(SMALL_CORPUS)
    trace: list[MergeStep] = []
    train_bpe_on_text(SMALL_CORPUS.read_text(encoding="utf-8"), 100_000, method="inverted_index", trace=trace)
    assert [(m.pair, m.count, m.rewritten) for m in run.merges] == [(s.pair, s.count, s.affected_words) for s in trace]
    assert sum(m.shrink for m in run.merges) == run.total_windows  # the run ends with one token per word
    assert sum(m.rewritten for m in run.merges) <= run.total_windows
    assert sum(m.visited for m in run.merges) <= run.initial_entries + sum(m.added for m in run.merges)
    assert run.initial_entries + sum(m.added for m in run.merges) <= 3 * run.total_windows
    for m in run.merges:
        assert m.rewritten <= m.visited and m.added <= 2 * m.shrink


def test_replay_rejects_a_trace_it_cannot_replay():
    counts = {b" nest": 4, b" net": 4}  # (␣, n), (n, e) and (e, t) tie at 8 or more; the tie-break picks (n, e)
    assert replay(counts, [MergeStep(pair=(b"n", b"e"), count=8, affected_words=2)]).merges[0].rewritten == 2
    with pytest.raises(AssertionError):
        replay(counts, [MergeStep(pair=(b"n", b"e"), count=8, affected_words=1)])
    with pytest.raises(AssertionError):
        replay(counts, [MergeStep(pair=(b"s", b"t"), count=4, affected_words=1)])  # not the highest count


def test_index_trace_marks_stale_ids_and_keeps_a_superset():
    steps = index_trace({b" cat": 4, b" at": 3, b" that": 5, b" has": 6})
    for step in steps:
        for pair, ids in step.exact_before.items():
            assert set(ids) <= set(step.index_before[pair])  # the append-only index lists every holder
        for i in step.stale:
            assert step.words_before[i] == step.words_after[i]


PAIRS = st.tuples(*[st.sampled_from([b"", b"a", b"b", b"ab", b"ba"])] * 2)  # 25 pairs: the changes hit the counted ones


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(st.dictionaries(PAIRS, st.integers(1, 3), min_size=1, max_size=12),
       st.lists(st.tuples(PAIRS, st.integers(-3, 3)), max_size=30), st.integers(1, 4))
@example({(b"a", b"a"): 3, (b"b", b"b"): 2}, [((b"a", b"a"), -2)], 1)  # the kept pair falls below one never kept
def test_the_replays_best_pair_is_the_course_rule(pair_counts, changes, keep):
    """Counts 1 to 3 over up to 12 pairs (ties, and prefixes: (b"a", b"ab")), changed in place as a merge changes them
    (a pair that grows is told), the best pair asked after each change: the course's rule, with a floor of the top 1 to
    4 (so that kept pairs fall below it, others grow past it, and a scan happens again)."""
    from bpe_ref.tiebreak import best_pair

    best = ReplayedBest(pair_counts, keep)
    assert best.best() == best_pair(pair_counts)
    for pair, change in changes:
        if pair_counts.get(pair, 0) + change > 0:
            pair_counts[pair] = pair_counts.get(pair, 0) + change
        else:
            pair_counts.pop(pair, None)
        if change > 0:
            best.grew([pair])
        if pair_counts:
            assert best.best() == best_pair(pair_counts)
    with pytest.raises(ValueError):
        ReplayedBest({}).best()


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(st.dictionaries(st.text(alphabet="abc ", min_size=1, max_size=8).map(str.encode), st.integers(1, 5),
                       max_size=6))
def test_exact_index_returns_the_same_merges_as_v4(counts):
    from bpe_ref.train.step04_inverted_index import merge_steps

    assert list(merge_steps_exact(counts)) == list(merge_steps(counts))


# --- page 05 --------------------------------------------------------------------------------


@pytest.mark.parametrize("threshold", [1.5, 2.0, None])
def test_instrumented_heap_loop_is_v5(threshold):
    """heaps.lazy_heap_run pops, pushes, compacts and reports exactly as step05_heap.merge_steps.

    The default run checks 1.5, the threshold that compacts (and pops, pushes and finds stale entries
    as the others do); V5's default 2.0 and no compaction run under BPE_EXHAUSTIVE=1."""
    if threshold != 1.5 and not EXHAUSTIVE:
        pytest.skip("the threshold that compacts (1.5) stands for the others; BPE_EXHAUSTIVE=1 runs them all")
    from bpe_ref.corpus import read_corpus
    from bpe_ref.course.figures.heaps import lazy_heap_run
    from bpe_ref.data_files import TINYSTORIES_SAMPLE
    from bpe_ref.train.step05_heap import merge_steps

    counts = count_pretokens(read_corpus(TINYSTORIES_SAMPLE))
    mine, theirs = lazy_heap_run(counts, compaction_threshold=threshold), list(merge_steps(counts, threshold))
    assert [(s.pair, s.count, len(s.stale), s.heap_size) for s in mine] == [
        (s.pair, s.count, s.stale_pops, s.heap_size) for s in theirs]
    assert any(s.rebuilt for s in mine) == (threshold == 1.5)


def test_page05_minimum_heap_to_compact_is_v5s():
    from bpe_ref.course.figures.heaps import MIN_HEAP_TO_COMPACT
    from bpe_ref.train import step05_heap

    assert MIN_HEAP_TO_COMPACT == getattr(step05_heap, "_MIN_HEAP_TO_COMPACT", MIN_HEAP_TO_COMPACT) == 1024


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.lists(st.sampled_from([b"a", b"b", b"ab"]), min_size=1, max_size=7), min_size=1, max_size=3),
       st.sampled_from([b"a", b"b", b"ab"]), st.sampled_from([b"a", b"b", b"ab"]))
def test_list_merge_trace_is_the_per_word_rule(words, left, right):
    """Page 05, section 5: merging on the list gives page 02's changes, the merged pair left out."""
    from collections import Counter

    from bpe_ref.course.figures.heaps import trace_list_merge
    from bpe_ref.train.step01_naive import merge_word

    pair = (left, right)
    if not any(pair in zip(w, w[1:]) for w in words):
        return
    states, changes = trace_list_merge(words, pair)
    total: Counter = Counter()
    for word in words:
        total.update(net_change(word, pair))
    assert changes == {p: c for p, c in total.items() if c and p != pair}
    final, start = states[-1], 0
    for word in words:
        tokens, node = [], start
        while node != -1:
            tokens.append(final.token[node])
            node = final.next_[node]
        assert tuple(tokens) == merge_word(tuple(word), pair)
        start += len(word)


def test_first_lasting_lead():
    from bpe_ref.course.figures.heaps import first_lasting_lead

    assert first_lasting_lead([1, 10, 20, 30], [1.0, 2.0, 3.0, 4.0], [1.5, 1.0, 3.5, 3.0]) == 30
    assert first_lasting_lead([1, 10], [1.0, 2.0], [0.5, 1.0]) == 1
    assert first_lasting_lead([1, 10], [1.0, 2.0], [1.5, 2.5]) is None


def test_page05_benchmark_times_come_from_the_benchmark_page(tmp_path):
    from bpe_ref.course.figures.common import benchmark_seconds
    from bpe_ref.course.figures.heaps import language_rows

    page = tmp_path / "README.md"
    page.write_text("### English (x), vocab 10\n\n| contender | median s |\n|---|---|\n| heap | 0.5 | 1x |\n"
                    "| linked_list | 0.25 | 1x |\n", encoding="utf-8")
    assert benchmark_seconds(page) == {"English (x), vocab 10": {"heap": 0.5, "linked_list": 0.25}}
    with pytest.raises(ValueError):
        language_rows(page)  # Spanish, Russian and Chinese are missing


def test_page05_word_length_claims_fail_on_runs_that_contradict_them():
    from bpe_ref.course.figures.heaps import LanguageRow, word_length_claims, word_length_snippet

    glued = {"rows": [{"seconds": {"V5 (heap)": 2.0, "linked list": 1.0}}, {"seconds": {"V5 (heap)": 9.0, "linked list": 1.0}}]}

    def rows(*ratios_by_length):
        return [LanguageRow(language, f"{language} run", 100, length, ratio, 1.0)
                for language, length, ratio in zip(("English", "Spanish", "Russian", "Chinese"), (7, 9, 15, 22), ratios_by_length)]

    assert word_length_claims(rows(1.3, 1.8, 4.1, 3.8), glued) == []  # the order past English need not follow the length
    assert word_length_claims(rows(0.9, 1.8, 4.1, 3.8), glued) == ["the linked list wins in every run"]
    assert word_length_claims(rows(1.9, 1.8, 4.1, 3.8), glued) == ["its lead is smallest on English, whose pretokens are the shortest"]
    assert word_length_claims(rows(1.3, 1.8, 9.5, 3.8), glued) == ["it wins by more still on the glued text than on any language"]
    with pytest.raises(ValueError, match="contradict page 05"):
        word_length_snippet(rows(1.9, 1.8, 4.1, 3.8), glued)


def test_heap_timings_measure_cumulative_times():
    from bpe_ref.course.figures.heap_timings import cumulative_times
    from bpe_ref.train.step05_heap import merge_steps

    times = cumulative_times(merge_steps, {b"low": 5, b"lower": 2, b"newest": 6}, 4)
    assert len(times) == 4 and times == sorted(times) and times[0] >= 0


def test_page05_figures_draw_deterministically(tmp_path):
    from bpe_ref.course.figures.heaps import (
        crossover_data, draw_crossover, draw_heap_size, draw_word_length, heap_size_run, language_rows,
        word_length_data,
    )

    run = heap_size_run(SMALL_CORPUS)
    drawers = [
        lambda path: draw_heap_size(run, path),
        lambda path: draw_crossover(crossover_data(), path),
        lambda path: draw_word_length(language_rows(), word_length_data(), path),
    ]
    assert_draw_deterministically(drawers, tmp_path)


def test_heap_size_run_makes_each_different_run_once(monkeypatch):
    """A threshold that the run without compaction never crosses makes that very run: heap_size_run makes it once (on
    the TinyStories sample the default threshold's, 0.7 s of CPU), and its numbers are those of a run per threshold."""
    from bpe_ref.course.bench.common import corpus_counts
    from bpe_ref.course.figures import heaps

    counts, real = corpus_counts(SMALL_CORPUS), heaps.lazy_heap_run
    thresholds = (heaps.DEFAULT_COMPACTION_THRESHOLD, None, heaps.LOW_THRESHOLD)
    for smallest in (heaps.MIN_HEAP_TO_COMPACT, 16):  # on this corpus: no heap to rebuild, then the low threshold's
        monkeypatch.setattr(heaps, "MIN_HEAP_TO_COMPACT", smallest)
        want = [real(counts, compaction_threshold=threshold) for threshold in thresholds]
        made = []

        def counted(*args, made=made, **kwargs):
            made.append(kwargs)
            return real(*args, **kwargs)

        monkeypatch.setattr(heaps, "lazy_heap_run", counted)
        run = heaps.heap_size_run.__wrapped__(SMALL_CORPUS)
        monkeypatch.setattr(heaps, "lazy_heap_run", real)
        rebuilt = [[rank for rank, step in enumerate(steps, 1) if step.rebuilt] for steps in want]
        assert list(run.compactions.values()) == rebuilt and (smallest == 16) == any(rebuilt)
        assert list(run.sizes.values()) == [[step.heap_size for step in steps] for steps in want]
        assert list(run.stale_pops.values()) == [sum(len(step.stale) for step in steps) for steps in want]
        assert list(run.pushes.values()) == [sum(len(step.pushed) for step in steps) for steps in want]
        assert len(made) == 1 + sum(map(bool, rebuilt))


def test_word_length_measurement_describes_the_shipped_text():
    """The committed word_length.json was measured on the words grouped_pretokens makes now."""
    from bpe_ref.course.figures.heap_timings import WORD_LENGTH_GROUPS, grouped_pretokens, word_length_text
    from bpe_ref.course.figures.heaps import word_length_data

    data = word_length_data()
    assert [row["group"] for row in data["rows"]] == list(WORD_LENGTH_GROUPS)
    text = word_length_text()
    assert len(text) == data["characters"]
    for row in data["rows"]:
        counts = grouped_pretokens(text, row["group"])
        assert len(counts) == row["distinct_words"]
        assert round(sum(len(w) for w in counts) / len(counts), 2) == row["bytes_per_distinct_word"]
    assert sum(len(w) * f for w, f in grouped_pretokens(text, 1).items()) == sum(
        len(w) * f for w, f in grouped_pretokens(text, 16).items())  # the same bytes, longer words


# --- page 06 --------------------------------------------------------------------------------


def test_page06_encoder_diff_is_generated_from_v1_and_encode_pretoken():
    from bpe_ref.course.figures.step_diffs import encoder_diff

    diff = encoder_diff("06")
    assert "--- V1: bpe_ref/train/step01_naive.py (merge_steps)" in diff
    assert "+++ encoding (step 06): bpe_ref/encode/step06_naive.py (encode_pretoken)" in diff
    assert "+        word = merge_word(word, best)" in diff and "-        pair = best_pair(pair_counts)" in diff
    assert '"""' not in diff


def test_page06_rounds_are_what_encode_pretoken_does():
    from bpe_ref.course.figures.encode_decode import EARLY_MERGE, encoding_rounds, work_merges
    from bpe_ref.encode.step06_naive import encode_pretoken, merge_ranks

    for ranks in (merge_ranks(work_merges()), merge_ranks([EARLY_MERGE, *work_merges()])):
        for word in (b" worked", b" workers", b" rework", b"he"):
            rounds = encoding_rounds(word, ranks)
            assert rounds[-1][0] == encode_pretoken(word, ranks) and rounds[-1][2] is None
            assert all(chosen == present[0][0] for _, present, chosen in rounds[:-1])


def test_page06_figure_draws_deterministically(tmp_path):
    """The figure drawn twice in the default run (the cheapest: see assert_draw_deterministically)."""
    from bpe_ref.course.figures.encode_decode import draw_layouts

    first, second = draw_layouts(tmp_path / "a.png"), draw_layouts(tmp_path / "b.png")
    assert first.read_bytes() == second.read_bytes()
    assert_no_metadata(first)
# --- page 07 --------------------------------------------------------------------------------


def test_page07_trace_is_what_the_heap_encoder_does():
    """The traced pop loop is the one HeapEncoder runs, and its last parts are heap_encode's tokens."""
    from bpe_ref.course.figures.heap_encoding import AAA_MERGES, WORK_MERGES, trace
    from bpe_ref.encode.step07_heap import heap_encode, merge_ranks

    for pretoken, merges in [(b"aaaaa", AAA_MERGES), (b" worked", WORK_MERGES), (b"aaaaaaa", AAA_MERGES)]:
        heap, steps = trace(pretoken, merges)
        assert [token for _, token in steps[-1].parts] == heap_encode(pretoken, merge_ranks(merges))
        assert len(steps) <= 3 * len(pretoken)  # at most L - 1 first entries and two pushes per merge
        assert not steps[-1].heap


def test_page07_long_pieces_measure_and_fit(tmp_path):
    from bpe_ref.course.figures.long_pieces import fit_exponent, fit_range, long_piece, measure
    from bpe_ref.measure import fit_exponent as the_harness_fit

    assert fit_exponent is the_harness_fit  # page 07's harness fits with bpe_ref.measure's, written once
    assert fit_exponent([10, 100, 1000], [1.0, 100.0, 10000.0]) == pytest.approx(2.0)
    assert fit_range([1, 2, 3, 4, 5, 6, 7, 8]) == [5, 6, 7, 8] and fit_range([1, 2, 3]) == [1, 2, 3]
    assert len(long_piece("random digits", 50)) == 50 and set(long_piece("one letter (a)", 9)) == {"a"}
    data = measure(lengths=(50, 100, 200), repeats=1, kinds=("random digits",))
    rows = data["results"]["random digits"]
    assert set(rows) == {"naive (step 06)", "heap (step 07)", "tiktoken"}
    assert all(row["lengths"] == [50, 100, 200] and len(row["seconds"]) == 3 for row in rows.values())


def test_page07_figure_draws_deterministically(tmp_path):
    from bpe_ref.course.figures.heap_encoding import draw_long_pieces, long_pieces_data

    assert_draw_deterministically([lambda path: draw_long_pieces(long_pieces_data(), path)], tmp_path)


def test_page07_diff_is_generated_from_the_encoders():
    from bpe_ref.course.figures.step_diffs import encoder_diff

    diff = encoder_diff("07")
    assert ("--- step 06: bpe_ref/encode/step06_naive.py (encode_pretoken)\n"
            "+++ step 07: bpe_ref/encode/step07_heap.py (heap_encode)") in diff
    assert "+    return merge_all(parts, ranks, first_heap(parts, ranks))" in diff
    assert '"""' not in diff


# --- page 10: the measurements' code on small inputs, and the figure ---------------------------


def test_page10_bench_measures_what_it_claims(monkeypatch):
    from bpe_ref.corpus import read_corpus
    from bpe_ref.course.bench import distributed as bench
    from bpe_ref.pretokenize import count_pretokens

    points = bench.heaps_points(CS336_FIXTURES / "corpus.en")["points"]
    text = read_corpus(CS336_FIXTURES / "corpus.en")
    whole = count_pretokens(text, ["<|endoftext|>"])
    assert points[-1]["pretokens"] == sum(whole.values()) and points[-1]["distinct"] == len(whole)
    assert [p["pretokens"] for p in points] == sorted({p["pretokens"] for p in points})
    assert all(a["distinct"] <= b["distinct"] for a, b in zip(points, points[1:]))
    # Heaps' fit recovers the constants of exact power-law points
    exact = [{"pretokens": n, "distinct": 3.0 * n**0.6} for n in (1_000, 10_000, 100_000)]
    k, beta = bench.fit_heaps(exact)
    assert abs(k - 3.0) < 1e-9 and abs(beta - 0.6) < 1e-12
    assert bench.pair_counts({b"abab": 2, b"ba": 1}) == {(b"a", b"b"): 4, (b"b", b"a"): 3}
    monkeypatch.setattr(bench, "RANGE_COUNTS", (1, 4))
    rows = bench.network_sizes(SMALL_CORPUS)
    assert rows[0]["ranges"] == 1 and rows[1]["ranges"] > 1
    assert all(r["text_bytes"] >= SMALL_CORPUS.stat().st_size for r in rows)
    assert rows[0]["distinct_summed"] < rows[1]["distinct_summed"]  # cut ranges repeat words: more entries


def test_page10_figure_and_cost_model(tmp_path):
    from bpe_ref.course.figures import beyond_one_machine as page10

    assert_draw_deterministically([page10.draw_heaps], tmp_path)
    rates = page10.rates()
    rows = page10.cost_model()
    assert [row["bytes"] for row in rows] == [size for _, size in page10.MODEL_SIZES]
    for row in rows:
        assert row["one_core"] == pytest.approx(row["bytes"] / rates["count_bytes_per_second"])
        assert row["cores"] == pytest.approx(row["one_core"] / page10.MODEL_CORES)
    for label in page10.COST_FITS:  # W grows with n, but more slowly
        distinct = [row[label]["distinct"] for row in rows]
        assert distinct == sorted(distinct) and distinct[-1] / distinct[0] < rows[-1]["bytes"] / rows[0]["bytes"]


def test_page10_cost_model_arithmetic_on_made_up_rates(monkeypatch):
    """The merge loop's rate is per byte of DISTINCT pretokens: the model multiplies it by W and the
    mean length of a distinct pretoken (8 bytes here), not of a running one (4 bytes here)."""
    from bpe_ref.course.figures import beyond_one_machine as page10

    made_up = {
        "heaps": {"A": {"points": [{"pretokens": 1_000, "bytes": 4_000, "distinct": 2 * 1_000**0.5},
                                   {"pretokens": 10_000, "bytes": 40_000, "distinct": 2 * 10_000**0.5}]}},
        "rates": {"counting": [{"corpus": "A", "bytes": 1_000_000, "seconds": 0.5}],
                  "reduce": {"tree_entries": 1_000, "tree_seconds": 0.01},
                  "merge_loop": [{"corpus": "A", "scale": 1, "merges": 10, "distinct": 100, "distinct_bytes": 800,
                                  "seconds": 0.008}]},
        "dask": {"workers": [{"round_trip_seconds": 0.002}]},
        "network": {"rows": [{"count_bytes": 1_200, "distinct_summed": 100}]},
        "memory": {"bytes_per_entry": 80},
    }
    monkeypatch.setattr(page10, "results", lambda: made_up)
    monkeypatch.setattr(page10, "COST_FITS", ("A",))
    monkeypatch.setattr(page10, "MODEL_SIZES", (("400 kB", 4e5),))
    monkeypatch.setattr(page10, "MODEL_CORES", 10)
    monkeypatch.setattr(page10, "MODEL_RANGE_BYTES", 1e5)
    [row] = page10.cost_model()
    distinct = 2 * (4e5 / 4) ** 0.5  # Heaps with K = 2, beta = 0.5, at n = 400 kB / 4 bytes per pretoken
    assert row["A"]["distinct"] == pytest.approx(distinct)
    assert row["A"]["merge_loop"] == pytest.approx(1e-5 * distinct * 8)  # 0.008 s / 800 bytes, 8 bytes each
    assert row["one_core"] == pytest.approx(0.2) and row["cores"] == pytest.approx(0.02)
    assert row["ranges"] == 4 and row["A"]["sent"] == pytest.approx(4 * 2 * (1e5 / 4) ** 0.5 * 12)
    assert row["A"]["memory"] == pytest.approx(distinct * 80) and row["A"]["reduce_top"] == pytest.approx(distinct / 1e5)


def test_page10_diff_is_the_distributed_count_against_step03s():
    from bpe_ref.course.figures.beyond_one_machine import snippets
    from bpe_ref.course.figures.step_diffs import encoder_diff

    diff = encoder_diff("10")
    assert "--- step 03: bpe_ref/train/step03_parallel.py (count_pretokens_in_file)" in diff
    assert "+++ step 10: bpe_ref/distributed/pretoken_counts.py (count_pretokens_with)" in diff
    assert "-    with ProcessPoolExecutor(" in diff and "+    total = count_ranges(ranges, special_tokens, as_task=" in diff
    assert snippets()["10-diff-from-03.md"] == diff


def test_a_missing_measurement_is_an_error_never_a_placeholder_quoted_into_a_page(tmp_path):
    from bpe_ref.course.figures import beyond_one_machine, parallel_pretokenization

    with pytest.raises(FileNotFoundError):
        parallel_pretokenization.benchmark_snippet(tmp_path / "results.json")
    with pytest.raises(KeyError, match="dask_message"):
        beyond_one_machine.dask_message_sentence({"file": "x.txt", "rows": []})


def test_committed_measurements_name_files_from_the_repository_root():
    from bpe_ref.course.figures.common import REPO_ROOT, repo_relative

    assert repo_relative(REPO_ROOT / "theory" / ".." / "data" / "x.txt") == "data/x.txt"
    with pytest.raises(ValueError):
        repo_relative(REPO_ROOT.parent / "elsewhere.txt")
