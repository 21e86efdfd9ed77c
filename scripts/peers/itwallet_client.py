#!/usr/bin/env python3
"""The production IT-Wallet client's requests, built independently of Tessera (Python, PyPI libraries only).

    itwallet_client.py make-root --dir DIR
        A P-256 test root and intermediate (DIR/root.pem and keys): the provider under test trusts DIR/root.pem as
        its test attestation root (App Attest, Android key attestation and Play-Integrity-shaped tokens).
    itwallet_client.py run --dir DIR --provider URL --session TOKEN --apple-app TEAM.BUNDLE \
            --android-package PKG --android-signer TEXT --signing-root PEM
        Registers an iOS and an Android Wallet Instance and asks for Wallet Attestations the way
        pagopa/io-react-native-wallet (with io-react-native-integrity / io-react-native-crypto) builds its requests,
        plus the spellings of the IT-Wallet texts, then tampers with each signed part, then reads and revokes the
        Android instance with the production client's status calls. Prints one JSON line per case:
        {"case", "status", "error", "content_type", "attestation_bound", "formats", "is_revoked"}; the test that runs
        it decides what each case must get. "formats" (1.0 answers) gives, per format, "ok" or why the independent
        check below failed.

Checks of the 1.0 answer, each format on its own, with the provider's signing root (PEM) as the only trust input:
  * jwt (jwcrypto, cryptography): typ oauth-client-attestation+jwt, x5c chains to the root, the signature by its
    leaf, trust_chain[0] = the Entity Configuration the provider serves, sub = cnf thumbprint = the request's key.
  * dc+sd-jwt (sd-jwt): the issuer-signed JWT by the x5c leaf (chained to the root), every Disclosure's digest in
    _sd, exactly wallet_name and wallet_link disclosed, vct, cnf, iat/exp equal to the jwt's.
  * mso_mdoc (cbor2, pycose): base64url without padding of IssuerSigned; issuerAuth (COSE_Sign1) by the x5chain
    leaf (chained to the root), every IssuerSignedItemBytes digest in the MSO, docType org.iso.18013.5.1.IT.
    WalletAttestation, deviceKey = cnf, validFrom/validUntil = the jwt's iat/exp.

What the production client sends (see WalletProvider/README.md, "Accepted encodings"):
  * registration: POST /wallet-instances {challenge, hardware_key_tag, is_renewal, key_attestation}. iOS: the App
    Attest attestation object (clientDataHash = SHA-256(challenge)) in standard base64, the keyId as unpadded
    base64url. Android: Base64.DEFAULT(",".join(Base64.DEFAULT(certificate DER))) (76-character lines), the key
    attested with the challenge's UTF-8 bytes, a UUID tag.
  * client_data = JSON.stringify({challenge, jwk_thumbprint}).
  * iOS proofs: one App Attest assertion over client_data split in two: hardware_signature = its DER signature,
    integrity_assertion = its authenticatorData (standard base64).
  * Android proofs: hardware_signature = SHA256withECDSA over the client_data text (DER, base64 NO_WRAP);
    integrity_assertion = a Play Integrity token whose requestHash is hex SHA-256(client_data).
  * pre-1.0 client: POST /token as JSON {grant_type, assertion}; war+jwt with iss = thumbprint, sub = provider,
    no aud, challenge, exp = iat + 3600. v1.0.0 (src/wallet-instance-attestation/v1.0.0/issuing.ts): POST
    /wallet-attestations, application/json {assertion}; header {alg: ES256, kid: thumbprint, typ: wp-war+jwt};
    claims aud = provider, cnf.jwk (with kid = thumbprint), hardware_key_tag, hardware_signature,
    integrity_assertion, iss = thumbprint, nonce, iat, exp = iat + 3600.
  * status and revocation (src/wallet-instance/common/wallet-instance.ts): GET /wallet-instances/{tag}/status,
    GET /wallet-instances/current/status, PUT /wallet-instances/{tag}/status {"status": "REVOKED"} -> 204.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import hashlib
import json
import os
import struct
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import cbor2
from cryptography import x509
from jwcrypto import jwk as jose_jwk
from jwcrypto.jws import JWS
from pycose.keys import EC2Key
from pycose.keys.curves import P256
from pycose.messages import Sign1Message
from sd_jwt.verifier import SDJWTVerifier
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

import status_list_reader  # the independent Token Status List reader beside this file

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"


# ---- encodings ------------------------------------------------------------------------------------------------------

def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def android_base64_default(data: bytes) -> str:
    """android.util.Base64.DEFAULT: 76-character lines, each ended by a newline (as MIME base64)."""
    return base64.encodebytes(data).decode("ascii")


def compact(value) -> str:
    """JSON.stringify: no whitespace, members in insertion order."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


# ---- DER (X.690), just what a KeyDescription needs -------------------------------------------------------------------

def der_length(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def tlv(tag: bytes, content: bytes) -> bytes:
    return tag + der_length(len(content)) + content


def der_int(n: int, tag: int = 0x02) -> bytes:
    body = n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big", signed=True)
    return tlv(bytes([tag]), body)


def der_seq(*items: bytes) -> bytes:
    return tlv(b"\x30", b"".join(items))


def der_set(*items: bytes) -> bytes:
    return tlv(b"\x31", b"".join(sorted(items)))


def der_octets(data: bytes) -> bytes:
    return tlv(b"\x04", data)


def explicit(number: int, content: bytes) -> bytes:
    """[number] EXPLICIT, context-specific and constructed; numbers ≥ 31 in the high-tag-number form."""
    if number < 31:
        return tlv(bytes([0xA0 | number]), content)
    digits = []
    while True:
        digits.append(number & 0x7F)
        number >>= 7
        if not number:
            break
    digits.reverse()
    encoded = bytes([d | 0x80 for d in digits[:-1]] + [digits[-1]])
    return tlv(b"\xBF" + encoded, content)


def key_description(challenge: bytes, package: str, signer_digest: bytes, now: datetime.datetime) -> bytes:
    """KeyDescription (attestation version 300) of a TEE KeyMint P-256 signing key on a locked, verified device."""
    month = now.year * 100 + now.month
    application_id = der_seq(der_set(der_seq(der_octets(package.encode()), der_int(1))), der_set(der_octets(signer_digest)))
    software = der_seq(explicit(701, der_int(int(now.timestamp() * 1000))), explicit(709, der_octets(application_id)))
    root_of_trust = der_seq(der_octets(os.urandom(32)), tlv(b"\x01", b"\xff"), der_int(0, 0x0A), der_octets(os.urandom(32)))
    hardware = der_seq(
        explicit(1, der_set(der_int(2))), explicit(2, der_int(3)), explicit(3, der_int(256)),
        explicit(5, der_set(der_int(4))), explicit(10, der_int(1)), explicit(503, b"\x05\x00"), explicit(702, der_int(0)),
        explicit(704, root_of_trust), explicit(705, der_int(150000)), explicit(706, der_int(month)),
        explicit(718, der_int(month * 100 + 1)), explicit(719, der_int(month * 100 + 1)))
    return der_seq(der_int(300), der_int(1, 0x0A), der_int(300), der_int(1, 0x0A), der_octets(challenge), der_octets(b""),
                   software, hardware)


# ---- certificates ----------------------------------------------------------------------------------------------------

def name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Tessera interop peer")])


def certificate(subject: str, public_key, issuer: x509.Name, issuer_key, ca: bool, extensions=()) -> x509.Certificate:
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(issuer).public_key(public_key)
               .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
               .not_valid_after(now + datetime.timedelta(days=30))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None if not ca else 1), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    for oid, value in extensions:
        builder = builder.add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier(oid), value), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


