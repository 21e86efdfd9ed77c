import Foundation

/// The elliptic curves this library implements (RFC 9053 §7.1, IANA "COSE Elliptic Curves").
///
/// X25519 (4), X448 (5) and Ed448 (7) are registered but unsupported here; reading them
/// gives `COSEError.unsupportedCurve`.
public enum COSECurve: Int64, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// NIST P-256, key type EC2.
    case p256 = 1
    /// NIST P-384, key type EC2.
    case p384 = 2
    /// NIST P-521, key type EC2.
    case p521 = 3
    /// Ed25519 for EdDSA, key type OKP.
    case ed25519 = 6

    /// The curve registered under `identifier`.
    public init(identifier: Int64) throws(COSEError) {
        if let curve = COSECurve(rawValue: identifier) {
            self = curve
            return
        }
        switch identifier {
        case 4: throw .unsupportedCurve("X25519 (4)")
        case 5: throw .unsupportedCurve("X448 (5)")
        case 7: throw .unsupportedCurve("Ed448 (7)")
        default: throw .unsupportedCurve("\(identifier)")
        }
    }

    /// The registry name, e.g. "P-256".
    public var name: String {
        switch self {
        case .p256: return "P-256"
        case .p384: return "P-384"
        case .p521: return "P-521"
        case .ed25519: return "Ed25519"
        }
    }

    public var description: String { name }

    /// The key type the curve belongs to (RFC 9053 §7.1: EC2 for the NIST curves, OKP for Ed25519).
    public var keyType: COSEKeyType {
        switch self {
        case .p256, .p384, .p521: return .ec2
        case .ed25519: return .okp
        }
    }

    /// Bytes in one coordinate and in the private scalar; leading zeros are kept (RFC 9053 §7.1.1, §7.2).
    public var coordinateLength: Int {
        switch self {
        case .p256: return 32
        case .p384: return 48
        case .p521: return 66
        case .ed25519: return 32
        }
    }

    /// The one signature algorithm accepted with this curve.
    public var signatureAlgorithm: COSEAlgorithm {
        switch self {
        case .p256: return .es256
        case .p384: return .es384
        case .p521: return .es512
        case .ed25519: return .edDSA
        }
    }
}

/// COSE key types (RFC 9053 §7, IANA "COSE Key Types").
public enum COSEKeyType: Int64, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Octet Key Pair (RFC 9053 §7.2).
    case okp = 1
    /// Elliptic Curve with x and y (RFC 9053 §7.1).
    case ec2 = 2
    /// Symmetric (RFC 9053 §6.1).
    case symmetric = 4

    public var description: String {
        switch self {
        case .okp: return "OKP"
        case .ec2: return "EC2"
        case .symmetric: return "Symmetric"
        }
    }
}
