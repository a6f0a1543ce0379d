"""On demand (not collected by pytest): how often a class's secret seed misses a mistake that no fixed case catches.

A mistake of ``tests/test_mistakes.py`` that no fixed hidden case catches (``NOT_BY_A_FIXED_CASE`` in
``tests/test_grading_redteam.py``) loses its points only through the inputs its task's hidden test draws from the
class's secret seed; under a seed whose draws miss it, a whole class keeps the mistake's points. The default run grades
such a mistake under one seed (or four under ``BPE_EXHAUSTIVE=1``). This grades each under the secret seeds range(K),
in process with the graders' private copy as ``tests/test_mistakes.py`` does: first the generated inputs alone (no
shrinking), then, where they miss, the task's whole hidden test (some catch it by a seeded check that is not a
strategy, a measured count for one). It prints, per lab, every mistake missed under some seed and under which, and
exits 1 when one is missed under more than ``--above`` of the seeds::

    python tests/miss_rates.py [--seeds 100 | --seeds 200:300] [--labs 01,06] [--above 0.01]

Run it ``nice``, a lab a process (``--labs``): 2 to 15 minutes of CPU per lab under 100 seeds on a 2-core machine.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def missed_seeds(lab: str, seeds: range, progress=print) -> dict[tuple[str, str], list[int]]:
    """(mistake, task) -> the seeds of ``seeds`` under which ``lab``'s hidden test of that task misses it, for every
    mistake of ``lab`` that no fixed case catches (every mistake of a lab that ``NOT_BY_A_FIXED_CASE`` does not sort,
    labs 02, 04 and 05, whose trainers' hidden tests are measured)."""
    sys.path.insert(0, str(TESTS))
    import test_grading_redteam as redteam

    graders, _, declarations, generated_fail, mistaken = redteam._generated_inputs_of(lab)
    verdicts = sys.modules[f"{type(graders.LAB).__module__.split('.course')[0]}.course.trusted.verdicts"]

    def whole_test_fails(function, name: str, seed: int) -> bool:
        from test_mistakes import read_only_helper

        # Lab 10 grades tree_reduce, and count_ranges's graph too, through the notebook's read-only helper that calls it.
        tests = {"tree_reduce": [("tree_shape", read_only_helper(function, "tree_shape"))],
                 "count_ranges": [(name, function), ("task_graph", read_only_helper(function, "task_graph"))]
                 }.get(name, [(name, function)]) if lab == "10_distributed" else [(name, function)]
        with verdicts.hidden_seed(seed), contextlib.redirect_stdout(io.StringIO()):  # its lines of passed checks
            return any(redteam._fails(lambda graded=graded, called=called: getattr(graders, f"check_{graded}_properties")(called))
                       for graded, called in tests)

    def caught(cell: str, name: str, changes, seed: int) -> bool:
        # A fresh copy for each grading: some mistakes keep answers from call to call, which one grading would not have.
        # The generated inputs first, where they are graded as the hidden test grades them (not by a judge: lab 05).
        # (lab 10's tree_reduce, graded through tree_shape's declaration, by its whole hidden test alone)
        generated_first = name in declarations and all(graded.judge is None for graded in declarations[name])
        return ((generated_first and generated_fail(mistaken(cell, name, changes), name, seed))
                or whole_test_fails(mistaken(cell, name, changes), name, seed))

    missed = {}
    for label, cell, name, changes in redteam._fixed_case_mistakes(lab):
        if lab in redteam.NOT_BY_A_FIXED_CASE and label not in redteam.NOT_BY_A_FIXED_CASE[lab]:
            continue  # a fixed case catches it under every seed
        started = time.process_time()
        missed[label, name] = [seed for seed in seeds if not caught(cell, name, changes, seed)]
        progress(f"{lab} {label} ({name}): missed under {len(missed[label, name])} of {len(seeds)} "
                 f"({time.process_time() - started:.1f} s of CPU)")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="100", help="K (the seeds 0..K-1) or START:STOP (default 100)")
    parser.add_argument("--labs", default="", help="comma-separated lab numbers or names (default: every lab)")
    parser.add_argument("--above", type=float, default=0.01, help="the share of seeds a miss may reach (default 0.01)")
    parser.add_argument("--quiet", action="store_true", help="print the table only, not a line per mistake")
    options = parser.parse_args()
    try:
        seeds = range(*map(int, options.seeds.split(":")))
    except (TypeError, ValueError):
        parser.error(f"--seeds takes K or START:STOP, not {options.seeds!r}")
    if not seeds:
        parser.error(f"--seeds {options.seeds} holds no seed")
    sys.path.insert(0, str(TESTS))
    from bpe_ref.course.notebooks import lab_names

    LABS = lab_names()
    wanted = [part.strip() for part in options.labs.split(",") if part.strip()]
    labs = [lab for lab in LABS if not wanted or any(lab.startswith(part) for part in wanted)]
    if wanted and not labs:
        parser.error(f"no lab of {sorted(LABS)} starts with {options.labs!r}")
    worst = 0.0
    for lab in labs:
        missed = missed_seeds(lab, seeds, progress=(lambda line: None) if options.quiet else print)
        rows = [(len(found) / len(seeds), label, name, found) for (label, name), found in missed.items() if found]
        print(f"\n{lab}: {len(missed)} mistakes measured, {len(rows)} missed under some of the seeds "
              f"{seeds.start}..{seeds.stop - 1}\n")
        if rows:
            print("| mistake | task | missed | under seeds |\n|---|---|---|---|")
            for share, label, name, found in sorted(rows, reverse=True):
                print(f"| {label} | {name} | {len(found)}/{len(seeds)} ({share:.0%}) | {', '.join(map(str, found))} |")
            worst = max(worst, rows and max(row[0] for row in rows))
    print(f"\nthe most seeds a mistake was missed under: {worst:.1%} (at most {options.above:.1%} allowed)")
    return 1 if worst > options.above else 0


if __name__ == "__main__":
    raise SystemExit(main())
