import Crypto
import Foundation
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import Testing
import TokenStatusList
import X509

@Suite("Status List Token, CWT form (TSL §5.2)")
struct StatusListCWTTests {
    /// TSL §5.2's example (examples/status_list_cwt.md), signed by the draft's key "12".
    static let draftExample =
        "d2845820a2012610781a6170706c69636174696f6e2f7374617475736c6973742b637774a1044231325850a502782168747470733a2f2f6578616d706c652e636f6d2f7374617475736c697374732f31061a648c5bea041a8898dfea19fffe19a8c019fffda2646269747301636c73744a78dadbb918000217015d584093fa4d01032b18c35e2fe1101b77fd6cc9440022caa4694450c4e4e9feab4e99d1fa6d9772ce2bf3a12e0323ded7c982c5e101a5e67f0cbc1e2b6f57ce99c279"
    static let draftProtected = "a2012610781a6170706c69636174696f6e2f7374617475736c6973742b637774"
    static let draftPayload =
        "a502782168747470733a2f2f6578616d706c652e636f6d2f7374617475736c697374732f31061a648c5bea041a8898dfea19fffe19a8c019fffda2646269747301636c73744a78dadbb918000217015d"
    static let subject = "https://example.com/statuslists/1"

    static var draftKey: COSEVerificationKey { get throws { .p256(try DraftKey.p256) } }

