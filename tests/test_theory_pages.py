"""The theory pages (theory/*.md) and their drill answers: links, required sections, Markdown
that renders, quoted numbers equal to what the code produces now, and hand traces equal to what
the trainers return.
"""

from __future__ import annotations

import ast
from collections import Counter
import contextlib
import functools
import io
import math
import re
from pathlib import Path

import pytest

from bpe_ref import TRAIN_METHODS, train_bpe_on_text
from bpe_ref.train import MergeStep
from sampling import EXHAUSTIVE

REPO_ROOT = Path(__file__).resolve().parent.parent
THEORY = REPO_ROOT / "theory"
FIGURES = THEORY / "figures"

# page -> (lab notebook, bpe_ref module, drill answers, previous page, next page), all repo-relative
PAGES: dict[str, dict[str, str | None]] = {
    "00-bytes-and-pretokenization.md": {
        "lab": "labs/00_pretokenization/00_pretokenization.ipynb",
        "module": "bpe_ref/pretokenize.py",
        "answers": "theory/drills/00-answers.md",
        "previous": "theory/README.md",
        "next": "theory/01-naive-bpe.md",
    },
    "01-naive-bpe.md": {
        "lab": "labs/01_naive_bpe/01_naive_bpe.ipynb",
        "module": "bpe_ref/train/step01_naive.py",
        "answers": "theory/drills/01-answers.md",
        "previous": "theory/00-bytes-and-pretokenization.md",
        "next": "theory/02-incremental-updates.md",
    },
    "02-incremental-updates.md": {
        "lab": "labs/02_incremental/02_incremental.ipynb",
        "module": "bpe_ref/train/step02_incremental.py",
        "answers": "theory/drills/02-answers.md",
        "previous": "theory/01-naive-bpe.md",
        "next": "theory/03-parallel-pretokenization.md",
    },
    "03-parallel-pretokenization.md": {
        "lab": "labs/03_parallel/03_parallel.ipynb",
        "module": "bpe_ref/train/step03_parallel.py",
        "answers": "theory/drills/03-answers.md",
        "previous": "theory/02-incremental-updates.md",
        "next": "theory/04-inverted-index.md",
    },
    "04-inverted-index.md": {
        "lab": "labs/04_inverted_index/04_inverted_index.ipynb",
        "module": "bpe_ref/train/step04_inverted_index.py",
        "answers": "theory/drills/04-answers.md",
        "previous": "theory/03-parallel-pretokenization.md",
        "next": "theory/05-heap.md",
    },
    "05-heap.md": {
        "lab": "labs/05_heap/05_heap.ipynb",
        "module": "bpe_ref/train/step05_heap.py",
        "answers": "theory/drills/05-answers.md",
        "previous": "theory/04-inverted-index.md",
        "next": "theory/06-encode-decode.md",
    },
    "06-encode-decode.md": {
        "lab": "labs/06_encode_decode/06_encode_decode.ipynb",
        "module": "bpe_ref/encode/step06_naive.py",
        "answers": "theory/drills/06-answers.md",
        "previous": "theory/05-heap.md",
        "next": "theory/07-heap-encoding.md",
    },
    "07-heap-encoding.md": {
        "lab": "labs/07_heap_encoding/07_heap_encoding.ipynb",
        "module": "bpe_ref/encode/step07_heap.py",
        "answers": "theory/drills/07-answers.md",
        "previous": "theory/06-encode-decode.md",
        "next": "theory/08-linear-encoding.md",
    },
    "08-linear-encoding.md": {
        "lab": "labs/08_linear_encoding/08_linear_encoding.ipynb",
        "module": "bpe_ref/encode/step08_backtrack.py",
        "answers": "theory/drills/08-answers.md",
        "previous": "theory/07-heap-encoding.md",
        "next": "theory/09-benchmarks.md",
    },
    "09-benchmarks.md": {
        "lab": "labs/09_benchmarks/09_benchmarks.ipynb",
        "module": "bpe_ref/measure.py",
        "answers": "theory/drills/09-answers.md",
        "previous": "theory/08-linear-encoding.md",
        "next": "theory/10-beyond-one-machine.md",
    },
    "10-beyond-one-machine.md": {
        "lab": "labs/10_distributed/10_distributed.ipynb",
        "module": "bpe_ref/distributed/pretoken_counts.py",
        "answers": "theory/drills/10-answers.md",
        "previous": "theory/09-benchmarks.md",
        "next": None,  # the last step
    },
}
ANSWERS = [REPO_ROOT / links["answers"] for links in PAGES.values()]
MARKDOWN_FILES = [THEORY / "README.md", *(THEORY / page for page in PAGES), *ANSWERS]
REQUIRED_SECTIONS = ("## Worked example", "## Pitfalls", "## Recap", "## Drills")

LINK_RE = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)\)")
FENCE_RE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
CODE_SPAN_RE = re.compile(r"(`+).+?\1")


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def rel(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


def without_code(text: str) -> str:
    """``text`` with fenced blocks and code spans blanked out (links inside code are not links)."""
    text = FENCE_RE.sub("", text)
    return CODE_SPAN_RE.sub("``", text)


def links_of(path: Path) -> list[str]:
    return LINK_RE.findall(without_code(read(path)))


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading: lowercase, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def jupyterlab_anchor(heading: str) -> str:
    """The id JupyterLab gives a heading: its text with spaces to hyphens, case and punctuation kept
    (``createHeaderId`` in @jupyterlab/rendermime; the sanitizer stores it as ``data-jupyter-id``)."""
    return re.sub(r"[`*]", "", heading.strip()).replace(" ", "-")


def anchors_in_both(text: str) -> set[str]:
    """Fragments that scroll to the same place on GitHub and in JupyterLab's Markdown viewer.

    Explicit ``<a id="x"></a>`` anchors work in both (GitHub prefixes the id with ``user-content-``
    and resolves ``#x`` to it; JupyterLab's sanitizer moves it to ``data-jupyter-id``, which its link
    handler looks up). A heading's own anchor works in both only where the two ids agree, for
    example ``## drills`` but not ``## Drills``.
    """
    explicit = set(re.findall(r'<a id="([^"]+)"></a>', FENCE_RE.sub("", text)))
    headings = re.findall(r"^#+ (.+)$", without_code(text), re.MULTILINE)
    return explicit | {github_anchor(h) for h in headings if github_anchor(h) == jupyterlab_anchor(h)}


def section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section (up to the next ``## ``)."""
    start = text.index(heading + "\n") + len(heading) + 1
    end = text.find("\n## ", start)
    return text[start : end if end != -1 else len(text)]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE)


# --- files and links ------------------------------------------------------------------------


def test_the_pages_and_their_index_exist():
    for path in MARKDOWN_FILES:
        assert path.exists(), f"missing {rel(path)}"


@pytest.mark.parametrize("path", MARKDOWN_FILES, ids=rel)
def test_every_relative_link_points_at_an_existing_file(path):
    broken = []
    for target in links_of(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            broken.append(target)
            continue
        if anchor and resolved.suffix == ".md" and anchor not in anchors_in_both(read(resolved)):
            broken.append(f"{target} (no anchor that GitHub and JupyterLab both resolve)")
    assert not broken, f"{rel(path)} has broken links: {broken}"


def test_anchor_rules_of_github_and_jupyterlab():
    assert github_anchor("Worked example") == "worked-example" != jupyterlab_anchor("Worked example") == "Worked-example"
    assert github_anchor("4. The self-overlap pitfall") == "4-the-self-overlap-pitfall"
    assert jupyterlab_anchor("4. The self-overlap pitfall") == "4.-The-self-overlap-pitfall"
    page = '## Worked example\n\n<a id="table-of-counts"></a>**The trace.**\n\n## drills\n'
    assert anchors_in_both(page) == {"table-of-counts", "drills"}


@pytest.mark.parametrize("path", MARKDOWN_FILES, ids=rel)
def test_no_page_sends_learners_into_the_lab_solutions(path):
    """Learners in a class get a handout without solutions/: drill answers are in theory/drills/."""
    solutions = (REPO_ROOT / "solutions").resolve()
    into = [t for t in links_of(path) if (path.parent / t.partition("#")[0]).resolve().is_relative_to(solutions)]
    assert not into, f"{rel(path)} links into solutions/: {into}"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_page_links_its_lab_module_answers_and_neighbours(page):
    path = THEORY / page
    resolved = {(path.parent / t.partition("#")[0]).resolve() for t in links_of(path) if not t.startswith("http")}
    for role, target in PAGES[page].items():
        if target is not None:
            assert (REPO_ROOT / target).resolve() in resolved, f"{page} does not link its {role}: {target}"


def test_the_index_lists_the_whole_path_and_marks_what_is_coming():
    text = read(THEORY / "README.md")
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| (\d\d) \|.*$", text, re.MULTILINE)}
    assert sorted(rows) == [f"{i:02d}" for i in range(11)]
    for step in PAGES:
        assert f"]({step})" in rows[step[:2]], f"the index does not link {step}"
    written = {step[:2] for step in PAGES}
    for i in range(11):
        step = f"{i:02d}"
        assert ("coming" in rows[step]) == (step not in written), f"row {step} of the index: {rows[step]}"


# --- structure ------------------------------------------------------------------------------


@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_page_has_the_required_sections(page):
    text = read(THEORY / page)
    assert text.startswith(f"# {page[:2]} · ")
    for heading in REQUIRED_SECTIONS:
        assert re.search(rf"^{re.escape(heading)}\b", text, re.MULTILINE), f"{page} lacks '{heading}'"
    figures = re.findall(r"!\[[^\]]+\]\((figures/[^)]+\.png)\)", text)
    assert figures, f"{page} shows no figure"
    for figure in figures:
        assert (THEORY / figure).exists()
    recap = section(text, "## Recap").strip()
    assert recap and "\n\n" not in recap, "the recap is one paragraph"
    drills = re.findall(r"^(\d+)\. \*\*", section(text, "## Drills"), re.MULTILINE)
    assert 5 <= len(drills) <= 8 and drills == [str(i + 1) for i in range(len(drills))], drills
    answers = read(REPO_ROOT / PAGES[page]["answers"])
    answered = re.findall(r"^## (\d+)\. ", answers, re.MULTILINE)
    assert answered == drills, f"{PAGES[page]['answers']} answers drills {answered}, the page asks {drills}"


def test_every_committed_figure_is_shown_on_a_page():
    shown = set()
    for page in PAGES:
        shown.update(re.findall(r"\]\(figures/([^)]+\.png)\)", read(THEORY / page)))
    committed = {p.name for p in FIGURES.glob("*.png")}
    assert committed == shown


# --- Markdown that renders on GitHub and in JupyterLab ----------------------------------------


def table_blocks(text: str) -> list[list[str]]:
    blocks, current = [], []
    for line in FENCE_RE.sub("", text).splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def cells(row: str) -> list[str]:
    return re.split(r"(?<!\\)\|", row.strip())[1:-1]


@pytest.mark.parametrize("path", MARKDOWN_FILES, ids=rel)
def test_tables_are_well_formed(path):
    for block in table_blocks(read(path)):
        width = len(cells(block[0]))
        assert len(block) >= 2 and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", block[1].replace(" ", "")), block[:2]
        for row in block:
            assert len(cells(row)) == width, f"{rel(path)}: row with {len(cells(row))} cells, header has {width}: {row}"


@pytest.mark.parametrize("path", MARKDOWN_FILES, ids=rel)
def test_math_avoids_what_breaks_github_rendering(path):
    text = FENCE_RE.sub("", read(path))
    assert text.count("$$") % 2 == 0, "unbalanced $$"
    display = re.findall(r"\$\$(.*?)\$\$", text, re.DOTALL)
    inline_text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.DOTALL)
    inline = []
    for line in CODE_SPAN_RE.sub("``", inline_text).splitlines():
        assert line.count("$") % 2 == 0, f"unbalanced $ in: {line}"
        found = re.findall(r"\$([^$]+)\$", line)
        inline.extend(found)
        if line.startswith("|"):
            for math in found:
                assert "_" not in math and "|" not in math, f"risky math in a table row: {line}"
    for math in display + inline:
        # Markdown would eat the backslash of \{ \} \, \; \! before the math renderer sees it.
        assert not re.search(r"\\[{},;!]", math), f"backslash escape in math: {math}"
    for math in inline:
        assert math.count("_") <= 1, f"several underscores in inline math can turn into emphasis: {math}"


# --- quoted snippets equal what the code produces now ----------------------------------------


@pytest.fixture(scope="module")
def snippets() -> dict[str, str]:
    from bpe_ref.course.figures import all_snippets

    return all_snippets()


@pytest.fixture(scope="module")
def v4_run(snippets):
    """V4's whole run on the TinyStories sample, which the snippets of pages 02-05 are made from (a
    cached call with the snippets' own argument, so the run is made once: V5's merges replayed with V4's
    functions, about 2.5 s of CPU)."""
    from bpe_ref.course.figures.inverted_index import indexed_run
    from bpe_ref.data_files import TINYSTORIES_SAMPLE

    return indexed_run(TINYSTORIES_SAMPLE)


@pytest.mark.skipif(not EXHAUSTIVE, reason="V4's own trainer on the whole sample, 14 s of CPU: BPE_EXHAUSTIVE=1 runs it")
def test_v4s_own_trainer_makes_the_same_whole_run(v4_run):
    """By default the run replays V5's merges (V4's trainer agrees with the replay on a small corpus in
    tests/test_figures.py, and with every trainer in tests/test_train_equivalence.py); on demand, V4's own."""
    from bpe_ref.course.figures.inverted_index import indexed_run
    from bpe_ref.data_files import TINYSTORIES_SAMPLE

    assert indexed_run(TINYSTORIES_SAMPLE, method="inverted_index") == v4_run


def test_snippet_files_are_up_to_date(snippets):
    for name, text in snippets.items():
        path = FIGURES / name
        assert path.exists(), f"{rel(path)} missing: run python -m bpe_ref.course.figures"
        assert read(path) == text.rstrip("\n") + "\n", f"{rel(path)} is stale: run python -m bpe_ref.course.figures"
    orphans = {p.name for p in FIGURES.glob("*.md")} - set(snippets)
    assert not orphans, f"snippet files no code produces: {orphans}"


def test_pages_quote_the_current_snippets(snippets):
    from bpe_ref.course.figures.common import quoted_snippets

    quoted_anywhere = set()
    for page in PAGES:
        text = read(THEORY / page)
        assert text.count("<!-- snippet: ") == text.count("<!-- end snippet -->")
        for name, body in quoted_snippets(text).items():
            assert name.startswith("figures/")
            short = name.removeprefix("figures/")
            assert short in snippets, f"{page} quotes {name}, which no code produces"
            assert body == snippets[short].strip("\n") + "\n", f"{page} quotes a stale {name}: run python -m bpe_ref.course.figures"
            quoted_anywhere.add(short)
    # A snippet of a page still to be written (theory/03-..., say) waits for its page.
    of_written_pages = {name for name in snippets if any(THEORY.glob(name[:3] + "*.md"))}
    assert quoted_anywhere == of_written_pages, f"snippets no page quotes: {of_written_pages - quoted_anywhere}"


# What pages 02, 04 and 05 say about the training benchmark (theory/benchmarks/train): its numbers,
# which move from run to run, are quoted only in a generated snippet, and the prose beside it says
# what any plausible run shows. The snippet's code refuses a run that contradicts that prose
# (tests/test_figures.py checks that it does), so the claim named here must stay in the page.
TRAIN_BENCHMARK_SNIPPETS = {
    "02-incremental-updates.md": ("figures/02-v2-speedup.md", "V2 removed most of V1's work (the table above), yet runs "
                                  "only a few times faster"),
    "04-inverted-index.md": ("figures/04-v4-speedup.md", "so V4 is faster than V2 by a small constant factor only"),
    "05-heap.md": ("figures/05-word-length.md", "The linked list wins in every run. Across the four languages its "
                   "lead is smallest on English, whose pretokens are the shortest"),
}


@pytest.mark.parametrize("page", sorted(TRAIN_BENCHMARK_SNIPPETS))
def test_train_benchmark_numbers_are_a_current_snippet_beside_their_claim(page, snippets):
    from bpe_ref.course.figures.common import SNIPPET_RE, quoted_snippets

    name, claim = TRAIN_BENCHMARK_SNIPPETS[page]
    text = read(THEORY / page)
    quoted = quoted_snippets(text)
    assert name in quoted, f"{page} no longer quotes {name}"
    assert quoted[name] == snippets[name.removeprefix("figures/")].strip("\n") + "\n", f"{page} quotes a stale {name}"
    assert "benchmarks/train/README.md" in quoted[name]
    assert claim in " ".join(SNIPPET_RE.sub("", text).split()), f"{page} changed its claim: change the snippet's check too"


# --- claims in the prose, checked by running code --------------------------------------------


def test_page00_prose_claims():
    import regex

    from bpe_ref.pretokenize import pretokenize

    text = read(THEORY / "00-bytes-and-pretokenization.md")
    # emoji: most are above U+FFFF (4 bytes); U+2600 takes 3; a skin tone adds 4, U+FE0F adds 3
    every_character = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF)
    emoji = [ord(ch) for ch in regex.findall(r"\p{Emoji}", every_character)]
    assert sum(c > 0xFFFF for c in emoji) > len(emoji) / 2
    assert [len(s.encode()) for s in ("\u2600", "\U0001f3fd", "\ufe0f")] == [3, 4, 3]
    assert "such as ☀ (U+2600), take three" in text
    # curly apostrophes and capitals
    assert pretokenize("can\u2019t") == ["can", "\u2019", "t"] and pretokenize(" can\u2019t") == [" can", "\u2019", "t"]
    assert pretokenize("DON'T") == ["DON", "'", "T"]
    assert "`can’t` (U+2019) gives `can`, `’`, `t` (and `␣can`, `’`, `t` after a space)" in text
    # decode of half a character: U+FFFD, silently; decode_bytes is exact
    from bpe_ref import Tokenizer

    gpt2 = Tokenizer.gpt2()
    ids = gpt2.encode("🙂")
    assert len(ids) == 2 and gpt2.decode(ids[:1]) == "\ufffd"
    assert (gpt2.decode_bytes(ids[:1]) + gpt2.decode_bytes(ids[1:])).decode() == "🙂"
    assert "GPT-2 encodes `🙂` as two tokens" in text


