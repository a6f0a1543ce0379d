"""Figures and tables of theory page 03, ``theory/03-parallel-pretokenization.md``: where a cut is
safe, :func:`~bpe_ref.train.step03_parallel.find_chunk_boundaries` traced read by read (the real
function, not a copy), the seed's three boundary bugs beside it, what crosses between processes,
chunk balance on the TinyStories sample, and the speed-up measured by ``python -m bpe_ref bench parallel``."""

from __future__ import annotations

import io
import pickle
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from ...data_files import TINYSTORIES_2MIB
from ...pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens
from ...train import step03_parallel
from ...train.step03_parallel import count_chunk, find_chunk_boundaries, merge_counts
from .common import RESULTS_DIR, name_axes, page_snippets, panels, read_json, repo_relative
from .common import code, code_token, markdown_table, save_png, thousands

PAGE = "03-parallel-pretokenization.md"
EOT = DEFAULT_SPECIAL_TOKENS[0]
EOT_BYTES = EOT.encode("utf-8")

# Where a cut is safe

CUT_EXAMPLE = "Go  on, café!<|endoftext|>Hi  there"
# (offset, what is there): one cut of each kind, in the order the page discusses them
CUT_PLACES = [
    (12, "inside the two bytes of `é`"),
    (10, "inside the word ` café`"),
    (4, "inside a run of spaces"),
    (18, "inside the special token"),
    (3, "between two spaces, by luck"),
    (14, "at the start of the special token"),
    (27, "at the end of the special token"),
]


def counts_of_cut(text: str, cut: int, special_tokens: list[str]) -> Counter[bytes] | None:
    """The counts of ``text``'s UTF-8 bytes cut at byte ``cut``, each side counted alone and added
    up; None where a side is not valid UTF-8."""
    data = text.encode("utf-8")
    try:
        left, right = data[:cut].decode("utf-8"), data[cut:].decode("utf-8")
    except UnicodeDecodeError:
        return None
    total = Counter(count_pretokens(left, special_tokens))
    total.update(count_pretokens(right, special_tokens))
    return total


def _show_difference(cut_counts: Counter[bytes] | None, whole: Counter[bytes]) -> str:
    if cut_counts is None:
        return "`UnicodeDecodeError`: a side is not valid UTF-8"
    extra = sorted(cut_counts - whole)
    missing = sorted(whole - cut_counts)
    if not extra and not missing:
        return "**the same counts**"
    parts = [f"{code_token(t)} +{(cut_counts - whole)[t]}" for t in extra]
    parts += [f"{code_token(t)} −{(whole - cut_counts)[t]}" for t in missing]
    return ", ".join(parts)


def unsafe_cuts_snippet(text: str = CUT_EXAMPLE) -> str:
    whole = Counter(count_pretokens(text, [EOT]))
    data = text.encode("utf-8")
    rows = [[str(offset), place, f"{code_token(data[:offset][-5:])} \\| {code_token(data[offset:][:5])}",
             _show_difference(counts_of_cut(text, offset, [EOT]), whole)] for offset, place in CUT_PLACES]
    return (
        f"The text {code(text, in_table=False)} is {len(data)} bytes of UTF-8 (`é` is two bytes). Each row cuts it at one "
        "byte offset, counts both sides alone and adds the counts up, as two workers would; the last "
        "column is what differs from the count of the whole text (`+`: pretokens counted only after the cut, "
        "`−`: pretokens lost by it).\n\n"
        + markdown_table(["cut at byte", "where", "around the cut", "against the whole text"], rows, align="rllr")
    )


# The worked example: every read find_chunk_boundaries makes

WORKED_TEXT = "the cat sat.<|endoftext|>a dog ran.<|endoftext|>the end"
WORKED_CHUNKS = 3
WORKED_BUFFER = 8


