import Foundation
import ServiceSupport
import TesseraJOSE
import VaultProtocol

/// `profile.{get, update, delete}`: the user's profile fields, one sealed record each; the profile's version is the
/// newest of its fields'.
enum ProfileHandlers {
    static func run(_ request: HandlerRequest, db: ServiceSQL) async throws -> JSONObject {
        let records = request.records(.profile, db: db)
        switch request.handler {
        case .profileGet:
            let get = try ProfileGetRequest(payload: request.payload)
            let fields = try await records.live(values: true)
            var profile: [String: String] = [:]
            for field in fields where get.fields.map({ $0.contains(field.name) }) ?? true {
                profile[field.name] = field.value.map { String(decoding: $0, as: UTF8.self) }
            }
            return ProfileGetResult(profile: profile, version: try await version(records)).result
        case .profileUpdate:
            let update = try ProfileUpdateRequest(payload: request.payload)
            var version: Int64 = 0
            for (name, value) in (update.set ?? [:]).sorted(by: { $0.key < $1.key }) {
                version = try await records.update(name, value: Data(value.utf8), expectedVersion: nil, upsert: true, now: request.now)
            }
            for name in update.remove ?? [] where try await records.delete(name, now: request.now) {
                version = try await records.currentVersion()
            }
            return ProfileUpdateResult(version: version == 0 ? try await Self.version(records) : version).result
        case .profileDelete:
            _ = try ProfileDeleteRequest(payload: request.payload)
            for field in try await records.live() { _ = try await records.delete(field.name, now: request.now) }
            return ProfileDeleteResult(deleted: true).result
        default:
            throw VaultEventError(code: "invalid_request", message: "not a profile command")
        }
    }

    /// The newest change to the profile (0 for none).
    static func version(_ records: VaultRecords) async throws -> Int64 {
        try await records.changes(since: 0, values: false).map(\.version).max() ?? 0
    }
}
