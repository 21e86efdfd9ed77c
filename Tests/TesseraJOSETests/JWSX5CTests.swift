import Crypto
import Foundation
import TesseraCore
import TesseraTrust
import Testing
import X509

@testable import TesseraJOSE
import TesseraTrustTesting

@Suite("JWS x5c header validated through TesseraTrust")
struct JWSX5CTests {
    static let instant = Date(timeIntervalSince1970: 1_900_000_000)  // 2030-03-17

    struct PKI {
        let root: IssuedCertificate
        let intermediate: IssuedCertificate
        let leaf: IssuedCertificate
        let leafKey: JWSSigningKey

        init(seed: UInt64, rootName: String = "JOSE Root", leafKeyUsage: KeyUsage? = nil) throws {
            var random = SeededRandomSource(seed: seed).generator
            let from = JWSX5CTests.instant.addingTimeInterval(-86_400)
            let until = JWSX5CTests.instant.addingTimeInterval(86_400 * 30)
            root = try X5CTestPKI.issueRoot(.init(commonName: rootName, notBefore: from, notAfter: until), random: &random)
            intermediate = try X5CTestPKI.issue(
                .init(commonName: "JOSE CA", isCertificateAuthority: true, notBefore: from, notAfter: until), by: root, random: &random)
            leaf = try X5CTestPKI.issue(
                .init(commonName: "issuer.example.com", keyUsage: leafKeyUsage, notBefore: from, notAfter: until),
                by: intermediate, random: &random)
            guard case .p256(let key) = leaf.privateKey else { throw JOSEError.unsupportedCertificateKey }
            leafKey = .es256(key)
        }

        func x5c(includeRoot: Bool = false) throws -> JSONValue {
            let certificates = [leaf, intermediate] + (includeRoot ? [root] : [])
            return .array(try certificates.map { .string(try $0.derEncoded().base64EncodedString()) })
        }

        func signed(x5c: JSONValue?, key: JWSSigningKey? = nil) throws -> CompactJWS {
            var header: JSONObject = ["typ": "dc+sd-jwt"]
            if let x5c { header["x5c"] = x5c }
            let jws = try CompactJWS.sign(header: header, payload: Data(#"{"iss":"https://issuer.example.com"}"#.utf8), key: key ?? leafKey)
            return try CompactJWS(parsing: jws.compact)
        }
    }

    @Test("a valid chain: the leaf is returned and the signature verified with its key")
    func valid() async throws {
        let pki = try PKI(seed: 1)
        let jws = try pki.signed(x5c: try pki.x5c())
        let leaf = try await jws.verifyX5C(anchors: [pki.root.certificate], at: Self.instant)
        #expect(leaf == pki.leaf.certificate)
        #expect(try jws.x5cCertificates().count == 2)
        let withRoot = try pki.signed(x5c: try pki.x5c(includeRoot: true))
        #expect(try await withRoot.verifyX5C(anchors: [pki.root.certificate], at: Self.instant) == pki.leaf.certificate)
    }

    @Test("no x5c header") func missing() async throws {
        let pki = try PKI(seed: 1)
        let jws = try pki.signed(x5c: nil)
        #expect(await joseError { _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: Self.instant) } == .invalidX5C("no x5c header"))
    }

    @Test("x5c malformed", arguments: [
        (JSONValue.array([]), "empty array"), (.array([1]), "entry 0 is not a string"), (.array(["MII-_"]), "entry 0 is not base64"),
    ])
    func malformed(_ x5c: JSONValue, _ reason: String) async throws {
        let pki = try PKI(seed: 1)
        let jws = try pki.signed(x5c: x5c)
        #expect(await joseError { _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: Self.instant) } == .invalidX5C(reason))
    }

    @Test("more certificates than the limit") func tooMany() throws {
        let pki = try PKI(seed: 1)
        let one = try pki.leaf.derEncoded().base64EncodedString()
        let jws = try pki.signed(x5c: .array(Array(repeating: .string(one), count: 11)))
        #expect(joseError { _ = try jws.x5cCertificates() } == .invalidX5C("11 certificates, at most 10 accepted"))
        // The limit the JWS was parsed with applies.
        let strict = JOSELimits(maxCompactLength: 1 << 20, json: .default, maxX5CCertificates: 1)
        let two = try CompactJWS(parsing: try pki.signed(x5c: try pki.x5c()).compact, limits: strict)
        #expect(joseError { _ = try two.x5cCertificates() } == .invalidX5C("2 certificates, at most 1 accepted"))
    }

    @Test("a chain to another root") func untrusted() async throws {
        let pki = try PKI(seed: 1)
        let other = try PKI(seed: 2, rootName: "Other Root")
        let jws = try pki.signed(x5c: try pki.x5c())
        let error = await joseError { _ = try await jws.verifyX5C(anchors: [other.root.certificate], at: Self.instant) }
        let expected = TrustError.untrustedRoot(issuer: pki.intermediate.certificate.issuer.description).description
        #expect(error == .x5cChainInvalid([expected]))
    }

    @Test("an expired chain") func expired() async throws {
        let pki = try PKI(seed: 1)
        let jws = try pki.signed(x5c: try pki.x5c())
        let error = await joseError { _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: Self.instant.addingTimeInterval(86_400 * 60)) }
        guard case .x5cChainInvalid(let failures) = error else {
            Issue.record("expected x5cChainInvalid, got \(String(describing: error))")
            return
        }
        #expect(failures.count == 3)
        #expect(failures.allSatisfy { $0.contains("expired") })
    }

    @Test("a leaf certificate not allowed to sign") func leafKeyUsage() async throws {
        let pki = try PKI(seed: 1, leafKeyUsage: KeyUsage(keyAgreement: true))
        let jws = try pki.signed(x5c: try pki.x5c())
        let error = await joseError { _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: Self.instant) }
        guard case .x5cChainInvalid(let failures) = error else {
            Issue.record("expected x5cChainInvalid, got \(String(describing: error))")
            return
        }
        #expect(failures.count == 1)
        #expect(failures.first?.contains("digitalSignature") == true)
    }

    @Test("a valid chain, but the JWS signed by another key") func wrongSigner() async throws {
        let pki = try PKI(seed: 1)
        let jws = try pki.signed(x5c: try pki.x5c(), key: .es256(P256.Signing.PrivateKey()))
        #expect(await joseError { _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: Self.instant) } == .invalidSignature)
    }

    @Test("the header alg must match the leaf key type") func algMismatch() async throws {
        let pki = try PKI(seed: 1)
        let jws = try pki.signed(x5c: try pki.x5c(), key: .es384(P384.Signing.PrivateKey()))
        #expect(await joseError { _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: Self.instant) } == .algorithmKeyMismatch)
    }
}
