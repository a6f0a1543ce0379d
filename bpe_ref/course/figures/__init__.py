"""The figures and quoted tables of the theory pages, computed by code anyone can rerun.

One module per page (:data:`PAGE_MODULES`); each has ``PAGE`` (its page's file),
``snippets() -> {file name: Markdown}`` (the numbers and small tables the page quotes) and
``draw_figures(out_dir) -> [paths]`` (its PNG figures). Pages 02 to 08 and 10 also quote the diff of
their step's code against the previous step's (:mod:`.step_diffs`).

Nothing is timed while figures are generated: the timings the pages quote are measured by hand into
``theory/benchmarks/`` (page 05 by :mod:`.heap_timings`, 07 by :mod:`.long_pieces`, 08 by
``python -m bpe_ref.course.figures.linear_encoding``, 09 by :mod:`.benchmark_runs`, 10 by
``python -m bpe_ref bench distributed``), and read from there with their machine.

``python -m bpe_ref.course.figures`` (:mod:`.__main__`) writes them into ``theory/figures/`` and the pages that
quote them. Matplotlib is needed (``pip install -e ".[dev]"``).
"""

from __future__ import annotations

import importlib
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
FIGURES_DIR = REPO_ROOT / "theory" / "figures"


def page_module(page: str) -> ModuleType:
    """The figure module of ``page`` (``"00"``, ``"01"``, ...)."""
    if page not in PAGE_MODULES:
        raise ValueError(f"no figures for page {page!r}; pages with figures: {', '.join(PAGE_MODULES)}")
    return importlib.import_module(f"{__name__}.{PAGE_MODULES[page]}")


def all_snippets() -> dict[str, str]:
    """Every page's snippets, ``{file name: Markdown}``."""
    return {name: text for page in PAGE_MODULES for name, text in page_module(page).snippets().items()}


__all__ = ["FIGURES_DIR", "PAGE_MODULES", "all_snippets", "page_module"]