# --- the hand traces are what the trainers do -------------------------------------------------


@pytest.fixture(scope="module")
def trace():
    from bpe_ref.course.figures.naive_bpe import worked_example_trace

    return worked_example_trace()


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_page01_trace_is_what_every_trainer_returns(trace, method):
    from bpe_ref.course.figures.naive_bpe import WORKED_EXAMPLE_NUM_MERGES, WORKED_EXAMPLE_TEXT

    steps: list[MergeStep] = []
    vocab, merges = train_bpe_on_text(
        WORKED_EXAMPLE_TEXT, 256 + WORKED_EXAMPLE_NUM_MERGES, special_tokens=[], method=method, trace=steps
    )
    assert merges == [step.chosen for step in trace]
    assert [s.count for s in steps] == [step.count for step in trace]
    assert [i for i, token in vocab.items() if i >= 256] == [step.new_id for step in trace]


def test_page01_quotes_the_same_merges_as_the_trainer(trace):
    text = read(THEORY / "01-naive-bpe.md")
    assert 'text = " nest" * 4 + " net" * 4 + " ten" * 2 + " test" * 5' in text
    quoted = [b for b in python_blocks(text) if b.startswith("[(b")]
    assert len(quoted) == 1
    assert ast.literal_eval(quoted[0]) == [step.chosen for step in trace]


def test_page01_prose_matches_the_trace(trace):
    """The sentences of page 01 that describe the trace, checked one by one."""
    by_merge = {step.rank + 1: step for step in trace}
    # merge 1: (s, t) and (e, s) tie; (s, t) wins on the left token; (e, s) then vanishes
    assert by_merge[1].tied == [(b"s", b"t"), (b"e", b"s")]
    assert (b"e", b"s") not in dict(by_merge[2].pair_counts)
    assert by_merge[2].chosen == (b"e", b"st") and by_merge[2].count == by_merge[1].count
    # (n, e) drops after merge 2 to the count of ␣net alone
    assert dict(by_merge[3].pair_counts)[(b"n", b"e")] == 4 < dict(by_merge[2].pair_counts)[(b"n", b"e")]
    # merge 6: a three-way tie won by (e, t); merge 7: same left token, decided on the right
    assert by_merge[6].tied == [(b"e", b"t"), (b" n", b"est"), (b" n", b"e")]
    assert by_merge[7].tied == [(b" n", b"et"), (b" n", b"est")]
    # (e, n) is never chosen in the traced merges
    assert all(step.chosen != (b"e", b"n") for step in trace)
    assert len(trace) == 8 and trace[0].new_id == 256


SEED_001_MERGES = [  # page 01's worked example (the course's first seed corpus) under the course's tie rule
    (b"w", b"o"), (b"wo", b"r"), (b"wor", b"k"), (b" ", b"work"), (b"h", b"e"), (b"e", b"d"), (b" work", b"ed"), (b" work", b"s")
]


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_page01_seed_example_is_what_every_trainer_returns(method):
    from bpe_ref.course.figures.naive_bpe import SEED_EXAMPLE_TEXT, seed_example_counts, seed_example_trace

    assert seed_example_counts() == {b"I": 3, b" work": 2, b"\n": 4, b" worked": 2, b"he": 2, b" works": 1}
    vocab, merges = train_bpe_on_text(SEED_EXAMPLE_TEXT, 1000, special_tokens=[], method=method)
    assert merges == SEED_001_MERGES == [step.chosen for step in seed_example_trace()]
    assert len(vocab) == 264  # training stops by itself


def test_page01_seed_example_prose():
    from collections import Counter

    from bpe_ref.course.figures.naive_bpe import SEED_EXAMPLE_TEXT

    text = read(THEORY / "01-naive-bpe.md")
    assert f"text = {SEED_EXAMPLE_TEXT!r}".replace("'", '"') in text
    # the seed keeps each sentence whole: (␣, w) occurs 5 times, and its stated rule (smallest) picks it
    sentences = Counter(SEED_EXAMPLE_TEXT.encode().split(b"\n"))
    counts = Counter()
    for sentence, f in sentences.items():
        for pair in zip(sentence, sentence[1:]):
            counts[bytes(pair[:1]), bytes(pair[1:])] += f
    top = max(counts.values())
    assert counts[(b" ", b"w")] == top == 5
    assert min(p for p in counts if counts[p] == top) == (b" ", b"w")
    assert max(p for p in counts if counts[p] == top) == (b"w", b"o")


def test_page01_first_seen_tie_breaks_are_another_rule(trace):
    """Counter.most_common picks (e, s) for merge 1 of the worked example, and depends on word order."""
    from collections import Counter

    def first_seen(word_counts):
        counts = Counter()
        for word, f in word_counts.items():
            for a, b in zip(word, word[1:]):
                counts[bytes([a]), bytes([b])] += f
        return counts.most_common(1)[0][0]

    from bpe_ref.course.figures.naive_bpe import worked_example_counts

    assert first_seen(worked_example_counts()) == (b"e", b"s") != trace[0].chosen == (b"s", b"t")
    assert first_seen({b"ab": 1, b"cd": 1}) == (b"a", b"b") and first_seen({b"cd": 1, b"ab": 1}) == (b"c", b"d")


def test_page01_dedup_factor_grows_with_the_corpus():
    from bpe_ref.course.figures.naive_bpe import dedup_rows

    rows = dedup_rows()
    factors = [r.factor for r in rows]
    assert factors == sorted(factors) and factors[-1] > 4 * factors[0]
    # "each doubling of the text makes W L less than half again as large"
    for smaller, larger in zip(rows, rows[1:]):
        assert 1.9 < larger.corpus_bytes / smaller.corpus_bytes < 2.1
        assert larger.distinct_bytes < 1.5 * smaller.distinct_bytes
    assert [r.documents for r in rows][-1] == 1728


def test_page02_overlap_bug_claims(snippets):  # snippets: in their process, the two runs they made are cached
    """Page 02, section 4: the per-occurrence bug spoils the counts within ten merges on both corpora,
    but the merges only hundreds of merges later, after all 243 merges of lab 02's corpus.en test."""
    from bpe_ref.course.figures.incremental_updates import OVERLAP_BUG_CORPORA, overlap_bug_run
    from bpe_ref.course.figures.naive_bpe import DEFAULT_NUM_MERGES

    runs = {label: overlap_bug_run(path, DEFAULT_NUM_MERGES) for label, path in OVERLAP_BUG_CORPORA}
    for run in runs.values():
        assert run.wrong_at is not None and run.wrong_at <= 10
        assert run.diverges_at is not None and run.diverges_at - run.wrong_at >= 200
    assert runs["corpus.en"].diverges_at > 243
    assert b"".join(runs["corpus.en"].wrong_word) == b" training" and runs["corpus.en"].wrong_pair == (b"i", b"n")
    assert b"".join(runs["TinyStories sample"].wrong_word) == b" needed"
    text = read(THEORY / "02-incremental-updates.md")
    assert "such as `(i, n)` in `␣training` (`i n i n`) or `(e, d)` in `␣needed`" in text


