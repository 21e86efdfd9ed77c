import Foundation

/// What an Android key attestation must satisfy (the Wallet Provider's policy).
public struct AndroidAttestationPolicy: Sendable {
    /// How strictly the KeyDescription extension is decoded.
    public enum Encoding: Sendable {
        /// DER as the schema requires: BOOLEANs are 0x00 or 0xFF, and every AuthorizationList has its tags in
        /// ascending order (a DER SEQUENCE of the schema's optional fields); otherwise `malformedExtension` or
        /// `authorizationListTagsNotAscending`.
        case strict
        /// As android/keyattestation decodes it: a BOOLEAN is true for any non-zero octet (BER, X.690 §8.2.2)
        /// and tag order is not checked. Everything else (lengths, INTEGERs, structure) is still DER.
        case lenient
    }

    /// SubjectPublicKeyInfo DER of the roots a chain may end in; the chain is anchored on the key, not on a
    /// root certificate.
    public var trustedRootKeys: [Data]
    /// The apps a key may be attested for: the attested package name AND signing digests must match one of them.
    public var applications: [AndroidApplication]
    public var revocationList: AndroidRevocationList
    public var encoding: Encoding

    public init(
        trustedRootKeys: [Data] = AttestationRoots.googleHardwareAttestationKeys,
        applications: [AndroidApplication],
        revocationList: AndroidRevocationList = .empty,
        encoding: Encoding = .strict
    ) {
        self.trustedRootKeys = trustedRootKeys
        self.applications = applications
        self.revocationList = revocationList
        self.encoding = encoding
    }
}
