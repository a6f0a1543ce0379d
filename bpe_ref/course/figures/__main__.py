"""``python -m bpe_ref.course.figures [--out theory/figures] [--page 01] [--check]``

Regenerates the theory pages' figures (PNG) and quoted snippets (Markdown) deterministically:
same code and data, same bytes. The snippets are then copied into the pages that quote them,
between their ``<!-- snippet: figures/NAME -->`` and ``<!-- end snippet -->`` markers (pages are
looked for in the parent folder of ``--out``). ``--check`` writes nothing and exits 1 when a
snippet file or a page's quote differs from what the code produces now.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import FIGURES_DIR, PAGE_MODULES, page_module
from .common import quoted_snippets, sync_snippets, write_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe_ref.course.figures", description=__doc__.split("\n\n")[1])
    parser.add_argument("--out", type=Path, default=FIGURES_DIR, help=f"output folder (default: {FIGURES_DIR})")
    parser.add_argument("--page", action="append", choices=sorted(PAGE_MODULES), help="only this page (repeatable)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything is out of date")
    parser.add_argument("--no-pages", action="store_true", help="do not copy snippets into the pages")
    args = parser.parse_args(argv)
    out: Path = args.out
    theory_dir = out.resolve().parent
    stale: list[str] = []
    for page in args.page or sorted(PAGE_MODULES):
        module = page_module(page)
        start = time.perf_counter()
        snippets = module.snippets()
        relative = {f"{out.name}/{name}": text for name, text in snippets.items()}  # as the page names them
        page_file = theory_dir / module.PAGE
        page_text = page_file.read_text(encoding="utf-8") if page_file.exists() else None
        if args.check:
            for name, text in snippets.items():
                path = out / name
                if not path.exists() or path.read_text(encoding="utf-8") != text.rstrip("\n") + "\n":
                    stale.append(str(path))
            for name, body in quoted_snippets(page_text or "").items():
                if name not in relative or body != relative[name].strip("\n") + "\n":
                    stale.append(f"{page_file} quoting {name}")
            continue
        written = [write_text(out / name, text) for name, text in snippets.items()]
        written += module.draw_figures(out)
        if page_text is not None and not args.no_pages:
            synced = sync_snippets(page_text, relative)
            if synced != page_text:
                page_file.write_text(synced, encoding="utf-8")
                written.append(page_file)
        seconds = time.perf_counter() - start
        print(f"page {page}: {len(written)} files in {seconds:.1f} s")
        for path in written:
            print(f"  {path}")
    if args.check:
        if stale:
            print("out of date (rerun python -m bpe_ref.course.figures):", *stale, sep="\n  ")
            return 1
        print("figures and snippets are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