class _RecordingFile(io.BytesIO):
    """``data`` as a file that remembers each read: (offset, bytes asked for, bytes read)."""

    def __init__(self, data: bytes, reads: list[tuple[int, int, bytes]]) -> None:
        super().__init__(data)
        self.reads = reads

    def read(self, size: int | None = -1) -> bytes:
        offset = self.tell()
        data = super().read(size)
        self.reads.append((offset, size, data))
        return data


@contextmanager
def _file_of(data: bytes, reads: list[tuple[int, int, bytes]] | None = None) -> Iterator[str]:
    """A path that step03_parallel's functions open as ``data`` (each read recorded in ``reads``), no file on disk."""
    with mock.patch.object(step03_parallel, "open", lambda path, mode="r": _RecordingFile(data, [] if reads is None else reads),
                           create=True):
        yield "corpus.txt"


def recorded_boundaries(data: bytes, desired_num_chunks: int, buffer_size: int) -> tuple[list[int], list[tuple[int, int, bytes]]]:
    """``find_chunk_boundaries`` on a file holding ``data`` (split at ``<|endoftext|>``), and every read it made."""
    reads: list[tuple[int, int, bytes]] = []
    with _file_of(data, reads) as path:
        boundaries = find_chunk_boundaries(path, desired_num_chunks, [EOT_BYTES], buffer_size)
    return boundaries, reads


def worked_example_snippet(text: str = WORKED_TEXT) -> str:
    data = text.encode("utf-8")
    boundaries, reads = recorded_boundaries(data, WORKED_CHUNKS, WORKED_BUFFER)
    chunk_size = len(data) // WORKED_CHUNKS
    overlap = len(EOT_BYTES) - 1
    starts = [i for i in range(len(data)) if data.startswith(EOT_BYTES, i)]
    rows = []
    for number, (offset, size, got) in enumerate(reads, 1):
        in_buffer = got.find(EOT_BYTES, 0, WORKED_BUFFER + len(EOT_BYTES) - 1)
        if size != WORKED_BUFFER + overlap:
            purpose = (f"is the token at {offset + overlap} straddled? reads the {overlap} bytes before it and "
                       f"{size - overlap} from it")
        elif not got:
            purpose = "end of file"
        elif in_buffer == -1:
            purpose = "no token starts in its first 8 bytes: move on 8"
        else:
            purpose = f"a token starts at {offset} + {in_buffer} = **{offset + in_buffer}**"
        rows.append([str(number), f"{offset}–{offset + len(got) - 1}" if got else f"{offset} (empty)",
                     code(got.decode('utf-8', errors='backslashreplace')) if got else "", purpose])
    with _file_of(data) as path:
        chunks = [count_chunk(path, start, end, [EOT]) for start, end in zip(boundaries, boundaries[1:])]
    merged = merge_counts(chunks)
    assert merged == count_pretokens(text, [EOT])
    return (
        f"The file holds {len(data)} bytes; `<|endoftext|>` ({len(EOT_BYTES)} bytes) starts at offsets "
        f"{' and '.join(map(str, starts))}. `find_chunk_boundaries(path, {WORKED_CHUNKS}, [b\"<|endoftext|>\"], "
        f"buffer_size={WORKED_BUFFER})` computes `chunk_size = {len(data)} // {WORKED_CHUNKS} = {chunk_size}`, guesses "
        f"{' and '.join(str(i * chunk_size) for i in range(1, WORKED_CHUNKS))}, and reads the file "
        f"{WORKED_BUFFER} + {overlap} = {WORKED_BUFFER + overlap} bytes at a time (the buffer, then the overlap of "
        f"`len(token) - 1` bytes). The reads it makes, recorded:\n\n"
        + markdown_table(["read", "bytes", "what it read", "what the search concludes"], rows, align="rrll")
        + f"\nIt returns `{boundaries}`: {len(boundaries) - 1} chunks, not {WORKED_CHUNKS}. The two chunks count "
        f"{thousands(sum(chunks[0].values()))} and {thousands(sum(chunks[1].values()))} pretokens; "
        f"`merge_counts` adds them up to {thousands(sum(merged.values()))} pretokens "
        f"({len(merged)} distinct), exactly `count_pretokens` of the whole text.\n"
    )


