#!/usr/bin/env python3
"""An independent OpenID4VP 1.0 wallet (Python, PyPI libraries only) used to test Tessera's verifier service.

    oid4vp_wallet.py 'openid4vp://?client_id=…&request_uri=…&request_uri_method=post' \
        --wallet $TESSERA_HOME/wallet --trust-root $TESSERA_HOME/verifier/root.pem [--negative KIND] [-v]

It reads a Tessera wallet directory (credentials/<id>.json + keys/<keyID>.key.pem), fetches and checks the signed
Request Object (§5, §5.9.3 x509_hash, §5.10 request_uri_method post), evaluates the DCQL query (§6), builds the
presentations (SD-JWT VC + KB-JWT per B.3 / RFC 9901 with the `sd-jwt` library; mdoc DeviceResponse per B.2 with
cbor2 + cryptography), encrypts the response for direct_post.jwt (§8.3, jwcrypto) or posts it plain (§8.2), and
prints one JSON line: {"result": "sent", "posts": [{"http_status", "body"}…], "presented": {…}, …}.
Exit status: 0 when the response was posted (whatever the verifier answered), 2 when the wallet itself refused
(the JSON line then has "result": "error", "rule", "detail").

--negative makes a specific invalid response (the verifier must reject it):
  wrong-nonce        KB-JWT nonce (mdoc: SessionTranscript nonce) differs from the request's nonce
  wrong-aud          KB-JWT aud (mdoc: SessionTranscript client_id) is another client_id
  tampered-sd-hash   KB-JWT sd_hash does not match the presentation (SD-JWT only)
  wrong-kb-key       KB-JWT (mdoc: DeviceSignature) signed by a key other than the credential's holder key
  tampered-element   an mdoc element value changed after issuance (mdoc only: MSO digest mismatch)
  replay             a valid response posted twice (the second post must be rejected)
  wrong-state        the response carries another state value than the request's (§8.2)
  wrong-kid          the JWE kid header names a key the verifier did not offer (§8.3, direct_post.jwt only)
  access-denied      no presentation: the error response error=access_denied + state (§8.5), never encrypted
                     (for direct_post.jwt this is the §8.3.1 "error response without encryption")
  access-denied-jwe  the same error response, encrypted like a normal direct_post.jwt response (§8.3)
"""

from __future__ import annotations

import argparse
import base64
import glob
import hashlib
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cbor2  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from jwcrypto import jwe, jwk, jws  # noqa: E402
from sd_jwt.holder import SDJWTHolder  # noqa: E402

from oid4vp_common import (PeerError, b64url_decode, b64url_encode, compact_json, cose_key_to_public_key,  # noqa: E402
                           cose_sig_structure, device_authentication_bytes, es256_sign_raw, jws_parts,
                           jwk_thumbprint_sha256, load_certificate_pem, load_private_key_pem,
                           openid4vp_session_transcript, random_token, require, verify_chain,
                           x509_hash_client_id)
from oid4vp_dcql import (CredentialQuery, choose_claims, choose_credential_queries, parse_dcql,  # noqa: E402
                         select_json_path, values_match)

NEGATIVES = ("wrong-nonce", "wrong-aud", "tampered-sd-hash", "wrong-kb-key", "tampered-element", "replay",
             "access-denied", "access-denied-jwe", "wrong-state", "wrong-kid")
MAX_BODY = 1 << 20
VERBOSE = False


def log(message: str) -> None:
    if VERBOSE:
        print(f"[py-wallet] {message}", file=sys.stderr, flush=True)


# ---- HTTP (no redirects: §5.10.1 "SHOULD NOT follow HTTP redirects", §14.7) ------------------------------------

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def http(method: str, url: str, form: dict | None = None, accept: str | None = None, timeout: float = 15):
    data = urllib.parse.urlencode(form).encode("utf-8") if form is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    if accept:
        request.add_header("Accept", accept)
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read(MAX_BODY)
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read(MAX_BODY)


def body_as_json(body: bytes):
    try:
        return json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace")


# ---- wallet directory -------------------------------------------------------------------------------------------

