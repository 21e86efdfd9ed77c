import Crypto
import Foundation
import LedgerProtocol
import OpenID4VP
import Synchronization
import TesseraCore
import TesseraJOSE
import TesseraTestSupport
import Testing
import VaultClient
import TesseraHTTP

/// The shared constructions on their own: Seal and every binding it checks, the JSON shapes and their limits, and
/// known answers for the LAT proof, the device signature and Argon2id (computed with Python `cryptography` and
/// `argon2-cffi`; the live interoperability checks are in LedgerInteropTests).
struct LedgerProtocolTests {
    static let recipient = (try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data((0x21...0x40).map { UInt8($0) })))
    static let aad = LedgerAAD.password(userGUID: "user-1", transaction: "jti-1", keyID: "key-1")
    static let plaintext = Data((0..<32).map { UInt8($0) })

    func recipient() throws -> Curve25519.KeyAgreement.PrivateKey { try #require(Self.recipient) }

    func sealed(_ info: SealInfo = .transactionEncryption, aad: Data = Self.aad, plaintext: Data = Self.plaintext) throws -> SealedBox {
        try Seal.seal(to: try recipient().publicKey, info: info, aad: aad, plaintext: plaintext, random: SystemRandomSource())
    }

    func openError(_ box: SealedBox, key: Curve25519.KeyAgreement.PrivateKey? = nil, info: SealInfo = .transactionEncryption, aad: Data = Self.aad) throws -> LedgerProtocolError? {
        let key = try key ?? recipient()
        do {
            _ = try Seal.open(box, with: key, info: info, aad: aad)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Seal

    @Test(arguments: SealInfo.allCases)
    func sealOpensWithTheSameKeyInfoAndAAD(info: SealInfo) throws {
        for plaintext in [Data(), Self.plaintext, Data(repeating: 0xa5, count: 4096)] {
            let box = try sealed(info, plaintext: plaintext)
            #expect(box.epk.count == 32 && box.nonce.count == 12 && box.ciphertext.count == plaintext.count + 16)
            #expect(try Seal.open(box, with: try recipient(), info: info, aad: Self.aad) == plaintext)
        }
    }

    /// Python `cryptography` computed this box from the same ephemeral key and nonce (X25519, HKDF-SHA256 with the
    /// VettID salt and the purpose as info, ChaCha20-Poly1305).
    @Test func sealKnownAnswer() throws {
        let random = ScriptedRandom([Data((1...32).map { UInt8($0) }), Data((0xa0...0xab).map { UInt8($0) })])
        let box = try Seal.seal(to: try recipient().publicKey, info: .transactionEncryption, aad: Self.aad, plaintext: Self.plaintext, random: random)
        #expect(try recipient().publicKey.rawRepresentation.hex == "5869aff450549732cbaaed5e5df9b30a6da31cb0e5742bad5ad4a1a768f1a67b")
        #expect(box.epk.hex == "07a37cbc142093c8b755dc1b10e86cb426374ad16aa853ed0bdfc0b2b86d1c7c")
        #expect(box.nonce.hex == "a0a1a2a3a4a5a6a7a8a9aaab")
        #expect(box.ciphertext.hex == "d3db804c63405ea64de46edb9dbbc16625dac7e5081b94655fb3336b9a3b4ca9e3e5252c5a2027c67ab2ae84ecae5c3f")
        #expect(Data("pw|user-1|jti-1|key-1".utf8) == Self.aad)
        #expect(LedgerAAD.blob(userGUID: "user-1", cekVersion: 7) == Data("user-1|7".utf8))
    }

    @Test(arguments: SealInfo.allCases)
    func anotherInfoDoesNotOpen(info: SealInfo) throws {
        let box = try sealed(info)
        for other in SealInfo.allCases where other != info {
            #expect(try openError(box, info: other) == .openFailed)
        }
    }

    @Test func anotherAADDoesNotOpen() throws {
        let box = try sealed()
        let others = [
            Data(), LedgerAAD.password(userGUID: "user-2", transaction: "jti-1", keyID: "key-1"),
            LedgerAAD.password(userGUID: "user-1", transaction: "jti-2", keyID: "key-1"),
            LedgerAAD.password(userGUID: "user-1", transaction: "jti-1", keyID: "key-2"),
            Self.aad.dropLast(), Self.aad + Data([0]), LedgerAAD.blob(userGUID: "user-1", cekVersion: 1),
        ]
        for aad in others { #expect(try openError(box, aad: aad) == .openFailed) }
        // The AAD is bound byte for byte: flip each bit of it in turn.
        for bit in 0..<(Self.aad.count * 8) {
            #expect(try openError(box, aad: Self.aad.flipping(bit: bit)) == .openFailed)
        }
    }

    @Test func anotherKeyDoesNotOpen() throws {
        let box = try sealed()
        #expect(try openError(box, key: Curve25519.KeyAgreement.PrivateKey()) == .openFailed)
        // The ephemeral key of another box to the same recipient: another shared secret.
        let other = try sealed()
        #expect(try openError(try SealedBox(epk: other.epk, nonce: box.nonce, ciphertext: box.ciphertext)) == .openFailed)
    }

    @Test func everyFlippedBitIsRefused() throws {
        let box = try sealed()
        for bit in 0..<(box.ciphertext.count * 8) {
            let flipped = try SealedBox(epk: box.epk, nonce: box.nonce, ciphertext: box.ciphertext.flipping(bit: bit))
            #expect(try openError(flipped) == .openFailed, "ciphertext bit \(bit)")
        }
        for bit in 0..<(box.nonce.count * 8) {
            let flipped = try SealedBox(epk: box.epk, nonce: box.nonce.flipping(bit: bit), ciphertext: box.ciphertext)
            #expect(try openError(flipped) == .openFailed, "nonce bit \(bit)")
        }
        for bit in 0..<(box.epk.count * 8) {
            let flipped = try SealedBox(epk: box.epk.flipping(bit: bit), nonce: box.nonce, ciphertext: box.ciphertext)
            #expect(try openError(flipped) == .openFailed, "epk bit \(bit)")
        }
    }

    /// X25519 ignores the top bit of the u-coordinate (RFC 7748 §5): before the canonical-epk check, a box with that
    /// bit flipped still opened, so a sealed box could be altered without being refused.
    @Test func aNonCanonicalEphemeralKeyIsRefused() throws {
        let box = try sealed()
        let highBit = try SealedBox(epk: box.epk.flipping(bit: 255), nonce: box.nonce, ciphertext: box.ciphertext)
        #expect(try openError(highBit) == .openFailed)
        // u = 9 (the base point) and u = p + 9 are one point to X25519. A box made for epk = 9 opens; the same box
        // with the alias p + 9 is refused.
        let nine = Data([9] + [UInt8](repeating: 0, count: 31))
        let shared = try recipient().sharedSecretFromKeyAgreement(with: .init(rawRepresentation: nine))
        let key = shared.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: Seal.hkdfSalt, sharedInfo: Data(SealInfo.transactionEncryption.rawValue.utf8), outputByteCount: 32)
        let made = try ChaChaPoly.seal(Self.plaintext, using: key, nonce: ChaChaPoly.Nonce(), authenticating: Self.aad)
        let canonical = try SealedBox(epk: nine, nonce: Data(made.nonce), ciphertext: made.ciphertext + made.tag)
        #expect(try Seal.open(canonical, with: try recipient(), info: .transactionEncryption, aad: Self.aad) == Self.plaintext)
        var alias = Data(repeating: 0xff, count: 32)
        alias[0] = 0xf6  // 2²⁵⁵ − 19 + 9 = 2²⁵⁵ − 10, little-endian f6 ff … ff 7f
        alias[31] = 0x7f
        #expect(try openError(try SealedBox(epk: alias, nonce: canonical.nonce, ciphertext: canonical.ciphertext)) == .openFailed)
    }

    @Test func truncatedBoxesAreRefused() throws {
        let box = try sealed()
        for cut in 1...(box.ciphertext.count - 16) {
            let truncated = try SealedBox(epk: box.epk, nonce: box.nonce, ciphertext: box.ciphertext.dropLast(cut))
            #expect(try openError(truncated) == .openFailed, "\(cut) bytes cut")
        }
        let headless = try SealedBox(epk: box.epk, nonce: box.nonce, ciphertext: box.ciphertext.dropFirst(1))
        #expect(try openError(headless) == .openFailed)
        // Shorter than the tag, or a short nonce or epk: not a box at all.
        #expect(throws: LedgerProtocolError.self) { try SealedBox(epk: box.epk, nonce: box.nonce, ciphertext: box.ciphertext.prefix(15)) }
        #expect(throws: LedgerProtocolError.self) { try SealedBox(epk: box.epk, nonce: box.nonce.prefix(11), ciphertext: box.ciphertext) }
        #expect(throws: LedgerProtocolError.self) { try SealedBox(epk: box.epk.prefix(31), nonce: box.nonce, ciphertext: box.ciphertext) }
    }

    // MARK: SealedBox JSON

    @Test func sealedBoxJSONRoundTrip() throws {
        let box = try sealed()
        let json = box.json
        #expect(Set(json.keys) == ["ciphertext", "nonce", "epk"])
        #expect(try SealedBox(json: json) == box)
        #expect(try SealedBox(json: JSONValue.parse(JSONValue.object(json).serialized()).objectValue) == box)
    }

    @Test func sealedBoxJSONShapeLimits() throws {
        let box = try sealed()
        let epk = Base64URL.encode(box.epk), nonce = Base64URL.encode(box.nonce)
        func refused(_ json: JSONObject?, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try SealedBox(json: json)
                Issue.record("accepted \(json.map { JSONValue.object($0).serializedString } ?? "nil")", sourceLocation: sourceLocation)
            } catch {
                guard case .malformed = error else {
                    Issue.record("wrong error \(error)", sourceLocation: sourceLocation)
                    return
                }
            }
        }
        let ciphertext = Base64URL.encode(box.ciphertext)
        refused(nil)
        refused([:])
        refused(["nonce": .string(nonce), "epk": .string(epk)])
        refused(["ciphertext": .string(ciphertext), "epk": .string(epk)])
        refused(["ciphertext": .string(ciphertext), "nonce": .string(nonce)])
        refused(["ciphertext": .integer(1), "nonce": .string(nonce), "epk": .string(epk)])
        refused(["ciphertext": .string(ciphertext), "nonce": .array([]), "epk": .string(epk)])
        refused(["ciphertext": .string(ciphertext), "nonce": .string(nonce), "epk": .null])
        // Not base64url: padding, the standard alphabet, white space.
        refused(["ciphertext": .string(ciphertext), "nonce": .string(nonce), "epk": .string(epk + "=")])
        // (A character of the standard alphabet put in: random bytes' standard encoding is not always different.)
        refused(["ciphertext": .string("+" + ciphertext.dropFirst()), "nonce": .string(nonce), "epk": .string(epk)])
        refused(["ciphertext": .string("/" + ciphertext.dropFirst()), "nonce": .string(nonce), "epk": .string(epk)])
        refused(["ciphertext": .string(ciphertext), "nonce": .string(" " + nonce), "epk": .string(epk)])
        // Wrong lengths.
        refused(["ciphertext": .string(ciphertext), "nonce": .string(nonce), "epk": .string(Base64URL.encode(box.epk + Data([0])))])
        refused(["ciphertext": .string(ciphertext), "nonce": .string(Base64URL.encode(box.nonce.prefix(11))), "epk": .string(epk)])
        refused(["ciphertext": .string(ciphertext), "nonce": .string(Base64URL.encode(box.nonce + Data([0]))), "epk": .string(epk)])
        refused(["ciphertext": .string(Base64URL.encode(Data(count: 15))), "nonce": .string(nonce), "epk": .string(epk)])
        refused(["ciphertext": .string(Base64URL.encode(Data(count: Seal.maxCiphertextBytes + 1))), "nonce": .string(nonce), "epk": .string(epk)])
        // The limits themselves are accepted.
        #expect((try? SealedBox(json: ["ciphertext": .string(Base64URL.encode(Data(count: 16))), "nonce": .string(nonce), "epk": .string(epk)])) != nil)
        #expect((try? SealedBox(json: ["ciphertext": .string(Base64URL.encode(Data(count: Seal.maxCiphertextBytes))), "nonce": .string(nonce), "epk": .string(epk)])) != nil)
        // Extra members are ignored.
        #expect(try SealedBox(json: box.json.merging(["cek_version": 3])) == box)
    }

    // MARK: LAT proof and device signature

    @Test func latProofKnownAnswer() throws {
        let lat = Data((0..<32).map { UInt8($0) })
        let proof = LATProof.make(lat: lat, userGUID: "user-1", clientNonce: "nonce-1", jti: "jti-1")
        #expect(proof.hex == "93cd439aff1c2f983e734703795559862913995c7b6b33b62ef444e08b0af324")
        #expect(LATProof.check(proof, lat: lat, userGUID: "user-1", clientNonce: "nonce-1", jti: "jti-1"))
        // Each input is bound; a proof of another length never matches.
        #expect(!LATProof.check(proof, lat: lat.flipping(bit: 0), userGUID: "user-1", clientNonce: "nonce-1", jti: "jti-1"))
        #expect(!LATProof.check(proof, lat: lat, userGUID: "user-2", clientNonce: "nonce-1", jti: "jti-1"))
        #expect(!LATProof.check(proof, lat: lat, userGUID: "user-1", clientNonce: "nonce-2", jti: "jti-1"))
        #expect(!LATProof.check(proof, lat: lat, userGUID: "user-1", clientNonce: "nonce-1", jti: "jti-2"))
        #expect(!LATProof.check(proof.flipping(bit: 100), lat: lat, userGUID: "user-1", clientNonce: "nonce-1", jti: "jti-1"))
        #expect(!LATProof.check(proof.dropLast(), lat: lat, userGUID: "user-1", clientNonce: "nonce-1", jti: "jti-1"))
        #expect(!LATProof.check(Data(), lat: lat, userGUID: "user-1", clientNonce: "nonce-1", jti: "jti-1"))
    }

    /// RFC 8032 §7.1 test 1's key; the message layout and the signature computed by Python `cryptography`.
    @Test func deviceSignatureKnownAnswer() throws {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: Hex.decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        #expect(key.publicKey.rawRepresentation.hex == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let body = Data(#"{"user_guid":"u"}"#.utf8)
        let message = DeviceSignature.message(method: "post", path: "/api/v1/action/request", timestamp: 1_700_000_000, nonce: "n-1", body: body)
        #expect(String(decoding: message, as: UTF8.self)
            == "POST|/api/v1/action/request|1700000000|n-1|0cd5d4fa0f30a6bf5eb4933c4e0bbc88a1498ba42f7e0aa9c569af70632ea78c")
        let headers = try DeviceSignature.headers(key: key, method: "POST", path: "/api/v1/action/request", timestamp: 1_700_000_000, nonce: "n-1", body: body)
        let expected = "990b076c68ab2a470d2ca5ac604ead2dc2c97d213774c749b46ccb78448f392c3ec19c757e15cf27863945f40245c25ad84718cd62dc51f2f56d096f73390b00"
        #expect(headers.map(\.name) == [DeviceSignature.signatureHeader, DeviceSignature.timestampHeader, DeviceSignature.nonceHeader])
        #expect(headers.first.map { (try? Base64URL.decode($0.value))?.hex } == expected)
        #expect(headers.dropFirst().map(\.value) == ["1700000000", "n-1"])
        let signature = try #require(headers.first?.value)
        func verify(method: String = "POST", path: String = "/api/v1/action/request", timestamp: Int64 = 1_700_000_000, nonce: String = "n-1", body: Data = body, signature: String = signature) -> Bool {
            DeviceSignature.verify(signature: signature, publicKey: key.publicKey, method: method, path: path, timestamp: timestamp, nonce: nonce, body: body)
        }
        #expect(verify())
        #expect(verify(method: "post"))  // the method is upper-cased on both sides
        #expect(!verify(method: "PUT"))
        #expect(!verify(path: "/api/v1/auth/execute"))
        #expect(!verify(timestamp: 1_700_000_001))
        #expect(!verify(nonce: "n-2"))
        #expect(!verify(body: body + Data(" ".utf8)))
        #expect(!verify(signature: signature + "A"))
        #expect(!verify(signature: "not base64url!"))
        #expect(!verify(signature: Base64URL.encode(try Data(hex: expected).flipping(bit: 3))))
        #expect(!DeviceSignature.verify(
            signature: signature, publicKey: Curve25519.Signing.PrivateKey().publicKey, method: "POST", path: "/api/v1/action/request",
            timestamp: 1_700_000_000, nonce: "n-1", body: body))
    }

    // MARK: KDF parameters

    @Test func kdfParametersRoundTripAndKnownAnswer() throws {
        let defaults = KDFParameters(salt: Data("tessera-salt-016".utf8))
        #expect(JSONValue.object(defaults.json).serializedString
            == #"{"alg":"argon2id","v":19,"salt":"dGVzc2VyYS1zYWx0LTAxNg","m":65536,"t":3,"p":4,"len":32}"#)
        #expect(try KDFParameters(json: defaults.json) == defaults)
        // argon2-cffi: hash_secret_raw(b"correct horse battery staple", b"tessera-salt-016", t=2, m=256, p=2, 32, ID, 19).
        let small = KDFParameters(salt: Data("tessera-salt-016".utf8), memoryKiB: 256, iterations: 2, parallelism: 2, length: 32)
        #expect(try small.hash(password: "correct horse battery staple").hex == "e9bb8086e46a692ef48dac20f672b35d2b035029ea8a7ccc8a94383a95615a21")
    }

    /// A ledger picks the costs the device runs: anything outside the accepted ranges, another algorithm or version,
    /// or a number that is not a JSON integer is refused before Argon2 starts.
    @Test func kdfParametersRefuseHostileOrMalformedJSON() throws {
        let base = KDFParameters(salt: Data(count: 16)).json
        func refused(_ changes: JSONObject, removing: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
            var json = base.merging(changes)
            if let removing { json[removing] = nil }
            do {
                _ = try KDFParameters(json: json)
                Issue.record("accepted \(JSONValue.object(json).serializedString)", sourceLocation: sourceLocation)
            } catch {
                guard case .malformed = error else {
                    Issue.record("wrong error \(error)", sourceLocation: sourceLocation)
                    return
                }
            }
        }
        #expect(throws: LedgerProtocolError.self) { try KDFParameters(json: nil) }
        for member in ["alg", "v", "salt", "m", "t", "p", "len"] { refused([:], removing: member) }
        refused(["alg": "argon2i"])
        refused(["alg": "argon2d"])
        refused(["alg": "ARGON2ID"])
        refused(["v": 16])
        refused(["v": "19"])
        refused(["salt": .string(Base64URL.encode(Data(count: 15)))])
        refused(["salt": .string(Base64URL.encode(Data(count: 65)))])
        refused(["salt": .string(Data(count: 16).base64EncodedString())])
        refused(["salt": .integer(0)])
        // Memory: at least 8·p KiB, at most 4 GiB.
        refused(["m": 31, "p": 4])
        refused(["m": 4_194_305])
        refused(["m": .integer(1 << 40)])
        refused(["m": .integer(Int64.max)])
        refused(["m": -1])
        refused(["m": 65536.0])
        refused(["m": "65536"])
        // Passes, lanes, tag length.
        refused(["t": 0])
        refused(["t": 17])
        refused(["t": .integer(Int64.min)])
        refused(["p": 0])
        refused(["p": 17])
        refused(["p": .integer(Int64.max)])
        refused(["len": 15])
        refused(["len": 65])
        refused(["len": .integer(1 << 32)])
        refused(["len": 3.2e1])
        // The bounds themselves are accepted, with their values kept.
        for accepted: JSONObject in [
            ["m": 8, "p": 1, "t": 1, "len": 16], ["m": 128, "p": 16, "t": 16, "len": 64], ["m": 4_194_304],
            ["salt": .string(Base64URL.encode(Data(count: 64)))],
        ] {
            let json = base.merging(accepted)
            let kdf = try KDFParameters(json: json)
            #expect(kdf.json == json)
        }
    }

    /// The device applies those limits to what a ledger sends: an enrollment whose KDF asks for 4 GiB + 1 KiB, 17
    /// lanes or another algorithm stops before Argon2 runs and before anything else is sent.
    @Test(arguments: [["m": .integer(4_194_305)], ["p": 17, "m": 1024], ["alg": "argon2i"], ["t": 1_000_000]] as [JSONObject])
    func aHostileLedgersKDFStopsTheDevice(hostile: JSONObject) async throws {
        let key = Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation
        let answer: JSONObject = [
            "enrollment_session": "s", "user_guid": "u", "password_key_id": "k",
            "transaction_keys": [["key_id": "k", "public_key": .string(Base64URL.encode(key))]],
            "kdf": .object(KDFParameters(salt: Data(count: 16)).json.merging(hostile)),
        ]
        let ledger = ScriptedLedger(status: 201, body: answer.serialized())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-hostile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = VaultClient(store: VaultStateStore(directory: directory), http: ledger)
        do {
            _ = try await client.enroll(ledger: "http://ledger.invalid", invitation: "i", password: "p", deviceID: "d", deviceType: "t")
            Issue.record("a hostile KDF was accepted")
        } catch {
            guard case .invalidResponse = error else {
                Issue.record("wrong error \(error)")
                return
            }
        }
        #expect(ledger.paths == ["/api/v1/enroll/start"])
        #expect(!FileManager.default.fileExists(atPath: client.store.file.path))
    }
}

