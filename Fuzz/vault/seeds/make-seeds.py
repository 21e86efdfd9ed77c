#!/usr/bin/env python3
"""Writes the seeds of Fuzz/vault/FuzzVault.swift into seeds/wire/ and seeds/payload/ (run from anywhere).

Envelopes, peer messages and the signed bootstrap reply are made with Python `cryptography` (ChaCha20-Poly1305,
Ed25519, X25519) under the harness's fixed keys, so the fuzzer starts from inputs that open and verify.
"""
import base64, hashlib, json, os, pathlib, shutil

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

HERE = pathlib.Path(__file__).resolve().parent
GUID = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
PEER = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
SESSION_KEY = bytes([0x11]) * 32
CONNECTION_KEY = bytes([0x22]) * 32
RAW = (serialization.Encoding.Raw, serialization.PublicFormat.Raw)
APP_KEY = X25519PrivateKey.from_private_bytes(bytes(range(1, 33))).public_key().public_bytes(*RAW)
IDENTITY = Ed25519PrivateKey.from_private_bytes(bytes([0x07]) * 32)
REQUEST_ID = "6f1c0c1e-8a8b-4a53-9d1e-0c7f3b2a1d00"


def b64(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def js(value) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def envelope(plaintext: bytes, key: bytes, direction: str, session: str, seq: int, subject: str) -> dict:
    nonce = hashlib.sha256(plaintext + session.encode() + bytes([seq % 256])).digest()[:12]
    aad = f"app-vault-v1|{direction}|{session}|{seq}|{subject}".encode()
    ct = ChaCha20Poly1305(key).encrypt(nonce, plaintext, aad)
    return {"version": 1, "session_id": session, "seq": seq, "nonce": b64(nonce), "ciphertext": b64(ct)}


SEALED = {"nonce": b64(bytes(range(0xA0, 0xAC))), "ciphertext": b64(bytes(24))}
RECORD = {"credential_id": "c1", "format": "dc+sd-jwt", "credential": "eyJhbGciOiJFUzI1NiJ9.e30.sig~",
          "metadata": {"issuer": "https://i.example"}, "version": 4, "updated_at": 1700000000}
KEY = b64(APP_KEY)

# In the order of VaultHandler.allCases: (request, result).
HANDLERS = [
    ({"key": "k1", "value": "secret", "metadata": {"kind": "password"}}, {"key": "k1", "version": 1}),
    ({"key": "k1", "value": "secret 2", "expected_version": 1}, {"key": "k1", "version": 2}),
    ({"key": "k1"}, {"key": "k1", "value": "secret", "metadata": {"kind": "password"}, "version": 2, "updated_at": 1700000000}),
    ({"key": "k1"}, {"key": "k1", "deleted": True}),
    ({"prefix": "k", "limit": 10, "cursor": "k1"}, {"items": [{"key": "k1", "version": 2, "updated_at": 1700000000}], "next_cursor": "k1"}),
    ({"fields": ["name", "email"]}, {"profile": {"name": "Ada"}, "version": 3}),
    ({"set": {"name": "Ada"}, "remove": ["email"]}, {"version": 4}),
    ({}, {"deleted": True}),
    ({"fields": ["name"]}, {"sent_to": 2}),
    ({"credential_id": "c1", "format": "dc+sd-jwt", "credential": "eyJ.e30.sig~", "metadata": {"issuer": "i"}}, {"credential_id": "c1", "version": 4}),
    ({"since_version": 0}, {"credentials": [RECORD], "deleted": ["c0"], "version": 5}),
    ({"credential_id": "c1"}, RECORD),
    ({}, {"version": 5}),
    ({"requested_ttl_hours": 24}, {"credentials": SEALED, "expires_at": 1700086400, "credential_id": "cred-2"}),
    ({}, {"credential_id": "cred-2", "expires_at": 1700086400, "ttl_seconds": 3600}),
    ({"label": "Bob", "ttl_seconds": 3600}, {"connection_id": "conn-1", "invite": "eyJ2IjoxfQ", "expires_at": 1700086400}),
    ({"invite": "eyJ2IjoxfQ", "label": "Alice"}, {"connection_id": "conn-1", "peer_guid": PEER, "status": "active"}),
    ({"connection_id": "conn-1"}, {"connection_id": "conn-1", "rotated_at": 1700000100}),
    ({"connection_id": "conn-1"}, {"connection_id": "conn-1", "revoked": True}),
    ({}, {"connections": [{"connection_id": "conn-1", "peer_guid": PEER, "label": "Bob", "status": "active",
                           "created_at": 1700000000, "rotated_at": 1700000100}]}),
    ({"connection_id": "conn-1"}, {"connection_id": "conn-1", "peer_guid": PEER, "subjects": [f"MessageSpace.{GUID}.forOwner.>"],
                                   "expires_at": 1700086400}),
    ({"connection_id": "conn-1", "reason": "done"}, {"connection_id": "conn-1"}),
    ({"connection_id": "conn-1", "content": "hello", "content_type": "text/markdown", "message_id": "m1"},
     {"message_id": "m1", "sent_at": 1700000000, "delivered": True}),
    ({"connection_id": "conn-1", "message_id": "m1"}, {"message_id": "m1", "read_at": 1700000050}),
    ({"new_app_public_key": KEY}, {"new_vault_public_key": KEY, "new_session_id": "sess-2", "session_expires_at": 1700086400}),
]
HANDLER_TYPES = [
    "secrets.datastore.add", "secrets.datastore.update", "secrets.datastore.retrieve", "secrets.datastore.delete",
    "secrets.datastore.list", "profile.get", "profile.update", "profile.delete", "profile.broadcast", "credential.store",
    "credential.sync", "credential.get", "credential.version", "credentials.refresh", "credentials.status",
    "connection.create-invite", "connection.store-credentials", "connection.rotate", "connection.revoke", "connection.list",
    "connection.get-credentials", "connection.notify-revoke", "message.send", "message.read-receipt", "session.rotate",
]
# VaultNotification.allCases order.
PUSHES = [
    ("new-message", {"message_id": "m1", "connection_id": "conn-1", "content": "hi", "content_type": "text/plain", "sent_at": 1700000000}),
    ("read-receipt", {"message_id": "m1", "connection_id": "conn-1", "read_at": 1700000050}),
    ("profile-update", {"connection_id": "conn-1", "profile": {"name": "Bob"}}),
    ("connection-revoked", {"connection_id": "conn-1", "reason": "done"}),
    ("credentials.rotate", {"credentials": SEALED, "expires_at": 1700086400, "credential_id": "cred-3"}),
]
# PeerMessageKind.allCases order.
PEER_BODIES = [
    ("message", {"message_id": "m1", "content": "hi", "content_type": "text/plain", "sent_at": 1700000000}),
    ("read-receipt", {"message_id": "m1", "read_at": 1700000050}),
    ("profile", {"profile": {"name": "Bob"}, "version": 2}),
    ("connection.accept", {"credentials": "-----BEGIN NATS USER JWT-----", "accepter_guid": PEER}),
    ("connection.revoke", {"reason": "done"}),
    ("connection.rotate", {"credentials": "-----BEGIN NATS USER JWT-----"}),
]


def main() -> None:
    out = {name: HERE / name for name in ("wire", "payload")}
    for folder in out.values():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()

    def put(kind: str, data: bytes) -> None:
        (out[kind] / ("seed-" + hashlib.sha1(data).hexdigest())).write_bytes(data)

    # payload: selector ‖ JSON, in the harness's catalogue order.
    catalogue = [obj for pair in HANDLERS for obj in pair] + [p for _, p in PUSHES] + [b for _, b in PEER_BODIES]
    for index, obj in enumerate(catalogue):
        put("payload", bytes([index]) + js(obj))

    # wire: plaintext events and responses, envelopes around them, peer messages, invites, a signed bootstrap reply.
    command = f"OwnerSpace.{GUID}.forVault.profile.get"
    events = [{"id": f"e{i}", "type": t, "payload": req, "timestamp": 1700000000} for i, (t, (req, _)) in enumerate(zip(HANDLER_TYPES, HANDLERS))]
    events += [{"id": f"p{i}", "type": t, "payload": p, "timestamp": 1700000000} for i, (t, p) in enumerate(PUSHES)]
    bootstrap = {"device_id": "d1", "device_type": "ios", "app_version": "1.0", "requested_ttl_hours": 24, "app_session_public_key": KEY}
    events.append({"id": REQUEST_ID, "type": "app.bootstrap", "payload": bootstrap, "timestamp": 1700000000})
    responses = [{"event_id": "e1", "success": True, "timestamp": 1700000000, "result": {"key": "k1", "version": 1}},
                 {"event_id": "e2", "success": False, "timestamp": 1700000000, "error": {"code": "not_found", "message": "no such key"}}]
    for seq, plaintext in enumerate(events + responses, start=1):
        put("wire", js(plaintext))
        put("wire", js(envelope(js(plaintext), SESSION_KEY, "app-to-vault", "sess-1", seq, command)))
    put("wire", js(bootstrap))

    for seq, (kind, body) in enumerate(PEER_BODIES, start=1):
        message = {"kind": kind, "connection_id": "conn-1", "sender_guid": PEER}
        if kind in ("connection.accept", "connection.rotate"):
            message["sender_connection_key"] = KEY
        message["envelope"] = envelope(js(body), CONNECTION_KEY, "vault-to-vault", "conn-1", seq, f"MessageSpace.{GUID}.forOwner.{kind}")
        put("wire", js(message))

    invite = {"v": 1, "connection_id": "conn-1", "inviter_guid": GUID, "inviter_connection_key": KEY,
              "credentials": "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QifQ.e30.sig\n------END NATS USER JWT------\n",
              "nats_endpoint": "nats://127.0.0.1:4222", "expires_at": 1700086400, "label": "Ada"}
    put("wire", b64(js(invite)).encode())
    put("wire", js(invite))

    session_info = {"session_id": "sess-1", "vault_session_public_key": KEY, "session_expires_at": 1700086400,
                    "encryption_enabled": True, "app_session_public_key": KEY}
    result = {"credentials": SEALED, "nats_endpoint": "nats://127.0.0.1:4222", "owner_space": f"OwnerSpace.{GUID}",
              "message_space": f"MessageSpace.{GUID}", "topics": HANDLER_TYPES[:3], "expires_at": 1700086400, "ttl_seconds": 86400,
              "credential_id": "cred-1", "session_info": session_info}
    put("wire", js(result))
    put("wire", js(session_info))
    put("wire", js(SEALED))
    response = {"event_id": REQUEST_ID, "success": True, "timestamp": 1700000000, "result": result}
    signing_input = b64(js({"typ": "vault-bootstrap+jwt", "alg": "EdDSA"})) + "." + b64(js(response))
    put("wire", (signing_input + "." + b64(IDENTITY.sign(signing_input.encode()))).encode())
    print(f"seeds: {len(os.listdir(out['wire']))} wire, {len(os.listdir(out['payload']))} payload")


main()
