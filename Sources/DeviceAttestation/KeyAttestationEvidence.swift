import Foundation
import TesseraCore

/// A `key_attestation` as wallets send it at Wallet Instance registration (IT-Wallet), told apart by its content:
/// an Apple App Attest attestation object, or an Android key attestation certificate chain. Each spelling is
/// accepted by name (`Encoding`); the bytes inside are then verified by `AppAttestVerifier` or
/// `AndroidKeyAttestationVerifier` exactly as they are.
public struct KeyAttestationEvidence: Sendable {
    public enum Kind: Sendable {
        /// The CBOR attestation object `attestKey` returned.
        case appAttest(attestationObject: Data)
        /// DER certificates, leaf first.
        case androidChain([Data])
    }

    /// How the value was spelled on the wire.
    public enum Encoding: String, Sendable {
        /// base64 (either alphabet, padded or not) of the App Attest CBOR map.
        case appAttestBase64 = "app_attest_base64"
        /// base64 of `base64(DER),base64(DER),…` on single lines (the IT-Wallet reference apps; Tessera's wallet).
        case androidCommaList = "android_base64_comma_list"
        /// The same list with both layers written by Android's `Base64.DEFAULT`: lines of 76 characters ended by
        /// `\n` (io-react-native-integrity, the production IT-Wallet client).
        case androidCommaListWrapped = "android_base64_default_comma_list"
    }

    public let kind: Kind
    public let encoding: Encoding

    public static let maxLength = 64 * 1024
    public static let maxCertificates = 10

    public init(kind: Kind, encoding: Encoding) {
        self.kind = kind
        self.encoding = encoding
    }

    /// The evidence in `text`, or nil when it is neither form (or too large).
    public init?(wire text: String) {
        guard text.utf8.count <= Self.maxLength else { return nil }
        let wrapped = text.utf8.contains(UInt8(ascii: "\n"))
        guard let bytes = wrapped ? Base64Any.decodeLineWrapped(text) : Base64Any.decode(text), let first = bytes.first else {
            return nil
        }
        if (0xA0...0xBF).contains(first) {  // CBOR major type 5: a map
            guard !wrapped else { return nil }  // App Attest objects arrive on one line
            self.init(kind: .appAttest(attestationObject: bytes), encoding: .appAttestBase64)
            return
        }
        guard let chain = Self.commaList(bytes) else { return nil }
        self.init(kind: .androidChain(chain.certificates), encoding: wrapped || chain.wrapped ? .androidCommaListWrapped : .androidCommaList)
    }

    /// `base64(DER),base64(DER),…`: each element on one line, or wrapped as `Base64.DEFAULT` writes it.
    private static func commaList(_ bytes: Data) -> (certificates: [Data], wrapped: Bool)? {
        // Split on the UTF-8 bytes (',' is ASCII): splitting a String walks grapheme clusters, far slower.
        let parts = bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard (1...maxCertificates).contains(parts.count) else { return nil }
        var chain: [Data] = []
        var wrapped = false
        for part in parts {
            guard let text = String(bytes: part, encoding: .utf8) else { return nil }
            let lineWrapped = text.utf8.contains(UInt8(ascii: "\n"))
            wrapped = wrapped || lineWrapped
            guard let der = lineWrapped ? Base64Any.decodeLineWrapped(text) : Base64Any.decode(text), der.first == 0x30 else {
                return nil
            }
            chain.append(der)
        }
        return (chain, wrapped)
    }

    /// `ios` or `android`, as the provider stores it.
    public var platform: String {
        switch kind {
        case .appAttest: return "ios"
        case .androidChain: return "android"
        }
    }
}
