import ArgumentParser
import Foundation
import TesseraJOSE
import VaultClient
import VaultProtocol

/// `tessera vault connect invite|accept|list|revoke`: connections with other users' vaults.
struct VaultConnect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect", abstract: "Connections with other users' vaults (invite, accept, list, revoke).",
        subcommands: [Invite.self, Accept.self, List.self, Revoke.self])

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an invite to hand to the other user (out of band).")
        @Option(help: "Your own name for the connection (not put in the invite).") var label: String?
        @Option(help: "How long the invite stays valid, in seconds.") var ttl: Int64 = ConnectionCreateInviteRequest.defaultTTL
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            let created = try await options.withVault { try await $0.createInvite(label: label, ttlSeconds: ttl) }
            if options.json {
                print(JSONValue.object(created.result).serializedString)
            } else {
                print("connection \(created.connectionID) (pending until accepted; invite valid until \(VaultPrint.time(created.expiresAt)))")
                print(created.invite)
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept another user's invite.")
        @Argument(help: "The invite text (or - to read it from standard input).") var invite: String
        @Option(help: "Your own name for the connection.") var label: String?
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            let text = invite == "-" ? (readLine(strippingNewline: true) ?? "") : invite
            let accepted = try await options.withVault { try await $0.acceptInvite(text.trimmingCharacters(in: .whitespaces), label: label) }
            if options.json {
                print(JSONValue.object(accepted.result).serializedString)
            } else {
                print("connection \(accepted.connectionID) with \(accepted.peerGUID): \(accepted.status.rawValue)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the connections (pending, active, revoked).")
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            let connections = try await options.withVault { try await $0.connections() }
            if options.json {
                print(JSONValue.object(ConnectionListResult(connections: connections).result).serializedString)
            } else if connections.isEmpty {
                print("no connections")
            } else {
                for connection in connections {
                    let label = connection.label.isEmpty ? "" : " \"\(connection.label)\""
                    print("\(connection.connectionID)  \(connection.status.rawValue)  \(connection.peerGUID)\(label)")
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a connection on both sides (the peer can no longer reach your vault).")
        @Argument(help: "The connection id.") var connectionID: String
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            let revoked = try await options.withVault { try await $0.revokeConnection(connectionID) }
            if options.json {
                print(JSONValue.object(revoked.result).serializedString)
            } else {
                print(revoked.revoked ? "connection \(connectionID) revoked" : "connection \(connectionID) was already revoked")
            }
        }
    }
}

/// `tessera vault message send|inbox`: messages over a connection, vault to vault.
struct VaultMessage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "message", abstract: "Messages to and from your connections.", subcommands: [Send.self, Inbox.self])

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a message over a connection.")
        @Argument(help: "The connection id (tessera vault connect list).") var connectionID: String
        @Argument(help: "The text.") var content: String
        @Option(name: .customLong("message-id"), help: "Your id for the message: sending again with the same id never delivers it twice.")
        var messageID: String?
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            let sent = try await options.withVault { try await $0.sendMessage(content, to: connectionID, messageID: messageID) }
            if options.json {
                print(JSONValue.object(sent.result).serializedString)
            } else {
                print("message \(sent.messageID) \(sent.delivered ? "delivered" : "sent (the peer's vault has not acknowledged it yet)")")
            }
        }
    }

    struct Inbox: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Received messages your vault stored (unread ones unless --all), oldest first.")
        @Option(help: "Only this connection.") var connection: String?
        @Flag(help: "Read messages too.") var all = false
        @Flag(name: .customLong("mark-read"), help: "Send a read receipt for each unread message shown.") var markRead = false
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            let messages = try await options.withVault { vault in
                var messages: [StoredMessageSummary] = []
                var page = MessageListRequest(connectionID: connection, direction: .incoming, unreadOnly: !all, limit: MessageListRequest.maxLimit)
                while true {
                    let listed = try await vault.messages(page)
                    messages += listed.messages
                    guard listed.more else { break }
                    // Unread-only pages shift as receipts are sent, so receipts go after the whole list is read.
                    page.offset += Int64(listed.messages.count)
                }
                if markRead {
                    for message in messages where message.readAt == nil {
                        _ = try await vault.sendReadReceipt(for: message.messageID, on: message.connectionID)
                    }
                }
                return messages
            }
            if options.json {
                print(JSONValue.object(MessageListResult(messages: messages, more: false).result).serializedString)
            } else if messages.isEmpty {
                print(all ? "no messages" : "no unread messages")
            } else {
                for message in messages {
                    let read = message.readAt == nil ? (markRead ? " (marked read)" : " (unread)") : ""
                    print("[\(VaultPrint.time(message.sentAt))] \(message.connectionID) \(message.messageID)\(read): \(message.content)")
                }
            }
        }
    }
}

enum VaultPrint {
    static func time(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
