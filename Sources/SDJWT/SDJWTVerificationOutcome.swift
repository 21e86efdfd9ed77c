import Foundation
import TesseraJOSE
import X509

/// The result of verifying an SD-JWT (ARCHITECTURE.md decision 2: every problem found, not just the first).
public struct SDJWTVerificationOutcome: Sendable {
    /// Every rule broken, in the order checked.
    public let errors: [SDJWTError]
    /// The payload with the presented Disclosures applied and `_sd`, `_sd_alg` and undisclosed `...` elements
    /// removed (§7.1 step 3). Empty unless the issuer signature verified: only authentic claims are handed out.
    public let processedClaims: JSONObject
    /// The verified Key Binding, when a KB-JWT was presented and its signature verified.
    public let keyBinding: KeyBinding?
    /// The validated `x5c` leaf, when the issuer key came from `x5c`.
    public let issuerCertificate: Certificate?
    /// The credential's status from its Token Status List, when checked.
    public let status: UInt8?
    /// The parsed SD-JWT (nil when it could not be parsed).
    public let sdJWT: SDJWT?

    public var isValid: Bool { errors.isEmpty }

    /// A verified KB-JWT (§4.3).
    public struct KeyBinding: Sendable {
        /// The holder key from `cnf.jwk`.
        public let holderKey: JWK
        public let audience: String?
        public let nonce: String?
        public let issuedAt: Date?
        public let jwt: CompactJWS
    }
}
