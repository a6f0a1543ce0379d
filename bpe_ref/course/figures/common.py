"""What the figure modules share: Markdown (code spans, tables), snippets and the committed measurements.
Timing, the corpora's counts, JSON and plotting are :mod:`bpe_ref.course.bench.common`'s.

A *snippet* is a Markdown file written next to the figures (``theory/figures/*.md``) that a page quotes
between ``<!-- snippet: figures/NAME.md -->`` and ``<!-- end snippet -->`` (HTML comments render as
nothing); :func:`sync_snippets` rewrites what sits between them, so no number in a page is typed by hand.
"""

from __future__ import annotations

import argparse
import heapq
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ...data_files import REPO_ROOT
from ...measure import median
from ...tiebreak import SortKeys
from ...train.common import Pair, Word  # noqa: F401 (re-exported to the pages)
from ..bench.common import (  # noqa: F401 (re-exported to the pages)
    RESULTS_DIR, Laps, as_words, corpus_counts, deep_size, grouped_bars, labelled_bars, machine_description, name_axes, pair_counts,
    panels, plot_series, save_png, write_json,
)
from ..bench.common import markdown_table as shared_table
from ..commands import at_least_one
from . import five_minutes
from .step_diffs import diff_snippets

if TYPE_CHECKING:
    from ...tokenizer import Tokenizer

SPACE = "\u2423"  # ␣, how the pages show the space byte


def show_token(token: bytes) -> str:
    """A token's bytes as readable text: UTF-8 where it decodes, ``\\xNN`` where it does not, the space
    as ``␣`` (it starts most tokens), newline and tab as ``\\n`` and ``\\t``.

    >>> show_token(b" the"), show_token(b"\\n"), show_token(b"\\xe2\\x80")
    ('␣the', '\\\\n', '\\\\xe2\\\\x80')
    """
    text = token.decode("utf-8", errors="backslashreplace")
    return text.replace(" ", SPACE).replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def code(text: str, in_table: bool = True) -> str:
    """``text`` as a Markdown code span; in a table cell, ``|`` is escaped so it does not end the cell."""
    if in_table:
        text = text.replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_token(token: bytes, in_table: bool = True) -> str:
    return code(show_token(token), in_table)


def show_pair(pair: tuple[bytes, bytes]) -> str:
    """``(left, right)`` as a code span, e.g. ``(␣, t)``."""
    return code(f"({show_token(pair[0])}, {show_token(pair[1])})")


def show_word(tokens: Sequence[bytes]) -> str:
    """A word split into tokens, as a code span: ``[␣, n, est]``."""
    return code("[" + ", ".join(show_token(t) for t in tokens) + "]")


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]], align: str | None = None) -> str:
    """:func:`bench.common.markdown_table` ending in a newline, left-aligned unless ``align`` says otherwise."""
    return shared_table(headers, rows, align or "l" * len(headers)) + "\n"


def signed(n: int) -> str:
    """``4`` -> ``+4``, ``-4`` -> ``−4`` (a true minus sign, as in the pages' prose)."""
    return f"+{n}" if n > 0 else f"\u2212{-n}" if n < 0 else "0"


def thousands(n: int) -> str:
    """``1234567`` -> ``1,234,567``."""
    return f"{n:,}"


