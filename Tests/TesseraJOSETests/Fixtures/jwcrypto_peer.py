"""jwcrypto interop peer for TesseraJOSETests (arguments on argv, results on stdout).

  sign <ES256|ES384|ES512|EdDSA|RS256|PS256> <payload_hex>
      Make a fresh key and sign a compact JWS (protected header alg + kid "jwcrypto").
      Prints two lines: the public JWK (JSON), then the compact JWS.
  verify <public_jwk_json> <compact_jws>
      Prints "valid <payload_hex>" (exit 0) or "invalid: <reason>" (exit 1).
  encrypt <public_jwk_json> <A128GCM|A256GCM> <plaintext_hex> [apu_b64url apv_b64url]
      Compact JWE with alg ECDH-ES (direct key agreement). Prints the compact JWE.
  decrypt <private_jwk_json> <compact_jwe>
      Prints the plaintext hex (exit 0) or "invalid: <reason>" (exit 1).
  thumbprint <jwk_json>
      Prints the RFC 7638 SHA-256 thumbprint (base64url).

Exit 2 means a usage or environment problem (e.g. jwcrypto missing).
"""
import json
import sys

try:
    from jwcrypto import jwe, jwk, jws
    from jwcrypto.common import json_encode
except ImportError as e:  # pragma: no cover
    print(f"jwcrypto missing: {e}", file=sys.stderr)
    sys.exit(2)

JWS_ALGS = ["ES256", "ES384", "ES512", "EdDSA", "RS256", "PS256"]
JWE_ALGS = ["ECDH-ES", "A128GCM", "A256GCM"]


def new_key(alg):
    if alg == "ES256":
        return jwk.JWK.generate(kty="EC", crv="P-256")
    if alg == "ES384":
        return jwk.JWK.generate(kty="EC", crv="P-384")
    if alg == "ES512":
        return jwk.JWK.generate(kty="EC", crv="P-521")
    if alg == "EdDSA":
        return jwk.JWK.generate(kty="OKP", crv="Ed25519")
    if alg in ("RS256", "PS256"):
        return jwk.JWK.generate(kty="RSA", size=2048)
    raise ValueError(f"unknown alg {alg}")


def sign(alg, payload_hex):
    key = new_key(alg)
    token = jws.JWS(bytes.fromhex(payload_hex))
    token.allowed_algs = JWS_ALGS
    token.add_signature(key, None, json_encode({"alg": alg, "kid": "jwcrypto"}))
    print(key.export_public())
    print(token.serialize(compact=True))
    return 0


def verify(jwk_json, compact):
    key = jwk.JWK.from_json(jwk_json)
    token = jws.JWS()
    token.allowed_algs = JWS_ALGS
    try:
        token.deserialize(compact)
        token.verify(key)
    except Exception as e:  # jwcrypto raises on any failure
        print(f"invalid: {type(e).__name__}: {e}")
        return 1
    print(f"valid {token.payload.hex()}")
    return 0


def encrypt(jwk_json, enc, plaintext_hex, apu=None, apv=None):
    key = jwk.JWK.from_json(jwk_json)
    header = {"alg": "ECDH-ES", "enc": enc}
    if apu is not None:
        header["apu"] = apu
        header["apv"] = apv
    token = jwe.JWE(bytes.fromhex(plaintext_hex), json_encode(header))
    token.allowed_algs = JWE_ALGS
    token.add_recipient(key)
    print(token.serialize(compact=True))
    return 0


def decrypt(jwk_json, compact):
    key = jwk.JWK.from_json(jwk_json)
    token = jwe.JWE()
    token.allowed_algs = JWE_ALGS
    try:
        token.deserialize(compact, key=key)
    except Exception as e:
        print(f"invalid: {type(e).__name__}: {e}")
        return 1
    print(token.payload.hex())
    return 0


def thumbprint(jwk_json):
    print(jwk.JWK.from_json(jwk_json).thumbprint())
    return 0


COMMANDS = {"sign": sign, "verify": verify, "encrypt": encrypt, "decrypt": decrypt, "thumbprint": thumbprint}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(COMMANDS[sys.argv[1]](*sys.argv[2:]))
    except TypeError as e:
        print(f"usage: {e}", file=sys.stderr)
        sys.exit(2)
