import Foundation
import ServiceSupport
import TesseraJOSE
import VaultProtocol

// `credential.{store, get, sync, version}`: the user's credentials (SD-JWT VC, mdoc, … as text), versioned so a device
// can ask for everything after the version it has, deletions included.

/// `credential.store`: stores (or replaces) a credential under its id, a new id when none is given.
enum CredentialStoreCommand: VaultCommand {
    static let effect = CommandEffect.write

    static func run(_ store: CredentialStoreRequest, in context: CommandContext) async throws -> CredentialStoreResult {
        var id = store.credentialID ?? ""
        if id.isEmpty { id = VaultID.make(context.random) }
        let stored = CredentialRecord(credentialID: id, format: store.format, credential: store.credential, metadata: store.metadata, version: 0, updatedAt: 0)
        let version = try await context.records(.credential).update(
            id, value: stored.result.serialized(), expectedVersion: nil, upsert: true, now: context.now)
        return CredentialStoreResult(credentialID: id, version: version)
    }
}

/// `credential.get`: one credential with its record's version and time.
enum CredentialGetCommand: VaultCommand {
    static let effect = CommandEffect.read

    static func run(_ get: CredentialGetRequest, in context: CommandContext) async throws -> CredentialRecord {
        guard let record = try await context.records(.credential).get(get.credentialID), let value = record.value else {
            throw VaultEventError.notFound("credential \(get.credentialID)")
        }
        return try StoredCredential.open(value, record)
    }
}

/// `credential.sync`: every credential changed after `since_version`, and the ids deleted since.
enum CredentialSyncCommand: VaultCommand {
    static let effect = CommandEffect.read

    static func run(_ sync: CredentialSyncRequest, in context: CommandContext) async throws -> CredentialSyncResult {
        let records = context.records(.credential)
        var credentials: [CredentialRecord] = []
        var deleted: [String] = []
        for record in try await records.changes(since: sync.sinceVersion) {
            if let value = record.value { credentials.append(try StoredCredential.open(value, record)) } else { deleted.append(record.name) }
        }
        return CredentialSyncResult(credentials: credentials, deleted: deleted, version: try await records.currentVersion())
    }
}

/// `credential.version`: the user's newest version (a device compares it with its own before syncing).
enum CredentialVersionCommand: VaultCommand {
    static let effect = CommandEffect.read

    static func run(_ request: CredentialVersionRequest, in context: CommandContext) async throws -> CredentialVersionResult {
        CredentialVersionResult(version: try await context.records(.credential).currentVersion())
    }
}

/// A credential as it is sealed: its `CredentialRecord` JSON (version and time come from the record).
enum StoredCredential {
    static func open(_ value: Data, _ record: VaultRecords.Record) throws -> CredentialRecord {
        guard let object = try? JSONValue.parse(value).objectValue, var stored = try? CredentialRecord(result: object) else { throw WireError.server }
        stored.version = record.version
        stored.updatedAt = Int64(record.updatedAt.timeIntervalSince1970)
        return stored
    }
}