class Authority:
    """The test root and intermediate, kept in DIR."""

    def __init__(self, directory: str):
        self.directory = directory
        with open(os.path.join(directory, "root.key.pem"), "rb") as f:
            self.root_key = serialization.load_pem_private_key(f.read(), None)
        with open(os.path.join(directory, "root.pem"), "rb") as f:
            self.root = x509.load_pem_x509_certificate(f.read())
        with open(os.path.join(directory, "intermediate.key.pem"), "rb") as f:
            self.intermediate_key = serialization.load_pem_private_key(f.read(), None)
        with open(os.path.join(directory, "intermediate.pem"), "rb") as f:
            self.intermediate = x509.load_pem_x509_certificate(f.read())

    @staticmethod
    def create(directory: str) -> None:
        os.makedirs(directory, exist_ok=True)
        root_key = ec.generate_private_key(ec.SECP256R1())
        root_name = name("Interop Peer Attestation Root")
        root = certificate("Interop Peer Attestation Root", root_key.public_key(), root_name, root_key, True)
        intermediate_key = ec.generate_private_key(ec.SECP256R1())
        intermediate = certificate("Interop Peer Attestation CA", intermediate_key.public_key(), root_name, root_key, True)
        for filename, key in (("root.key.pem", root_key), ("intermediate.key.pem", intermediate_key)):
            with open(os.path.join(directory, filename), "wb") as f:
                f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
        for filename, cert in (("root.pem", root), ("intermediate.pem", intermediate)):
            with open(os.path.join(directory, filename), "wb") as f:
                f.write(cert.public_bytes(serialization.Encoding.PEM))

    def issue(self, subject: str, public_key, extensions=()) -> bytes:
        cert = certificate(subject, public_key, self.intermediate.subject, self.intermediate_key, False, extensions)
        return cert.public_bytes(serialization.Encoding.DER)

    def der(self, cert: x509.Certificate) -> bytes:
        return cert.public_bytes(serialization.Encoding.DER)


# ---- keys and JWTs ---------------------------------------------------------------------------------------------------

def point(key) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def public_jwk(key) -> dict:
    p = point(key)
    return {"kty": "EC", "crv": "P-256", "x": b64url(p[1:33]), "y": b64url(p[33:])}


def thumbprint(jwk: dict) -> str:
    """RFC 7638: the required members in lexicographic order, no whitespace."""
    members = {k: jwk[k] for k in ("crv", "kty", "x", "y")}
    return b64url(sha256(compact(members).encode()))


def sign_jws(header: dict, payload: dict, key) -> str:
    signing_input = b64url(compact(header).encode()) + "." + b64url(compact(payload).encode())
    r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def jwt_payload(token: str) -> dict:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


# ---- independent checks of the 1.0 answer ---------------------------------------------------------------------------

def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def chain_to_root(chain: list, root: x509.Certificate) -> None:
    """Each certificate issued (signature and name) by the next, the last by the root; all valid now."""
    if chain and chain[-1] == root:
        chain = chain[:-1]
    if not chain:
        raise ValueError("empty chain")
    now = datetime.datetime.now(datetime.timezone.utc)
    for child, parent in zip(chain, chain[1:] + [root]):
        child.verify_directly_issued_by(parent)
        if not child.not_valid_before_utc <= now <= child.not_valid_after_utc:
            raise ValueError("a certificate is not valid now")


def x5c_chain(values: list) -> list:
    return [x509.load_der_x509_certificate(base64.b64decode(v)) for v in values]


def check_jwt(token: str, root: x509.Certificate, entity_configuration: str, tp: str) -> dict:
    jws = JWS()
    jws.deserialize(token)
    header = jws.jose_header
    if header.get("typ") != "oauth-client-attestation+jwt":
        raise ValueError(f"typ {header.get('typ')}")
    chain = x5c_chain(header["x5c"])
    chain_to_root(chain, root)
    jws.verify(jose_jwk.JWK.from_pyca(chain[0].public_key()), alg="ES256")
    if header.get("trust_chain", [None])[0] != entity_configuration:
        raise ValueError("trust_chain[0] is not the served Entity Configuration")
    claims = json.loads(jws.payload)
    if claims.get("sub") != tp or thumbprint(claims["cnf"]["jwk"]) != tp:
        raise ValueError("not bound to the request's key")
    if not 0 < claims["exp"] - claims["iat"] <= 86400 or not claims.get("aal"):
        raise ValueError("validity or aal")
    return claims


def check_sd_jwt(text: str, root: x509.Certificate, tp: str, jwt_claims: dict) -> None:
    if not text.endswith("~"):
        raise ValueError("not in the issuance form jwt~d1~d2~")

    def issuer_key(_issuer, header):
        if header.get("typ") != "dc+sd-jwt":
            raise ValueError(f"typ {header.get('typ')}")
        chain = x5c_chain(header["x5c"])
        chain_to_root(chain, root)
        return jose_jwk.JWK.from_pyca(chain[0].public_key())

    claims = SDJWTVerifier(text, issuer_key).get_verified_payload()
    issuer_jwt, *disclosures, _ = text.split("~")
    digests = jwt_payload(issuer_jwt).get("_sd", [])
    names = []
    for disclosure in disclosures:
        if b64url(sha256(disclosure.encode())) not in digests:
            raise ValueError("a Disclosure's digest is not in _sd")
        names.append(json.loads(b64url_decode(disclosure))[1])
    if sorted(names) != ["wallet_link", "wallet_name"]:
        raise ValueError(f"disclosed {names}")
    if not claims.get("vct", "").endswith("/vct/v1.0/WalletAttestation"):
        raise ValueError(f"vct {claims.get('vct')}")
    if claims.get("sub") != tp or thumbprint(claims["cnf"]["jwk"]) != tp:
        raise ValueError("not bound to the request's key")
    for name in ("iat", "exp", "aal", "wallet_name", "wallet_link", "iss"):
        if claims.get(name) != jwt_claims.get(name):
            raise ValueError(f"{name} differs from the jwt's")


