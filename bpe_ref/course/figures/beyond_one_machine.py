"""Figures and tables of theory page 10, ``theory/10-beyond-one-machine.md``: a worked example run by the
real ``plan_ranges``, ``count_range`` and ``tree_reduce``; the rest from :mod:`bpe_ref.course.bench.distributed`'s results."""

from __future__ import annotations

import math
import tempfile
from functools import lru_cache
from pathlib import Path

from ...data_files import REPO_ROOT
from ...distributed import MAX_RANGE_BYTES, count_range, merge_two, plan_ranges, serial_count, tree_reduce
from ...pretokenize import count_pretokens
from ..bench.distributed import fit_heaps
from .common import name_axes, page_snippets, panels, read_json
from .common import code, code_token, markdown_table, save_png

PAGE = "10-beyond-one-machine.md"
RESULTS_JSON = REPO_ROOT / "theory" / "benchmarks" / "distributed" / "results.json"
EOT = "<|endoftext|>"

# The worked example: two files, each with two documents.
EXAMPLE_FILES = {
    "a.txt": "the cat sat on the mat<|endoftext|>a hat",
    "b.txt": "the bat ran off far<|endoftext|>a cat",
}

# The cost model's corpora and its assumptions (stated on the page with the table).
MODEL_SIZES = (("1 GB", 1e9), ("100 GB", 1e11), ("10 TB", 1e13))
MODEL_CORES = 1000  # cores the counting is shared over
MODEL_RANGE_BYTES = MAX_RANGE_BYTES  # bytes of text per range: count_pretokens_on_cluster's largest
MODEL_MERGES = 32_000  # a 32k vocabulary's merges, for the round trips of pair aggregation


# The worked example

def example_run(directory: Path) -> dict:
    """Write the example files into ``directory`` and run the map and the reduce on them."""
    paths = []
    for name, text in EXAMPLE_FILES.items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    ranges = plan_ranges(paths, [EOT], 2)
    counts = [count_range(path, start, end, [EOT]) for path, start, end in ranges]
    rounds: list[list[dict[bytes, int]]] = []

    def combine(left, right):
        merged = merge_two(left, right)
        rounds.append([left, right, merged])
        return merged

    total = tree_reduce(counts, combine)
    assert total == serial_count(paths, [EOT])
    joined = count_pretokens("".join(EXAMPLE_FILES.values()), [EOT])  # the files glued with nothing between
    return {"paths": paths, "ranges": ranges, "counts": counts, "rounds": rounds, "total": total, "joined": joined}


def show_counts(counts: dict[bytes, int]) -> str:
    """``{␣cat: 2, the: 1}`` as a code span, the pretokens in first-seen order."""
    inner = ", ".join(f"{code_token(word, in_table=True)[1:-1]}: {count}" for word, count in counts.items())
    return code("{" + inner + "}")


def worked_example_snippet() -> str:
    with tempfile.TemporaryDirectory() as tmp:
        run = example_run(Path(tmp))
    names = {path: Path(path).name for path in run["paths"]}
    data = {name: text.encode("utf-8") for name, text in EXAMPLE_FILES.items()}
    range_rows = []
    for number, ((path, start, end), counts) in enumerate(zip(run["ranges"], run["counts"]), start=1):
        name = names[path]
        range_rows.append([f"R{number}", f"`{name}`", f"{start}–{end}", code_token(data[name][start:end]),
                           show_counts(counts)])
    labels = [f"R{i}" for i in range(1, len(run["counts"]) + 1)]
    label_of = {id(c): label for c, label in zip(run["counts"], labels)}
    tree_rows = []
    for left, right, merged in run["rounds"]:
        label_of[id(merged)] = f"({label_of[id(left)]} + {label_of[id(right)]})"
        tree_rows.append([label_of[id(merged)][1:-1], show_counts(merged)])
    total, joined = run["total"], run["joined"]
    differs = sorted(set(total) ^ set(joined))
    lines = [
        "The two files, and the ranges `plan_ranges([a.txt, b.txt], [\"<|endoftext|>\"], 2)` cuts them into "
        "(byte offsets within each file; every range but a file's first starts with the special token):",
        "",
        markdown_table(["range", "file", "bytes", "text", "`count_range` (the map)"], range_rows, align="llrll"),
        "The reduce, `tree_reduce(counts, merge_two)`: neighbours first, then the results, as a tree of "
        f"depth {math.ceil(math.log2(len(labels)))}:",
        "",
        markdown_table(["`merge_two` of", "gives"], tree_rows),
        f"The total holds {sum(total.values())} pretokens, {len(total)} distinct, exactly "
        "`serial_count` of the two files. Had the files been glued together with nothing between, "
        f"the last word of `a.txt` and the first of `b.txt` would have been counted as one: "
        + ", ".join(f"{code_token(w, in_table=False)} {'only glued' if w in joined else 'only apart'}" for w in differs)
        + ".",
    ]
    return "\n".join(lines) + "\n"


