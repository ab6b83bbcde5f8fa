#!/usr/bin/env bash
# Checks an employee's "my record" file (the phone's Diagnostics share: my-record-<device>.json) with
# openssl and Python's standard library: no code of Beacon Attendance's (docs/LEDGER.md, "Checking
# my record"). Usage: verify-my-record.sh my-record.json [the server's note verifier key]; without
# the key, the one in the file (the one the phone pinned). Prints each row the record holds; exit 0
# when every checkpoint's signature, every consistency proof between them and every receipt hold.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 1. Each checkpoint's signature, as in verify-inclusion.sh: the note's text, the signature for the
#    key's name and id, the key in DER; openssl checks it.
python3 - "$1" "${2:-}" "$work" <<'PY'
import base64, json, sys
record = json.load(open(sys.argv[1], encoding="utf-8"))
name, key_id, key = (sys.argv[2] or record["logKey"]).split("+", 2)
der = bytes.fromhex("302a300506032b6570032100") + base64.b64decode(key)[1:]
open(sys.argv[3] + "/public.pem", "w").write(
    "-----BEGIN PUBLIC KEY-----\n" + base64.b64encode(der).decode() + "\n-----END PUBLIC KEY-----\n")
for kept in record["checkpoints"]:
    text, signatures = kept["note"].rsplit("\n\n", 1)
    open(f"{sys.argv[3]}/{kept['size']}.text", "wb").write((text + "\n").encode())
    for line in signatures.splitlines():
        signer, blob = line[2:].split(" ")
        blob = base64.b64decode(blob)
        if signer == name and blob[:4].hex() == key_id:
            open(f"{sys.argv[3]}/{kept['size']}.signature", "wb").write(blob[4:])
PY
for text in "$work"/*.text; do
  openssl pkeyutl -verify -pubin -inkey "$work/public.pem" -rawin -in "$text" -sigfile "${text%.text}.signature"
done
# 2. The checkpoints extend each other (RFC 9162 2.1.4.2), and each receipt's proof (2.1.3.2) leads
#    from its leaf, SHA-256(0x00 ‖ "ledger-leaf-v1\n<row id>\n<SHA-256 of the entry, hex>"), to the
#    root of the checkpoint it names.
python3 - "$1" <<'PY'
import base64, hashlib, json, sys
H = lambda *parts: hashlib.sha256(b"".join(parts)).digest()
record = json.load(open(sys.argv[1], encoding="utf-8"))
roots = {}
for kept in record["checkpoints"]:
    origin, size, root = kept["note"].split("\n")[:3]
    roots[int(size)] = base64.b64decode(root)
for kept in record["checkpoints"]:
    m, n = kept.get("consistencyFrom"), kept["size"]
    if m is None:
        continue
    path = [base64.b64decode(p) for p in kept["consistencyProof"]]
    if m & (m - 1) == 0:
        path.insert(0, roots[m])
    fn, sn = m - 1, n - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        assert sn, f"the proof from {m} to {n} is too long"
        if fn & 1 or fn == sn:
            fr, sr = H(b"\x01", c, fr), H(b"\x01", c, sr)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = H(b"\x01", sr, c)
        fn, sn = fn >> 1, sn >> 1
    assert sn == 0 and fr == roots[m] and sr == roots[n], f"the tree of {n} rows does not extend the {m} before it"
for receipt in record["receipts"]:
    content = hashlib.sha256(receipt["entry"].encode()).hexdigest()
    r = H(b"\x00", f"ledger-leaf-v1\n{receipt['rowId']}\n{content}".encode())
    fn, sn = receipt["leafIndex"], receipt["checkpointSize"] - 1
    for p in map(base64.b64decode, receipt["proof"]):
        if fn & 1 or fn == sn:
            r = H(b"\x01", p, r)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = H(b"\x01", r, p)
        fn, sn = fn >> 1, sn >> 1
    assert sn == 0 and r == roots[receipt["checkpointSize"]], f"row {receipt['rowId']}: the proof does not lead to the root"
    kind, session, user, actor, received, device_at = receipt["entry"].split("\n")[1:7]
    print(f"row {receipt['rowId']} (leaf {receipt['leafIndex']}): {kind} {session} at {device_at or received}")
print(f"all {len(record['receipts'])} rows are in checkpoints that extend each other, up to {max(roots)} rows")
PY
