"""An independent reader of Token Status List Tokens (draft-ietf-oauth-status-list), for Tessera's tests.

    status_list_reader.py jwt FILE     a Status List Token in JWT form (TSL §5.1), compact text
    status_list_reader.py cwt FILE     a Status List Token in CWT form (TSL §5.2), binary CBOR

Written from the draft only, on the Python standard library (zlib, base64, json), cbor2 and cryptography: it
decodes the token, inflates `lst` with zlib, reads every status with its own bit reader (TSL §4.1: `bits` bits per
status, least significant bits first) and checks the ES256/ES384/EdDSA signature with the key of the leaf
certificate in `x5c` / `x5chain` (the chain itself is not validated here). It prints one JSON object:

    {"typ", "sub", "iat", "exp", "ttl", "bits", "aggregation_uri", "bytes", "sha256", "non_valid": [[idx, status]…],
     "signature": "valid" | "absent"}

Exit status: 0 on success, 1 when a rule of the draft is broken or the signature does not verify (the message
names it), 2 when a module is missing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import zlib

try:
    import cbor2
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
except ImportError as missing:  # pragma: no cover
    print(f"status_list_reader: {missing}", file=sys.stderr)
    sys.exit(2)


class Broken(Exception):
    """A rule of the draft (or of JOSE/COSE) the token breaks."""


def b64url(text: str) -> bytes:
    if "=" in text or "+" in text or "/" in text:
        raise Broken("RFC 7515 §2: not unpadded base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def read_statuses(data: bytes, bits: int) -> list[list[int]]:
    """Every non-zero status as [index, value] (TSL §4.1): entry i sits in byte i*bits//8 at bit (i*bits)%8."""
    if bits not in (1, 2, 4, 8):
        raise Broken(f"TSL §4.1: bits {bits} is not 1, 2, 4 or 8")
    per_byte = 8 // bits
    mask = (1 << bits) - 1
    found = []
    for position, byte in enumerate(data):
        if byte == 0:
            continue
        for slot in range(per_byte):
            value = (byte >> (slot * bits)) & mask
            if value:
                found.append([position * per_byte + slot, value])
    return found


def describe_list(bits: object, lst: bytes, aggregation_uri: object) -> dict:
    if not isinstance(bits, int) or isinstance(bits, bool):
        raise Broken("TSL §4: bits is not an integer")
    data = zlib.decompress(lst)  # ZLIB format (RFC 1950) only: raw DEFLATE and gzip are refused
    return {"bits": bits, "aggregation_uri": aggregation_uri, "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(), "non_valid": read_statuses(data, bits)}


def verify_with_leaf(leaf_der: bytes, signature: bytes, message: bytes) -> None:
    key = x509.load_der_x509_certificate(leaf_der).public_key()
    try:
        if isinstance(key, ec.EllipticCurvePublicKey):
            size = (key.curve.key_size + 7) // 8
            if len(signature) != 2 * size:
                raise Broken("ECDSA signature is not r||s of the curve's size")
            r = int.from_bytes(signature[:size], "big")
            s = int.from_bytes(signature[size:], "big")
            digest = {256: hashes.SHA256(), 384: hashes.SHA384(), 521: hashes.SHA512()}[key.curve.key_size]
            key.verify(encode_dss_signature(r, s), message, ec.ECDSA(digest))
        elif isinstance(key, ed25519.Ed25519PublicKey):
            key.verify(signature, message)
        else:
            raise Broken("the leaf key is neither EC nor Ed25519")
    except InvalidSignature:
        raise Broken("the signature does not verify with the leaf certificate's key") from None


def read_jwt(text: str) -> dict:
    parts = text.strip().split(".")
    if len(parts) != 3:
        raise Broken("RFC 7515 §7.1: not three segments")
    header = json.loads(b64url(parts[0]))
    claims = json.loads(b64url(parts[1]))
    if header.get("typ") != "statuslist+jwt":
        raise Broken("TSL §5.1: typ is not statuslist+jwt")
    for name in ("sub", "iat", "status_list"):
        if name not in claims:
            raise Broken(f"TSL §5.1: {name} missing")
    status_list = claims["status_list"]
    result = describe_list(status_list.get("bits"), b64url(status_list["lst"]), status_list.get("aggregation_uri"))
    result.update({"typ": header["typ"], "sub": claims["sub"], "iat": claims["iat"], "exp": claims.get("exp"),
                   "ttl": claims.get("ttl"), "signature": "absent"})
    if "x5c" in header:
        signing_input = (parts[0] + "." + parts[1]).encode("ascii")
        verify_with_leaf(base64.b64decode(header["x5c"][0]), b64url(parts[2]), signing_input)
        result["signature"] = "valid"
    return result


def read_cwt(data: bytes) -> dict:
    item = cbor2.loads(data)
    if not isinstance(item, cbor2.CBORTag) or item.tag != 18:
        raise Broken("TSL §5.2: not a COSE_Sign1 tagged 18")
    protected_bytes, unprotected, payload, signature = item.value
    protected = cbor2.loads(protected_bytes) if protected_bytes else {}
    if protected.get(16) != "application/statuslist+cwt":
        raise Broken("TSL §5.2: protected typ (16) is not application/statuslist+cwt")
    claims = cbor2.loads(payload)
    for key, name in ((2, "sub"), (6, "iat"), (65533, "status_list")):
        if key not in claims:
            raise Broken(f"TSL §5.2: {name} ({key}) missing")
    status_list = claims[65533]
    if not isinstance(status_list.get("lst"), bytes):
        raise Broken("TSL §4.3: lst is not a byte string")
    result = describe_list(status_list.get("bits"), status_list["lst"], status_list.get("aggregation_uri"))
    result.update({"typ": protected[16], "sub": claims[2], "iat": claims[6], "exp": claims.get(4),
                   "ttl": claims.get(65534), "signature": "absent"})
    chain = protected.get(33, unprotected.get(33))
    if chain is not None:
        leaf = chain if isinstance(chain, bytes) else chain[0]
        sig_structure = cbor2.dumps(["Signature1", protected_bytes, b"", payload])  # RFC 9052 §4.4
        verify_with_leaf(leaf, signature, sig_structure)
        result["signature"] = "valid"
    return result


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("jwt", "cwt"):
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[2], "rb") as handle:
        raw = handle.read()
    try:
        result = read_jwt(raw.decode("ascii")) if sys.argv[1] == "jwt" else read_cwt(raw)
    except (Broken, ValueError, KeyError, TypeError, zlib.error, cbor2.CBORDecodeError) as error:
        print(f"status_list_reader: {error}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
