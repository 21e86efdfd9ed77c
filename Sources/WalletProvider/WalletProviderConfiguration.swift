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
        /// `contacts`: e-mail addresses or URIs for the entity (OpenID Federation §5.2.2).
        public var contacts: [String]

        public init(
            organizationName: String, homepageURI: String, tosURI: String, policyURI: String, logoURI: String,
            contacts: [String] = []
        ) {
            self.organizationName = organizationName
            self.homepageURI = homepageURI
            self.tosURI = tosURI
            self.policyURI = policyURI
            self.logoURI = logoURI
            self.contacts = contacts
        }
    }

    /// The Wallet Solution the provider attests instances of (IT-Wallet 1.3+ `wallet_solution` /
    /// `openid_wallet_provider` metadata and the Wallet Instance Attestation's claims).
    public struct WalletSolution: Sendable {
        /// `wallet_name`.
        public var name: String
        /// `wallet_link`: where users learn about the wallet.
        public var link: String
        /// The Wallet Solution's identifier in URL form: the 1.5 Wallet Instance Attestation's `sub`.
        public var identifier: String
        /// `wallet_solution_id` values a 1.3/1.5 request may name (the production client sends `appio`).
        public var solutionIDs: Set<String>
        /// `wallet_version`: the Wallet Solution version the 1.5 attestation states.
        public var version: String
        /// `authorization_endpoint` of the wallet (its invocation scheme, e.g. `haip-vp://`, `eudiw:`).
        public var authorizationEndpoint: String
        /// `credential_offer_endpoint` of the wallet.
        public var credentialOfferEndpoint: String

        public init(
            name: String, link: String, identifier: String, solutionIDs: Set<String>, version: String,
            authorizationEndpoint: String = "haip-vp://", credentialOfferEndpoint: String = "haip-vci://"
        ) {
            self.name = name
            self.link = link
            self.identifier = identifier
            self.solutionIDs = solutionIDs
            self.version = version
            self.authorizationEndpoint = authorizationEndpoint
            self.credentialOfferEndpoint = credentialOfferEndpoint
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
    /// Whether start-up runs pending migrations (`.automatic`) or refuses to start while any is pending
    /// (`.verifyOnly`, after `migrate`: what several instances on one PostgreSQL do).
    public var migration: MigrationPolicy = .automatic
    /// The key and X.509 chain attestations and status lists are signed with (`x5c`).
    public var signingIdentity: ProviderSigningIdentity
    /// The provider's superiors' statements about it, then the trust anchor's Entity Configuration (OpenID
    /// Federation §4): with the provider's own Entity Configuration first, the attestations' `trust_chain` header.
    /// Empty for a provider without superiors (the header then carries the Entity Configuration alone).
    public var trustChainStatements: [String]
    public var walletSolution: WalletSolution
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
    /// Who may call the PDND e-service "Notify User Death" (`PATCH /wallet-instances`); nil refuses every call.
    public var pdndTrust: PDNDTrust?
    /// Wallet Attestation and Wallet Instance Attestation lifetime (IT-Wallet: short-lived, at most 24 hours).
    public var attestationLifetime: TimeInterval
    /// Key Attestation lifetime (IT-Wallet 1.3/1.5: at least one month).
    public var keyAttestationLifetime: TimeInterval
    /// Entries of one Token Status List (IT-Wallet 1.5: about 10,000, so an entry hides among many).
    public var statusListCapacity: Int
    /// A Status List Token's `ttl` (TSL §5.1): how long a relying party may cache it.
    public var statusListTimeToLive: TimeInterval
    /// A Status List Token's lifetime (`exp` − `iat`).
    public var statusListLifetime: TimeInterval
    public var nonceLifetime: TimeInterval
    public var entityConfigurationLifetime: TimeInterval
    public var sessionLifetime: TimeInterval
    /// The Authenticator Assurance Level the attestations state.
    public var aal: String
    public var clock: any TesseraClock
    public var random: any RandomSource

    public init(
        database: ServiceDatabase, directory: URL, signingIdentity: ProviderSigningIdentity,
        trustChainStatements: [String] = [], publicBaseURL: String? = nil,
        organization: Organization = .tessera, walletSolution: WalletSolution = .tessera, authorityHints: [String] = [],
        apps: Apps,
        appAttest: AppAttestPolicy? = nil, android: AndroidAttestationPolicy? = nil,
        posture: DevicePosturePolicy = DevicePosturePolicy(),
        androidIntegrity: (any AndroidIntegrityVerifier)? = nil, pdndTrust: PDNDTrust? = nil, attestationLifetime: TimeInterval = 3600,
        keyAttestationLifetime: TimeInterval = 31 * 86_400, statusListCapacity: Int = 10_000,
        statusListTimeToLive: TimeInterval = 300, statusListLifetime: TimeInterval = 86_400,
        nonceLifetime: TimeInterval = 300, entityConfigurationLifetime: TimeInterval = 86_400,
        sessionLifetime: TimeInterval = 3600, aal: String = "https://trust-list.eu/aal/high",
        clock: any TesseraClock = SystemClock(), random: any RandomSource = SystemRandomSource()
    ) {
        self.database = database
        self.directory = directory
        self.signingIdentity = signingIdentity
        self.trustChainStatements = trustChainStatements
        self.walletSolution = walletSolution
        self.publicBaseURL = publicBaseURL
        self.organization = organization
        self.authorityHints = authorityHints
        self.apps = apps
        self.appAttest = appAttest ?? AppAttestPolicy(apps: apps.apple)
        self.android = android ?? AndroidAttestationPolicy(applications: apps.android)
        self.posture = posture
        self.androidIntegrity = androidIntegrity
        self.pdndTrust = pdndTrust
        self.attestationLifetime = min(attestationLifetime, 86_400)
        self.keyAttestationLifetime = keyAttestationLifetime
        self.statusListCapacity = max(8, statusListCapacity)
        self.statusListTimeToLive = statusListTimeToLive
        self.statusListLifetime = statusListLifetime
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
        logoURI: "https://tessera.invalid/logo.svg", contacts: ["wallet-provider@tessera.invalid"])
}

extension WalletProviderConfiguration.WalletSolution {
    public static let tessera = Self(
        name: "Tessera Wallet", link: "https://tessera.invalid/wallet", identifier: "https://tessera.invalid/wallet",
        solutionIDs: ["tessera"], version: "1.0.0")
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
