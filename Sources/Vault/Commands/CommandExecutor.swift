import Foundation
import ServiceSupport
import TesseraJOSE
import VaultProtocol

/// Runs a command and gives its answer as the bytes that go out, encoded once. A `write` runs once per event id: in
/// one transaction with the record of its answer, so a retry (same id, new envelope) gets the first answer — the
/// recorded bytes as they are. A replay after a takeover never gets here: the runtime saved the session's floor
/// above its seq before it was first answered (`SessionGate.floor`).
struct CommandExecutor: Sendable {
    let sql: ServiceSQL
    let keyring: VaultKeyring

    func run(_ command: any VaultCommand.Type, _ event: VaultEventMessage, in context: CommandContext) async -> Data {
        let timestamp = context.timestamp
        guard command.effect == .write else {
            return await Self.answer(event.id, timestamp) { try await command.answer(event.payload, in: context) }.encoded()
        }
        let keyring = self.keyring, now = context.now
        do {
            return try await sql.transaction(rollback: Refused.self) { tx in
                let sessions = VaultSessionStore(db: tx, keyring: keyring)
                if let earlier = try await sessions.handled(eventID: event.id) { return earlier }
                var inTransaction = context
                inTransaction.db = tx
                let response = await Self.answer(event.id, timestamp) { try await command.answer(event.payload, in: inTransaction) }
                // A refused command leaves nothing of what it wrote before refusing: roll it all back.
                guard response.success else { throw Refused(response: response) }
                return try await Self.record(response, eventID: event.id, now: now, in: sessions)
            }
        } catch let refused as Refused {
            // A failure of the storage is not an answer: nothing is kept, a retry of the event runs it again.
            if let code = refused.response.error?.code, Self.transient.contains(code) { return refused.response.encoded() }
            // A refusal by the rules is kept (the same answer for a retry of the event).
            let encoded = try? await sql.transaction { tx in
                try await Self.record(refused.response, eventID: event.id, now: now, in: VaultSessionStore(db: tx, keyring: keyring))
            }
            return encoded ?? Self.unavailable(event.id, timestamp).encoded()
        } catch {
            return Self.unavailable(event.id, timestamp).encoded()
        }
    }

    /// The answer to a type outside the catalogue.
    static func unknownCommand(_ event: VaultEventMessage, now: Date) -> Data {
        VaultEventResponse.failure(
            eventID: event.id, error: VaultEventError(code: "unknown_command", message: "no handler for \(event.type)"),
            timestamp: Int64(now.timeIntervalSince1970)
        ).encoded()
    }

    /// Keeps the answer for retries, in the caller's transaction; the bytes kept are the bytes sent.
    private static func record(_ response: VaultEventResponse, eventID: String, now: Date, in sessions: VaultSessionStore) async throws -> Data {
        let encoded = response.encoded()
        try await sessions.recordHandled(eventID: eventID, response: encoded, now: now)
        return encoded
    }

    static let transient: Set<String> = ["server_error", "temporarily_unavailable"]

    private static func unavailable(_ eventID: String, _ timestamp: Int64) -> VaultEventResponse {
        .failure(eventID: eventID, error: VaultEventError(code: "temporarily_unavailable", message: "the vault's storage is not available"), timestamp: timestamp)
    }

    /// Thrown out of a command's transaction to roll back a command that refused.
    private struct Refused: Error {
        let response: VaultEventResponse
    }

    /// The command's result, or its rule error as the response's error (anything else: `server_error`).
    static func answer(_ eventID: String, _ timestamp: Int64, _ body: () async throws -> JSONObject) async -> VaultEventResponse {
        do {
            return .success(eventID: eventID, result: try await body(), timestamp: timestamp)
        } catch {
            return failure(eventID, timestamp, error)
        }
    }

    static func failure(_ eventID: String, _ timestamp: Int64, _ error: any Error) -> VaultEventResponse {
        switch error {
        case let error as VaultEventError:
            return .failure(eventID: eventID, error: error, timestamp: timestamp)
        case let error as WireError where error.status == .serviceUnavailable:
            return .failure(eventID: eventID, error: VaultEventError(code: "temporarily_unavailable", message: "the vault's storage is not available"), timestamp: timestamp)
        case let error as VaultProtocolError:
            return .failure(eventID: eventID, error: VaultEventError(code: "invalid_request", message: error.description), timestamp: timestamp)
        default:
            return .failure(eventID: eventID, error: VaultEventError(code: "server_error", message: "the command could not be handled"), timestamp: timestamp)
        }
    }
}
