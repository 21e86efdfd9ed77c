import Foundation
import ServiceSupport
import TesseraJOSE
import VaultProtocol

// `secrets.datastore.*`: named secrets, each value sealed under the user's key with its metadata (`StoredSecret`).

/// `secrets.datastore.add`: refused when a live secret of that name exists.
enum DatastoreAddCommand: VaultCommand {
    static let effect = CommandEffect.write

    static func run(_ add: DatastoreAddRequest, in context: CommandContext) async throws -> DatastoreWriteResult {
        do {
            let stored = StoredSecret(value: add.value, metadata: add.metadata)
            let version = try await context.records(.secret).add(add.key, value: stored.encoded(), now: context.now)
            return DatastoreWriteResult(key: add.key, version: version)
        } catch VaultRecords.Failure.alreadyExists {
            throw VaultEventError.alreadyExists("secret \(add.key)")
        }
    }
}

/// `secrets.datastore.update`: a new value for a live secret (at `expected_version` when given); its metadata stays.
enum DatastoreUpdateCommand: VaultCommand {
    static let effect = CommandEffect.write

    static func run(_ update: DatastoreUpdateRequest, in context: CommandContext) async throws -> DatastoreWriteResult {
        let records = context.records(.secret)
        let metadata = try await records.get(update.key).flatMap { try? StoredSecret(decoding: $0.value) }?.metadata
        do {
            let version = try await records.update(
                update.key, value: StoredSecret(value: update.value, metadata: metadata).encoded(), expectedVersion: update.expectedVersion,
                now: context.now)
            return DatastoreWriteResult(key: update.key, version: version)
        } catch VaultRecords.Failure.notFound {
            throw VaultEventError.notFound("secret \(update.key)")
        } catch VaultRecords.Failure.versionConflict(let current) {
            throw VaultEventError.versionConflict(current: current)
        }
    }
}

/// `secrets.datastore.retrieve`: the secret, its metadata and version.
enum DatastoreRetrieveCommand: VaultCommand {
    static let effect = CommandEffect.read

    static func run(_ retrieve: DatastoreRetrieveRequest, in context: CommandContext) async throws -> DatastoreRetrieveResult {
        guard let record = try await context.records(.secret).get(retrieve.key), let stored = try StoredSecret(decoding: record.value) else {
            throw VaultEventError.notFound("secret \(retrieve.key)")
        }
        return DatastoreRetrieveResult(
            key: retrieve.key, value: stored.value, metadata: stored.metadata, version: record.version,
            updatedAt: Int64(record.updatedAt.timeIntervalSince1970))
    }
}

/// `secrets.datastore.delete`: the record becomes a tombstone (its version moves on like any change).
enum DatastoreDeleteCommand: VaultCommand {
    static let effect = CommandEffect.write

    static func run(_ delete: DatastoreDeleteRequest, in context: CommandContext) async throws -> DatastoreDeleteResult {
        guard try await context.records(.secret).delete(delete.key, now: context.now) else { throw VaultEventError.notFound("secret \(delete.key)") }
        return DatastoreDeleteResult(key: delete.key, deleted: true)
    }
}

/// `secrets.datastore.list`: names in order, after `cursor`, at most `limit`.
enum DatastoreListCommand: VaultCommand {
    static let effect = CommandEffect.read

    static func run(_ list: DatastoreListRequest, in context: CommandContext) async throws -> DatastoreListResult {
        let names = try await context.records(.secret).live().filter { record in
            (list.prefix.map { record.name.hasPrefix($0) } ?? true) && (list.cursor.map { record.name > $0 } ?? true)
        }
        let page = names.prefix(list.limit)
        let items = page.map { DatastoreListItem(key: $0.name, version: $0.version, updatedAt: Int64($0.updatedAt.timeIntervalSince1970)) }
        return DatastoreListResult(items: items, nextCursor: names.count > list.limit ? page.last?.name : nil)
    }
}

/// A secret as it is sealed: the value and its metadata.
struct StoredSecret {
    let value: String
    let metadata: [String: String]?

    init(value: String, metadata: [String: String]?) {
        self.value = value
        self.metadata = metadata
    }

    /// nil for a tombstone.
    init?(decoding data: Data?) throws {
        guard let data else { return nil }
        guard let object = try JSONValue.parse(data).objectValue, case .string(let value)? = object["value"] else { throw WireError.server }
        self.value = value
        if case .object(let meta)? = object["metadata"] {
            var metadata: [String: String] = [:]
            for member in meta { if case .string(let text) = member.value { metadata[member.key] = text } }
            self.metadata = metadata
        } else {
            metadata = nil
        }
    }

    func encoded() -> Data {
        var object: JSONObject = ["value": .string(value)]
        if let metadata {
            var meta = JSONObject()
            for (name, text) in metadata.sorted(by: { $0.key < $1.key }) { meta[name] = .string(text) }
            object["metadata"] = .object(meta)
        }
        return object.serialized()
    }
}