class WalletCredential:
    def __init__(self, record: dict, key_path: str):
        self.id = record["id"]
        self.format = record["format"]
        self.type = record.get("type")
        self.key = load_private_key_pem(key_path)
        self.raw = base64.b64decode(record["data"], validate=True)
        if self.format == "dc+sd-jwt":
            self.compact = self.raw.decode("ascii")
            self.claims = unpack_sd_jwt(self.compact)
        elif self.format == "mso_mdoc":
            self.issuer_signed = cbor2.loads(self.raw)
            self.items = {}  # (namespace, element) -> (IssuerSignedItemBytes tag, value)
            for namespace, items in self.issuer_signed["nameSpaces"].items():
                for item in items:
                    require(isinstance(item, cbor2.CBORTag) and item.tag == 24, "ISO 18013-5 §8.3.2.1.2.2",
                            "IssuerSignedItemBytes is not tag 24")
                    decoded = cbor2.loads(item.value)
                    self.items[(namespace, decoded["elementIdentifier"])] = (item, decoded["elementValue"])
            mso = cbor2.loads(cbor2.loads(self.issuer_signed["issuerAuth"][2]).value)
            self.doc_type = mso["docType"]
            device_key = cose_key_to_public_key(mso["deviceKeyInfo"]["deviceKey"])
            require(device_key.public_numbers() == self.key.public_key().public_numbers(), "wallet",
                    f"{self.id}: the MSO device key is not the wallet key {record['keyID']}")
        else:
            raise PeerError("wallet", f"{self.id}: unsupported format {self.format}")


def unpack_sd_jwt(compact: str) -> dict:
    """All claims of an issued SD-JWT with every Disclosure applied (RFC 9901 §7.1 steps, holder side)."""
    parts = compact.split("~")
    _, payload, _ = jws_parts(parts[0])
    by_digest = {}
    for disclosure in parts[1:-1]:
        by_digest[b64url_encode(hashlib.sha256(disclosure.encode("ascii")).digest())] = json.loads(
            b64url_decode(disclosure))

    def unpack(value):
        if isinstance(value, dict):
            out = {k: unpack(v) for k, v in value.items() if k not in ("_sd", "_sd_alg")}
            for digest in value.get("_sd", []):
                if digest in by_digest:
                    _, name, claim = by_digest[digest]
                    out[name] = unpack(claim)
            return out
        if isinstance(value, list):
            out = []
            for element in value:
                if isinstance(element, dict) and list(element) == ["..."]:
                    if element["..."] in by_digest:
                        out.append(unpack(by_digest[element["..."]][1]))
                else:
                    out.append(unpack(element))
            return out
        return value

    return unpack(payload)


def load_wallet(directory: str) -> list[WalletCredential]:
    credentials = []
    for path in sorted(glob.glob(os.path.join(directory, "credentials", "*.json"))):
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        key_path = os.path.join(directory, "keys", f"{record['keyID']}.key.pem")
        credentials.append(WalletCredential(record, key_path))
    require(credentials, "wallet", f"no credentials in {directory}/credentials")
    return credentials


# ---- Authorization Request (§5) ---------------------------------------------------------------------------------

STATIC_WALLET_METADATA = {  # §10 / §12.1.1 (static configuration bound to openid4vp://)
    "response_types_supported": ["vp_token"],
    "vp_formats_supported": {"dc+sd-jwt": {"sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"]},
                             "mso_mdoc": {"issuerauth_alg_values": [-7], "deviceauth_alg_values": [-7]}},
    "request_object_signing_alg_values_supported": ["ES256"],
    "authorization_encryption_alg_values_supported": ["ECDH-ES"],
    "authorization_encryption_enc_values_supported": ["A128GCM", "A256GCM"],
}


