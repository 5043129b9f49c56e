"""RFC 6962 hashing and proofs, against the test vectors of transparency-dev/merkle.

The vectors are those of ``testonly/constants.go`` and ``proof/verify_test.go``
(the certificate-transparency-go test data, published with RFC 6962's reference
code): eight leaf inputs, every root, and known inclusion and consistency proofs.
"""

from __future__ import annotations

import math

import pytest

from gateway.store import merkle

LEAF_INPUTS = [
    bytes.fromhex(h)
    for h in (
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    )
]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
LEAF_HASHES = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
    "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
    "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
    "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
    "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1",
]
# (leaf index, tree size, proof) — verify_test.go numbers leaves from 1; these from 0.
INCLUSION = [
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (
        1,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
    (0, 1, []),
]
CONSISTENCY = [
    (1, 1, []),
    (
        1,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        6,
        8,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        5,
        [
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
    (
        6,
        7,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
]
LEAVES = [merkle.leaf_hash(data) for data in LEAF_INPUTS]


def _hex(hashes: list[bytes]) -> list[str]:
    return [h.hex() for h in hashes]


def test_leaf_hashes_match_the_vectors() -> None:
    assert _hex(LEAVES) == LEAF_HASHES


@pytest.mark.parametrize("size", range(9))
def test_every_root_matches_the_vectors(size: int) -> None:
    assert merkle.root_of(LEAVES[:size]).hex() == ROOTS[size]


@pytest.mark.parametrize("size", range(9))
def test_the_compact_range_grows_to_the_same_roots(size: int) -> None:
    compact = merkle.CompactRange()
    for leaf in LEAVES[:size]:
        compact.append(leaf)
    assert compact.root().hex() == ROOTS[size]
    # Restarted from what a checkpoint keeps, it continues to the same trees.
    resumed = merkle.CompactRange(compact.size, compact.hashes)
    for leaf in LEAVES[size:]:
        resumed.append(leaf)
    assert resumed.root().hex() == ROOTS[8]


@pytest.mark.parametrize(("index", "size", "proof"), INCLUSION)
def test_inclusion_proofs_match_the_vectors(index: int, size: int, proof: list[str]) -> None:
    made = merkle.inclusion_proof(index, LEAVES[:size])
    assert _hex(made) == proof
    root = bytes.fromhex(ROOTS[size])
    assert merkle.verify_inclusion(index, size, LEAVES[index], made, root)


@pytest.mark.parametrize(("index", "size", "proof"), INCLUSION[:4])
def test_a_corrupted_inclusion_proof_fails(index: int, size: int, proof: list[str]) -> None:
    hashes = [bytes.fromhex(h) for h in proof]
    root = bytes.fromhex(ROOTS[size])
    assert not merkle.verify_inclusion(index ^ 1, size, LEAVES[index], hashes, root)
    assert not merkle.verify_inclusion(index, size * 2, LEAVES[index], hashes, root)
    assert not merkle.verify_inclusion(index, size, LEAVES[index], hashes[:-1], root)
    assert not merkle.verify_inclusion(index, size, LEAVES[index], [*hashes, root], root)
    flipped = [bytes([hashes[0][0] ^ 8]) + hashes[0][1:], *hashes[1:]]
    assert not merkle.verify_inclusion(index, size, LEAVES[index], flipped, root)


@pytest.mark.parametrize(("old", "new", "proof"), CONSISTENCY)
def test_consistency_proofs_match_the_vectors(old: int, new: int, proof: list[str]) -> None:
    made = merkle.consistency_proof(old, LEAVES[:new])
    assert _hex(made) == proof
    old_root, new_root = bytes.fromhex(ROOTS[old]), bytes.fromhex(ROOTS[new])
    assert merkle.verify_consistency(old, new, old_root, new_root, made)


@pytest.mark.parametrize(("old", "new", "proof"), CONSISTENCY[1:])
def test_a_corrupted_consistency_proof_fails(old: int, new: int, proof: list[str]) -> None:
    hashes = [bytes.fromhex(h) for h in proof]
    old_root, new_root = bytes.fromhex(ROOTS[old]), bytes.fromhex(ROOTS[new])
    assert not merkle.verify_consistency(old, new, new_root, old_root, hashes)
    assert not merkle.verify_consistency(old + 1, new, old_root, new_root, hashes)
    assert not merkle.verify_consistency(old, new, old_root, new_root, hashes[:-1])
    assert not merkle.verify_consistency(old, new, old_root, new_root, [])


def test_every_proof_of_every_small_tree_verifies() -> None:
    leaves = [merkle.leaf_hash(str(i).encode()) for i in range(33)]
    for size in range(1, 34):
        root = merkle.root_of(leaves[:size])
        for index in range(size):
            proof = merkle.inclusion_proof(index, leaves[:size])
            assert merkle.verify_inclusion(index, size, leaves[index], proof, root)
        for old in range(1, size + 1):
            proof = merkle.consistency_proof(old, leaves[:size])
            assert merkle.verify_consistency(old, size, merkle.root_of(leaves[:old]), root, proof)


@pytest.mark.parametrize("index", [0, 1, 4_999_999, 8_388_607, 8_388_608, 9_999_998, 9_999_999])
def test_a_proof_in_ten_million_entries_holds_at_most_24_hashes(index: int) -> None:
    # The ranges a proof hashes, counted without building the tree.
    size = 10_000_000
    assert len(merkle.inclusion_ranges(index, size)) <= 24 == math.ceil(math.log2(size))
    assert len(merkle.consistency_ranges(index + 1, size)) <= 2 * 24


def test_a_proof_of_a_power_of_two_tree_is_exactly_its_depth() -> None:
    assert len(merkle.inclusion_ranges(12345, 1 << 20)) == 20


@pytest.mark.parametrize("size", [1, 63, 64, 65, 127, 128, 129, 1000, 1024, 3001])
def test_levels_answer_every_proof_range_as_the_leaves_do(size: int) -> None:
    leaves = [merkle.leaf_hash(n.to_bytes(4, "big")) for n in range(size)]
    levels, plain = merkle.Levels(leaves), merkle.subtree_of(leaves)
    assert levels.subtree(0, size) == merkle.root_of(leaves)
    for index in {0, size // 3, size // 2, size - 1}:
        for start, end in merkle.inclusion_ranges(index, size):
            assert levels.subtree(start, end) == plain(start, end), (index, start, end)
    for old in {1, size // 2, size - 1} - {0}:
        for start, end in merkle.consistency_ranges(old, size):
            assert levels.subtree(start, end) == plain(start, end), (old, start, end)
