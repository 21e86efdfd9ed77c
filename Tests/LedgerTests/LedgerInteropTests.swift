import Crypto
import Foundation
import LedgerProtocol
import TesseraCore
import TesseraJOSE
import TesseraTestSupport
import Testing

/// LedgerProtocol against independent implementations, both ways: Python `cryptography` (X25519, HKDF-SHA256,
/// ChaCha20-Poly1305, HMAC-SHA256, Ed25519) and `argon2-cffi` (libargon2). The peer runs from `TESSERA_PYTHON` or
/// `<package root>/.build/pyenv/bin/python3` (scripts/test sets it up); without it these tests fail, never skip.
struct LedgerInteropTests {
    /// The Python side, written from ledger-wire.md, not from the Swift code. Arguments in hex unless named.
    static let peer = #"""
        import hashlib, os, sys
        from cryptography.exceptions import InvalidSignature, InvalidTag
        from cryptography.hazmat.primitives import hashes, hmac, serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
        from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        from argon2.low_level import Type, hash_secret_raw

        RAW = dict(encoding=serialization.Encoding.Raw, format=serialization.PublicFormat.Raw)
        h = bytes.fromhex

        def key(shared, info):
            return HKDF(hashes.SHA256(), 32, b"VettID-HKDF-Salt-v1", info.encode()).derive(shared)

        def message(method, path, timestamp, nonce, body):
            return f"{method.upper()}|{path}|{timestamp}|{nonce}|{hashlib.sha256(body).hexdigest()}".encode()

        def lat_mac(lat, user, client_nonce, jti):
            mac = hmac.HMAC(lat, hashes.SHA256())
            mac.update(f"vettid-lat-v1|{user}|{client_nonce}|{jti}".encode())
            return mac