def fetch_request(uri: str, roots, method_override: str | None) -> dict:
    parsed = urllib.parse.urlsplit(uri)
    require(parsed.scheme == "openid4vp", "OpenID4VP §9 invocation", f"scheme {parsed.scheme!r}")
    query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
    for name, values in query.items():
        require(len(values) == 1, "RFC 6749 §3.1", f"parameter {name} repeated")
    params = {k: v[0] for k, v in query.items()}
    client_id = params.get("client_id")
    request_uri = params.get("request_uri")
    require(client_id is not None, "OpenID4VP §5.2 client_id", "missing in the invocation URI")
    require(request_uri is not None, "RFC 9101 §5.2 request_uri", "missing (only request_uri is supported)")
    method = params.get("request_uri_method", "get")
    require(method in ("get", "post"), "OpenID4VP §5.1 request_uri_method", f"invalid_request_uri_method {method!r}")
    if method_override:
        method = method_override
    wallet_nonce = None
    if method == "post":
        wallet_nonce = random_token()
        status, content_type, body = http("POST", request_uri, {
            "wallet_metadata": compact_json(STATIC_WALLET_METADATA), "wallet_nonce": wallet_nonce},
            accept="application/oauth-authz-req+jwt")
    else:
        status, content_type, body = http("GET", request_uri, accept="application/oauth-authz-req+jwt")
    log(f"{method.upper()} {request_uri} -> {status} {content_type} ({len(body)} bytes)")
    require(status == 200, "OpenID4VP §5.10.2 request URI response", f"HTTP {status}: {body[:300]!r}")
    require(content_type.split(";")[0].strip().lower() == "application/oauth-authz-req+jwt",
            "OpenID4VP §5.10.1 request URI response", f"content type {content_type!r}")
    token = body.decode("ascii").strip()
    header, claims, _ = jws_parts(token)
    log(f"Request Object header {compact_json({k: v for k, v in header.items() if k != 'x5c'})}")
    log(f"Request Object claims {compact_json(claims)}")
    # §5: typ MUST be oauth-authz-req+jwt.
    require(header.get("typ") == "oauth-authz-req+jwt", "OpenID4VP §5 typ", f"typ {header.get('typ')!r}")
    require(header.get("alg") == "ES256", "OpenID4VP §5 alg", f"alg {header.get('alg')!r} (wallet supports ES256)")
    x5c = header.get("x5c")
    require(isinstance(x5c, list) and x5c and all(isinstance(c, str) for c in x5c), "OpenID4VP §5.9.3 x5c",
            "missing or not an array of strings")
    chain = [base64.b64decode(c, validate=True) for c in x5c]
    # §5.9.3: the Wallet MUST validate the signature and the trust chain of the leaf.
    errors = []
    leaf = None
    for root in roots:
        try:
            leaf = verify_chain(chain, root, "Request Object x5c")
            break
        except PeerError as error:
            errors.append(str(error))
    require(leaf is not None, "OpenID4VP §5.9.3 trust chain", "; ".join(errors))
    verifier = jws.JWS()
    verifier.deserialize(token)
    try:
        verifier.verify(jwk.JWK.from_pyca(leaf.public_key()), alg="ES256")
    except jws.InvalidJWSSignature:
        raise PeerError("OpenID4VP §5.9.3 Request Object signature", "does not verify with the x5c leaf") from None
    # §5.10.1: outer and inner client_id identical, including the prefix.
    require(claims.get("client_id") == client_id, "OpenID4VP §5.10.1 client_id",
            f"invocation {client_id!r} != Request Object {claims.get('client_id')!r}")
    require(client_id.startswith("x509_hash:"), "OpenID4VP §5.9.3 client identifier prefix",
            f"{client_id!r} (this wallet supports x509_hash)")
    expected_client_id = x509_hash_client_id(chain[0])
    require(client_id == expected_client_id, "OpenID4VP §5.9.3 x509_hash",
            f"client_id {client_id!r} but sha256(leaf) gives {expected_client_id!r}")
    if wallet_nonce is not None:
        require(claims.get("wallet_nonce") == wallet_nonce, "OpenID4VP §5.10.1 wallet_nonce",
                f"sent {wallet_nonce!r}, Request Object has {claims.get('wallet_nonce')!r}")
    # §5.8: aud is https://self-issued.me/v2 under static discovery (no `issuer` in our wallet_metadata).
    require(claims.get("aud") == "https://self-issued.me/v2", "OpenID4VP §5.8 aud",
            f"aud {claims.get('aud')!r}")
    now = time.time()
    if "exp" in claims:
        require(isinstance(claims["exp"], (int, float)) and claims["exp"] > now, "RFC 7519 §4.1.4 exp",
                f"expired at {claims['exp']} (now {int(now)})")
    if "iat" in claims:
        require(isinstance(claims["iat"], (int, float)) and claims["iat"] <= now + 300, "RFC 7519 §4.1.6 iat",
                f"iat {claims['iat']} is in the future")
    require(claims.get("response_type") == "vp_token", "OpenID4VP §5.4 response_type",
            f"{claims.get('response_type')!r}")
    mode = claims.get("response_mode")
    require(mode in ("direct_post", "direct_post.jwt"), "OpenID4VP §8.2 response_mode", f"{mode!r}")
    require(isinstance(claims.get("response_uri"), str), "OpenID4VP §8.2 response_uri", "missing")
    require("redirect_uri" not in claims, "OpenID4VP §8.2", "redirect_uri present with direct_post")
    nonce = claims.get("nonce")
    require(isinstance(nonce, str) and nonce and all(c.isalnum() or c in "-._~" for c in nonce),
            "OpenID4VP §5.2 nonce", f"{nonce!r}")
    require(("dcql_query" in claims) != ("scope" in claims), "OpenID4VP §5.1 dcql_query",
            "exactly one of dcql_query and scope must be present")
    require("dcql_query" in claims, "OpenID4VP §5.1 dcql_query", "scope is not supported by this wallet")
    require("transaction_data" not in claims, "OpenID4VP §5.1 transaction_data", "not supported by this wallet")
    if "state" in claims:
        require(isinstance(claims["state"], str), "OpenID4VP §5.2 state", "not a string")
    claims["_leaf"] = leaf
    return claims


