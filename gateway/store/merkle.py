"""RFC 6962 / RFC 9162 Merkle trees: hashing, roots, inclusion and consistency proofs.

Pure functions over leaf hashes (32-byte SHA-256 digests), no storage:

- ``leaf_hash(data)`` = SHA-256(0x00 || data), ``node_hash(l, r)`` = SHA-256(0x01 || l || r);
- a proof is first computed as the list of subtree ranges it needs
  (``inclusion_ranges``, ``consistency_ranges``), then hashed by a function that
  returns the hash of a range of leaves: so a store can answer from whatever it
  keeps, and the length of a proof is known without building a tree;
- ``CompactRange`` folds leaves in one by one keeping only the right edge of
  the tree (at most log2(n) hashes), which is how the sequencer extends the tree
  batch after batch without reading it back;
- ``root_from_inclusion`` and ``verify_consistency`` are the verifier's side
  (RFC 9162 sections 2.1.3.2 and 2.1.4.2).

pymerkle 7 hashes the same way, but its trees own their storage and its proofs are
not RFC 9162 audit paths; the few functions needed here are kept in this module and
tested against the RFC 6962 test vectors of transparency-dev/merkle.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence

from gateway.errors import ProofError

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()

# A subtree as the half-open range of leaf indices [start, end) it covers.
Range = tuple[int, int]


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1): RFC 6962's k."""
    return 1 << ((n - 1).bit_length() - 1)


def level_above(below: Sequence[bytes]) -> list[bytes]:
    """The node hashes of each complete pair of ``below``, left to right (one tree level)."""
    sha256, prefix = hashlib.sha256, b"\x01"
    return [sha256(prefix + below[i] + below[i + 1]).digest() for i in range(0, len(below) - 1, 2)]


class Levels:
    """Every complete, aligned subtree of a list of leaves from ``KEPT`` leaves up, hashed
    once, level by level: any range a proof asks for is then a look-up, or a fold of
    look-ups along the tree's right edge. Building it costs about one hash per leaf in
    tight loops, where asking node by node cost a Python call per node; the levels
    below ``KEPT`` are not kept (a small range is hashed from its leaves when asked)."""

    KEPT = 64

    def __init__(self, leaves: Sequence[bytes]) -> None:
        self.leaves = leaves
        self.size = len(leaves)
        self._levels: dict[int, list[bytes]] = {}
        level, height = list(leaves), 0
        while len(level) > 1:
            level, height = level_above(level), height + 1
            if 1 << height >= self.KEPT:
                self._levels[height] = level

    def subtree(self, start: int, end: int) -> bytes:
        """The hash of leaves [start, end): MTH of that range, as RFC 6962 splits it."""
        size = end - start
        if size < self.KEPT:
            return root_of(self.leaves[start:end])
        if size & (size - 1) == 0 and start % size == 0:
            return self._levels[size.bit_length() - 1][start // size]
        half = _split(size)
        return node_hash(self.subtree(start, start + half), self.subtree(start + half, end))


def root_of(leaves: Sequence[bytes]) -> bytes:
    """The Merkle tree hash of a list of leaf hashes (MTH in RFC 6962)."""
    if not leaves:
        return EMPTY_ROOT
    compact = CompactRange()
    for leaf in leaves:
        compact.append(leaf)
    return compact.root()


def inclusion_ranges(index: int, size: int) -> list[Range]:
    """The subtrees whose hashes prove leaf ``index`` in a tree of ``size`` leaves, leaf first.

    RFC 6962's PATH(m, D[n]), as ranges: one per level at most, so at most
    ceil(log2(size)) of them.
    """
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size}")
    ranges: list[Range] = []
    start, end = 0, size
    while end - start > 1:
        k = _split(end - start)
        if index < start + k:
            ranges.append((start + k, end))
            end = start + k
        else:
            ranges.append((start, start + k))
            start += k
    ranges.reverse()
    return ranges


