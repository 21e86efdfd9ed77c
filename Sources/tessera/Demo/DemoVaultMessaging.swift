import Foundation
import VaultClient
import VaultProtocol

/// The second half of the vault demo: alice invites bob, both vaults hold each other's connection credentials,
/// a message and its read receipt travel app → vault → vault → app, and a revoked connection stops carrying them.
enum DemoVaultMessaging {
    static func run(alice: DemoVault.User, bob: DemoVault.User) async throws {
        let alicePushes = PushInbox(alice.vault), bobPushes = PushInbox(bob.vault)
        let invite = try await alice.vault.createInvite(label: "bob")
        print("alice: connection.create-invite → an invite carrying NATS credentials that may only publish to her MessageSpace")
        let accepted = try await bob.vault.acceptInvite(invite.invite, label: "alice")
        print("bob: connection.store-credentials → connection \(accepted.connectionID.prefix(8))… \(accepted.status.rawValue)")
        try await waitUntil("alice's side of the connection becomes active") {
            try await alice.vault.connections().contains { $0.connectionID == invite.connectionID && $0.status == .active }
        }
        let sent = try await alice.vault.sendMessage("Lunch at noon?", to: invite.connectionID)
        print("alice: message.send → sealed vault to vault under the connection key; delivered: \(sent.delivered)")
        let message = try await bobPushes.next(.newMessage).push(NewMessagePush.self)
        print("bob's app: forApp.new-message \"\(message.content)\"")
        _ = try await bob.vault.sendReadReceipt(for: message.messageID, on: message.connectionID)
        let receipt = try await alicePushes.next(.readReceipt).push(ReadReceiptPush.self)
        print("alice's app: forApp.read-receipt for message \(receipt.messageID.prefix(8))…")
        _ = try await bob.vault.revokeConnection(accepted.connectionID)
        let revoked = try await alicePushes.next(.connectionRevoked).push(ConnectionRevokedPush.self)
        print("bob: connection.revoke → alice's app: forApp.connection-revoked (\(revoked.connectionID.prefix(8))…)")
        let late = await DemoVault.outcome { () async throws(VaultError) in try await alice.vault.sendMessage("still there?", to: invite.connectionID) }
        print("alice: message.send on the revoked connection → \(late) (her credentials for bob's vault are revoked at the bus too)")
        alicePushes.stop()
        bobPushes.stop()
    }

    static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<250 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw UserFacingError("timed out waiting until \(what)")
    }
}

/// Collects one app's pushes so the demo can wait for a given kind.
final class PushInbox: Sendable {
    private let box = PushBox()
    private let reader: Task<Void, Never>

    init(_ vault: VaultConnection) {
        let box = self.box
        reader = Task {
            for await push in vault.notifications { await box.add(push) }
        }
    }

    func next(_ kind: VaultNotification) async throws -> VaultEventMessage {
        for _ in 0..<250 {
            if let push = await box.take(kind) { return push }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw UserFacingError("no \(kind.rawValue) push arrived")
    }

    func stop() { reader.cancel() }
}

private actor PushBox {
    private var pushes: [VaultEventMessage] = []
    func add(_ push: VaultEventMessage) { pushes.append(push) }
    func take(_ kind: VaultNotification) -> VaultEventMessage? {
        guard let index = pushes.firstIndex(where: { $0.type == kind.rawValue }) else { return nil }
        return pushes.remove(at: index)
    }
}