def encryption_key(request: dict):
    """§8.3: a key of client_metadata.jwks with use enc (or none), alg present (ECDH-ES) and a kid; the enc value
    from encrypted_response_enc_values_supported (default A128GCM); this wallet prefers A256GCM."""
    metadata = request.get("client_metadata")
    require(isinstance(metadata, dict), "OpenID4VP §5.1 client_metadata", "missing (needed for direct_post.jwt)")
    keys = (metadata.get("jwks") or {}).get("keys")
    require(isinstance(keys, list) and keys, "OpenID4VP §8.3 jwks", "no keys")
    candidates = [k for k in keys if isinstance(k, dict) and k.get("use", "enc") == "enc" and k.get("kty") == "EC"
                  and k.get("crv") == "P-256" and k.get("alg") == "ECDH-ES"]
    require(candidates, "OpenID4VP §8.3 jwks", f"no EC P-256 ECDH-ES encryption key in {keys}")
    key = candidates[0]
    require(isinstance(key.get("kid"), str), "OpenID4VP §5.1 jwks kid", "each JWK must have a kid")
    offered = metadata.get("encrypted_response_enc_values_supported", ["A128GCM"])
    require(isinstance(offered, list) and offered, "OpenID4VP §5.1 encrypted_response_enc_values_supported",
            "must be a non-empty array")
    enc = "A256GCM" if "A256GCM" in offered else "A128GCM" if "A128GCM" in offered else None
    require(enc is not None, "OpenID4VP §8.3 enc", f"none of A128GCM/A256GCM offered: {offered}")
    return key, enc


# ---- presentations ----------------------------------------------------------------------------------------------

def full_disclosure(value):
    """claims_to_disclose structure (sd-jwt library) disclosing `value` and everything inside it."""
    if isinstance(value, dict):
        return {k: full_disclosure(v) for k, v in value.items()} or True
    if isinstance(value, list):
        return [full_disclosure(v) for v in value] or True
    return True