# The seed's three bugs, each shown by a course-written variant that has it

def boundary_with_lost_offset(data: bytes, guess: int, token: bytes, buffer_size: int) -> int:
    """Bug 1: after several reads, add the position found in the *last* read to the guess,
    forgetting the bytes the earlier reads skipped."""
    offset = guess
    while offset < len(data):
        window = data[offset: offset + buffer_size]
        found = window.find(token)
        if found != -1:
            return guess + found  # should be offset + found
        offset += buffer_size
    return len(data)


def reads_without_an_end(data: bytes, guess: int, token: bytes, buffer_size: int, give_up_after: int = 1000) -> int:
    """Bug 2: keep reading until the token is found, with no test for the end of the file.
    Returns how many reads were made before this simulation gave up (the real loop never ends)."""
    offset, reads = guess, 0
    while reads < give_up_after:
        window = data[offset: offset + buffer_size]  # b"" once past the end, for ever
        reads += 1
        if window.find(token) != -1:
            return reads
        offset += len(window)
    return reads


def boundary_without_overlap(data: bytes, guess: int, token: bytes, buffer_size: int) -> int:
    """Bug 3: read buffer_size bytes at a time with no overlap, so a token cut by a read's end
    is in neither read."""
    offset = guess
    while offset < len(data):
        found = data[offset: offset + buffer_size].find(token)
        if found != -1:
            return offset + found
        offset += buffer_size
    return len(data)


def course_boundary(data: bytes, guess: int, buffer_size: int) -> int:
    """The course's answer for one guess: ``find_chunk_boundaries`` with one inner boundary at ``guess``."""
    return step03_parallel._next_token_start(io.BytesIO(data), guess, [EOT_BYTES], len(data), buffer_size, len(EOT_BYTES) - 1)


def seed_bugs_snippet() -> str:
    buffer = 16
    long_document = ("x" * 37 + EOT + "y" * 10).encode("utf-8")
    no_token_after = (EOT + "z" * 40).encode("utf-8")
    straddling = ("x" * 28 + EOT + "y" * 10 + EOT + "w").encode("utf-8")
    rows = []
    guess = 4
    rows.append([
        "1. `boundaries[i] += pos` keeps only the position in the last read",
        f"{len(long_document)} bytes, token at 37, guess {guess}",
        f"cut at **{boundary_with_lost_offset(long_document, guess, EOT_BYTES, buffer)}**, inside the `x` run: the "
        f"guess plus the token's position in the third read (1), forgetting the {2 * buffer} bytes the first two reads skipped",
        f"cut at {course_boundary(long_document, guess, buffer)}",
    ])
    guess = 20
    reads = reads_without_an_end(no_token_after, guess, EOT_BYTES, buffer)
    rows.append([
        "2. no test for the end of the file",
        f"{len(no_token_after)} bytes, no token after the guess {guess}",
        f"still reading after {thousands(reads)} reads: `read` returns `b\"\"` at the end, and `find` -1, for ever",
        f"cut at {course_boundary(no_token_after, guess, buffer)} (the file size: no cut)",
    ])
    guess = 0
    rows.append([
        "3. reads without overlap",
        f"{len(straddling)} bytes, tokens at 28 and 51, guess {guess}",
        f"cut at **{boundary_without_overlap(straddling, guess, EOT_BYTES, buffer)}**: the token at 28 spans the "
        "reads of bytes 16–31 and 32–47 and is in neither; the cut moves to the next document",
        f"cut at {course_boundary(straddling, guess, buffer)}",
    ])
    return (
        f"Each row runs a variant of the boundary search with one of the three bugs (written for this page, "
        f"reads of {buffer} bytes) beside the course's search (same buffer, with overlap), on a small file.\n\n"
        + markdown_table(["bug", "file", "the variant with the bug", "`find_chunk_boundaries`"], rows)
    )


