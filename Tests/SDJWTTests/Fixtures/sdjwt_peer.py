"""Interop peer for SDJWTTests: PyPI sd-jwt 0.10.4 (module sd_jwt) on jwcrypto.

  issue AUD NONCE                 -> issuer public JWK, the issuance, a presentation with KB-JWT (one per line)
  verify ISSUER_JWK AUD NONCE     -> reads a presentation on stdin; prints the verified claims as JSON
  present AUD NONCE HOLDER_JWK    -> reads an issuance on stdin; prints a presentation of given_name and
                                     address.street_address with KB-JWT signed by HOLDER_JWK (private)
Exit 1 when sd-jwt rejects the input, 2 when the peer itself is unusable.
"""
import json
import sys

try:
    from jwcrypto.jwk import JWK
    from sd_jwt.common import SDObj
    from sd_jwt.holder import SDJWTHolder
    from sd_jwt.issuer import SDJWTIssuer
    from sd_jwt.verifier import SDJWTVerifier
except Exception as error:  # noqa: BLE001
    print(f"cannot import sd_jwt: {error}", file=sys.stderr)
    sys.exit(2)


def issue(aud, nonce):
    issuer_key = JWK.generate(kty="EC", crv="P-256")
    holder_key = JWK.generate(kty="EC", crv="P-256")
    claims = {
        "iss": "https://issuer.example.com",
        "iat": 1683000000,
        "vct": "urn:eudi:pid:1",
        SDObj("given_name"): "Erika",
        SDObj("family_name"): "Mustermann",
        SDObj("address"): {
            SDObj("street_address"): "Heidestraße 17",
            "locality": "Köln",
        },
        "nationalities": [SDObj("DE"), SDObj("FR"), "AT"],
        SDObj("age_equal_or_over"): {SDObj("18"): True, SDObj("21"): False},
    }
    issuer = SDJWTIssuer(
        claims, issuer_key, holder_key, add_decoy_claims=True, extra_header_parameters={"typ": "dc+sd-jwt"}
    )
    holder = SDJWTHolder(issuer.sd_jwt_issuance)
    holder.create_presentation(
        {"given_name": True, "address": {"street_address": True}, "nationalities": [False, True],
         "age_equal_or_over": {"18": True}},
        nonce, aud, holder_key, "ES256",
    )
    print(issuer_key.export_public())
    print(issuer.sd_jwt_issuance)
    print(holder.sd_jwt_presentation)


def verify(issuer_jwk, aud, nonce):
    presentation = sys.stdin.read().strip()
    key = JWK.from_json(issuer_jwk)
    verifier = SDJWTVerifier(presentation, lambda iss, header: key, aud, nonce)
    print(json.dumps(verifier.get_verified_payload(), ensure_ascii=False))


def present(aud, nonce, holder_jwk):
    issuance = sys.stdin.read().strip()
    holder = SDJWTHolder(issuance)
    holder.create_presentation(
        {"given_name": True, "address": {"street_address": True}}, nonce, aud, JWK.from_json(holder_jwk), "ES256"
    )
    print(holder.sd_jwt_presentation)


def main():
    mode = sys.argv[1]
    try:
        if mode == "issue":
            issue(sys.argv[2], sys.argv[3])
        elif mode == "verify":
            verify(sys.argv[2], sys.argv[3], sys.argv[4])
        elif mode == "present":
            present(sys.argv[2], sys.argv[3], sys.argv[4])
        else:
            print(f"unknown mode {mode}", file=sys.stderr)
            sys.exit(2)
    except Exception as error:  # noqa: BLE001  (sd-jwt signals rejection with plain exceptions)
        print(f"rejected: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)


main()
