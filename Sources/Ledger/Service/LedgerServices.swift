import Foundation
import LedgerProtocol
import NATSClient
import ServiceSupport
import TesseraCore
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

    /// A new single-use invitation code (`tessera ledger invite`): 128 random bits in RFC 4648 base32, letters and
    /// digits only, so a code is never read as an option on a command line (a base64url code began with `-` once in
    /// 64 and `vault enroll --invitation` refused it) and reads aloud without case.
    func invite() async throws(WireError) -> String {
        let code = Base32.encode(configuration.random.bytes(16))
        try await store.insertInvitation(code: code, expiresAt: now.addingTimeInterval(configuration.invitationLifetime))
        return code
    }
}

/// A request body: a JSON object, read into one of LedgerProtocol's typed requests (400 invalid_request when a member
/// breaks its rule).
struct LedgerBody: Sendable {
    let json: JSONObject

    func decode<Request>(_ parse: (JSONObject) throws(LedgerProtocolError) -> Request) throws(WireError) -> Request {
        do {
            return try parse(json)
        } catch {
            switch error {
            case .malformed(let what): throw WireError(.badRequest, "invalid_request", what)
            default: throw WireError(.badRequest, "invalid_request", error.description)
            }
        }
    }
}