# What crosses between processes

def pickled_sizes_snippet(path: Path = TINYSTORIES_2MIB) -> str:
    relative = repo_relative(path)  # the size must not depend on where the clone is
    boundaries = find_chunk_boundaries(path, 2, [EOT_BYTES])
    (start, end), _ = zip(boundaries, boundaries[1:])
    text = path.read_bytes()[start:end].decode("utf-8")
    arguments = (relative, start, end, [EOT])
    counts = count_chunk(path, start, end, [EOT])
    protocol = 5
    sizes = [
        ("the chunk's text, if the parent sent it", len(pickle.dumps(text, protocol))),
        ("`count_chunk`'s four arguments: path, start, end, special tokens", len(pickle.dumps(arguments, protocol))),
        ("the counts the worker sends back", len(pickle.dumps(counts, protocol))),
    ]
    return (
        f"The first of two chunks of the TinyStories 2 MiB sample (bytes {thousands(start)}–{thousands(end - 1)}, "
        f"{thousands(sum(counts.values()))} pretokens, {thousands(len(counts))} distinct), pickled (protocol {protocol}):\n\n"
        + markdown_table(["what crosses", "pickled bytes"], [[what, thousands(size)] for what, size in sizes], align="lr")
    )


# Chunks on the sample: where the guesses land, how balanced the chunks are

BALANCE_CHUNKS = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)


def chunk_sizes(path: Path, desired_num_chunks: int) -> list[int]:
    boundaries = find_chunk_boundaries(path, desired_num_chunks, [EOT_BYTES])
    return [b - a for a, b in zip(boundaries, boundaries[1:])]


def balance_snippet(path: Path = TINYSTORIES_2MIB) -> str:
    data = path.read_bytes()
    documents = data.count(EOT_BYTES) + 1
    rows = []
    for k in (2, 8, 32, 128):
        sizes = chunk_sizes(path, k)
        rows.append([str(k), str(len(sizes)), f"{max(sizes) / (len(data) / k):.3f}"])
    return (
        f"The TinyStories 2 MiB sample holds {thousands(len(data))} bytes in {thousands(documents)} documents, "
        f"{thousands(len(data) // documents)} bytes each on average. Asked for $k$ chunks, `find_chunk_boundaries` "
        "returns:\n\n"
        + markdown_table(["$k$ asked", "chunks returned", "largest chunk / (size / $k$)"], rows, align="rrr")
    )


def draw_chunks(path: Path, out: Path) -> Path:
    data = path.read_bytes()
    size = len(data)
    separators = [i for i in range(size) if data.startswith(EOT_BYTES, i)] if size < 2**22 else []
    fig, (left, right) = panels(2)
    k = 4
    chunk_size = size // k
    boundaries = find_chunk_boundaries(path, k, [EOT_BYTES])
    window = (chunk_size - 6000, chunk_size + 6000)
    shown = [s for s in separators if window[0] <= s <= window[1]]
    left.vlines(shown, 0, 1, color="#bbbbbb", linewidth=1, label="<|endoftext|> (document starts)")
    left.axvline(chunk_size, color="#dd8452", linestyle="--", label=f"guess: size // {k} = {thousands(chunk_size)}")
    cut = boundaries[1]
    left.axvline(cut, color="#4c72b0", linewidth=2, label=f"boundary: next token start = {thousands(cut)}")
    left.annotate("", xy=(cut, 0.5), xytext=(chunk_size, 0.5), arrowprops={"arrowstyle": "->", "color": "#4c72b0"})
    left.set_xlim(*window)
    left.set_ylim(0, 1.35)
    left.set_yticks([])
    name_axes(left, "byte offset in the file", "", f"The first guess for {k} chunks moves to a document start", "upper left", 8,
              grid=None)
    sizes = [chunk_sizes(path, n) for n in BALANCE_CHUNKS]
    imbalance = [max(chunks) / (size / n) for n, chunks in zip(BALANCE_CHUNKS, sizes)]
    returned = [len(chunks) for chunks in sizes]
    right.plot(BALANCE_CHUNKS, imbalance, marker="o", color="#4c72b0", label="largest chunk / (size / k)")
    right.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    right.set_xscale("log", base=2)
    for n, ratio, got in zip(BALANCE_CHUNKS, imbalance, returned):
        if got != n:
            right.annotate(f"{got} returned", (n, ratio), textcoords="offset points", xytext=(-10, 8), fontsize=7)
    name_axes(right, "chunks asked for, k (log scale)", "largest chunk over an even share",
              "Chunks end at documents: the largest grows with k", "upper left")
    return save_png(fig, out)


