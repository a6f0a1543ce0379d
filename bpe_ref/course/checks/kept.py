"""Answers kept from call to call: a function that hands back an object it also keeps is right at every call the
graders made, and wrong for its caller.

Two realistic forms (walk58, in labs 00, 01, 03, 04 and 07): a cache of answers keyed by the input that returns the
object it stores (``cache[key] = result; return result``), which a caller that changes its answer (appends to the
merges, pops the heap, adds counts into the dict) changes for every later call; and one list or dict kept at module
level, cleared and filled again at each call, which a second call changes under the first caller. So every task whose
answer holds a list, dict or set is also called through :func:`called_twice` (its hidden test, last): the first answer
changed in place as a caller may, the same input again, then another input; both answers must be the reference's.

Sent to the grading worker as source (a driver, like a stand-in): these functions use nothing but ``copy``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

CHANGED = "changed by the caller"  # what the driver puts into the first answer: plain data, seen in any comparison


def changed_in_place(value: Any) -> None:
    """Change a returned container in place as a caller may: a list, dict or set gains an item (:data:`CHANGED`); a
    tuple's items are changed so, each."""
    if isinstance(value, list):
        value.append(CHANGED)
    elif isinstance(value, dict):
        value[CHANGED] = CHANGED
    elif isinstance(value, set):
        value.add(CHANGED)
    elif isinstance(value, tuple):
        for item in value:
            changed_in_place(item)


def called_twice(function: Callable, first_args: tuple, second_args: tuple) -> list:
    """``function(*first_args)``, its answer changed in place (:func:`changed_in_place`); ``function(*first_args)``
    again, then ``function(*second_args)``: ``[the answer of the second call, that of the third]`` (a driver). The
    first and third calls get copies of their arguments of their own; the second gets the first's objects again where
    the first call left them as they were (:func:`unchanged`), and copies of the others: a caller hands one ranks dict
    to every call, and a cache keyed by id(ranks) found its entry only so (walk58: lab 07's first heaps, kept by the
    parts and id(ranks), handed back to merge_all, which pops them empty). The reference's are its plain answers."""
    first = copy.deepcopy(first_args)
    changed_in_place(function(*first))
    again = function(*(arg if unchanged(arg, given) else copy.deepcopy(given) for arg, given in zip(first, first_args)))
    other = function(*copy.deepcopy(second_args))
    return [again, other]


def unchanged(arg: Any, given: Any) -> bool:
    """Whether an argument after a call, ``arg``, is still what was given, ``given``: of the same type and equal (an
    object whose comparison fails counts as changed)."""
    try:
        return type(arg) is type(given) and bool(arg == given)
    except Exception:  # a comparison the call made fail: a copy is given instead
        return False


def without_the_change(answer: Any) -> tuple[Any, bool]:
    """``(answer without what :func:`changed_in_place` put into a list or dict, whether it was there)``."""
    if isinstance(answer, list) and any(type(item) is str and item == CHANGED for item in answer):
        return [item for item in answer if not (type(item) is str and item == CHANGED)], True
    if isinstance(answer, dict) and CHANGED in answer:
        return {key: value for key, value in answer.items() if key != CHANGED}, True
    return answer, False


def holds_a_container(value: Any) -> bool:
    """Whether a caller could change ``value`` in place: a list, dict or set, or a tuple holding one."""
    if isinstance(value, (list, dict, set)):
        return True
    return isinstance(value, tuple) and any(holds_a_container(item) for item in value)


def kept_hint(args: tuple, expected: Any, got: Any) -> str | None:
    """What went wrong, from the two answers :func:`called_twice` returned."""
    if not (isinstance(got, list) and len(got) == 2 and isinstance(expected, list) and len(expected) == 2):
        return None
    again, other = got
    if got != expected and CHANGED in repr(got):
        return ("called again, it handed back the answer its caller had changed: it keeps the object it returns (a cache "
                "of answers?) and hands it out again. Return a new object at each call (a copy of what you keep), so that "
                "what a caller does with its answer stays its own")
    if again != expected[0] and again == other:
        return ("the answer of one call changed when it was called again on another input: it returns one object kept "
                "from call to call (a module-level list or dict, cleared and filled again?). Build a new one at each call")
    return None
