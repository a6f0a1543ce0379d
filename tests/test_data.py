"""data/README.md is the record of the shipped data: every file is listed with its true size and
sha256, and the quirks it documents hold."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from bpe_ref import data_files

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
README = DATA_DIR / "README.md"
# A manifest row: | `path` | bytes | sha256 | licence |
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*([\d,]+)\s*\|\s*([0-9a-f]{64})\s*\|")
EOT = b"<|endoftext|>"


def manifest() -> dict[str, tuple[int, str]]:
    rows: dict[str, tuple[int, str]] = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            path, size, sha256 = match.groups()
            assert path not in rows, f"data/README.md lists {path} twice"
            rows[path] = (int(size.replace(",", "")), sha256)
    return rows


def shipped_files() -> list[str]:
    return sorted(
        p.relative_to(DATA_DIR).as_posix() for p in DATA_DIR.rglob("*") if p.is_file() and p != README
    )


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def test_every_shipped_file_is_recorded_and_nothing_else():
    recorded = set(manifest())
    shipped = set(shipped_files())
    assert shipped - recorded == set(), f"files under data/ missing from data/README.md: {sorted(shipped - recorded)}"
    assert recorded - shipped == set(), f"data/README.md lists files that are not shipped: {sorted(recorded - shipped)}"


@pytest.mark.parametrize("relative_path", sorted(manifest()))
def test_size_and_sha256_match_the_readme(relative_path):
    size, sha256 = manifest()[relative_path]
    path = DATA_DIR / relative_path
    assert path.stat().st_size == size, f"{relative_path}: {path.stat().st_size} bytes, README says {size}"
    assert sha256_of(path) == sha256, f"{relative_path}: sha256 differs from data/README.md"


def test_data_stays_small():
    total = sum((DATA_DIR / p).stat().st_size for p in shipped_files())
    assert total < 20 * 10**6


def test_the_package_paths_point_at_recorded_files():
    recorded = manifest()
    for name in ["TINYSTORIES_SAMPLE", "TINYSTORIES_2MIB", "TINYSTORIES_VALID", "CORPUS_EN", "GPT2_VOCAB",
                 "GPT2_MERGES", "REFERENCE_MERGES", "REFERENCE_VOCAB"]:
        path = getattr(data_files, name)
        assert path.relative_to(data_files.DATA_DIR).as_posix() in recorded, name


def test_licence_texts_are_shipped():
    licences = DATA_DIR / "licenses"
    assert "Community Data License Agreement – Sharing – Version 1.0" in (licences / "CDLA-Sharing-1.0.txt").read_text(encoding="utf-8")
    assert "Copyright (c) 2025 stanford-cs336" in (licences / "MIT-stanford-cs336.txt").read_text(encoding="utf-8")
    assert "Modified MIT License" in (licences / "GPT-2-modified-MIT.txt").read_text(encoding="utf-8")


# --- the quirks data/README.md documents ---------------------------------------------------------


def test_corpora_are_valid_utf8():
    for name in ["TINYSTORIES_SAMPLE", "TINYSTORIES_2MIB", "TINYSTORIES_VALID", "CORPUS_EN"]:
        getattr(data_files, name).read_bytes().decode("utf-8")  # raises if not


def test_2mib_head_ends_mid_story_without_a_newline():
    data = data_files.TINYSTORIES_2MIB.read_bytes()
    assert len(data) == 2 * 1024 * 1024
    assert not data.endswith(b"\n")
    assert data.count(EOT) == 2316


def test_valid_head_has_no_separator():
    assert EOT not in data_files.TINYSTORIES_VALID.read_bytes()


def test_train_head_separators_and_unfinished_last_story():
    data = data_files.TINYSTORIES_SAMPLE.read_bytes()
    assert data.count(b"\n" + EOT + b"\n") == 1727
    assert data.endswith(b"\n") and not data.rstrip().endswith(EOT)


def test_gpt2_merges_has_no_version_header():
    assert not data_files.GPT2_MERGES.read_text(encoding="utf-8").startswith("#version")