    @Test("the draft's example parses and verifies with its key; its bytes are kept")
    func draftExample() throws {
        let bytes = try Data(hex: Self.draftExample)
        let token = try StatusListCWT(bytes: bytes)
        #expect(token.bytes == bytes)
        #expect(token.subject == Self.subject)
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_686_920_170))
        #expect(token.expiresAt == Date(timeIntervalSince1970: 2_291_720_170))
        #expect(token.timeToLive == 43200)
        #expect(token.statusList.bytes == [0xB9, 0xA3])
        #expect(token.message.unprotected.keyID == Data("12".utf8))
        #expect(token.message.protected.rawBytes == (try Data(hex: Self.draftProtected)))
        try token.verifySignature(with: Self.draftKey)
        try token.validate(fetchedFrom: Self.subject, at: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(statusListError { try token.validate(fetchedFrom: "https://example.com/statuslists/2", at: Date(timeIntervalSince1970: 1_800_000_000)) } == .subjectMismatch)
        #expect(statusListError { try token.validate(fetchedFrom: Self.subject, at: Date(timeIntervalSince1970: 2_291_720_171)) } == .expired)
    }

    @Test("issued with the example's claims and kid: the example's protected header, claim order and claims")
    func issueLikeTheDraft() throws {
        let example = try StatusListCWT(bytes: Data(hex: Self.draftExample))
        let key = COSESigningKey.p256(try TestIssuer().key)
        let issued = try StatusListCWT.issue(example.claims, key: key, keyID: Data("12".utf8))
        #expect(issued.message.protected.rawBytes == (try Data(hex: Self.draftProtected)))
        #expect(issued.message.unprotected.keyID == Data("12".utf8))
        #expect(issued.bytes.first == 0xD2)  // tag 18, no tag 61
        let payload = try CBOR.decode(issued.message.payload ?? Data())
        #expect(payload.mapValue?.keys == [2, 6, 4, 65534, 65533])
        #expect(payload[65533]?.mapValue?.keys == ["bits", "lst"])
        let parsed = try StatusListCWT(bytes: issued.bytes)
        #expect(parsed.claims == example.claims)
        try parsed.verifySignature(with: .p256(try TestIssuer().key.publicKey))
        let draftPayload = try Data(hex: Self.draftPayload)
        // Only classic zlib (this project's Debian and Apple targets) reproduces the draft's compressed `lst` exactly;
        // with any zlib the parsed claims above are the example's.
        if Zlib.isClassic { #expect(issued.message.payload == draftPayload) }
    }

    @Test("issue → parse → verify with x5chain against the root, at 1, 2, 4 and 8 bits", arguments: [1, 2, 4, 8])
    func roundTripWithX5Chain(_ bits: Int) async throws {
        let issuer = try TestIssuer()
        let status = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        let list = try StatusList(bits: bits, count: 100_000, setting: [0, 31_337, 99_999], to: status,
            aggregationURI: "https://wallet-provider.example.org/status/aggregation")
        let issued = try StatusListCWT.issue(
            list, subject: TestIssuer.uri, issuedAt: TestIssuer.now, expiresAt: TestIssuer.now.addingTimeInterval(86_400),
            timeToLive: 43_200, key: .p256(issuer.key), x5chain: issuer.chain)
        #expect(issued.message.protected.headers.x5chain == issuer.chain)
        #expect(issued.message.protected.headers.labels == [.algorithm, 16, .x5chain])
        let parsed = try StatusListCWT(bytes: issued.bytes)
        #expect(parsed.claims == issued.claims)
        #expect(parsed.statusList == list)
        let leaf = try await parsed.verifySignature(trustAnchors: [issuer.root], at: TestIssuer.now)
        #expect(try leaf == Certificate(derEncoded: Array(issuer.chain[0])))
        try parsed.validate(fetchedFrom: TestIssuer.uri, at: TestIssuer.now.addingTimeInterval(3600))
        #expect(statusListError { try parsed.validate(fetchedFrom: TestIssuer.uri, at: TestIssuer.now.addingTimeInterval(86_401)) } == .expired)
        #expect(statusListError { try parsed.validate(fetchedFrom: TestIssuer.uri + "/", at: TestIssuer.now) } == .subjectMismatch)
        #expect(try parsed.statusList.status(at: 31_337) == status)
        let stranger = try TestIssuer(seed: 99)
        guard case .certificateChainInvalid? = await asyncStatusListError({
            _ = try await parsed.verifySignature(trustAnchors: [stranger.root], at: TestIssuer.now)
        }) else { Issue.record("a foreign root was accepted"); return }
        let bare = try StatusListCWT.issue(list, subject: TestIssuer.uri, issuedAt: TestIssuer.now, key: .p256(issuer.key))
        #expect(await asyncStatusListError { _ = try await bare.verifySignature(trustAnchors: [issuer.root], at: TestIssuer.now) }
            == .certificateChainInvalid(["no x5chain header"]))
    }

    /// The same message with one part replaced, tagged 18.
    static func rebuilt(
        _ message: COSESign1, protected: COSEProtectedHeader? = nil, unprotected: COSEHeaders? = nil,
        payload: Data? = nil, signature: Data? = nil
    ) throws -> Data {
        try COSESign1(
            protected: protected ?? message.protected, unprotected: unprotected ?? message.unprotected,
            payload: payload ?? message.payload, signature: signature ?? message.signature
        ).encoded(tagged: true)
    }

    @Test("tampering with the protected header, the payload or the signature breaks the signature; kid is not signed")
    func tampering() async throws {
        let issuer = try TestIssuer()
        let token = try StatusListCWT.issue(
            try StatusList(bits: 1, count: 64, setting: [7]), subject: TestIssuer.uri, issuedAt: TestIssuer.now,
            key: .p256(issuer.key), keyID: Data("k1".utf8), x5chain: issuer.chain)
        let message = token.message
        // The same protected map encoded in another key order: what is signed is the bytes, never a re-encoding.
        var reordered = CBORMap()
        for entry in message.protected.headers.map.entries.reversed() { reordered.append(key: entry.key, value: entry.value) }
        let protected = try COSEProtectedHeader(rawBytes: CBOR.map(reordered).encoded(options: .preserving))
        #expect(protected.rawBytes != message.protected.rawBytes)
        var payload = Array(message.payload ?? Data())
        payload[payload.count - 1] ^= 1  // inside lst's Adler-32: still parses only if the lst is not checked first
        let unrevoked = CBOR.map(CBORMap([
            .init(key: 2, value: .text(TestIssuer.uri)), .init(key: 6, value: .int(Int64(TestIssuer.now.timeIntervalSince1970))),
            .init(key: 65533, value: try StatusList(bits: 1, count: 64).cbor()),
        ])).encoded(options: .preserving)
        var signature = message.signature
        signature[signature.startIndex + 5] ^= 0x80
        for forged in [
            try Self.rebuilt(message, protected: protected),
            try Self.rebuilt(message, payload: unrevoked),
            try Self.rebuilt(message, signature: signature),
        ] {
            let parsed = try StatusListCWT(bytes: forged)
            guard case .signatureInvalid? = await asyncStatusListError({
                _ = try await parsed.verifySignature(trustAnchors: [issuer.root], at: TestIssuer.now)
            }) else { Issue.record("a tampered token verified"); continue }
            guard case .signatureInvalid? = statusListError({ try parsed.verifySignature(with: .p256(issuer.key.publicKey)) }) else {
                Issue.record("a tampered token verified with the key"); continue
            }
        }
        // A changed Adler-32 is caught when inflating, before any signature.
        guard case .invalidCompression? = statusListError({ _ = try StatusListCWT(bytes: Self.rebuilt(message, payload: Data(payload))) }) else {
            Issue.record("a broken lst parsed"); return
        }
        // The unprotected bucket is outside the signature (RFC 9052 §3): another kid still verifies.
        let rekeyed = try StatusListCWT(bytes: Self.rebuilt(message, unprotected: COSEHeaders(keyID: Data("k2".utf8))))
        _ = try await rekeyed.verifySignature(trustAnchors: [issuer.root], at: TestIssuer.now)
    }

    @Test("a token signed over a protected header in non-deterministic order verifies over the bytes received")
    func receivedBytesAreSigned() throws {
        let issuer = try TestIssuer()
        // {16: typ, 1: -7}: valid CBOR, not the deterministic order Tessera writes.
        var map = CBORMap()
        map.append(key: 16, value: .text(StatusListCWT.type))
        map.append(key: 1, value: .int(-7))
        let protected = try COSEProtectedHeader(rawBytes: CBOR.map(map).encoded(options: .preserving))
        let payload = try Self.claimsMap()
        let toBeSigned = try COSESign1(protected: protected, payload: payload, signature: Data()).toBeSigned()
        let signature = try COSESigningKey.p256(issuer.key).sign(toBeSigned)
        let bytes = try COSESign1(protected: protected, payload: payload, signature: signature).encoded(tagged: true)
        let token = try StatusListCWT(bytes: bytes)
        #expect(token.message.protected.rawBytes == protected.rawBytes)
        try token.verifySignature(with: .p256(issuer.key.publicKey))
    }

    /// A claims map (the example's claims by default), with entries replaced or removed.
    static func claimsMap(_ changes: [(UInt64, CBOR?)] = []) throws -> Data {
        var map = CBORMap([
            .init(key: 2, value: .text(subject)), .init(key: 6, value: 1_686_920_170), .init(key: 4, value: 2_291_720_170),
            .init(key: 65534, value: 43200),
            .init(key: 65533, value: ["bits": 1, "lst": .bytes(try Data(hex: "78dadbb918000217015d"))]),
        ])
        for (key, value) in changes { map[.unsigned(key)] = value }
        return CBOR.map(map).encoded(options: .preserving)
    }

    /// A tagged COSE_Sign1 over `payload` with the given protected headers (typ by default), by a test key.
    static func signed(_ payload: Data, protected: COSEHeaders? = nil, unprotected: COSEHeaders = COSEHeaders()) throws -> Data {
        var headers = COSEHeaders()
        try headers.set(.text(StatusListCWT.type), for: 16)
        return try COSESign1.sign(
            payload: payload, with: .p256(try TestIssuer().key), protected: protected ?? headers, unprotected: unprotected
        ).encoded(tagged: true)
    }

    static let badClaims: [([(UInt64, CBOR?)], StatusListError)] = [
        ([(2, nil)], .missingClaim("sub")),
        ([(2, .bytes(Data("x".utf8)))], .invalidClaim(name: "sub", reason: "is not a text string")),
        ([(6, nil)], .missingClaim("iat")),
        ([(6, .tagged(1, 1_686_920_170))], .invalidClaim(name: "iat", reason: "is not a NumericDate")),
        ([(4, "tomorrow")], .invalidClaim(name: "exp", reason: "is not a NumericDate")),
        ([(65534, 0)], .invalidClaim(name: "ttl", reason: "is not a positive integer")),
        ([(65534, .int(-5))], .invalidClaim(name: "ttl", reason: "is not a positive integer")),
        ([(65534, 1.5)], .invalidClaim(name: "ttl", reason: "is not a positive integer")),
        ([(65533, nil)], .missingClaim("status_list")),
        ([(65533, ["bits": 1, "lst": "eNrbuRgAAhcBXQ"])], .malformedStatusList("lst missing or not a byte string")),
    ]

    @Test("claims: sub, iat, status_list required; NumericDates untagged; ttl a positive unsigned integer", arguments: badClaims)
    func badClaim(_ changes: [(UInt64, CBOR?)], _ error: StatusListError) throws {
        let bytes = try Self.signed(Self.claimsMap(changes))
        #expect(statusListError { _ = try StatusListCWT(bytes: bytes) } == error)
    }

    @Test("a NumericDate may be a float (RFC 8392 §2)")
    func floatDates() throws {
        let token = try StatusListCWT(bytes: Self.signed(Self.claimsMap([(6, 1_686_920_170.5)])))
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_686_920_170.5))
        #expect(statusListError { _ = try StatusListCWT(bytes: Self.signed(Self.claimsMap([(4, .double(.infinity))]))) }
            == .invalidClaim(name: "exp", reason: "is not a NumericDate"))
    }

    @Test("the envelope: tag 18 only (not 61, not 17, not untagged), typ protected, payload attached and a map")
    func envelope() throws {
        let good = try Self.signed(Self.claimsMap())
        _ = try StatusListCWT(bytes: good)
        let message = try COSESign1(bytes: good)
        let inner = try CBOR.decode(good)
        let cases: [(Data, (StatusListError) -> Bool)] = [
            (CBOR.tagged(61, inner).encoded(), { if case .malformedToken(let r) = $0 { r.contains("61") } else { false } }),
            (message.encoded(tagged: false), { $0 == .malformedToken("not a COSE_Sign1 tagged 18") }),
            (CBOR.tagged(17, message.cbor(tagged: false)).encoded(), { if case .malformedToken(let r) = $0 { r.contains("COSE_Mac0") } else { false } }),
            (Data([0xD2, 0x84, 0x40]), { if case .malformedToken(let r) = $0 { r.hasPrefix("not CBOR") } else { false } }),
            (try Self.signed(Self.claimsMap(), protected: COSEHeaders()), { $0 == .wrongType(nil) }),
            (try Self.signed(Self.claimsMap(), protected: try Self.typed("application/statuslist+jwt")), { $0 == .wrongType("application/statuslist+jwt") }),
            (try Self.signed(Self.claimsMap(), protected: try Self.typed(.unsigned(60000))), { $0 == .wrongType("integer") }),
            (try Self.signed(Self.claimsMap(), protected: COSEHeaders(), unprotected: try Self.typed(.text(StatusListCWT.type))), { $0 == .wrongType(nil) }),
            (try Self.signed(CBOR.array([]).encoded()), { $0 == .malformedToken("payload is not a claims map") }),
            (try Self.rebuilt(message, payload: Data([0xFF])), { if case .malformedToken(let r) = $0 { r.hasPrefix("payload is not CBOR") } else { false } }),
        ]
        for (bytes, expected) in cases {
            let found = statusListError { _ = try StatusListCWT(bytes: bytes) }
            #expect(found.map(expected) == true, "\(String(describing: found))")
        }
        // Detached payload.
        let detached = try COSESign1(protected: message.protected, unprotected: message.unprotected, payload: nil, signature: message.signature)
        #expect(statusListError { _ = try StatusListCWT(bytes: detached.encoded(tagged: true)) } == .malformedToken("the payload is detached"))
        // Case does not matter in a media type.
        _ = try StatusListCWT(bytes: Self.signed(Self.claimsMap(), protected: try Self.typed("Application/StatusList+CWT")))
        // Size limit.
        let limits = StatusListLimits(maxListBytes: 1 << 16, maxTokenBytes: 64)
        #expect(statusListError { _ = try StatusListCWT(bytes: good, limits: limits) } == .tokenTooLarge(length: good.count, limit: 64))
    }

    static func typed(_ value: CBOR) throws -> COSEHeaders {
        var headers = COSEHeaders()
        try headers.set(value, for: 16)
        return headers
    }

    @Test("issuing refuses a ttl that is not positive and an exp not after iat")
    func issuingRules() throws {
        let key = COSESigningKey.p256(try TestIssuer().key)
        let list = try StatusList(bits: 1, count: 8)
        #expect(statusListError { _ = try StatusListCWT.issue(list, subject: TestIssuer.uri, issuedAt: TestIssuer.now, timeToLive: -1, key: key) }
            == .invalidClaim(name: "ttl", reason: "is not a positive integer"))
        #expect(statusListError { _ = try StatusListCWT.issue(list, subject: TestIssuer.uri, issuedAt: TestIssuer.now, expiresAt: TestIssuer.now.addingTimeInterval(-1), key: key) }
            == .invalidClaim(name: "exp", reason: "is not after iat"))
    }
}
