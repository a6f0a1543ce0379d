"""Figures and tables of theory page 06, ``theory/06-encode-decode.md``: encoding round by round (and
why the order of merges matters), GPT-2's files, the decoder example ``hug pug pun bun hugs``, and the
memory per token of each layout of the token bytes, from ``sys.getsizeof`` (the same on every run)."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from ...decode import build_arena, decode_with_arena
from ...encode.common import MergeTables
from ...encode.step06_naive import encode_pretoken, encode_text, merge_ranks
from ...pretokenize import count_pretokens
from ...serialization import token_to_string
from ...train.step01_naive import merge_word, split_into_bytes, train
from .common import Pair, deep_size, gpt2, gpt2_ranks, labelled_bars, machine_line, name_axes, page_snippets, panels
from .common import repeats_argument
from .common import code, code_token, markdown_table, save_png, show_pair, show_word, thousands
from .naive_bpe import SEED_EXAMPLE_TEXT

PAGE = "06-encode-decode.md"

# Seed 003's example text; the course's trainer learns 10 merges from it and then no pair is left.
HUGS_TEXT = "hug pug pun bun hugs"
EARLY_MERGE: Pair = (b"o", b"r")  # the first merge of the source's own trace of the "work" sentences


def work_merges() -> list[Pair]:
    """The merges the course's trainer learns from page 01's five "work" sentences (all of them)."""
    return train(count_pretokens(SEED_EXAMPLE_TEXT, special_tokens=()), 100)


def encoding_rounds(pretoken: bytes, ranks: dict[Pair, int]) -> list[tuple[list[bytes], list[tuple[Pair, int]], Pair | None]]:
    """Each round of :func:`encode_pretoken`: the tokens, the merges present with their ranks (lowest
    first), and the pair merged (``None`` in the last round: no merge is present)."""
    word = split_into_bytes(pretoken)
    rounds = []
    while True:
        present = sorted({(pair, ranks[pair]) for pair in zip(word, word[1:]) if pair in ranks}, key=lambda item: item[1])
        chosen = present[0][0] if present else None
        rounds.append((list(word), present, chosen))
        if chosen is None:
            return rounds
        word = merge_word(word, chosen)


def rounds_table(pretoken: bytes, ranks: dict[Pair, int]) -> str:
    rows = []
    for number, (tokens, present, chosen) in enumerate(encoding_rounds(pretoken, ranks), 1):
        shown = ", ".join(f"{show_pair(pair)} {rank}" for pair, rank in present) or "none"
        rows.append((number, show_word(tokens), shown, show_pair(chosen) if chosen else "stop"))
    return markdown_table(["round", "tokens", "merges present, with their rank", "merged"], rows, "rlll")


def work_snippet() -> str:
    merges = work_merges()
    ranks = merge_ranks(merges)
    earlier = merge_ranks([EARLY_MERGE, *merges])
    assert encode_pretoken(b" worked", ranks) == [b" worked"]
    lines = [
        "The merges learned from the five sentences, as ranks: "
        + ", ".join(f"{show_pair(pair)} {rank}" for pair, rank in ranks.items()) + ".",
        "",
        "**In training order.** `encode_pretoken(b\" worked\", ranks)`:",
        "",
        rounds_table(b" worked", ranks),
        f"**With {show_pair(EARLY_MERGE)} learned first** (rank 0, every other rank one higher):",
        "",
        rounds_table(b" worked", earlier),
        f"| pretoken | training order | with {show_pair(EARLY_MERGE)} first |",
        "|:--|:--|:--|",
    ]
    for word in (b" work", b" worked", b" works", b" workers", b"he", b" rework"):
        lines.append(f"| {code_token(word)} | {show_word(encode_pretoken(word, ranks))} | "
                     f"{show_word(encode_pretoken(word, earlier))} |")
    return "\n".join(lines) + "\n"


def gpt2_snippet() -> str:
    tok = gpt2()
    ranks = gpt2_ranks()
    rows = [(code(f"0x{byte[0]:02x}"), code_token(byte), code(token_to_string(byte)), tok._tables.token_ids[byte[0]])
            for byte in (b"!", b"A", b" ", b"\n", b"\xc3", b"\xf0")]
    table = markdown_table(["byte", "as text", "its key in `vocab.json`", "GPT-2 id"], rows, "lllr")
    ids_of = {value: token_id for token_id, value in tok.vocab.items()}
    merged = [(show_pair(pair), code_token(pair[0] + pair[1]), thousands(ranks[pair]), thousands(256 + ranks[pair]),
               thousands(ids_of[pair[0] + pair[1]]))
              for pair in ((b" ", b"t"), (b"e", b"r"), (b" t", b"he"), (b" wor", b"ld"), (b"H", b"ello"))]
    merge_table = markdown_table(["merge", "token", "rank", "256 + rank", "GPT-2 id"], merged, "llrrr")
    smile = "🙂"
    ids = tok.encode(smile)
    pieces = ", ".join(f"{token_id} = {code_token(tok.token_bytes(token_id), in_table=False)}" for token_id in ids)
    hello = "Hello world"
    hello_tokens = encode_text(hello, ranks, [])
    return (
        table + "\n" + merge_table + "\n"
        f"`encode_text({hello!r}, ranks, [])` gives {', '.join(code_token(t, in_table=False) for t in hello_tokens)}; "
        f"their ids are {[ids_of[t] for t in hello_tokens]}, tiktoken's "
        f"`encode({hello!r})`. The emoji {smile} (bytes `{smile.encode('utf-8').hex(' ')}`) is {len(ids)} tokens: "
        f"{pieces}. `decode` of the first id alone gives {tok.decode(ids[:1])!r}; "
        f"`decode_bytes` gives {tok.decode_bytes(ids[:1])!r}.\n"
    )


def hugs_snippet() -> str:
    merges = train(count_pretokens(HUGS_TEXT, special_tokens=()), 100)
    tables = MergeTables.from_ranks(merge_ranks(merges))
    vocab = dict(enumerate(tables.token_bytes))
    rows = [(256 + k, show_pair(pair), f"({parts[0]}, {parts[1]})", code_token(pair[0] + pair[1]))
            for k, (pair, parts) in enumerate(zip(merges, tables.merge_parts))]
    table = markdown_table(["token", "merge", "parts (token numbers)", "bytes"], rows, "rlll")
    last = 256 + len(merges) - 1
    deepest = max(range(256, last + 1), key=lambda t: len(expansion(t, tables.merge_parts)))
    steps = expansion(deepest, tables.merge_parts)
    trace = " → ".join("[" + ", ".join(str(t) for t in level) + "]" for level in steps)
    buffer, offsets = build_arena(vocab)
    tail = buffer[256:]
    assert decode_with_arena([deepest], buffer, offsets) == vocab[deepest]
    return (
        f"The course's trainer learns {len(merges)} merges from `{HUGS_TEXT}` (then no pair is left):\n\n{table}\n"
        f"**Recursion.** Token {deepest} expands level by level until only bytes are left: {trace}, "
        f"the bytes {code_token(vocab[deepest], in_table=False)}.\n\n"
        f"**Arena.** After the 256 single bytes (`buffer[0:256]`, offsets 0 to 255), the merged tokens "
        f"follow in id order: `buffer[256:]` = {tail!r}, and offsets {offsets[256:]} for ids "
        f"256 to {last + 1} (the last is the end). Token {deepest} is "
        f"`buffer[{offsets[deepest]}:{offsets[deepest + 1]}]`.\n"
    )


def expansion(token: int, parts: list[tuple[int, int] | None]) -> list[list[int]]:
    """The recursive decoder's levels: ``[[token], [left, right], ...]`` until every item is a byte."""
    levels = [[token]]
    while any(t >= 256 for t in levels[-1]):
        levels.append([part for t in levels[-1] for part in (parts[t - 256] if t >= 256 else (t,))])  # type: ignore[arg-type]
    return levels


