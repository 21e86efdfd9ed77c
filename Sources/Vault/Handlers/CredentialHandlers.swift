import Foundation
import ServiceSupport
import TesseraJOSE
import VaultProtocol

/// `credential.{store, get, sync, version}`: the user's credentials (SD-JWT VC, mdoc, … as text), versioned so a
/// device can ask for everything after the version it has, deletions included.
enum CredentialHandlers {
    static func run(_ request: HandlerRequest, db: ServiceSQL) async throws -> JSONObject {
        let records = request.records(.credential, db: db)
        switch request.handler {
        case .credentialStore:
            let store = try CredentialStoreRequest(payload: request.payload)
            var id = store.credentialID ?? ""
            if id.isEmpty { id = await request.runtime.newID() }
            let stored = CredentialRecord(credentialID: id, format: store.format, credential: store.credential, metadata: store.metadata, version: 0, updatedAt: 0)
            let version = try await records.update(id, value: stored.result.serialized(), expectedVersion: nil, upsert: true, now: request.now)
            return CredentialStoreResult(credentialID: id, version: version).result
        case .credentialGet:
            let get = try CredentialGetRequest(payload: request.payload)
            guard let record = try await records.get(get.credentialID), let value = record.value else {
                throw VaultEventError.notFound("credential \(get.credentialID)")
            }
            return try credential(value, record).result
        case .credentialSync:
            let sync = try CredentialSyncRequest(payload: request.payload)
            var credentials: [CredentialRecord] = []
            var deleted: [String] = []
            for record in try await records.changes(since: sync.sinceVersion) {
                if let value = record.value { credentials.append(try credential(value, record)) } else { deleted.append(record.name) }
            }
            return CredentialSyncResult(credentials: credentials, deleted: deleted, version: try await records.currentVersion()).result
        case .credentialVersion:
            _ = try CredentialVersionRequest(payload: request.payload)
            return CredentialVersionResult(version: try await records.currentVersion()).result
        default:
            throw VaultEventError(code: "invalid_request", message: "not a credential command")
        }
    }

    /// The stored credential with the record's own version and time.
    static func credential(_ value: Data, _ record: VaultRecords.Record) throws -> CredentialRecord {
        guard let object = try? JSONValue.parse(value).objectValue, var stored = try? CredentialRecord(result: object) else { throw WireError.server }
        stored.version = record.version
        stored.updatedAt = Int64(record.updatedAt.timeIntervalSince1970)
        return stored
    }
}
