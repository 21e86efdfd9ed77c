import Foundation
import TesseraCBOR

/// Everything that can go wrong reading, building, signing or verifying a COSE
/// structure (RFC 9052, RFC 9053). Each case names the rule that was broken.
///
/// Messages are one line and never contain key material: keys are described by
/// their type and curve only.
public enum COSEError: Error, Equatable, Sendable {
    // MARK: Encoding

    /// The input is not well-formed or valid CBOR (RFC 8949); wraps the CBOR layer's error.
    case malformed(CBORError)
    /// The item is not a COSE_Sign1 array of four elements of the right types (RFC 9052 §4.2).
    case notCOSESign1(String)
    /// The item is not a COSE_Mac0 array of four elements of the right types (RFC 9052 §6.2).
    case notCOSEMac0(String)
    /// The item carries a CBOR tag other than the one of the expected structure (RFC 9052 §2, Table 1).
    case wrongTag(found: UInt64, expected: UInt64)
    /// A tag was required by the caller but the item is untagged.
    case missingTag(expected: UInt64)
    /// The caller required an untagged item but found a tag.
    case unexpectedTag(UInt64)

    // MARK: Headers (RFC 9052 §3)

    /// The protected-header bstr does not hold a CBOR map (`empty_or_serialized_map`, §3).
    case protectedHeaderNotAMap
    /// A header label is neither an integer nor a text string (`label = int / tstr`, §3).
    case invalidHeaderLabel(String)
    /// A header parameter has a value of the wrong type (§3.1, RFC 9360 §2).
    case invalidHeaderValue(label: COSEHeaderLabel, reason: String)
    /// The same label occurs in both the protected and the unprotected bucket (§3).
    case duplicateHeaderLabel(COSEHeaderLabel)
    /// `crit` lists a label this verifier does not process (§3.1).
    case unknownCriticalHeader(COSEHeaderLabel)

    // MARK: Algorithms and keys (RFC 9053)

    /// No `alg` (label 1) where the verification policy requires it: by default the protected bucket.
    case missingAlgorithm
    /// An `alg` value this library does not implement; the payload names the value as received.
    case unsupportedAlgorithm(String)
    /// The algorithm cannot be used with the key (e.g. ES512 with a P-256 key, RFC 9053 §2.1).
    case algorithmMismatch(COSEAlgorithm, key: String)
    /// A curve this library does not implement (e.g. Ed448); the payload names it.
    case unsupportedCurve(String)
    /// A key type (`kty`) this library does not implement.
    case unsupportedKeyType(String)
    /// A COSE_Key, or key bytes, that break a rule of RFC 9053 §7 (reason given, no key material).
    case invalidKey(String)

    // MARK: Verification

    /// The signature does not verify (RFC 9052 §4.4).
    case signatureInvalid
    /// The MAC tag does not verify (RFC 9052 §6.3).
    case macInvalid
    /// The signature is DER-encoded; COSE ECDSA signatures are fixed-length `r‖s` (RFC 9053 §2.1).
    case derSignatureRejected
    /// The signature is not the length the algorithm and curve require (RFC 9053 §2.1, §2.2).
    case signatureLengthInvalid(expected: Int, found: Int)
    /// The payload is detached (nil) and the caller did not supply it (RFC 9052 §2).
    case detachedPayloadRequired
    /// The caller supplied a detached payload but the message carries its own.
    case payloadNotDetached
    /// The cryptographic library reported a failure while signing or computing a tag.
    case cryptoFailure(String)
}

extension COSEError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .malformed(let e): return "malformed CBOR: \(e)"
        case .notCOSESign1(let why): return "not a COSE_Sign1 structure: \(why)"
        case .notCOSEMac0(let why): return "not a COSE_Mac0 structure: \(why)"
        case .wrongTag(let found, let expected): return "CBOR tag \(found) is not the expected tag \(expected)"
        case .missingTag(let expected): return "CBOR tag \(expected) is required but the item is untagged"
        case .unexpectedTag(let tag): return "an untagged item is required but tag \(tag) was found"
        case .protectedHeaderNotAMap: return "the protected header bstr does not contain a CBOR map"
        case .invalidHeaderLabel(let kind): return "header label must be an integer or text string, found \(kind)"
        case .invalidHeaderValue(let label, let reason): return "header \(label): \(reason)"
        case .duplicateHeaderLabel(let label):
            return "header \(label) appears in both the protected and the unprotected bucket"
        case .unknownCriticalHeader(let label): return "critical header \(label) is not understood"
        case .missingAlgorithm: return "the algorithm (alg, label 1) is missing from the protected header"
        case .unsupportedAlgorithm(let alg): return "unsupported algorithm \(alg)"
        case .algorithmMismatch(let alg, let key): return "algorithm \(alg.name) cannot be used with a \(key) key"
        case .unsupportedCurve(let crv): return "unsupported curve \(crv)"
        case .unsupportedKeyType(let kty): return "unsupported key type \(kty)"
        case .invalidKey(let why): return "invalid key: \(why)"
        case .signatureInvalid: return "signature verification failed"
        case .macInvalid: return "MAC verification failed"
        case .derSignatureRejected: return "DER-encoded ECDSA signature rejected: COSE requires fixed-length r||s"
        case .signatureLengthInvalid(let expected, let found):
            return "signature is \(found) bytes, the algorithm requires \(expected)"
        case .detachedPayloadRequired: return "the payload is detached: supply it to verify"
        case .payloadNotDetached: return "a detached payload was supplied but the message carries its own payload"
        case .cryptoFailure(let what): return "cryptographic operation failed: \(what)"
        }
    }
}
