"""What every benchmark and timing figure shares: the machine, fresh processes, both clocks, the corpora's
counts, tables, the results page and JSON, and plotting on fixed settings. Rounds, medians, per-round ratios and
exponents are :mod:`bpe_ref.measure`'s (step 09's module): nothing here times another way."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from ...corpus import read_corpus
from ...data_files import data_file
from ...measure import interleaved, median, timed
from ...pretokenize import DEFAULT_SPECIAL_TOKENS, count_pretokens
from ...train.step01_naive import count_pairs, split_into_bytes
from ...train.step03_parallel import default_num_workers

RESULTS_DIR = Path(__file__).resolve().parents[3] / "theory" / "benchmarks"  # next to the pages that read them
SPECIAL_TOKENS = list(DEFAULT_SPECIAL_TOKENS)  # what every benchmark trains and counts with


def machine_description() -> str:
    """One line: CPU model, cores, memory, OS and Python, so a reader knows what was measured."""
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = ""
    try:
        memory = f", {os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2**30:.0f} GiB RAM"
    except (ValueError, OSError, AttributeError):
        pass
    return (f"{cpu}, {default_num_workers()} cores{memory}, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def announce() -> tuple[str, float]:
    """Print the machine a benchmark runs on; return its description and the time the benchmark started."""
    machine = machine_description()
    print(f"machine: {machine}")
    return machine, time.perf_counter()


def load_average() -> float | None:
    """The 1-minute load average (how busy the shared machine was), where the system has one."""
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):  # Windows has none
        return None


def today() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")


def record(command: str, **fields) -> dict:
    """The header of a JSON record of measurements: which command wrote it, when, on what machine."""
    return {"command": command, "date": today(), "machine": machine_description(), **fields}


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else float("inf")


def in_fresh_process(function: Callable, *args, env: dict[str, str] | None = None, timeout: float | None = None,
                     show_progress: bool = False):
    """``function(*args)`` (a module-level function; arguments and result JSON) in a fresh Python,
    which prints the result as JSON on its last line.

    A fresh process per measurement: peers' thread settings (``RAYON_NUM_THREADS``) take effect
    at import, and peak memory (``ru_maxrss``) is then the measurement's own. ``show_progress``
    lets what it writes on stderr through, as it comes.
    """
    module = function.__module__
    if module == "__main__":  # run as ``python -m package.module``: the fresh process imports it by name
        module = sys.modules["__main__"].__spec__.name
    code = f"import json; from {module} import {function.__name__} as f; print(json.dumps(f(*{args!r})))"
    completed = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                               stderr=None if show_progress else subprocess.PIPE, text=True,
                               env={**os.environ, **(env or {})}, timeout=timeout, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed ({completed.returncode}):\n{(completed.stderr or '')[-2000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def peak_rss_mib() -> float:
    """This process's peak resident set size so far, in MiB (in a fresh process: the measurement's own)."""
    import resource

    per_mib = 2**20 if sys.platform == "darwin" else 2**10  # ru_maxrss is in bytes on macOS, KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / per_mib


def wall_and_cpu(contenders: Mapping[str, Callable[[], object]], rounds: int) -> dict[str, dict[str, list[float]]]:
    """:func:`bpe_ref.measure.interleaved` on both clocks at once: ``{"times": wall, "cpu": CPU}``.

    Wall time is what a ratio against a contender on several cores must compare; CPU time
    (``time.process_time``) leaves out the moments other processes held the CPU, which on a shared
    machine vary from call to call: two contenders on this one thread compare better by it.
    """
    cpu: dict[str, list[float]] = {label: [] for label in contenders}

    def on_cpu_clock(label: str, fn: Callable[[], object]) -> Callable[[], None]:
        def call() -> None:
            start = time.process_time()
            fn()
            cpu[label].append(time.process_time() - start)
        return call

    wall = interleaved({label: on_cpu_clock(label, fn) for label, fn in contenders.items()}, rounds)
    return {"times": wall, "cpu": cpu}


def median_time(fn: Callable[[], object], repeats: int) -> float:
    """The median wall seconds of ``repeats`` calls of ``fn``, each :func:`bpe_ref.measure.timed`
    (for a measurement with no peer to pair it with in rounds)."""
    return median([timed(fn) for _ in range(repeats)])


class Laps:
    """Where the time of a piece of code goes: ``lap(part)`` adds the seconds since the previous lap
    (or since :meth:`restart`) to ``part``; ``seconds`` sums them per part, ``parts`` starting at 0.
    For a profile of a loop's parts, where rounds of whole calls cannot say which part costs what."""

    def __init__(self, parts: Sequence[str] = ()) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(parts, 0.0)
        self.restart()

    def restart(self) -> None:
        """The next lap starts now: what ran since the previous one is left out."""
        self.last = time.perf_counter()

    def lap(self, part: str) -> None:
        now = time.perf_counter()
        self.seconds[part] = self.seconds.get(part, 0.0) + now - self.last
        self.last = now


