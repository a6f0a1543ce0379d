"""The figures and quoted tables of the theory pages, computed by code anyone can rerun.

One module per page; each has ``snippets() -> {file name: Markdown}`` (the numbers and small
tables a page quotes) and ``draw_figures(out_dir) -> [paths]`` (its PNG figures):

============================  ==========================================  =======================================================
module                        page                                        figures
============================  ==========================================  =======================================================
``bytes_and_pretokens``       ``theory/00-bytes-and-pretokenization.md``  bytes per character, pretoken counts
``naive_bpe``                 ``theory/01-naive-bpe.md``                  count of each merge, V1 work
``incremental_updates``       ``theory/02-incremental-updates.md``        words rewritten per merge
``parallel_pretokenization``  ``theory/03-parallel-pretokenization.md``   where the guesses land, chunk balance
``inverted_index``            ``theory/04-inverted-index.md``             words rewritten and stale ids per merge, V4's work
``heaps``                     ``theory/05-heap.md``                       heap size, V4/V5 crossover, word length
``encode_decode``             ``theory/06-encode-decode.md``              memory per token of each layout of the token bytes
``heap_encoding``             ``theory/07-heap-encoding.md``              one long pretoken: time against length
``linear_encoding``           ``theory/08-linear-encoding.md``            growth of five encoders on one long pretoken
``benchmarks``                ``theory/09-benchmarks.md``                 the ladder, growth exponents, noise over time
``beyond_one_machine``        ``theory/10-beyond-one-machine.md``         Heaps' law on the shipped corpora, bytes sent per range
``step_diffs``                each step's merge loop against the          (none)
                              previous one (pages 02-05)
============================  ==========================================  =======================================================

Page 05's timings are measured by hand with ``python -m bpe_ref.course.figures.heap_timings``
(:mod:`.heap_timings`), which writes ``theory/benchmarks/heap/*.json``; its figures read them.
Page 07's, likewise, with ``python -m bpe_ref.course.figures.long_pieces`` (:mod:`.long_pieces`).
Page 08's are measured with ``python -m bpe_ref.course.figures.linear_encoding`` into
``theory/benchmarks/linear/growth.json``, page 09's with ``python -m bpe_ref.course.figures.benchmark_runs``
(:mod:`.benchmark_runs`) into ``theory/benchmarks/measuring/*.json``. Page 10's counts, sizes and rates are
measured by ``python -m bpe_ref bench distributed`` into ``theory/benchmarks/distributed/results.json``.

Pages 02 to 05 quote the diff of their step's merge loop against the previous step's, pages 06 to 08
the diff of their encoder against the code before it, page 10 its count against step 03's
(:mod:`bpe_ref.course.figures.step_diffs`).

``python -m bpe_ref.course.figures`` writes them all into ``theory/figures/`` and copies each snippet into
the pages that quote it (see :mod:`bpe_ref.course.figures.common`); ``--check`` only verifies that the
committed files are what the code produces now. Matplotlib is needed (``pip install -e ".[dev]"``).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from ...data_files import REPO_ROOT

PAGE_MODULES: dict[str, str] = {
    "00": "bytes_and_pretokens",
    "01": "naive_bpe",
    "02": "incremental_updates",
    "03": "parallel_pretokenization",
    "04": "inverted_index",
    "05": "heaps",
    "06": "encode_decode",
    "07": "heap_encoding",
    "08": "linear_encoding",
    "09": "benchmarks",
    "10": "beyond_one_machine",
}
THEORY_DIR = REPO_ROOT / "theory"
FIGURES_DIR = THEORY_DIR / "figures"


def page_module(page: str) -> ModuleType:
    """The figure module of ``page`` (``"00"``, ``"01"``, ...)."""
    if page not in PAGE_MODULES:
        raise ValueError(f"no figures for page {page!r}; pages with figures: {', '.join(PAGE_MODULES)}")
    return importlib.import_module(f"{__name__}.{PAGE_MODULES[page]}")


def all_snippets(pages: list[str] | None = None) -> dict[str, str]:
    """Every snippet of ``pages`` (default: all), ``{file name: Markdown}``."""
    snippets: dict[str, str] = {}
    for page in pages or list(PAGE_MODULES):
        snippets.update(page_module(page).snippets())
    return snippets


def page_path(page: str, theory_dir: Path = THEORY_DIR) -> Path:
    """The theory page of ``page``, named in its module's ``PAGE``."""
    return theory_dir / page_module(page).PAGE


__all__ = ["FIGURES_DIR", "PAGE_MODULES", "THEORY_DIR", "all_snippets", "page_module", "page_path"]
