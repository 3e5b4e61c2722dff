"""A file-backed key-value store: one file per key."""

import os


class Store:
    def __init__(self, root: str):
        self.root = root

    def path(self, key: str) -> str:
        return os.path.join(self.root, key)

    def get(self, key: str) -> bytes | None:
        try:
            with open(self.path(key), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def put(self, key: str, value: bytes) -> None:
        with open(self.path(key), "wb") as f:
            f.write(value)