def growth(contenders: Mapping[str, Callable[[str], object]], pieces: Mapping[int, str], expected: Callable[[str], object],
           what: str, repeats: int, budget: float = float("inf"), longest: Mapping[str, int] | None = None
           ) -> dict[str, list[tuple[int, float]]]:
    """How each contender's time grows with its input: ``{label: [(size, CPU seconds), ...]}``, the
    median of ``repeats`` runs on each of ``pieces`` (``{size: input}``, smallest first), timed in
    interleaved rounds of :func:`bpe_ref.measure.interleaved` after a first run whose answer is checked
    against ``expected(piece)`` (a mismatch names the contender, ``what`` and the size).

    A contender whose first run on a size takes longer than ``budget`` seconds is timed by that run
    alone and left out of the larger sizes (slow by design: the next size would take about four
    times as long); one whose ``repeats`` runs would add up to more is not repeated. ``longest``
    leaves a contender out above that size. CPU time: a growth exponent compares runs made minutes
    apart, which no round pairs up, so wall time would fold the load of those minutes into the exponent."""
    results: dict[str, list[tuple[int, float]]] = {label: [] for label in contenders}
    growing = dict(contenders)
    for size, piece in pieces.items():
        answer = expected(piece)
        first: dict[str, float] = {}
        for label, run in growing.items():
            if size > (longest or {}).get(label, size):
                continue
            start = time.process_time()
            if run(piece) != answer:
                raise AssertionError(f"{label} disagrees with {what}, {size} characters")
            first[label] = time.process_time() - start
        cheap = {label: lambda run=growing[label]: run(piece) for label, seconds in first.items() if seconds * repeats < budget}
        seconds = interleaved(cheap, repeats, clock=time.process_time) if cheap else {}
        for label in first:  # in the contenders' order
            results[label].append((size, median(seconds[label]) if label in seconds else first[label]))
            if first[label] > budget:
                del growing[label]
    return results


def deep_size(*objects: object) -> int:
    """Bytes CPython reports for ``objects`` and everything they hold (each object counted once;
    ints, bytes and tuples inside lists, dicts and tuples followed)."""
    seen: set[int] = set()
    total = 0
    todo = list(objects)
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, (list, tuple)):
            todo.extend(obj)
    return total


@lru_cache(maxsize=8)
def corpus_counts(path: Path) -> dict[bytes, int]:
    """The pretoken counts of the corpus at ``path``, ``<|endoftext|>`` special (cached: do not change the dict)."""
    return count_pretokens(read_corpus(data_file(Path(path))), DEFAULT_SPECIAL_TOKENS)


def as_words(pretoken_counts: Mapping[bytes, int]) -> dict[tuple[bytes, ...], int]:
    """Each pretoken split into its bytes, with its count: what every trainer starts from."""
    return {split_into_bytes(pretoken): count for pretoken, count in pretoken_counts.items()}


def pair_counts(pretoken_counts: Mapping[bytes, int]) -> dict[tuple[bytes, bytes], int]:
    """The byte-pair counts merge 1 reads, weighted by pretoken counts (step 01's ``count_pairs``)."""
    return count_pairs(as_words(pretoken_counts))


