"""Where the course's shipped corpora live (``data/`` at the repository root).

The package is installed in editable mode from the repository (``pip install -e .``), so the data
sits next to it. Nothing here downloads anything.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = REPO_ROOT / "data"

TINYSTORIES_SAMPLE = DATA_DIR / "tinystories" / "tinystoriesV2_gpt4_train_head_10000lines.txt"
TINYSTORIES_2MIB = DATA_DIR / "tinystories" / "tinystories_v1_train_head_2MiB.txt"
TINYSTORIES_VALID = DATA_DIR / "tinystories" / "tinystories_v1_valid_head_blankline_separated.txt"
CS336_FIXTURES = DATA_DIR / "cs336_fixtures"
CORPUS_EN = CS336_FIXTURES / "corpus.en"
GPT2_VOCAB = CS336_FIXTURES / "gpt2_vocab.json"
GPT2_MERGES = CS336_FIXTURES / "gpt2_merges.txt"
REFERENCE_MERGES = CS336_FIXTURES / "train-bpe-reference-merges.txt"
REFERENCE_VOCAB = CS336_FIXTURES / "train-bpe-reference-vocab.json"
OTHER_LANGUAGES = DATA_DIR / "other_languages"
CHINESE_NOVEL = OTHER_LANGUAGES / "hongloumeng_zh.txt"
SPANISH_NOVEL = OTHER_LANGUAGES / "don_quijote_es_pg2000.txt"
RUSSIAN_STORIES = OTHER_LANGUAGES / "tinystories_ru_head_1476_stories.txt"


def data_file(path: Path) -> Path:
    """``path``, or a ``FileNotFoundError`` that says how to get the course data."""
    if not path.exists():
        raise FileNotFoundError(
            f"course data file not found: {path}. bpe_ref reads the corpora shipped in the repository's "
            "data/ folder: install it from a clone of the repository with `pip install -e .`"
        )
    return path
