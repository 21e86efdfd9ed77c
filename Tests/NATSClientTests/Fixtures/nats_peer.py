"""Python peer for the NATSClient interop tests (nkeys and nats-py from PyPI).

  nats_peer.py verify-jwt JWT          verifies the ed25519-nkey signature with the issuer's nkey (PyNaCl, the
                                       library nkeys signs with) and prints the claims as JSON; exit 1 if invalid
  nats_peer.py seed-info SEED          prints the seed's public key (nkeys.from_seed)
  nats_peer.py make-seed MESSAGE       makes a user seed with nkeys, prints seed, public key and the signature of
                                       MESSAGE (base64url)
  nats_peer.py interop URL CREDS       nats-py with the creds file: answers requests on interop.py.echo with
                                       b"py:" + data, prints "ready", requests interop.swift.echo with b"hello from
                                       python" and prints "reply: <data>", then waits for a message on interop.done
Exit status 2: the peer itself is unusable (missing module).
"""
import asyncio
import base64
import json
import os
import sys

try:
    import nacl.signing
    import nkeys
except ImportError as e:  # pragma: no cover
    print(f"missing module: {e}", file=sys.stderr)
    sys.exit(2)


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_key_bytes(encoded: str) -> bytes:
    raw = base64.b32decode(encoded + "=" * (-len(encoded) % 8))
    body, crc = raw[:-2], raw[-2:]
    if nkeys.crc16_checksum(body) != crc:
        raise ValueError("bad crc16")
    return body[1:]


def verify_jwt(token: str) -> int:
    header_b64, claims_b64, sig_b64 = token.split(".")
    header = json.loads(b64url_decode(header_b64))
    claims = json.loads(b64url_decode(claims_b64))
    if header != {"typ": "JWT", "alg": "ed25519-nkey"}:
        print(f"bad header {header}")
        return 1
    key = nacl.signing.VerifyKey(public_key_bytes(claims["iss"]))
    try:
        key.verify(f"{header_b64}.{claims_b64}".encode(), b64url_decode(sig_b64))
    except Exception:
        print("invalid signature")
        return 1
    print(json.dumps(claims, sort_keys=True))
    return 0


def make_seed(message: str) -> int:
    seed = nkeys.encode_seed(os.urandom(32), nkeys.PREFIX_BYTE_USER)
    kp = nkeys.from_seed(bytearray(seed))
    print(seed.decode())
    print(kp.public_key.decode())
    print(base64.urlsafe_b64encode(kp.sign(message.encode())).decode().rstrip("="))
    return 0


async def interop(url: str, creds: str) -> int:
    import nats

    nc = await nats.connect(servers=[url], user_credentials=creds, allow_reconnect=False)
    done = asyncio.Event()

    async def echo(msg):
        await msg.respond(b"py:" + msg.data)

    async def finish(msg):
        done.set()

    await nc.subscribe("interop.py.echo", cb=echo)
    await nc.subscribe("interop.done", cb=finish)
    await nc.flush()
    print("ready", flush=True)
    reply = await nc.request("interop.swift.echo", b"hello from python", timeout=5)
    print("reply: " + reply.data.decode(), flush=True)
    await asyncio.wait_for(done.wait(), timeout=20)
    await nc.drain()
    return 0


def main() -> int:
    command = sys.argv[1]
    if command == "verify-jwt":
        return verify_jwt(sys.argv[2])
    if command == "seed-info":
        print(nkeys.from_seed(bytearray(sys.argv[2].encode())).public_key.decode())
        return 0
    if command == "make-seed":
        return make_seed(sys.argv[2])
    if command == "interop":
        try:
            import nats  # noqa: F401
        except ImportError as e:
            print(f"missing module: {e}", file=sys.stderr)
            return 2
        return asyncio.run(interop(sys.argv[2], sys.argv[3]))
    print(f"unknown command {command}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