def check_mdoc(text: str, root: x509.Certificate, tp: str, jwk: dict, jwt_claims: dict) -> None:
    if any(c in text for c in "=+/"):
        raise ValueError("not base64url without padding")
    issuer_signed = cbor2.loads(b64url_decode(text))
    auth = issuer_signed["issuerAuth"]
    x5chain = auth[1][33]
    chain = [x509.load_der_x509_certificate(c) for c in (x5chain if isinstance(x5chain, list) else [x5chain])]
    chain_to_root(chain, root)
    # IssuerAuth is an untagged COSE_Sign1 (ISO/IEC 18013-5 §9.1.2.4): built from its four elements as received.
    message = Sign1Message.from_cose_obj(list(auth), True)
    numbers = chain[0].public_key().public_numbers()
    message.key = EC2Key(crv=P256, x=numbers.x.to_bytes(32, "big"), y=numbers.y.to_bytes(32, "big"))
    if not message.verify_signature():
        raise ValueError("issuerAuth does not verify with the x5chain leaf")
    mso = cbor2.loads(cbor2.loads(auth[2]).value)
    if mso["docType"] != "org.iso.18013.5.1.IT.WalletAttestation" or mso["digestAlgorithm"] != "SHA-256":
        raise ValueError("docType or digestAlgorithm")
    elements = {}
    for namespace, items in issuer_signed["nameSpaces"].items():
        for tagged in items:
            item = cbor2.loads(tagged.value)
            if mso["valueDigests"][namespace][item["digestID"]] != sha256(cbor2.dumps(tagged)):
                raise ValueError(f"digest of {item['elementIdentifier']}")
            elements[(namespace, item["elementIdentifier"])] = item["elementValue"]
    namespace = "org.iso.18013.5.1.IT"
    if elements.get((namespace, "sub")) != tp or sorted(n for _, n in elements) != ["aal", "sub", "wallet_link", "wallet_name"]:
        raise ValueError(f"elements {sorted(elements)}")
    device_key = mso["deviceKeyInfo"]["deviceKey"]
    if device_key.get(-2) != b64url_decode(jwk["x"]) or device_key.get(-3) != b64url_decode(jwk["y"]):
        raise ValueError("deviceKey is not cnf")
    validity = mso["validityInfo"]
    if (int(validity["validFrom"].timestamp()), int(validity["validUntil"].timestamp())) != (jwt_claims["iat"], jwt_claims["exp"]):
        raise ValueError("validity differs from the jwt's")


def check_formats(attestations: list, root: x509.Certificate, entity_configuration: str, jwk: dict) -> dict:
    """Each format checked on its own: "ok" or what failed."""
    tp = thumbprint(jwk)
    by_format = {a.get("format"): a.get("wallet_attestation") for a in attestations}
    results = {}
    jwt_claims = None
    try:
        jwt_claims = check_jwt(by_format["jwt"], root, entity_configuration, tp)
        results["jwt"] = "ok"
    except Exception as error:  # noqa: BLE001 - reported to the test, which names the failure
        results["jwt"] = f"{type(error).__name__}: {error}"
    for name, check in (("dc+sd-jwt", lambda t: check_sd_jwt(t, root, tp, jwt_claims or {})),
                        ("mso_mdoc", lambda t: check_mdoc(t, root, tp, jwk, jwt_claims or {}))):
        try:
            check(by_format[name])
            results[name] = "ok"
        except Exception as error:  # noqa: BLE001
            results[name] = f"{type(error).__name__}: {error}"
    if [a.get("format") for a in attestations] != ["jwt", "dc+sd-jwt", "mso_mdoc"]:
        results["order"] = f"{[a.get('format') for a in attestations]}"
    results["tampered"] = tampering_is_detected(by_format, root, entity_configuration, jwk, jwt_claims or {})
    return results


def tampering_is_detected(by_format: dict, root: x509.Certificate, entity_configuration: str, jwk: dict,
                          jwt_claims: dict) -> str:
    """The checks above are not vacuous: one signed part of each format changed must fail its check."""
    tp = thumbprint(jwk)
    header, payload, signature = by_format["jwt"].split(".")
    claims = jwt_payload(by_format["jwt"])
    claims["sub"] = "someone-else"
    issuer_jwt, *disclosures, last = by_format["dc+sd-jwt"].split("~")
    forged = b64url(compact(["c2FsdHNhbHRzYWx0c2FsdA", "wallet_name", "Evil Wallet"]).encode())
    raw = b64url_decode(by_format["mso_mdoc"])
    tampered = {
        "jwt": lambda: check_jwt(".".join([header, b64url(compact(claims).encode()), signature]), root,
                                 entity_configuration, tp),
        "dc+sd-jwt": lambda: check_sd_jwt("~".join([issuer_jwt, forged, *disclosures[1:], last]), root, tp, jwt_claims),
        "mso_mdoc": lambda: check_mdoc(b64url(raw.replace(b"Tessera Wallet", b"Tessera Wallex", 1)), root, tp, jwk,
                                       jwt_claims),
    }
    undetected = []
    for name, check in tampered.items():
        try:
            check()
            undetected.append(name)
        except Exception:  # noqa: BLE001 - a failure is what is expected here
            pass
    return "ok" if not undetected else f"tampering not detected: {undetected}"


# ---- HTTP ------------------------------------------------------------------------------------------------------------

