import Foundation

/// An Android app allowed to attest keys: its package name and the SHA-256 digests of its signing certificates,
/// as `attestationApplicationId` lists them (`AttestationApplicationId.signature_digests`).
public struct AndroidApplication: Sendable, Hashable {
    public let packageName: String
    /// SHA-256 digests (32 bytes each) of the certificates the app is signed with.
    public let signingCertificateDigests: Set<Data>

    public init(packageName: String, signingCertificateDigests: Set<Data>) {
        self.packageName = packageName
        self.signingCertificateDigests = signingCertificateDigests
    }

    /// Whether attested signature digests identify this app: every attested digest must be one of this app's,
    /// so a key attested for an APK with an unknown extra signer is refused. An attestation without digests
    /// (the system's device-ID attestations, package `AndroidSystem`) matches only an application configured
    /// without digests.
    func acceptsSigningDigests(_ attested: [Data]) -> Bool {
        if attested.isEmpty { return signingCertificateDigests.isEmpty }
        return attested.allSatisfy { signingCertificateDigests.contains($0) }
    }
}