def test_page02_prose_claims(v4_run):
    """Page 02's statements outside its snippets, checked against the code."""
    from bpe_ref.course.figures.incremental_updates import local_rule_change, net_change

    text = " ".join(read(THEORY / "02-incremental-updates.md").split())
    # Resumen: the per-occurrence update (neighbours read from the old word) fails on aaaa and abab;
    # on aaa only its "every occurrence" form does, so aaa is not the example
    aaa, aaaa, abab = (b"a",) * 3, (b"a",) * 4, (b"a", b"b", b"a", b"b")
    assert local_rule_change(aaa, (b"a", b"a"), overlapping=False) == net_change(aaa, (b"a", b"a"))
    for word, pair in ((aaaa, (b"a", b"a")), (abab, (b"a", b"b"))):
        for overlapping in (False, True):
            assert local_rule_change(word, pair, overlapping) != net_change(word, pair)
    assert "como `(a, a)` en `aaaa` o `(a, b)` en `abab`: ahí una actualización ocurrencia por ocurrencia" in text
    # section 6: V4's lookup visits the ids an entry lists, stale ones included
    most_stale = max(v4_run.merges, key=lambda m: m.stale)
    assert (most_stale.visited, most_stale.rewritten) == (474, 6) and most_stale.stale == 474 - 6
    assert "one merge visits 474 ids to rewrite 6 words" in text
    # section 5: the words V2 rewrites, and those it runs through merge_word for nothing, over the
    # 1,000 merges of the TinyStories table (the loop the timing command measures)
    from bpe_ref.corpus import read_corpus
    from bpe_ref.course.figures.incremental_updates import loop_time_shares
    from bpe_ref.data_files import TINYSTORIES_SAMPLE, data_file
    from bpe_ref.pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens

    counts = count_pretokens(read_corpus(data_file(TINYSTORIES_SAMPLE)), DEFAULT_SPECIAL_TOKENS)
    run = loop_time_shares(counts, 1000)
    assert (run["merges"], run["rewritten"], run["unchanged"]) == (1000, 19_809, 18_746)
    assert "(V2 rewrites those 19,809 words; it also runs `merge_word` on 18,746 words" in text
    assert "(`python -m bpe_ref.course.figures.incremental_updates`, under a minute)" in text


def test_page01_tie_break_examples_follow_the_rule():
    from bpe_ref.tiebreak import pair_rank_key, token_sort_key

    def wins(a, b):
        key = lambda p: pair_rank_key(1, token_sort_key(p[0]), token_sort_key(p[1]))  # noqa: E731
        return key(a) < key(b)

    assert wins((b"s", b"t"), (b"e", b"s"))
    assert wins((b" n", b"et"), (b" n", b"est"))
    assert wins((b"ab", b"c"), (b"a", b"bc"))
    assert wins((b"a", b"x"), (b" ", b"z")) and wins((b"a", b"x"), (b"Z", b"z")) and wins((b"\x80", b"a"), (b"z", b"z"))


def test_page02_worked_example_turns_one_column_into_the_next(trace):
    """Applying merge 2 incrementally to the counts before it gives the counts before merge 3."""
    from collections import Counter

    from bpe_ref.course.figures.incremental_updates import WORKED_EXAMPLE_MERGE, word_delta

    step, following = trace[WORKED_EXAMPLE_MERGE - 1], trace[WORKED_EXAMPLE_MERGE]
    counts = Counter(dict(step.pair_counts))
    affected = []
    for tokens, frequency in step.words_before:
        merged, lost, gained = word_delta(tokens, step.chosen)
        if list(merged) != list(tokens):
            affected.append(b"".join(tokens))
            counts.subtract({p: c * frequency for p, c in lost.items()})
            counts.update({p: c * frequency for p, c in gained.items()})
    assert +counts == Counter(dict(following.pair_counts))
    assert affected == [b" nest", b" test"]


def test_page05_worked_example_is_what_the_heap_trainer_does():
    """Page 05's tables: the instrumented loop pops, pushes and counts exactly as V5 does."""
    from bpe_ref.course.figures.heaps import WORKED_EXAMPLE_MERGES, lazy_heap_run, worked_example_steps
    from bpe_ref.course.figures.naive_bpe import worked_example_counts, worked_example_trace
    from bpe_ref.train.step05_heap import merge_steps

    counts = worked_example_counts()
    steps = worked_example_steps()
    trainer = list(merge_steps(counts))
    assert len(steps) == WORKED_EXAMPLE_MERGES
    for step, traced in zip(lazy_heap_run(counts), trainer, strict=True):
        assert (step.pair, step.count, len(step.stale), step.heap_size) == (
            traced.pair, traced.count, traced.stale_pops, traced.heap_size)
    assert [s.pair for s in steps] == [s.chosen for s in worked_example_trace()[:WORKED_EXAMPLE_MERGES]]
    # the prose: merge 2 leaves (e, s) stale on top; merge 3 drops it and pushes (n, e) again with 4
    assert steps[1].heap_before[:2] == [(9, (b"e", b"st")), (9, (b"e", b"s"))]
    assert steps[2].stale == [(9, (b"e", b"s"), 0), (8, (b"n", b"e"), 4)] and steps[2].pair == (b" ", b"n")
    assert steps[3].stale == [(7, (b"t", b"e"), 2)] and steps[3].pair == (b" ", b"t")
    for step in steps:  # every entry shown is in pop order and claims at least the live count
        assert step.heap_before == sorted(step.heap_before, key=lambda e: (-e[0], _reversed(e[1])))
        assert all(claimed >= step.live_before.get(pair, 0) or any(
            c == step.live_before[pair] and p == pair for c, p in step.heap_before) for claimed, pair in step.heap_before)


def _reversed(pair):
    from bpe_ref.tiebreak import token_sort_key

    return token_sort_key(pair[0]), token_sort_key(pair[1])


def test_page05_less_than_only_claims():
    from bpe_ref.course.figures.heaps import WRAPPER_CASES, heap_merges, less_than_only_key, wrapper_case
    from bpe_ref.pretokenize import count_pretokens

    cases = {label: wrapper_case(label, text) for label, text in WRAPPER_CASES}
    assert [c.first_difference for c in cases.values()] == [5, 3, None]
    assert cases["` cat` ×3 + ` car` ×3"].wrong[2] == (b" ca", b"r")
    # ` dat cog` goes wrong whatever the order of its words
    for text in (" dat cog", " cog dat"):
        counts = count_pretokens(text, special_tokens=())
        assert heap_merges(counts, less_than_only_key) != heap_merges(counts)
    # the same idea with __eq__ defined too is a total order, and right
    from bpe_ref.course.figures.heaps import LessThanOnly

    class WithEq(LessThanOnly):
        def __eq__(self, other):
            return self.data == other.data

    for _, text in WRAPPER_CASES:
        counts = count_pretokens(text, special_tokens=())
        key = lambda c, p: (-c, (WithEq(p[0]), WithEq(p[1])))  # noqa: E731
        assert heap_merges(counts, key) == heap_merges(counts)
    text = read(THEORY / "05-heap.md")
    assert "never looks at the right tokens `t` and `r`" in text


def test_page05_prose_claims(snippets):  # snippets: in their process, the heap runs they made are cached
    from bpe_ref.course.figures.heaps import (
        crossover_data, first_lasting_lead, heap_size_run, language_rows, seed_estimate,
    )

    text = read(THEORY / "05-heap.md")
    run = heap_size_run()
    default, none, low = run.sizes
    assert run.sizes[default] == run.sizes[none] and not run.compactions[default]
    assert run.compactions[low] == [4520] and "merge 4,520" in text
    big = [s / p for s, p in zip(run.sizes[none], run.live_pairs) if s >= 1024]
    assert max(big) < 1.7 and "under 1.7" in text
    entries = run.initial_entries + run.pushes[none] + run.repushes[none]
    assert 15_000 < entries < 17_000 and "about 16,000 entries" in text
    merges = len(run.live_pairs)
    assert 1.8 < entries / merges < 2.3 and 1.8 < (run.stale_pops[none] + merges) / merges < 2.3  # "about two ... per merge"
    assert 0.8 < run.stale_pops[none] / len(run.live_pairs) < 1.3  # "about one per merge"
    data = crossover_data()
    for corpus in data["corpora"]:
        v4, v5 = corpus["seconds"].values()
        assert first_lasting_lead(corpus["merges"], v4, v5) <= 10  # "within the first ten merges"
        assert 11 <= v4[-1] / v5[-1] <= 13.5  # "about 12 times faster"
        seed = seed_estimate(REPO_ROOT / corpus["file"], corpus["merges"][-1])
        assert 600 < seed.pairs < 800 and 12 <= round(seed.bound) <= 13 and seed.above > 100
    # "the first 100 merges hold most of the merges that rewrite a hundred words or more"
    from bpe_ref.corpus import read_corpus
    from bpe_ref.course.figures.heap_timings import CROSSOVER_CORPORA
    from bpe_ref.pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens
    from bpe_ref.train.step05_heap import merge_steps

    found = []
    for _, path in CROSSOVER_CORPORA:
        counts = count_pretokens(read_corpus(path), DEFAULT_SPECIAL_TOKENS)
        big = [rank for rank, step in zip(range(1, 3001), merge_steps(counts)) if step.affected_words >= 100]
        found.append(f"{sum(rank <= 100 for rank in big)} of {len(big)}")
    assert "(" + " on the first file, ".join(found) + " on the second," in " ".join(text.split())
    # the four languages of the training benchmark: the ratios are the snippet's (whose code refuses a
    # run against the claims, test_train_benchmark_numbers_are_a_current_snippet_beside_their_claim),
    # the lengths and word counts come from the corpora
    from bpe_ref.course.figures.heaps import word_length_claims, word_length_data

    rows = {r.language: r for r in language_rows()}
    assert word_length_claims(list(rows.values()), word_length_data()) == []
    assert f"{rows['Chinese'].mean_length:.1f}" == "21.8" and "21.8 bytes" in text
    assert 2.3 < rows["Spanish"].distinct_words / rows["Russian"].distinct_words < 2.7
    # the glued text: the linked list always wins, V5's time climbs with the length, the list's barely
    glued = word_length_data()["rows"]
    lengths = [row["bytes_per_distinct_word"] for row in glued]
    assert lengths == sorted(lengths) and 5.5 < lengths[0] < 7 and 60 < lengths[-1] < 70
    v5 = [row["seconds"]["V5 (heap)"] for row in glued]
    listed = [row["seconds"]["linked list"] for row in glued]
    assert all(a > b for a, b in zip(v5, listed))
    assert v5[-1] / v5[1] > 2 * listed[-1] / listed[1]  # "climbs much faster with the length"
    ratios = [a / b for a, b in zip(v5, listed)]
    assert ratios[-1] > 2 * ratios[0] and ratios[-1] > max(r.ratio for r in rows.values())


def test_page05_stale_visits_are_v5s_and_under_the_bound(v4_run):
    """Section 6: V5 keeps V4's index and merges, so it visits the same ids; the tokens visited,
    stale ids included, stay under 3Q."""
    from bpe_ref.course.figures.heaps import stale_visits_snippet
    from bpe_ref.corpus import read_corpus
    from bpe_ref.data_files import TINYSTORIES_SAMPLE
    from bpe_ref.pretokenize import count_pretokens
    from bpe_ref.train import train_on_counts

    run = v4_run
    counts = count_pretokens(read_corpus(TINYSTORIES_SAMPLE), ["<|endoftext|>"])
    trace: list = []
    train_on_counts(counts, 256 + 1 + len(run.merges), ["<|endoftext|>"], method="heap", trace=trace)
    assert [(s.pair, s.affected_words) for s in trace] == [(m.pair, m.rewritten) for m in run.merges]
    q = sum(len(p) ** 2 for p in counts)
    assert sum(m.visited_tokens for m in run.merges) <= 3 * q
    assert sum(m.stale for m in run.merges) > 0
    assert stale_visits_snippet() in read(THEORY / "05-heap.md")