# Measurements, from results.json

@lru_cache(maxsize=1)
def results() -> dict:
    return read_json(RESULTS_JSON)


def measured_by() -> str:
    r = results()
    return (f"Measured by `python -m bpe_ref bench distributed` on {r['date']} ({r['machine']}; medians of "
            f"{r['repeats']} runs; the full record: [benchmarks/distributed](benchmarks/distributed/README.md))")


def heaps_fits() -> dict[str, tuple[float, float]]:
    return {label: fit_heaps(data["points"]) for label, data in results()["heaps"].items()}


def bytes_per_distinct_pretoken(label: str) -> float:
    """The mean length of the corpus's DISTINCT pretokens (measured with the merge loop's rate):
    longer than a running pretoken's, since the common words are short and the rare ones long.
    The merge loop's rate is per byte of distinct pretokens, so ``W`` times this is what it costs."""
    row = next(row for row in results()["rates"]["merge_loop"] if row["corpus"] == label and row["scale"] == 1)
    return row["distinct_bytes"] / row["distinct"]


def heaps_snippet() -> str:
    rows = []
    fits = heaps_fits()
    for label, data in results()["heaps"].items():
        last = data["points"][-1]
        k, beta = fits[label]
        rows.append([label, f"{data['file_bytes']:,}", f"{last['pretokens']:,}", f"{last['distinct']:,}",
                     f"{last['pretokens'] / last['distinct']:.0f}", f"{k:.2f}", f"{beta:.2f}"])
    return ("Each shipped corpus, its pretokens $n$ and distinct pretokens $W$, and the fit of $W = K n^{\\beta}$ "
            "on its prefixes of 1,000 pretokens and more "
            f"(prefixes of up to {len(rows and next(iter(results()['heaps'].values()))['points'])} "
            "sizes per corpus, evenly spaced on a log scale; "
            "least squares on the logarithms):\n\n"
            + markdown_table(["corpus", "bytes", "pretokens $n$", "distinct $W$", "$n$ per $W$", "$K$", "β"], rows,
                             align="lrrrrrr"))


def network_snippet() -> str:
    net = results()["network"]
    rows = [[row["ranges"], f"{row['text_bytes'] / row['ranges'] / 1024:,.0f}", f"{row['text_bytes']:,}",
             f"{row['argument_bytes']:,}", f"{row['count_bytes']:,}", f"{row['text_bytes'] / row['count_bytes']:.1f}×",
             f"{row['pair_count_bytes']:,}"] for row in net["rows"]]
    first = net["rows"][0]
    per_entry = first["count_bytes"] / first["distinct_summed"]
    return (f"The TinyStories 2 MiB sample (`{net['file']}`) cut into $k$ ranges: what would cross the network, "
            "pickled (protocol 5), summed over the ranges:\n\n"
            + markdown_table(["$k$", "KiB per range", "text, if sent", "arguments sent", "pretoken counts back",
                              "text / counts", "pair counts of merge 1"], rows, align="rrrrrrr")
            + f"\nA count entry (pretoken bytes and count) pickles to about {per_entry:.0f} bytes. The smaller the "
            "range, the larger the share of its pretokens that are distinct in it, and the less counting saves: "
            "ranges of megabytes, not kilobytes.\n" + dask_message_sentence(net))


