import Foundation

/// The NATS subjects of a user's vault (all inside the user's own account). `guid` is the user_guid without dashes,
/// lowercase hex, which keeps every subject one token per level.
public enum VaultSubjects {
    /// The only command sent in the clear: the app's first message, answered with a signed reply.
    public static let bootstrapType = "app.bootstrap"

    /// The user_guid (with or without dashes) as the 32 lowercase hex characters the subjects use.
    public static func guid(userGUID: String) throws(VaultProtocolError) -> String {
        let compact = userGUID.replacingOccurrences(of: "-", with: "").lowercased()
        guard compact.utf8.count == 32, compact.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
        else { throw .malformed("user_guid is not a UUID") }
        return compact
    }

    public static func ownerSpace(_ guid: String) -> String { "OwnerSpace." + guid }
    public static func messageSpace(_ guid: String) -> String { "MessageSpace." + guid }

    /// `OwnerSpace.{guid}.forVault.{type}`: an app → vault command.
    public static func command(_ guid: String, type: String) -> String { ownerSpace(guid) + ".forVault." + type }
    /// Everything the vault receives from the app.
    public static func allCommands(_ guid: String) -> String { ownerSpace(guid) + ".forVault.>" }

    /// `OwnerSpace.{guid}.forApp.{type}.{id}`: the vault's reply to event `id`.
    public static func reply(_ guid: String, type: String, id: String) -> String {
        ownerSpace(guid) + ".forApp." + type + "." + id
    }
    /// `OwnerSpace.{guid}.forApp.{notification}`: a push.
    public static func notification(_ guid: String, _ notification: VaultNotification) -> String {
        ownerSpace(guid) + ".forApp." + notification.rawValue
    }
    /// Everything the app receives.
    public static func allForApp(_ guid: String) -> String { ownerSpace(guid) + ".forApp.>" }

    /// `MessageSpace.{guid}.forOwner.{kind}`: a peer vault → this vault.
    public static func peer(_ guid: String, kind: String) -> String { messageSpace(guid) + ".forOwner." + kind }
    /// Everything this vault receives from its peers.
    public static func allFromPeers(_ guid: String) -> String { messageSpace(guid) + ".forOwner.>" }
}

/// The vault's pushes to the app (`OwnerSpace.{guid}.forApp.{rawValue}`).
public enum VaultNotification: String, Sendable, CaseIterable {
    case newMessage = "new-message"
    case readReceipt = "read-receipt"
    case profileUpdate = "profile-update"
    case connectionRevoked = "connection-revoked"
    case credentialsRotate = "credentials.rotate"
}