def test_page05_self_overlap_trace_is_what_the_linked_list_does():
    from collections import Counter

    from bpe_ref.course.figures.heaps import SELF_OVERLAP_WORDS, trace_list_merge
    from bpe_ref.train.step01_naive import count_pairs, merge_word
    from bpe_ref.train.step05_linked_list import merge_steps

    states, changes = trace_list_merge(SELF_OVERLAP_WORDS, (b"a", b"a"))
    final = states[-1]
    words, start = [], 0
    for word in SELF_OVERLAP_WORDS:  # read each word back along next_
        tokens, node = [], start
        while node != -1:
            tokens.append(final.token[node])
            node = final.next_[node]
        words.append(tuple(tokens))
        start += len(word)
    assert words == [merge_word(w, (b"a", b"a")) for w in SELF_OVERLAP_WORDS] == [(b"aa", b"a"), (b"aa", b"aa")]
    before = count_pairs({w: 1 for w in SELF_OVERLAP_WORDS})
    after = count_pairs({w: 1 for w in words})
    expected = Counter(after)
    expected.subtract({p: c for p, c in before.items() if p != (b"a", b"a")})
    assert changes == {p: c for p, c in expected.items() if c}
    for heap in ("lazy", "indexed"):
        first, second = list(merge_steps({b"aaa": 1, b"aaaa": 1}, heap=heap))[:2]
        assert first.pair == (b"a", b"a") and first.count == 5
        assert {second.pair} <= {(b"aa", b"aa"), (b"aa", b"a")} and second.count == 1


def test_page05_list_trace_is_lab05s_merge_occurrences():
    """Lab 05's merge_occurrences (step05_linked_list) ends where the page's trace does."""
    from bpe_ref.course.figures.heaps import SELF_OVERLAP_WORDS, trace_list_merge
    from bpe_ref.train import step05_linked_list

    for words, pair in ((SELF_OVERLAP_WORDS, (b"a", b"a")), (((b"a", b"b", b"a", b"b", b"a"),), (b"a", b"b"))):
        token, prev, next_, node_frequency, occurrences = step05_linked_list.link_words({w: 1 for w in words})
        changes, merged = step05_linked_list.merge_occurrences(pair, token, prev, next_, node_frequency, occurrences)
        states, traced = trace_list_merge(words, pair)
        final = states[-1]
        assert changes == traced and tuple(token) == final.token
        live = [i for i, t in enumerate(token) if t]
        assert [(prev[i], next_[i]) for i in live] == [(final.prev[i], final.next_[i]) for i in live]
        assert sorted(merged) == sorted(i for i, (a, b) in enumerate(zip(states[0].token, final.token)) if a != b and b)


def test_page05_heap_key_is_lab05s_heap_entry():
    from bpe_ref.course.figures.heaps import course_key
    from bpe_ref.train import step05_heap

    key = course_key()
    for count, pair in ((3, (b"a", b"b")), (3, (b"ab", b"c")), (1, (b" ", b"\xff"))):
        assert step05_heap.heap_entry(count, pair) == (*key(count, pair), pair)


# --- drills and their answers ---------------------------------------------------------------


@pytest.mark.parametrize("path", [*ANSWERS, *(THEORY / page for page in PAGES)], ids=rel)
def test_python_in_pages_and_answers_runs(path, v4_run):  # page 04's answers show V4's run (v4_run: made once)
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        for block in python_blocks(read(path)):
            exec(compile(block, rel(path), "exec"), namespace)  # noqa: S102


def test_drill_answers_page00():
    from bpe_ref.pretokenize import count_pretokens, pretokenize, split_keeping_special_tokens

    assert [(len(s), len(s.encode())) for s in ("naïve", "日本", "🙂!")] == [(5, 6), (2, 6), (2, 5)]
    assert "Ω".encode() == bytes.fromhex("cea9") and "✓".encode() == bytes.fromhex("e29c93")
    assert bytes.fromhex("d096").decode() == "\u0416"
    assert pretokenize("He's   at 10:30!\nBye") == ["He", "'s", "  ", " at", " 10", ":", "30", "!", "\n", "Bye"]
    assert list(split_keeping_special_tokens("x<|a|><|b|>y<|a|>", ["<|a|>", "<|a|><|b|>"])) == [
        ("x", False), ("<|a|><|b|>", True), ("y", False), ("<|a|>", True)
    ]
    assert count_pretokens("the cat. The cat, the hat.", special_tokens=[]) == {
        b"the": 1, b" cat": 2, b".": 2, b" The": 1, b",": 1, b" the": 1, b" hat": 1
    }
    vocab, merges = train_bpe_on_text("some text to merge " * 3, 32_000, special_tokens=["<|a|>", "<|b|>"])
    assert vocab[256] == b"<|a|>" and vocab[257] == b"<|b|>" and min(i for i in vocab if i > 257) == 258


def test_drill_answers_page01(trace):
    from bpe_ref.course.figures.naive_bpe import WORKED_EXAMPLE_TEXT, hand_trace

    assert [s.chosen for s in hand_trace({b" low": 3, b" lot": 2, b" slow": 1}, 3)] == [
        (b"l", b"o"), (b" ", b"lo"), (b" lo", b"w")
    ]
    vocab, merges = train_bpe_on_text(WORKED_EXAMPLE_TEXT, 1000, special_tokens=[])
    assert len(merges) == 10 and len(vocab) == 266 and merges[8:] == [(b"e", b"n"), (b" t", b"en")]
    steps = hand_trace({b"aaaa": 1, b"aaa": 1}, 2)
    assert steps[0].count == 5 and steps[1].tied == [(b"aa", b"aa"), (b"aa", b"a")]
    assert len(train_bpe_on_text("abcd", 1000, special_tokens=[])[1]) == 3
    # drill 5: the two rules' vocabularies encode " best" alike and " stop", " yes" differently
    from bpe_ref import Tokenizer

    def pieces(merges, text):
        vocab = {i: bytes([i]) for i in range(256)} | {256 + k: a + b for k, (a, b) in enumerate(merges)}
        tokenizer = Tokenizer(vocab, merges, special_tokens=[])
        return [tokenizer.decode_bytes([i]) for i in tokenizer.encode(text)]

    course, opposite = [(b"s", b"t"), (b"e", b"st")], [(b"e", b"s"), (b"es", b"t")]
    assert train_bpe_on_text(WORKED_EXAMPLE_TEXT, 258, special_tokens=[])[1] == course
    assert pieces(course, " best") == pieces(opposite, " best") == [b" ", b"b", b"est"]
    assert pieces(course, " rest") == pieces(opposite, " rest")
    assert pieces(course, " stop") == [b" ", b"st", b"o", b"p"] and pieces(opposite, " stop") == [b" ", b"s", b"t", b"o", b"p"]
    assert pieces(course, " yes") == [b" ", b"y", b"e", b"s"] and pieces(opposite, " yes") == [b" ", b"y", b"es"]


def test_drill_answers_page02():
    from bpe_ref.course.figures.incremental_updates import local_rule_change, net_change

    word = (b" ", b"t", b"e", b"s", b"t", b"s")
    assert net_change(word, (b"s", b"t")) == {
        (b"e", b"s"): -1, (b"s", b"t"): -1, (b"t", b"s"): -1, (b"e", b"st"): 1, (b"st", b"s"): 1
    }
    five = (b"a",) * 5
    assert net_change(five, (b"a", b"a")) == {(b"a", b"a"): -4, (b"aa", b"aa"): 1, (b"aa", b"a"): 1}
    assert local_rule_change(five, (b"a", b"a"), overlapping=True) == {(b"a", b"a"): -10, (b"aa", b"a"): 3, (b"a", b"aa"): 3}


def test_drill_answers_page03():
    from collections import Counter

    from bpe_ref.course.figures.parallel_pretokenization import counts_of_cut, recorded_boundaries
    from bpe_ref.pretokenize import count_pretokens, pretokenize

    text = "Hi there!<|endoftext|>Bye  now"
    whole = Counter(count_pretokens(text, ["<|endoftext|>"]))
    same = {cut: counts_of_cut(text, cut, ["<|endoftext|>"]) == whole for cut in (2, 3, 9, 15, 22, 26, 27)}
    assert same == {2: True, 3: False, 9: True, 15: False, 22: True, 26: True, 27: False}
    assert whole == Counter({b"Hi": 1, b" there": 1, b"!": 1, b"Bye": 1, b" ": 1, b" now": 1})
    answers = " ".join(read(THEORY / "drills" / "03-answers.md").split())
    assert "`<|endoftext|>` is split off first and is not a pretoken, so it is not in the counts" in answers
    # 7: more chunks, a larger reduce, but not in proportion
    from bpe_ref.train.step03_parallel import count_chunk, find_chunk_boundaries
    from bpe_ref.data_files import TINYSTORIES_2MIB

    entries = {}
    for k in (2, 8):
        cuts = find_chunk_boundaries(TINYSTORIES_2MIB, k, [b"<|endoftext|>"])
        entries[k] = [len(count_chunk(TINYSTORIES_2MIB, a, b, ["<|endoftext|>"])) for a, b in zip(cuts, cuts[1:])]
    assert sum(entries[2]) == 11_180 and sum(entries[8]) == 24_556
    assert all(5_400 <= n <= 5_700 for n in entries[2]) and all(2_700 <= n <= 3_300 for n in entries[8])
    assert "adds 24,556 entries instead of 11,180, 2.2 times as many" in answers
    data = b"a<|endoftext|>bb<|endoftext|>ccc"
    assert len(data) == 32 and recorded_boundaries(data, 2, 4)[0] == recorded_boundaries(data, 4, 4)[0] == [0, 16, 32]
    r, s = 10.0, 0.15
    assert [round(p / (p - 1) * r * s, 9) for p in (2, 4)] == [3.0, 2.0]
    assert pretokenize("a \n\nb") == ["a", " \n", "\n", "b"]
    assert pretokenize("a ") + pretokenize("\n\nb") == ["a", " ", "\n", "\n", "b"]


def test_page03_prose_claims():
    """The hand trace of the worked example and the claims around the tables."""
    from bpe_ref.course.figures import parallel_pretokenization as page03
    from bpe_ref.pretokenize import count_pretokens
    from bpe_ref.train.step03_parallel import find_chunk_boundaries

    text = read(THEORY / "03-parallel-pretokenization.md")
    data = page03.WORKED_TEXT.encode()
    assert len(data) == 55 and [i for i in range(55) if data.startswith(b"<|endoftext|>", i)] == [12, 35]
    boundaries, reads = page03.recorded_boundaries(data, 3, 8)
    assert boundaries == [0, 35, 55] and "`[0, 35, 55]`" in text
    assert [offset for offset, _, _ in reads[:3]] == [18, 26, 34], "the hand trace reads from 18, 26 and 34"
    # the cut table: the rows the prose names
    whole = Counter(count_pretokens(page03.CUT_EXAMPLE, ["<|endoftext|>"]))
    assert page03.counts_of_cut(page03.CUT_EXAMPLE, 12, ["<|endoftext|>"]) is None
    for cut in (10, 4, 18):
        assert page03.counts_of_cut(page03.CUT_EXAMPLE, cut, ["<|endoftext|>"]) != whole
    for cut in (3, 14, 27):
        assert page03.counts_of_cut(page03.CUT_EXAMPLE, cut, ["<|endoftext|>"]) == whole
    # "One condition: the splitter must cut there too": at an occurrence inside another match it does not
    for example, tokens, cut in (("xa<s>by", ["<s>", "a<s>b"], 2), ("xaaay", ["aa"], 2)):
        assert example.startswith(tokens[0], cut)
        assert page03.counts_of_cut(example, cut, tokens) != Counter(count_pretokens(example, tokens))
    assert "(`<s>` inside `a<s>b`, or the second `aa` in `aaa`), and a cut there is not safe" in " ".join(text.split())
    # the seed's bugs, on the small files of the table
    assert page03.boundary_with_lost_offset(("x" * 37 + "<|endoftext|>" + "y" * 10).encode(), 4, b"<|endoftext|>", 16) == 5
    assert page03.reads_without_an_end(("<|endoftext|>" + "z" * 40).encode(), 20, b"<|endoftext|>", 16) == 1000
    straddling = ("x" * 28 + "<|endoftext|>" + "y" * 10 + "<|endoftext|>" + "w").encode()
    assert page03.boundary_without_overlap(straddling, 0, b"<|endoftext|>", 16) == 51
    assert page03.course_boundary(straddling, 0, 16) == 28
    # bugs 1 and 3 need small reads (4 KiB reads cut these files right); bug 2 hangs with any buffer
    assert page03.boundary_with_lost_offset(("x" * 37 + "<|endoftext|>" + "y" * 10).encode(), 4, b"<|endoftext|>", 4096) == 37
    assert page03.boundary_without_overlap(straddling, 0, b"<|endoftext|>", 4096) == 28
    assert page03.reads_without_an_end(("<|endoftext|>" + "z" * 40).encode(), 20, b"<|endoftext|>", 4096) == 1000
    assert "Bug 2 needs a guess with no token after it, whatever the buffer" in " ".join(text.split())
    # "one every 905 bytes": the sample's documents
    assert "one\nevery 905 bytes" in text or "one every 905 bytes" in text
    sample = page03.TINYSTORIES_2MIB.read_bytes()
    assert len(sample) // (sample.count(b"<|endoftext|>") + 1) == 905
    assert find_chunk_boundaries(page03.TINYSTORIES_2MIB, 2, [b"<|endoftext|>"])[1] == 1_049_211
    # section 5: "counting is a small share of the run [...] V3 is not reliably faster than V2: the two
    # are equal within the noise of one run" (theory/benchmarks/train)
    from bpe_ref.course.figures.common import benchmark_seconds

    runs = [times for times in benchmark_seconds().values() if "parallel (2 workers)" in times]
    assert runs and all(0.5 < times["incremental"] / times["parallel (2 workers)"] < 2 for times in runs)
    assert all(times["pretokenization only, 1 process"] < times["incremental"] / 3 for times in runs
               if "pretokenization only, 1 process" in times)
    assert "V3 is not reliably faster than V2: the two are equal within the noise of one run" in " ".join(text.split())



