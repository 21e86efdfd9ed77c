extension AccountClaims {
    /// The `revocations` key that revokes every user of the account issued up to its time.
    public static let allUsers = "*"

    /// Whether these claims revoke the user JWT with subject `user` and `iat` `issuedAt`.
    ///
    /// The rule of nats-server 2.x (server/accounts.go `isRevoked`, checked on CONNECT and, when an account JWT
    /// with revocations arrives, against every live connection of the account): a user JWT is revoked when
    /// `revocations[user]` or `revocations["*"]` is **≥ its `iat`**. So a JWT issued in the very second of the
    /// revocation is revoked too, and a new JWT for the same user key issued in a later second is accepted again
    /// (revoking at time T means "every JWT of this key issued until T"). Observed with nats-server 2.9.10
    /// (RevocationTests): the live connection gets `-ERR 'User Authentication Revoked'` and is closed, and
    /// reconnecting with the same JWT is refused with `Authorization Violation`.
    public func revokes(user: String, issuedAt: Int64) -> Bool {
        guard let revocations = nats.revocations, !revocations.isEmpty else { return false }
        if let time = revocations[user], time >= issuedAt { return true }
        if let time = revocations[Self.allUsers], time >= issuedAt { return true }
        return false
    }
}
