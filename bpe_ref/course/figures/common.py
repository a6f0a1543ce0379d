"""Helpers every figure module shares: showing tokens in Markdown, tables, deterministic PNGs, and
the snippets the theory pages include by copy.

A *snippet* is a small Markdown file written next to the figures (``theory/figures/*.md``). A page
quotes it between two HTML comments, which render as nothing on GitHub and in JupyterLab::

    <!-- snippet: figures/01-worked-example-merges.md -->
    ...the snippet's text, copied...
    <!-- end snippet -->

:func:`sync_snippets` rewrites what sits between the markers; the tests check that every page
quotes exactly what the code produces now, so no number in a page is ever typed in by hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

# Figure sizes and resolution: fixed, so a rerun writes the same bytes.
DPI = 110
WIDE = (10.0, 4.0)

SPACE = "\u2423"  # ␣, how the pages show the space byte


def show_token(token: bytes) -> str:
    """A token's bytes as readable text: UTF-8 where it decodes, ``\\xNN`` where it does not.

    The space is shown as ``␣`` (it starts most tokens), newline and tab as ``\\n`` and ``\\t``.

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
    """A token as a code span: ``code(show_token(token))``."""
    return code(show_token(token), in_table)


def show_pair(pair: tuple[bytes, bytes]) -> str:
    """``(left, right)`` as a code span, e.g. ``(␣, t)``."""
    return code(f"({show_token(pair[0])}, {show_token(pair[1])})")


def show_word(tokens: Sequence[bytes]) -> str:
    """A word split into tokens, as a code span: ``[␣, n, est]``."""
    return code("[" + ", ".join(show_token(t) for t in tokens) + "]")


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]], align: str | None = None) -> str:
    """A GitHub-flavoured Markdown table. ``align`` holds one of ``l``, ``r``, ``c`` per column."""
    headers = [str(h) for h in headers]
    align = align or "l" * len(headers)
    if len(align) != len(headers):
        raise ValueError(f"align {align!r} does not have one letter per column ({len(headers)})")
    marks = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
    for row in rows:
        cells = [str(c) for c in row]
        if len(cells) != len(headers):
            raise ValueError(f"row {cells} does not have {len(headers)} cells")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def signed(n: int) -> str:
    """``4`` -> ``+4``, ``-4`` -> ``−4`` (a true minus sign, as in the pages' prose)."""
    return f"+{n}" if n > 0 else f"\u2212{-n}" if n < 0 else "0"


def thousands(n: int) -> str:
    """``1234567`` -> ``1,234,567``."""
    return f"{n:,}"


# ---------------------------------------------------------------------------------------------
# Writing files deterministically


def use_agg():
    """Import pyplot on the non-interactive Agg backend, with settings that do not vary by machine."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcdefaults()
    plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "figure.dpi": DPI, "savefig.dpi": DPI})
    return plt


def save_png(fig, path: Path) -> Path:
    """Save ``fig`` as a PNG with no software or date metadata (reruns give the same bytes); close it."""
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    return path


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` as UTF-8 with ``\\n`` line ends, ending in exactly one newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((text.rstrip("\n") + "\n").encode("utf-8"))
    return path


# ---------------------------------------------------------------------------------------------
# Snippets quoted by the pages

SNIPPET_RE = re.compile(
    r"(?P<open><!-- snippet: (?P<name>[^ ]+) -->\n)(?P<body>.*?)(?P<close><!-- end snippet -->)", re.DOTALL
)


def quoted_snippets(page_text: str) -> dict[str, str]:
    """The snippets a page quotes: ``{"figures/x.md": text between the markers}``, without the
    blank lines that separate it from the markers, ending in one newline."""
    return {m.group("name"): m.group("body").strip("\n") + "\n" for m in SNIPPET_RE.finditer(page_text)}


def sync_snippets(page_text: str, snippets: Mapping[str, str]) -> str:
    """``page_text`` with the text between each snippet's markers replaced by ``snippets[name]``.

    Names are relative to the page (``figures/x.md``); a name the page quotes but ``snippets``
    lacks raises ``KeyError`` rather than leaving stale text behind.
    """

    def replace(match: re.Match) -> str:
        body = snippets[match.group("name")].strip("\n")
        # Blank lines around the quote keep its tables and paragraphs separate blocks everywhere.
        return match.group("open") + "\n" + body + "\n\n" + match.group("close")

    return SNIPPET_RE.sub(replace, page_text)
