"""Figures and tables of theory page 07, the heap encoder: the heap pop by pop, traced by
:func:`bpe_ref.encode.step07_heap.pop_loop` itself (``trace=``), its equivalence with step 06's rounds,
and the growth on one long pretoken (measured by :mod:`.long_pieces`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from ...encode.step06_naive import encode_pretoken, merge_ranks
from ...encode.step07_heap import first_heap, heap_encode, pop_loop
from ...train.step01_naive import split_into_bytes
from .common import Pair, gpt2_ranks, name_axes, page_snippets, panels, plot_series, read_json
from .common import code, code_token, markdown_table, save_png, show_pair, show_token
from .encode_decode import work_merges
from .long_pieces import LONG_PIECES_JSON

PAGE = "07-heap-encoding.md"


class PopStep(NamedTuple):
    """One pop :func:`~bpe_ref.encode.step07_heap.pop_loop`'s ``trace`` records: the entry, whether it merged
    (else it was stale), the parts (``(position, token)``) and the heap's entries (sorted) after it."""

    entry: tuple[int, int]
    merged: bool
    parts: tuple
    heap: tuple[tuple[int, int], ...]


# The merges training learns from the word "aaa" (pair counts with every window: (a, a) twice).
AAA_MERGES: list[Pair] = [(b"a", b"a"), (b"aa", b"a")]
WORK_MERGES: list[Pair] = work_merges()  # page 06's merges of "I work, he worked, ..."


def trace(pretoken: bytes, merges: Sequence[Pair]) -> tuple[list[tuple[int, int]], list[PopStep]]:
    """The first heap of ``pretoken`` and every pop of the heap encoder on it."""
    ranks = merge_ranks(merges)
    parts = list(split_into_bytes(pretoken))
    heap = first_heap(parts, ranks)
    steps: list[tuple] = []
    pop_loop(parts, ranks, heap.copy(), lambda left, right: left + right, steps)
    return sorted(heap), [PopStep(*step) for step in steps]


def _entries(entries: Sequence[tuple[int, int]]) -> str:
    return " ".join(code(f"({rank}, {position})") for rank, position in entries) or "(empty)"


def _parts(parts: Sequence[tuple[int, bytes]]) -> str:
    return " ".join(f"{code_token(token)}<sub>{position}</sub>" for position, token in parts)


def _what_popped(step: PopStep, before: Sequence[tuple[int, bytes]], ranks: dict[Pair, int]) -> str:
    """The merge a pop made, or why its entry was stale, from the parts ``before`` it."""
    rank, position = step.entry
    placed = dict(before)
    if position not in placed:
        return f"stale: the part at {position} was merged into its left neighbour"
    after = [p for p in placed if p > position]
    if not after:
        return f"stale: the part at {position} is the last one"
    pair = (placed[position], placed[min(after)])
    if step.merged:
        return f"merge {code_token(pair[0])} + {code_token(pair[1])} (rank {rank})"
    now = ranks.get(pair)
    return f"stale: the pair at {position} is now {show_pair(pair)}, " + ("not a merge" if now is None else f"rank {now}")


def trace_snippet(pretoken: bytes, merges: Sequence[Pair]) -> str:
    """The heap encoder on ``pretoken``, pop by pop, as a Markdown table."""
    ranks = merge_ranks(merges)
    heap, steps = trace(pretoken, merges)
    before = tuple(enumerate(split_into_bytes(pretoken)))
    rows = [["start", "", _parts(before), _entries(heap)]]
    for number, step in enumerate(steps, 1):
        rows.append([str(number), f"{_entries([step.entry])}: {_what_popped(step, before, ranks)}", _parts(step.parts),
                     _entries(step.heap)])
        before = step.parts
    merged = sum(step.merged for step in steps)
    title = (f"The heap encoder on {code_token(pretoken, in_table=False)}: {len(steps)} pops, {merged} merges, "
             f"{len(steps) - merged} stale entries skipped. Parts are shown with their position (the first byte's) "
             "as a subscript; the heap's entries are `(rank, position)`, sorted.\n\n")
    return title + markdown_table(["pop", "entry popped", "parts after", "heap after"], rows, "rlll")


EQUIVALENCE_CASES: list[tuple[str, bytes, Sequence[Pair] | None]] = [
    ("trained on `aaa`", b"aaaaa", AAA_MERGES),
    ("trained on `aaa`", b"aaaaaa", AAA_MERGES),
    ("page 06's merges", b" worked", WORK_MERGES),
    ("page 06's merges", b" works", WORK_MERGES),
    ("GPT-2", b" " + b"a" * 200, None),
    ("GPT-2", b"31415926535897932384626433832795028841971693993751" * 4, None),
    ("GPT-2", b" antidisestablishmentarianism", None),
]