class Provider:
    def __init__(self, base: str, session: str):
        self.base = base.rstrip("/")
        self.session = session

    def call(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None,
             session: bool = False, headers: dict | None = None) -> tuple[int, str, bytes]:
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers or {})
        if content_type:
            request.add_header("Content-Type", content_type)
        if session:
            request.add_header("Authorization", f"Bearer {self.session}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.headers.get("Content-Type", ""), response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("Content-Type", ""), error.read()

    def nonce(self) -> str:
        status, _, body = self.call("GET", "/nonce")
        if status != 200:
            raise SystemExit(f"GET /nonce -> {status} {body!r}")
        return json.loads(body)["nonce"]


# ---- devices ---------------------------------------------------------------------------------------------------------

class IOSDevice:
    """An App Attest key and its counter, with the production client's encodings."""

    def __init__(self, authority: Authority, app_id: str):
        self.authority = authority
        self.app_id = app_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.key_id = sha256(point(self.key))
        self.counter = 0

    @property
    def hardware_key_tag(self) -> str:
        return b64url(self.key_id)  # io-react-native-jwt removePadding: url-safe, unpadded

    def attestation(self, challenge: str) -> str:
        p = point(self.key)
        cose_key = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: p[1:33], -3: p[33:]})
        auth_data = (sha256(self.app_id.encode()) + b"\x40" + struct.pack(">I", 0) + b"appattest" + bytes(7)
                     + struct.pack(">H", len(self.key_id)) + self.key_id + cose_key)
        nonce = sha256(auth_data + sha256(challenge.encode()))
        nonce_extension = der_seq(explicit(1, der_octets(nonce)))
        credential = self.authority.issue(self.key_id.hex(), self.key.public_key(),
                                          [("1.2.840.113635.100.8.2", nonce_extension)])
        obj = {"fmt": "apple-appattest",
               "attStmt": {"x5c": [credential, self.authority.der(self.authority.intermediate)], "receipt": b""},
               "authData": auth_data}
        return b64(cbor2.dumps(obj))

    def proofs(self, client_data: bytes, counter: int | None = None, tamper: str | None = None) -> tuple[str, str]:
        """generateAssertion over SHA-256(client_data), split as io-react-native-integrity decodeAssertion does."""
        if counter is None:
            self.counter += 1
            counter = self.counter
        rp = sha256(self.app_id.encode())
        if tamper == "rp-id":
            rp = sha256(b"1234567890.org.other.app")
        auth_data = rp + b"\x40" + struct.pack(">I", counter)
        signature = self.key.sign(sha256(auth_data + sha256(client_data)), ec.ECDSA(hashes.SHA256()))
        if tamper == "counter":
            auth_data = auth_data[:33] + struct.pack(">I", counter + 100)
        if tamper == "signature":
            other = ec.generate_private_key(ec.SECP256R1())
            signature = other.sign(sha256(auth_data + sha256(client_data)), ec.ECDSA(hashes.SHA256()))
        return b64(signature), b64(auth_data)


class AndroidDevice:
    """An Android Keystore key (StrongBox/TEE) and the Play Integrity token, with the production client's encodings."""

    def __init__(self, authority: Authority, package: str, signer_digest: bytes):
        self.authority = authority
        self.package = package
        self.signer_digest = signer_digest
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.hardware_key_tag = str(uuid.uuid4())
        self.integrity_key = ec.generate_private_key(ec.SECP256R1())
        self.integrity_cert = authority.issue("Interop Peer Play Integrity", self.integrity_key.public_key())

    def attestation(self, challenge: str, line_length_tamper: bool = False, key=None) -> str:
        """The Keystore attestation of `key` (the hardware key unless another Keystore key is named)."""
        now = datetime.datetime.now(datetime.timezone.utc)
        description = key_description(challenge.encode(), self.package, self.signer_digest, now)
        leaf = self.authority.issue("Android Keystore Key", (key or self.key).public_key(),
                                    [("1.3.6.1.4.1.11129.2.1.17", description)])
        chain = [leaf, self.authority.der(self.authority.intermediate), self.authority.der(self.authority.root)]
        joined = ",".join(android_base64_default(der) for der in chain)
        wrapped = android_base64_default(joined.encode())
        if line_length_tamper:  # a line of 70 characters: not what Base64.DEFAULT writes
            lines = wrapped.split("\n")
            lines[0], lines[1] = lines[0][:70], lines[0][70:] + lines[1]
            wrapped = "\n".join(lines)
        return wrapped

    def proofs(self, client_data: bytes, tamper: str | None = None) -> tuple[str, str]:
        signer = ec.generate_private_key(ec.SECP256R1()) if tamper == "signature" else self.key
        signature = b64(signer.sign(client_data, ec.ECDSA(hashes.SHA256())))  # SHA256withECDSA, base64 NO_WRAP
        request_hash = hashlib.sha256(client_data if tamper != "request-hash" else b"other").hexdigest()
        package = self.package if tamper != "package" else "org.example.other"
        payload = {
            "requestDetails": {"requestPackageName": package, "requestHash": request_hash,
                               "timestampMillis": str(int(time.time() * 1000))},
            "appIntegrity": {"appRecognitionVerdict": "PLAY_RECOGNIZED", "packageName": package,
                             "certificateSha256Digest": [b64url(self.signer_digest)]},
            "deviceIntegrity": {"deviceRecognitionVerdict": ["MEETS_DEVICE_INTEGRITY"]},
            "accountDetails": {"appLicensingVerdict": "LICENSED"},
        }
        key = self.integrity_key if tamper != "integrity-signature" else ec.generate_private_key(ec.SECP256R1())
        header = {"alg": "ES256", "x5c": [b64(self.integrity_cert), b64(self.authority.der(self.authority.intermediate))]}
        return signature, sign_jws(header, payload, key)


# ---- requests --------------------------------------------------------------------------------------------------------

