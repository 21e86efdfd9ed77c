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

    public func addSecret(_ key: String, value: String, metadata: [String: String]? = nil) async throws(VaultError) -> DatastoreWriteResult {
        try await perform(DatastoreAddRequest(key: key, value: value, metadata: metadata), expecting: DatastoreWriteResult.self)
    }

    public func updateSecret(_ key: String, value: String, expectedVersion: Int64? = nil) async throws(VaultError) -> DatastoreWriteResult {
        try await perform(DatastoreUpdateRequest(key: key, value: value, expectedVersion: expectedVersion), expecting: DatastoreWriteResult.self)
    }

    public func secret(_ key: String) async throws(VaultError) -> DatastoreRetrieveResult {
        try await perform(DatastoreRetrieveRequest(key: key), expecting: DatastoreRetrieveResult.self)
    }

    public func deleteSecret(_ key: String) async throws(VaultError) -> DatastoreDeleteResult {
        try await perform(DatastoreDeleteRequest(key: key), expecting: DatastoreDeleteResult.self)
    }

    public func listSecrets(prefix: String? = nil, limit: Int = DatastoreListRequest.defaultLimit, cursor: String? = nil) async throws(VaultError) -> DatastoreListResult {
        try await perform(DatastoreListRequest(prefix: prefix, limit: limit, cursor: cursor), expecting: DatastoreListResult.self)
    }

    // MARK: profile

    public func profile(fields: [String]? = nil) async throws(VaultError) -> ProfileGetResult {
        try await perform(ProfileGetRequest(fields: fields), expecting: ProfileGetResult.self)
    }

    public func updateProfile(set: [String: String]? = nil, remove: [String]? = nil) async throws(VaultError) -> ProfileUpdateResult {
        try await perform(ProfileUpdateRequest(set: set, remove: remove), expecting: ProfileUpdateResult.self)
    }

    public func deleteProfile() async throws(VaultError) -> ProfileDeleteResult {
        try await perform(ProfileDeleteRequest(), expecting: ProfileDeleteResult.self)
    }

    // MARK: credential (the user's credentials kept in the vault)

    public func storeCredential(id: String? = nil, format: String, credential: String, metadata: [String: String]? = nil) async throws(VaultError) -> CredentialStoreResult {
        try await perform(
            CredentialStoreRequest(credentialID: id, format: format, credential: credential, metadata: metadata), expecting: CredentialStoreResult.self)
    }

    public func credential(_ id: String) async throws(VaultError) -> CredentialRecord {
        try await perform(CredentialGetRequest(credentialID: id), expecting: CredentialRecord.self)
    }

    public func syncCredentials(since version: Int64) async throws(VaultError) -> CredentialSyncResult {
        try await perform(CredentialSyncRequest(sinceVersion: version), expecting: CredentialSyncResult.self)
    }

    public func credentialVersion() async throws(VaultError) -> Int64 {
        try await perform(CredentialVersionRequest(), expecting: CredentialVersionResult.self).version
    }

    // MARK: credentials (this app's NATS credentials)

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
