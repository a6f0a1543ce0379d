"""The commands of ``python -m bpe_ref`` (one module each; :mod:`bpe_ref.course.cli` routes to them)."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun, singular for exactly one: ``1 token``, ``2 tokens``, ``1,000 bytes``.

    >>> plural(1, "byte"), plural(0, "merge"), plural(1234, "token")
    ('1 byte', '0 merges', '1,234 tokens')
    """
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"
