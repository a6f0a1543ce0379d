"""Figures and tables of theory page 08, ``theory/08-linear-encoding.md``: the table of last tokens
and the backtracking search on the page's examples (checked against the lab's functions by the tests),
GPT-2's tokens that do not encode to themselves, where exact counts may cut a text, and the growth of
five encoders on one long pretoken, measured by :func:`main` with page 07's harness (about two minutes)."""

from __future__ import annotations

import sys
from pathlib import Path

from ...data_files import REPO_ROOT
from ...encode import ENCODE_METHODS
from ...encode.common import MergeTables
from ...encode.step06_naive import Pair, encode_pretoken, merge_ranks
from ...encode.step08_prefix_counts import prefix_token_counts
from ...encode.step08_table import last_tokens
from ...encode.step08_valid_tokens import ValidTokens, compatible
from . import long_pieces
from .common import gpt2, name_axes, page_snippets, panels, plot_series, read_json
from .common import code, code_token, markdown_table, save_png, show_word
from .heap_encoding import AAA_MERGES, factor_range, speed_factors

PAGE = "08-linear-encoding.md"
GROWTH_JSON = REPO_ROOT / "theory" / "benchmarks" / "linear" / "growth.json"

# Page 08's example (the lab's PAGE_RANKS): (b, c) is learned before (a, b), so BPE never meets "ab"
# next to "c" and the token "abc" that (ab, c) makes is not valid.
PAGE_MERGES: list[Pair] = [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c"), (b"c", b"a"), (b"bc", b"a")]
PAGE_TEXT = b"abcbca"


def page_ranks() -> dict[Pair, int]:
    return merge_ranks(PAGE_MERGES)


def valid_tokens(ranks: dict[Pair, int]) -> set[bytes]:
    """The valid tokens: every byte, and each merge's result that encodes to itself."""
    return set(ValidTokens(MergeTables.from_ranks(ranks)).token_of)


# The worked example: the table, then the backtracking search

def candidates_tried(data: bytes, end: int, valid: set[bytes], last: list, ranks: dict[Pair, int]) -> list[tuple[int, bytes, bool]]:
    """``(start, token, fits)`` for each valid token ending at ``end``, longest first, up to the first
    that fits: the one that starts the text, or one compatible with ``last[start]``."""
    tried = []
    for start in range(end):
        token = data[start:end]
        if token in valid:
            fits = start == 0 or compatible(last[start], token, ranks)
            tried.append((start, token, fits))
            if fits:
                break
    return tried


def table_rows(data: bytes, ranks: dict[Pair, int], trace: bool = False) -> list[list[str]]:
    """One row per prefix end: the valid tokens ending there, longest first, with the verdict on each, the
    last token, and the count. With ``trace`` (section 3's), the verdicts name ``last[start]`` and what BPE
    makes of a pair that does not fit, and the count gives way to the prefix's encoding read back from
    ``last`` (the invariant)."""
    valid = valid_tokens(ranks)
    last = last_tokens(data, ranks)
    counts = prefix_token_counts(last)
    rows = []
    for end in range(1, len(data) + 1):
        verdicts = []
        for start, token, fits in candidates_tried(data, end, valid, last, ranks):
            if start == 0:
                verdicts.append(f"{code_token(token)} starts the text: fits")
                continue
            before = f"last[{start}] = {code_token(last[start])}" if trace else code_token(last[start])
            no = f"no, BPE makes {show_word(encode_pretoken(last[start] + token, ranks))} of the two" if trace else "no"
            verdicts.append(f"{code_token(token)} after {before}: {'fits' if fits else no}")
        read_back, at = [], end
        while at > 0:
            read_back.insert(0, last[at])
            at -= len(last[at])
        rows.append([str(end), code(data[:end].decode()), "; ".join(verdicts), code_token(last[end]),
                     show_word(read_back) if trace else str(counts[end])])
    return rows


# Section 3's trace: a text on which the longest candidate does not always fit (the lab's AAA ranks).
TRACE_MERGES: list[Pair] = AAA_MERGES
TRACE_TEXT = b"aaaaa"


def table_trace_snippet() -> str:
    ranks = merge_ranks(TRACE_MERGES)
    merges = ", ".join(f"({code_token(left, False)}, {code_token(right, False)})" for left, right in TRACE_MERGES)
    table = markdown_table(["end", "prefix", "candidates ending here, longest first", "last[end]",
                            "the prefix's encoding, read back from last"],
                           table_rows(TRACE_TEXT, ranks, trace=True), align="rllcl")
    return f"The merges {merges}, on {code(TRACE_TEXT.decode(), False)}:\n\n" + table


def backtrack_trace(data: bytes, ranks: dict[Pair, int]) -> tuple[list[list[str]], list[bytes]]:
    """The backtracking search on ``data``, one row per candidate tried: the lab's algorithm (longest
    valid token first, compatible with the previous one, its end not dead; else shorter; else the
    position is dead and the search backs up). Returns the rows and the tokens found."""
    valid = valid_tokens(ranks)
    n = len(data)

    def starting_at(pos: int) -> list[bytes]:
        return [data[pos:end] for end in range(n, pos, -1) if data[pos:end] in valid]

    alive = [True] * (n + 1)
    tokens: list[bytes] = []
    stack = []
    rows = []
    pos, candidates, index = 0, starting_at(0), 0
    while pos < n:
        if index < len(candidates):
            token = candidates[index]
            end = pos + len(token)
            if not alive[end]:
                verdict = f"no: position {end} is dead"
            elif tokens and not compatible(tokens[-1], token, ranks):
                verdict = f"no: not compatible with {code_token(tokens[-1])}"
            else:
                verdict = "accept"
            rows.append([str(pos), code_token(token), verdict, show_word(tokens + [token]) if verdict == "accept" else ""])
            if verdict == "accept":
                tokens.append(token)
                stack.append((pos, candidates, index))
                pos, candidates, index = end, starting_at(end) if end < n else [], 0
            else:
                index += 1
            continue
        alive[pos] = False
        dropped = tokens.pop()
        rows.append([str(pos), "(none left)", f"position {pos} is dead: drop {code_token(dropped)}", show_word(tokens)])
        pos, candidates, index = stack.pop()
        index += 1
    return rows, tokens


def worked_example_snippet() -> str:
    ranks = page_ranks()
    merges = ", ".join(f"{rank}: ({code_token(left, False)}, {code_token(right, False)})"
                       for (left, right), rank in ranks.items())
    table = markdown_table(["end", "prefix", "valid tokens ending here, longest first", "last[end]", "count"],
                           table_rows(PAGE_TEXT, ranks), align="rllcr")
    rows, tokens = backtrack_trace(PAGE_TEXT, ranks)
    trace = markdown_table(["position", "candidate", "verdict", "tokens so far"], rows, align="rlll")
    merged_tokens = sorted((t for t in valid_tokens(ranks) if len(t) > 1), key=lambda t: (len(t), t))
    return (
        f"The merges, by rank: {merges}. The valid tokens: every single byte, and each merge's result that "
        f"encodes to itself: {', '.join(code_token(t, False) for t in merged_tokens)} "
        f"(not {code('abc', False)}, which BPE encodes as {show_word(encode_pretoken(b'abc', ranks))}).\n\n"
        f"**The table** of {code(PAGE_TEXT.decode(), False)}: for each end, the valid tokens that end there, "
        "tried longest first against the last token of the prefix before them.\n\n" + table
        + f"\n**The backtracking search** on the same text finds {show_word(tokens)}:\n\n" + trace
    )


# GPT-2's tokens that do not encode to themselves

def invalid_token_count(merges: list[Pair]) -> int:
    """How many of the merges make a result that does not encode to itself (found by :class:`ValidTokens`'
    tree walk, each merge re-checked with step 06's encoder)."""
    ranks = merge_ranks(merges)
    valid = ValidTokens(MergeTables.from_ranks(ranks)).valid
    for rank, (left, right) in enumerate(merges):
        assert (encode_pretoken(left + right, ranks) == [left + right]) == valid[256 + rank], (left, right)
    return valid[256:].count(False)


def invalid_tokens_snippet() -> str:
    """Per vocabulary: its merges, and the results that do not encode to themselves."""
    from ...data_files import REFERENCE_MERGES
    from ...serialization import load_merges

    vocabularies = {"GPT-2": gpt2().merges, "CS336's reference run on corpus.en": load_merges(REFERENCE_MERGES),
                    "page 08's example": PAGE_MERGES}
    rows = [[name, f"{len(merges):,}", f"{invalid_token_count(merges):,}"] for name, merges in vocabularies.items()]
    return markdown_table(["merges", "merges in all", "results that do not encode to themselves"], rows, align="lrr")


# Where counting may cut a text

CUT_EXAMPLES = ["Hello, world!", " out", "x  y", "don't<|endoftext|>stop"]


def cut_rule_snippet() -> str:
    """For a few texts: the hard boundaries, and what cutting at every index does to the count."""
    from ...fast.exact_counts import hard_boundaries

    tok = gpt2()
    rows = []
    for text in CUT_EXAMPLES:
        whole = len(tok.encode(text))
        bad = [i for i in range(1, len(text)) if len(tok.encode(text[:i])) + len(tok.encode(text[i:])) != whole]
        hard = hard_boundaries(text, special_tokens=("<|endoftext|>",))
        assert all(i not in bad for i in hard), text
        rows.append([code(text), str(whole), ", ".join(map(str, hard)) or "none",
                     ", ".join(map(str, bad)) or "none"])
    return markdown_table(["text", "tokens", "hard boundaries", "cuts where the two counts do not add up"], rows, align="lrll")


# Growth on one long pretoken: measured by hand with page 07's harness, quoted from the committed JSON

GROWTH_KIND = "random letters"  # page 07's piece the GPT-2 pattern keeps whole (\\p{L}+)


def growth_data() -> dict:
    return read_json(GROWTH_JSON)


def growth_rows(data: dict) -> dict[str, dict]:
    return data["results"][GROWTH_KIND]


def growth_snippet() -> str:
    data = growth_data()
    rows = growth_rows(data)
    shown = [n for n in rows["tiktoken"]["lengths"] if n >= 1000]
    table = []
    for label, row in rows.items():
        seconds = dict(zip(row["lengths"], row["seconds"]))
        table.append([label, *(f"{seconds[n] * 1e3:,.1f}" if n in seconds else "(left out)" for n in shown),
                      f"{row['exponent']:.2f}"])
    return (
        markdown_table(["encoder", *(f"{n:,} B (ms)" for n in shown), "exponent k"], table,
                       align="l" + "r" * (len(shown) + 1))
        + f"\nOne pretoken of random letters (page 07's piece), CPU time, median of {data['repeats']} runs of the "
        "encoders in turn; `k` is the slope of log time against log length over the longer half of the lengths "
        f"(page 07's harness, `bpe_ref/course/figures/long_pieces.py`). Measured {data['date']} on {data['machine']}.\n\n"
        "tiktoken against each of the course's encoders (their time over tiktoken's, at every length measured): "
        + "; ".join(f"{label} {factor_range(speed_factors(rows, label))}" for label in rows if label != "tiktoken")
        + ".\n"
    )


STYLES = {"naive (step 06)": ("o-", "#c44e52"), "heap (step 07)": ("s-", "#dd8452"),
          "backtrack (step 08)": ("^-", "#4c72b0"), "table (step 08)": ("v-", "#55a868"), "tiktoken": ("D--", "#2f2f2f")}


def draw_growth(data: dict, path: Path) -> Path:
    fig, ax = panels(figsize=(6.4, 3.8))
    rows = growth_rows(data)
    plot_series(ax, [(label, row["lengths"], row["seconds"]) for label, row in rows.items()], STYLES,
                lambda label, xs, ys: f"{label}: k = {rows[label]['exponent']:.2f}")
    name_axes(ax, "bytes in the pretoken (log scale)", "CPU seconds to encode it (log scale)",
              "One long pretoken of random letters, GPT-2's merges", "upper left", 7, grid="both", log="xy")
    return save_png(fig, path)


def snippets() -> dict[str, str]:
    return page_snippets("08", {
        "08-table-trace.md": table_trace_snippet(),
        "08-worked-example.md": worked_example_snippet(),
        "08-invalid-tokens.md": invalid_tokens_snippet(),
        "08-cut-rule.md": cut_rule_snippet(),
        "08-growth.md": growth_snippet(),
    })


def draw_figures(out_dir: Path) -> list[Path]:
    return [draw_growth(growth_data(), out_dir / "08-growth.png")]


def main(argv: list[str] | None = None) -> int:
    """Page 07's measurement (CPU time, median of the repeats, exponents over the longer half) with all four encoders."""
    return long_pieces.main(argv, (GROWTH_KIND,), ENCODE_METHODS, GROWTH_JSON, "python -m bpe_ref.course.figures.linear_encoding")


if __name__ == "__main__":
    sys.exit(main())
