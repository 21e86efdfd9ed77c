import Argon2
import DeviceAttestation
import Fluent
import Synchronization
import Foundation
import ServiceSupport
import TesseraJOSE
import Vapor

/// The provider's services over one database handle; built once at start and shared by every request.
struct ProviderServices: Sendable {
    let configuration: WalletProviderConfiguration
    let baseURL: String
    let entityConfiguration: EntityConfigurationIssuer
    /// Signs every attestation with the signing identity and the header trust material each version asks for.
    let signer: AttestationSigner
    let nonceStore: NonceStore
    let noncePool: NoncePool
    let instances: InstanceStore
    let accounts: AccountService
    let registration: RegistrationService
    let token: TokenService
    /// 1.3 / 1.5: Wallet Instance Attestations, Key Attestations.
    let attestations: InstanceAttestations
    /// The Token Status Lists those attestations point at.
    let statusLists: StatusListService
    /// MACs the portal's pre-login CSRF tokens and enrolment tickets (derived from the provider key).
    let portalKey: PortalKey

    init(configuration: WalletProviderConfiguration, key: ProviderKey, baseURL: String, sql: ProviderSQL,
         passwordParameters: Argon2Parameters) {
        self.configuration = configuration
        self.baseURL = baseURL
        entityConfiguration = EntityConfigurationIssuer(key: key, configuration: configuration, baseURL: baseURL)
        signer = AttestationSigner(
            identity: configuration.signingIdentity, entityConfiguration: entityConfiguration,
            superiorStatements: configuration.trustChainStatements)
        nonceStore = NonceStore(db: sql)
        noncePool = NoncePool(store: nonceStore, clock: configuration.clock, random: configuration.random, lifetime: configuration.nonceLifetime)
        instances = InstanceStore(db: sql)
        accounts = AccountService(store: AccountStore(db: sql), configuration: configuration, passwordParameters: passwordParameters)
        let appAttestVerifier = AppAttestVerifier(policy: configuration.appAttest)
        registration = RegistrationService(
            configuration: configuration, nonces: nonceStore, instances: instances, appAttestVerifier: appAttestVerifier)
        let prover = AttestationRequestProver(
            configuration: configuration, baseURL: baseURL, db: sql, instances: instances, appAttestVerifier: appAttestVerifier)
        token = TokenService(configuration: configuration, baseURL: baseURL, signer: signer, prover: prover)
        attestations = InstanceAttestations(configuration: configuration, baseURL: baseURL, prover: prover, signer: signer)
        statusLists = StatusListService(configuration: configuration, baseURL: baseURL, store: StatusListTokenStore(db: sql))
        portalKey = PortalKey(providerKey: key)
    }

    /// `GET /nonce`: 32 random bytes (base64url), single use, valid for at least `nonceLifetime` (see `NoncePool`).
    func issueNonce() async throws(WireError) -> String {
        try await noncePool.take()
    }

    /// The account session the request's Bearer token opens (RFC 6750 §3.1: `401 invalid_token` otherwise).
    func authenticate(_ request: Request) async throws(WireError) -> SessionRow {
        guard let token = Self.bearer(request), let session = try await accounts.session(token: token) else {
            throw WireError(.unauthorized, "invalid_token", "a valid account session (Bearer token) is required")
        }
        return session
    }

    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers.first(name: .authorization), value.lowercased().hasPrefix("bearer ") else { return nil }
        return String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
}

/// Holds the services once the bound address (and so the entity identifier) is known; routes are registered
/// before the server starts and answer 503 in the instant before that.
final class ServicesBox: Sendable {
    private let services = Mutex<ProviderServices?>(nil)

    func set(_ value: ProviderServices) { services.withLock { $0 = value } }

    func get() throws(WireError) -> ProviderServices {
        guard let value = services.withLock({ $0 }) else {
            throw WireError(.serviceUnavailable, "temporarily_unavailable", "the provider is starting")
        }
        return value
    }
}
