import Crypto
import Foundation
import TesseraCore
import TesseraJOSE
import TesseraTrust
import TesseraTrustTesting
import Testing
import TokenStatusList
import X509

@_exported import TesseraTestSupport

enum Fixtures {
    static func url(_ name: String) throws -> URL { try fixtureURL(name, in: .module) }

    /// The `cases` of a vector file, parsed with TesseraJOSE's strict parser.
    static func cases(_ name: String) throws -> [JSONValue] {
        try JSONValue.parse(Data(contentsOf: url(name))).array("cases")
    }
}

/// The `StatusListError` that `body` throws, or nil; any other error fails the test.
func statusListError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> StatusListError? {
    thrownError(StatusListError.self, sourceLocation: sourceLocation, body)
}

/// `statusListError` for async bodies.
func asyncStatusListError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> StatusListError? {
    await thrownError(StatusListError.self, sourceLocation: sourceLocation, body)
}

/// The draft's example key (TSL examples, `kid` "12", P-256; its public part in the TSL notes §10.3), which
/// signed the JWT and CWT examples.
enum DraftKey {
    static let jwk: JSONObject = [
        "kty": "EC", "crv": "P-256",
        "x": "I3HWm_0Ds1dPMI-IWmf4mBmH-YaeAVbPVu7vB27CxXo", "y": "6N_d5Elj9bs1htgV3okJKIdbHEpkgTmAluYKJemzn1M",
    ]
    static var p256: P256.Signing.PublicKey {
        get throws {
            guard case .es256(let key) = try JWSVerificationKey(jwk: JWK(json: jwk)) else { throw MissingMember(path: "P-256 key") }
            return key
        }
    }
}

/// A Status Issuer under a test root: the certificate chain (leaf only, as `x5c`/`x5chain` carry it below the
/// root), its P-256 key, and the root to trust. Pinned instants throughout.
struct TestIssuer {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let uri = "https://wallet-provider.example.org/status/1"

    let root: Certificate
    let chain: [Data]
    let key: P256.Signing.PrivateKey

    init(seed: UInt64 = 27) throws {
        var random = SeededRandomSource(seed: seed).generator
        let from = Self.now.addingTimeInterval(-86_400)
        let until = Self.now.addingTimeInterval(365 * 86_400)
        let rootCA = try X5CTestPKI.issueRoot(.init(commonName: "Status Root", notBefore: from, notAfter: until), random: &random)
        let leaf = try X5CTestPKI.issue(.init(commonName: "Status Issuer", notBefore: from, notAfter: until), by: rootCA, random: &random)
        guard case .p256(let key) = leaf.privateKey else { throw MissingMember(path: "P-256 issuer key") }
        root = rootCA.certificate
        chain = [try leaf.derEncoded()]
        self.key = key
    }
}