# Memory per token of each layout

@lru_cache(maxsize=1)
def layout_sizes() -> tuple[tuple[str, int], ...]:
    """``(layout, bytes)`` for GPT-2's 50,257 tokens (measured once: the snippet and the figure show the same sizes)."""
    tok = gpt2()
    vocab = {token_id: bytes(bytearray(token)) for token_id, token in tok.vocab.items()}  # one object per token
    tables = tok._tables
    parts = [(int(str(left)), int(str(right))) for left, right in tables.merge_parts]  # fresh ints, as int() of a file's numbers gives
    buffer, offsets = build_arena(vocab)
    return (
        ("merge parts, list of (left, right) tuples", deep_size(parts)),
        ("table, dict {id: bytes}", deep_size(vocab)),
        ("table, list of bytes", deep_size([vocab[i] for i in range(len(vocab))])),
        ("arena, bytes + list of int offsets", deep_size(buffer, [int(str(o)) for o in offsets])),
        ("arena, bytes + array('I') offsets", deep_size(buffer, array("I", offsets))),
    )


def shared_parts_size() -> int:
    """The merge parts as tuples that share one int object per token number (as looking GPT-2's
    ``merges.txt`` up in the dict loaded from ``vocab.json`` gives), instead of a fresh int for every
    part (as ``int()`` of numbers read from a file gives)."""
    tables = gpt2()._tables
    ids = [int(str(t)) for t in range(256 + len(tables.merge_parts))]  # one object per token number
    return deep_size([(ids[left], ids[right]) for left, right in tables.merge_parts])


