"""An indexed binary min-heap: a heap that knows where each key sits, so a key's priority can be
raised or lowered in place (O(log n)) and a key removed from anywhere, with no stale entries.

The price, compared with ``heapq`` plus lazy deletion: every swap must update the position map,
and the sifting is Python code instead of C.

>>> heap = IndexedMinHeap()
>>> heap.push("a", 5); heap.push("b", 3); heap.push("c", 4)
>>> heap.update("a", 1)          # decrease-key: "a" moves to the top
>>> heap.pop()
('a', 1)
>>> heap.remove("c"); heap.pop()
('b', 3)
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any


class IndexedMinHeap:
    """Keys with priorities; the smallest priority on top; each key at most once."""

    def __init__(self) -> None:
        self._keys: list[Hashable] = []
        self._priorities: list[Any] = []
        self._position: dict[Hashable, int] = {}

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._position

    def peek(self) -> tuple[Hashable, Any]:
        return self._keys[0], self._priorities[0]

    def priority(self, key: Hashable) -> Any:
        return self._priorities[self._position[key]]

    def push(self, key: Hashable, priority: Any) -> None:
        """Insert a key that is not in the heap yet."""
        if key in self._position:
            raise KeyError(f"{key!r} is already in the heap; use update()")
        self._keys.append(key)
        self._priorities.append(priority)
        self._position[key] = len(self._keys) - 1
        self._sift_up(len(self._keys) - 1)

    def update(self, key: Hashable, priority: Any) -> None:
        """Change a key's priority in place (increase-key or decrease-key)."""
        i = self._position[key]
        old = self._priorities[i]
        self._priorities[i] = priority
        if priority < old:
            self._sift_up(i)
        else:
            self._sift_down(i)

    def pop(self) -> tuple[Hashable, Any]:
        """Remove and return the key with the smallest priority, with its priority."""
        top = self._keys[0], self._priorities[0]
        self._remove_at(0)
        return top

    def remove(self, key: Hashable) -> None:
        self._remove_at(self._position[key])

    def _remove_at(self, i: int) -> None:
        keys, priorities = self._keys, self._priorities
        del self._position[keys[i]]
        last_key, last_priority = keys.pop(), priorities.pop()
        if i < len(keys):  # move the last entry into the hole and restore the heap order
            keys[i], priorities[i] = last_key, last_priority
            self._position[last_key] = i
            self._sift_up(i)
            self._sift_down(self._position[last_key])

    def _sift_up(self, i: int) -> None:
        keys, priorities, position = self._keys, self._priorities, self._position
        key, priority = keys[i], priorities[i]
        while i:
            parent = (i - 1) >> 1
            if priorities[parent] <= priority:
                break
            keys[i], priorities[i] = keys[parent], priorities[parent]
            position[keys[i]] = i
            i = parent
        keys[i], priorities[i] = key, priority
        position[key] = i

    def _sift_down(self, i: int) -> None:
        keys, priorities, position = self._keys, self._priorities, self._position
        n = len(keys)
        key, priority = keys[i], priorities[i]
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n and priorities[child + 1] < priorities[child]:
                child += 1
            if priorities[child] >= priority:
                break
            keys[i], priorities[i] = keys[child], priorities[child]
            position[keys[i]] = i
            i = child
        keys[i], priorities[i] = key, priority
        position[key] = i
