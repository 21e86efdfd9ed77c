import Crypto
import Foundation
import NATSClient
import TesseraCore
import VaultProtocol

/// Lifetimes and waits of vault ↔ vault connections.
enum ConnectionPolicy {
    /// Connection credentials expire after a year; `connection.rotate` issues new ones.
    static let credentialLifetime: TimeInterval = 365 * 24 * 3600
    /// How long a command waits for the peer vault's acknowledgement (below the app's 5 s request timeout).
    static let ackTimeout: Duration = .seconds(2)
    /// How long a publish to the peer's bus may take to be confirmed (`flush`).
    static let publishTimeout: Duration = .seconds(2)
    /// After a rotation, envelopes under the replaced keys are still opened for this long (already on their way).
    static let rotationGrace: TimeInterval = 300
}

extension VaultNATSIdentity {
    /// Credentials for a peer (design: "connection creds"): a user of this vault's account that may publish only to
    /// `MessageSpace.{guid}.forOwner.>` and subscribe to nothing (an empty allow list would allow everything, so
    /// every subject is denied explicitly).
    func connectionCredentials(connectionID: String, expires: Date) throws -> IssuedCredentials {
        let account = try bus.identity.accountKey(userGUID: userGUID)
        let user = try NKeyPair(type: .user, random: AnyRandomSource(random))
        let jwt = try UserClaims(
            user: user.publicKeyString, name: "connection-" + connectionID,
            publish: NATSPermission(allow: [VaultSubjects.allFromPeers(guid)]), subscribe: NATSPermission(deny: [">"]),
            expires: expires
        ).encode(signedBy: account, clock: AnyTesseraClock(clock))
        let credentials = try NATSCredentials(jwt: jwt, userKey: user)
        return IssuedCredentials(user: user.publicKeyString, expiresAt: Int64(expires.timeIntervalSince1970), credsFile: credentials.credsFile)
    }
}

/// Credentials a peer vault handed over (in an invite, an accept or a rotate), checked before they are used or
/// stored: a valid creds file whose user JWT is signed by the peer's own account key (derived from the operator
/// seed, which only the deployment's vault hosts and ledger hold), is within its validity, and allows publishing
/// exactly to the peer's `MessageSpace.{peer}.forOwner.>`. So a peer cannot make this vault publish anywhere else.
struct PeerCredentials: Sendable {
    let credentials: NATSCredentials
    let claims: UserClaims

    init(_ credsFile: String, peerGUID: String, identity: NATSOperatorIdentity, now: Date) throws(VaultEventError) {
        let refused = VaultEventError(code: "invalid_request", message: "the peer's NATS credentials are not valid for its message space")
        guard let credentials = try? NATSCredentials(credsFile: credsFile), let jwt = try? NATSJWT<UserClaims>(credentials.jwt),
            (try? jwt.validate(at: now)) != nil, jwt.claims.sub == credentials.userKey.publicKeyString,
            jwt.claims.nats.issuer_account == nil,
            let account = try? identity.accountKey(userGUID: Self.userGUID(peerGUID)), jwt.claims.iss == account.publicKeyString,
            jwt.claims.nats.pub.allow == [VaultSubjects.allFromPeers(peerGUID)]
        else { throw refused }
        self.credentials = credentials
        claims = jwt.claims
    }

    /// The user_guid (dashed, as the ledger names accounts) of a 32-hex guid.
    static func userGUID(_ guid: String) -> String {
        let characters = Array(guid)
        guard characters.count == 32 else { return guid }
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
        return groups.joined(separator: "-")
    }
}
