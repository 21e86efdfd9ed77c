#!/usr/bin/env python3
"""An independent OpenID4VP 1.0 verifier (Python, PyPI libraries only) used to test Tessera's wallet.

    oid4vp_verifier.py --mode sd-jwt|mdoc --root-out DIR/root.pem [--timeout 60] [--response-mode direct_post.jwt]

It makes its own P-256 root + leaf certificate (client_id x509_hash:<sha256 of the leaf>, §5.9.3), writes the root
to --root-out for the wallet's trust list, serves a signed Request Object at request_uri (GET, or POST with the
wallet_nonce echoed, §5.10) whose DCQL query asks for PID given_name + family_name (dc+sd-jwt) or mDL family_name +
age_over_18 (mso_mdoc), receives the response at response_uri (direct_post.jwt: a JWE to an ephemeral ECDH-ES P-256
key of client_metadata.jwks, §8.3; or direct_post, §8.2) and verifies it:
  * dc+sd-jwt (B.3, RFC 9901, SD-JWT VC): issuer JWT typ dc+sd-jwt, ES256 signature with the x5c leaf chained to
    the PID root, exp, vct; Disclosures (sd-jwt library), every Disclosure referenced and requested, KB-JWT typ,
    signature with cnf.jwk, aud = client_id, nonce, sd_hash (sd-jwt library), iat fresh.
  * mso_mdoc (B.2): DeviceResponse version/status, issuerAuth COSE_Sign1 with the x5chain leaf chained to the IACA,
    MSO docType/validity/digestAlgorithm, the value digests of the returned elements, exactly the requested
    elements, DeviceSignature over DeviceAuthentication with the OpenID4VP SessionTranscript
    [null, null, ["OpenID4VPHandover", sha256(cbor([client_id, nonce, jwk_thumbprint, response_uri]))]] (B.2.6.1).
stdout: line 1 = the openid4vp:// invocation URI; line 2 = one JSON object: {"result": "success", "claims": …} or
{"result": "error"|"wallet_error"|"timeout", …}. Exits after the first response to response_uri: 0 on success,
1 when the response was rejected (the wallet got HTTP 400), 2 on timeout. Logs go to stderr.

--transaction-data TYPE adds a transaction_data entry of that type for the query (§5.1, §8.4): a wallet that does not
support the type must answer invalid_transaction_data (§8.5). --vct VCT asks for another SD-JWT VC type (a wallet
without one must answer access_denied, §6.4.2). --reject answers every response with HTTP 400 invalid_request (a
verifier that refuses the presentation). A wallet_error outcome says whether the error came encrypted.

--tamper makes the Request Object itself invalid, to check that a wallet refuses it:
  client-id           client_id (in the URI and the Request Object) is x509_hash of another certificate
  client-id-mismatch  the Request Object's client_id differs from the invocation URI's
  signature           Request Object signed by a key other than the x5c leaf's
  wallet-nonce        wallet_nonce not echoed
  typ                 typ header "JWT" instead of oauth-authz-req+jwt
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cbor2  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from jwcrypto import jwe, jwk, jws  # noqa: E402
from jwcrypto.common import JWException  # noqa: E402
from sd_jwt.verifier import SDJWTVerifier  # noqa: E402

from oid4vp_common import (PeerError, b64url_decode, b64url_encode, cbor_to_json, compact_json,  # noqa: E402
                           cose_key_to_public_key, cose_sig_structure, device_authentication_bytes,
                           es256_verify_raw, jws_parts, jwk_thumbprint_sha256, load_certificate_pem,
                           make_root_and_leaf, now_utc, openid4vp_session_transcript, random_token, require,
                           verify_chain, x509_hash_client_id)
from oid4vp_dcql import parse_dcql, select_json_path  # noqa: E402

MAX_BODY = 1 << 20
KB_JWT_MAX_AGE = 300
REGISTERED_CLAIMS = ("iss", "sub", "iat", "exp", "nbf", "vct", "vct#integrity", "cnf", "status", "_sd_alg")

PID_QUERY = {"credentials": [{
    "id": "pid", "format": "dc+sd-jwt", "meta": {"vct_values": ["urn:eudi:pid:1"]},
    "claims": [{"path": ["given_name"]}, {"path": ["family_name"]}]}]}
MDL_QUERY = {"credentials": [{
    "id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": "org.iso.18013.5.1.mDL"},
    "claims": [{"path": ["org.iso.18013.5.1", "family_name"]}, {"path": ["org.iso.18013.5.1", "age_over_18"]}]}]}


def log(message: str) -> None:
    print(f"[py-verifier] {message}", file=sys.stderr, flush=True)


class Verifier:
    def __init__(self, args):
        self.args = args
        self.root, self.leaf, self.leaf_key = make_root_and_leaf("Tessera Interop Python Verifier Root",
                                                                 "Tessera Interop Python Verifier")
        self.leaf_der = self.leaf.public_bytes(serialization.Encoding.DER)
        self.client_id = x509_hash_client_id(self.leaf_der if args.tamper != "client-id" else b"not this leaf")
        self.enc_key = jwk.JWK.generate(kty="EC", crv="P-256")
        self.enc_kid = random_token(8)
        public = json.loads(self.enc_key.export_public())
        self.enc_public = {**public, "kid": self.enc_kid, "use": "enc", "alg": "ECDH-ES"}
        self.enc_values = args.enc_values.split(",")
        self.nonce = random_token()
        self.state = random_token()
        self.request_id = random_token(9)
        self.dcql = PID_QUERY if args.mode == "sd-jwt" else MDL_QUERY
        if args.vct:
            self.dcql = json.loads(json.dumps(PID_QUERY))
            self.dcql["credentials"][0]["meta"]["vct_values"] = [args.vct]
        self.error_encrypted: bool | None = None
        self.pid_root = load_certificate_pem(args.pid_root) if args.mode == "sd-jwt" else None
        self.iaca = load_certificate_pem(args.iaca) if args.mode == "mdoc" else None
        self.base = ""
        self.done = threading.Event()
        self.outcome: dict = {}
        self.exit_code = 2
        self.lock = threading.Lock()

    # ---- request ----------------------------------------------------------------------------------------------

    @property
    def response_uri(self) -> str:
        return f"{self.base}/response/{self.request_id}"

    def invocation_uri(self) -> str:
        request_uri = f"{self.base}/request/{self.request_id}"
        return "openid4vp://?" + urllib.parse.urlencode({
            "client_id": self.client_id, "request_uri": request_uri, "request_uri_method": "post"})

    def request_object(self, wallet_nonce: str | None) -> str:
        """The signed Request Object (§5, JAR RFC 9101) with the x5c header [leaf] (§5.9.3)."""
        tamper = self.args.tamper
        now = int(time.time())
        claims = {
            "client_id": self.client_id if tamper != "client-id-mismatch" else x509_hash_client_id(b"another"),
            "response_type": "vp_token",
            "response_mode": self.args.response_mode,
            "response_uri": self.response_uri,
            "nonce": self.nonce,
            "state": self.state,
            "dcql_query": self.dcql,
            "client_metadata": {
                "jwks": {"keys": [self.enc_public]},
                "encrypted_response_enc_values_supported": self.enc_values,
                "vp_formats_supported": {
                    "dc+sd-jwt": {"sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"]},
                    "mso_mdoc": {"issuerauth_alg_values": [-7], "deviceauth_alg_values": [-7]}},
            },
            "aud": "https://self-issued.me/v2",
            "iat": now,
            "exp": now + 600,
        }
        if wallet_nonce is not None and tamper != "wallet-nonce":
            claims["wallet_nonce"] = wallet_nonce
        if self.args.transaction_data:
            query_id = self.dcql["credentials"][0]["id"]
            entry = {"type": self.args.transaction_data, "credential_ids": [query_id], "payment": {"amount": "1.00"}}
            claims["transaction_data"] = [b64url_encode(compact_json(entry).encode("utf-8"))]
        header = {"alg": "ES256", "typ": "oauth-authz-req+jwt" if tamper != "typ" else "JWT",
                  "x5c": [base64.b64encode(self.leaf_der).decode("ascii")]}
        key = self.leaf_key if tamper != "signature" else ec.generate_private_key(ec.SECP256R1())
        token = jws.JWS(compact_json(claims).encode("utf-8"))
        token.add_signature(jwk.JWK.from_pyca(key), alg="ES256", protected=compact_json(header))
        return token.serialize(compact=True)

    # ---- response ---------------------------------------------------------------------------------------------

    def handle_response(self, form: dict) -> dict:
        """§8.2/§8.3: decrypts (direct_post.jwt) and validates the Authorization Response; returns the claims."""
        if self.args.response_mode == "direct_post.jwt":
            if "response" not in form and "error" in form:
                payload = form
                self.error_encrypted = False
            else:
                require(set(form) == {"response"}, "OpenID4VP §8.3.1 direct_post.jwt",
                        f"form must hold only `response`, has {sorted(form)}")
                payload = self.decrypt(form["response"])
                self.error_encrypted = True
        else:
            payload = dict(form)
            if "vp_token" in payload:
                try:
                    payload["vp_token"] = json.loads(payload["vp_token"])
                except ValueError:
                    raise PeerError("OpenID4VP §8.1 vp_token", "not JSON") from None
        require(payload.get("state") == self.state, "OpenID4VP §8.2 state",
                f"expected {self.state!r}, got {payload.get('state')!r}")
        if "error" in payload:
            raise WalletError(payload.get("error"), payload.get("error_description"))
        vp_token = payload.get("vp_token")
        require(isinstance(vp_token, dict) and vp_token, "OpenID4VP §8.1 vp_token", "not a non-empty JSON object")
        dcql = parse_dcql(self.dcql)
        expected_ids = [q.id for q in dcql.credentials]
        require(sorted(vp_token) == sorted(expected_ids), "OpenID4VP §6.4.2 / §8.6",
                f"vp_token has {sorted(vp_token)}, the query asks for {expected_ids}")
        results = {}
        for query in dcql.credentials:
            presentations = vp_token[query.id]
            require(isinstance(presentations, list) and len(presentations) == 1 and
                    isinstance(presentations[0], str), "OpenID4VP §8.1 vp_token",
                    f"{query.id}: expected an array of one string (multiple is false)")
            if query.format == "dc+sd-jwt":
                results[query.id] = self.verify_sd_jwt(presentations[0], query)
            else:
                results[query.id] = self.verify_mdoc(presentations[0], query)
        return results

    def decrypt(self, token: str) -> dict:
        parts = token.split(".")
        require(len(parts) == 5, "RFC 7516 §7.1 compact JWE", f"{len(parts)} parts")
        header = json.loads(b64url_decode(parts[0]))
        log(f"JWE header {compact_json(header)}")
        require(header.get("alg") == "ECDH-ES", "OpenID4VP §8.3 alg", f"{header.get('alg')!r} != jwk alg ECDH-ES")
        require(header.get("enc") in self.enc_values, "OpenID4VP §8.3 enc",
                f"{header.get('enc')!r} not in offered {self.enc_values}")
        require(header.get("kid") == self.enc_kid, "OpenID4VP §8.3 kid", f"{header.get('kid')!r} != {self.enc_kid!r}")
        require("zip" not in header, "OpenID4VP §8.3", "compressed responses are not accepted")
        decrypter = jwe.JWE()
        try:
            decrypter.deserialize(token, key=self.enc_key)
        except JWException as error:
            raise PeerError("RFC 7516 JWE decryption", f"{type(error).__name__}: {error}") from None
        payload = json.loads(decrypter.payload)
        require(isinstance(payload, dict), "OpenID4VP §8.3 payload", "not a JSON object")
        return payload

    def verify_sd_jwt(self, presentation: str, query) -> dict:
        parts = presentation.split("~")
        require(len(parts) >= 2 and parts[-1] != "", "OpenID4VP B.3.6 / RFC 9901 §4",
                "an SD-JWT+KB (with Key Binding JWT) is required")
        header, signed, _ = jws_parts(parts[0])
        require(header.get("typ") == "dc+sd-jwt", "SD-JWT VC §3.2.1 typ", f"{header.get('typ')!r}")
        require(header.get("alg") == "ES256", "OpenID4VP B.3.4 sd-jwt_alg_values", f"{header.get('alg')!r}")

        def issuer_key(_iss, jose_header):
            x5c = jose_header.get("x5c")
            require(isinstance(x5c, list) and x5c, "SD-JWT VC §3.5 x5c", "issuer JWT has no x5c")
            chain = [base64.b64decode(c, validate=True) for c in x5c]
            leaf = verify_chain(chain, self.pid_root, "SD-JWT VC issuer x5c")
            return jwk.JWK.from_pyca(leaf.public_key())

        try:
            # sd-jwt library: issuer signature (with the key above), Disclosure digests, KB-JWT typ, signature with
            # cnf.jwk, aud, nonce and sd_hash.
            verifier = SDJWTVerifier(presentation, issuer_key, expected_aud=self.client_id,
                                     expected_nonce=self.nonce)
            verified = verifier.get_verified_payload()
        except PeerError:
            raise
        except (ValueError, KeyError, TypeError, JWException) as error:
            raise PeerError("RFC 9901 §7 SD-JWT+KB verification", f"{type(error).__name__}: {error}") from None
        now = time.time()
        require(isinstance(signed.get("exp"), int) and signed["exp"] > now, "RFC 7519 exp", "credential expired")
        require(signed.get("vct") in query.meta["vct_values"], "OpenID4VP B.3.5 vct_values", f"{signed.get('vct')!r}")
        _, kb, _ = jws_parts(parts[-1])
        require(isinstance(kb.get("iat"), int) and abs(now - kb["iat"]) <= KB_JWT_MAX_AGE, "RFC 9901 §7.3 iat",
                f"KB-JWT iat {kb.get('iat')} not within {KB_JWT_MAX_AGE}s of now {int(now)}")
        # Data minimization (§6.4.1): every Disclosure referenced, and each on (or above/below) a requested path.
        requested = [c.path for c in query.claims]
        for path in disclosure_paths(signed, parts[1:-1]):
            require(any(related(path, r) for r in requested), "OpenID4VP §6.4.1 selected claims only",
                    f"Disclosure for {path} was not requested ({requested})")
        for path in requested:
            require(select_json_path(verified, path), "OpenID4VP §6.4.1 requested claims",
                    f"requested claim {path} is missing")
        claims = prune({k: v for k, v in verified.items() if k not in REGISTERED_CLAIMS})
        return {"format": "dc+sd-jwt", "vct": signed["vct"], "iss": signed.get("iss"), "claims": claims}

    def verify_mdoc(self, presentation: str, query) -> dict:
        rule = "ISO 18013-5 §8.3.2.1.2.2 DeviceResponse"
        response = cbor2.loads(b64url_decode(presentation))
        require(isinstance(response, dict), rule, "not a map")
        require(response.get("version") == "1.0", rule, f"version {response.get('version')!r}")
        require(response.get("status") == 0, rule, f"status {response.get('status')!r}")
        documents = response.get("documents")
        require(isinstance(documents, list) and len(documents) == 1, rule, "expected exactly one document")
        document = documents[0]
        doc_type = document.get("docType")
        require(doc_type == query.meta["doctype_value"], "OpenID4VP B.2.3 doctype_value", f"{doc_type!r}")
        issuer_signed = document["issuerSigned"]
        mso = self.verify_issuer_auth(issuer_signed["issuerAuth"])
        require(mso.get("docType") == doc_type, "ISO 18013-5 §9.3.1 docType", "MSO docType != document docType")
        require(mso.get("digestAlgorithm") == "SHA-256", "ISO 18013-5 §9.1.2.5", f"{mso.get('digestAlgorithm')!r}")
        validity = mso["validityInfo"]
        moment = now_utc()
        require(validity["validFrom"] <= moment <= validity["validUntil"], "ISO 18013-5 §9.3.1 validity",
                f"{validity['validFrom']} .. {validity['validUntil']}")
        claims: dict = {}
        returned = []
        for namespace, items in (issuer_signed.get("nameSpaces") or {}).items():
            digests = mso["valueDigests"].get(namespace, {})
            for item in items:
                require(isinstance(item, cbor2.CBORTag) and item.tag == 24 and isinstance(item.value, bytes),
                        "ISO 18013-5 §8.3.2.1.2.2 IssuerSignedItemBytes", "not #6.24(bstr)")
                decoded = cbor2.loads(item.value)
                digest = hashlib.sha256(cbor2.dumps(item)).digest()
                expected = digests.get(decoded["digestID"])
                require(expected == digest, "ISO 18013-5 §9.3.1 value digest",
                        f"{namespace}/{decoded['elementIdentifier']}: digest does not match the MSO")
                returned.append([namespace, decoded["elementIdentifier"]])
                claims.setdefault(namespace, {})[decoded["elementIdentifier"]] = cbor_to_json(decoded["elementValue"])
        requested = [c.path for c in query.claims]
        require(sorted(returned) == sorted(requested), "OpenID4VP §6.4.1 requested elements exactly",
                f"returned {sorted(returned)}, requested {sorted(requested)}")
        # DeviceSignature over DeviceAuthentication with the OpenID4VP SessionTranscript (B.2.6.1).
        device_signed = document["deviceSigned"]
        namespaces_tag = device_signed["nameSpaces"]
        require(isinstance(namespaces_tag, cbor2.CBORTag) and namespaces_tag.tag == 24,
                "ISO 18013-5 §8.3.2.1.2.2 DeviceNameSpacesBytes", "not #6.24(bstr)")
        device_auth = device_signed["deviceAuth"]
        require("deviceSignature" in device_auth, "ISO 18013-5 §9.1.3 deviceAuth",
                f"only deviceSignature is supported, got {sorted(device_auth)}")
        protected, _unprotected, payload, signature = device_auth["deviceSignature"]
        require(cbor2.loads(protected).get(1) == -7, "ISO 18013-5 §9.1.3.6", "DeviceSignature alg is not ES256")
        require(payload is None, "ISO 18013-5 §9.1.3.6", "DeviceSignature payload must be detached (null)")
        thumbprint = jwk_thumbprint_sha256(self.enc_public) if self.args.response_mode == "direct_post.jwt" else None
        transcript = openid4vp_session_transcript(self.client_id, self.nonce, thumbprint, self.response_uri)
        to_sign = device_authentication_bytes(transcript, doc_type, namespaces_tag.value)
        device_key = cose_key_to_public_key(mso["deviceKeyInfo"]["deviceKey"])
        es256_verify_raw(device_key, signature, cose_sig_structure(protected, to_sign),
                         "ISO 18013-5 §9.1.3.6 DeviceSignature over the OpenID4VP SessionTranscript (B.2.6.1)")
        return {"format": "mso_mdoc", "doctype": doc_type, "claims": claims}

    def verify_issuer_auth(self, issuer_auth) -> dict:
        rule = "ISO 18013-5 §9.1.2.4 issuerAuth"
        require(isinstance(issuer_auth, list) and len(issuer_auth) == 4, rule, "not a COSE_Sign1 array")
        protected, unprotected, payload, signature = issuer_auth
        protected_map = cbor2.loads(protected) if protected else {}
        require(protected_map.get(1) == -7, rule, f"alg {protected_map.get(1)!r} is not ES256")
        x5chain = unprotected.get(33, protected_map.get(33))
        chain = [x5chain] if isinstance(x5chain, bytes) else x5chain
        require(isinstance(chain, list) and chain and all(isinstance(c, bytes) for c in chain), rule,
                "x5chain (33) missing")
        leaf = verify_chain(chain, self.iaca, "mdoc issuerAuth x5chain")
        require(isinstance(payload, bytes), rule, "payload is not a byte string")
        es256_verify_raw(leaf.public_key(), signature, cose_sig_structure(protected, payload),
                         "ISO 18013-5 §9.1.2.4 issuerAuth signature")
        tagged = cbor2.loads(payload)
        require(isinstance(tagged, cbor2.CBORTag) and tagged.tag == 24, rule, "MobileSecurityObjectBytes not #6.24")
        return cbor2.loads(tagged.value)


class WalletError(Exception):
    def __init__(self, error, description):
        super().__init__(f"{error}: {description}")
        self.error = error
        self.description = description


def disclosure_paths(signed_payload: dict, disclosures: list[str]) -> list[list]:
    """The claims path of every Disclosure (array positions as null); fails on unreferenced or malformed ones."""
    by_digest = {}
    for disclosure in disclosures:
        decoded = json.loads(b64url_decode(disclosure))
        require(isinstance(decoded, list) and len(decoded) in (2, 3), "RFC 9901 §4.2 Disclosure", "malformed")
        by_digest[b64url_encode(hashlib.sha256(disclosure.encode("ascii")).digest())] = decoded
    used = set()
    paths = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                if key not in ("_sd", "_sd_alg"):
                    walk(value, path + [key])
            for digest in node.get("_sd", []):
                if digest in by_digest:
                    require(len(by_digest[digest]) == 3, "RFC 9901 §4.2.1", "object Disclosure needs 3 elements")
                    used.add(digest)
                    name = by_digest[digest][1]
                    paths.append(path + [name])
                    walk(by_digest[digest][2], path + [name])
        elif isinstance(node, list):
            for element in node:
                if isinstance(element, dict) and list(element) == ["..."]:
                    digest = element["..."]
                    if digest in by_digest:
                        require(len(by_digest[digest]) == 2, "RFC 9901 §4.2.2", "array Disclosure needs 2 elements")
                        used.add(digest)
                        paths.append(path + [None])
                        walk(by_digest[digest][1], path + [None])
                else:
                    walk(element, path + [None])

    walk(signed_payload, [])
    require(used == set(by_digest), "RFC 9901 §7.1 step 5", f"{len(set(by_digest) - used)} unreferenced Disclosure(s)")
    return paths


def related(path: list, requested: list) -> bool:
    """True when one path is a prefix of the other (array positions compare equal to anything)."""
    for a, b in zip(path, requested):
        if isinstance(a, str) and isinstance(b, str) and a != b:
            return False
        if isinstance(a, str) != isinstance(b, str):
            return False
    return True


def prune(value):
    """Drops containers left empty by undisclosed elements (e.g. nationalities: [] when not disclosed)."""
    if isinstance(value, dict):
        out = {k: prune(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v != [] and v != {}}
    if isinstance(value, list):
        return [prune(v) for v in value]
    return value


def make_handler(verifier: Verifier):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            log(f"{self.command} {self.path} -> " + (args[1] if len(args) > 1 else ""))

        def send(self, status: int, content_type: str, body: bytes):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def form(self) -> dict:
            length = int(self.headers.get("Content-Length", "0"))
            require(0 <= length <= MAX_BODY, "HTTP", f"body of {length} bytes")
            content_type = self.headers.get("Content-Type", "").split(";")[0].strip()
            require(content_type == "application/x-www-form-urlencoded", "OpenID4VP §8.2 content type",
                    f"{content_type!r}")
            parsed = urllib.parse.parse_qs(self.rfile.read(length).decode("utf-8"), keep_blank_values=True,
                                           strict_parsing=False)
            for name, values in parsed.items():
                require(len(values) == 1, "RFC 6749 §3.1", f"parameter {name} repeated")
            return {k: v[0] for k, v in parsed.items()}

        def do_GET(self):
            if self.path == f"/request/{verifier.request_id}":
                self.send(200, "application/oauth-authz-req+jwt", verifier.request_object(None).encode("ascii"))
            else:
                self.send(404, "application/json", b'{"error":"not_found"}')

        def do_POST(self):
            try:
                form = self.form()
            except PeerError as error:
                self.send(400, "application/json", compact_json(
                    {"error": "invalid_request", "error_description": str(error)}).encode("utf-8"))
                return
            if self.path == f"/request/{verifier.request_id}":
                log(f"request_uri POST form keys {sorted(form)}")
                self.send(200, "application/oauth-authz-req+jwt",
                          verifier.request_object(form.get("wallet_nonce")).encode("ascii"))
            elif self.path == f"/response/{verifier.request_id}":
                with verifier.lock:
                    if verifier.done.is_set():
                        self.send(400, "application/json",
                                  b'{"error":"invalid_request","error_description":"response already received"}')
                        return
                    self.respond(form)

            else:
                self.send(404, "application/json", b'{"error":"not_found"}')

        def respond(self, form: dict):
            try:
                results = verifier.handle_response(form)
                if verifier.args.reject:
                    raise PeerError("--reject", "this verifier refuses every presentation")
                code = random_token()
                self.send(200, "application/json", compact_json(
                    {"redirect_uri": f"{verifier.base}/done?response_code={code}"}).encode("utf-8"))
                verifier.outcome = {"result": "success", "client_id": verifier.client_id, "verified": results}
                verifier.exit_code = 0
            except WalletError as error:
                self.send(200, "application/json", b"{}")
                verifier.outcome = {"result": "wallet_error", "error": error.error,
                                    "error_description": error.description}
                if verifier.error_encrypted is not None:
                    verifier.outcome["encrypted"] = verifier.error_encrypted
                verifier.exit_code = 1
            except PeerError as error:
                self.send(400, "application/json", compact_json(
                    {"error": "invalid_request", "error_description": str(error)}).encode("utf-8"))
                verifier.outcome = {"result": "error", "rule": error.rule, "detail": error.detail}
                verifier.exit_code = 1
            except (KeyError, ValueError, TypeError, IndexError, AttributeError, cbor2.CBORDecodeError) as error:
                self.send(400, "application/json", compact_json(
                    {"error": "invalid_request", "error_description": f"malformed: {error}"}).encode("utf-8"))
                verifier.outcome = {"result": "error", "rule": "malformed response",
                                    "detail": f"{type(error).__name__}: {error}"}
                verifier.exit_code = 1
            verifier.done.set()

    return Handler


def main() -> int:
    home = os.environ.get("TESSERA_HOME", ".")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=("sd-jwt", "mdoc"), default="sd-jwt")
    parser.add_argument("--root-out", required=True, help="where to write this verifier's root certificate (PEM)")
    parser.add_argument("--pid-root", default=os.path.join(home, "pid-issuer", "root.pem"))
    parser.add_argument("--iaca", default=os.path.join(home, "issuer", "iaca.pem"))
    parser.add_argument("--response-mode", choices=("direct_post.jwt", "direct_post"), default="direct_post.jwt")
    parser.add_argument("--enc-values", default="A128GCM,A256GCM",
                        help="encrypted_response_enc_values_supported (comma separated)")
    parser.add_argument("--tamper", choices=("client-id", "client-id-mismatch", "signature", "wallet-nonce", "typ"))
    parser.add_argument("--transaction-data", help="add a transaction_data entry of this type")
    parser.add_argument("--vct", help="ask for this vct instead of urn:eudi:pid:1 (sd-jwt mode)")
    parser.add_argument("--reject", action="store_true", help="answer every response with HTTP 400")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    verifier = Verifier(args)
    with open(args.root_out, "wb") as f:
        f.write(verifier.root.public_bytes(serialization.Encoding.PEM))
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(verifier))
    server.daemon_threads = True
    verifier.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    print(verifier.invocation_uri(), flush=True)
    log(f"client_id {verifier.client_id}, mode {args.mode}, response_mode {args.response_mode}")
    if not verifier.done.wait(args.timeout):
        verifier.outcome = {"result": "timeout", "detail": f"no response within {args.timeout}s"}
        verifier.exit_code = 2
    time.sleep(0.2)  # let the handler finish writing its answer
    server.shutdown()
    print(compact_json(verifier.outcome), flush=True)
    return verifier.exit_code


if __name__ == "__main__":
    sys.exit(main())
