"""The wire format between the trusted side and the worker: values as tagged JSON, one format both sides import.

JSON has no bytes, tuples, sets or non-string keys, so those travel tagged: {"b": base64},
{"t": [...]}, {"s": [...]}, {"d": [[key, value], ...]}; a list is a JSON array. Anything else
(a numpy integer, a str subclass, an object) becomes {"x": type name, "r": short repr}: the
trusted side reports it as the wrong type instead of trusting an object it cannot compare.
:func:`decode` runs on the trusted side, on what the learner's process wrote, so it is bounded
(nesting, hash floods). Standard library only; imports nothing of the course.
"""

from __future__ import annotations

# This module runs in the worker too, where it writes what the trusted side is told of a call (its result, and its
# arguments after it), beside the learner's code, which can rebind builtins and what a module holds (a notebook
# rebound ``builtins.dict`` to have a changed argument encoded as it came; ``base64.b64encode`` would do for bytes). So the names it uses
# are bound here, when it is loaded, before any of that code runs (module globals come before builtins).
from base64 import b64decode
from binascii import b2a_base64
from builtins import bool, bytes, dict, float, frozenset, hash, int, isinstance, len, list, object, repr, set, str, tuple, type

MAX_DEPTH = 100  # nesting of a value sent back; deeper is reported, not sent
MAX_OUTPUT_CHARS = 20_000  # of a cell's or a call's captured stdout / stderr; the trusted side caps what it writes too


def capped(text: object, limit: int = MAX_OUTPUT_CHARS) -> str:
    """``text`` cut at ``limit`` characters, saying how long it was."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + f"\n... ({len(text)} characters in all)"


class Foreign:
    """A value of a type the wire format does not carry, as the trusted side sees it."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return f"<{self.type_name}: {self.text}>"


def encode(value, depth: int = 0):
    """``value`` as JSON-ready data. Exact builtin types only; containers read with builtin methods."""
    kind = type(value)
    if depth > MAX_DEPTH:
        return {"x": "a value nested too deeply", "r": "..."}
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is bytes:
        return {"b": b2a_base64(value, newline=False).decode("ascii")}
    if kind is tuple:
        return {"t": [encode(item, depth + 1) for item in tuple.__iter__(value)]}
    if kind is list:
        return [encode(item, depth + 1) for item in list.__iter__(value)]
    if isinstance(value, dict):  # dict, Counter, defaultdict, OrderedDict: their items, as a dict
        return {"d": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in dict.items(value)]}
    if kind in (set, frozenset):
        return {"s": [encode(item, depth + 1) for item in set.__iter__(set(value))]}
    try:
        text = object.__repr__(value) if kind.__repr__ is object.__repr__ else repr(value)
    except Exception:  # a broken __repr__ of the learner's: the type name says enough
        text = "?"
    return {"x": f"{kind.__module__}.{kind.__qualname__}", "r": text[:80]}


# A dict or set whose keys share one hash takes quadratic time to build (integers k * (2**61 - 1),
# crafted tuples): more keys than this with the same hash, and the reply is refused before it is built.
MAX_SAME_HASH = 8


def _distinct_hashes(keys: list) -> list:
    """``keys``, after checking that no hash is shared by more than :data:`MAX_SAME_HASH` of them."""
    seen: dict[int, int] = {}
    for key in keys:
        try:
            code = hash(key)
        except TypeError:
            raise ValueError(f"an unhashable key or set item: {str(key)[:80]}") from None
        seen[code] = count = seen.get(code, 0) + 1
        if count > MAX_SAME_HASH:
            raise ValueError(f"more than {MAX_SAME_HASH} keys or set items with the same hash (a hash flood)")
    return keys


# The items whose hash a reply chooses (an int's or a float's is its value modulo 2**61 - 1; a tuple's is made of its items')
# where a str's and a bytes' are keyed by a secret of the process's. A flat tuple holds scalars only.
_CHOSEN_HASH = (int, float)
_FLAT = (int, float, str, bytes, bool, type(None))


def _no_flood(items: list) -> list:
    """``items``, a list's or a tuple's, after checking that no more than :data:`MAX_SAME_HASH` distinct ints, floats or
    flat tuples among them share a hash. The trusted side's readers turn a reply's list into a set now and then (a
    hint's ``set(got)``), and a set of colliding items is built in quadratic time inside one call in C, which no CPU
    limit's signal interrupts (lab 03's boundaries, 40,000 ints ``k * (2**61 - 1)``, 9 s; 4 MiB of them, minutes:
    tests/test_grading_redteam.py, section 110). Linear: each item hashed once, compared with at most that many."""
    seen: dict = {}
    for item in items:
        kind = type(item)
        if kind is tuple:
            for part in item:
                if type(part) not in _FLAT:
                    break
            else:
                kind = int
        if kind not in _CHOSEN_HASH or item != item:  # a NaN's hash is its object's, no other's
            continue
        code = hash(item)
        others = seen.get(code)
        if others is None:
            seen[code] = [item]
            continue
        for other in others:
            if other == item:
                break
        else:
            others.append(item)
            if len(others) > MAX_SAME_HASH:
                raise ValueError(f"more than {MAX_SAME_HASH} items of a list or a tuple with the same hash (a hash flood)")
    return items


def decode(data, depth: int = 0):
    """The value :func:`encode` made, rebuilt from exact builtin types (or :class:`Foreign`); nesting
    deeper than :func:`encode` makes and hash floods are refused (``ValueError``) after a linear pass."""
    if depth > MAX_DEPTH + 2:
        raise ValueError("a value nested too deeply")
    if type(data) is float and data != data:
        # A NaN of its own, as each is in the worker: json reads every NaN as one shared object, which a tuple's
        # comparison takes for equal to itself, so entries holding NaN sorted here as they never do in the worker's heap
        return float("nan")
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        return _no_flood([decode(item, depth + 1) for item in data])
    if type(data) is dict and len(data) >= 1:
        if "b" in data:
            return b64decode(data["b"], validate=True)
        if "t" in data:
            return tuple(_no_flood([decode(item, depth + 1) for item in data["t"]]))
        if "d" in data:
            pairs = [(decode(key, depth + 1), decode(value, depth + 1)) for key, value in data["d"]]
            _distinct_hashes([key for key, _ in pairs])
            return dict(pairs)
        if "s" in data:
            return set(_distinct_hashes([decode(item, depth + 1) for item in data["s"]]))
        if "x" in data:
            return Foreign(str(data["x"]), str(data.get("r", "")))
    raise ValueError(f"not a value of the wire format: {str(data)[:80]}")
