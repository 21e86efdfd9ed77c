import Foundation
import ServiceSupport
import TesseraJOSE
import VaultProtocol

/// One decrypted command as a handler sees it: who, what, when, and the database (inside the command's
/// transaction when it changes state).
struct HandlerRequest: Sendable {
    let handler: VaultHandler
    let payload: JSONObject
    let userGUID: String
    let guid: String
    let keyring: VaultKeyring
    let now: Date
    let runtime: VaultRuntime
    /// The running vault's record cache, for read-only commands only (nil inside a command's transaction).
    var cache: VaultRecordCache? = nil

    var timestamp: Int64 { Int64(now.timeIntervalSince1970) }

    func records(_ collection: VaultCollection, db: ServiceSQL) -> VaultRecords {
        VaultRecords(db: db, keyring: keyring, collection: collection.rawValue, cache: cache)
    }

    /// Work that must wait until the command's transaction committed (pushes, messages to peers).
    func afterCommit() async {}
}

/// The record collections of a vault.
enum VaultCollection: String {
    case secret, profile, credential
}

extension VaultEventError {
    static func notFound(_ what: String) -> VaultEventError { VaultEventError(code: "not_found", message: "\(what) does not exist") }
    static func alreadyExists(_ what: String) -> VaultEventError { VaultEventError(code: "already_exists", message: "\(what) already exists") }
    static func versionConflict(current: Int64) -> VaultEventError {
        VaultEventError(code: "version_conflict", message: "the record is at version \(current)")
    }
}