def consistency_ranges(old_size: int, new_size: int) -> list[Range]:
    """The subtrees proving the tree of ``old_size`` is a prefix of the one of ``new_size``.

    RFC 6962's PROOF(m, D[n]) / SUBPROOF, as ranges.
    """
    if not 0 < old_size <= new_size:
        raise ProofError(f"no consistency proof from size {old_size} to {new_size}")
    ranges: list[Range] = []

    def subproof(m: int, start: int, end: int, whole: bool) -> None:
        n = end - start
        if m == n:
            if not whole:
                ranges.append((start, end))
            return
        k = _split(n)
        if m <= k:
            subproof(m, start, start + k, whole)
            ranges.append((start + k, end))
        else:
            subproof(m - k, start + k, end, False)
            ranges.append((start, start + k))

    if old_size < new_size:
        subproof(old_size, 0, new_size, True)
    return ranges


def hash_ranges(ranges: Iterable[Range], subtree: Callable[[int, int], bytes]) -> list[bytes]:
    return [subtree(start, end) for start, end in ranges]


def subtree_of(leaves: Sequence[bytes]) -> Callable[[int, int], bytes]:
    """A range hasher over leaf hashes held in memory."""
    return lambda start, end: root_of(leaves[start:end])


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    return hash_ranges(inclusion_ranges(index, len(leaves)), subtree_of(leaves))


def consistency_proof(old_size: int, leaves: Sequence[bytes]) -> list[bytes]:
    return hash_ranges(consistency_ranges(old_size, len(leaves)), subtree_of(leaves))


# RFC 9162's two algorithms (2.1.3.2 inclusion, 2.1.4.2 consistency) as the RFC writes
# them: alike in their bit walk, each kept whole so it can be read against the RFC.
def root_from_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes:
    """The root that ``proof`` leads to from ``leaf`` (RFC 9162 2.1.3.2)."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size}")
    if len(leaf) != HASH_SIZE or any(len(p) != HASH_SIZE for p in proof):
        raise ProofError("a hash is not 32 bytes")
    fn, sn = index, size - 1
    r = leaf
    for p in proof:
        if sn == 0:
            raise ProofError("the proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("the proof is shorter than the tree is deep")
    return r


def verify_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes
) -> bool:
    try:
        return root_from_inclusion(index, size, leaf, proof) == root
    except ProofError:
        return False


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """Whether ``proof`` shows tree ``old_size`` is a prefix of tree ``new_size`` (RFC 9162 2.1.4.2)."""
    if old_size > new_size or any(len(p) != HASH_SIZE for p in proof):
        return False
    if old_size == new_size:
        return old_root == new_root and not proof
    if old_size == 0:
        return not proof
    path = list(proof)
    if old_size & (old_size - 1) == 0:
        # The old tree is a complete subtree: its root is the proof's implicit first node.
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


class CompactRange:
    """The right edge of a growing tree: one hash per set bit of its size.

    ``append`` costs O(log n); ``root`` folds the edge from the right. Saved with
    each checkpoint (``hashes``) so the next batch starts where the last one ended.
    """

    def __init__(self, size: int = 0, hashes: Sequence[bytes] = ()) -> None:
        if len(hashes) != bin(size).count("1"):
            raise ProofError(f"a tree of {size} leaves has {bin(size).count('1')} edge hashes")
        self.size = size
        # Largest subtree first, as the bits of ``size`` from the top.
        self.hashes = list(hashes)

    def append(self, leaf: bytes) -> None:
        node, size = leaf, self.size
        # Each trailing 1 bit of the old size is a complete subtree to merge with.
        while size & 1:
            node = node_hash(self.hashes.pop(), node)
            size >>= 1
        self.hashes.append(node)
        self.size += 1

    def root(self) -> bytes:
        if not self.hashes:
            return EMPTY_ROOT
        node = self.hashes[-1]
        for left in reversed(self.hashes[:-1]):
            node = node_hash(left, node)
        return node
