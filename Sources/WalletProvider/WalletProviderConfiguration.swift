import DeviceAttestation
import Foundation
import ServiceSupport
import TesseraCore
import X509

/// Everything the Wallet Provider needs, injected (clock and randomness too, so tests are deterministic).
public struct WalletProviderConfiguration: Sendable {
    /// The federation entity's descriptive metadata (OpenID Federation `federation_entity`).
    public struct Organization: Sendable {
        public var organizationName: String
        public var homepageURI: String
        public var tosURI: String
        public var policyURI: String
        public var logoURI: String

        public init(organizationName: String, homepageURI: String, tosURI: String, policyURI: String, logoURI: String) {
            self.organizationName = organizationName
            self.homepageURI = homepageURI
            self.tosURI = tosURI
            self.policyURI = policyURI
            self.logoURI = logoURI
        }
    }

    /// The apps whose instances may register, per platform.
    public struct Apps: Sendable {
        public var apple: [AppAttestAppID]
        public var android: [AndroidApplication]
        public init(apple: [AppAttestAppID], android: [AndroidApplication]) {
            self.apple = apple
            self.android = android
        }
    }

    public var database: ServiceDatabase
    /// Where the provider keeps its signing key (created 0600 on first start).
    public var directory: URL
    /// The provider's entity identifier and the base of its endpoints; nil = the bound `http://host:port`.
    public var publicBaseURL: String?
    public var organization: Organization
    /// Superiors in the federation (`authority_hints`); a test deployment may have none.
    public var authorityHints: [String]
    public var apps: Apps
    public var appAttest: AppAttestPolicy
    public var android: AndroidAttestationPolicy
    public var posture: DevicePosturePolicy
    /// Verifies Android `integrity_assertion`s (Play Integrity in production; `LocalIntegrityTokenVerifier` here).
    public var androidIntegrity: (any AndroidIntegrityVerifier)?
    /// Wallet Attestation lifetime (IT-Wallet: short-lived, at most 24 hours).
    public var attestationLifetime: TimeInterval
    public var nonceLifetime: TimeInterval
    public var entityConfigurationLifetime: TimeInterval
    public var sessionLifetime: TimeInterval
    /// The Authenticator Assurance Level the attestations state.
    public var aal: String
    public var clock: any TesseraClock
    public var random: any RandomSource

    public init(
        database: ServiceDatabase, directory: URL, publicBaseURL: String? = nil,
        organization: Organization = .tessera, authorityHints: [String] = [], apps: Apps,
        appAttest: AppAttestPolicy? = nil, android: AndroidAttestationPolicy? = nil,
        posture: DevicePosturePolicy = DevicePosturePolicy(),
        androidIntegrity: (any AndroidIntegrityVerifier)? = nil, attestationLifetime: TimeInterval = 3600,
        nonceLifetime: TimeInterval = 300, entityConfigurationLifetime: TimeInterval = 86_400,
        sessionLifetime: TimeInterval = 3600, aal: String = "https://trust-list.eu/aal/high",
        clock: any TesseraClock = SystemClock(), random: any RandomSource = SystemRandomSource()
    ) {
        self.database = database
        self.directory = directory
        self.publicBaseURL = publicBaseURL
        self.organization = organization
        self.authorityHints = authorityHints
        self.apps = apps
        self.appAttest = appAttest ?? AppAttestPolicy(apps: apps.apple)
        self.android = android ?? AndroidAttestationPolicy(applications: apps.android)
        self.posture = posture
        self.androidIntegrity = androidIntegrity
        self.attestationLifetime = min(attestationLifetime, 86_400)
        self.nonceLifetime = nonceLifetime
        self.entityConfigurationLifetime = entityConfigurationLifetime
        self.sessionLifetime = sessionLifetime
        self.aal = aal
        self.clock = clock
        self.random = random
    }
}

extension WalletProviderConfiguration.Organization {
    public static let tessera = Self(
        organizationName: "Tessera Wallet Provider", homepageURI: "https://tessera.invalid",
        tosURI: "https://tessera.invalid/tos", policyURI: "https://tessera.invalid/privacy",
        logoURI: "https://tessera.invalid/logo.svg")
}

/// What a device must show beyond a valid key attestation (the provider's own posture rules).
public struct DevicePosturePolicy: Sendable {
    /// Android: the oldest security patch level accepted (YYYYMM), nil = any.
    public var minimumAndroidPatchLevel: Int?
    /// Android: the oldest attestation (KeyMint) version accepted.
    public var minimumAndroidAttestationVersion: Int

    public init(minimumAndroidPatchLevel: Int? = nil, minimumAndroidAttestationVersion: Int = 3) {
        self.minimumAndroidPatchLevel = minimumAndroidPatchLevel
        self.minimumAndroidAttestationVersion = minimumAndroidAttestationVersion
    }
}
