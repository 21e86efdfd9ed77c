import Foundation
import TesseraCBOR

/// A header parameter label: `label = int / tstr` (RFC 9052 §3).
public enum COSEHeaderLabel: Hashable, Sendable, CustomStringConvertible {
    case int(Int64)
    case text(String)

    /// `alg` (RFC 9052 §3.1).
    public static let algorithm = COSEHeaderLabel.int(1)
    /// `crit` (RFC 9052 §3.1).
    public static let critical = COSEHeaderLabel.int(2)
    /// `content type` (RFC 9052 §3.1).
    public static let contentType = COSEHeaderLabel.int(3)
    /// `kid` (RFC 9052 §3.1).
    public static let keyID = COSEHeaderLabel.int(4)
    /// `IV` (RFC 9052 §3.1).
    public static let iv = COSEHeaderLabel.int(5)
    /// `Partial IV` (RFC 9052 §3.1).
    public static let partialIV = COSEHeaderLabel.int(6)
    /// `x5chain` (RFC 9360 §2).
    public static let x5chain = COSEHeaderLabel.int(33)

    /// The label held by a CBOR map key; anything but an integer (in Int64 range) or text is rejected.
    public init(cbor: CBOR) throws(COSEError) {
        switch cbor {
        case .unsigned, .negative:
            guard let v = cbor.int64Value else { throw .invalidHeaderLabel("integer out of range") }
            self = .int(v)
        case .text(let s):
            self = .text(s)
        default:
            throw .invalidHeaderLabel(cbor.kindName)
        }
    }

    public var cbor: CBOR {
        switch self {
        case .int(let v): return .int(v)
        case .text(let s): return .text(s)
        }
    }

    public var description: String {
        switch self {
        case .int(let v):
            switch v {
            case 1: return "alg (1)"
            case 2: return "crit (2)"
            case 3: return "content type (3)"
            case 4: return "kid (4)"
            case 5: return "IV (5)"
            case 6: return "Partial IV (6)"
            case 33: return "x5chain (33)"
            default: return "\(v)"
            }
        case .text(let s): return "\"\(s)\""
        }
    }
}

extension COSEHeaderLabel: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(stringLiteral value: String) { self = .text(value) }
}
