import Foundation
import NATSClient
import TesseraCore
import VaultProtocol

/// The NATS users a vault signs with its user's account key (design: subjects and permissions in the module README).
struct VaultNATSIdentity: Sendable {
    let bus: VaultBus
    let userGUID: String
    let guid: String
    let clock: any TesseraClock
    let random: any RandomSource

    /// The vault's own connection: receives commands and peer messages, publishes replies and pushes.
    func vaultCredentials() throws -> NATSCredentials {
        try credentials(
            name: "vault-" + guid,
            publish: [VaultSubjects.allForApp(guid)],
            subscribe: [VaultSubjects.allCommands(guid), VaultSubjects.allFromPeers(guid)], expires: nil)
    }

    /// The app's full credentials: publish commands, receive replies and pushes; nothing else.
    func appCredentials(expires: Date) throws -> NATSCredentials {
        try credentials(
            name: "app-" + guid, publish: [VaultSubjects.allCommands(guid)], subscribe: [VaultSubjects.allForApp(guid)],
            expires: expires)
    }

    /// The account JWT with every revocation the vault made (`"*"` revokes every user issued before that time).
    func accountJWT(revocations: [String: Int64]) throws -> String {
        try bus.identity.accountJWT(userGUID: userGUID, revocations: revocations, clock: AnyTesseraClock(clock))
    }

    private func credentials(name: String, publish: [String], subscribe: [String], expires: Date?) throws -> NATSCredentials {
        let account = try bus.identity.accountKey(userGUID: userGUID)
        let user = try NKeyPair(type: .user, random: AnyRandomSource(random))
        let jwt = try UserClaims(
            user: user.publicKeyString, name: name, publish: NATSPermission(allow: publish),
            subscribe: NATSPermission(allow: subscribe), expires: expires
        ).encode(signedBy: account, clock: AnyTesseraClock(clock))
        return try NATSCredentials(jwt: jwt, userKey: user)
    }
}
