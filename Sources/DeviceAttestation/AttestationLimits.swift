/// Size limits applied before any input is parsed, so hostile input cannot make a verifier allocate or recurse
/// without bound. swift-asn1 adds its own nesting limit (50 levels) to every DER parse.
enum AttestationLimits {
    /// An App Attest attestation object (two certificates and a receipt are about 6 KB).
    static let maxAttestationObjectBytes = 64 * 1024
    /// An App Attest assertion object (about 120 bytes).
    static let maxAssertionObjectBytes = 4 * 1024
    /// CBOR nesting and item count for attestation and assertion objects.
    static let maxCBORDepth = 8
    static let maxCBORItems = 256
    /// One certificate (an ML-DSA-65 leaf is about 3 KB).
    static let maxCertificateBytes = 16 * 1024
    /// Certificates in an x5c array or an Android chain (real chains have 2–5).
    static let maxChainLength = 8
    /// The KeyDescription extension value.
    static let maxKeyDescriptionBytes = 16 * 1024
    /// Tagged entries in one AuthorizationList (the schema defines about 50).
    static let maxAuthorizationListEntries = 128
}
