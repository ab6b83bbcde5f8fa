#!/usr/bin/env python3
"""RFC 9162 Merkle tree vectors from Python's standard library alone (hashlib), written from the
RFC's recursive definitions (sections 2.1.1, 2.1.3.1, 2.1.4.1) and independent of the Swift code.

    python3 Tests/vectors/merkle_vectors.py [MAX_SIZE]

Prints JSON: for each tree size n from 1 to MAX_SIZE (default 1000) over the leaves b"leaf 0",
b"leaf 1", ..., the root and the inclusion and consistency proofs for a few positions, as hex.
MerkleVectorsTests compares the Swift tree with it."""
import hashlib
import json
import sys
from functools import lru_cache

LEAVES = [b"leaf %d" % i for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)]


def split(n):
    k = 1
    while k * 2 < n:
        k *= 2
    return k


@lru_cache(maxsize=None)
def mth(lo, hi):
    if hi - lo == 0:
        return hashlib.sha256(b"").digest()
    if hi - lo == 1:
        return hashlib.sha256(b"\x00" + LEAVES[lo]).digest()
    k = split(hi - lo)
    return hashlib.sha256(b"\x01" + mth(lo, lo + k) + mth(lo + k, hi)).digest()


def path(m, lo, hi):
    if hi - lo == 1:
        return []
    k = split(hi - lo)
    if m < k:
        return path(m, lo, lo + k) + [mth(lo + k, hi)]
    return path(m - k, lo + k, hi) + [mth(lo, lo + k)]


def subproof(m, lo, hi, whole):
    if m == hi - lo:
        return [] if whole else [mth(lo, hi)]
    k = split(hi - lo)
    if m <= k:
        return subproof(m, lo, lo + k, whole) + [mth(lo + k, hi)]
    return subproof(m - k, lo + k, hi, False) + [mth(lo, lo + k)]


def positions(n):
    return sorted({0, n // 3, n // 2, n - 1})


vectors = []
for n in range(1, len(LEAVES) + 1):
    vectors.append({
        "size": n,
        "root": mth(0, n).hex(),
        "inclusion": {str(m): [h.hex() for h in path(m, 0, n)] for m in positions(n)},
        "consistency": {str(m): [h.hex() for h in subproof(m, 0, n, True)] for m in positions(n) if m > 0},
    })
json.dump({"leafFormat": "leaf %d", "emptyRoot": mth(0, 0).hex(), "trees": vectors}, sys.stdout)
