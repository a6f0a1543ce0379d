"""Exact comparison and the words of a failure: results rebuilt from exact builtin types
(:func:`plain`), compared with the types all the way down (:func:`same`), where they first differ
(:func:`difference`), and the hints for the commonest mistakes (:func:`hints`). An object whose
``__eq__`` always says yes, a ``str`` where ``bytes`` were due, or ``True`` for ``1`` cannot pass.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..trusted.cpu_limit import OutOfCpuTime, within_cpu
from ..trusted.verdicts import CheckFailed, LearnerError
from .spec import Case, Task

# How long one line of a failure message may get before values are abbreviated.
SHORT_REPR_CHARS = 100

# CPU seconds of the grading process a task's hint may spend reading what the learner's code returned. A hint is advice
# written for the mistakes learners make, not for a reply built against it: lab 01's repeated-merge hint scanned the list
# returned once per item, and train returning list(range(500_000)) + [0] (4 MiB, what a reply may hold) cost the grading
# process 17 minutes of CPU time for one case, outside every limit of the notebook's (its budget is read before a
# request, not while the graders decide), so one submission stalled the class's grading (tests/test_grading_redteam.py,
# section 105). Past it the hint is left out.
HINT_CPU_SECONDS = 1.0
# And what a task observes of a call (Task.observe: the value compared, read from what came back and the arguments after
# the call), past which the case fails: lab 05's linked list, every node a word's first and all of them one chain, was
# read from each, a value quadratic in the reply's size (section 107).
OBSERVE_CPU_SECONDS = 2.0


def bounded_hint(hint: Callable[..., str | None], *args: Any) -> str | None:
    """``hint(*args)``, or ``None`` when it raises (an odd shape of what came back is the learner's failure, not the
    grader's) or spends more than :data:`HINT_CPU_SECONDS` of this process's CPU time (:func:`within_cpu`)."""
    try:
        return within_cpu(HINT_CPU_SECONDS, hint, *args)
    except (Exception, OutOfCpuTime):  # noqa: BLE001
        return None


def error_name(error: BaseException) -> str:
    """The class name of an exception of the learner's, wherever it was raised."""
    return error.ename if isinstance(error, LearnerError) else type(error).__name__


def is_value_error(error: BaseException) -> bool:
    """Whether an exception of the learner's is a ValueError (a subclass of its own included), wherever it was raised."""
    return error.value_error if isinstance(error, LearnerError) else isinstance(error, ValueError)


# A lone surrogate (U+D800 to U+DFFF) has no UTF-8 bytes: str.encode raises UnicodeEncodeError, a ValueError, as the
# course's conventions ask of every function that encodes (labs 00 and 06 check it). One drawn per range:
# errors="surrogateescape" refuses U+DC80-U+DCFF only, and a check of high surrogates only U+D800-U+DBFF (walk62).
REFUSED_SURROGATE = ("ValueError", "UnicodeEncodeError", "UnicodeDecodeError", "UnicodeTranslateError", "UnicodeError")
SURROGATE_RANGES = ((0xDC80, 0xDCFF), (0xD800, 0xDBFF), (0xDC00, 0xDC7F), (0xDD00, 0xDFFF))


def refused_lone_surrogate(outcome: Any, call: str, name: str, hint: str) -> None:
    """Raise :class:`CheckFailed` unless the call ``outcome`` (of :func:`.running.call_learner`) on a text holding a lone
    surrogate raised a ValueError; ``hint`` follows the message of a call that returned."""
    if outcome.reference_calls:
        raise CheckFailed(f"{name} calls the reference solution ({outcome.reference_calls[0]}): write it yourself")
    if outcome.error is None:
        raise CheckFailed(f"{call} returned {short_repr(outcome.value[1], 120)}: expected a ValueError (the text holds a "
                          f"lone surrogate, which has no UTF-8 bytes)\n  hint: {hint}")
    if error_name(outcome.error) == "NotImplementedError":
        raise CheckFailed(f"{name} is not written yet: it still raises NotImplementedError")
    if error_name(outcome.error) not in REFUSED_SURROGATE and not is_value_error(outcome.error):
        raise CheckFailed(f"{call} raised {error_name(outcome.error)}: {str(outcome.error)[:120]}\n  expected: a "
                          "ValueError (str.encode's UnicodeEncodeError is one)")


class _TooLong(Exception):
    """A repr past its limit (:func:`repr_within`)."""


_RECURSIVE = {list: "[...]", tuple: "(...)", dict: "{...}"}  # what repr writes for a container inside itself


def repr_within(value: Any, limit: int) -> str | None:
    """``repr(value)`` when it is at most ``limit`` characters long, else ``None``: for the builtin containers, str and
    bytes, told after reading at most about ``limit`` characters' worth of it, where ``len(repr(value))`` reads it all.
    short_repr asked that at each level of a value nested deep, and a reply nested 95 deep around 600,000 ints cost the
    grading process minutes (tests/test_grading_redteam.py, section 110)."""
    parts: list[str] = []
    room = [limit]
    inside: set[int] = set()

    def put(text: str) -> None:
        room[0] -= len(text)
        if room[0] < 0:
            raise _TooLong
        parts.append(text)

    def items(values: Any, after_one: str = "") -> None:
        for index, item in enumerate(values):
            if index:
                put(", ")
            walk(item)
        put(after_one if len(values) == 1 else "")

    def walk(item: Any) -> None:
        kind = type(item)
        if kind is str or kind is bytes:
            if len(item) > room[0]:  # its repr is longer still
                raise _TooLong
            put(repr(item))
        elif kind in _RECURSIVE and id(item) in inside:
            put(_RECURSIVE[kind])
        elif kind is list or kind is tuple or kind is dict:
            inside.add(id(item))
            if kind is dict:
                put("{")
                for index, (key, element) in enumerate(dict.items(item)):
                    put(", " if index else "")
                    walk(key)
                    put(": ")
                    walk(element)
                put("}")
            else:
                put("[" if kind is list else "(")
                items(item, "," if kind is tuple else "")
                put("]" if kind is list else ")")
            inside.discard(id(item))
        elif kind is set or kind is frozenset:
            if not item:
                put(f"{kind.__name__}()")
            else:
                put("{" if kind is set else "frozenset({")
                items(list(item))
                put("}" if kind is set else "})")
        else:
            put(repr(item))

    try:
        walk(value)
    except _TooLong:
        return None
    return "".join(parts)


def short_repr(value: Any, limit: int = SHORT_REPR_CHARS) -> str:
    """``repr(value)``, abbreviated in the middle of containers when longer than ``limit``."""
    text = repr_within(value, limit)
    if text is not None:
        return text
    if isinstance(value, dict) and value:
        items = list(value.items())
        shown = []
        for key, val in items:  # a key or value longer than the whole abbreviated too (walk54b: a key of 132 KB)
            shown.append(f"{short_repr(key, max(40, limit - 30))}: {short_repr(val, max(40, limit - 30))}")
            if sum(len(s) + 2 for s in shown) > limit - 30:
                break
        return "{" + ", ".join(shown) + f", ... ({len(items)} items)}}"
    if isinstance(value, (list, tuple)) and value:
        shown = []
        for item in value:
            shown.append(short_repr(item, max(40, limit - 30)))  # an item longer than the whole, abbreviated too
            if sum(len(s) + 2 for s in shown) > limit - 30:
                break
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        return open_ + ", ".join(shown) + f", ... ({len(value)} items){close}"
    return repr(value)[: limit - 4] + " ..."


def call_repr(task: Task, case: Case) -> str:
    """``merge_word(word=(b'a', b'b'), pair=(b'a', b'b'))``: the call, as the learner would type it."""
    parts = []
    for i, (param, arg) in enumerate(zip(task.params, case.args)):
        parts.append(f"{param}={case.labels.get(i) or short_repr(arg, 60)}")
    return f"{task.name}({', '.join(parts)})"


class WrongType(Exception):
    """A value that is not made of the plain builtin types a task returns."""


_SCALARS = (type(None), bool, int, float, str, bytes)


def plain(value: Any, where: str = "the result") -> Any:
    """``value`` rebuilt from exact builtin types, without calling any method the value overrides.

    Containers (dict, list, tuple, set and their subclasses such as ``Counter`` or
    ``defaultdict``) are read with the builtin types' own methods; scalars must be exactly
    ``int``, ``bytes``, ``str``, ``bool``, ``float`` or ``None``. Anything else raises
    :class:`WrongType` naming what was found and where.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind.__name__ == "Foreign" and hasattr(value, "type_name"):  # a type the worker could not send
        raise WrongType(f"{where} is a {value.type_name} ({value.text})")
    if isinstance(value, dict):
        return {plain(k, f"a key of {where}"): plain(v, f"a value of {where}") for k, v in dict.items(value)}
    if isinstance(value, list):
        return [plain(item, f"an item of {where}") for item in list.__iter__(value)]
    if isinstance(value, tuple):
        return tuple(plain(item, f"an item of {where}") for item in tuple.__iter__(value))
    if isinstance(value, (set, frozenset)):
        return {plain(item, f"an item of {where}") for item in set.__iter__(set(value))}
    raise WrongType(f"{where} is a {kind.__module__}.{kind.__qualname__} ({short_repr(value, 60)})")


def same(expected: Any, got: Any) -> bool:
    """Whether two plain values are equal with the same types all the way down (``1`` is not ``True``).

    Compared item by item: nothing of ``got`` is hashed but its own keys and set items, which the
    wire format refuses when many share a hash (a composite of them, hashed in a frozenset, could
    still be made to collide and cost the grader quadratic time)."""
    kind = type(expected)
    if kind is not type(got):
        return False
    if kind in _SCALARS:
        return expected == got
    if kind is list or kind is tuple:
        return len(expected) == len(got) and all(same(e, g) for e, g in zip(expected, got))
    if kind is dict:
        if len(expected) != len(got):
            return False
        keys = {key: key for key in expected}  # the reference's own key objects, to compare types
        return all(key in keys and same(keys[key], key) and same(expected[key], value) for key, value in got.items())
    if kind is set:
        if len(expected) != len(got):
            return False
        items = {item: item for item in expected}
        return all(item in items and same(items[item], item) for item in got)
    raise WrongType(f"unexpected {kind.__name__}")  # plain() never lets this happen


def _type_name(value: Any) -> str:
    return type(value).__name__


def difference(expected: Any, got: Any, where: str = "", item: str = "item", first: int = 0) -> str:
    """Where two plain values first differ, in words (empty when they are the same). A top-level
    list's items are called ``item`` and numbered from ``first``."""
    at = f"{where}: " if where else ""
    if type(expected) is not type(got):
        return f"{at}expected a {_type_name(expected)}, got a {_type_name(got)} ({short_repr(got, 60)})"
    if isinstance(expected, (list, tuple)):
        for i, (e, g) in enumerate(zip(expected, got)):
            if not same(e, g):
                label = f"{where}[{i}]" if where else f"{item} {i + first}"
                shown_e, shown_g = repr_within(e, 60), repr_within(g, 60)
                if shown_e is not None and shown_g is not None:  # small enough to show whole
                    return f"{label}: expected {shown_e}, got {shown_g}"
                return difference(e, g, label)
        if len(expected) != len(got):
            if len(got) < len(expected):
                return f"{at}{_items(len(got))} instead of {len(expected)}; the first missing is {short_repr(expected[len(got)], 60)}"
            return f"{at}{_items(len(got))} instead of {len(expected)}; the first extra is {short_repr(got[len(expected)], 60)}"
        return ""
    if isinstance(expected, dict):
        missing = [k for k in expected if k not in got]
        extra = [k for k in got if k not in expected]
        wrong = [k for k in expected if k in got and not same(expected[k], got[k])]
        parts = []
        if missing:
            parts.append(f"missing keys {short_repr(missing[:3], 70)}{' ...' if len(missing) > 3 else ''} ({len(missing)} in all)")
        if extra:
            zeros = " (their values are 0: leave out, or delete, a key whose value reaches 0)" if all(
                got[k] == 0 and type(got[k]) is int for k in extra) else ""
            parts.append(
                f"unexpected keys {short_repr(extra[:3], 70)}{' ...' if len(extra) > 3 else ''} ({len(extra)} in all){zeros}"
            )
        if not missing and not extra and len(wrong) == 1 and isinstance(expected[wrong[0]], (dict, list, tuple)):
            # One nested value differs (a dict inside the observed result): say where, inside it.
            label = f"{where}[{wrong[0]!r}]" if where else f"[{wrong[0]!r}]"
            return difference(expected[wrong[0]], got[wrong[0]], label)
        for k in wrong[:3]:
            parts.append(f"[{k!r}] is {short_repr(got[k], 40)}, expected {short_repr(expected[k], 40)}")
        if len(wrong) > 3:
            parts.append(f"... {len(wrong)} wrong values in all")
        return at + ("; ".join(parts) or "keys of the wrong type")
    if same(expected, got):
        return ""
    if isinstance(expected, (bytes, str)) and max(len(repr(expected)), len(repr(got))) > 60:
        # A long buffer or text (an arena of 50,257 tokens): its start says nothing; show where it first differs.
        index = next((i for i, (e, g) in enumerate(zip(expected, got)) if e != g), min(len(expected), len(got)))
        unit = "byte" if isinstance(expected, bytes) else "character"
        start = max(0, index - 10)
        return (f"{at}the same up to {unit} {index}, then expected {short_repr(expected[start:index + 20], 60)}, got "
                f"{short_repr(got[start:index + 20], 60)} (from {unit} {start}; {len(expected):,} and {len(got):,} "
                f"{unit}s long)")
    return f"{at}expected {short_repr(expected, 60)}, got {short_repr(got, 60)}"


def changed_argument(task: Task, before: tuple, after: tuple) -> str | None:
    """What ``task``'s function did to an argument it must leave unchanged (:attr:`Task.unchanged`), or ``None``."""
    for index in task.unchanged:
        if index >= len(before) or index >= len(after):
            continue
        try:
            was, now = plain(before[index]), plain(after[index], f"{task.params[index]} after the call")
        except WrongType as wrong:
            return f"changed its argument {task.params[index]}: {wrong}"
        if not same(was, now):
            where = difference(was, now, task.params[index])
            if (type(was) is dict and type(now) is dict and len(now) > len(was) and all(key in now for key in was)
                    and all(same(was[key], now[key]) for key in was)):
                # keys added, none changed: a lookup that adds what it looks up (walk57: pop_best's
                # pair_counts.setdefault(pair, 0)), where a copy would cost a pass over the dict at each call
                hint = ("it only gained keys, so a lookup added them: dict.setdefault(key, default) and a defaultdict's "
                        "d[key] add the key they look up; read with d.get(key, default), which adds nothing")
            else:
                hint = ("build a new value (a new dict, a copy) instead of updating the one you were given: the caller "
                        "still uses it")
            return (f"changed its argument {task.params[index]}, which the task says to leave as it is "
                    f"(expected: as it was before the call; {where}).\n  hint: {hint}")
    return None


def stand_in_note(task: Task) -> list[str]:
    """The line that says which earlier functions were the reference's while ``task`` ran."""
    if not task.stand_ins:
        return []
    names = [function.__name__ for function in task.stand_ins]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = "was" if len(names) == 1 else "were"
    name = task.written_in or task.name
    if task.kept:
        kept = " and ".join(task.kept)
        return [f"  note: while {name} ran, {listed} {verb} the reference's but {kept} was yours, "
                f"so this difference comes from {name} itself or from your {kept}"]
    return [f"  note: while {name} ran, {listed} {verb} the reference's, "
            f"so this difference comes from {name} itself"]


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def in_order_of(expected: Any, got: Any) -> Any:
    """``got``, a dict shown with its keys in ``expected``'s order (then its extra keys), so that the
    two can be read side by side; any other value unchanged."""
    if not (isinstance(expected, dict) and isinstance(got, dict)):
        return got
    return {**{k: got[k] for k in expected if k in got}, **{k: v for k, v in got.items() if k not in expected}}


def _leaves(value: Any, in_tuple: bool = False) -> Iterator[tuple[Any, bool]]:
    """Every scalar in ``value`` (keys included), with whether it is an item of a tuple of scalars (a word or a
    pair, in the labs: where tokens are). Only such a tuple's own items count: the counts in a dict that a
    tuple holds (lab 05's ``(changes, merged_nodes)``), or beside a pair in a record (lab 05's ``(count, pair)``
    entries), are not tokens."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(key)
            yield from _leaves(item)
    elif isinstance(value, (list, tuple, set)):
        # once per container: asked for each of its items, a tuple of 500,000 scalars cost hours (section 106)
        scalars = isinstance(value, tuple) and not any(isinstance(x, (dict, list, tuple, set)) for x in value)
        for item in value:
            yield from _leaves(item, scalars)
    else:
        yield value, in_tuple


# Python's own pitfalls, told by the error they raise: (part of a TypeError's message, hint).
NONE_RETURNED = ("your function returned None: a missing return, or the return of a method that changes its object in "
                 "place and returns None (list.sort(), list.append(), dict.update()); sorted(...) returns a new list")
PYTHON_PITFALLS = (
    ("'NoneType'", NONE_RETURNED.replace("your function returned None", "a None where a value was expected")),
    ("'float' object cannot be interpreted as an integer", "a float where an int is needed: / always gives a float "
     "(7 / 7 == 1.0); offsets and sizes are ints, // divides them"),
    ("'int' and 'Counter'", "sum(counters) starts from 0, and 0 + Counter fails: give sum its start, "
     "sum(counters, Counter()), or add them in a loop"),
    ("unhashable type: 'dict'", "a dict is no key: functools.lru_cache (or a dict of answers) keys a call by its "
     "arguments, and ranks is a dict; cache inside the call, by what it depends on, or not at all"),
    ("changed during iteration", "a dict changed while a loop runs over it: adding or deleting a key stops the loop; "
     "loop over a copy (list(d.items())), or write the changes into a new dict"),
)


def carried(before: Any, expected: Any, got: Any) -> bool:
    """Whether ``got`` is the answer of the call before (``before``) with this call's added to it: a list, a dict of
    counts or of sets kept from call to call (a mutable default argument). The same wrong answer again is no sign of
    it where this call's answer is not empty: a visible test run twice in a kernel gives its first call the second
    call's ``before``, and a dict of sets that is too big (every key sharing one set) would take its own hint's place.
    Where the answer is empty, the call before's answer again is the sign, unless the call before was this one
    (running.verdict passes no ``before`` then: hypothesis calls the smallest failing input again for its message, and a
    mistake that answers it alike every time is no answer kept, walk54a)."""
    if not before or type(before) is not type(got) or (got == before and expected):
        return False
    if isinstance(got, (list, tuple)) and isinstance(expected, (list, tuple)):
        return list(got) == list(before) + list(expected) or (
            all(type(item) is int for item in (*got, *before, *expected)) and got == sorted({*before, *expected}))
    if isinstance(got, dict) and isinstance(expected, dict):
        values = [*before.values(), *expected.values()]
        if all(type(value) is int for value in values):
            total = {key: before.get(key, 0) + expected.get(key, 0) for key in {**before, **expected}}
            return {k: v for k, v in total.items() if v} == {k: v for k, v in got.items() if v}
        if all(isinstance(value, set) for value in values):
            return got == {key: before.get(key, set()) | expected.get(key, set()) for key in {**before, **expected}}
    return False


KEPT_PATTERN = ("a pattern built once and kept (a global, a default argument) keeps the first call's special tokens; "
                "build it from each call's special_tokens")

CARRIED = ("what your function returned holds what its call before returned too: a default argument such as `=[]` or "
           "`={}` is made once, when `def` runs, and kept from call to call (so is a global); make a new one in each "
           "call (default to None)")


def hints(task: Task, args: tuple, expected: Any, got: Any = None, error: BaseException | None = None) -> list[str]:
    """Hints for the commonest mistakes, as message lines (none when nothing matches): none past :data:`HINT_CPU_SECONDS`
    of this process's CPU time in all (:func:`within_cpu`; the task's own hints are bounded so where they are called
    alone, :func:`bounded_hint`): what they read came from the learner's process, built as it likes (section 106)."""
    try:
        return within_cpu(HINT_CPU_SECONDS, _hints, task, args, expected, got, error)
    except OutOfCpuTime:
        return []


