import Foundation
import ServiceSupport
import TesseraJOSE
import VaultProtocol

/// `secrets.datastore.*`: named secrets, each value sealed under the user's key with its metadata.
enum DatastoreHandlers {
    static func run(_ request: HandlerRequest, db: ServiceSQL) async throws -> JSONObject {
        let records = request.records(.secret, db: db)
        switch request.handler {
        case .datastoreAdd:
            let add = try DatastoreAddRequest(payload: request.payload)
            do {
                let version = try await records.add(add.key, value: Stored(value: add.value, metadata: add.metadata).encoded(), now: request.now)
                return DatastoreWriteResult(key: add.key, version: version).result
            } catch VaultRecords.Failure.alreadyExists {
                throw VaultEventError.alreadyExists("secret \(add.key)")
            }
        case .datastoreUpdate:
            let update = try DatastoreUpdateRequest(payload: request.payload)
            let metadata = try await records.get(update.key).flatMap { try? Stored(decoding: $0.value) }?.metadata
            do {
                let version = try await records.update(
                    update.key, value: Stored(value: update.value, metadata: metadata).encoded(), expectedVersion: update.expectedVersion,
                    now: request.now)
                return DatastoreWriteResult(key: update.key, version: version).result
            } catch VaultRecords.Failure.notFound {
                throw VaultEventError.notFound("secret \(update.key)")
            } catch VaultRecords.Failure.versionConflict(let current) {
                throw VaultEventError.versionConflict(current: current)
            }
        case .datastoreRetrieve:
            let retrieve = try DatastoreRetrieveRequest(payload: request.payload)
            guard let record = try await records.get(retrieve.key), let stored = try Stored(decoding: record.value) else {
                throw VaultEventError.notFound("secret \(retrieve.key)")
            }
            return DatastoreRetrieveResult(
                key: retrieve.key, value: stored.value, metadata: stored.metadata, version: record.version,
                updatedAt: Int64(record.updatedAt.timeIntervalSince1970)
            ).result
        case .datastoreDelete:
            let delete = try DatastoreDeleteRequest(payload: request.payload)
            guard try await records.delete(delete.key, now: request.now) else { throw VaultEventError.notFound("secret \(delete.key)") }
            return DatastoreDeleteResult(key: delete.key, deleted: true).result
        case .datastoreList:
            let list = try DatastoreListRequest(payload: request.payload)
            let names = try await records.live().filter { record in
                (list.prefix.map { record.name.hasPrefix($0) } ?? true) && (list.cursor.map { record.name > $0 } ?? true)
            }
            let page = names.prefix(list.limit)
            let items = page.map { DatastoreListItem(key: $0.name, version: $0.version, updatedAt: Int64($0.updatedAt.timeIntervalSince1970)) }
            return DatastoreListResult(items: items, nextCursor: names.count > list.limit ? page.last?.name : nil).result
        default:
            throw VaultEventError(code: "invalid_request", message: "not a datastore command")
        }
    }

    /// A secret as it is sealed: the value and its metadata.
    struct Stored {
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
}