def markdown_table(headers: Sequence[object], rows: Iterable[Sequence[object]], align: str | None = None) -> str:
    """A GitHub-flavoured Markdown table (no newline at its end). ``align`` holds one of ``l``, ``r``,
    ``c`` per column; without it, the separator is the plain ``|---|`` of the benchmark pages, which
    the page generators and tests parse."""
    headers = [str(h) for h in headers]
    align = align or "-" * len(headers)
    if len(align) != len(headers):
        raise ValueError(f"align {align!r} does not have one letter per column ({len(headers)})")
    marks = {"l": ":--", "r": "--:", "c": ":-:", "-": "---"}
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
    for row in rows:
        cells = [str(c) for c in row]
        if len(cells) != len(headers):
            raise ValueError(f"row {cells} does not have {len(headers)} cells")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def fixed_width_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [list(map(str, headers))] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    out = []
    for n, row in enumerate(cells):
        out.append("  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


CHECK_HEADERS = ["target", "measured", "limit", "met"]
Check = tuple[str, str, str, bool]  # (target, measured, limit, met): a row of a TARGET table


def at_least(name: str, value: float, limit: float) -> Check:
    return name, f"{value:.2f}x", f">= {limit}x", value >= limit


def at_most(name: str, value: float, limit: float) -> Check:
    return name, f"{value:.2f}x", f"<= {limit}x", value <= limit


def check_rows(checks: Sequence[Check], no: str = "NO") -> list[list[str]]:
    """Target checks ``(name, measured, limit, met)`` as table rows; ``no`` marks a target missed."""
    return [[name, value, limit, "yes" if met else no] for name, value, limit, met in checks]


Section = tuple[str, Sequence[str], Sequence[Sequence[object]]]  # (title, headers, rows): one table


def print_tables(sections: Sequence[Section], out=None) -> None:
    """Each table on stdout under its title, in fixed width: what users and scripts read."""
    for title, headers, rows in sections:
        print(f"\n{title}\n{fixed_width_table(headers, rows)}", file=out or sys.stdout)


def print_targets(checks: Sequence[Check], title: str, out=None) -> None:
    """The TARGET table on stdout: what ``python -m bpe_ref bench ...`` users and scripts read."""
    print_tables([(title, CHECK_HEADERS, check_rows(checks))], out)


def markdown_targets(checks: Sequence[Check]) -> str:
    """The TARGET table of a results page, a missed target in bold."""
    return markdown_table(CHECK_HEADERS, check_rows(checks, no="**no**"))


def markdown_sections(sections: Sequence[Section], heading: str = "##") -> str:
    """Each table under a Markdown heading of its title, a blank line before each heading."""
    return "\n".join(f"\n{heading} {title}\n\n{markdown_table(headers, rows)}" for title, headers, rows in sections)


# What every benchmark command has: its options for output, its results page and JSON


def add_output_arguments(parser: argparse.ArgumentParser, name: str, what: str) -> None:
    """``--out`` (``theory/benchmarks/NAME`` by default; ``what`` is written there) and ``--no-write``."""
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / name, help=f"where to write {what}")
    parser.add_argument("--no-write", action="store_true", help="print only; write no files")


def write_results(out: Path, name: str, quick: bool, document: dict | None = None, took: float | None = None,
                  **fields) -> None:
    """``out/README.md``: the template ``NAME.md`` beside the benchmarks (how it measures, how to read it) with
    ``fields`` and the line that says which command wrote it, and when; given a ``document``, ``out/results.json``."""
    out.mkdir(parents=True, exist_ok=True)
    if document is not None:
        write_json(out / "results.json", document)
    template = (Path(__file__).parent / f"{name}.md").read_text(encoding="utf-8")
    written = (f"Written by `python -m bpe_ref bench {name}{' --quick' if quick else ''}` on {today()}"
               + (f" in {took:.0f} s" if took is not None else "") + "; rerun it to refresh these figures on your machine.")
    (out / "README.md").write_text(template.format(written=written, **fields), encoding="utf-8")
    print(f"wrote {out / 'README.md'} beside {', '.join(sorted(p.name for p in out.iterdir() if p.name != 'README.md'))}")