def _hints(task: Task, args: tuple, expected: Any, got: Any, error: BaseException | None) -> list[str]:
    found = []
    specific_error = bounded_hint(task.error_hint, args, error) if error is not None and task.error_hint is not None \
        else None
    if specific_error:
        found.append(specific_error)
    elif error is not None:
        text = str(error)
        if error_name(error) == "ValueError" and "empty" in text and ("max()" in text or "min()" in text):
            if any(name == "pair_counts" and isinstance(arg, dict) and arg for name, arg in zip(task.params, args)):
                # pairs were there: a filter of the learner's left none
                found.append("max() or min() of nothing, though the input holds pairs: something filtered them all out "
                             "(a count above 1?); every pair is a candidate, even one seen once")
            else:
                found.append("max() or min() of nothing: when no pair is left (every word is a single token), "
                             "stop early instead of picking a best pair")
        plain = [name for name, arg in zip(task.params, args) if isinstance(arg, dict) and not isinstance(arg, defaultdict)]
        if error_name(error) == "KeyError" and "ranks" in plain:
            found.append("a KeyError on ranks: ranks[pair] fails for a pair that is no merge (most neighbouring pairs are "
                         "none); look it up with ranks.get(pair), None when it is no merge")
        elif error_name(error) == "KeyError" and plain:
            # Said in every lab's words (lab 02's changes, lab 10's partial counts): a walker of lab 10 read lab 02's.
            found.append("a KeyError on a dict of counts: a plain dict has no default, so counts[key] += n fails for a "
                         "key not in it yet; write counts[key] = counts.get(key, 0) + n (and where counts also go down, "
                         "delete one that reaches 0)")
        found += [hint for pitfall, hint in PYTHON_PITFALLS if error_name(error) in ("TypeError", "RuntimeError")
                  and pitfall in text]
        if error_name(error) in ("error", "PatternError") and "bad escape \\p" in text:  # learn52: re for regex
            found.append("Python's re module does not know \\p{L} or \\p{N}: match the pattern with the regex module "
                         "(regex.findall, imported by the setup cell), which does")
        if error_name(error) == "AssertionError" and "ValueError" in repr(expected):  # learn52: an assert for a raise
            found.append("an assert raises AssertionError (and python -O skips it): for bad input raise "
                         "ValueError(...) saying what is wrong")
    else:
        def token_ints(value: Any) -> int:
            return sum(1 for leaf, in_tuple in _leaves(value) if in_tuple and type(leaf) is int)

        def ids_to_pairs(value: Any) -> bool:
            """A dict whose int keys map to collections of tuples (lab 04's index turned round: an id -> its pairs,
            walk50a), not ints made of bytes."""
            keyed = [item for key, item in value.items() if type(key) is int] if isinstance(value, dict) else []
            return bool(keyed) and all(isinstance(item, (set, frozenset, list)) and item
                                       and all(isinstance(part, tuple) for part in item) for item in keyed)

        def pairs_of(value: Any) -> bool:
            """A list of (key, value) pairs where a dict was expected: its items, sorted (learn52)."""
            return isinstance(value, list) and bool(value) and all(isinstance(item, tuple) and len(item) == 2
                                                                    for item in value)

        if isinstance(expected, dict) and pairs_of(got):
            found.append("a list of (key, value) pairs where a dict was expected: return the dict itself (sorting its "
                         "items, or taking the most common, makes a list)")
        elif (isinstance(expected, dict) and isinstance(got, dict) and expected and got
              and all(type(key) is bytes for key in expected) and all(type(key) is tuple for key in got)):
            found.append("tuples as keys where bytes were expected: key each count by the whole pretoken's UTF-8 bytes, "
                         "pretoken.encode('utf-8'), one bytes object (a word split into its byte tokens or ids is the "
                         "trainer's form, made later)")
        elif any(type(leaf) is bytes for leaf, _ in _leaves(expected)) and (token_ints(got) > token_ints(expected) or (
                isinstance(expected, dict) and isinstance(got, dict) and any(type(key) is int for key in got)
                and not ids_to_pairs(got))):
            found.append("ints where bytes were expected: iterating over bytes yields ints (b'ab'[0] == 97), and so does "
                         "Counter.update(key) (it counts key's bytes one by one: counts[key] += 1 counts the key); "
                         "a one-byte token is bytes([b]) or data[i:i + 1]")
        def bytes_pairs(items: list, kind: type) -> bool:  # shallow: a reply's nesting costs this process nothing here
            return all(type(item) is kind and len(item) == 2 and all(type(part) is bytes for part in item) for item in items)

        if (isinstance(expected, list) and isinstance(got, list) and expected and len(got) == len(expected)
                and bytes_pairs(expected, tuple) and bytes_pairs(got, list)
                and [tuple(item) for item in got] == expected):  # walk58: told of list.append and extend
            found.append("lists where tuples were expected: [left, right] is a list; a pair is a tuple, (left, right) "
                         "(zip(word, word[1:]) gives tuples), and only a tuple can be a dict key or a set's item")
        elif (isinstance(expected, list) and isinstance(got, list)
                and not any(isinstance(item, (list, dict)) for item in expected)  # a list where a dict was: said already
                and any(isinstance(item, list) for item in got)):
            found.append("a list inside your list: list.append(items) adds the list as one item; list.extend(items) "
                         "(or +=) adds its items")
        if task.hint is not None:
            # a hint reads what the learner's code returned, or a driver's report it can rewrite (lab 09): bounded
            specific = bounded_hint(task.hint, args, expected, got)
            if specific:
                found.append(specific)
        if got is None and expected is not None and not found:  # the task's own hint first (lab 10's "no ranges")
            found.append(NONE_RETURNED)
    return [f"  hint: {text}" for text in found]


def first_differing_item(expected: Any, got: Any) -> int | None:
    """The index of the first item where two lists (or tuples) differ; ``None`` for other values."""
    if not (isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple))):
        return None
    for i, (e, g) in enumerate(zip(expected, got)):
        if not same(e, g):
            return i
    return min(len(expected), len(got)) if len(expected) != len(got) else None


def window_repr(items: Sequence[Any], index: int, radius: int = 3, first: int = 0) -> str:
    """Items ``index - radius .. index + radius``: ``... [30] x, [31] y ... (243 items)`` with Python's
    indices (``first=0``), or ``... #31 x, #32 y ...`` numbered from ``first`` (merges count from 1)."""
    start, end = max(0, index - radius), min(len(items), index + radius + 1)
    label = (lambda i: f"[{i}]") if first == 0 else (lambda i: f"#{i + first}")
    shown = ", ".join(f"{label(i)} {short_repr(items[i], 80)}" for i in range(start, end)) or "(nothing here)"
    return f"{'... ' if start else ''}{shown}{' ...' if end < len(items) else ''} ({len(items)} items)"