class Client:
    def __init__(self, provider: Provider, signing_root: x509.Certificate | None = None):
        self.provider = provider
        self.signing_root = signing_root
        self.results: list[dict] = []

    def report(self, case: str, status: int, content_type: str, body: bytes, key: dict | None = None):
        error = None
        bound = None
        formats = None
        revoked = None
        text = body.decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        token = None
        if isinstance(parsed, dict):
            error = parsed.get("error")
            revoked = parsed.get("is_revoked")
            token = parsed.get("wallet_attestation")
            attestations = parsed.get("wallet_attestations")
            if isinstance(attestations, list) and attestations:
                token = attestations[0].get("wallet_attestation")
                if key is not None and self.signing_root is not None:
                    _, _, ec = self.provider.call("GET", "/.well-known/openid-federation")
                    formats = check_formats(attestations, self.signing_root, ec.decode(), key)
        elif parsed is None:
            token = text if status == 200 and text.count(".") == 2 else None
        if token and key is not None:
            payload = jwt_payload(token)
            bound = thumbprint(payload.get("cnf", {}).get("jwk", {})) == thumbprint(key)
        line = {"case": case, "status": status, "error": error, "content_type": content_type.split(";")[0],
                "attestation_bound": bound, "formats": formats, "is_revoked": revoked}
        self.results.append(line)
        print(compact(line), flush=True)

    def register(self, case: str, challenge: str, tag: str, attestation: str, challenge_member: str = "challenge"):
        body = {challenge_member: challenge, "hardware_key_tag": tag, "is_renewal": False, "key_attestation": attestation}
        status, content_type, answer = self.provider.call("POST", "/wallet-instances", compact(body).encode(),
                                                          "application/json", session=True)
        self.report(case, status, content_type, answer)

    def token(self, case: str, device, *, version: str = "0.7.1", typ: str | None = None, iss: str = "thumbprint",
              audience: str = "client", client_data_member: str = "challenge", lifetime: int = 3600,
              transport: str | None = None, challenge: str | None = None, proof_tamper: str | None = None,
              counter: int | None = None, claim_tamper: str | None = None, jws_tamper: str | None = None,
              tag: str | None = None):
        """One Wallet Attestation request. version 0.7.1: the pre-1.0 client (POST /token JSON); 1.0: v1.0.0
        (POST /wallet-attestations). The keyword arguments select the IT-Wallet texts' spellings or a tampering;
        transport "json-0.9.3" posts the war+jwt as {"assertion"} to /wallet-attestation (the 0.9.3 text)."""
        wp = self.provider.base
        challenge = challenge or self.provider.nonce()
        key = ec.generate_private_key(ec.SECP256R1())
        jwk = public_jwk(key)
        tp = thumbprint(jwk)
        client_tp = tp if claim_tamper != "client-data-thumbprint" else thumbprint(public_jwk(ec.generate_private_key(ec.SECP256R1())))
        client_data = compact({client_data_member: challenge, "jwk_thumbprint": client_tp}).encode()
        if isinstance(device, IOSDevice):
            signature, integrity = device.proofs(client_data, counter=counter, tamper=proof_tamper)
        else:
            signature, integrity = device.proofs(client_data, tamper=proof_tamper)
        issuer = {"thumbprint": tp, "instance-path": f"{wp}/instance/{tp}", "concatenated": f"{wp}/{tp}",
                  "other": thumbprint(public_jwk(ec.generate_private_key(ec.SECP256R1())))}[iss]
        now = int(time.time())
        payload = {"iss": issuer}
        if version == "1.0":
            payload["aud"] = wp
        elif audience == "client":
            payload["sub"] = wp  # the pre-1.0 client: no aud, sub names the provider
        elif audience == "spec":
            payload["aud"] = wp
            payload["sub"] = wp
        elif audience == "wrong-aud":
            payload["aud"] = "https://another-provider.example.org"
        elif audience == "wrong-sub":
            payload["sub"] = "https://another-provider.example.org"
        challenge_claim = "nonce" if version == "1.0" else "challenge"
        if claim_tamper == "challenge-claim-name":
            challenge_claim = "challenge" if version == "1.0" else "nonce"
        payload.update({challenge_claim: challenge, "hardware_signature": signature, "integrity_assertion": integrity,
                        "hardware_key_tag": tag or device.hardware_key_tag, "cnf": {"jwk": {**jwk, "kid": tp}},
                        "iat": now, "exp": now + lifetime})
        header = {"alg": "ES256", "kid": tp, "typ": typ or ("wp-war+jwt" if version == "1.0" else "war+jwt")}
        signer = key if jws_tamper != "other-key" else ec.generate_private_key(ec.SECP256R1())
        assertion = sign_jws(header, payload, signer)
        if version == "1.0":
            status, content_type, body = self.provider.call(
                "POST", "/wallet-attestations", compact({"assertion": assertion}).encode(), "application/json")
        elif transport == "json-0.9.3":
            status, content_type, body = self.provider.call(
                "POST", "/wallet-attestation", compact({"assertion": assertion}).encode(), "application/json")
        elif (transport or "json") == "json":
            status, content_type, body = self.provider.call(
                "POST", "/token", compact({"grant_type": GRANT_TYPE, "assertion": assertion}).encode(), "application/json")
        else:
            form = urllib.parse.urlencode({"grant_type": GRANT_TYPE, "assertion": assertion}).encode()
            status, content_type, body = self.provider.call("POST", "/token", form, "application/x-www-form-urlencoded")
        self.report(case, status, content_type, body, jwk)
        return challenge

    def instance_status(self, case: str, tag: str | None):
        """GET /wallet-instances/{tag}/status (tag None: /wallet-instances/current/status), with the session."""
        path = f"/wallet-instances/{tag}/status" if tag else "/wallet-instances/current/status"
        status, content_type, body = self.provider.call("GET", path, session=True)
        self.report(case, status, content_type, body)

    def revoke(self, case: str, tag: str):
        """PUT /wallet-instances/{tag}/status {"status": "REVOKED"}: the production client's revocation."""
        status, content_type, body = self.provider.call(
            "PUT", f"/wallet-instances/{tag}/status", compact({"status": "REVOKED"}).encode(), "application/json",
            session=True)
        self.report(case, status, content_type, body)


