"""V3: V2's merge loop, fed by pretoken counts computed in parallel worker processes.

On real corpora pretokenization (running the GPT-2 regex over every byte) costs as much as the
merge loop or more, and it is embarrassingly parallel once the file is cut at special tokens:
see :func:`bpe_ref.pretokenize.count_pretokens_in_file`. The merge loop is V2's, unchanged:
:func:`merge_steps` and :func:`train` *are* V2's functions. Theory:
``theory/03-parallel-pretokenization.md``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..corpus import StrPath
from ..pretokenize import count_pretokens_in_file
from .step02_incremental import merge_steps, train

__all__ = ["count_pretokens_in_parallel", "default_num_workers", "merge_steps", "train"]


def default_num_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS
        return os.cpu_count() or 1


def count_pretokens_in_parallel(
    path: StrPath, special_tokens: Sequence[str], num_workers: int | None = None
) -> dict[bytes, int]:
    """The pretoken counts of the file at ``path``, in ``num_workers`` processes (default: all cores)."""
    return count_pretokens_in_file(path, special_tokens, num_workers or default_num_workers())