def dask_message_sentence(net: dict) -> str:
    """How Dask itself sends the whole sample's counts as a task's result, plain and packed."""
    message = net["dask_message"]
    plain, packed = message["plain"], message["packed"]
    return (f"\nHow a worker sends the whole sample's counts ({message['entries']:,} entries, "
            f"{message['pickle_bytes']:,} bytes pickled) back as a task's result (`distributed.protocol.dumps` of "
            f"`to_serialize(result)`): the plain dict goes as {plain['frames']:,} frames and {plain['bytes']:,} bytes, "
            f"encoded in {plain['seconds'] * 1000:.0f} ms; wrapped in `Packed`, as {packed['frames']} frames and "
            f"{packed['bytes']:,} bytes, in {packed['seconds'] * 1000:.1f} ms.\n")


def rates() -> dict:
    """This machine's rates, as the cost model uses them."""
    r = results()
    counting = r["rates"]["counting"][0]  # TinyStories 2 MiB
    reduce = r["rates"]["reduce"]
    loops = [row for row in r["rates"]["merge_loop"] if row["scale"] == 1 and row["merges"] == max(
        x["merges"] for x in r["rates"]["merge_loop"])]
    per_byte = sorted(row["seconds"] / row["distinct_bytes"] for row in loops)
    return {
        "count_bytes_per_second": counting["bytes"] / counting["seconds"],
        "reduce_entries_per_second": reduce["tree_entries"] / reduce["tree_seconds"],
        "merge_seconds_per_distinct_byte": per_byte[len(per_byte) // 2],
        "loop_merges": loops[0]["merges"],  # the rate above is that of a loop of this many merges
        "round_trip_seconds": min(w["round_trip_seconds"] for w in r["dask"]["workers"]),
        "entry_bytes": r["network"]["rows"][0]["count_bytes"] / r["network"]["rows"][0]["distinct_summed"],
        "memory_bytes_per_entry": r["memory"]["bytes_per_entry"],
    }


def rates_snippet() -> str:
    r = results()
    count_rows = [[row["corpus"], f"{row['bytes'] / row['seconds'] / 2**20:.1f}"] for row in r["rates"]["counting"]]
    loop = r["rates"]["merge_loop"]
    digest = {(row["corpus"], row["scale"], row["merges"]): row["merges_digest"] for row in loop}
    loop_rows = []
    for row in loop:
        same = ""
        if row["scale"] != 1:
            same = "yes" if digest[row["corpus"], 1, row["merges"]] == row["merges_digest"] else "**no**"
        loop_rows.append([row["corpus"] + (f", every count ×{row['scale']:,}" if row["scale"] != 1 else ""),
                          f"{row['distinct']:,}", f"{row['distinct_bytes']:,}", f"{row['merges']:,}",
                          f"{row['seconds']:.2f}", same])
    reduce = r["rates"]["reduce"]
    m = rates()
    return (measured_by() + ".\n\nOne process counts pretokens (the regex and the dict updates; text already in memory) at:\n\n"
            + markdown_table(["corpus", "MiB/s"], count_rows, align="lr")
            + f"\nThe reduce: `tree_reduce` of the {reduce['tree_parts']} range counts of the 2 MiB sample "
            f"({reduce['tree_entries']:,} entries in all) took {reduce['tree_seconds'] * 1000:.1f} ms, "
            f"{m['reduce_entries_per_second'] / 1e6:.1f} million entries a second.\n\n"
            "The merge loop (the default trainer, `train_on_counts`) on each corpus's counts:\n\n"
            + markdown_table(["counts of", "distinct $W$", "bytes of the $W$ pretokens", "merges", "seconds",
                              "same merges"], loop_rows, align="lrrrrl")
            + f"\nAcross the corpora the loop costs about {m['merge_seconds_per_distinct_byte'] * 1e6:.1f} µs per byte "
            "of distinct pretokens (the median), and multiplying every count by 1,000 (the same words in a corpus a "
            "thousand times larger) changes neither the merges nor the time.\n")


def scaling_snippet() -> str:
    dask = results()["dask"]
    rows = [["one process, no Dask", "", f"{dask['serial_seconds']:.2f}", "1.00×", ""]]
    for w in dask["workers"]:
        rows.append([f"Dask, {w['workers']} worker{'s' if w['workers'] > 1 else ''}", f"{w['start_seconds']:.2f}",
                     f"{w['count_seconds']:.2f}", f"{dask['serial_seconds'] / w['count_seconds']:.2f}×",
                     f"{w['round_trip_seconds'] * 1000:.1f}"])
    one = dask["one_range"]
    one_worker = next((w for w in dask["workers"] if w["workers"] == 1), None)
    impossible = ""
    if one_worker is not None and one_worker["count_seconds"] < dask["serial_seconds"]:
        impossible = (" In this run one worker came out faster than one process, which it cannot be (it does the "
                      "same counting, plus a round trip per task): the two were timed at different moments on a "
                      "loaded machine, and the difference is the size of the noise.")
    return (measured_by() + f". A {dask['bytes'] / 2**20:.0f} MiB TinyStories file (the 2 MiB sample repeated), "
            "counted whole in one process and with `count_pretokens_with` on a local cluster (cluster started "
            "once, not counted in the time); the speed-up is one process's time over the cluster's:\n\n"
            + markdown_table(["counted by", "cluster start (s)", "count (s)", "speed-up", "one task's round trip (ms)"],
                             rows, align="lrrrr")
            + f"\nOne range of {one['bytes'] / 2**20:.0f} MiB, counted by `count_range`: {one['here_seconds']:.2f} s "
            f"called here; as a task on the 1-worker cluster, {one['worker_seconds']:.2f} s returning the plain dict "
            f"({one['worker_seconds'] / one['here_seconds']:.1f} times as long) and "
            f"{one['worker_packed_seconds']:.2f} s returning it `Packed` "
            f"({one['worker_packed_seconds'] / one['here_seconds']:.1f} times as long)."
            + load_sentence(dask.get("load_average")) + impossible + "\n")


def load_sentence(load: list | None) -> str:
    """What the machine was doing meanwhile: its 1-minute load average before and after."""
    if not load or None in load:
        return ""
    cores = results()["machine"].split(" cores")[0].rsplit(" ", 1)[-1]
    busy = max(load) > float(cores) if cores.isdigit() else False
    return (f" The machine's load average (1 minute) was {load[0]:.1f} before these runs and {load[1]:.1f} after, on "
            f"{cores} cores" + (": other work was sharing the cores, so read the ratios with that in mind." if busy
                                else "."))


# The cost model

def predicted_distinct(label: str, corpus_bytes: float) -> float:
    k, beta = heaps_fits()[label]
    last = results()["heaps"][label]["points"][-1]  # bytes of text per running pretoken turn a size into Heaps' n
    return k * (corpus_bytes / (last["bytes"] / last["pretokens"])) ** beta


def rounded(x: float) -> str:
    """Three significant figures, with thousands separators: ``2,810,000,000``."""
    return f"{float(f'{x:.3g}'):,.0f}"


def duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size * (2 if unit == "days" else 1):
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:,.1f} s" if seconds >= 1 else f"{seconds * 1000:,.0f} ms"