def test_overlapping_special_tokens_leftmost_then_longest():
    """conventions.md, page 00 and page 03 say the leftmost match wins, then the longest: the splitter does."""
    from bpe_ref.pretokenize import split_keeping_special_tokens

    conventions = read(THEORY / "conventions.md")
    assert "the **leftmost** match wins" in conventions and "`a<|` starts first" in conventions
    assert list(split_keeping_special_tokens("a<|abc|>", ["<|abc|>", "a<|"])) == [("a<|", True), ("abc|>", False)]
    assert list(split_keeping_special_tokens("a<|abc|>", ["a<|", "<|abc|>"])) == [("a<|", True), ("abc|>", False)]
    page03 = " ".join(read(THEORY / "03-parallel-pretokenization.md").split())
    assert "at `a<s>b` (the leftmost match: it starts at `a`, one byte before `<s>`)" in page03
    assert list(split_keeping_special_tokens("xa<s>by", ["<s>", "a<s>b"])) == [("x", False), ("a<s>b", True), ("y", False)]
    # same start: the longer wins, whatever the order given
    for tokens in (["<s>", "<s><s>"], ["<s><s>", "<s>"]):
        assert list(split_keeping_special_tokens("<s><s>", tokens)) == [("<s><s>", True)]

# --- page 04: the index trace is what the trainers do, and the prose matches the run ------------


@pytest.fixture(scope="module")
def index_trace():
    from bpe_ref.course.figures.inverted_index import worked_example_trace

    return worked_example_trace()


@pytest.mark.parametrize("method", TRAIN_METHODS)
def test_page04_trace_is_what_every_trainer_returns(index_trace, method):
    from bpe_ref.course.figures.inverted_index import WORKED_EXAMPLE_TEXT

    steps: list[MergeStep] = []
    _, merges = train_bpe_on_text(WORKED_EXAMPLE_TEXT, 256 + 100, special_tokens=[], method=method, trace=steps)
    assert merges == [step.pair for step in index_trace]
    assert [s.count for s in steps] == [step.count for step in index_trace]
    assert [s.affected_words for s in steps] == [len(step.rewritten) for step in index_trace]


def test_page04_worked_example_shows_the_index_and_a_stale_id(index_trace):
    """Merge 1 leaves id 2 (␣that) in the entry of (h, a); merge 2 visits it and skips it."""
    from bpe_ref.course.figures.inverted_index import worked_example_counts
    from bpe_ref.train.step04_inverted_index import merge_steps

    first, second = index_trace[0], index_trace[1]
    assert [b"".join(w) for w in first.words_before] == [b" cat", b" at", b" that", b" has"]
    assert first.pair == (b"a", b"t") and first.visited == [0, 1, 2] and first.stale == []
    assert second.index_before[(b"h", b"a")] == [2, 3] and second.exact_before[(b"h", b"a")] == [3]
    assert second.pair == (b"h", b"a") and second.visited == [2, 3] and second.stale == [2]
    assert second.tied == [(b"h", b"a"), (b"a", b"s"), (b" ", b"h")]
    assert sum(len(s.stale) for s in index_trace) == 1
    # V4's own loop reports the same rewritten words
    assert [s.affected_words for s in merge_steps(worked_example_counts())] == [len(s.rewritten) for s in index_trace]
    text = read(THEORY / "04-inverted-index.md")
    assert 'text = " cat" * 4 + " at" * 3 + " that" * 5 + " has" * 6' in text
    quoted = [b for b in python_blocks(text) if b.startswith("[(b")]
    assert len(quoted) == 1 and ast.literal_eval(quoted[0]) == [step.pair for step in index_trace]


def test_page04_prose_claims(v4_run):
    """The numbers page 04 states outside its snippets, checked against the run."""
    run = v4_run
    merges = run.merges
    first = merges[:1000]
    stale_share = [sum(m.stale for m in ms) / sum(m.visited for m in ms) for ms in (first, merges)]
    assert 0.25 <= stale_share[0] < stale_share[1] <= 0.35  # "about a quarter to a third"
    for ms in (first, merges):  # an exact index removes more ids than V4 skips stale ones
        assert sum(m.exact_removals for m in ms) > sum(m.stale for m in ms)
    # "about half of them never are": at the end of the run every word is one token, so every id
    # left in the index is stale and never visited; with the visited stale ids, they are the ids
    # an exact index removes
    never = run.initial_entries + sum(m.added for m in merges) - sum(m.visited for m in merges)
    went_stale = sum(m.exact_removals for m in merges)
    assert never == went_stale - sum(m.stale for m in merges) and 0.45 <= never / went_stale <= 0.55
    assert "about half of them\nnever are" in read(THEORY / "04-inverted-index.md")
    # the recap: "two to four times as many removals as V4 skips stale ids"
    ratios = [sum(m.exact_removals for m in ms) / sum(m.stale for m in ms) for ms in (first, merges)]
    assert 2 <= min(ratios) and max(ratios) <= 4
    assert "two to four times as many removals as V4 skips stale ids" in " ".join(read(THEORY / "04-inverted-index.md").split())
    # section 5's cost with the heap: the stale visits are not bounded by the affected words
    assert max(m.stale - m.rewritten for m in merges) > 400
    assert "plus $O(|w|)$ for each stale id it visits" in " ".join(read(THEORY / "04-inverted-index.md").split())
    assert sum(m.rewritten for m in merges[:100]) / 100 / run.distinct_words < 0.025  # "about 2% of W"
    assert max(m.rewritten for m in merges) < 0.5 * run.distinct_words
    # the bounds of section 3
    assert sum(m.rewritten for m in merges) <= run.total_windows
    assert sum(m.visited for m in merges) <= run.initial_entries + sum(m.added for m in merges) <= 3 * run.total_windows
    # section 4: (n, g) is merged about a thousand merges after (i, n); its stale ids are words with "ing"
    rank = {m.pair: m.rank for m in merges}
    assert rank[(b"i", b"n")] < 20 and 900 <= rank[(b"n", b"g")] - rank[(b"i", b"n")] <= 1100
    assert max(merges, key=lambda m: m.stale).pair == (b"n", b"g")
    text = read(THEORY / "04-inverted-index.md")
    assert "7,782 merges" in text and f"{len(merges):,}" == "7,782"
    # V4 against V2 in the training benchmark: test_train_benchmark_numbers_are_a_current_snippet_beside_their_claim


def test_drill_answers_page04(v4_run):
    from bpe_ref.course.figures.inverted_index import index_trace, worked_example_trace
    from bpe_ref.train.step01_naive import count_pairs, split_into_bytes
    from bpe_ref.train.step04_inverted_index import index_words, merge_steps

    # 1: the index and counts of three words; merge 1 is (o, a) by the tie-break
    words = [split_into_bytes(w) for w in (b" cocoa", b" goal", b" cot")]
    assert {p: ids for p, ids in index_words(words).items() if len(ids) > 1} == {
        (b"c", b"o"): {0, 2}, (b"o", b"a"): {0, 1}, (b" ", b"c"): {0, 2}
    }
    counts = count_pairs(dict(zip(words, [1, 3, 2])))
    assert counts[(b"c", b"o")] == counts[(b"o", b"a")] == 4
    steps = index_trace({b" cocoa": 1, b" goal": 3, b" cot": 2})
    assert steps[0].pair == (b"o", b"a") and (b"c", b"o") in set(zip(steps[0].words_after[0], steps[0].words_after[0][1:]))
    assert [s.pair for s in steps] == [
        (b"o", b"a"), (b"oa", b"l"), (b"g", b"oal"), (b"c", b"o"), (b" ", b"goal"), (b" ", b"co"), (b" co", b"t"),
        (b"c", b"oa"), (b" co", b"coa"),
    ]
    # 2: four stale ids after merge 2, all in entries of pairs with count 0
    before_3 = worked_example_trace()[2]
    stale = {p: [i for i in ids if i not in before_3.exact_before.get(p, [])] for p, ids in before_3.index_before.items()}
    assert {p: ids for p, ids in stale.items() if ids} == {
        (b"c", b"a"): [0], (b" ", b"a"): [1], (b"a", b"s"): [3], (b" ", b"h"): [3]
    }
    assert all(p not in before_3.pair_counts for p, ids in stale.items() if ids)
    # 4: aaaa is rewritten twice, below its bound of 3
    assert [s.affected_words for s in merge_steps({b"aaaa": 1})] == [1, 1]
    # 6: pair counts compared per id visited
    run = v4_run
    per_visit = [sum(m.distinct_pairs for m in ms) / sum(m.visited for m in ms) for ms in (run.merges[:1000], run.merges)]
    assert [round(r) for r in per_visit] == [159, 565]
    # 7: "an exact index removes 2 to 4 times as many ids as V4 skips"
    ratios = [sum(m.exact_removals for m in ms) / sum(m.stale for m in ms) for ms in (run.merges[:1000], run.merges)]
    assert 2 <= min(ratios) and max(ratios) <= 4


def test_page04_exact_index_gives_the_same_merges():
    from bpe_ref.course.figures.inverted_index import merge_steps_exact, worked_example_counts
    from bpe_ref.train.step04_inverted_index import merge_steps

    for counts in (worked_example_counts(), {b" cocoa": 1, b" cot": 2}, {b"aaaa": 3, b"abab": 2, b"ba": 1}):
        assert [s.pair for s in merge_steps_exact(counts)] == [s.pair for s in merge_steps(counts)]


def test_drill_answers_page05():
    from bpe_ref.course.figures.heaps import heap_merges, lazy_heap_run, less_than_only_key, trace_list_merge
    from bpe_ref.course.figures.incremental_updates import net_change
    from bpe_ref.course.figures.naive_bpe import worked_example_counts, worked_example_trace
    from bpe_ref.pretokenize import count_pretokens
    from bpe_ref.tiebreak import SortKeys

    keys = SortKeys()
    entries = {(b"a", b"b"): 3, (b"ab", b"c"): 3, (b"a", b"bc"): 3, (b"z", b"z"): 2, (b" ", b"z"): 4}
    assert sorted(entries, key=lambda p: keys.rank_key(entries[p], p)) == [
        (b" ", b"z"), (b"ab", b"c"), (b"a", b"bc"), (b"a", b"b"), (b"z", b"z")]
    step = lazy_heap_run(worked_example_counts(), 5, record=True)[4]
    assert step.pair == worked_example_trace()[4].chosen == (b" t", b"est") and step.count == 5
    assert step.stale == [(5, (b"t", b"est"), 0)] and len(step.heap_before) == 10
    assert {p for c, p in step.heap_before if step.live_before.get(p, 0) != c} == {
        (b"t", b"est"), (b"n", b"est"), (b"n", b"e"), (b"t", b"e")}
    cat_car, car_cat = (count_pretokens(t, special_tokens=()) for t in (" cat" * 3 + " car" * 3, " car" * 3 + " cat" * 3))
    assert heap_merges(cat_car, less_than_only_key)[2] == (b" ca", b"r") != heap_merges(cat_car)[2] == (b" ca", b"t")
    assert heap_merges(car_cat, less_than_only_key) == heap_merges(car_cat)
    word, pair = (b"a", b"b", b"a", b"b", b"a"), (b"a", b"b")
    states, changes = trace_list_merge([word], pair)
    assert [s.token for s in states][-1] == (b"ab", b"", b"ab", b"", b"a")
    assert states[-1].prev == (-1, 0, 0, 2, 2) and states[-1].next_ == (2, 2, 4, 4, -1)
    assert {p: 2 * c for p, c in changes.items()} == {(b"b", b"a"): -4, (b"ab", b"a"): 2, (b"ab", b"ab"): 2}
    assert {p: c for p, c in net_change(word, pair).items() if p != pair} == changes


