"""``encode_iterable`` under a real memory limit, as the CS336 tests check it on Linux.

A fresh process builds the GPT-2 tokenizer, then caps its own address space (``RLIMIT_AS``) at
what it already uses plus 1 MB, and streams the 2 MiB TinyStories sample through
``encode_iterable``. Streaming must finish inside that cap; the control, encoding the same file
read whole, must run out of memory under the same cap (so the cap is tight enough to mean
something). tests/test_tokenizer_iterable.py measures the same with tracemalloc, on every OS.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")

SCRIPT = textwrap.dedent(
    """
    import resource, sys
    from bpe_ref import Tokenizer
    from bpe_ref.data_files import TINYSTORIES_2MIB

    def address_space() -> int:
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024

    mode = sys.argv[1]
    tok = Tokenizer.gpt2() if mode == "warm cache" else Tokenizer.gpt2(cache_size=1024)
    with open(TINYSTORIES_2MIB, encoding="utf-8") as f:
        warm_up = [next(f) for _ in range(200)] if mode != "warm cache" else f
        list(tok.encode_iterable(warm_up))  # the code paths (and, warm, the cache) before the cap
    resource.setrlimit(resource.RLIMIT_AS, (address_space() + 1_000_000, resource.getrlimit(resource.RLIMIT_AS)[1]))
    ids = 0
    try:
        with open(TINYSTORIES_2MIB, encoding="utf-8") as f:
            if mode == "read whole":
                ids = len(tok.encode(f.read()))
            else:
                for _ in tok.encode_iterable(f):
                    ids += 1
    except MemoryError:
        print("MemoryError after", ids, "ids")
        sys.exit(3)
    print(ids)
    """
)


def run_capped(mode: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("mode", ["cold small cache", "warm cache"])
def test_streaming_the_2mib_sample_fits_in_1mb_more_than_the_tokenizer(mode: str) -> None:
    result = run_capped(mode)
    assert result.returncode == 0, f"{mode}: {result.stdout}{result.stderr[-2000:]}"
    assert int(result.stdout.split()[-1]) > 400_000  # every id of the file came out


def test_the_cap_is_tight_enough_to_catch_reading_the_whole_file() -> None:
    result = run_capped("read whole")
    assert result.returncode == 3, f"expected a MemoryError under the cap: {result.stdout}{result.stderr[-2000:]}"
