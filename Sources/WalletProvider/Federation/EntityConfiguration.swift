import Foundation
import Synchronization
import TesseraCore
import TesseraJOSE

/// The provider's OpenID Federation Entity Configuration (IT-Wallet "Wallet Provider metadata"): a self-signed
/// `entity-statement+jwt` with `iss` = `sub` = the entity identifier, its federation keys, and the metadata of
/// every version it speaks (`EntityMetadata`). Signed once and served from memory until a quarter of its
/// lifetime is left, then signed again.
final class EntityConfigurationIssuer: Sendable {
    static let mediaType = "application/entity-statement+jwt"

    private let key: ProviderKey
    private let configuration: WalletProviderConfiguration
    private let baseURL: String
    private let cached = Mutex<(jwt: String, expiresAt: Date)?>(nil)

    init(key: ProviderKey, configuration: WalletProviderConfiguration, baseURL: String) {
        self.key = key
        self.configuration = configuration
        self.baseURL = baseURL
    }

    func current() throws(WalletProviderError) -> String {
        let now = configuration.clock.now()
        let renewBefore = configuration.entityConfigurationLifetime / 4
        if let entry = cached.withLock({ $0 }), entry.expiresAt.timeIntervalSince(now) > renewBefore { return entry.jwt }
        let expiresAt = now.addingTimeInterval(configuration.entityConfigurationLifetime)
        let jwt = try sign(now: now, expiresAt: expiresAt)
        cached.withLock { $0 = (jwt, expiresAt) }
        return jwt
    }

    private func sign(now: Date, expiresAt: Date) throws(WalletProviderError) -> String {
        let claims: JSONObject = [
            "iss": .string(baseURL),
            "sub": .string(baseURL),
            "iat": .integer(Int64(now.timeIntervalSince1970)),
            "exp": .integer(Int64(expiresAt.timeIntervalSince1970)),
            "authority_hints": .array(configuration.authorityHints.map { .string($0) }),
            // The federation keys: they sign Entity Statements only (attestation keys are in the metadata).
            "jwks": ["keys": [.object(key.publicJWK.jsonObject)]],
            "metadata": .object(EntityMetadata.object(configuration: configuration, baseURL: baseURL)),
        ]
        let header: JSONObject = ["typ": "entity-statement+jwt", "kid": .string(key.kid)]
        do {
            return try CompactJWS.sign(header: header, claims: claims, key: key.signingKey).compact
        } catch {
            throw .configuration("signing the entity configuration failed")
        }
    }
}