def rolling_median(values: Sequence[float], window: int = 50) -> list[float]:
    """The median of the last ``window`` values at each position (fewer at the start)."""
    return [median(values[max(0, i - window + 1) : i + 1]) for i in range(len(values))]


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` as UTF-8 with ``\\n`` line ends, ending in exactly one newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((text.rstrip("\n") + "\n").encode("utf-8"))
    return path


# Snippets quoted by the pages

def page_snippets(page: str, own: Mapping[str, str]) -> dict[str, str]:
    """Page ``page``'s five-minute idea (:mod:`.five_minutes`), ``own``, then its step's diff (:mod:`.step_diffs`)."""
    idea = five_minutes.snippets(page) if page in five_minutes.IDEAS else {}
    return {**idea, **own, **diff_snippets(page)}

SNIPPET_RE = re.compile(
    r"(?P<open><!-- snippet: (?P<name>[^ ]+) -->\n)(?P<body>.*?)(?P<close><!-- end snippet -->)", re.DOTALL
)


def quoted_snippets(page_text: str) -> dict[str, str]:
    """``{"figures/x.md": text between the markers}`` of a page, without the blank lines around it."""
    return {m.group("name"): m.group("body").strip("\n") + "\n" for m in SNIPPET_RE.finditer(page_text)}


def sync_snippets(page_text: str, snippets: Mapping[str, str]) -> str:
    """``page_text`` with each quote replaced by ``snippets[name]`` (names relative to the page); a name
    ``snippets`` lacks raises ``KeyError`` rather than leaving stale text behind."""

    def replace(match: re.Match) -> str:
        body = snippets[match.group("name")].strip("\n")
        # Blank lines around the quote keep its tables and paragraphs separate blocks everywhere.
        return match.group("open") + "\n" + body + "\n\n" + match.group("close")

    return SNIPPET_RE.sub(replace, page_text)


# Reading the corpora and the committed measurements

def distinct_pairs(pretoken_counts: Mapping[bytes, int]) -> int:
    """$P$ before merge 1: the distinct pairs of bytes in the pretokens."""
    return len(pair_counts(pretoken_counts))


def mean_length(pretoken_counts: Mapping[bytes, int]) -> float:
    """$L$: bytes per distinct pretoken, on average."""
    return sum(map(len, pretoken_counts)) / len(pretoken_counts)


def best_first(pair_counts: Mapping[tuple[bytes, bytes], int]) -> list[tuple[bytes, bytes]]:
    """The pairs in the order training would choose them: highest count first, ties by the course's rule."""
    keys = SortKeys()
    return sorted(pair_counts, key=lambda pair: keys.rank_key(pair_counts[pair], pair))


@lru_cache(maxsize=1)
def gpt2() -> Tokenizer:
    """GPT-2's tokenizer, loaded once (a load checks 50,257 tokens, about a second); pages never change it."""
    from ...tokenizer import Tokenizer

    return Tokenizer.gpt2()


class ReplayedBest:
    """:func:`bpe_ref.tiebreak.best_pair` of ``counts`` as they change in place, for the replays of whole runs, without
    a scan of them all each merge: a scan (the same ``(count, pair)`` order, compared in C) keeps its top ``keep`` and
    the last of them, the floor; a pair that grows to the floor or above joins them (:meth:`grew`: only a merge's new
    pairs grow). Every other pair ranks below the floor, so the best kept pair still at the floor or above is the best
    of all; when none is, a scan again. ``best()`` of no counts raises ``ValueError`` (tests/test_figures.py checks it
    against ``best_pair`` as counts change)."""

    def __init__(self, counts: Mapping[Pair, int], keep: int = 256) -> None:
        self.counts, self.keep = counts, keep
        self.scan()

    def scan(self) -> list[tuple[int, Pair]]:
        top = heapq.nlargest(self.keep, zip(self.counts.values(), self.counts))
        self.floor, self.kept = (top[-1] if top else None), {pair for _, pair in top}
        return top

    def grew(self, pairs: Iterable[Pair]) -> None:
        counts, floor = self.counts, self.floor
        self.kept.update(pair for pair in pairs if pair in counts and (floor is None or (counts[pair], pair) >= floor))

    def best(self) -> Pair:
        counts, floor = self.counts, self.floor
        ranked = [(counts[pair], pair) for pair in self.kept if pair in counts]
        ranked = [entry for entry in ranked if floor is None or entry >= floor]
        if not ranked:
            return max(self.scan())[1]
        self.kept = {pair for _, pair in ranked}
        return max(ranked)[1]


def repo_relative(path: Path) -> str:
    """``path`` from the repository's root, ``/``-separated: what a committed file records, wherever the clone is."""
    return Path(path).resolve().relative_to(REPO_ROOT).as_posix()


def read_json(path: Path) -> dict:
    """A committed measurement (``theory/benchmarks/**/*.json``)."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def machine_line(repeats: int) -> str:
    """The first line a measuring ``main`` prints: the machine, Python, and how it measures."""
    return f"machine: {machine_description()}; median of {repeats} runs, garbage collector paused as in the trainers"


def repeats_argument(argv: Sequence[str] | None, default: int, module: str, doc: str | None) -> int:
    """REPEATS, the one argument of a measurement a page prints rather than quotes (``python -m MODULE [REPEATS]``:
    pages 02, 04 and 06): runs of each timing, ``default`` if not given; a count of 1 or more, refused when parsing."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=doc)
    parser.add_argument("repeats", nargs="?", type=at_least_one, default=default, metavar="REPEATS",
                        help=f"runs of each timing; their median is printed (default: {default})")
    return parser.parse_args(argv).repeats


TRAIN_BENCHMARK = RESULTS_DIR / "train" / "README.md"


def refuse_unless(holds: bool, found: str, page: str, claim: str) -> None:
    """Refuse a snippet that contradicts page ``page``'s ``claim``: pages state what any plausible run shows,
    and a run that does not is a reason to change the page, never to quote numbers against it."""
    if not holds:
        raise ValueError(f"{found}: rewrite page {page}'s {claim} (and the check that guards it)")


def speedup_sentence(new: str, old: str, ratios: Sequence[float], listed: str) -> str:
    """How much faster ``new`` trains than ``old`` in the training benchmark's runs (``listed``)."""
    return (f"In the course's [training benchmark](benchmarks/train/README.md), {new} is {min(ratios):.1f}× to "
            f"{max(ratios):.1f}× faster than {old} ({listed}).")


def benchmark_seconds(path: Path = TRAIN_BENCHMARK, column: int = 0, pattern: str = r"([\d.]+)") -> dict[str, dict[str, float]]:
    """``{section heading: {contender: median seconds}}`` from the training benchmark page's tables (a row's first
    cell names the contender); or the number ``pattern`` reads in another ``column`` (the cells after a row's
    first). A cell it does not fit (a run out of budget, ``>...``) is left out."""
    found: dict[str, dict[str, float]] = {}
    heading = None
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            heading = line[4:].strip()
        elif heading and line.startswith("| "):
            contender, *cells = (cell.strip() for cell in line.strip().strip("|").split("|"))
            if len(cells) > column and (number := re.fullmatch(pattern, cells[column])):
                found.setdefault(heading, {})[contender] = float(number.group(1))
    return found


def benchmark_times(method: str, path: Path = TRAIN_BENCHMARK, column: int = 0, pattern: str = r"([\d.]+)") -> dict[str, float]:
    """``{section heading: number}`` of ``method``'s rows (:func:`benchmark_seconds`); none is an error, since a page
    that quotes them would otherwise quote nothing."""
    found = {run: times[method] for run, times in benchmark_seconds(path, column, pattern).items() if method in times}
    if not found:
        raise ValueError(f"no '{method}' rows in {path}: has its format changed?")
    return found


# ---- shared by pages 06-08 ----

@lru_cache(maxsize=1)
def gpt2_ranks() -> dict[Pair, int]:
    """GPT-2's merges as lab 06's ``{pair: rank}``, computed once (the pages never change them)."""
    from ...encode.step06_naive import merge_ranks

    return merge_ranks(gpt2().merges)