        command, args = sys.argv[1], sys.argv[2:]
        if command == "open":  # recipient-private info aad epk nonce ciphertext
            recipient = X25519PrivateKey.from_private_bytes(h(args[0]))
            shared = recipient.exchange(X25519PublicKey.from_public_bytes(h(args[3])))
            try:
                print(ChaCha20Poly1305(key(shared, args[1])).decrypt(h(args[4]), h(args[5]), h(args[2])).hex())
            except InvalidTag:
                print("invalid-tag")
        elif command == "seal":  # recipient-public info aad plaintext -> epk nonce ciphertext
            ephemeral = X25519PrivateKey.generate()
            nonce = os.urandom(12)
            shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(h(args[0])))
            ciphertext = ChaCha20Poly1305(key(shared, args[1])).encrypt(nonce, h(args[3]), h(args[2]))
            print(ephemeral.public_key().public_bytes(**RAW).hex(), nonce.hex(), ciphertext.hex())
        elif command == "lat":  # lat user client_nonce jti
            print(lat_mac(h(args[0]), args[1], args[2], args[3]).finalize().hex())
        elif command == "lat-check":  # lat user client_nonce jti proof (HMAC.verify compares in constant time)
            try:
                lat_mac(h(args[0]), args[1], args[2], args[3]).verify(h(args[4]))
                print("ok")
            except InvalidSignature:
                print("mismatch")
        elif command == "sign":  # seed method path timestamp nonce body -> public signature
            signer = Ed25519PrivateKey.from_private_bytes(h(args[0]))
            signature = signer.sign(message(args[1], args[2], args[3], args[4], h(args[5])))
            print(signer.public_key().public_bytes(**RAW).hex(), signature.hex())
        elif command == "verify":  # public method path timestamp nonce body signature
            try:
                Ed25519PublicKey.from_public_bytes(h(args[0])).verify(h(args[6]), message(args[1], args[2], args[3], args[4], h(args[5])))
                print("ok")
            except InvalidSignature:
                print("invalid-signature")
        elif command == "argon2id":  # password salt m t p len
            m, t, p, n = map(int, args[2:6])
            print(hash_secret_raw(h(args[0]), h(args[1]), time_cost=t, memory_cost=m, parallelism=p, hash_len=n, type=Type.ID, version=19).hex())
        else:
            sys.exit(2)
        """#

    /// The peer's output words, or a recorded issue (and nil) when Python or its packages are missing.
    func python(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String]? {
        guard let output = try PythonPeer.run(["-c", Self.peer] + arguments, sourceLocation: sourceLocation) else { return nil }
        guard output.status == 0 else {
            Issue.record("Python peer failed (\(output.status)): \(output.stderr)", sourceLocation: sourceLocation)
            return nil
        }
        return String(decoding: output.stdout, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
    }

    static let aad = LedgerAAD.password(userGUID: "5d1c7a52-0c0e-4b7e-9d59-2f0b7e3f4a10", transaction: "jti-7Yq", keyID: "k-0001")

    @Test(arguments: SealInfo.allCases)
    func swiftSealsPythonOpens(info: SealInfo) throws {
        let recipient = Curve25519.KeyAgreement.PrivateKey()
        let plaintext = Data("H = Argon2id(password) ✓".utf8) + Data((0..<32).map { UInt8($0) })
        let box = try Seal.seal(to: recipient.publicKey, info: info, aad: Self.aad, plaintext: plaintext, random: SystemRandomSource())
        let arguments = [recipient.rawRepresentation.hex, info.rawValue, Self.aad.hex, box.epk.hex, box.nonce.hex, box.ciphertext.hex]
        #expect(try python(["open"] + arguments) == [plaintext.hex])
        // Python refuses it too under another purpose or AAD: it really checks what Swift bound.
        let other = SealInfo.allCases.first { $0 != info } ?? .appVaultSession
        var wrongInfo = arguments
        wrongInfo[1] = other.rawValue
        #expect(try python(["open"] + wrongInfo) == ["invalid-tag"])
        var wrongAAD = arguments
        wrongAAD[2] = (Self.aad + Data("x".utf8)).hex
        #expect(try python(["open"] + wrongAAD) == ["invalid-tag"])
    }

    @Test(arguments: SealInfo.allCases)
    func pythonSealsSwiftOpens(info: SealInfo) throws {
        let recipient = Curve25519.KeyAgreement.PrivateKey()
        let plaintext = Data((0..<48).map { UInt8($0 * 5 % 256) })
        let words = try #require(try python(["seal", recipient.publicKey.rawRepresentation.hex, info.rawValue, Self.aad.hex, plaintext.hex]))
        try #require(words.count == 3, "unexpected peer output \(words)")
        let box = try SealedBox(epk: try Data(hex: words[0]), nonce: try Data(hex: words[1]), ciphertext: try Data(hex: words[2]))
        #expect(try Seal.open(box, with: recipient, info: info, aad: Self.aad) == plaintext)
        // Through the wire's JSON shape as well.
        let json = try #require(try JSONValue.parse(JSONValue.object(box.json).serialized()).objectValue)
        #expect(try Seal.open(SealedBox(json: json), with: recipient, info: info, aad: Self.aad) == plaintext)
        #expect(throws: LedgerProtocolError.openFailed) { try Seal.open(box, with: recipient, info: info, aad: Self.aad.dropLast()) }
        for other in SealInfo.allCases where other != info {
            #expect(throws: LedgerProtocolError.openFailed) { try Seal.open(box, with: recipient, info: other, aad: Self.aad) }
        }
    }

    @Test func latProofBothWays() throws {
        let lat = Data(SystemRandomSource().bytes(32))
        let (user, clientNonce, jti) = ("5d1c7a52-0c0e-4b7e-9d59-2f0b7e3f4a10", "bm9uY2U", "jti-Ω")
        let ours = LATProof.make(lat: lat, userGUID: user, clientNonce: clientNonce, jti: jti)
        #expect(try python(["lat", lat.hex, user, clientNonce, jti]) == [ours.hex])
        #expect(try python(["lat-check", lat.hex, user, clientNonce, jti, ours.hex]) == ["ok"])
        #expect(try python(["lat-check", lat.hex, user, clientNonce, "jti-other", ours.hex]) == ["mismatch"])
        let theirs = try Data(hex: try #require(try python(["lat", lat.hex, user, "other-nonce", jti])?.first))
        #expect(LATProof.check(theirs, lat: lat, userGUID: user, clientNonce: "other-nonce", jti: jti))
        #expect(!LATProof.check(theirs, lat: lat, userGUID: user, clientNonce: clientNonce, jti: jti))
    }

    @Test func deviceSignatureBothWays() throws {
        let key = Curve25519.Signing.PrivateKey()
        let body = Data(#"{"user_guid":"5d1c7a52","action_type":"authenticate","client_nonce":"n"}"#.utf8)
        let path = "/api/v1/action/request"
        let headers = try DeviceSignature.headers(key: key, method: "POST", path: path, timestamp: 1_767_225_600, nonce: "nonce-1", body: body)
        let signature = try Base64URL.decode(try #require(headers.first { $0.name == DeviceSignature.signatureHeader }?.value))
        let public_ = key.publicKey.rawRepresentation.hex
        #expect(try python(["verify", public_, "POST", path, "1767225600", "nonce-1", body.hex, signature.hex]) == ["ok"])
        #expect(try python(["verify", public_, "POST", path, "1767225601", "nonce-1", body.hex, signature.hex]) == ["invalid-signature"])
        #expect(try python(["verify", public_, "POST", path, "1767225600", "nonce-1", (body + Data("\n".utf8)).hex, signature.hex]) == ["invalid-signature"])

        let seed = Data(SystemRandomSource().bytes(32))
        let words = try #require(try python(["sign", seed.hex, "post", path, "1767225600", "nonce-2", body.hex]))
        try #require(words.count == 2, "unexpected peer output \(words)")
        let theirKey = try Curve25519.Signing.PublicKey(rawRepresentation: try Data(hex: words[0]))
        #expect(theirKey.rawRepresentation == (try Curve25519.Signing.PrivateKey(rawRepresentation: seed)).publicKey.rawRepresentation)
        let theirs = Base64URL.encode(try Data(hex: words[1]))
        #expect(DeviceSignature.verify(signature: theirs, publicKey: theirKey, method: "POST", path: path, timestamp: 1_767_225_600, nonce: "nonce-2", body: body))
        #expect(!DeviceSignature.verify(signature: theirs, publicKey: theirKey, method: "POST", path: "/api/v1/auth/execute", timestamp: 1_767_225_600, nonce: "nonce-2", body: body))
    }

    /// `KDFParameters.hash` equals libargon2's Argon2id (v19) for the ledger's parameter shapes: one lane and
    /// several, tag lengths at both ends of the accepted range, and passwords with non-ASCII characters.
    @Test(arguments: [
        (256 as UInt32, 1 as UInt32, 1 as UInt32, 32 as UInt32),
        (1024, 2, 4, 32),
        (64, 3, 8, 16),
        (512, 1, 2, 64),
    ])
    func argon2idMatchesArgon2Cffi(m: UInt32, t: UInt32, p: UInt32, length: UInt32) throws {
        let random = SystemRandomSource()
        for password in ["correct horse battery staple", "pässwörd with ümlauts and 🔑", String(repeating: "x", count: 200)] {
            let kdf = try KDFParameters(json: KDFParameters(
                salt: random.bytes(16 + Int(length) % 48), memoryKiB: m, iterations: t, parallelism: p, length: length).json)
            let ours = try kdf.hash(password: password)
            #expect(ours.count == Int(length))
            let theirs = try python(["argon2id", Data(password.utf8).hex, kdf.salt.hex, "\(m)", "\(t)", "\(p)", "\(length)"])
            #expect(theirs == [ours.hex], "m=\(m) t=\(t) p=\(p) len=\(length)")
        }
    }
}
