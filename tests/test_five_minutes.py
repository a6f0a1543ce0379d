"""Pages 00-05 open with "The idea in five minutes" (a toy of at most 30 lines and what it prints)
and a "Resumen" in Spanish. The toys run, the pages quote them as generated, and what each toy
computes agrees with bpe_ref, so a toy never teaches something the real code contradicts.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from bpe_ref import TRAIN_METHODS
from bpe_ref.course.figures import five_minutes
from bpe_ref.pretokenize import count_pretokens
from bpe_ref.train import trainer_module

THEORY = Path(__file__).resolve().parent.parent / "theory"
PAGES = {page: next(THEORY.glob(f"{page}-*.md")) for page in five_minutes.IDEAS}
HUG_WORDS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def as_str_pairs(merges):
    return [(a.decode(), b.decode()) for a, b in merges]


def reference_merges(words: dict[str, int], n: int, method: str = "naive") -> list[tuple[str, str]]:
    return as_str_pairs(trainer_module(method).train({w.encode(): c for w, c in words.items()}, n))


@pytest.fixture(scope="module")
def runs():
    return {page: five_minutes.run(page) for page in five_minutes.IDEAS}


@pytest.mark.parametrize("page", sorted(five_minutes.IDEAS))
def test_each_toy_is_short_and_the_page_opens_with_it(page):
    code = five_minutes.code_of(page)
    assert len(code.splitlines()) <= five_minutes.MAX_LINES, f"page {page}'s toy has {len(code.splitlines())} lines"
    text = PAGES[page].read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    # The Spanish summary, then the idea, then the page's first numbered section.
    assert headings[:3] == ["Resumen", "The idea in five minutes", headings[2]] and headings[2].startswith("1. "), headings[:3]
    idea = text.split("## The idea in five minutes\n", 1)[1].split("\n## ", 1)[0]
    assert f"<!-- snippet: figures/{page}-five-minutes.md -->" in idea
    assert "It prints:" in five_minutes.snippet(page)


@pytest.mark.parametrize("page", sorted(five_minutes.IDEAS))
def test_each_page_has_a_short_summary_in_spanish(page):
    text = PAGES[page].read_text(encoding="utf-8")
    summary = text.split("## Resumen\n", 1)[1].split("\n## ", 1)[0].strip()
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", summary) if s]
    assert 5 <= len(sentences) <= 10, f"page {page}: {len(sentences)} sentences"
    # Written in Spanish: common Spanish words, and the course's Spanish terms.
    words = set(re.findall(r"\w+", summary.lower()))
    assert len(words & {"el", "la", "los", "las", "de", "que", "una", "por", "cada", "en"}) >= 6
    assert "tokenizador" in summary or "pretokeniz" in summary or "fusión" in summary


def test_page00_toy_counts_what_count_pretokens_counts(runs):
    namespace, _ = runs["00"]
    assert dict(namespace["counts"]) == count_pretokens(namespace["text"], [namespace["SPECIAL"]])


def bracketed_symbols(text: str) -> list[str]:
    return re.findall(r"\[(\w+)\]", text)


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_page01_toy_learns_the_trainers_merges(runs, method):
    namespace, printed = runs["01"]
    assert Counter(namespace["text"].split()) == HUG_WORDS
    merges = [tuple(bracketed_symbols(best)) for best in namespace["merges"]]
    assert merges == reference_merges(HUG_WORDS, 4, method)
    # The printed counts are the weighted pair counts of the words as they stand before each merge.
    splits = {w: tuple(bytes([c]) for c in w.encode()) for w in HUG_WORDS}
    for step, (a, b) in enumerate(merges, 1):
        counts = Counter()
        for w, symbols in splits.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] += HUG_WORDS[w]
        line = re.search(rf"^step {step}: counts (\{{.*\}}) \.\.\.$", printed, re.MULTILINE).group(1)
        shown = {tuple(s.encode() for s in bracketed_symbols(k)): v for k, v in ast.literal_eval(line).items()}
        assert all(counts[pair] == n for pair, n in shown.items())
        top = sorted(counts.values(), reverse=True)
        assert list(shown.values()) == top[:4] and top[0] > top[1], "the page says no two counts tie at the top"
        splits = {w: trainer_module("naive").merge_word(s, (a.encode(), b.encode())) for w, s in splits.items()}


def test_page01_toy_merge_by_replace_is_the_left_to_right_merge():
    """The page says str.replace on bracketed symbols merges as BPE does: checked on every word of
    up to 7 symbols over {a, b, ab} and every pair of them."""
    import itertools

    merge_word = trainer_module("naive").merge_word
    alphabet = ["a", "b", "ab"]
    for n in range(1, 8):
        for word in itertools.product(alphabet, repeat=n):
            for a, b in itertools.product(alphabet, repeat=2):
                by_replace = "".join(f"[{s}]" for s in word).replace(f"[{a}][{b}]", f"[{a}{b}]")
                expected = merge_word(tuple(s.encode() for s in word), (a.encode(), b.encode()))
                assert bracketed_symbols(by_replace) == [t.decode() for t in expected], (word, a, b)


def test_page01_toy_is_not_lab01s_code():
    """The toy shows the loop's shape, not lab 01's answers: no function of the lab, no scan loop, no
    frequency-weighted counting (the text repeats its words instead)."""
    tree = ast.parse(five_minutes.code_of("01"))
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert not defined & {"count_pairs", "best_pair", "merge_word", "train", "split_into_bytes"}
    assert not any(isinstance(node, ast.While) for node in ast.walk(tree))
    assert "zip(" not in five_minutes.code_of("01") and "+=" not in five_minutes.code_of("01")


def test_page02_toy_keeps_the_counts_of_a_fresh_recount(runs):
    namespace, printed = runs["02"]
    recount = Counter()
    for w, symbols in namespace["splits"].items():
        for pair in zip(symbols, symbols[1:]):
            recount[pair] += HUG_WORDS[w]
    assert +namespace["counts"] == recount
    assert re.findall(r"merge (\(.*?\))", printed) == [str(p) for p in reference_merges(HUG_WORDS, 4)]
    # "After every merge the toy's table equals a count from scratch": stop the toy after each merge
    code = five_minutes.code_of("02")
    assert code.count("for step in range(4):") == 1
    for merges in range(1, 5):
        stopped: dict = {}
        exec(compile(code.replace("range(4)", f"range({merges})"), "<page 02 toy>", "exec"), stopped)  # noqa: S102
        recount = Counter()
        for w, symbols in stopped["splits"].items():
            for pair in zip(symbols, symbols[1:]):
                recount[pair] += HUG_WORDS[w]
        assert +stopped["counts"] == recount, f"after merge {merges}"


def test_page03_toy_cuts_at_special_tokens_and_counts_like_the_whole(runs):
    namespace, _ = runs["03"]
    text, special, cuts = namespace["text"], namespace["SPECIAL"], namespace["cuts"]
    assert cuts[0] == 0 and cuts[-1] == len(text) and len(cuts) == 4
    assert all(text.startswith(special, c) for c in cuts[1:-1])
    expected = {k.decode(): v for k, v in count_pretokens(text, [special]).items()}
    assert dict(namespace["total"]) == expected


def test_page04_toy_replays_the_trainers_merges_and_marks_stale_ids(runs):
    namespace, printed = runs["04"]
    merges = [tuple(map(str, re.search(r"merge (\(.*?\))", line).group(1)[1:-1].replace("'", "").split(", ")))
              for line in printed.splitlines() if line.startswith("merge")]
    # "the ones every trainer learns on these counts"
    assert all(merges == reference_merges(HUG_WORDS, 3, method) for method in TRAIN_METHODS)
    # The visited words are exactly those that held the pair, on this toy (no stale id is visited).
    assert "visit words [0, 1, 4]" in printed and "visit words [2, 3]" in printed and "visit words [0, 4]" in printed
    words = namespace["words"]
    for pair, ids in namespace["stale"].items():
        a, b = pair.split(",")
        assert all((a, b) not in zip(words[i], words[i][1:]) for i in ids)
    assert namespace["stale"]["h,u"] == [0, 4]


def test_page05_toy_pops_the_trainers_merges_and_skips_a_stale_entry(runs):
    namespace, printed = runs["05"]
    first = Counter()
    for w, n in HUG_WORDS.items():
        for pair in zip(w, w[1:]):
            first[pair] += n
    # The toy's starting counts are the corpus's, and its changes are what merging (u, g) does.
    after = Counter()
    for w, n in HUG_WORDS.items():
        symbols = ["h", "ug"] + (["s"] if w == "hugs" else []) if w in ("hug", "hugs") else ["p", "ug"] if w == "pug" else list(w)
        for pair in zip(symbols, symbols[1:]):
            after[pair] += n
    assert namespace["counts"] == dict(after)
    initial = ast.literal_eval(re.search(r"^counts = (\{.*\})$", five_minutes.code_of("05"), re.MULTILINE).group(1))
    assert initial == dict(first)
    popped = re.findall(r"^merge (\(.*?\))", printed, re.MULTILINE)
    assert popped == [str(p) for p in reference_merges(HUG_WORDS, 2)]
    assert "skip (17, ('p', 'u')): stale, the count is now 12" in printed
    assert first[("p", "u")] == 17 and after[("p", "u")] == 12


def test_page04_section1_trace_table_is_what_v4s_index_does():
    """Page 04, section 1: the table of visits, gains and stale ids on the toy, replayed with V4's functions."""
    from bpe_ref.train.step02_incremental import merge_and_update
    from bpe_ref.train.step04_inverted_index import index_words, pairs_with

    def show(pair):
        return f"`({pair[0].decode()}, {pair[1].decode()})`"

    words = [tuple(bytes([c]) for c in w.encode()) for w in HUG_WORDS]
    frequencies = list(HUG_WORDS.values())
    counts = Counter()
    for w, f in zip(words, frequencies):
        for pair in zip(w, w[1:]):
            counts[pair] += f
    index = index_words(words)
    expected = []
    for pair in [tuple(p.encode() for p in m) for m in reference_merges(HUG_WORDS, 3)]:
        token = pair[0] + pair[1]
        visit = sorted(index.pop(pair))
        gains, stale = {}, {}
        for i in visit:
            old = words[i]
            words[i] = merge_and_update(old, pair, frequencies[i], counts)
            for p in pairs_with(words[i], token):
                if i not in index[p]:
                    index[p].add(i)
                    gains.setdefault(p, []).append(i)
            for p in set(zip(old, old[1:])) - set(zip(words[i], words[i][1:])) - {pair}:
                stale.setdefault(p, []).append(i)
        expected.append((show(pair), ", ".join(map(str, visit)), gains, stale))
    text = PAGES["04"].read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`\(.*?\)`) \| all 5 words \| ([\d, ]+) \| (.*?) \| (.*?) \|$", text, re.MULTILINE)
    assert len(rows) == 3
    for (pair, visit, gains, stale), (row_pair, row_visit, row_gains, row_stale) in zip(expected, rows):
        assert (row_pair, row_visit) == (pair, visit)
        for p, ids in gains.items():
            assert show(p) in row_gains and all(str(i) in row_gains for i in ids)
        assert row_gains.count("`(") == len(gains)
        assert row_stale.count("`(") == len(stale)
        for p, ids in stale.items():
            assert f"{', '.join(map(str, sorted(ids)))} in {show(p)}" in row_stale