def size_text(n: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n:,.0f} B"


COST_FITS = ("TinyStories 2 MiB (en)", "Don Quijote (es)")


def cost_model() -> list[dict]:
    m = rates()
    rows = []
    for name, n in MODEL_SIZES:
        ranges = max(1, math.ceil(n / MODEL_RANGE_BYTES))
        row = {"name": name, "bytes": n, "ranges": ranges, "one_core": n / m["count_bytes_per_second"],
               "cores": n / m["count_bytes_per_second"] / MODEL_CORES}
        for label in COST_FITS:
            distinct = predicted_distinct(label, n)
            per_range = min(predicted_distinct(label, MODEL_RANGE_BYTES), distinct)
            sent = ranges * per_range * m["entry_bytes"]
            row[label] = {
                "distinct": distinct,
                "sent": sent,
                "merge_loop": m["merge_seconds_per_distinct_byte"] * distinct * bytes_per_distinct_pretoken(label),
                "memory": distinct * m["memory_bytes_per_entry"],
                "reduce_top": distinct / m["reduce_entries_per_second"],
            }
        rows.append(row)
    return rows


def cost_model_snippet() -> str:
    m = rates()
    fits = heaps_fits()
    rows = []
    for row in cost_model():
        for label in COST_FITS:
            est = row[label]
            rows.append([row["name"] if label == COST_FITS[0] else "", label.split(" (")[0],
                         rounded(est["distinct"]), duration(row["one_core"]), duration(row["cores"]),
                         size_text(est["sent"]), size_text(est["memory"]), duration(est["reduce_top"]),
                         duration(est["merge_loop"])])
    per_merge = m["round_trip_seconds"]
    return (
        f"From this machine's rates: counting {m['count_bytes_per_second'] / 2**20:.1f} MiB/s per core, "
        f"{m['reduce_entries_per_second'] / 1e6:.1f} million count entries added per second, "
        f"{m['entry_bytes']:.0f} bytes per count entry sent and {m['memory_bytes_per_entry']:.0f} in a Python dict, "
        "the merge loop at "
        f"{m['merge_seconds_per_distinct_byte'] * 1e6:.1f} µs per byte of distinct pretokens (times $W$ and the mean "
        "length of a distinct pretoken, "
        + " and ".join(f"{bytes_per_distinct_pretoken(label):.1f} bytes in {label.split(' (')[0]}" for label in COST_FITS)
        + "); $W$ from Heaps' law "
        + " and ".join(f"fitted on {label} ($K$ = {fits[label][0]:.2f}, β = {fits[label][1]:.2f})" for label in COST_FITS)
        + f"; ranges of {MODEL_RANGE_BYTES // 2**20} MiB; {MODEL_CORES:,} cores for the map.\n\n"
        + markdown_table(["corpus", "$W$ fitted on", "$W$ predicted", "count, 1 core", f"count, {MODEL_CORES:,} cores",
                          "counts sent", "counts in memory", "last merge of the reduce",
                          f"merge loop, {m['loop_merges']:,} merges"], rows,
                         align="llrrrrrrr")
        + f"\nThe merge loop's rate was measured on loops of {m['loop_merges']:,} merges, so its column is for "
        f"{m['loop_merges']:,} merges; a larger vocabulary's loop takes longer, by an amount not measured here. "
        "Aggregating pair counts across the cluster instead would cost at least one round trip per merge, "
        f"{per_merge * 1000:.1f} ms each (one tiny task's round trip on this machine, the least a round can cost): "
        f"{m['loop_merges']:,} merges × {per_merge * 1000:.1f} ms = {duration(m['loop_merges'] * per_merge)}, and for "
        f"a {MODEL_MERGES:,}-token vocabulary {MODEL_MERGES:,} merges × {per_merge * 1000:.1f} ms = "
        f"{duration(MODEL_MERGES * per_merge)} of waiting, whatever the corpus size, before any work or any wait for "
        "the slowest worker.\n")


