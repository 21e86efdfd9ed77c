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
    /// The launch validation categories accepted (`apple_validation_category_01`, iOS 27+); no check by default.
    public var validationCategories: AppAttestValidationCategoryPolicy

    public init(
        apps: [AppAttestAppID],
        allowedEnvironments: Set<AppAttestEnvironment> = [.production],
        trustedRoots: [Certificate] = AttestationRoots.appleAppAttestation,
        validationCategories: AppAttestValidationCategoryPolicy = .any
    ) {
        self.apps = apps
        self.allowedEnvironments = allowedEnvironments
        self.trustedRoots = trustedRoots
        self.validationCategories = validationCategories
    }

    /// The configured app whose rpIdHash this is.
    func app(rpIDHash: Data) -> AppAttestAppID? { apps.first { $0.rpIDHash == rpIDHash } }
}
