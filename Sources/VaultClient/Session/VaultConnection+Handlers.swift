import Foundation
import TesseraJOSE
import VaultProtocol

/// The typed API: one method per handler, each a `perform` of its request payload.
extension VaultConnection {
    /// Sends `request` to its handler and decodes the answer as `result`.
    public func perform<Request: VaultRequestPayload, Result: VaultResultPayload>(
        _ request: Request, expecting result: Result.Type
    ) async throws(VaultError) -> Result {
        let answer = try await self.request(Request.handler.rawValue, payload: request.payload)
        do {
            return try Result(result: answer)
        } catch {
            throw .invalidResponse("\(Request.handler.rawValue): \(error)")
        }
    }

    // MARK: secrets.datastore

    /// `secrets.datastore.add`: stores a new secret under `key`; the vault seals it under the user's key.
    public func addSecret(_ key: String, value: String, metadata: [String: String]? = nil) async throws(VaultError) -> DatastoreWriteResult {
        try await perform(DatastoreAddRequest(key: key, value: value, metadata: metadata), expecting: DatastoreWriteResult.self)
    }

    /// `secrets.datastore.update`: replaces the value; with `expectedVersion`, only if the secret is still at that version.
    public func updateSecret(_ key: String, value: String, expectedVersion: Int64? = nil) async throws(VaultError) -> DatastoreWriteResult {
        try await perform(DatastoreUpdateRequest(key: key, value: value, expectedVersion: expectedVersion), expecting: DatastoreWriteResult.self)
    }

    /// `secrets.datastore.retrieve`: the value, metadata and version of `key`.
    public func secret(_ key: String) async throws(VaultError) -> DatastoreRetrieveResult {
        try await perform(DatastoreRetrieveRequest(key: key), expecting: DatastoreRetrieveResult.self)
    }

    /// `secrets.datastore.delete`.
    public func deleteSecret(_ key: String) async throws(VaultError) -> DatastoreDeleteResult {
        try await perform(DatastoreDeleteRequest(key: key), expecting: DatastoreDeleteResult.self)
    }

    /// `secrets.datastore.list`: keys (with versions) under `prefix`, a page of up to `limit` (1…1000), continued from `cursor`.
    public func listSecrets(prefix: String? = nil, limit: Int = DatastoreListRequest.defaultLimit, cursor: String? = nil) async throws(VaultError) -> DatastoreListResult {
        try await perform(DatastoreListRequest(prefix: prefix, limit: limit, cursor: cursor), expecting: DatastoreListResult.self)
    }

    // MARK: profile

    /// `profile.get`: the profile, or only `fields` of it.
    public func profile(fields: [String]? = nil) async throws(VaultError) -> ProfileGetResult {
        try await perform(ProfileGetRequest(fields: fields), expecting: ProfileGetResult.self)
    }

    /// `profile.update`: sets and removes fields; answers the new version.
    public func updateProfile(set: [String: String]? = nil, remove: [String]? = nil) async throws(VaultError) -> ProfileUpdateResult {
        try await perform(ProfileUpdateRequest(set: set, remove: remove), expecting: ProfileUpdateResult.self)
    }

    /// `profile.delete`.
    public func deleteProfile() async throws(VaultError) -> ProfileDeleteResult {
        try await perform(ProfileDeleteRequest(), expecting: ProfileDeleteResult.self)
    }

    // MARK: credential (the user's credentials kept in the vault)

    /// `credential.store`: keeps a credential (e.g. an SD-JWT VC) in the vault; a new id is chosen when `id` is nil.
    public func storeCredential(id: String? = nil, format: String, credential: String, metadata: [String: String]? = nil) async throws(VaultError) -> CredentialStoreResult {
        try await perform(
            CredentialStoreRequest(credentialID: id, format: format, credential: credential, metadata: metadata), expecting: CredentialStoreResult.self)
    }

    /// `credential.get`: one stored credential.
    public func credential(_ id: String) async throws(VaultError) -> CredentialRecord {
        try await perform(CredentialGetRequest(credentialID: id), expecting: CredentialRecord.self)
    }

    /// `credential.sync`: the credentials stored and the ids deleted after `version`, with the current version.
    public func syncCredentials(since version: Int64) async throws(VaultError) -> CredentialSyncResult {
        try await perform(CredentialSyncRequest(sinceVersion: version), expecting: CredentialSyncResult.self)
    }

    /// `credential.version`: the vault's current credential version.
    public func credentialVersion() async throws(VaultError) -> Int64 {
        try await perform(CredentialVersionRequest(), expecting: CredentialVersionResult.self).version
    }

    // MARK: credentials (this app's NATS credentials)

    /// `credentials.status`: this app's NATS credentials: their id, expiry and remaining lifetime.
    public func credentialsStatus() async throws(VaultError) -> CredentialsStatusResult {
        try await perform(CredentialsStatusRequest(), expecting: CredentialsStatusResult.self)
    }

    /// New NATS credentials from the vault, saved for the next connection.
    @discardableResult
    public func refreshCredentials(requestedTTLHours: Int? = nil) async throws(VaultError) -> CredentialsRefreshResult {
        let result = try await perform(CredentialsRefreshRequest(requestedTTLHours: requestedTTLHours), expecting: CredentialsRefreshResult.self)
        try adoptCredentials(result.credentials, credentialID: result.credentialID, expiresAt: result.expiresAt)
        return result
    }

    /// Opens credentials sealed under the current session and saves them (they are used at the next connect).
    func adoptCredentials(_ sealed: SealedCredentials, credentialID: String, expiresAt: Int64) throws(VaultError) {
        guard var current = state, let key = sessionKey, let creds = try? sealed.open(key: key, sessionID: current.sessionID) else {
            throw .invalidResponse("the new credentials do not open with the session key")
        }
        current.credentials = String(decoding: creds, as: UTF8.self)
        current.credentialID = credentialID
        current.credentialsExpireAt = expiresAt
        try keyStore.saveSession(current)
        state = current
    }
}
