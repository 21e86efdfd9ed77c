"""Shared helpers of the independent OpenID4VP peers (oid4vp_wallet.py, oid4vp_verifier.py).

Written from OpenID for Verifiable Presentations 1.0 (final), RFC 7515/7516/7518/7638 (JOSE), RFC 9052 (COSE),
ISO/IEC 18013-5 (mdoc) and RFC 9901 / SD-JWT VC, on top of PyPI libraries only: cryptography (X.509, ECDSA),
jwcrypto (JWS, JWE, JWK) and cbor2 (CBOR). Nothing here comes from Tessera: these peers exist to check Tessera
against an independent reading of the specifications.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import secrets
from typing import Any

import cbor2
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.x509.oid import NameOID


class PeerError(Exception):
    """A check of a peer failed; `rule` names the broken rule (with the spec section), `detail` says what was seen."""

    def __init__(self, rule: str, detail: str = ""):
        super().__init__(f"{rule}: {detail}" if detail else rule)
        self.rule = rule
        self.detail = detail


def require(condition: bool, rule: str, detail: str = "") -> None:
    if not condition:
        raise PeerError(rule, detail)


# ---- base64url / JSON -------------------------------------------------------------------------------------------

def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def b64url_decode(text: str) -> bytes:
    require(isinstance(text, str), "base64url", "not a string")
    require(all(c.isalnum() or c in "-_" for c in text), "base64url", "characters outside the base64url alphabet")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def random_token(nbytes: int = 16) -> str:
    """A fresh random value of `nbytes` bytes as base64url (OpenID4VP §5.2 nonce: at least 128 bits)."""
    return b64url_encode(secrets.token_bytes(nbytes))


def compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def jws_parts(token: str) -> tuple[dict, dict, bytes]:
    """Header and payload of a compact JWS (unverified) plus the raw signature."""
    parts = token.split(".")
    require(len(parts) == 3, "RFC 7515 §7.1 compact JWS", f"{len(parts)} parts")
    header = json.loads(b64url_decode(parts[0]))
    payload = json.loads(b64url_decode(parts[1]))
    require(isinstance(header, dict) and isinstance(payload, dict), "RFC 7515 §7.1 compact JWS", "not JSON objects")
    return header, payload, b64url_decode(parts[2])


# ---- keys -------------------------------------------------------------------------------------------------------

def load_private_key_pem(path: str) -> ec.EllipticCurvePrivateKey:
    with open(path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    require(isinstance(key, ec.EllipticCurvePrivateKey) and isinstance(key.curve, ec.SECP256R1),
            "holder key", f"{path} is not a P-256 private key")
    return key


def jwk_thumbprint_sha256(jwk_dict: dict) -> bytes:
    """RFC 7638 §3: SHA-256 over the required members (EC: crv, kty, x, y) in lexicographic order, no whitespace."""
    require(jwk_dict.get("kty") == "EC", "RFC 7638 thumbprint", "only EC keys are supported")
    members = {name: jwk_dict[name] for name in ("crv", "kty", "x", "y")}
    return hashlib.sha256(json.dumps(members, separators=(",", ":"), sort_keys=True).encode("utf-8")).digest()


# ---- X.509 ------------------------------------------------------------------------------------------------------

def now_utc() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def load_certificate_pem(path: str) -> x509.Certificate:
    with open(path, "rb") as f:
        return x509.load_pem_x509_certificate(f.read())


def x509_hash_client_id(leaf_der: bytes) -> str:
    """OpenID4VP §5.9.3 `x509_hash`: base64url of SHA-256 over the DER leaf certificate."""
    return "x509_hash:" + b64url_encode(hashlib.sha256(leaf_der).digest())


def verify_chain(chain_der: list[bytes], anchor: x509.Certificate, what: str) -> x509.Certificate:
    """Checks that chain_der[0] (the leaf) chains, through the other certificates, to the trust anchor: each
    certificate signed by the next (the last one by the anchor, or being the anchor itself), issuer names matching,
    every certificate inside its validity period, CA certificates marked as such. Returns the leaf."""
    require(len(chain_der) >= 1, f"{what}: certificate chain", "empty")
    certs = [x509.load_der_x509_certificate(der) for der in chain_der]
    anchor_der = anchor.public_bytes(serialization.Encoding.DER)
    if certs[-1].public_bytes(serialization.Encoding.DER) == anchor_der and len(certs) > 1:
        certs = certs[:-1]  # the chain included the anchor itself
    moment = now_utc()
    for cert in certs + [anchor]:
        require(cert.not_valid_before_utc <= moment <= cert.not_valid_after_utc, f"{what}: certificate validity",
                f"{cert.subject.rfc4514_string()} valid {cert.not_valid_before_utc} .. {cert.not_valid_after_utc}")
    issuers = certs[1:] + [anchor]
    for cert, issuer in zip(certs, issuers):
        if cert.public_bytes(serialization.Encoding.DER) == anchor_der:
            continue
        try:
            cert.verify_directly_issued_by(issuer)
        except (ValueError, TypeError, InvalidSignature) as error:
            raise PeerError(f"{what}: certificate chain",
                            f"{cert.subject.rfc4514_string()} is not issued by {issuer.subject.rfc4514_string()} "
                            f"({type(error).__name__}: {error})") from None
        try:
            constraints = issuer.extensions.get_extension_for_class(x509.BasicConstraints).value
            require(constraints.ca, f"{what}: certificate chain", f"{issuer.subject.rfc4514_string()} is not a CA")
        except x509.ExtensionNotFound:
            raise PeerError(f"{what}: certificate chain",
                            f"{issuer.subject.rfc4514_string()} has no basicConstraints") from None
    leaf_key = certs[0].public_key()
    require(isinstance(leaf_key, ec.EllipticCurvePublicKey) and isinstance(leaf_key.curve, ec.SECP256R1),
            f"{what}: leaf key", "not P-256")
    return certs[0]


def make_root_and_leaf(root_cn: str, leaf_cn: str, days: int = 2):
    """A fresh P-256 root CA and a leaf (digitalSignature) it signs. Returns (root_cert, leaf_cert, leaf_key)."""
    start = now_utc() - datetime.timedelta(minutes=5)
    end = start + datetime.timedelta(days=days)
    root_key = ec.generate_private_key(ec.SECP256R1())
    root_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, root_cn)])
    root = (x509.CertificateBuilder().subject_name(root_name).issuer_name(root_name)
            .public_key(root_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(root_key.public_key()), critical=False)
            .sign(root_key, hashes.SHA256()))
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, leaf_cn)]))
            .issuer_name(root_name).public_key(leaf_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(leaf_key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(root_key.public_key()), critical=False)
            .sign(root_key, hashes.SHA256()))
    return root, leaf, leaf_key


# ---- COSE_Sign1 (RFC 9052 §4.4) with ES256 ---------------------------------------------------------------------

COSE_ALG_ES256 = -7
COSE_HEADER_ALG = 1
COSE_HEADER_X5CHAIN = 33


def cose_sig_structure(protected: bytes, payload: bytes) -> bytes:
    """RFC 9052 §4.4 Sig_structure for COSE_Sign1 with an empty external_aad."""
    return cbor2.dumps(["Signature1", protected, b"", payload])


def es256_sign_raw(key: ec.EllipticCurvePrivateKey, message: bytes) -> bytes:
    r, s = decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def es256_verify_raw(key: ec.EllipticCurvePublicKey, signature: bytes, message: bytes, rule: str) -> None:
    require(len(signature) == 64, rule, f"ES256 signature is {len(signature)} bytes, not 64")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        key.verify(der, message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise PeerError(rule, "signature does not verify") from None


def cose_key_to_public_key(cose_key: Any) -> ec.EllipticCurvePublicKey:
    """RFC 9053 §7.1.1 EC2 key: kty 2, crv 1 (P-256), x (-2), y (-3)."""
    require(isinstance(cose_key, dict), "ISO 18013-5 §9.1.2.4 DeviceKey", "not a map")
    require(cose_key.get(1) == 2 and cose_key.get(-1) == 1, "ISO 18013-5 §9.1.2.4 DeviceKey", "not an EC2 P-256 key")
    x, y = cose_key.get(-2), cose_key.get(-3)
    require(isinstance(x, bytes) and isinstance(y, bytes) and len(x) == 32 and len(y) == 32,
            "ISO 18013-5 §9.1.2.4 DeviceKey", "bad coordinates")
    return ec.EllipticCurvePublicNumbers(int.from_bytes(x, "big"), int.from_bytes(y, "big"),
                                         ec.SECP256R1()).public_key()


# ---- OpenID4VP mdoc handover (Appendix B.2.6.1) -----------------------------------------------------------------

def openid4vp_session_transcript(client_id: str, nonce: str, jwk_thumbprint: bytes | None,
                                 response_uri: str) -> list:
    """SessionTranscript = [null, null, OpenID4VPHandover] with OpenID4VPHandover =
    ["OpenID4VPHandover", sha256(cbor([clientId, nonce, jwkThumbprint, responseUri]))] (B.2.6.1)."""
    info = cbor2.dumps([client_id, nonce, jwk_thumbprint, response_uri])
    return [None, None, ["OpenID4VPHandover", hashlib.sha256(info).digest()]]


def device_authentication_bytes(session_transcript: list, doc_type: str, device_namespaces_bytes: bytes) -> bytes:
    """ISO 18013-5 §9.1.3.4: DeviceAuthenticationBytes = #6.24(bstr .cbor ["DeviceAuthentication",
    SessionTranscript, DocType, DeviceNameSpacesBytes]); DeviceNameSpacesBytes is itself #6.24(bstr)."""
    inner = cbor2.dumps(["DeviceAuthentication", session_transcript, doc_type,
                         cbor2.CBORTag(24, device_namespaces_bytes)])
    return cbor2.dumps(cbor2.CBORTag(24, inner))


def cbor_to_json(value: Any) -> Any:
    """RFC 8949 §6.1-style conversion of decoded CBOR to JSON: bytes → base64url, dates → ISO 8601 strings,
    tag 24 → its embedded item."""
    if isinstance(value, dict):
        return {str(k): cbor_to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [cbor_to_json(v) for v in value]
    if isinstance(value, bytes):
        return b64url_encode(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, cbor2.CBORTag):
        if value.tag == 24 and isinstance(value.value, bytes):
            return cbor_to_json(cbor2.loads(value.value))
        return {"tag": value.tag, "value": cbor_to_json(value.value)}
    return value
