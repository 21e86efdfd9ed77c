/// Failures of the shared constructions. Messages never carry key material or plaintext.
public enum LedgerProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field is missing, not base64url or of the wrong length.
    case malformed(String)
    /// Authenticated decryption failed: wrong key, info, AAD, nonce or tampered ciphertext (fail closed).
    case openFailed
    /// A key could not be made from the random source.
    case keyGeneration

    public var description: String {
        switch self {
        case .malformed(let what): "malformed: \(what)"
        case .openFailed: "authenticated decryption failed"
        case .keyGeneration: "the random source gave no usable key"
        }
    }
}

import Foundation
import TesseraCore

extension Base64URL {
    /// The bytes of a base64url string, or nil when it is absent or not base64url.
    public static func bytes(_ text: String?) -> Data? { text.flatMap { decodeIfValid($0) } }
}
