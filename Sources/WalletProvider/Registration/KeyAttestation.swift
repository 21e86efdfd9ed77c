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
        // Split on the UTF-8 bytes (',' is ASCII): splitting the String walks grapheme clusters, far slower.
        let parts = list.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard (1...Self.maxCertificates).contains(parts.count) else { return nil }
        var chain: [Data] = []
        for part in parts {
            guard let der = Base64Any.decode(Substring(part)), der.first == 0x30 else { return nil }
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
    /// Works on the UTF-8 bytes: Foundation's `replacingOccurrences`/`trimmingCharacters` go through NSString on
    /// Linux and cost more than verifying the attestation's signatures (Benchmarks/WalletProviderBenchmarks).
    static func decode(_ text: some StringProtocol) -> Data? {
        let scalars = text.unicodeScalars
        // Whitespace and newlines around the value are ignored; inside it they make the value invalid, as anything
        // not ASCII does.
        let blank = CharacterSet.whitespacesAndNewlines
        guard let first = scalars.firstIndex(where: { !blank.contains($0) }),
            let last = scalars.lastIndex(where: { !blank.contains($0) })
        else { return Data() }
        let value = text.utf8[first..<scalars.index(after: last)]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.count + 2)
        for byte in value {
            switch byte {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            case 0x80...: return nil
            default: bytes.append(byte)
            }
        }
        let remainder = bytes.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { bytes += repeatElement(UInt8(ascii: "="), count: 4 - remainder) }
        return Data(base64Encoded: Data(bytes))
    }
}