def equivalence_rows() -> list[tuple[str, bytes, list[bytes], list[bytes]]]:
    """``(merges, pretoken, rounds' tokens, heap's tokens)`` for each case."""
    rows = []
    for label, pretoken, merges in EQUIVALENCE_CASES:
        ranks = gpt2_ranks() if merges is None else merge_ranks(merges)
        rows.append((label, pretoken, encode_pretoken(pretoken, ranks), heap_encode(pretoken, ranks)))
    return rows


def _tokens(tokens: list[bytes], limit: int = 6) -> str:
    shown = ", ".join(show_token(t) for t in tokens[:limit]) + (", …" if len(tokens) > limit else "")
    return code(f"[{shown}]") + (f" ({len(tokens)} tokens)" if len(tokens) > limit else "")


def equivalence_snippet() -> str:
    rows = equivalence_rows()
    table = []
    for label, pretoken, rounds, heap in rows:
        shown = code_token(pretoken) if len(pretoken) <= 20 else f"{code_token(pretoken[:12])}… ({len(pretoken)} bytes)"
        table.append([label, shown, _tokens(rounds), "yes" if rounds == heap else "**no**"])
    agree = all(rounds == heap for _, _, rounds, heap in rows)
    return (markdown_table(["merges", "pretoken", "step 06's rounds (each merge everywhere, in rank order)",
                            "the heap gives the same"], table, "llll")
            + f"\n{'All' if agree else 'Not all'} {len(rows)} agree, as the argument above says they must.\n")


# One long pretoken

def long_pieces_data() -> dict:
    return read_json(LONG_PIECES_JSON)


def speed_factors(rows: dict, slower: str, faster: str = "tiktoken") -> list[tuple[int, float]]:
    """``(length, slower's time / faster's time)`` at each length both were measured at."""
    times = dict(zip(rows[faster]["lengths"], rows[faster]["seconds"]))
    return [(n, t / times[n]) for n, t in zip(rows[slower]["lengths"], rows[slower]["seconds"]) if n in times]


def factor_range(factors: list[tuple[int, float]], shortest: int = 0) -> str:
    kept = [f for n, f in factors if n >= shortest]
    return f"{min(kept):.1f}× to {max(kept):.1f}×"


def long_pieces_snippet() -> str:
    data = long_pieces_data()
    results = data["results"]
    labels = list(next(iter(results.values())))
    rows = []
    for kind, by_encoder in results.items():
        for label in labels:
            row = by_encoder[label]
            longest = row["lengths"][-1]
            rows.append([kind, label, f"{row['exponent']:.2f}", f"{row['fitted_over'][0]:,}-{row['fitted_over'][1]:,}",
                         f"{row['seconds'][-1] * 1000:,.1f} ms at {longest:,}"])
    return (
        markdown_table(["pretoken", "encoder", "growth exponent", "fitted over (bytes)", "slowest measured"], rows,
                       "llrrr")
        + f"\nCPU time, median of {data['repeats']} runs, GPT-2's vocabulary, measured on {data['machine']} ({data['date']}; file "
        "[`benchmarks/heap_encoding/long_pieces.json`](benchmarks/heap_encoding/long_pieces.json)). "
        "The exponent is the slope of log time against log length over the longer half of the lengths; "
        "tiktoken's time includes its regex.\n\n"
        "tiktoken against step 07's heap (the heap's time over tiktoken's, at every length measured): "
        + "; ".join(f"{kind} {factor_range(speed_factors(rows, 'heap (step 07)'))}"
                    f" ({factor_range(speed_factors(rows, 'heap (step 07)'), 2000)} from 2,000 bytes on)"
                    for kind, rows in results.items())
        + ".\n"
    )


def draw_long_pieces(data: dict, path: Path) -> Path:
    results = data["results"]
    fig, axes = panels(len(results), figsize=(11.0, 3.8), layout=None, sharey=True)
    styles = {"naive (step 06)": ("o-", "tab:red"), "heap (step 07)": ("s-", "tab:blue"), "tiktoken": ("^-", "tab:gray")}
    for ax, (kind, by_encoder) in zip(axes, results.items()):
        plot_series(ax, [(label, row["lengths"], row["seconds"]) for label, row in by_encoder.items()], styles,
                    lambda label, xs, ys, rows=by_encoder: f"{label}: n^{rows[label]['exponent']:.2f}")
        name_axes(ax, "pretoken length (bytes)", "CPU seconds (median)" if ax is axes[0] else "", kind, "best", 8, log="xy")
    return save_png(fig, path, tight=True)


def snippets() -> dict[str, str]:
    return page_snippets("07", {
        "07-trace-aaaaa.md": trace_snippet(b"aaaaa", AAA_MERGES),
        "07-trace-worked.md": trace_snippet(b" worked", WORK_MERGES),
        "07-equivalence.md": equivalence_snippet(),
        "07-long-pieces.md": long_pieces_snippet(),
    })


def draw_figures(out_dir: Path) -> list[Path]:
    return [draw_long_pieces(long_pieces_data(), out_dir / "07-long-pieces.png")]
