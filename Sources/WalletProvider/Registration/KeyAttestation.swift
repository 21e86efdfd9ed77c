import Foundation

/// A `key_attestation` as the wallet sends it (base64), told apart by its content:
/// - Apple: the App Attest attestation object, a CBOR map (`fmt`, `attStmt`, `authData`);
/// - Android: the key attestation certificate chain as `base64(DER),base64(DER),…` leaf first (the encoding the
///   IT-Wallet reference apps use), itself base64-encoded.
enum KeyAttestation: Sendable {
    case apple(attestationObject: Data)
    case android(chain: [Data])

    static let maxLength = 64 * 1024
    static let maxCertificates = 10

    init?(base64 text: String) {
        guard text.utf8.count <= Self.maxLength, let bytes = Base64Any.decode(text), let first = bytes.first else { return nil }
        if (0xA0...0xBF).contains(first) {  // CBOR major type 5: a map
            self = .apple(attestationObject: bytes)
            return
        }
        guard let list = String(data: bytes, encoding: .utf8) else { return nil }
        let parts = list.split(separator: ",", omittingEmptySubsequences: false)
        guard (1...Self.maxCertificates).contains(parts.count) else { return nil }
        var chain: [Data] = []
        for part in parts {
            guard let der = Base64Any.decode(String(part)), der.first == 0x30 else { return nil }
            chain.append(der)
        }
        self = .android(chain: chain)
    }

    var platform: String {
        switch self {
        case .apple: return "ios"
        case .android: return "android"
        }
    }
}

/// Standard or URL-safe base64, padded or not (wallets differ); the decoded bytes are what is compared.
enum Base64Any {
    static func decode(_ text: String) -> Data? {
        var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        normalized = normalized.trimmingCharacters(in: .whitespacesAndNewlines)
        let remainder = normalized.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { normalized += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: normalized)
    }
}
