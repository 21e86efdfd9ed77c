"""pycose interop peer for TesseraCOSETests (hex in on argv, hex out on stdout).

  verify <cose_key_hex> <sign1_hex> [external_aad_hex]
      Decode a COSE_Sign1 with pycose and verify it with the COSE_Key.
      Prints "valid" (exit 0) or "invalid: <reason>" (exit 1).
  sign <ES256|EdDSA> <payload_hex> [external_aad_hex]
      Make a fresh key, sign a tagged COSE_Sign1 with pycose.
      Prints two lines: the public COSE_Key hex, then the message hex.

Exit 2 means a usage or environment problem (e.g. pycose missing).
"""
import sys
from collections.abc import Mapping

try:
    import cbor2
    from pycose.algorithms import EdDSA, Es256
    from pycose.headers import Algorithm
    from pycose.keys import CoseKey, EC2Key, OKPKey
    from pycose.keys.curves import P256, Ed25519
    from pycose.messages import Sign1Message
except ImportError as e:  # pragma: no cover
    print(f"pycose missing: {e}", file=sys.stderr)
    sys.exit(2)


def _thaw(obj):
    """cbor2 >= 6 decodes tag content as tuples/frozendicts, which pycose 1.1 rejects."""
    if isinstance(obj, (list, tuple)):
        return [_thaw(x) for x in obj]
    if isinstance(obj, Mapping):
        return {k: _thaw(v) for k, v in obj.items()}
    return obj


def decode_sign1(data):
    obj = cbor2.loads(data)
    if isinstance(obj, cbor2.CBORTag):
        if obj.tag != 18:
            raise ValueError(f"CBOR tag {obj.tag} is not COSE_Sign1")
        obj = obj.value
    return Sign1Message.from_cose_obj(_thaw(obj), True)


def verify(key_hex, msg_hex, aad_hex=""):
    key = CoseKey.decode(bytes.fromhex(key_hex))
    msg = decode_sign1(bytes.fromhex(msg_hex))
    msg.key = key
    msg.external_aad = bytes.fromhex(aad_hex)
    try:
        ok = msg.verify_signature()
    except Exception as e:  # pycose raises on malformed input
        print(f"invalid: {type(e).__name__}: {e}")
        return 1
    if ok:
        print("valid")
        return 0
    print("invalid: bad signature")
    return 1


def sign(alg_name, payload_hex, aad_hex=""):
    if alg_name == "ES256":
        key = EC2Key.generate_key(crv=P256)
        public = EC2Key(crv=P256, x=key.x, y=key.y)
        alg = Es256
    elif alg_name == "EdDSA":
        key = OKPKey.generate_key(crv=Ed25519)
        public = OKPKey(crv=Ed25519, x=key.x)
        alg = EdDSA
    else:
        print(f"unknown algorithm {alg_name}", file=sys.stderr)
        return 2
    msg = Sign1Message(phdr={Algorithm: alg}, payload=bytes.fromhex(payload_hex))
    msg.external_aad = bytes.fromhex(aad_hex)
    msg.key = key
    print(public.encode().hex())
    print(msg.encode().hex())
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "verify":
        return verify(*argv[1:4])
    if len(argv) >= 3 and argv[0] == "sign":
        return sign(*argv[1:4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
