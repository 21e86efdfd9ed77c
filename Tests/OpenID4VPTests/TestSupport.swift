import Crypto
import Foundation
import MDoc
import SDJWT
import Synchronization
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraJOSE
import TesseraTrust
import Testing
import X509
import TesseraHTTP

@testable import OpenID4VP
@_exported import TesseraTestSupport
import TesseraTrustTesting

enum Fixtures {
    static func data(_ name: String) throws -> Data { try Data(contentsOf: fixtureURL(name, in: .module)) }

    static func json(_ name: String) throws -> JSONValue { try JSONValue.parse(data(name)) }

    static func object(_ name: String) throws -> JSONObject {
        guard let object = try json(name).objectValue else { throw TestFailure("\(name) is not an object") }
        return object
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    func at(_ keys: String...) throws -> JSONValue {
        var value = self
        for key in keys {
            guard let next = value[key] else { throw TestFailure("member \(key) missing") }
            value = next
        }
        return value
    }

    func text(_ keys: String...) throws -> String {
        var value = self
        for key in keys {
            guard let next = value[key] else { throw TestFailure("member \(key) missing") }
            value = next
        }
        guard let text = value.stringValue else { throw TestFailure("\(keys) is not a string") }
        return text
    }
}

/// Expects `body` to throw exactly `expected`.
func expectError<T>(
    _ expected: OpenID4VPError, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected \(expected), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as OpenID4VPError {
        #expect(error == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Expects `body` to throw an error matching `predicate`.
func expectError<T>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T,
    matching predicate: (OpenID4VPError) -> Bool
) async {
    do {
        _ = try await body()
        Issue.record("expected an error, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as OpenID4VPError {
        #expect(predicate(error), "unexpected error \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}

/// An in-process verifier: answers the wallet's requests from a routing closure and records them.
final class FakeHTTPClient: HTTPClient {
    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    private let handler: Handler
    private let log = Mutex<[HTTPRequest]>([])

    init(_ handler: @escaping Handler) { self.handler = handler }

    /// Answers nothing: for flows that must not touch the network.
    static let offline = FakeHTTPClient { _ in HTTPResponse(status: 599) }

    var requests: [HTTPRequest] { log.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        log.withLock { $0.append(request) }
        return handler(request)
    }

    static func jwt(_ body: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/oauth-authz-req+jwt")], body: Data(body.utf8))
    }

    static func json(_ object: JSONObject, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: object.serialized())
    }
}

extension HTTPRequest {
    /// The form-encoded body as parameters.
    func formParameters() throws -> [String: String] {
        guard let body, let text = String(data: body, encoding: .utf8) else { throw TestFailure("no form body") }
        return Dictionary(uniqueKeysWithValues: try FormURLEncoding.decode(text).map { ($0.name, $0.value) })
    }
}

/// Pinned time and seeded randomness for the holder flow.
enum TestClock {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
}

/// A verifier PKI for the x509 prefixes: a root (the wallet's anchor) and request-signing leaves.
struct VerifierPKI {
    let root: IssuedCertificate
    let random: SeededRandomSource

    init(seed: UInt64 = 7) throws {
        random = SeededRandomSource(seed: seed)
        var generator = random.generator
        root = try X5CTestPKI.issueRoot(
            X5CCertificateRequest(
                commonName: "Tessera Verifier Root", organization: "Tessera Trust",
                notBefore: TestClock.now.addingTimeInterval(-86_400 * 30), notAfter: TestClock.now.addingTimeInterval(86_400 * 365)),
            random: &generator)
    }

    func leaf(dnsNames: [String], organization: String? = "Example Verifier", by issuer: IssuedCertificate? = nil) throws -> IssuedCertificate {
        var generator = random.generator
        return try X5CTestPKI.issue(
            X5CCertificateRequest(
                commonName: "verifier", organization: organization, subjectAlternativeNames: dnsNames.map { .dnsName($0) },
                notBefore: TestClock.now.addingTimeInterval(-86_400), notAfter: TestClock.now.addingTimeInterval(86_400 * 90)),
            by: issuer ?? root, random: &generator)
    }

    var anchors: [Certificate] { [root.certificate] }
}

extension IssuedCertificate {
    /// The certificate's key as a JOSE signing key.
    func jwsKey() throws -> JWSSigningKey { try JWSSigningKey(pem: privateKeyPEM) }
}

/// A test mdoc issuer and holder, as in MDocTests.
struct TestMDocWorld {
    let iaca: IACAIssuer
    let documentSigner: IssuedCertificate
    let issuer: MDocIssuer
    let deviceKey: SoftwareDeviceKey

    init(seed: UInt64 = 3) throws {
        let random = SeededRandomSource(seed: seed)
        var generator = random.generator
        iaca = try IACAIssuer.create(
            IACARootRequest(country: "DE", commonName: "Tessera Test IACA", issuerAlternativeName: .rfc822Name("iaca@example.com")),
            now: TestClock.now.addingTimeInterval(-86_400), random: &generator)
        documentSigner = try iaca.issueDocumentSigner(
            DocumentSignerRequest(commonName: "Tessera Test DS"), now: TestClock.now.addingTimeInterval(-3_600), random: &generator)
        guard case .p256(let dsKey) = documentSigner.privateKey else { throw TestFailure("DS key is not P-256") }
        issuer = MDocIssuer(
            documentSignerKey: .p256(dsKey), certificateChain: [try documentSigner.derEncoded()],
            clock: FixedClock(TestClock.now), random: random)
        deviceKey = SoftwareDeviceKey(try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32)))
    }

    static let mdlClaims: [String: [String: CBOR]] = [
        MDL.namespace: [
            "family_name": "Doe", "given_name": "Jane", "birth_date": .tagged(1004, "1990-05-17"),
            "issue_date": .tagged(1004, "2024-01-01"), "expiry_date": .tagged(1004, "2029-01-01"),
            "issuing_country": "DE", "issuing_authority": "Tessera", "document_number": "T1234567",
            "portrait": .bytes(Data([0xff, 0xd8, 0xff, 0xe0])), "age_over_18": true, "age_over_21": false,
            "un_distinguishing_sign": "D", "resident_address": "Main Street 1", "resident_country": "DE",
            "driving_privileges": [["vehicle_category_code": "B", "issue_date": .tagged(1004, "2024-01-01")]],
        ]
    ]

    func credential(id: String = "mdl-1", docType: String = MDL.docType, claims: [String: [String: CBOR]] = mdlClaims) throws -> WalletCredential {
        let issuerSigned = try issuer.issue(
            docType: docType, nameSpaces: claims, deviceKey: deviceKey.publicKey, validUntil: TestClock.now.addingTimeInterval(30 * 86_400))
        return .mdoc(MDocCredential(id: id, stored: StoredCredential(docType: docType, issuerSigned: issuerSigned, deviceKey: deviceKey)))
    }

    var verifier: MDocVerifier { MDocVerifier(trustAnchors: iaca.trustAnchors) }
}

/// A test SD-JWT VC issuer (x5c chain under its own root) and a holder key.
struct TestSDJWTWorld {
    let pki: VerifierPKI
    let issuerCertificate: IssuedCertificate
    let issuer: SDJWTIssuer
    let issuerChain: [Data]
    let holderKey: SoftwareDeviceKey

    init(seed: UInt64 = 21) throws {
        pki = try VerifierPKI(seed: seed)
        issuerCertificate = try pki.leaf(dnsNames: ["issuer.example.com"], organization: "Example Issuer")
        issuerChain = [try issuerCertificate.derEncoded()]
        issuer = try SDJWTIssuer(
            signingKey: try issuerCertificate.jwsKey(), clock: FixedClock(TestClock.now.addingTimeInterval(-86_400)),
            random: SeededRandomSource(seed: seed + 1))
        holderKey = SoftwareDeviceKey(try P256.Signing.PrivateKey(rawRepresentation: SeededRandomSource(seed: seed + 2).bytes(32)))
    }

    static let claims: JSONObject = [
        "given_name": "John", "family_name": "Doe", "birthdate": "1940-01-01",
        "address": ["street_address": "123 Main St", "locality": "Anytown", "postal_code": "90210"],
        "nationalities": ["US", "DE"],
    ]

    static let disclosable: [ClaimsPathPointer] = [
        ptr(["given_name"]), ptr(["family_name"]), ptr(["birthdate"]), ptr(["address"]), ptr(["address", "street_address"]),
        ptr(["address", "locality"]), ptr(["address", "postal_code"]), ptr(["nationalities", 0]), ptr(["nationalities", 1]),
    ]

    /// The holder key as a JWK (what `cnf` carries).
    var holderJWK: JWK { JWK(publicKey: holderKey.signingKey.publicKey) }

    func credential(id: String = "pid-1", vct: String = identityVCT, claims: JSONObject = claims, holderBound: Bool = true) throws -> WalletCredential {
        let pointers = Self.disclosable.filter { pointer in
            if case .key(let name)? = pointer.components.first { return claims[name] != nil }
            return false
        }
        let issued: SDJWT
        if holderBound {
            issued = try issuer.issueVC(
                vct: vct, claims: claims, disclosable: pointers, holderKey: holderJWK,
                issuer: "https://issuer.example.com", validity: 86_400 * 365, x5c: issuerChain)
        } else {
            issued = try issuer.issueVC(
                vct: vct, claims: claims, disclosable: pointers, holderKey: nil, issuer: "https://issuer.example.com",
                validity: 86_400 * 365, x5c: issuerChain)
        }
        return .sdJWTVC(try SDJWTVCCredential(id: id, compactSDJWT: issued.compact, holderKey: holderBound ? holderKey : nil))
    }

    var anchors: [Certificate] { pki.anchors }
}

/// Test-only literals for claims path pointers: `["address", "street_address"]`, `["nationalities", 0]`,
/// `["nationalities", nil]` (nil = every element). An invalid literal is a bug in the test itself.
public enum PathPart: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    case key(String), index(Int), all
    public init(stringLiteral value: String) { self = .key(value) }
    public init(integerLiteral value: Int) { self = .index(value) }
    public init(nilLiteral: ()) { self = .all }

    var component: ClaimsPathPointer.Component {
        switch self {
        case .key(let name): return .key(name)
        case .index(let index): return .index(index)
        case .all: return .allElements
        }
    }
}

extension ClaimsPathPointer: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: PathPart...) {
        guard let pointer = try? ClaimsPathPointer(elements.map(\.component)) else {
            preconditionFailure("invalid claims path pointer literal in a test")
        }
        self = pointer
    }
}
