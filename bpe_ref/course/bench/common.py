"""What every benchmark shares: the machine's description, ratios, subprocess runs and markdown
tables (medians, rounds, per-round ratios and exponents are :mod:`bpe_ref.measure`'s). Results are
written next to this code, under ``theory/benchmarks/``."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from ...measure import median  # noqa: F401 (the benchmarks' median: bpe_ref.measure's, re-exported)
from ...train.step03_parallel import default_num_workers


RESULTS_DIR = Path(__file__).resolve().parents[3] / "theory" / "benchmarks"  # next to the pages that read them


def machine_description() -> str:
    """One line: CPU model, cores, memory, OS and Python, so a reader knows what was measured."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = default_num_workers()
    memory = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GiB RAM"
    except (ValueError, OSError, AttributeError):
        pass
    return (f"{cpu}, {cores} cores{memory}, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def written_by(command: str, quick: bool) -> str:
    """The first line under a results page's title: which command wrote it, and when."""
    import datetime

    return (f"Written by `python -m bpe_ref bench {command}`" + (" --quick" if quick else "")
            + f" on {datetime.date.today().isoformat()}; rerun it to refresh these figures on your machine.")


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else float("inf")


def run_json_subprocess(code: str, env: dict[str, str] | None = None, timeout: float | None = None,
                        show_progress: bool = False) -> dict:
    """Run ``code`` in a fresh Python and return the JSON object it prints on its last line.

    A fresh process per measurement: peers' thread settings (``RAYON_NUM_THREADS``) take effect
    at import, and peak memory (``ru_maxrss``) is then the measurement's own. ``show_progress``
    lets what it writes on stderr through, as it comes.
    """
    full_env = dict(os.environ)
    full_env.update(env or {})
    completed = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                               stderr=None if show_progress else subprocess.PIPE, text=True, env=full_env,
                               timeout=timeout, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed ({completed.returncode}):\n{(completed.stderr or '')[-2000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
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
