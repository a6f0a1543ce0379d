"""Shared fixtures of the training-half tests (pretokenization, trainers, serialization, data).

Keep fixtures here generic; fixtures of the GPT-2 encoding tests are prefixed ``gpt2_``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_ref import data_files
from bpe_ref.serialization import load_merges, load_vocab

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return REPO_ROOT / "data"


@pytest.fixture(scope="session")
def corpus_en_path() -> Path:
    """CS336's ``corpus.en``: the corpus of the reference train-BPE test."""
    return data_files.data_file(data_files.CORPUS_EN)


@pytest.fixture(scope="session")
def reference_merges() -> list[tuple[bytes, bytes]]:
    """CS336's reference merges for ``corpus.en``, vocab 500, special token ``<|endoftext|>``."""
    return load_merges(data_files.data_file(data_files.REFERENCE_MERGES))


@pytest.fixture(scope="session")
def reference_vocab() -> dict[int, bytes]:
    """CS336's reference vocabulary for the same run (its ids differ from ours: compare the byte sets)."""
    return load_vocab(data_files.data_file(data_files.REFERENCE_VOCAB))


@pytest.fixture
def write_corpus(tmp_path):
    """Factory: write ``str`` (as UTF-8) or ``bytes`` to a fresh file under ``tmp_path``; returns its path."""
    counter = iter(range(1_000_000))

    def write(content: str | bytes, name: str | None = None) -> Path:
        path = tmp_path / (name or f"corpus_{next(counter)}.txt")
        data = content.encode("utf-8") if isinstance(content, str) else content
        path.write_bytes(data)
        return path

    return write



# ---- spreading the suite over the cores (pytest-xdist, ``--dist loadgroup``) --------------------
#
# Tests that share a module-scoped fixture run in one process, so that the fixture is built once:
# their group is the module, or the module and the fixture's parameter when the fixture is built
# once per parameter (a module-scoped fixture with ``params=``, such as one grading batch per lab).
# Any other test is a group of its own and goes to whichever process is free. Groups are handed
# out in the collection's order (``--no-loadscope-reorder``), which this hook makes: the
# per-parameter groups first (the grading batches, the costliest), then groups holding a test
# marked ``slow``, then larger groups before smaller ones, so that the processes finish together.
# A new lab adds its groups by itself: there is no list to edit.


def _shared_fixture_group(item) -> tuple[str, bool] | None:
    """``(group, per parameter)`` of a test that uses a module-scoped fixture, else None."""
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    shared = [name for name in item.fixturenames if name in definitions and definitions[name][-1].scope == "module"]
    if not shared:
        return None
    module = item.nodeid.split("::", 1)[0]
    params = getattr(getattr(item, "callspec", None), "params", {})
    keys = [f"{name}={params[name]}" for name in shared if name in params]
    # xdist reads a group from the text after the last "@" of a node id, if no "]" follows it.
    group = "::".join([module, *keys]).replace("@", "_").replace("]", ")")
    return group, bool(keys)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the group marks
def pytest_collection_modifyitems(config, items):
    if not hasattr(config, "workerinput"):  # not an xdist worker: keep pytest's order
        return
    groups: dict[str, list] = {}
    per_parameter: set[str] = set()
    for item in items:
        shared = _shared_fixture_group(item)
        group = shared[0] if shared else item.nodeid
        if shared and shared[1]:
            per_parameter.add(group)
        groups.setdefault(group, []).append(item)

    def cost(group: str) -> tuple:
        members = groups[group]
        slow = any(member.get_closest_marker("slow") for member in members)
        return (group not in per_parameter, not slow, -len(members))

    order = sorted(groups, key=cost)  # stable: the collection's order among equals
    items[:] = [item for group in order for item in groups[group]]
    for group in order:
        if len(groups[group]) > 1 or group != groups[group][0].nodeid:
            for item in groups[group]:
                item.add_marker(pytest.mark.xdist_group(group))