def finish(args: argparse.Namespace, name: str, started: float,
           plots: Mapping[str, Callable[[Path], object]] | None = None, document: dict | None = None,
           timed: bool = False, out=None, **fields) -> int:
    """How every benchmark command ends, its tables printed: how long it took since :func:`announce` (on ``out``);
    then, unless ``--no-write``, each of ``plots`` (``{file name: draw(path)}``) and :func:`write_results` (the
    page says how long it took if ``timed``) into ``--out``. The command's exit status, 0."""
    took = time.perf_counter() - started
    print(f"\nbenchmark took {took:.0f} s", file=out or sys.stdout)
    if not args.no_write:
        for file_name, draw in (plots or {}).items():
            draw(args.out / file_name)
        write_results(args.out, name, args.quick, document, took if timed else None, **fields)
    return 0


def write_json(path: Path, document: dict) -> Path:
    """Write a measurement as the committed ones are (indented by one, ending in a newline); say so."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return path


# Plotting, shared by the benchmarks and the pages' figures

# Figure sizes and resolution: fixed, so a rerun writes the same bytes.
DPI = 110
WIDE = (10.0, 4.0)


def pyplot(**rc):
    """pyplot on the non-interactive Agg backend, on matplotlib's own defaults (never a machine's
    ``matplotlibrc``) updated by ``rc``: settings that do not vary by machine."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcdefaults()
    plt.rcParams.update(rc)
    return plt


def save_png(fig, path: Path, tight: bool = False, rect: tuple[float, float, float, float] | None = None) -> Path:
    """Save ``fig`` as a PNG with no software or date metadata (reruns give the same bytes), laid out
    first by ``tight_layout(rect=rect)`` if ``tight``; close it."""
    import matplotlib.pyplot as plt

    if tight:
        fig.tight_layout(rect=rect)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    return path


def panels(columns: int = 1, figsize: tuple[float, float] = WIDE, layout: str | None = "constrained", **kwargs):
    """A figure of ``columns`` axes side by side, on settings that do not vary by machine: ``(fig, axes)``."""
    rc = {"font.size": 9, "axes.titlesize": 10, "figure.dpi": DPI, "savefig.dpi": DPI}
    return pyplot(**rc).subplots(1, columns, figsize=figsize, layout=layout, **kwargs)


def name_axes(ax, xlabel: str, ylabel: str, title: str, legend: str | None = None, fontsize: float | None = None,
              grid: str | None = "major", log: str = "") -> None:
    """Name an axis's x and y axes and title it; then (after every line is drawn, since a legend
    lists the lines drawn so far) a legend at ``legend`` and a light grid (``grid``: which ticks).
    ``log`` names the axes on a log scale (``"x"``, ``"y"``, ``"xy"``)."""
    for axis in log:
        getattr(ax, f"set_{axis}scale")("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend:
        ax.legend(loc=legend, fontsize=fontsize)
    if grid:
        ax.grid(True, which=grid, alpha=0.3)


def plot_series(ax, series, styles, label) -> None:
    """One line per ``(name, xs, ys)`` of ``series``, drawn as ``styles[name] = (format, colour)`` and
    labelled ``label(name, xs, ys)`` (say, with its fitted growth exponent)."""
    for name, xs, ys in series:
        fmt, colour = styles[name]
        ax.plot(xs, ys, fmt, color=colour, label=label(name, xs, ys))


def labelled_bars(ax, names, values, color, text, offset=lambda value: value) -> None:
    """Horizontal bars, one per name from the top, each with ``text(value)`` written at ``offset(value)``."""
    ax.barh(range(len(values)), values, color=color)
    ax.set_yticks(range(len(values)), names)
    for position, value in enumerate(values):
        ax.text(offset(value), position, text(value), va="center")


def grouped_bars(ax, names, series, width: float = 0.8, fontsize: float = 8) -> list:
    """A group of bars per name (the x ticks): one bar per ``(values, options of ax.bar)`` of ``series``,
    side by side, ``width`` wide together. Returns the bars of each series."""
    step = width / len(series)
    bars = [ax.bar([x + (i - (len(series) - 1) / 2) * step for x in range(len(names))], values, step, **options)
            for i, (values, options) in enumerate(series)]
    ax.set_xticks(range(len(names)), names, fontsize=fontsize)
    return bars