def test_page06_prose_claims(snippets):  # snippets: in their process, GPT-2 and the layout sizes are loaded
    """Section 5's object sizes, section 3's ids, and the pitfall of a negative id in an arena."""
    import sys

    from bpe_ref import Tokenizer
    from bpe_ref.decode import build_arena
    from bpe_ref.encode.step06_naive import encode_pretoken, encode_text, merge_ranks

    text = read(THEORY / "06-encode-decode.md")
    assert sys.getsizeof(b"") == 33 and sys.getsizeof(1000) == 28 and sys.getsizeof((1000, 1001)) == 56
    entry = sys.getsizeof({i: b"" for i in range(50257)}) / 50257
    assert "about 52 bytes per entry" in text and round(entry) == 52
    assert "cost 36 bytes each" in text and sys.getsizeof(1000) + 8 == 36
    # the merge parts: 112 bytes a token with a fresh int per part (the table), 73 with shared ints
    from bpe_ref.course.figures.encode_decode import shared_parts_size

    assert "112 (73 with\nthe ints shared)" in text and round(shared_parts_size() / 50257) == 73
    # the 73: what looking merges.txt up in vocab.json's dict gives (one int object per token number)
    import json

    from bpe_ref.course.figures.encode_decode import deep_size
    from bpe_ref.data_files import GPT2_MERGES, GPT2_VOCAB

    vocab_json = json.loads(GPT2_VOCAB.read_text(encoding="utf-8"))
    lines = [line.split(" ") for line in GPT2_MERGES.read_text(encoding="utf-8").splitlines()
             if line and not line.startswith("#version")]
    assert deep_size([(vocab_json[left], vocab_json[right]) for left, right in lines]) == shared_parts_size()
    assert "as looking the two strings of each line of `merges.txt` up in the dict loaded from `vocab.json` gives" in text
    from bpe_ref.course.figures.encode_decode import layout_sizes

    sizes = dict(layout_sizes())
    ratio = sizes["table, dict {id: bytes}"] / sizes["arena, bytes + array('I') offsets"]
    assert 11 < ratio < 12 and "**more than eleven times less** than the dict" in text
    # section 5's decoding run: its counts, and the command that repeats it
    from bpe_ref.course.figures import encode_decode

    assert "(5,342 of the 50,257 in those 351,048 ids)" in " ".join(text.split())
    assert "`python -m bpe_ref.course.figures.encode_decode` repeats these four measurements" in " ".join(text.split())
    times = encode_decode.decode_times(repeats=1)
    assert (times["ids"], times["distinct ids"]) == (351_048, 5_342) and callable(encode_decode.main)
    assert "a 2-tuple and its pointer, 64 bytes" in text and sys.getsizeof((1000, 1001)) + 8 == 64
    tok = Tokenizer.gpt2()
    assert tok._tables.token_ids[ord("!")] == 0 and "gives `0x21` (`!`) the id 33 instead of 0" in text
    assert all(tok._tables.token_ids[byte] != byte for byte in range(256))
    assert "none of GPT-2's 256 byte tokens has its byte's value as id" in " ".join(text.split())
    assert all(tok.vocab[256 + rank] == left + right for rank, (left, right) in enumerate(tok.merges))  # 256 + rank
    ranks = merge_ranks(tok.merges)
    assert encode_text("Hello world", ranks, []) == [b"Hello", b" world"]
    buffer, offsets = build_arena({0: b"a", 1: b"ab"})
    assert buffer[offsets[-2] : offsets[-1]] == b"ab" and buffer[offsets[-1] : offsets[0]] == b""
    assert "the id `-2` decodes to the last token, silently (and `-1` to nothing)" in text
    assert encode_pretoken(b"abc", {(b"a", b"b"): 1, (b"b", b"c"): 0}) == [b"a", b"bc"]
    assert "gives\n  `[ab, c]` for `abc` when `(b, c)` was learned before `(a, b)`; BPE gives `[a, bc]`" in text
    # section 6: the average pretoken of running English text, per occurrence (the encoder's work)
    from bpe_ref.corpus import read_corpus
    from bpe_ref.data_files import CORPUS_EN, TINYSTORIES_SAMPLE, data_file
    from bpe_ref.pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens

    averages = []
    for corpus in (TINYSTORIES_SAMPLE, CORPUS_EN):
        counts = count_pretokens(read_corpus(data_file(corpus)), DEFAULT_SPECIAL_TOKENS)
        averages.append(round(sum(len(p) * n for p, n in counts.items()) / sum(counts.values()), 1))
    assert averages == [4.1, 4.8]
    assert "holds 4 to 5 bytes on average: 4.1 on the TinyStories sample, 4.8 on `corpus.en`" in " ".join(text.split())
def test_page07_prose_claims():
    """Section 4's reading of the long-piece measurement, and section 1's table."""
    from bpe_ref.course.figures.heap_encoding import equivalence_rows, long_pieces_data, speed_factors

    def paired_at(rows: dict, slower: str, faster: str, length: int) -> float:
        return rows[slower]["seconds"][rows[slower]["lengths"].index(length)] / rows[faster]["seconds"][
            rows[faster]["lengths"].index(length)]

    assert all(rounds == heap for _, _, rounds, heap in equivalence_rows())
    results = long_pieces_data()["results"]
    naive, heap, tiktoken = "naive (step 06)", "heap (step 07)", "tiktoken"
    for kind in ("random digits", "random letters"):
        rows = results[kind]
        assert rows[naive]["exponent"] > rows[heap]["exponent"], kind  # the largest exponent of the three
        assert 1 < rows[naive]["exponent"] < 2, kind
        assert rows[naive]["exponent"] > rows[tiktoken]["exponent"], kind
        at = rows[naive]["lengths"].index(16000)
        assert rows[naive]["seconds"][at] >= 1.0
        assert paired_at(rows, naive, heap, 16000) >= 40, kind  # "seconds, 40 times the heap's time or more"
    one = results["one letter (a)"]
    assert all(n < h for n, h in zip(one[naive]["seconds"], one[heap]["seconds"]))  # rounds win at every length
    text = " ".join(read(THEORY / "07-heap-encoding.md").split())
    heap_k = sorted(rows[heap]["exponent"] for rows in results.values())
    tiktoken_k = sorted(rows[tiktoken]["exponent"] for rows in results.values())
    assert f"a little above 1 on all three, {heap_k[0]:.2f} to {heap_k[-1]:.2f}" in text and heap_k[0] > 1
    assert f"grows about as the heap does ({tiktoken_k[0]:.2f} to {tiktoken_k[-1]:.2f} here)" in text
    assert all(abs(rows[tiktoken]["exponent"] - rows[heap]["exponent"]) < 0.15 for rows in results.values())
    from bpe_ref.course.figures.linear_encoding import growth_data, growth_rows

    page08_heap = growth_rows(growth_data())[heap]["exponent"]  # the same harness, the same piece, another run
    assert f"measured {page08_heap:.2f}, and on the shared course machine exponents move by that much" in text
    assert abs(page08_heap - results["random letters"][heap]["exponent"]) >= 0.2
    for kind, rows in results.items():
        assert 0.8 <= rows[heap]["exponent"] <= 1.4, kind  # near 1
        factors = dict(speed_factors(rows, heap))  # "a few times at 250 bytes, 10 times or more from 2,000 bytes on"
        assert 2 < factors[250] < 10 and all(f >= 10 for n, f in factors.items() if n >= 2000), kind
    assert 20 < max(dict(speed_factors(results["one letter (a)"], heap)).values()) < 30  # "up to about 25 times"


@functools.cache
def gpt2_ranks() -> dict:
    """GPT-2's merge ranks, loaded once (loading the tokenizer takes about a second)."""
    from bpe_ref import Tokenizer
    from bpe_ref.encode.step06_naive import merge_ranks

    return merge_ranks(Tokenizer.gpt2().merges)


def gpt2_rounds(piece: bytes) -> list:
    """The merges step 06's rounds apply to ``piece`` with GPT-2's ranks, one per round."""
    from bpe_ref.encode.common import NOT_A_MERGE
    from bpe_ref.train.step01_naive import merge_word, split_into_bytes

    ranks = gpt2_ranks()
    word, applied = split_into_bytes(piece), []
    while len(word) > 1:
        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, NOT_A_MERGE))
        if best not in ranks:
            break
        applied.append(best)
        word = merge_word(word, best)
    return applied


def test_page07_a_run_of_one_letter_takes_two_or_three_rounds_with_gpt2():
    """Sections 4 and the recap: GPT-2's merges take a run of a through (a, a), (aa, aa) and, for some odd
    lengths, (aa, a), whatever the length (not log2 L rounds: that is section 3's doubling merges)."""
    from bpe_ref.course.figures.heap_encoding import long_pieces_data
    from bpe_ref.course.figures.long_pieces import long_piece

    lengths = long_pieces_data()["results"]["one letter (a)"]["naive (step 06)"]["lengths"]
    seen = set()
    for length in [*lengths, 251, 1003, 7]:
        applied = gpt2_rounds(long_piece("one letter (a)", length).encode())
        assert applied[:2] == [(b"a", b"a"), (b"aa", b"aa")] and applied[2:] in ([], [(b"aa", b"a")]), length
        seen.add(len(applied))
    assert seen == {2, 3}
    text = " ".join(read(THEORY / "07-heap-encoding.md").split())
    assert "GPT-2's merges take a run of `a` through two rounds, `(a, a)` then `(aa, aa)`, and a third, `(aa, a)`" in text
    assert "\\log_2 L$): there they beat the heap" not in text and "near $O(L \\log L)$ on a run" not in text


def test_page07_rounds_on_random_pieces_grow_more_slowly_than_the_length():
    """Section 3 and the recap: on random digits and letters r grows with L, more slowly than L (so the
    rounds are between linear and quadratic), and section 4's fitted exponents lie between 1 and 2."""
    from bpe_ref.course.figures.heap_encoding import long_pieces_data
    from bpe_ref.course.figures.long_pieces import long_piece

    for kind in ("random digits", "random letters"):
        lengths = (250, 1000, 4000)
        applied = [gpt2_rounds(long_piece(kind, n).encode()) for n in lengths]
        assert all(len(set(merges)) == len(merges) for merges in applied)  # one distinct merge per round
        rounds = [len(merges) for merges in applied]
        assert rounds[0] < rounds[1] < rounds[2], (kind, rounds)
        assert rounds[0] / lengths[0] > rounds[1] / lengths[1] > rounds[2] / lengths[2], (kind, rounds)
        assert 1 < long_pieces_data()["results"][kind]["naive (step 06)"]["exponent"] < 2
    text = " ".join(read(THEORY / "07-heap-encoding.md").split())
    assert "the rounds approach $O(L^2)$" not in text and "near $O(L^2)$ on long random pieces" not in text


def test_page07_a_merge_is_a_table_lookup_on_numbered_tokens_and_a_copy_on_bytes():
    """Section 3: the merge is O(1) on tokens numbered by rank (HeapEncoder joins by a table lookup) and
    O(K) on bytes (merge_all joins with +, a new bytes object of the merged token's length)."""
    import operator

    from bpe_ref.encode import step07_heap
    from bpe_ref.encode.common import MergeTables

    calls = []
    real_pop_loop = step07_heap.pop_loop
    try:
        step07_heap.pop_loop = lambda *args, **kwargs: calls.append(args[3]) or real_pop_loop(*args, **kwargs)
        step07_heap.heap_encode(b"aaaa", {(b"a", b"a"): 0, (b"aa", b"aa"): 1})
        vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa", 257: b"aaaa"}
        encoder = step07_heap.HeapEncoder(MergeTables(vocab, [(b"a", b"a"), (b"aa", b"aa")]))
        assert encoder.encode(b"aaaa") == [257]
    finally:
        step07_heap.pop_loop = real_pop_loop
    assert calls[0] is operator.add  # bytes: left + right copies both tokens' bytes
    assert len(calls) == 2 and calls[1](97, 97) == encoder.pair_to_token[(97, 97)] == 256  # numbered: a lookup
    text = " ".join(read(THEORY / "07-heap-encoding.md").split())
    assert "relinking costs $O(1)$, and so do the stale check and the merge on tokens numbered by rank" in text
    assert "($O(L (\\log L + K))$ on `bytes` tokens)" in text


