"""An in-memory LRU cache in front of the store."""

from collections import OrderedDict

from kv.store import Store


class Cache:
    def __init__(self, store: Store, capacity: int = 128):
        self.store = store
        self.capacity = capacity
        self.entries: OrderedDict[str, bytes] = OrderedDict()

    def get(self, key: str) -> bytes | None:
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key]
        value = self.store.get(key)
        if value is not None:
            self.put(key, value)
        return value

    def put(self, key: str, value: bytes) -> None:
        self.entries[key] = value
        self.entries.move_to_end(key)
        self.evict()

    def evict(self) -> None:
        while len(self.entries) >= self.capacity:
            self.entries.popitem(last=False)

    def clear(self) -> None:
        self.entries.clear()
