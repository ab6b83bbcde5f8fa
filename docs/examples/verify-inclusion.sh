#!/usr/bin/env bash
# Checks a ledger row's place in a signed checkpoint with openssl and Python's standard library:
# no code of Beacon Attendance's (docs/LEDGER.md, "Checking it yourself"). In the working directory:
#   checkpoint.note   GET /v1/ledger/checkpoint
#   proof.json        GET /v1/ledger/proofs/inclusion?index=<the row's leaf>
# and in the environment VERIFIER_KEY (as `attendance serve` prints it), ROW_ID and ROW_HASH (the row's
# `id` and `hash` in GET /v1/admin/audit). Exit 0 when the signature and the proof hold.
set -euo pipefail
# 1. The signature: the note's text is everything before the blank line; the signature line's base64
#    is a 4-byte key id then the 64-byte Ed25519 signature. The verifier key's base64 is 0x01 then the
#    32-byte public key.
python3 - "$VERIFIER_KEY" checkpoint.note <<'PY'
import base64, sys
name, key_id, key = sys.argv[1].split("+", 2)
note = open(sys.argv[2], encoding="utf-8").read()
text, signatures = note.rsplit("\n\n", 1)
open("text", "wb").write((text + "\n").encode())
for line in signatures.splitlines():
    signer, blob = line[2:].split(" ")
    blob = base64.b64decode(blob)
    if signer == name and blob[:4].hex() == key_id:
        open("signature", "wb").write(blob[4:])
raw = base64.b64decode(key)[1:]
# An Ed25519 public key in DER: the algorithm's prefix, then the 32 bytes.
der = bytes.fromhex("302a300506032b6570032100") + raw
open("public.pem", "w").write("-----BEGIN PUBLIC KEY-----\n" + base64.b64encode(der).decode() + "\n-----END PUBLIC KEY-----\n")
PY
openssl pkeyutl -verify -pubin -inkey public.pem -rawin -in text -sigfile signature
# 2. The proof: RFC 9162 2.1.3.2, with hashlib alone.
python3 - checkpoint.note proof.json "$ROW_ID" "$ROW_HASH" <<'PY'
import base64, hashlib, json, sys
origin, size, root = open(sys.argv[1]).read().split("\n")[:3]
proof = json.load(open(sys.argv[2]))
leaf = hashlib.sha256(b"\x00" + f"ledger-leaf-v1\n{sys.argv[3]}\n{sys.argv[4]}".encode()).digest()
assert base64.b64decode(proof["leafHash"]) == leaf, "not this row's leaf"
fn, sn, r = proof["index"], int(size) - 1, leaf
for p in map(base64.b64decode, proof["hashes"]):
    if fn & 1 or fn == sn:
        r = hashlib.sha256(b"\x01" + p + r).digest()
        while not fn & 1 and fn:
            fn, sn = fn >> 1, sn >> 1
    else:
        r = hashlib.sha256(b"\x01" + r + p).digest()
    fn, sn = fn >> 1, sn >> 1
assert sn == 0 and r == base64.b64decode(root), "the proof does not lead to the checkpoint's root"
print(f"row {sys.argv[3]} is leaf {proof['index']} of the {size} the checkpoint signs")
PY