def test_page07_traces_and_drill_facts():
    from bpe_ref.course.figures.heap_encoding import AAA_MERGES, WORK_MERGES, trace

    _, steps = trace(b"aaaaa", AAA_MERGES)
    assert [s.merged for s in steps] == [True, False, True, False, False, True]
    assert steps[4].entry == (1, 0) and dict(steps[4].parts)[0] == b"aa"  # exists, but starts (aa, aa)
    _, steps = trace(b" worked", WORK_MERGES)
    assert steps[4].entry == (5, 5) and steps[4].heap == ((6, 0),)  # the new pair starts at the left neighbour



def test_page08_growth_prose_claims():
    """Section 5's reading of the committed growth measurement."""
    from bpe_ref.course.figures.heap_encoding import speed_factors
    from bpe_ref.course.figures.linear_encoding import growth_data, growth_rows

    text = " ".join(read(THEORY / "08-linear-encoding.md").split())
    rows = growth_rows(growth_data())
    others = {label: row["exponent"] for label, row in rows.items() if not label.startswith("naive")}
    assert max(others.values()) < rows["naive (step 06)"]["exponent"]  # "the largest, well above 1"
    assert ("the heap, backtracking and table encoders and tiktoken fitted a little below 1, "
            f"from {min(others.values()):.2f} to {max(others.values()):.2f}") in text
    assert 0.7 < min(others.values()) and max(others.values()) < 1
    from bpe_ref.course.figures.heap_encoding import long_pieces_data

    page07_heap = long_pieces_data()["results"]["random letters"]["heap (step 07)"]["exponent"]
    assert f"fitted the heap at {page07_heap:.2f}" in text and abs(page07_heap - others["heap (step 07)"]) >= 0.2
    backtrack, table = rows["backtrack (step 08)"]["seconds"], rows["table (step 08)"]["seconds"]
    assert all(b < t for b, t in zip(backtrack, table))  # "faster than the table at every length"
    assert "about 5 to 7 times at 250 bytes, about 10 to 15 times from 2,000 bytes on" in text
    for label in ("backtrack (step 08)", "table (step 08)"):
        factors = dict(speed_factors(rows, label))
        assert 4.5 <= factors[250] <= 7 and all(9.5 <= f <= 16 for n, f in factors.items() if n >= 2000), label

def test_page08_section3_teaches_the_table_with_a_trace_and_leaves_the_loop_to_the_lab():
    """Section 3 states the invariant and traces it (generated), with no pseudocode of lab 08's task 3,
    and its prose reads the trace right."""
    from bpe_ref.course.figures.linear_encoding import TRACE_MERGES, TRACE_TEXT, table_rows
    from bpe_ref.encode.step06_naive import encode_pretoken, merge_ranks
    from bpe_ref.encode.step08_table import last_tokens

    body = section(read(THEORY / "08-linear-encoding.md"), "## 3. The table of last tokens")
    assert "```" not in body, "section 3 shows no code: the loop is lab 08's task 3"
    assert "**The invariant.**" in body and "after the lab, compare with [`bpe_ref/encode/step08_table.py`]" in body
    assert "<!-- snippet: figures/08-table-trace.md -->" in body
    ranks = merge_ranks(TRACE_MERGES)
    assert (TRACE_TEXT, TRACE_MERGES) == (b"aaaaa", [(b"a", b"a"), (b"aa", b"a")])
    rows = table_rows(TRACE_TEXT, ranks, trace=True)
    assert [row[2].count(": no") for row in rows] == [0, 0, 0, 1, 0]  # "a trace where it is not" (end 4 only)
    assert encode_pretoken(b"aaaa", ranks) == [b"aa", b"aa"]  # "BPE makes [aa, aa] of aaaa"
    last = last_tokens(TRACE_TEXT, ranks)
    assert last[1:] == [b"a", b"aa", b"aaa", b"aa", b"aaa"]
    # "no longer prefix's encoding holds that token": the token aaa spanning bytes 0 to 3
    for end in (4, 5):
        tokens = encode_pretoken(TRACE_TEXT[:end], ranks)
        assert tokens[0] != b"aaa"


# --- pages 06 to 10: a Spanish summary, then the idea in five minutes, run and checked ---------

IDEA_PAGES = ["06-encode-decode.md", "07-heap-encoding.md", "08-linear-encoding.md", "09-benchmarks.md",
              "10-beyond-one-machine.md"]
IDEA_HEADING = "## The idea in five minutes"


def run_idea(page: str) -> tuple[dict, str, str, list[str]]:
    """The namespace, the code and the printed output of a page's five-minute snippet, and the text
    blocks the page shows under it."""
    body = section(read(THEORY / page), IDEA_HEADING)
    blocks = python_blocks(body)
    assert len(blocks) == 1, f"{page}: the idea in five minutes is one Python block"
    namespace: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(blocks[0], f"{page} (the idea in five minutes)", "exec"), namespace)  # noqa: S102
    return namespace, blocks[0], printed.getvalue(), re.findall(r"^```text\n(.*?)^```", body, re.DOTALL | re.MULTILINE)


@pytest.mark.parametrize("page", IDEA_PAGES)
def test_a_spanish_summary_then_the_idea_in_five_minutes_then_the_rigour(page):
    text = read(THEORY / page)
    summary, idea = (text.index(f"\n{heading}\n") for heading in ("## Resumen", IDEA_HEADING))
    first = text.index("\n## 1. ")
    assert summary < idea < first, f"{page}: '## Resumen', then '{IDEA_HEADING}', then section 1"
    resumen = " ".join(section(text, "## Resumen").split())
    sentences = re.findall(r"[^.!?]+[.!?](?=\s|$)", resumen)
    assert 5 <= len(sentences) <= 10, f"{page}: the summary has {len(sentences)} sentences"
    _, code, printed, shown = run_idea(page)
    assert len(code.rstrip("\n").splitlines()) <= 30, f"{page}: the idea takes {len(code.splitlines())} lines"
    assert shown and printed == shown[0], f"{page}: the trace under the snippet is not what it prints:\n{printed}"


def small_corpora(seed: int, count: int, alphabet: str = "abc"):
    """``count`` (words, merges) pairs: merges the naive trainer learns from a few random words."""
    import random

    from bpe_ref.train.step01_naive import train

    rng = random.Random(seed)
    for _ in range(count):
        words = {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))): rng.randint(1, 5) for _ in range(5)}
        merges = train({word.encode(): n for word, n in words.items()}, rng.randint(0, 10))
        yield sorted(words), [(left.decode(), right.decode()) for left, right in merges]


def reference_encoding(word: str, merges: list[tuple[str, str]]) -> list[str]:
    from bpe_ref.encode.step06_naive import encode_pretoken, merge_ranks

    ranks = merge_ranks([(left.encode(), right.encode()) for left, right in merges])
    return [token.decode() for token in encode_pretoken(word.encode(), ranks)]


def test_the_ideas_of_pages_06_07_and_08_encode_as_bpe_ref_does():
    encode_06 = run_idea("06-encode-decode.md")[0]["encode_word"]
    encode_07 = run_idea("07-heap-encoding.md")[0]["encode_one_merge_at_a_time"]
    page08 = run_idea("08-linear-encoding.md")[0]
    with contextlib.redirect_stdout(io.StringIO()):
        for words, merges in small_corpora(seed=6, count=40):
            for word in [*words, "".join(words)[:7]]:
                expected = reference_encoding(word, merges)
                assert encode_06(word, merges) == expected == encode_07(word, merges), (word, merges)
                assert page08["bpe"](word, merges) == expected and page08["local_splits"](word, merges) == [expected]


def test_one_training_run_never_learns_two_merges_with_the_same_bytes():
    """Pages 06, 07 and 08: two merges that make the same bytes come from edited merge lists only."""
    for _, merges in small_corpora(seed=7, count=300, alphabet="ab"):
        results = [left + right for left, right in merges]
        assert len(set(results)) == len(results), merges


