"""Proofs for a whole thread in a large log: the same hashes as one by one, at a tree's cost."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import pytest

from gateway.evidence import collect
from gateway.store import merkle


def leaves(count: int) -> list[bytes]:
    return [hashlib.sha256(n.to_bytes(8, "big")).digest() for n in range(count)]


def test_shared_subtrees_give_every_proof_as_the_tree_does() -> None:
    tree = leaves(3001)
    shared, plain = collect.shared_subtrees(tree), merkle.subtree_of(tree)
    root = merkle.root_of(tree)
    for index in (0, 1, 63, 64, 1000, 2047, 2048, 3000):
        ranges = merkle.inclusion_ranges(index, len(tree))
        path = merkle.hash_ranges(ranges, shared)
        assert path == merkle.hash_ranges(ranges, plain)
        assert merkle.verify_inclusion(index, len(tree), tree[index], path, root)


def test_a_hundred_proofs_in_a_large_log_cost_about_one_pass_over_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    size = 100_000
    tree = leaves(size)
    hashed = [0]
    real_node, real_level = merkle.node_hash, merkle.level_above

    def node(left: bytes, right: bytes) -> bytes:
        hashed[0] += 1
        return real_node(left, right)

    def level(below: Sequence[bytes]) -> list[bytes]:
        above = real_level(below)
        hashed[0] += len(above)
        return above

    # Every interior node of the tree, whoever hashes it, is one call of node_hash or
    # one node of a level hashed whole.
    monkeypatch.setattr(merkle, "node_hash", node)
    monkeypatch.setattr(merkle, "level_above", level)
    subtree = collect.shared_subtrees(tree)
    for index in range(0, size, size // 100):
        merkle.hash_ranges(merkle.inclusion_ranges(index, size), subtree)
    # Each proof hashed from its leaves would cost about `size` hashes: 100 times the tree.
    assert hashed[0] <= 1.1 * size, hashed[0]
