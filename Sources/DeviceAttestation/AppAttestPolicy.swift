import Foundation
import X509

/// What App Attest attestations and assertions must satisfy.
public struct AppAttestPolicy: Sendable {
    /// The apps whose keys are accepted; rpIdHash must be the hash of one of their App IDs.
    public var apps: [AppAttestAppID]
    /// The environments accepted (the aaguid); production only unless development builds are allowed.
    public var allowedEnvironments: Set<AppAttestEnvironment>
    /// The roots the credential certificate chains to; the Apple App Attestation Root CA by default.
    public var trustedRoots: [Certificate]

    public init(
        apps: [AppAttestAppID],
        allowedEnvironments: Set<AppAttestEnvironment> = [.production],
        trustedRoots: [Certificate] = AttestationRoots.appleAppAttestation
    ) {
        self.apps = apps
        self.allowedEnvironments = allowedEnvironments
        self.trustedRoots = trustedRoots
    }

    /// The configured app whose rpIdHash this is.
    func app(rpIDHash: Data) -> AppAttestAppID? { apps.first { $0.rpIDHash == rpIDHash } }
}