/// A ledger that answers every request with the same status and body, and records the paths asked.
final class ScriptedLedger: HTTPClient {
    let status: Int
    let body: Data
    private let asked = Mutex<[String]>([])
    init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
    var paths: [String] { asked.withLock { $0 } }
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        asked.withLock { $0.append(request.url.path) }
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }
}

/// Hands out the given chunks in order (one per `bytes` call) to pin a Seal's ephemeral key and nonce.
final class ScriptedRandom: RandomSource {
    private let chunks: Mutex<[Data]>
    init(_ chunks: [Data]) { self.chunks = Mutex(chunks) }
    func bytes(_ count: Int) -> Data {
        chunks.withLock { chunks in
            guard let next = chunks.first, next.count == count else {
                Issue.record("ScriptedRandom: \(count) bytes asked, \(chunks.first?.count ?? 0) scripted")
                return Data(count: count)
            }
            chunks.removeFirst()
            return next
        }
    }
}

extension Data {
    /// A copy with bit `bit` (0 = least significant bit of the first byte) inverted.
    func flipping(bit: Int) -> Data {
        var copy = Data(self)
        copy[bit / 8] ^= UInt8(1 << (bit % 8))
        return copy
    }
}

extension JSONObject {
    func merging(_ other: JSONObject) -> JSONObject {
        var copy = self
        for (key, value) in other { copy[key] = value }
        return copy
    }
}
