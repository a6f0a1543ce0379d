"""On demand (not collected by pytest): every mistake of ``tests/test_mistakes.py`` graded under K secret seeds.

A hidden test draws its inputs from the grading's secret seed, so one seed catching a mistake does not say
that every class's seed does. This runs ``tests/test_mistakes.py`` with ``BPE_SEEDS`` (each test under the
seeds range(K), or START:STOP; its ``secret_seed`` fixture) and prints, per mistake (a test, and its
parameters), the graders it was graded with and under how many seeds it was caught (the test passed), with
the seeds that missed it and the first line of the failure::

    python tests/seeds_table.py [--seeds 20 | --seeds 100:120] [pytest arguments, e.g. -k "not in_the_worker"]

Run it ``nice``: about 75 s of CPU per seed for the in-process mistakes, as much again with the worker's.
"""

from __future__ import annotations

import argparse
import os
import re
from collections import defaultdict
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


class Tally:
    """A pytest plugin: per mistake, the seeds that caught it and those that missed it (with why)."""

    def __init__(self) -> None:
        self.caught: dict[str, list[int]] = defaultdict(list)
        self.missed: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self.graders: dict[str, tuple[str, ...]] = {}

    def pytest_runtest_logreport(self, report) -> None:
        name = report.nodeid.split("::")[-1]
        found = re.search(r"[\[-]seed(\d+)[\]-]", name)
        if found is None:
            return
        mistake = re.sub(r"\[seed\d+\]$|(?<=\[)seed\d+-|-seed\d+(?=\])", "", name)  # the test and its parameters
        self.graders[mistake] = dict(report.user_properties).get("graders") or self.graders.get(mistake, ())
        if report.when == "call" and report.passed:
            self.caught[mistake].append(int(found.group(1)))
        elif report.failed:
            why = getattr(getattr(report.longrepr, "reprcrash", None), "message", str(report.longrepr))
            self.missed[mistake].append((int(found.group(1)), re.sub(r"\s+", " ", why)[:90]))

    def table(self, k: int) -> str:
        rows = ["| mistake | graded by | caught / K | missed under seeds |", "|---|---|---|---|"]
        for mistake in self.graders:
            name = re.sub(r"\s+", " ", mistake.removeprefix("test_"))
            name = name if len(name) <= 110 else name[:107] + "..."
            missed = "; ".join(f"{seed}: {why}" for seed, why in self.missed[mistake])
            rows.append(f"| {name} | {', '.join(self.graders[mistake])} | {len(self.caught[mistake])}/{k} | {missed} |")
        return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="20", help="K (the seeds 0..K-1) or START:STOP (default 20)")
    options, pytest_arguments = parser.parse_known_args()
    k = len(range(*map(int, options.seeds.split(":"))))
    os.environ["BPE_SEEDS"] = options.seeds  # read by tests/test_mistakes.py when pytest imports it
    tally = Tally()
    code = pytest.main(["-n0", "-p", "no:cacheprovider", "-q", "--no-header", "--tb=line",
                        str(TESTS / "test_mistakes.py"), *pytest_arguments], plugins=[tally])
    print(f"\nseeds {options.seeds} (K = {k}); a mistake is caught under a seed when its test passes there\n")
    print(tally.table(k))
    return 0 if code in (0, 1) else int(code)


if __name__ == "__main__":
    raise SystemExit(main())
