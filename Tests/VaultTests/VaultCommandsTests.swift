import Testing
import VaultProtocol

@testable import Vault

/// The command table: one command per handler, so a new handler cannot be forgotten (nor registered twice).
@Suite struct VaultCommandsTests {
    @Test func everyHandlerHasExactlyOneCommand() {
        let handlers = VaultCommands.all.map { $0.handler }
        #expect(handlers.count == VaultHandler.allCases.count)
        #expect(Set(handlers) == Set(VaultHandler.allCases))
        for handler in VaultHandler.allCases {
            #expect(VaultCommands.command(for: handler.rawValue)?.handler == handler, "\(handler.rawValue)")
        }
        #expect(VaultCommands.command(for: "secrets.datastore.nope") == nil)
        #expect(VaultCommands.command(for: VaultSubjects.bootstrapType) == nil)
    }

    /// Each command's effect decides where it runs; these are the classes the handlers had before the table.
    @Test func effectsAreTheRuntimesClasses() {
        let reads: Set<VaultHandler> = [
            .datastoreRetrieve, .datastoreList, .profileGet, .credentialGet, .credentialSync, .credentialVersion, .credentialsStatus,
            .connectionList, .connectionGetCredentials, .messageList,
        ]
        let peers: Set<VaultHandler> = [
            .connectionCreateInvite, .connectionStoreCredentials, .connectionRotate, .connectionRevoke, .connectionNotifyRevoke, .messageSend,
            .messageReadReceipt, .profileBroadcast,
        ]
        for command in VaultCommands.all {
            let expected: CommandEffect =
                reads.contains(command.handler) ? .read
                : peers.contains(command.handler) ? .peer : command.handler == .sessionRotate ? .session : .write
            #expect(command.effect == expected, "\(command.handler.rawValue)")
        }
    }
}