# Figures

def draw_heaps(out: Path) -> Path:
    data = results()["heaps"]
    fits = heaps_fits()
    fig, (left, right) = panels(2, layout=None)
    for label, corpus in data.items():
        points = corpus["points"]
        xs = [p["pretokens"] for p in points]
        line, = left.plot(xs, [p["distinct"] for p in points], marker="o", markersize=3, linewidth=0, label=label)
        k, beta = fits[label]
        left.plot(xs, [k * x**beta for x in xs], color=line.get_color(), linewidth=1)
    left.plot([100, 6e5], [100, 6e5], color="grey", linestyle=":", linewidth=1, label="$W = n$ (every pretoken new)")
    name_axes(left, "pretokens read, n", "distinct pretokens, W", "Heaps' law: W = K n^β (lines: the fits)", "upper left", 7,
              log="xy")
    net = results()["network"]["rows"]
    per_range = [row["text_bytes"] / row["ranges"] / 1024 for row in net]
    right.plot(per_range, [row["text_bytes"] / row["count_bytes"] for row in net], marker="o", label="text / pretoken counts")
    right.plot(per_range, [row["text_bytes"] / row["pair_count_bytes"] for row in net], marker="s",
               label="text / pair counts (merge 1 only)")
    right.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    name_axes(right, "text per range (KiB), TinyStories 2 MiB sample", "bytes of text per byte sent back",
              "Larger ranges: smaller counts per byte of text", "best", 7, log="xy")
    return save_png(fig, out, tight=True)


def snippets() -> dict[str, str]:
    return page_snippets("10", {
        "10-worked-example.md": worked_example_snippet(),
        "10-heaps-fit.md": heaps_snippet(),
        "10-network.md": network_snippet(),
        "10-rates.md": rates_snippet(),
        "10-dask-scaling.md": scaling_snippet(),
        "10-cost-model.md": cost_model_snippet(),
    })


def draw_figures(out_dir: Path) -> list[Path]:
    return [draw_heaps(out_dir / "10-heaps-law.png")]