def run(args) -> int:
    authority = Authority(args.dir)
    with open(args.signing_root, "rb") as f:
        signing_root = x509.load_pem_x509_certificate(f.read())
    client = Client(Provider(args.provider, args.session), signing_root)
    signer_digest = sha256(args.android_signer.encode())

    ios = IOSDevice(authority, args.apple_app)
    client.register("ios register (production client)", challenge := client.provider.nonce(), ios.hardware_key_tag,
                    ios.attestation(challenge))
    client.token("ios token, pre-1.0 client (/token JSON)", ios)
    client.token("ios token, v1.0.0 client (/wallet-attestations)", ios, version="1.0")
    client.token("ios token, spec form, iss <WP>/instance/<tp>, aud+sub", ios, transport="form", iss="instance-path",
                 audience="spec")
    client.token("ios token, var+jwt, iss <WP>/<tp>", ios, transport="form", typ="var+jwt", iss="concatenated",
                 audience="spec")
    client.token("ios token, 1.0 text: client_data with nonce", ios, version="1.0", client_data_member="nonce")
    client.token("ios token, 0.9.3 text (/wallet-attestation JSON)", ios, transport="json-0.9.3", audience="spec")
    # Tampering: each changes one signed part; the counter moves on so only the tampering can fail.
    client.token("tamper: ios hardware_signature by another key", ios, proof_tamper="signature")
    client.token("tamper: ios authenticatorData counter", ios, proof_tamper="counter")
    client.token("tamper: ios authenticatorData rpIdHash", ios, proof_tamper="rp-id")
    client.token("tamper: ios counter not increasing", ios, counter=1)
    client.token("tamper: client_data names another key", ios, claim_tamper="client-data-thumbprint")
    client.token("tamper: request signed by another key than cnf", ios, jws_tamper="other-key")
    client.token("tamper: typ JWT", ios, typ="JWT")
    client.token("tamper: wp-war+jwt at /token", ios, typ="wp-war+jwt")
    client.token("tamper: iss names another key", ios, iss="other")
    client.token("tamper: aud names another provider", ios, audience="wrong-aud")
    client.token("tamper: sub names another provider", ios, audience="wrong-sub")
    client.token("tamper: lifetime two hours", ios, lifetime=7200)
    client.token("tamper: war+jwt with nonce", ios, claim_tamper="challenge-claim-name")
    client.token("tamper: wp-war+jwt with challenge", ios, version="1.0", claim_tamper="challenge-claim-name")
    client.token("tamper: 1.0 request signed by another key than cnf", ios, version="1.0", jws_tamper="other-key")
    client.token("tamper: 1.0 iss names another key", ios, version="1.0", iss="other")
    client.token("tamper: war+jwt at /wallet-attestations", ios, version="1.0", typ="war+jwt")
    used = client.token("ios token before a replay of its challenge", ios)
    client.token("tamper: challenge used twice", ios, challenge=used)
    client.token("tamper: unknown hardware_key_tag", ios, tag=b64url(os.urandom(32)))
    used = client.token("ios 1.0 token before a replay of its nonce", ios, version="1.0")
    client.token("tamper: 1.0 nonce used twice", ios, version="1.0", challenge=used)
    client.token("tamper: 1.0 unknown hardware_key_tag", ios, version="1.0", tag=b64url(os.urandom(32)))

    android = AndroidDevice(authority, args.android_package, signer_digest)
    client.register("android register (Base64.DEFAULT chain)", challenge := client.provider.nonce(),
                    android.hardware_key_tag, android.attestation(challenge))
    client.token("android token, pre-1.0 client (/token JSON)", android)
    client.token("android token, v1.0.0 client (/wallet-attestations)", android, version="1.0")
    client.token("tamper: android hardware_signature by another key", android, proof_tamper="signature")
    client.token("tamper: android requestHash of other data", android, proof_tamper="request-hash")
    client.token("tamper: android integrity token signature", android, proof_tamper="integrity-signature")
    client.token("tamper: android integrity token package", android, proof_tamper="package")
    other = AndroidDevice(authority, args.android_package, signer_digest)
    client.register("tamper: android key attested for another challenge", client.provider.nonce(),
                    other.hardware_key_tag, other.attestation(client.provider.nonce()))
    client.register("tamper: android Base64.DEFAULT with a short line", challenge := client.provider.nonce(),
                    other.hardware_key_tag, other.attestation(challenge, line_length_tamper=True))
    client.register("android register, 1.0 text: nonce member", challenge := client.provider.nonce(),
                    other.hardware_key_tag, other.attestation(challenge), challenge_member="nonce")
    # The production client's status calls name the instance by its hardware key tag; "current" is the newest.
    client.instance_status("android status (production client)", android.hardware_key_tag)
    client.instance_status("current status (production client)", None)
    client.revoke("android revoke (production client PUT)", android.hardware_key_tag)
    client.instance_status("android status after revocation", android.hardware_key_tag)
    client.token("tamper: android 1.0 token after revocation", android, version="1.0")
    return 0

# ---- IT-Wallet 1.3 (io-react-native-wallet "1.3.3") and 1.5: Wallet Instance and Key Attestations -------------------
#
#   itwallet_client.py attestations --dir DIR --provider URL --session TOKEN --apple-app TEAM.BUNDLE \
#           --android-package PKG --android-signer TEXT --signing-root PEM [--wallet-solution-id ID] [--pdnd]
#
# 1.3 as the production client builds it (src/wallet-instance-attestation/v1.3.3, src/wallet-unit-attestation/v1.3.3):
# wia-request+jwt / wua-request+jwt with iss = hardware_key_tag, no aud, nonce, platform, wallet_solution_id/version,
# cnf.jwk with kid = its thumbprint, client_data = {"challenge", "jwk_thumbprint(s)"}, each key to attest a
# key-attestation-request+jwt signed by it (Android: its Keystore attestation with the nonce as challenge), the JWT
# posted as text/plain. 1.5 as the text says (§12.1.4, §12.1.5): iss = the thumbprint, client_data with "nonce",
# JSON {"assertion"}; a ka-request+jwt has no top-level integrity_assertion, an iOS key carries its own App Attest
# assertion. Every attestation is verified here: its x5c chains to --signing-root and its signature verifies
# (jwcrypto). The Token Status List the 1.5 documents point at is fetched as JWT and CWT and read with
# status_list_reader.py (its own zlib and bit reader), its x5c / x5chain chained to --signing-root. With --pdnd the
# PID Provider's "Notify User Death" call is made too (PDND voucher and Agid-JWT-Signature under the peer's root; the
# provider runs with --pdnd-trust DIR/root.pem), and the list is read again: the user's entries are INVALID.

def verified_document(token: str, root: x509.Certificate) -> dict | None:
    """The header and payload of `token` when its x5c (leaf first) chains to `root` now and the leaf's key signed it."""
    try:
        verifier = JWS()
        verifier.deserialize(token)
        header = verifier.jose_header
        chain = x5c_chain(header.get("x5c", []))
        chain_to_root(chain, root)
        verifier.verify(jose_jwk.JWK.from_pyca(chain[0].public_key()), alg="ES256")
        return {"header": header, "claims": json.loads(verifier.payload)}
    except Exception:  # any failure is "not verified"; the test reads the flag
        return None