# The measured speed-up, from the committed benchmark results

PARALLEL_BENCHMARK = RESULTS_DIR / "parallel" / "results.json"


def benchmark_snippet(path: Path = PARALLEL_BENCHMARK) -> str:
    results = read_json(path)
    by = {(r["size_mib"], r["contender"]): r for r in results["results"]}
    sizes = sorted({r["size_mib"] for r in results["results"]})
    one = {s: by[s, "1 process"]["median_seconds"] for s in sizes}
    two = {s: by[s, "2 workers"]["median_seconds"] for s in sizes}
    largest = sizes[-1]
    rate = (by[largest, "1 process"]["bytes"] / 2**20) / one[largest]
    start = results["fixed_costs"]["start 2 workers"]
    rows = [[f"{by[s, '1 process']['bytes'] / 2**20:.2f}", f"{one[s]:.3f}", f"{two[s]:.3f}", f"{one[s] / two[s]:.2f}×"]
            for s in sizes]
    crossover = results["crossovers"].get("2 workers")
    costs = results["fixed_costs"]
    in_workers, alone = costs["count both halves in the workers"], costs["count the whole file in this process"]
    model = 2 * rate * start
    return (
        f"Measured by `python -m bpe_ref bench parallel` on {results['date']} ({results['machine']}; "
        f"median of {results['repeats']} fresh processes each; the full table, with `spawn`, is in "
        "[benchmarks/parallel](benchmarks/parallel/README.md)):\n\n"
        + markdown_table(["MiB", "1 process (s)", "2 workers (s)", "speed-up"], rows, align="rrrr")
        + f"\nOne process counts about {rate:.1f} MiB/s ($r$); starting two workers costs about {start * 1000:.0f} ms ($s$), "
        + f"so the model puts the break-even $2 r s$ at {model:.1f} MiB. "
        + (f"Measured, two workers first win at {crossover:g} MiB. " if crossover else "Measured, two workers never won at these sizes. ")
        + f"Counting the two halves of 2 MiB in the workers took {in_workers:.2f} s against {alone:.2f} s for the whole file in one "
        + f"process, {alone / in_workers:.2f} times as fast where two free cores would give at most 2 (each worker also "
        "sends its counts back, and shares the cores with whatever else the machine runs): the model, which assumes "
        "$p$ free cores and nothing else to pay, puts the break-even early.\n"
    )


def snippets() -> dict[str, str]:
    return page_snippets("03", {
        "03-unsafe-cuts.md": unsafe_cuts_snippet(),
        "03-worked-example.md": worked_example_snippet(),
        "03-seed-bugs.md": seed_bugs_snippet(),
        "03-pickled-sizes.md": pickled_sizes_snippet(),
        "03-chunk-balance.md": balance_snippet(),
        "03-parallel-benchmark.md": benchmark_snippet(),
    })


def draw_figures(out_dir: Path) -> list[Path]:
    return [draw_chunks(TINYSTORIES_2MIB, out_dir / "03-chunks.png")]
