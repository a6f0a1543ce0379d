"""On demand: where a run's time goes, test by test (a pytest plugin, and a summary of what it wrote).

``--durations`` gives each test's wall time; that alone does not tell a test that computes from one that waits (a
backstop, a server's start, a sleep), which on a 2-core machine holds a core's share of the run while it spends none.
This plugin writes, for each test, its wall time, the CPU time of the test process, and that of the processes it
started and waited for (graders, nbgrader, kernels, workers: ``RUSAGE_CHILDREN``), one line a test::

    BPE_CPU_BY_TEST=/tmp/cpu.tsv PYTHONPATH=tests python -m pytest -p cpu_by_test
    python tests/cpu_by_test.py /tmp/cpu.tsv [--top 30]

The summary lists the tests that cost most CPU and those that waited most (wall time less CPU time). A process started
by a fixture is counted where it is waited for, and one that is never waited for (a browser, a hub) not at all: read a
test's idle time as an upper bound. Each xdist worker appends to the same file.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import pytest


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    path = os.environ.get("BPE_CPU_BY_TEST")
    if not path:
        yield
        return
    wall, own, children = time.monotonic(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    yield
    line = (f"{time.monotonic() - wall:.3f}\t{_cpu(resource.RUSAGE_SELF) - own:.3f}\t"
            f"{_cpu(resource.RUSAGE_CHILDREN) - children:.3f}\t{item.nodeid}\n")
    with open(path, "a", encoding="utf-8") as file:  # one write a line: the workers' lines do not interleave
        file.write(line)


def summary(path: str, top: int = 30) -> str:
    """The tests of ``path`` (lines this plugin wrote) that cost most CPU, and those that waited most."""
    rows = []
    with open(path, encoding="utf-8") as file:
        for line in file:
            wall, own, children, nodeid = line.rstrip("\n").split("\t", 3)
            rows.append((float(wall), float(own) + float(children), nodeid))
    total_wall, total_cpu = sum(row[0] for row in rows), sum(row[1] for row in rows)
    lines = [f"{len(rows)} tests: {total_wall:.0f} s of test time, {total_cpu:.0f} s of CPU time in them", "",
             f"{'CPU s':>7}  {'wall s':>7}  most CPU"]
    lines += [f"{cpu:7.1f}  {wall:7.1f}  {nodeid}" for wall, cpu, nodeid in sorted(rows, key=lambda r: -r[1])[:top]]
    lines += ["", f"{'idle s':>7}  {'wall s':>7}  most waiting (wall less CPU)"]
    lines += [f"{wall - cpu:7.1f}  {wall:7.1f}  {nodeid}"
              for wall, cpu, nodeid in sorted(rows, key=lambda r: r[1] - r[0])[:top] if wall - cpu > 0.5]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", help="the file BPE_CPU_BY_TEST named")
    parser.add_argument("--top", type=int, default=30, help="how many tests each list shows (default 30)")
    arguments = parser.parse_args()
    if not os.path.exists(arguments.path):
        sys.exit(f"cpu_by_test: no such file: {arguments.path} (run pytest with BPE_CPU_BY_TEST={arguments.path} first)")
    print(summary(arguments.path, arguments.top))