class AttestationClient:
    """1.3 and 1.5 requests for one provider; one JSON line per case."""

    def __init__(self, provider: Provider, root: x509.Certificate, solution_id: str):
        self.provider = provider
        self.root = root
        self.solution_id = solution_id

    def report(self, case: str, status: int, content_type: str, body: bytes, member: str | None = None,
               thumbprints: list[str] | None = None):
        line = {"case": case, "status": status, "error": None, "content_type": content_type.split(";")[0]}
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            line["error"] = parsed.get("error")
            token = parsed.get(member) if member else None
            if status == 200 and isinstance(token, str):
                document = verified_document(token, self.root)
                line["verified"] = document is not None
                if document:
                    line["typ"] = document["header"].get("typ")
                    line["claims"] = document["claims"]
                    claims = document["claims"]
                    bound = [thumbprint(claims.get("cnf", {}).get("jwk", {}))] if "cnf" in claims else \
                        [thumbprint(k) for k in claims.get("attested_keys", [])]
                    line["bound"] = bound == thumbprints
            if isinstance(parsed.get("result"), dict):
                line["result"] = parsed["result"]
        print(compact(line), flush=True)
        return line

    @staticmethod
    def client_data(version: str, nonce: str, thumbprints: list[str], many: bool) -> bytes:
        member = "challenge" if version == "1.3" else "nonce"
        return compact({member: nonce, "jwk_thumbprints": thumbprints} if many
                       else {member: nonce, "jwk_thumbprint": thumbprints[0]}).encode()

    def claims(self, version: str, device, nonce: str, jwk: dict) -> dict:
        tp = thumbprint(jwk)
        platform = "ios" if isinstance(device, IOSDevice) else "android"
        if version == "1.5" and platform == "ios":
            platform = "iOS"  # the 1.5 example's spelling
        now = int(time.time())
        return {"cnf": {"jwk": {**jwk, "kid": tp}}, "hardware_key_tag": device.hardware_key_tag,
                "iss": device.hardware_key_tag if version == "1.3" else tp, "nonce": nonce, "platform": platform,
                "wallet_solution_id": self.solution_id, "wallet_solution_version": "3.25.1.0", "iat": now, "exp": now + 3600}

    def post(self, version: str, path: str, assertion: str) -> tuple[int, str, bytes]:
        if version == "1.3":
            return self.provider.call("POST", path, assertion.encode(), "text/plain")
        return self.provider.call("POST", path, compact({"assertion": assertion}).encode(), "application/json")

    def wia(self, case: str, version: str, device, *, typ: str = "wia-request+jwt", iss: str | None = None,
            nonce_tamper: bool = False, tag: str | None = None):
        nonce = self.provider.nonce()
        key = ec.generate_private_key(ec.SECP256R1())
        jwk = public_jwk(key)
        tp = thumbprint(jwk)
        data = self.client_data(version, nonce if not nonce_tamper else nonce + "x", [tp], many=False)
        signature, integrity = device.proofs(data)
        payload = self.claims(version, device, nonce, jwk)
        payload.update({"hardware_signature": signature, "integrity_assertion": integrity})
        if iss:
            payload["iss"] = iss
        if tag:
            payload["hardware_key_tag"] = tag
        assertion = sign_jws({"alg": "ES256", "kid": tp, "typ": typ}, payload, key)
        path = "/wallet-instance-attestations" if version == "1.3" else "/wallet-instance-attestation"
        return self.report(case, *self.post(version, path, assertion), member="wallet_instance_attestation",
                           thumbprints=[tp])

    def element(self, key, nonce: str, device, *, assertion: str | None = None, signer=None,
                challenge: str | None = None, attest: bool = True) -> str:
        jwk = public_jwk(key)
        tp = thumbprint(jwk)
        wscd = {"storage_type": "LOCAL_NATIVE"}
        if isinstance(device, AndroidDevice) and attest:
            wscd["attestation"] = device.attestation(challenge or nonce, key=key)
        if assertion:
            wscd["integrity_assertion"] = assertion
        now = int(time.time())
        payload = {"wscd_key_attestation": wscd, "cnf": {"jwk": {**jwk, "kid": tp}}, "iat": now, "exp": now + 3600}
        return sign_jws({"alg": "ES256", "kid": tp, "typ": "key-attestation-request+jwt"}, payload, signer or key)

    def key_attestation(self, case: str, version: str, device, *, count: int = 2, path: str | None = None,
                        member: str = "key_attestation", typ: str | None = None, element_tamper: str | None = None):
        nonce = self.provider.nonce()
        keys = [ec.generate_private_key(ec.SECP256R1()) for _ in range(count)]
        thumbprints = [thumbprint(public_jwk(k)) for k in keys]
        data = self.client_data(version, nonce, thumbprints, many=True)
        payload = self.claims(version, device, nonce, public_jwk(keys[0]))
        assertions: list[str | None] = [None] * count
        if version == "1.5" and isinstance(device, IOSDevice):
            # One App Attest assertion per key over client_data; hardware_signature is the first one's signature.
            parts = [device.proofs(data) for _ in keys]
            assertions = [b64(cbor2.dumps({"signature": base64.b64decode(sig), "authenticatorData": base64.b64decode(auth)}))
                          for sig, auth in parts]
            payload["hardware_signature"] = parts[0][0]
        else:
            signature, integrity = device.proofs(data)
            payload["hardware_signature"] = signature
            if version == "1.3" or isinstance(device, IOSDevice):
                payload["integrity_assertion"] = integrity
        elements = []
        for index, key in enumerate(keys):
            tampered = element_tamper if index == count - 1 else None
            elements.append(self.element(
                key, nonce, device, assertion=assertions[index],
                signer=ec.generate_private_key(ec.SECP256R1()) if tampered == "signer" else None,
                challenge="another nonce" if tampered == "challenge" else None, attest=tampered != "no-attestation"))
        payload["keys_to_attest"] = elements
        default_typ = "wua-request+jwt" if version == "1.3" else "ka-request+jwt"
        assertion = sign_jws({"alg": "ES256", "kid": thumbprints[0], "typ": typ or default_typ}, payload, keys[0])
        path = path or ("/key-attestations" if version == "1.3" else "/key-attestation")
        return self.report(case, *self.post(version, path, assertion), member=member, thumbprints=thumbprints)

    def status_list(self, case: str, references: list[dict]):
        """The list the references name (one `uri`, TSL §6.2), fetched in each form and read by
        status_list_reader.py (its own zlib and bit reader; signature by the leaf): one line per form with the
        statuses at the references' indices, whether `sub` is the `uri` and the x5c / x5chain chains to the
        signing root."""
        if not references or any(not isinstance(r, dict) for r in references):
            raise SystemExit(f"{case}: an attestation carried no status_list reference")
        uri = references[0]["uri"]
        if not uri.startswith(self.provider.base + "/") or any(r["uri"] != uri for r in references):
            raise SystemExit(f"unexpected status list references {references}")
        for kind, accept in (("jwt", "application/statuslist+jwt"), ("cwt", "application/statuslist+cwt")):
            status, content_type, body = self.provider.call("GET", uri[len(self.provider.base):], headers={"Accept": accept})
            line = {"case": f"{case} ({kind})", "status": status, "error": None, "content_type": content_type.split(";")[0]}
            if status != 200:
                line["error"] = json.loads(body).get("error")
            else:
                try:
                    if kind == "jwt":
                        result = status_list_reader.read_jwt(body.decode("ascii"))
                        chain = x5c_chain(json.loads(b64url_decode(body.decode("ascii").split(".")[0]))["x5c"])
                    else:
                        result = status_list_reader.read_cwt(body)
                        ders = cbor2.loads(cbor2.loads(body).value[0])[33]
                        chain = [x509.load_der_x509_certificate(d) for d in ([ders] if isinstance(ders, bytes) else ders)]
                    chain_to_root(chain, self.root)
                    values = {index: value for index, value in result["non_valid"]}
                    line.update({"verified": result["signature"] == "valid", "sub_matches": result["sub"] == uri,
                                 "statuses": [values.get(r["idx"], 0) for r in references]})
                except Exception as error:  # reported, not raised: the test reads the flag
                    line.update({"verified": False, "reason": str(error)})
            print(compact(line), flush=True)

    def notify_user_death(self, case: str, authority: Authority, instance_ids: list[str], jti: str | None = None):
        """The PID Provider's call through PDND: voucher and Agid-JWT-Signature (x5c under the peer's root)."""
        signer = ec.generate_private_key(ec.SECP256R1())
        x5c = [b64(authority.issue("Interop Peer PDND Client", signer.public_key())), b64(authority.der(authority.intermediate))]
        body = compact({"wallet_instance_ids": instance_ids}).encode()
        digest = "SHA-256=" + b64(sha256(body))
        now = int(time.time())
        client = "interop-pid-provider"
        voucher = sign_jws({"alg": "ES256", "typ": "at+jwt", "x5c": x5c},
                           {"iss": "interop.pagopa.it", "aud": self.provider.base, "sub": client, "client_id": client,
                            "purposeId": "interop-purpose", "jti": str(uuid.uuid4()), "iat": now, "exp": now + 600}, signer)
        signature = sign_jws({"alg": "ES256", "typ": "JWT", "x5c": x5c},
                             {"iss": client, "sub": client, "aud": self.provider.base, "iat": now, "exp": now + 300,
                              "jti": jti or str(uuid.uuid4()),
                              "signed_headers": [{"digest": digest}, {"content-type": "application/merge-patch+json"}]},
                             signer)
        request = urllib.request.Request(self.provider.base + "/wallet-instances", data=body, method="PATCH")
        for name, value in (("Content-Type", "application/merge-patch+json"), ("Authorization", f"Bearer {voucher}"),
                            ("Agid-JWT-Signature", signature), ("Digest", digest)):
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                answer = (response.status, response.headers.get("Content-Type", ""), response.read())
        except urllib.error.HTTPError as error:
            answer = (error.code, error.headers.get("Content-Type", ""), error.read())
        return self.report(case, *answer)


