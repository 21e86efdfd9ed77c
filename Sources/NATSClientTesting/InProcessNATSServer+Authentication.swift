import Foundation
import NATSClient
import TesseraCore

/// CONNECT in operator mode, with nats-server's checks (server/auth.go, `processClientOrLeafAuthentication`).
extension InProcessNATSServer {
    struct Admission {
        var connection: UInt64
        var account: String
        var user: String
        var permissions: UserPermissions
    }

    /// Admits `credentials`: the user JWT verifies under its issuer; the issuer is the account, or a signing key
    /// the account lists when the JWT names the account in `issuer_account`; the account is known and not expired;
    /// the user JWT is within `nbf`/`exp` and not revoked; the creds' seed signs a fresh nonce that verifies under
    /// the user key of the JWT (proof of possession, as the server's nonce in INFO; skipped for bearer JWTs as the
    /// server does). The connection is registered under the account before returning, so a revocation pushed
    /// afterwards reaches it.
    func admit(_ credentials: NATSCredentials) throws(NATSError) -> Admission {
        let refused = NATSError.authorizationViolation("Authorization Violation")
        let now = clock.now()
        let user: NATSJWT<UserClaims>
        do {
            user = try NATSJWT<UserClaims>(credentials.jwt)
            try user.validate(at: now)
        } catch {
            throw refused
        }
        let claims = user.claims
        guard claims.nats.resp == nil else { throw refused }
        if let types = claims.nats.allowed_connection_types, !types.isEmpty, !types.contains("STANDARD") { throw refused }
        if claims.nats.bearer_token != true {
            guard proves(credentials, user: claims.sub) else { throw refused }
        }
        let accountKey = claims.nats.issuer_account ?? claims.iss
        let signingKey = claims.nats.issuer_account == nil ? nil : claims.iss
        return try state.withLock { state throws(NATSError) -> Admission in
            guard let account = state.accounts[accountKey]?.jwt, (try? account.validate(at: now)) != nil else { throw refused }
            if let signingKey, !(account.claims.nats.signing_keys ?? []).contains(signingKey) { throw refused }
            guard !account.claims.revokes(user: claims.sub, issuedAt: claims.iat) else { throw refused }
            let id = state.nextID()
            state.accounts[accountKey]?.connections[id] = LiveConnection(
                user: claims.sub, issuedAt: claims.iat, signingKey: signingKey)
            let permissions = UserPermissions(user: claims.nats, account: account.claims.nats)
            return Admission(connection: id, account: accountKey, user: claims.sub, permissions: permissions)
        }
    }

    /// The handshake's proof: the creds sign a random nonce (CONNECT `sig`) and it verifies under `user`.
    private func proves(_ credentials: NATSCredentials, user: String) -> Bool {
        let nonce = Base64URL.encode(random.bytes(11))
        guard let signature = try? credentials.signNonce(nonce), let raw = Base64URL.decodeIfValid(signature),
            let key = try? NKeyPair(publicKey: user, expected: .user)
        else { return false }
        return key.verify(raw, for: Data(nonce.utf8))
    }
}
