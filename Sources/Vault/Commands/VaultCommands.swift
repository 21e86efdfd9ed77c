import VaultProtocol

/// Every command of the vault, registered once (ARCHITECTURE.md decision 11). What a handler is — its payloads, its
/// effect, its code — is its `VaultCommand` type; nothing else names handlers. `VaultCommandsTests` checks that every
/// `VaultHandler` has exactly one command here.
enum VaultCommands {
    static let all: [any VaultCommand.Type] = [
        DatastoreAddCommand.self, DatastoreUpdateCommand.self, DatastoreRetrieveCommand.self, DatastoreDeleteCommand.self,
        DatastoreListCommand.self,
        ProfileGetCommand.self, ProfileUpdateCommand.self, ProfileDeleteCommand.self, ProfileBroadcastCommand.self,
        CredentialStoreCommand.self, CredentialSyncCommand.self, CredentialGetCommand.self, CredentialVersionCommand.self,
        CredentialsRefreshCommand.self, CredentialsStatusCommand.self,
        ConnectionCreateInviteCommand.self, ConnectionStoreCredentialsCommand.self, ConnectionRotateCommand.self,
        ConnectionRevokeCommand.self, ConnectionListCommand.self, ConnectionGetCredentialsCommand.self,
        ConnectionNotifyRevokeCommand.self,
        MessageSendCommand.self, MessageReadReceiptCommand.self, MessageListCommand.self,
        SessionRotateCommand.self,
    ]

    /// `all` by handler; a second command for the same handler would be ignored (the test refuses it).
    static let byHandler: [VaultHandler: any VaultCommand.Type] = Dictionary(all.map { ($0.handler, $0) }, uniquingKeysWith: { first, _ in first })

    /// The command of an event's `type`; nil outside the catalogue.
    static func command(for type: String) -> (any VaultCommand.Type)? {
        VaultHandler(rawValue: type).flatMap { byHandler[$0] }
    }
}
