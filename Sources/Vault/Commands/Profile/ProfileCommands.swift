import Foundation
import ServiceSupport
import TesseraJOSE
import VaultProtocol

// `profile.{get, update, delete}`: the user's profile fields, one sealed record each; the profile's version is the
// newest of its fields' (`profile.broadcast` is with the messages: it goes to peers).

/// `profile.get`: the fields asked for (every field without `fields`) and the profile's version.
enum ProfileGetCommand: VaultCommand {
    static let effect = CommandEffect.read

    static func run(_ get: ProfileGetRequest, in context: CommandContext) async throws -> ProfileGetResult {
        let records = context.records(.profile)
        return ProfileGetResult(profile: try await ProfileFields.read(get.fields, from: records), version: try await ProfileFields.version(records))
    }
}

/// `profile.update`: sets fields (created when new) and removes others; the version of the last change.
enum ProfileUpdateCommand: VaultCommand {
    static let effect = CommandEffect.write

    static func run(_ update: ProfileUpdateRequest, in context: CommandContext) async throws -> ProfileUpdateResult {
        let records = context.records(.profile)
        var version: Int64 = 0
        for (name, value) in (update.set ?? [:]).sorted(by: { $0.key < $1.key }) {
            version = try await records.update(name, value: Data(value.utf8), expectedVersion: nil, upsert: true, now: context.now)
        }
        for name in update.remove ?? [] where try await records.delete(name, now: context.now) {
            version = try await records.currentVersion()
        }
        return ProfileUpdateResult(version: version == 0 ? try await ProfileFields.version(records) : version)
    }
}

/// `profile.delete`: every field.
enum ProfileDeleteCommand: VaultCommand {
    static let effect = CommandEffect.write

    static func run(_ request: ProfileDeleteRequest, in context: CommandContext) async throws -> ProfileDeleteResult {
        let records = context.records(.profile)
        for field in try await records.live() { _ = try await records.delete(field.name, now: context.now) }
        return ProfileDeleteResult(deleted: true)
    }
}

/// Reading the profile, as `profile.get` and `profile.broadcast` do.
enum ProfileFields {
    /// The live fields named in `fields` (every one when nil).
    static func read(_ fields: [String]?, from records: VaultRecords) async throws -> [String: String] {
        var profile: [String: String] = [:]
        for field in try await records.live(values: true) where fields.map({ $0.contains(field.name) }) ?? true {
            profile[field.name] = field.value.map { String(decoding: $0, as: UTF8.self) }
        }
        return profile
    }

    /// The newest change to the profile (0 for none).
    static func version(_ records: VaultRecords) async throws -> Int64 {
        try await records.changes(since: 0, values: false).map(\.version).max() ?? 0
    }
}
