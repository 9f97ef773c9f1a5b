"""Pictures kept by what they show, least recently used first out, bounded in bytes."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, Protocol, TypeVar


class Sized(Protocol):
    @property
    def size(self) -> int: ...


V = TypeVar("V", bound=Sized)


class ByteLRU(Generic[V]):
    """At most ``limit`` bytes of values (each says its ``size``); a value larger than the
    whole limit is not kept."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.bytes = 0
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> V | None:
        value = self._items.get(key)
        if value is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key: Hashable, value: V) -> None:
        if value.size > self.limit:
            return
        old = self._items.pop(key, None)
        if old is not None:
            self.bytes -= old.size
        self._items[key] = value
        self.bytes += value.size
        while self.bytes > self.limit:
            _key, dropped = self._items.popitem(last=False)
            self.bytes -= dropped.size

    def clear(self) -> None:
        self._items.clear()
        self.bytes = 0