def run_attestations(args) -> int:
    authority = Authority(args.dir)
    provider = Provider(args.provider, args.session)
    with open(args.signing_root, "rb") as f:
        root = x509.load_pem_x509_certificate(f.read())
    client = AttestationClient(provider, root, args.wallet_solution_id)
    registrar = Client(provider)
    signer_digest = sha256(args.android_signer.encode())
    ios = IOSDevice(authority, args.apple_app)
    registrar.register("ios register", challenge := provider.nonce(), ios.hardware_key_tag, ios.attestation(challenge))
    android = AndroidDevice(authority, args.android_package, signer_digest)
    registrar.register("android register", challenge := provider.nonce(), android.hardware_key_tag,
                       android.attestation(challenge))
    references = {}
    for name, device in (("ios", ios), ("android", android)):
        client.wia(f"1.3 {name} wia (text/plain, iss = hardware_key_tag)", "1.3", device)
        client.key_attestation(f"1.3 {name} key attestation (/key-attestations)", "1.3", device)
        client.key_attestation(f"1.3 {name} wallet unit attestation (/wallet-unit-attestations)", "1.3", device,
                               path="/wallet-unit-attestations", member="wallet_unit_attestation", count=1)
        wia = client.wia(f"1.5 {name} wia (JSON assertion, iss = thumbprint)", "1.5", device)
        ka = client.key_attestation(f"1.5 {name} key attestation", "1.5", device, count=3)
        references[name] = [line.get("claims", {}).get(member, {}).get("status", {}).get("status_list")
                            for line, member in ((wia, "client_status"), (ka, "key_storage_status"))]
    client.status_list("status list: the android 1.5 WIA and Key Attestation entries", references["android"])
    client.wia("1.3 tamper: iss names another instance", "1.3", ios, iss="another-hardware-key-tag")
    client.wia("1.3 tamper: client_data over another nonce", "1.3", android, nonce_tamper=True)
    client.wia("1.3 tamper: the combined attestations-request+jwt", "1.3", ios, typ="attestations-request+jwt")
    client.key_attestation("1.3 tamper: a key signed by another key", "1.3", ios, element_tamper="signer")
    client.key_attestation("1.3 tamper: a key attested for another nonce", "1.3", android, element_tamper="challenge")
    client.key_attestation("1.5 tamper: an Android key without its attestation", "1.5", android,
                           element_tamper="no-attestation")
    client.key_attestation("1.5 tamper: wua-request+jwt at the 1.5 endpoint", "1.5", android, typ="wua-request+jwt")
    client.wia("1.5 tamper: unknown hardware_key_tag", "1.5", ios, tag=b64url(os.urandom(32)))
    if args.pdnd:
        instance = b64url(sha256(android.hardware_key_tag.encode()))
        jti = str(uuid.uuid4())
        client.notify_user_death("pdnd: notify user death", authority, [instance, "unknown-instance"], jti=jti)
        client.notify_user_death("pdnd: the same call replayed", authority, [instance], jti=jti)
        client.wia("1.5 android wia after the user's death", "1.5", android)
        client.status_list("status list: the same entries after the user's death", references["android"])
        client.status_list("status list: the ios instance's entries (the same user's)", references["ios"])
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make_root = commands.add_parser("make-root")
    make_root.add_argument("--dir", required=True)
    runner = commands.add_parser("run")
    runner.add_argument("--dir", required=True)
    runner.add_argument("--provider", required=True)
    runner.add_argument("--session", required=True)
    runner.add_argument("--apple-app", required=True, help="TEAMID.BUNDLEID")
    runner.add_argument("--android-package", required=True)
    runner.add_argument("--android-signer", required=True, help="the text whose SHA-256 is the signing digest")
    runner.add_argument("--signing-root", required=True, help="PEM trust anchor of the provider's attestation signing chain")
    attestations = commands.add_parser("attestations")
    for option in ("--dir", "--provider", "--session", "--apple-app", "--android-package", "--android-signer",
                   "--signing-root"):
        attestations.add_argument(option, required=True)
    attestations.add_argument("--wallet-solution-id", default="tessera")
    attestations.add_argument("--pdnd", action="store_true", help="also call Notify User Death")
    args = parser.parse_args()
    if args.command == "attestations":
        return run_attestations(args)
    if args.command == "make-root":
        Authority.create(args.dir)
        print(os.path.join(args.dir, "root.pem"))
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
