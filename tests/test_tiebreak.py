"""The tie-break rule lives in one module: best_pair states it, and the heap key pair_rank_key
is the same order turned around. Both are checked against the rule as the design states it,
with plain Python comparisons of counts and byte strings."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bpe_ref.tiebreak import SortKeys, best_pair, pair_rank_key, token_sort_key

PROPERTY = settings(derandomize=True, deadline=None, database=None, max_examples=300)

TOKENS = st.one_of(st.binary(min_size=1, max_size=5), st.sampled_from([b"a", b"ab", b"abc", b"b", b"\x00", b"\xff", b"\xff\xff"]))


@PROPERTY
@given(TOKENS, TOKENS)
@example(b"ab", b"a")  # an extension is greater than its prefix
@example(b"\xff", b"\x00\xff")
@example(b"a\x00", b"a")
def test_token_sort_key_reverses_byte_order(x, y):
    assert (token_sort_key(x) < token_sort_key(y)) == (x > y)
    assert (token_sort_key(x) == token_sort_key(y)) == (x == y)


def design_winner(pair_counts: dict[tuple[bytes, bytes], int]) -> tuple[bytes, bytes]:
    """Highest count; among equal counts, the greatest (left_bytes, right_bytes)."""
    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))


@PROPERTY
@given(st.dictionaries(st.tuples(TOKENS, TOKENS), st.integers(1, 4), min_size=1, max_size=30))
@example({(b"a", b"b"): 3, (b"b", b"c"): 3, (b"a", b"c"): 2})
@example({(b"ab", b"c"): 1, (b"a", b"bc"): 1})  # (b"ab", b"c") > (b"a", b"bc")
@example({(b"a", b"b"): 1, (b"a", b"bb"): 1})  # same left: the right decides
def test_best_pair_and_the_heap_key_are_the_design_rule(pair_counts):
    assert best_pair(pair_counts) == design_winner(pair_counts)
    keys = SortKeys()  # a min-heap pops the smallest key: it must be the same pair
    assert min(pair_counts, key=lambda pair: keys.rank_key(pair_counts[pair], pair)) == design_winner(pair_counts)


@PROPERTY
@given(st.integers(1, 5), TOKENS, TOKENS, st.integers(1, 5), TOKENS, TOKENS)
def test_pair_rank_key_orders_pairs_as_the_design_rule(c1, l1, r1, c2, l2, r2):
    first_wins = pair_rank_key(c1, token_sort_key(l1), token_sort_key(r1)) < pair_rank_key(
        c2, token_sort_key(l2), token_sort_key(r2)
    )
    assert first_wins == ((c1, l1, r1) > (c2, l2, r2))


def test_the_rule_is_applied_in_one_place():
    """No trainer re-implements the comparison: pair_rank_key is defined once, in tiebreak.py."""
    package = Path(__file__).resolve().parent.parent / "bpe_ref"
    defined_in = []
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in {"pair_rank_key", "token_sort_key", "best_pair"}:
                defined_in.append((path.relative_to(package).as_posix(), node.name))
    assert sorted(defined_in) == [("tiebreak.py", "best_pair"), ("tiebreak.py", "pair_rank_key"), ("tiebreak.py", "token_sort_key")]