def test_the_idea_of_page_09_flips_in_blocks_and_not_in_rounds():
    namespace = run_idea("09-benchmarks.md")[0]
    truth = namespace["cost"]["A"] / namespace["cost"]["B"]
    assert namespace["in_blocks"] < 1 < truth  # blocks say B is the slower one
    assert sorted(namespace["per_round"])[len(namespace["per_round"]) // 2] == truth


def test_the_idea_of_page_10_is_exact_at_special_tokens_only():
    import random

    namespace = run_idea("10-beyond-one-machine.md")[0]
    count, count_in_pieces, eot = namespace["count"], namespace["count_in_pieces"], namespace["EOT"]
    rng = random.Random(10)
    for _ in range(50):
        docs = [" ".join(rng.choice(["the", "cat", "sat", "a", "hat"]) for _ in range(rng.randint(0, 6)))
                for _ in range(rng.randint(1, 5))]
        text = eot.join(docs)
        at_tokens = [m.start() for m in re.finditer(re.escape(eot), text)]
        assert count_in_pieces(text, sorted(rng.sample(at_tokens, rng.randint(0, len(at_tokens))))) == count(text)
    text = namespace["text"]
    assert count_in_pieces(text, namespace["by_size"]) != count(text)


def test_page09_prose_claims():
    """Page 09's sentences about its measurements, checked on the committed files they describe (a new
    measurement that breaks one means the prose must change with it)."""
    from bpe_ref.course.figures.benchmarks import (
        HF_ONE_THREAD, SEED_TABLES, growth_series, measured, seed_exponents, seed_rows,
    )
    from bpe_ref.course.figures.heaps import crossover_data
    from bpe_ref.measure import crossover, fit_exponent, median, paired_ratio

    text = read(THEORY / "09-benchmarks.md")
    ladder = {run["vocab_size"]: run["seconds"] for run in measured("ladder")["runs"]}
    speedups = []
    for times in ladder.values():
        # "Each rung is faster than the one before it, except V3 [...] equal within the noise"
        assert paired_ratio(times, "naive", "incremental") > 2 and paired_ratio(times, "incremental", "inverted_index") > 1
        assert paired_ratio(times, "inverted_index", "heap") > 1
        assert 0.5 < paired_ratio(times, "incremental", "parallel (2 workers)") < 2
        # "the linked list, is the fastest at every size"; faster than HF on one thread (section 8)
        assert min(times, key=lambda label: median(times[label])) == "linked_list"
        assert paired_ratio(times, "heap", HF_ONE_THREAD) < 1 and paired_ratio(times, "linked_list", HF_ONE_THREAD) < 1
        speedups.append(paired_ratio(times, "naive", "heap"))
    assert speedups == sorted(speedups)  # "V5's advantage [...] grows with the vocabulary"
    assert paired_ratio(ladder[5000], "naive", "linked_list") > 100  # "times differ a hundredfold"
    assert "differ a hundredfold" in text
    # "its V1 spends many times longer per merge than the course's"
    seed_v1 = SEED_TABLES[1][1000][0] / 743
    assert seed_v1 / (median(ladder[1000]["naive"]) / 743) > 5 and len(seed_rows(measured("ladder"))) == 5
    # growth: V4 grows with the vocabulary, V5 hardly; everything grows more slowly than the corpus
    vocabs, by_vocab, sizes, by_size, words = growth_series(measured("growth"))
    assert fit_exponent(vocabs, by_vocab["inverted_index"]) > 0.6 > fit_exponent(vocabs, by_vocab["heap"])
    assert all(fit_exponent(sizes, seconds) < 1 for seconds in by_size.values()) and fit_exponent(sizes, words) < 0.6
    corpus_k = {label: fit_exponent(sizes, seconds) for label, seconds in by_size.items()}
    assert min(corpus_k, key=corpus_k.get) == "inverted_index"  # "lowest for V4"
    pairs = [run["shape"]["P"] for run in measured("growth")["by_size"]]
    assert fit_exponent(sizes, pairs) < fit_exponent(sizes, words)  # P "hardly grows", W grows more
    seed = seed_exponents()
    assert seed["V4 vs vocabulary"] > 0.5 > seed["V5 vs vocabulary"] and seed["P vs corpus"] < seed["W vs corpus"] < 0.6
    # "V5 is ahead [...] at every vocabulary and corpus size of the growth measurement"
    assert crossover(vocabs, by_vocab["inverted_index"], by_vocab["heap"]) is None
    assert crossover(sizes, by_size["inverted_index"], by_size["heap"]) is None
    assert all(by_vocab["heap"][i] < by_vocab["inverted_index"][i] for i in range(len(vocabs)))
    for corpus in crossover_data()["corpora"]:  # "V5 is ahead within the first ten merges"
        v4, v5 = corpus["seconds"].values()
        found = crossover(corpus["merges"], v4, v5)
        assert found is None or found <= 10
    assert "(4.7 s and 4.9 s at 21 MB)" in text and SEED_TABLES[21][1000][3:] == (4.7, 4.9)
    # noise: interleaved, the ratio's spread is below each trainer's (not by much); in blocks, above both,
    # and the blocks' seconds spread less than the interleaved ones; the two ratios the prose quotes
    from bpe_ref.course.figures.benchmarks import noise_comparison, noise_spreads

    noise = measured("noise")
    spreads = noise_spreads(noise)
    heap, linked, ratio = spreads["interleaved"]
    assert ratio < min(heap, linked) and min(heap, linked) - ratio < 0.1  # "though not by much"
    heap_b, linked_b, ratio_b = spreads["blocks"]
    assert ratio_b > max(heap_b, linked_b) and max(heap_b, linked_b) < min(heap, linked)
    assert noise_comparison(noise) in text and "is below both" in noise_comparison(noise)
    assert "is above both" in noise_comparison(noise)
    ratios = {mode: paired_ratio(noise[mode]["seconds"], "heap", "linked_list") for mode in ("interleaved", "blocks")}
    assert f"({ratios['blocks']:.3f} here against {ratios['interleaved']:.3f}\ninterleaved)" in text
    # clocks: a sleep costs no CPU; counting in workers hides their CPU from process_time
    clocks = measured("clocks")
    cpu_share = {label: median(clocks["process"][label]) / median(clocks["wall"][label]) for label in clocks["wall"]}
    assert cpu_share["time.sleep(0.2)"] < 0.05
    assert cpu_share["heap, counting in 2 worker processes"] < cpu_share["heap (1 process)"]
    # memory: RSS above tracemalloc; HF's gap the largest; tracemalloc slows Python, not Rust
    rows = measured("memory")["rows"]
    gaps = {label: row["rss_peak_mib"] - row["rss_before_mib"] - row["peak_mib"] for label, row in rows.items()}
    assert all(gap > 0 for gap in gaps.values()) and max(gaps, key=gaps.get) == HF_ONE_THREAD
    assert all(1.5 < rows[label]["slowdown"] < 5 for label in ("inverted_index", "heap", "linked_list"))  # "two to four"
    assert rows[HF_ONE_THREAD]["slowdown"] < 1.3
    # encoding: warm is faster than cold
    encoding = measured("encoding")["seconds"]
    assert paired_ratio(encoding, "bpe_ref encode (cold cache)", "bpe_ref encode (warm cache)") > 1
    # the seed's HF claims: "on Chinese [...] the course's training benchmark finds the heap trainer
    # several times slower than HF and the linked list much closer to it" (theory/benchmarks/train)
    from bpe_ref.course.figures.common import benchmark_seconds

    chinese = next(times for run, times in benchmark_seconds().items() if run.startswith("Chinese"))
    heap, linked = (chinese[label] / chinese["HF tokenizers, 1 thread"] for label in ("heap", "linked_list"))
    assert heap > 2 and linked < heap / 2
    assert "finds the heap trainer several times slower than HF and the linked list much closer to it" in " ".join(text.split())


def test_page09_an_exponent_from_four_points_moved_by_more_than_a_tenth():
    """Section 5 and the pitfalls: page 07's and page 08's runs of one harness on one piece (random letters)
    fitted the heap over the same four lengths at two exponents more than a tenth apart."""
    from bpe_ref.course.figures.heap_encoding import long_pieces_data
    from bpe_ref.course.figures.linear_encoding import growth_data

    page07 = long_pieces_data()["results"]["random letters"]["heap (step 07)"]
    page08 = growth_data()["results"]["random letters"]["heap (step 07)"]
    assert page07["fitted_over"] == page08["fitted_over"] and page07["lengths"] == page08["lengths"]
    assert len([n for n in page07["lengths"] if page07["fitted_over"][0] <= n]) == 4
    assert abs(page07["exponent"] - page08["exponent"]) > 0.1
    text = " ".join(read(THEORY / "09-benchmarks.md").split())
    assert (f"fitted the heap encoder at {page07['exponent']:.2f} and {page08['exponent']:.2f} over the same four "
            "lengths") in text
    assert "good to about a tenth" not in text and "read $k$ to about a tenth" not in text


def test_page09_v5s_exponent_against_the_vocabulary_is_small_not_zero():
    from bpe_ref.course.figures.benchmarks import growth_series, measured
    from bpe_ref.measure import fit_exponent

    vocabs, by_vocab, *_ = growth_series(measured("growth"))
    k = {label: fit_exponent(vocabs, seconds) for label, seconds in by_vocab.items()}
    assert all(0.05 < k[label] < 0.25 for label in ("heap", "linked_list")) and k["inverted_index"] > 1, k
    text = " ".join(read(THEORY / "09-benchmarks.md").split())
    assert ("its $k$ stays small, not 0 (the table below: under a quarter for the heap and the linked list, against "
            "V4's above 1)") in text


def test_page09_worked_example_is_what_the_harness_computes():
    from bpe_ref.course.figures.benchmarks import (
        WORKED_CURVES, WORKED_ROUNDS, WORKED_SECONDS, WORKED_SIZES, WORKED_VOCABS,
    )
    from bpe_ref.measure import crossover, fit_exponent, median, paired_ratio, spread

    text = read(THEORY / "09-benchmarks.md")
    assert (median(WORKED_ROUNDS["V4"]), median(WORKED_ROUNDS["V5"]), paired_ratio(WORKED_ROUNDS, "V4", "V5")) == (0.53, 0.27, 2.0)
    assert round(spread(WORKED_ROUNDS["V4"]), 2) == 0.49 and "$(0.78 - 0.52) / 0.53 = 0.49$" in text
    assert round(fit_exponent(WORKED_SIZES, WORKED_SECONDS), 3) == 0.911 and "= 0.911 .$$" in text
    ys = [math.log2(t) for t in WORKED_SECONDS]
    assert round(sum((x - 2) * y for x, y in zip(range(5), ys)), 3) == 9.111 and "{9.111}{10}" in text
    assert round(crossover(WORKED_VOCABS, WORKED_CURVES["V4"], WORKED_CURVES["V5"]), 6) == 1125.0 and "= 1125$" in text


def test_drill_answers_page09():
    from bpe_ref.measure import crossover, fit_exponent, median, paired_ratio, spread

    runs = [0.30, 0.31, 0.29, 0.62, 0.30]
    assert (median(runs), round(spread(runs), 3), round(spread(runs + [0.60]), 2)) == (0.30, 0.033, 0.75)
    assert paired_ratio({"A": [1.0, 2.0, 1.1], "B": [0.5, 1.0, 0.5]}, "A", "B") == 2.0
    assert round(fit_exponent([1, 2, 4, 8], [1, 3, 9, 27]), 3) == 1.585
    assert round(crossover([1000, 2000, 3000], [2.0, 3.0, 4.0], [2.5, 2.9, 3.2]), 1) == 1833.3


def test_page10_worked_example_prose():
    """The hand trace of page 10: sizes, guesses and cuts of the two example files."""
    import tempfile

    from bpe_ref.course.figures.beyond_one_machine import EXAMPLE_FILES, example_run
    from bpe_ref.train.step03_parallel import find_chunk_boundaries

    text = read(THEORY / "10-beyond-one-machine.md")
    section_text = section(text, "## Worked example")
    with tempfile.TemporaryDirectory() as tmp:
        run = example_run(Path(tmp))
        for (name, body), path in zip(EXAMPLE_FILES.items(), run["paths"]):
            size = len(body.encode("utf-8"))
            token_at = body.index("<|endoftext|>")
            assert f"`{name}` is {size} bytes" in section_text or f"`{name}` ({size} bytes)" in section_text
            assert f"guesses `{size} // 2 = {size // 2}`" in section_text or f"guess {size // 2}, token at {token_at}" in section_text
            assert find_chunk_boundaries(path, 2, [b"<|endoftext|>"]) == [0, token_at, size]
    assert run["total"][b" cat"] == 2 and sum(run["total"].values()) == 15
    assert "` hatthe`" in section_text and b" hatthe" in run["joined"]


def test_page10_prose_claims():
    """What page 10's prose says about its measured tables still holds for the committed results."""
    from bpe_ref.course.figures import beyond_one_machine as page10

    text = " ".join(read(THEORY / "10-beyond-one-machine.md").split())  # the prose, its line breaks ignored
    rates = page10.rates()
    rows = {row["name"]: row for row in page10.cost_model()}
    assert "a thousand cores bring even 10 TB under an hour" in text
    assert rows["10 TB"]["cores"] < 3600
    assert "One core needs minutes for a gigabyte, hours for 100 GB and weeks for 10 TB" in text
    days = rows["10 TB"]["one_core"] / 86400  # the opening paragraph quotes it
    assert f"counting it on one core would take weeks (section 4: {days:.1f} days for 10 TB" in text
    assert "más de lo que una máquina lee en un día" not in text
    assert 60 <= rows["1 GB"]["one_core"] < 3600 and 3600 <= rows["100 GB"]["one_core"] < 86400
    assert rows["10 TB"]["one_core"] >= 7 * 86400
    assert "500 MB take about a minute on one core" in text and 30 < 500e6 / rates["count_bytes_per_second"] < 120
    for label in page10.COST_FITS:  # "one to two orders of magnitude smaller than the text read"
        for row in rows.values():
            assert 10 <= row["bytes"] / row[label]["sent"] <= 1000
    tiny, novel = page10.COST_FITS
    assert "For repetitive text it stays at minutes" in text and rows["10 TB"][tiny]["merge_loop"] < 3600
    assert "it takes tens of minutes at 100 GB and most of a day at 10 TB" in text
    assert 600 <= rows["100 GB"][novel]["merge_loop"] < 3600
    assert 12 * 3600 <= rows["10 TB"][novel]["merge_loop"] < 36 * 3600
    assert "about an hour at most on the 1 GB and 100 GB rows" in text
    assert all(rows[n][label]["merge_loop"] < 5400 for n in ("1 GB", "100 GB") for label in page10.COST_FITS)
    network = page10.results()["network"]["rows"]
    assert "the pair counts of the first merge are smaller even than the pretoken counts" in text
    assert all(row["pair_count_bytes"] < row["count_bytes"] for row in network)
    assert "at 16 KiB per range that is half the text" in text
    smallest = min(network, key=lambda row: row["text_bytes"] / row["ranges"])
    assert 1.6 < smallest["text_bytes"] / smallest["count_bytes"] < 2.5
    assert "(about 80 bytes an entry, measured)" in text and 70 <= rates["memory_bytes_per_entry"] <= 90
    assert "about 12 bytes an entry" in text and round(rates["entry_bytes"]) == 12
    assert "in a local cluster they share the client's own process: only the workers are processes of their own" in text
    assert "scheduler, nanny and client processes" not in text  # tests/test_distributed.py checks the processes
    dask = page10.results()["dask"]
    assert "one worker is a little slower than one process, and two workers come nowhere near twice its speed" in text
    two = next(w for w in dask["workers"] if w["workers"] == 2)
    assert dask["serial_seconds"] / two["count_seconds"] < 1.7
    assert "returning it `Packed`, the task costs the call plus a round trip" in text.replace("Returning", "returning")
    one_range = dask["one_range"]  # the plain dict's extra time is mostly Dask taking it apart
    assert one_range["worker_packed_seconds"] - one_range["here_seconds"] < (
        one_range["worker_seconds"] - one_range["here_seconds"]) / 2
    one = next(w for w in dask["workers"] if w["workers"] == 1)  # faster than one process: noise, said so
    assert 1.0 <= one["count_seconds"] / dask["serial_seconds"] < 1.3  # "a little slower"
    assert ("one worker came out faster than one process, which it cannot be" in text) == (
        one["count_seconds"] < dask["serial_seconds"])
