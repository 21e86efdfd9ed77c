import Foundation
import LedgerProtocol
import ServiceSupport
import TesseraJOSE

/// What the routes call, built once at start.
struct LedgerServices: Sendable {
    let configuration: LedgerConfiguration
    let store: LedgerStore
    let keys: LedgerKeys
    let issuer: CredentialIssuer
    let limiter: RateLimiter

    init(configuration: LedgerConfiguration, master: MasterKey, sql: ServiceSQL) {
        self.configuration = configuration
        store = LedgerStore(db: sql)
        keys = LedgerKeys(master: master, random: configuration.random)
        issuer = CredentialIssuer(keys: keys, configuration: configuration)
        limiter = RateLimiter(clock: configuration.clock)
    }

    var now: Date { configuration.clock.now() }

    /// A new single-use invitation code (`tessera ledger invite`).
    func invite() async throws(WireError) -> String {
        let code = Base64URL.encode(configuration.random.bytes(16))
        try await store.insertInvitation(code: code, expiresAt: now.addingTimeInterval(configuration.invitationLifetime))
        return code
    }
}

/// Reading request bodies: a JSON object with string members (400 invalid_request otherwise).
struct LedgerBody: Sendable {
    let json: JSONObject

    func string(_ name: String, max: Int = 256) throws(WireError) -> String {
        guard let value = json[name]?.stringValue, !value.isEmpty, value.utf8.count <= max else {
            throw WireError(.badRequest, "invalid_request", "\(name) must be a non-empty string of at most \(max) bytes")
        }
        return value
    }

    func sealed(_ name: String) throws(WireError) -> SealedBox {
        do {
            return try SealedBox(json: json[name]?.objectValue)
        } catch {
            throw WireError(.badRequest, "invalid_request", "\(name): \(error.description)")
        }
    }
}