def layouts_snippet() -> str:
    sizes = layout_sizes()
    tok = gpt2()
    n = len(tok.vocab)
    average = sum(map(len, tok.vocab.values())) / n
    rows = [(label, f"{size / 1e6:.2f}", f"{size / n:.1f}") for label, size in sizes]
    return (
        f"GPT-2's {thousands(n)} tokens, {average:.2f} bytes each on average; sizes as `sys.getsizeof` reports them "
        f"in CPython {sys.version_info.major}.{sys.version_info.minor} (64-bit), each object counted once.\n\n"
        + markdown_table(["layout", "MB", "bytes per token"], rows, "lrr")
        + f"\nThe merge parts' row gives every part above 256 a fresh `int` (28 bytes), as reading the token "
        f"numbers from a text file with `int()` does; tuples that share one `int` per token number, as looking "
        f"the two strings of each line of `merges.txt` up in the dict loaded from `vocab.json` gives, take "
        f"{shared_parts_size() / n:.1f} bytes per token.\n"
    )


def draw_layouts(path: Path) -> Path:
    sizes = layout_sizes()
    n = len(gpt2().vocab)
    fig, ax = panels(layout=None)
    values = [size / n for _, size in sizes]
    labelled_bars(ax, [label for label, _ in sizes], values, ["#999999", "#d62728", "#ff7f0e", "#1f77b4", "#2ca02c"],
                  lambda value: f" {value:.1f}")
    ax.invert_yaxis()
    name_axes(ax, "bytes of memory per token (GPT-2's 50,257 tokens, sys.getsizeof)", "",
              "Storing the token bytes: a dict of small objects costs over eleven times an arena", grid=None)
    ax.set_xlim(0, max(values) * 1.15)
    return save_png(fig, path, tight=True)


def decode_times(repeats: int = 7) -> dict[str, float]:
    """Median seconds to decode the GPT-2 ids of the TinyStories sample to bytes, four ways: a
    ``b"".join`` over a dict table, :func:`~bpe_ref.decode.decode_with_arena`, tiktoken's
    ``decode_bytes`` and the ``Tokenizer``'s ``decode_bytes`` (an arena with a cache in front).
    Also the number of ids and of distinct ids."""
    from ...corpus import read_corpus
    from ...data_files import TINYSTORIES_SAMPLE, data_file
    from ...measure import interleaved, median
    from ...tokenizer import Tokenizer
    from ..interop import gpt2_tiktoken

    tok = Tokenizer.gpt2()  # a fresh one: its decode cache starts empty, as in a learner's process
    ids = tok.encode(read_corpus(data_file(TINYSTORIES_SAMPLE)))
    table = dict(tok.vocab)
    buffer, offsets = build_arena(table)
    encoding = gpt2_tiktoken()
    ways = {
        "dict table": lambda: b"".join([table[i] for i in ids]),
        "decode_with_arena": lambda: decode_with_arena(ids, buffer, offsets),
        "tiktoken": lambda: encoding.decode_bytes(ids),
        "Tokenizer (arena + cache)": lambda: tok.decode_bytes(ids),
    }
    times = interleaved(ways, repeats)  # rounds, so that a change of load hits every way
    return {"ids": len(ids), "distinct ids": len(set(ids)), **{name: median(ts) for name, ts in times.items()}}


def main(argv: Sequence[str] | None = None) -> None:  # pragma: no cover - a measurement, printed
    """Print page 06's decoding times (section 5) on this machine."""
    repeats = repeats_argument(argv, 7, __spec__.name, main.__doc__)
    times = decode_times(repeats)
    print(f"{machine_line(repeats)}; {times['ids']:,} GPT-2 ids of the TinyStories sample, {times['distinct ids']:,} distinct")
    for name in ("dict table", "decode_with_arena", "tiktoken", "Tokenizer (arena + cache)"):
        print(f"{name}: {1000 * times[name]:.1f} ms")
    print(f"Tokenizer against tiktoken: {times['tiktoken'] / times['Tokenizer (arena + cache)']:.2f}x its speed")


def snippets() -> dict[str, str]:
    return page_snippets("06", {
        "06-work-encoding.md": work_snippet(),
        "06-gpt2-files.md": gpt2_snippet(),
        "06-hugs-arena.md": hugs_snippet(),
        "06-layouts.md": layouts_snippet(),
    })


def draw_figures(out_dir: Path) -> list[Path]:
    return [draw_layouts(out_dir / "06-layouts.png")]


if __name__ == "__main__":  # pragma: no cover
    main()
