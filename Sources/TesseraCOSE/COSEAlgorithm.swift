import Foundation
import TesseraCBOR

/// The COSE algorithms this library implements (IANA "COSE Algorithms" registry).
///
/// - ES256 / ES384 / ES512: ECDSA with SHA-256/384/512 (RFC 9053 §2.1). Each is bound to
///   exactly one curve here — P-256, P-384, P-521 — so a P-256 key used with ES512 is rejected.
/// - EdDSA: PureEdDSA (RFC 9053 §2.2); only Ed25519 is implemented.
/// - HMAC 256/256: HMAC with SHA-256 and the full 32-byte tag (RFC 9053 §3.1).
public enum COSEAlgorithm: Int64, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case es256 = -7
    case es384 = -35
    case es512 = -36
    case edDSA = -8
    case hmac256 = 5

    /// The algorithm registered under `identifier`; unknown identifiers are a typed error.
    public init(identifier: Int64) throws(COSEError) {
        guard let alg = COSEAlgorithm(rawValue: identifier) else { throw .unsupportedAlgorithm("\(identifier)") }
        self = alg
    }

    /// The algorithm named by an `alg` header value (RFC 9052 §3.1: `int / tstr`).
    ///
    /// No text-string algorithm names are registered for the algorithms implemented
    /// here, so every text value is rejected as unsupported.
    public init(cbor: CBOR) throws(COSEError) {
        switch cbor {
        case .unsigned, .negative:
            guard let id = cbor.int64Value else { throw .unsupportedAlgorithm(cbor.kindName + " out of range") }
            try self.init(identifier: id)
        case .text(let name):
            throw .unsupportedAlgorithm("\"\(name)\"")
        default:
            throw .invalidHeaderValue(label: .algorithm, reason: "must be an integer or text string, found \(cbor.kindName)")
        }
    }

    /// The identifier as a CBOR integer.
    public var cbor: CBOR { .int(rawValue) }

    /// The registry name (e.g. "ES256", "HMAC 256/256").
    public var name: String {
        switch self {
        case .es256: return "ES256"
        case .es384: return "ES384"
        case .es512: return "ES512"
        case .edDSA: return "EdDSA"
        case .hmac256: return "HMAC 256/256"
        }
    }

    public var description: String { "\(name) (\(rawValue))" }

    /// The only curve this algorithm is accepted with; nil for MAC algorithms.
    public var curve: COSECurve? {
        switch self {
        case .es256: return .p256
        case .es384: return .p384
        case .es512: return .p521
        case .edDSA: return .ed25519
        case .hmac256: return nil
        }
    }

    /// Length in bytes of a signature (RFC 9053 §2.1: 2 × coordinate size; §2.2: 64 for Ed25519)
    /// or of a MAC tag (§3.1: 32).
    public var outputLength: Int {
        switch self {
        case .es256: return 64
        case .es384: return 96
        case .es512: return 132
        case .edDSA: return 64
        case .hmac256: return 32
        }
    }
}