def merge(a, b):
    """Union of two claims_to_disclose structures."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: merge(a.get(k), b.get(k)) for k in {**a, **b}}
    if isinstance(a, list) and isinstance(b, list):
        length = max(len(a), len(b))
        return [merge(a[i] if i < len(a) else None, b[i] if i < len(b) else None) for i in range(length)]
    return b if a is True or a == {} or a == [] else a


def disclosure_for_path(value, path):
    """claims_to_disclose structure for one claims path pointer (§7.1) applied to the unpacked claims."""
    if not path:
        return full_disclosure(value)
    component, rest = path[0], path[1:]
    if isinstance(component, str):
        return {component: disclosure_for_path(value[component], rest)} if component in value else {}
    if component is None:
        return [disclosure_for_path(v, rest) for v in value]
    out = [None] * len(value)
    if component < len(value):
        out[component] = disclosure_for_path(value[component], rest)
    return out


def matching_credential(query: CredentialQuery, wallet: list[WalletCredential]):
    """The first wallet credential and claims satisfying `query` (§6.4), or None."""
    for credential in wallet:
        if credential.format != query.format:
            continue
        if query.format == "dc+sd-jwt":
            if credential.claims.get("vct") not in query.meta["vct_values"]:
                continue

            def available(claim, c=credential):
                selected = select_json_path(c.claims, claim.path)
                return bool(selected) and values_match(claim, selected)
        else:
            if credential.doc_type != query.meta["doctype_value"]:
                continue

            def available(claim, c=credential):
                key = (claim.path[0], claim.path[1])
                return key in c.items and values_match(claim, [c.items[key][1]])
        chosen = choose_claims(query, available)
        if chosen is not None:
            return credential, chosen
    return None


def sd_jwt_presentation(credential: WalletCredential, claims, request: dict, negative: str | None) -> str:
    disclose = {}
    for claim in claims:
        disclose = merge(disclose, disclosure_for_path(credential.claims, claim.path))
    nonce = request["nonce"] + ("-wrong" if negative == "wrong-nonce" else "")
    aud = request["client_id"] if negative != "wrong-aud" else x509_hash_client_id(b"another verifier")
    key = credential.key if negative != "wrong-kb-key" else ec.generate_private_key(ec.SECP256R1())
    holder_key = jwk.JWK.from_pyca(key)
    holder = SDJWTHolder(credential.compact)
    if negative != "tampered-sd-hash":
        # The sd-jwt library selects the Disclosures and makes the KB-JWT (typ kb+jwt, nonce, aud, iat, sd_hash).
        holder.create_presentation(disclose, nonce=nonce, aud=aud, holder_key=holder_key, sign_alg="ES256")
        return holder.sd_jwt_presentation
    # The library cannot make a wrong sd_hash: it selects the Disclosures, jwcrypto signs a KB-JWT whose sd_hash
    # is that of the presentation with its last character changed.
    holder.create_presentation(disclose)
    presentation = holder.sd_jwt_presentation
    require(presentation.endswith("~"), "SD-JWT", "presentation without KB-JWT must end with ~")
    good = b64url_encode(hashlib.sha256(presentation.encode("ascii")).digest())
    bad = good[:-1] + ("A" if good[-1] != "A" else "B")
    token = jws.JWS(compact_json({"nonce": nonce, "aud": aud, "iat": int(time.time()), "sd_hash": bad}))
    token.add_signature(holder_key, alg="ES256", protected=compact_json({"alg": "ES256", "typ": "kb+jwt"}))
    return presentation + token.serialize(compact=True)


def mdoc_presentation(credential: WalletCredential, claims, request: dict, thumbprint: bytes | None,
                      negative: str | None) -> str:
    """A DeviceResponse (ISO 18013-5 §8.3.2.1.2.2) with the requested elements and a DeviceSignature over the
    OpenID4VP SessionTranscript (B.2.6.1); base64url-encoded as the vp_token entry (B.2.5)."""
    namespaces: dict = {}
    for claim in claims:
        item, _ = credential.items[(claim.path[0], claim.path[1])]
        if negative == "tampered-element" and not namespaces:
            decoded = cbor2.loads(item.value)
            value = decoded["elementValue"]
            decoded["elementValue"] = (not value) if isinstance(value, bool) else (
                value + "x" if isinstance(value, str) else value)
            item = cbor2.CBORTag(24, cbor2.dumps(decoded))
        namespaces.setdefault(claim.path[0], []).append(item)
    nonce = request["nonce"] + ("-wrong" if negative == "wrong-nonce" else "")
    client_id = request["client_id"] if negative != "wrong-aud" else x509_hash_client_id(b"another verifier")
    transcript = openid4vp_session_transcript(client_id, nonce, thumbprint, request["response_uri"])
    device_namespaces = cbor2.dumps({})
    to_sign = device_authentication_bytes(transcript, credential.doc_type, device_namespaces)
    protected = cbor2.dumps({1: -7})
    key = credential.key if negative != "wrong-kb-key" else ec.generate_private_key(ec.SECP256R1())
    signature = es256_sign_raw(key, cose_sig_structure(protected, to_sign))
    document = {
        "docType": credential.doc_type,
        "issuerSigned": {"nameSpaces": namespaces, "issuerAuth": credential.issuer_signed["issuerAuth"]},
        "deviceSigned": {"nameSpaces": cbor2.CBORTag(24, device_namespaces),
                         "deviceAuth": {"deviceSignature": [protected, {}, None, signature]}},
    }
    return b64url_encode(cbor2.dumps({"version": "1.0", "documents": [document], "status": 0}))


def main() -> int:
    global VERBOSE
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("uri", help="openid4vp:// invocation URI")
    parser.add_argument("--wallet", default=os.path.join(os.environ.get("TESSERA_HOME", "."), "wallet"),
                        help="Tessera wallet directory (default $TESSERA_HOME/wallet)")
    parser.add_argument("--trust-root", action="append", required=True, help="verifier root PEM (repeatable)")
    parser.add_argument("--negative", choices=NEGATIVES, help="make a specific invalid response")
    parser.add_argument("--request-method", choices=("get", "post"), help="override request_uri_method")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    VERBOSE = args.verbose
    try:
        wallet = load_wallet(args.wallet)
        roots = [load_certificate_pem(p) for p in args.trust_root]
        request = fetch_request(args.uri, roots, args.request_method)
        dcql = parse_dcql(request["dcql_query"])
        matches = {}
        for query in dcql.credentials:
            found = matching_credential(query, wallet)
            if found is not None:
                matches[query.id] = found
        chosen_ids = choose_credential_queries(dcql, set(matches))
        encrypted = request["response_mode"] == "direct_post.jwt"
        key, enc = encryption_key(request) if encrypted else (None, None)
        thumbprint = jwk_thumbprint_sha256(key) if key is not None else None
        vp_token = {}
        presented = {}
        for query_id in chosen_ids:
            credential, claims = matches[query_id]
            log(f"query {query_id}: credential {credential.id} claims {[c.path for c in claims]}")
            if credential.format == "dc+sd-jwt":
                vp_token[query_id] = [sd_jwt_presentation(credential, claims, request, args.negative)]
            else:
                vp_token[query_id] = [mdoc_presentation(credential, claims, request, thumbprint, args.negative)]
            presented[query_id] = [credential.id]
        payload = {"vp_token": vp_token}
        if "state" in request:
            payload["state"] = request["state"]
        if args.negative == "wrong-state":
            payload["state"] = random_token()
        if args.negative in ("access-denied", "access-denied-jwe"):
            payload = {"error": "access_denied", "error_description": "declined by the End-User"}
            if "state" in request:
                payload["state"] = request["state"]
            presented = {}
            if args.negative == "access-denied-jwe":
                require(encrypted, "access-denied-jwe", "needs response_mode direct_post.jwt")
        if args.negative == "access-denied":
            form = payload
        elif encrypted:
            header = {"alg": "ECDH-ES", "enc": enc, "kid": key["kid"] if args.negative != "wrong-kid" else "other"}
            token = jwe.JWE(compact_json(payload).encode("utf-8"), protected=compact_json(header))
            token.add_recipient(jwk.JWK(**key))
            form = {"response": token.serialize(compact=True)}
        else:
            form = {"vp_token": compact_json(vp_token)}
            if "state" in payload:
                form["state"] = payload["state"]
        posts = []
        for _ in range(2 if args.negative == "replay" else 1):
            status, _, body = http("POST", request["response_uri"], form)
            log(f"POST {request['response_uri']} -> {status} {body[:300]!r}")
            posts.append({"http_status": status, "body": body_as_json(body)})
        print(compact_json({"result": "sent", "client_id": request["client_id"], "response_mode":
                            request["response_mode"], "enc": enc, "negative": args.negative,
                            "presented": presented, "posts": posts}), flush=True)
        return 0
    except PeerError as error:
        print(compact_json({"result": "error", "rule": error.rule, "detail": error.detail}), flush=True)
        return 2
    except (KeyError, ValueError, TypeError, OSError) as error:
        print(compact_json({"result": "error", "rule": "malformed input",
                            "detail": f"{type(error).__name__}: {error}"}), flush=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
