#!/usr/bin/env python3
"""Writes Benchmarks/Fixtures/synthetic-200k.cbor, the synthetic ~200 KB input of the CBOR benchmarks.

    .build/pyenv/bin/python3 scripts/gen-synthetic-cbor.py          # (re)write the fixture
    .build/pyenv/bin/python3 scripts/gen-synthetic-cbor.py --check  # verify the committed file

The item is generated deterministically (no randomness, no clock) and encoded with cbor2 in
canonical form, which for this shape is also RFC 8949 §4.2.1 core deterministic encoding (all
`entries` keys have the same length, so length-first and bytewise key orders agree):

    {
      "blob": h'…150000 bytes: SHA-256 counter stream of b"tessera-synthetic"…',
      "entries": {
        "k0000": <value 0>, …, "k4999": <value 4999>
      }
    }

The entry values cycle through the small kinds an mdoc carries, so that the decoder's per-item
paths are all exercised: unsigned, negative, short text, byte string, float, bool, null, a
two-element array and a one-entry map.
"""

import hashlib
import pathlib
import sys

import cbor2

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "Benchmarks" / "Fixtures" / "synthetic-200k.cbor"
BLOB_SIZE = 150_000
ENTRIES = 5_000


def blob(size: int) -> bytes:
    out = bytearray()
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(b"tessera-synthetic" + counter.to_bytes(8, "big")).digest()
        counter += 1
    return bytes(out[:size])


def value(i: int):
    kind = i % 9
    if kind == 0:
        return i
    if kind == 1:
        return -i
    if kind == 2:
        return f"value {i}"
    if kind == 3:
        return i.to_bytes(4, "big")
    if kind == 4:
        return i + 0.5  # exact in binary16/32/64: written in the shortest width
    if kind == 5:
        return i % 2 == 0
    if kind == 6:
        return None
    if kind == 7:
        return [i, f"{i:x}"]
    return {"n": i}


def item() -> dict:
    return {
        "blob": blob(BLOB_SIZE),
        "entries": {f"k{i:04d}": value(i) for i in range(ENTRIES)},
    }


def encode() -> bytes:
    data = cbor2.dumps(item(), canonical=True)
    # Sanity: cbor2 reads back the same structure.
    back = cbor2.loads(data)
    assert back["blob"] == item()["blob"] and len(back["entries"]) == ENTRIES
    return data


def main() -> int:
    data = encode()
    digest = hashlib.sha256(data).hexdigest()
    if "--check" in sys.argv[1:]:
        current = OUT.read_bytes() if OUT.exists() else b""
        if current != data:
            print(f"{OUT.relative_to(ROOT)} is stale: run scripts/gen-synthetic-cbor.py", file=sys.stderr)
            return 1
        print(f"{OUT.relative_to(ROOT)}: up to date ({len(data)} bytes, sha256 {digest})")
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(data)
    print(f"wrote {OUT.relative_to(ROOT)}: {len(data)} bytes, sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
