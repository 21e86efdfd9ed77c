import Foundation
import TesseraCBOR

/// The extensions CBOR map at the end of App Attest authenticator data (attestations and assertions).
///
/// Since iOS 27 (WWDC26 session 201; Apple's "Attestation Object Validation Guide", 2026 sample) the device appends
/// `{"apple_bundle_version_01": tstr, "apple_validation_category_01": bstr .size 4}` after the attested credential
/// data (or after the counter in an assertion). The bytes are covered by the nonce Apple's CA certifies (and by the
/// assertion signature), so they carry the app's build and how its code signature was validated.
public struct AppAttestExtensions: Sendable, Hashable {
    /// How the map was attached to the authenticator data. Both are accepted, each by name.
    public enum Encoding: String, Sendable, Hashable {
        /// WebAuthn §6.1: the ED flag (0x80) is set and the extensions follow.
        case webAuthnFlagged = "webauthn_ed_flag"
        /// Apple iOS 27+: the map follows with the ED flag clear (flags 0x40 in attestations), as Apple's 2026
        /// validation guide sample has it.
        case appleUnflagged = "apple_unflagged"
    }

    public let encoding: Encoding
    /// `apple_bundle_version_01`: the app's CFBundleVersion.
    public let bundleVersion: String?
    /// `apple_validation_category_01`: the launch validation category of the app's code signature (a 32-bit
    /// little-endian integer on the wire).
    public let validationCategory: UInt32?
    /// Keys of the map this verifier does not interpret (kept by name, so an operator sees what a newer OS sends).
    public let otherKeys: [String]

    package static let bundleVersionKey = "apple_bundle_version_01"
    package static let validationCategoryKey = "apple_validation_category_01"
    /// Extension maps are a few dozen bytes; anything larger is not what a device writes.
    static let maxEntries = 16

    /// Reads the map; every key must be text, the known keys must have their types.
    init(_ value: CBOR, encoding: Encoding) throws(AttestationParseError) {
        guard case .map(let map) = value else { throw AttestationParseError("the authenticator data extensions are not a CBOR map") }
        guard map.count <= Self.maxEntries else { throw AttestationParseError("the authenticator data extensions have too many entries") }
        var bundleVersion: String?
        var validationCategory: UInt32?
        var other: [String] = []
        for entry in map {
            guard case .text(let key) = entry.key else {
                throw AttestationParseError("an authenticator data extension key is not a text string")
            }
            switch key {
            case Self.bundleVersionKey:
                guard let text = entry.value.textValue else { throw AttestationParseError("\(key) is not a text string") }
                bundleVersion = text
            case Self.validationCategoryKey:
                guard let bytes = entry.value.bytesValue, bytes.count == 4 else {
                    throw AttestationParseError("\(key) is not a 4-byte string")
                }
                validationCategory = bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
            default:
                other.append(key)
            }
        }
        self.encoding = encoding
        self.bundleVersion = bundleVersion
        self.validationCategory = validationCategory
        otherKeys = other
    }
}

/// Which launch validation categories (`apple_validation_category_01`) a policy accepts.
public enum AppAttestValidationCategoryPolicy: Sendable, Hashable {
    /// No check (the default): the category is reported as a fact only.
    case any
    /// The category must be present and one of these.
    case only(Set<UInt32>)
    /// One of these when present; devices before iOS 27 write none and are accepted.
    case onlyOrMissing(Set<UInt32>)

    func allows(_ category: UInt32?) -> Bool {
        switch self {
        case .any: return true
        case .only(let allowed): return category.map(allowed.contains) ?? false
        case .onlyOrMissing(let allowed): return category.map(allowed.contains) ?? true
        }
    }
}
