"""``python -m bpe_ref site OUT``: the course as a static website that works offline.

The README as home page, every theory page (math, figures, folded drill answers), the benchmark
pages, every lab read-only (a banner says how to work it; the notebook to download) and a page per
step of the learning path. Nothing is fetched from the network, building or reading (MathJax comes
from ``sphinx-mathjax-offline``). Built with Sphinx and MyST from a staged copy of the pages
(:mod:`.sources`); labs become MyST pages with no outputs, so nothing is executed (and nbformat's
slow import is spared).
"""

from __future__ import annotations

import argparse
import io
import shutil
import tempfile
import time
import warnings as warnings_module
from dataclasses import dataclass
from pathlib import Path

from ..notebooks import REPO_ROOT
from .sources import Staged, stage

TITLE = "Fast BPE from Scratch"

# Sphinx settings, written to the staged folder's conf.py. The theme (alabaster) ships with Sphinx
# and loads no web fonts (the font families below are the reader's own); MathJax is a local copy.
CONFIG: dict[str, object] = {
    "project": TITLE,
    "copyright": "the course's authors (MIT licence)",
    "root_doc": "README",
    "language": "en",
    "extensions": ["myst_parser", "sphinx.ext.mathjax"],
    "mathjax_path": "mathjax/tex-chtml.js",  # in _static: copied from sphinx-mathjax-offline below
    "myst_enable_extensions": ["dollarmath"],
    "myst_heading_anchors": 6,  # GitHub's heading ids, which the pages' links use
    "myst_dmath_double_inline": True,  # $$...$$ inside a paragraph, as GitHub and JupyterLab allow
    "html_theme": "alabaster",
    "html_theme_options": {"description": "a course in building a fast BPE tokenizer", "fixed_sidebar": False,
                           "show_relbars": True, "font_family": "system-ui, sans-serif",
                           "head_font_family": "system-ui, sans-serif"},
    "html_sidebars": {"**": ["about.html", "searchbox.html", "navigation.html", "relations.html"]},
    "html_static_path": ["_static"],
    "html_css_files": ["site.css"],
    "html_title": TITLE,
    "html_copy_source": False,
    "html_show_sourcelink": False,
    "html_last_updated_fmt": None,
    "suppress_warnings": ["myst.header"],  # pages may skip heading levels, as GitHub allows
}

CSS = """\
.lab-banner { border-left: 6px solid #c05a00; background: #fff4e5; }
.lab-banner .admonition-title { font-size: 1.2em; }
details.drill-answers { border: 1px solid #ccc; border-radius: 4px; padding: 0.3em 1em; margin: 1em 0; }
details.drill-answers > summary { cursor: pointer; font-weight: bold; }
div.body { max-width: 1000px; }
div.document { width: auto; max-width: 1300px; }
table.docutils td, table.docutils th { padding: 0.2em 0.5em; }
"""


@dataclass
class SiteBuild:
    """What :func:`build_site` made."""

    out: Path
    staged: Staged
    html_pages: list[Path]
    warnings: list[str]
    seconds: float


def build_site(out: Path, root: Path = REPO_ROOT, *, verbose: bool = False) -> SiteBuild:
    """Build the site of the course at ``root`` into ``out`` (created; must be new or empty)."""
    from sphinx.application import Sphinx  # imported here: the rest of bpe_ref does not need Sphinx

    started = time.perf_counter()
    mathjax = mathjax_folder()
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"{out} exists and is not an empty folder: give a new folder for the site")
    with tempfile.TemporaryDirectory(prefix="bpe-site-") as tmp:
        srcdir = Path(tmp) / "src"
        staged = stage(Path(root), srcdir)
        (srcdir / "_static").mkdir(exist_ok=True)
        (srcdir / "_static" / "site.css").write_text(CSS, encoding="utf-8")
        (srcdir / "conf.py").write_text("".join(f"{k} = {v!r}\n" for k, v in CONFIG.items()), encoding="utf-8")
        warnings = io.StringIO()
        # One process: Sphinx's parallel build (2 processes) took 27 s of CPU against 23 s for about the same wall time
        # on 2 cores (it pickles every doctree across), and CI's other tests use the second core.
        app = Sphinx(str(srcdir), str(srcdir), str(out), str(Path(tmp) / "doctrees"), "html",
                     status=io.StringIO() if not verbose else None, warning=warnings, freshenv=True)
        with warnings_module.catch_warnings():
            # Sphinx's notices to extension authors (deprecated APIs that MyST still calls) are not
            # the reader's concern; Sphinx's own warnings about the pages are collected below.
            warnings_module.simplefilter("ignore", DeprecationWarning)
            warnings_module.simplefilter("ignore", PendingDeprecationWarning)
            app.build()
        if app.statuscode != 0:
            raise RuntimeError(f"Sphinx failed to build the site:\n{warnings.getvalue()}")
    # MathJax 3, from the package that ships it (used as a file source, not as a Sphinx extension: the
    # extension does not declare itself safe for Sphinx's parallel build).
    shutil.copytree(mathjax, out / "_static" / "mathjax", dirs_exist_ok=True)
    # The notebooks, as they are in the repository, next to their read-only pages (the banner's link).
    for notebook in staged.notebooks:
        (out / notebook).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(root) / notebook, out / notebook)
    # index.html is what a browser or a web server opens first; the home page is the README's.
    shutil.copyfile(out / "README.html", out / "index.html")
    pages = sorted(p for p in out.rglob("*.html") if not p.relative_to(out).parts[0].startswith("_"))
    return SiteBuild(out=out, staged=staged, html_pages=pages,
                     warnings=[w for w in warnings.getvalue().splitlines() if w.strip()],
                     seconds=time.perf_counter() - started)


def mathjax_folder() -> Path:
    """The MathJax files that the ``sphinx-mathjax-offline`` package ships (its import name has hyphens)."""
    import importlib.util

    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("MathJax is missing: install the dev extra (pip install -e \".[dev]\"), which has sphinx-mathjax-offline")
    folder = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax"
    if not (folder / "tex-chtml.js").is_file():
        raise FileNotFoundError(f"{folder} has no tex-chtml.js: reinstall sphinx-mathjax-offline")
    return folder


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT", help="the folder to write the site into (new or empty)")
    parser.add_argument("--verbose", action="store_true", help="show Sphinx's progress")


def run(args: argparse.Namespace) -> int:
    result = build_site(args.out, verbose=args.verbose)
    for warning in result.warnings:
        print(warning)
    print(f"{len(result.html_pages)} pages in {result.seconds:.1f} s: open {result.out / 'index.html'}")
    return 0
