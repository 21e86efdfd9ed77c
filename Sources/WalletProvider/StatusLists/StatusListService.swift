import Foundation
import ITWalletProtocol
import ServiceSupport
import TesseraCOSE
import TesseraCore
import TokenStatusList

/// The Token Status Lists of the provider's attestations (1.5 WIA `client_status`, 1.3 / 1.5 Key Attestation
/// `status` / `key_storage_status`; TSL §8, IT-Wallet 1.5 "Token Status List (Wallet Unit Attestation Profile)"),
/// served at `GET /status-lists/{id}`, the exact `uri` the attestations name.
///
/// A token is signed with the signing identity (`kid`, `x5c` / `x5chain`), `sub` = that URL, `iat`, `exp` = `iat` +
/// `statusListLifetime`, `ttl` = `statusListTimeToLive`, and kept in the list's row with the list `version` it
/// shows. It is rebuilt from the entries when the list changed since (a revocation bumps `version` in its own
/// transaction) or when it is `ttl` old: a revoked entry is INVALID in the very next token served, and a relying
/// party that caches for `ttl` sees it at most `ttl` after the revocation committed.
struct StatusListService: Sendable {
    let configuration: WalletProviderConfiguration
    let baseURL: String
    let store: StatusListTokenStore

    /// A served token: its bytes in the negotiated form, and how long it may be cached.
    struct Served: Sendable {
        let body: Data
        let format: StatusListFormat
        /// `ttl`, whole seconds.
        let timeToLive: Int
    }

    /// The `uri` of list `listID`: the provider's identifier and `/status-lists/{id}`.
    static func uri(listID: String, baseURL: String) -> String {
        baseURL + ITWalletEndpoint.statusList(listID)
    }

    /// `ttl` (TSL §5.1: a positive number) in whole seconds.
    var timeToLive: Int { max(1, Int(configuration.statusListTimeToLive.rounded(.up))) }

    /// The list's token in `format`; 404 `not_found` for a list that does not exist.
    func token(listID: String, format: StatusListFormat) async throws(WireError) -> Served {
        guard Self.isListID(listID), let row = try await store.list(id: listID) else {
            throw WireError(.notFound, "not_found", "no status list is served at this URL")
        }
        let now = configuration.clock.now()
        let (jwt, cwt) = try await current(row, now: now)
        switch format {
        case .jwt: return Served(body: Data(jwt.utf8), format: .jwt, timeToLive: timeToLive)
        case .cwt:
            guard let bytes = Base64URL.decodeIfValid(cwt) else { throw WireError.server }
            return Served(body: bytes, format: .cwt, timeToLive: timeToLive)
        }
    }

    /// The stored tokens while they show the list's version, are younger than `ttl` (and their `exp`) and are
    /// what this provider would sign now (its `sub`, its signing key: not those of before a key rotation or of a
    /// provider at another URL), else new ones, stored for the other instances.
    private func current(_ row: StatusListRow, now: Date) async throws(WireError) -> (jwt: String, cwt: String) {
        let age = now.timeIntervalSince1970 - row.token_issued_at
        let freshFor = min(TimeInterval(timeToLive), configuration.statusListLifetime)
        if row.token_version == row.version, age >= 0, age < freshFor, let jwt = row.token_jwt, let cwt = row.token_cwt,
            let stored = try? StatusListToken(parsing: jwt), stored.subject == Self.uri(listID: row.id, baseURL: baseURL),
            stored.jwt.keyID == configuration.signingIdentity.kid
        {
            return (jwt, cwt)
        }
        let entries = try await store.nonValidEntries(listID: row.id)
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let claims: StatusListTokenClaims
        do {
            let list = try StatusList(bits: row.bits, count: row.capacity, statuses: entries)
            claims = StatusListTokenClaims(
                statusList: list, subject: Self.uri(listID: row.id, baseURL: baseURL), issuedAt: issuedAt,
                expiresAt: issuedAt.addingTimeInterval(configuration.statusListLifetime.rounded(.down)),
                timeToLive: timeToLive)
        } catch {
            throw WireError.server
        }
        let (jwt, cwt) = try sign(claims)
        try await store.store(
            listID: row.id, version: row.version, issuedAt: issuedAt.timeIntervalSince1970, jwt: jwt, cwt: cwt)
        return (jwt, cwt)
    }

    /// Both forms of the same claims, so the JWT and the CWT served for one version never disagree.
    private func sign(_ claims: StatusListTokenClaims) throws(WireError) -> (jwt: String, cwt: String) {
        let identity = configuration.signingIdentity
        do {
            let jwt = try StatusListToken.issue(
                claims, key: identity.signingKey, keyID: identity.kid, x5c: identity.certificateChain)
            let cwt = try StatusListCWT.issue(
                claims, key: .p256(identity.privateKey), keyID: Data(identity.kid.utf8), x5chain: identity.certificateChain)
            return (jwt.jwt.compact, Base64URL.encode(cwt.bytes))
        } catch {
            throw WireError.server
        }
    }

    /// List identifiers are base64url (`StatusListStore`: 12 random bytes); anything else names no list.
    static func isListID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }
    }
}
